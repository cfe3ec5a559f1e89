//! Speculative records: a record in which `speculate(id)` ran is held back, per
//! speculation ID, until the consumer reaches the record whose `commit(id)` or
//! `discard(id)` started draining that speculation. A commit prints the held
//! records then, in the order they were traced; a discard drops them. Either
//! way the ID is then free again (the caller writes that back to the kernel).
//!
//! "The speculative buffer ... is copied into the principal buffer" on commit,
//! and its contents are thrown away on discard (Dynamic Tracing Guide,
//! "Speculative Tracing"): so committed output appears where the commit is in
//! the stream of records, not where the speculative records were traced.
//!
//! Records are held by ID and generation (the times the ID was handed out). A
//! record speculated on another CPU just before the drain, but reserved in the
//! ring buffer after the commit or discard record, carries the drained
//! generation: it is dropped (DTrace drops speculative data traced into a
//! speculation that is being committed or discarded), never mixed into the
//! ID's next speculation.

use dtrace_desc::{spec_gen, ActionKind, EpidDesc, ProgramDesc, RecordHeader, SPEC_DRAINED};
use std::collections::BTreeMap;

/// A speculation: its ID and the generation of that ID.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub struct Spec {
    pub id: u32,
    pub gen: u32,
}

impl Spec {
    fn of(field: u64) -> Spec {
        Spec {
            id: field as u32,
            gen: spec_gen(field),
        }
    }
}

/// What a commit or discard record asks for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Drained {
    pub spec: Spec,
    pub commit: bool,
}

/// Held speculative records by speculation, the last generation drained of
/// each ID, and the IDs freed since the last [`Speculations::take_freed`].
#[derive(Debug, Default)]
pub struct Speculations {
    held: BTreeMap<Spec, Vec<Vec<u8>>>,
    drained: BTreeMap<u32, u32>,
    freed: Vec<u32>,
}

/// The u64 in the first field of action `i` of `epd`, if it ran.
fn action_u64(epd: &EpidDesc, flags: u32, i: usize, bytes: &[u8]) -> Option<u64> {
    if !crate::consume::action_ran(flags, i) {
        return None;
    }
    let f = epd.actions.get(i)?.fields.first()?;
    let off = f.offset as usize;
    let b = bytes.get(off..off + 8)?;
    Some(u64::from_ne_bytes(b.try_into().ok()?))
}

/// Overwrites the u64 first field of action `i` of `epd` in `bytes`.
fn set_action_u64(epd: &EpidDesc, i: usize, bytes: &mut [u8], v: u64) {
    let Some(f) = epd.actions.get(i).and_then(|a| a.fields.first()) else {
        return;
    };
    let off = f.offset as usize;
    if let Some(b) = bytes.get_mut(off..off + 8) {
        b.copy_from_slice(&v.to_ne_bytes());
    }
}

/// Clears the fields of every action of `kind` in a record: a speculate()
/// field of 0 names no speculation, and a commit/discard field without
/// [`SPEC_DRAINED`] drained nothing, so the consumer takes the record as plain.
fn make_plain(epd: &EpidDesc, bytes: &mut [u8], speculate: bool) {
    for (i, a) in epd.actions.iter().enumerate() {
        match a.kind {
            ActionKind::Speculate if speculate => set_action_u64(epd, i, bytes, 0),
            ActionKind::CommitDiscard { .. } if !speculate => set_action_u64(epd, i, bytes, 0),
            _ => {}
        }
    }
}

/// The speculation a record belongs to: the one its `speculate()` recorded.
pub fn speculation_of(epd: &EpidDesc, header: &RecordHeader, bytes: &[u8]) -> Option<Spec> {
    epd.actions
        .iter()
        .enumerate()
        .filter(|(_, a)| a.kind == ActionKind::Speculate)
        .filter_map(|(i, _)| action_u64(epd, header.flags, i, bytes))
        .map(Spec::of)
        .find(|s| s.id != 0)
}

/// The speculations this record's commit() and discard() actions drained, in
/// action order. A commit or discard of a speculation that was not active
/// (ID 0, never allocated, or already draining) asks for nothing.
pub fn drained_by(epd: &EpidDesc, header: &RecordHeader, bytes: &[u8]) -> Vec<Drained> {
    epd.actions
        .iter()
        .enumerate()
        .filter_map(|(i, a)| match a.kind {
            ActionKind::CommitDiscard { commit } => {
                let v = action_u64(epd, header.flags, i, bytes)?;
                (v & SPEC_DRAINED != 0).then_some(Drained {
                    spec: Spec::of(v),
                    commit,
                })
            }
            _ => None,
        })
        .collect()
}

/// Whether a record prints no probe line: it has commit() or discard() actions
/// and every action that ran is one of them.
pub fn only_commit_discard(epd: &EpidDesc, flags: u32) -> bool {
    let mut any = false;
    for (i, a) in epd.actions.iter().enumerate() {
        if !crate::consume::action_ran(flags, i) {
            continue;
        }
        match a.kind {
            ActionKind::CommitDiscard { .. } => any = true,
            _ => return false,
        }
    }
    any
}

impl Speculations {
    /// Hold a speculative record for `spec`; a record of a speculation already
    /// drained arrived too late and is dropped.
    pub fn hold(&mut self, spec: Spec, record: Vec<u8>) {
        if self.drained.get(&spec.id) == Some(&spec.gen) {
            return;
        }
        self.held.entry(spec).or_default().push(record);
    }

    /// The records held for `spec` (oldest first), no longer held; its ID is
    /// noted as freed.
    pub fn drain(&mut self, spec: Spec) -> Vec<Vec<u8>> {
        self.freed.push(spec.id);
        self.drained.insert(spec.id, spec.gen);
        self.held.remove(&spec).unwrap_or_default()
    }

    /// IDs drained since the last call, for the caller to free in the kernel.
    pub fn take_freed(&mut self) -> Vec<u32> {
        std::mem::take(&mut self.freed)
    }

    /// Number of records held for `spec`.
    pub fn held(&self, spec: Spec) -> usize {
        self.held.get(&spec).map_or(0, Vec::len)
    }
}

/// A record read from the kernel, its speculations settled: the record
/// itself and, when it committed speculations, their records, oldest first.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct Settled {
    pub record: Vec<u8>,
    pub committed: Vec<Vec<u8>>,
}

/// Speculations settled as records are read from the kernel, for a caller
/// that keeps records in principal buffers before the consumer sees them
/// (`bufpolicy=fill|ring`). DTrace commits and discards at the moment they
/// happen: a commit copies the speculative data into the principal buffer
/// then, a discard throws it away, and the ID is free again. Here that is done
/// as the commit or discard record is read, so the ID can be freed in the
/// kernel at once; the records handed on are plain (their speculation fields
/// cleared), and the consumer prints them as they come.
#[derive(Debug, Default)]
pub struct Settler {
    specs: Speculations,
}

impl Settler {
    /// Settles one record: `None` when it is speculative (held here until its
    /// commit or discard, or dropped when its speculation was already drained).
    pub fn settle(&mut self, desc: &ProgramDesc, mut record: Vec<u8>) -> Option<Settled> {
        let header = RecordHeader::parse(&record);
        let Some((header, epd)) = header.and_then(|h| Some((h, desc.epids.get(&h.epid)?))) else {
            return Some(Settled {
                record,
                committed: Vec::new(),
            });
        };
        if let Some(spec) = speculation_of(epd, &header, &record) {
            self.specs.hold(spec, record);
            return None;
        }
        let drained = drained_by(epd, &header, &record);
        if drained.is_empty() {
            return Some(Settled {
                record,
                committed: Vec::new(),
            });
        }
        make_plain(epd, &mut record, false);
        let mut committed = Vec::new();
        for d in drained {
            let held = self.specs.drain(d.spec);
            if d.commit {
                for mut r in held {
                    if let Some(e) = RecordHeader::parse(&r).and_then(|h| desc.epids.get(&h.epid)) {
                        make_plain(e, &mut r, true);
                    }
                    committed.push(r);
                }
            }
        }
        Some(Settled { record, committed })
    }

    /// IDs committed or discarded since the last call, for the caller to free
    /// in the kernel.
    pub fn take_freed(&mut self) -> Vec<u32> {
        self.specs.take_freed()
    }

    /// The speculative records still held (neither committed nor discarded
    /// yet), as they were read: the consumer takes them over, so a commit
    /// that comes later (in END) still finds them.
    pub fn release(&mut self) -> Vec<Vec<u8>> {
        std::mem::take(&mut self.specs.held)
            .into_values()
            .flatten()
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use dtrace_desc::{ActionDesc, Field, ValueType};

    fn epd(kinds: &[ActionKind]) -> EpidDesc {
        let actions = kinds
            .iter()
            .enumerate()
            .map(|(i, k)| ActionDesc {
                kind: k.clone(),
                fields: vec![Field {
                    offset: 16 + 8 * i as u32,
                    ty: ValueType::Int {
                        size: 8,
                        signed: false,
                    },
                }],
            })
            .collect::<Vec<_>>();
        EpidDesc {
            epid: 1,
            clause: 0,
            size: 16 + 8 * actions.len() as u32,
            actions,
        }
    }

    fn record(flags: u32, fields: &[u64]) -> (RecordHeader, Vec<u8>) {
        let mut b = vec![0u8; 16];
        b[12..16].copy_from_slice(&flags.to_ne_bytes());
        for f in fields {
            b.extend_from_slice(&f.to_ne_bytes());
        }
        let h = RecordHeader {
            epid: 1,
            probe_id: 1,
            cpu: 0,
            flags,
        };
        (h, b)
    }

    #[test]
    fn speculative_records_name_their_id() {
        let e = epd(&[ActionKind::Speculate, ActionKind::Trace]);
        let (h, b) = record(0, &[(5 << 32) | 3, 7]);
        assert_eq!(speculation_of(&e, &h, &b), Some(Spec { id: 3, gen: 5 }));
        // speculate() under an if that did not run: not speculative.
        let valid = dtrace_desc::RECORD_FLAGS_VALID;
        let (h, b) = record(valid | 0b10, &[3, 7]);
        assert_eq!(speculation_of(&e, &h, &b), None);
    }

    #[test]
    fn only_drained_speculations_are_acted_on() {
        let e = epd(&[
            ActionKind::CommitDiscard { commit: true },
            ActionKind::CommitDiscard { commit: false },
        ]);
        let (h, b) = record(0, &[SPEC_DRAINED | (1 << 32) | 2, 2]);
        assert_eq!(
            drained_by(&e, &h, &b),
            vec![Drained {
                spec: Spec { id: 2, gen: 1 },
                commit: true
            }]
        );
        assert!(only_commit_discard(&e, 0));
        let e2 = epd(&[
            ActionKind::CommitDiscard { commit: false },
            ActionKind::Trace,
        ]);
        assert!(!only_commit_discard(&e2, 0));
    }

    #[test]
    fn held_records_come_back_in_order() {
        let one = Spec { id: 1, gen: 1 };
        let two = Spec { id: 2, gen: 1 };
        let mut s = Speculations::default();
        s.hold(one, vec![1]);
        s.hold(two, vec![2]);
        s.hold(one, vec![3]);
        assert_eq!(s.held(one), 2);
        assert_eq!(s.drain(one), vec![vec![1], vec![3]]);
        assert_eq!(s.drain(one), Vec::<Vec<u8>>::new());
        assert_eq!(s.take_freed(), vec![1, 1]);
        assert_eq!(s.held(two), 1);
    }

    #[test]
    fn late_records_of_a_drained_generation_are_dropped() {
        let mut s = Speculations::default();
        s.hold(Spec { id: 1, gen: 1 }, vec![1]);
        assert_eq!(s.drain(Spec { id: 1, gen: 1 }), vec![vec![1]]);
        // Reserved after the commit, speculated before it: dropped.
        s.hold(Spec { id: 1, gen: 1 }, vec![2]);
        assert_eq!(s.held(Spec { id: 1, gen: 1 }), 0);
        // The ID's next speculation is held apart.
        s.hold(Spec { id: 1, gen: 2 }, vec![3]);
        assert_eq!(s.drain(Spec { id: 1, gen: 2 }), vec![vec![3]]);
    }
}
