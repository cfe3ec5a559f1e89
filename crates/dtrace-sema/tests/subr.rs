//! The byte-order, device, random, process, network-address and lock
//! subroutines: result types, the forms they are checked into, and their
//! prototype errors.

use dtrace_sema::{CompileOptions, TExpr, TExprKind, TStmt, Ty, TypedProgram};
use dtrace_syntax::{Diagnostic, Tag};

mod common;

fn run(src: &str) -> Result<TypedProgram, Diagnostic> {
    common::check_with(src, &CompileOptions::default())
}

fn traced(src: &str) -> TExpr {
    let tp = run(src).expect("checks");
    match &tp.clauses[0].body[0] {
        TStmt::Trace { value } => value.clone(),
        other => panic!("not a trace: {other:?}"),
    }
}

fn int_of(t: &Ty) -> (u32, bool) {
    match t {
        Ty::Int { size, signed, .. } => (u32::from(*size), *signed),
        other => panic!("not an integer: {other:?}"),
    }
}

#[test]
fn byte_order_results_are_unsigned_in_their_width() {
    for (f, size) in [
        ("htons", 2),
        ("ntohs", 2),
        ("htonl", 4),
        ("ntohl", 4),
        ("htonll", 8),
        ("ntohll", 8),
    ] {
        let v = traced(&format!("BEGIN {{ trace({f}(0x1234)); }}"));
        assert_eq!(int_of(&v.ty), (size, false), "{f}");
        assert!(matches!(v.kind, TExprKind::ByteSwap(_)), "{f}");
    }
}

#[test]
fn getmajor_and_getminor_fold_on_constants() {
    let major = traced("BEGIN { trace(getmajor(0xabcdef0123456789ll)); }");
    assert!(matches!(major.kind, TExprKind::Int(0x234)), "{major:?}");
    let minor = traced("BEGIN { trace(getminor(0x0ab12345)); }");
    assert!(matches!(minor.kind, TExprKind::Int(0x12345)), "{minor:?}");
}

#[test]
fn rand_and_progenyof_are_ints() {
    let r = traced("BEGIN { trace(rand()); }");
    assert!(matches!(r.kind, TExprKind::Rand));
    assert_eq!(int_of(&r.ty), (4, true));
    let p = traced("BEGIN { trace(progenyof(1)); }");
    assert!(matches!(p.kind, TExprKind::Progenyof(_)));
}

#[test]
fn inet_ntoa6_takes_an_optional_strictness() {
    let cap = CompileOptions::default().str_cap();
    let plain = traced("BEGIN { trace(inet_ntoa6(alloca(16))); }");
    assert_eq!(plain.ty, Ty::Str { cap });
    assert!(matches!(
        plain.kind,
        TExprKind::Inet6 { prefix: false, ref groups } if groups.len() == 8
    ));
    let strict = traced("BEGIN { trace(inet_ntoa6(alloca(16), 7)); }");
    assert!(matches!(strict.kind, TExprKind::Inet6 { prefix: true, .. }));
}

#[test]
fn lock_subroutines_refuse_strings() {
    let d = run("BEGIN { trace(mutex_owned(\"x\")); }").expect_err("a string is no mutex");
    assert_eq!(d.tag, Tag::D_PROTO_ARG);
    assert!(
        d.message.contains("prototype: struct mutex *"),
        "{}",
        d.message
    );
    let d = run("BEGIN { trace(rw_read_held()); }").expect_err("needs a lock");
    assert_eq!(d.tag, Tag::D_PROTO_LEN);
}
