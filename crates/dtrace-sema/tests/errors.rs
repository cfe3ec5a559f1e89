//! Compile errors: DTrace's tags and wording, first error wins.

mod common;

use dtrace_sema::{CompileOptions, TypedProgram};
use dtrace_syntax::{Diagnostic, Tag};

fn run(src: &str) -> Result<TypedProgram, Diagnostic> {
    common::check_with(src, &CompileOptions::default())
}

fn err(src: &str) -> (Tag, String) {
    match run(src) {
        Ok(_) => panic!("expected an error: {src}"),
        Err(d) => (d.tag, d.message),
    }
}

#[test]
fn operator_errors() {
    assert_eq!(
        err(r#"BEGIN { x = "a" * 1; }"#),
        (
            Tag::D_OP_ARITH,
            "operator * requires operands of arithmetic type".into()
        )
    );
    assert_eq!(
        err(r#"BEGIN { x = "a" - 1; }"#),
        (
            Tag::D_OP_ARITH,
            "operator - requires operands of arithmetic type".into()
        )
    );
    assert_eq!(
        err(r#"BEGIN { x = 2 % "a"; }"#),
        (
            Tag::D_OP_INT,
            "operator % requires operands of integral type".into()
        )
    );
    assert_eq!(
        err(r#"BEGIN { x = 1; x += "a"; }"#),
        (
            Tag::D_OP_INCOMPAT,
            "operands have incompatible types: \"int\" += \"string\"".into()
        )
    );
    assert_eq!(
        err(r#"BEGIN { x = "a" == 2; }"#),
        (
            Tag::D_OP_INCOMPAT,
            "operands have incompatible types: \"string\" == \"int\"".into()
        )
    );
    assert_eq!(
        err("BEGIN { x = 1 / 0; }"),
        (
            Tag::D_DIV_ZERO,
            "expression contains division by zero".into()
        )
    );
    assert_eq!(
        err("BEGIN { pid = 1; }"),
        (
            Tag::D_OP_WRITE,
            "operator = can only be applied to a writable variable".into()
        )
    );
    assert_eq!(err("BEGIN { x = -\"s\"; }").0, Tag::D_OP_ARITH);
    assert_eq!(err("BEGIN { x = ~\"s\"; }").0, Tag::D_OP_INT);
}

#[test]
fn variable_errors() {
    assert_eq!(
        err("BEGIN { trace(y); }"),
        (
            Tag::D_IDENT_UNDEF,
            "failed to resolve y: Unknown variable name".into()
        )
    );
    assert_eq!(err("BEGIN { x = x + 1; }").0, Tag::D_IDENT_UNDEF);
    // ++, -- and compound assignment declare a variable implicitly as int64_t.
    let tp = run("BEGIN { i++; x += 2; self->n--; this->t *= 3; a[1, \"k\"]++; }").unwrap();
    assert_eq!(tp.globals.len(), 2);
    assert!(tp.globals.iter().all(|g| g.ty.size() == 8 && g.ty.signed()));
    assert_eq!(tp.thread_vars[0].ty.size(), 8);
    assert_eq!(tp.clause_vars[0].ty.size(), 8);
    assert_eq!(tp.arrays[0].keys.len(), 2);
    assert!(run("BEGIN /++i == 5/ { trace(i); }").is_ok());
    assert_eq!(err("BEGIN { pid++; }").0, Tag::D_OP_WRITE);
    assert_eq!(
        err(r#"BEGIN { x = 1; x = "s"; }"#),
        (
            Tag::D_OP_INCOMPAT,
            "operands have incompatible types: \"int\" = \"string\"".into()
        )
    );
    assert_eq!(
        err("BEGIN { a[1] = 1; a[1, 2] = 2; }"),
        (
            Tag::D_PROTO_LEN,
            "a[ ] prototype mismatch: 2 keys passed, 1 expected".into()
        )
    );
    assert_eq!(
        err(r#"BEGIN { a[1] = 1; trace(a["x"]); }"#).0,
        Tag::D_PROTO_ARG
    );
    // Types follow the first assignment in program order.
    let tp = run("BEGIN { x = 1; } BEGIN { x = 2LL; self->s = execname; }").unwrap();
    assert_eq!(tp.globals[0].ty.size(), 4);
    assert!(tp.thread_vars[0].ty.is_str());
}

#[test]
fn action_errors() {
    assert_eq!(
        err("BEGIN { @a = count(1); }"),
        (
            Tag::D_PROTO_LEN,
            "count( ) prototype mismatch: 1 arg passed, 0 expected".into()
        )
    );
    assert_eq!(
        err("BEGIN { trace(1, 2); }"),
        (
            Tag::D_PROTO_LEN,
            "trace( ) prototype mismatch: 2 args passed, 1 expected".into()
        )
    );
    assert_eq!(
        err("BEGIN { @a = count(); @a = sum(1); }").0,
        Tag::D_AGG_REDEF
    );
    assert_eq!(
        err("BEGIN { @a = 1; }"),
        (
            Tag::D_AGG_FUNC,
            "@a must be assigned the result of an aggregating function".into()
        )
    );
    assert_eq!(
        err(r#"BEGIN { printf("%d\n", "s"); }"#).0,
        Tag::D_PRINTF_ARG_TYPE
    );
    assert_eq!(
        err(r#"BEGIN { printf("%d %d\n", 1); }"#),
        (
            Tag::D_PRINTF_ARG_PROTO,
            "printf( ) prototype mismatch: conversion #2 (%d) is missing a corresponding value argument".into()
        )
    );
    assert_eq!(
        err(r#"BEGIN { printf("%d\n", 1, 2); }"#),
        (
            Tag::D_PRINTF_ARG_EXTRA,
            "printf( ) prototype mismatch: only 1 arguments required by this format string".into()
        )
    );
    assert_eq!(err(r#"BEGIN { exit("x"); }"#).0, Tag::D_PROTO_ARG);
    assert_eq!(err("BEGIN { printa(@nope); }").0, Tag::D_IDENT_UNDEF);
}

#[test]
fn quantize_parameter_errors() {
    assert_eq!(
        err("BEGIN { x = 1; @ = lquantize(1, x, 10); }"),
        (
            Tag::D_LQUANT_BASETYPE,
            "lquantize( ) argument #1 must be an integer constant".into()
        )
    );
    assert_eq!(
        err("BEGIN { @ = lquantize(1, 10, 10); }"),
        (
            Tag::D_LQUANT_MISMATCH,
            "lquantize( ) base (argument #1) must be less than limit (argument #2)".into()
        )
    );
    assert_eq!(
        err("BEGIN { @ = lquantize(1, 0, 10, 0); }"),
        (
            Tag::D_LQUANT_STEPTYPE,
            "lquantize( ) argument #3 must be a non-zero positive integer constant".into()
        )
    );
    assert_eq!(
        err("BEGIN { @ = lquantize(1, 0, 10, 20); }"),
        (
            Tag::D_LQUANT_STEPLARGE,
            "lquantize( ) step (argument #3) too large: must have at least one quantization level"
                .into()
        )
    );
    assert_eq!(
        err("BEGIN { @ = lquantize(1, 0, 100000, 70000); }").0,
        Tag::D_LQUANT_STEPVAL
    );
    assert_eq!(
        err("BEGIN { @ = lquantize(0, 10, 20, 1); @ = lquantize(0, 10, 20, 2); }"),
        (Tag::D_LQUANT_MATCHSTEP, "lquantize( ) step (argument #3) doesn't match previous declaration: expected 1, found 2".into())
    );
    assert_eq!(
        err("BEGIN { @ = llquantize(1, 1, 0, 2, 10); }").0,
        Tag::D_LLQUANT_FACTORVAL
    );
    assert_eq!(
        err("BEGIN { @ = llquantize(1, 10, 3, 2, 10); }").0,
        Tag::D_LLQUANT_HMAGVAL
    );
    assert_eq!(
        err("BEGIN { @ = llquantize(1, 10, 0, 2, 3); }").0,
        Tag::D_LLQUANT_STEPVAL
    );
    // Oracle DTrace's rule for steps above the factor: they must divide
    // factor^(lmag+1) (factor^2 when lmag is 0).
    assert_eq!(
        err("BEGIN { @ = llquantize(1, 10, 2, 6, 80); }").0,
        Tag::D_LLQUANT_STEPVAL
    );
    assert!(run("BEGIN { @ = llquantize(1, 10, 0, 6, 20); }").is_ok());
    assert_eq!(
        err("BEGIN { @ = llquantize(1, 10, 0, 6, 0); }").0,
        Tag::D_LLQUANT_STEPTYPE
    );
    assert_eq!(err("BEGIN { @ = quantize(); }").0, Tag::D_PROTO_LEN);
    let tp = run("BEGIN { @ = lquantize(1, -10, 10, 3); }").unwrap();
    assert_eq!(
        tp.aggs[0].kind,
        dtrace_sema::AggKind::Lquantize {
            base: -10,
            limit: 8,
            step: 3
        }
    );
}

#[test]
fn c_integer_typing() {
    use dtrace_sema::{TExprKind, TStmt};
    let tp = run("BEGIN { trace(1 + 2U); trace('a' + 'b'); trace(1L << 40); trace(0xffffffff); }")
        .unwrap();
    let tys: Vec<(u32, bool)> = tp.clauses[0]
        .body
        .iter()
        .map(|s| match s {
            TStmt::Trace { value } => (value.ty.size(), value.ty.signed()),
            _ => (0, false),
        })
        .collect();
    assert_eq!(tys, vec![(4, false), (4, true), (8, true), (4, false)]);
    // Constants fold to the type's width.
    let tp = run("BEGIN { trace((char)300); trace(-1U); }").unwrap();
    let vals: Vec<i64> = tp.clauses[0]
        .body
        .iter()
        .filter_map(|s| match s {
            TStmt::Trace { value } => match value.kind {
                TExprKind::Int(v) => Some(v),
                _ => None,
            },
            _ => None,
        })
        .collect();
    assert_eq!(vals, vec![44, 0xffff_ffff]);
}

/// Conformance with the Dynamic Tracing Guide's language chapters.
#[test]
fn guide_conformance() {
    // "You may only assign values directly to D variables using their name or by
    // applying the array index operator [] to a D scalar or associative array"
    // ("Pointers to DTrace Objects"): declared scalar arrays take element stores,
    // kernel memory still does not.
    for ok in [
        "int a[5]; BEGIN { a[2] = 7; a[3]++; a[1] += a[2]; }",
        "int m[3][4]; BEGIN { m[1][2] = 5; }",
        "this int t[2]; BEGIN { this->t[1] = 1; }",
    ] {
        assert!(run(ok).is_ok(), "{ok}");
    }
    assert_eq!(err("BEGIN { curthread->comm[0] = 1; }").0, Tag::D_OP_WRITE);
    // "The logical operators may be applied to operands of integer or pointer
    // types" ("Logical Operators"); "the predicate expression must evaluate to a
    // value of integer or pointer type" ("Predicates").
    assert_eq!(
        err(r#"BEGIN { x = !"a"; }"#),
        (
            Tag::D_OP_SCALAR,
            "operator ! requires an operand of scalar type".into()
        )
    );
    assert_eq!(
        err(r#"BEGIN /"a"/ { }"#),
        (
            Tag::D_PRED_SCALAR,
            "predicate result must be of scalar type".into()
        )
    );
    // "(string) expression" and "stringof ( expression )" are equivalent; any
    // scalar may be converted ("String Conversion").
    assert!(run("BEGIN { s = (string)(long)curthread; }").is_ok());
    // "Character constants are assigned the type int" ("Constants").
    let p = run("BEGIN { x = 'a'; }").expect("compiles");
    assert_eq!(p.globals[0].ty.size(), 4);
}

#[test]
fn predicate_may_use_variables_the_actions_create() {
    // dtrace types a clause's actions before its predicate.
    assert!(run("BEGIN /i < 10/ { @ = sum(i++); }").is_ok());
    assert_eq!(err("BEGIN /nope/ { trace(1); }").0, Tag::D_IDENT_UNDEF);
}

#[test]
fn loop_errors() {
    assert_eq!(
        err("BEGIN { for (i = 0; i < 3; i++) trace(i); }").0,
        Tag::D_SYNTAX
    );
    assert_eq!(
        err("BEGIN { while (1) { x++; } }"),
        (
            Tag::D_SYNTAX,
            "loop could not be proven to terminate (bound it with a counter, e.g. for (i = 0; i < 100; i++))".into()
        )
    );
    assert!(run("BEGIN { while (1) { if (x++ > 3) break; } }").is_ok());
    assert!(run("BEGIN { for (i = 0; i < 3; i++) @a = count(); }").is_ok());
}
