//! Compiler benchmarks (`cargo bench -p dtrace --bench compiler`):
//!
//! - compiling a generated 1,000-line D script (parse, probe matching, type
//!   checking: what `dtrace -e -s` does), and the same plus code generation
//!   (`-S`, which also disassembles);
//! - loading kernel BTF (`/sys/kernel/btf/vmlinux`) and importing
//!   `struct task_struct` from it.
//!
//! With `DTRACE_BENCH_SCRIPT=path` the generated script is also saved there
//! (to time the whole command: `dtrace -e -s path`). No root needed. Each measurement is repeated; the minimum and median are
//! printed. Results go to docs/PERFORMANCE.md ("Compiler").

use std::collections::HashMap;
use std::hint::black_box;
use std::time::{Duration, Instant};

use dtrace::{Dtrace, Source};

const SYSCALLS: &[&str] = &[
    "read", "write", "openat", "close", "mmap", "ioctl", "getppid", "futex", "poll", "lseek",
];

/// A D script of `lines` lines: clauses with predicates, arithmetic, clause-
/// local and thread-local variables, printf and every aggregating function.
pub fn generate(lines: usize) -> String {
    let mut s = String::from("#pragma D option quiet\n\n");
    let mut i = 0usize;
    while s.lines().count() < lines {
        let sc = SYSCALLS[i % SYSCALLS.len()];
        let body = match i % 5 {
            0 => format!(
                "\t@c{i}[execname, pid] = count();\n\tthis->x = (arg0 * {k} + arg1) / 3 - {i};\n\tprintf(\"%d %s %d\\n\", this->x, execname, tid);\n",
                k = i % 7 + 1
            ),
            1 => format!(
                "\tself->ts = timestamp;\n\t@s{i} = sum(arg2 & 0xff);\n\t@m{i}[probefunc] = max(arg0 << 2);\n"
            ),
            2 => format!(
                "\t@q{i} = quantize(timestamp - self->ts);\n\t@l{i} = lquantize(arg0 % 100, 0, 100, 10);\n\tself->ts = 0;\n"
            ),
            3 => format!(
                "\tx{i} = arg0 > {i} ? arg0 - {i} : {i} - arg0;\n\t@a{i}[uid] = avg(x{i});\n\tprintf(\"%s:%d %u\\n\", probefunc, x{i}, cpu);\n"
            ),
            _ => format!(
                "\t@ll{i} = llquantize(arg1, 10, 0, 6, 20);\n\t@mn{i} = min(arg0 ^ arg1);\n\ttrace(walltimestamp / 1000000);\n"
            ),
        };
        let pred = match i % 3 {
            0 => format!("/pid != {} && arg0 >= {}/", i + 1, i % 64),
            1 => format!("/execname != \"dtrace\" || arg1 == {}/", i),
            _ => "/self->ts != 0/".to_string(),
        };
        s.push_str(&format!("syscall::{sc}:entry\n{pred}\n{{\n{body}}}\n\n"));
        i += 1;
    }
    s
}

fn time<T>(runs: usize, mut f: impl FnMut() -> T) -> (Duration, Duration) {
    let mut v: Vec<Duration> = (0..runs)
        .map(|_| {
            let t = Instant::now();
            black_box(f());
            t.elapsed()
        })
        .collect();
    v.sort();
    (v[0], v[v.len() / 2])
}

fn report(what: &str, (min, median): (Duration, Duration)) {
    println!(
        "{what:<48} min {:>8.2} ms   median {:>8.2} ms",
        min.as_secs_f64() * 1e3,
        median.as_secs_f64() * 1e3
    );
}

fn main() {
    let text = generate(1000);
    // DTRACE_BENCH_SCRIPT=path saves the script, to time `dtrace -e -s path`.
    if let Some(path) = std::env::var_os("DTRACE_BENCH_SCRIPT") {
        if let Err(e) = std::fs::write(&path, &text) {
            eprintln!("cannot write {}: {e}", path.to_string_lossy());
        }
    }
    let lines = text.lines().count();
    let clauses = text.matches(":entry\n").count();
    let source = Source::Script {
        path: "bench.d".into(),
        text,
    };
    let args = vec!["bench.d".to_string()];
    let vars = HashMap::new();
    let compile = || {
        let mut d = match Dtrace::open(false) {
            Ok(d) => d,
            Err(e) => panic!("cannot open: {e}"),
        };
        if let Err(e) = d.compile(&source, &args, &vars) {
            panic!("the generated script does not compile:\n{}", e.message);
        }
        d
    };
    println!("generated script: {lines} lines, {clauses} clauses");
    report(
        "open handle (no kernel)",
        time(20, || Dtrace::open(false).is_ok()),
    );
    report(
        "compile 1,000 lines (open + parse + check)",
        time(20, compile),
    );
    report(
        "compile 1,000 lines + codegen + disassembly",
        time(5, || compile().disassemble().len()),
    );
    let btf = || {
        let mut t = dtrace_ctypes::TypeTable::with_builtins();
        t.load_kernel_btf().is_ok()
    };
    if !btf() {
        println!("kernel BTF not available: skipping the BTF measurements");
        return;
    }
    report("load kernel BTF (vmlinux)", time(20, btf));
    report(
        "load BTF + import struct task_struct",
        time(20, || {
            let mut t = dtrace_ctypes::TypeTable::with_builtins();
            let _ = t.load_kernel_btf();
            dtrace_ctypes::query::offset_of_path(&mut t, "struct task_struct", &["tgid"]).is_ok()
        }),
    );
}
