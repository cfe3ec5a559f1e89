//! The ERROR subprogram: writes the fault record, then runs the user's ERROR
//! clauses with Oracle DTrace 2.x's ERROR arguments (arg1 the probe ID that
//! faulted, arg2 the clause's index, arg3 the BPF offset, arg4 the fault kind,
//! arg5 the address), restoring the probe context afterwards. An ERROR clause
//! that faults counts a double error.
//! Called with r1 = dctx and r2 = the program's context, as clauses are.

use crate::asm::{Asm, FuncId};
use crate::desc::{EPID_FAULT, FAULT_RECORD_SIZE};
use crate::layout::{self, Layout};
use dtrace_bpf::{helper, Insn, JmpOp, Reg, Size};

const SAVED: [i16; 8] = [
    layout::D_PROBE_ID,
    layout::D_PROBE_INDEX,
    layout::D_ARGS,
    layout::D_ARGS + 8,
    layout::D_ARGS + 16,
    layout::D_ARGS + 24,
    layout::D_ARGS + 32,
    layout::D_ARGS + 40,
];

pub fn build(l: &Layout, error_probe: Option<(u32, u32)>, clauses: &[FuncId]) -> Asm {
    let mut a = Asm::new();
    let dc = Reg::R6;
    let rec = Reg::R7;
    // The program's context, passed on to the ERROR clauses (for stack()).
    let ctx = Reg::R8;
    let run = a.label();
    a.emit(Insn::mov64_reg(dc, Reg::R1));
    a.emit(Insn::mov64_reg(ctx, Reg::R2));
    a.ld_map(Reg::R1, l.ringbuf);
    a.emit(Insn::mov64_imm(Reg::R2, FAULT_RECORD_SIZE as i32));
    a.emit(Insn::mov64_imm(Reg::R3, 0));
    a.call_helper(helper::RINGBUF_RESERVE);
    let ok = a.label();
    a.jmp_imm(JmpOp::Ne, Reg::R0, 0, ok);
    crate::gen::emit_count_drop(&mut a, l.drops, layout::DROP_RINGBUF, -8);
    a.ja(run);
    a.bind(ok);
    a.emit(Insn::mov64_reg(rec, Reg::R0));
    a.emit(Insn::st_mem(Size::W, rec, 0, EPID_FAULT as i32));
    a.emit(Insn::ldx_mem(Size::W, Reg::R1, dc, layout::D_PROBE_ID));
    a.emit(Insn::stx_mem(Size::W, rec, Reg::R1, 4));
    a.emit(Insn::st_mem(
        Size::W,
        rec,
        12,
        crate::RECORD_FLAGS_VALID as i32,
    ));
    a.call_helper(helper::GET_SMP_PROCESSOR_ID);
    a.emit(Insn::stx_mem(Size::W, rec, Reg::R0, 8));
    for (src, dst, size) in [
        (layout::D_FAULT_EPID, 16, Size::W),
        (layout::D_FAULT_ACTION, 20, Size::W),
        (layout::D_FAULT_KIND, 24, Size::W),
        (layout::D_FAULT_PC, 28, Size::W),
        (layout::D_FAULT_ADDR, 32, Size::DW),
    ] {
        a.emit(Insn::ldx_mem(size, Reg::R1, dc, src));
        a.emit(Insn::stx_mem(size, rec, Reg::R1, dst));
    }
    a.emit(Insn::mov64_reg(Reg::R1, rec));
    a.emit(Insn::mov64_imm(Reg::R2, 0));
    a.call_helper(helper::RINGBUF_SUBMIT);
    a.bind(run);
    if let (Some((id, index)), false) = (error_probe, clauses.is_empty()) {
        for (i, off) in SAVED.iter().enumerate() {
            a.emit(Insn::ldx_mem(Size::DW, Reg::R1, dc, *off));
            a.emit(Insn::stx_mem(
                Size::DW,
                dc,
                Reg::R1,
                layout::D_SAVE + 8 * i as i16,
            ));
        }
        a.mov_imm(Reg::R1, id as i64);
        a.emit(Insn::stx_mem(Size::DW, dc, Reg::R1, layout::D_PROBE_ID));
        a.mov_imm(Reg::R1, index as i64);
        a.emit(Insn::stx_mem(Size::DW, dc, Reg::R1, layout::D_PROBE_INDEX));
        a.emit(Insn::st_mem(Size::DW, dc, layout::D_ARGS, 0));
        // arg2: the clause index (its EPID less one).
        a.emit(Insn::ldx_mem(Size::W, Reg::R1, dc, layout::D_FAULT_EPID));
        a.emit(Insn::alu64_imm(dtrace_bpf::AluOp::Sub, Reg::R1, 1));
        a.emit(Insn::stx_mem(Size::DW, dc, Reg::R1, layout::D_ARGS + 16));
        for (k, (src, size)) in [
            // arg1: the probe that faulted (saved above).
            (layout::D_SAVE, Size::DW),
            (layout::D_FAULT_ACTION, Size::W),
            (layout::D_FAULT_PC, Size::W),
            (layout::D_FAULT_KIND, Size::W),
            (layout::D_FAULT_ADDR, Size::DW),
        ]
        .iter()
        .enumerate()
        {
            if k == 1 {
                continue; // arg2, stored above
            }
            a.emit(Insn::ldx_mem(*size, Reg::R1, dc, *src));
            a.emit(Insn::stx_mem(
                Size::DW,
                dc,
                Reg::R1,
                layout::D_ARGS + 8 * (k as i16 + 1),
            ));
        }
        // A fault in an ERROR clause is not reported as a fault (DTrace
        // would recurse): it is counted, a double error.
        for f in clauses {
            let next = a.label();
            a.emit(Insn::mov64_reg(Reg::R1, dc));
            a.emit(Insn::mov64_reg(Reg::R2, ctx));
            a.call_clause(*f);
            a.jmp_imm(JmpOp::Eq, Reg::R0, 0, next);
            crate::gen::emit_count_drop(&mut a, l.drops, layout::DROP_DBLERROR, -8);
            a.bind(next);
        }
        for (i, off) in SAVED.iter().enumerate() {
            a.emit(Insn::ldx_mem(
                Size::DW,
                Reg::R1,
                dc,
                layout::D_SAVE + 8 * i as i16,
            ));
            a.emit(Insn::stx_mem(Size::DW, dc, Reg::R1, *off));
        }
    }
    a.emit(Insn::mov64_imm(Reg::R0, 0));
    a.emit(Insn::exit());
    a.finish()
}
