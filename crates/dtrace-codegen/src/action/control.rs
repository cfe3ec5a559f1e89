//! tracemem(), system(), freopen(), setopt(), ftruncate() records, and raise()
//! / stop(), which signal the current thread from BPF.

use crate::desc::ActionDesc;
use crate::gen::Gen;
use dtrace_bpf::{helper, AluOp, Insn, JmpOp, Reg};
use dtrace_sema::{TExpr, TStmt};

impl<'a> Gen<'a> {
    pub fn control_action(&mut self, s: &TStmt, desc: &ActionDesc) {
        match s {
            TStmt::Tracemem { addr, dynsize, .. } => {
                let mut fields = desc.fields.iter();
                if let Some(f) = fields.next() {
                    self.store_field(addr, f.offset, &f.ty);
                }
                if let (Some(d), Some(f)) = (dynsize, fields.next()) {
                    self.store_field(d, f.offset, &f.ty);
                }
            }
            TStmt::FormatAction { args, .. } => {
                for (a, f) in args.iter().zip(desc.fields.iter()) {
                    self.tmp_off = 0;
                    self.store_field(a, f.offset, &f.ty);
                }
            }
            TStmt::Setopt { name, value } => {
                let mut fields = desc.fields.iter();
                if let Some(f) = fields.next() {
                    self.store_field(name, f.offset, &f.ty);
                }
                if let (Some(v), Some(f)) = (value, fields.next()) {
                    self.tmp_off = 0;
                    self.store_field(v, f.offset, &f.ty);
                }
            }
            // ftruncate() has no fields: the record itself is the request.
            _ => {}
        }
    }

    /// `raise(sig)`: `bpf_send_signal_thread(sig)`; a signal number out of
    /// range is an illegal operation, as in DTrace.
    pub fn raise(&mut self, sig: &TExpr) {
        let v = self.expr(sig);
        let r = self.get(v, Reg::R1);
        if r != Reg::R1 {
            self.a.emit(Insn::mov64_reg(Reg::R1, r));
        }
        self.free(v);
        // Signals 1..=64.
        self.a.emit(Insn::mov64_reg(Reg::R2, Reg::R1));
        self.a.emit(Insn::alu64_imm(AluOp::Sub, Reg::R2, 1));
        self.fault_unless(JmpOp::Lt, Reg::R2, 64, crate::desc::FaultKind::IllOp);
        self.a.call_helper(helper::SEND_SIGNAL_THREAD);
    }
}
