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
/// - `Llquantize`: `llquantize_bounds(..).len()` `i64` counts, see [`llquantize_bounds`]
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
            } => (llquantize_bounds(factor, low, high, nsteps).len() * 8) as u32,
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

/// Lower bounds of the llquantize() buckets, in order. Bucket 0 is the underflow
/// bucket (values below `factor^low`, lower bound reported as `i64::MIN`); the last
/// bucket holds values at or above `factor^(high+1)`.
pub fn llquantize_bounds(factor: u16, low: u16, high: u16, nsteps: u16) -> Vec<i64> {
    let factor = factor.max(2) as i128;
    let nsteps = nsteps.max(1) as i128;
    let mut bounds = vec![i64::MIN];
    let mut this = factor.checked_pow(low as u32).unwrap_or(i128::MAX);
    for _mag in low..=high {
        let next = this.saturating_mul(factor);
        // nsteps buckets of width next/nsteps cover [0, next); those below `this`
        // belong to lower magnitudes and are skipped.
        let width = (next / nsteps).max(1);
        let mut b = this;
        while b < next {
            if b > i64::MAX as i128 {
                break;
            }
            bounds.push(b as i64);
            b += width;
        }
        this = next;
    }
    if this <= i64::MAX as i128 {
        bounds.push(this as i64);
    }
    bounds
}
