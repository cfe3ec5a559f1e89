//! User stacks and user symbols as dtrace(1) prints them: `ustack()` frames
//! and `uaddr()` as `module`function+0xoff`, `usym()`/`ufunc()` as
//! `module`function`, `umod()` as the module; with `-x noresolve` an address
//! prints as `module:0xoffset` (its offset in the mapping that holds it).
//! Names come from [`dtrace_usym::UserSymbols`], which keeps each process's
//! address space after it exits.

use crate::printf::Env;
use crate::value::{UserCapture, Value};
use dtrace_desc::{AggDesc, StackKind, ValueType};
use dtrace_usym::{Regs, UserSymbols};
use std::collections::HashMap;

/// One frame or `uaddr()`: the address with its offset in its function.
fn describe(pid: u64, addr: u64, env: &Env) -> String {
    let pid = u32::try_from(pid).unwrap_or(0);
    if env.noresolve {
        env.usyms.unresolved(pid, addr)
    } else {
        env.usyms.describe(pid, addr)
    }
}

/// Appends a user stack as dtrace(1) prints it: a newline, then one frame
/// per line indented by the stack indent.
pub fn print_ustack(pid: u64, pcs: &[u64], env: &Env, out: &mut Vec<u8>) {
    out.push(b'\n');
    for (i, &pc) in pcs.iter().take_while(|&&pc| pc != 0).enumerate() {
        out.resize(out.len() + env.stackindent, b' ');
        let text = if i == 0 || env.noresolve {
            describe(pid, pc, env)
        } else {
            // Frames after the first are return addresses.
            env.usyms
                .describe_return(u32::try_from(pid).unwrap_or(0), pc)
        };
        out.extend_from_slice(text.as_bytes());
        out.push(b'\n');
    }
}

/// One user frame's parts, for structured output.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UserFrame {
    /// The frame as the text output prints it.
    pub symbol: String,
    /// The object holding the address, when known.
    pub module: Option<String>,
    /// The function and the offset in it, when known (not with `noresolve`).
    pub function: Option<(String, u64)>,
}

/// The frames of a user stack with their parts, innermost first, each as
/// [`print_ustack`] prints it.
pub fn user_frames(pid: u64, pcs: &[u64], env: &Env) -> Vec<UserFrame> {
    let p = u32::try_from(pid).unwrap_or(0);
    pcs.iter()
        .take_while(|&&pc| pc != 0)
        .enumerate()
        .map(|(i, &pc)| {
            if i == 0 || env.noresolve {
                let r = env.usyms.resolve(p, pc);
                UserFrame {
                    symbol: describe(pid, pc, env),
                    module: r.module,
                    function: if env.noresolve { None } else { r.function },
                }
            } else {
                // A return address: looked up one byte before it.
                let r = env.usyms.resolve(p, pc.wrapping_sub(1));
                UserFrame {
                    symbol: env.usyms.describe_return(p, pc),
                    module: r.module,
                    function: r.function.map(|(f, off)| (f, off.wrapping_add(1))),
                }
            }
        })
        .collect()
}

/// The frames of a captured user stack: unwound with CFI from its registers
/// and stack copy, or the frame-pointer frames when those are more.
pub fn capture_frames(c: &UserCapture, max: usize, syms: &UserSymbols) -> Vec<u64> {
    let fp: Vec<u64> = c.pcs.iter().copied().take_while(|&pc| pc != 0).collect();
    if c.stack.is_empty() || c.ip == 0 {
        return fp;
    }
    let regs = Regs {
        ip: c.ip,
        sp: c.sp,
        bp: c.bp,
    };
    let pid = u32::try_from(c.pid).unwrap_or(0);
    let unwound = syms.unwind(pid, regs, c.stack_addr, &c.stack, max);
    if unwound.len() >= fp.len() {
        unwound
    } else {
        fp
    }
}

/// A traced or printed value as its event carries it: a captured user stack
/// becomes the [`Value::UStack`] of its unwound frames (the stack copy stays
/// here), a recorded `ustackdepth` the number of those frames (a `uint_t`,
/// as the variable is typed); any other value is itself.
pub fn settle(v: Value, env: &Env) -> Value {
    match v {
        Value::UCapture(c) if c.depth => {
            let n = capture_frames(&c, c.pcs.len(), &env.usyms).len();
            Value::Int {
                bits: n as u64,
                size: 4,
                signed: false,
            }
        }
        Value::UCapture(c) => {
            let pcs = capture_frames(&c, c.pcs.len(), &env.usyms);
            Value::UStack { pid: c.pid, pcs }
        }
        v => v,
    }
}

/// Appends a captured user stack (see [`capture_frames`]).
pub fn print_capture(c: &UserCapture, env: &Env, out: &mut Vec<u8>) {
    let pcs = capture_frames(c, c.pcs.len(), &env.usyms);
    print_ustack(c.pid, &pcs, env, out);
}

/// The text of a user symbol value of `kind`.
pub fn usym_text(kind: StackKind, pid: u64, addr: u64, env: &Env) -> String {
    let p = u32::try_from(pid).unwrap_or(0);
    match kind {
        StackKind::UMod => env.usyms.module(p, addr),
        StackKind::KSym => env.syms.function(addr),
        StackKind::KMod => env.syms.module(addr),
        StackKind::USym | StackKind::UFunc => {
            let start = env.usyms.resolve(p, addr).function_start.unwrap_or(addr);
            if env.noresolve {
                env.usyms.unresolved(p, start)
            } else {
                env.usyms.function(p, addr)
            }
        }
        _ => describe(pid, addr, env),
    }
}

/// A user symbol as a trace record or an aggregation key prints it: two
/// spaces, then the text left-aligned in 50 columns.
pub fn print_usym(kind: StackKind, pid: u64, addr: u64, env: &Env, out: &mut Vec<u8>) {
    let text = usym_text(kind, pid, addr, env);
    out.extend_from_slice(format!("  {text:<50}").as_bytes());
}

/// Rewrites the user symbol fields of an aggregation key so that keys that
/// print the same become equal, as libdtrace merges them: `usym`/`ufunc`
/// keys by function, `umod` keys by module, `uaddr` keys by address, also
/// across processes running the same object. `seen` maps each printed text
/// to the first (pid, address) that printed it.
pub fn normalize_key(
    agg: &AggDesc,
    key: &mut [u8],
    env: &Env,
    seen: &mut HashMap<String, (u64, u64)>,
) {
    for f in &agg.keys {
        let ValueType::UserSym { kind } = f.ty else {
            continue;
        };
        let at = f.offset as usize;
        let (Some(pid), Some(addr)) = (word(key, at), word(key, at + 8)) else {
            continue;
        };
        let text = usym_text(kind, pid, addr, env);
        if text.starts_with("0x") {
            continue;
        }
        let (p, a) = *seen.entry(text).or_insert((pid, addr));
        if let Some(slot) = key.get_mut(at..at + 16) {
            slot[..8].copy_from_slice(&p.to_ne_bytes());
            slot[8..].copy_from_slice(&a.to_ne_bytes());
        }
    }
}

fn word(b: &[u8], at: usize) -> Option<u64> {
    let w = b.get(at..at + 8)?;
    let mut a = [0u8; 8];
    a.copy_from_slice(w);
    Some(u64::from_ne_bytes(a))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::value::decode;
    use dtrace_desc::{Field, USTACK_PAGE, USTACK_REGS};

    /// A recorded `ustackdepth` of `frames` slots holding `pcs`, with
    /// registers but no stack copy (so only the frame-pointer frames count).
    fn depth_record(frames: u32, pcs: &[u64]) -> (Field, Vec<u8>) {
        let ty = ValueType::UserStack {
            frames,
            pages: 1,
            depth: true,
        };
        let mut b = vec![0u8; ty.size() as usize];
        b[..8].copy_from_slice(&42u64.to_ne_bytes());
        for (i, pc) in pcs.iter().enumerate() {
            b[8 + i * 8..16 + i * 8].copy_from_slice(&pc.to_ne_bytes());
        }
        assert_eq!(
            b.len() as u32,
            8 + frames * 8 + USTACK_REGS * 8 + USTACK_PAGE
        );
        (Field { offset: 0, ty }, b)
    }

    #[test]
    fn a_recorded_ustackdepth_settles_to_its_frame_count() {
        let (f, b) = depth_record(8, &[0x1000, 0x2000, 0x3000]);
        let v = decode(&f, &b).expect("decodes");
        assert!(matches!(&v, Value::UCapture(c) if c.depth));
        let env = Env::default();
        let settled = settle(v, &env);
        assert_eq!(settled.as_u64(), 3);
        assert!(matches!(
            settled,
            Value::Int {
                size: 4,
                signed: false,
                ..
            }
        ));
    }

    #[test]
    fn the_same_capture_as_ustack_prints_as_many_frames() {
        let (f, b) = depth_record(8, &[0x1000, 0x2000, 0x3000]);
        let env = Env::default();
        let Value::UCapture(mut c) = decode(&f, &b).expect("decodes") else {
            panic!("a capture");
        };
        c.depth = false;
        let mut out = Vec::new();
        print_capture(&c, &env, &mut out);
        let lines = out.split(|&b| b == b'\n').filter(|l| !l.is_empty()).count();
        assert_eq!(lines, 3);
    }
}
