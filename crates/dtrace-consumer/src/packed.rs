//! The `aggpack` layout of quantize() and lquantize(): one line per key, each
//! bucket one character, under one header per aggregation (libdtrace's packed
//! histograms).
//!
//! Layout (from libdtrace's packed printers):
//! - header, once before the rows: `\n`, `key` right-aligned in the keys' packed
//!   width (each key counts its packed width plus one: 3, 5, 8 or 16 for 1-, 2-,
//!   4- or 8-byte integers, 16 for anything else; nothing when unkeyed), a space,
//!   `min` right-aligned in the min label's width, ` .`, one `-` per bucket,
//!   `. `, `max` left-aligned in the max label's width, ` | count`;
//! - row: the keys at their packed widths, a space, the lowest bucket's label,
//!   ` :`, one character per bucket, `: `, the highest bucket's label, ` | `,
//!   and the sum of the counts;
//! - quantize() shows the buckets from one below the lowest used bucket of any
//!   row (not below 0 or the zero bucket) to one above the highest; labels are
//!   the bucket values, at least 4 wide; lquantize() shows every bucket, labels
//!   `< base` (8 wide) and `>= limit`;
//! - a bucket's character: a space for 0; for negative counts one of `vvvvVV`;
//!   for positive ones U+2581..U+2588 (UTF-8) or `__xxxxXX` (ASCII), scaled to
//!   the row's total (its largest count over 0.95 with `aggzoom`).

use crate::value::Value;
use dtrace_desc::{quantize_bucket_value, AggFunc, QUANTIZE_NBUCKETS, QUANTIZE_ZERO_BUCKET};

/// `aggzoom`: the largest bucket fills this fraction of the bar.
pub const AGGZOOM_MAX: f64 = 0.95;

/// How wide libdtrace prints a number's label: digits (and sign), at least 4.
fn ndigits(v: i64) -> usize {
    let mut n = 1;
    let mut v = v;
    if v < 0 {
        v = if v == i64::MIN { i64::MAX } else { -v };
        n += 1;
    }
    let mut cmp: i64 = 10;
    while v > cmp && cmp > 0 {
        n += 1;
        cmp = cmp.wrapping_mul(10);
    }
    n.max(4)
}

/// The total bars are scaled to: the sum of |counts|, or with `zoom` the largest
/// |count| over [`AGGZOOM_MAX`].
pub fn total(counts: &[i64], zoom: bool) -> f64 {
    if zoom {
        counts
            .iter()
            .map(|c| c.unsigned_abs() as f64 / AGGZOOM_MAX)
            .fold(0.0, f64::max)
    } else {
        counts.iter().map(|c| c.unsigned_abs() as f64).sum()
    }
}

/// The bucket range the packed rows of `func` show, given every row's counts.
pub fn range(func: &AggFunc, rows: &[&[i64]]) -> (usize, usize) {
    let n = rows.iter().map(|r| r.len()).max().unwrap_or(0);
    let last = n.saturating_sub(1);
    match func {
        AggFunc::Quantize => {
            let used = |r: &&[i64]| {
                (
                    r.iter().position(|&c| c != 0),
                    r.iter().rposition(|&c| c != 0),
                )
            };
            let (mut lo, mut hi) = (None::<usize>, None::<usize>);
            for r in rows {
                if let (Some(a), Some(b)) = used(r) {
                    lo = Some(lo.map_or(a, |l| l.min(a)));
                    hi = Some(hi.map_or(b, |h| h.max(b)));
                }
            }
            let mut min = lo.unwrap_or(QUANTIZE_ZERO_BUCKET);
            let mut max = hi.unwrap_or(QUANTIZE_ZERO_BUCKET);
            if min != 0 && min != QUANTIZE_ZERO_BUCKET {
                min -= 1;
            }
            if max < QUANTIZE_NBUCKETS - 1 {
                max += 1;
            }
            (min.min(last), max.min(last))
        }
        _ => (0, last),
    }
}

fn labels(func: &AggFunc, n: usize, min: usize, max: usize) -> (String, String) {
    match *func {
        AggFunc::Lquantize { base, step, .. } => {
            let levels = n.saturating_sub(2) as i128;
            let top = base as i128 + levels * step as i128;
            (
                format!("{:>8}", format!("< {base}")),
                format!("{:<8}", format!(">= {top}")),
            )
        }
        _ => {
            let lo = quantize_bucket_value(min);
            let hi = quantize_bucket_value(max);
            (
                format!("{lo:>w$}", w = ndigits(lo)),
                format!("{hi:<w$}", w = ndigits(hi)),
            )
        }
    }
}

/// A key's width in the packed layout.
fn key_width(k: &Value) -> usize {
    match k {
        Value::Int { size: 1, .. } => 3,
        Value::Int { size: 2, .. } => 5,
        Value::Int { size: 4, .. } => 8,
        _ => 16,
    }
}

/// The header line (with its leading newline) for rows whose keys are `keys`.
pub fn header(func: &AggFunc, keys: &[Value], min: usize, max: usize) -> String {
    let width: usize = keys.iter().map(|k| key_width(k) + 1).sum();
    let (minw, maxw) = match func {
        AggFunc::Lquantize { .. } => (7, 8),
        _ => (
            ndigits(quantize_bucket_value(min)),
            ndigits(quantize_bucket_value(max)),
        ),
    };
    let dashes = max.saturating_sub(min) + 1;
    format!(
        "\n{:>width$} {:>minw$} .{}. {:<maxw$} | count\n",
        if width > 0 { "key" } else { "" },
        "min",
        "-".repeat(dashes),
        "max"
    )
}

/// One key's keys at their packed widths.
pub fn keys(keys: &[Value], out: &mut Vec<u8>) {
    for k in keys {
        let s = match k {
            Value::Int { .. } => format!(" {:>w$}", k.as_i64(), w = key_width(k)),
            Value::Pointer(p) => format!(" {:>16}", *p as i64),
            Value::Str(s) | Value::Bytes(s) => {
                format!("  {:<16}", String::from_utf8_lossy(s))
            }
            // A stack key in a packed row: its frames' addresses.
            Value::USym { addr, .. } => format!(" {addr:#x}"),
            Value::UCapture(c) => c
                .pcs
                .iter()
                .take_while(|&&pc| pc != 0)
                .map(|pc| format!(" {pc:#x}"))
                .collect(),
            Value::Stack(pcs) | Value::UStack { pcs, .. } => pcs
                .iter()
                .take_while(|&&pc| pc != 0)
                .map(|pc| format!(" {pc:#x}"))
                .collect(),
        };
        out.extend_from_slice(s.as_bytes());
    }
}

fn packed_char(datum: i64, total: f64, utf8: bool, out: &mut Vec<u8>) {
    if datum == 0 || total <= 0.0 {
        out.push(b' ');
        return;
    }
    let scaled = |levels: usize| -> usize {
        let v = datum.unsigned_abs() as f64 * (levels - 1) as f64 / total;
        ((v + 0.5) as usize).min(levels - 1)
    };
    if datum < 0 {
        out.push(b"vvvvVV"[scaled(6)]);
    } else if utf8 {
        let block = char::from_u32(0x2581 + scaled(8) as u32).unwrap_or('#');
        let mut b = [0u8; 4];
        out.extend_from_slice(block.encode_utf8(&mut b).as_bytes());
    } else {
        out.push(b"__xxxxXX"[scaled(8)]);
    }
}

/// One packed row (after its keys): labels, one character per bucket, the count.
pub fn row(
    func: &AggFunc,
    counts: &[i64],
    (min, max): (usize, usize),
    zoom: bool,
    utf8: bool,
    out: &mut Vec<u8>,
) {
    let shown = counts.get(min..=max).unwrap_or(&[]);
    let (lo, hi) = labels(func, counts.len(), min, max);
    let sep = match func {
        AggFunc::Lquantize { .. } => "",
        _ => " ",
    };
    out.extend_from_slice(format!("{sep}{lo} :").as_bytes());
    let t = total(shown, zoom);
    for &c in shown {
        packed_char(c, t, utf8, out);
    }
    let count: i128 = shown.iter().map(|&c| c as i128).sum();
    out.extend_from_slice(format!(": {hi} | {count}\n").as_bytes());
}
