//! Consumer unwinding throughput: one captured user stack (registers plus a
//! copy of the stack above sp, as a traced `ustack()` records it) unwound
//! with CFI and every frame symbolized, many times, through the caches
//! (address space, objects, framehop rules). Prints stacks per second.
//!
//! `cargo bench -p dtrace-usym` (x86-64 Linux).

use dtrace_usym::{Regs, UserSymbols};
use std::hint::black_box;
use std::time::Instant;

/// Bytes of stack copied above sp (the default `ustackbytes` guarantees at
/// least 4 KiB; 8 KiB here).
const COPY: u64 = 8192;

struct Captured {
    regs: Regs,
    stack: Vec<u8>,
}

#[inline(never)]
fn recurse(depth: u32) -> Captured {
    if depth == 0 {
        return capture();
    }
    let c = recurse(black_box(depth - 1));
    black_box(&c);
    c
}

#[inline(never)]
fn capture() -> Captured {
    let (ip, sp, bp): (u64, u64, u64);
    // SAFETY: reads three registers into locals; no memory is touched.
    unsafe {
        std::arch::asm!(
            "lea {ip}, [rip]",
            "mov {sp}, rsp",
            "mov {bp}, rbp",
            ip = out(reg) ip,
            sp = out(reg) sp,
            bp = out(reg) bp,
        );
    }
    // The mapping holding sp bounds the copy (its end is the stack's top).
    let end = dtrace_usym::maps::read(std::process::id())
        .and_then(|m| m.into_iter().find(|m| m.contains(sp)).map(|m| m.end))
        .unwrap_or(sp);
    let len = (end - sp).min(COPY) as usize;
    let mut stack = vec![0u8; len];
    // SAFETY: [sp, sp + len) lies in this thread's mapped stack (checked
    // against /proc/self/maps above), and the frames it holds outlive the copy.
    unsafe { std::ptr::copy_nonoverlapping(sp as *const u8, stack.as_mut_ptr(), len) };
    Captured {
        regs: Regs { ip, sp, bp },
        stack,
    }
}

fn main() {
    let c = std::thread::Builder::new()
        .stack_size(1 << 20)
        .spawn(|| recurse(24))
        .and_then(|t| {
            t.join()
                .map_err(|_| std::io::Error::other("capture thread"))
        })
        .unwrap_or_else(|e| panic!("capture: {e}"));
    let pid = std::process::id();
    let syms = UserSymbols::new();
    let frames = syms.unwind(pid, c.regs, c.regs.sp, &c.stack, 127);
    println!("frames per stack: {}", frames.len());
    for (i, f) in frames.iter().take(4).enumerate() {
        let text = if i == 0 {
            syms.describe(pid, *f)
        } else {
            syms.describe_return(pid, *f)
        };
        println!("  {text}");
    }
    assert!(frames.len() >= 25, "the recursion must unwind completely");
    let n = 200_000u32;
    let start = Instant::now();
    let mut total = 0usize;
    for _ in 0..n {
        let frames = syms.unwind(pid, c.regs, c.regs.sp, black_box(&c.stack), 127);
        for (i, f) in frames.iter().enumerate() {
            let t = if i == 0 {
                syms.describe(pid, *f)
            } else {
                syms.describe_return(pid, *f)
            };
            total += t.len();
        }
    }
    let secs = start.elapsed().as_secs_f64();
    black_box(total);
    println!(
        "unwind+symbolize: {n} stacks of {} frames in {secs:.2} s = {:.0} stacks/s",
        frames.len(),
        n as f64 / secs
    );
}
