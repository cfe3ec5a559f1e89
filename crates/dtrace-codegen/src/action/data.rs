//! trace() and printf(): evaluate each argument and store it at its field offset.

use crate::desc::{ActionDesc, ValueType};
use crate::expr::str_cap;
use crate::gen::{Gen, FP_RECORD};
use crate::strings;
use dtrace_bpf::{Insn, Reg, Size};
use dtrace_sema::{TExpr, TStmt};

impl<'a> Gen<'a> {
    /// Store the value of `e` into the record field at `offset` of type `vt`.
    pub fn store_field(&mut self, e: &TExpr, offset: u32, vt: &ValueType) {
        if let ValueType::Bytes { size } = vt {
            self.store_bytes(e, offset, *size);
            return;
        }
        let words = match vt {
            ValueType::Stack { frames, user } => Some(frames + u32::from(*user)),
            ValueType::UserSym { .. } => Some(2),
            ValueType::UserStack { frames, .. } => Some(frames + 1),
            _ => None,
        };
        if let Some(words) = words {
            let v = match vt {
                // `ustackdepth` recorded for the consumer to count: the
                // frame-pointer frames, then the registers and stack copy.
                ValueType::UserStack {
                    frames,
                    depth: true,
                    ..
                } => self.stack_value(*frames, dtrace_sema::StackKind::User),
                _ => self.expr(e),
            };
            let r = self.get(v, Reg::R2);
            if r != Reg::R2 {
                self.a.emit(Insn::mov64_reg(Reg::R2, r));
            }
            self.free(v);
            self.a
                .emit(Insn::ldx_mem(Size::DW, Reg::R1, Reg::FP, FP_RECORD));
            self.copy_stack(Reg::R1, offset as i16, Reg::R2, words);
            if let ValueType::UserStack { frames, pages, .. } = vt {
                self.capture_user_stack(offset + 8 + frames * 8, *pages);
            }
            return;
        }
        let v = self.expr(e);
        let r = self.get(v, Reg::R2);
        if matches!(vt, ValueType::String { .. }) && e.ty.is_str() {
            // Recording NULL reads address 0.
            self.fault_if_null(r, Reg::R3, false);
        }
        self.a
            .emit(Insn::ldx_mem(Size::DW, Reg::R1, Reg::FP, FP_RECORD));
        match vt {
            ValueType::String { size } => {
                strings::copy(
                    &mut self.a,
                    Reg::R1,
                    offset as i16,
                    *size,
                    r,
                    0,
                    str_cap(&e.ty),
                    Reg::R3,
                );
            }
            other => {
                let sz = Size::from_bytes(other.size()).unwrap_or(Size::DW);
                self.a.emit(Insn::stx_mem(sz, Reg::R1, r, offset as i16));
            }
        }
        self.free(v);
    }

    pub fn action(&mut self, s: &TStmt, desc: &ActionDesc) {
        match s {
            TStmt::Trace { value } => {
                if let Some(f) = desc.fields.first() {
                    self.store_field(value, f.offset, &f.ty);
                }
            }
            TStmt::Print { value, addr, .. } => {
                let mut fields = desc.fields.iter();
                if let (Some(a), Some(f)) = (addr, desc.fields.first()) {
                    self.store_field(a, f.offset, &f.ty);
                    fields.next();
                }
                if let Some(f) = fields.next() {
                    if value.ty.is_agg() {
                        self.store_field(value, f.offset, &f.ty);
                    } else {
                        let vt = crate::record::value_type(&value.ty);
                        self.store_field(value, f.offset, &vt);
                    }
                }
            }
            TStmt::Printf { args, .. } => {
                for (a, f) in args.iter().zip(desc.fields.iter()) {
                    self.tmp_off = 0;
                    self.store_field(a, f.offset, &f.ty);
                }
            }
            TStmt::Exit { status } => self.exit_action(status, desc),
            TStmt::AggControl { arg: Some(a), .. } => {
                if let Some(f) = desc.fields.first() {
                    self.store_field(a, f.offset, &f.ty);
                }
            }
            TStmt::Speculate { id } => self.speculate_action(id, desc),
            TStmt::CommitDiscard { id, .. } => self.commit_discard_action(id, desc),
            TStmt::Tracemem { .. }
            | TStmt::FormatAction { .. }
            | TStmt::Setopt { .. }
            | TStmt::Ftruncate => self.control_action(s, desc),
            TStmt::Symbol { addr, .. } => {
                if let Some(f) = desc.fields.first() {
                    self.store_field(addr, f.offset, &f.ty);
                }
            }
            // printa() has no fields: the record itself tells the consumer when.
            _ => {}
        }
    }
}
