//! Fleet export end to end, as root with real eBPF: dtrace serves its
//! aggregations at `/metrics` (`-x prometheus`), a real Prometheus server from
//! Debian's package scrapes it on loopback every second, and its HTTP API
//! returns the values the program guarantees.
//!
//! The Prometheus binary is found at `$DTRACE_TEST_PROMETHEUS`, or under
//! `target/tools/prometheus/usr/bin/prometheus`, where `.ci/run` unpacks
//! Debian's package. Without it the test is skipped, unless
//! `DTRACE_REQUIRE_BPF=1` (CI), where it fails.

mod common;

use common::{dtrace_bin, require_bpf, temp_path};
use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// Kills a child process when dropped, so no path leaves it running.
struct Reaped(Child);

impl Drop for Reaped {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

fn prometheus_bin() -> Option<PathBuf> {
    if let Ok(p) = std::env::var("DTRACE_TEST_PROMETHEUS") {
        return Some(PathBuf::from(p));
    }
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..");
    let p = root.join("target/tools/prometheus/usr/bin/prometheus");
    p.exists().then_some(p)
}

fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .map(|a| a.port())
        .unwrap_or(0)
}

/// `GET http://127.0.0.1:port/path`: the body of a 200 answer.
fn http_get(port: u16, path: &str) -> Option<String> {
    let mut c = TcpStream::connect(("127.0.0.1", port)).ok()?;
    c.set_read_timeout(Some(Duration::from_secs(5))).ok()?;
    let req = format!("GET {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n");
    c.write_all(req.as_bytes()).ok()?;
    let mut s = String::new();
    c.read_to_string(&mut s).ok()?;
    if !s.starts_with("HTTP/1.1 200") {
        return None;
    }
    s.split_once("\r\n\r\n").map(|(_, b)| b.to_string())
}

/// The value of the first sample a PromQL instant query returns (the query
/// must be URL-safe as written).
fn query(port: u16, promql: &str) -> Option<String> {
    let body = http_get(port, &format!("/api/v1/query?query={promql}"))?;
    // {"status":"success","data":{"resultType":"vector","result":[{"metric":{...},"value":[1700000000.1,"42"]}]}}
    let v = body.split("\"value\":[").nth(1)?;
    let v = v.split(',').nth(1)?;
    Some(v.split('"').nth(1)?.to_string())
}

#[test]
fn a_real_prometheus_scrapes_the_aggregations() {
    if !require_bpf() {
        return;
    }
    let Some(prom) = prometheus_bin() else {
        if std::env::var("DTRACE_REQUIRE_BPF").is_ok_and(|v| v == "1") {
            panic!("no Prometheus binary: .ci/run unpacks Debian's into target/tools/prometheus");
        }
        eprintln!("note: skipping: no Prometheus binary (set DTRACE_TEST_PROMETHEUS)");
        return;
    };
    // Values the program guarantees: a count of 3, a sum of 42, and a
    // quantize() of 1, 5 and 5 (buckets le=1: 1, le=7: 3).
    let program = r#"
        BEGIN {
            @calls["begin"] = count(); @calls["begin"] = count(); @calls["begin"] = count();
            @bytes = sum(42);
            @lat = quantize(1); @lat = quantize(5); @lat = quantize(5);
        }
        tick-60s { exit(0); }
    "#;
    let dtrace = Command::new(dtrace_bin())
        .args(["-q", "-x", "prometheus=127.0.0.1:0", "-n", program])
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn();
    let mut dtrace = match dtrace {
        Ok(c) => Reaped(c),
        Err(e) => panic!("cannot run dtrace: {e}"),
    };
    // Asked for port 0, dtrace names the port it bound, even under -q.
    let Some(stderr) = dtrace.0.stderr.take() else {
        panic!("no stderr pipe");
    };
    let mut lines = BufReader::new(stderr).lines();
    let first = lines.next().and_then(|l| l.ok()).unwrap_or_default();
    let port: u16 = first
        .strip_prefix("dtrace: metrics at http://127.0.0.1:")
        .and_then(|r| r.strip_suffix("/metrics"))
        .and_then(|p| p.parse().ok())
        .unwrap_or_else(|| panic!("expected the metrics address, got {first:?}"));

    // The exposition itself, straight from dtrace.
    let start = Instant::now();
    let mut text = String::new();
    while start.elapsed() < Duration::from_secs(10) {
        text = http_get(port, "/metrics").unwrap_or_default();
        if text.contains("dtrace_bytes 42") {
            break;
        }
        std::thread::sleep(Duration::from_millis(100));
    }
    assert!(
        text.contains("dtrace_calls_total{key0=\"begin\"} 3\n"),
        "{text}"
    );
    assert!(text.contains("dtrace_lat_bucket{le=\"7.0\"} 3\n"), "{text}");
    assert!(text.ends_with("# EOF\n"), "{text}");

    // A real Prometheus, loopback only, scraping every second.
    let dir = temp_path("prometheus");
    let _ = std::fs::remove_dir_all(&dir);
    assert!(std::fs::create_dir_all(dir.join("data")).is_ok());
    let config = format!(
        "global:\n  scrape_interval: 1s\n  scrape_timeout: 1s\nscrape_configs:\n  - job_name: dtrace\n    static_configs:\n      - targets: ['127.0.0.1:{port}']\n"
    );
    assert!(std::fs::write(dir.join("prometheus.yml"), config).is_ok());
    let web = free_port();
    let server = Command::new(&prom)
        .arg(format!(
            "--config.file={}",
            dir.join("prometheus.yml").display()
        ))
        .arg(format!(
            "--storage.tsdb.path={}",
            dir.join("data").display()
        ))
        .arg(format!("--web.listen-address=127.0.0.1:{web}"))
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn();
    let _server = match server {
        Ok(c) => Reaped(c),
        Err(e) => panic!("cannot run {}: {e}", prom.display()),
    };
    let deadline = Instant::now() + Duration::from_secs(45);
    let mut got = (None, None, None);
    while Instant::now() < deadline {
        got = (
            query(web, "dtrace_calls_total"),
            query(web, "dtrace_bytes"),
            query(web, "dtrace_lat_bucket%7Ble%3D%227.0%22%7D"),
        );
        if got.0.is_some() && got.1.is_some() && got.2.is_some() {
            break;
        }
        std::thread::sleep(Duration::from_millis(500));
    }
    let _ = std::fs::remove_dir_all(&dir);
    assert_eq!(
        got,
        (Some("3".into()), Some("42".into()), Some("3".into())),
        "Prometheus did not return the aggregation values in time"
    );
    // dtrace stops cleanly on SIGINT.
    // SAFETY: kill(2) on the pid of a child we spawned and have not reaped.
    unsafe { libc::kill(dtrace.0.id() as i32, libc::SIGINT) };
    let end = Instant::now();
    while end.elapsed() < Duration::from_secs(10) {
        if let Ok(Some(status)) = dtrace.0.try_wait() {
            assert!(status.success(), "dtrace exited with {status}");
            return;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    panic!("dtrace did not exit after SIGINT");
}

/// `-x otlp`: at exit, dtrace POSTs its aggregations as OTLP/HTTP protobuf to
/// the collector (here a loopback listener that reads one request). The
/// message's decoding is tested in dtrace-export; this checks the wiring.
#[cfg(feature = "otlp")]
#[test]
fn aggregations_are_pushed_to_an_otlp_collector() {
    if !require_bpf() {
        return;
    }
    let listener = match TcpListener::bind("127.0.0.1:0") {
        Ok(l) => l,
        Err(e) => panic!("bind: {e}"),
    };
    let port = listener.local_addr().map(|a| a.port()).unwrap_or(0);
    let collector = std::thread::spawn(move || {
        let (mut c, _) = listener.accept().ok()?;
        c.set_read_timeout(Some(Duration::from_secs(10))).ok()?;
        let mut data = Vec::new();
        let mut buf = [0u8; 4096];
        loop {
            let n = c.read(&mut buf).ok()?;
            if n == 0 {
                break;
            }
            data.extend_from_slice(&buf[..n]);
            let text = String::from_utf8_lossy(&data).to_lowercase();
            if let Some((head, body)) = text.split_once("\r\n\r\n") {
                let len: usize = head
                    .lines()
                    .find_map(|l| l.strip_prefix("content-length:"))
                    .and_then(|v| v.trim().parse().ok())?;
                if body.len() >= len {
                    break;
                }
            }
        }
        c.write_all(b"HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n")
            .ok()?;
        Some(data)
    });
    let out = Command::new(dtrace_bin())
        .args([
            "-q",
            "-x",
            &format!("otlp=http://127.0.0.1:{port}"),
            "-n",
            "BEGIN { @calls[\"begin\"] = count(); exit(0); }",
        ])
        .stdin(Stdio::null())
        .output();
    let out = match out {
        Ok(o) => o,
        Err(e) => panic!("cannot run dtrace: {e}"),
    };
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let data = collector.join().ok().flatten().unwrap_or_default();
    let text = String::from_utf8_lossy(&data);
    assert!(text.starts_with("POST /v1/metrics HTTP/1.1\r\n"), "{text}");
    assert!(
        text.contains("Content-Type: application/x-protobuf\r\n"),
        "{text}"
    );
    assert!(text.contains("dtrace_calls"), "{text}");
    assert!(text.contains("begin"), "{text}");
}
