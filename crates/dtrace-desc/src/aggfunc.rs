//! Aggregating functions, their parameters and the bucket arithmetic shared by the
//! code generator (which computes bucket indices in BPF) and the consumer (which
//! prints the buckets). `dtrace-codegen`'s `desc` re-exports all of it.

/// Aggregating functions and their parameters.
///
/// Value layouts in the per-CPU map (all native-endian 64-bit words):
/// - `Count`: `[count u64]`
/// - `Sum`: `[sum i64]`
/// - `Avg`: `[count u64, sum i64]`
/// - `Min`/`Max`: `[count u64, value i64]` (count == 0 means this CPU saw no value)
/// - `Stddev`: `[count u64, sum i64, sumsq_lo u64, sumsq_hi u64]` (sum of squares is 128-bit)
/// - `Quantize`: [`QUANTIZE_NBUCKETS`] `i64` bucket counts, see [`quantize_bucket_value`]
/// - `Lquantize`: `lquantize_nbuckets` `i64` counts: [below base, each step, at/above limit]
/// - `Llquantize`: [`llquantize_nbuckets`] `i64` counts in Oracle DTrace 2.x's layout,
///   see [`llquantize_bucket`]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AggKind {
    Count,
    Sum,
    Avg,
    Min,
    Max,
    Stddev,
    Quantize,
    Lquantize {
        base: i64,
        limit: i64,
        step: i64,
    },
    Llquantize {
        factor: u16,
        low: u16,
        high: u16,
        nsteps: u16,
    },
}

/// Number of quantize() buckets: 63 negative powers of two, zero, 63 positive.
pub const QUANTIZE_NBUCKETS: usize = 127;
/// Index of quantize()'s zero bucket.
pub const QUANTIZE_ZERO_BUCKET: usize = 63;

/// The lower bound of quantize() bucket `i`.
pub fn quantize_bucket_value(i: usize) -> i64 {
    use std::cmp::Ordering;
    match i.cmp(&QUANTIZE_ZERO_BUCKET) {
        Ordering::Less => -(1i64 << (QUANTIZE_ZERO_BUCKET - 1 - i)),
        Ordering::Equal => 0,
        Ordering::Greater => 1i64 << (i - QUANTIZE_ZERO_BUCKET - 1),
    }
}

/// Number of lquantize() buckets: one per step plus the underflow and overflow buckets.
pub fn lquantize_nbuckets(base: i64, limit: i64, step: i64) -> usize {
    if step <= 0 || limit <= base {
        return 2;
    }
    ((limit - base) / step) as usize + 2
}

impl AggKind {
    /// Size of one per-CPU value in bytes.
    pub fn value_size(&self) -> u32 {
        match *self {
            AggKind::Count | AggKind::Sum => 8,
            AggKind::Avg | AggKind::Min | AggKind::Max => 16,
            AggKind::Stddev => 32,
            AggKind::Quantize => (QUANTIZE_NBUCKETS * 8) as u32,
            AggKind::Lquantize { base, limit, step } => {
                (lquantize_nbuckets(base, limit, step) * 8) as u32
            }
            AggKind::Llquantize {
                factor,
                low,
                high,
                nsteps,
            } => (llquantize_nbuckets(factor, low, high, nsteps) * 8) as u32,
        }
    }

    /// The D name of the function, e.g. `count`.
    pub fn name(&self) -> &'static str {
        match self {
            AggKind::Count => "count",
            AggKind::Sum => "sum",
            AggKind::Avg => "avg",
            AggKind::Min => "min",
            AggKind::Max => "max",
            AggKind::Stddev => "stddev",
            AggKind::Quantize => "quantize",
            AggKind::Lquantize { .. } => "lquantize",
            AggKind::Llquantize { .. } => "llquantize",
        }
    }
}

/// Lower bounds of the positive llquantize() buckets, in order, after a first
/// entry `i64::MIN` standing for the values below `factor^low`. As dtrace lays
/// them out: `factor^low`, then for each magnitude `m` from `low` to `high` the
/// multiples `k * (factor^(m+1) / nsteps)` for `k` in `nsteps/factor + 1 ..= nsteps`;
/// the last bound, `factor^(high+1)`, starts the overflow bucket. When `low` is 0
/// and `nsteps > factor`, magnitude 0 has one bucket per integer `1..factor`.
pub fn llquantize_bounds(factor: u16, low: u16, high: u16, nsteps: u16) -> Vec<i64> {
    let factor = factor.max(2) as i128;
    let nsteps = nsteps.max(1) as i128;
    let pow = |e: u32| factor.checked_pow(e).unwrap_or(i128::MAX);
    let mut bounds = vec![i64::MIN];
    let mut push = |v: i128| {
        if v <= i64::MAX as i128 && bounds.last().is_some_and(|&l| v > l as i128) {
            bounds.push(v as i64);
        }
    };
    let mut first_mag = low as u32;
    if low == 0 && nsteps > factor {
        for v in 1..=factor {
            push(v);
        }
        first_mag = 1;
    } else {
        push(pow(low as u32));
    }
    for mag in first_mag..=high as u32 {
        let scale = pow(mag + 1) / nsteps;
        for k in (nsteps / factor + 1)..=nsteps {
            push(k.saturating_mul(scale));
        }
    }
    bounds
}

/// Number of llquantize() buckets in Oracle DTrace 2.x's layout: the positive
/// buckets of [`llquantize_bounds`] (overflow included) mirrored for negative
/// values, around one middle bucket for `|value| < factor^low`.
pub fn llquantize_nbuckets(factor: u16, low: u16, high: u16, nsteps: u16) -> usize {
    let p = llquantize_bounds(factor, low, high, nsteps).len() - 1;
    2 * p + 1
}

/// The bucket of `v` in Oracle DTrace 2.x's llquantize() layout. With `P` positive
/// buckets: index 0 holds values `<= -factor^(high+1)`, `P - i` the negatives whose
/// magnitude falls in positive bucket `i`, `P` the values with `|v| < factor^low`,
/// `P + i` positive bucket `i` (the last one `>= factor^(high+1)`).
pub fn llquantize_bucket(factor: u16, low: u16, high: u16, nsteps: u16, v: i64) -> usize {
    let bounds = llquantize_bounds(factor, low, high, nsteps);
    let p = bounds.len() - 1;
    let mag = v.unsigned_abs();
    let i = bounds
        .iter()
        .skip(1)
        .rposition(|b| mag >= *b as u64)
        .map_or(0, |i| i + 1);
    if v < 0 {
        p - i
    } else {
        p + i
    }
}

/// The largest value bucket `i` of a distribution holds (its inclusive upper
/// bound, as Prometheus' `le` and OTLP's explicit bounds want it); `None` for the
/// last bucket, which is unbounded. Buckets hold integers, so the bound of a
/// bucket whose next one starts at `n` is `n - 1`; quantize's negative buckets
/// `-2^k` hold `(-2^(k+1), -2^k]`, whose bound is the bucket's own value.
/// `None` also for the scalar functions, which have no buckets.
pub fn bucket_upper_bound(kind: &AggKind, i: usize) -> Option<i64> {
    match *kind {
        AggKind::Quantize => {
            if i + 1 >= QUANTIZE_NBUCKETS {
                return None;
            }
            let v = quantize_bucket_value(i);
            Some(if v > 0 { 2 * v - 1 } else { v })
        }
        AggKind::Lquantize { base, limit, step } => {
            let n = lquantize_nbuckets(base, limit, step);
            if i + 1 >= n {
                None
            } else if i == 0 {
                Some(base.saturating_sub(1))
            } else {
                Some(
                    base.saturating_add((i as i64).saturating_mul(step))
                        .saturating_sub(1),
                )
            }
        }
        AggKind::Llquantize {
            factor,
            low,
            high,
            nsteps,
        } => {
            let bounds = llquantize_bounds(factor, low, high, nsteps);
            let p = bounds.len() - 1;
            match i.cmp(&p) {
                // Negative magnitudes mirror positive bucket p - i.
                std::cmp::Ordering::Less => bounds.get(p - i).map(|b| -b),
                std::cmp::Ordering::Equal => bounds.get(1).map(|b| b - 1),
                std::cmp::Ordering::Greater => bounds.get(i - p + 1).map(|b| b - 1),
            }
        }
        _ => None,
    }
}

#[cfg(test)]
mod bound_tests {
    use super::*;

    #[test]
    fn quantize_bounds_are_inclusive() {
        let z = QUANTIZE_ZERO_BUCKET;
        let q = AggKind::Quantize;
        assert_eq!(bucket_upper_bound(&q, z), Some(0));
        assert_eq!(bucket_upper_bound(&q, z + 1), Some(1));
        assert_eq!(bucket_upper_bound(&q, z + 2), Some(3));
        assert_eq!(bucket_upper_bound(&q, z + 3), Some(7));
        assert_eq!(bucket_upper_bound(&q, z - 1), Some(-1));
        assert_eq!(bucket_upper_bound(&q, z - 2), Some(-2));
        assert_eq!(bucket_upper_bound(&q, z - 3), Some(-4));
        assert_eq!(bucket_upper_bound(&q, QUANTIZE_NBUCKETS - 1), None);
        assert_eq!(bucket_upper_bound(&AggKind::Count, 0), None);
    }

    #[test]
    fn lquantize_bounds_cover_underflow_steps_and_overflow() {
        let l = AggKind::Lquantize {
            base: 0,
            limit: 100,
            step: 10,
        };
        assert_eq!(lquantize_nbuckets(0, 100, 10), 12);
        assert_eq!(bucket_upper_bound(&l, 0), Some(-1));
        assert_eq!(bucket_upper_bound(&l, 1), Some(9));
        assert_eq!(bucket_upper_bound(&l, 10), Some(99));
        assert_eq!(bucket_upper_bound(&l, 11), None);
    }

    #[test]
    fn llquantize_bounds_mirror_around_the_middle_bucket() {
        // factor 10, magnitudes 10^0..10^1, 10 steps: positive buckets start at
        // 1..=10, then 20, 30, ..., 100 (overflow).
        let k = AggKind::Llquantize {
            factor: 10,
            low: 0,
            high: 1,
            nsteps: 10,
        };
        let bounds = llquantize_bounds(10, 0, 1, 10);
        let p = bounds.len() - 1;
        // Every value lands in a bucket whose bound is at least the value and
        // whose previous bucket's bound is below it.
        for v in [
            -150i64, -100, -99, -20, -11, -1, 0, 1, 9, 10, 11, 99, 100, 1000,
        ] {
            let i = llquantize_bucket(10, 0, 1, 10, v);
            if let Some(b) = bucket_upper_bound(&k, i) {
                assert!(v <= b, "{v} in bucket {i} bounded by {b}");
            } else {
                assert_eq!(i, 2 * p, "{v}: only the last bucket is unbounded");
            }
            if i > 0 {
                let prev = bucket_upper_bound(&k, i - 1);
                assert!(
                    prev.is_some_and(|b| v > b),
                    "{v} in bucket {i}, previous bound {prev:?}"
                );
            }
        }
    }
}
