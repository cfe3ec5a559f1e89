//! Places inside D variables ([`LValue::Elem`](dtrace_sema::LValue)): elements of
//! scalar arrays and members of structs and unions, in globals (map value),
//! clause-locals (dctx), thread-locals and associative-array elements (hash-map
//! values). A member store into a dynamic variable that does not exist yet
//! creates it zero-filled, as DTrace does; when the map is full the drop is
//! counted and the store goes to the dctx staging area instead (so it is lost,
//! and a read-modify-write reads zeroes).

use crate::gen::{Gen, Val, DCTX};
use crate::layout;
use dtrace_bpf::{helper, AluOp, Insn, JmpOp, Reg};
use dtrace_sema::{ElemRoot, VarRef};

impl<'a> Gen<'a> {
    /// r3 = the address of the scalar at the byte offset in `keyvals[0]` of the
    /// root's storage (`keyvals[1..]`: an associative-array root's keys); an
    /// offset past `limit` faults (BadAddr, reporting the offset). Clobbers r0-r5.
    pub(crate) fn elem_ptr(&mut self, root: &ElemRoot, keyvals: &[Val], limit: u32) {
        // The storage's base address goes to r3 first (helpers clobber r1-r5).
        match root {
            ElemRoot::Var(VarRef::Global(i)) => {
                let goff = self
                    .l
                    .global_offs
                    .get(*i as usize)
                    .copied()
                    .unwrap_or(layout::G_VARS);
                self.a.ld_map_value(Reg::R3, self.l.globals, goff);
            }
            ElemRoot::Var(VarRef::Clause(i)) => {
                let coff = self.clause_var_off(*i);
                self.dctx_ptr(Reg::R3, coff);
            }
            ElemRoot::Var(VarRef::Thread(i)) => {
                self.thread_key();
                let map = self.l.thread_maps.get(*i as usize).copied().unwrap_or(0);
                let size = self
                    .tp
                    .thread_vars
                    .get(*i as usize)
                    .map(|v| v.ty.size())
                    .unwrap_or(0);
                self.dyn_value_ptr(map, size);
            }
            ElemRoot::Array { array, keys } => {
                self.array_key(*array, keys, keyvals.get(1..).unwrap_or(&[]));
                let map = self.l.array_maps.get(*array as usize).copied().unwrap_or(0);
                let size = self
                    .tp
                    .arrays
                    .get(*array as usize)
                    .map(|a| a.value.size())
                    .unwrap_or(0);
                self.dyn_value_ptr(map, size);
            }
        }
        let off = keyvals.first().copied().unwrap_or(Val::Reg(Reg::R0));
        let r = self.get(off, Reg::R1);
        if r != Reg::R1 {
            self.a.emit(Insn::mov64_reg(Reg::R1, r));
        }
        self.stash_fault_addr(Reg::R1);
        let limit = i32::try_from(limit).unwrap_or(i32::MAX);
        self.fault_unless_at(
            JmpOp::Le,
            Reg::R1,
            limit,
            crate::desc::FaultKind::BadAddr,
            true,
        );
        self.a.emit(Insn::alu64_reg(AluOp::Add, Reg::R3, Reg::R1));
    }

    /// r3 = the value at the staged key of the hash map `map`, created
    /// zero-filled (`size` bytes) when missing; the zeroed staging area when it
    /// cannot be created (a dynamic-variable drop is counted).
    fn dyn_value_ptr(&mut self, map: usize, size: u32) {
        let found = self.a.label();
        let lost = self.a.label();
        self.lookup(map);
        self.a.jmp_imm(JmpOp::Ne, Reg::R0, 0, found);
        let stage = self.l.stage_area;
        self.zero(DCTX, stage as i16, layout::round8(size));
        let (full, release) = (self.a.label(), self.a.label());
        self.dyn_reserve(full);
        self.a.ld_map(Reg::R1, map);
        self.dctx_ptr(Reg::R2, self.l.key_area);
        self.dctx_ptr(Reg::R3, stage);
        self.a.emit(Insn::mov64_imm(Reg::R4, 0));
        self.a.call_helper(helper::MAP_UPDATE_ELEM);
        self.a.jmp_imm(JmpOp::Ne, Reg::R0, 0, release);
        self.lookup(map);
        self.a.jmp_imm(JmpOp::Ne, Reg::R0, 0, found);
        self.a.ja(lost);
        self.a.bind(release);
        self.dyn_release();
        self.a.bind(full);
        self.a.bind(lost);
        self.dyn_drop();
        self.dctx_ptr(Reg::R0, stage);
        self.a.bind(found);
        self.a.emit(Insn::mov64_reg(Reg::R3, Reg::R0));
    }
}
