//! The OpenMetrics 1.0 text exposition (what Prometheus scrapes with
//! `Accept: application/openmetrics-text`).
//!
//! Per family: `# TYPE`, `# HELP`, then its samples; `# EOF` ends the exposition.
//! Counters' samples carry the `_total` suffix; summaries give `_sum` and
//! `_count`; histograms give cumulative `_bucket{le=...}` samples ending at
//! `+Inf`, then `_count` (and `_sum` when known). Label values and help text are
//! escaped (`\\`, `\"`, `\n`).

use crate::metrics::{Bound, Family, Kind, Point, Series};
use std::fmt::Write;

/// The `Content-Type` of [`render`]'s output.
pub const CONTENT_TYPE: &str = "application/openmetrics-text; version=1.0.0; charset=utf-8";

fn escape(s: &str, out: &mut String) {
    for c in s.chars() {
        match c {
            '\\' => out.push_str("\\\\"),
            '"' => out.push_str("\\\""),
            '\n' => out.push_str("\\n"),
            c => out.push(c),
        }
    }
}

fn kind_word(k: Kind) -> &'static str {
    match k {
        Kind::Counter => "counter",
        Kind::Gauge => "gauge",
        Kind::Summary => "summary",
        Kind::Histogram => "histogram",
    }
}

/// `{a="x",b="y"}` (with `extra` last, for `le`), or nothing without labels.
fn labels(names: &[String], s: &Series, extra: Option<(&str, &str)>, out: &mut String) {
    let mut pairs: Vec<(&str, &str)> = names
        .iter()
        .zip(&s.labels)
        .map(|(n, v)| (n.as_str(), v.as_str()))
        .collect();
    pairs.extend(extra);
    if pairs.is_empty() {
        return;
    }
    out.push('{');
    for (i, (n, v)) in pairs.iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        out.push_str(n);
        out.push_str("=\"");
        escape(v, out);
        out.push('"');
    }
    out.push('}');
}

fn sample(
    out: &mut String,
    name: &str,
    suffix: &str,
    f: &Family,
    s: &Series,
    extra: Option<(&str, &str)>,
    value: &str,
) {
    out.push_str(name);
    out.push_str(suffix);
    labels(&f.labels, s, extra, out);
    out.push(' ');
    out.push_str(value);
    out.push('\n');
}

fn float(v: f64) -> String {
    if v.is_nan() {
        "NaN".into()
    } else if v.is_infinite() {
        if v > 0.0 { "+Inf" } else { "-Inf" }.into()
    } else {
        format!("{v}")
    }
}

/// Append one family's exposition.
fn family(f: &Family, out: &mut String) {
    let _ = writeln!(out, "# TYPE {} {}", f.name, kind_word(f.kind));
    if !f.help.is_empty() {
        let _ = write!(out, "# HELP {} ", f.name);
        escape(&f.help, out);
        out.push('\n');
    }
    for s in &f.series {
        match (&s.point, f.kind) {
            (Point::Int(v), Kind::Counter) => {
                sample(out, &f.name, "_total", f, s, None, &v.to_string())
            }
            (Point::Int(v), _) => sample(out, &f.name, "", f, s, None, &v.to_string()),
            (Point::Float(v), _) => sample(out, &f.name, "", f, s, None, &float(*v)),
            (Point::Summary { sum, count }, _) => {
                sample(out, &f.name, "_sum", f, s, None, &sum.to_string());
                sample(out, &f.name, "_count", f, s, None, &count.to_string());
            }
            (Point::Histogram { buckets, sum }, _) => {
                let mut total: u64 = 0;
                let mut saw_inf = false;
                for (bound, n) in buckets {
                    total = total.saturating_add(*n);
                    let le = match bound {
                        Bound::Le(v) => format!("{v}.0"),
                        Bound::Inf => {
                            saw_inf = true;
                            "+Inf".into()
                        }
                    };
                    sample(
                        out,
                        &f.name,
                        "_bucket",
                        f,
                        s,
                        Some(("le", &le)),
                        &total.to_string(),
                    );
                }
                if !saw_inf {
                    sample(
                        out,
                        &f.name,
                        "_bucket",
                        f,
                        s,
                        Some(("le", "+Inf")),
                        &total.to_string(),
                    );
                }
                sample(out, &f.name, "_count", f, s, None, &total.to_string());
                if let Some(sum) = sum {
                    sample(out, &f.name, "_sum", f, s, None, &sum.to_string());
                }
            }
        }
    }
}

/// The exposition of `families`, ending with `# EOF`.
pub fn render(families: &[Family]) -> String {
    let mut out = String::new();
    for f in families {
        family(f, &mut out);
    }
    out.push_str("# EOF\n");
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn series(labels: &[&str], point: Point) -> Series {
        Series {
            labels: labels.iter().map(|s| s.to_string()).collect(),
            point,
        }
    }

    #[test]
    fn counters_gauges_and_summaries() {
        let fams = vec![
            Family {
                name: "dtrace_calls".into(),
                help: "@calls: count()".into(),
                kind: Kind::Counter,
                labels: vec!["probefunc".into()],
                series: vec![
                    series(&["read"], Point::Int(42)),
                    series(&["wr\"i\\te\n"], Point::Int(1)),
                ],
            },
            Family {
                name: "dtrace".into(),
                help: String::new(),
                kind: Kind::Gauge,
                labels: Vec::new(),
                series: vec![series(&[], Point::Int(-3))],
            },
            Family {
                name: "dtrace_lat".into(),
                help: "@lat: avg()".into(),
                kind: Kind::Summary,
                labels: vec!["key0".into(), "key1".into()],
                series: vec![series(&["a", "1"], Point::Summary { sum: 30, count: 4 })],
            },
        ];
        assert_eq!(
            render(&fams),
            "# TYPE dtrace_calls counter\n\
             # HELP dtrace_calls @calls: count()\n\
             dtrace_calls_total{probefunc=\"read\"} 42\n\
             dtrace_calls_total{probefunc=\"wr\\\"i\\\\te\\n\"} 1\n\
             # TYPE dtrace gauge\n\
             dtrace -3\n\
             # TYPE dtrace_lat summary\n\
             # HELP dtrace_lat @lat: avg()\n\
             dtrace_lat_sum{key0=\"a\",key1=\"1\"} 30\n\
             dtrace_lat_count{key0=\"a\",key1=\"1\"} 4\n\
             # EOF\n"
        );
    }

    #[test]
    fn histograms_are_cumulative_and_end_at_inf() {
        let fams = vec![Family {
            name: "dtrace_q".into(),
            help: String::new(),
            kind: Kind::Histogram,
            labels: vec!["key0".into()],
            series: vec![series(
                &["x"],
                Point::Histogram {
                    buckets: vec![
                        (Bound::Le(-1), 1),
                        (Bound::Le(0), 0),
                        (Bound::Le(1), 2),
                        (Bound::Le(3), 5),
                    ],
                    sum: None,
                },
            )],
        }];
        assert_eq!(
            render(&fams),
            "# TYPE dtrace_q histogram\n\
             dtrace_q_bucket{key0=\"x\",le=\"-1.0\"} 1\n\
             dtrace_q_bucket{key0=\"x\",le=\"0.0\"} 1\n\
             dtrace_q_bucket{key0=\"x\",le=\"1.0\"} 3\n\
             dtrace_q_bucket{key0=\"x\",le=\"3.0\"} 8\n\
             dtrace_q_bucket{key0=\"x\",le=\"+Inf\"} 8\n\
             dtrace_q_count{key0=\"x\"} 8\n\
             # EOF\n"
        );
    }
}
