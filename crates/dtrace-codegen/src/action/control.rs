//! tracemem(), system(), freopen(), setopt(), ftruncate() records, and raise()
//! / stop(), which signal the current thread from BPF.

use crate::desc::ActionDesc;
use crate::gen::{Gen, FP_SCRATCH};
use dtrace_bpf::{helper, AluOp, Insn, JmpOp, Reg, Size};
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

    /// `chill(ns)`: `bpf_loop` runs the `ChillStep` callback until the clock
    /// passes now + ns (ns clamped to 0..=CHILL_MAX_NS).
    pub fn chill(&mut self, ns: &TExpr) {
        let v = self.expr(ns);
        let r = self.get(v, Reg::R1);
        let (pos, capped) = (self.a.label(), self.a.label());
        if r != Reg::R1 {
            self.a.emit(Insn::mov64_reg(Reg::R1, r));
        }
        self.free(v);
        self.a.jmp_imm(JmpOp::Sgt, Reg::R1, 0, pos);
        self.a.emit(Insn::mov64_imm(Reg::R1, 0));
        self.a.bind(pos);
        self.a.jmp_imm(
            JmpOp::Sle,
            Reg::R1,
            dtrace_sema::CHILL_MAX_NS as i32,
            capped,
        );
        self.a
            .emit(Insn::mov64_imm(Reg::R1, dtrace_sema::CHILL_MAX_NS as i32));
        self.a.bind(capped);
        self.a
            .emit(Insn::stx_mem(Size::DW, Reg::FP, Reg::R1, FP_SCRATCH));
        self.a.call_helper(helper::KTIME_GET_NS);
        self.a
            .emit(Insn::ldx_mem(Size::DW, Reg::R1, Reg::FP, FP_SCRATCH));
        self.a.emit(Insn::alu64_reg(AluOp::Add, Reg::R1, Reg::R0));
        self.a
            .emit(Insn::stx_mem(Size::DW, Reg::FP, Reg::R1, FP_SCRATCH));
        let step = self.l.subrs.id(crate::strfn::subr::Subr::ChillStep);
        self.a.emit(Insn::mov64_imm(Reg::R1, CHILL_STEPS));
        self.a.ld_func(Reg::R2, step);
        self.a.emit(Insn::mov64_reg(Reg::R3, Reg::FP));
        self.a
            .emit(Insn::alu64_imm(AluOp::Add, Reg::R3, FP_SCRATCH as i32));
        self.a.emit(Insn::mov64_imm(Reg::R4, 0));
        self.a.call_helper(helper::LOOP);
    }
}

/// `bpf_loop`'s most iterations: far more clock reads than half a second takes.
const CHILL_STEPS: i32 = 1 << 23;

/// The `chill` callback: r2 = the deadline's address; stop (1) once passed.
pub fn chill_step(a: &mut crate::asm::Asm) {
    let wait = a.label();
    a.emit(Insn::mov64_reg(Reg::R6, Reg::R2));
    a.call_helper(helper::KTIME_GET_NS);
    a.emit(Insn::ldx_mem(Size::DW, Reg::R1, Reg::R6, 0));
    a.jmp_reg(JmpOp::Lt, Reg::R0, Reg::R1, wait);
    a.emit(Insn::mov64_imm(Reg::R0, 1));
    a.emit(Insn::exit());
    a.bind(wait);
    a.emit(Insn::mov64_imm(Reg::R0, 0));
    a.emit(Insn::exit());
}
