//! Keyless aggregations (`@ = count()`): a fixed slot per aggregation, found
//! from constants, with no hash lookup; its entry written before load; the
//! update marks the slot live only when its value could stay zero. The last
//! test runs the code in the kernel (root).

mod common;

use common::kernel::*;
use common::*;
use dtrace_codegen::RelocKind;
use dtrace_codegen::{Attach, CompiledProgram, MapKind};

/// The maps the BEGIN clause's instructions name.
fn clause_maps(cp: &CompiledProgram) -> Vec<usize> {
    let p = prog_for(cp, Attach::Begin).expect("BEGIN program");
    let (range, _, _) = p.clause_ranges.first().expect("a clause").clone();
    p.relocs
        .iter()
        .filter(|r| range.contains(&r.insn) && matches!(r.kind, RelocKind::Fd))
        .map(|r| r.map)
        .collect()
}

fn u64_at(b: &[u8], off: usize) -> u64 {
    u64::from_ne_bytes(b[off..off + 8].try_into().unwrap())
}

#[test]
fn keyless_aggregations_take_the_first_slots_of_their_class() {
    let cp = compile_src(
        "BEGIN { @a = count(); @k[1] = count(); @b = max(2); @s = sum(3); @q = quantize(1); }",
    );
    // Count, max and sum values are one or two words: count and sum share the
    // 8-byte class, max (count, value) has its own; quantize another.
    assert_eq!(cp.agg_fixed[&0], 0);
    assert_eq!(cp.agg_fixed[&3], 1);
    assert_eq!(cp.agg_fixed[&2], 0);
    assert_eq!(cp.agg_fixed[&4], 0);
    assert!(
        !cp.agg_fixed.contains_key(&1),
        "a keyed aggregation has no fixed slot"
    );
    let g = cp.agg_groups[cp.agg_maps[&0]];
    // The class's counter starts above its two fixed slots.
    let counter = &cp.maps[g.counter];
    let (_, words) = &counter.initial[0];
    assert_eq!(u64_at(words, g.counter_off as usize), 2);
    // Each fixed slot's entry is written before load: state 0, its id.
    let entries = &cp.maps[g.slot_keys];
    for (agg, slot) in [(0u32, 0u32), (3, 1)] {
        let (_, e) = entries
            .initial
            .iter()
            .find(|(k, _)| *k == (g.entry_base + slot).to_ne_bytes())
            .expect("the fixed slot's entry");
        assert_eq!((u64_at(e, 0), u64_at(e, 8)), (0, u64::from(agg)));
        assert!(e[16..].iter().all(|b| *b == 0));
    }
    // A group of keyless aggregations only keeps a one-entry hash; one with a
    // keyed member keeps its capacity.
    let q = cp.agg_groups[cp.agg_maps[&4]];
    assert_eq!(cp.maps[q.keys].max_entries, 1);
    let k = cp.agg_groups[cp.agg_maps[&1]];
    assert!(cp.maps[k.keys].max_entries > 1);
}

#[test]
fn a_keyless_update_looks_up_no_key() {
    let cp = compile_src("BEGIN { @ = count(); }");
    let g = cp.agg_groups[cp.agg_maps[&0]];
    let maps = clause_maps(&cp);
    // This CPU's element of the value array, and nothing else: no hash, no
    // free queue, no counter, no entry (a count is never all zero).
    assert!(maps.contains(&g.values));
    for m in [g.keys, g.free, g.counter, g.slot_keys] {
        assert!(!maps.contains(&m), "map {} named", cp.maps[m].name);
    }
    let p = prog_for(&cp, Attach::Begin).unwrap();
    let (range, _, _) = p.clause_ranges[0].clone();
    let lookups = p.insns[range]
        .iter()
        .filter(|i| **i == dtrace_bpf::Insn::call_helper(dtrace_bpf::helper::MAP_LOOKUP_ELEM))
        .count();
    // The value, and the drop counter of a missing value (never reached).
    assert_eq!(lookups, 2);
}

#[test]
fn a_keyless_sum_marks_its_slot_live() {
    // sum(0) leaves the value zero: the update sets the entry's state.
    let cp = compile_src("BEGIN { @ = sum(arg0); }");
    let g = cp.agg_groups[cp.agg_maps[&0]];
    let maps = clause_maps(&cp);
    assert!(maps.contains(&g.values) && maps.contains(&g.slot_keys));
    assert!(!maps.contains(&g.keys) && !maps.contains(&g.free));
    // So does a distribution with an increment, not one without.
    let cp = compile_src("BEGIN { @ = quantize(arg0, arg1); }");
    let g = cp.agg_groups[cp.agg_maps[&0]];
    assert!(clause_maps(&cp).contains(&g.slot_keys));
    let cp = compile_src("BEGIN { @ = lquantize(arg0, 0, 10, 1); }");
    let g = cp.agg_groups[cp.agg_maps[&0]];
    assert!(!clause_maps(&cp).contains(&g.slot_keys));
    // A keyed aggregation still finds its key in the hash.
    let cp = compile_src("BEGIN { @[1] = count(); }");
    let g = cp.agg_groups[cp.agg_maps[&0]];
    assert!(clause_maps(&cp).contains(&g.keys));
    assert_eq!(cp.maps[g.keys].kind, MapKind::Hash);
}

#[test]
fn keyless_values_in_the_kernel() {
    let Some(sys) = gate() else {
        return;
    };
    let src = "BEGIN { @c = count(); @c = count(); @z = sum(0); @m = min(-4); @m = min(2); }
               BEGIN /0/ { @never = count(); }";
    let cp = compile_src(src);
    let s = match load(&sys, &cp) {
        Ok(s) => s,
        Err(e) => panic!("load failed:\n{e}\n{}", dtrace_codegen::disassemble(&cp)),
    };
    assert_eq!(s.agg_words(&cp, 3, &[]), None, "not live before it fires");
    s.run(Attach::Begin);
    assert_eq!(s.agg_words(&cp, 0, &[]), Some(vec![2]));
    // Live although its value is zero: the update marked it.
    assert_eq!(s.agg_words(&cp, 1, &[]), Some(vec![0]));
    let g = cp.agg_groups[cp.agg_maps[&1]];
    let e = s.maps[g.slot_keys]
        .lookup(&(g.entry_base + cp.agg_fixed[&1]).to_ne_bytes())
        .unwrap()
        .unwrap();
    assert_eq!(u64_at(&e, 0), 1);
    assert_eq!(s.agg_words(&cp, 2, &[]), Some(vec![2, -4]));
    assert_eq!(s.agg_words(&cp, 3, &[]), None, "never updated");
}

/// Whether the trampoline (the code before the first clause) names dctx.
fn trampoline_uses_dctx(cp: &CompiledProgram, a: Attach) -> bool {
    let p = prog_for(cp, a).expect("the program");
    let start = p.clause_ranges.first().map_or(p.insns.len(), |c| c.0.start);
    let dctx = cp.maps.iter().position(|m| m.name == "dt_dctx");
    p.relocs
        .iter()
        .any(|r| r.insn < start && Some(r.map) == dctx)
}

#[test]
fn an_sdt_trampoline_skips_dctx_its_clauses_do_not_use() {
    let end = Attach::RawTracepoint("contention_end".into());
    let cp = compile_src("lockstat:::adaptive-block { @ = count(); }");
    assert!(!trampoline_uses_dctx(&cp, end.clone()));
    // A record names its probe; a predicate on an argument reads dctx; so
    // does a keyed aggregation (its key is staged there).
    for src in [
        "lockstat:::adaptive-block { trace(1); }",
        "lockstat:::adaptive-block /arg1 > 0/ { @ = count(); }",
        "lockstat:::adaptive-block { @[1] = count(); }",
        "lockstat:::adaptive-block { @ = count(); } lockstat:::adaptive-block { x = timestamp; }",
    ] {
        assert!(
            trampoline_uses_dctx(&compile_src(src), end.clone()),
            "{src}"
        );
    }
}

#[test]
fn a_keyless_count_without_dctx_in_the_kernel() {
    let Some(sys) = gate() else { return };
    let cp = compile_src("lockstat:::adaptive-block { @ = count(); }");
    let begin = Attach::RawTracepoint("contention_begin".into());
    let end = Attach::RawTracepoint("contention_end".into());
    let s = load_or_panic(&sys, &cp);
    // A mutex wait that slept, twice.
    for _ in 0..2 {
        s.run_args(&begin, &[0x1000, 32]);
        s.run_args(&end, &[0x1000, 0]);
    }
    assert_eq!(s.agg_words(&cp, 0, &[]), Some(vec![2]));
}
