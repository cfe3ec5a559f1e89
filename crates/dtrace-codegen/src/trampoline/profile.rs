//! profile-N / tick-N trampolines (perf-event programs on a cpu-clock event).
//! arg0 is the kernel PC (0 in user mode), arg1 the user PC (0 in kernel mode),
//! from the sample's pt_regs (x86_64: ip at 128, cs at 136).

use super::{dispatch, epilogue, prologue, zero_args, Dispatch, CTX, DC};
use crate::asm::Asm;
use crate::layout::{self, Layout};
use dtrace_bpf::{AluOp, Insn, JmpOp, Reg, Size};

const PT_REGS_IP: i16 = 128;
const PT_REGS_CS: i16 = 136;

pub fn build(l: &Layout, probe_id: u32, index: u32, args: bool, d: &Dispatch) -> Asm {
    let mut a = Asm::new();
    let out = a.label();
    prologue(&mut a, l, out, probe_id, index);
    if args {
        zero_args(&mut a);
        let user = a.label();
        let done = a.label();
        a.emit(Insn::ldx_mem(Size::DW, Reg::R1, CTX, PT_REGS_IP));
        a.emit(Insn::ldx_mem(Size::DW, Reg::R2, CTX, PT_REGS_CS));
        a.emit(Insn::alu64_imm(AluOp::And, Reg::R2, 3));
        a.jmp_imm(JmpOp::Ne, Reg::R2, 0, user);
        a.emit(Insn::stx_mem(Size::DW, DC, Reg::R1, layout::D_ARGS));
        a.ja(done);
        a.bind(user);
        a.emit(Insn::stx_mem(Size::DW, DC, Reg::R1, layout::D_ARGS + 8));
        a.bind(done);
    }
    dispatch(&mut a, d, Some((l, out)));
    epilogue(&mut a, out);
    a.finish()
}
