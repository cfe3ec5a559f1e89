//! The printed order of aggregation rows (the `aggsort*` options), found by
//! sorting small (summary, row index) pairs rather than comparing rows.
//!
//! A row's summary is a few integers taken from what the full comparison
//! looks at first: its value (with `aggsortkey`, its first compared key) and
//! then its first compared key, as integers of the same order (an integer key
//! itself, a string key's first 8 bytes). Two rows whose summaries differ are
//! in the summaries' order; only rows with equal summaries need the full
//! comparison. Sorting 50,000 rows of distinct integer keys thus compares
//! integers, not decoded values.

use crate::aggregate::{cmp_rows, AggValue, Rows};
use crate::options::ConsumerOptions;
use crate::value::Value;
use dtrace_desc::AggFunc;
use std::cmp::Ordering;

/// A row to sort: its summary and index.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Ranked {
    summary: (u8, u64, u64),
    row: u32,
}

/// How the first compared key is summarized.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum KeyMode {
    /// Not at all (no keys, keys of other kinds, or rows with different keys).
    Opaque,
    /// As the integer the full comparison compares.
    Int,
    /// A string's first 8 bytes, big-endian, zero-padded (strings hold no NUL).
    Str,
}

/// An order-preserving unsigned image of a signed integer.
fn signed(v: i64) -> u64 {
    (v as u64) ^ (1 << 63)
}

/// An unsigned image of `f`'s total order (`f64::total_cmp`).
fn total(f: f64) -> u64 {
    let b = f.to_bits() as i64;
    signed(b ^ ((((b >> 63) as u64) >> 1) as i64))
}

/// A value's summary, or None when integers cannot order it (distributions).
fn value_rank(func: &AggFunc, v: Option<&AggValue>) -> Option<(u8, u64)> {
    if matches!(
        func,
        AggFunc::Quantize | AggFunc::Lquantize { .. } | AggFunc::Llquantize { .. }
    ) {
        return None;
    }
    Some(match v {
        None => (0, 0),
        Some(AggValue::Avg { count, sum }) => {
            let mean = if *count == 0 {
                0.0
            } else {
                *sum as f64 / *count as f64
            };
            (1, total(mean))
        }
        Some(AggValue::Dist(_)) => return None,
        Some(other) => (1, signed(other.scalar().unwrap_or(0))),
    })
}

/// How every row's key `j` can be summarized.
fn key_mode(rows: &Rows, keypos: usize) -> (KeyMode, usize) {
    let Some(n) = rows.first().map(|r| r.keys.len()).filter(|n| *n > 0) else {
        return (KeyMode::Opaque, 0);
    };
    let j = keypos % n;
    if rows.iter().any(|r| r.keys.len() != n) {
        return (KeyMode::Opaque, j);
    }
    let all = |f: fn(&Value) -> bool| rows.iter().all(|r| r.keys.get(j).is_some_and(f));
    if all(|k| matches!(k, Value::Int { .. } | Value::Pointer(_))) {
        (KeyMode::Int, j)
    } else if all(|k| matches!(k, Value::Str(_))) {
        (KeyMode::Str, j)
    } else {
        (KeyMode::Opaque, j)
    }
}

fn key_rank(mode: KeyMode, k: Option<&Value>) -> u64 {
    match (mode, k) {
        (KeyMode::Int, Some(k)) => k.as_u64(),
        (KeyMode::Str, Some(Value::Str(s))) => {
            let mut b = [0u8; 8];
            let n = s.len().min(8);
            b[..n].copy_from_slice(&s[..n]);
            u64::from_be_bytes(b)
        }
        _ => 0,
    }
}

/// Sets the printed order of `rows` as the options say (see `cmp_rows`),
/// using `order` as scratch space.
pub(crate) fn sort_rows(
    rows: &mut Rows,
    pos: usize,
    func: &AggFunc,
    opts: &ConsumerOptions,
    order: &mut Vec<Ranked>,
) {
    let keypos = opts.aggsortkeypos as usize;
    let (mode, j) = key_mode(rows, keypos);
    order.clear();
    order.reserve(rows.len());
    let mut indices = rows.take_order();
    let row = |i: u32| rows.added(i as usize);
    for &i in &indices {
        let Some(r) = row(i) else {
            continue;
        };
        let k = key_rank(mode, r.keys.get(j));
        let summary = if opts.aggsortkey {
            (0, k, 0)
        } else {
            match value_rank(func, r.values.get(pos).and_then(|v| v.as_ref())) {
                Some((c, v)) => (c, v, k),
                None => (0, 0, 0),
            }
        };
        order.push(Ranked { summary, row: i });
    }
    order.sort_unstable_by(|a, b| {
        let o = a.summary.cmp(&b.summary);
        let o = if opts.aggsortrev { o.reverse() } else { o };
        if o != Ordering::Equal {
            return o;
        }
        match (row(a.row), row(b.row)) {
            (Some(x), Some(y)) => cmp_rows(&x, &y, pos, func, opts),
            _ => Ordering::Equal,
        }
    });
    indices.clear();
    indices.extend(order.iter().map(|r| r.row));
    rows.set_order(indices);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::aggregate::Row;

    /// The summaries order rows as the full comparison does, in every mode.
    #[test]
    fn same_order_as_the_full_comparison() {
        let mut seed = 0x2545_f491_4f6c_dd1du64;
        let mut next = move || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed
        };
        let strs = ["", "a", "ab", "abcdefgh", "abcdefghi", "abcdefgha", "b"];
        for case in 0..8 {
            let mut rows = Rows::new(1, false);
            for _ in 0..300 {
                let key = if case % 2 == 0 {
                    Value::Int {
                        bits: next() % 50,
                        size: 8,
                        signed: true,
                    }
                } else {
                    let s = strs[(next() % strs.len() as u64) as usize];
                    Value::Str(s.as_bytes().to_vec())
                };
                let value = match next() % 4 {
                    0 => None,
                    1 => Some(AggValue::Scalar(next() as i64 % 3 - 1)),
                    _ => Some(AggValue::Scalar((next() % 5) as i64)),
                };
                let bytes = next().to_ne_bytes();
                let i = rows.push(&bytes, [Ok::<_, ()>(key)].into_iter());
                if let (Ok(i), Some(v)) = (i, value) {
                    rows.set(i, 0, v, Vec::new());
                }
            }
            let opts = ConsumerOptions {
                aggsortkey: case & 2 != 0,
                aggsortrev: case & 4 != 0,
                ..ConsumerOptions::default()
            };
            let mut want: Vec<Row<'_>> = rows.iter().collect();
            want.sort_by(|a, b| cmp_rows(a, b, 0, &AggFunc::Count, &opts));
            let want: Vec<Vec<u8>> = want.iter().map(|r| r.key.to_vec()).collect();
            sort_rows(&mut rows, 0, &AggFunc::Count, &opts, &mut Vec::new());
            let got: Vec<Vec<u8>> = rows.iter().map(|r| r.key.to_vec()).collect();
            assert_eq!(got, want, "case {case}");
        }
    }

    #[test]
    fn averages_and_float_images_keep_their_order() {
        let means = [-3.5, -0.0, 0.0, 1.25, f64::INFINITY];
        for w in means.windows(2) {
            assert!(total(w[0]) <= total(w[1]), "{w:?}");
        }
        assert!(signed(-1) < signed(0) && signed(i64::MAX) > signed(i64::MIN));
    }
}
