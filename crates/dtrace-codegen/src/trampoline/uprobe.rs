//! Uprobe trampolines (pid and usdt probes): a kprobe-type program on
//! uprobe_multi links; the context is the user's `struct pt_regs`.
//!
//! The attach cookie (not asked for when the table has one row) indexes a
//! read-only table of the program's probes:
//! `{probe id, probe index, clause mask words, argument spec}`. Probes whose
//! arguments live in the same places share a spec; the trampoline has one
//! block of argument loads per spec (pid probes: one, the ABI registers).

use super::{cpu_check, dispatch, epilogue, state_check, table_prologue, Dispatch, CTX, DC, ENTRY};
use crate::asm::Asm;
use crate::layout::{self, Layout};
use crate::trampoline::tracepoint::size_of;
use dtrace_bpf::{helper, AluOp, Insn, JmpOp, Reg, Size};
use dtrace_sema::{FieldKind, RecordField};

/// x86_64 `struct pt_regs` offsets of the registers user-space probes read.
pub mod regs {
    pub const R15: u16 = 0;
    pub const R14: u16 = 8;
    pub const R13: u16 = 16;
    pub const R12: u16 = 24;
    pub const BP: u16 = 32;
    pub const BX: u16 = 40;
    pub const R11: u16 = 48;
    pub const R10: u16 = 56;
    pub const R9: u16 = 64;
    pub const R8: u16 = 72;
    pub const AX: u16 = 80;
    pub const CX: u16 = 88;
    pub const DX: u16 = 96;
    pub const SI: u16 = 104;
    pub const DI: u16 = 112;
    pub const IP: u16 = 128;
    pub const SP: u16 = 152;
}

/// A uprobe program's probe table, as its trampoline reads it.
pub struct Table<'a> {
    /// The table's map.
    pub map: usize,
    /// Probes served (cookies `0..n`).
    pub n: u32,
    /// Byte offset of the spec id in an entry.
    pub spec_at: i16,
    /// Argument layouts by spec id.
    pub specs: &'a [Vec<RecordField>],
    /// A return program's `dt_retoff` map (its `arg0`).
    pub retoff: Option<usize>,
    /// Rows whose spec id is none of `specs` carry their own argument
    /// descriptions (probes that joined while tracing): where in a row they
    /// start, and the dctx offset where the registers are copied to index them.
    pub described: Option<Described>,
}

/// Arguments described in the table row (see [`crate::late`]): for each of
/// up to [`DESCRIBED_ARGS`] arguments, 8 bytes `{kind, size, signed, pt_regs
/// word, i32 displacement or constant}`.
#[derive(Debug, Clone, Copy)]
pub struct Described {
    pub at: i16,
    pub regs: u32,
}

/// The most arguments a row describes.
pub const DESCRIBED_ARGS: usize = 10;
/// `pt_regs` words copied for [`Described`] arguments.
pub const PT_REGS_WORDS: i32 = 21;
/// A described argument's kind: none, a register, memory at a register plus
/// a displacement, a constant.
pub const ARG_NONE: u8 = 0;
pub const ARG_REG: u8 = 1;
pub const ARG_MEM: u8 = 2;
pub const ARG_CONST: u8 = 3;

/// Build the trampoline of a program serving the probes of table `t`;
/// `args` has bit `i` set when a clause reads `argi` (or `args[i]`): only those
/// are loaded, so a clause reading `arg0` does not copy the arguments a call
/// passes on the user stack (one `bpf_probe_read_user` each).
pub fn build(l: &Layout, t: &Table<'_>, args: u16, d: &Dispatch) -> Asm {
    let (table, n, spec_at, specs, retoff) = (t.map, t.n, t.spec_at, t.specs, t.retoff);
    let mut a = Asm::new();
    let out = a.label();
    a.emit(Insn::mov64_reg(CTX, Reg::R1));
    state_check(&mut a, l, out);
    cpu_check(&mut a, l, out);
    if n > 1 {
        a.emit(Insn::mov64_reg(Reg::R1, CTX));
        a.call_helper(helper::GET_ATTACH_COOKIE);
    } else {
        // A table of one row: the cookie can only be 0, so no helper call
        // asks the kernel for it.
        a.emit(Insn::mov64_imm(Reg::R0, 0));
    }
    table_prologue(&mut a, l, table, Reg::R0, n, out);
    a.emit(Insn::st_mem(Size::DW, DC, layout::D_ERRNO, 0));
    if args != 0 {
        for i in 0..10u16 {
            if args & (1 << i) != 0 && !always_loaded(t, i) {
                a.emit(Insn::st_mem(Size::DW, DC, layout::D_ARGS + 8 * i as i16, 0));
            }
        }
        let done = a.label();
        for (s, fields) in specs.iter().enumerate() {
            let next = a.label();
            if specs.len() > 1 || t.described.is_some() {
                a.emit(Insn::ldx_mem(Size::W, Reg::R1, ENTRY, spec_at));
                a.jmp_imm(JmpOp::Ne, Reg::R1, s as i32, next);
            }
            for (i, f) in fields.iter().take(10).enumerate() {
                if args & (1 << i) != 0 {
                    load_arg(&mut a, f, layout::D_ARGS + 8 * i as i16);
                }
            }
            a.ja(done);
            a.bind(next);
        }
        if let Some(d) = t.described {
            described_args(&mut a, d);
        }
        a.bind(done);
        if let Some(map) = retoff {
            return_offset(&mut a, map);
        }
    }
    dispatch(&mut a, d, Some((l, out)));
    epilogue(&mut a, out);
    a.finish()
}

/// Whether every firing stores argument `i` whole, whatever its probe (so its
/// slot needs no zeroing first): each spec loads it from a register, from
/// user memory (a failed read leaves zeros) or as a constant, no row
/// describes its own arguments, and for a return probe it is not `arg0`
/// (which only a found return offset sets).
fn always_loaded(t: &Table<'_>, i: u16) -> bool {
    t.described.is_none()
        && !(t.retoff.is_some() && i == 0)
        && !t.specs.is_empty()
        && t.specs.iter().all(|fields| {
            fields.get(usize::from(i)).is_some_and(|f| {
                matches!(
                    f.kind,
                    FieldKind::UserReg | FieldKind::UserMem { .. } | FieldKind::Const(_)
                )
            })
        })
}

/// A return probe's `arg0`: the offset of the return site by which this
/// thread last left this probe's function (its marker uprobe stored it under
/// {pid_tgid, cookie}); 0 when there is none. The entry is deleted once read.
fn return_offset(a: &mut Asm, map: usize) {
    let skip = a.label();
    a.call_helper(helper::GET_CURRENT_PID_TGID);
    a.emit(Insn::stx_mem(Size::DW, Reg::FP, Reg::R0, RETOFF_KEY));
    a.emit(Insn::ldx_mem(Size::W, Reg::R1, Reg::FP, -4));
    a.emit(Insn::stx_mem(Size::DW, Reg::FP, Reg::R1, RETOFF_KEY + 8));
    a.ld_map(Reg::R1, map);
    a.emit(Insn::mov64_reg(Reg::R2, Reg::FP));
    a.emit(Insn::alu64_imm(AluOp::Add, Reg::R2, i32::from(RETOFF_KEY)));
    a.call_helper(helper::MAP_LOOKUP_ELEM);
    a.jmp_imm(JmpOp::Eq, Reg::R0, 0, skip);
    a.emit(Insn::ldx_mem(Size::DW, Reg::R1, Reg::R0, 0));
    a.emit(Insn::stx_mem(Size::DW, DC, Reg::R1, layout::D_ARGS));
    a.ld_map(Reg::R1, map);
    a.emit(Insn::mov64_reg(Reg::R2, Reg::FP));
    a.emit(Insn::alu64_imm(AluOp::Add, Reg::R2, i32::from(RETOFF_KEY)));
    a.call_helper(helper::MAP_DELETE_ELEM);
    a.bind(skip);
}

/// The stack slots of the `dt_retoff` key {pid_tgid, cookie} (the cookie is
/// at -4, the dctx lookup's key at -8).
const RETOFF_KEY: i16 = -24;

/// Load the arguments a row describes (see [`Described`]).
fn described_args(a: &mut Asm, d: Described) {
    // The registers, copied where a variable offset may index them.
    a.emit(Insn::mov64_reg(Reg::R2, DC));
    a.emit(Insn::alu64_imm(AluOp::Add, Reg::R2, d.regs as i32));
    for w in 0..PT_REGS_WORDS {
        a.emit(Insn::ldx_mem(Size::DW, Reg::R1, CTX, (8 * w) as i16));
        a.emit(Insn::stx_mem(Size::DW, Reg::R2, Reg::R1, (8 * w) as i16));
    }
    for i in 0..DESCRIBED_ARGS as i16 {
        let at = d.at + 8 * i;
        let slot = layout::D_ARGS + 8 * i;
        let (next, store, mem) = (a.label(), a.label(), a.label());
        a.emit(Insn::ldx_mem(Size::B, Reg::R1, ENTRY, at));
        a.jmp_imm(JmpOp::Eq, Reg::R1, i32::from(ARG_NONE), next);
        // r4 = the displacement or constant
        a.emit(Insn::ldx_memsx(Size::W, Reg::R4, ENTRY, at + 4));
        let konst = a.label();
        a.jmp_imm(JmpOp::Eq, Reg::R1, i32::from(ARG_CONST), konst);
        // r3 = the register's value
        a.emit(Insn::ldx_mem(Size::B, Reg::R2, ENTRY, at + 3));
        a.jmp_imm(JmpOp::Ge, Reg::R2, PT_REGS_WORDS, next);
        a.emit(Insn::alu64_imm(AluOp::Lsh, Reg::R2, 3));
        a.emit(Insn::mov64_reg(Reg::R3, DC));
        a.emit(Insn::alu64_imm(AluOp::Add, Reg::R3, d.regs as i32));
        a.emit(Insn::alu64_reg(AluOp::Add, Reg::R3, Reg::R2));
        a.emit(Insn::ldx_mem(Size::DW, Reg::R3, Reg::R3, 0));
        a.jmp_imm(JmpOp::Eq, Reg::R1, i32::from(ARG_MEM), mem);
        a.emit(Insn::mov64_reg(Reg::R1, Reg::R3));
        a.ja(store);
        a.bind(konst);
        a.emit(Insn::stx_mem(Size::DW, DC, Reg::R4, slot));
        a.ja(next);
        // probe_read_user(dc + slot, size, reg + disp); a fault leaves 0.
        a.bind(mem);
        a.emit(Insn::alu64_reg(AluOp::Add, Reg::R3, Reg::R4));
        a.emit(Insn::ldx_mem(Size::B, Reg::R2, ENTRY, at + 1));
        a.jmp_imm(JmpOp::Eq, Reg::R2, 0, next);
        a.jmp_imm(JmpOp::Gt, Reg::R2, 8, next);
        a.emit(Insn::mov64_reg(Reg::R1, DC));
        a.emit(Insn::alu64_imm(AluOp::Add, Reg::R1, i32::from(slot)));
        a.call_helper(helper::PROBE_READ_USER);
        a.emit(Insn::ldx_mem(Size::DW, Reg::R1, DC, slot));
        // Keep the low `size` bytes, sign-extended if `signed`.
        a.bind(store);
        a.emit(Insn::ldx_mem(Size::B, Reg::R2, ENTRY, at + 1));
        let full = a.label();
        a.jmp_imm(JmpOp::Ge, Reg::R2, 8, full);
        a.emit(Insn::alu64_imm(AluOp::Lsh, Reg::R2, 3));
        a.emit(Insn::mov64_imm(Reg::R0, 64));
        a.emit(Insn::alu64_reg(AluOp::Sub, Reg::R0, Reg::R2));
        a.emit(Insn::alu64_reg(AluOp::Lsh, Reg::R1, Reg::R0));
        a.emit(Insn::ldx_mem(Size::B, Reg::R2, ENTRY, at + 2));
        let unsigned = a.label();
        a.jmp_imm(JmpOp::Eq, Reg::R2, 0, unsigned);
        a.emit(Insn::alu64_reg(AluOp::Arsh, Reg::R1, Reg::R0));
        a.ja(full);
        a.bind(unsigned);
        a.emit(Insn::alu64_reg(AluOp::Rsh, Reg::R1, Reg::R0));
        a.bind(full);
        a.emit(Insn::stx_mem(Size::DW, DC, Reg::R1, slot));
        a.bind(next);
    }
}

/// Sign-extend (or zero-extend) the low `size` bytes of r1.
fn extend(a: &mut Asm, size: u8, signed: bool) {
    if size >= 8 {
        return;
    }
    let shift = 64 - 8 * i32::from(size);
    a.emit(Insn::alu64_imm(AluOp::Lsh, Reg::R1, shift));
    let op = if signed { AluOp::Arsh } else { AluOp::Rsh };
    a.emit(Insn::alu64_imm(op, Reg::R1, shift));
}

/// Store argument `f` at `DC + slot` (already zeroed).
fn load_arg(a: &mut Asm, f: &RecordField, slot: i16) {
    let reg = f.offset as i16;
    match f.kind {
        FieldKind::UserReg => {
            a.emit(Insn::ldx_mem(Size::DW, Reg::R1, CTX, reg));
            extend(a, f.size, f.signed);
            a.emit(Insn::stx_mem(Size::DW, DC, Reg::R1, slot));
        }
        FieldKind::UserMem { disp } => {
            // probe_read_user(dc + slot, size, reg + disp); a fault leaves 0.
            a.emit(Insn::mov64_reg(Reg::R1, DC));
            a.emit(Insn::alu64_imm(AluOp::Add, Reg::R1, i32::from(slot)));
            a.emit(Insn::mov64_imm(Reg::R2, i32::from(f.size.clamp(1, 8))));
            a.emit(Insn::ldx_mem(Size::DW, Reg::R3, CTX, reg));
            a.emit(Insn::alu64_imm(AluOp::Add, Reg::R3, disp));
            a.call_helper(helper::PROBE_READ_USER);
            if f.size < 8 {
                a.emit(Insn::ldx_mem(size_of(f.size), Reg::R1, DC, slot));
                extend(a, f.size, f.signed);
                a.emit(Insn::stx_mem(Size::DW, DC, Reg::R1, slot));
            }
        }
        FieldKind::Const(v) => {
            a.mov_imm(Reg::R1, v);
            a.emit(Insn::stx_mem(Size::DW, DC, Reg::R1, slot));
        }
        FieldKind::Scalar | FieldKind::Array | FieldKind::DataLoc => {}
    }
}
