//! Aggregations as metric families, for the Prometheus endpoint
//! (`-x prometheus=ADDR:PORT`) and the OTLP push (`-x otlp=URL`).
//!
//! Mapping (docs/OPTIONS.md, "Fleet export"):
//! - `count()` is a counter (`<name>_total`); `sum() min() max()` are gauges;
//!   `stddev()` a gauge of the standard deviation; `avg()` a summary with
//!   `_sum` and `_count`; the quantizations histograms whose `le` bounds are
//!   each bucket's largest value ([`bucket_upper_bound`]).
//! - An aggregation the program `clear()`s, `trunc()`s or normalizes is
//!   exported as a gauge, since it can go down.
//! - Keys become labels `key0`.. `keyN`, or the names given with
//!   `-x metriclabels=AGG:NAME[,NAME...]`. An aggregation with a `stack()` key
//!   is not exported (a stack is no label), and says so once at start.
//! - Family names are `dtrace_<aggregation>`; the anonymous `@` is `dtrace`.

use crate::Options;
use dtrace_codegen::desc::{ActionKind, AggDesc, AggFunc, ProgramDesc, ValueType};
use dtrace_consumer::aggregate::{collect_rows, AggSource, AggValue};
use dtrace_consumer::{ConsumerOptions, Value};
use dtrace_export::metrics::{label_name, metric_name, Bound, Family, Kind, Point, Series};
use dtrace_sema::aggfunc::bucket_upper_bound;
use std::collections::{BTreeMap, BTreeSet};
use std::io::Write;
use std::time::{Duration, Instant};

/// The prefix of every family name.
pub const PREFIX: &str = "dtrace";

/// One exported aggregation.
#[derive(Debug, Clone, PartialEq)]
struct Planned {
    id: u32,
    name: String,
    help: String,
    kind: Kind,
    labels: Vec<String>,
}

/// What the exporter serves: fixed when tracing starts.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Plan {
    aggs: Vec<Planned>,
}

/// The aggregations whose values can go down: the targets of `clear()`,
/// `trunc()`, `normalize()` and `denormalize()`.
fn volatile(desc: &ProgramDesc) -> BTreeSet<u32> {
    desc.epids
        .values()
        .flat_map(|e| &e.actions)
        .filter_map(|a| match a.kind {
            ActionKind::AggControl { agg, .. } => Some(agg),
            _ => None,
        })
        .collect()
}

fn kind_of(func: &AggFunc, can_fall: bool) -> Kind {
    match func {
        AggFunc::Count if !can_fall => Kind::Counter,
        AggFunc::Count | AggFunc::Sum | AggFunc::Min | AggFunc::Max | AggFunc::Stddev => {
            Kind::Gauge
        }
        AggFunc::Avg => Kind::Summary,
        AggFunc::Quantize | AggFunc::Lquantize { .. } | AggFunc::Llquantize { .. } => {
            Kind::Histogram
        }
    }
}

/// `-x metriclabels` values: `AGG:NAME[,NAME...]`, the `@` optional.
pub fn parse_label_names(values: &[String]) -> Result<BTreeMap<String, Vec<String>>, String> {
    let mut out = BTreeMap::new();
    for v in values {
        let (agg, names) = v
            .split_once(':')
            .ok_or_else(|| format!("metriclabels '{v}': expected AGG:NAME[,NAME...]"))?;
        let names: Vec<String> = names.split(',').map(|n| n.trim().to_string()).collect();
        if names.iter().any(String::is_empty) {
            return Err(format!("metriclabels '{v}': empty label name"));
        }
        out.insert(agg.trim().trim_start_matches('@').to_string(), names);
    }
    Ok(out)
}

/// Decide what to export. Returns the plan and one warning per aggregation left
/// out.
pub fn plan(desc: &ProgramDesc, names: &BTreeMap<String, Vec<String>>) -> (Plan, Vec<String>) {
    let can_fall = volatile(desc);
    let mut aggs = Vec::new();
    let mut warnings = Vec::new();
    for agg in desc.aggs.values() {
        let shown = if agg.name.is_empty() {
            "@".to_string()
        } else {
            format!("@{}", agg.name)
        };
        if agg
            .keys
            .iter()
            .any(|k| matches!(k.ty, ValueType::Stack { .. }))
        {
            warnings.push(format!(
                "dtrace: aggregation {shown} is not exported: a stack() key cannot be a metric label"
            ));
            continue;
        }
        let given = names.get(&agg.name);
        let labels = (0..agg.keys.len())
            .map(|i| {
                let n = given
                    .and_then(|g| g.get(i))
                    .cloned()
                    .unwrap_or(format!("key{i}"));
                label_name(&n)
            })
            .collect();
        aggs.push(Planned {
            id: agg.id,
            name: metric_name(PREFIX, &agg.name),
            help: format!("{shown}: {}()", agg.func.name()),
            kind: kind_of(&agg.func, can_fall.contains(&agg.id)),
            labels,
        });
    }
    (Plan { aggs }, warnings)
}

fn label_value(v: &Value) -> String {
    match v {
        Value::Int { .. } => v.decimal(),
        Value::Pointer(p) => format!("0x{p:x}"),
        Value::Str(s) => String::from_utf8_lossy(s).into_owned(),
        Value::Bytes(b) => b.iter().map(|x| format!("{x:02x}")).collect(),
        Value::Stack(_) | Value::UStack { .. } | Value::UCapture(_) => String::new(),
        Value::USym { kind, pid, addr } => dtrace_consumer::ustack::usym_text(
            *kind,
            *pid,
            *addr,
            &dtrace_consumer::printf::Env::default(),
        ),
    }
}

fn point(func: &AggFunc, v: &AggValue) -> Point {
    match v {
        AggValue::Scalar(x) => Point::Int(*x),
        AggValue::Avg { count, sum } => Point::Summary {
            sum: *sum,
            count: *count,
        },
        AggValue::Stddev { count, sum, sumsq } => {
            if *count == 0 {
                return Point::Float(0.0);
            }
            let n = *count as f64;
            let mean = *sum as f64 / n;
            let var = (*sumsq as f64 / n - mean * mean).max(0.0);
            Point::Float(var.sqrt())
        }
        AggValue::Dist(counts) => Point::Histogram {
            buckets: counts
                .iter()
                .enumerate()
                .map(|(i, c)| {
                    let b = bucket_upper_bound(func, i).map_or(Bound::Inf, Bound::Le);
                    (b, (*c).max(0) as u64)
                })
                .collect(),
            sum: None,
        },
    }
}

/// The families of `plan`, from one snapshot of the kernel's aggregations.
pub fn families(plan: &Plan, desc: &ProgramDesc, source: &mut dyn AggSource) -> Vec<Family> {
    let opts = ConsumerOptions::default();
    let mut out = Vec::with_capacity(plan.aggs.len());
    for p in &plan.aggs {
        let Some(agg): Option<&AggDesc> = desc.aggs.get(&p.id) else {
            continue;
        };
        // A row that cannot be decoded leaves the family empty for this
        // snapshot rather than stopping the exporter.
        let rows = collect_rows(
            &[agg],
            source,
            &opts,
            &dtrace_consumer::printf::Env::default(),
        )
        .unwrap_or_default();
        let series = rows
            .iter()
            .filter_map(|r| {
                let v = r.values.first()?.as_ref()?;
                Some(Series {
                    labels: r.keys.iter().map(label_value).collect(),
                    point: point(&agg.func, v),
                })
            })
            .collect();
        out.push(Family {
            name: p.name.clone(),
            help: p.help.clone(),
            kind: p.kind,
            labels: p.labels.clone(),
            series,
        });
    }
    out
}

/// The running exporters of a session: the `/metrics` endpoint and the OTLP
/// push, refreshed from a snapshot every `aggrate` tick (at least once a
/// second) and once more at the end.
pub struct Exporters {
    plan: Plan,
    prometheus: Option<dtrace_export::Exporter>,
    otlp: Option<String>,
    interval: Duration,
    last: Option<Instant>,
    start_ns: u64,
    /// An OTLP failure is reported once, not at every tick.
    otlp_failed: bool,
}

fn now_ns() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos() as u64)
}

impl Exporters {
    /// Start what `options` asks for (`None` when it asks for nothing). Warnings
    /// and the endpoint's address go to `err` (the address unless quiet, or
    /// always when port 0 let the kernel pick it).
    pub fn start(
        options: &Options,
        desc: &ProgramDesc,
        err: &mut dyn Write,
    ) -> Result<Option<Exporters>, String> {
        if options.prometheus.is_none() && options.otlp.is_none() {
            return Ok(None);
        }
        if options.otlp.is_some() && !cfg!(feature = "otlp") {
            return Err("dtrace: -x otlp needs a dtrace built with the otlp feature".into());
        }
        let names = parse_label_names(&options.metriclabels).map_err(|e| format!("dtrace: {e}"))?;
        let (plan, warnings) = plan(desc, &names);
        for w in warnings {
            let _ = writeln!(err, "{w}");
        }
        let prometheus = match &options.prometheus {
            Some(addr) => {
                let ex =
                    dtrace_export::Exporter::start(addr).map_err(|e| format!("dtrace: {e}"))?;
                // A port picked by the kernel is named even under -q: the
                // address is otherwise unknowable.
                if !options.quiet || addr.ends_with(":0") {
                    let _ = writeln!(err, "dtrace: metrics at http://{}/metrics", ex.local_addr());
                }
                Some(ex)
            }
            None => None,
        };
        let hz = options.aggrate_hz.max(1);
        Ok(Some(Exporters {
            plan,
            prometheus,
            otlp: options.otlp.clone(),
            interval: Duration::from_nanos(1_000_000_000 / hz).min(Duration::from_secs(1)),
            last: None,
            start_ns: now_ns(),
            otlp_failed: false,
        }))
    }

    /// Refresh from `source` when a tick is due, or now with `force`.
    pub fn tick(
        &mut self,
        desc: &ProgramDesc,
        source: &mut dyn AggSource,
        force: bool,
        err: &mut dyn Write,
    ) {
        let due = self.last.map_or(true, |t| t.elapsed() >= self.interval);
        if !force && !due {
            return;
        }
        self.last = Some(Instant::now());
        let fams = families(&self.plan, desc, source);
        if let Some(p) = &self.prometheus {
            p.publish(dtrace_export::openmetrics::render(&fams));
        }
        if let Some(url) = &self.otlp {
            if let Err(e) = self.push(url, &fams) {
                if !self.otlp_failed {
                    let _ = writeln!(err, "dtrace: {e}");
                }
                self.otlp_failed = true;
            }
        }
    }

    #[cfg(feature = "otlp")]
    fn push(&self, url: &str, fams: &[Family]) -> Result<(), String> {
        use dtrace_export::otlp;
        let t = otlp::Times {
            start_ns: self.start_ns,
            now_ns: now_ns(),
        };
        let req = otlp::request(fams, "dtrace", t);
        otlp::push(url, &req, Duration::from_secs(5)).map_err(|e| e.to_string())
    }

    #[cfg(not(feature = "otlp"))]
    fn push(&self, _url: &str, _fams: &[Family]) -> Result<(), String> {
        let _ = self.start_ns;
        Err("-x otlp needs a dtrace built with the otlp feature".into())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use dtrace_codegen::desc::{ActionDesc, EpidDesc, Field};
    use dtrace_consumer::AggEntries;
    use dtrace_export::openmetrics::render;
    use dtrace_sema::AggOp;

    /// Each key's value on every CPU.
    type Entries = Vec<(Vec<u8>, Vec<Vec<u8>>)>;

    /// Aggregations as the kernel would hand them over, by aggregation id.
    struct Fake(BTreeMap<u32, Entries>);

    impl AggSource for Fake {
        fn snapshot(&mut self, agg_id: u32, out: &mut AggEntries) {
            for (key, per_cpu) in self.0.get(&agg_id).into_iter().flatten() {
                out.push(key, per_cpu);
            }
        }
        fn clear(&mut self, _: u32) {}
        fn remove(&mut self, _: u32, _: &[u8]) {}
    }

    fn agg(id: u32, name: &str, func: AggFunc, keys: Vec<ValueType>) -> AggDesc {
        let mut off = 0;
        let keys: Vec<Field> = keys
            .into_iter()
            .map(|ty| {
                let f = Field { offset: off, ty };
                off += f.ty.size().div_ceil(8) * 8;
                f
            })
            .collect();
        AggDesc {
            id,
            name: name.into(),
            func,
            keys,
            key_size: off.max(8),
        }
    }

    fn str_key(s: &str, size: usize) -> Vec<u8> {
        let mut k = s.as_bytes().to_vec();
        k.resize(size, 0);
        k
    }

    fn words(ws: &[i64]) -> Vec<u8> {
        ws.iter().flat_map(|w| w.to_ne_bytes()).collect()
    }

    #[test]
    fn counts_sums_averages_and_distributions() {
        let mut desc = ProgramDesc::default();
        let s16 = ValueType::String { size: 16 };
        let int = ValueType::Int {
            size: 4,
            signed: true,
        };
        desc.aggs
            .insert(1, agg(1, "calls", AggFunc::Count, vec![s16.clone()]));
        desc.aggs
            .insert(2, agg(2, "bytes", AggFunc::Sum, vec![s16, int]));
        desc.aggs.insert(3, agg(3, "", AggFunc::Avg, vec![]));
        desc.aggs
            .insert(4, agg(4, "lat", AggFunc::Quantize, vec![]));
        let mut data = BTreeMap::new();
        data.insert(
            1,
            vec![(str_key("read", 16), vec![words(&[3]), words(&[4])])],
        );
        let mut k2 = str_key("ls", 16);
        k2.extend_from_slice(&(-1i32).to_ne_bytes());
        k2.resize(24, 0);
        data.insert(2, vec![(k2, vec![words(&[100])])]);
        data.insert(
            3,
            vec![(
                vec![0; 8],
                vec![words(&[2, 10, 0, 0]), words(&[2, 20, 0, 0])],
            )],
        );
        // Two values of 1 and one of 5: buckets 1 ([1,2)) and 4 ([4,8)).
        let mut q = vec![0i64; 127];
        q[64] = 2;
        q[66] = 1;
        data.insert(4, vec![(vec![0; 8], vec![words(&q)])]);
        let (plan, warnings) = plan(&desc, &BTreeMap::new());
        assert!(warnings.is_empty());
        let text = render(&families(&plan, &desc, &mut Fake(data)));
        let expect_start = "# TYPE dtrace_calls counter\n\
            # HELP dtrace_calls @calls: count()\n\
            dtrace_calls_total{key0=\"read\"} 7\n\
            # TYPE dtrace_bytes gauge\n\
            # HELP dtrace_bytes @bytes: sum()\n\
            dtrace_bytes{key0=\"ls\",key1=\"-1\"} 100\n\
            # TYPE dtrace summary\n\
            # HELP dtrace @: avg()\n\
            dtrace_sum 30\n\
            dtrace_count 4\n\
            # TYPE dtrace_lat histogram\n\
            # HELP dtrace_lat @lat: quantize()\n";
        assert!(text.starts_with(expect_start), "{text}");
        assert!(text.contains("dtrace_lat_bucket{le=\"0.0\"} 0\n"), "{text}");
        assert!(text.contains("dtrace_lat_bucket{le=\"1.0\"} 2\n"), "{text}");
        assert!(text.contains("dtrace_lat_bucket{le=\"3.0\"} 2\n"), "{text}");
        assert!(text.contains("dtrace_lat_bucket{le=\"7.0\"} 3\n"), "{text}");
        assert!(
            text.contains("dtrace_lat_bucket{le=\"+Inf\"} 3\ndtrace_lat_count 3\n# EOF\n"),
            "{text}"
        );
    }

    #[test]
    fn cleared_counts_are_gauges_and_stacks_are_not_labels() {
        let mut desc = ProgramDesc::default();
        desc.aggs.insert(1, agg(1, "c", AggFunc::Count, vec![]));
        desc.aggs.insert(
            2,
            agg(
                2,
                "s",
                AggFunc::Count,
                vec![ValueType::Stack {
                    frames: 4,
                    user: false,
                }],
            ),
        );
        desc.epids.insert(
            1,
            EpidDesc {
                epid: 1,
                clause: 0,
                size: 16,
                actions: vec![ActionDesc {
                    kind: ActionKind::AggControl {
                        op: AggOp::Clear,
                        agg: 1,
                    },
                    fields: Vec::new(),
                }],
            },
        );
        let names = match parse_label_names(&["@c:ignored".into()]) {
            Ok(n) => n,
            Err(e) => panic!("{e}"),
        };
        let (plan, warnings) = plan(&desc, &names);
        assert_eq!(
            warnings,
            vec!["dtrace: aggregation @s is not exported: a stack() key cannot be a metric label"]
        );
        assert_eq!(plan.aggs.len(), 1);
        assert_eq!(plan.aggs[0].kind, Kind::Gauge);
    }

    #[test]
    fn label_names_come_from_the_option() {
        let names = parse_label_names(&["@calls:exec,func".into(), "x:a".into()]);
        let names = match names {
            Ok(n) => n,
            Err(e) => panic!("{e}"),
        };
        assert_eq!(
            names.get("calls"),
            Some(&vec!["exec".to_string(), "func".to_string()])
        );
        assert!(parse_label_names(&["nocolon".into()]).is_err());
        assert!(parse_label_names(&["a:x,,y".into()]).is_err());
        let mut desc = ProgramDesc::default();
        desc.aggs.insert(
            1,
            agg(
                1,
                "calls",
                AggFunc::Count,
                vec![
                    ValueType::String { size: 8 },
                    ValueType::Pointer,
                    ValueType::Pointer,
                ],
            ),
        );
        let (plan, _) = plan(&desc, &names);
        assert_eq!(plan.aggs[0].labels, vec!["exec", "func", "key2"]);
    }
}
