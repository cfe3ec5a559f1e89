//! BEGIN and END trampolines (raw-tracepoint programs run with BPF_PROG_TEST_RUN).
//! BEGIN runs only while the session is ACTIVE; END runs in any state. Both
//! give their clauses one CPU's principal buffer (`D_BUDGET`).

use super::{dctx_lookup, dispatch, epilogue, set_probe, state_check, zero_args, Dispatch, CTX};
use crate::asm::Asm;
use crate::layout::{self, Layout};
use dtrace_bpf::{Insn, Reg, Size};

pub fn build(l: &Layout, is_end: bool, probe_id: u32, index: u32, args: bool, d: &Dispatch) -> Asm {
    let mut a = Asm::new();
    let out = a.label();
    a.emit(Insn::mov64_reg(CTX, Reg::R1));
    if !is_end {
        state_check(&mut a, l, out);
    }
    dctx_lookup(&mut a, l, out);
    set_probe(&mut a, probe_id, index);
    a.mov_imm(Reg::R1, i64::from(l.principal_size) + 1);
    a.emit(Insn::stx_mem(
        Size::DW,
        super::DC,
        Reg::R1,
        layout::D_BUDGET,
    ));
    if args {
        zero_args(&mut a);
    }
    dispatch(&mut a, d, (!is_end).then_some((l, out)));
    a.emit(Insn::st_mem(Size::DW, super::DC, layout::D_BUDGET, 0));
    epilogue(&mut a, out);
    a.finish()
}
