//! `cleanpath`: "//" becomes "/", "/./" is dropped and "/../" removes the
//! component before it, textually (no symbolic links are followed), as DTrace's
//! `cleanpath` does. A path ending in "/.." keeps the slash the removed component
//! started at ("/a/b/.." is "/a/").
//!
//! One pass over the path, one byte per step, with the state (read position, write
//! position, phase after "/", "/.", "/..") in the argument area and the write
//! positions of the slashes kept on a small stack, so going back over a component
//! is one pop. The steps are a `bpf_loop` callback: the verifier checks one step,
//! whatever `strsize` is.

use super::regs::{R0, R1, R2, R3, R4, R5};
use super::subr::{Subr, A_0, A_1, A_2, A_COUNT};
use super::Buf;
use crate::asm::{Asm, Label};
use crate::gen::{Gen, Val};
use dtrace_bpf::{AluOp, Insn, JmpOp, Reg, Size};

/// The step callback's context, on the stack of [`build`]: `{A, dst, src, stk}`.
const CTX: i16 = -32;
const C_A: i16 = 0;
const C_DST: i16 = 8;
const C_SRC: i16 = 16;
const C_STK: i16 = 24;
/// The callback keeps the context pointer here.
const SP_CTX: i16 = -8;

impl<'a> Gen<'a> {
    pub(crate) fn cleanpath(&mut self, area: u32, s: Val, cs: u32, cd: u32) -> Val {
        let dst = self.tmp_str(cd);
        let stk = self.tmp_str(2 * cd);
        let lim = self.str_lim();
        for slot in [A_0, A_1, A_2, A_COUNT] {
            self.a_set(area, slot, 0);
        }
        let sub = Subr::Clean { cs, cd, lim };
        self.call_subr(sub, area, &[Buf::Tmp(dst), Buf::Val(s), Buf::Tmp(stk)]);
        self.tmp_val(dst)
    }
}

/// `dst` = field `off` of the step's context.
fn ctx_ld(a: &mut Asm, dst: Reg, off: i16) {
    a.emit(Insn::ldx_mem(Size::DW, dst, Reg::FP, SP_CTX));
    a.emit(Insn::ldx_mem(Size::DW, dst, dst, off));
}

/// Write the bytes `lits` then the byte in r0 at `dst[j]` (r3 = j, checked below
/// `lim - 4`), advancing j and storing it.
fn write(a: &mut Asm, lits: &[u8], with_c: bool) {
    ctx_ld(a, R5, C_DST);
    a.emit(Insn::alu64_reg(AluOp::Add, R5, R3));
    let mut k = 0i16;
    for b in lits {
        a.emit(Insn::st_mem(Size::B, R5, k, *b as i32));
        k += 1;
    }
    if with_c {
        a.emit(Insn::stx_mem(Size::B, R5, R0, k));
        k += 1;
    }
    a.emit(Insn::alu64_imm(AluOp::Add, R3, k as i32));
    a.emit(Insn::stx_mem(Size::DW, R1, R3, A_1));
}

/// Push j (r3) on the slash stack.
fn push(a: &mut Asm, cd: u32) {
    let skip = a.label();
    a.emit(Insn::ldx_mem(Size::DW, R5, R1, A_COUNT));
    a.leave_imm(JmpOp::Ge, R5, cd as i32, skip);
    a.emit(Insn::mov64_reg(R2, R5));
    a.emit(Insn::alu64_imm(AluOp::Add, R2, 1));
    a.emit(Insn::stx_mem(Size::DW, R1, R2, A_COUNT));
    a.emit(Insn::alu64_imm(AluOp::Lsh, R5, 1));
    ctx_ld(a, R2, C_STK);
    a.emit(Insn::alu64_reg(AluOp::Add, R2, R5));
    a.emit(Insn::stx_mem(Size::H, R2, R3, 0));
    a.bind(skip);
}

fn set_phase(a: &mut Asm, p: i32) {
    a.emit(Insn::st_mem(Size::DW, R1, A_2, p));
}

/// The `cleanpath` subprogram: r1 = A, r2 = dst, r3 = src, r4 = the slash stack;
/// `step` is the id of its [`step`] callback, run by `bpf_loop` once per byte (and
/// once more per "/..": at most `2 * cs + 4` times). Then the rest of `dst` is
/// zeroed.
pub fn build(a: &mut Asm, cs: u32, cd: u32, step: crate::asm::FuncId) {
    let (zl, zdone) = (a.label(), a.label());
    a.emit(Insn::stx_mem(Size::DW, Reg::FP, R1, CTX + C_A));
    a.emit(Insn::stx_mem(Size::DW, Reg::FP, R2, CTX + C_DST));
    a.emit(Insn::stx_mem(Size::DW, Reg::FP, R3, CTX + C_SRC));
    a.emit(Insn::stx_mem(Size::DW, Reg::FP, R4, CTX + C_STK));
    a.emit(Insn::mov64_imm(R1, (2 * cs + 4) as i32));
    a.ld_func(R2, step);
    a.emit(Insn::mov64_reg(R3, Reg::FP));
    a.emit(Insn::alu64_imm(AluOp::Add, R3, CTX as i32));
    a.emit(Insn::mov64_imm(R4, 0));
    a.call_helper(dtrace_bpf::helper::LOOP);
    // The string ends at j: zero the rest of the buffer.
    a.emit(Insn::ldx_mem(Size::DW, R1, Reg::FP, CTX + C_A));
    a.emit(Insn::ldx_mem(Size::DW, R3, R1, A_1));
    a.emit(Insn::ldx_mem(Size::DW, R2, Reg::FP, CTX + C_DST));
    a.bind(zl);
    a.leave_imm(JmpOp::Ge, R3, cd as i32, zdone);
    a.emit(Insn::mov64_reg(R5, R2));
    a.emit(Insn::alu64_reg(AluOp::Add, R5, R3));
    a.emit(Insn::st_mem(Size::B, R5, 0, 0));
    a.emit(Insn::alu64_imm(AluOp::Add, R3, 1));
    a.ja(zl);
    a.bind(zdone);
    a.emit(Insn::mov64_imm(R0, 0));
    a.emit(Insn::exit());
}

/// One step (the `bpf_loop` callback: r2 = the context): returns 1 when the
/// string is done.
pub fn step(a: &mut Asm, cs: u32, cd: u32, lim: u32) {
    let next = a.label();
    let finish = a.label();
    let finish_at = a.label();
    let [p0, p1, p2, p3, back, popped]: [Label; 6] = std::array::from_fn(|_| a.label());
    a.emit(Insn::stx_mem(Size::DW, Reg::FP, R2, SP_CTX));
    ctx_ld(a, R1, C_A);
    // c = src[i++]
    a.emit(Insn::ldx_mem(Size::DW, R2, R1, A_0));
    a.emit(Insn::mov64_reg(R0, R2));
    a.leave_imm(JmpOp::Ge, R0, cs as i32, finish);
    ctx_ld(a, R3, C_SRC);
    a.emit(Insn::alu64_reg(AluOp::Add, R0, R3));
    a.emit(Insn::ldx_mem(Size::B, R0, R0, 0));
    a.emit(Insn::alu64_imm(AluOp::Add, R2, 1));
    a.emit(Insn::stx_mem(Size::DW, R1, R2, A_0));
    a.emit(Insn::ldx_mem(Size::DW, R3, R1, A_1));
    a.leave_imm(JmpOp::Ge, R3, lim.saturating_sub(4) as i32, finish);
    a.emit(Insn::ldx_mem(Size::DW, R4, R1, A_2));
    a.leave_imm(JmpOp::Eq, R4, 0, p0);
    a.leave_imm(JmpOp::Eq, R4, 1, p1);
    a.leave_imm(JmpOp::Eq, R4, 2, p2);
    a.ja(p3);
    // Plain bytes.
    a.bind(p0);
    let slash = a.label();
    a.leave_imm(JmpOp::Eq, R0, b'/' as i32, slash);
    a.leave_imm(JmpOp::Eq, R0, 0, finish);
    write(a, &[], true);
    a.ja(next);
    a.bind(slash);
    set_phase(a, 1);
    a.ja(next);
    // After "/".
    a.bind(p1);
    let dot = a.label();
    a.leave_imm(JmpOp::Eq, R0, b'/' as i32, next);
    a.leave_imm(JmpOp::Eq, R0, b'.' as i32, dot);
    push(a, cd);
    write(a, b"/", true);
    set_phase(a, 0);
    a.leave_imm(JmpOp::Eq, R0, 0, finish_at);
    a.ja(next);
    a.bind(dot);
    set_phase(a, 2);
    a.ja(next);
    // After "/.".
    a.bind(p2);
    let (to1, dotdot) = (a.label(), a.label());
    a.leave_imm(JmpOp::Eq, R0, b'/' as i32, to1);
    a.leave_imm(JmpOp::Eq, R0, b'.' as i32, dotdot);
    push(a, cd);
    write(a, b"/.", true);
    set_phase(a, 0);
    a.leave_imm(JmpOp::Eq, R0, 0, finish_at);
    a.ja(next);
    a.bind(to1);
    set_phase(a, 1);
    a.ja(next);
    a.bind(dotdot);
    set_phase(a, 3);
    a.ja(next);
    // After "/..": another byte makes it a name; "/" or the end goes back.
    a.bind(p3);
    a.leave_imm(JmpOp::Eq, R0, b'/' as i32, back);
    a.leave_imm(JmpOp::Eq, R0, 0, back);
    push(a, cd);
    write(a, b"/..", true);
    set_phase(a, 0);
    a.ja(next);
    a.bind(back);
    set_phase(a, 0);
    a.emit(Insn::mov64_imm(R3, 0));
    a.emit(Insn::ldx_mem(Size::DW, R5, R1, A_COUNT));
    a.leave_imm(JmpOp::Eq, R5, 0, popped);
    a.emit(Insn::alu64_imm(AluOp::Add, R5, -1));
    a.emit(Insn::stx_mem(Size::DW, R1, R5, A_COUNT));
    a.leave_imm(JmpOp::Ge, R5, cd as i32, popped);
    a.emit(Insn::alu64_imm(AluOp::Lsh, R5, 1));
    ctx_ld(a, R2, C_STK);
    a.emit(Insn::alu64_reg(AluOp::Add, R2, R5));
    a.emit(Insn::ldx_mem(Size::H, R3, R2, 0));
    a.bind(popped);
    a.emit(Insn::stx_mem(Size::DW, R1, R3, A_1));
    let reread = a.label();
    a.leave_imm(JmpOp::Ne, R0, 0, reread);
    // "/.." at the end keeps the byte the removed component started at.
    a.emit(Insn::alu64_imm(AluOp::Add, R3, 1));
    a.emit(Insn::stx_mem(Size::DW, R1, R3, A_1));
    a.ja(finish_at);
    a.bind(reread);
    a.emit(Insn::ldx_mem(Size::DW, R2, R1, A_0));
    a.emit(Insn::alu64_imm(AluOp::Add, R2, -1));
    a.emit(Insn::stx_mem(Size::DW, R1, R2, A_0));
    a.bind(next);
    a.emit(Insn::mov64_imm(R0, 0));
    a.emit(Insn::exit());
    a.bind(finish);
    a.bind(finish_at);
    a.emit(Insn::mov64_imm(R0, 1));
    a.emit(Insn::exit());
}
