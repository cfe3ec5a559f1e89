//! Robustness of the `dtrace` command: bad input never panics or hangs, a verifier
//! rejection names the clause (and `-x verbose` shows the log), and tracefs is
//! mounted when missing. Leaks of loaded programs are checked in `robust_leaks.rs`.

mod common;

use common::{dtrace_bin, require_bpf, stderr, temp_path};
use std::ffi::OsString;
use std::os::unix::ffi::OsStringExt;
use std::os::unix::process::ExitStatusExt;
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

/// Longest any single bad-input run may take before it counts as a hang.
const TIMEOUT: Duration = Duration::from_secs(20);

/// Run dtrace with `args` (and extra environment), killing it after `TIMEOUT`.
/// Returns its output, or an error naming a hang.
fn run_timed(args: &[OsString], env: &[(&str, &str)]) -> Result<Output, String> {
    let mut cmd = Command::new(dtrace_bin());
    cmd.args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    for (k, v) in env {
        cmd.env(k, v);
    }
    let mut child = cmd.spawn().map_err(|e| format!("cannot run dtrace: {e}"))?;
    // Drain the pipes in threads so a chatty child cannot block on a full pipe.
    let mut out_pipe = child.stdout.take();
    let mut err_pipe = child.stderr.take();
    let out_t = std::thread::spawn(move || {
        let mut v = Vec::new();
        if let Some(p) = out_pipe.as_mut() {
            let _ = std::io::Read::read_to_end(p, &mut v);
        }
        v
    });
    let err_t = std::thread::spawn(move || {
        let mut v = Vec::new();
        if let Some(p) = err_pipe.as_mut() {
            let _ = std::io::Read::read_to_end(p, &mut v);
        }
        v
    });
    let start = Instant::now();
    let status = loop {
        match child.try_wait() {
            Ok(Some(s)) => break s,
            Ok(None) if start.elapsed() > TIMEOUT => {
                let _ = child.kill();
                let _ = child.wait();
                return Err(format!("dtrace {args:?} did not exit within {TIMEOUT:?}"));
            }
            Ok(None) => std::thread::sleep(Duration::from_millis(5)),
            Err(e) => return Err(format!("waiting for dtrace: {e}")),
        }
    };
    let stdout = out_t.join().unwrap_or_default();
    let stderr = err_t.join().unwrap_or_default();
    Ok(Output {
        status,
        stdout,
        stderr,
    })
}

fn os(args: &[&str]) -> Vec<OsString> {
    args.iter().map(OsString::from).collect()
}

/// The bad-input contract: exit status 1 or 2 (or 0 where `ok_allowed`), a
/// `dtrace: ` (or usage) message, no panic, no death by signal.
fn check_bad_input(args: &[OsString], ok_allowed: bool) -> Result<(), String> {
    let out = run_timed(args, &[])?;
    let err = stderr(&out);
    if err.contains("panicked") || err.contains("RUST_BACKTRACE") {
        return Err(format!("dtrace {args:?} panicked:\n{err}"));
    }
    if let Some(sig) = out.status.signal() {
        return Err(format!("dtrace {args:?} died of signal {sig}:\n{err}"));
    }
    match out.status.code() {
        Some(0) if ok_allowed => Ok(()),
        Some(1) | Some(2) if err.contains("dtrace: ") || err.starts_with("Usage: ") => Ok(()),
        other => Err(format!("dtrace {args:?}: status {other:?}, stderr:\n{err}")),
    }
}

/// A small deterministic generator (xorshift64*), so failures reproduce.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }

    fn bytes(&mut self, n: usize) -> Vec<u8> {
        (0..n).map(|_| self.next() as u8).collect()
    }
}

fn run_corpus(cases: &[(Vec<OsString>, bool)]) {
    // Four runs at a time: each is short, and most of the wait is process start.
    let chunk = cases.len().div_ceil(4).max(1);
    let failures: Vec<String> = std::thread::scope(|s| {
        let handles: Vec<_> = cases
            .chunks(chunk)
            .map(|part| {
                s.spawn(move || {
                    part.iter()
                        .filter_map(|(args, ok)| check_bad_input(args, *ok).err())
                        .collect::<Vec<String>>()
                })
            })
            .collect();
        handles
            .into_iter()
            .flat_map(|h| {
                h.join()
                    .unwrap_or_else(|_| vec!["a checker thread panicked".into()])
            })
            .collect()
    });
    assert!(
        failures.is_empty(),
        "{} of {} bad inputs misbehaved:\n{}",
        failures.len(),
        cases.len(),
        failures.join("\n---\n")
    );
}

#[test]
fn malformed_programs_never_panic_or_hang() {
    let mut cases: Vec<(Vec<OsString>, bool)> = Vec::new();
    // Random byte strings, as -n text (compile only: -e).
    let mut rng = Rng(0x5eed_d7ac_e000_0001);
    for i in 0..40 {
        let len = 1 + (rng.next() % 64) as usize;
        // argv strings cannot hold NUL.
        let mut text: Vec<u8> = rng.bytes(len).into_iter().map(|b| b.max(1)).collect();
        if i % 2 == 0 {
            // Mostly-printable variants get further into the parser.
            let alphabet = b" {}()/;:@[]=+-*&|!~<>?,.$#\"'\\abcxyz019_";
            for b in text.iter_mut() {
                *b = alphabet[(*b as usize) % alphabet.len()];
            }
        }
        let mut args = vec![OsString::from("-e"), OsString::from("-n")];
        args.push(OsString::from_vec(text));
        cases.push((args, true));
    }
    // Every prefix of a program that uses most of the grammar.
    let full = "syscall::getppid:entry /pid != 0 && execname == \"x\"/ { this->a = arg0 * 2; \
                @q[probefunc, execname] = quantize(this->a); printf(\"%d %s\\n\", pid, \
                execname); x[1] = \"s\"; self->t = timestamp; } END { printa(@q); }";
    for cut in (0..full.len()).step_by(3) {
        if full.is_char_boundary(cut) {
            cases.push((os(&["-e", "-n", &full[..cut]]), true));
        }
    }
    // Huge numbers and odd shapes; a second -n ends the programs that are valid.
    for p in [
        "BEGIN { x = 99999999999999999999999999999999; }",
        "BEGIN { x = 0x1ffffffffffffffffffff; }",
        "BEGIN { x = 1 << 99999999999; }",
        "BEGIN { @a[1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20] = count(); }",
        "profile-99999999999999999999hz { }",
        "tick-0s { }",
        "BEGIN { printf(\"%99999999999999999999d\", 1); }",
        "BEGIN { printf(\"%.99999999999d|%*d\", 1, 99999999, 2); }",
        "BEGIN { x = \"unterminated",
        "BEGIN { /* unterminated comment",
        "",
        " ",
        "{",
        "}",
        "::::",
        "BEGIN { exit(0) }}}",
    ] {
        cases.push((os(&["-n", p, "-n", "BEGIN { exit(0); }"]), true));
    }
    // Deep nesting, in script files (too long for one argv string).
    let deep = [
        (
            "deep-parens.d",
            format!(
                "BEGIN {{ x = {}1{}; }}",
                "(".repeat(100_000),
                ")".repeat(100_000)
            ),
        ),
        (
            "deep-blocks.d",
            format!("BEGIN {{ {} }}", "if (1) {".repeat(20_000)),
        ),
        (
            "deep-unary.d",
            format!("BEGIN {{ x = {}1; }}", "-".repeat(100_000)),
        ),
        (
            "deep-ternary.d",
            format!(
                "BEGIN {{ x = {}1{}; }}",
                "1 ? ".repeat(50_000),
                " : 0".repeat(50_000)
            ),
        ),
    ];
    let mut scripts = Vec::new();
    for (name, text) in &deep {
        let path = temp_path(name);
        assert!(
            std::fs::write(&path, text).is_ok(),
            "cannot write {}",
            path.display()
        );
        cases.push((
            vec![
                OsString::from("-e"),
                OsString::from("-s"),
                path.clone().into_os_string(),
            ],
            true,
        ));
        scripts.push(path);
    }
    // Invalid UTF-8 in -n and in a script file.
    cases.push((
        vec![
            OsString::from("-n"),
            OsString::from_vec(b"BEGIN \xff\xfe { trace(\"\xc3\x28\"); }".to_vec()),
        ],
        false,
    ));
    let script = temp_path("bad-utf8.d");
    let wrote = std::fs::write(&script, b"BEGIN\n{\n\ttrace(\"\xe2\x82\");\xff\n}\n");
    assert!(wrote.is_ok(), "cannot write {}", script.display());
    cases.push((
        vec![OsString::from("-s"), script.clone().into_os_string()],
        false,
    ));
    scripts.push(script);
    run_corpus(&cases);
    for p in scripts {
        let _ = std::fs::remove_file(p);
    }
}

#[test]
fn bad_options_never_panic_or_hang() {
    let exit0 = "BEGIN { exit(0); }";
    let mut cases: Vec<(Vec<OsString>, bool)> = vec![
        (os(&[]), false),
        (os(&["-n"]), false),
        (os(&["-s"]), false),
        (os(&["-s", "/nonexistent/dir/x.d"]), false),
        (os(&["-p", "999999999", "-n", exit0]), false),
        (os(&["-p", "0", "-n", exit0]), false),
        (os(&["-p", "-1", "-n", exit0]), false),
        (os(&["-p", "abc", "-n", exit0]), false),
        (os(&["-p", "99999999999999999999999", "-n", exit0]), false),
        (os(&["-c", "/nonexistent/command", "-n", exit0]), false),
        (os(&["-c", "", "-n", exit0]), false),
        (os(&["-o", "/nonexistent/dir/out", "-n", exit0]), false),
        (os(&["-Q", "-n", exit0]), false),
        (os(&["--", "-n"]), false),
    ];
    for x in [
        "nosuchoption",
        "bufsize=abc",
        "bufsize=-1",
        "bufsize=99999999999999999999999",
        "bufsize=1zz",
        "strsize=-1",
        "strsize=0",
        "strsize=99999999999",
        "aggsize=",
        "switchrate=0x",
        "switchrate=-5hz",
        "=",
        "",
        "quiet=maybe",
    ] {
        cases.push((os(&["-x", x, "-n", exit0]), false));
    }
    cases.push((
        vec![
            OsString::from("-x"),
            OsString::from_vec(b"bufsize=\xff\xfe".to_vec()),
            OsString::from("-n"),
            OsString::from(exit0),
        ],
        false,
    ));
    // These need the kernel to get as far as the failing step; without BPF they
    // still must fail cleanly, so they run either way.
    run_corpus(&cases);
}

#[test]
fn verifier_rejection_shows_the_log_and_verbose_names_the_clause() {
    if !require_bpf() {
        return;
    }
    // The runtime's test hook makes the verifier reject clause 2 (see
    // dtrace_runtime REJECT_CLAUSE_ENV); no D program is known to do it.
    let prog = "BEGIN { x = 1; } BEGIN { y = 2; } BEGIN { exit(0); }";
    let env = [("DTRACE_TEST_REJECT_CLAUSE", "2")];
    let plain = run_timed(&os(&["-n", prog]), &env);
    let plain = match plain {
        Ok(o) => o,
        Err(e) => panic!("{e}"),
    };
    let err = stderr(&plain);
    assert_eq!(plain.status.code(), Some(1), "stderr:\n{err}");
    // As DTrace: the verifier's log, each line after "BPF: ", then the one
    // line naming the probe the program was loaded for.
    let others: Vec<&str> = err.lines().filter(|l| !l.starts_with("BPF: ")).collect();
    assert_eq!(
        others,
        ["dtrace: could not enable tracing: BPF program load for 'dtrace:::BEGIN' failed: Permission denied"],
        "{err}"
    );
    assert!(
        err.contains("BPF: ") && err.contains("invalid read from stack"),
        "the log is shown:\n{err}"
    );
    let verbose = match run_timed(&os(&["-x", "verbose", "-n", prog]), &env) {
        Ok(o) => o,
        Err(e) => panic!("{e}"),
    };
    let verr = stderr(&verbose);
    assert_eq!(verbose.status.code(), Some(1), "stderr:\n{verr}");
    assert!(
        verr.contains("dtrace: the BPF verifier rejected clause 2 (program dtrace_begin): "),
        "-x verbose names the clause:\n{verr}"
    );
    // Without the hook the same program runs.
    let ok = match run_timed(&os(&["-q", "-n", prog]), &[]) {
        Ok(o) => o,
        Err(e) => panic!("{e}"),
    };
    assert_eq!(ok.status.code(), Some(0), "{}", stderr(&ok));
}

const TRACING: &str = "/sys/kernel/tracing";

fn tracefs_mounted_at(dir: &str) -> bool {
    std::fs::read_to_string("/proc/mounts").is_ok_and(|m| {
        m.lines().any(|l| {
            let f: Vec<&str> = l.split_whitespace().collect();
            f.get(1) == Some(&dir) && f.get(2) == Some(&"tracefs")
        })
    })
}

/// Remounts tracefs at /sys/kernel/tracing on drop if it is missing, so a
/// failing test does not leave the machine without it.
struct RestoreTracefs;

impl Drop for RestoreTracefs {
    fn drop(&mut self) {
        if !tracefs_mounted_at(TRACING) {
            let _ = Command::new("mount")
                .args(["-t", "tracefs", "nodev", TRACING])
                .status();
        }
    }
}

#[test]
fn tracefs_is_mounted_when_missing() {
    // SAFETY-free root check: only root may unmount and mount.
    let root = std::fs::read_to_string("/proc/self/status").is_ok_and(|s| {
        s.lines()
            .find(|l| l.starts_with("Uid:"))
            .is_some_and(|l| l.split_whitespace().nth(2) == Some("0"))
    });
    if !root || !require_bpf() {
        eprintln!("note: skipping the tracefs mount test: needs root");
        return;
    }
    let _restore = RestoreTracefs;
    if tracefs_mounted_at(TRACING) {
        let st = Command::new("umount").arg(TRACING).status();
        if !st.is_ok_and(|s| s.success()) || tracefs_mounted_at(TRACING) {
            eprintln!("note: skipping the tracefs mount test: {TRACING} is busy");
            return;
        }
    }
    let debug_alternative = std::path::Path::new("/sys/kernel/debug/tracing/events").is_dir();
    let found = dtrace_sys::Tracefs::find();
    let found = match found {
        Ok(t) => t,
        Err(e) => panic!("Tracefs::find failed with tracefs unmounted: {e}"),
    };
    if debug_alternative {
        assert!(found.root().join("events").is_dir());
    } else {
        assert_eq!(found.root(), std::path::Path::new(TRACING));
        assert!(tracefs_mounted_at(TRACING), "find() mounted tracefs again");
    }
    assert!(
        found.event_id("syscalls", "sys_enter_getppid").is_ok()
            || found.root().join("events").is_dir(),
        "the mounted tracefs lists events"
    );
}
