//! Finding an aggregation key's value: the key's slot in its group's hash,
//! then this CPU's element of its class's value array (`cpu * slots +
//! slot`). A key seen for the first time takes a recycled slot from the
//! class's queue, or else the next fresh one from its counter, and publishes
//! itself in the slot's `{state, key}` entry for the consumer. No slot left:
//! an aggregation drop, counted.

use crate::asm::Label;
use crate::gen::{Gen, DCTX, FP_SCRATCH};
use crate::layout::{self, D_AGGSLOT};
use crate::AggGroup;
use dtrace_bpf::{helper, AluOp, AtomicOp, Insn, JmpOp, Reg, Size};

const BPF_NOEXIST: i32 = 1;
/// Where the element index goes (the slot is at [`D_AGGSLOT`]).
const D_AGGINDEX: i16 = D_AGGSLOT + 4;
/// A slot entry's state once its key is live.
const LIVE: i32 = 1;

impl Gen<'_> {
    /// r0 = this CPU's value of the key staged in dctx's key area; on a drop
    /// (counted here), jumps to `dropped` instead. Clobbers r1-r5.
    pub(super) fn agg_value(&mut self, g: &AggGroup, dropped: Label) {
        let have_slot = self.a.label();
        let got = self.a.label();
        let again = self.a.label();
        let inserted = self.a.label();
        let full = self.a.label();
        let found = self.a.label();
        self.lookup(g.keys);
        self.a.jmp_imm(JmpOp::Ne, Reg::R0, 0, have_slot);
        // A new key: a recycled slot if there is one, else a fresh one.
        self.a.ld_map(Reg::R1, g.free);
        self.dctx_ptr(Reg::R2, D_AGGSLOT as u32);
        self.a.call_helper(helper::MAP_POP_ELEM);
        self.a.jmp_imm(JmpOp::Eq, Reg::R0, 0, got);
        self.a.fetch_inc(g.counter, g.counter_off);
        self.a.jmp_imm(JmpOp::Ge, Reg::R2, g.slots as i32, full);
        self.a
            .emit(Insn::stx_mem(Size::W, DCTX, Reg::R2, D_AGGSLOT));
        self.a.bind(got);
        self.a.ld_map(Reg::R1, g.keys);
        self.dctx_ptr(Reg::R2, self.l.key_area);
        self.dctx_ptr(Reg::R3, D_AGGSLOT as u32);
        self.a.emit(Insn::mov64_imm(Reg::R4, BPF_NOEXIST));
        self.a.call_helper(helper::MAP_UPDATE_ELEM);
        self.a.jmp_imm(JmpOp::Eq, Reg::R0, 0, inserted);
        // Another CPU added the key first (or the hash is full): give the
        // slot back and use what is there.
        self.a.ld_map(Reg::R1, g.free);
        self.dctx_ptr(Reg::R2, D_AGGSLOT as u32);
        self.a.emit(Insn::mov64_imm(Reg::R3, 0));
        self.a.call_helper(helper::MAP_PUSH_ELEM);
        self.a.ja(again);
        // Publish the key in its slot's entry: the key, then state 1.
        self.a.bind(inserted);
        self.a
            .emit(Insn::ldx_mem(Size::W, Reg::R1, DCTX, D_AGGSLOT));
        self.a
            .emit(Insn::alu64_imm(AluOp::Add, Reg::R1, g.entry_base as i32));
        self.a
            .emit(Insn::stx_mem(Size::W, DCTX, Reg::R1, D_AGGINDEX));
        self.a.ld_map(Reg::R1, g.slot_keys);
        self.dctx_ptr(Reg::R2, D_AGGINDEX as u32);
        self.a.call_helper(helper::MAP_LOOKUP_ELEM);
        self.a.jmp_imm(JmpOp::Eq, Reg::R0, 0, again);
        let key = self.l.key_area as i16;
        for i in 0..(g.key_size / 8) as i16 {
            self.a
                .emit(Insn::ldx_mem(Size::DW, Reg::R1, DCTX, key + 8 * i));
            self.a
                .emit(Insn::stx_mem(Size::DW, Reg::R0, Reg::R1, 8 + 8 * i));
        }
        self.a.emit(Insn::mov64_imm(Reg::R1, 1));
        self.a
            .emit(Insn::atomic(Size::DW, AtomicOp::Xchg, Reg::R0, Reg::R1, 0));
        self.a.bind(again);
        self.lookup(g.keys);
        self.a.jmp_imm(JmpOp::Eq, Reg::R0, 0, full);
        // r0 = the key's slot: this CPU's element is cpu * slots + slot.
        self.a.bind(have_slot);
        self.a.emit(Insn::ldx_mem(Size::W, Reg::R1, Reg::R0, 0));
        self.a
            .emit(Insn::stx_mem(Size::W, DCTX, Reg::R1, D_AGGSLOT));
        self.a.call_helper(helper::GET_SMP_PROCESSOR_ID);
        self.a
            .emit(Insn::alu64_imm(AluOp::Mul, Reg::R0, g.slots as i32));
        self.a
            .emit(Insn::ldx_mem(Size::W, Reg::R1, DCTX, D_AGGSLOT));
        self.a.emit(Insn::alu64_reg(AluOp::Add, Reg::R0, Reg::R1));
        self.a
            .emit(Insn::stx_mem(Size::W, DCTX, Reg::R0, D_AGGINDEX));
        self.a.ld_map(Reg::R1, g.values);
        self.dctx_ptr(Reg::R2, D_AGGINDEX as u32);
        self.a.call_helper(helper::MAP_LOOKUP_ELEM);
        self.a.jmp_imm(JmpOp::Ne, Reg::R0, 0, found);
        self.a.bind(full);
        self.count_drop(layout::DROP_AGG);
        self.a.ja(dropped);
        self.a.bind(found);
    }

    /// r0 = this CPU's value of a keyless aggregation's fixed `slot`: element
    /// `cpu * slots + slot` of the class's value array, an index computed
    /// from constants (the array lookup is inlined by the kernel) and passed
    /// on the stack, so the update touches no dctx. Clobbers r1-r5; jumps to
    /// `dropped` if the element is missing (it never is).
    pub(super) fn agg_fixed_value(&mut self, g: &AggGroup, slot: u32, dropped: Label) {
        let found = self.a.label();
        self.a.call_helper(helper::GET_SMP_PROCESSOR_ID);
        self.a
            .emit(Insn::alu64_imm(AluOp::Mul, Reg::R0, g.slots as i32));
        if slot > 0 {
            self.a
                .emit(Insn::alu64_imm(AluOp::Add, Reg::R0, slot as i32));
        }
        self.a
            .emit(Insn::stx_mem(Size::W, Reg::FP, Reg::R0, FP_SCRATCH));
        self.a.ld_map(Reg::R1, g.values);
        self.fp_ptr(Reg::R2, FP_SCRATCH);
        self.a.call_helper(helper::MAP_LOOKUP_ELEM);
        self.a.jmp_imm(JmpOp::Ne, Reg::R0, 0, found);
        self.count_drop(layout::DROP_AGG);
        self.a.ja(dropped);
        self.a.bind(found);
    }

    /// `dst = fp + off`.
    fn fp_ptr(&mut self, dst: Reg, off: i16) {
        self.a.emit(Insn::mov64_reg(dst, Reg::FP));
        self.a
            .emit(Insn::alu64_imm(AluOp::Add, dst, i32::from(off)));
    }

    /// After a keyless aggregation's update: mark its fixed slot's entry live
    /// if it is not yet (its first update, or the first after `trunc()`).
    /// The value is stored first, so a consumer that sees the slot live sees
    /// its value. Clobbers r0-r5.
    pub(super) fn agg_fixed_publish(&mut self, g: &AggGroup, slot: u32) {
        let done = self.a.label();
        self.a.emit(Insn::st_mem(
            Size::W,
            Reg::FP,
            FP_SCRATCH,
            g.entry_base.saturating_add(slot) as i32,
        ));
        self.a.ld_map(Reg::R1, g.slot_keys);
        self.fp_ptr(Reg::R2, FP_SCRATCH);
        self.a.call_helper(helper::MAP_LOOKUP_ELEM);
        self.a.jmp_imm(JmpOp::Eq, Reg::R0, 0, done);
        self.a.emit(Insn::ldx_mem(Size::DW, Reg::R1, Reg::R0, 0));
        self.a.jmp_imm(JmpOp::Eq, Reg::R1, LIVE, done);
        self.a.emit(Insn::mov64_imm(Reg::R1, LIVE));
        self.a.emit(Insn::stx_mem(Size::DW, Reg::R0, Reg::R1, 0));
        self.a.bind(done);
    }
}
