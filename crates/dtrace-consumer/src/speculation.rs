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

use dtrace_codegen::desc::{ActionKind, EpidDesc, RecordHeader, SPEC_DRAINED};
use std::collections::BTreeMap;

/// What a commit or discard record asks for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Drained {
    pub id: u32,
    pub commit: bool,
}

/// Held speculative records by speculation ID, and the IDs freed since the
/// last [`Speculations::take_freed`].
#[derive(Debug, Default)]
pub struct Speculations {
    held: BTreeMap<u32, Vec<Vec<u8>>>,
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

/// The speculation a record belongs to: the ID its `speculate()` recorded.
pub fn speculation_of(epd: &EpidDesc, header: &RecordHeader, bytes: &[u8]) -> Option<u32> {
    epd.actions
        .iter()
        .enumerate()
        .filter(|(_, a)| a.kind == ActionKind::Speculate)
        .filter_map(|(i, _)| action_u64(epd, header.flags, i, bytes))
        .map(|v| v as u32)
        .find(|id| *id != 0)
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
                    id: v as u32,
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
    /// Hold a speculative record for speculation `id`.
    pub fn hold(&mut self, id: u32, record: Vec<u8>) {
        self.held.entry(id).or_default().push(record);
    }

    /// The records held for `id` (oldest first), no longer held; the ID is
    /// noted as freed.
    pub fn drain(&mut self, id: u32) -> Vec<Vec<u8>> {
        self.freed.push(id);
        self.held.remove(&id).unwrap_or_default()
    }

    /// IDs drained since the last call, for the caller to free in the kernel.
    pub fn take_freed(&mut self) -> Vec<u32> {
        std::mem::take(&mut self.freed)
    }

    /// Number of records held for `id`.
    pub fn held(&self, id: u32) -> usize {
        self.held.get(&id).map_or(0, Vec::len)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use dtrace_codegen::desc::{ActionDesc, Field, ValueType};

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
        let (h, b) = record(0, &[3, 7]);
        assert_eq!(speculation_of(&e, &h, &b), Some(3));
        // speculate() under an if that did not run: not speculative.
        let valid = dtrace_codegen::RECORD_FLAGS_VALID;
        let (h, b) = record(valid | 0b10, &[3, 7]);
        assert_eq!(speculation_of(&e, &h, &b), None);
    }

    #[test]
    fn only_drained_speculations_are_acted_on() {
        let e = epd(&[
            ActionKind::CommitDiscard { commit: true },
            ActionKind::CommitDiscard { commit: false },
        ]);
        let (h, b) = record(0, &[SPEC_DRAINED | 2, 2]);
        assert_eq!(
            drained_by(&e, &h, &b),
            vec![Drained {
                id: 2,
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
        let mut s = Speculations::default();
        s.hold(1, vec![1]);
        s.hold(2, vec![2]);
        s.hold(1, vec![3]);
        assert_eq!(s.held(1), 2);
        assert_eq!(s.drain(1), vec![vec![1], vec![3]]);
        assert_eq!(s.drain(1), Vec::<Vec<u8>>::new());
        assert_eq!(s.take_freed(), vec![1, 1]);
        assert_eq!(s.held(2), 1);
    }
}
