//! A small assembler for one BPF function: labels, jump fix-ups, bpf-to-bpf call
//! sites and map references (relocations the runtime patches to fds at load).

use dtrace_bpf::opcode::{BPF_PSEUDO_MAP_FD, BPF_PSEUDO_MAP_VALUE};
use dtrace_bpf::{AtomicOp, Insn, JmpOp, Reg, Size};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Label(u32);

/// The register that picks the clause in a fused clause function.
pub const CLAUSE_SELECTOR: Reg = Reg::R3;

/// The farthest a jump may go in its short form (16-bit `off`). Well below
/// `i16::MAX`: the verifier rewrites some instructions into several (inlined map
/// lookups and helpers) after we are done, and fails the load with "cannot be
/// patched due to 16-bit range" when that pushes a short jump out of range; a
/// `gotol`'s 32-bit offset it adjusts freely. Eight times growth stays in range.
pub const SHORT_REACH: i64 = i16::MAX as i64 / 8;

/// How a map reference is written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RelocKind {
    /// `ld_imm64` with `BPF_PSEUDO_MAP_FD`: the map itself.
    Fd,
    /// `ld_imm64` with `BPF_PSEUDO_MAP_VALUE`: address of byte `offset` of the value of a
    /// one-entry array map.
    Value { offset: u32 },
}

/// A map reference at instruction `insn` (the first slot of an `ld_imm64`), whose
/// immediate holds the map's index in [`crate::CompiledProgram::maps`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MapReloc {
    pub insn: usize,
    pub map: usize,
    pub kind: RelocKind,
}

/// Which function a local call goes to (index in the program's function list).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FuncId(pub usize);

#[derive(Debug, Default, Clone)]
pub struct Asm {
    pub insns: Vec<Insn>,
    labels: Vec<Option<usize>>,
    jumps: Vec<(usize, Label)>,
    pub calls: Vec<(usize, FuncId)>,
    pub relocs: Vec<MapReloc>,
    /// Instructions of each loop and the source line it starts on.
    pub loops: Vec<(std::ops::Range<usize>, u32)>,
    /// Instructions of each clause inlined here (see [`Asm::inline`]), with
    /// the clause's index in the program.
    pub inlined: Vec<(std::ops::Range<usize>, usize)>,
}

impl Asm {
    pub fn new() -> Asm {
        Asm::default()
    }

    pub fn pc(&self) -> usize {
        self.insns.len()
    }

    pub fn emit(&mut self, i: Insn) {
        self.insns.push(i);
    }

    pub fn emit2(&mut self, i: [Insn; 2]) {
        self.insns.extend_from_slice(&i);
    }

    pub fn label(&mut self) -> Label {
        self.labels.push(None);
        Label(self.labels.len() as u32 - 1)
    }

    pub fn bind(&mut self, l: Label) {
        if let Some(slot) = self.labels.get_mut(l.0 as usize) {
            *slot = Some(self.insns.len());
        }
    }

    pub fn jmp_imm(&mut self, op: JmpOp, r: Reg, imm: i32, l: Label) {
        self.jumps.push((self.insns.len(), l));
        self.emit(Insn::jmp_imm(op, r, imm, 0));
    }

    pub fn jmp_reg(&mut self, op: JmpOp, a: Reg, b: Reg, l: Label) {
        self.jumps.push((self.insns.len(), l));
        self.emit(Insn::jmp_reg(op, a, b, 0));
    }

    /// Jump to `l` when `r op imm`, written as a jump over a `ja l` so that the
    /// verifier, which explores the fall-through first and keeps the jump target
    /// for later, keeps the way that stays (in a loop) pending rather than the way
    /// out: a long loop then leaves one pending state instead of one per iteration.
    pub fn leave_imm(&mut self, op: JmpOp, r: Reg, imm: i32, l: Label) {
        match op.negate() {
            Some(stay_op) => {
                let stay = self.label();
                self.jmp_imm(stay_op, r, imm, stay);
                self.ja(l);
                self.bind(stay);
            }
            None => self.jmp_imm(op, r, imm, l),
        }
    }

    /// [`Asm::leave_imm`] comparing two registers.
    pub fn leave_reg(&mut self, op: JmpOp, a: Reg, b: Reg, l: Label) {
        match op.negate() {
            Some(stay_op) => {
                let stay = self.label();
                self.jmp_reg(stay_op, a, b, stay);
                self.ja(l);
                self.bind(stay);
            }
            None => self.jmp_reg(op, a, b, l),
        }
    }

    pub fn ja(&mut self, l: Label) {
        self.jumps.push((self.insns.len(), l));
        self.emit(Insn::ja(0));
    }

    pub fn call_helper(&mut self, id: i32) {
        self.emit(Insn::call_helper(id));
    }

    pub fn call_func(&mut self, f: FuncId) {
        self.calls.push((self.insns.len(), f));
        self.emit(Insn::call_local(0));
    }

    /// Call clause function `f` with its selector register (r3) set to 0; the
    /// linker rewrites the selector when it fuses clause functions (see
    /// `crate::fuse`). Arguments in r1 and r2.
    pub fn call_clause(&mut self, f: FuncId) {
        self.emit(Insn::mov64_imm(CLAUSE_SELECTOR, 0));
        self.call_func(f);
    }

    /// Append a finished function's code, keeping its calls and map references.
    pub fn append(&mut self, f: &Asm) {
        let base = self.insns.len();
        self.insns.extend_from_slice(&f.insns);
        self.calls
            .extend(f.calls.iter().map(|(at, id)| (at + base, *id)));
        self.relocs.extend(f.relocs.iter().map(|r| MapReloc {
            insn: r.insn + base,
            ..*r
        }));
    }

    /// Append a finished function's body in line, as if called: each `exit`
    /// becomes a jump to `join`, where r0 holds what the function returned.
    /// Its calls, map references and loops come along; `clause` names it for
    /// [`Asm::inlined`]. The caller sets up the argument registers before and
    /// must not rely on r6-r9 or its frame's slots after: the body uses them.
    pub fn inline(&mut self, f: &Asm, join: Label, clause: usize) {
        let base = self.insns.len();
        self.append(f);
        for i in base..self.insns.len() {
            if self.insns[i] == Insn::exit() {
                self.insns[i] = Insn::ja(0);
                self.jumps.push((i, join));
            }
        }
        self.loops.extend(
            f.loops
                .iter()
                .map(|(r, line)| (r.start + base..r.end + base, *line)),
        );
        self.inlined.push((base..self.insns.len(), clause));
    }

    /// `dst = &f`: a callback's address (`BPF_PSEUDO_FUNC`), resolved as calls are.
    pub fn ld_func(&mut self, dst: Reg, f: FuncId) {
        self.calls.push((self.insns.len(), f));
        self.emit2(Insn::ld_func(dst, 0));
    }

    /// `dst = &maps[map]`.
    pub fn ld_map(&mut self, dst: Reg, map: usize) {
        self.relocs.push(MapReloc {
            insn: self.insns.len(),
            map,
            kind: RelocKind::Fd,
        });
        let mut i = Insn::ld_map_fd(dst, map as i32);
        i[0].src = BPF_PSEUDO_MAP_FD;
        self.emit2(i);
    }

    /// `dst = &maps[map].value[offset]` (one-entry array maps).
    pub fn ld_map_value(&mut self, dst: Reg, map: usize, offset: u32) {
        self.relocs.push(MapReloc {
            insn: self.insns.len(),
            map,
            kind: RelocKind::Value { offset },
        });
        let mut i = Insn::ld_map_value(dst, map as i32, offset as i32);
        i[0].src = BPF_PSEUDO_MAP_VALUE;
        self.emit2(i);
    }

    /// r2 = the 64-bit counter at `offset` in `map`'s value, which goes up
    /// by one atomically (the next number handed out; clobbers r1).
    pub fn fetch_inc(&mut self, map: usize, offset: u32) {
        self.ld_map_value(Reg::R1, map, offset);
        self.emit(Insn::mov64_imm(Reg::R2, 1));
        self.emit(Insn::atomic(
            Size::DW,
            AtomicOp::FetchAdd,
            Reg::R1,
            Reg::R2,
            0,
        ));
    }

    /// `dst = imm` choosing the short form when the value fits.
    pub fn mov_imm(&mut self, dst: Reg, v: i64) {
        if v >= i32::MIN as i64 && v <= i32::MAX as i64 {
            self.emit(Insn::mov64_imm(dst, v as i32));
        } else {
            self.emit2(Insn::ld_imm64(dst, v as u64));
        }
    }

    /// Write every jump's offset, given its target (an index into `self.insns`);
    /// returns the new index of every old one (and of the end). A jump whose distance
    /// exceeds [`SHORT_REACH`] takes its long form: `ja` becomes `gotol`, and a
    /// conditional jump becomes the opposite test jumping over a `gotol` (or, for
    /// `jset`, which has no opposite, the test jumping to a `gotol` behind a `ja +1`).
    /// Growing one jump can push others out of reach, so this repeats until no jump
    /// changes form.
    fn relax(&mut self, targets: &[Option<usize>]) -> Vec<usize> {
        let n = self.insns.len();
        // Slots added in front of the `gotol` of a long jump.
        let extra = |insn: &Insn| -> usize {
            match insn.jmp_op() {
                None => 0,
                Some(op) if op.negate().is_some() => 1,
                Some(_) => 2,
            }
        };
        let mut long: Vec<bool> = self.insns.iter().map(|i| i.is_gotol()).collect();
        let mut pos = vec![0usize; n + 1];
        loop {
            let mut p = 0;
            for i in 0..n {
                pos[i] = p;
                p += 1 + if long[i] { extra(&self.insns[i]) } else { 0 };
            }
            pos[n] = p;
            let mut grew = false;
            for i in 0..n {
                if let (false, Some(t)) = (long[i], targets[i]) {
                    let dist = pos[t] as i64 - (pos[i] as i64 + 1);
                    if dist.abs() > SHORT_REACH {
                        long[i] = true;
                        grew = true;
                    }
                }
            }
            if !grew {
                break;
            }
        }
        let mut out = Vec::with_capacity(pos[n]);
        for (i, insn) in self.insns.iter().enumerate() {
            let Some(t) = targets[i] else {
                out.push(*insn);
                continue;
            };
            let from = pos[i] + if long[i] { extra(insn) } else { 0 };
            let dist = pos[t] as i64 - (from as i64 + 1);
            if !long[i] {
                // Within SHORT_REACH, so the offset fits.
                out.push(Insn {
                    off: dist as i16,
                    ..*insn
                });
                continue;
            }
            if let Some(op) = insn.jmp_op() {
                match op.negate() {
                    Some(not) => out.push(Insn {
                        off: 1,
                        ..insn.with_jmp_op(not)
                    }),
                    None => {
                        out.push(Insn { off: 1, ..*insn });
                        out.push(Insn::ja(1));
                    }
                }
            }
            out.push(Insn::gotol(dist as i32));
        }
        self.insns = out;
        pos
    }

    /// Resolve jumps and drop unreachable instructions (the verifier rejects dead
    /// code); returns the finished function. Unbound labels resolve to the end of
    /// the function (never produced by codegen).
    pub fn finish(mut self) -> Asm {
        let n = self.insns.len();
        let target_of = |labels: &[Option<usize>], l: Label| -> usize {
            labels.get(l.0 as usize).copied().flatten().unwrap_or(n)
        };
        let jump_at: std::collections::HashMap<usize, Label> = self.jumps.iter().copied().collect();
        // Reachability from the entry.
        let mut live = vec![false; n + 1];
        let mut work = vec![0usize];
        while let Some(i) = work.pop() {
            if i >= n || live[i] {
                continue;
            }
            live[i] = true;
            let insn = self.insns[i];
            let class = insn.code & 0x07;
            let op = insn.code & 0xf0;
            let is_jmp = class == 0x05 || class == 0x06;
            if insn.is_ld_imm64() {
                if i + 1 < n {
                    live[i + 1] = true;
                }
                work.push(i + 2);
            } else if is_jmp && op == 0x90 {
                // exit
            } else if is_jmp && op != 0x80 {
                if op != 0x00 {
                    work.push(i + 1);
                }
                match jump_at.get(&i) {
                    Some(l) => work.push(target_of(&self.labels, *l)),
                    None => {
                        // A jump written with a fixed offset.
                        let off = if insn.is_gotol() {
                            insn.imm as i64
                        } else {
                            insn.off as i64
                        };
                        work.push((i as i64 + 1 + off).clamp(0, n as i64) as usize);
                    }
                }
            } else {
                work.push(i + 1);
            }
        }
        // New index of every old position (positions of dropped code map to the
        // next kept instruction).
        let mut new_at = vec![0usize; n + 1];
        let mut k = 0;
        for (i, slot) in new_at.iter_mut().enumerate().take(n) {
            *slot = k;
            if live[i] {
                k += 1;
            }
        }
        new_at[n] = k;
        let old = std::mem::take(&mut self.insns);
        let insns: Vec<Insn> = old
            .iter()
            .enumerate()
            .filter(|(i, _)| live[*i])
            .map(|(_, x)| *x)
            .collect();
        self.insns = insns;
        for l in self.labels.iter_mut().flatten() {
            *l = new_at[(*l).min(n)];
        }
        // Every jump's target, as an index into the kept code: a label's, or (for
        // jumps written with a fixed offset) the one its offset names.
        let kept = self.insns.len();
        let mut targets: Vec<Option<usize>> = vec![None; kept];
        for (at, insn) in self.insns.iter().enumerate() {
            if insn.is_jump() {
                let off = if insn.is_gotol() {
                    insn.imm as i64
                } else {
                    insn.off as i64
                };
                targets[at] = Some((at as i64 + 1 + off).clamp(0, kept as i64) as usize);
            }
        }
        for (at, l) in std::mem::take(&mut self.jumps) {
            if !live[at] {
                continue;
            }
            let bound = self.labels.get(l.0 as usize).copied().flatten();
            if let Some(t) = targets.get_mut(new_at[at]) {
                *t = Some(bound.map_or(kept, |b| b.min(kept)));
            }
        }
        let pos = self.relax(&targets);
        for l in self.labels.iter_mut().flatten() {
            *l = pos[(*l).min(kept)];
        }
        self.calls = self
            .calls
            .iter()
            .filter(|(at, _)| live[*at])
            .map(|(at, f)| (pos[new_at[*at]], *f))
            .collect();
        self.relocs = self
            .relocs
            .iter()
            .filter(|r| live[r.insn])
            .map(|r| MapReloc {
                insn: pos[new_at[r.insn]],
                ..*r
            })
            .collect();
        let at = |i: usize| pos[new_at[i.min(n)]];
        for (r, _) in self.loops.iter_mut() {
            *r = at(r.start)..at(r.end);
        }
        for (r, _) in self.inlined.iter_mut() {
            *r = at(r.start)..at(r.end);
        }
        self
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn leave_jumps_over_a_ja() {
        let mut a = Asm::new();
        let out = a.label();
        a.leave_imm(JmpOp::Ge, Reg::R1, 8, out);
        a.emit(Insn::mov64_imm(Reg::R0, 1));
        a.bind(out);
        a.emit(Insn::exit());
        let a = a.finish();
        // `if r1 < 8 goto +1; goto out; r0 = 1; out: exit`
        assert_eq!(a.insns.len(), 4);
        assert_eq!(a.insns[0], Insn::jmp_imm(JmpOp::Lt, Reg::R1, 8, 1));
        assert_eq!(a.insns[1], Insn::ja(1));
    }

    /// `if r1 == 0 goto out` over `n` instructions (with a map load in the middle),
    /// then `out: exit`.
    fn jump_over(n: usize, op: JmpOp) -> Asm {
        let mut a = Asm::new();
        let out = a.label();
        a.jmp_imm(op, Reg::R1, 0, out);
        for k in 0..n {
            if k == n / 2 {
                a.ld_map(Reg::R2, 7);
            }
            a.emit(Insn::mov64_imm(Reg::R0, k as i32));
        }
        a.call_func(FuncId(1));
        a.bind(out);
        a.emit(Insn::exit());
        a.finish()
    }

    #[test]
    fn near_jumps_stay_short() {
        let a = jump_over(100, JmpOp::Eq);
        assert_eq!(a.insns[0], Insn::jmp_imm(JmpOp::Eq, Reg::R1, 0, 103));
        assert!(!a.insns.iter().any(|i| i.is_gotol()));
    }

    #[test]
    fn far_conditional_jump_becomes_opposite_test_over_gotol() {
        let n = 40_000;
        let a = jump_over(n, JmpOp::Eq);
        // `if r1 != 0 goto +1; gotol out; ...n + 2 insns...; call; out: exit`
        assert_eq!(a.insns.len(), 2 + n + 2 + 1 + 1);
        assert_eq!(a.insns[0], Insn::jmp_imm(JmpOp::Ne, Reg::R1, 0, 1));
        assert_eq!(a.insns[1], Insn::gotol(n as i32 + 3));
        let exit = a.insns.len() - 1;
        assert_eq!(2 + a.insns[1].imm as usize, exit);
        assert_eq!(a.insns[exit], Insn::exit());
        // The call and the map load moved with the code.
        assert_eq!(a.calls, vec![(exit - 1, FuncId(1))]);
        assert_eq!(a.relocs.len(), 1);
        assert_eq!(a.relocs[0].insn, 2 + n / 2);
        assert!(a.insns[a.relocs[0].insn].is_ld_imm64());
    }

    #[test]
    fn far_jset_jumps_to_a_gotol_behind_a_ja() {
        let n = 40_000;
        let a = jump_over(n, JmpOp::Set);
        assert_eq!(a.insns[0], Insn::jmp_imm(JmpOp::Set, Reg::R1, 0, 1));
        assert_eq!(a.insns[1], Insn::ja(1));
        assert!(a.insns[2].is_gotol());
        assert_eq!(3 + a.insns[2].imm as usize, a.insns.len() - 1);
    }

    #[test]
    fn backward_and_fixed_offset_jumps_are_kept_right() {
        let mut a = Asm::new();
        let top = a.label();
        a.bind(top);
        // A fixed-offset jump over a far label jump: its target moves with the code.
        a.emit(Insn::jmp_imm(JmpOp::Gt, Reg::R2, 5, 2));
        let far = a.label();
        a.jmp_reg(JmpOp::Slt, Reg::R1, Reg::R3, far);
        a.emit(Insn::mov64_imm(Reg::R0, 1));
        a.emit(Insn::mov64_imm(Reg::R0, 2)); // fixed jump's target
        for _ in 0..35_000 {
            a.emit(Insn::mov64_imm(Reg::R0, 0));
        }
        a.bind(far);
        a.ja(top);
        a.emit(Insn::exit());
        let a = a.finish();
        // The fixed jump now skips the two-slot long form as well.
        assert_eq!(a.insns[0].off, 3);
        assert_eq!(a.insns[1], Insn::jmp_reg(JmpOp::Sge, Reg::R1, Reg::R3, 1));
        assert!(a.insns[2].is_gotol());
        let back = 2 + 1 + a.insns[2].imm as usize;
        assert!(a.insns[back].is_gotol());
        assert_eq!(back as i64 + 1 + a.insns[back].imm as i64, 0);
        assert_eq!(a.insns[4], Insn::mov64_imm(Reg::R0, 2));
    }

    #[test]
    fn ld_func_is_resolved_like_a_call() {
        let mut a = Asm::new();
        a.ld_func(Reg::R2, FuncId(3));
        a.emit(Insn::exit());
        let a = a.finish();
        assert_eq!(a.calls, vec![(0, FuncId(3))]);
        assert!(a.insns[0].is_ld_imm64());
    }
}
