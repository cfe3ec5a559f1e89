//! ASCII distributions for quantize(), lquantize() and llquantize(), as dtrace(1)
//! prints them.
//!
//! Layout (derived from the Oracle Linux DTrace guide, "quantize" Example 8-36 and
//! "llquantize" example, whose trailing blanks are preserved; 68 columns per line):
//! ```text
//!            value  ------------- Distribution ------------- count    
//!             8192 |                                         0        
//!            16384 |@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@         4        
//! ```
//! - header: `value` right-aligned in 16, a space, the 40-character rule
//!   right-aligned in 41, a space, `count` left-aligned in 9; it is preceded by a
//!   newline (so a key line printed before it ends there);
//! - rows: the bucket label right-aligned in 16, a space, `|`, a 40-column bar,
//!   a space, the count left-aligned in 9;
//! - the bar is `@` x round(|count| * 40 / total) (4 of 5 -> 32, 1 of 5 -> 8 in the
//!   example above), followed by spaces to 40;
//! - rows shown: from one bucket before the first non-zero bucket to one after the
//!   last (the example's 8192 and 262144 rows; `tst.quantize.d.out`'s -1/0/1 for a
//!   single zero value); with no data, the buckets around zero (quantize), the
//!   first three buckets (lquantize), or the middle bucket and the two after it
//!   (llquantize);
//! - lquantize's underflow/overflow rows are labelled `< N` and `>= N`
//!   (`             < 0 |` in `tst.negtruncquant.d.out`);
//! - llquantize uses Oracle DTrace 2.x's layout: negative buckets mirror the
//!   positive ones (`-N`, `<= -MAX`) around the bucket of |value| < factor^low,
//!   labelled `0` (when that bound is 1), `abs() < N` (when a row before it is
//!   shown) or `< N`;
//! - `aggzoom` scales bars to the largest bucket over 0.95 instead of the total.
//!
//! When both positive and negative counts occur (negative increments), bars are 20
//! wide on either side of a centre `|`.

use dtrace_desc::{
    llquantize_bounds, quantize_bucket_value, AggFunc, QUANTIZE_NBUCKETS, QUANTIZE_ZERO_BUCKET,
};

const BAR: usize = 40;

/// Row labels and sort weights of one distribution's buckets.
struct Buckets {
    labels: Vec<String>,
    /// A representative value of each bucket, for ordering distributions.
    weights: Vec<i128>,
    /// The rows shown when there is no data.
    empty: (usize, usize),
}

fn buckets(func: &AggFunc, counts: &[i64]) -> Buckets {
    let n = counts.len();
    let mut labels = Vec::with_capacity(n);
    let mut weights = Vec::with_capacity(n);
    let mut empty = (0, 2.min(n.saturating_sub(1)));
    match *func {
        AggFunc::Lquantize { base, step, .. } => {
            let levels = n.saturating_sub(2) as i128;
            let base = base as i128;
            let step = step as i128;
            for i in 0..n {
                if i == 0 {
                    labels.push(format!("< {base}"));
                    weights.push(base - 1);
                } else if i == n - 1 {
                    let top = base + levels * step;
                    labels.push(format!(">= {top}"));
                    weights.push(top);
                } else {
                    let v = base + (i as i128 - 1) * step;
                    labels.push(v.to_string());
                    weights.push(v);
                }
            }
        }
        AggFunc::Llquantize {
            factor,
            low,
            high,
            nsteps,
        } => {
            // Oracle DTrace 2.x's layout (`llquantize_bucket`): negative buckets
            // mirror the positive ones around the middle bucket `p`, which holds
            // |value| < factor^low and is labelled `0` when that bound is 1,
            // `abs() < N` when a negative row is shown, and `< N` otherwise.
            let bounds = llquantize_bounds(factor, low, high, nsteps);
            let p = bounds.len().saturating_sub(1);
            let scale = bounds.get(1).copied().unwrap_or(1);
            let top = bounds.last().copied().unwrap_or(i64::MAX);
            // dtrace decides after widening the shown rows by one: any data at
            // or below the middle bucket shows the negative row before it.
            let negatives = counts.iter().take(p + 1).any(|&c| c != 0);
            for i in 0..n {
                let (label, w) = if i == p {
                    let l = if scale <= 1 {
                        "0".to_string()
                    } else if negatives {
                        format!("abs() < {scale}")
                    } else {
                        format!("< {scale}")
                    };
                    (l, 0)
                } else if i == 0 {
                    (format!("<= -{top}"), -(top as i128))
                } else if i == n - 1 {
                    (format!(">= {top}"), top as i128)
                } else if i < p {
                    let b = bounds.get(p - i).copied().unwrap_or(0) as i128;
                    (format!("-{b}"), -b)
                } else {
                    let b = bounds.get(i - p).copied().unwrap_or(0) as i128;
                    (b.to_string(), b)
                };
                labels.push(label);
                weights.push(w);
            }
            empty = (p, (p + 2).min(n.saturating_sub(1)));
        }
        _ => {
            let z = QUANTIZE_ZERO_BUCKET.min(n.saturating_sub(1));
            empty = (z.saturating_sub(1), (z + 1).min(n.saturating_sub(1)));
            for i in 0..n {
                let v = if i < QUANTIZE_NBUCKETS {
                    quantize_bucket_value(i)
                } else {
                    i64::MAX
                };
                labels.push(v.to_string());
                weights.push(v as i128);
            }
        }
    }
    Buckets {
        labels,
        weights,
        empty,
    }
}

/// The range of buckets dtrace shows: one zero row either side of the used range.
fn shown_range(counts: &[i64], empty: (usize, usize)) -> Option<(usize, usize)> {
    let n = counts.len();
    if n == 0 {
        return None;
    }
    match (
        counts.iter().position(|&c| c != 0),
        counts.iter().rposition(|&c| c != 0),
    ) {
        (Some(first), Some(last)) => Some((first.saturating_sub(1), (last + 1).min(n - 1))),
        _ => Some(empty),
    }
}

/// One bucket of a distribution as structured output shows it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BucketRow {
    /// The bucket's value: its lower bound, as the text output labels it (the
    /// bound itself for lquantize()'s `< N` and `>= N` rows and llquantize()'s
    /// outermost rows).
    pub value: i64,
    /// The bucket's count.
    pub count: i64,
    /// The row holds every value below the range (`< N`, `<= -N`).
    pub underflow: bool,
    /// The row holds every value above the range (`>= N`).
    pub overflow: bool,
}

/// The buckets the text output shows (one zero row either side of the used
/// range; the default rows when there is no data), lowest first.
pub fn bucket_rows(func: &AggFunc, counts: &[i64]) -> Vec<BucketRow> {
    let b = buckets(func, counts);
    let Some((first, last)) = shown_range(counts, b.empty) else {
        return Vec::new();
    };
    let n = counts.len();
    let edges = matches!(func, AggFunc::Lquantize { .. } | AggFunc::Llquantize { .. });
    (first..=last)
        .map(|i| {
            let underflow = edges && i == 0;
            let overflow = edges && i + 1 == n;
            let w = b.weights.get(i).copied().unwrap_or(0);
            // lquantize's underflow row is weighed at base - 1; it is labelled by base.
            let w = match func {
                AggFunc::Lquantize { base, .. } if underflow => *base as i128,
                _ => w,
            };
            BucketRow {
                value: w.clamp(i64::MIN as i128, i64::MAX as i128) as i64,
                count: counts.get(i).copied().unwrap_or(0),
                underflow,
                overflow,
            }
        })
        .collect()
}

/// Appends the distribution (header line first, starting with a newline) to `out`.
/// `counts` are the merged bucket counts laid out as [`AggFunc`] documents; the
/// printed counts are divided by `normal` (normalize()), the bars are not.
/// With `zoom` (`aggzoom`), bars scale to the largest bucket instead of the total.
pub fn render(func: &AggFunc, counts: &[i64], normal: u64, zoom: bool, out: &mut Vec<u8>) {
    let b = buckets(func, counts);
    out.extend_from_slice(
        format!(
            "\n{:>16} {:>41} {:<9}\n",
            "value", "------------- Distribution -------------", "count"
        )
        .as_bytes(),
    );
    let Some((first, last)) = shown_range(counts, b.empty) else {
        return;
    };
    let positives = counts.iter().any(|&c| c > 0);
    let negatives = counts.iter().any(|&c| c < 0);
    let total = crate::packed::total(counts.get(first..=last).unwrap_or(&[]), zoom);
    for i in first..=last {
        let count = counts.get(i).copied().unwrap_or(0);
        let label = b.labels.get(i).map(String::as_str).unwrap_or("");
        out.extend_from_slice(format!("{label:>16} ").as_bytes());
        quant_line(count, total, positives, negatives, normal, out);
    }
}

fn depth(count: i64, total: f64, len: usize) -> usize {
    if total <= 0.0 {
        return 0;
    }
    let f = count.unsigned_abs() as f64 * len as f64 / total;
    ((f + 0.5) as usize).min(len)
}

fn quant_line(
    count: i64,
    total: f64,
    positives: bool,
    negatives: bool,
    normal: u64,
    out: &mut Vec<u8>,
) {
    let shown = count / normal.clamp(1, i64::MAX as u64) as i64;
    let ats = |n: usize| "@".repeat(n);
    let sp = |n: usize| " ".repeat(n);
    let line = if !negatives {
        let d = if positives {
            depth(count, total, BAR)
        } else {
            0
        };
        format!("|{}{} {shown:<9}\n", ats(d), sp(BAR - d))
    } else if !positives {
        let d = depth(count, total, BAR);
        format!("{}{}| {shown:<9}\n", sp(BAR - d), ats(d))
    } else {
        let half = BAR / 2;
        let d = depth(count, total, half);
        if count <= 0 {
            format!("{}{}|{} {shown:<9}\n", sp(half - d), ats(d), sp(half))
        } else {
            format!("{}|{}{} {shown:<9}\n", sp(half), ats(d), sp(half - d))
        }
    };
    out.extend_from_slice(line.as_bytes());
}

/// A key to order distributions by: the sum of each bucket's representative value
/// times its count.
pub fn weight(func: &AggFunc, counts: &[i64]) -> i128 {
    let b = buckets(func, counts);
    counts
        .iter()
        .zip(b.weights.iter())
        .fold(0i128, |acc, (&c, &w)| {
            acc.saturating_add((c as i128).saturating_mul(w))
        })
}

/// The count in the bucket holding zero, if the distribution has one: dtrace
/// orders distributions of equal [`weight`] by it.
pub fn zero_count(func: &AggFunc, counts: &[i64]) -> i64 {
    let i = match *func {
        AggFunc::Quantize => Some(QUANTIZE_ZERO_BUCKET),
        AggFunc::Lquantize { base, limit, step } if base <= 0 && 0 < limit && step > 0 => {
            usize::try_from(-base / step + 1).ok()
        }
        AggFunc::Llquantize { .. } => Some(counts.len() / 2),
        _ => None,
    };
    i.and_then(|i| counts.get(i)).copied().unwrap_or(0)
}
