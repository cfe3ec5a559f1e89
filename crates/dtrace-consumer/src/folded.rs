//! `-x aggfmt=folded`: stack-keyed aggregations as folded stacks, the input of
//! flame-graph tools: one line per key, `root;frame;...;leaf count`.
//!
//! - frames root first (dtrace prints the leaf first), each `module`function`
//!   without its offset, or `0x...` where no symbol covers the address (user
//!   stacks too: `module`function`, or with `noresolve` `module:0xoffset`);
//! - a `;` inside a name becomes `:` (as stackcollapse.pl does);
//! - other keys of the tuple come first, as frames of their own, in key order;
//! - the count is the aggregation's value (after `normalize()`).
//!
//! Only an aggregation with a stack key and a scalar value folds; any other
//! prints as usual.

use crate::aggregate::{AggValue, Rows};
use crate::printf::Env;
use crate::value::Value;
use dtrace_desc::{AggDesc, ValueType};

/// Whether `agg` folds: a stack among its keys and a scalar value.
pub fn folds(agg: &AggDesc) -> bool {
    let scalar = !matches!(
        agg.func,
        dtrace_desc::AggFunc::Quantize
            | dtrace_desc::AggFunc::Lquantize { .. }
            | dtrace_desc::AggFunc::Llquantize { .. }
    );
    scalar
        && agg.keys.iter().any(|k| {
            matches!(
                k.ty,
                ValueType::Stack { .. } | ValueType::UserStack { depth: false, .. }
            )
        })
}

fn frame(name: &str, out: &mut Vec<u8>) {
    if !out.is_empty() && out.last() != Some(&b'\n') {
        out.push(b';');
    }
    out.extend(name.bytes().map(|c| if c == b';' { b':' } else { c }));
}

/// Appends the folded lines of `rows` (value `pos` of each row) to `out`.
pub fn print_folded(rows: &Rows, pos: usize, normal: u64, env: &Env, out: &mut Vec<u8>) {
    let syms = &env.syms;
    for row in rows {
        let Some(value) = row.values.get(pos).and_then(|v| v.as_ref()) else {
            continue;
        };
        let mut line = Vec::new();
        for k in row.keys {
            match k {
                Value::Stack(pcs) => {
                    for &pc in syms.frames(pcs).iter().rev() {
                        frame(&syms.function(pc), &mut line);
                    }
                }
                Value::UStack { pid, pcs } => {
                    for f in crate::ustack::user_frames(*pid, pcs, env).iter().rev() {
                        match (&f.module, &f.function) {
                            (Some(m), Some((name, _))) => frame(&format!("{m}`{name}"), &mut line),
                            _ => frame(&f.symbol, &mut line),
                        }
                    }
                }
                Value::USym { kind, pid, addr } => frame(
                    &crate::ustack::usym_text(*kind, *pid, *addr, env),
                    &mut line,
                ),
                Value::Str(s) | Value::Bytes(s) => frame(&String::from_utf8_lossy(s), &mut line),
                other => frame(&other.decimal(), &mut line),
            }
        }
        let n = match value.normalized(normal) {
            v @ (AggValue::Scalar(_) | AggValue::Avg { .. } | AggValue::Stddev { .. }) => {
                v.scalar().unwrap_or(0)
            }
            AggValue::Dist(_) => continue,
        };
        out.extend_from_slice(&line);
        out.extend_from_slice(format!(" {n}\n").as_bytes());
    }
}
