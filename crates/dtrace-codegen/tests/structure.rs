//! Golden tests of codegen structure (no kernel needed): maps, programs, clause
//! subprograms, record layouts and aggregation descriptions.

mod common;

use common::*;
use dtrace_codegen::desc::{ActionKind, AggFunc, Field, ValueType};
use dtrace_codegen::{Attach, MapKind, ProgType};

#[test]
fn programs_per_attachment() {
    let cp = compile_src(
        "BEGIN { trace(1); } syscall::read:entry, syscall::write:entry { trace(arg0); }
         syscall::read:return { trace(errno); } profile:::tick-1s { trace(cpu); } END { trace(2); }
         ERROR { trace(arg4); }",
    );
    let attaches: Vec<Attach> = cp.programs.iter().map(|p| p.attach.clone()).collect();
    assert_eq!(
        attaches,
        vec![
            Attach::Begin,
            Attach::RawTracepoint("sys_enter".into()),
            Attach::RawTracepoint("sys_exit".into()),
            Attach::CpuClock {
                period_ns: 10_000_000,
                all_cpus: false
            },
            Attach::End,
        ]
    );
    let tick = prog_for(
        &cp,
        Attach::CpuClock {
            period_ns: 10_000_000,
            all_cpus: false,
        },
    )
    .unwrap();
    assert_eq!(tick.prog_type, ProgType::PerfEvent);
    // Each program: its clause plus the user ERROR clause.
    for p in &cp.programs {
        let clauses: Vec<u32> = p.clause_ranges.iter().map(|(_, c, _)| *c).collect();
        assert_eq!(clauses.len(), 2, "{}", p.name);
        assert_eq!(*clauses.last().unwrap(), 5);
    }
    // One syscall table per syscall program, read-only.
    let tables: Vec<_> = cp
        .maps
        .iter()
        .filter(|m| m.name.starts_with("dt_sys"))
        .collect();
    assert_eq!(tables.len(), 2);
    assert!(tables
        .iter()
        .all(|t| t.flags == dtrace_codegen::BPF_F_RDONLY_PROG));
    assert_eq!(tables[0].initial.len(), 2);
    let listing = dtrace_codegen::disassemble(&cp);
    assert!(listing.contains("\nDisassembly of clause 1 (epid 2):\n"));
    let labelled = dtrace_codegen::disassemble_labelled(&cp, &|c| Some(format!("<{c}>")));
    assert!(labelled.contains("\nDisassembly of clause <1> (epid 2):\n"));
    // Each slot is listed by index and byte offset, as dtrace(1) lists them.
    assert!(listing.contains("\n0000 00000: "));
    assert!(listing.contains("map[dt_ringbuf]"));
}

#[test]
fn record_layout() {
    let cp =
        compile_src(r#"BEGIN { printf("%s %d %c", execname, pid, 'a'); trace(1LL); exit(0); }"#);
    let e = &cp.desc.epids[&1];
    assert_eq!(e.epid, 1);
    let fields: Vec<&Field> = e.actions.iter().flat_map(|a| a.fields.iter()).collect();
    assert_eq!(
        fields
            .iter()
            .map(|f| (f.offset, f.ty.clone()))
            .collect::<Vec<_>>(),
        vec![
            (16, ValueType::String { size: 16 }),
            (
                32,
                ValueType::Int {
                    size: 4,
                    signed: true
                }
            ),
            // 'a' is an int: "Character constants are assigned the type int"
            // (Dynamic Tracing Guide, "Constants").
            (
                36,
                ValueType::Int {
                    size: 4,
                    signed: true
                }
            ),
            (
                40,
                ValueType::Int {
                    size: 8,
                    signed: true
                }
            ),
            (
                48,
                ValueType::Int {
                    size: 4,
                    signed: true
                }
            ),
        ]
    );
    assert_eq!(e.size, 56);
    assert!(matches!(e.actions[2].kind, ActionKind::Exit));
}

#[test]
fn aggregation_maps_and_keys() {
    let cp = compile_src(
        "BEGIN { @a[execname, pid] = count(); @ = quantize(1); @l = lquantize(1, 0, 10, 2); }",
    );
    assert_eq!(cp.agg_maps.len(), 3);
    let a = &cp.desc.aggs[&0];
    assert_eq!(a.func, AggFunc::Count);
    assert_eq!(a.key_size, 24);
    assert_eq!(a.keys[1].offset, 16);
    let g = cp.agg_groups[cp.agg_maps[&0]];
    // Keys carry the aggregation's id (8 bytes) before the tuple, and map to
    // a slot (u32) of the value array.
    let m = &cp.maps[g.keys];
    assert_eq!((m.kind, m.key_size, m.value_size), (MapKind::Hash, 32, 4));
    // Each slot's {state, key} entry (one array for the program, its entries
    // as large as the largest key), and its value on each CPU: arrays the
    // consumer maps.
    let e = &cp.maps[g.slot_keys];
    assert_eq!((e.kind, e.value_size), (MapKind::Array, 40));
    assert!(e.max_entries >= g.entry_base + g.slots);
    let v = &cp.maps[g.values];
    assert_eq!((v.kind, v.value_size), (MapKind::Array, 8));
    assert_eq!(v.max_entries, g.slots * g.cpus);
    assert!(e.flags & v.flags & dtrace_codegen::BPF_F_MMAPABLE != 0);
    assert_eq!(cp.maps[g.free].kind, MapKind::Queue);
    // aggsize / (largest accounted key + largest value): execname counts as a
    // whole string, the quantize value as 127 buckets.
    assert_eq!(g.slots, (4 << 20) / ((8 + 264 + 8) + 127 * 8));
    let q = cp.agg_groups[cp.agg_maps[&1]];
    assert_eq!((q.key_size, q.value_size), (16, 127 * 8));
    assert_eq!(
        cp.desc.aggs[&2].func,
        AggFunc::Lquantize {
            base: 0,
            limit: 10,
            step: 2
        }
    );
    assert_eq!(cp.agg_groups[cp.agg_maps[&2]].value_size, 7 * 8);
    // Aggregations of one key and value size share a hash; those of one value
    // size share a slot space, each hash keeping its own capacity.
    let cp2 = compile_src(
        "BEGIN { @a[1] = sum(1); @b[2] = count(); @c[3] = avg(3); @d[1, 2, 3] = sum(2); }",
    );
    assert_eq!(cp2.agg_maps[&0], cp2.agg_maps[&1]);
    assert_ne!(cp2.agg_maps[&0], cp2.agg_maps[&2]);
    let (a, d) = (
        cp2.agg_groups[cp2.agg_maps[&0]],
        cp2.agg_groups[cp2.agg_maps[&3]],
    );
    assert_ne!(a.keys, d.keys);
    assert_eq!((a.values, a.free, a.slots), (d.values, d.free, d.slots));
    assert_eq!(cp2.maps[a.keys].max_entries * 2, a.slots);
    // Aggregation-only clauses emit no record; the EPID still describes it.
    assert!(cp.desc.epids[&1].actions.is_empty());
    assert_eq!(map_kind_count(&cp, MapKind::Ringbuf), 1);
}

#[test]
fn dynamic_variable_maps() {
    let cp = compile_src(r#"BEGIN { self->t = 1; a[1, "x"] = "v"; this->z = 2; g = 3; }"#);
    let names: Vec<&str> = cp.maps.iter().map(|m| m.name.as_str()).collect();
    assert!(names.contains(&"dt_self_t"));
    assert!(names.contains(&"dt_arr_a"));
    let arr = cp.maps.iter().find(|m| m.name == "dt_arr_a").unwrap();
    assert_eq!(
        (arr.kind, arr.key_size, arr.value_size),
        // A string value: strsize (256) bytes and the NUL, rounded up to 8.
        (MapKind::Hash, 16, 264)
    );
    // State, walltime offset, the live dynamic-variable count, then `g`.
    let g = &cp.maps[cp.globals_map];
    assert_eq!(g.value_size, 32);
    // dynvarsize (1 MiB) counted as DTrace does: the largest tuple (an int and
    // a whole string, plus the variable's id) and the largest value.
    let opts = dtrace_sema::CompileOptions::default();
    let tuple = 8 + opts.str_cap() + 8;
    assert_eq!(arr.max_entries, (1 << 20) / (tuple + 264));
}

/// The words of dctx each clause resets at its start: strtok's position and the
/// scratch space's top and base. A clause that uses neither leaves them alone
/// (the stores become jumps by 0, which the JIT drops), so a probe that fires
/// rarely does not miss in the cache on lines it never reads.
#[test]
fn clauses_reset_only_the_dctx_words_they_use() {
    let nop = |i: &dtrace_bpf::Insn| *i == dtrace_bpf::Insn::ja(0);
    let prologue = |src: &str| -> (bool, bool) {
        let cp = compile_src(src);
        let p = prog_for(&cp, Attach::Begin).expect("BEGIN program");
        let (range, _, _) = p.clause_ranges.first().expect("a clause").clone();
        let at = |k: usize| &p.insns[range.start + k];
        // mov r9 = r1; strtok reset; save ctx; scratch top; scratch base.
        (!nop(at(1)), !nop(at(3)) && !nop(at(4)))
    };
    assert_eq!(prologue("BEGIN { x = 1; }"), (false, false));
    assert_eq!(
        prologue("BEGIN { trace(strtok(\"a b\", \" \")); }"),
        (true, false)
    );
    assert_eq!(
        prologue("BEGIN { a = (char *)alloca(8); a[0] = 1; }"),
        (false, true)
    );
    assert_eq!(
        prologue("BEGIN { x = (int *)copyin(0, 4); }"),
        (false, true),
        "copyin stages its bytes in scratch"
    );
}
