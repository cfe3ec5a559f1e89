//! Fusing clause functions when a program has more functions than the verifier
//! allows (256 subprograms, the main one included).
//!
//! Every clause is its own BPF function, so a probe with a few hundred clauses
//! would exceed the limit. Clause functions are then packed into fused functions:
//! each starts with a switch on the selector register (r3), which the caller sets
//! before the call, and continues with the clause bodies one after another. A body
//! only reads r1 and r2 and returns with its own `exit`, so it runs unchanged; the
//! verifier checks a static function once per call site with that site's
//! registers, so it sees the selector as a constant and walks one body per call.

use crate::asm::{Asm, FuncId, CLAUSE_SELECTOR};
use dtrace_bpf::{Insn, JmpOp};

/// The most functions a program may have; the kernel's limit is 256, less room
/// for the functions it adds of its own.
pub const MAX_FUNCS: usize = 240;

/// `funcs` (function 0 is the entry; the `usize` names the clause a function
/// is) with clause functions fused so that at most `max` remain. Clause
/// functions with a call site whose selector was not set by
/// [`Asm::call_clause`] are left alone. Fused functions name no clause.
pub fn fuse(funcs: Vec<(Asm, Option<usize>)>, max: usize) -> Vec<(Asm, Option<usize>)> {
    if funcs.len() <= max {
        return funcs;
    }
    let n = funcs.len();
    let mut fusable: Vec<bool> = funcs.iter().map(|(_, c)| c.is_some()).collect();
    fusable[0] = false;
    for (f, _) in &funcs {
        for (at, FuncId(t)) in &f.calls {
            let set = at
                .checked_sub(1)
                .and_then(|p| f.insns.get(p))
                .is_some_and(|i| *i == Insn::mov64_imm(CLAUSE_SELECTOR, 0));
            if !set {
                if let Some(x) = fusable.get_mut(*t) {
                    *x = false;
                }
            }
        }
    }
    let cands: Vec<usize> = (0..n).filter(|i| fusable[*i]).collect();
    let fixed = n - cands.len();
    if cands.is_empty() || fixed >= max {
        return funcs;
    }
    let room = max - fixed;
    let per = cands.len().div_ceil(room).max(1);
    // New place of every old function: (new index, selector within a fused one).
    let mut place: Vec<(usize, Option<i32>)> = vec![(0, None); n];
    let mut k = 0;
    for (i, p) in place.iter_mut().enumerate() {
        if !fusable[i] {
            *p = (k, None);
            k += 1;
        }
    }
    let chunks: Vec<&[usize]> = cands.chunks(per).collect();
    for (c, chunk) in chunks.iter().enumerate() {
        for (s, i) in chunk.iter().enumerate() {
            place[*i] = (k + c, Some(s as i32));
        }
    }
    let mut out: Vec<(Asm, Option<usize>)> = Vec::with_capacity(k + chunks.len());
    let mut bodies: Vec<Option<Asm>> = Vec::with_capacity(n);
    for (i, (f, c)) in funcs.into_iter().enumerate() {
        if fusable[i] {
            bodies.push(Some(f));
        } else {
            bodies.push(None);
            out.push((f, c));
        }
    }
    for chunk in &chunks {
        let parts: Vec<Asm> = chunk.iter().filter_map(|i| bodies[*i].take()).collect();
        out.push((switch(&parts), None));
    }
    for (f, _) in out.iter_mut() {
        let calls = std::mem::take(&mut f.calls);
        for (at, FuncId(t)) in calls {
            let (to, sel) = place.get(t).copied().unwrap_or((t, None));
            if let (Some(sel), Some(p)) = (sel, at.checked_sub(1)) {
                if let Some(i) = f.insns.get_mut(p) {
                    i.imm = sel;
                }
            }
            f.calls.push((at, FuncId(to)));
        }
    }
    out
}

/// One function running `parts[r3]`.
fn switch(parts: &[Asm]) -> Asm {
    let mut a = Asm::new();
    let last = parts.len().saturating_sub(1);
    let labels: Vec<_> = (0..last).map(|_| a.label()).collect();
    for (s, l) in labels.iter().enumerate() {
        a.jmp_imm(JmpOp::Eq, CLAUSE_SELECTOR, s as i32, *l);
    }
    // The last body is reached by falling through.
    if let Some(f) = parts.get(last) {
        a.append(f);
    }
    for (l, f) in labels.iter().zip(parts) {
        a.bind(*l);
        a.append(f);
    }
    a.finish()
}

#[cfg(test)]
mod tests {
    use super::*;
    use dtrace_bpf::Reg;

    fn clause(v: i32, sub: usize) -> Asm {
        let mut a = Asm::new();
        let skip = a.label();
        a.jmp_imm(JmpOp::Eq, Reg::R1, 0, skip);
        a.call_func(FuncId(sub));
        a.bind(skip);
        a.emit(Insn::mov64_imm(Reg::R0, v));
        a.emit(Insn::exit());
        a.finish()
    }

    #[test]
    fn few_functions_are_left_alone() {
        let funcs = vec![(Asm::new(), None), (clause(1, 0), Some(0))];
        assert_eq!(fuse(funcs, 4).len(), 2);
    }

    #[test]
    fn clauses_are_packed_behind_a_switch() {
        // main calls clauses 1..=6; each clause calls the helper function 7.
        let mut main = Asm::new();
        for f in 1..=6 {
            main.call_clause(FuncId(f));
        }
        main.emit(Insn::exit());
        let main = main.finish();
        let mut funcs = vec![(main, None)];
        for c in 0..6 {
            funcs.push((clause(10 + c as i32, 7), Some(c)));
        }
        funcs.push((clause(99, 7), None));
        let out = fuse(funcs, 4);
        // main, the helper, two fused functions of three clauses each.
        assert_eq!(out.len(), 4);
        let (main, _) = &out[0];
        let sels: Vec<(usize, i32)> = main
            .calls
            .iter()
            .map(|(at, FuncId(t))| (*t, main.insns[at - 1].imm))
            .collect();
        assert_eq!(sels, vec![(2, 0), (2, 1), (2, 2), (3, 0), (3, 1), (3, 2)]);
        // Function 5 (selector 1 of the second fused function) still returns 14
        // and still calls the helper, now function 1.
        let (f, c) = &out[3];
        assert_eq!(*c, None);
        assert!(f.calls.iter().all(|(_, t)| *t == FuncId(1)));
        let sw = f.insns[1];
        assert_eq!((sw.code & 0xf0, sw.imm), (0x10, 1));
        let body = 2 + sw.off as usize;
        assert_eq!(f.insns[body + 2], Insn::mov64_imm(Reg::R0, 14));
        assert_eq!(f.insns[body + 1].code, Insn::call_local(0).code);
        assert!(f.calls.iter().any(|(at, _)| *at == body + 1));
    }
}
