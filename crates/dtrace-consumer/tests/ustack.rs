//! User stacks and user symbols as the consumer prints them, resolved in
//! this test's own process (no root needed).

use dtrace_codegen::desc::{Field, StackKind, ValueType};
use dtrace_consumer::printf::Env;
use dtrace_consumer::ustack::{print_ustack, print_usym, usym_text};
use dtrace_consumer::value::{decode, Value};

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
