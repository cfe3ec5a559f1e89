//! The metric model: a family per aggregation, a series per key.

/// A bucket's upper bound (`le`): an integer, or `+Inf` for the last bucket.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Bound {
    Le(i64),
    Inf,
}

/// What kind of metric a family is (OpenMetrics `# TYPE`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// Monotonic: `count()`. Exposed as `<name>_total`.
    Counter,
    /// Any value: `sum() min() max() stddev()`, and anything `clear()`ed,
    /// `trunc()`ed or normalized.
    Gauge,
    /// `avg()`: a summary without quantiles (`_sum` and `_count`).
    Summary,
    /// `quantize() lquantize() llquantize()`: a classic histogram.
    Histogram,
}

/// One series' value.
#[derive(Debug, Clone, PartialEq)]
pub enum Point {
    /// Counter or gauge value.
    Int(i64),
    /// A gauge with a fractional value (`stddev()`).
    Float(f64),
    /// Summary: sum and count of the observed values.
    Summary { sum: i64, count: u64 },
    /// Histogram: `(upper bound, count in this bucket)`, ascending, **not**
    /// cumulative, ending with [`Bound::Inf`]; the sum when known.
    Histogram {
        buckets: Vec<(Bound, u64)>,
        sum: Option<i64>,
    },
}

/// One series: label values (in the family's label order) and its value.
#[derive(Debug, Clone, PartialEq)]
pub struct Series {
    pub labels: Vec<String>,
    pub point: Point,
}

/// One metric family.
#[derive(Debug, Clone, PartialEq)]
pub struct Family {
    /// A valid metric name (see [`metric_name`]).
    pub name: String,
    pub help: String,
    pub kind: Kind,
    /// Label names, valid per [`label_name`].
    pub labels: Vec<String>,
    pub series: Vec<Series>,
}

fn sanitize(s: &str, colon: bool) -> String {
    let mut out = String::with_capacity(s.len());
    for (i, c) in s.chars().enumerate() {
        let ok = c.is_ascii_alphabetic()
            || c == '_'
            || (colon && c == ':')
            || (i > 0 && c.is_ascii_digit());
        if ok {
            out.push(c);
        } else if i == 0 && c.is_ascii_digit() {
            out.push('_');
            out.push(c);
        } else {
            out.push('_');
        }
    }
    if out.is_empty() {
        out.push('_');
    }
    out
}

/// The metric name for an aggregation: `<prefix>_<name>`, with every character
/// outside `[a-zA-Z0-9_:]` replaced by `_`. The anonymous aggregation (`@`) is
/// named `<prefix>`.
pub fn metric_name(prefix: &str, aggregation: &str) -> String {
    let agg = aggregation.trim_start_matches('@');
    if agg.is_empty() || agg == "_" {
        return sanitize(prefix, true);
    }
    sanitize(&format!("{prefix}_{agg}"), true)
}

/// A label name: `[a-zA-Z_][a-zA-Z0-9_]*`, not starting with `__` (reserved).
pub fn label_name(name: &str) -> String {
    let s = sanitize(name, false);
    match s.strip_prefix("__") {
        Some(rest) => format!("k_{rest}"),
        None => s,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_follow_the_exposition_rules() {
        assert_eq!(metric_name("dtrace", "@calls"), "dtrace_calls");
        assert_eq!(metric_name("dtrace", "@"), "dtrace");
        assert_eq!(metric_name("dtrace", "_"), "dtrace");
        assert_eq!(metric_name("dtrace", "@lat-ns"), "dtrace_lat_ns");
        assert_eq!(label_name("probefunc"), "probefunc");
        assert_eq!(label_name("0key"), "_0key");
        assert_eq!(label_name("__name__"), "k_name__");
        assert_eq!(label_name("a.b"), "a_b");
    }
}
