//! count, sum, avg, min, max, stddev. On entry r0 points at this CPU's value, r5
//! holds the value argument and r4 the increment; r1-r3 are free.

use crate::asm::Asm;
use dtrace_bpf::{AluOp, Insn, JmpOp, Reg, Size};

fn add_at(a: &mut Asm, off: i16, src: Reg) {
    a.emit(Insn::ldx_mem(Size::DW, Reg::R1, Reg::R0, off));
    a.emit(Insn::alu64_reg(AluOp::Add, Reg::R1, src));
    a.emit(Insn::stx_mem(Size::DW, Reg::R0, Reg::R1, off));
}

fn inc_at(a: &mut Asm, off: i16) {
    a.emit(Insn::ldx_mem(Size::DW, Reg::R1, Reg::R0, off));
    a.emit(Insn::alu64_imm(AluOp::Add, Reg::R1, 1));
    a.emit(Insn::stx_mem(Size::DW, Reg::R0, Reg::R1, off));
}

/// `[count]`
pub fn count(a: &mut Asm) {
    inc_at(a, 0);
}

/// `[sum]`
pub fn sum(a: &mut Asm) {
    add_at(a, 0, Reg::R5);
}

/// `[count, sum]`
pub fn avg(a: &mut Asm) {
    inc_at(a, 0);
    add_at(a, 8, Reg::R5);
}

/// `[count, value]`: the value is taken when count is 0 or it is a new extreme.
pub fn minmax(a: &mut Asm, min: bool) {
    let set = a.label();
    let bump = a.label();
    a.emit(Insn::ldx_mem(Size::DW, Reg::R1, Reg::R0, 0));
    a.jmp_imm(JmpOp::Eq, Reg::R1, 0, set);
    a.emit(Insn::ldx_mem(Size::DW, Reg::R2, Reg::R0, 8));
    let keep = if min { JmpOp::Sge } else { JmpOp::Sle };
    a.jmp_reg(keep, Reg::R5, Reg::R2, bump);
    a.bind(set);
    a.emit(Insn::stx_mem(Size::DW, Reg::R0, Reg::R5, 8));
    a.bind(bump);
    inc_at(a, 0);
}

/// `[count, sum, sumsq_lo, sumsq_hi]`: the square is computed in 128 bits from
/// 32-bit halves of |v|.
pub fn stddev(a: &mut Asm) {
    inc_at(a, 0);
    add_at(a, 8, Reg::R5);
    let (x, lo32, hi32, lo, mid) = (Reg::R1, Reg::R2, Reg::R3, Reg::R4, Reg::R5);
    let pos = a.label();
    a.emit(Insn::mov64_reg(x, Reg::R5));
    a.jmp_imm(JmpOp::Sge, x, 0, pos);
    a.emit(Insn::neg64(x));
    a.bind(pos);
    a.emit(Insn::mov32_reg(lo32, x));
    a.emit(Insn::mov64_reg(hi32, x));
    a.emit(Insn::alu64_imm(AluOp::Rsh, hi32, 32));
    // lo = lo32^2, mid = hi32*lo32, hi = hi32^2 (hi kept in hi32)
    a.emit(Insn::mov64_reg(lo, lo32));
    a.emit(Insn::alu64_reg(AluOp::Mul, lo, lo32));
    a.emit(Insn::mov64_reg(mid, hi32));
    a.emit(Insn::alu64_reg(AluOp::Mul, mid, lo32));
    a.emit(Insn::alu64_reg(AluOp::Mul, hi32, hi32));
    // square = hi<<64 + mid<<33 + lo
    a.emit(Insn::mov64_reg(x, mid));
    a.emit(Insn::alu64_imm(AluOp::Lsh, x, 33));
    a.emit(Insn::alu64_reg(AluOp::Add, lo, x));
    let nc1 = a.label();
    a.jmp_reg(JmpOp::Ge, lo, x, nc1);
    a.emit(Insn::alu64_imm(AluOp::Add, hi32, 1));
    a.bind(nc1);
    a.emit(Insn::alu64_imm(AluOp::Rsh, mid, 31));
    a.emit(Insn::alu64_reg(AluOp::Add, hi32, mid));
    // sumsq += square
    a.emit(Insn::ldx_mem(Size::DW, x, Reg::R0, 16));
    a.emit(Insn::alu64_reg(AluOp::Add, x, lo));
    a.emit(Insn::stx_mem(Size::DW, Reg::R0, x, 16));
    let nc2 = a.label();
    a.jmp_reg(JmpOp::Ge, x, lo, nc2);
    a.emit(Insn::alu64_imm(AluOp::Add, hi32, 1));
    a.bind(nc2);
    a.emit(Insn::ldx_mem(Size::DW, x, Reg::R0, 24));
    a.emit(Insn::alu64_reg(AluOp::Add, x, hi32));
    a.emit(Insn::stx_mem(Size::DW, Reg::R0, x, 24));
}
