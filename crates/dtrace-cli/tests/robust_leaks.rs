//! No probe left attached: after dtrace exits — normally, through exit(), on
//! SIGINT, SIGTERM, SIGKILL, or after a compile, verifier or attach error — no BPF
//! program it loaded is still loaded.
//!
//! Two ways to know which programs are ours, so that other tracers (or other
//! dtrace runs) on the machine cannot confuse the check:
//! - while a run is alive, the `prog_id:` lines of `/proc/PID/fdinfo/*` list
//!   exactly the programs it holds (program and link fds both name one);
//! - a run too short to watch carries a marker: every clause stores a constant
//!   unique to the run, and a leftover program is one whose instructions hold it.
//!
//! One test function runs the scenarios in order, so the runs cannot overlap.

mod common;

use common::{dtrace_bin, require_bpf, stderr};
use dtrace_sys::introspect;
use std::collections::BTreeSet;
use std::process::{Child, Command, Output, Stdio};
use std::time::{Duration, Instant};

/// How long the kernel may take to release programs after their last fd closes
/// (links are released from a work queue, after an RCU grace period).
const RELEASE: Duration = Duration::from_secs(10);

fn sys() -> dtrace_sys::SysRef {
    dtrace_sys::kernel()
}

/// Program ids held by process `pid` right now.
fn held_prog_ids(pid: u32) -> BTreeSet<u32> {
    let mut ids = BTreeSet::new();
    let Ok(rd) = std::fs::read_dir(format!("/proc/{pid}/fdinfo")) else {
        return ids;
    };
    for e in rd.flatten() {
        let Ok(text) = std::fs::read_to_string(e.path()) else {
            continue;
        };
        for line in text.lines() {
            if let Some(v) = line.strip_prefix("prog_id:") {
                if let Ok(id) = v.trim().parse::<u32>() {
                    ids.insert(id);
                }
            }
        }
    }
    ids
}

/// Which of `ids` are still loaded after waiting up to `RELEASE` for them to go.
fn still_loaded(ids: &BTreeSet<u32>) -> Vec<introspect::LoadedProg> {
    let start = Instant::now();
    loop {
        let left: Vec<introspect::LoadedProg> = ids
            .iter()
            .filter_map(|id| introspect::prog_info(&sys(), *id).ok().flatten())
            .collect();
        if left.is_empty() || start.elapsed() > RELEASE {
            return left;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// Loaded dtrace programs whose instructions hold `marker`, now.
fn find_marked(marker: i32) -> Vec<introspect::LoadedProg> {
    let progs = introspect::loaded_programs(&sys()).unwrap_or_default();
    progs
        .into_iter()
        .filter(|p| p.is_dtrace())
        .filter(|p| {
            introspect::prog_insns(&sys(), p.id)
                .ok()
                .flatten()
                .is_some_and(|insns| insns.iter().any(|i| introspect::insn_imm(i) == marker))
        })
        .collect()
}

/// Loaded dtrace programs whose instructions hold `marker`, after waiting up to
/// `RELEASE` for them to go.
fn marked_programs(marker: i32) -> Vec<introspect::LoadedProg> {
    let start = Instant::now();
    loop {
        let left = find_marked(marker);
        if left.is_empty() || start.elapsed() > RELEASE {
            return left;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// A marker unique to this run: below 2^31 so it is one `mov` immediate.
fn marker(seq: u32) -> i32 {
    let t = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.subsec_nanos())
        .unwrap_or(0);
    (0x4000_0000 | ((std::process::id() ^ t ^ seq.wrapping_mul(0x9e37_79b9)) & 0x3fff_fff0)) as i32
}

fn spawn(args: &[&str]) -> Child {
    match Command::new(dtrace_bin())
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
    {
        Ok(c) => c,
        Err(e) => panic!("cannot run dtrace: {e}"),
    }
}

/// Wait for `child` to hold its programs: a non-empty set that stays the same
/// for a few polls. Returns the set (empty if it never loaded any).
fn wait_loaded(child: &mut Child, settle: usize) -> BTreeSet<u32> {
    let start = Instant::now();
    let mut last = BTreeSet::new();
    let mut same = 0;
    while start.elapsed() < Duration::from_secs(20) {
        if matches!(child.try_wait(), Ok(Some(_))) {
            break;
        }
        let now = held_prog_ids(child.id());
        if !now.is_empty() && now == last {
            same += 1;
            if same >= settle {
                return now;
            }
        } else {
            same = 0;
        }
        last = now;
        std::thread::sleep(Duration::from_millis(20));
    }
    last
}

fn wait_timeout(mut child: Child, limit: Duration) -> Result<Output, String> {
    let start = Instant::now();
    loop {
        match child.try_wait() {
            Ok(Some(_)) => break,
            Ok(None) if start.elapsed() > limit => {
                let _ = child.kill();
                let _ = child.wait();
                return Err(format!("dtrace did not exit within {limit:?}"));
            }
            Ok(None) => std::thread::sleep(Duration::from_millis(10)),
            Err(e) => return Err(format!("wait: {e}")),
        }
    }
    child.wait_with_output().map_err(|e| format!("wait: {e}"))
}

fn send(child: &Child, sig: &str) {
    let st = Command::new("kill")
        .args([sig, &child.id().to_string()])
        .status();
    assert!(st.is_ok_and(|s| s.success()), "kill {sig} failed");
}

/// A scenario watched through fdinfo: start, wait until loaded, optionally
/// signal, wait for exit; then none of the programs it held may remain.
fn watched(name: &str, args: &[&str], signal: Option<&str>, failures: &mut Vec<String>) {
    let mut child = spawn(args);
    let ids = wait_loaded(&mut child, 3);
    if ids.is_empty() {
        let out = wait_timeout(child, Duration::from_secs(20));
        let err = out.map(|o| stderr(&o)).unwrap_or_else(|e| e);
        failures.push(format!(
            "{name}: never saw the programs loaded; stderr:\n{err}"
        ));
        return;
    }
    if let Some(sig) = signal {
        send(&child, sig);
    }
    let out = match wait_timeout(child, Duration::from_secs(20)) {
        Ok(o) => o,
        Err(e) => {
            failures.push(format!("{name}: {e}"));
            return;
        }
    };
    let err = stderr(&out);
    if err.contains("panicked") {
        failures.push(format!("{name}: panicked:\n{err}"));
    }
    let left = still_loaded(&ids);
    if !left.is_empty() {
        failures.push(format!("{name}: still loaded after exit: {left:?}"));
    }
}

/// A scenario too short to watch: run to completion with a marker in every
/// clause; no program holding the marker may remain. Returns the output.
fn marked(
    name: &str,
    args: &[&str],
    env: &[(&str, &str)],
    mark: i32,
    failures: &mut Vec<String>,
) -> Option<Output> {
    let mut cmd = Command::new(dtrace_bin());
    cmd.args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped());
    for (k, v) in env {
        cmd.env(k, v);
    }
    let out = match cmd
        .spawn()
        .map_err(|e| e.to_string())
        .and_then(|c| wait_timeout(c, Duration::from_secs(20)))
    {
        Ok(o) => o,
        Err(e) => {
            failures.push(format!("{name}: {e}"));
            return None;
        }
    };
    let err = stderr(&out);
    if err.contains("panicked") {
        failures.push(format!("{name}: panicked:\n{err}"));
    }
    let left = marked_programs(mark);
    if !left.is_empty() {
        failures.push(format!("{name}: still loaded after exit: {left:?}"));
    }
    Some(out)
}

/// The direct children of `pid`.
fn children(pid: u32) -> Vec<u32> {
    std::fs::read_to_string(format!("/proc/{pid}/task/{pid}/children"))
        .unwrap_or_default()
        .split_whitespace()
        .filter_map(|s| s.parse().ok())
        .collect()
}

fn killed_with_child_alive(prog: &str, failures: &mut Vec<String>) {
    let name = "SIGKILL with -c child alive";
    // stderr not piped: the command inherits it and would hold the pipe open.
    let spawned = Command::new(dtrace_bin())
        .args(["-q", "-n", prog, "-c", "sleep 60"])
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn();
    let mut child = match spawned {
        Ok(c) => c,
        Err(e) => panic!("cannot run dtrace: {e}"),
    };
    let ids = wait_loaded(&mut child, 3);
    let kids = children(child.id());
    if ids.is_empty() || kids.is_empty() {
        failures.push(format!("{name}: programs {ids:?}, children {kids:?}"));
    }
    send(&child, "-KILL");
    let _ = wait_timeout(child, Duration::from_secs(20));
    let left = still_loaded(&ids);
    if !left.is_empty() {
        failures.push(format!(
            "{name}: still loaded while the command runs: {left:?}"
        ));
    }
    for k in kids {
        let _ = Command::new("kill")
            .args(["-KILL", &k.to_string()])
            .status();
    }
}

#[test]
fn no_program_stays_loaded_after_dtrace_exits() {
    if !require_bpf() {
        return;
    }
    let mut failures = Vec::new();
    let busy = "syscall::getppid:entry { @[execname] = count(); } tick-1ms { x = 1; }";

    // Normal end: the -c command exits.
    watched(
        "child exit",
        &["-q", "-n", busy, "-c", "sleep 1"],
        None,
        &mut failures,
    );
    // exit() from a probe.
    watched(
        "exit()",
        &["-q", "-n", busy, "-n", "tick-1sec { exit(0); }"],
        None,
        &mut failures,
    );
    for sig in ["-INT", "-TERM", "-KILL"] {
        watched(sig, &["-q", "-n", busy], Some(sig), &mut failures);
    }
    // SIGKILL while a -c command runs on: the command must not have inherited
    // any fd that keeps a program (or a perf event with one) alive.
    killed_with_child_alive(busy, &mut failures);

    // Errors: every clause stores the marker, so each program holds it.
    let m = marker(1);
    let prog = format!(
        "BEGIN {{ x = {m}; }} syscall::getppid:entry {{ x = {m}; }} \
         tick-1ms {{ x = {m}; }} END {{ x = {m}; }}"
    );
    // The marker does find a live run's programs: one per probe group (BEGIN,
    // END, sys_enter, tick), and they go when it is killed.
    {
        let mut child = spawn(&["-q", "-n", &prog]);
        let ids = wait_loaded(&mut child, 3);
        let found = find_marked(m);
        let names: BTreeSet<String> = found.iter().map(|p| p.name.clone()).collect();
        if found.len() < 4 || !found.iter().all(|p| ids.contains(&p.id)) {
            failures.push(format!(
                "marker self-check: found {names:?} (ids {:?}), the run holds {ids:?}",
                found.iter().map(|p| p.id).collect::<Vec<_>>()
            ));
        }
        send(&child, "-KILL");
        let _ = wait_timeout(child, Duration::from_secs(20));
        let left = marked_programs(m);
        if !left.is_empty() {
            failures.push(format!(
                "marker self-check: still loaded after SIGKILL: {left:?}"
            ));
        }
    }
    // A compile error after valid clauses.
    let bad = format!("{prog} BEGIN {{ y = ; }}");
    marked("compile error", &["-n", &bad], &[], m, &mut failures);
    // The verifier refuses clause 3 (the tick program) after BEGIN's loaded.
    let m = marker(2);
    let prog3 = prog.replace(&marker(1).to_string(), &m.to_string());
    let out = marked(
        "verifier error",
        &["-n", &prog3],
        &[("DTRACE_TEST_REJECT_CLAUSE", "3")],
        m,
        &mut failures,
    );
    if let Some(o) = out {
        if !stderr(&o).contains("could not enable tracing: BPF program load for 'profile:::tick-") {
            failures.push(format!(
                "verifier error: unexpected stderr:\n{}",
                stderr(&o)
            ));
        }
    }
    // Attach (and load) errors: run out of file descriptors at every step.
    let mut attach_errors = 0;
    for n in 6..40 {
        let m = marker(100 + n);
        let p = prog.replace(&marker(1).to_string(), &m.to_string());
        let script =
            format!("ulimit -n {n}; exec \"$0\" -q -n \"$1\" -n 'tick-1ms {{ exit(0); }}'");
        let mut failures_n = Vec::new();
        let mut cmd = Command::new("sh");
        cmd.args(["-c", &script, dtrace_bin(), &p]);
        let out = cmd
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .map_err(|e| e.to_string())
            .and_then(|c| wait_timeout(c, Duration::from_secs(20)));
        match out {
            Ok(o) => {
                let err = stderr(&o);
                if err.contains("panicked") {
                    failures_n.push(format!("ulimit -n {n}: panicked:\n{err}"));
                }
                if err.contains("attach") {
                    attach_errors += 1;
                }
            }
            Err(e) => failures_n.push(format!("ulimit -n {n}: {e}")),
        }
        let left = marked_programs(m);
        if !left.is_empty() {
            failures_n.push(format!("ulimit -n {n}: still loaded after exit: {left:?}"));
        }
        failures.extend(failures_n);
    }
    if attach_errors == 0 {
        failures.push("no file-descriptor limit produced an attach error".into());
    }
    assert!(failures.is_empty(), "{}", failures.join("\n---\n"));
}
