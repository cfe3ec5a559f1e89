//! End-to-end tests: run the `dtrace` binary as root against real probes.
//!
//! Each case is a file under `tests/e2e/` at the repository root:
//!
//! ```text
//! # what the case checks
//! args: -q -n 'syscall::getppid:entry /pid == $target/ { @ = count(); }' -c "$T/getppid_loop 1000"
//! status: 0
//! stdout:
//! <exact expected standard output, line by line>
//! stderr-re:
//! <one regular expression per expected standard-error line>
//! ```
//!
//! `args` is run by bash with `$DTRACE` (the binary) in front and `$T` naming the
//! directory of trigger programs built from `tests/triggers/*.c`; `sh` instead gives
//! a whole bash command line (with `$DTRACE`, `$PLOCKSTAT`, `$T`, and `$S` for `tests/e2e/scripts`). Keys: `args`,
//! `status`, `stdout`, `stderr`, `stdout-re`, `stderr-re`, `stdout-has`/`stderr-has`
//! (each line must appear somewhere), `timeout` (seconds, default 30).
//! A block runs to the next key line; its lines are kept exactly.
//! `E2E_FILTER=substr` runs only the matching cases.

mod common;

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

const KEYS: &[&str] = &[
    "args:",
    "sh:",
    "status:",
    "stdout:",
    "stderr:",
    "stdout-re:",
    "stderr-re:",
    "timeout:",
    "stdout-has:",
    "stderr-has:",
];

#[derive(Default, Debug)]
struct Case {
    args: String,
    sh: bool,
    status: Option<i32>,
    stdout: Option<String>,
    stderr: Option<String>,
    stdout_re: Option<Vec<String>>,
    stderr_re: Option<Vec<String>>,
    stdout_has: Option<Vec<String>>,
    stderr_has: Option<Vec<String>>,
    timeout: u64,
}

fn parse_case(text: &str) -> Result<Case, String> {
    let mut case = Case {
        timeout: 30,
        ..Case::default()
    };
    let mut cur: Option<(&str, Vec<&str>)> = None;
    let finish = |case: &mut Case, key: &str, lines: Vec<&str>| -> Result<(), String> {
        let block: String = lines.iter().map(|l| format!("{l}\n")).collect();
        match key {
            "stdout:" => case.stdout = Some(block),
            "stderr:" => case.stderr = Some(block),
            "stdout-re:" => case.stdout_re = Some(lines.iter().map(|s| s.to_string()).collect()),
            "stderr-re:" => case.stderr_re = Some(lines.iter().map(|s| s.to_string()).collect()),
            "stdout-has:" => case.stdout_has = Some(lines.iter().map(|s| s.to_string()).collect()),
            "stderr-has:" => case.stderr_has = Some(lines.iter().map(|s| s.to_string()).collect()),
            _ => return Err(format!("unexpected block {key}")),
        }
        Ok(())
    };
    for line in text.lines() {
        let key = KEYS.iter().find(|k| line.starts_with(**k)).copied();
        match key {
            Some(k) => {
                if let Some((pk, lines)) = cur.take() {
                    finish(&mut case, pk, lines)?;
                }
                let rest = line[k.len()..].trim();
                match k {
                    "args:" => case.args = rest.to_string(),
                    "sh:" => {
                        case.args = rest.to_string();
                        case.sh = true;
                    }
                    "status:" => {
                        case.status = Some(rest.parse().map_err(|_| format!("bad status {rest}"))?)
                    }
                    "timeout:" => {
                        case.timeout = rest.parse().map_err(|_| format!("bad timeout {rest}"))?
                    }
                    _ => cur = Some((k, Vec::new())),
                }
            }
            None => match cur.as_mut() {
                Some((_, lines)) => lines.push(line),
                None if line.starts_with('#') || line.trim().is_empty() => {}
                None => return Err(format!("line outside a block: {line}")),
            },
        }
    }
    if let Some((pk, lines)) = cur.take() {
        finish(&mut case, pk, lines)?;
    }
    if case.args.is_empty() {
        return Err("no args: or sh:".into());
    }
    Ok(case)
}

fn repo_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// Compile every trigger program into a fresh directory.
fn build_triggers() -> Result<PathBuf, String> {
    let out = std::env::temp_dir().join(format!("dtrace-triggers-{}", std::process::id()));
    std::fs::create_dir_all(&out).map_err(|e| e.to_string())?;
    let dir = repo_root().join("tests/triggers");
    let entries = std::fs::read_dir(&dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    for e in entries.flatten() {
        let p = e.path();
        if p.extension().and_then(|x| x.to_str()) != Some("c") {
            continue;
        }
        let stem = p.file_stem().and_then(|s| s.to_str()).unwrap_or("x");
        let st = Command::new("cc")
            .args(["-O1", "-o"])
            .arg(out.join(stem))
            .arg(&p)
            .status()
            .map_err(|e| format!("cc: {e}"))?;
        if !st.success() {
            return Err(format!("cc failed on {}", p.display()));
        }
    }
    Ok(out)
}

fn run_case(case: &Case, triggers: &Path) -> Result<(), String> {
    let script = if case.sh {
        case.args.clone()
    } else {
        format!("exec \"$DTRACE\" {}", case.args)
    };
    let mut child = Command::new("bash")
        .arg("-c")
        .arg(script)
        .env("DTRACE", env!("CARGO_BIN_EXE_dtrace"))
        .env("PLOCKSTAT", env!("CARGO_BIN_EXE_plockstat"))
        .env("T", triggers)
        .env("S", repo_root().join("tests/e2e/scripts"))
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| format!("spawn: {e}"))?;
    // Read both pipes while the case runs: a case that writes more than a
    // pipe holds would otherwise block on write and never exit.
    fn drain(
        pipe: Option<impl std::io::Read + Send + 'static>,
    ) -> std::thread::JoinHandle<Vec<u8>> {
        std::thread::spawn(move || {
            let mut buf = Vec::new();
            if let Some(mut p) = pipe {
                let _ = p.read_to_end(&mut buf);
            }
            buf
        })
    }
    let out_reader = drain(child.stdout.take());
    let err_reader = drain(child.stderr.take());
    let start = Instant::now();
    let status = loop {
        match child.try_wait() {
            Ok(Some(status)) => break status,
            Ok(None) if start.elapsed() > Duration::from_secs(case.timeout) => {
                let _ = child.kill();
                let _ = child.wait();
                return Err(format!("timed out after {} s (hang)", case.timeout));
            }
            Ok(None) => std::thread::sleep(Duration::from_millis(20)),
            Err(e) => return Err(format!("wait: {e}")),
        }
    };
    let out = std::process::Output {
        status,
        stdout: out_reader.join().unwrap_or_default(),
        stderr: err_reader.join().unwrap_or_default(),
    };
    let stdout = String::from_utf8_lossy(&out.stdout).to_string();
    let stderr = String::from_utf8_lossy(&out.stderr).to_string();
    let mut errs = Vec::new();
    if let Some(want) = case.status {
        if out.status.code() != Some(want) {
            errs.push(format!("status {:?}, want {want}", out.status.code()));
        }
    }
    if let Some(want) = &case.stdout {
        if &stdout != want {
            errs.push(format!(
                "stdout differs:\n--- want\n{want}--- got\n{stdout}---"
            ));
        }
    }
    if let Some(want) = &case.stderr {
        if &stderr != want {
            errs.push(format!(
                "stderr differs:\n--- want\n{want}--- got\n{stderr}---"
            ));
        }
    }
    for (name, res, got) in [
        ("stdout", &case.stdout_re, &stdout),
        ("stderr", &case.stderr_re, &stderr),
    ] {
        if let Some(res) = res {
            if let Err(e) = match_lines(res, got) {
                errs.push(format!("{name}: {e}\n--- got\n{got}---"));
            }
        }
    }
    for (name, want, got) in [
        ("stdout", &case.stdout_has, &stdout),
        ("stderr", &case.stderr_has, &stderr),
    ] {
        for line in want.iter().flatten() {
            if !got.lines().any(|l| l == line) {
                errs.push(format!("{name} has no line {line:?}\n--- got\n{got}---"));
            }
        }
    }
    if errs.is_empty() {
        Ok(())
    } else {
        Err(errs.join("\n"))
    }
}

fn match_lines(res: &[String], got: &str) -> Result<(), String> {
    let lines: Vec<&str> = got.lines().collect();
    if lines.len() != res.len() {
        return Err(format!("{} lines, want {}", lines.len(), res.len()));
    }
    for (i, (re, line)) in res.iter().zip(lines).enumerate() {
        let re =
            regex::Regex::new(&format!("^(?:{re})$")).map_err(|e| format!("bad regex: {e}"))?;
        if !re.is_match(line) {
            return Err(format!("line {}: {line:?} does not match {re}", i + 1));
        }
    }
    Ok(())
}

#[test]
fn e2e_cases() {
    if !common::require_bpf() {
        return;
    }
    let triggers = match build_triggers() {
        Ok(t) => t,
        Err(e) => panic!("building trigger programs: {e}"),
    };
    let filter = std::env::var("E2E_FILTER").unwrap_or_default();
    let mut files: Vec<PathBuf> = std::fs::read_dir(repo_root().join("tests/e2e"))
        .map(|d| d.flatten().map(|e| e.path()).collect())
        .unwrap_or_default();
    files.sort();
    let mut failures = Vec::new();
    let mut ran = 0;
    for f in files {
        let name = f
            .file_name()
            .and_then(|n| n.to_str())
            .unwrap_or("?")
            .to_string();
        if !name.ends_with(".t") || !name.contains(&filter) {
            continue;
        }
        let text = std::fs::read_to_string(&f).unwrap_or_default();
        ran += 1;
        let res = parse_case(&text).and_then(|c| run_case(&c, &triggers));
        match res {
            Ok(()) => eprintln!("e2e {name}: ok"),
            Err(e) => {
                eprintln!("e2e {name}: FAILED\n{e}");
                failures.push(name);
            }
        }
    }
    let _ = std::fs::remove_dir_all(&triggers);
    assert!(ran > 0 || !filter.is_empty(), "no e2e cases found");
    assert!(failures.is_empty(), "e2e failures: {failures:?}");
}
