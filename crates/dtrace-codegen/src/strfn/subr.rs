//! The string subprograms: small BPF functions shared by every call in a program,
//! each with at most one loop over a string.
//!
//! Calling convention: r1 = the call's argument area `A` (dctx scratch, see
//! [`super::A_SIZE`]), r2.. = string buffer pointers. Integer arguments and results
//! pass through `A`, so the verifier sees them as unknown values: that keeps one
//! call's loop exits from multiplying the states of the code after it. Every
//! subprogram returns 0 and uses at most 24 bytes of stack.
//!
//! Loops index their buffers with a register the verifier tracks exactly, bounded
//! by the buffer's capacity (`cs`, `cd`: static, multiples of 8), so every access is
//! provably inside its buffer; a string's NUL ends the loop at run time.

use super::regs::{R0, R1, R2, R3, R4, R5};
use crate::asm::{Asm, FuncId};
use dtrace_bpf::{helper, AluOp, Insn, JmpOp, Reg, Size};

/// `A` slots.
pub const A_0: i16 = 0;
pub const A_1: i16 = 8;
pub const A_2: i16 = 16;
pub const A_RESULT: i16 = 24;
pub const A_COUNT: i16 = 32;
pub const A_CAND: i16 = 40;
/// 32-byte delimiter set (one bit per byte value).
pub const A_SET: i16 = 48;

/// One subprogram, by what it does and the capacities it is specialized for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Subr {
    /// `A[0] = strlen(s)`.
    Strlen { cs: u32 },
    /// `dst = s[A[0] .. A[0] + A[1]]` (start unsigned, count signed), at most
    /// `lim` bytes, NUL-padded to `cd`.
    CopyRange { cs: u32, cd: u32, lim: u32 },
    /// `A[0]` = first (or last) index of the byte `A[1]` in `s` (the NUL counts),
    /// or -1.
    FindChr { cs: u32, last: bool },
    /// `dst = toupper(s)` / `tolower(s)`.
    Case {
        cs: u32,
        cd: u32,
        lim: u32,
        upper: bool,
    },
    /// Append `b` to `dst` whose length is `A[0]`, keeping at most `lim` bytes.
    Append { cb: u32, lim: u32 },
    /// Search `n` in `h` (padded to `ch + cn` bytes) at `A[COUNT]` candidate
    /// positions from `A[0]`, upwards or (`back`) downwards; `A[RESULT]` = the
    /// first match or stays as it was.
    FindStr { ch: u32, cn: u32, back: bool },
    /// The `bpf_loop` callback of [`Subr::FindStr`]: one candidate.
    FindStrCb { ch: u32, cn: u32, back: bool },
    /// `A[SET]` = the set of the bytes of `d`.
    ByteSet { cd: u32 },
    /// From `A[0]`, skip bytes that are (`want`) or are not in `A[SET]`; stops at
    /// the NUL. `A[0]` = where it stopped, `A[1]` = the byte there.
    Span { cs: u32, want: bool },
    /// From `A[0]` downwards, skip bytes that are (`slash`) or are not '/'.
    /// `A[0]` = where it stopped (-1 past the start).
    RScan { cs: u32, slash: bool },
    /// `dst` = `A[0]` written in base `A[1]` (2..=36) as DTrace's `lltostr`.
    Lltostr { cd: u32, lim: u32 },
    /// `A[0]` = `s` read as an integer in base `A[1]` (2..=36) as `strtoll`; r3 =
    /// the byte classes of `conv::digit_table`.
    Strtoll { cs: u32 },
    /// `dst = cleanpath(src)`; r4 = a slash stack of `2 * cd` bytes.
    Clean { cs: u32, cd: u32, lim: u32 },
    /// The `bpf_loop` callback of [`Subr::Clean`]: one byte.
    CleanStep { cs: u32, cd: u32, lim: u32 },
    /// `dst` = the IPv6 address whose eight groups r3 points to (see `inet.rs`).
    Inet6 { cd: u32, lim: u32, prefix: bool },
    /// The `bpf_loop` callback of `chill()` (r2 = the deadline's address).
    ChillStep,
    /// `dst` = `d_path()` of the vfsmount in `A[0]` and the dentry in `A[1]`;
    /// r3 = room for the name pointers (see `dpath.rs`).
    DPath {
        cd: u32,
        lim: u32,
        offs: dtrace_sema::DPathOffsets,
    },
}

/// The subprograms a program's clauses call, built once each.
#[derive(Debug, Default)]
pub struct Subrs {
    pub list: Vec<(Subr, Asm)>,
}

/// Function ids of subprograms are this plus their index in [`Subrs::list`]; the
/// linker maps them to their place in each program.
pub const SUBR_BASE: usize = 1 << 20;

impl Subrs {
    /// The id of `s`, building it if new.
    pub fn id(&mut self, s: Subr) -> FuncId {
        if let Some(i) = self.list.iter().position(|(k, _)| *k == s) {
            return FuncId(SUBR_BASE + i);
        }
        let code = build(self, s);
        self.list.push((s, code));
        FuncId(SUBR_BASE + self.list.len() - 1)
    }

    pub fn get(&self, id: FuncId) -> Option<&Asm> {
        id.0.checked_sub(SUBR_BASE)
            .and_then(|i| self.list.get(i))
            .map(|(_, a)| a)
    }
}

fn ldb(a: &mut Asm, dst: Reg, src: Reg) {
    a.emit(Insn::ldx_mem(Size::B, dst, src, 0));
}
fn mov(a: &mut Asm, dst: Reg, src: Reg) {
    a.emit(Insn::mov64_reg(dst, src));
}
fn movi(a: &mut Asm, dst: Reg, v: i32) {
    a.emit(Insn::mov64_imm(dst, v));
}
fn add(a: &mut Asm, dst: Reg, src: Reg) {
    a.emit(Insn::alu64_reg(AluOp::Add, dst, src));
}
fn addi(a: &mut Asm, dst: Reg, v: i32) {
    a.emit(Insn::alu64_imm(AluOp::Add, dst, v));
}
fn ld(a: &mut Asm, dst: Reg, src: Reg, off: i16) {
    a.emit(Insn::ldx_mem(Size::DW, dst, src, off));
}
fn st(a: &mut Asm, dst: Reg, off: i16, src: Reg) {
    a.emit(Insn::stx_mem(Size::DW, dst, src, off));
}
fn ret0(a: &mut Asm) {
    movi(a, R0, 0);
    a.emit(Insn::exit());
}
fn zero(a: &mut Asm, dst: Reg, cap: u32) {
    for i in 0..cap / 8 {
        a.emit(Insn::st_mem(Size::DW, dst, (i * 8) as i16, 0));
    }
}
/// `dst[idx] = val` for an exactly tracked `idx`.
fn store_at(a: &mut Asm, dst: Reg, idx: Reg, val: Reg) {
    add(a, dst, idx);
    a.emit(Insn::stx_mem(Size::B, dst, val, 0));
    a.emit(Insn::alu64_reg(AluOp::Sub, dst, idx));
}
/// `dst = base[idx]` after checking `idx < cap` (else jump to `out`); `dst` may
/// not be `base`.
fn load_checked(a: &mut Asm, dst: Reg, base: Reg, idx: Reg, cap: u32, out: crate::asm::Label) {
    if dst != idx {
        mov(a, dst, idx);
    }
    a.leave_imm(JmpOp::Ge, dst, cap as i32, out);
    add(a, dst, base);
    ldb(a, dst, dst);
}

fn build(subrs: &mut Subrs, s: Subr) -> Asm {
    let mut a = Asm::new();
    match s {
        Subr::Strlen { cs } => strlen(&mut a, cs),
        Subr::CopyRange { cs, cd, lim } => copy_range(&mut a, cs, cd, lim),
        Subr::FindChr { cs, last } => find_chr(&mut a, cs, last),
        Subr::Case { cs, cd, lim, upper } => case(&mut a, cs, cd, lim, upper),
        Subr::Append { cb, lim } => append(&mut a, cb, lim),
        Subr::FindStr { ch, cn, back } => {
            let cb = subrs.id(Subr::FindStrCb { ch, cn, back });
            find_str(&mut a, ch, cb)
        }
        Subr::FindStrCb { ch, cn, back } => find_str_cb(&mut a, ch, cn, back),
        Subr::ByteSet { cd } => byte_set(&mut a, cd),
        Subr::Span { cs, want } => span(&mut a, cs, want),
        Subr::RScan { cs, slash } => rscan(&mut a, cs, slash),
        Subr::Lltostr { cd, lim } => super::conv::lltostr(&mut a, cd, lim),
        Subr::Strtoll { cs } => super::conv::strtoll(&mut a, cs),
        Subr::Clean { cs, cd, lim } => {
            let step = subrs.id(Subr::CleanStep { cs, cd, lim });
            super::clean::build(&mut a, cs, cd, step)
        }
        Subr::CleanStep { cs, cd, lim } => super::clean::step(&mut a, cs, cd, lim),
        Subr::Inet6 { cd, lim, prefix } => super::inet::build(&mut a, cd, lim, prefix),
        Subr::ChillStep => crate::action::control::chill_step(&mut a),
        Subr::DPath { cd, lim, offs } => super::dpath::build(&mut a, cd, lim, offs),
    }
    a.finish()
}

fn strlen(a: &mut Asm, cs: u32) {
    let (top, end) = (a.label(), a.label());
    movi(a, R0, 0);
    a.bind(top);
    load_checked(a, R3, R2, R0, cs, end);
    a.leave_imm(JmpOp::Eq, R3, 0, end);
    addi(a, R0, 1);
    a.ja(top);
    a.bind(end);
    st(a, R1, A_0, R0);
    ret0(a);
}

fn copy_range(a: &mut Asm, cs: u32, cd: u32, lim: u32) {
    let (top, done, ok) = (a.label(), a.label(), a.label());
    zero(a, R2, cd);
    ld(a, R4, R1, A_0);
    ld(a, R5, R1, A_1);
    a.leave_imm(JmpOp::Ge, R4, cs as i32, done);
    a.leave_imm(JmpOp::Sle, R5, 0, done);
    a.leave_imm(JmpOp::Sle, R5, lim as i32, ok);
    movi(a, R5, lim as i32);
    a.bind(ok);
    movi(a, R1, 0);
    a.bind(top);
    a.leave_reg(JmpOp::Ge, R1, R5, done);
    a.leave_imm(JmpOp::Ge, R1, lim as i32, done);
    mov(a, R0, R4);
    add(a, R0, R1);
    a.leave_imm(JmpOp::Ge, R0, cs as i32, done);
    add(a, R0, R3);
    ldb(a, R0, R0);
    a.leave_imm(JmpOp::Eq, R0, 0, done);
    store_at(a, R2, R1, R0);
    addi(a, R1, 1);
    a.ja(top);
    a.bind(done);
    ret0(a);
}

fn find_chr(a: &mut Asm, cs: u32, last: bool) {
    let (top, next, end) = (a.label(), a.label(), a.label());
    ld(a, R3, R1, A_1);
    movi(a, R4, -1);
    movi(a, R0, 0);
    a.bind(top);
    load_checked(a, R5, R2, R0, cs, end);
    a.leave_reg(JmpOp::Ne, R5, R3, next);
    mov(a, R4, R0);
    if !last {
        a.ja(end);
    }
    a.bind(next);
    a.leave_imm(JmpOp::Eq, R5, 0, end);
    addi(a, R0, 1);
    a.ja(top);
    a.bind(end);
    st(a, R1, A_0, R4);
    ret0(a);
}

fn case(a: &mut Asm, cs: u32, cd: u32, lim: u32, upper: bool) {
    let (top, keep, done) = (a.label(), a.label(), a.label());
    zero(a, R2, cd);
    movi(a, R1, 0);
    a.bind(top);
    a.leave_imm(JmpOp::Ge, R1, lim as i32, done);
    load_checked(a, R0, R3, R1, cs, done);
    a.leave_imm(JmpOp::Eq, R0, 0, done);
    let (lo, hi, delta) = if upper {
        (b'a', b'z', -32)
    } else {
        (b'A', b'Z', 32)
    };
    a.leave_imm(JmpOp::Lt, R0, lo as i32, keep);
    a.leave_imm(JmpOp::Gt, R0, hi as i32, keep);
    addi(a, R0, delta);
    a.bind(keep);
    store_at(a, R2, R1, R0);
    addi(a, R1, 1);
    a.ja(top);
    a.bind(done);
    ret0(a);
}

fn append(a: &mut Asm, cb: u32, lim: u32) {
    let (top, done) = (a.label(), a.label());
    ld(a, R4, R1, A_0);
    movi(a, R1, 0);
    a.bind(top);
    mov(a, R5, R4);
    add(a, R5, R1);
    a.leave_imm(JmpOp::Ge, R5, lim as i32, done);
    load_checked(a, R0, R3, R1, cb, done);
    a.leave_imm(JmpOp::Eq, R0, 0, done);
    add(a, R5, R2);
    a.emit(Insn::stx_mem(Size::B, R5, R0, 0));
    addi(a, R1, 1);
    a.ja(top);
    a.bind(done);
    ret0(a);
}

/// Stack of [`find_str`]: the callback context `{A, h, n}`.
const CTX: i16 = -24;

fn find_str(a: &mut Asm, ch: u32, cb: FuncId) {
    let (done, ok) = (a.label(), a.label());
    a.emit(Insn::stx_mem(Size::DW, Reg::FP, R1, CTX));
    a.emit(Insn::stx_mem(Size::DW, Reg::FP, R2, CTX + 8));
    a.emit(Insn::stx_mem(Size::DW, Reg::FP, R3, CTX + 16));
    ld(a, R1, R1, A_COUNT);
    a.leave_imm(JmpOp::Sle, R1, 0, done);
    a.leave_imm(JmpOp::Sle, R1, ch as i32 + 1, ok);
    movi(a, R1, ch as i32 + 1);
    a.bind(ok);
    a.ld_func(R2, cb);
    mov(a, R3, Reg::FP);
    addi(a, R3, CTX as i32);
    movi(a, R4, 0);
    a.call_helper(helper::LOOP);
    a.bind(done);
    ret0(a);
}

fn find_str_cb(a: &mut Asm, ch: u32, cn: u32, back: bool) {
    let (top, matched, miss) = (a.label(), a.label(), a.label());
    ld(a, R3, R2, 0);
    ld(a, R4, R3, A_0);
    let op = if back { AluOp::Sub } else { AluOp::Add };
    a.emit(Insn::alu64_reg(op, R4, R1));
    st(a, R3, A_CAND, R4);
    a.leave_imm(JmpOp::Ge, R4, ch as i32, miss);
    ld(a, R3, R2, 8);
    add(a, R3, R4);
    ld(a, R5, R2, 16);
    movi(a, R1, 0);
    a.bind(top);
    load_checked(a, R0, R5, R1, cn, matched);
    a.leave_imm(JmpOp::Eq, R0, 0, matched);
    mov(a, R4, R3);
    add(a, R4, R1);
    ldb(a, R4, R4);
    a.leave_reg(JmpOp::Ne, R4, R0, miss);
    addi(a, R1, 1);
    a.ja(top);
    a.bind(matched);
    ld(a, R3, R2, 0);
    ld(a, R4, R3, A_CAND);
    st(a, R3, A_RESULT, R4);
    movi(a, R0, 1);
    a.emit(Insn::exit());
    a.bind(miss);
    ret0(a);
}

fn byte_set(a: &mut Asm, cd: u32) {
    let (top, end) = (a.label(), a.label());
    for i in 0..4 {
        a.emit(Insn::st_mem(Size::DW, R1, A_SET + i * 8, 0));
    }
    movi(a, R0, 0);
    a.bind(top);
    load_checked(a, R3, R2, R0, cd, end);
    a.leave_imm(JmpOp::Eq, R3, 0, end);
    mov(a, R4, R3);
    a.emit(Insn::alu64_imm(AluOp::Rsh, R4, 3));
    add(a, R4, R1);
    a.emit(Insn::alu64_imm(AluOp::And, R3, 7));
    movi(a, R5, 1);
    a.emit(Insn::alu64_reg(AluOp::Lsh, R5, R3));
    a.emit(Insn::ldx_mem(Size::B, R3, R4, A_SET));
    a.emit(Insn::alu64_reg(AluOp::Or, R3, R5));
    a.emit(Insn::stx_mem(Size::B, R4, R3, A_SET));
    addi(a, R0, 1);
    a.ja(top);
    a.bind(end);
    ret0(a);
}

fn span(a: &mut Asm, cs: u32, want: bool) {
    let (top, end, end0) = (a.label(), a.label(), a.label());
    ld(a, R0, R1, A_0);
    a.bind(top);
    load_checked(a, R3, R2, R0, cs, end0);
    a.leave_imm(JmpOp::Eq, R3, 0, end);
    mov(a, R4, R3);
    a.emit(Insn::alu64_imm(AluOp::Rsh, R4, 3));
    add(a, R4, R1);
    a.emit(Insn::ldx_mem(Size::B, R4, R4, A_SET));
    mov(a, R5, R3);
    a.emit(Insn::alu64_imm(AluOp::And, R5, 7));
    a.emit(Insn::alu64_reg(AluOp::Rsh, R4, R5));
    a.emit(Insn::alu64_imm(AluOp::And, R4, 1));
    a.leave_imm(if want { JmpOp::Eq } else { JmpOp::Ne }, R4, 0, end);
    addi(a, R0, 1);
    a.ja(top);
    a.bind(end0);
    movi(a, R3, 0);
    a.bind(end);
    st(a, R1, A_0, R0);
    st(a, R1, A_1, R3);
    ret0(a);
}

fn rscan(a: &mut Asm, cs: u32, slash: bool) {
    let (top, end) = (a.label(), a.label());
    ld(a, R0, R1, A_0);
    a.bind(top);
    a.leave_imm(JmpOp::Slt, R0, 0, end);
    load_checked(a, R3, R2, R0, cs, end);
    let op = if slash { JmpOp::Ne } else { JmpOp::Eq };
    a.leave_imm(op, R3, b'/' as i32, end);
    addi(a, R0, -1);
    a.ja(top);
    a.bind(end);
    st(a, R1, A_0, R0);
    ret0(a);
}
