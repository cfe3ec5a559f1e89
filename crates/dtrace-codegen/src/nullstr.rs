//! The NULL string and string offsets. A string value is the address of a
//! NUL-padded buffer; NULL is a buffer starting with [`strings::NULL_WORD`], so
//! it is copied and stored like any string. What reads a string's characters asks
//! first: tracing, indexing or offsetting NULL, or passing it to a string
//! subroutine, is an invalid-address fault, as reading address 0 is in DTrace.

use crate::desc::FaultKind;
use crate::gen::{Gen, Val, DCTX};
use crate::strings::NULL_WORD;
use dtrace_bpf::{helper, AluOp, Insn, JmpOp, Reg, Size};
use dtrace_sema::TExpr;

impl<'a> Gen<'a> {
    /// The NULL string.
    pub fn null_str(&mut self) -> Val {
        let d = self.alloc(true);
        let w = self.work_reg(d, Reg::R0);
        self.a.ld_map_value(w, self.l.strtab, self.l.null_off);
        self.put(d, w);
        d
    }

    /// Fault (invalid address; 0 unless `addr_stored`, see
    /// [`Gen::stash_fault_addr`]) when the string at `s` is NULL. Clobbers `tmp`.
    pub fn fault_if_null(&mut self, s: Reg, tmp: Reg, addr_stored: bool) {
        self.a.emit(Insn::ldx_mem(Size::DW, tmp, s, 0));
        self.fault_unless_at(
            JmpOp::Ne,
            tmp,
            NULL_WORD as i32,
            FaultKind::BadAddr,
            addr_stored,
        );
    }

    /// [`Gen::fault_if_null`] on a string value (clobbers r0 and r1).
    pub fn fault_if_null_val(&mut self, v: Val) {
        let r = self.get(v, Reg::R1);
        self.fault_if_null(r, Reg::R0, false);
    }

    /// Make the string result `v` (a temporary) NULL when the dctx word at
    /// `flag` is negative (clobbers r1 and r2).
    pub fn null_if_negative(&mut self, v: Val, flag: u32) {
        let keep = self.a.label();
        self.a
            .emit(Insn::ldx_mem(Size::DW, Reg::R1, DCTX, flag as i16));
        self.a.jmp_imm(JmpOp::Sge, Reg::R1, 0, keep);
        let r = self.get(v, Reg::R2);
        self.a.mov_imm(Reg::R1, NULL_WORD as i64);
        self.a.emit(Insn::stx_mem(Size::DW, r, Reg::R1, 0));
        self.a.bind(keep);
    }

    /// `s + n`: a temporary holding the string from byte `n` of `s` on ("" when
    /// `n` is outside the buffer); NULL plus `n` faults at address `n`.
    pub fn str_offset(&mut self, s: &TExpr, off: &TExpr) -> Val {
        let cap = crate::expr::str_cap(&s.ty);
        let sv = self.expr(s);
        let nv = self.expr(off);
        let (p, n) = (Reg::R4, Reg::R5);
        let r = self.get(sv, p);
        if r != p {
            self.a.emit(Insn::mov64_reg(p, r));
        }
        let r = self.get(nv, n);
        if r != n {
            self.a.emit(Insn::mov64_reg(n, r));
        }
        self.free(nv);
        self.free(sv);
        self.stash_fault_addr(n);
        self.fault_if_null(p, Reg::R3, true);
        // The source as a plain number: it is only read through the helper.
        self.launder(p);
        let dst = self.tmp_str(cap);
        self.zero(DCTX, dst as i16, cap);
        let done = self.a.label();
        self.a.jmp_imm(JmpOp::Gt, n, cap as i32 - 1, done);
        self.a.emit(Insn::mov64_reg(Reg::R3, p));
        self.a.emit(Insn::alu64_reg(AluOp::Add, Reg::R3, n));
        self.a.emit(Insn::mov64_imm(Reg::R2, cap as i32));
        self.a.emit(Insn::alu64_reg(AluOp::Sub, Reg::R2, n));
        self.dctx_ptr(Reg::R1, dst);
        self.a.call_helper(helper::PROBE_READ_KERNEL);
        self.a.bind(done);
        // A copy cut at the end of the buffer keeps its final NUL.
        self.a
            .emit(Insn::st_mem(Size::B, DCTX, (dst + cap - 1) as i16, 0));
        self.tmp_val(dst)
    }
}
