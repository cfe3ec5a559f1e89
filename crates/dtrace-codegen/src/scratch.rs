//! Scratch space and the memory subroutines: `alloca`, `copyin`, `copyinstr`,
//! `copyinto`, `bcopy`, `copyout`/`copyoutstr`, loads and stores through alloca
//! pointers.
//!
//! The scratch space is a region of the per-CPU dctx value ([`Layout`]'s
//! `scratch_*`). Each clause starts with nothing allocated (the top offset is
//! reset in its prologue); `alloca` hands out 8-byte aligned pieces up to
//! `scratchsize` bytes, cleared to zeroes. Alloca pointers are plain addresses (numbers): an access
//! turns one back into an offset from the region's start by subtracting dctx's
//! own address (saved as a number in the prologue), checks it against the
//! allocated top, and adds the checked offset to the dctx pointer, so the
//! verifier sees a bounded map-value access. An access that starts outside the
//! allocation faults with "invalid address" (the address); one that starts
//! inside and ends past it with "invalid size" (the size), as DTrace reports.
//!
//! [`Layout`]: crate::layout::Layout

use crate::desc::FaultKind;
use crate::gen::{Gen, Val, DCTX};
use dtrace_bpf::{helper, AluOp, Insn, JmpOp, Reg, Size};
use dtrace_sema::{TExpr, Ty};

impl<'a> Gen<'a> {
    /// Clause prologue: nothing allocated; dctx's address saved as a number.
    pub fn scratch_reset(&mut self) {
        let top = self.l.scratch_top as i16;
        let me = self.l.scratch_self as i16;
        self.a.emit(Insn::st_mem(Size::DW, DCTX, top, 0));
        self.a.emit(Insn::stx_mem(Size::DW, DCTX, DCTX, me));
    }

    /// The scratch limit as an immediate.
    fn scratch_limit(&self) -> i32 {
        self.l.scratch_size.min(i32::MAX as u32) as i32
    }

    /// `dst = the address of scratch offset 0`, as a number.
    fn scratch_base_num(&mut self, dst: Reg) {
        self.uses_scratch = true;
        self.a.emit(Insn::ldx_mem(
            Size::DW,
            dst,
            DCTX,
            self.l.scratch_self as i16,
        ));
        self.a
            .emit(Insn::alu64_imm(AluOp::Add, dst, self.l.scratch_data as i32));
    }

    /// `dst = dctx + scratch_data + off` as a map-value pointer (`off` already
    /// bounded by [`Gen::scratch_check`]); `off` is re-bounded here so the
    /// verifier knows its range.
    fn scratch_ptr(&mut self, dst: Reg, off: Reg) {
        self.uses_scratch = true;
        let lim = self.scratch_limit();
        self.fault_unless(JmpOp::Le, off, lim, FaultKind::BadAddr);
        self.a.emit(Insn::mov64_reg(dst, DCTX));
        self.a
            .emit(Insn::alu64_imm(AluOp::Add, dst, self.l.scratch_data as i32));
        self.a.emit(Insn::alu64_reg(AluOp::Add, dst, off));
    }

    /// Check an access of `size` bytes (the register `size`, or the constant
    /// `const_size`) at the address in `addr` against the allocated scratch
    /// space; leaves the offset in r4. Clobbers r0, r4, r5.
    fn scratch_check(&mut self, addr: Reg, size: Option<Reg>, const_size: u32) {
        let lim = self.scratch_limit();
        self.scratch_base_num(Reg::R4);
        self.a.emit(Insn::mov64_reg(Reg::R5, addr));
        self.a.emit(Insn::alu64_reg(AluOp::Sub, Reg::R5, Reg::R4));
        self.a.emit(Insn::mov64_reg(Reg::R4, Reg::R5));
        // Starts inside the allocated space: 0 <= off < top.
        self.stash_fault_addr(addr);
        self.fault_unless_at(JmpOp::Le, Reg::R4, lim, FaultKind::BadAddr, true);
        self.a.emit(Insn::ldx_mem(
            Size::DW,
            Reg::R0,
            DCTX,
            self.l.scratch_top as i16,
        ));
        self.a.emit(Insn::mov64_reg(Reg::R5, Reg::R4));
        self.a.emit(Insn::alu64_reg(AluOp::Sub, Reg::R5, Reg::R0));
        self.fault_unless_at(JmpOp::Slt, Reg::R5, 0, FaultKind::BadAddr, true);
        // Ends inside it: size <= limit, off + size <= top.
        match size {
            Some(s) => {
                self.stash_fault_addr(s);
                self.fault_unless_at(JmpOp::Le, s, lim, FaultKind::BadSize, true);
                self.a.emit(Insn::alu64_reg(AluOp::Add, Reg::R5, s));
            }
            None => {
                self.a.emit(Insn::mov64_imm(Reg::R0, const_size as i32));
                self.stash_fault_addr(Reg::R0);
                self.a
                    .emit(Insn::alu64_imm(AluOp::Add, Reg::R5, const_size as i32));
            }
        }
        self.fault_unless_at(JmpOp::Sle, Reg::R5, 0, FaultKind::BadSize, true);
    }

    /// Allocate the size in `size` (a register other than r0-r5 or loaded into
    /// r1), cleared to zeroes when `zero`: returns a temporary holding the new
    /// piece's offset.
    fn scratch_alloc(&mut self, size: Val, zero: bool) -> Val {
        self.uses_scratch = true;
        let lim = self.scratch_limit();
        let s = self.get(size, Reg::R1);
        if s != Reg::R1 {
            self.a.emit(Insn::mov64_reg(Reg::R1, s));
        }
        self.fault_unless(JmpOp::Le, Reg::R1, lim, FaultKind::NoScratch);
        let top = self.l.scratch_top as i16;
        self.a.emit(Insn::ldx_mem(Size::DW, Reg::R2, DCTX, top));
        self.a.emit(Insn::alu64_imm(AluOp::Add, Reg::R2, 7));
        self.a.emit(Insn::alu64_imm(AluOp::And, Reg::R2, -8));
        self.fault_unless(JmpOp::Le, Reg::R2, lim, FaultKind::NoScratch);
        self.a.emit(Insn::mov64_reg(Reg::R3, Reg::R2));
        self.a.emit(Insn::alu64_reg(AluOp::Add, Reg::R3, Reg::R1));
        self.fault_unless(JmpOp::Le, Reg::R3, lim, FaultKind::NoScratch);
        self.a.emit(Insn::stx_mem(Size::DW, DCTX, Reg::R3, top));
        let d = self.alloc(false);
        self.put(d, Reg::R2);
        if zero {
            // Copy `size` bytes of the string table's zero region over the piece.
            self.a.emit(Insn::mov64_reg(Reg::R5, Reg::R1));
            self.a.emit(Insn::mov64_reg(Reg::R1, DCTX));
            self.a.emit(Insn::alu64_imm(
                AluOp::Add,
                Reg::R1,
                self.l.scratch_data as i32,
            ));
            self.a.emit(Insn::alu64_reg(AluOp::Add, Reg::R1, Reg::R2));
            self.a.emit(Insn::mov64_reg(Reg::R2, Reg::R5));
            self.a.ld_map_value(Reg::R3, self.l.strtab, self.l.zero_off);
            self.a.call_helper(helper::PROBE_READ_KERNEL);
        }
        d
    }

    /// The address (a number) of the piece at offset `off`, into `off` itself.
    fn scratch_addr_of(&mut self, off: Val) {
        let r = self.get(off, Reg::R1);
        self.scratch_base_num(Reg::R2);
        self.a.emit(Insn::alu64_reg(AluOp::Add, Reg::R2, r));
        self.put(off, Reg::R2);
    }

    /// `alloca(size)`.
    pub fn alloca(&mut self, size: &TExpr) -> Val {
        let sv = self.expr(size);
        let off = self.scratch_alloc(sv, true);
        self.free(sv);
        self.scratch_addr_of(off);
        off
    }

    /// `copyin(addr, size)`.
    pub fn copyin(&mut self, addr: &TExpr, size: &TExpr) -> Val {
        let av = self.expr(addr);
        let sv = self.expr(size);
        let off = self.scratch_alloc(sv, false);
        self.read_into_scratch(off, sv, av, helper::PROBE_READ_USER);
        self.free(sv);
        self.free(av);
        self.scratch_addr_of(off);
        off
    }

    /// Copy `size` bytes from the address in `src` to the scratch offset in
    /// `off` with `helper`; a failed read faults with the source address.
    fn read_into_scratch(&mut self, off: Val, size: Val, src: Val, helper_id: i32) {
        let lim = self.scratch_limit();
        let o = self.get(off, Reg::R4);
        if o != Reg::R4 {
            self.a.emit(Insn::mov64_reg(Reg::R4, o));
        }
        self.scratch_ptr(Reg::R1, Reg::R4);
        let s = self.get(size, Reg::R2);
        if s != Reg::R2 {
            self.a.emit(Insn::mov64_reg(Reg::R2, s));
        }
        self.fault_unless(JmpOp::Le, Reg::R2, lim, FaultKind::BadSize);
        let a = self.get(src, Reg::R3);
        if a != Reg::R3 {
            self.a.emit(Insn::mov64_reg(Reg::R3, a));
        }
        self.stash_fault_addr(Reg::R3);
        self.a.call_helper(helper_id);
        self.fault_unless_at(JmpOp::Eq, Reg::R0, 0, FaultKind::BadAddr, true);
    }

    /// The offset of a checked access of `size` bytes at the alloca pointer in
    /// `dest`, in a new temporary.
    fn checked_dest(&mut self, dest: Val, size: Val) -> Val {
        let d = self.get(dest, Reg::R1);
        if d != Reg::R1 {
            self.a.emit(Insn::mov64_reg(Reg::R1, d));
        }
        let s = self.get(size, Reg::R2);
        if s != Reg::R2 {
            self.a.emit(Insn::mov64_reg(Reg::R2, s));
        }
        self.scratch_check(Reg::R1, Some(Reg::R2), 0);
        let off = self.alloc(false);
        self.put(off, Reg::R4);
        off
    }

    /// `copyinto(addr, size, dest)`.
    pub fn copyinto(&mut self, addr: &TExpr, size: &TExpr, dest: &TExpr) -> Val {
        let av = self.expr(addr);
        let sv = self.expr(size);
        let dv = self.expr(dest);
        let off = self.checked_dest(dv, sv);
        self.free(dv);
        self.read_into_scratch(off, sv, av, helper::PROBE_READ_USER);
        self.free(off);
        self.free(sv);
        av
    }

    /// `bcopy(src, dest, size)`.
    pub fn bcopy(&mut self, src: &TExpr, dest: &TExpr, size: &TExpr, src_scratch: bool) -> Val {
        let s_v = self.expr(src);
        let dv = self.expr(dest);
        let sv = self.expr(size);
        let off = self.checked_dest(dv, sv);
        self.free(dv);
        if src_scratch {
            let chk = self.checked_dest(s_v, sv);
            self.free(chk);
        }
        self.read_into_scratch(off, sv, s_v, helper::PROBE_READ_KERNEL);
        self.free(off);
        self.free(sv);
        s_v
    }

    /// `LoadScratch(addr)`: a scalar of type `ty` through an alloca pointer.
    pub fn load_scratch(&mut self, addr: &TExpr, ty: &Ty) -> Val {
        let v = self.expr(addr);
        self.mem_ptr(v, ty.size());
        let w = self.work_reg(v, Reg::R0);
        self.load_int(w, Reg::R3, 0, ty);
        self.put(v, w);
        v
    }

    /// r3 = a map-value pointer to `size` bytes of allocated scratch space at the
    /// address in `addr` (faults as described in the module comment). Clobbers
    /// r0-r5.
    pub fn mem_ptr(&mut self, addr: Val, size: u32) {
        let r = self.get(addr, Reg::R1);
        if r != Reg::R1 {
            self.a.emit(Insn::mov64_reg(Reg::R1, r));
        }
        self.scratch_check(Reg::R1, None, size);
        self.scratch_ptr(Reg::R3, Reg::R4);
    }

    /// `ScratchStr { addr, max }`: a string read from allocated scratch space.
    pub fn scratch_str(&mut self, addr: &TExpr, max: u32, ty: &Ty) -> Val {
        let cap = crate::expr::str_cap(ty);
        let tmp = self.tmp_str(cap);
        self.zero(DCTX, tmp as i16, cap);
        let v = self.expr(addr);
        let r = self.get(v, Reg::R1);
        if r != Reg::R1 {
            self.a.emit(Insn::mov64_reg(Reg::R1, r));
        }
        self.free(v);
        self.scratch_check(Reg::R1, None, 0);
        // n = min(max, top - off + 1): the bytes left in the allocation and a NUL.
        self.a.emit(Insn::ldx_mem(
            Size::DW,
            Reg::R2,
            DCTX,
            self.l.scratch_top as i16,
        ));
        self.a.emit(Insn::alu64_reg(AluOp::Sub, Reg::R2, Reg::R4));
        self.a.emit(Insn::alu64_imm(AluOp::Add, Reg::R2, 1));
        let max = max.clamp(1, cap) as i32;
        let ok = self.a.label();
        self.a.jmp_imm(JmpOp::Le, Reg::R2, max, ok);
        self.a.emit(Insn::mov64_imm(Reg::R2, max));
        self.a.bind(ok);
        self.a.emit(Insn::mov64_reg(Reg::R3, Reg::R1));
        self.dctx_ptr(Reg::R1, tmp);
        self.a.call_helper(helper::PROBE_READ_KERNEL_STR);
        let d = self.alloc(true);
        let w = self.work_reg(d, Reg::R0);
        self.dctx_ptr(w, tmp);
        self.put(d, w);
        d
    }

    /// `copyinstr(addr [, max])`: at most `max` (and `strsize`) bytes with the NUL.
    pub fn copyinstr(&mut self, addr: &TExpr, max: Option<&TExpr>, ty: &Ty) -> Val {
        let cap = crate::expr::str_cap(ty);
        let strsize = self.opts.str_member_size().min(cap) as i32;
        let tmp = self.tmp_str(cap);
        self.zero(DCTX, tmp as i16, cap);
        let av = self.expr(addr);
        let mv = max.map(|m| self.expr(m));
        let skip = self.a.label();
        match mv {
            Some(m) => {
                let r = self.get(m, Reg::R2);
                if r != Reg::R2 {
                    self.a.emit(Insn::mov64_reg(Reg::R2, r));
                }
                self.free(m);
                let ok = self.a.label();
                self.a.jmp_imm(JmpOp::Le, Reg::R2, strsize, ok);
                self.a.emit(Insn::mov64_imm(Reg::R2, strsize));
                self.a.bind(ok);
            }
            None => self.a.emit(Insn::mov64_imm(Reg::R2, strsize)),
        }
        let a = self.get(av, Reg::R3);
        if a != Reg::R3 {
            self.a.emit(Insn::mov64_reg(Reg::R3, a));
        }
        self.free(av);
        self.stash_fault_addr(Reg::R3);
        self.a.jmp_imm(JmpOp::Eq, Reg::R2, 0, skip);
        self.dctx_ptr(Reg::R1, tmp);
        self.a.call_helper(helper::PROBE_READ_USER_STR);
        self.fault_unless_at(JmpOp::Sge, Reg::R0, 0, FaultKind::BadAddr, true);
        self.a.bind(skip);
        let d = self.alloc(true);
        let w = self.work_reg(d, Reg::R0);
        self.dctx_ptr(w, tmp);
        self.put(d, w);
        d
    }

    /// `copyout(buf, addr, size)` / `copyoutstr(str, addr, maxlen)`: the bytes
    /// are staged in a string temporary (at most the scratch size, or the string
    /// with its NUL), then written with `bpf_probe_write_user`.
    pub fn copyout(&mut self, src: &TExpr, addr: &TExpr, size: &TExpr, string: bool) -> Val {
        let cap = if string {
            crate::expr::str_cap(&src.ty).max(8)
        } else {
            crate::layout::round8(self.l.scratch_size.max(8))
        };
        let tmp = self.tmp_str(cap);
        let s_v = self.expr(src);
        let av = self.expr(addr);
        let sv = self.expr(size);
        let r = self.get(s_v, Reg::R3);
        if r != Reg::R3 {
            self.a.emit(Insn::mov64_reg(Reg::R3, r));
        }
        self.stash_fault_addr(Reg::R3);
        self.dctx_ptr(Reg::R1, tmp);
        if string {
            // The string's length with its NUL, then at most `maxlen` of it.
            self.a.emit(Insn::mov64_imm(Reg::R2, cap as i32));
            self.a.call_helper(helper::PROBE_READ_KERNEL_STR);
            self.fault_unless_at(JmpOp::Sgt, Reg::R0, 0, FaultKind::BadAddr, true);
            let s = self.get(sv, Reg::R2);
            let ok = self.a.label();
            self.a.jmp_reg(JmpOp::Le, Reg::R0, s, ok);
            self.a.emit(Insn::mov64_reg(Reg::R0, s));
            self.a.bind(ok);
            self.a.emit(Insn::mov64_reg(Reg::R2, Reg::R0));
        } else {
            let s = self.get(sv, Reg::R2);
            if s != Reg::R2 {
                self.a.emit(Insn::mov64_reg(Reg::R2, s));
            }
            self.stash_fault_addr(Reg::R2);
            self.fault_unless_at(JmpOp::Le, Reg::R2, cap as i32, FaultKind::BadSize, true);
            self.stash_fault_addr(Reg::R3);
            self.a.call_helper(helper::PROBE_READ_KERNEL);
            self.fault_unless_at(JmpOp::Eq, Reg::R0, 0, FaultKind::BadAddr, true);
            let s = self.get(sv, Reg::R2);
            if s != Reg::R2 {
                self.a.emit(Insn::mov64_reg(Reg::R2, s));
            }
        }
        self.free(sv);
        self.free(s_v);
        // r2 = length, bounded by the temporary's size for the verifier.
        self.fault_unless(JmpOp::Le, Reg::R2, cap as i32, FaultKind::BadSize);
        self.a.emit(Insn::mov64_reg(Reg::R3, Reg::R2));
        self.dctx_ptr(Reg::R2, tmp);
        let a = self.get(av, Reg::R1);
        if a != Reg::R1 {
            self.a.emit(Insn::mov64_reg(Reg::R1, a));
        }
        self.stash_fault_addr(Reg::R1);
        self.a.call_helper(helper::PROBE_WRITE_USER);
        self.fault_unless_at(JmpOp::Eq, Reg::R0, 0, FaultKind::BadAddr, true);
        av
    }

    /// `s[i]`: the `char` at index `i` of the string buffer `s` points to (NUL
    /// padded, so 0 past the string); an index outside `[0, strsize)` faults
    /// (invalid address, reporting the index).
    pub fn str_index(&mut self, s: &TExpr, index: &TExpr) -> Val {
        let cap = crate::expr::str_cap(&s.ty);
        let limit = self.opts.str_member_size().min(cap).max(1) - 1;
        let sv = self.expr(s);
        let iv = self.expr(index);
        let i = self.get(iv, Reg::R2);
        if i != Reg::R2 {
            self.a.emit(Insn::mov64_reg(Reg::R2, i));
        }
        self.free(iv);
        self.stash_fault_addr(Reg::R2);
        let p = self.get(sv, Reg::R1);
        if p != Reg::R1 {
            self.a.emit(Insn::mov64_reg(Reg::R1, p));
        }
        // A character of NULL is at address `i`.
        self.fault_if_null(Reg::R1, Reg::R3, true);
        self.fault_unless_at(JmpOp::Le, Reg::R2, limit as i32, FaultKind::BadAddr, true);
        self.a.emit(Insn::alu64_reg(AluOp::Add, Reg::R1, Reg::R2));
        let d = self.alloc(false);
        let w = self.work_reg(d, Reg::R0);
        self.a.emit(Insn::ldx_mem(Size::B, w, Reg::R1, 0));
        crate::gen::normalize(&mut self.a, w, 1, true);
        self.put(d, w);
        self.free(sv);
        d
    }
}
