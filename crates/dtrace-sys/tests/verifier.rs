//! Verifier rejections come back with the log; features probe sensibly.
mod common;

use dtrace_bpf::{Insn, Reg, Size};
use dtrace_sys::{Errno, ProgError, ProgFd, ProgSpec, ProgType};

#[test]
fn rejection_carries_the_verifier_log() {
    let Some((sys, _)) = common::bpf_or_skip("rejection_carries_the_verifier_log") else {
        return;
    };
    // r0 is never set.
    let insns = [Insn::exit()];
    let spec = ProgSpec::new(ProgType::RawTracepoint, "dt_test_bad", &insns);
    let err = ProgFd::load(&sys, &spec).err();
    let Some(ProgError::Load { errno, log, .. }) = &err else {
        panic!("expected a load error, got {err:?}");
    };
    assert_eq!(*errno, Errno(libc::EACCES));
    assert!(log.contains("R0 !read_ok"), "log: {log}");
    assert!(err
        .map(|e| e.to_string())
        .unwrap_or_default()
        .contains("verifier log"));

    // Reading through an uninitialised register.
    let insns = [Insn::ldx_mem(Size::DW, Reg::R0, Reg::R3, 0), Insn::exit()];
    let spec = ProgSpec::new(ProgType::RawTracepoint, "dt_test_bad2", &insns);
    let log = ProgFd::load(&sys, &spec)
        .err()
        .and_then(|e| e.verifier_log().map(str::to_string))
        .unwrap_or_default();
    assert!(log.contains("R3 !read_ok"), "log: {log}");
}

#[test]
fn test_run_returns_r0() {
    let Some((sys, _)) = common::bpf_or_skip("test_run_returns_r0") else {
        return;
    };
    let insns = [Insn::ldx_mem(Size::DW, Reg::R0, Reg::R1, 8), Insn::exit()];
    let spec = ProgSpec::new(ProgType::RawTracepoint, "dt_test_ret", &insns);
    let prog = ProgFd::load(&sys, &spec).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(prog.test_run_raw_tp(&[1, 1234], None).unwrap(), 1234);
    assert!(matches!(
        prog.test_run_raw_tp(&[0; 13], None),
        Err(ProgError::TooManyArgs(13))
    ));
}

#[test]
fn features_match_this_machine_kind() {
    let Some((_, f)) = common::bpf_or_skip("features_match_this_machine_kind") else {
        return;
    };
    eprintln!("{f:#?}");
    assert!(f.raw_tp && f.ringbuf && f.perf_event_prog && f.tracepoint_prog);
    assert!(f.bpf_loop && f.strncmp && f.probe_read_kernel && f.get_attach_cookie);
    assert!(f.raw_tp_cookie && f.btf && f.uprobe_pmu);
    assert!(f.possible_cpus >= 1);
    assert_eq!(f.unusable(), None);
}

#[test]
fn subprograms_and_bpf_loop_callbacks_run() {
    use dtrace_bpf::{helper, AluOp};
    let Some((sys, _)) = common::bpf_or_skip("subprograms_and_bpf_loop_callbacks_run") else {
        return;
    };
    // A bpf-to-bpf call: return double(21).
    let insns = [
        Insn::mov64_imm(Reg::R1, 21),
        Insn::call_local(1),
        Insn::exit(),
        Insn::mov64_reg(Reg::R0, Reg::R1),
        Insn::alu64_imm(AluOp::Mul, Reg::R0, 2),
        Insn::exit(),
    ];
    let spec = ProgSpec::new(ProgType::RawTracepoint, "dt_test_call", &insns);
    let prog = ProgFd::load(&sys, &spec).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(prog.test_run_raw_tp(&[], None).unwrap(), 42);

    // bpf_loop(5, cb, &sum, 0) with cb adding each index to sum: returns 0+1+2+3+4.
    let mut insns = vec![Insn::mov64_imm(Reg::R1, 5)];
    insns.extend(Insn::ld_func(Reg::R2, 8));
    insns.extend([
        Insn::st_mem(Size::DW, Reg::FP, -8, 0),
        Insn::mov64_reg(Reg::R3, Reg::FP),
        Insn::alu64_imm(AluOp::Add, Reg::R3, -8),
        Insn::mov64_imm(Reg::R4, 0),
        Insn::call_helper(helper::LOOP),
        Insn::ldx_mem(Size::DW, Reg::R0, Reg::FP, -8),
        Insn::exit(),
        // callback(index, ctx) at 10
        Insn::ldx_mem(Size::DW, Reg::R3, Reg::R2, 0),
        Insn::alu64_reg(AluOp::Add, Reg::R3, Reg::R1),
        Insn::stx_mem(Size::DW, Reg::R2, Reg::R3, 0),
        Insn::mov64_imm(Reg::R0, 0),
        Insn::exit(),
    ]);
    let spec = ProgSpec::new(ProgType::RawTracepoint, "dt_test_loop", &insns);
    let prog = ProgFd::load(&sys, &spec).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(prog.test_run_raw_tp(&[], None).unwrap(), 10);
}
