//! Attach a raw tracepoint on sys_enter, watch it count, detach, watch it stop.
mod common;

use dtrace_sys::{ProgFd, ProgSpec, ProgType};
use std::os::fd::AsRawFd;

#[test]
fn sys_enter_counts_until_the_link_drops() {
    let Some((sys, _)) = common::bpf_or_skip("sys_enter_counts_until_the_link_drops") else {
        return;
    };
    let map = common::counter_map(&sys);
    let insns = common::count_program(map.as_raw_fd());
    let spec = ProgSpec::new(ProgType::RawTracepoint, "dt_test_count", &insns);
    let prog = ProgFd::load(&sys, &spec).unwrap_or_else(|e| panic!("{e}"));
    assert!(prog.id().unwrap() > 0);

    let link = prog.attach_raw_tp("sys_enter").unwrap();
    let before = common::read_counter(&map);
    common::make_syscalls(100);
    let during = common::read_counter(&map);
    assert!(during >= before + 100, "before {before}, after {during}");

    drop(link);
    let stopped = common::read_counter(&map);
    common::make_syscalls(100);
    assert_eq!(
        common::read_counter(&map),
        stopped,
        "still counting after detach"
    );

    assert!(prog.attach_raw_tp("no_such_tracepoint_xyz").is_err());
    assert!(prog.attach_raw_tp("bad\0name").is_err());
}

#[test]
fn raw_tp_cookie_reaches_the_program() {
    use dtrace_bpf::{helper, Insn, Reg, Size};
    let Some((sys, _)) = common::bpf_or_skip("raw_tp_cookie_reaches_the_program") else {
        return;
    };
    let map = common::counter_map(&sys);
    // counter[0] = bpf_get_attach_cookie(ctx)
    let mut insns = vec![
        Insn::call_helper(helper::GET_ATTACH_COOKIE),
        Insn::mov64_reg(Reg::R6, Reg::R0),
        Insn::st_mem(Size::W, Reg::FP, -4, 0),
        Insn::mov64_reg(Reg::R2, Reg::FP),
        Insn::alu64_imm(dtrace_bpf::AluOp::Add, Reg::R2, -4),
    ];
    insns.extend(Insn::ld_map_fd(Reg::R1, map.as_raw_fd()));
    insns.extend([
        Insn::call_helper(helper::MAP_LOOKUP_ELEM),
        Insn::jmp_imm(dtrace_bpf::JmpOp::Eq, Reg::R0, 0, 1),
        Insn::stx_mem(Size::DW, Reg::R0, Reg::R6, 0),
        Insn::mov64_imm(Reg::R0, 0),
        Insn::exit(),
    ]);
    let spec = ProgSpec::new(ProgType::RawTracepoint, "dt_test_cookie", &insns);
    let prog = ProgFd::load(&sys, &spec).unwrap_or_else(|e| panic!("{e}"));
    let link = prog
        .attach_raw_tp_cookie("sys_enter", 0x1234_5678_9abc)
        .unwrap();
    common::make_syscalls(1);
    assert_eq!(common::read_counter(&map), 0x1234_5678_9abc);
    drop(link);
}
