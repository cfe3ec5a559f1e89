//! BEGIN and END trampolines (raw-tracepoint programs run with BPF_PROG_TEST_RUN).
//! BEGIN runs only while the session is ACTIVE; END runs in any state.

use super::{dctx_lookup, dispatch, epilogue, set_probe, state_check, zero_args, Dispatch, CTX};
use crate::asm::Asm;
use crate::layout::Layout;
use dtrace_bpf::{Insn, Reg};

pub fn build(l: &Layout, is_end: bool, probe_id: u32, index: u32, args: bool, d: &Dispatch) -> Asm {
    let mut a = Asm::new();
    let out = a.label();
    a.emit(Insn::mov64_reg(CTX, Reg::R1));
    if !is_end {
        state_check(&mut a, l, out);
    }
    dctx_lookup(&mut a, l, out);
    set_probe(&mut a, probe_id, index);
    if args {
        zero_args(&mut a);
    }
    dispatch(&mut a, d, (!is_end).then_some((l, out)));
    epilogue(&mut a, out);
    a.finish()
}
