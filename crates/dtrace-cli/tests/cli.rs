//! The `dtrace` command's behaviour that needs no kernel: usage, version, and the
//! errors reported before anything is compiled or enabled.

mod common;

use common::{dtrace, stderr, stdout};

const USAGE_START: &str = "Usage: dtrace [-32|-64] [-aACeFGhHlqSvVwZ] [-b bufsz] [-c cmd]";

#[test]
fn no_arguments_prints_usage_and_exits_2() {
    let out = dtrace(&[]);
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).starts_with(USAGE_START), "{}", stderr(&out));
    assert!(stdout(&out).is_empty());
}

#[test]
fn unknown_option_prints_usage_and_exits_2() {
    let out = dtrace(&["-k", "-n", "BEGIN"]);
    assert_eq!(out.status.code(), Some(2));
    let err = stderr(&out);
    assert!(
        err.starts_with(&format!("dtrace: invalid option -- 'k'\n{USAGE_START}")),
        "{err}"
    );
    assert!(
        err.contains("\n\t-Z  "),
        "the option table is printed: {err}"
    );
}

#[test]
fn missing_option_argument_prints_usage_and_exits_2() {
    for args in [&["-n"][..], &["-q", "-s"][..], &["-qx"][..]] {
        let out = dtrace(args);
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        let letter = args[args.len() - 1].chars().last().unwrap_or('?');
        let want = format!("dtrace: option requires an argument -- '{letter}'\n{USAGE_START}");
        assert!(
            stderr(&out).starts_with(&want),
            "{args:?}: {}",
            stderr(&out)
        );
    }
}

#[test]
fn bad_data_model_is_a_usage_error() {
    let out = dtrace(&["-31", "-n", "BEGIN"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).starts_with(&format!("dtrace: illegal option -- 31\n{USAGE_START}")));
}

#[test]
fn conflicting_modes_exit_2_without_usage() {
    let out = dtrace(&["-l", "-V"]);
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(
        stderr(&out),
        "dtrace: only one of the [-AGhlV] options can be specified at a time\n"
    );
}

#[test]
fn version() {
    let out = dtrace(&["-V"]);
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(stdout(&out), "dtrace: Oracle D 2.0\n");
    assert!(stderr(&out).is_empty());
    let out = dtrace(&["-Vv"]);
    assert_eq!(out.status.code(), Some(0));
    assert!(stdout(&out).starts_with("dtrace: Oracle D 2.0\nThis is DTrace (Rust) "));
}

#[test]
fn missing_script_file_exits_1() {
    let out = dtrace(&["-s", "/nonexistent/script.d"]);
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(
        stderr(&out),
        "dtrace: failed to open /nonexistent/script.d: No such file or directory\n"
    );
}

#[test]
fn missing_command_exits_1() {
    let out = dtrace(&["-e", "-c", "/nonexistent/cmd --flag", "-n", "BEGIN"]);
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(
        stderr(&out),
        "dtrace: failed to execute /nonexistent/cmd: No such file or directory\n"
    );
}

#[test]
fn bad_pids_exit_1() {
    let out = dtrace(&["-e", "-p", "12ab", "-n", "BEGIN"]);
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(stderr(&out), "dtrace: invalid pid: 12ab\n");
    // Larger than any pid_max.
    let out = dtrace(&["-e", "-p", "2147483647", "-n", "BEGIN"]);
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(
        stderr(&out),
        "dtrace: failed to grab pid 2147483647: No such process\n"
    );
}

#[test]
fn unopenable_output_file_exits_1() {
    let out = dtrace(&["-l", "-o", "/nonexistent/dir/out.txt"]);
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(
        stderr(&out),
        "dtrace: failed to open output file '/nonexistent/dir/out.txt': No such file or directory\n"
    );
}

#[test]
fn header_generation_needs_provider_definitions() {
    let out = dtrace(&["-h"]);
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(
        stderr(&out),
        "dtrace: -h requires one or more scripts or enabling options\n"
    );

    let script = common::temp_path("noprov.d");
    std::fs::write(&script, "BEGIN { exit(0); }\n").expect("write script");
    let path = script.to_string_lossy().into_owned();
    let out = dtrace(&["-h", "-s", &path]);
    assert_eq!(out.status.code(), Some(1));
    let err = stderr(&out);
    assert!(
        err.starts_with("dtrace: failed to create header file dtrace-cli-test-"),
        "{err}"
    );
    assert!(err.contains("no provider definitions found"), "{err}");
    let _ = std::fs::remove_file(&script);
}

#[test]
fn link_mode_writes_an_object_defining_the_semaphores() {
    let script = common::temp_path("linkprov.d");
    std::fs::write(
        &script,
        "provider app {\n\tprobe go(int);\n\tprobe stop();\n};\n",
    )
    .expect("write script");
    let obj = common::temp_path("linkprov.o");
    let (s, o) = (script.to_string_lossy(), obj.to_string_lossy());
    let out = dtrace(&["-G", "-o", &o, "-s", &s]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let bytes = std::fs::read(&obj).expect("object written");
    // An ELF64 little-endian relocatable object for x86-64.
    assert_eq!(&bytes[..6], b"\x7fELF\x02\x01");
    assert_eq!(u16::from_le_bytes([bytes[16], bytes[17]]), 1);
    assert_eq!(u16::from_le_bytes([bytes[18], bytes[19]]), 62);
    let text = String::from_utf8_lossy(&bytes);
    assert!(text.contains("app_go_semaphore") && text.contains("app_stop_semaphore"));
    assert!(text.contains(".probes"));
    let _ = std::fs::remove_file(&script);
    let _ = std::fs::remove_file(&obj);
}

#[test]
fn bad_diag_style_exits_2() {
    let out = dtrace(&["-x", "diag=shiny", "-n", "BEGIN"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).starts_with("dtrace: failed to set -x diag"));
}

#[test]
fn unsupported_modes_fail_clearly() {
    for (args, needle) in [
        (&["-A", "-n", "BEGIN"][..], "-A is not supported"),
        (&["-a"][..], "-a is not supported"),
    ] {
        let out = dtrace(args);
        assert_eq!(out.status.code(), Some(1), "{args:?}");
        assert!(stderr(&out).contains(needle), "{args:?}: {}", stderr(&out));
    }
}

#[test]
fn header_and_link_check_their_options() {
    // -h and -G check -x options as any run does; -G refuses linktype=dof
    // (probes are stapsdt notes: there is no DOF to write).
    let dir = std::env::temp_dir().join(format!("dtrace-cli-linkopts-{}", std::process::id()));
    let _ = std::fs::create_dir_all(&dir);
    let prov = dir.join("prov.d");
    let _ = std::fs::write(&prov, "provider p {\n\tprobe go();\n};\n");
    let prov = prov.to_string_lossy().into_owned();
    let out_h = dir.join("prov.h").to_string_lossy().into_owned();
    let out_o = dir.join("prov.o").to_string_lossy().into_owned();
    let bad = "dtrace: failed to set -x linktype: Invalid value for specified option\n";
    let out = dtrace(&["-h", "-xlinktype=foo", "-s", &prov, "-o", &out_h]);
    assert_eq!((out.status.code(), stderr(&out).as_str()), (Some(1), bad));
    let out = dtrace(&["-G", "-xlinktype=foo", "-s", &prov, "-o", &out_o]);
    assert_eq!((out.status.code(), stderr(&out).as_str()), (Some(1), bad));
    let out = dtrace(&["-G", "-xlinktype=dof", "-s", &prov, "-o", &out_o]);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        stderr(&out).starts_with("dtrace: failed to link script: linktype=dof is not supported"),
        "{}",
        stderr(&out)
    );
    assert!(!dir.join("prov.o").exists());
    for opt in ["-xlinktype=elf", "-xlinkmode=dynamic"] {
        let out = dtrace(&["-G", opt, "-s", &prov, "-o", &out_o]);
        assert_eq!(out.status.code(), Some(0), "{opt}: {}", stderr(&out));
    }
    assert!(std::fs::read(dir.join("prov.o")).is_ok_and(|b| b.starts_with(b"\x7fELF")));
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn conformance_mode_is_checked() {
    // -X names the stdc option: only a, c, s and t are modes; any other value
    // is refused as a bad -x stdc value is, naming -X as written.
    let out = dtrace(&["-X", "q", "-e", "-n", "BEGIN"]);
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(
        stderr(&out),
        "dtrace: failed to set -X q: Invalid value for specified option\n"
    );
}
