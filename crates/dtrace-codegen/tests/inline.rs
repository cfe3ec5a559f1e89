//! A probe's only clause runs in line in its trampoline (no bpf-to-bpf call,
//! no second JIT image for the clause); two clauses are still two calls. The
//! kernel tests (root) run an inlined clause's predicate and its fault path.

mod common;

use common::kernel::*;
use common::*;
use dtrace_bpf::Insn;
use dtrace_codegen::{Attach, BpfProgram, CompiledProgram};

/// `call` to a local function (`BPF_PSEUDO_CALL`).
fn is_local_call(i: &Insn) -> bool {
    i.code == Insn::call_local(0).code && i.src == Insn::call_local(0).src
}

/// The targets of the program's local calls, in code order.
fn call_targets(p: &BpfProgram) -> Vec<usize> {
    p.insns
        .iter()
        .enumerate()
        .filter(|(_, i)| is_local_call(i))
        .map(|(at, i)| (at as i64 + 1 + i64::from(i.imm)) as usize)
        .collect()
}

/// Where the main function (the trampoline) ends: at the first function a
/// call goes to.
fn main_end(p: &BpfProgram) -> usize {
    call_targets(p).into_iter().min().unwrap_or(p.insns.len())
}

fn program(cp: &CompiledProgram, a: Attach) -> &BpfProgram {
    prog_for(cp, a).expect("the program")
}

/// The clause ranges of a program that lie in its main function.
fn inlined(p: &BpfProgram) -> Vec<u32> {
    let end = main_end(p);
    p.clause_ranges
        .iter()
        .filter(|(r, _, _)| r.end <= end)
        .map(|(_, c, _)| *c)
        .collect()
}

#[test]
fn a_probes_only_clause_is_in_its_trampoline() {
    let end = Attach::RawTracepoint("contention_end".into());
    let cp = compile_src("lockstat:::adaptive-block { @ = count(); }");
    let p = program(&cp, end);
    assert_eq!(inlined(p), vec![0]);
    // The one call left is the ERROR subprogram's, after a fault.
    assert_eq!(call_targets(p).len(), 1);
    // Every kind of trampoline shares it: a tick, a syscall.
    let cp = compile_src("profile:::tick-1s { trace(1); } syscall::read:entry { trace(arg0); }");
    for p in &cp.programs {
        assert_eq!(inlined(p), vec![p.clause_ranges[0].1], "{}", p.name);
    }
}

#[test]
fn two_clauses_or_begin_are_still_called() {
    let end = Attach::RawTracepoint("contention_end".into());
    let cp = compile_src(
        "lockstat:::adaptive-block { @ = count(); } lockstat:::adaptive-block { @b = count(); }",
    );
    let p = program(&cp, end);
    assert!(inlined(p).is_empty());
    // Each clause, and the ERROR subprogram after each.
    assert_eq!(call_targets(p).len(), 4);
    // BEGIN's trampoline goes on after its clauses (the record budget).
    let cp = compile_src("BEGIN { trace(1); }");
    assert!(inlined(program(&cp, Attach::Begin)).is_empty());
    // One clause serving two raw-SDT probes of one tracepoint has two call
    // sites: called, not copied.
    let cp = compile_src("lockstat:::adaptive-block, lockstat:::spin-spin { @ = count(); }");
    let p = program(&cp, Attach::RawTracepoint("contention_end".into()));
    assert!(inlined(p).is_empty());
}

#[test]
fn an_inlined_clause_in_the_kernel() {
    let Some(sys) = gate() else { return };
    let begin = Attach::RawTracepoint("contention_begin".into());
    let end = Attach::RawTracepoint("contention_end".into());
    // A predicate: only the lock at 0x1000 counts.
    let cp = compile_src("lockstat:::adaptive-block /arg0 == 0x1000/ { @ = count(); }");
    assert_eq!(inlined(program(&cp, end.clone())), vec![0]);
    let s = load_or_panic(&sys, &cp);
    for lock in [0x1000, 0x2000, 0x1000] {
        s.run_args(&begin, &[lock, 32]);
        s.run_args(&end, &[lock, 0]);
    }
    assert_eq!(s.agg_words(&cp, 0, &[]), Some(vec![2]));
    // A fault: the clause's record is discarded; the ERROR subprogram writes
    // its fault record (epid -1), then runs the ERROR clause; every time.
    let cp = compile_src(
        "lockstat:::adaptive-block { trace(1); trace(*(int *)0); } ERROR { trace(arg4); }",
    );
    assert_eq!(inlined(program(&cp, end.clone())), vec![0]);
    let mut s = load_or_panic(&sys, &cp);
    for _ in 0..2 {
        s.run_args(&begin, &[0x1000, 32]);
        s.run_args(&end, &[0x1000, 0]);
    }
    let epids: Vec<u32> = s.records().iter().map(|r| u32_at(r, 0)).collect();
    assert_eq!(epids, vec![u32::MAX, 2, u32::MAX, 2]);
}
