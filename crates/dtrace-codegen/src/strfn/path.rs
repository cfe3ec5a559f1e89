//! `basename` and `dirname` (`cleanpath` is in `clean.rs`): scans from the end with
//! the [`Subr::RScan`] subprogram. As `basename(1)`/`dirname(1)`: trailing slashes
//! do not count, a string of slashes gives "/", the empty string gives ".", and a
//! name without a slash has the directory ".".

use super::subr::{Subr, A_0, A_1, A_COUNT, A_RESULT};
use super::Buf;
use crate::gen::{Gen, Val};
use dtrace_bpf::{AluOp, Insn, JmpOp, Reg};
use dtrace_sema::StrFunc;

impl<'a> Gen<'a> {
    pub(crate) fn path_fn(&mut self, func: StrFunc, area: u32, s: Val, cs: u32, cd: u32) -> Val {
        if func == StrFunc::Cleanpath {
            return self.cleanpath(area, s, cs, cd);
        }
        let lim = self.str_lim();
        let src = Buf::Val(s);
        self.call_subr(Subr::Strlen { cs }, area, &[src]);
        self.a_load(Reg::R0, area, A_0);
        self.a_store(area, A_COUNT, Reg::R0);
        self.a.emit(Insn::alu64_imm(AluOp::Add, Reg::R0, -1));
        self.a_store(area, A_0, Reg::R0);
        // The last byte that is not a trailing slash.
        self.call_subr(Subr::RScan { cs, slash: true }, area, &[src]);
        let dst = self.tmp_str(cd);
        let (special, dot, slash, done) = (
            self.a.label(),
            self.a.label(),
            self.a.label(),
            self.a.label(),
        );
        self.a_load(Reg::R1, area, A_0);
        self.a.jmp_imm(JmpOp::Slt, Reg::R1, 0, special);
        self.a_store(area, A_RESULT, Reg::R1);
        // The slash before the last name.
        self.call_subr(Subr::RScan { cs, slash: false }, area, &[src]);
        let copy = Subr::CopyRange { cs, cd, lim };
        if func == StrFunc::Basename {
            self.a_load(Reg::R1, area, A_0);
            self.a_load(Reg::R2, area, A_RESULT);
            self.a.emit(Insn::alu64_reg(AluOp::Sub, Reg::R2, Reg::R1));
            self.a.emit(Insn::alu64_imm(AluOp::Add, Reg::R1, 1));
            self.a_store(area, A_0, Reg::R1);
            self.a_store(area, A_1, Reg::R2);
            self.call_subr(copy, area, &[Buf::Tmp(dst), src]);
        } else {
            self.a_load(Reg::R1, area, A_0);
            self.a.jmp_imm(JmpOp::Slt, Reg::R1, 0, dot);
            // The end of the directory part: slashes before the name skipped.
            self.call_subr(Subr::RScan { cs, slash: true }, area, &[src]);
            self.a_load(Reg::R1, area, A_0);
            self.a.jmp_imm(JmpOp::Slt, Reg::R1, 0, slash);
            self.a.emit(Insn::alu64_imm(AluOp::Add, Reg::R1, 1));
            self.a_store(area, A_1, Reg::R1);
            self.a_set(area, A_0, 0);
            self.call_subr(copy, area, &[Buf::Tmp(dst), src]);
        }
        self.a.ja(done);
        self.a.bind(special);
        self.a_load(Reg::R2, area, A_COUNT);
        self.a.jmp_imm(JmpOp::Eq, Reg::R2, 0, dot);
        self.a.bind(slash);
        let off = self.l.intern(b"/");
        self.copy_into(dst, cd, Buf::Lit(off), 8);
        self.a.ja(done);
        self.a.bind(dot);
        let off = self.l.intern(b".");
        self.copy_into(dst, cd, Buf::Lit(off), 8);
        self.a.bind(done);
        self.tmp_val(dst)
    }
}
