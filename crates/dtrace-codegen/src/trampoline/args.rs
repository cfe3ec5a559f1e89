//! Trampolines whose context is the probe's arguments as an array of u64s:
//! raw tracepoints (`rawtp:<group>::<event>`: the tracepoint's arguments) and
//! fentry/fexit (`fbt` entry and return: the function's arguments, then, for
//! fexit, its return value). `args[i]` is `ctx[i]`; on a return probe, `arg1` is
//! the return value and `arg0` (DTrace's return offset, unknown to fexit) is 0.

use super::{dispatch, epilogue, prologue, zero_args, Dispatch, CTX, DC};
use crate::asm::Asm;
use crate::layout::{self, Layout};
use dtrace_bpf::{Insn, Reg, Size};

/// What the u64s of the context are.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ArgsCtx {
    /// `nargs` arguments, each becoming `args[i]`.
    Entry { nargs: u8 },
    /// `nargs` arguments then the return value, which becomes `arg1`.
    Return { nargs: u8 },
}

pub fn build(l: &Layout, probe_id: u32, index: u32, ctx: ArgsCtx, args: bool, d: &Dispatch) -> Asm {
    let mut a = Asm::new();
    let out = a.label();
    prologue(&mut a, l, out, probe_id, index);
    if args {
        zero_args(&mut a);
        match ctx {
            ArgsCtx::Entry { nargs } => {
                for i in 0..i16::from(nargs.min(10)) {
                    a.emit(Insn::ldx_mem(Size::DW, Reg::R1, CTX, 8 * i));
                    a.emit(Insn::stx_mem(Size::DW, DC, Reg::R1, layout::D_ARGS + 8 * i));
                }
            }
            ArgsCtx::Return { nargs } => {
                a.emit(Insn::ldx_mem(Size::DW, Reg::R1, CTX, 8 * i16::from(nargs)));
                a.emit(Insn::stx_mem(Size::DW, DC, Reg::R1, layout::D_ARGS + 8));
            }
        }
    }
    dispatch(&mut a, d, Some((l, out)));
    epilogue(&mut a, out);
    a.finish()
}
