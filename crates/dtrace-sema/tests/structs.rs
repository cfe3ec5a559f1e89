//! Struct and union values in D variables ("Structs and Unions"): which
//! variables may hold them, how member stores are typed, and the errors.

mod common;

use dtrace_sema::{CompileOptions, ElemRoot, LValue, TExprKind, TStmt, Ty, TypedProgram, VarRef};
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

const CALLINFO: &str =
    "struct callinfo { uint64_t ts; uint64_t elapsed; uint64_t calls; size_t maxbytes; };";

/// The first statement of the first clause.
fn first_stmt(tp: &TypedProgram) -> &TStmt {
    &tp.clauses[0].body[0]
}

#[test]
fn struct_valued_arrays_and_thread_locals_are_declared() {
    let tp = run(&format!(
        "{CALLINFO} struct callinfo i[string]; self struct callinfo t; BEGIN {{ }}"
    ))
    .expect("checks");
    assert!(matches!(tp.arrays[0].value, Ty::Agg { size: 32, .. }));
    assert!(matches!(tp.thread_vars[0].ty, Ty::Agg { size: 32, .. }));
}

#[test]
fn member_increment_of_an_array_element() {
    let tp = run(&format!(
        "{CALLINFO} struct callinfo i[string]; BEGIN {{ i[probefunc].calls++; }}"
    ))
    .expect("checks");
    let TStmt::Expr(e) = first_stmt(&tp) else {
        panic!("an expression statement");
    };
    assert!(matches!(
        e.ty,
        Ty::Int {
            size: 8,
            signed: false,
            ..
        }
    ));
    let TExprKind::IncDec { lv, .. } = &e.kind else {
        panic!("an increment: {e:?}");
    };
    let LValue::Elem {
        root, off, limit, ..
    } = lv
    else {
        panic!("an element lvalue: {lv:?}");
    };
    assert!(matches!(root, ElemRoot::Array { array: 0, keys } if keys.len() == 1));
    // calls is at byte 16 of a 32-byte struct; the last 8-byte member starts at 24.
    assert!(matches!(
        off.kind,
        TExprKind::Int(16) | TExprKind::Arith { .. }
    ));
    assert_eq!(*limit, 24);
}

#[test]
fn member_stores_in_each_storage_class() {
    let src = "struct in { int v; int arr[4]; }; struct s { int a; struct in in; };
        struct s g; self struct s t;
        BEGIN { g.in.arr[2] = 5; this->x = g; this->x.a += 1; self->t.in.v = 2; }";
    let tp = run(src).expect("checks");
    let roots: Vec<ElemRoot> = tp.clauses[0]
        .body
        .iter()
        .filter_map(|s| match s {
            TStmt::Expr(e) => match &e.kind {
                TExprKind::Assign {
                    lv: LValue::Elem { root, .. },
                    ..
                } => Some(root.clone()),
                _ => None,
            },
            _ => None,
        })
        .collect();
    assert_eq!(
        roots,
        [
            ElemRoot::Var(VarRef::Global(0)),
            ElemRoot::Var(VarRef::Clause(0)),
            ElemRoot::Var(VarRef::Thread(0)),
        ]
    );
}

#[test]
fn whole_struct_assignment_to_dynamic_variables() {
    let src = format!(
        "{CALLINFO} struct callinfo g; struct callinfo i[int];
        BEGIN {{ i[1] = g; self->c = i[1]; self->c.calls = 3; }}"
    );
    let tp = run(&src).expect("checks");
    assert!(tp.thread_vars[0].ty.is_agg());
}

#[test]
fn member_store_errors() {
    let ci = format!("{CALLINFO} struct callinfo i[string]; struct callinfo g;");
    assert_eq!(
        err(&format!("{ci} BEGIN {{ i[\"a\"].nope = 1; }}")),
        (
            Tag::D_TYPE_MEMBER,
            "nope is not a member of struct callinfo".into()
        )
    );
    assert_eq!(
        err(&format!("{ci} BEGIN {{ g.nope++; }}")),
        (
            Tag::D_TYPE_MEMBER,
            "nope is not a member of struct callinfo".into()
        )
    );
    assert_eq!(
        err(&format!("{ci} BEGIN {{ i[1].calls = 1; }}")).0,
        Tag::D_PROTO_ARG
    );
    assert_eq!(
        err(&format!("{ci} BEGIN {{ i[\"a\"]++; }}")),
        (
            Tag::D_OP_SCALAR,
            "operator ++ requires operand of scalar type".into()
        )
    );
    assert_eq!(
        err(&format!("{ci} BEGIN {{ i[\"a\"] = 1; }}")).0,
        Tag::D_OP_INCOMPAT
    );
    assert_eq!(
        err(&format!("{ci} BEGIN {{ g.calls = \"x\"; }}")).0,
        Tag::D_OP_INCOMPAT
    );
    // Kernel memory stays read-only.
    assert_eq!(err("BEGIN { curthread->pid = 1; }").0, Tag::D_OP_WRITE);
}

#[test]
fn string_members_and_thread_local_arrays() {
    let tp = run(
        "struct f { int fd; string name; }; struct f g; self int a[3];
        BEGIN { g.name = \"x\"; self->a[1] = 2; }",
    )
    .expect("checks");
    let lvs: Vec<(&LValue, Ty)> = tp.clauses[0]
        .body
        .iter()
        .filter_map(|s| match s {
            TStmt::Expr(e) => match &e.kind {
                TExprKind::Assign { lv, .. } => Some((lv, e.ty)),
                _ => None,
            },
            _ => None,
        })
        .collect();
    // The string member is 256 bytes (strsize) at offset 4 of a 260-byte struct.
    assert!(matches!(
        lvs[0],
        (
            LValue::Elem {
                root: ElemRoot::Var(VarRef::Global(0)),
                limit: 4,
                ..
            },
            Ty::Str { .. }
        )
    ));
    assert!(matches!(
        lvs[1],
        (
            LValue::Elem {
                root: ElemRoot::Var(VarRef::Thread(0)),
                limit: 8,
                ..
            },
            Ty::Int { size: 4, .. }
        )
    ));
    let f = "struct f { int fd; string name; }; struct f g;";
    assert_eq!(
        err(&format!("{f} BEGIN {{ g.name = 1; }}")).0,
        Tag::D_OP_INCOMPAT
    );
    assert_eq!(
        err(&format!("{f} BEGIN {{ g.name++; }}")).0,
        Tag::D_OP_SCALAR
    );
    assert_eq!(
        err(&format!("{f} BEGIN {{ g.name += 1; }}")).0,
        Tag::D_OP_INCOMPAT
    );
}
