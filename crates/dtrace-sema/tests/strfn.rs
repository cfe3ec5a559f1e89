//! The string subroutines' prototypes: result types, argument conversions and the
//! D_PROTO_LEN / D_PROTO_ARG errors with DTrace's wording.

use dtrace_sema::{CompileOptions, StrFunc, TExpr, TExprKind, TStmt, Ty, TypedProgram};
use dtrace_syntax::{Diagnostic, Tag};

mod common;

fn run(src: &str) -> Result<TypedProgram, Diagnostic> {
    common::check_with(src, &CompileOptions::default())
}

fn err(src: &str) -> (Tag, String) {
    match run(src) {
        Ok(_) => panic!("expected an error: {src}"),
        Err(d) => (d.tag, d.message),
    }
}

/// The value traced by the first statement.
fn traced(src: &str) -> TExpr {
    let tp = run(src).expect("checks");
    match &tp.clauses[0].body[0] {
        TStmt::Trace { value } => value.clone(),
        other => panic!("not a trace: {other:?}"),
    }
}

#[test]
fn result_types() {
    let cap = CompileOptions::default().str_cap();
    for (call, want) in [
        ("strlen(\"a\")", Some((8, false))),
        ("index(\"a\", \"b\")", Some((4, true))),
        ("rindex(\"a\", \"b\", 3)", Some((4, true))),
        ("strtoll(\"12\", 8)", Some((8, true))),
        ("substr(\"abc\", 1)", None),
        ("strchr(\"abc\", 'b')", None),
        ("lltostr(5)", None),
        ("cleanpath(\"/a/../b\")", None),
    ] {
        let v = traced(&format!("BEGIN {{ trace({call}); }}"));
        match (v.ty, want) {
            (Ty::Int { size, signed, .. }, Some(w)) => assert_eq!((size, signed), w, "{call}"),
            (Ty::Str { cap: c }, None) => assert_eq!(c, cap, "{call}"),
            (t, w) => panic!("{call}: {t:?}, wanted {w:?}"),
        }
    }
}

#[test]
fn string_parameters_take_char_pointers_and_null() {
    // A char pointer or array is read as a string from kernel memory.
    let v = traced("BEGIN { trace(strlen((char *)curthread)); }");
    let TExprKind::StrFn { func, args } = &v.kind else {
        panic!("{v:?}")
    };
    assert_eq!(*func, StrFunc::Strlen);
    assert!(matches!(args[0].kind, TExprKind::KStr { .. }));
    // strtok(NULL, ...) goes on with the previous string: its first argument is 0.
    let v = traced("BEGIN { trace(strtok(NULL, \",\")); }");
    let TExprKind::StrFn { args, .. } = &v.kind else {
        panic!("{v:?}")
    };
    assert_eq!(args[0].kind, TExprKind::Int(0));
    // NULL compared with and stored in a string is the empty string.
    run("BEGIN { s = strchr(\"a\", 'b'); s = NULL; trace(s == NULL); trace(NULL != s); }")
        .expect("checks");
}

#[test]
fn argument_counts() {
    for (src, msg) in [
        (
            "strlen()",
            "strlen( ) prototype mismatch: 0 args passed, 1 expected",
        ),
        (
            "strjoin(\"a\")",
            "strjoin( ) prototype mismatch: 1 arg passed, 2 expected",
        ),
        (
            "substr(\"a\")",
            "substr( ) prototype mismatch: 1 arg passed, at least 2 expected",
        ),
        (
            "index(\"a\", \"b\", 1, 2)",
            "index( ) prototype mismatch: 4 args passed, at most 3 expected",
        ),
        (
            "lltostr()",
            "lltostr( ) prototype mismatch: 0 args passed, at least 1 expected",
        ),
    ] {
        let (tag, m) = err(&format!("BEGIN {{ trace({src}); }}"));
        assert_eq!(tag, Tag::D_PROTO_LEN, "{src}");
        assert_eq!(m, msg);
    }
}

#[test]
fn argument_types() {
    for (src, msg) in [
        ("strlen(12)", "strlen( ) argument #1 is incompatible with prototype:\n\tprototype: char *\n\t argument: int"),
        ("strtok(\"a\", 1)", "strtok( ) argument #2 is incompatible with prototype:\n\tprototype: char *\n\t argument: int"),
        ("substr(\"a\", 1, \"b\")", "substr( ) argument #3 is incompatible with prototype:\n\tprototype: int\n\t argument: string"),
        ("strchr(\"a\", \"b\")", "strchr( ) argument #2 is incompatible with prototype:\n\tprototype: char\n\t argument: string"),
        ("lltostr(\"1\")", "lltostr( ) argument #1 is incompatible with prototype:\n\tprototype: int64_t\n\t argument: string"),
    ] {
        let (tag, m) = err(&format!("BEGIN {{ trace({src}); }}"));
        assert_eq!(tag, Tag::D_PROTO_ARG, "{src}");
        assert_eq!(m, msg);
    }
}

#[test]
fn subroutine_names_cannot_be_declared() {
    let (tag, m) = err("int strstr; BEGIN { }");
    assert_eq!(tag, Tag::D_DECL_IDRED);
    assert_eq!(m, "identifier redeclared: strstr");
}
