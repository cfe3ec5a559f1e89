//! kprobe/kretprobe trampolines (`fbt` where the kernel has kprobes but refuses
//! fentry): the context is the `struct pt_regs` at the probed instruction.
//! Entry: `args[0..6]` are the x86_64 argument registers (di, si, dx, cx, r8,
//! r9). Return: `arg1` is the return value (ax); `arg0`, DTrace's offset of
//! the returning instruction, is not known to a kretprobe and is 0.

use super::{dispatch, epilogue, prologue, zero_args, Dispatch, CTX, DC};
use crate::asm::Asm;
use crate::layout::{self, Layout};
use dtrace_bpf::{Insn, Reg, Size};

/// x86_64 `struct pt_regs` offsets of the argument registers, in order.
pub const PT_ARGS: [i16; 6] = [112, 104, 96, 88, 72, 64];
/// x86_64 `struct pt_regs` offset of ax (the return value).
pub const PT_AX: i16 = 80;

pub fn build(l: &Layout, probe_id: u32, index: u32, ret: bool, args: bool, d: &Dispatch) -> Asm {
    let mut a = Asm::new();
    let out = a.label();
    prologue(&mut a, l, out, probe_id, index);
    if args {
        zero_args(&mut a);
        if ret {
            a.emit(Insn::ldx_mem(Size::DW, Reg::R1, CTX, PT_AX));
            a.emit(Insn::stx_mem(Size::DW, DC, Reg::R1, layout::D_ARGS + 8));
        } else {
            super::copy_args(&mut a, CTX, &PT_ARGS);
        }
    }
    dispatch(&mut a, d, Some((l, out)));
    epilogue(&mut a, out);
    a.finish()
}
