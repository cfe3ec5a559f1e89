//! Raw-tracepoint `sys_enter` / `sys_exit` trampolines. The syscall number indexes a
//! read-only table giving the probe id (0: not traced), its probe-name index and a
//! mask of the clauses to run, so an untraced syscall costs a load and a compare.
//!
//! sys_enter ctx: args[0] = struct pt_regs *, args[1] = syscall nr.
//! sys_exit ctx: args[0] = struct pt_regs *, args[1] = return value; the nr is
//! regs->orig_ax. Arguments come from pt_regs (x86_64: di, si, dx, r10, r8, r9).
//!
//! The same trampoline serves the per-syscall perf tracepoints
//! (`syscalls:sys_enter_<name>`, [`SysCtx::Tracepoint`]), attached to each of a
//! few enabled syscalls: their record holds the nr (int at 8), then the six
//! arguments (u64s from 16) or the return value (long at 16).

use super::{cpu_check, dispatch, epilogue, state_check, table_prologue, Dispatch, CTX, DC};
use crate::asm::Asm;
use crate::layout::{self, Layout};
use dtrace_bpf::{helper, AluOp, Insn, JmpOp, Reg, Size};

/// x86_64 `struct pt_regs` offsets.
const PT_R10: i16 = 56;
const PT_R9: i16 = 64;
const PT_R8: i16 = 72;
const PT_DX: i16 = 96;
const PT_SI: i16 = 104;
const PT_DI: i16 = 112;
const PT_ORIG_AX: i32 = 120;

/// The context a syscall trampoline runs in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SysCtx {
    /// Raw tracepoints `sys_enter`/`sys_exit` (every syscall).
    Raw,
    /// The perf tracepoints `syscalls:sys_enter_<name>`/`sys_exit_<name>`.
    Tracepoint,
}

/// Record offsets of the per-syscall tracepoints.
const TP_NR: i16 = 8;
const TP_ARGS: i16 = 16;

pub fn build(
    l: &Layout,
    exit: bool,
    ctx: SysCtx,
    table: usize,
    nr_max: u32,
    args: bool,
    d: &Dispatch,
) -> Asm {
    let mut a = Asm::new();
    let out = a.label();
    a.emit(Insn::mov64_reg(CTX, Reg::R1));
    state_check(&mut a, l, out);
    cpu_check(&mut a, l, out);
    if ctx == SysCtx::Tracepoint {
        a.emit(Insn::ldx_mem(Size::W, Reg::R2, CTX, TP_NR));
    } else if exit {
        // nr = regs->orig_ax
        a.emit(Insn::mov64_reg(Reg::R1, Reg::FP));
        a.emit(Insn::alu64_imm(AluOp::Add, Reg::R1, -16));
        a.emit(Insn::mov64_imm(Reg::R2, 8));
        a.emit(Insn::ldx_mem(Size::DW, Reg::R3, CTX, 0));
        a.emit(Insn::alu64_imm(AluOp::Add, Reg::R3, PT_ORIG_AX));
        a.call_helper(helper::PROBE_READ_KERNEL);
        a.emit(Insn::ldx_mem(Size::DW, Reg::R2, Reg::FP, -16));
    } else {
        a.emit(Insn::ldx_mem(Size::DW, Reg::R2, CTX, 8));
    }
    table_prologue(&mut a, l, table, Reg::R2, nr_max, out);
    if exit {
        let none = a.label();
        let done = a.label();
        let ret_at = if ctx == SysCtx::Tracepoint {
            TP_ARGS
        } else {
            8
        };
        a.emit(Insn::ldx_mem(Size::DW, Reg::R1, CTX, ret_at));
        if args {
            super::zero_args(&mut a);
            a.emit(Insn::stx_mem(Size::DW, DC, Reg::R1, layout::D_ARGS));
            a.emit(Insn::stx_mem(Size::DW, DC, Reg::R1, layout::D_ARGS + 8));
        }
        a.emit(Insn::st_mem(Size::DW, DC, layout::D_ERRNO, 0));
        a.jmp_imm(JmpOp::Sge, Reg::R1, 0, none);
        a.jmp_imm(JmpOp::Slt, Reg::R1, -4095, none);
        a.emit(Insn::neg64(Reg::R1));
        a.emit(Insn::stx_mem(Size::DW, DC, Reg::R1, layout::D_ERRNO));
        a.ja(done);
        a.bind(none);
        a.bind(done);
    } else {
        a.emit(Insn::st_mem(Size::DW, DC, layout::D_ERRNO, 0));
        if args && ctx == SysCtx::Tracepoint {
            // One program serves tracepoints whose records differ in length,
            // and the kernel refuses to attach a program that reads its
            // context past a record's end (EACCES): copy the six argument
            // slots with probe_read_kernel from the record's address, made a
            // plain number by a round trip through dctx.
            super::zero_args(&mut a);
            a.emit(Insn::stx_mem(Size::DW, DC, CTX, layout::D_ARGS));
            a.emit(Insn::ldx_mem(Size::DW, Reg::R3, DC, layout::D_ARGS));
            a.emit(Insn::alu64_imm(AluOp::Add, Reg::R3, i32::from(TP_ARGS)));
            a.emit(Insn::mov64_reg(Reg::R1, DC));
            a.emit(Insn::alu64_imm(
                AluOp::Add,
                Reg::R1,
                i32::from(layout::D_ARGS),
            ));
            a.emit(Insn::mov64_imm(Reg::R2, 48));
            a.call_helper(helper::PROBE_READ_KERNEL);
        } else if args {
            super::zero_args(&mut a);
            a.emit(Insn::mov64_reg(Reg::R1, DC));
            a.emit(Insn::alu64_imm(AluOp::Add, Reg::R1, layout::D_REGS as i32));
            a.emit(Insn::mov64_imm(Reg::R2, 64));
            a.emit(Insn::ldx_mem(Size::DW, Reg::R3, CTX, 0));
            a.emit(Insn::alu64_imm(AluOp::Add, Reg::R3, PT_R10 as i32));
            a.call_helper(helper::PROBE_READ_KERNEL);
            let offsets = [PT_DI, PT_SI, PT_DX, PT_R10, PT_R8, PT_R9]
                .map(|reg| layout::D_REGS + (reg - PT_R10));
            super::copy_args(&mut a, DC, &offsets);
        }
    }
    dispatch(&mut a, d, Some((l, out)));
    epilogue(&mut a, out);
    a.finish()
}
