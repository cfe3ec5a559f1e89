//! The D string subroutines. A call evaluates its arguments, then runs one or more
//! shared subprograms ([`subr`]) that talk through a small argument area `A` in the
//! statement's dctx temporaries; string results are NUL-padded dctx temporaries
//! of the result's capacity, at most `strsize` bytes long.
//!
//! Semantics (Dynamic Tracing Guide, "Subroutines"): `substr` with a negative index
//! counts from the end and a negative length stops that many bytes before the end;
//! `index`/`rindex` return -1 without a match and clamp a negative start to 0;
//! `strchr`, `strrchr`, `strstr` and `strtok` return NULL when nothing is found
//! (and a NULL string argument faults, as reading address 0); `strtok(NULL, d)` goes on
//! with the string of the previous call on this CPU; `lltostr`/`strtoll` take a
//! base from 2 to 36 (another base is an illegal operation); `basename` and
//! `dirname` treat trailing slashes as `basename(1)`/`dirname(1)` do.

/// Short names for the registers, shared by the string subprograms' hand-written code.
mod regs {
    use dtrace_bpf::Reg;
    pub const R0: Reg = Reg::R0;
    pub const R1: Reg = Reg::R1;
    pub const R2: Reg = Reg::R2;
    pub const R3: Reg = Reg::R3;
    pub const R4: Reg = Reg::R4;
    pub const R5: Reg = Reg::R5;
    pub const R6: Reg = Reg::R6;
    pub const R7: Reg = Reg::R7;
}
mod clean;
mod conv;
mod dpath;
mod inet;
mod path;
pub mod subr;
mod token;

use crate::desc::FaultKind;
use crate::expr::str_cap;
use crate::gen::{Gen, Val, DCTX};
use crate::strings;
use dtrace_bpf::{AluOp, Insn, JmpOp, Reg, Size};
use dtrace_sema::{StrFunc, TExpr, Ty};
use subr::{Subr, A_0, A_1, A_2, A_COUNT, A_RESULT};

/// Bytes of a call's argument area.
pub const A_SIZE: u32 = 80;

/// Where a subprogram's buffer argument comes from.
#[derive(Clone, Copy)]
pub(crate) enum Buf {
    Val(Val),
    /// A dctx offset.
    Tmp(u32),
    /// A string table offset.
    Lit(u32),
}

impl<'a> Gen<'a> {
    /// Maximum length of a string result: `strsize` (the NUL not counted).
    pub(crate) fn str_lim(&self) -> u32 {
        self.opts.strsize.clamp(1, 1 << 16)
    }

    pub(crate) fn a_load(&mut self, dst: Reg, area: u32, slot: i16) {
        self.a
            .emit(Insn::ldx_mem(Size::DW, dst, DCTX, area as i16 + slot));
    }

    pub(crate) fn a_store(&mut self, area: u32, slot: i16, src: Reg) {
        self.a
            .emit(Insn::stx_mem(Size::DW, DCTX, src, area as i16 + slot));
    }

    pub(crate) fn a_set(&mut self, area: u32, slot: i16, v: i32) {
        self.a
            .emit(Insn::st_mem(Size::DW, DCTX, area as i16 + slot, v));
    }

    fn buf_to(&mut self, b: Buf, r: Reg) {
        match b {
            Buf::Val(v) => {
                let x = self.get(v, r);
                if x != r {
                    self.a.emit(Insn::mov64_reg(r, x));
                }
            }
            Buf::Tmp(off) => self.dctx_ptr(r, off),
            Buf::Lit(off) => self.a.ld_map_value(r, self.l.strtab, off),
        }
    }

    /// Call subprogram `s` with r1 = the area, r2.. = `bufs`.
    pub(crate) fn call_subr(&mut self, s: Subr, area: u32, bufs: &[Buf]) {
        let id = self.l.subrs.id(s);
        for (b, r) in bufs.iter().zip([Reg::R2, Reg::R3, Reg::R4, Reg::R5]) {
            self.buf_to(*b, r);
        }
        self.dctx_ptr(Reg::R1, area);
        self.a.call_func(id);
    }

    /// Copy the string `src` (capacity `scap`) into the temporary `dst` (`dcap`).
    pub(crate) fn copy_into(&mut self, dst: u32, dcap: u32, src: Buf, scap: u32) {
        self.buf_to(src, Reg::R2);
        strings::copy(
            &mut self.a,
            DCTX,
            dst as i16,
            dcap,
            Reg::R2,
            0,
            scap,
            Reg::R3,
        );
    }

    /// A string value pointing at the temporary `off`.
    pub(crate) fn tmp_val(&mut self, off: u32) -> Val {
        let d = self.alloc(true);
        let w = self.work_reg(d, Reg::R0);
        self.dctx_ptr(w, off);
        self.put(d, w);
        d
    }

    /// An integer value from slot `slot` of the area, normalized to `ty`.
    fn area_int(&mut self, area: u32, slot: i16, ty: &Ty) -> Val {
        let d = self.alloc(false);
        let w = self.work_reg(d, Reg::R0);
        self.a_load(w, area, slot);
        let (size, signed) = crate::expr::int_parts(ty);
        crate::gen::normalize(&mut self.a, w, size, signed);
        self.put(d, w);
        d
    }

    /// Fault with "illegal operation" unless the base in `v` is 2..=36; leaves it
    /// in slot `A[1]`.
    fn base_arg(&mut self, area: u32, v: Option<Val>) {
        match v {
            Some(v) => {
                let r = self.get(v, Reg::R1);
                if r != Reg::R1 {
                    self.a.emit(Insn::mov64_reg(Reg::R1, r));
                }
                self.a_store(area, A_1, Reg::R1);
                self.a.emit(Insn::alu64_imm(AluOp::Add, Reg::R1, -2));
                self.fault_unless(JmpOp::Le, Reg::R1, 34, FaultKind::IllOp);
            }
            None => self.a_set(area, A_1, 10),
        }
    }

    /// `func(args)` of type `ty`.
    pub fn str_fn(&mut self, func: StrFunc, args: &[TExpr], ty: &Ty) -> Val {
        let vals: Vec<Val> = args.iter().map(|a| self.expr(a)).collect();
        // Reading the characters of NULL reads address 0 (strtok's first argument
        // aside: NULL there goes on with the previous string).
        for (i, (a, v)) in args.iter().zip(&vals).enumerate() {
            if a.ty.is_str() && !(func == StrFunc::Strtok && i == 0) {
                self.fault_if_null_val(*v);
            }
        }
        let caps: Vec<u32> = args.iter().map(|a| str_cap(&a.ty)).collect();
        let v = |i: usize| vals.get(i).copied();
        let cap = |i: usize| caps.get(i).copied().unwrap_or(8);
        let area = self.tmp_str(A_SIZE);
        let cd = str_cap(ty);
        let lim = self.str_lim();
        let out = match (func, v(0)) {
            (StrFunc::Strlen, Some(s)) => {
                self.call_subr(Subr::Strlen { cs: cap(0) }, area, &[Buf::Val(s)]);
                self.area_int(area, A_0, ty)
            }
            (StrFunc::Toupper | StrFunc::Tolower, Some(s)) => {
                let dst = self.tmp_str(cd);
                let upper = func == StrFunc::Toupper;
                let sub = Subr::Case {
                    cs: cap(0),
                    cd,
                    lim,
                    upper,
                };
                self.call_subr(sub, area, &[Buf::Tmp(dst), Buf::Val(s)]);
                self.tmp_val(dst)
            }
            (StrFunc::Strjoin, Some(s)) => {
                let dst = self.tmp_str(cd);
                self.copy_into(dst, cd, Buf::Val(s), cap(0));
                self.call_subr(Subr::Strlen { cs: cd }, area, &[Buf::Tmp(dst)]);
                if let Some(b) = v(1) {
                    let sub = Subr::Append { cb: cap(1), lim };
                    self.call_subr(sub, area, &[Buf::Tmp(dst), Buf::Val(b)]);
                }
                self.tmp_val(dst)
            }
            (StrFunc::Substr, Some(s)) => {
                self.call_subr(Subr::Strlen { cs: cap(0) }, area, &[Buf::Val(s)]);
                self.substr_range(area, v(1), v(2));
                self.copy_range(area, cd, Buf::Val(s), cap(0))
            }
            (StrFunc::Strchr | StrFunc::Strrchr, Some(s)) => {
                if let Some(c) = v(1) {
                    let r = self.get(c, Reg::R1);
                    self.a.emit(Insn::mov64_reg(Reg::R0, r));
                    self.a.emit(Insn::alu64_imm(AluOp::And, Reg::R0, 0xff));
                    self.a_store(area, A_1, Reg::R0);
                }
                let last = func == StrFunc::Strrchr;
                let sub = Subr::FindChr { cs: cap(0), last };
                self.call_subr(sub, area, &[Buf::Val(s)]);
                let found = self.keep_word(area, A_0);
                self.a_set(area, A_1, lim as i32);
                let out = self.copy_range(area, cd, Buf::Val(s), cap(0));
                self.null_if_negative(out, found);
                out
            }
            (StrFunc::Index | StrFunc::Rindex | StrFunc::Strstr, Some(s)) => {
                let t = v(1).unwrap_or(s);
                let back = func == StrFunc::Rindex;
                let start = if func == StrFunc::Strstr { None } else { v(2) };
                self.find_str(area, (s, cap(0)), (t, cap(1)), start, back);
                if func == StrFunc::Strstr {
                    let found = self.keep_word(area, A_RESULT);
                    self.a_load(Reg::R0, area, A_RESULT);
                    self.a_store(area, A_0, Reg::R0);
                    self.a_set(area, A_1, lim as i32);
                    let out = self.copy_range(area, cd, Buf::Val(s), cap(0));
                    self.null_if_negative(out, found);
                    out
                } else {
                    self.area_int(area, A_RESULT, ty)
                }
            }
            (StrFunc::Lltostr, Some(x)) => {
                let r = self.get(x, Reg::R1);
                self.a_store(area, A_0, r);
                self.base_arg(area, v(1));
                let dst = self.tmp_str(cd);
                self.call_subr(Subr::Lltostr { cd, lim }, area, &[Buf::Tmp(dst)]);
                self.tmp_val(dst)
            }
            (StrFunc::Strtoll, Some(s)) => {
                self.base_arg(area, v(1));
                let table = self.l.intern(&conv::digit_table());
                let sub = Subr::Strtoll { cs: cap(0) };
                self.call_subr(sub, area, &[Buf::Val(s), Buf::Lit(table)]);
                self.area_int(area, A_0, ty)
            }
            (StrFunc::Basename | StrFunc::Dirname | StrFunc::Cleanpath, Some(s)) => {
                self.path_fn(func, area, s, cap(0), cd)
            }
            (StrFunc::Strtok, Some(s)) => {
                let first = (!args[0].ty.is_int()).then_some((s, cap(0)));
                let d = v(1).unwrap_or(s);
                self.strtok(area, first, (d, cap(1)), cd)
            }
            _ => {
                let d = self.alloc(false);
                self.set_const(d, 0);
                d
            }
        };
        for v in vals {
            self.free(v);
        }
        out
    }

    /// A copy of the area's word `slot` in a temporary of its own; returns the
    /// temporary's offset.
    fn keep_word(&mut self, area: u32, slot: i16) -> u32 {
        let t = self.tmp_str(8);
        self.a_load(Reg::R0, area, slot);
        self.a
            .emit(Insn::stx_mem(Size::DW, DCTX, Reg::R0, t as i16));
        t
    }

    /// A fresh result of capacity `cd` holding `src[A[0] .. A[0] + A[1]]`.
    pub(crate) fn copy_range(&mut self, area: u32, cd: u32, src: Buf, cs: u32) -> Val {
        let dst = self.tmp_str(cd);
        let lim = self.str_lim();
        let sub = Subr::CopyRange { cs, cd, lim };
        self.call_subr(sub, area, &[Buf::Tmp(dst), src]);
        self.tmp_val(dst)
    }

    /// `substr`'s start and count from the length in `A[0]`, as DTrace computes
    /// them, into `A[0]` and `A[1]`.
    fn substr_range(&mut self, area: u32, idx: Option<Val>, cnt: Option<Val>) {
        let (i, n, len) = (Reg::R1, Reg::R2, Reg::R3);
        let size = self.opts.strsize.clamp(1, 1 << 16) as i32;
        if let Some(c) = cnt {
            let r = self.get(c, n);
            if r != n {
                self.a.emit(Insn::mov64_reg(n, r));
            }
        } else {
            self.a.emit(Insn::mov64_imm(n, size));
        }
        match idx {
            Some(x) => {
                let r = self.get(x, i);
                if r != i {
                    self.a.emit(Insn::mov64_reg(i, r));
                }
            }
            None => self.a.emit(Insn::mov64_imm(i, 0)),
        }
        self.a_load(len, area, A_0);
        let (nonneg, check, empty, neg_cnt, store) = (
            self.a.label(),
            self.a.label(),
            self.a.label(),
            self.a.label(),
            self.a.label(),
        );
        self.a.jmp_imm(JmpOp::Sge, i, 0, nonneg);
        self.a.emit(Insn::alu64_reg(AluOp::Add, i, len));
        self.a.jmp_imm(JmpOp::Sge, i, 0, check);
        self.a.emit(Insn::mov64_reg(Reg::R4, i));
        self.a.emit(Insn::alu64_reg(AluOp::Add, Reg::R4, n));
        self.a.jmp_imm(JmpOp::Sle, Reg::R4, 0, check);
        self.a.emit(Insn::mov64_reg(n, Reg::R4));
        self.a.emit(Insn::mov64_imm(i, 0));
        self.a.bind(nonneg);
        self.a.bind(check);
        self.a.jmp_reg(JmpOp::Sge, i, len, empty);
        self.a.jmp_imm(JmpOp::Slt, i, 0, empty);
        self.a.jmp_imm(JmpOp::Slt, n, 0, neg_cnt);
        self.a.emit(Insn::mov64_reg(Reg::R4, i));
        self.a.emit(Insn::alu64_reg(AluOp::Add, Reg::R4, n));
        self.a.jmp_imm(JmpOp::Sle, Reg::R4, size, store);
        self.a.emit(Insn::mov64_imm(n, size));
        self.a.emit(Insn::alu64_reg(AluOp::Sub, n, i));
        self.a.ja(store);
        self.a.bind(neg_cnt);
        self.a.emit(Insn::alu64_reg(AluOp::Add, n, len));
        self.a.emit(Insn::alu64_reg(AluOp::Sub, n, i));
        self.a.ja(store);
        self.a.bind(empty);
        self.a.emit(Insn::mov64_imm(n, 0));
        self.a.bind(store);
        self.a_store(area, A_0, i);
        self.a_store(area, A_1, n);
    }

    /// `index`/`rindex` of `t` in `s` from `start`: `A[RESULT]` = the position or -1.
    fn find_str(
        &mut self,
        area: u32,
        (s, cs): (Val, u32),
        (t, ct): (Val, u32),
        start: Option<Val>,
        back: bool,
    ) {
        self.call_subr(Subr::Strlen { cs }, area, &[Buf::Val(s)]);
        self.a_load(Reg::R0, area, A_0);
        self.a_store(area, A_2, Reg::R0);
        self.call_subr(Subr::Strlen { cs: ct }, area, &[Buf::Val(t)]);
        // r1 = last candidate (hlen - nlen), r2 = start.
        let (last, st) = (Reg::R1, Reg::R2);
        self.a_load(last, area, A_2);
        self.a_load(Reg::R0, area, A_0);
        self.a.emit(Insn::alu64_reg(AluOp::Sub, last, Reg::R0));
        match start {
            Some(x) => {
                let r = self.get(x, st);
                if r != st {
                    self.a.emit(Insn::mov64_reg(st, r));
                }
            }
            None if back => self.a.emit(Insn::mov64_reg(st, last)),
            None => self.a.emit(Insn::mov64_imm(st, 0)),
        }
        let ok = self.a.label();
        self.a.jmp_imm(JmpOp::Sge, st, 0, ok);
        self.a.emit(Insn::mov64_imm(st, 0));
        self.a.bind(ok);
        if back {
            // Candidates min(start, last) down to 0.
            let keep = self.a.label();
            self.a.jmp_reg(JmpOp::Sle, st, last, keep);
            self.a.emit(Insn::mov64_reg(st, last));
            self.a.bind(keep);
            self.a_store(area, A_0, st);
            self.a.emit(Insn::alu64_imm(AluOp::Add, st, 1));
            self.a_store(area, A_COUNT, st);
        } else {
            // Candidates start up to last.
            self.a_store(area, A_0, st);
            self.a.emit(Insn::alu64_reg(AluOp::Sub, last, st));
            self.a.emit(Insn::alu64_imm(AluOp::Add, last, 1));
            self.a_store(area, A_COUNT, last);
        }
        self.a_set(area, A_RESULT, -1);
        // The haystack padded so that a candidate's compare stays in the buffer.
        let hay = self.tmp_str(cs + ct);
        self.copy_into(hay, cs + ct, Buf::Val(s), cs);
        let sub = Subr::FindStr {
            ch: cs,
            cn: ct,
            back,
        };
        self.call_subr(sub, area, &[Buf::Tmp(hay), Buf::Val(t)]);
    }
}
