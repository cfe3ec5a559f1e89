//! Variables: globals (direct map-value access), clause-locals (dctx), thread-locals
//! and associative arrays (hash maps; assigning 0 deletes, a missing element reads
//! as 0 or ""), and the key staging that map helpers need.

use crate::expr::{int_parts, str_cap};
use crate::gen::{Gen, Val, DCTX};
use crate::layout::{self, tuple_layout};
use crate::strings;
use dtrace_bpf::{helper, AluOp, Insn, JmpOp, Reg, Size};
use dtrace_sema::{ArithOp, BitPlace, ElemRoot, LValue, TExpr, Ty, VarRef};

fn size_of(t: &Ty) -> Size {
    match t {
        Ty::Int { size, .. } => Size::from_bytes(*size as u32).unwrap_or(Size::DW),
        _ => Size::DW,
    }
}

impl<'a> Gen<'a> {
    /// Load an integer of type `ty` from `base + off` into `dst`.
    pub fn load_int(&mut self, dst: Reg, base: Reg, off: i16, ty: &Ty) {
        let (size, signed) = int_parts(ty);
        let sz = size_of(ty);
        if signed && size < 8 {
            self.a.emit(Insn::ldx_memsx(sz, dst, base, off));
        } else {
            self.a.emit(Insn::ldx_mem(sz, dst, base, off));
        }
    }

    /// A variable's value; strings and aggregates (structs, unions, arrays) as a
    /// pointer to the variable's storage (decided by the variable's declared type:
    /// sema may retype an aggregate's address as an integer).
    pub fn load_var(&mut self, v: VarRef, ty: &Ty) -> Val {
        let declared = match v {
            VarRef::Global(i) => self.tp.globals.get(i as usize),
            VarRef::Clause(i) => self.tp.clause_vars.get(i as usize),
            VarRef::Thread(i) => self.tp.thread_vars.get(i as usize),
        };
        let by_ref = ty.is_str() || ty.is_agg() || declared.is_some_and(|d| d.ty.is_agg());
        let d = self.alloc(by_ref);
        let w = self.work_reg(d, Reg::R0);
        match v {
            VarRef::Global(i) => {
                let off = self
                    .l
                    .global_offs
                    .get(i as usize)
                    .copied()
                    .unwrap_or(layout::G_VARS);
                if by_ref {
                    self.a.ld_map_value(w, self.l.globals, off);
                } else {
                    self.a.ld_map_value(Reg::R1, self.l.globals, off);
                    self.load_int(w, Reg::R1, 0, ty);
                }
            }
            VarRef::Clause(i) => {
                let off = self.clause_var_off(i);
                if by_ref {
                    self.dctx_ptr(w, off);
                } else {
                    self.load_int(w, DCTX, off as i16, ty);
                }
            }
            VarRef::Thread(i) => {
                self.thread_key();
                let map = self.l.thread_maps.get(i as usize).copied().unwrap_or(0);
                self.lookup(map);
                let agg = ty.is_agg() || declared.is_some_and(|d| d.ty.is_agg());
                self.read_lookup(w, ty, agg);
            }
        }
        if by_ref && !ty.is_agg() && !ty.is_str() {
            // Sema took the aggregate's address as a number (an array decayed
            // to a pointer): make it one, so indexing with a run-time value is
            // plain arithmetic, bounds-checked by the read (which faults),
            // rather than map-pointer arithmetic the verifier must bound.
            self.launder(w);
        }
        self.put(d, w);
        d
    }

    /// Turn a pointer register into a plain number (through a dctx slot).
    pub(crate) fn launder(&mut self, r: Reg) {
        self.a
            .emit(Insn::stx_mem(Size::DW, DCTX, r, layout::D_LAUNDER));
        self.a
            .emit(Insn::ldx_mem(Size::DW, r, DCTX, layout::D_LAUNDER));
    }

    pub(crate) fn clause_var_off(&self, i: u32) -> u32 {
        self.l
            .clause_var_offs
            .get(i as usize)
            .copied()
            .unwrap_or(layout::D_CLAUSE_VARS)
    }

    /// After a lookup (r0 = value or NULL): `w` = the value, or 0 / "" if missing.
    /// With `agg` (a struct, union or array value) `w` = the value's address, or
    /// that of zeroes if missing.
    fn read_lookup(&mut self, w: Reg, ty: &Ty, agg: bool) {
        let missing = self.a.label();
        let end = self.a.label();
        self.a.jmp_imm(JmpOp::Eq, Reg::R0, 0, missing);
        if ty.is_str() || agg {
            self.a.emit(Insn::mov64_reg(w, Reg::R0));
        } else {
            self.load_int(w, Reg::R0, 0, ty);
        }
        self.a.ja(end);
        self.a.bind(missing);
        if ty.is_str() && !agg {
            // A string never assigned (or deleted) is NULL.
            let null = self.l.null_off;
            self.a.ld_map_value(w, self.l.strtab, null);
        } else if agg {
            let zero = self.l.zero_off;
            self.a.ld_map_value(w, self.l.strtab, zero);
        } else {
            self.a.emit(Insn::mov64_imm(w, 0));
        }
        self.a.bind(end);
    }

    /// dctx key area = current thread id (u64).
    pub fn thread_key(&mut self) {
        self.a.call_helper(helper::GET_CURRENT_PID_TGID);
        self.a.emit(Insn::mov32_reg(Reg::R0, Reg::R0));
        let k = self.l.key_area as i16;
        self.a.emit(Insn::stx_mem(Size::DW, DCTX, Reg::R0, k));
    }

    /// r0 = lookup(map, dctx key area).
    pub fn lookup(&mut self, map: usize) {
        self.a.ld_map(Reg::R1, map);
        self.dctx_ptr(Reg::R2, self.l.key_area);
        self.a.call_helper(helper::MAP_LOOKUP_ELEM);
    }

    /// Evaluate key expressions into temporaries.
    pub fn eval_keys(&mut self, keys: &[TExpr]) -> Vec<Val> {
        keys.iter().map(|k| self.expr(k)).collect()
    }

    pub fn free_all(&mut self, vals: Vec<Val>) {
        for v in vals.into_iter().rev() {
            self.free(v);
        }
    }

    /// Write a key tuple into the dctx key area: zeroed, then each field at its
    /// natural offset (strings NUL-padded to the slot's capacity).
    pub fn build_key(&mut self, proto: &[Ty], keys: &[TExpr], vals: &[Val]) {
        self.build_key_at(0, proto, keys, vals);
    }

    /// [`Gen::build_key`] with the tuple `skip` bytes into the key area.
    pub fn build_key_at(&mut self, skip: u32, proto: &[Ty], keys: &[TExpr], vals: &[Val]) {
        let (offs, size) = tuple_layout(proto);
        let base = (self.l.key_area + skip) as i16;
        self.zero(DCTX, base, size);
        for ((p, off), (k, v)) in proto.iter().zip(offs).zip(keys.iter().zip(vals)) {
            let o = base + off as i16;
            if p.is_str() {
                let src = self.get(*v, Reg::R2);
                strings::copy(
                    &mut self.a,
                    DCTX,
                    o,
                    str_cap(p),
                    src,
                    0,
                    str_cap(&k.ty),
                    Reg::R3,
                );
            } else if p.is_agg() {
                self.dctx_ptr(Reg::R1, o as u32);
                self.copy_object(*v, p);
            } else if let Ty::Stack { frames, kind } = p {
                let src = self.get(*v, Reg::R2);
                if src != Reg::R2 {
                    self.a.emit(Insn::mov64_reg(Reg::R2, src));
                }
                let words = crate::action::stack::stack_words(*frames, *kind);
                self.copy_stack(DCTX, o, Reg::R2, words);
            } else {
                let r = self.get(*v, Reg::R1);
                self.a.emit(Insn::stx_mem(size_of(p), DCTX, r, o));
            }
        }
    }

    pub fn array_get(&mut self, array: u32, keys: &[TExpr], ty: &Ty) -> Val {
        let vals = self.eval_keys(keys);
        self.array_key(array, keys, &vals);
        self.free_all(vals);
        self.array_read(array, ty)
    }

    /// Whether an associative array's values are structs, unions or arrays
    /// (read by address; sema may retype such an address as an integer).
    fn array_of_aggs(&self, array: u32) -> bool {
        self.tp
            .arrays
            .get(array as usize)
            .is_some_and(|a| a.value.is_agg())
    }

    /// The element of `array` at the staged key (see [`Gen::read_lookup`]).
    fn array_read(&mut self, array: u32, ty: &Ty) -> Val {
        let map = self.l.array_maps.get(array as usize).copied().unwrap_or(0);
        self.lookup(map);
        let agg = ty.is_agg() || self.array_of_aggs(array);
        let d = self.alloc(ty.is_str() || agg);
        let w = self.work_reg(d, Reg::R1);
        self.read_lookup(w, ty, agg);
        self.put(d, w);
        d
    }

    /// Read the current value of an lvalue whose keys are already evaluated.
    fn read_lv(&mut self, lv: &LValue, keyvals: &[Val], ty: &Ty) -> Val {
        match lv {
            LValue::Var(v) => self.load_var(*v, ty),
            LValue::Array { array, keys } => {
                self.array_key(*array, keys, keyvals);
                self.array_read(*array, ty)
            }
            LValue::Mem(_) => {
                let addr = keyvals.first().copied().unwrap_or(Val::Reg(Reg::R0));
                self.mem_ptr(addr, ty.size());
                let d = self.alloc(false);
                let w = self.work_reg(d, Reg::R0);
                self.load_int(w, Reg::R3, 0, ty);
                self.put(d, w);
                d
            }
            LValue::Elem {
                root, limit, bits, ..
            } => {
                self.elem_ptr(root, keyvals, *limit);
                let d = self.alloc(false);
                let w = self.work_reg(d, Reg::R0);
                match bits {
                    Some(b) => self.load_bits_at(w, Reg::R3, b, ty.signed()),
                    None => self.load_int(w, Reg::R3, 0, ty),
                }
                self.put(d, w);
                d
            }
        }
    }

    pub(crate) fn array_key(&mut self, array: u32, keys: &[TExpr], keyvals: &[Val]) {
        let proto = self
            .tp
            .arrays
            .get(array as usize)
            .map(|a| a.keys.clone())
            .unwrap_or_default();
        self.build_key(&proto, keys, keyvals);
    }

    /// Store `v` (of the lvalue's type `ty`, strings of capacity `vcap`) into `lv`.
    fn store_lv(&mut self, lv: &LValue, keyvals: &[Val], v: Val, ty: &Ty, vcap: u32) {
        match lv {
            LValue::Var(VarRef::Global(i)) => {
                let off = self
                    .l
                    .global_offs
                    .get(*i as usize)
                    .copied()
                    .unwrap_or(layout::G_VARS);
                if ty.is_agg() {
                    self.a.ld_map_value(Reg::R1, self.l.globals, off);
                    self.copy_object(v, ty);
                    return;
                }
                let r = self.get(v, Reg::R2);
                self.a.ld_map_value(Reg::R1, self.l.globals, off);
                if ty.is_str() {
                    strings::copy(&mut self.a, Reg::R1, 0, str_cap(ty), r, 0, vcap, Reg::R3);
                } else {
                    self.a.emit(Insn::stx_mem(size_of(ty), Reg::R1, r, 0));
                }
            }
            LValue::Var(VarRef::Clause(i)) => {
                let off = self.clause_var_off(*i) as i16;
                if ty.is_agg() {
                    self.dctx_ptr(Reg::R1, off as u32);
                    self.copy_object(v, ty);
                    return;
                }
                let r = self.get(v, Reg::R2);
                if ty.is_str() {
                    strings::copy(&mut self.a, DCTX, off, str_cap(ty), r, 0, vcap, Reg::R3);
                } else {
                    self.a.emit(Insn::stx_mem(size_of(ty), DCTX, r, off));
                }
            }
            LValue::Var(VarRef::Thread(i)) => {
                self.thread_key();
                let map = self.l.thread_maps.get(*i as usize).copied().unwrap_or(0);
                self.store_dyn(map, v, ty, vcap);
            }
            LValue::Array { array, keys } => {
                self.array_key(*array, keys, keyvals);
                let map = self.l.array_maps.get(*array as usize).copied().unwrap_or(0);
                self.store_dyn(map, v, ty, vcap);
            }
            LValue::Mem(_) => {
                let addr = keyvals.first().copied().unwrap_or(Val::Reg(Reg::R0));
                self.mem_ptr(addr, ty.size());
                let r = self.get(v, Reg::R2);
                self.a.emit(Insn::stx_mem(size_of(ty), Reg::R3, r, 0));
            }
            LValue::Elem {
                root, limit, bits, ..
            } => {
                // The address first: a dynamic root's lookup calls helpers.
                self.elem_ptr(root, keyvals, *limit);
                let r = self.get(v, Reg::R2);
                if let Some(b) = bits {
                    self.store_bits_at(Reg::R3, r, b);
                } else if ty.is_str() {
                    let size = self.opts.str_member_size();
                    strings::copy_exact(&mut self.a, Reg::R3, size, r, vcap, Reg::R4);
                } else if ty.is_agg() {
                    // A struct or union member: copy the whole object there.
                    self.a.emit(Insn::mov64_reg(Reg::R1, Reg::R3));
                    self.copy_object(v, ty);
                } else {
                    self.a.emit(Insn::stx_mem(size_of(ty), Reg::R3, r, 0));
                }
            }
        }
    }

    /// Copy the object of type `ty` at the address in `v` to the storage r1 points
    /// to (a fault if the source cannot be read).
    fn copy_object(&mut self, v: Val, ty: &Ty) {
        let r = self.get(v, Reg::R3);
        if r != Reg::R3 {
            self.a.emit(Insn::mov64_reg(Reg::R3, r));
        }
        self.stash_fault_addr(Reg::R3);
        self.a.emit(Insn::mov64_imm(Reg::R2, ty.size() as i32));
        self.a.call_helper(helper::PROBE_READ_KERNEL);
        self.fault_unless_at(JmpOp::Eq, Reg::R0, 0, crate::desc::FaultKind::BadAddr, true);
    }

    /// Update or (for integer 0) delete the element at the staged key.
    fn store_dyn(&mut self, map: usize, v: Val, ty: &Ty, vcap: u32) {
        let done = self.a.label();
        let stage = self.l.stage_area as i16;
        if ty.is_agg() {
            self.dctx_ptr(Reg::R1, self.l.stage_area);
            self.copy_object(v, ty);
        } else if ty.is_str() {
            // Storing NULL deletes the element, as storing 0 does.
            let set = self.a.label();
            let r = self.get(v, Reg::R2);
            self.a.emit(Insn::ldx_mem(Size::DW, Reg::R3, r, 0));
            self.a
                .jmp_imm(JmpOp::Ne, Reg::R3, strings::NULL_WORD as i32, set);
            self.delete_staged(map);
            self.a.ja(done);
            self.a.bind(set);
            strings::copy(&mut self.a, DCTX, stage, str_cap(ty), r, 0, vcap, Reg::R3);
        } else {
            let set = self.a.label();
            let r = self.get(v, Reg::R3);
            self.a.jmp_imm(JmpOp::Ne, r, 0, set);
            self.delete_staged(map);
            self.a.ja(done);
            self.a.bind(set);
            self.a.emit(Insn::stx_mem(Size::DW, DCTX, r, stage));
        }
        let (create, lost) = (self.a.label(), self.a.label());
        self.lookup(map);
        self.a.jmp_imm(JmpOp::Eq, Reg::R0, 0, create);
        self.update_staged(map);
        self.a.ja(done);
        self.a.bind(create);
        self.dyn_reserve(lost);
        self.update_staged(map);
        self.a.jmp_imm(JmpOp::Eq, Reg::R0, 0, done);
        self.dyn_release();
        self.a.bind(lost);
        self.dyn_drop();
        self.a.bind(done);
    }

    /// `map[key] = stage` (r0 = the helper's result).
    fn update_staged(&mut self, map: usize) {
        self.a.ld_map(Reg::R1, map);
        self.dctx_ptr(Reg::R2, self.l.key_area);
        self.dctx_ptr(Reg::R3, self.l.stage_area);
        self.a.emit(Insn::mov64_imm(Reg::R4, 0));
        self.a.call_helper(helper::MAP_UPDATE_ELEM);
    }

    /// Delete `map[key]`, one dynamic variable fewer if it existed.
    fn delete_staged(&mut self, map: usize) {
        let gone = self.a.label();
        self.a.ld_map(Reg::R1, map);
        self.dctx_ptr(Reg::R2, self.l.key_area);
        self.a.call_helper(helper::MAP_DELETE_ELEM);
        self.a.jmp_imm(JmpOp::Ne, Reg::R0, 0, gone);
        self.dyn_release();
        self.a.bind(gone);
    }

    /// Count one more live dynamic variable, or jump to `full` (nothing
    /// counted) when `dynvarsize` holds no more (clobbers r1, r2).
    pub fn dyn_reserve(&mut self, full: crate::asm::Label) {
        let ok = self.a.label();
        self.a.fetch_inc(self.l.globals, layout::G_DYNVARS);
        self.a
            .jmp_imm(JmpOp::Lt, Reg::R2, self.l.dynvar_limit as i32, ok);
        self.dyn_release();
        self.a.ja(full);
        self.a.bind(ok);
    }

    /// One live dynamic variable fewer (clobbers r1, r2).
    pub fn dyn_release(&mut self) {
        self.a
            .ld_map_value(Reg::R1, self.l.globals, layout::G_DYNVARS);
        self.a.emit(Insn::mov64_imm(Reg::R2, -1));
        self.a.emit(Insn::atomic_add(Size::DW, Reg::R1, Reg::R2, 0));
    }

    /// A dynamic-variable drop: counted, and (as in DTrace) the rest of the
    /// clause is skipped, its record discarded.
    pub fn dyn_drop(&mut self) {
        self.count_drop(layout::DROP_DYNVAR);
        if self.in_body || !self.emits_record {
            let ab = self.abort_body;
            self.a.ja(ab);
        }
    }

    /// Delete the dynamic variable (thread-local or associative-array element)
    /// `lv` names: storing 0 into a struct- or union-valued one.
    fn delete_lv(&mut self, lv: &LValue, keyvals: &[Val]) {
        let map = match lv {
            LValue::Var(VarRef::Thread(i)) => {
                self.thread_key();
                self.l.thread_maps.get(*i as usize).copied().unwrap_or(0)
            }
            LValue::Array { array, keys } => {
                self.array_key(*array, keys, keyvals);
                self.l.array_maps.get(*array as usize).copied().unwrap_or(0)
            }
            _ => return,
        };
        self.delete_staged(map);
    }

    /// `dst` = the bit-field `b` of the unit at `base`, sign-extended if `signed`.
    fn load_bits_at(&mut self, dst: Reg, base: Reg, b: &BitPlace, signed: bool) {
        let sz = Size::from_bytes(u32::from(b.size)).unwrap_or(Size::DW);
        self.a.emit(Insn::ldx_mem(sz, dst, base, 0));
        let width = i32::from(b.width.clamp(1, 64));
        let up = (64 - i32::from(b.shift) - width).max(0);
        if up > 0 {
            self.a.emit(Insn::alu64_imm(AluOp::Lsh, dst, up));
        }
        if width < 64 {
            let op = if signed { AluOp::Arsh } else { AluOp::Rsh };
            self.a.emit(Insn::alu64_imm(op, dst, 64 - width));
        }
    }

    /// Store the low bits of `val` into the bit-field `b` of the unit at `base`
    /// (read, clear the field, merge, write back; clobbers r4, r5 and `val`).
    fn store_bits_at(&mut self, base: Reg, val: Reg, b: &BitPlace) {
        let sz = Size::from_bytes(u32::from(b.size)).unwrap_or(Size::DW);
        let width = u32::from(b.width.clamp(1, 64));
        let low: u64 = if width >= 64 {
            u64::MAX
        } else {
            (1u64 << width) - 1
        };
        let field = low << b.shift;
        self.a.emit(Insn::mov64_reg(Reg::R5, val));
        self.a.mov_imm(Reg::R4, low as i64);
        self.a.emit(Insn::alu64_reg(AluOp::And, Reg::R5, Reg::R4));
        if b.shift > 0 {
            self.a
                .emit(Insn::alu64_imm(AluOp::Lsh, Reg::R5, i32::from(b.shift)));
        }
        self.a.emit(Insn::ldx_mem(sz, Reg::R4, base, 0));
        self.a.emit(Insn::stx_mem(
            Size::DW,
            Reg::FP,
            Reg::R5,
            crate::gen::FP_SCRATCH,
        ));
        self.a.mov_imm(Reg::R5, !field as i64);
        self.a.emit(Insn::alu64_reg(AluOp::And, Reg::R4, Reg::R5));
        self.a.emit(Insn::ldx_mem(
            Size::DW,
            Reg::R5,
            Reg::FP,
            crate::gen::FP_SCRATCH,
        ));
        self.a.emit(Insn::alu64_reg(AluOp::Or, Reg::R4, Reg::R5));
        self.a.emit(Insn::stx_mem(sz, base, Reg::R4, 0));
    }

    fn lv_keys(&mut self, lv: &LValue) -> Vec<Val> {
        match lv {
            LValue::Array { keys, .. } => self.eval_keys(keys),
            LValue::Elem { off, root, .. } => {
                let mut v = vec![self.expr(off)];
                if let ElemRoot::Array { keys, .. } = root {
                    v.extend(self.eval_keys(keys));
                }
                v
            }
            LValue::Mem(addr) => vec![self.expr(addr)],
            LValue::Var(_) => Vec::new(),
        }
    }

    pub fn assign(&mut self, lv: &LValue, op: Option<&(ArithOp, Ty)>, rhs: &TExpr, ty: &Ty) -> Val {
        let keyvals = self.lv_keys(lv);
        let result = match op {
            None => {
                let v = self.expr(rhs);
                if ty.is_agg() && rhs.ty.is_int() {
                    // Sema allows only 0 here: it deletes a dynamic struct or union.
                    self.delete_lv(lv, &keyvals);
                } else {
                    let vcap = str_cap(&rhs.ty);
                    self.store_lv(lv, &keyvals, v, ty, vcap);
                }
                v
            }
            Some((aop, op_ty)) => {
                let cur = self.read_lv(lv, &keyvals, ty);
                self.convert_in_place(cur, op_ty);
                let r = self.expr(rhs);
                self.arith_vals(*aop, cur, r, op_ty);
                self.free(r);
                self.convert_in_place(cur, ty);
                self.store_lv(lv, &keyvals, cur, ty, 8);
                cur
            }
        };
        self.free_all(keyvals);
        result
    }

    fn convert_in_place(&mut self, v: Val, to: &Ty) {
        let (size, signed) = int_parts(to);
        if size == 8 {
            return;
        }
        let r = self.get(v, Reg::R1);
        let w = self.work_reg(v, Reg::R1);
        if r != w {
            self.a.emit(Insn::mov64_reg(w, r));
        }
        crate::gen::normalize(&mut self.a, w, size, signed);
        self.put(v, w);
    }

    pub fn incdec(&mut self, lv: &LValue, inc: bool, post: bool, step: u32, ty: &Ty) -> Val {
        let keyvals = self.lv_keys(lv);
        let cur = self.read_lv(lv, &keyvals, ty);
        let old = if post {
            let o = self.alloc(false);
            let r = self.get(cur, Reg::R1);
            self.put(o, r);
            Some(o)
        } else {
            None
        };
        let r = self.get(cur, Reg::R1);
        let w = self.work_reg(cur, Reg::R1);
        if r != w {
            self.a.emit(Insn::mov64_reg(w, r));
        }
        self.a.emit(Insn::alu64_imm(
            AluOp::Add,
            w,
            if inc { step as i32 } else { -(step as i32) },
        ));
        let (size, signed) = int_parts(ty);
        crate::gen::normalize(&mut self.a, w, size, signed);
        self.put(cur, w);
        self.store_lv(lv, &keyvals, cur, ty, 8);
        let result = match old {
            Some(o) => {
                self.free(cur);
                o
            }
            None => cur,
        };
        self.free_all(keyvals);
        result
    }
}
