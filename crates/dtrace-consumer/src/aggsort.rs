//! The printed order of aggregation rows (the `aggsort*` options), found by
//! sorting small (summary, row index) pairs and then moving each row once,
//! rather than sorting the rows themselves with the full comparison.
//!
//! A row's summary is a few integers taken from what the full comparison
//! looks at first: its value (with `aggsortkey`, its first compared key) and
//! then its first compared key, as integers of the same order (an integer key
//! itself, a string key's first 8 bytes). Two rows whose summaries differ are
//! in the summaries' order; only rows with equal summaries need the full
//! comparison. Sorting 50,000 rows of distinct integer keys thus compares
//! integers, not decoded values.

use crate::aggregate::{cmp_rows, AggValue, Row};
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
fn key_mode(rows: &[Row], keypos: usize) -> (KeyMode, usize) {
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

/// Sorts `rows` as the options say (see `cmp_rows`), using `order` as
/// scratch space.
pub(crate) fn sort_rows(
    rows: &mut [Row],
    pos: usize,
    func: &AggFunc,
    opts: &ConsumerOptions,
    order: &mut Vec<Ranked>,
) {
    let keypos = opts.aggsortkeypos as usize;
    let (mode, j) = key_mode(rows, keypos);
    order.clear();
    order.reserve(rows.len());
    for (i, r) in rows.iter().enumerate() {
        let k = key_rank(mode, r.keys.get(j));
        let summary = if opts.aggsortkey {
            (0, k, 0)
        } else {
            match value_rank(func, r.values.get(pos).and_then(|v| v.as_ref())) {
                Some((c, v)) => (c, v, k),
                None => (0, 0, 0),
            }
        };
        order.push(Ranked {
            summary,
            row: i as u32,
        });
    }
    order.sort_unstable_by(|a, b| {
        let o = a.summary.cmp(&b.summary);
        let o = if opts.aggsortrev { o.reverse() } else { o };
        if o != Ordering::Equal {
            return o;
        }
        match (rows.get(a.row as usize), rows.get(b.row as usize)) {
            (Some(x), Some(y)) => cmp_rows(x, y, pos, func, opts),
            _ => Ordering::Equal,
        }
    });
    // Position i takes the row at order[i]: follow each cycle once, marking
    // each position done by pointing it at itself.
    for i in 0..order.len() {
        let mut at = i;
        while let Some(r) = order.get_mut(at) {
            let next = r.row as usize;
            r.row = at as u32;
            if next == i || next == at {
                break;
            }
            rows.swap(at, next);
            at = next;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(key: Value, value: Option<AggValue>) -> Row {
        Row {
            key: key.as_u64().to_ne_bytes().to_vec(),
            keys: vec![key],
            values: vec![value],
            per_cpu: Vec::new(),
        }
    }

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
            let mut rows: Vec<Row> = (0..300)
                .map(|_| {
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
                    let v = match next() % 4 {
                        0 => None,
                        1 => Some(AggValue::Scalar(next() as i64 % 3 - 1)),
                        _ => Some(AggValue::Scalar((next() % 5) as i64)),
                    };
                    let mut r = row(key, v);
                    r.key.extend_from_slice(&next().to_ne_bytes());
                    r
                })
                .collect();
            let opts = ConsumerOptions {
                aggsortkey: case & 2 != 0,
                aggsortrev: case & 4 != 0,
                ..ConsumerOptions::default()
            };
            let mut want = rows.clone();
            want.sort_by(|a, b| cmp_rows(a, b, 0, &AggFunc::Count, &opts));
            sort_rows(&mut rows, 0, &AggFunc::Count, &opts, &mut Vec::new());
            let keys = |r: &[Row]| r.iter().map(|r| r.key.clone()).collect::<Vec<_>>();
            assert_eq!(keys(&rows), keys(&want), "case {case}");
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
