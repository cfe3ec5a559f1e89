//! A small assembler for one BPF function: labels, jump fix-ups, bpf-to-bpf call
//! sites and map references (relocations the runtime patches to fds at load).

use dtrace_bpf::opcode::{BPF_PSEUDO_MAP_FD, BPF_PSEUDO_MAP_VALUE};
use dtrace_bpf::{Insn, JmpOp, Reg};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Label(u32);

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

    /// `dst = imm` choosing the short form when the value fits.
    pub fn mov_imm(&mut self, dst: Reg, v: i64) {
        if v >= i32::MIN as i64 && v <= i32::MAX as i64 {
            self.emit(Insn::mov64_imm(dst, v as i32));
        } else {
            self.emit2(Insn::ld_imm64(dst, v as u64));
        }
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
            } else if is_jmp && op == 0x00 {
                if let Some(l) = jump_at.get(&i) {
                    work.push(target_of(&self.labels, *l));
                }
            } else if is_jmp && op != 0x80 {
                work.push(i + 1);
                if let Some(l) = jump_at.get(&i) {
                    work.push(target_of(&self.labels, *l));
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
        let jumps = std::mem::take(&mut self.jumps);
        for (at, l) in jumps {
            if !live[at] {
                continue;
            }
            let at = new_at[at];
            let target = target_of(&self.labels, l).min(self.insns.len());
            let target = if self.labels.get(l.0 as usize).copied().flatten().is_some() {
                target
            } else {
                self.insns.len()
            };
            let off = target as i64 - (at as i64 + 1);
            let off = off.clamp(i16::MIN as i64, i16::MAX as i64) as i16;
            if let Some(i) = self.insns.get_mut(at) {
                i.off = off;
            }
        }
        self.calls = self
            .calls
            .iter()
            .filter(|(at, _)| live[*at])
            .map(|(at, f)| (new_at[*at], *f))
            .collect();
        self.relocs = self
            .relocs
            .iter()
            .filter(|r| live[r.insn])
            .map(|r| MapReloc {
                insn: new_at[r.insn],
                ..*r
            })
            .collect();
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
