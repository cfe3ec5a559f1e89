//! `inet_ntoa6` and `inet_ntop(AF_INET6, ...)`: the `Inet6` subprogram (see
//! `subr.rs` for the calling convention) and the call that feeds it.
//!
//! r2 = the result buffer (`cd` bytes, NUL-padded, at most `lim` bytes of text),
//! r3 = eight 16-bit groups in host order. The written length lives in `A[0]`,
//! re-read before each byte, so the verifier sees one unknown index wherever
//! the branches (leading zero nibbles, one to three decimal digits) join.
//!
//! The text: an IPv4-mapped (`::ffff:a.b.c.d`) or IPv4-compatible (`::a.b.c.d`,
//! not `::` nor `::1`) address is its dotted quad, after `::ffff:` or `::` when
//! `prefix`; any other is its groups in lowercase hex without leading zeros,
//! joined by `:`, with the longest run of two or more zero groups (the first of
//! equal runs) written `::`.

use super::regs::{R0, R1, R2, R3, R4, R5, R6, R7};
use super::subr::{A_0, A_1, A_2};
use super::{Buf, A_SIZE};
use crate::asm::Asm;
use crate::expr::str_cap;
use crate::gen::{Gen, Val, DCTX};
use dtrace_bpf::{AluOp, Insn, JmpOp, Reg, Size};
use dtrace_sema::{TExpr, Ty};

impl<'a> Gen<'a> {
    /// The `Inet6` form: store the groups, then format them.
    pub fn inet6(&mut self, groups: &[TExpr], prefix: bool, ty: &Ty) -> Val {
        let src = self.tmp_str(16);
        for (i, g) in groups.iter().enumerate().take(8) {
            let v = self.expr(g);
            let r = self.get(v, Reg::R1);
            self.a
                .emit(Insn::stx_mem(Size::H, DCTX, r, (src + 2 * i as u32) as i16));
            self.free(v);
        }
        let cd = str_cap(ty);
        let lim = self.str_lim().min(cd - 1);
        let area = self.tmp_str(A_SIZE);
        let dst = self.tmp_str(cd);
        let s = super::subr::Subr::Inet6 { cd, lim, prefix };
        self.call_subr(s, area, &[Buf::Tmp(dst), Buf::Tmp(src)]);
        self.tmp_val(dst)
    }
}

/// Append the byte in `c` (clobbers r0, r5).
fn emit(a: &mut Asm, c: Reg, lim: u32) {
    let skip = a.label();
    a.emit(Insn::ldx_mem(Size::DW, R0, R1, A_0));
    a.leave_imm(JmpOp::Ge, R0, lim as i32, skip);
    a.emit(Insn::mov64_reg(R5, R2));
    a.emit(Insn::alu64_reg(AluOp::Add, R5, R0));
    a.emit(Insn::stx_mem(Size::B, R5, c, 0));
    a.bind(skip);
    a.emit(Insn::alu64_imm(AluOp::Add, R0, 1));
    a.emit(Insn::stx_mem(Size::DW, R1, R0, A_0));
}

/// Append the character `ch` (clobbers r0, r4, r5).
fn emit_ch(a: &mut Asm, ch: u8, lim: u32) {
    a.emit(Insn::mov64_imm(R4, ch as i32));
    emit(a, R4, lim);
}

fn group(a: &mut Asm, dst: Reg, i: i16) {
    a.emit(Insn::ldx_mem(Size::H, dst, R3, 2 * i));
}

/// Append `r6` (0..=255) in decimal (clobbers r0, r4, r5, r7).
fn decimal(a: &mut Asm, lim: u32) {
    let (tens, ones) = (a.label(), a.label());
    a.jmp_imm(JmpOp::Lt, R6, 100, tens);
    a.emit(Insn::mov64_reg(R7, R6));
    a.emit(Insn::alu64_imm(AluOp::Div, R7, 100));
    a.emit(Insn::alu64_imm(AluOp::Add, R7, b'0' as i32));
    emit(a, R7, lim);
    a.emit(Insn::mov64_reg(R7, R6));
    a.emit(Insn::alu64_imm(AluOp::Div, R7, 10));
    a.emit(Insn::alu64_imm(AluOp::Mod, R7, 10));
    a.emit(Insn::alu64_imm(AluOp::Add, R7, b'0' as i32));
    emit(a, R7, lim);
    a.ja(ones);
    a.bind(tens);
    a.jmp_imm(JmpOp::Lt, R6, 10, ones);
    a.emit(Insn::mov64_reg(R7, R6));
    a.emit(Insn::alu64_imm(AluOp::Div, R7, 10));
    a.emit(Insn::alu64_imm(AluOp::Add, R7, b'0' as i32));
    emit(a, R7, lim);
    a.bind(ones);
    a.emit(Insn::mov64_reg(R7, R6));
    a.emit(Insn::alu64_imm(AluOp::Mod, R7, 10));
    a.emit(Insn::alu64_imm(AluOp::Add, R7, b'0' as i32));
    emit(a, R7, lim);
}

/// Append the hex digit in r7 (0..=15).
fn hex_digit(a: &mut Asm, lim: u32) {
    let (alpha, put) = (a.label(), a.label());
    a.jmp_imm(JmpOp::Ge, R7, 10, alpha);
    a.emit(Insn::alu64_imm(AluOp::Add, R7, b'0' as i32));
    a.ja(put);
    a.bind(alpha);
    a.emit(Insn::alu64_imm(AluOp::Add, R7, b'a' as i32 - 10));
    a.bind(put);
    emit(a, R7, lim);
}

/// Append `r6` (16 bits) in hex without leading zeros (clobbers r0, r4, r5, r7).
fn hex(a: &mut Asm, lim: u32) {
    for shift in [12, 8, 4] {
        let skip = a.label();
        a.emit(Insn::mov64_reg(R7, R6));
        a.emit(Insn::alu64_imm(AluOp::Rsh, R7, shift));
        a.jmp_imm(JmpOp::Eq, R7, 0, skip);
        a.emit(Insn::alu64_imm(AluOp::And, R7, 0xf));
        hex_digit(a, lim);
        a.bind(skip);
    }
    a.emit(Insn::mov64_reg(R7, R6));
    a.emit(Insn::alu64_imm(AluOp::And, R7, 0xf));
    hex_digit(a, lim);
}

pub fn build(a: &mut Asm, cd: u32, lim: u32, prefix: bool) {
    let (v6, v4, mapped, done) = (a.label(), a.label(), a.label(), a.label());
    for i in 0..cd / 8 {
        a.emit(Insn::st_mem(Size::DW, R2, (i * 8) as i16, 0));
    }
    a.emit(Insn::st_mem(Size::DW, R1, A_0, 0));
    // IPv4-mapped or -compatible?
    a.emit(Insn::ldx_mem(Size::DW, R4, R3, 0));
    a.jmp_imm(JmpOp::Ne, R4, 0, v6);
    group(a, R4, 4);
    a.jmp_imm(JmpOp::Ne, R4, 0, v6);
    group(a, R4, 5);
    a.jmp_imm(JmpOp::Eq, R4, 0xffff, mapped);
    a.jmp_imm(JmpOp::Ne, R4, 0, v6);
    group(a, R4, 6);
    a.jmp_imm(JmpOp::Ne, R4, 0, v4);
    group(a, R4, 7);
    a.jmp_imm(JmpOp::Le, R4, 1, v6);
    a.bind(v4);
    if prefix {
        emit_ch(a, b':', lim);
        emit_ch(a, b':', lim);
    }
    let dotted = a.label();
    a.ja(dotted);
    a.bind(mapped);
    if prefix {
        for &c in b"::ffff:" {
            emit_ch(a, c, lim);
        }
    }
    a.bind(dotted);
    for (k, (g, hi)) in [(6, true), (6, false), (7, true), (7, false)]
        .into_iter()
        .enumerate()
    {
        if k > 0 {
            emit_ch(a, b'.', lim);
        }
        group(a, R6, g);
        if hi {
            a.emit(Insn::alu64_imm(AluOp::Rsh, R6, 8));
        } else {
            a.emit(Insn::alu64_imm(AluOp::And, R6, 0xff));
        }
        decimal(a, lim);
    }
    a.ja(done);
    // IPv6: the longest zero run (r6 start, r7 length; r4/r5 the current one).
    a.bind(v6);
    a.emit(Insn::mov64_imm(R6, -1));
    a.emit(Insn::mov64_imm(R7, 0));
    a.emit(Insn::mov64_imm(R4, 0));
    a.emit(Insn::mov64_imm(R5, 0));
    for i in 0..8 {
        let (nz, next, counted) = (a.label(), a.label(), a.label());
        group(a, R0, i);
        a.jmp_imm(JmpOp::Ne, R0, 0, nz);
        a.jmp_imm(JmpOp::Ne, R5, 0, counted);
        a.emit(Insn::mov64_imm(R4, i as i32));
        a.bind(counted);
        a.emit(Insn::alu64_imm(AluOp::Add, R5, 1));
        a.jmp_reg(JmpOp::Le, R5, R7, next);
        a.emit(Insn::mov64_reg(R6, R4));
        a.emit(Insn::mov64_reg(R7, R5));
        a.ja(next);
        a.bind(nz);
        a.emit(Insn::mov64_imm(R5, 0));
        a.bind(next);
    }
    let keep = a.label();
    a.jmp_imm(JmpOp::Ge, R7, 2, keep);
    a.emit(Insn::mov64_imm(R6, -1));
    a.emit(Insn::mov64_imm(R7, 0));
    a.bind(keep);
    a.emit(Insn::alu64_reg(AluOp::Add, R7, R6));
    a.emit(Insn::stx_mem(Size::DW, R1, R6, A_1));
    a.emit(Insn::stx_mem(Size::DW, R1, R7, A_2));
    for i in 0..8i32 {
        let (out, end) = (a.label(), a.label());
        // In the run [A1, A2)?
        a.emit(Insn::ldx_mem(Size::DW, R6, R1, A_1));
        a.emit(Insn::ldx_mem(Size::DW, R7, R1, A_2));
        a.jmp_imm(JmpOp::Sgt, R6, i, out);
        a.jmp_imm(JmpOp::Sle, R7, i, out);
        a.jmp_imm(JmpOp::Ne, R6, i, end);
        if i == 0 {
            emit_ch(a, b':', lim);
        }
        emit_ch(a, b':', lim);
        a.ja(end);
        a.bind(out);
        group(a, R6, i as i16);
        hex(a, lim);
        if i < 7 {
            emit_ch(a, b':', lim);
        }
        a.bind(end);
    }
    a.bind(done);
    a.emit(Insn::mov64_imm(R0, 0));
    a.emit(Insn::exit());
}
