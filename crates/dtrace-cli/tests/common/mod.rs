//! Helpers shared by the `dtrace` binary's integration tests.
// Each test crate uses its own subset of these.
#![allow(dead_code)]

use std::process::{Command, Output, Stdio};

use dtrace_sys::{Features, TestGate};

/// The built `dtrace` binary.
pub fn dtrace_bin() -> &'static str {
    env!("CARGO_BIN_EXE_dtrace")
}

/// Run `dtrace ARGS` with no standard input and capture its output.
pub fn dtrace(args: &[&str]) -> Output {
    match Command::new(dtrace_bin())
        .args(args)
        .stdin(Stdio::null())
        .output()
    {
        Ok(out) => out,
        Err(e) => panic!("cannot run {}: {e}", dtrace_bin()),
    }
}

pub fn stdout(out: &Output) -> String {
    String::from_utf8_lossy(&out.stdout).into_owned()
}

pub fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

/// Should a test that needs working BPF (root, a BPF-capable kernel) run?
/// Without it the test is skipped with a note on stderr, unless
/// `DTRACE_REQUIRE_BPF=1`, in which case the missing BPF fails the test.
pub fn require_bpf() -> bool {
    let require = std::env::var("DTRACE_REQUIRE_BPF").is_ok_and(|v| v == "1");
    let features = Features::probe(&dtrace_sys::kernel());
    match dtrace_sys::test_gate(&features, require) {
        TestGate::Run => true,
        TestGate::Skip(why) => {
            eprintln!("note: skipping a test that needs BPF: {why}");
            false
        }
        TestGate::Fail(why) => {
            panic!("DTRACE_REQUIRE_BPF=1 but BPF is not usable here: {why}")
        }
    }
}

/// A scratch file path unique to this test process and `tag`.
pub fn temp_path(tag: &str) -> std::path::PathBuf {
    std::env::temp_dir().join(format!("dtrace-cli-test-{}-{tag}", std::process::id()))
}
