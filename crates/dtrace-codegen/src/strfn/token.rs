//! `strtok`: the string being split and the position reached live in dctx's
//! strtok area, so `strtok(NULL, delim)` goes on where the previous call stopped.
//! The position is clause-local, as DTrace documents ("it behaves like an
//! implicit clause-local variable"): every clause starts with it NULL (-1), and
//! `strtok(NULL, delim)` then reads address 0, an invalid-address fault. A token
//! ends at (not after) the delimiter that ends it: the next call skips leading
//! delimiters of its own set, which may differ.
//! Delimiters are a 256-bit set built from `delim` ([`Subr::ByteSet`]); tokens
//! are found with two [`Subr::Span`] scans, as C's `strspn`/`strcspn`. With no
//! token left the result is NULL.

use super::subr::{Subr, A_0, A_1, A_RESULT};
use super::Buf;
use crate::desc::FaultKind;
use crate::gen::{Gen, Val};
use dtrace_bpf::{AluOp, Insn, JmpOp, Reg, Size};

impl<'a> Gen<'a> {
    /// `strtok(first, delim)`; `first` is `None` for `strtok(NULL, delim)`.
    pub(crate) fn strtok(
        &mut self,
        area: u32,
        first: Option<(Val, u32)>,
        (d, cdl): (Val, u32),
        cd: u32,
    ) -> Val {
        self.uses_strtok = true;
        let cap = self.l.str_cap;
        let pos = self.l.strtok_area;
        let buf = pos + 8;
        if let Some((s, cs)) = first {
            self.copy_into(buf, cap, Buf::Val(s), cs);
            self.a
                .emit(Insn::st_mem(Size::DW, crate::gen::DCTX, pos as i16, 0));
        } else {
            self.a.emit(Insn::ldx_mem(
                Size::DW,
                Reg::R0,
                crate::gen::DCTX,
                pos as i16,
            ));
            self.a.emit(Insn::st_mem(
                Size::DW,
                crate::gen::DCTX,
                crate::layout::D_FAULT_ADDR,
                0,
            ));
            self.fault_unless_at(JmpOp::Sge, Reg::R0, 0, FaultKind::BadAddr, true);
        }
        self.call_subr(Subr::ByteSet { cd: cdl }, area, &[Buf::Val(d)]);
        self.a.emit(Insn::ldx_mem(
            Size::DW,
            Reg::R0,
            crate::gen::DCTX,
            pos as i16,
        ));
        self.a_store(area, A_0, Reg::R0);
        // Skip delimiters: the token starts where this stops.
        self.call_subr(
            Subr::Span {
                cs: cap,
                want: true,
            },
            area,
            &[Buf::Tmp(buf)],
        );
        let (none, copy) = (self.a.label(), self.a.label());
        // Negative when no token is left: the result is then NULL.
        let flag = self.tmp_str(8);
        self.a
            .emit(Insn::st_mem(Size::DW, crate::gen::DCTX, flag as i16, 0));
        self.a_load(Reg::R0, area, A_0);
        self.a_store(area, A_RESULT, Reg::R0);
        self.a_load(Reg::R1, area, A_1);
        self.a.jmp_imm(JmpOp::Eq, Reg::R1, 0, none);
        // The token ends at the next delimiter or the NUL.
        self.call_subr(
            Subr::Span {
                cs: cap,
                want: false,
            },
            area,
            &[Buf::Tmp(buf)],
        );
        let (end, start) = (Reg::R2, Reg::R3);
        self.a_load(end, area, A_0);
        self.a_load(start, area, A_RESULT);
        self.a
            .emit(Insn::stx_mem(Size::DW, crate::gen::DCTX, end, pos as i16));
        self.a.emit(Insn::alu64_reg(AluOp::Sub, end, start));
        self.a_store(area, A_0, start);
        self.a_store(area, A_1, end);
        self.a.ja(copy);
        self.a.bind(none);
        self.a.emit(Insn::stx_mem(
            Size::DW,
            crate::gen::DCTX,
            Reg::R0,
            pos as i16,
        ));
        self.a_set(area, A_1, 0);
        self.a
            .emit(Insn::st_mem(Size::DW, crate::gen::DCTX, flag as i16, -1));
        self.a.bind(copy);
        let out = self.copy_range(area, cd, Buf::Tmp(buf), cap);
        self.null_if_negative(out, flag);
        out
    }
}
