//! Number conversions: the `lltostr` and `strtoll` subprograms (see `subr.rs` for
//! the calling convention).
//!
//! `lltostr(v, base)`: digits `0-9a-z`; a `-` sign only in base 10; base 16 has a
//! `0x` prefix (0 is `0x0`) and base 8 a leading `0`, as DTrace writes them.
//! `strtoll(s, base)`: leading blanks and tabs skipped, an optional sign, in base
//! 16 an optional `0x`/`0X` before a hex digit, then digits up to the first byte
//! that is not a digit of the base.

use super::regs::{R0, R1, R2, R3, R4, R5};
use super::subr::{A_0, A_1, A_2};
use crate::asm::Asm;
use dtrace_bpf::{AluOp, Insn, JmpOp, Reg, Size};

const SAVED_A: i16 = -8;
const SAVED_NEG: i16 = -16;
const SAVED_TABLE: i16 = -24;

fn byte(a: &mut Asm, dst: Reg, off: i16, c: u8) {
    a.emit(Insn::st_mem(Size::B, dst, off, c as i32));
}

pub fn lltostr(a: &mut Asm, cd: u32, lim: u32) {
    let (nosign, not16, count, cloop, counted) =
        (a.label(), a.label(), a.label(), a.label(), a.label());
    let (wloop, alpha, put, skip, done) = (a.label(), a.label(), a.label(), a.label(), a.label());
    for i in 0..cd / 8 {
        a.emit(Insn::st_mem(Size::DW, R2, (i * 8) as i16, 0));
    }
    a.emit(Insn::stx_mem(Size::DW, Reg::FP, R1, SAVED_A));
    a.emit(Insn::ldx_mem(Size::DW, R3, R1, A_0));
    a.emit(Insn::ldx_mem(Size::DW, R4, R1, A_1));
    a.emit(Insn::mov64_imm(R5, 0));
    a.leave_imm(JmpOp::Ne, R4, 10, nosign);
    a.leave_imm(JmpOp::Sge, R3, 0, nosign);
    a.emit(Insn::neg64(R3));
    byte(a, R2, 0, b'-');
    a.emit(Insn::mov64_imm(R5, 1));
    a.bind(nosign);
    a.leave_imm(JmpOp::Ne, R4, 16, not16);
    byte(a, R2, 0, b'0');
    byte(a, R2, 1, b'x');
    a.emit(Insn::mov64_imm(R5, 2));
    a.bind(not16);
    a.leave_imm(JmpOp::Ne, R4, 8, count);
    a.leave_imm(JmpOp::Eq, R3, 0, count);
    byte(a, R2, 0, b'0');
    a.emit(Insn::mov64_imm(R5, 1));
    // Count the digits (at least one).
    a.bind(count);
    a.emit(Insn::mov64_reg(R0, R3));
    a.emit(Insn::mov64_imm(R1, 0));
    a.bind(cloop);
    a.emit(Insn::alu64_imm(AluOp::Add, R1, 1));
    a.emit(Insn::alu64_reg(AluOp::Div, R0, R4));
    a.leave_imm(JmpOp::Eq, R0, 0, counted);
    a.leave_imm(JmpOp::Ge, R1, 64, counted);
    a.ja(cloop);
    a.bind(counted);
    // Position of the last digit, through A so that it is one unknown value.
    a.emit(Insn::alu64_reg(AluOp::Add, R1, R5));
    a.emit(Insn::alu64_imm(AluOp::Add, R1, -1));
    a.emit(Insn::ldx_mem(Size::DW, R0, Reg::FP, SAVED_A));
    a.emit(Insn::stx_mem(Size::DW, R0, R1, A_2));
    a.emit(Insn::ldx_mem(Size::DW, R1, R0, A_2));
    a.leave_imm(JmpOp::Gt, R1, 72, done);
    // Digits from the last, dropping those past the limit.
    a.bind(wloop);
    a.emit(Insn::mov64_reg(R0, R3));
    a.emit(Insn::alu64_reg(AluOp::Mod, R0, R4));
    a.emit(Insn::alu64_reg(AluOp::Div, R3, R4));
    a.leave_imm(JmpOp::Ge, R0, 10, alpha);
    a.emit(Insn::alu64_imm(AluOp::Add, R0, b'0' as i32));
    a.ja(put);
    a.bind(alpha);
    a.emit(Insn::alu64_imm(AluOp::Add, R0, b'a' as i32 - 10));
    a.bind(put);
    a.leave_imm(JmpOp::Ge, R1, lim as i32, skip);
    a.emit(Insn::mov64_reg(R5, R2));
    a.emit(Insn::alu64_reg(AluOp::Add, R5, R1));
    a.emit(Insn::stx_mem(Size::B, R5, R0, 0));
    a.bind(skip);
    a.leave_imm(JmpOp::Eq, R3, 0, done);
    a.leave_imm(JmpOp::Le, R1, 0, done);
    a.emit(Insn::alu64_imm(AluOp::Add, R1, -1));
    a.ja(wloop);
    a.bind(done);
    a.emit(Insn::mov64_imm(R0, 0));
    a.emit(Insn::exit());
}

/// `dst = s[idx + plus]` after checking the index is below `cs` (else jump to
/// `out`).
fn load(a: &mut Asm, dst: Reg, idx: Reg, plus: i32, cs: u32, out: crate::asm::Label) {
    a.emit(Insn::mov64_reg(dst, idx));
    if plus != 0 {
        a.emit(Insn::alu64_imm(AluOp::Add, dst, plus));
    }
    a.leave_imm(JmpOp::Ge, dst, cs as i32, out);
    a.emit(Insn::alu64_reg(AluOp::Add, dst, R2));
    a.emit(Insn::ldx_mem(Size::B, dst, dst, 0));
}

/// Class of each byte for [`strtoll`]: its digit value (0-9, a-z and A-Z as
/// 10-35), [`BLANK`] for a space or tab, [`OTHER`] for anything else. One table
/// lookup per byte keeps each loop step to one branch out, so the verifier's
/// pending states stay few whatever `strsize` is.
pub const BLANK: u8 = 200;
pub const OTHER: u8 = 255;

pub fn digit_table() -> Vec<u8> {
    (0..=255u8)
        .map(|c| match c {
            b'0'..=b'9' => c - b'0',
            b'a'..=b'z' => c - b'a' + 10,
            b'A'..=b'Z' => c - b'A' + 10,
            b' ' | b'\t' => BLANK,
            _ => OTHER,
        })
        .collect()
}

/// r0 = the class of the byte in r0 (r5 clobbered).
fn classify(a: &mut Asm) {
    a.emit(Insn::ldx_mem(Size::DW, R5, Reg::FP, SAVED_TABLE));
    a.emit(Insn::alu64_imm(AluOp::And, R0, 0xff));
    a.emit(Insn::alu64_reg(AluOp::Add, R5, R0));
    a.emit(Insn::ldx_mem(Size::B, R0, R5, 0));
}

/// `r1` through A's scratch slot: one unknown value for the verifier.
fn launder_r1(a: &mut Asm) {
    a.emit(Insn::ldx_mem(Size::DW, R3, Reg::FP, SAVED_A));
    a.emit(Insn::stx_mem(Size::DW, R3, R1, A_2));
    a.emit(Insn::ldx_mem(Size::DW, R1, R3, A_2));
}

/// r1 = A, r2 = s, r3 = the [`digit_table`] (256 bytes).
pub fn strtoll(a: &mut Asm, cs: u32) {
    let (ws, ws_done, minus, plus) = (a.label(), a.label(), a.label(), a.label());
    let (hex, digits, dloop, fin, out, empty) = (
        a.label(),
        a.label(),
        a.label(),
        a.label(),
        a.label(),
        a.label(),
    );
    a.emit(Insn::stx_mem(Size::DW, Reg::FP, R1, SAVED_A));
    a.emit(Insn::stx_mem(Size::DW, Reg::FP, R3, SAVED_TABLE));
    a.emit(Insn::st_mem(Size::DW, Reg::FP, SAVED_NEG, 0));
    a.emit(Insn::ldx_mem(Size::DW, R4, R1, A_1));
    a.emit(Insn::mov64_imm(R1, 0));
    a.bind(ws);
    load(a, R0, R1, 0, cs, empty);
    classify(a);
    a.leave_imm(JmpOp::Ne, R0, BLANK as i32, ws_done);
    a.emit(Insn::alu64_imm(AluOp::Add, R1, 1));
    a.ja(ws);
    a.bind(ws_done);
    launder_r1(a);
    load(a, R0, R1, 0, cs, empty);
    a.jmp_imm(JmpOp::Eq, R0, b'-' as i32, minus);
    a.jmp_imm(JmpOp::Eq, R0, b'+' as i32, plus);
    a.ja(hex);
    a.bind(minus);
    a.emit(Insn::st_mem(Size::DW, Reg::FP, SAVED_NEG, 1));
    a.bind(plus);
    a.emit(Insn::alu64_imm(AluOp::Add, R1, 1));
    a.bind(hex);
    // In base 16, "0x" or "0X" before a hex digit is skipped.
    a.jmp_imm(JmpOp::Ne, R4, 16, digits);
    load(a, R0, R1, 0, cs, digits);
    a.jmp_imm(JmpOp::Ne, R0, b'0' as i32, digits);
    load(a, R0, R1, 1, cs, digits);
    a.emit(Insn::alu64_imm(AluOp::Or, R0, 0x20));
    a.jmp_imm(JmpOp::Ne, R0, b'x' as i32, digits);
    load(a, R0, R1, 2, cs, digits);
    classify(a);
    a.jmp_imm(JmpOp::Ge, R0, 16, digits);
    a.emit(Insn::alu64_imm(AluOp::Add, R1, 2));
    a.bind(digits);
    launder_r1(a);
    a.emit(Insn::mov64_imm(R3, 0));
    a.bind(dloop);
    load(a, R0, R1, 0, cs, fin);
    classify(a);
    a.leave_reg(JmpOp::Ge, R0, R4, fin);
    a.emit(Insn::alu64_reg(AluOp::Mul, R3, R4));
    a.emit(Insn::alu64_reg(AluOp::Add, R3, R0));
    a.emit(Insn::alu64_imm(AluOp::Add, R1, 1));
    a.ja(dloop);
    a.bind(fin);
    a.emit(Insn::ldx_mem(Size::DW, R5, Reg::FP, SAVED_NEG));
    a.jmp_imm(JmpOp::Eq, R5, 0, out);
    a.emit(Insn::neg64(R3));
    a.ja(out);
    a.bind(empty);
    a.emit(Insn::mov64_imm(R3, 0));
    a.bind(out);
    a.emit(Insn::ldx_mem(Size::DW, R0, Reg::FP, SAVED_A));
    a.emit(Insn::stx_mem(Size::DW, R0, R3, A_0));
    a.emit(Insn::mov64_imm(R0, 0));
    a.emit(Insn::exit());
}
