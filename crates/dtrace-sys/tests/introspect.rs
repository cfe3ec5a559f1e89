//! Feature probing by errno, and listing loaded programs: a program we load is
//! listed with its name and instructions, and is gone once its fd is closed.
mod common;

use dtrace_bpf::{helper, Insn, Reg};
use dtrace_sys::{introspect, ProgFd, ProgSpec, ProgType};

#[test]
fn helper_probes_answer_from_the_errno() {
    let Some((sys, features)) = common::bpf_or_skip("helper_probes_answer_from_the_errno") else {
        return;
    };
    // Ring buffers (a hard requirement) came after probe_read_kernel (5.5).
    assert!(features.probe_read_kernel, "{features:?}");
    // A helper called with unset arguments fails the argument checks: EACCES.
    let call = |id: i32| {
        let insns = [
            Insn::call_helper(id),
            Insn::mov64_imm(Reg::R0, 0),
            Insn::exit(),
        ];
        let spec = ProgSpec::new(ProgType::RawTracepoint, "dt_test_helper", &insns);
        ProgFd::load_errno(&sys, &spec).err().map(|e| e.0)
    };
    assert_eq!(call(helper::PROBE_READ_KERNEL), Some(libc::EACCES));
    // A helper id no kernel has: EINVAL ("invalid func").
    assert_eq!(call(100_000), Some(libc::EINVAL));
}

#[test]
fn loaded_programs_are_listed_until_closed() {
    let Some((sys, _)) = common::bpf_or_skip("loaded_programs_are_listed_until_closed") else {
        return;
    };
    let marker = 0x3cab_1e00 ^ (std::process::id() as i32 & 0xff);
    let insns = [
        Insn::mov64_imm(Reg::R0, marker),
        Insn::mov64_imm(Reg::R0, 0),
        Insn::exit(),
    ];
    let spec = ProgSpec::new(ProgType::RawTracepoint, "dt_test_listed", &insns);
    let prog = ProgFd::load(&sys, &spec).unwrap_or_else(|e| panic!("{e}"));
    let id = prog.id().unwrap_or_else(|e| panic!("{e}"));
    assert!(introspect::prog_ids(&sys).unwrap_or_default().contains(&id));
    let info = introspect::prog_info(&sys, id).unwrap_or_else(|e| panic!("{e}"));
    let info = info.unwrap_or_else(|| panic!("program {id} not found"));
    assert_eq!(info.name, "dt_test_listed");
    assert!(info.is_dtrace());
    let code = introspect::prog_insns(&sys, id).unwrap_or_else(|e| panic!("{e}"));
    let code = code.unwrap_or_default();
    assert!(
        code.iter().any(|i| introspect::insn_imm(i) == marker),
        "the marker is in the translated instructions"
    );
    drop(prog);
    assert_eq!(introspect::prog_info(&sys, id).ok().flatten(), None);
}
