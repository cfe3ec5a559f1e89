//! The memory subroutines: prototypes, alloca-pointer rules and the typed forms
//! codegen receives.

use dtrace_sema::{CompileOptions, LValue, TExpr, TExprKind, TStmt, Ty, TypedProgram};
use dtrace_syntax::{Diagnostic, Tag};

mod common;

fn run_with(src: &str, opts: &CompileOptions) -> Result<TypedProgram, Diagnostic> {
    common::check_with(src, opts)
}

fn run(src: &str) -> Result<TypedProgram, Diagnostic> {
    run_with(src, &CompileOptions::default())
}

fn err(src: &str) -> (Tag, String) {
    match run(src) {
        Ok(_) => panic!("expected an error: {src}"),
        Err(d) => (d.tag, d.message),
    }
}

/// The expression of the `n`th statement of the first clause.
fn stmt_expr(tp: &TypedProgram, n: usize) -> &TExpr {
    match tp.clauses[0].body.get(n) {
        Some(TStmt::Expr(e)) => e,
        other => panic!("statement {n} is not an expression: {other:?}"),
    }
}

#[test]
fn prototypes() {
    for (src, tag) in [
        ("BEGIN { alloca(); }", Tag::D_PROTO_LEN),
        ("BEGIN { copyin(1); }", Tag::D_PROTO_LEN),
        ("BEGIN { copyin(1, 2, 3); }", Tag::D_PROTO_LEN),
        ("BEGIN { copyinstr(1, 2, 3); }", Tag::D_PROTO_LEN),
        ("BEGIN { copyinto(1, 2); }", Tag::D_PROTO_LEN),
        ("BEGIN { copyoutstr(\"s\"); }", Tag::D_PROTO_LEN),
        ("BEGIN { copyin(1, \"2\"); }", Tag::D_PROTO_ARG),
        ("BEGIN { copyinstr(\"1\", 2); }", Tag::D_PROTO_ARG),
        ("BEGIN { copyinto(1, 2, 3); }", Tag::D_PROTO_ARG),
        ("BEGIN { copyinto(1, 2, \"\"); }", Tag::D_PROTO_ARG),
    ] {
        assert_eq!(err(src).0, tag, "{src}");
    }
    assert_eq!(
        err("BEGIN { copyout(0, 20); }").1,
        "copyout( ) prototype mismatch: 2 args passed, 3 expected"
    );
    assert_eq!(
        err("BEGIN { copyout(\"a\", \"b\", 1); }").1,
        "copyout( ) argument #2 is incompatible with prototype:\n\tprototype: uintptr_t\n\t argument: string"
    );
    // copyinstr's length is optional.
    assert!(run("BEGIN { x = copyinstr(0); y = copyinstr(0, 8); }").is_ok());
}

#[test]
fn bcopy_and_copyinto_write_only_to_alloca_pointers() {
    let (tag, msg) = err("int *p; BEGIN { bcopy((void *)0, p, 4); }");
    assert_eq!(tag, Tag::D_PROTO_ARG);
    assert_eq!(
        msg,
        "bcopy( ) argument #2 is incompatible with prototype:\n\tprototype: alloca pointer\n\t argument: non-alloca pointer"
    );
    assert_eq!(
        err("BEGIN { bcopy((void *)0, (void *)NULL, 4); }").0,
        Tag::D_PROTO_ARG
    );
    // Through a variable, with pointer arithmetic and a cast, it stays one.
    let tp = run("BEGIN { s = alloca(8); bcopy(\"ab\", (char *)s + 1, 2); copyinto(0, 1, s); }")
        .expect("accepted");
    let TExprKind::Bcopy { src_scratch, .. } = &stmt_expr(&tp, 1).kind else {
        panic!("not a bcopy");
    };
    assert!(!src_scratch);
}

#[test]
fn scratch_size_is_checked_when_constant() {
    let opts = CompileOptions {
        scratchsize: 64,
        ..CompileOptions::default()
    };
    for src in ["BEGIN { alloca(65); }", "BEGIN { copyin(0, 65); }"] {
        let e = run_with(src, &opts).expect_err("too large");
        assert_eq!(e.tag, Tag::D_ALLOCA_SIZE, "{src}");
    }
    assert!(run_with("BEGIN { alloca(64); sz = 65; alloca(sz); }", &opts).is_ok());
}

#[test]
fn alloca_and_other_pointers_do_not_mix() {
    assert_eq!(
        err("BEGIN { a = (char *)alloca(1); } BEGIN { b = (char *)64; a = NULL; a = b + 5; }"),
        (
            Tag::D_ALLOCA_INCOMPAT,
            "a: cannot reuse the same identifier for both alloca and non-alloca allocations".into()
        )
    );
    assert_eq!(
        err("BEGIN { a = (char *)alloca(1); a = (a == NULL) ? (char *)50 : a; }"),
        (
            Tag::D_ALLOCA_INCOMPAT,
            "ternary conditional with alloca and non-alloca branches cannot be assigned to a variable"
                .into()
        )
    );
    // NULL fits either kind; a cast to an integer ends alloca-ness.
    assert!(run("BEGIN { a = (char *)alloca(1); a = NULL; b = (int *)((long)a + 4); }").is_ok());
}

#[test]
fn loads_and_stores_through_alloca_pointers() {
    let tp = run("BEGIN { p = (int *)alloca(8); p[1] = 3; x = p[1]; q = (int *)(long)p; y = *q; }")
        .expect("accepted");
    // p[1] = 3 stores to memory.
    let TExprKind::Assign { lv, .. } = &stmt_expr(&tp, 1).kind else {
        panic!("not an assignment");
    };
    assert!(matches!(lv, LValue::Mem(_)));
    // x = p[1] reads scratch memory (bounds-checked); *q reads kernel memory.
    let TExprKind::Assign { rhs, .. } = &stmt_expr(&tp, 2).kind else {
        panic!("not an assignment");
    };
    assert!(matches!(rhs.kind, TExprKind::LoadScratch(_)));
    let TExprKind::Assign { rhs, .. } = &stmt_expr(&tp, 4).kind else {
        panic!("not an assignment");
    };
    assert!(matches!(rhs.kind, TExprKind::Load(_)));
    // A string through an alloca char pointer stays inside the allocation.
    let tp = run("BEGIN { s = (char *)alloca(4); t = stringof(s); }").expect("accepted");
    let TExprKind::Assign { rhs, .. } = &stmt_expr(&tp, 1).kind else {
        panic!("not an assignment");
    };
    assert!(matches!(rhs.kind, TExprKind::ScratchStr { .. }));
    assert!(matches!(rhs.ty, Ty::Str { .. }));
}

#[test]
fn memory_outside_d_variables_is_not_a_place() {
    // Writability comes from a D variable: a cast or a built-in is not one.
    assert_eq!(err("BEGIN { *(int *)alloca(4) = 1; }").0, Tag::D_OP_WRITE);
    assert_eq!(err("BEGIN { curthread->comm[0] = 1; }").0, Tag::D_OP_WRITE);
}
