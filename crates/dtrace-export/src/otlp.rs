//! OTLP/HTTP export (feature `otlp`): the same families as the Prometheus
//! endpoint, as an `ExportMetricsServiceRequest` (generated message types from
//! `opentelemetry-proto`; no SDK, no protoc) POSTed to a collector's
//! `/v1/metrics` as `application/x-protobuf`.
//!
//! Mapping: counters are cumulative monotonic sums, gauges gauges, `avg()`
//! summaries without quantiles, distributions explicit-bound histograms whose
//! bounds are the buckets' inclusive upper bounds (the `+Inf` bucket is the
//! implicit last one). Label values become string attributes.

use crate::metrics::{Bound, Family, Kind, Point, Series};
use opentelemetry_proto::tonic::collector::metrics::v1::ExportMetricsServiceRequest;
use opentelemetry_proto::tonic::common::v1::{any_value, AnyValue, InstrumentationScope, KeyValue};
use opentelemetry_proto::tonic::metrics::v1::{
    metric, number_data_point, Gauge, Histogram, HistogramDataPoint, Metric, NumberDataPoint,
    ResourceMetrics, ScopeMetrics, Sum, Summary, SummaryDataPoint,
};
use opentelemetry_proto::tonic::resource::v1::Resource;
use prost::Message;
use std::fmt;
use std::io::{Read, Write};
use std::net::{TcpStream, ToSocketAddrs};
use std::time::Duration;

/// `AGGREGATION_TEMPORALITY_CUMULATIVE`: values count from the session's start.
const CUMULATIVE: i32 = 2;

/// When the values were taken.
#[derive(Debug, Clone, Copy)]
pub struct Times {
    /// When tracing started (ns since the Unix epoch).
    pub start_ns: u64,
    /// When this snapshot was taken.
    pub now_ns: u64,
}

fn string_kv(key: &str, value: &str) -> KeyValue {
    KeyValue {
        key: key.to_string(),
        value: Some(AnyValue {
            value: Some(any_value::Value::StringValue(value.to_string())),
        }),
        ..Default::default()
    }
}

fn attributes(f: &Family, s: &Series) -> Vec<KeyValue> {
    f.labels
        .iter()
        .zip(&s.labels)
        .map(|(k, v)| string_kv(k, v))
        .collect()
}

fn number(f: &Family, s: &Series, t: Times) -> Option<NumberDataPoint> {
    let value = match s.point {
        Point::Int(v) => number_data_point::Value::AsInt(v),
        Point::Float(v) => number_data_point::Value::AsDouble(v),
        _ => return None,
    };
    Some(NumberDataPoint {
        attributes: attributes(f, s),
        start_time_unix_nano: t.start_ns,
        time_unix_nano: t.now_ns,
        value: Some(value),
        ..Default::default()
    })
}

fn histogram(f: &Family, s: &Series, t: Times) -> Option<HistogramDataPoint> {
    let Point::Histogram { buckets, sum } = &s.point else {
        return None;
    };
    let mut bounds = Vec::new();
    let mut counts = Vec::new();
    let mut inf = 0u64;
    for (b, n) in buckets {
        match b {
            Bound::Le(v) => {
                bounds.push(*v as f64);
                counts.push(*n);
            }
            Bound::Inf => inf = inf.saturating_add(*n),
        }
    }
    counts.push(inf);
    Some(HistogramDataPoint {
        attributes: attributes(f, s),
        start_time_unix_nano: t.start_ns,
        time_unix_nano: t.now_ns,
        count: counts.iter().fold(0u64, |a, n| a.saturating_add(*n)),
        sum: sum.map(|v| v as f64),
        bucket_counts: counts,
        explicit_bounds: bounds,
        ..Default::default()
    })
}

fn metric_of(f: &Family, t: Times) -> Metric {
    let data = match f.kind {
        Kind::Counter => metric::Data::Sum(Sum {
            data_points: f.series.iter().filter_map(|s| number(f, s, t)).collect(),
            aggregation_temporality: CUMULATIVE,
            is_monotonic: true,
        }),
        Kind::Gauge => metric::Data::Gauge(Gauge {
            data_points: f.series.iter().filter_map(|s| number(f, s, t)).collect(),
        }),
        Kind::Summary => metric::Data::Summary(Summary {
            data_points: f
                .series
                .iter()
                .filter_map(|s| match s.point {
                    Point::Summary { sum, count } => Some(SummaryDataPoint {
                        attributes: attributes(f, s),
                        start_time_unix_nano: t.start_ns,
                        time_unix_nano: t.now_ns,
                        count,
                        sum: sum as f64,
                        ..Default::default()
                    }),
                    _ => None,
                })
                .collect(),
        }),
        Kind::Histogram => metric::Data::Histogram(Histogram {
            data_points: f.series.iter().filter_map(|s| histogram(f, s, t)).collect(),
            aggregation_temporality: CUMULATIVE,
        }),
    };
    Metric {
        name: f.name.clone(),
        description: f.help.clone(),
        data: Some(data),
        ..Default::default()
    }
}

/// The request for `families`, from a resource named by `service`.
pub fn request(families: &[Family], service: &str, t: Times) -> ExportMetricsServiceRequest {
    ExportMetricsServiceRequest {
        resource_metrics: vec![ResourceMetrics {
            resource: Some(Resource {
                attributes: vec![string_kv("service.name", service)],
                ..Default::default()
            }),
            scope_metrics: vec![ScopeMetrics {
                scope: Some(InstrumentationScope {
                    name: "dtrace".into(),
                    version: env!("CARGO_PKG_VERSION").into(),
                    ..Default::default()
                }),
                metrics: families.iter().map(|f| metric_of(f, t)).collect(),
                ..Default::default()
            }],
            ..Default::default()
        }],
    }
}

/// A push that failed.
#[derive(Debug)]
pub enum OtlpError {
    /// Only `http://HOST:PORT[/path]` is supported.
    Url(String),
    Io(std::io::Error),
    /// The collector answered with a non-2xx status line.
    Status(String),
}

impl fmt::Display for OtlpError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            OtlpError::Url(u) => write!(
                f,
                "unsupported OTLP URL '{u}': expected http://HOST:PORT[/path]"
            ),
            OtlpError::Io(e) => write!(f, "OTLP push failed: {e}"),
            OtlpError::Status(s) => write!(f, "OTLP collector answered: {s}"),
        }
    }
}

impl std::error::Error for OtlpError {}

/// `(host:port, path)` of an `http://` URL; the path defaults to `/v1/metrics`.
pub fn parse_url(url: &str) -> Result<(String, String), OtlpError> {
    let rest = url
        .strip_prefix("http://")
        .ok_or_else(|| OtlpError::Url(url.to_string()))?;
    let (authority, path) = match rest.find('/') {
        Some(i) => (&rest[..i], &rest[i..]),
        None => (rest, ""),
    };
    if authority.is_empty() || !authority.contains(':') {
        return Err(OtlpError::Url(url.to_string()));
    }
    let path = if path.is_empty() || path == "/" {
        "/v1/metrics"
    } else {
        path
    };
    Ok((authority.to_string(), path.to_string()))
}

/// POST `req` to `url` (OTLP/HTTP, binary protobuf); bounded by `timeout`.
pub fn push(
    url: &str,
    req: &ExportMetricsServiceRequest,
    timeout: Duration,
) -> Result<(), OtlpError> {
    let (authority, path) = parse_url(url)?;
    let body = req.encode_to_vec();
    let addr = authority
        .to_socket_addrs()
        .map_err(OtlpError::Io)?
        .next()
        .ok_or_else(|| OtlpError::Url(url.to_string()))?;
    let mut conn = TcpStream::connect_timeout(&addr, timeout).map_err(OtlpError::Io)?;
    conn.set_read_timeout(Some(timeout))
        .map_err(OtlpError::Io)?;
    conn.set_write_timeout(Some(timeout))
        .map_err(OtlpError::Io)?;
    let head = format!(
        "POST {path} HTTP/1.1\r\nHost: {authority}\r\nContent-Type: application/x-protobuf\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
        body.len()
    );
    conn.write_all(head.as_bytes()).map_err(OtlpError::Io)?;
    conn.write_all(&body).map_err(OtlpError::Io)?;
    let mut status = Vec::new();
    let mut byte = [0u8; 1];
    while status.len() < 256 && !status.ends_with(b"\r\n") {
        match conn.read(&mut byte).map_err(OtlpError::Io)? {
            0 => break,
            _ => status.push(byte[0]),
        }
    }
    let line = String::from_utf8_lossy(&status).trim().to_string();
    let code = line.split_whitespace().nth(1).unwrap_or("");
    if code.starts_with('2') {
        Ok(())
    } else {
        Err(OtlpError::Status(line))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::net::TcpListener;

    fn families() -> Vec<Family> {
        vec![
            Family {
                name: "dtrace_calls".into(),
                help: "@calls: count()".into(),
                kind: Kind::Counter,
                labels: vec!["probefunc".into()],
                series: vec![Series {
                    labels: vec!["read".into()],
                    point: Point::Int(42),
                }],
            },
            Family {
                name: "dtrace_lat".into(),
                help: String::new(),
                kind: Kind::Histogram,
                labels: Vec::new(),
                series: vec![Series {
                    labels: Vec::new(),
                    point: Point::Histogram {
                        buckets: vec![
                            (Bound::Le(0), 1),
                            (Bound::Le(1), 2),
                            (Bound::Le(3), 0),
                            (Bound::Inf, 4),
                        ],
                        sum: None,
                    },
                }],
            },
        ]
    }

    /// Accept one request on a loopback listener and return its path and body.
    fn receive_one(listener: TcpListener) -> Option<(String, Vec<u8>)> {
        let (mut c, _) = listener.accept().ok()?;
        c.set_read_timeout(Some(Duration::from_secs(5))).ok()?;
        let mut data = Vec::new();
        let mut buf = [0u8; 4096];
        let (head_end, len) = loop {
            let n = c.read(&mut buf).ok()?;
            if n == 0 {
                return None;
            }
            data.extend_from_slice(&buf[..n]);
            if let Some(i) = data.windows(4).position(|w| w == b"\r\n\r\n") {
                let head = String::from_utf8_lossy(&data[..i]).to_lowercase();
                let len = head
                    .lines()
                    .find_map(|l| l.strip_prefix("content-length:"))
                    .and_then(|v| v.trim().parse::<usize>().ok())?;
                break (i + 4, len);
            }
        };
        while data.len() < head_end + len {
            let n = c.read(&mut buf).ok()?;
            if n == 0 {
                break;
            }
            data.extend_from_slice(&buf[..n]);
        }
        let path = String::from_utf8_lossy(&data[..head_end])
            .split_whitespace()
            .nth(1)?
            .to_string();
        c.write_all(b"HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n")
            .ok()?;
        Some((path, data[head_end..head_end + len].to_vec()))
    }

    #[test]
    fn a_collector_on_loopback_decodes_what_was_pushed() {
        let listener = match TcpListener::bind("127.0.0.1:0") {
            Ok(l) => l,
            Err(e) => panic!("bind: {e}"),
        };
        let port = listener.local_addr().map(|a| a.port()).unwrap_or(0);
        let receiver = std::thread::spawn(move || receive_one(listener));
        let t = Times {
            start_ns: 1,
            now_ns: 2,
        };
        let url = format!("http://127.0.0.1:{port}");
        let pushed = push(
            &url,
            &request(&families(), "dtrace-test", t),
            Duration::from_secs(5),
        );
        assert!(pushed.is_ok(), "{pushed:?}");
        let got = receiver.join().ok().flatten();
        let Some((path, body)) = got else {
            panic!("nothing received");
        };
        assert_eq!(path, "/v1/metrics");
        let req = match ExportMetricsServiceRequest::decode(body.as_slice()) {
            Ok(r) => r,
            Err(e) => panic!("decode: {e}"),
        };
        let metrics = &req.resource_metrics[0].scope_metrics[0].metrics;
        assert_eq!(metrics.len(), 2);
        match &metrics[0].data {
            Some(metric::Data::Sum(s)) => {
                assert!(s.is_monotonic);
                assert_eq!(
                    s.data_points[0].value,
                    Some(number_data_point::Value::AsInt(42))
                );
                assert_eq!(s.data_points[0].attributes[0].key, "probefunc");
            }
            other => panic!("count() as {other:?}"),
        }
        match &metrics[1].data {
            Some(metric::Data::Histogram(h)) => {
                let p = &h.data_points[0];
                assert_eq!(p.explicit_bounds, vec![0.0, 1.0, 3.0]);
                assert_eq!(p.bucket_counts, vec![1, 2, 0, 4]);
                assert_eq!(p.count, 7);
                assert_eq!(p.sum, None);
            }
            other => panic!("quantize() as {other:?}"),
        }
    }

    #[test]
    fn urls() {
        assert_eq!(
            parse_url("http://127.0.0.1:4318").ok(),
            Some(("127.0.0.1:4318".into(), "/v1/metrics".into()))
        );
        assert_eq!(
            parse_url("http://h:1/custom").ok(),
            Some(("h:1".into(), "/custom".into()))
        );
        assert!(parse_url("https://h:1").is_err());
        assert!(parse_url("http://nohost").is_err());
    }
}
