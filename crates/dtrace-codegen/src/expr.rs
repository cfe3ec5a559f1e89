//! Expressions: each is evaluated into a temporary ([`Val`]) holding a normalized
//! integer or a pointer to a NUL-padded string buffer.

use crate::desc::FaultKind;
use crate::gen::{normalize, Gen, Val};
use crate::strings;
use dtrace_bpf::{AluOp, Insn, JmpOp, Reg, Size};
use dtrace_sema::{ArithOp, CmpOp, LogicOp, TExpr, TExprKind, Ty};

pub fn int_parts(t: &Ty) -> (u8, bool) {
    match t {
        Ty::Int { size, signed, .. } => (*size, *signed),
        _ => (8, false),
    }
}

pub fn str_cap(t: &Ty) -> u32 {
    match t {
        Ty::Str { cap } => *cap,
        _ => 8,
    }
}

fn cmp_jmp(op: CmpOp, signed: bool) -> JmpOp {
    match (op, signed) {
        (CmpOp::Lt, true) => JmpOp::Slt,
        (CmpOp::Le, true) => JmpOp::Sle,
        (CmpOp::Gt, true) => JmpOp::Sgt,
        (CmpOp::Ge, true) => JmpOp::Sge,
        (CmpOp::Lt, false) => JmpOp::Lt,
        (CmpOp::Le, false) => JmpOp::Le,
        (CmpOp::Gt, false) => JmpOp::Gt,
        (CmpOp::Ge, false) => JmpOp::Ge,
        (CmpOp::Eq, _) => JmpOp::Eq,
        (CmpOp::Ne, _) => JmpOp::Ne,
    }
}

/// The comparison that holds exactly when `op` does not.
fn negated(op: CmpOp) -> CmpOp {
    match op {
        CmpOp::Lt => CmpOp::Ge,
        CmpOp::Le => CmpOp::Gt,
        CmpOp::Gt => CmpOp::Le,
        CmpOp::Ge => CmpOp::Lt,
        CmpOp::Eq => CmpOp::Ne,
        CmpOp::Ne => CmpOp::Eq,
    }
}

impl<'a> Gen<'a> {
    pub fn expr(&mut self, e: &TExpr) -> Val {
        match &e.kind {
            TExprKind::Int(v) => {
                let d = self.alloc(false);
                let r = self.work_reg(d, Reg::R0);
                self.a.mov_imm(r, *v);
                self.put(d, r);
                d
            }
            TExprKind::Str(id) => {
                let s = self
                    .tp
                    .strings
                    .get(*id as usize)
                    .cloned()
                    .unwrap_or_default();
                self.str_literal(&s)
            }
            TExprKind::Builtin(b) => self.builtin(*b, &e.ty),
            TExprKind::Stack { frames, kind, .. } => self.stack_value(*frames, *kind),
            TExprKind::UserSym { addr, .. } => self.user_sym_value(addr),
            TExprKind::Var(v) => self.load_var(*v, &e.ty),
            TExprKind::ArrayGet { array, keys } => self.array_get(*array, keys, &e.ty),
            TExprKind::Convert(x) => {
                let v = self.expr(x);
                if let (Ty::Int { size, signed, .. }, Ty::Int { .. } | Ty::Ptr { .. }) =
                    (e.ty, x.ty)
                {
                    let r = self.get(v, Reg::R0);
                    let w = self.work_reg(v, Reg::R0);
                    if r != w {
                        self.a.emit(Insn::mov64_reg(w, r));
                    }
                    normalize(&mut self.a, w, size, signed);
                    self.put(v, w);
                }
                if let (Ty::Str { cap: to }, Ty::Str { cap: from }) = (e.ty, x.ty) {
                    if to > from {
                        // Widen into a padded temporary so readers may use `to` bytes.
                        let tmp = self.tmp_str(to);
                        let r = self.get(v, Reg::R2);
                        strings::copy(
                            &mut self.a,
                            crate::gen::DCTX,
                            tmp as i16,
                            to,
                            r,
                            0,
                            from,
                            Reg::R3,
                        );
                        let w = self.work_reg(v, Reg::R0);
                        self.dctx_ptr(w, tmp);
                        self.put(v, w);
                    }
                }
                v
            }
            TExprKind::Neg(x) | TExprKind::BitNot(x) => {
                let v = self.expr(x);
                let r = self.get(v, Reg::R0);
                let w = self.work_reg(v, Reg::R0);
                if r != w {
                    self.a.emit(Insn::mov64_reg(w, r));
                }
                if matches!(e.kind, TExprKind::Neg(_)) {
                    self.a.emit(Insn::neg64(w));
                } else {
                    self.a.emit(Insn::alu64_imm(AluOp::Xor, w, -1));
                }
                let (size, signed) = int_parts(&e.ty);
                normalize(&mut self.a, w, size, signed);
                self.put(v, w);
                v
            }
            TExprKind::LogNot(x) => {
                let d = self.alloc(false);
                let f = self.a.label();
                let end = self.a.label();
                self.branch_if_false(x, f);
                self.set_const(d, 0);
                self.a.ja(end);
                self.a.bind(f);
                self.set_const(d, 1);
                self.a.bind(end);
                d
            }
            TExprKind::Arith { op, lhs, rhs } => {
                let l = self.expr(lhs);
                let r = self.expr(rhs);
                self.arith_vals(*op, l, r, &e.ty);
                self.free(r);
                l
            }
            TExprKind::Cmp { op, lhs, rhs } => {
                let l = self.expr(lhs);
                let r = self.expr(rhs);
                let signed = lhs.ty.signed();
                let rl = self.get(l, Reg::R1);
                let rr = self.get(r, Reg::R2);
                let t = self.a.label();
                let end = self.a.label();
                self.a.jmp_reg(cmp_jmp(*op, signed), rl, rr, t);
                self.free(r);
                self.set_const(l, 0);
                self.a.ja(end);
                self.a.bind(t);
                self.set_const(l, 1);
                self.a.bind(end);
                l
            }
            TExprKind::StrCmp { op, lhs, rhs } => {
                let l = self.expr(lhs);
                let r = self.expr(rhs);
                let rl = self.get(l, Reg::R1);
                let rr = self.get(r, Reg::R2);
                let (rl, rr) = self.avoid_cmp_regs(rl, rr);
                strings::compare(&mut self.a, rl, str_cap(&lhs.ty), rr, str_cap(&rhs.ty));
                self.free(r);
                self.free(l);
                let d = self.alloc(false);
                let t = self.a.label();
                let end = self.a.label();
                self.a.jmp_imm(cmp_jmp(*op, true), Reg::R0, 0, t);
                self.set_const(d, 0);
                self.a.ja(end);
                self.a.bind(t);
                self.set_const(d, 1);
                self.a.bind(end);
                d
            }
            TExprKind::Logic { op, lhs, rhs } => {
                let d = self.alloc(false);
                let f = self.a.label();
                let t = self.a.label();
                let end = self.a.label();
                match op {
                    LogicOp::And => {
                        self.branch_if_false(lhs, f);
                        self.branch_if_false(rhs, f);
                        self.a.ja(t);
                    }
                    LogicOp::Or => {
                        let l_false = self.a.label();
                        self.branch_if_false(lhs, l_false);
                        self.a.ja(t);
                        self.a.bind(l_false);
                        self.branch_if_false(rhs, f);
                        self.a.ja(t);
                    }
                    LogicOp::Xor => {
                        let lv = self.truth(lhs);
                        let rv = self.truth(rhs);
                        let a = self.get(lv, Reg::R1);
                        let b = self.get(rv, Reg::R2);
                        self.a.jmp_reg(JmpOp::Ne, a, b, t);
                        self.free(rv);
                        self.free(lv);
                        self.a.ja(f);
                    }
                }
                self.a.bind(f);
                self.set_const(d, 0);
                self.a.ja(end);
                self.a.bind(t);
                self.set_const(d, 1);
                self.a.bind(end);
                d
            }
            TExprKind::Ternary { cond, then, els } => {
                let d = self.alloc(e.ty.is_str());
                let f = self.a.label();
                let end = self.a.label();
                self.branch_if_false(cond, f);
                let v = self.expr(then);
                let r = self.get(v, Reg::R0);
                self.put(d, r);
                self.free(v);
                self.a.ja(end);
                self.a.bind(f);
                let v = self.expr(els);
                let r = self.get(v, Reg::R0);
                self.put(d, r);
                self.free(v);
                self.a.bind(end);
                d
            }
            TExprKind::Comma(l, r) => {
                let v = self.expr(l);
                self.free(v);
                self.expr(r)
            }
            TExprKind::Assign { lv, op, rhs } => self.assign(lv, op.as_ref(), rhs, &e.ty),
            TExprKind::IncDec {
                lv,
                inc,
                post,
                step,
            } => self.incdec(lv, *inc, *post, *step, &e.ty),
            TExprKind::Load(addr) => self.load(addr, &e.ty),
            TExprKind::LoadBits {
                addr,
                size,
                shift,
                width,
            } => self.load_bits(addr, *size, *shift, *width, &e.ty),
            TExprKind::KStr { addr, max } => self.kstr(addr, *max, &e.ty),
            TExprKind::UserArgs { start, end } => self.user_args(start, end, &e.ty),
            TExprKind::UserWord(addr) => self.user_word(addr),
            TExprKind::CurCpu => self.curcpu(),
            TExprKind::URegs(n) => self.uregs(*n),
            TExprKind::CheckIndex { index, len } => self.check_index(index, *len),
            TExprKind::NotNull(p) => self.not_null(p),
            TExprKind::Build { size, members } => self.build(*size, members),
            TExprKind::Speculation => self.speculation(),
            TExprKind::ByteSwap(v) => self.byte_swap(v, e.ty.size() * 8),
            TExprKind::Rand => self.rand(),
            TExprKind::Inet6 { groups, prefix } => self.inet6(groups, *prefix, &e.ty),
            TExprKind::Progenyof(pid) => self.progenyof(pid),
            TExprKind::DPath { mnt, dentry, offs } => self.d_path(mnt, dentry, offs, &e.ty),
            TExprKind::StrFn { func, args } => self.str_fn(*func, args, &e.ty),
            TExprKind::Alloca(size) => self.alloca(size),
            TExprKind::CopyIn { addr, size } => self.copyin(addr, size),
            TExprKind::CopyInStr { addr, max } => self.copyinstr(addr, max.as_deref(), &e.ty),
            TExprKind::CopyInto { addr, size, dest } => self.copyinto(addr, size, dest),
            TExprKind::Bcopy {
                src,
                dest,
                size,
                src_scratch,
            } => self.bcopy(src, dest, size, *src_scratch),
            TExprKind::CopyOut {
                src,
                addr,
                size,
                string,
            } => self.copyout(src, addr, size, *string),
            TExprKind::LoadScratch(addr) => self.load_scratch(addr, &e.ty),
            TExprKind::StrIndex { s, index } => self.str_index(s, index),
            TExprKind::NullStr => self.null_str(),
            TExprKind::StrOffset { s, off } => self.str_offset(s, off),
            TExprKind::ScratchStr { addr, max } => self.scratch_str(addr, *max, &e.ty),
        }
    }

    /// Keep string pointers out of r0/r3/r4 for [`strings::compare`].
    fn avoid_cmp_regs(&mut self, a: Reg, b: Reg) -> (Reg, Reg) {
        let bad = |r: Reg| r == Reg::R0 || r == Reg::R3 || r == Reg::R4;
        let a = if bad(a) {
            self.a.emit(Insn::mov64_reg(Reg::R1, a));
            Reg::R1
        } else {
            a
        };
        let b = if bad(b) {
            self.a.emit(Insn::mov64_reg(Reg::R2, b));
            Reg::R2
        } else {
            b
        };
        (a, b)
    }

    pub fn set_const(&mut self, d: Val, v: i64) {
        let w = self.work_reg(d, Reg::R0);
        self.a.mov_imm(w, v);
        self.put(d, w);
    }

    /// `l = l op r` in type `ty` (operands already converted), faulting on a zero
    /// divisor.
    pub fn arith_vals(&mut self, op: ArithOp, l: Val, r: Val, ty: &Ty) {
        let (size, signed) = int_parts(ty);
        let rr = self.get(r, Reg::R2);
        let rl = self.get(l, Reg::R1);
        let w = self.work_reg(l, Reg::R1);
        if rl != w {
            self.a.emit(Insn::mov64_reg(w, rl));
        }
        if matches!(op, ArithOp::Div | ArithOp::Mod) {
            self.fault_unless(JmpOp::Ne, rr, 0, FaultKind::DivZero);
        }
        let insn = match (op, signed) {
            (ArithOp::Add, _) => Insn::alu64_reg(AluOp::Add, w, rr),
            (ArithOp::Sub, _) => Insn::alu64_reg(AluOp::Sub, w, rr),
            (ArithOp::Mul, _) => Insn::alu64_reg(AluOp::Mul, w, rr),
            (ArithOp::Div, true) => Insn::sdivmod64_reg(false, w, rr),
            (ArithOp::Div, false) => Insn::alu64_reg(AluOp::Div, w, rr),
            (ArithOp::Mod, true) => Insn::sdivmod64_reg(true, w, rr),
            (ArithOp::Mod, false) => Insn::alu64_reg(AluOp::Mod, w, rr),
            (ArithOp::Shl, _) => Insn::alu64_reg(AluOp::Lsh, w, rr),
            (ArithOp::Shr, true) => Insn::alu64_reg(AluOp::Arsh, w, rr),
            (ArithOp::Shr, false) => Insn::alu64_reg(AluOp::Rsh, w, rr),
            (ArithOp::And, _) => Insn::alu64_reg(AluOp::And, w, rr),
            (ArithOp::Or, _) => Insn::alu64_reg(AluOp::Or, w, rr),
            (ArithOp::Xor, _) => Insn::alu64_reg(AluOp::Xor, w, rr),
        };
        self.a.emit(insn);
        if matches!(op, ArithOp::Mod) && signed {
            // DTrace's signed remainder: |l| % |r|, negative when the operands'
            // signs differ; BPF's (C's) takes the dividend's sign, so negate it
            // when the divisor is negative.
            let done = self.a.label();
            self.a.jmp_imm(JmpOp::Sge, rr, 0, done);
            self.a.emit(Insn::neg64(w));
            self.a.bind(done);
        }
        normalize(&mut self.a, w, size, signed);
        self.put(l, w);
    }

    /// Evaluate `e` and jump to `target` when it is false (0 or "").
    pub fn branch_if_false(&mut self, e: &TExpr, target: dtrace_bpf_label::Label) {
        if let TExprKind::Cmp { op, lhs, rhs } = &e.kind {
            // A comparison branches on the opposite test directly, without
            // making its 0 or 1 first (a predicate's usual form).
            let signed = lhs.ty.signed();
            let jmp = cmp_jmp(negated(*op), signed);
            let l = self.expr(lhs);
            let small = match rhs.kind {
                TExprKind::Int(v) => i32::try_from(v).ok().filter(|v| *v >= 0),
                _ => None,
            };
            if let Some(imm) = small {
                let rl = self.get(l, Reg::R1);
                self.a.jmp_imm(jmp, rl, imm, target);
            } else {
                let r = self.expr(rhs);
                let rl = self.get(l, Reg::R1);
                let rr = self.get(r, Reg::R2);
                self.a.jmp_reg(jmp, rl, rr, target);
                self.free(r);
            }
            self.free(l);
            return;
        }
        let v = self.expr(e);
        let r = self.get(v, Reg::R1);
        if e.ty.is_str() {
            self.a.emit(Insn::ldx_mem(Size::B, Reg::R1, r, 0));
            self.a.jmp_imm(JmpOp::Eq, Reg::R1, 0, target);
        } else {
            self.a.jmp_imm(JmpOp::Eq, r, 0, target);
        }
        self.free(v);
    }

    /// Evaluate `e` to 0 or 1.
    fn truth(&mut self, e: &TExpr) -> Val {
        let d = self.alloc(false);
        let f = self.a.label();
        let end = self.a.label();
        self.branch_if_false(e, f);
        self.set_const(d, 1);
        self.a.ja(end);
        self.a.bind(f);
        self.set_const(d, 0);
        self.a.bind(end);
        d
    }

    /// A pointer to a string literal in the read-only string table.
    pub fn str_literal(&mut self, s: &[u8]) -> Val {
        let off = self.l.intern(s);
        let d = self.alloc(true);
        let w = self.work_reg(d, Reg::R0);
        self.a.ld_map_value(w, self.l.strtab, off);
        self.put(d, w);
        d
    }
}

/// Alias so signatures read naturally.
mod dtrace_bpf_label {
    pub use crate::asm::Label;
}
