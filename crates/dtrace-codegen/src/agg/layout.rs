//! The aggregation maps of a program (see [`crate::AggGroup`] for the slot
//! layout they share).
//!
//! A keyless aggregation (`@ = count()`) has one value per CPU and never needs
//! its key looked up: it is given a *fixed slot* here, the first slots of its
//! class, so an update computes this CPU's element index from constants (no
//! hash). The class's slot counter starts above the fixed slots, and each
//! fixed slot's `{state, key}` entry is written before load with the
//! aggregation's id and state 0. The slot is live, and reads like any other
//! live key, once its state is 1 **or any CPU's value has a non-zero word**
//! (a reader that finds one sets state 1). An update that may leave the
//! value zero (`sum(0)`, a zero increment: `mod.rs`'s `may_leave_zero`) sets
//! state 1 itself; the others (count, avg, min, max, stddev, the
//! distributions without an increment) count every update in a word, so they
//! touch no entry (a cache line fewer per firing). `clear()` keeps the slot
//! live (its reader set the state first); `trunc()` sets state 0 again and
//! zeroes its values (the slot is never queued for reuse).

use crate::layout::{accounted_tuple, tuple_layout, MAX_MAP_ENTRIES};
use crate::{AggGroup, MapKind, MapSpec, AGG_KEY_PREFIX, BPF_F_MMAPABLE};
use dtrace_sema::{CompileOptions, TypedProgram};
use std::collections::BTreeMap;

/// What [`agg_maps`] made.
pub struct AggLayout {
    /// Each aggregation's group, an index into `groups`.
    pub by_agg: BTreeMap<u32, usize>,
    pub groups: Vec<AggGroup>,
    /// Each keyless aggregation's fixed slot in its class.
    pub fixed: BTreeMap<u32, u32>,
    /// The largest aggregation key (the id included).
    pub key_size: u32,
}

/// Make the aggregation maps of `tp` with `add`. Aggregations share one group
/// of maps per (key size, value size): a program may use only 64 maps, and a
/// script may have hundreds of aggregations. Keys start with the
/// aggregation's id (`AGG_KEY_PREFIX`).
pub fn agg_maps(
    tp: &TypedProgram,
    opts: &CompileOptions,
    add: &mut impl FnMut(MapSpec) -> usize,
) -> AggLayout {
    let mut out = AggLayout {
        by_agg: BTreeMap::new(),
        groups: Vec::new(),
        fixed: BTreeMap::new(),
        key_size: 8,
    };
    let (max_ks, max_vs) = tp.aggs.iter().fold((0, 0), |(k, v), a| {
        let ks = accounted_tuple(&a.keys, opts) + AGG_KEY_PREFIX;
        (k.max(ks), v.max(a.kind.value_size()))
    });
    let agg_entries = (opts.aggsize / (max_ks + max_vs).max(1)).clamp(1, MAX_MAP_ENTRIES);
    let cpus = opts.cpus.max(1);
    // Groups: one key hash per (key size, value size); classes: one slot
    // space (value array, free queue, counter) per value size, shared by its
    // groups, each group keeping the capacity it would have alone. A group
    // counts its keyed aggregations (only they use its hash).
    let mut shapes: Vec<((u32, u32), u32)> = Vec::new();
    for a in &tp.aggs {
        let (_, ks) = tuple_layout(&a.keys);
        let shape = (ks + AGG_KEY_PREFIX, a.kind.value_size());
        out.key_size = out.key_size.max(shape.0);
        let keyed = u32::from(!a.keys.is_empty());
        match shapes.iter_mut().find(|s| s.0 == shape) {
            Some(s) => s.1 += keyed,
            None => shapes.push((shape, keyed)),
        }
    }
    if shapes.is_empty() {
        return out;
    }
    // Classes: (value size, groups, fixed slots).
    let mut classes: Vec<(u32, u32, u32)> = Vec::new();
    for ((_, vs), _) in &shapes {
        match classes.iter_mut().find(|c| c.0 == *vs) {
            Some(c) => c.1 += 1,
            None => classes.push((*vs, 1, 0)),
        }
    }
    for a in tp.aggs.iter().filter(|a| a.keys.is_empty()) {
        if let Some(c) = classes.iter_mut().find(|c| c.0 == a.kind.value_size()) {
            out.fixed.insert(a.id, c.2);
            c.2 += 1;
        }
    }
    // Each class's counter starts above its fixed slots.
    let counters: Vec<u8> = classes
        .iter()
        .flat_map(|c| u64::from(c.2).to_ne_bytes())
        .collect();
    let mut counter = MapSpec::new("dt_aggslot", MapKind::Array, 4, counters.len() as u32, 1);
    if classes.iter().any(|c| c.2 > 0) {
        counter.initial = vec![(0u32.to_ne_bytes().to_vec(), counters)];
    }
    let counter = add(counter);
    let entry_size = out.key_size + 8;
    // The kernel refuses an array of 4 GiB or more: keep each under 2.
    let cap = |bytes_per_slot: u64| ((1u64 << 31) / bytes_per_slot.max(1)) as u32;
    // Per class: (value size, values, free, counter offset, slots, entry base).
    let mut class_maps = Vec::new();
    let mut entry_base = 0u32;
    for (c, (vs, groups, fixed)) in classes.iter().enumerate() {
        let slots = agg_entries
            .saturating_mul(*groups)
            .min(cap(u64::from(vs.div_ceil(8) * 8) * u64::from(cpus)))
            .min(cap(u64::from(entry_size)).saturating_sub(entry_base))
            .max(fixed + 1);
        let mut v = MapSpec::new(
            &format!("dt_aggv_{c}"),
            MapKind::Array,
            4,
            *vs,
            slots * cpus,
        );
        v.flags = BPF_F_MMAPABLE;
        let values = add(v);
        let free = add(MapSpec::new(
            &format!("dt_aggq_{c}"),
            MapKind::Queue,
            0,
            4,
            slots,
        ));
        class_maps.push((*vs, values, free, 8 * c as u32, slots, entry_base));
        entry_base += slots;
    }
    let mut e = MapSpec::new("dt_aggkeys", MapKind::Array, 4, entry_size, entry_base);
    e.flags = BPF_F_MMAPABLE;
    // The fixed slots' entries: state 0, the aggregation's id, no key.
    for a in tp.aggs.iter().filter(|a| a.keys.is_empty()) {
        let vs = a.kind.value_size();
        let (Some(slot), Some(class)) =
            (out.fixed.get(&a.id), class_maps.iter().find(|c| c.0 == vs))
        else {
            continue;
        };
        let mut entry = vec![0u8; entry_size as usize];
        entry[8..16].copy_from_slice(&u64::from(a.id).to_ne_bytes());
        e.initial
            .push(((class.5 + slot).to_ne_bytes().to_vec(), entry));
    }
    let slot_keys = add(e);
    for (n, ((ks, vs), keyed)) in shapes.iter().enumerate() {
        let Some(&(_, values, free, counter_off, slots, entry_base)) =
            class_maps.iter().find(|c| c.0 == *vs)
        else {
            continue;
        };
        // A group of keyless aggregations only never uses its hash.
        let entries = if *keyed == 0 {
            1
        } else {
            agg_entries.min(slots)
        };
        let keys = add(MapSpec::new(
            &format!("dt_agg_{n}"),
            MapKind::Hash,
            *ks,
            4,
            entries,
        ));
        out.groups.push(AggGroup {
            keys,
            slot_keys,
            entry_base,
            values,
            free,
            counter,
            counter_off,
            slots,
            cpus,
            key_size: *ks,
            value_size: *vs,
        });
    }
    for a in &tp.aggs {
        let (_, ks) = tuple_layout(&a.keys);
        let shape = (ks + AGG_KEY_PREFIX, a.kind.value_size());
        if let Some(g) = shapes.iter().position(|s| s.0 == shape) {
            out.by_agg.insert(a.id, g);
        }
    }
    out
}
