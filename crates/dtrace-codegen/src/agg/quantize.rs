//! quantize, lquantize, llquantize: compute a bucket index in r1 from the value in
//! r5, clamp it so the verifier can bound the access, and add the increment (r4) to
//! that bucket of the value at r0.

use crate::asm::Asm;
use crate::desc::{llquantize_bounds, lquantize_nbuckets, QUANTIZE_NBUCKETS, QUANTIZE_ZERO_BUCKET};
use dtrace_bpf::{AluOp, Insn, JmpOp, Reg, Size};

/// r0[r1] += r4, with r1 clamped to [0, n).
fn bump(a: &mut Asm, n: usize) {
    let lo_ok = a.label();
    let hi_ok = a.label();
    a.jmp_imm(JmpOp::Sge, Reg::R1, 0, lo_ok);
    a.emit(Insn::mov64_imm(Reg::R1, 0));
    a.bind(lo_ok);
    a.jmp_imm(JmpOp::Le, Reg::R1, n as i32 - 1, hi_ok);
    a.emit(Insn::mov64_imm(Reg::R1, n as i32 - 1));
    a.bind(hi_ok);
    a.emit(Insn::alu64_imm(AluOp::Lsh, Reg::R1, 3));
    a.emit(Insn::alu64_reg(AluOp::Add, Reg::R0, Reg::R1));
    a.emit(Insn::ldx_mem(Size::DW, Reg::R2, Reg::R0, 0));
    a.emit(Insn::alu64_reg(AluOp::Add, Reg::R2, Reg::R4));
    a.emit(Insn::stx_mem(Size::DW, Reg::R0, Reg::R2, 0));
}

/// r2 = number of significant bits of the unsigned, non-zero r3 (clobbers r3).
fn bit_length(a: &mut Asm) {
    a.emit(Insn::mov64_imm(Reg::R2, 1));
    for sh in [32, 16, 8, 4, 2, 1] {
        let skip = a.label();
        a.emit(Insn::mov64_reg(Reg::R1, Reg::R3));
        a.emit(Insn::alu64_imm(AluOp::Rsh, Reg::R1, sh));
        a.jmp_imm(JmpOp::Eq, Reg::R1, 0, skip);
        a.emit(Insn::mov64_reg(Reg::R3, Reg::R1));
        a.emit(Insn::alu64_imm(AluOp::Add, Reg::R2, sh));
        a.bind(skip);
    }
}

pub fn quantize(a: &mut Asm) {
    let zero = QUANTIZE_ZERO_BUCKET as i32;
    let neg = a.label();
    let done = a.label();
    a.emit(Insn::mov64_imm(Reg::R1, zero));
    a.jmp_imm(JmpOp::Eq, Reg::R5, 0, done);
    a.jmp_imm(JmpOp::Slt, Reg::R5, 0, neg);
    a.emit(Insn::mov64_reg(Reg::R3, Reg::R5));
    bit_length(a);
    a.emit(Insn::mov64_imm(Reg::R1, zero));
    a.emit(Insn::alu64_reg(AluOp::Add, Reg::R1, Reg::R2));
    a.ja(done);
    a.bind(neg);
    a.emit(Insn::mov64_reg(Reg::R3, Reg::R5));
    a.emit(Insn::neg64(Reg::R3));
    bit_length(a);
    a.emit(Insn::mov64_imm(Reg::R1, zero));
    a.emit(Insn::alu64_reg(AluOp::Sub, Reg::R1, Reg::R2));
    a.bind(done);
    bump(a, QUANTIZE_NBUCKETS);
}

pub fn lquantize(a: &mut Asm, base: i64, limit: i64, step: i64) {
    let n = lquantize_nbuckets(base, limit, step);
    let under = a.label();
    let over = a.label();
    let done = a.label();
    a.mov_imm(Reg::R2, base);
    a.jmp_reg(JmpOp::Slt, Reg::R5, Reg::R2, under);
    a.mov_imm(Reg::R3, limit);
    a.jmp_reg(JmpOp::Sge, Reg::R5, Reg::R3, over);
    a.emit(Insn::mov64_reg(Reg::R1, Reg::R5));
    a.emit(Insn::alu64_reg(AluOp::Sub, Reg::R1, Reg::R2));
    a.emit(Insn::alu64_imm(AluOp::Div, Reg::R1, step.max(1) as i32));
    a.emit(Insn::alu64_imm(AluOp::Add, Reg::R1, 1));
    a.ja(done);
    a.bind(under);
    a.emit(Insn::mov64_imm(Reg::R1, 0));
    a.ja(done);
    a.bind(over);
    a.emit(Insn::mov64_imm(Reg::R1, n as i32 - 1));
    a.bind(done);
    bump(a, n);
}

/// Binary search over the bucket lower bounds: r1 = the last i with r5 >= bounds[i].
fn search(a: &mut Asm, bounds: &[i64], lo: usize, hi: usize, done: crate::asm::Label) {
    if hi - lo <= 1 {
        a.emit(Insn::mov64_imm(Reg::R1, lo as i32));
        a.ja(done);
        return;
    }
    let mid = (lo + hi) / 2;
    let right = a.label();
    a.mov_imm(Reg::R2, bounds[mid]);
    a.jmp_reg(JmpOp::Sge, Reg::R5, Reg::R2, right);
    search(a, bounds, lo, mid, done);
    a.bind(right);
    search(a, bounds, mid, hi, done);
}

/// Oracle DTrace 2.x's layout (see `llquantize_bucket`): the magnitude is looked up
/// among the positive bounds, then placed right (positive) or left (negative) of
/// the middle bucket.
pub fn llquantize(a: &mut Asm, factor: u16, low: u16, high: u16, nsteps: u16) {
    let bounds = llquantize_bounds(factor, low, high, nsteps);
    let p = bounds.len().saturating_sub(1) as i32;
    let n = 2 * p as usize + 1;
    let neg = a.label();
    let pos_found = a.label();
    let neg_found = a.label();
    let neg_max = a.label();
    let done = a.label();
    a.jmp_imm(JmpOp::Slt, Reg::R5, 0, neg);
    search(a, &bounds, 0, bounds.len().max(1), pos_found);
    a.bind(pos_found);
    a.emit(Insn::alu64_imm(AluOp::Add, Reg::R1, p));
    a.ja(done);
    a.bind(neg);
    a.emit(Insn::neg64(Reg::R5));
    // -INT64_MIN is itself: the largest magnitude.
    a.jmp_imm(JmpOp::Slt, Reg::R5, 0, neg_max);
    search(a, &bounds, 0, bounds.len().max(1), neg_found);
    a.bind(neg_found);
    a.emit(Insn::mov64_imm(Reg::R2, p));
    a.emit(Insn::alu64_reg(AluOp::Sub, Reg::R2, Reg::R1));
    a.emit(Insn::mov64_reg(Reg::R1, Reg::R2));
    a.ja(done);
    a.bind(neg_max);
    a.emit(Insn::mov64_imm(Reg::R1, 0));
    a.bind(done);
    bump(a, n);
}
