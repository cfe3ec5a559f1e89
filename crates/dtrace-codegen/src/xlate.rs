//! Code for translations and the library intrinsics: whole translated structs
//! built in scratch memory ([`TExprKind::Build`]), `__dt_uargs`
//! ([`TExprKind::UserArgs`]), a process's argument area read from user memory,
//! and `__dt_uword` (`TExprKind::UserWord`), one word of user memory.
//!
//! Struct and string results live in the dctx string-temporary area (reset per statement);
//! the expression's value is a pointer to it.
//!
//! [`TExprKind::Build`]: dtrace_sema::TExprKind::Build
//! [`TExprKind::UserArgs`]: dtrace_sema::TExprKind::UserArgs

use crate::desc::FaultKind;
use crate::expr::str_cap;
use crate::gen::{Gen, Val, DCTX, FP_SCRATCH};
use crate::layout::round8;
use dtrace_bpf::{helper, AluOp, Insn, JmpOp, Reg, Size};
use dtrace_sema::{BuildMember, TExpr, Ty};

impl<'a> Gen<'a> {
    /// `__dt_uargs(start, end)`: `min(end - start, cap - 1)` bytes of current user
    /// memory at `start`, each NUL but the last byte read made a space.
    pub fn user_args(&mut self, start: &TExpr, end: &TExpr, ty: &Ty) -> Val {
        let cap = str_cap(ty).max(8);
        let tmp = self.tmp_str(cap);
        self.zero(DCTX, tmp as i16, cap);
        let s = self.expr(start);
        let e = self.expr(end);
        let re = self.get(e, Reg::R2);
        if re != Reg::R2 {
            self.a.emit(Insn::mov64_reg(Reg::R2, re));
        }
        let rs = self.get(s, Reg::R3);
        if rs != Reg::R3 {
            self.a.emit(Insn::mov64_reg(Reg::R3, rs));
        }
        self.free(e);
        self.free(s);
        let done = self.a.label();
        let clamped = self.a.label();
        // r2 = clamp(end - start, .., cap - 1); nothing to read when <= 0.
        self.a.emit(Insn::alu64_reg(AluOp::Sub, Reg::R2, Reg::R3));
        self.a.jmp_imm(JmpOp::Sle, Reg::R2, 0, done);
        let max = (cap - 1) as i32;
        self.a.jmp_imm(JmpOp::Le, Reg::R2, max, clamped);
        self.a.emit(Insn::mov64_imm(Reg::R2, max));
        self.a.bind(clamped);
        self.a
            .emit(Insn::stx_mem(Size::DW, Reg::FP, Reg::R2, FP_SCRATCH));
        self.dctx_ptr(Reg::R1, tmp);
        self.a.call_helper(helper::PROBE_READ_USER);
        let read = self.a.label();
        self.a.jmp_imm(JmpOp::Eq, Reg::R0, 0, read);
        self.zero(DCTX, tmp as i16, cap);
        self.a.ja(done);
        self.a.bind(read);
        // r5 = bytes read - 1: positions below it that hold NUL become spaces.
        self.a
            .emit(Insn::ldx_mem(Size::DW, Reg::R5, Reg::FP, FP_SCRATCH));
        self.a.emit(Insn::alu64_imm(AluOp::Sub, Reg::R5, 1));
        for i in 0..(cap - 2) {
            let next = self.a.label();
            let off = (tmp + i) as i16;
            self.a.jmp_imm(JmpOp::Le, Reg::R5, i as i32, done);
            self.a.emit(Insn::ldx_mem(Size::B, Reg::R4, DCTX, off));
            self.a.jmp_imm(JmpOp::Ne, Reg::R4, 0, next);
            self.a.emit(Insn::st_mem(Size::B, DCTX, off, b' ' as i32));
            self.a.bind(next);
        }
        self.a.bind(done);
        let d = self.alloc(true);
        let w = self.work_reg(d, Reg::R0);
        self.dctx_ptr(w, tmp);
        self.put(d, w);
        d
    }

    /// `__dt_uword(addr)`: a user-memory word, 0 when unreadable.
    pub fn user_word(&mut self, addr: &TExpr) -> Val {
        let v = self.expr(addr);
        let r = self.get(v, Reg::R3);
        if r != Reg::R3 {
            self.a.emit(Insn::mov64_reg(Reg::R3, r));
        }
        self.a.emit(Insn::st_mem(Size::DW, Reg::FP, FP_SCRATCH, 0));
        self.a.emit(Insn::mov64_reg(Reg::R1, Reg::FP));
        self.a
            .emit(Insn::alu64_imm(AluOp::Add, Reg::R1, FP_SCRATCH as i32));
        self.a.emit(Insn::mov64_imm(Reg::R2, 8));
        self.a.call_helper(helper::PROBE_READ_USER);
        let w = self.work_reg(v, Reg::R0);
        let ok = self.a.label();
        let end = self.a.label();
        self.a.jmp_imm(JmpOp::Eq, Reg::R0, 0, ok);
        self.a.emit(Insn::mov64_imm(w, 0));
        self.a.ja(end);
        self.a.bind(ok);
        self.a.emit(Insn::ldx_mem(Size::DW, w, Reg::FP, FP_SCRATCH));
        self.a.bind(end);
        self.put(v, w);
        v
    }

    /// A whole translated struct: zeroed scratch, each member stored at its offset.
    pub fn build(&mut self, size: u32, members: &[BuildMember]) -> Val {
        let cap = round8(size.max(1));
        let tmp = self.tmp_str(cap);
        self.zero(DCTX, tmp as i16, cap);
        for m in members {
            let at = tmp + m.offset;
            match m.value.ty {
                Ty::Int { .. } | Ty::Ptr { .. } => {
                    let v = self.expr(&m.value);
                    let r = self.get(v, Reg::R1);
                    let sz = Size::from_bytes(m.size).unwrap_or(Size::DW);
                    self.a.emit(Insn::stx_mem(sz, DCTX, r, at as i16));
                    self.free(v);
                }
                Ty::Str { cap: scap } => {
                    let v = self.expr(&m.value);
                    let r = self.get(v, Reg::R2);
                    // At most size - 1 bytes: the member keeps a final NUL.
                    let n = scap.min(m.size.saturating_sub(1));
                    let mut i = 0;
                    while i < n {
                        let wide = (at + i) % 8 == 0 && i + 8 <= n;
                        let (sz, step) = if wide { (Size::DW, 8) } else { (Size::B, 1) };
                        self.a.emit(Insn::ldx_mem(sz, Reg::R3, r, i as i16));
                        self.a
                            .emit(Insn::stx_mem(sz, DCTX, Reg::R3, (at + i) as i16));
                        i += step;
                    }
                    self.free(v);
                }
                Ty::Agg { .. } => {
                    let v = self.expr(&m.value);
                    let r = self.get(v, Reg::R3);
                    if r != Reg::R3 {
                        self.a.emit(Insn::mov64_reg(Reg::R3, r));
                    }
                    self.stash_fault_addr(Reg::R3);
                    self.free(v);
                    self.dctx_ptr(Reg::R1, at);
                    self.a.emit(Insn::mov64_imm(Reg::R2, m.size as i32));
                    self.a.call_helper(helper::PROBE_READ_KERNEL);
                    self.fault_unless_at(JmpOp::Eq, Reg::R0, 0, FaultKind::BadAddr, true);
                }
                Ty::Void | Ty::Stack { .. } => {}
            }
        }
        let d = self.alloc(true);
        let w = self.work_reg(d, Reg::R0);
        self.dctx_ptr(w, tmp);
        self.put(d, w);
        d
    }
}
