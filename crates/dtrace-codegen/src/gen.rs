//! The per-function code generator state: registers and temporaries, fault sites,
//! drop counters and string temporaries.
//!
//! Register convention inside clause subprograms: r9 holds the dctx pointer for the
//! whole function; r6-r8 hold live temporaries (they survive helper calls); r0-r5
//! are only used transiently within one operation. Temporaries that do not fit in
//! registers spill to stack slots, then to a dctx spill area (integers only).

use crate::asm::{Asm, Label};
use crate::desc::FaultKind;
use crate::layout::{self, Layout};
use dtrace_bpf::{helper, Insn, JmpOp, Reg, Size};
use dtrace_sema::{CompileOptions, ProbeInfo, TypedProgram};

/// Frame slot of the reserved record pointer.
pub const FP_RECORD: i16 = -8;
/// Frame scratch slot for helpers (8 bytes).
pub const FP_SCRATCH: i16 = -16;
/// Frame slot of the program's context (r2 at entry), for helpers that need
/// it (`bpf_get_stack`).
pub const FP_CTX: i16 = -24;
/// First spill slot; slots go down from here.
const FP_SPILL_TOP: i16 = -32;
/// Lowest usable frame offset in a clause (the trampoline and the ERROR
/// subprogram's frames must fit in the remaining 512-byte stack budget).
const FP_SPILL_MIN: i16 = -416;

pub const DCTX: Reg = Reg::R9;

/// Where a temporary value lives.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Val {
    Reg(Reg),
    Stack(i16),
    /// dctx spill slot (integers only: the verifier forgets pointer types in maps).
    Ctx(i16),
}

pub struct Gen<'a> {
    pub a: Asm,
    pub l: &'a mut Layout,
    pub tp: &'a TypedProgram,
    pub opts: &'a CompileOptions,
    /// The probes of this clause served by the program being built.
    pub probes: Vec<ProbeInfo>,
    pub epid: u32,
    free_regs: Vec<Reg>,
    free_stack: Vec<i16>,
    next_stack: i16,
    free_ctx: Vec<i16>,
    next_ctx: u32,
    /// Bump allocator for string temporaries in dctx (reset per statement).
    pub tmp_off: u32,
    pub tmp_max: u32,
    pub fault_pred: Label,
    pub fault_body: Label,
    /// Ends the clause without a fault, discarding its record (a speculate() on
    /// an ID that is not active, or over `specsize`).
    pub abort_body: Label,
    /// Size of the clause's record.
    pub record_size: u32,
    pub in_body: bool,
    /// The clause reserves a record (after its predicate).
    pub emits_record: bool,
    pub stmt_no: u32,
    /// Clause code start (for fault "DIF offsets").
    pub start_pc: usize,
    /// (continue, break) targets of the loops being generated, innermost last.
    pub loop_labels: Vec<(crate::asm::Label, crate::asm::Label)>,
    /// Stack slot counting the passes of the outermost loop and all within it.
    pub loop_budget: Option<i16>,
    /// Whether the clause reaches its scratch space (alloca, copyin, ...): a
    /// clause that does not leaves the scratch words of dctx untouched.
    pub uses_scratch: bool,
    /// Whether the clause calls strtok (whose position is clause-local).
    pub uses_strtok: bool,
}

impl<'a> Gen<'a> {
    pub fn new(
        l: &'a mut Layout,
        tp: &'a TypedProgram,
        opts: &'a CompileOptions,
        probes: Vec<ProbeInfo>,
        epid: u32,
    ) -> Gen<'a> {
        let mut a = Asm::new();
        let fault_pred = a.label();
        let fault_body = a.label();
        let abort_body = a.label();
        Gen {
            a,
            l,
            tp,
            opts,
            probes,
            epid,
            free_regs: vec![Reg::R8, Reg::R7, Reg::R6],
            free_stack: Vec::new(),
            next_stack: FP_SPILL_TOP,
            free_ctx: Vec::new(),
            next_ctx: 0,
            tmp_off: 0,
            tmp_max: 0,
            fault_pred,
            fault_body,
            abort_body,
            record_size: 0,
            in_body: false,
            emits_record: false,
            stmt_no: 0,
            start_pc: 0,
            loop_labels: Vec::new(),
            loop_budget: None,
            uses_scratch: false,
            uses_strtok: false,
        }
    }

    /// Allocate a temporary. `ptr`: it will hold a pointer (never put in dctx).
    pub fn alloc(&mut self, ptr: bool) -> Val {
        if let Some(r) = self.free_regs.pop() {
            return Val::Reg(r);
        }
        if let Some(s) = self.free_stack.pop() {
            return Val::Stack(s);
        }
        if self.next_stack >= FP_SPILL_MIN {
            let s = self.next_stack;
            self.next_stack -= 8;
            return Val::Stack(s);
        }
        if let Some(c) = self.free_ctx.pop() {
            return Val::Ctx(c);
        }
        if ptr || self.next_ctx + 8 > self.l.spill_size {
            // Sema's nesting limit keeps us far from here; reuse the deepest stack
            // slot rather than fail (the verifier would reject a clobbered pointer).
            return Val::Stack(FP_SPILL_MIN);
        }
        let c = (self.l.spill_area + self.next_ctx) as i16;
        self.next_ctx += 8;
        Val::Ctx(c)
    }

    /// A stack slot (never a register or dctx): the verifier tracks its value.
    pub fn alloc_slot(&mut self) -> i16 {
        if let Some(s) = self.free_stack.pop() {
            return s;
        }
        if self.next_stack >= FP_SPILL_MIN {
            let s = self.next_stack;
            self.next_stack -= 8;
            return s;
        }
        FP_SPILL_MIN
    }

    pub fn free(&mut self, v: Val) {
        match v {
            Val::Reg(r) => {
                if !self.free_regs.contains(&r) {
                    self.free_regs.push(r)
                }
            }
            Val::Stack(s) => self.free_stack.push(s),
            Val::Ctx(c) => self.free_ctx.push(c),
        }
    }

    /// The register holding `v`: its own, or `scratch` after loading it.
    pub fn get(&mut self, v: Val, scratch: Reg) -> Reg {
        match v {
            Val::Reg(r) => r,
            Val::Stack(s) => {
                self.a.emit(Insn::ldx_mem(Size::DW, scratch, Reg::FP, s));
                scratch
            }
            Val::Ctx(c) => {
                self.a.emit(Insn::ldx_mem(Size::DW, scratch, DCTX, c));
                scratch
            }
        }
    }

    /// Store register `from` into `v`.
    pub fn put(&mut self, v: Val, from: Reg) {
        match v {
            Val::Reg(r) => {
                if r != from {
                    self.a.emit(Insn::mov64_reg(r, from));
                }
            }
            Val::Stack(s) => self.a.emit(Insn::stx_mem(Size::DW, Reg::FP, from, s)),
            Val::Ctx(c) => self.a.emit(Insn::stx_mem(Size::DW, DCTX, from, c)),
        }
    }

    /// A register to compute `v`'s new value in: its own register, else `scratch`
    /// (then `put(v, scratch)` must follow).
    pub fn work_reg(&self, v: Val, scratch: Reg) -> Reg {
        match v {
            Val::Reg(r) => r,
            _ => scratch,
        }
    }

    /// Reserve `cap` bytes of string temporary in dctx; returns the dctx offset.
    pub fn tmp_str(&mut self, cap: u32) -> u32 {
        let off = self.l.tmp_area + self.tmp_off;
        self.tmp_off += layout::round8(cap);
        self.tmp_max = self.tmp_max.max(self.tmp_off);
        off
    }

    /// Jump to the fault path with `kind` unless `if reg op imm` holds.
    pub fn fault_unless(&mut self, op: JmpOp, reg: Reg, imm: i32, kind: FaultKind) {
        self.fault_unless_at(op, reg, imm, kind, false);
    }

    /// As [`Gen::fault_unless`]; with `addr_stored`, the faulting address was already
    /// written to dctx's fault-address slot (see [`Gen::stash_fault_addr`]).
    pub fn fault_unless_at(
        &mut self,
        op: JmpOp,
        reg: Reg,
        imm: i32,
        kind: FaultKind,
        addr_stored: bool,
    ) {
        let ok = self.a.label();
        self.a.jmp_imm(op, reg, imm, ok);
        let pc = (self.a.pc() - self.start_pc) as i32;
        self.a.emit(Insn::st_mem(
            Size::W,
            DCTX,
            layout::D_FAULT_KIND,
            kind as i32,
        ));
        self.a
            .emit(Insn::st_mem(Size::W, DCTX, layout::D_FAULT_PC, pc));
        self.a.emit(Insn::st_mem(
            Size::W,
            DCTX,
            layout::D_FAULT_ACTION,
            self.stmt_no as i32,
        ));
        if !addr_stored {
            self.a
                .emit(Insn::st_mem(Size::DW, DCTX, layout::D_FAULT_ADDR, 0));
        }
        let target = if self.in_body {
            self.fault_body
        } else {
            self.fault_pred
        };
        self.a.ja(target);
        self.a.bind(ok);
    }

    /// Remember `addr` as the address a following memory access may fault on.
    pub fn stash_fault_addr(&mut self, addr: Reg) {
        self.a
            .emit(Insn::stx_mem(Size::DW, DCTX, addr, layout::D_FAULT_ADDR));
    }

    /// `drops[slot] += 1` (clobbers r0-r5).
    pub fn count_drop(&mut self, slot: i32) {
        emit_count_drop(&mut self.a, self.l.drops, slot, FP_SCRATCH);
    }

    /// Zero `len` bytes (multiple of 8) at `base + off`.
    pub fn zero(&mut self, base: Reg, off: i16, len: u32) {
        for i in 0..(len / 8) {
            self.a
                .emit(Insn::st_mem(Size::DW, base, off + (i * 8) as i16, 0));
        }
    }

    /// `dst = dctx + off`.
    pub fn dctx_ptr(&mut self, dst: Reg, off: u32) {
        self.a.emit(Insn::mov64_reg(dst, DCTX));
        self.a
            .emit(Insn::alu64_imm(dtrace_bpf::AluOp::Add, dst, off as i32));
    }
}

/// `drops[slot] += 1`, usable from trampolines too (clobbers r0-r5; uses the 4
/// stack bytes at `fp + key_off` for the key).
pub fn emit_count_drop(a: &mut Asm, drops: usize, slot: i32, key_off: i16) {
    let done = a.label();
    a.emit(Insn::st_mem(Size::W, Reg::FP, key_off, slot));
    a.ld_map(Reg::R1, drops);
    a.emit(Insn::mov64_reg(Reg::R2, Reg::FP));
    a.emit(Insn::alu64_imm(
        dtrace_bpf::AluOp::Add,
        Reg::R2,
        key_off as i32,
    ));
    a.call_helper(helper::MAP_LOOKUP_ELEM);
    a.jmp_imm(JmpOp::Eq, Reg::R0, 0, done);
    a.emit(Insn::ldx_mem(Size::DW, Reg::R1, Reg::R0, 0));
    a.emit(Insn::alu64_imm(dtrace_bpf::AluOp::Add, Reg::R1, 1));
    a.emit(Insn::stx_mem(Size::DW, Reg::R0, Reg::R1, 0));
    a.bind(done);
}

/// Normalize `r` (holding a 64-bit result) to an integer type's width and sign.
pub fn normalize(a: &mut Asm, r: Reg, size: u8, signed: bool) {
    use dtrace_bpf::AluOp;
    match (size, signed) {
        (8, _) => {}
        (4, false) => a.emit(Insn::mov32_reg(r, r)),
        (s, true) => a.emit(Insn::movsx64_reg(r, r, s * 8)),
        (s, false) => a.emit(Insn::alu64_imm(
            AluOp::And,
            r,
            ((1i64 << (s * 8)) - 1) as i32,
        )),
    }
}
