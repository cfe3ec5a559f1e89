//! Aggregation snapshots: merging per-CPU values, sorting rows, and printing them
//! as dtrace(1) does (at exit and for printa).
//!
//! Row layout without a printa format (dt_print_aggs in libdtrace), derived from the
//! Oracle Linux DTrace guide "count" Example 8-12 (`  dirname` ... `1`, 69 columns):
//! - each string key: two spaces then the string left-aligned in 50 columns;
//! - each integer key: a space then the value right-aligned in 16 (8-byte), 8
//!   (4-byte), 5 (2-byte) or 3 (1-byte) columns (`tst.lquantize.d.out`'s
//!   `        0` key is a 4-byte int: 9 columns);
//! - each scalar value: a space then the value right-aligned in 16 columns;
//! - a distribution value: see [`crate::quantize`];
//! - then a newline (after a distribution this leaves a blank line).

use crate::consume::ConsumeError;
use crate::event::AggReport;
use crate::options::ConsumerOptions;
use crate::printf::{AggArg, Apply, Env, Format};
pub use crate::rows::{Row, RowIter, Rows};
use crate::value::{decode, mask, read_i64, read_uint, sign_extend, Value};
use crate::{packed, quantize};
use dtrace_desc::{AggDesc, AggEntries, AggFunc, ValueType};
use std::cmp::Ordering;
use std::collections::HashMap;

/// Where aggregation data comes from: the runtime reads the per-CPU BPF maps; tests
/// supply synthetic data.
pub trait AggSource {
    /// Adds all entries of aggregation `agg_id` now to `out`: each key's bytes
    /// and that key's value bytes on every CPU.
    fn snapshot(&mut self, agg_id: u32, out: &mut AggEntries);

    /// `clear()`: zero every value of aggregation `agg_id` on every CPU, keeping
    /// its keys, so that later snapshots count from zero.
    fn clear(&mut self, agg_id: u32);

    /// `trunc()`: remove one key (and its values) from aggregation `agg_id`.
    fn remove(&mut self, agg_id: u32, key: &[u8]);
}

/// A merged aggregation value.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum AggValue {
    /// count, sum, min, max.
    Scalar(i64),
    /// avg: count and sum.
    Avg { count: u64, sum: i64 },
    /// stddev: count, sum and 128-bit sum of squares.
    Stddev { count: u64, sum: i64, sumsq: u128 },
    /// quantize/lquantize/llquantize bucket counts.
    Dist(Vec<i64>),
}

fn isqrt(n: u128) -> u128 {
    if n < 2 {
        return n;
    }
    // Newton's method from an over-estimate; converges monotonically downward.
    let mut x = 1u128 << (128 - n.leading_zeros()).div_ceil(2);
    loop {
        let y = (x + n / x) / 2;
        if y >= x {
            return x;
        }
        x = y;
    }
}

impl AggValue {
    /// The integer dtrace prints for a scalar aggregation: avg is the truncated
    /// integer mean; stddev is the integer square root of
    /// `sumsq / count - (sum / count)^2` (integer divisions, as libdtrace computes it).
    pub fn scalar(&self) -> Option<i64> {
        match *self {
            AggValue::Scalar(v) => Some(v),
            AggValue::Avg { count, sum } => Some(if count == 0 {
                0
            } else {
                (sum as i128 / count as i128) as i64
            }),
            AggValue::Stddev { count, sum, sumsq } => {
                if count == 0 {
                    return Some(0);
                }
                let avg = (sum as i128 / count as i128).unsigned_abs();
                let mean_sq = sumsq / count as u128;
                let var = mean_sq.saturating_sub(avg.saturating_mul(avg));
                Some(isqrt(var).min(i64::MAX as u128) as i64)
            }
            AggValue::Dist(_) => None,
        }
    }

    fn cmp(&self, other: &AggValue, func: &AggFunc) -> Ordering {
        match (self, other) {
            (AggValue::Avg { count: c1, sum: s1 }, AggValue::Avg { count: c2, sum: s2 }) => {
                let a = if *c1 == 0 {
                    0.0
                } else {
                    *s1 as f64 / *c1 as f64
                };
                let b = if *c2 == 0 {
                    0.0
                } else {
                    *s2 as f64 / *c2 as f64
                };
                a.total_cmp(&b)
            }
            (AggValue::Dist(a), AggValue::Dist(b)) => quantize::weight(func, a)
                .cmp(&quantize::weight(func, b))
                .then_with(|| quantize::zero_count(func, a).cmp(&quantize::zero_count(func, b))),
            _ => self.scalar().cmp(&other.scalar()),
        }
    }
}

/// Merges one key's per-CPU values according to the aggregating function.
pub fn merge<'a, I>(func: &AggFunc, per_cpu: I) -> Result<AggValue, ConsumeError>
where
    I: IntoIterator<Item = &'a [u8]> + Clone,
{
    let size = func.value_size();
    let word = |b: &[u8], i: u32| read_i64(b, i * 8).map_err(ConsumeError::Decode);
    let uword = |b: &[u8], i: u32| read_uint(b, i * 8, 8).map_err(ConsumeError::Decode);
    let per_cpu = move || per_cpu.clone().into_iter();
    for b in per_cpu() {
        if b.len() < size as usize {
            return Err(ConsumeError::Truncated {
                what: "aggregation value",
                need: size as usize,
                have: b.len(),
            });
        }
    }
    Ok(match func {
        AggFunc::Count | AggFunc::Sum => {
            let mut t = 0i64;
            for b in per_cpu() {
                t = t.wrapping_add(word(b, 0)?);
            }
            AggValue::Scalar(t)
        }
        AggFunc::Avg => {
            let (mut count, mut sum) = (0u64, 0i64);
            for b in per_cpu() {
                count = count.wrapping_add(uword(b, 0)?);
                sum = sum.wrapping_add(word(b, 1)?);
            }
            AggValue::Avg { count, sum }
        }
        AggFunc::Min | AggFunc::Max => {
            let is_min = matches!(func, AggFunc::Min);
            // A key with no data on any CPU (after clear()) shows 0, as dtrace's
            // zeroed data does.
            let mut best: Option<i64> = None;
            for b in per_cpu() {
                if uword(b, 0)? == 0 {
                    continue;
                }
                let v = word(b, 1)?;
                best = Some(match best {
                    None => v,
                    Some(x) if is_min => x.min(v),
                    Some(x) => x.max(v),
                });
            }
            AggValue::Scalar(best.unwrap_or(0))
        }
        AggFunc::Stddev => {
            let (mut count, mut sum, mut sumsq) = (0u64, 0i64, 0u128);
            for b in per_cpu() {
                count = count.wrapping_add(uword(b, 0)?);
                sum = sum.wrapping_add(word(b, 1)?);
                let lo = uword(b, 2)? as u128;
                let hi = uword(b, 3)? as u128;
                sumsq = sumsq.wrapping_add(lo | (hi << 64));
            }
            AggValue::Stddev { count, sum, sumsq }
        }
        AggFunc::Quantize | AggFunc::Lquantize { .. } | AggFunc::Llquantize { .. } => {
            let n = size / 8;
            let mut buckets = vec![0i64; n as usize];
            for b in per_cpu() {
                for (i, slot) in buckets.iter_mut().enumerate() {
                    *slot = slot.wrapping_add(word(b, i as u32)?);
                }
            }
            AggValue::Dist(buckets)
        }
    })
}

impl AggValue {
    /// The value as printed after `normalize(@, normal)`: scalars (and avg's and
    /// stddev's sums) divided by `normal`; distributions keep their counts (the
    /// printer divides the printed counts, not the bars).
    pub fn normalized(&self, normal: u64) -> AggValue {
        if normal <= 1 {
            return self.clone();
        }
        let n = normal.min(i64::MAX as u64) as i64;
        match *self {
            AggValue::Scalar(v) => AggValue::Scalar(v / n),
            AggValue::Avg { count, sum } => AggValue::Avg {
                count,
                sum: sum / n,
            },
            AggValue::Stddev { count, sum, sumsq } => AggValue::Stddev {
                count,
                sum: sum / n,
                sumsq: sumsq / normal as u128,
            },
            AggValue::Dist(ref d) => AggValue::Dist(d.clone()),
        }
    }
}

fn cmp_key(a: &Value, b: &Value) -> Ordering {
    match (a, b) {
        (Value::Str(x), Value::Str(y)) | (Value::Bytes(x), Value::Bytes(y)) => x.cmp(y),
        (Value::Stack(x), Value::Stack(y)) => x.cmp(y),
        (Value::UStack { pid: p, pcs: x }, Value::UStack { pid: q, pcs: y }) => (p, x).cmp(&(q, y)),
        // libdtrace compares integer keys as unsigned values of their size, so
        // negative keys sort after the positive ones.
        _ => a.as_u64().cmp(&b.as_u64()),
    }
}

fn cmp_keys(a: &[Value], b: &[Value], start: usize) -> Ordering {
    let n = a.len().min(b.len());
    for i in 0..n {
        let j = (start + i) % n;
        let o = cmp_key(&a[j], &b[j]);
        if o != Ordering::Equal {
            return o;
        }
    }
    a.len().cmp(&b.len())
}

/// Keys naming the same user function or module are one entry (only
/// user-symbol keys can meet; the kernel's keys are distinct): `snapshot`'s
/// entries with their keys normalized, each key once with the values of every
/// entry that has it, in the order first seen.
fn merge_user_keys(
    agg: &AggDesc,
    snapshot: &AggEntries,
    env: &Env,
    seen: &mut HashMap<String, (u64, u64)>,
    out: &mut AggEntries,
) {
    let mut groups: Vec<(Vec<u8>, Vec<usize>)> = Vec::new();
    let mut by_key: HashMap<Vec<u8>, usize> = HashMap::new();
    for (i, e) in snapshot.iter().enumerate() {
        let mut key = e.key.to_vec();
        crate::ustack::normalize_key(agg, &mut key, env, seen);
        match by_key.get(&key) {
            Some(&g) => {
                if let Some(group) = groups.get_mut(g) {
                    group.1.push(i);
                }
            }
            None => {
                by_key.insert(key.clone(), groups.len());
                groups.push((key, vec![i]));
            }
        }
    }
    for (key, members) in groups {
        out.begin(&key);
        for e in members.iter().filter_map(|&i| snapshot.get(i)) {
            for v in e.values() {
                out.value(v);
            }
        }
    }
}

/// The buffers one snapshot reads aggregations into, kept for the next.
#[derive(Debug, Clone, Default)]
pub struct ReadBufs {
    entries: AggEntries,
    merged: AggEntries,
    order: Vec<crate::aggsort::Ranked>,
}

/// Every aggregation's rows at one moment (libdtrace keeps its snapshot in
/// the handle the same way), kept so that the next snapshot reuses their
/// memory and its read buffers.
#[derive(Debug, Clone, Default)]
pub struct Snapshot {
    pub(crate) reports: Vec<AggReport>,
    pub(crate) bufs: ReadBufs,
}

impl Snapshot {
    /// No snapshot yet.
    pub fn new() -> Snapshot {
        Snapshot::default()
    }

    /// Every aggregation in ID order, each with its rows sorted.
    pub fn reports(&self) -> &[AggReport] {
        &self.reports
    }

    /// The reports, owned (the next snapshot starts from empty buffers).
    pub fn into_reports(self) -> Vec<AggReport> {
        self.reports
    }
}

/// Snapshots, merges, joins (by key) and sorts the rows of `aggs`.
pub fn collect_rows(
    aggs: &[&AggDesc],
    source: &mut dyn AggSource,
    opts: &ConsumerOptions,
    env: &Env,
) -> Result<Rows, ConsumeError> {
    let mut rows = Rows::default();
    collect_rows_into(aggs, source, opts, env, &mut ReadBufs::default(), &mut rows)?;
    Ok(rows)
}

/// [`collect_rows`] into `rows`, reusing its memory (an earlier snapshot's)
/// and that of `bufs`: a snapshot like the one before allocates nothing but
/// its string keys.
pub fn collect_rows_into(
    aggs: &[&AggDesc],
    source: &mut dyn AggSource,
    opts: &ConsumerOptions,
    env: &Env,
    bufs: &mut ReadBufs,
    rows: &mut Rows,
) -> Result<(), ConsumeError> {
    let mut seen = HashMap::new();
    // Each key's row (the sort below decides the printed order, ties broken
    // by the key's bytes).
    let mut by_key: HashMap<Vec<u8>, usize> = HashMap::new();
    rows.reset(aggs.len(), opts.aggpercpu);
    for (pos, agg) in aggs.iter().enumerate() {
        bufs.entries.clear();
        source.snapshot(agg.id, &mut bufs.entries);
        let user = agg
            .keys
            .iter()
            .any(|f| matches!(f.ty, ValueType::UserSym { .. }));
        let entries = if user {
            bufs.merged.clear();
            merge_user_keys(agg, &bufs.entries, env, &mut seen, &mut bufs.merged);
            &bufs.merged
        } else {
            &bufs.entries
        };
        if pos == 0 {
            let key_size = entries.get(0).map_or(0, |e| e.key.len());
            rows.reserve(entries.len(), agg.keys.len(), key_size);
        }
        for e in entries.iter() {
            let value = merge(&agg.func, e.values())?;
            let cpus = if opts.aggpercpu {
                e.values()
                    .map(|v| merge(&agg.func, [v]))
                    .collect::<Result<Vec<_>, _>>()?
            } else {
                Vec::new()
            };
            // One aggregation's keys are distinct: only a join needs the index.
            let found = if aggs.len() > 1 {
                by_key.get(e.key).copied()
            } else {
                None
            };
            let at = match found {
                Some(i) => i,
                None => {
                    let keys = agg.keys.iter().map(|f| decode(f, e.key));
                    let i = rows.push(e.key, keys).map_err(ConsumeError::Decode)?;
                    if aggs.len() > 1 {
                        by_key.insert(e.key.to_vec(), i);
                    }
                    i
                }
            };
            rows.set(at, pos, value, cpus);
        }
    }
    let pos = (opts.aggsortpos as usize).min(aggs.len().saturating_sub(1));
    let func = aggs.get(pos).map(|a| a.func).unwrap_or(AggFunc::Count);
    crate::aggsort::sort_rows(rows, pos, &func, opts, &mut bufs.order);
    Ok(())
}

/// The printed order of two rows: by aggregation `pos`'s value (of function
/// `func`) then by key, or by key then value with `aggsortkey`, reversed with
/// `aggsortrev`; ties broken by the key's bytes.
pub(crate) fn cmp_rows(
    a: &Row<'_>,
    b: &Row<'_>,
    pos: usize,
    func: &AggFunc,
    opts: &ConsumerOptions,
) -> Ordering {
    let keypos = opts.aggsortkeypos as usize;
    let by_value = || match (
        a.values.get(pos).and_then(|v| v.as_ref()),
        b.values.get(pos).and_then(|v| v.as_ref()),
    ) {
        (Some(x), Some(y)) => x.cmp(y, func),
        (x, y) => x.is_some().cmp(&y.is_some()),
    };
    let o = if opts.aggsortkey {
        cmp_keys(a.keys, b.keys, keypos).then_with(by_value)
    } else {
        by_value().then_with(|| cmp_keys(a.keys, b.keys, keypos))
    };
    if opts.aggsortrev { o.reverse() } else { o }.then_with(|| a.key.cmp(b.key))
}

/// A key as dtrace prints it in an aggregation row.
fn print_key(v: &Value, env: &Env, out: &mut Vec<u8>) {
    match v {
        // Aggregation keys print by size, as the aggregation tests expect:
        // 1- and 2-byte keys unsigned, 4- and 8-byte keys signed.
        Value::Int { bits, size, .. } => {
            let s = match size {
                1 => format!(" {:>3}", mask(*bits, 1)),
                2 => format!(" {:>5}", mask(*bits, 2)),
                4 => format!(" {:>8}", sign_extend(*bits, 4)),
                _ => format!(" {:>16}", *bits as i64),
            };
            out.extend_from_slice(s.as_bytes());
        }
        Value::Pointer(p) => out.extend_from_slice(format!(" {:>16}", *p as i64).as_bytes()),
        Value::Str(s) => {
            out.extend_from_slice(b"  ");
            out.extend_from_slice(s);
            out.resize(out.len() + 50usize.saturating_sub(s.len()), b' ');
        }
        Value::Bytes(b) => crate::text::print_bytes(b, 50, false, false, out),
        // A stack key: its frames on lines of their own; the value follows on
        // the line after the last frame.
        Value::Stack(pcs) => crate::symbols::print_stack(pcs, &env.syms, env.stackindent, out),
        Value::UStack { pid, pcs } => crate::ustack::print_ustack(*pid, pcs, env, out),
        Value::UCapture(c) => crate::ustack::print_capture(c, env, out),
        Value::USym { kind, pid, addr } => crate::ustack::print_usym(*kind, *pid, *addr, env, out),
    }
}

/// Prints rows without a format (printa without format, and at exit).
/// `normals[i]` is aggregation `i`'s normalization factor (1 when not normalized).
pub fn print_rows(
    aggs: &[&AggDesc],
    normals: &[u64],
    rows: &Rows,
    opts: &ConsumerOptions,
    env: &Env,
    out: &mut Vec<u8>,
) {
    if let [agg] = aggs {
        if opts.aggpack && matches!(agg.func, AggFunc::Quantize | AggFunc::Lquantize { .. }) {
            print_packed(&agg.func, rows, opts, out);
            return;
        }
    }
    for row in rows {
        for k in row.keys {
            print_key(k, env, out);
        }
        for (i, (agg, v)) in aggs.iter().zip(row.values.iter()).enumerate() {
            let normal = normals.get(i).copied().unwrap_or(1);
            print_value(&agg.func, v.as_ref(), normal, opts.aggzoom, out);
            // aggpercpu: each CPU's own value after the total.
            for (cpu, cv) in row.per_cpu.get(i).into_iter().flatten().enumerate() {
                out.extend_from_slice(format!("\n    [CPU {cpu}]").as_bytes());
                print_value(&agg.func, Some(cv), normal, opts.aggzoom, out);
            }
        }
        out.push(b'\n');
    }
}

/// `aggpack`: one header, then one packed line per row.
fn print_packed(func: &AggFunc, rows: &Rows, opts: &ConsumerOptions, out: &mut Vec<u8>) {
    let empty = empty_value(func);
    let counts: Vec<&[i64]> = rows
        .iter()
        .map(
            |r| match r.values.first().and_then(|v| v.as_ref()).unwrap_or(&empty) {
                AggValue::Dist(c) => c.as_slice(),
                _ => &[],
            },
        )
        .collect();
    let Some(first) = rows.first() else {
        return;
    };
    let range = packed::range(func, &counts);
    out.extend_from_slice(packed::header(func, first.keys, range.0, range.1).as_bytes());
    for (row, c) in rows.iter().zip(counts.iter()) {
        packed::keys(row.keys, out);
        packed::row(func, c, range, opts.aggzoom, opts.utf8, out);
    }
}

fn empty_value(func: &AggFunc) -> AggValue {
    match func {
        AggFunc::Quantize | AggFunc::Lquantize { .. } | AggFunc::Llquantize { .. } => {
            AggValue::Dist(vec![0; (func.value_size() / 8) as usize])
        }
        _ => AggValue::Scalar(0),
    }
}

fn print_value(func: &AggFunc, v: Option<&AggValue>, normal: u64, zoom: bool, out: &mut Vec<u8>) {
    let empty = empty_value(func);
    let v = v.unwrap_or(&empty);
    match v {
        AggValue::Dist(counts) => quantize::render(func, counts, normal, zoom, out),
        other => {
            let n = other.normalized(normal).scalar().unwrap_or(0);
            out.extend_from_slice(format!(" {n:>16}").as_bytes());
        }
    }
}

/// Prints rows through a printa format: ordinary conversions take the keys in
/// order, `%@` conversions take the aggregations' values in order. A row missing
/// from one of the aggregations shows that aggregation's empty value (0).
pub fn print_rows_formatted(
    aggs: &[&AggDesc],
    normals: &[u64],
    rows: &Rows,
    fmt: &Format,
    zoom: bool,
    env: &Env,
    out: &mut Vec<u8>,
) {
    for row in rows {
        let args: Vec<AggArg> = aggs
            .iter()
            .zip(row.values.iter())
            .enumerate()
            .map(|(i, (agg, v))| {
                let normal = normals.get(i).copied().unwrap_or(1);
                let empty = empty_value(&agg.func);
                match v.as_ref().unwrap_or(&empty) {
                    AggValue::Dist(counts) => {
                        let mut text = Vec::new();
                        quantize::render(&agg.func, counts, normal, zoom, &mut text);
                        AggArg::Rendered(text)
                    }
                    other => {
                        AggArg::Value(Value::i64(other.normalized(normal).scalar().unwrap_or(0)))
                    }
                }
            })
            .collect();
        fmt.apply_env(row.keys, &args, env, out);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn isqrt_exact() {
        for n in [0u128, 1, 2, 3, 4, 15, 16, 17, 1 << 100, u128::MAX] {
            let r = isqrt(n);
            assert!(r * r <= n, "{n}");
            assert!((r + 1).checked_mul(r + 1).map_or(true, |s| s > n), "{n}");
        }
    }
}
