//! Speculations: `speculation()` takes a free ID, `speculate(id)` marks the
//! clause's record as belonging to an active speculation, `commit(id)` and
//! `discard(id)` move it to draining. The consumer holds speculative records
//! back until it reaches the commit (print them) or discard (drop them), then
//! frees the ID (see `layout::SPEC_*`).

use crate::desc::{ActionDesc, FaultKind};
use crate::gen::{Gen, Val, FP_RECORD, FP_SCRATCH};
use crate::layout::{
    self, SPEC_ACTIVE, SPEC_BYTES, SPEC_DRAINING, SPEC_FREE, SPEC_GEN, SPEC_STATE,
};
use dtrace_bpf::{helper, AluOp, AtomicOp, Insn, JmpOp, Reg, Size};
use dtrace_sema::TExpr;

impl<'a> Gen<'a> {
    fn nspec(&self) -> u32 {
        self.opts.nspec.clamp(1, layout::MAX_NSPEC)
    }

    /// r0 = &specs[id] for the u32 ID at `fp + FP_SCRATCH`; jumps to `missing`
    /// when the lookup fails (clobbers r0-r5).
    fn spec_lookup(&mut self, missing: crate::asm::Label) {
        self.a.ld_map(Reg::R1, self.l.specs);
        self.a.emit(Insn::mov64_reg(Reg::R2, Reg::FP));
        self.a
            .emit(Insn::alu64_imm(AluOp::Add, Reg::R2, FP_SCRATCH as i32));
        self.a.call_helper(helper::MAP_LOOKUP_ELEM);
        self.a.jmp_imm(JmpOp::Eq, Reg::R0, 0, missing);
    }

    /// `speculation()`: try IDs 1..=nspec in turn, taking the first free one
    /// (free -> active, atomically). None free: 0, counted as a failed
    /// speculation, "busy" when some ID was draining, else "unavailable".
    pub fn speculation(&mut self) -> Val {
        let d = self.alloc(false);
        let busy = self.alloc(false);
        let done = self.a.label();
        self.a.emit(Insn::mov64_imm(Reg::R1, 0));
        self.put(busy, Reg::R1);
        for id in 1..=self.nspec() {
            let next = self.a.label();
            let not_free = self.a.label();
            self.a
                .emit(Insn::st_mem(Size::W, Reg::FP, FP_SCRATCH, id as i32));
            self.spec_lookup(next);
            self.a.emit(Insn::mov64_reg(Reg::R3, Reg::R0));
            self.a.emit(Insn::mov64_imm(Reg::R0, SPEC_FREE));
            self.a.emit(Insn::mov64_imm(Reg::R1, SPEC_ACTIVE));
            self.a.emit(Insn::atomic(
                Size::DW,
                AtomicOp::Cmpxchg,
                Reg::R3,
                Reg::R1,
                SPEC_STATE,
            ));
            self.a.jmp_imm(JmpOp::Ne, Reg::R0, SPEC_FREE, not_free);
            // Ours now: no one else writes the entry until it drains.
            self.a.emit(Insn::st_mem(Size::DW, Reg::R3, SPEC_BYTES, 0));
            self.a
                .emit(Insn::ldx_mem(Size::DW, Reg::R1, Reg::R3, SPEC_GEN));
            self.a.emit(Insn::alu64_imm(AluOp::Add, Reg::R1, 1));
            self.a
                .emit(Insn::stx_mem(Size::DW, Reg::R3, Reg::R1, SPEC_GEN));
            self.a.emit(Insn::mov64_imm(Reg::R1, id as i32));
            self.put(d, Reg::R1);
            self.a.ja(done);
            self.a.bind(not_free);
            self.a.jmp_imm(JmpOp::Ne, Reg::R0, SPEC_DRAINING, next);
            self.a.emit(Insn::mov64_imm(Reg::R1, 1));
            self.put(busy, Reg::R1);
            self.a.bind(next);
        }
        let unavail = self.a.label();
        let failed = self.a.label();
        let r = self.get(busy, Reg::R1);
        self.a.jmp_imm(JmpOp::Eq, r, 0, unavail);
        self.count_drop(layout::DROP_SPECBUSY);
        self.a.ja(failed);
        self.a.bind(unavail);
        self.count_drop(layout::DROP_SPECUNAVAIL);
        self.a.bind(failed);
        self.a.emit(Insn::mov64_imm(Reg::R1, 0));
        self.put(d, Reg::R1);
        self.a.bind(done);
        self.free(busy);
        d
    }

    /// `speculate(id)`: record the ID in the record's field; an ID that is 0,
    /// above nspec or not active, or a speculation whose records would pass
    /// `specsize` (a speculative drop), ends the clause quietly.
    pub fn speculate_action(&mut self, id: &TExpr, desc: &ActionDesc) {
        let Some(f) = desc.fields.first() else { return };
        let off = f.offset as i16;
        let abort = self.abort_body;
        let v = self.expr(id);
        let r = self.get(v, Reg::R1);
        self.a.jmp_imm(JmpOp::Eq, r, 0, abort);
        self.a.jmp_imm(JmpOp::Gt, r, self.nspec() as i32, abort);
        self.a
            .emit(Insn::ldx_mem(Size::DW, Reg::R2, Reg::FP, FP_RECORD));
        self.a.emit(Insn::stx_mem(Size::DW, Reg::R2, r, off));
        self.a.emit(Insn::stx_mem(Size::W, Reg::FP, r, FP_SCRATCH));
        self.free(v);
        self.spec_lookup(abort);
        self.a
            .emit(Insn::ldx_mem(Size::DW, Reg::R1, Reg::R0, SPEC_STATE));
        self.a.jmp_imm(JmpOp::Ne, Reg::R1, SPEC_ACTIVE, abort);
        self.merge_gen(Reg::R0, off, 0);
        let fits = self.a.label();
        self.a
            .emit(Insn::mov64_imm(Reg::R1, self.record_size as i32));
        self.a.emit(Insn::atomic(
            Size::DW,
            AtomicOp::FetchAdd,
            Reg::R0,
            Reg::R1,
            SPEC_BYTES,
        ));
        self.a.emit(Insn::alu64_imm(
            AluOp::Add,
            Reg::R1,
            self.record_size as i32,
        ));
        self.a.mov_imm(Reg::R2, self.opts.specsize as i64);
        self.a.jmp_reg(JmpOp::Le, Reg::R1, Reg::R2, fits);
        self.count_drop(layout::DROP_SPEC);
        self.a.ja(abort);
        self.a.bind(fits);
    }

    /// `commit(id)` / `discard(id)`: ID 0 does nothing; an ID above nspec faults
    /// (illegal operation); an active speculation becomes draining, and the
    /// field says so ([`crate::desc::SPEC_DRAINED`]) so the consumer acts on
    /// this record alone.
    pub fn commit_discard_action(&mut self, id: &TExpr, desc: &ActionDesc) {
        let Some(f) = desc.fields.first() else { return };
        let off = f.offset as i16;
        let done = self.a.label();
        let v = self.expr(id);
        let r = self.get(v, Reg::R1);
        self.a
            .emit(Insn::ldx_mem(Size::DW, Reg::R2, Reg::FP, FP_RECORD));
        self.a.emit(Insn::stx_mem(Size::DW, Reg::R2, r, off));
        self.a.jmp_imm(JmpOp::Eq, r, 0, done);
        self.fault_unless(JmpOp::Le, r, self.nspec() as i32, FaultKind::IllOp);
        self.a.emit(Insn::stx_mem(Size::W, Reg::FP, r, FP_SCRATCH));
        self.free(v);
        self.spec_lookup(done);
        self.a.emit(Insn::mov64_reg(Reg::R3, Reg::R0));
        self.a.emit(Insn::mov64_imm(Reg::R0, SPEC_ACTIVE));
        self.a.emit(Insn::mov64_imm(Reg::R1, SPEC_DRAINING));
        self.a.emit(Insn::atomic(
            Size::DW,
            AtomicOp::Cmpxchg,
            Reg::R3,
            Reg::R1,
            SPEC_STATE,
        ));
        self.a.jmp_imm(JmpOp::Ne, Reg::R0, SPEC_ACTIVE, done);
        self.merge_gen(Reg::R3, off, crate::desc::SPEC_DRAINED);
        self.a.bind(done);
    }

    /// `record[off] |= generation of the entry at `entry` << 32 | extra`
    /// (clobbers r1, r2, r4, r5; `entry` must not be one of them).
    fn merge_gen(&mut self, entry: Reg, off: i16, extra: u64) {
        self.a
            .emit(Insn::ldx_mem(Size::DW, Reg::R1, entry, SPEC_GEN));
        self.a
            .emit(Insn::alu64_imm(AluOp::And, Reg::R1, 0x7fff_ffff));
        self.a.emit(Insn::alu64_imm(AluOp::Lsh, Reg::R1, 32));
        if extra != 0 {
            self.a.mov_imm(Reg::R4, extra as i64);
            self.a.emit(Insn::alu64_reg(AluOp::Or, Reg::R1, Reg::R4));
        }
        self.a
            .emit(Insn::ldx_mem(Size::DW, Reg::R2, Reg::FP, FP_RECORD));
        self.a.emit(Insn::ldx_mem(Size::DW, Reg::R5, Reg::R2, off));
        self.a.emit(Insn::alu64_reg(AluOp::Or, Reg::R5, Reg::R1));
        self.a.emit(Insn::stx_mem(Size::DW, Reg::R2, Reg::R5, off));
    }
}
