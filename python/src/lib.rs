//! Python bindings for the `dtrace` library (module `dtrace._dtrace`; the
//! Python package `dtrace` wraps it).
//!
//! A [`Consumer`] owns one tracing session, which lives on a thread of its own:
//! the session's kernel objects never cross threads, and Python waits for
//! events with the GIL released. The session writes NDJSON (the `-O json`
//! schema, one probe object per line); Python turns each line into a dict, so
//! events have exactly the JSON schema's keys (docs/JSON.md).

use dtrace::{Dtrace, JsonFormat, JsonOutput, WorkStatus};
use pyo3::exceptions::{PyRuntimeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::PyDict;
use std::sync::mpsc::{channel, Receiver, RecvTimeoutError, Sender};
use std::thread::JoinHandle;
use std::time::Duration;

/// What Python asks the session thread for.
enum Cmd {
    Go,
    Snapshot,
    Stop,
}

/// What the session thread reports.
enum Msg {
    /// The program compiled and its probes are loaded (not yet enabled).
    Ready,
    /// BEGIN has fired and the probes are enabled.
    Started,
    /// One event: an NDJSON line.
    Line(String),
    /// The answer to `Snapshot`: a JSON array.
    Snapshot(String),
    /// A failure, in dtrace's words.
    Error(String),
    /// Tracing ended with this exit status.
    Done(i32),
}

/// How long the session thread waits for records between commands.
const SWITCH: Duration = Duration::from_millis(50);

fn drain_lines(out: &mut JsonOutput<Vec<u8>, Vec<u8>>, tx: &Sender<Msg>) {
    let bytes = std::mem::take(out.out_mut());
    for line in String::from_utf8_lossy(&bytes).lines() {
        if !line.trim().is_empty() {
            let _ = tx.send(Msg::Line(line.to_string()));
        }
    }
    let err = std::mem::take(out.err_mut());
    if !err.is_empty() {
        let text = String::from_utf8_lossy(&err).trim_end().to_string();
        let _ = tx.send(Msg::Error(text));
    }
}

/// The session thread: open, set options, compile, exec; then run commands and
/// stream events until tracing ends or `Stop`.
fn run(
    script: String,
    options: Vec<(String, Option<String>)>,
    cmds: Receiver<Cmd>,
    tx: Sender<Msg>,
) {
    let fail = |tx: &Sender<Msg>, m: String| {
        let _ = tx.send(Msg::Error(m));
    };
    let mut dt = match Dtrace::open(true) {
        Ok(d) => d,
        Err(e) => return fail(&tx, e.to_string()),
    };
    for (name, value) in &options {
        if let Err(e) = dt.set_opt(name, value.as_deref()) {
            return fail(&tx, format!("dtrace: failed to set -x {name}: {}", e.0));
        }
    }
    if let Err(e) = dt.compile_str(&script, &[]) {
        return fail(&tx, e.message);
    }
    let mut session = match dt.exec() {
        Ok(s) => s,
        Err(e) => return fail(&tx, e.message),
    };
    let _ = tx.send(Msg::Ready);
    let mut out = JsonOutput::new(Vec::new(), Vec::new(), JsonFormat::Ndjson);
    let mut started = false;
    loop {
        let cmd = if started {
            cmds.try_recv().ok()
        } else {
            match cmds.recv() {
                Ok(c) => Some(c),
                Err(_) => return,
            }
        };
        match cmd {
            Some(Cmd::Go) if !started => {
                started = true;
                let status = session.go(&mut out);
                drain_lines(&mut out, &tx);
                let _ = tx.send(Msg::Started);
                match status {
                    Ok(WorkStatus::Done) => break,
                    Ok(WorkStatus::Okay) => {}
                    Err(e) => return fail(&tx, e.message),
                }
                continue;
            }
            Some(Cmd::Snapshot) => {
                match session.snapshot_json() {
                    Ok(j) => {
                        let _ = tx.send(Msg::Snapshot(j));
                    }
                    Err(e) => fail(&tx, e.message),
                }
                continue;
            }
            Some(Cmd::Stop) => break,
            Some(Cmd::Go) | None => {}
        }
        if !started {
            continue;
        }
        match session.work(SWITCH, &mut out) {
            Ok(WorkStatus::Okay) => drain_lines(&mut out, &tx),
            Ok(WorkStatus::Done) => {
                drain_lines(&mut out, &tx);
                break;
            }
            Err(e) => {
                drain_lines(&mut out, &tx);
                return fail(&tx, e.message);
            }
        }
    }
    // Detach, fire END, and hand over the aggregations not yet printed.
    let status = session.finish(&mut out);
    let _ = out.close();
    drain_lines(&mut out, &tx);
    match status {
        Ok(s) => {
            let _ = tx.send(Msg::Done(s));
        }
        Err(e) => fail(&tx, e.message),
    }
}

/// Receive one message, waiting up to `wait` (None: until one comes).
fn recv(
    rx: &std::sync::Mutex<Receiver<Msg>>,
    wait: Option<Duration>,
) -> Result<Msg, RecvTimeoutError> {
    let rx = rx.lock().unwrap_or_else(|p| p.into_inner());
    match wait {
        None => rx.recv().map_err(|_| RecvTimeoutError::Disconnected),
        Some(w) => rx.recv_timeout(w),
    }
}

/// One D program's tracing session.
#[pyclass(module = "dtrace._dtrace")]
struct Consumer {
    cmds: Sender<Cmd>,
    /// Behind a mutex so that a wait with the GIL released may borrow it
    /// (`Receiver` is `Send` but not `Sync`).
    msgs: std::sync::Mutex<Receiver<Msg>>,
    thread: Option<JoinHandle<()>>,
    /// Answers to `snapshot` that arrived while events were read, and events
    /// that arrived while a snapshot was awaited.
    lines: std::collections::VecDeque<String>,
    done: Option<i32>,
}

fn option_value(v: &Bound<'_, PyAny>) -> PyResult<Option<String>> {
    if let Ok(b) = v.extract::<bool>() {
        // `quiet=True` is `-x quiet`; `quiet=False` unsets a flag.
        return Ok(if b { None } else { Some("no".into()) });
    }
    if let Ok(i) = v.extract::<i64>() {
        return Ok(Some(i.to_string()));
    }
    if let Ok(s) = v.extract::<String>() {
        return Ok(Some(s));
    }
    Err(PyValueError::new_err("option values are bool, int or str"))
}

#[pymethods]
impl Consumer {
    /// Compile `script` with `options` (`-x` names: `quiet=True`,
    /// `bufsize="4m"`, `switchrate=100`) and load it; nothing fires until
    /// `go()`. Raises `RuntimeError` with dtrace's message when the program
    /// does not compile or load.
    #[new]
    #[pyo3(signature = (script, **options))]
    fn new(
        py: Python<'_>,
        script: String,
        options: Option<&Bound<'_, PyDict>>,
    ) -> PyResult<Consumer> {
        let mut opts = Vec::new();
        if let Some(d) = options {
            for (k, v) in d.iter() {
                opts.push((k.extract::<String>()?, option_value(&v)?));
            }
        }
        let (cmd_tx, cmd_rx) = channel();
        let (msg_tx, msg_rx) = channel();
        let thread = std::thread::Builder::new()
            .name("dtrace-session".into())
            .spawn(move || run(script, opts, cmd_rx, msg_tx))
            .map_err(|e| PyRuntimeError::new_err(format!("cannot start the session: {e}")))?;
        let msg_rx = std::sync::Mutex::new(msg_rx);
        let first = py.detach(|| recv(&msg_rx, None));
        match first {
            Ok(Msg::Ready) => Ok(Consumer {
                cmds: cmd_tx,
                msgs: msg_rx,
                thread: Some(thread),
                lines: Default::default(),
                done: None,
            }),
            Ok(Msg::Error(e)) => {
                let _ = thread.join();
                Err(PyRuntimeError::new_err(e))
            }
            _ => {
                let _ = thread.join();
                Err(PyRuntimeError::new_err(
                    "the session ended before it was ready",
                ))
            }
        }
    }

    /// Fire BEGIN and enable the probes; returns once they are enabled.
    fn go(&mut self, py: Python<'_>) -> PyResult<()> {
        self.cmds
            .send(Cmd::Go)
            .map_err(|_| PyRuntimeError::new_err("the session has ended"))?;
        loop {
            let msgs = &self.msgs;
            match py.detach(|| recv(msgs, None)) {
                Ok(Msg::Started) => return Ok(()),
                Ok(Msg::Line(l)) => self.lines.push_back(l),
                Ok(Msg::Done(s)) => {
                    self.done = Some(s);
                    return Ok(());
                }
                Ok(Msg::Error(e)) => return Err(PyRuntimeError::new_err(e)),
                Ok(Msg::Ready | Msg::Snapshot(_)) => {}
                Err(_) => return Err(PyRuntimeError::new_err("the session has ended")),
            }
        }
    }

    /// Wait up to `timeout` seconds for events; returns the NDJSON lines that
    /// arrived (possibly none) and whether tracing has ended. Raises on a
    /// failure.
    fn poll(&mut self, py: Python<'_>, timeout: f64) -> PyResult<(Vec<String>, bool)> {
        let mut out: Vec<String> = self.lines.drain(..).collect();
        if self.done.is_some() {
            return Ok((out, true));
        }
        let wait = Duration::from_secs_f64(timeout.max(0.0));
        let msgs = &self.msgs;
        let first = py.detach(|| recv(msgs, Some(wait)));
        let mut next = match first {
            Ok(m) => Some(m),
            Err(RecvTimeoutError::Timeout) => None,
            Err(RecvTimeoutError::Disconnected) => {
                self.done = Some(self.done.unwrap_or(0));
                None
            }
        };
        while let Some(m) = next {
            match m {
                Msg::Line(l) => out.push(l),
                Msg::Done(s) => self.done = Some(s),
                Msg::Error(e) => return Err(PyRuntimeError::new_err(e)),
                Msg::Ready | Msg::Started | Msg::Snapshot(_) => {}
            }
            next = recv(&self.msgs, Some(Duration::ZERO)).ok();
        }
        Ok((out, self.done.is_some()))
    }

    /// Every aggregation now, as a JSON array in the `-O json` schema.
    fn snapshot_json(&mut self, py: Python<'_>) -> PyResult<String> {
        if self.done.is_some() {
            return Err(PyRuntimeError::new_err("tracing has ended"));
        }
        self.cmds
            .send(Cmd::Snapshot)
            .map_err(|_| PyRuntimeError::new_err("the session has ended"))?;
        loop {
            let msgs = &self.msgs;
            let m = py.detach(|| recv(msgs, Some(Duration::from_secs(30))));
            match m {
                Ok(Msg::Snapshot(j)) => return Ok(j),
                Ok(Msg::Line(l)) => self.lines.push_back(l),
                Ok(Msg::Done(s)) => {
                    self.done = Some(s);
                    return Err(PyRuntimeError::new_err("tracing has ended"));
                }
                Ok(Msg::Error(e)) => return Err(PyRuntimeError::new_err(e)),
                Ok(Msg::Ready | Msg::Started) => {}
                Err(_) => return Err(PyRuntimeError::new_err("no snapshot from the session")),
            }
        }
    }

    /// Stop tracing (END fires); the remaining events are still returned by
    /// `poll`.
    fn stop(&mut self) {
        let _ = self.cmds.send(Cmd::Stop);
    }

    /// The status passed to `exit()` once tracing has ended, else None.
    #[getter]
    fn exit_status(&self) -> Option<i32> {
        self.done
    }
}

impl Drop for Consumer {
    fn drop(&mut self) {
        let _ = self.cmds.send(Cmd::Stop);
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

#[pymodule]
fn _dtrace(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<Consumer>()?;
    Ok(())
}
