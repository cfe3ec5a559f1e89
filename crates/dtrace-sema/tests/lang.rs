//! Language items of the Dynamic Tracing Guide checked by sema: thread-local
//! associative arrays, read-modify-write operators on array elements, variables
//! read before any assignment, and storage-class-only declarations.

use dtrace_sema::{CompileOptions, TExprKind, TStmt, Ty, TypedProgram};
use dtrace_syntax::{Diagnostic, Tag};

mod common;

fn run(src: &str) -> Result<TypedProgram, Diagnostic> {
    common::check_with(src, &CompileOptions::default())
}

fn ok(src: &str) -> TypedProgram {
    match run(src) {
        Ok(p) => p,
        Err(d) => panic!("{src}: {}", d.message),
    }
}

fn int_size(t: &Ty) -> Option<u8> {
    match t {
        Ty::Int { size, .. } => Some(*size),
        _ => None,
    }
}

#[test]
fn thread_local_assoc_array_is_keyed_by_thread() {
    let p = ok(r#"BEGIN { self->a["k"] = 42; self->a["k"]++; self->a["j"] += 2; }"#);
    assert_eq!(p.arrays.len(), 1);
    let a = &p.arrays[0];
    assert_eq!(a.name, "self->a");
    // The hidden thread key, then the user's string key.
    assert_eq!(a.keys.len(), 2);
    assert!(a.keys[0].is_int());
    assert!(a.keys[1].is_str());
    assert!(p.thread_vars.is_empty());
}

#[test]
fn declared_thread_local_assoc_array() {
    let p = ok("self int x[int, int]; self int y; BEGIN { self->x[self->y, 1] = 3; }");
    let a = p
        .arrays
        .iter()
        .find(|a| a.name == "self->x")
        .expect("array");
    assert_eq!(a.keys.len(), 3);
    assert_eq!(int_size(&a.value), Some(4));
    // A second declaration of the same name is a redeclaration.
    let e = run("self int x[int]; self int x[int]; BEGIN { }").unwrap_err();
    assert_eq!(e.tag, Tag::D_DECL_IDRED);
}

#[test]
fn rmw_operators_on_global_array_elements() {
    let p = ok(r#"BEGIN { a[1]++; --a[2]; a[3] *= 4; b["x"] -= 1; }"#);
    assert_eq!(p.arrays.len(), 2);
    // Implicitly declared by the operator: 64-bit values.
    assert_eq!(int_size(&p.arrays[0].value), Some(8));
}

#[test]
fn unassigned_thread_and_clause_variables_read_as_int64() {
    let p = ok("BEGIN /self->last == 0/ { self->last = timestamp; x = this->y; }");
    assert_eq!(p.thread_vars.len(), 1);
    assert_eq!(int_size(&p.thread_vars[0].ty), Some(8));
    assert_eq!(int_size(&p.clause_vars[0].ty), Some(8));
    // A global read before any assignment is still unknown, as in D.
    let e = run("BEGIN { y = x; }").unwrap_err();
    assert_eq!(e.tag, Tag::D_IDENT_UNDEF);
}

#[test]
fn storage_class_without_type_declares_int() {
    let p = ok("self x; this y; BEGIN { self->x = 1; this->y = 2; }");
    assert_eq!(int_size(&p.thread_vars[0].ty), Some(4));
    assert_eq!(int_size(&p.clause_vars[0].ty), Some(4));
    let e = run(r#"self x; BEGIN { self->x = "s"; }"#).unwrap_err();
    assert_eq!(e.tag, Tag::D_OP_INCOMPAT);
    // The global `x` is another variable.
    ok(r#"self x; BEGIN { x = "s"; }"#);
}

#[test]
fn postincrement_of_thread_array_element_yields_old_value() {
    let p = ok(r#"BEGIN { v = self->a["a"]++; }"#);
    let TStmt::Expr(e) = &p.clauses[0].body[0] else {
        panic!("an expression statement")
    };
    let TExprKind::Assign { rhs, .. } = &e.kind else {
        panic!("an assignment")
    };
    assert!(matches!(
        rhs.kind,
        TExprKind::IncDec {
            post: true,
            inc: true,
            ..
        }
    ));
}

#[test]
fn storing_zero_into_dynamic_struct_deletes_it() {
    // Associative-array elements and thread-locals of struct or union type.
    ok("struct s { int a; }; struct s g; BEGIN { a[1] = g; a[1] = 0; }");
    ok("union u { int a; long b; }; self union u v; BEGIN { self->v = 0; }");
    // Not a dynamic variable: the global is not deleted, the store is an error.
    let e = run("struct s { int a; }; struct s g; BEGIN { g = 0; }").unwrap_err();
    assert_eq!(e.tag, Tag::D_OP_INCOMPAT);
    // Only 0 deletes.
    let e = run("struct s { int a; }; struct s g; BEGIN { a[1] = g; a[1] = 1; }").unwrap_err();
    assert_eq!(e.tag, Tag::D_OP_INCOMPAT);
}

#[test]
fn indexing_a_string_yields_char() {
    let p = ok(r#"BEGIN { s = "abc"; c = s[1]; d = execname[0]; }"#);
    let char_size = p.globals.iter().find(|g| g.name == "c").map(|g| g.ty);
    assert_eq!(char_size.as_ref().and_then(int_size), Some(1));
    // One index only, and an integer one.
    let e = run(r#"BEGIN { s = "abc"; c = s[1, 2]; }"#).unwrap_err();
    assert_eq!(e.tag, Tag::D_ARR_BADREF);
    let e = run(r#"BEGIN { s = "abc"; c = s["x"]; }"#).unwrap_err();
    assert_eq!(e.tag, Tag::D_OP_INT);
}

#[test]
fn string_casts_to_char_pointer_and_back() {
    let p = ok(r#"BEGIN { s = "abc"; p = (char *)s; t = (string)p; }"#);
    let ty = |n: &str| p.globals.iter().find(|g| g.name == n).map(|g| g.ty);
    assert!(ty("p").is_some_and(|t| t.is_ptr()));
    assert!(ty("t").is_some_and(|t| t.is_str()));
}

#[test]
fn sizeof_string_constant_counts_the_nul() {
    let p = ok(r#"BEGIN { n = sizeof("hi"); }"#);
    let TStmt::Expr(e) = &p.clauses[0].body[0] else {
        panic!("an expression statement")
    };
    let TExprKind::Assign { rhs, .. } = &e.kind else {
        panic!("an assignment")
    };
    assert!(matches!(rhs.kind, TExprKind::Int(3)));
}

#[test]
fn bit_fields_of_d_variables_are_assignable() {
    let p = ok("struct r { int a : 1; int b : 15; unsigned c : 3; } v; BEGIN { v.a = 1; v.b++; v.c += 2; }");
    let TStmt::Expr(e) = &p.clauses[0].body[0] else {
        panic!("an expression statement")
    };
    let TExprKind::Assign { lv, .. } = &e.kind else {
        panic!("an assignment")
    };
    let dtrace_sema::LValue::Elem { bits: Some(b), .. } = lv else {
        panic!("a bit-field place: {lv:?}")
    };
    assert_eq!((b.shift, b.width), (0, 1));
}

#[test]
fn floating_types_are_declared_sized_and_printed() {
    let p = ok(
        "double d; float f; long double ld; BEGIN { a = sizeof(d); b = sizeof(float); c = sizeof(long double); printf(\"%e %f %g %E %G\", d, f, ld, d, f); }",
    );
    let size = |n: &str| p.globals.iter().find(|g| g.name == n).map(|g| g.ty.size());
    assert_eq!(
        (size("d"), size("f"), size("ld")),
        (Some(8), Some(4), Some(16))
    );
    // Floating conversions take floating values only.
    let e = run("int x; BEGIN { printf(\"%f\", x); }").unwrap_err();
    assert_eq!(e.tag, Tag::D_PRINTF_ARG_TYPE);
    // ... and floating values no integer conversion.
    let e = run("double d; BEGIN { printf(\"%d\", d); }").unwrap_err();
    assert_eq!(e.tag, Tag::D_PRINTF_ARG_TYPE);
}

#[test]
fn array_indexes_are_bounds_checked() {
    // Constant indexes outside a declared array: compile-time errors.
    let e = run("int a[5]; BEGIN { trace(a[5]); }").unwrap_err();
    assert_eq!(e.tag, Tag::D_ARR_BOUNDS);
    assert_eq!(e.message, "index outside array bounds: 5, max is 5");
    let e = run("int a[5]; BEGIN { a[5] = 1; }").unwrap_err();
    assert_eq!(e.tag, Tag::D_ARR_BOUNDS);
    ok("int a[5]; BEGIN { a[4] = 1; trace(a[0]); }");
    // A run-time index is checked when the clause runs.
    let p = ok("int a[5]; BEGIN { i = 2; x = a[i]; }");
    let TStmt::Expr(e) = &p.clauses[0].body[1] else {
        panic!("an expression statement")
    };
    assert!(format!("{e:?}").contains("CheckIndex"));
}

#[test]
fn pointer_variables_take_pointers_and_null_only() {
    let e = run("BEGIN { this->x = curthread; this->x = pid; }").unwrap_err();
    assert_eq!(e.tag, Tag::D_OP_INCOMPAT);
    let e = run("BEGIN { x[1] = curthread; x[2] = pid; }").unwrap_err();
    assert_eq!(e.tag, Tag::D_OP_INCOMPAT);
    ok("BEGIN { p = curthread; p = 0; q = (void *)pid; }");
}

#[test]
fn null_strings_and_string_offsets() {
    // NULL stored in a string, compared with one, or chosen against one is the
    // NULL string; a string plus an integer (either order) offsets it.
    let src = r#"BEGIN { s = "abc"; s = NULL; t = s == NULL; u = timestamp > 0 ? "x" : NULL;
                         trace(s + 1); trace(2 + s); }"#;
    let tp = common::check_with(src, &dtrace_sema::CompileOptions::default())
        .unwrap_or_else(|d| panic!("{d:?}"));
    let mut nulls = 0;
    let mut offsets = 0;
    fn walk(e: &dtrace_sema::TExpr, nulls: &mut u32, offsets: &mut u32) {
        match &e.kind {
            TExprKind::NullStr => *nulls += 1,
            TExprKind::StrOffset { .. } => {
                assert!(e.ty.is_str());
                *offsets += 1;
            }
            _ => {}
        }
        dtrace_sema::visit::each_child(e, &mut |c| walk(c, nulls, offsets));
    }
    for s in &tp.clauses[0].body {
        if let TStmt::Expr(e) | TStmt::Trace { value: e } = s {
            walk(e, &mut nulls, &mut offsets);
        }
    }
    assert_eq!((nulls, offsets), (3, 2));
    // Only `+` offsets a string.
    for bad in [r#"BEGIN { x = "a" - 1; }"#, r#"BEGIN { s = "a"; s += 1; }"#] {
        assert!(common::check_with(bad, &dtrace_sema::CompileOptions::default()).is_err());
    }
}

#[test]
fn struct_inlines_name_variables_of_their_type() {
    let opts = dtrace_sema::CompileOptions::default();
    let ok = "struct r { char c; int i; }; struct r a; inline struct r b = a; \
              BEGIN { trace(b.i); }";
    assert!(common::check_with(ok, &opts).is_ok());
    let bad = "struct r { int i; }; struct s { int i; }; struct s a; inline struct r b = a;";
    let d = common::check_with(bad, &opts)
        .err()
        .map(|d| (d.tag, d.message));
    assert_eq!(
        d,
        Some((
            Tag::D_OP_INCOMPAT,
            "inline b definition uses incompatible types: \"struct r\"".into()
        ))
    );
}

#[test]
fn arithmetic_types_follow_libdtrace() {
    // No promotion to int: the operand type of greater rank (width, then
    // unsignedness); a shift has its left operand's type; several characters
    // too many for an int make a long constant.
    let p = ok("unsigned char C; char c; short s; unsigned int u; \
                BEGIN { a = C + c; b = c + c; d = c << 2; e = s * u; f = 'abcdefgh'; g = 'ab'; }");
    let ty = |n: &str| {
        p.globals
            .iter()
            .find(|g| g.name == n)
            .map(|g| g.ty)
            .unwrap_or_else(|| panic!("no global {n}"))
    };
    let parts = |t: Ty| match t {
        Ty::Int { size, signed, .. } => (size, signed),
        other => panic!("not an integer: {other:?}"),
    };
    assert_eq!(parts(ty("a")), (1, false));
    assert_eq!(parts(ty("b")), (1, true));
    assert_eq!(parts(ty("d")), (1, true));
    assert_eq!(parts(ty("e")), (4, false));
    assert_eq!(parts(ty("f")), (8, true));
    assert_eq!(parts(ty("g")), (4, true));
}
