//! The exporter's cost for 10,000 series: rendering the OpenMetrics text from a
//! snapshot, and one scrape of `/metrics` over loopback.
//!
//!     cargo bench -p dtrace-export --bench scrape
//!
//! The series: 10,000 `count()` keys (one label), and in a second run 10,000
//! quantize() keys (a histogram of 12 buckets each), as a busy
//! `@[execname, probefunc]` table would give.

use dtrace_export::metrics::{Bound, Family, Kind, Point, Series};
use dtrace_export::openmetrics::render;
use dtrace_export::Exporter;
use std::io::{Read, Write};
use std::net::TcpStream;
use std::time::{Duration, Instant};

fn counters(n: usize) -> Vec<Family> {
    vec![Family {
        name: "dtrace_calls".into(),
        help: "@calls: count()".into(),
        kind: Kind::Counter,
        labels: vec!["key0".into()],
        series: (0..n)
            .map(|i| Series {
                labels: vec![format!("process-{i}")],
                point: Point::Int(i as i64 * 7),
            })
            .collect(),
    }]
}

fn histograms(n: usize) -> Vec<Family> {
    let buckets: Vec<(Bound, u64)> = (0..11)
        .map(|i| (Bound::Le((1i64 << i) - 1), i as u64))
        .chain(std::iter::once((Bound::Inf, 1)))
        .collect();
    vec![Family {
        name: "dtrace_lat".into(),
        help: "@lat: quantize()".into(),
        kind: Kind::Histogram,
        labels: vec!["key0".into()],
        series: (0..n)
            .map(|i| Series {
                labels: vec![format!("fn{i}")],
                point: Point::Histogram {
                    buckets: buckets.clone(),
                    sum: None,
                },
            })
            .collect(),
    }]
}

fn scrape(port: u16) -> usize {
    let Ok(mut c) = TcpStream::connect(("127.0.0.1", port)) else {
        return 0;
    };
    let _ = c.set_read_timeout(Some(Duration::from_secs(5)));
    let _ = c.write_all(b"GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n");
    let mut body = Vec::new();
    let _ = c.read_to_end(&mut body);
    body.len()
}

fn median(mut v: Vec<Duration>) -> Duration {
    v.sort();
    v[v.len() / 2]
}

fn run(what: &str, fams: &[Family]) {
    let runs = 21;
    let render_times: Vec<Duration> = (0..runs)
        .map(|_| {
            let t = Instant::now();
            let text = render(fams);
            std::hint::black_box(text.len());
            t.elapsed()
        })
        .collect();
    let text = render(fams);
    let Ok(ex) = Exporter::start("127.0.0.1:0") else {
        eprintln!("cannot start the exporter");
        return;
    };
    ex.publish(text.clone());
    let port = ex.local_addr().port();
    let scrape_times: Vec<Duration> = (0..runs)
        .map(|_| {
            let t = Instant::now();
            std::hint::black_box(scrape(port));
            t.elapsed()
        })
        .collect();
    println!(
        "{what}: {} bytes; render median {:.2} ms; scrape (loopback GET) median {:.2} ms",
        text.len(),
        median(render_times).as_secs_f64() * 1e3,
        median(scrape_times).as_secs_f64() * 1e3
    );
}

fn main() {
    run("10,000 counter series", &counters(10_000));
    run("10,000 histogram series (12 buckets)", &histograms(10_000));
}
