//! Translators, the `xlate` operator, `print()` shapes and library intrinsics,
//! checked without the kernel.

mod common;

use dtrace_sema::{CompileOptions, PrintShape, ProbeInfo, ProbeKind, TExprKind, TStmt};
use dtrace_syntax::{Diagnostic, Tag};

/// Check `src`, compiled as a library source when `library`.
fn run_as(src: &str, library: bool) -> Result<dtrace_sema::TypedProgram, Diagnostic> {
    common::check_as(src, library, &CompileOptions::default())
}

fn run(src: &str) -> Result<dtrace_sema::TypedProgram, Diagnostic> {
    run_as(src, false)
}

fn err(src: &str) -> (Tag, String) {
    match run(src) {
        Ok(_) => panic!("expected an error: {src}"),
        Err(d) => (d.tag, d.message),
    }
}

const PAIR: &str = "struct pair { int a; long b; char name[8]; }; \
                    translator struct pair < int n > { a = n; b = n * 2; name = \"p\"; };";

/// The first traced value of the first clause.
fn first_trace(tp: &dtrace_sema::TypedProgram) -> &dtrace_sema::TExpr {
    tp.clauses[0]
        .body
        .iter()
        .find_map(|s| match s {
            TStmt::Trace { value } => Some(value),
            _ => None,
        })
        .expect("a trace")
}

#[test]
fn a_member_evaluates_only_its_definition() {
    // `a`'s definition reads memory; the typed `.b` is the constant 42, no load.
    let src = "struct o { int a; int b; }; \
               translator struct o < int n > { a = *(int *)n; b = n + 1; }; \
               BEGIN { trace(xlate<struct o>(41).b); }";
    let tp = run(src).unwrap_or_else(|d| panic!("{d:?}"));
    assert_eq!(first_trace(&tp).kind, TExprKind::Int(42));
    let src = "struct o { int a; }; translator struct o < int n > { a = n / 0; };";
    assert_eq!(
        err(src).0,
        Tag::D_DIV_ZERO,
        "definitions are checked when declared"
    );
}

#[test]
fn pointer_translations_use_arrow_and_star() {
    let src = format!(
        "{PAIR} BEGIN {{ trace(xlate<struct pair *>(3)->a); trace((*xlate<struct pair *>(3)).b); }}"
    );
    let tp = run(&src).unwrap_or_else(|d| panic!("{d:?}"));
    let consts: Vec<_> = tp.clauses[0]
        .body
        .iter()
        .filter_map(|s| match s {
            TStmt::Trace { value } => Some(value.kind.clone()),
            _ => None,
        })
        .collect();
    assert_eq!(consts, vec![TExprKind::Int(3), TExprKind::Int(6)]);
    let (tag, _) = err(&format!(
        "{PAIR} BEGIN {{ trace(xlate<struct pair>(3)->a); }}"
    ));
    assert_eq!(tag, Tag::D_OP_PTR);
    let (tag, _) = err(&format!(
        "{PAIR} BEGIN {{ trace(xlate<struct pair *>(3).a); }}"
    ));
    assert_eq!(tag, Tag::D_OP_SOU);
}

#[test]
fn inlines_of_translations_translate_members() {
    let src = format!(
        "{PAIR} inline struct pair *cur = xlate<struct pair *>(5); BEGIN {{ trace(cur->b); }}"
    );
    let tp = run(&src).unwrap_or_else(|d| panic!("{d:?}"));
    assert_eq!(first_trace(&tp).kind, TExprKind::Int(10));
    let (tag, _) = err(&format!(
        "{PAIR} inline struct pair *cur = xlate<struct pair *>(5); BEGIN {{ x = cur; }}"
    ));
    // A translated pointer has D's dynamic type: it is no value.
    assert_eq!(tag, Tag::D_CG_DYN);
    let (tag, msg) = err(&format!(
        "{PAIR} inline int *cur = xlate<struct pair *>(5);"
    ));
    assert_eq!(tag, Tag::D_OP_INCOMPAT, "{msg}");
}

#[test]
fn whole_translations_build_the_struct() {
    let src = format!(
        "{PAIR} BEGIN {{ trace(xlate<struct pair>(4)); print(*xlate<struct pair *>(4)); }}"
    );
    let tp = run(&src).unwrap_or_else(|d| panic!("{d:?}"));
    let TExprKind::Build { size, members } = &first_trace(&tp).kind else {
        panic!("not built");
    };
    assert_eq!(*size, 24);
    let offs: Vec<(u32, u32)> = members.iter().map(|m| (m.offset, m.size)).collect();
    assert_eq!(offs, vec![(0, 4), (8, 8), (16, 8)]);
    let shape = tp.clauses[0].body.iter().find_map(|s| match s {
        TStmt::Print { shape, .. } => Some(shape.clone()),
        _ => None,
    });
    let Some(PrintShape::Struct { name, members }) = shape else {
        panic!("no struct shape");
    };
    assert_eq!(name, "struct pair");
    let names: Vec<&str> = members.iter().map(|m| m.name.as_str()).collect();
    assert_eq!(names, ["a", "b", "name"]);
}

#[test]
fn translator_declaration_errors() {
    let cases = [
        ("struct o { int a; }; BEGIN { trace(xlate<struct o>(1).a); }", Tag::D_XLATE_NONE, "cannot translate from \"int\" to \"struct o\""),
        ("struct o { int a; }; translator struct o < int x > { a = x; }; translator struct o < int y > { a = y; };", Tag::D_XLATE_REDECL, "translator from int to struct o has already been declared"),
        ("translator int < int x > { a = x; };", Tag::D_XLATE_SOU, "translator output type must be a struct or union"),
        ("struct o { int a; }; translator struct o < int x > { b = x; };", Tag::D_XLATE_MEMB, "translator member b is not a member of struct o"),
        ("struct o { int a; }; translator struct o < int x > { a = \"s\"; };", Tag::D_XLATE_INCOMPAT, "translator member a definition uses incompatible types: \"int\" = \"string\""),
        ("struct o { int a; int b; }; translator struct o < int x > { a = x; }; BEGIN { trace(xlate<struct o>(1).b); }", Tag::D_XLATE_NOCONV, "translator does not define conversion for member: b"),
    ];
    for (src, tag, msg) in cases {
        assert_eq!(err(src), (tag, msg.to_string()), "{src}");
    }
}

#[test]
fn intrinsics_are_for_libraries_only() {
    let src = "inline string args = __dt_uargs(1, 9); BEGIN { trace(args); }";
    let (tag, msg) = err(src);
    assert_eq!(
        (tag, msg.as_str()),
        (Tag::D_FUNC_UNDEF, "undefined function name: __dt_uargs")
    );
    let tp = run_as(src, true).unwrap_or_else(|d| panic!("{d:?}"));
    assert!(matches!(first_trace(&tp).kind, TExprKind::UserArgs { .. }));
    let (tag, _) = match run_as("inline string a = __dt_uargs(1);", true) {
        Err(d) => (d.tag, d.message),
        Ok(_) => panic!("arity"),
    };
    assert_eq!(tag, Tag::D_PROTO_LEN);
}

#[test]
fn print_describes_scalars_and_strings() {
    let tp = run("BEGIN { print(1); print(\"hi\"); print((char *)0); }")
        .unwrap_or_else(|d| panic!("{d:?}"));
    let shapes: Vec<PrintShape> = tp.clauses[0]
        .body
        .iter()
        .filter_map(|s| match s {
            TStmt::Print { shape, .. } => Some(shape.clone()),
            _ => None,
        })
        .collect();
    assert!(matches!(&shapes[0], PrintShape::Int { name, size: 4, signed: true } if name == "int"));
    assert!(matches!(shapes[1], PrintShape::String { .. }));
    assert!(matches!(&shapes[2], PrintShape::Pointer { name } if name == "char *"));
    let (tag, _) = err("BEGIN { print(); }");
    assert_eq!(tag, Tag::D_PROTO_LEN);
}

#[test]
fn struct_variables_hold_whole_values() {
    let src = format!(
        "{PAIR} struct pair g; BEGIN {{ g = xlate<struct pair>(2); this->p = g; trace(this->p.b); }}"
    );
    let tp = run(&src).unwrap_or_else(|d| panic!("{d:?}"));
    assert!(tp.globals[0].ty.is_agg() && tp.clause_vars[0].ty.is_agg());
    // Thread-locals and associative arrays hold whole structs too.
    let src = format!(
        "{PAIR} self struct pair s; struct pair m[int];
        BEGIN {{ self->s = xlate<struct pair>(3); m[1] = self->s; trace(m[1].b); }}"
    );
    let tp = run(&src).unwrap_or_else(|d| panic!("{d:?}"));
    assert!(tp.thread_vars[0].ty.is_agg() && tp.arrays[0].value.is_agg());
    let (tag, _) = err(&format!(
        "{PAIR} struct other {{ int a; }}; struct other o; BEGIN {{ o = xlate<struct pair>(1); }}"
    ));
    assert_eq!(tag, Tag::D_OP_INCOMPAT);
}

/// A probe whose `args[0]` is `struct pair *` translated from native
/// argument 1 (an `int`), and whose `args[1]` is that `int` itself.
fn translated_probe() -> ProbeInfo {
    ProbeInfo {
        id: 7,
        provider: "test".into(),
        name: "fire".into(),
        kind: ProbeKind::Tick { period_ns: 1 },
        args: vec![
            dtrace_sema::ArgDesc::translated("int", "struct pair *", 1),
            dtrace_sema::ArgDesc::native("int", 1),
        ],
        ..common::begin()
    }
}

fn run_probe(src: &str) -> Result<dtrace_sema::TypedProgram, Diagnostic> {
    common::check_on(src, false, &translated_probe(), &CompileOptions::default())
}

#[test]
fn probe_arguments_translate_through_their_description() {
    // args[0]->b is the translator's `n * 2` over native argument 1 (arg1).
    let tp = run_probe(&format!("{PAIR} tick-1 {{ trace(args[0]->b); }}")).unwrap();
    assert_eq!(tp.clauses[0].args_used, 1 << 1);
    let whole = run_probe(&format!("{PAIR} tick-1 {{ trace(*args[0]); }}")).unwrap();
    assert!(matches!(first_trace(&whole).kind, TExprKind::Build { .. }));
    // The native argument is an int.
    assert!(run_probe(&format!("{PAIR} tick-1 {{ trace(args[1] + 1); }}")).is_ok());
    // A translated pointer is no value.
    let e = run_probe(&format!("{PAIR} tick-1 {{ trace(args[0]); }}")).unwrap_err();
    assert_eq!(e.tag, Tag::D_XLATE_SOU);
    // Without a translator, the member cannot be had.
    let e = run_probe("struct pair { int a; long b; }; tick-1 { trace(args[0]->a); }").unwrap_err();
    assert_eq!(e.tag, Tag::D_XLATE_NONE);
}

#[test]
fn member_definitions_as_assignments() {
    // A pointer member takes a pointer or NULL, not a char.
    let src = "struct in { int i; char c; }; struct out { char *p; }; \
               translator struct out < struct in *x > { p = x->c; };";
    assert_eq!(
        err(src),
        (
            Tag::D_XLATE_INCOMPAT,
            "translator member p definition uses incompatible types: \"char *\" = \"char\"".into()
        )
    );
    let ok = "struct in { int i; char c; }; struct out { char *p; int n; }; \
              translator struct out < struct in *x > { p = NULL; n = x->i; };";
    assert!(run(ok).is_ok());
    // A member defined twice is accepted; its first definition is the one used.
    let twice = "struct out { int n; }; \
                 translator struct out < int v > { n = v; n = v + 1; }; \
                 BEGIN { trace(xlate<struct out>(5).n); }";
    let tp = run(twice).unwrap_or_else(|d| panic!("{d:?}"));
    assert!(matches!(first_trace(&tp).kind, TExprKind::Int(5)));
}

#[test]
fn translated_pointers_and_struct_casts() {
    let decls = "struct in { int ii; }; struct out { int oi; }; \
                 translator struct out < struct in *i > { oi = i->ii; }; struct in *f; ";
    let (tag, msg) = err(&format!(
        "{decls} BEGIN {{ x = (uintptr_t)xlate<struct out *>(f); }}"
    ));
    assert_eq!(tag, Tag::D_CAST_INVAL);
    assert_eq!(
        msg,
        "invalid cast expression: \"pointer to translated data\" to \"uintptr_t\""
    );
    // A struct cast to its own type is itself; to another struct it is invalid.
    let own = "struct in { int ii; char ic; }; struct in v; \
               BEGIN { trace(((struct in)v).ii); }";
    assert!(run(own).is_ok());
    let other = "struct in { int ii; }; struct other { int ii; }; struct in v; \
                 BEGIN { trace(((struct other)v).ii); }";
    assert_eq!(err(other).0, Tag::D_CAST_INVAL);
}

#[test]
fn inlines_with_parameters_stand_for_their_definition() {
    // Arguments are converted to the parameters' types and bound in the
    // definition, hiding any other use of the name.
    let src = "inline int twice[int x] = x * 2; int x; \
               BEGIN { x = 100; trace(twice[21]); }";
    let tp = run(src).unwrap_or_else(|d| panic!("{d:?}"));
    assert_eq!(first_trace(&tp).kind, TExprKind::Int(42));
    // A translation through one: only the member used is evaluated.
    let src = format!(
        "{PAIR} inline struct pair pairs[int k] = xlate <struct pair> (k + 1); \
         BEGIN {{ trace(pairs[20].b); }}"
    );
    let tp = run(&src).unwrap_or_else(|d| panic!("{d:?}"));
    assert_eq!(first_trace(&tp).kind, TExprKind::Int(42));
    // The number of arguments is the number of parameters.
    let (tag, msg) = err("inline int twice[int x] = x * 2; BEGIN { trace(twice[1, 2]); }");
    assert_eq!(tag, Tag::D_PROTO_LEN);
    assert_eq!(
        msg,
        "twice[ ] prototype mismatch: 2 args passed, 1 expected"
    );
    // Unnamed parameters cannot be referred to.
    assert_eq!(err("inline int f[int] = 1;").0, Tag::D_DECL_PROTO_FORM);
}
