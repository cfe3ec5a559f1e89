//! Trampolines: the main function of each program. Each checks the session state,
//! fills dctx (probe id, arguments) and calls the clauses that apply to the probe
//! that fired, in program order; a clause that faults makes it call the ERROR
//! subprogram before going on. Every program returns 0.

pub mod args;
pub mod dtrace;
pub mod kprobe;
pub mod lockwait;
pub mod profile;
pub mod rawsdt;
pub mod syscall;
pub mod tracepoint;
pub mod uprobe;

use crate::asm::{Asm, FuncId, Label};
use crate::layout::{self, Layout};
use dtrace_bpf::{helper, AluOp, Insn, JmpOp, Reg, Size};

/// Registers of the main function: ctx, probe-table entry, dctx.
pub const CTX: Reg = Reg::R6;
pub const ENTRY: Reg = Reg::R7;
pub const DC: Reg = Reg::R8;

/// What the trampoline dispatches to.
pub struct Dispatch {
    /// Clause subprograms in program order.
    pub clauses: Vec<FuncId>,
    pub error: FuncId,
    /// Bit `i` of the clause mask selects clause `i` (syscall tables); None: all.
    pub masked: bool,
    /// The only clause's code, run in line instead of called (with its
    /// clause index): see [`dispatch`].
    pub inline: Option<(Asm, usize)>,
}

/// `if state != ACTIVE goto out`
pub fn state_check(a: &mut Asm, l: &Layout, out: Label) {
    a.ld_map_value(Reg::R1, l.globals, layout::G_STATE);
    a.emit(Insn::ldx_mem(Size::DW, Reg::R1, Reg::R1, 0));
    a.jmp_imm(JmpOp::Ne, Reg::R1, layout::STATE_ACTIVE, out);
}

/// The start of a trampoline for one probe: keep the context, return unless
/// tracing is active (and, with `-x cpu`, on that CPU), find dctx and set the
/// probe's id and index.
pub fn prologue(a: &mut Asm, l: &Layout, out: Label, probe_id: u32, index: u32) {
    a.emit(Insn::mov64_reg(CTX, Reg::R1));
    state_check(a, l, out);
    cpu_check(a, l, out);
    dctx_lookup(a, l, out);
    set_probe(a, probe_id, index);
}

/// With `-x cpu=N`: `if cpu != N goto out` (probes other than BEGIN/END).
pub fn cpu_check(a: &mut Asm, l: &Layout, out: Label) {
    if let Some(cpu) = l.only_cpu {
        a.call_helper(helper::GET_SMP_PROCESSOR_ID);
        a.jmp_imm(JmpOp::Ne, Reg::R0, cpu as i32, out);
    }
}

/// `DC = lookup(dctx, 0)` or `goto out`.
pub fn dctx_lookup(a: &mut Asm, l: &Layout, out: Label) {
    a.emit(Insn::st_mem(Size::W, Reg::FP, -8, 0));
    a.ld_map(Reg::R1, l.dctx);
    a.emit(Insn::mov64_reg(Reg::R2, Reg::FP));
    a.emit(Insn::alu64_imm(AluOp::Add, Reg::R2, -8));
    a.call_helper(helper::MAP_LOOKUP_ELEM);
    a.jmp_imm(JmpOp::Eq, Reg::R0, 0, out);
    a.emit(Insn::mov64_reg(DC, Reg::R0));
}

/// The prologue of a trampoline that serves several probes through a table:
/// `key` (a register holding a u32: syscall number, attach cookie) indexes
/// map `table`, whose entries start `{probe id: u32, probe index: u32, clause
/// mask words...}`. Return (goto `out`) when `key >= bound`, the entry is
/// missing or its probe id is 0 (not traced); else `ENTRY` = the entry, `DC` =
/// dctx, and dctx's probe id and index are set from the entry. Clobbers r1-r5.
pub fn table_prologue(a: &mut Asm, l: &Layout, table: usize, key: Reg, bound: u32, out: Label) {
    a.jmp_imm(JmpOp::Ge, key, bound as i32, out);
    a.emit(Insn::stx_mem(Size::W, Reg::FP, key, -4));
    a.ld_map(Reg::R1, table);
    a.emit(Insn::mov64_reg(Reg::R2, Reg::FP));
    a.emit(Insn::alu64_imm(AluOp::Add, Reg::R2, -4));
    a.call_helper(helper::MAP_LOOKUP_ELEM);
    a.jmp_imm(JmpOp::Eq, Reg::R0, 0, out);
    a.emit(Insn::ldx_mem(Size::W, Reg::R1, Reg::R0, 0));
    a.jmp_imm(JmpOp::Eq, Reg::R1, 0, out);
    a.emit(Insn::mov64_reg(ENTRY, Reg::R0));
    dctx_lookup(a, l, out);
    a.emit(Insn::ldx_mem(Size::W, Reg::R1, ENTRY, 0));
    a.emit(Insn::stx_mem(Size::DW, DC, Reg::R1, layout::D_PROBE_ID));
    a.emit(Insn::ldx_mem(Size::W, Reg::R1, ENTRY, 4));
    a.emit(Insn::stx_mem(Size::DW, DC, Reg::R1, layout::D_PROBE_INDEX));
    a.emit(Insn::st_mem(Size::DW, DC, layout::D_TSTAMP, 0));
}

/// Zero arg0..arg9 in dctx.
pub fn zero_args(a: &mut Asm) {
    for i in 0..10 {
        a.emit(Insn::st_mem(Size::DW, DC, layout::D_ARGS + 8 * i, 0));
    }
}

/// Copy the 64-bit words at `src + off`, for each of `offsets` in turn, to
/// arg0, arg1, ... in dctx.
pub fn copy_args(a: &mut Asm, src: Reg, offsets: &[i16]) {
    for (i, off) in offsets.iter().enumerate() {
        a.emit(Insn::ldx_mem(Size::DW, Reg::R1, src, *off));
        a.emit(Insn::stx_mem(
            Size::DW,
            DC,
            Reg::R1,
            layout::D_ARGS + 8 * i as i16,
        ));
    }
}

/// Store constant probe id and index.
pub fn set_probe(a: &mut Asm, id: u32, index: u32) {
    a.mov_imm(Reg::R1, id as i64);
    a.emit(Insn::stx_mem(Size::DW, DC, Reg::R1, layout::D_PROBE_ID));
    a.mov_imm(Reg::R1, index as i64);
    a.emit(Insn::stx_mem(Size::DW, DC, Reg::R1, layout::D_PROBE_INDEX));
    a.emit(Insn::st_mem(Size::DW, DC, layout::D_ERRNO, 0));
    a.emit(Insn::st_mem(Size::DW, DC, layout::D_TSTAMP, 0));
}

/// Call the clauses; masks (if any) are u32 words at `ENTRY + 8`.
/// With `recheck`, the state word is tested again before every clause after the
/// first: once a clause calls exit(), no later clause of the same firing acts
/// (DTrace: after exit, no new actions occur on any CPU; END is the exception).
pub fn dispatch(a: &mut Asm, d: &Dispatch, recheck: Option<(&Layout, Label)>) {
    for (k, f) in d.clauses.iter().enumerate() {
        if k > 0 {
            if let Some((l, out)) = recheck {
                state_check(a, l, out);
            }
        }
        let next = a.label();
        if d.masked {
            a.emit(Insn::ldx_mem(
                Size::W,
                Reg::R1,
                ENTRY,
                (8 + 4 * (k / 32)) as i16,
            ));
            let bit = (1u32 << (k % 32)) as i32;
            let call = a.label();
            a.jmp_imm(JmpOp::Set, Reg::R1, bit, call);
            a.ja(next);
            a.bind(call);
        }
        a.emit(Insn::mov64_reg(Reg::R1, DC));
        a.emit(Insn::mov64_reg(Reg::R2, CTX));
        match &d.inline {
            Some((code, clause)) if d.clauses.len() == 1 => {
                inline_clause(a, code, *clause, d.error, next);
            }
            _ => {
                a.call_clause(*f);
                a.jmp_imm(JmpOp::Eq, Reg::R0, 0, next);
                a.emit(Insn::mov64_reg(Reg::R1, DC));
                a.emit(Insn::mov64_reg(Reg::R2, CTX));
                a.call_func(d.error);
            }
        }
        a.bind(next);
    }
}

/// A probe's only clause in line (r1 = dctx, r2 = context already set): no
/// call, so no second JIT image whose cold instruction lines a rarely firing
/// probe would miss on. The body keeps dctx in its own register
/// ([`crate::gen::DCTX`]) and the context at [`crate::gen::FP_CTX`], which is
/// where the ERROR subprogram's arguments come from after a fault; the
/// trampoline's registers and frame slots are the body's from here on, so
/// nothing of the trampoline may follow but the return.
fn inline_clause(a: &mut Asm, code: &Asm, clause: usize, error: FuncId, next: Label) {
    let join = a.label();
    a.inline(code, join, clause);
    a.bind(join);
    a.jmp_imm(JmpOp::Eq, Reg::R0, 0, next);
    a.emit(Insn::mov64_reg(Reg::R1, crate::gen::DCTX));
    a.emit(Insn::ldx_mem(
        Size::DW,
        Reg::R2,
        Reg::FP,
        crate::gen::FP_CTX,
    ));
    a.call_func(error);
}

/// `out: return 0`
pub fn epilogue(a: &mut Asm, out: Label) {
    a.bind(out);
    a.emit(Insn::mov64_imm(Reg::R0, 0));
    a.emit(Insn::exit());
}
