//! String operations on NUL-padded buffers: copy with padding or truncation, and
//! comparison eight bytes at a time (big-endian word compares order like strcmp
//! because every buffer is zero after its NUL).

use crate::asm::Asm;
use dtrace_bpf::{Insn, JmpOp, Reg, Size};

/// The first word of the NULL string. A string buffer holding NULL starts with
/// a NUL and then a 1: no string can (a buffer is zero after its NUL), so the
/// NULL string survives being copied and stored like any string, and reads as
/// "" to code that does not ask (see `TExprKind::NullStr`).
pub const NULL_WORD: u64 = 0x100;

/// Copy the string at `src + soff` (capacity `scap`) into `dst + doff` (capacity
/// `dcap`), zero-padding or truncating (a truncated string keeps its final NUL).
#[allow(clippy::too_many_arguments)]
pub fn copy(a: &mut Asm, dst: Reg, doff: i16, dcap: u32, src: Reg, soff: i16, scap: u32, tmp: Reg) {
    let words = scap.min(dcap) / 8;
    for i in 0..words {
        let o = (i * 8) as i16;
        a.emit(Insn::ldx_mem(Size::DW, tmp, src, soff + o));
        a.emit(Insn::stx_mem(Size::DW, dst, tmp, doff + o));
    }
    for i in words..(dcap / 8) {
        a.emit(Insn::st_mem(Size::DW, dst, doff + (i * 8) as i16, 0));
    }
    if scap > dcap && dcap > 0 {
        a.emit(Insn::st_mem(Size::B, dst, doff + dcap as i16 - 1, 0));
    }
}

/// Copy the string at `src` (capacity `scap`, a multiple of 8) into exactly
/// `dsize` bytes at `dst` (any size, any alignment: a `string` member of a D
/// struct), zero-padding or truncating (a truncated string keeps a final NUL).
pub fn copy_exact(a: &mut Asm, dst: Reg, dsize: u32, src: Reg, scap: u32, tmp: Reg) {
    let common = scap.min(dsize);
    let mut i = 0u32;
    while i < common {
        let sz = if common - i >= 8 { Size::DW } else { Size::B };
        a.emit(Insn::ldx_mem(sz, tmp, src, i as i16));
        a.emit(Insn::stx_mem(sz, dst, tmp, i as i16));
        i += if sz == Size::DW { 8 } else { 1 };
    }
    while i < dsize {
        let sz = if dsize - i >= 8 { Size::DW } else { Size::B };
        a.emit(Insn::st_mem(sz, dst, i as i16, 0));
        i += if sz == Size::DW { 8 } else { 1 };
    }
    if scap >= dsize && dsize > 0 {
        a.emit(Insn::st_mem(Size::B, dst, dsize as i16 - 1, 0));
    }
}

/// Compare strings at `ra` (capacity `acap`) and `rb` (`bcap`); leaves -1, 0 or 1 in
/// r0. Uses r3 and r4; `ra`/`rb` must not be r0, r3 or r4.
/// NULL equals NULL and is less than any other string (a null pointer against
/// a string's address, in DTrace).
pub fn compare(a: &mut Asm, ra: Reg, acap: u32, rb: Reg, bcap: u32) {
    let (t1, t2) = (Reg::R3, Reg::R4);
    let diff = a.label();
    let lt = a.label();
    let gt = a.label();
    let end = a.label();
    let (a_set, eq) = (a.label(), a.label());
    let null = NULL_WORD as i32;
    a.emit(Insn::ldx_mem(Size::DW, t1, ra, 0));
    a.emit(Insn::ldx_mem(Size::DW, t2, rb, 0));
    a.jmp_imm(JmpOp::Ne, t1, null, a_set);
    a.jmp_imm(JmpOp::Eq, t2, null, eq);
    a.ja(lt);
    a.bind(a_set);
    a.jmp_imm(JmpOp::Eq, t2, null, gt);
    let common = acap.min(bcap) / 8;
    for i in 0..common {
        let o = (i * 8) as i16;
        a.emit(Insn::ldx_mem(Size::DW, t1, ra, o));
        a.emit(Insn::ldx_mem(Size::DW, t2, rb, o));
        a.jmp_reg(JmpOp::Ne, t1, t2, diff);
    }
    for i in common..(acap / 8) {
        a.emit(Insn::ldx_mem(Size::DW, t1, ra, (i * 8) as i16));
        a.jmp_imm(JmpOp::Ne, t1, 0, gt);
    }
    for i in common..(bcap / 8) {
        a.emit(Insn::ldx_mem(Size::DW, t2, rb, (i * 8) as i16));
        a.jmp_imm(JmpOp::Ne, t2, 0, lt);
    }
    a.bind(eq);
    a.emit(Insn::mov64_imm(Reg::R0, 0));
    a.ja(end);
    a.bind(diff);
    a.emit(Insn::to_be(t1, 64));
    a.emit(Insn::to_be(t2, 64));
    a.jmp_reg(JmpOp::Gt, t1, t2, gt);
    a.bind(lt);
    a.emit(Insn::mov64_imm(Reg::R0, -1));
    a.ja(end);
    a.bind(gt);
    a.emit(Insn::mov64_imm(Reg::R0, 1));
    a.bind(end);
}
