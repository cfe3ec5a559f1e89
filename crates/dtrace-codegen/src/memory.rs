//! Reading kernel memory: scalar loads, bit-fields, strings through `char *` /
//! `char[]`, and raw object bytes for `trace()`. Every read goes through
//! `bpf_probe_read_kernel` (`_str` for strings); a failed read is a fault: the
//! address is left in dctx's fault slot, the clause stops, and the ERROR path runs
//! with kind "invalid address", as a divide-by-zero does.

use crate::desc::FaultKind;
use crate::expr::int_parts;
use crate::gen::{Gen, Val, DCTX, FP_RECORD, FP_SCRATCH};
use dtrace_bpf::{helper, AluOp, Insn, JmpOp, Reg, Size};
use dtrace_sema::{TExpr, Ty};

impl<'a> Gen<'a> {
    /// r3 = the address in `v`, remembered as the fault address.
    fn addr_to_r3(&mut self, v: Val) {
        let r = self.get(v, Reg::R3);
        if r != Reg::R3 {
            self.a.emit(Insn::mov64_reg(Reg::R3, r));
        }
        self.stash_fault_addr(Reg::R3);
    }

    /// Read `size` (1..=8) bytes at the address `addr` evaluates to into the frame
    /// scratch slot; returns the temporary that held the address.
    fn read_scratch(&mut self, addr: &TExpr, size: u8) -> Val {
        let v = self.expr(addr);
        self.addr_to_r3(v);
        self.a.emit(Insn::mov64_reg(Reg::R1, Reg::FP));
        self.a
            .emit(Insn::alu64_imm(AluOp::Add, Reg::R1, FP_SCRATCH as i32));
        self.a.emit(Insn::mov64_imm(Reg::R2, size as i32));
        self.a.call_helper(helper::PROBE_READ_KERNEL);
        self.fault_unless_at(JmpOp::Eq, Reg::R0, 0, FaultKind::BadAddr, true);
        v
    }

    /// `Load(addr)`: a scalar of type `ty` from kernel memory.
    pub fn load(&mut self, addr: &TExpr, ty: &Ty) -> Val {
        let (size, _) = int_parts(ty);
        let v = self.read_scratch(addr, size);
        let w = self.work_reg(v, Reg::R0);
        self.load_int(w, Reg::FP, FP_SCRATCH, ty);
        self.put(v, w);
        v
    }

    /// `LoadBits`: a bit-field of type `ty`.
    pub fn load_bits(&mut self, addr: &TExpr, size: u8, shift: u8, width: u8, ty: &Ty) -> Val {
        let v = self.read_scratch(addr, size);
        let w = self.work_reg(v, Reg::R0);
        let sz = Size::from_bytes(size as u32).unwrap_or(Size::DW);
        self.a.emit(Insn::ldx_mem(sz, w, Reg::FP, FP_SCRATCH));
        let width = width.clamp(1, 64) as i32;
        let up = (64 - shift as i32 - width).max(0);
        if up > 0 {
            self.a.emit(Insn::alu64_imm(AluOp::Lsh, w, up));
        }
        if width < 64 {
            let op = if ty.signed() { AluOp::Arsh } else { AluOp::Rsh };
            self.a.emit(Insn::alu64_imm(op, w, 64 - width));
        }
        self.put(v, w);
        v
    }

    /// `KStr`: a string of at most `max` bytes (NUL included) read from kernel
    /// memory into a zeroed temporary of the result's capacity.
    pub fn kstr(&mut self, addr: &TExpr, max: u32, ty: &Ty) -> Val {
        let cap = crate::expr::str_cap(ty);
        let tmp = self.tmp_str(cap);
        self.zero(DCTX, tmp as i16, cap);
        let v = self.expr(addr);
        self.addr_to_r3(v);
        self.free(v);
        self.dctx_ptr(Reg::R1, tmp);
        self.a
            .emit(Insn::mov64_imm(Reg::R2, max.clamp(1, cap) as i32));
        self.a.call_helper(helper::PROBE_READ_KERNEL_STR);
        self.fault_unless_at(JmpOp::Sge, Reg::R0, 0, FaultKind::BadAddr, true);
        let d = self.alloc(true);
        let w = self.work_reg(d, Reg::R0);
        self.dctx_ptr(w, tmp);
        self.put(d, w);
        d
    }

    /// Copy `size` bytes of the object at the address `e` evaluates to into the
    /// record at `offset` (trace() of a struct, union or array).
    pub fn store_bytes(&mut self, e: &TExpr, offset: u32, size: u32) {
        if size == 0 {
            return;
        }
        let v = self.expr(e);
        self.addr_to_r3(v);
        self.free(v);
        self.a
            .emit(Insn::ldx_mem(Size::DW, Reg::R1, Reg::FP, FP_RECORD));
        self.a
            .emit(Insn::alu64_imm(AluOp::Add, Reg::R1, offset as i32));
        self.a.emit(Insn::mov64_imm(Reg::R2, size as i32));
        self.a.call_helper(helper::PROBE_READ_KERNEL);
        self.fault_unless_at(JmpOp::Eq, Reg::R0, 0, FaultKind::BadAddr, true);
    }
}

impl<'a> Gen<'a> {
    /// `NotNull`: the pointer, or an invalid-address fault at address 0.
    pub fn not_null(&mut self, p: &TExpr) -> Val {
        let v = self.expr(p);
        let r = self.get(v, Reg::R1);
        self.fault_unless(JmpOp::Ne, r, 0, FaultKind::BadAddr);
        v
    }

    /// `CheckIndex`: the index, or an invalid-address fault if not below `len`.
    pub fn check_index(&mut self, index: &TExpr, len: u32) -> Val {
        let v = self.expr(index);
        let r = self.get(v, Reg::R1);
        self.stash_fault_addr(r);
        let len = i32::try_from(len).unwrap_or(i32::MAX);
        self.fault_unless_at(JmpOp::Lt, r, len, FaultKind::BadAddr, true);
        v
    }
}
