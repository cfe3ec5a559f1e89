//! The consumer's side of the aggregation maps (see `dtrace_codegen::AggGroup`
//! for their layout and the BPF side).
//!
//! Keys and values are read in place: the slots' `{state, key}` entries and
//! each CPU's values are mmap()ed windows covering the slots handed out so
//! far (grown by powers of two), so a snapshot costs one system call (the slot
//! counter) however many keys there are, and never walks the hash's buckets.
//! Removing a key (`trunc()`) marks its entry free, deletes it from the hash,
//! zeroes its values and queues its slot for reuse. A program that looked the
//! key up just before the removal may still add to the slot after it was
//! zeroed; a preallocated hash reuses its elements the same way.
//!
//! A keyless aggregation's slot is fixed (`CompiledProgram::agg_fixed`): it
//! is live once its entry's state is 1 or any CPU's value has a non-zero word
//! (an update that counts itself in its value does not touch the entry); a
//! reader that finds such a value marks the entry live, so that `clear()`
//! keeps it. `trunc()` only marks it free again and zeroes its values (it is
//! not in the hash, and its slot is never queued).

use crate::error::RuntimeError;
use dtrace_codegen::desc::AggEntries;
use dtrace_codegen::{AggGroup, AGG_KEY_PREFIX};
use dtrace_sys::window::ArrayWindow;
use dtrace_sys::MapFd;
use std::cell::RefCell;
use std::collections::BTreeMap;

/// A slot's entry is live (its key is in the hash).
const LIVE: u64 = 1;

/// The mapped part of one class: slots `0..hi` of its entries (the window
/// starts at `entry_base`) and of each CPU's values (CPU `c`'s window starts
/// at element `c * slots`).
struct Windows {
    hi: u32,
    entries: ArrayWindow,
    values: Vec<ArrayWindow>,
}

/// The slots of one value size (see `AggGroup`), by its value array.
struct Class {
    values: usize,
    windows: RefCell<Option<Windows>>,
}

/// Every aggregation group of a session.
pub(crate) struct AggStore {
    groups: Vec<AggGroup>,
    classes: Vec<Class>,
    by_agg: BTreeMap<u32, usize>,
    fixed: BTreeMap<u32, u32>,
}

fn io(what: &str) -> impl Fn(dtrace_sys::MapError) -> RuntimeError + '_ {
    move |e| RuntimeError::Io(format!("cannot {what} aggregation: {e}"))
}

fn map(maps: &[MapFd], i: usize) -> Result<&MapFd, RuntimeError> {
    maps.get(i)
        .ok_or_else(|| RuntimeError::Io(format!("compiled program has no map {i}")))
}

impl AggStore {
    pub(crate) fn new(
        groups: &[AggGroup],
        by_agg: &BTreeMap<u32, usize>,
        fixed: &BTreeMap<u32, u32>,
    ) -> AggStore {
        let mut classes: Vec<Class> = Vec::new();
        for g in groups {
            if !classes.iter().any(|c| c.values == g.values) {
                classes.push(Class {
                    values: g.values,
                    windows: RefCell::new(None),
                });
            }
        }
        AggStore {
            groups: groups.to_vec(),
            classes,
            by_agg: by_agg.clone(),
            fixed: fixed.clone(),
        }
    }

    /// Aggregation `agg_id`'s group and class.
    fn group(&self, agg_id: u32) -> Option<(&AggGroup, &Class)> {
        let g = self.by_agg.get(&agg_id).and_then(|g| self.groups.get(*g))?;
        let c = self.classes.iter().find(|c| c.values == g.values)?;
        Some((g, c))
    }

    /// Every live slot of `agg_id` below the counter, with its key tuple.
    fn live(
        &self,
        (g, class): (&AggGroup, &Class),
        agg_id: u32,
        maps: &[MapFd],
        mut each: impl FnMut(&Windows, u32, &[u8]),
    ) -> Result<(), RuntimeError> {
        let counter = map(maps, g.counter)?
            .lookup(&0u32.to_ne_bytes())
            .map_err(io("read"))?
            .unwrap_or_default();
        let at = g.counter_off as usize;
        let fresh = counter
            .get(at..at + 8)
            .and_then(|b| b.try_into().ok())
            .map(u64::from_ne_bytes)
            .unwrap_or(0);
        let hi = fresh.min(u64::from(g.slots)) as u32;
        if hi == 0 {
            return Ok(());
        }
        self.cover(g, class, hi, maps)?;
        let windows = class.windows.borrow();
        let Some(w) = windows.as_ref() else {
            return Ok(());
        };
        let (start, end) = (8 + AGG_KEY_PREFIX as usize, 8 + g.key_size as usize);
        let mut entry = Vec::new();
        let first = w.entries.first();
        let fixed = self.fixed.get(&agg_id).copied();
        let words = (g.value_size as usize).div_ceil(8);
        for slot in 0..hi {
            let e = first + slot;
            if w.entries.load(e, 1) != Some(agg_id.into()) {
                continue;
            }
            if w.entries.load(e, 0) != Some(LIVE) {
                let counted = fixed == Some(slot)
                    && w.values.iter().any(|v| {
                        (0..words).any(|i| v.load(v.first() + slot, i).is_some_and(|x| x != 0))
                    });
                if !counted {
                    continue;
                }
                w.entries.store(e, 0, LIVE);
            }
            entry.clear();
            if w.entries.read(e, &mut entry) {
                each(w, slot, entry.get(start..end).unwrap_or_default());
            }
        }
        Ok(())
    }

    /// Map slots `0..hi` (at least) of `g`'s class.
    fn cover(
        &self,
        g: &AggGroup,
        class: &Class,
        hi: u32,
        maps: &[MapFd],
    ) -> Result<(), RuntimeError> {
        if class.windows.borrow().as_ref().is_some_and(|w| w.hi >= hi) {
            return Ok(());
        }
        let hi = hi.checked_next_power_of_two().unwrap_or(hi).min(g.slots);
        let err = io("map");
        let entries = ArrayWindow::new(map(maps, g.slot_keys)?, g.entry_base, hi).map_err(&err)?;
        let values = map(maps, g.values)?;
        let values = (0..g.cpus)
            .map(|cpu| ArrayWindow::new(values, cpu * g.slots, hi))
            .collect::<Result<Vec<_>, _>>()
            .map_err(&err)?;
        *class.windows.borrow_mut() = Some(Windows {
            hi,
            entries,
            values,
        });
        Ok(())
    }

    /// Every key of aggregation `agg_id` with its value on every CPU, added to
    /// `out` (flat: no allocation per key once its buffers have grown).
    pub(crate) fn snapshot(
        &self,
        agg_id: u32,
        maps: &[MapFd],
        out: &mut AggEntries,
    ) -> Result<(), RuntimeError> {
        let Some(gc) = self.group(agg_id) else {
            return Ok(());
        };
        let g = gc.0;
        let key_size = g.key_size.saturating_sub(AGG_KEY_PREFIX) as usize;
        let (cpus, value_size) = (g.cpus as usize, g.value_size as usize);
        let mut reserved = false;
        self.live(gc, agg_id, maps, |w, slot, key| {
            if !reserved {
                // Room for every slot mapped: filling grows no buffer.
                out.reserve(w.hi as usize, key_size, cpus, value_size);
                reserved = true;
            }
            out.begin(key);
            for v in &w.values {
                out.value_with(|b| v.read(v.first() + slot, b));
            }
        })
    }

    /// `clear()`: zero every value of `agg_id`, keeping its keys.
    pub(crate) fn clear(&self, agg_id: u32, maps: &[MapFd]) -> Result<(), RuntimeError> {
        let Some(gc) = self.group(agg_id) else {
            return Ok(());
        };
        self.live(gc, agg_id, maps, |w, slot, _| {
            for v in &w.values {
                v.zero(v.first() + slot);
            }
        })
    }

    /// `trunc()`: remove one key of `agg_id` and recycle its slot.
    pub(crate) fn remove(
        &self,
        agg_id: u32,
        tuple: &[u8],
        maps: &[MapFd],
    ) -> Result<(), RuntimeError> {
        let Some((g, class)) = self.group(agg_id) else {
            return Ok(());
        };
        let err = io("truncate");
        let keys = map(maps, g.keys)?;
        let mut key = u64::from(agg_id).to_ne_bytes().to_vec();
        key.extend_from_slice(tuple);
        key.resize(g.key_size as usize, 0);
        let fixed = self.fixed.get(&agg_id).copied();
        let slot = match fixed {
            Some(slot) => slot,
            None => {
                let Some(slot) = keys.lookup(&key).map_err(&err)? else {
                    return Ok(());
                };
                slot.get(..4)
                    .and_then(|b| b.try_into().ok())
                    .map(u32::from_ne_bytes)
                    .unwrap_or(u32::MAX)
            }
        };
        if slot >= g.slots {
            return Ok(());
        }
        self.cover(g, class, slot + 1, maps)?;
        {
            let windows = class.windows.borrow();
            let Some(w) = windows.as_ref() else {
                return Ok(());
            };
            w.entries.store(w.entries.first() + slot, 0, 0);
            if fixed.is_none() {
                keys.delete(&key).map_err(&err)?;
            }
            for v in &w.values {
                v.zero(v.first() + slot);
            }
        }
        if fixed.is_some() {
            return Ok(());
        }
        map(maps, g.free)?.push(&slot.to_ne_bytes()).map_err(&err)
    }
}
