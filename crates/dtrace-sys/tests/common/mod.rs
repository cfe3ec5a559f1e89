//! Shared helpers for the real-kernel tests.
#![allow(dead_code)]

use dtrace_bpf::{helper, AluOp, Insn, JmpOp, Reg, Size};
use dtrace_sys::{kernel, test_gate, Features, MapFd, MapSpec, MapType, SysRef, TestGate};

/// The one gate for every real-kernel test: `Some` when eBPF works here; `None`
/// (after printing why) when it does not; a test failure instead of a skip when
/// `DTRACE_REQUIRE_BPF=1`.
pub fn bpf_or_skip(test: &str) -> Option<(SysRef, Features)> {
    let sys = kernel();
    let features = Features::probe(&sys);
    let require = std::env::var("DTRACE_REQUIRE_BPF").is_ok_and(|v| v == "1");
    match test_gate(&features, require) {
        TestGate::Run => Some((sys, features)),
        TestGate::Skip(why) => {
            eprintln!("SKIP {test}: {why}");
            None
        }
        TestGate::Fail(why) => panic!("{test}: DTRACE_REQUIRE_BPF=1 but {why}"),
    }
}

/// A one-element u64 array used as a counter.
pub fn counter_map(sys: &SysRef) -> MapFd {
    let spec = MapSpec {
        name: "dt_test_count".into(),
        map_type: MapType::Array,
        key_size: 4,
        value_size: 8,
        max_entries: 1,
        flags: 0,
    };
    match MapFd::create(sys, &spec) {
        Ok(m) => m,
        Err(e) => panic!("create counter map: {e}"),
    }
}

pub fn read_counter(map: &MapFd) -> u64 {
    match map.lookup(&0u32.to_ne_bytes()) {
        Ok(Some(v)) => u64::from_ne_bytes(v[..8].try_into().unwrap_or([0; 8])),
        other => panic!("counter lookup: {other:?}"),
    }
}

/// `counter[0] += 1; return 0` — valid for any program type.
pub fn count_program(map_fd: i32) -> Vec<Insn> {
    let mut p = vec![
        Insn::st_mem(Size::W, Reg::FP, -4, 0),
        Insn::mov64_reg(Reg::R2, Reg::FP),
        Insn::alu64_imm(AluOp::Add, Reg::R2, -4),
    ];
    p.extend(Insn::ld_map_fd(Reg::R1, map_fd));
    p.extend([
        Insn::call_helper(helper::MAP_LOOKUP_ELEM),
        Insn::jmp_imm(JmpOp::Eq, Reg::R0, 0, 2),
        Insn::mov64_imm(Reg::R1, 1),
        Insn::atomic_add(Size::DW, Reg::R0, Reg::R1, 0),
        Insn::mov64_imm(Reg::R0, 0),
        Insn::exit(),
    ]);
    p
}

/// Some cheap syscalls.
pub fn make_syscalls(n: usize) {
    for _ in 0..n {
        // SAFETY: getppid has no preconditions.
        unsafe { libc::getppid() };
    }
}
