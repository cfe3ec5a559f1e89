//! `--flamegraph FILE` (`-x flamegraph=FILE`), as root with real eBPF: at exit
//! the stack-keyed aggregations are drawn as an SVG (feature `flamegraph`);
//! without the feature, asking for one is an error before anything is traced.

mod common;

use common::{dtrace, require_bpf, stderr, temp_path};

/// Kernel stacks of every system call (dtrace's own included), by stack.
const PROGRAM: &str = "syscall:::entry { @[stack()] = count(); } \
                       tick-500ms { exit(0); }";

#[cfg(feature = "flamegraph")]
#[test]
fn stack_aggregations_become_an_svg_at_exit() {
    if !require_bpf() {
        return;
    }
    let path = temp_path("flame.svg");
    let _ = std::fs::remove_file(&path);
    let file = path.to_string_lossy().into_owned();
    // A child making getppid() calls while tracing runs.
    let child = std::process::Command::new("sh")
        .args([
            "-c",
            "i=0; while [ $i -lt 2000 ]; do i=$((i+1)); /bin/true; done",
        ])
        .spawn();
    let out = dtrace(&["-q", "--flamegraph", &file, "-n", PROGRAM]);
    if let Ok(mut c) = child {
        let _ = c.kill();
        let _ = c.wait();
    }
    assert!(out.status.success(), "{}", stderr(&out));
    let svg = std::fs::read_to_string(&path).unwrap_or_default();
    let _ = std::fs::remove_file(&path);
    assert!(svg.starts_with("<?xml"), "not an SVG: {:.200}", svg);
    assert!(svg.contains("<svg") && svg.trim_end().ends_with("</svg>"));
    assert!(svg.contains(">dtrace<"), "the title is missing");
    // Frames are `module`function`: the kernel's are in vmlinux.
    assert!(svg.contains("vmlinux`"), "no kernel frame in the graph");
}

#[cfg(not(feature = "flamegraph"))]
#[test]
fn without_the_feature_a_flame_graph_is_an_error() {
    if !require_bpf() {
        return;
    }
    let path = temp_path("noflame.svg");
    let file = path.to_string_lossy().into_owned();
    let out = dtrace(&["-q", "--flamegraph", &file, "-n", PROGRAM]);
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(
        stderr(&out).lines().last(),
        Some("dtrace: -x flamegraph needs a dtrace built with the flamegraph feature")
    );
    assert!(!path.exists());
}
