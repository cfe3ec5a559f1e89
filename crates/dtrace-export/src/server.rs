//! Serving the exposition: `GET /metrics` over HTTP/1.x from one background
//! thread. The tracing loop renders a fresh exposition from each aggregation
//! snapshot and hands it over with [`Exporter::publish`]; a scrape copies the
//! latest one, so scrapes never touch the kernel or block tracing.

use crate::openmetrics::CONTENT_TYPE;
use std::fmt;
use std::io::{Read, Write};
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::Duration;

/// The exporter could not start.
#[derive(Debug)]
pub enum ExporterError {
    /// The address does not parse as `HOST:PORT`.
    Address(String),
    /// Binding or configuring the listener failed.
    Bind(String, std::io::Error),
}

impl fmt::Display for ExporterError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ExporterError::Address(a) => {
                write!(f, "invalid exporter address '{a}': expected HOST:PORT")
            }
            ExporterError::Bind(a, e) => write!(f, "cannot listen on {a}: {e}"),
        }
    }
}

impl std::error::Error for ExporterError {}

/// A running `/metrics` endpoint; stops (and joins its thread) when dropped.
pub struct Exporter {
    addr: SocketAddr,
    latest: Arc<Mutex<String>>,
    stop: Arc<AtomicBool>,
    thread: Option<JoinHandle<()>>,
}

/// The largest request head read; anything longer is refused.
const MAX_REQUEST: usize = 8192;
/// The pause after a failed accept.
const BACKOFF: Duration = Duration::from_millis(20);

impl Exporter {
    /// Listen on `addr` (`HOST:PORT`; port 0 picks a free one). The endpoint
    /// serves an empty exposition (`# EOF`) until the first [`publish`](Self::publish).
    pub fn start(addr: &str) -> Result<Exporter, ExporterError> {
        let sock: SocketAddr = addr
            .parse()
            .map_err(|_| ExporterError::Address(addr.to_string()))?;
        let listener =
            TcpListener::bind(sock).map_err(|e| ExporterError::Bind(addr.to_string(), e))?;
        let local = listener
            .local_addr()
            .map_err(|e| ExporterError::Bind(addr.to_string(), e))?;
        let latest = Arc::new(Mutex::new(String::from("# EOF\n")));
        let stop = Arc::new(AtomicBool::new(false));
        let (l2, s2) = (latest.clone(), stop.clone());
        let thread = std::thread::Builder::new()
            .name("dtrace-metrics".into())
            .spawn(move || serve(listener, l2, s2))
            .map_err(|e| ExporterError::Bind(addr.to_string(), e))?;
        Ok(Exporter {
            addr: local,
            latest,
            stop,
            thread: Some(thread),
        })
    }

    /// The address actually bound.
    pub fn local_addr(&self) -> SocketAddr {
        self.addr
    }

    /// Replace the exposition served from now on.
    pub fn publish(&self, exposition: String) {
        let mut g = self.latest.lock().unwrap_or_else(|p| p.into_inner());
        *g = exposition;
    }
}

impl Drop for Exporter {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
        // Wake the blocking accept with a connection of our own; if that
        // fails the thread is detached rather than waited for forever.
        let mut wake = self.addr;
        if wake.ip().is_unspecified() {
            wake.set_ip(match wake {
                SocketAddr::V4(_) => std::net::Ipv4Addr::LOCALHOST.into(),
                SocketAddr::V6(_) => std::net::Ipv6Addr::LOCALHOST.into(),
            });
        }
        if TcpStream::connect_timeout(&wake, Duration::from_secs(1)).is_ok() {
            if let Some(t) = self.thread.take() {
                let _ = t.join();
            }
        }
    }
}

fn serve(listener: TcpListener, latest: Arc<Mutex<String>>, stop: Arc<AtomicBool>) {
    loop {
        let accepted = listener.accept();
        if stop.load(Ordering::Relaxed) {
            return;
        }
        match accepted {
            Ok((conn, _)) => {
                let body = latest
                    .lock()
                    .map(|g| g.clone())
                    .unwrap_or_else(|p| p.into_inner().clone());
                let _ = answer(conn, &body);
            }
            // Out of fds or the like: back off instead of spinning.
            Err(_) => std::thread::sleep(BACKOFF),
        }
    }
}

/// Read one request head and answer it; the connection closes after.
fn answer(mut conn: TcpStream, body: &str) -> std::io::Result<()> {
    conn.set_nonblocking(false)?;
    conn.set_read_timeout(Some(Duration::from_secs(2)))?;
    conn.set_write_timeout(Some(Duration::from_secs(5)))?;
    let mut head = Vec::with_capacity(512);
    let mut buf = [0u8; 1024];
    while !head.windows(4).any(|w| w == b"\r\n\r\n") {
        let n = conn.read(&mut buf)?;
        if n == 0 {
            break;
        }
        head.extend_from_slice(&buf[..n]);
        if head.len() > MAX_REQUEST {
            return respond(
                &mut conn,
                "431 Request Header Fields Too Large",
                "text/plain",
                "request too large\n",
                true,
            );
        }
    }
    let line = head.split(|b| *b == b'\n').next().unwrap_or(&[]);
    let line = String::from_utf8_lossy(line);
    let mut words = line.split_whitespace();
    let (method, target) = (words.next().unwrap_or(""), words.next().unwrap_or(""));
    let path = target.split('?').next().unwrap_or("");
    match (method, path) {
        ("GET" | "HEAD", "/metrics") => {
            respond(&mut conn, "200 OK", CONTENT_TYPE, body, method == "GET")
        }
        ("GET" | "HEAD", _) => respond(
            &mut conn,
            "404 Not Found",
            "text/plain",
            "try /metrics\n",
            method == "GET",
        ),
        _ => respond(
            &mut conn,
            "405 Method Not Allowed",
            "text/plain",
            "GET only\n",
            true,
        ),
    }
}

fn respond(
    conn: &mut TcpStream,
    status: &str,
    ctype: &str,
    body: &str,
    with_body: bool,
) -> std::io::Result<()> {
    let head = format!(
        "HTTP/1.1 {status}\r\nContent-Type: {ctype}\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
        body.len()
    );
    conn.write_all(head.as_bytes())?;
    if with_body {
        conn.write_all(body.as_bytes())?;
    }
    conn.flush()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn get(addr: SocketAddr, path: &str) -> String {
        let mut c = match TcpStream::connect(addr) {
            Ok(c) => c,
            Err(e) => panic!("connect {addr}: {e}"),
        };
        let _ = c.set_read_timeout(Some(Duration::from_secs(5)));
        let req = format!("GET {path} HTTP/1.1\r\nHost: x\r\n\r\n");
        assert!(c.write_all(req.as_bytes()).is_ok());
        let mut s = String::new();
        assert!(c.read_to_string(&mut s).is_ok());
        s
    }

    #[test]
    fn serves_the_latest_exposition() {
        let ex = match Exporter::start("127.0.0.1:0") {
            Ok(e) => e,
            Err(e) => panic!("{e}"),
        };
        let r = get(ex.local_addr(), "/metrics");
        assert!(r.starts_with("HTTP/1.1 200 OK\r\n"), "{r}");
        assert!(r.contains(CONTENT_TYPE));
        assert!(r.ends_with("\r\n\r\n# EOF\n"), "{r}");
        ex.publish("# TYPE x gauge\nx 1\n# EOF\n".into());
        assert!(
            get(ex.local_addr(), "/metrics?x=1").ends_with("\r\n\r\n# TYPE x gauge\nx 1\n# EOF\n")
        );
        assert!(get(ex.local_addr(), "/").starts_with("HTTP/1.1 404"));
    }

    #[test]
    fn bad_addresses_are_errors() {
        assert!(matches!(
            Exporter::start("nope"),
            Err(ExporterError::Address(_))
        ));
        let taken = Exporter::start("127.0.0.1:0");
        if let Ok(t) = taken {
            let again = Exporter::start(&t.local_addr().to_string());
            assert!(matches!(again, Err(ExporterError::Bind(..))));
        }
    }
}
