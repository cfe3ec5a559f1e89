//! The typed core: D declarations laid out by C's rules, sizeof/offsetof,
//! inlines, enums, pointers and kernel types from BTF (when the kernel has it).

use dtrace_ctypes::TypeTable;
use dtrace_sema::{check, check_with, CompileOptions, ProbeInfo, ProbeKind, TExprKind, TStmt};
use dtrace_syntax::ast::Item;
use dtrace_syntax::{parse, Diagnostic, ParseOptions, SourceKind, SourceMap, Tag};
use std::collections::HashMap;

fn begin() -> ProbeInfo {
    ProbeInfo {
        id: 1,
        provider: "dtrace".into(),
        module: Default::default(),
        function: Default::default(),
        name: "BEGIN".into(),
        kind: ProbeKind::Begin,
        args: dtrace_sema::ArgDesc::natives(&["struct rec *", "unsigned short"]),
        fields: Vec::new(),
    }
}

fn run_in(t: &mut TypeTable, src: &str) -> Result<dtrace_sema::TypedProgram, Diagnostic> {
    let mut map = SourceMap::new();
    let id = map.add(SourceKind::ProbeSpecifier, src.to_string());
    let args: Vec<String> = Vec::new();
    let vars: HashMap<String, String> = HashMap::new();
    let is_type = |_: &str| false;
    let opts = ParseOptions {
        macro_args: &args,
        macro_vars: &vars,
        defaultargs: false,
        is_type_name: &is_type,
        is_d_identifier: &dtrace_sema::is_d_identifier,
        pspec: false,
    };
    let prog = parse(&map, id, &opts)?;
    let n = prog
        .items
        .iter()
        .filter(|i| matches!(i, Item::Clause(_)))
        .count();
    let probes = vec![vec![begin()]; n];
    check(&prog, &probes, t, &CompileOptions::default())
}

fn run(src: &str) -> Result<dtrace_sema::TypedProgram, Diagnostic> {
    run_in(&mut TypeTable::with_builtins(), src)
}

fn err(src: &str) -> (Tag, String) {
    match run(src) {
        Ok(_) => panic!("expected an error: {src}"),
        Err(d) => (d.tag, d.message),
    }
}

/// The constant values traced by the first clause.
fn traced(src: &str) -> Vec<i64> {
    let tp = run(src).unwrap_or_else(|d| panic!("{src}: {d:?}"));
    let mut out = Vec::new();
    for s in &tp.clauses[0].body {
        if let TStmt::Trace { value } = s {
            match value.kind {
                TExprKind::Int(v) => out.push(v),
                ref k => panic!("not constant: {k:?}"),
            }
        }
    }
    out
}

const REC: &str = "struct rec { char c; int i; short s; long l; char name[5]; \
                   unsigned int a : 3, b : 7; struct rec *next; };";

#[test]
fn struct_layout_follows_dtrace() {
    // Offsets by DTrace's rules (as a C compiler would here, but bit-fields take
    // bytes of their own and nothing pads the end): see tests/e2e/scripts/decls.d.
    let src = format!(
        "{REC} BEGIN {{ trace(sizeof (struct rec)); trace(offsetof(struct rec, i)); \
         trace(offsetof(struct rec, s)); trace(offsetof(struct rec, l)); \
         trace(offsetof(struct rec, name)); trace(offsetof(struct rec, next)); \
         trace(sizeof (struct rec *)); trace(sizeof (char [7])); }}"
    );
    assert_eq!(traced(&src), vec![40, 4, 8, 16, 24, 32, 8, 7]);
    let u = "union u { char c[3]; int i; short s; }; struct p { char a; union u x; char b; }; \
             BEGIN { trace(sizeof (union u)); trace(sizeof (struct p)); trace(offsetof(struct p, b)); }";
    // A struct ends with its last member: 4 + 4 + 1, no tail padding.
    assert_eq!(traced(u), vec![4, 9, 8]);
}

#[test]
fn typedefs_enums_inlines() {
    let src = "typedef unsigned short port_t; typedef struct two { int a, b; } two_t; \
               enum color { RED, GREEN = 5, BLUE }; inline int SIX = 3 * 2; \
               inline long BIG = SIX * 1000000000L; \
               BEGIN { trace(sizeof (port_t)); trace(sizeof (two_t)); trace(RED); trace(GREEN); \
               trace(BLUE); trace(SIX); trace(BIG); trace((port_t)70000); trace(sizeof (enum color)); }";
    assert_eq!(
        traced(src),
        vec![2, 8, 0, 5, 6, 6, 6_000_000_000, 70000 - 65536, 4]
    );
    // An inline is usable wherever a constant is.
    assert!(run("inline int N = 4; BEGIN { @ = lquantize(1, 0, N * 2, N); }").is_ok());
}

#[test]
fn declared_variables() {
    let tp = run("int x; self long y; this string s; int a[string, int]; \
         BEGIN { x = 1; self->y = 2; this->s = \"v\"; a[\"k\", 1] = 3; }")
    .unwrap();
    assert_eq!(tp.globals[0].ty.size(), 4);
    assert_eq!(tp.thread_vars[0].ty.size(), 8);
    assert!(tp.clause_vars[0].ty.is_str());
    assert_eq!(tp.arrays[0].keys.len(), 2);
    assert!(tp.arrays[0].keys[0].is_str());
    assert_eq!(err("int x; BEGIN { x = \"s\"; }").0, Tag::D_OP_INCOMPAT);
    assert_eq!(err("int x; int x; BEGIN { }").0, Tag::D_DECL_IDRED);
    assert_eq!(err("void v; BEGIN { }").0, Tag::D_DECL_VOIDOBJ);
}

#[test]
fn definitions_survive_a_second_check() {
    // The facade checks a program again before code generation, in the same table.
    let mut t = TypeTable::with_builtins();
    let src = format!(
        "{REC} enum e {{ A, B }}; typedef int myint; BEGIN {{ trace(sizeof (struct rec)); }}"
    );
    assert!(run_in(&mut t, &src).is_ok());
    assert!(run_in(&mut t, &src).is_ok());
    let other = "struct rec { int only; }; BEGIN { }";
    assert_eq!(
        run_in(&mut t, other).map(|_| ()).unwrap_err().tag,
        Tag::D_DECL_TYPERED
    );
}

#[test]
fn pointer_typing() {
    let src = format!(
        "{REC} BEGIN {{ p = (struct rec *)0; trace(sizeof (p->name)); trace(sizeof (*p)); \
         trace(sizeof (p->next->l)); trace(sizeof (p + 1)); }}"
    );
    assert_eq!(traced(&src), vec![5, 40, 8, 8]);
    // args[] takes the probe's declared argument types.
    let src = format!("{REC} BEGIN {{ trace(sizeof (args[0]->l)); trace(sizeof (args[1])); }}");
    assert_eq!(traced(&src), vec![8, 2]);
    // Pointer arithmetic scales; constant addresses fold.
    assert_eq!(
        traced("BEGIN { trace((long)((int *)16 + 2)); trace((long *)64 - (long *)32); }"),
        vec![24, 4]
    );
}

#[test]
fn pointer_errors() {
    let (tag, msg) = err(&format!(
        "{REC} BEGIN {{ p = (struct rec *)0; trace(p->nope); }}"
    ));
    assert_eq!(tag, Tag::D_TYPE_MEMBER);
    assert_eq!(msg, "nope is not a member of struct rec");
    assert_eq!(err("BEGIN { x = 1; trace(*x); }").0, Tag::D_DEREF_NONPTR);
    assert_eq!(err("BEGIN { trace(*(void *)0); }").0, Tag::D_DEREF_VOID);
    assert_eq!(
        // Stores through pointers are checked at run time (only scratch memory is
        // writable); a bit-field member is no place at all.
        err(&format!("{REC} BEGIN {{ p = (struct rec *)0; p->a = 1; }}")),
        (
            Tag::D_OP_WRITE,
            "operator = can only be applied to a writable variable".into()
        )
    );
    assert_eq!(
        err(&format!("{REC} BEGIN {{ x = 1; trace(x->i); }}")).0,
        Tag::D_OP_PTR
    );
    assert_eq!(
        err(&format!("{REC} BEGIN {{ trace((struct rec)1); }}")).0,
        Tag::D_CAST_INVAL
    );
    assert_eq!(err("BEGIN { trace((enum nope)0); }").0, Tag::D_UNKNOWN);
    assert_eq!(
        err("struct nope; BEGIN { trace(((struct nope *)0)->x); }").0,
        Tag::D_OP_INCOMPLETE
    );
    assert_eq!(err("BEGIN { x = 1; trace(&x); }").0, Tag::D_ADDROF_VAR);
    assert_eq!(
        err("BEGIN { trace((int *)0 + (int *)0); }").0,
        Tag::D_OP_INCOMPAT
    );
    assert_eq!(
        err(&format!(
            "{REC} BEGIN {{ trace(sizeof (((struct rec *)0)->a)); }}"
        ))
        .0,
        Tag::D_SIZEOF_BITFIELD
    );
    assert_eq!(
        err(&format!(
            "{REC} BEGIN {{ trace(offsetof(struct rec, b)); }}"
        ))
        .0,
        Tag::D_OFFSETOF_BITFIELD
    );
    assert_eq!(err("BEGIN { trace(args[12]); }").0, Tag::D_ARGS_IDX);
    assert_eq!(
        err("BEGIN { trace(stringof(curthread) - 1); }").0,
        Tag::D_OP_ARITH
    );
}

#[test]
fn kernel_types_from_btf() {
    let mut t = TypeTable::with_builtins();
    if t.load_kernel_btf().is_err() {
        eprintln!("no kernel BTF: skipped");
        return;
    }
    let Some(ts) = t.lookup_scoped(None, "struct task_struct") else {
        return;
    };
    let size = t.size_of(ts, 256) as i64;
    let pid = dtrace_ctypes::offset_of_path(&mut t, "struct task_struct", &["pid"])
        .map(|m| (m.bit_offset / 8) as i64)
        .unwrap_or(-1);
    let src =
        "BEGIN { trace(sizeof (struct task_struct)); trace(sizeof (struct vmlinux`task_struct)); \
               trace(offsetof(struct task_struct, pid)); trace(sizeof (curthread->comm)); \
               trace(sizeof (curthread->real_parent->tgid)); }";
    let tp = run_in(&mut t, src).unwrap_or_else(|d| panic!("{d:?}"));
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
    assert_eq!(vals, vec![size, size, pid, 16, 4]);
    // A kernel symbol needs an address from the symbol source.
    let mut map = SourceMap::new();
    let id = map.add(
        SourceKind::ProbeSpecifier,
        "BEGIN { trace(&`_stext); }".into(),
    );
    let is_type = |_: &str| false;
    let (a, v) = (Vec::new(), HashMap::new());
    let opts = ParseOptions {
        macro_args: &a,
        macro_vars: &v,
        defaultargs: false,
        is_type_name: &is_type,
        is_d_identifier: &dtrace_sema::is_d_identifier,
        pspec: false,
    };
    let prog = parse(&map, id, &opts).unwrap();
    let syms = |_: Option<&str>, n: &str| (n == "_stext").then_some(0xffff_ffff_8100_0000u64);
    let tp = check_with(
        &prog,
        &[vec![begin()]],
        &mut t,
        &CompileOptions::default(),
        &syms,
    )
    .unwrap();
    match &tp.clauses[0].body[0] {
        TStmt::Trace { value } => {
            assert_eq!(value.kind, TExprKind::Int(0xffff_ffff_8100_0000u64 as i64))
        }
        s => panic!("{s:?}"),
    }
    let e = check(&prog, &[vec![begin()]], &mut t, &CompileOptions::default()).unwrap_err();
    assert_eq!(e.tag, Tag::D_IDENT_UNDEF);
}
