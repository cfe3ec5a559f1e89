//! User stacks and user symbols as the consumer prints them, resolved in
//! this test's own process (no root needed).

mod common;

use dtrace_consumer::printf::Env;
use dtrace_consumer::ustack::{print_ustack, print_usym, usym_text};
use dtrace_consumer::value::{decode, Value};
use dtrace_desc::{Field, StackKind, ValueType};

#[inline(never)]
fn target_function() -> u64 {
    target_function as fn() -> u64 as usize as u64
}

fn env(noresolve: bool) -> Env {
    Env {
        stackindent: 14,
        noresolve,
        ..Env::default()
    }
}

fn exe_name() -> String {
    std::env::current_exe()
        .ok()
        .and_then(|p| p.file_name().map(|n| n.to_string_lossy().into_owned()))
        .unwrap_or_default()
}

#[test]
fn user_symbols_print_as_dtrace_prints_them() {
    let pid = std::process::id() as u64;
    let f = target_function();
    let e = env(false);
    let m = exe_name();
    // usym/ufunc: module`function, no offset; uaddr: with the offset; umod: the module.
    let func = usym_text(StackKind::UFunc, pid, f + 3, &e);
    assert!(
        func.starts_with(&format!("{m}`")) && func.contains("target_function"),
        "{func}"
    );
    assert!(!func.contains("+0x"));
    let addr = usym_text(StackKind::UAddr, pid, f + 3, &e);
    assert!(addr.ends_with("+0x3"), "{addr}");
    assert_eq!(usym_text(StackKind::UMod, pid, f, &e), m);
    // A trace record: two spaces, then 50 columns.
    let mut out = Vec::new();
    print_usym(StackKind::UMod, pid, f, &e, &mut out);
    assert_eq!(String::from_utf8_lossy(&out), format!("  {m:<50}"));
    // No process (pid 0): hex.
    assert_eq!(usym_text(StackKind::USym, 0, 0x1234, &e), "0x1234");
}

#[test]
fn noresolve_prints_module_and_mapping_offset() {
    let pid = std::process::id() as u64;
    let text = usym_text(StackKind::UAddr, pid, target_function(), &env(true));
    assert!(text.starts_with(&format!("{}:0x", exe_name())), "{text}");
    assert!(!text.contains('`'));
}

#[test]
fn user_stack_field_decodes_pid_then_frames() {
    let pid = std::process::id() as u64;
    let f = target_function();
    let mut bytes = Vec::new();
    for w in [pid, f, f + 8, 0] {
        bytes.extend_from_slice(&w.to_ne_bytes());
    }
    let field = Field {
        offset: 0,
        ty: ValueType::Stack {
            frames: 3,
            user: true,
        },
    };
    let v = decode(&field, &bytes).expect("decodes");
    let Value::UStack { pid: p, pcs } = v else {
        panic!("not a user stack: {v:?}");
    };
    assert_eq!(p, pid);
    let mut out = Vec::new();
    print_ustack(p, &pcs, &env(false), &mut out);
    let text = String::from_utf8_lossy(&out);
    let lines: Vec<&str> = text.lines().collect();
    // A newline first, then one indented frame per address until the 0.
    assert_eq!(lines.len(), 3, "{text}");
    assert!(lines[1].starts_with("              ") && lines[1].contains("target_function"));
    assert!(
        lines[2].contains("target_function") && lines[2].ends_with("+0x8"),
        "{text}"
    );
    let sym = Field {
        offset: 0,
        ty: ValueType::UserSym {
            kind: StackKind::USym,
        },
    };
    assert_eq!(
        decode(&sym, &bytes).expect("decodes"),
        Value::USym {
            kind: StackKind::USym,
            pid,
            addr: f
        }
    );
}

/// One clause tracing a user stack, a `usym()` and a `umod()` of this
/// process: the record, and its program description.
fn user_record() -> (dtrace_desc::ProgramDesc, Vec<u8>) {
    use common::*;
    use dtrace_desc::ActionKind;
    let pid = std::process::id() as u64;
    let f = target_function();
    let stack = Field {
        offset: 16,
        ty: ValueType::Stack {
            frames: 3,
            user: true,
        },
    };
    let sym = |offset, kind| Field {
        offset,
        ty: ValueType::UserSym { kind },
    };
    let clause = vec![
        trace(stack),
        trace(sym(48, StackKind::USym)),
        trace(sym(64, StackKind::UMod)),
        action(ActionKind::Exit, vec![int(80, 4, true)]),
    ];
    let desc = program(
        vec![(88, clause)],
        vec![(7, probe("profile", "", "", "tick-1s"))],
    );
    let rec = Rec::new(1, 7, 0, 88)
        .u64(16, pid)
        .u64(24, f)
        .u64(32, f + 8)
        .u64(48, pid)
        .u64(56, f + 3)
        .u64(64, pid)
        .u64(72, f)
        .0;
    (desc, rec)
}

#[test]
fn user_values_reach_the_text_output_as_dtrace_prints_them() {
    let (desc, rec) = user_record();
    let mut aggs = common::Aggs::default();
    let opts = dtrace_consumer::ConsumerOptions {
        quiet: true,
        ..Default::default()
    };
    let (out, err, _) = common::run(desc, opts, &[rec], &mut aggs, false).expect("runs");
    assert!(err.is_empty(), "{err}");
    let m = exe_name();
    let lines: Vec<&str> = out.lines().collect();
    // The stack: a newline, then one frame per line indented by 14.
    assert_eq!(lines[0], "", "{out}");
    assert!(
        lines[1].starts_with(&format!("              {m}`"))
            && lines[1].contains("target_function"),
        "{out}"
    );
    assert!(lines[2].ends_with("+0x8"), "{out}");
    // usym (no offset) then umod, each two spaces and 50 columns.
    assert!(lines[3].starts_with(&format!("  {m}`")), "{out}");
    assert!(lines[3].contains("target_function") && !lines[3].contains("+0x"));
    assert!(lines[3].ends_with(&format!("  {m:<50}")), "{out}");
}

#[test]
fn user_values_reach_the_json_output_as_frames_and_keys() {
    let (desc, rec) = user_record();
    let mut aggs = common::Aggs::default();
    let mut c = dtrace_consumer::Consumer::new(desc, Default::default());
    let mut out = dtrace_consumer::JsonOutput::new(
        Vec::new(),
        Vec::new(),
        dtrace_consumer::JsonFormat::Ndjson,
    );
    c.record(&rec, &mut out, &mut aggs).expect("record");
    out.close().expect("close");
    let (bytes, _) = out.into_parts();
    let text = String::from_utf8(bytes).expect("UTF-8");
    let v: serde_json::Value = serde_json::from_str(text.trim()).expect("one JSON object");
    let output = &v["output"];
    let m = exe_name();
    let frames = output[0]["ustack-frames"]
        .as_array()
        .expect("ustack-frames");
    assert_eq!(frames.len(), 2, "{text}");
    for (f, off) in frames.iter().zip(["0x0", "0x8"]) {
        assert_eq!(f["module"], m.as_str(), "{text}");
        assert!(f["name"].as_str().unwrap_or("").contains("target_function"));
        assert!(f["symbol"]
            .as_str()
            .unwrap_or("")
            .starts_with(&format!("{m}`")));
        assert_eq!(f["offset"], off, "{text}");
    }
    assert_eq!(output[1]["object"], m.as_str(), "{text}");
    assert!(output[1]["usym"]
        .as_str()
        .unwrap_or("")
        .contains("target_function"));
    assert_eq!(output[2]["umod"], m.as_str(), "{text}");
}
