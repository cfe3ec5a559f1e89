//! BEGIN/END programs run in the kernel with BPF_PROG_TEST_RUN: the verifier must
//! accept them and the records and aggregations must hold the right values.

mod common;

use common::kernel::*;
use common::*;
use dtrace_codegen::desc::{ActionKind, ValueType, EPID_FAULT};
use dtrace_codegen::Attach;

fn run_begin(src: &str) -> Option<(dtrace_codegen::CompiledProgram, Session, Vec<Vec<u8>>)> {
    let sys = gate()?;
    let cp = compile_src(src);
    let mut s = match load(&sys, &cp) {
        Ok(s) => s,
        Err(e) => panic!(
            "load failed for {src}:\n{e}\n{}",
            dtrace_codegen::disassemble(&cp)
        ),
    };
    s.run(Attach::Begin);
    let recs = s.records();
    Some((cp, s, recs))
}

#[test]
fn trace_int_and_default_record() {
    let Some((cp, _s, recs)) = run_begin("BEGIN { trace(1 + 2 * 3); } BEGIN { } BEGIN { x = 1; }")
    else {
        return;
    };
    // The empty clause takes the default action (a record with no data); the
    // assignment-only clause records nothing.
    assert_eq!(recs.len(), 2);
    let e1 = &cp.desc.epids[&1];
    assert_eq!(u32_at(&recs[0], 0), 1);
    assert_eq!(u32_at(&recs[0], 4), 1);
    let f = &e1.actions[0].fields[0];
    assert_eq!(
        f.ty,
        ValueType::Int {
            size: 4,
            signed: true
        }
    );
    assert_eq!(i32_at(&recs[0], f.offset as usize), 7);
    assert_eq!(u32_at(&recs[1], 0), 2);
    assert_eq!(cp.desc.epids[&2].actions.len(), 0);
}

#[test]
fn printf_strings_and_builtins() {
    let src = r#"BEGIN { printf("%s %d %s %d\n", execname, pid, probename, 10 / 3); }"#;
    let Some((cp, _s, recs)) = run_begin(src) else {
        return;
    };
    assert_eq!(recs.len(), 1);
    let a = &cp.desc.epids[&1].actions[0];
    assert!(matches!(&a.kind, ActionKind::Printf { format } if format == "%s %d %s %d\n"));
    let r = &recs[0];
    let comm = std::fs::read_to_string("/proc/thread-self/comm").unwrap_or_default();
    let f = &a.fields;
    assert_eq!(str_at(r, f[0].offset as usize, 16), comm.trim_end());
    assert_eq!(i32_at(r, f[1].offset as usize), std::process::id() as i32);
    assert_eq!(str_at(r, f[2].offset as usize, 8), "BEGIN");
    assert_eq!(i32_at(r, f[3].offset as usize), 3);
}

#[test]
fn integer_semantics() {
    let src = r#"BEGIN {
        trace(-7 / 2); trace(-7 % 2); trace((unsigned int)-1 / 2);
        x = -1; trace(x >> 1); y = 0xffffffffU; trace(y >> 1);
        trace(1 < -1U); trace((char)300); z = 5; z += 3; z *= 2; trace(z++); trace(z);
        trace(1 ? 10 : 20); trace(0 || 2); trace(3 && 0); trace(1 ^^ 1);
    }"#;
    let Some((cp, _s, recs)) = run_begin(src) else {
        return;
    };
    let r = &recs[0];
    let vals: Vec<i64> = cp.desc.epids[&1]
        .actions
        .iter()
        .map(|a| {
            let f = &a.fields[0];
            let o = f.offset as usize;
            match f.ty {
                ValueType::Int { size: 8, .. } => i64_at(r, o),
                ValueType::Int {
                    size: 4,
                    signed: true,
                } => i32_at(r, o) as i64,
                ValueType::Int {
                    size: 4,
                    signed: false,
                } => u32_at(r, o) as i64,
                ValueType::Int {
                    size: 1,
                    signed: true,
                } => r[o] as i8 as i64,
                _ => panic!("unexpected {:?}", f.ty),
            }
        })
        .collect();
    assert_eq!(
        vals,
        vec![
            -3,
            -1,
            0x7fff_ffff,
            -1,
            0x7fff_ffff,
            1,
            44,
            16,
            17,
            10,
            1,
            0,
            0
        ]
    );
}

#[test]
fn strings_compare_and_assign() {
    let src = r#"BEGIN {
        s = "abc"; t = s; trace(t == "abc"); trace(t < "abd"); trace(t > "ab");
        trace("" == s); trace(execname != "x"); u[s] = 3; trace(u["abc"]); trace(u["zz"]);
        self->v = "hello"; trace(self->v); this->q = 2; trace(this->q + 1);
    }"#;
    let Some((cp, _s, recs)) = run_begin(src) else {
        return;
    };
    let r = &recs[0];
    let acts = &cp.desc.epids[&1].actions;
    let int = |i: usize| i32_at(r, acts[i].fields[0].offset as usize);
    assert_eq!([int(0), int(1), int(2), int(3), int(4)], [1, 1, 1, 0, 1]);
    assert_eq!(int(5), 3);
    assert_eq!(int(6), 0);
    let f = &acts[7].fields[0];
    assert_eq!(str_at(r, f.offset as usize, f.ty.size() as usize), "hello");
    assert_eq!(int(8), 3);
}

#[test]
fn divide_by_zero_faults_and_runs_error() {
    let src =
        r#"BEGIN { x = 0; trace(1); trace(5 / x); } ERROR { trace(arg4); } BEGIN { trace(9); }"#;
    let Some((cp, _s, recs)) = run_begin(src) else {
        return;
    };
    // fault record, ERROR clause record, then the next BEGIN clause.
    assert_eq!(recs.len(), 3, "{recs:?}");
    assert_eq!(u32_at(&recs[0], 0), EPID_FAULT);
    assert_eq!(u32_at(&recs[0], 16), 1);
    assert_eq!(u32_at(&recs[0], 24), 4);
    assert_eq!(u32_at(&recs[1], 0), 2);
    let f = &cp.desc.epids[&2].actions[0].fields[0];
    assert_eq!(i64_at(&recs[1], f.offset as usize), 4);
    assert_eq!(u32_at(&recs[2], 0), 3);
}

#[test]
fn exit_sets_draining() {
    let Some((cp, s, recs)) = run_begin("BEGIN { exit(3); }") else {
        return;
    };
    let f = &cp.desc.epids[&1].actions[0].fields[0];
    assert_eq!(i32_at(&recs[0], f.offset as usize), 3);
    let g = s.globals(&cp);
    assert_eq!(i64_at(&g, 0), 2);
}

#[test]
fn aggregations_count_sum_quantize() {
    let src = r#"BEGIN { @c = count(); @c = count(); @s["a", 1] = sum(5); @s["a", 1] = sum(7);
        @q = quantize(0); @q = quantize(1); @q = quantize(5); @q = quantize(-3);
        @l = lquantize(15, 0, 100, 10); @m = max(4); @m = max(-9); @n = min(4); @n = min(-9);
        @a = avg(3); @a = avg(5); @d = stddev(2); @d = stddev(-4);
        @ll = llquantize(150, 10, 0, 3, 10); }"#;
    let Some((cp, s, recs)) = run_begin(src) else {
        return;
    };
    assert!(recs.is_empty(), "aggregation-only clause emits no record");
    let zero = [0u8; 8];
    assert_eq!(s.agg_words(&cp, 0, &zero), Some(vec![2]));
    let sdesc = &cp.desc.aggs[&1];
    let mut key = vec![0u8; sdesc.key_size as usize];
    key[0] = b'a';
    let off = sdesc.keys[1].offset as usize;
    key[off..off + 4].copy_from_slice(&1i32.to_ne_bytes());
    assert_eq!(s.agg_words(&cp, 1, &key), Some(vec![12]));
    let q = s.agg_words(&cp, 2, &zero).unwrap();
    assert_eq!((q[63], q[64], q[66], q[61]), (1, 1, 1, 1));
    let l = s.agg_words(&cp, 3, &zero).unwrap();
    assert_eq!(l[2], 1);
    assert_eq!(s.agg_words(&cp, 4, &zero).unwrap()[1], 4);
    assert_eq!(s.agg_words(&cp, 5, &zero).unwrap()[1], -9);
    assert_eq!(s.agg_words(&cp, 6, &zero), Some(vec![2, 8]));
    assert_eq!(s.agg_words(&cp, 7, &zero), Some(vec![2, -2, 20, 0]));
    let ll = s.agg_words(&cp, 8, &zero).unwrap();
    let i = dtrace_codegen::desc::llquantize_bucket(10, 0, 3, 10, 150);
    assert_eq!(ll[i], 1);
}
