//! The principal-buffer policies `fill` and `ring` (Dynamic Tracing Guide,
//! "Buffers and Buffering"). `switch`, the default, hands every record on as
//! it is read. Under the other two, dtrace(1) prints nothing while tracing:
//!
//! - `ring`: each CPU's buffer (`bufsize` bytes) keeps its most recent
//!   records, older ones overwritten; at the end they are printed CPU by CPU,
//!   oldest first.
//! - `fill`: each CPU's buffer takes records until one does not fit; that
//!   buffer is then full and takes nothing more (a drop each), and tracing
//!   stops. Room for END's records is kept back in every buffer, so END
//!   still records after a fill. The buffers are then printed CPU by CPU.
//!
//! The kernel's ring buffer is shared by all CPUs and cannot overwrite, so
//! the per-CPU buffers are kept here: records are read from the kernel as
//! usual and held, by the CPU in their header, until tracing stops. Their
//! capacity is counted in DTrace's record sizes (the consumer's `principal`
//! module), so `bufsize` keeps as much as it would in DTrace.
//!
//! Speculations are settled as records are read (the consumer's `Settler`):
//! a commit puts the speculation's records into the principal buffers then,
//! each into its own CPU's, all or nothing per CPU ("If there is more data in
//! the specified speculative buffer than there is available space in the
//! principal buffer, no data is copied and the drop count for the buffer is
//! incremented"); a discard drops them; either way the ID is freed at once,
//! so `speculation()` can hand it out again while tracing goes on.

use dtrace_codegen::desc::{ProgramDesc, RecordHeader, EPID_FAULT};
use dtrace_consumer::principal::{
    fault_record_size, record_size, Block, FillBuffer, RecordSize, RingBuffer,
};
use dtrace_consumer::speculation::Settler;
use std::collections::BTreeMap;

/// Byte offset of the CPU in every record's header.
const CPU_AT: usize = 8;

fn record_cpu(r: &[u8]) -> u32 {
    r.get(CPU_AT..CPU_AT + 4)
        .and_then(|b| <[u8; 4]>::try_from(b).ok())
        .map(u32::from_ne_bytes)
        .unwrap_or(0)
}

/// Which policy, with each CPU's buffer size in bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Policy {
    Ring {
        bufsize: u64,
    },
    /// `reserve` of the `bufsize` bytes are kept back for END.
    Fill {
        bufsize: u64,
        reserve: u64,
    },
}

#[derive(Debug)]
enum CpuBuffer {
    Ring(RingBuffer<Vec<u8>>),
    Fill(FillBuffer<Vec<u8>>),
}

impl CpuBuffer {
    fn new(policy: Policy) -> CpuBuffer {
        match policy {
            Policy::Ring { bufsize } => CpuBuffer::Ring(RingBuffer::new(bufsize)),
            Policy::Fill { bufsize, reserve } => CpuBuffer::Fill(FillBuffer::new(bufsize, reserve)),
        }
    }

    /// Whether `block` was recorded (else one drop).
    fn push(&mut self, block: Block<Vec<u8>>) -> bool {
        match self {
            CpuBuffer::Ring(r) => r.push(block).is_ok(),
            CpuBuffer::Fill(f) => f.push(block).is_ok(),
        }
    }

    fn full(&self) -> bool {
        matches!(self, CpuBuffer::Fill(f) if f.full())
    }

    fn into_records(self) -> Box<dyn Iterator<Item = Vec<u8>>> {
        match self {
            CpuBuffer::Ring(r) => Box::new(r.into_records()),
            CpuBuffer::Fill(f) => Box::new(f.into_records()),
        }
    }
}

/// The per-CPU principal buffers of a `fill` or `ring` session.
#[derive(Debug)]
pub(crate) struct Held {
    policy: Policy,
    /// Bytes DTrace records for each string.
    strsize: u64,
    cpus: BTreeMap<u32, CpuBuffer>,
    /// Records a full buffer refused, by CPU (cumulative).
    drops: BTreeMap<u32, u64>,
    released: bool,
    settler: Settler,
}

impl Held {
    pub(crate) fn new(policy: Policy, strsize: u64) -> Held {
        Held {
            policy,
            strsize,
            cpus: BTreeMap::new(),
            drops: BTreeMap::new(),
            released: false,
            settler: Settler::default(),
        }
    }

    /// Takes a record read from the kernel. Returns it back when buffers are
    /// no longer held (tracing stopped): it goes straight to the consumer.
    pub(crate) fn take(&mut self, r: Vec<u8>, desc: &ProgramDesc) -> Option<Vec<u8>> {
        if self.released {
            return Some(r);
        }
        let settled = self.settler.settle(desc, r)?;
        let size = self.size_of(&settled.record, desc);
        let cpu = record_cpu(&settled.record);
        self.push(cpu, Block::single(size, settled.record));
        self.commit(settled.committed, desc);
        None
    }

    /// The footprint of a record in a DTrace principal buffer.
    fn size_of(&self, r: &[u8], desc: &ProgramDesc) -> RecordSize {
        match RecordHeader::parse(r).map(|h| h.epid) {
            Some(EPID_FAULT) => fault_record_size(),
            Some(epid) => match desc.epids.get(&epid) {
                Some(e) => record_size(e, self.strsize),
                None => RecordSize {
                    size: r.len() as u64,
                    align: 8,
                },
            },
            None => RecordSize { size: 0, align: 4 },
        }
    }

    /// A block into `cpu`'s buffer, under the policy; a drop if it is refused.
    fn push(&mut self, cpu: u32, block: Block<Vec<u8>>) {
        let policy = self.policy;
        let buf = self
            .cpus
            .entry(cpu)
            .or_insert_with(|| CpuBuffer::new(policy));
        if !buf.push(block) {
            *self.drops.entry(cpu).or_default() += 1;
        }
    }

    /// A committed speculation's records, each CPU's part copied whole into
    /// that CPU's buffer, or not at all (one drop) when it has no room.
    fn commit(&mut self, records: Vec<Vec<u8>>, desc: &ProgramDesc) {
        let mut by_cpu: BTreeMap<u32, Vec<(RecordSize, Vec<u8>)>> = BTreeMap::new();
        for r in records {
            let size = self.size_of(&r, desc);
            by_cpu.entry(record_cpu(&r)).or_default().push((size, r));
        }
        for (cpu, part) in by_cpu {
            self.push(cpu, Block::packed(part));
        }
    }

    /// Speculation IDs committed or discarded since the last call: the caller
    /// frees them in the kernel.
    pub(crate) fn take_freed(&mut self) -> Vec<u32> {
        self.settler.take_freed()
    }

    /// Under `fill`, while tracing runs.
    pub(crate) fn fills(&self) -> bool {
        !self.released && matches!(self.policy, Policy::Fill { .. })
    }

    /// Some CPU's `fill` buffer is full: tracing must stop.
    pub(crate) fn filled(&self) -> bool {
        self.cpus.values().any(CpuBuffer::full)
    }

    /// Tracing stopped: every held record, CPU by CPU and oldest first, then
    /// the records of speculations still active (the consumer holds them for
    /// a commit or discard to come, in END). Later records are not held.
    pub(crate) fn release(&mut self) -> Vec<Vec<u8>> {
        self.released = true;
        let mut all: Vec<Vec<u8>> = std::mem::take(&mut self.cpus)
            .into_values()
            .flat_map(CpuBuffer::into_records)
            .collect();
        all.extend(self.settler.release());
        all
    }

    /// Records refused by a full buffer since the last call, by CPU.
    pub(crate) fn take_drops(&mut self) -> BTreeMap<u32, u64> {
        std::mem::take(&mut self.drops)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A 16-byte record from `cpu` whose first byte is `tag`.
    fn rec(cpu: u32, tag: u8) -> Vec<u8> {
        let mut r = vec![0u8; 16];
        r[0] = tag;
        r[CPU_AT..CPU_AT + 4].copy_from_slice(&cpu.to_ne_bytes());
        r
    }

    /// A program with no EPIDs: every record is plain.
    fn none() -> ProgramDesc {
        ProgramDesc::default()
    }

    /// EPID 1 speculates and traces, 2 traces, 3 commits, 4 discards: one
    /// u64 field per action after the header.
    fn spec_desc() -> ProgramDesc {
        use dtrace_codegen::desc::{ActionDesc, ActionKind, EpidDesc, Field, ValueType};
        let epid = |epid: u32, kinds: Vec<ActionKind>| {
            let actions: Vec<ActionDesc> = kinds
                .into_iter()
                .enumerate()
                .map(|(i, kind)| ActionDesc {
                    kind,
                    fields: vec![Field {
                        offset: 16 + 8 * i as u32,
                        ty: ValueType::Int {
                            size: 8,
                            signed: false,
                        },
                    }],
                })
                .collect();
            let size = 16 + 8 * actions.len() as u32;
            (
                epid,
                EpidDesc {
                    epid,
                    clause: epid,
                    size,
                    actions,
                },
            )
        };
        ProgramDesc {
            epids: BTreeMap::from([
                epid(1, vec![ActionKind::Speculate, ActionKind::Trace]),
                epid(2, vec![ActionKind::Trace]),
                epid(3, vec![ActionKind::CommitDiscard { commit: true }]),
                epid(4, vec![ActionKind::CommitDiscard { commit: false }]),
            ]),
            ..ProgramDesc::default()
        }
    }

    /// A record of `epid` from `cpu` with these u64 fields.
    fn fields(epid: u32, cpu: u32, vals: &[u64]) -> Vec<u8> {
        let mut r = vec![0u8; 16];
        r[0..4].copy_from_slice(&epid.to_ne_bytes());
        r[CPU_AT..CPU_AT + 4].copy_from_slice(&cpu.to_ne_bytes());
        for v in vals {
            r.extend_from_slice(&v.to_ne_bytes());
        }
        r
    }

    /// Speculation `id` of generation `gen`, as a speculate/commit field.
    fn spec(id: u64, gen: u64) -> u64 {
        (gen << 32) | id
    }

    /// The u64 field at `i` of a record.
    fn field(r: &[u8], i: usize) -> u64 {
        let at = 16 + 8 * i;
        u64::from_ne_bytes(r[at..at + 8].try_into().unwrap_or_default())
    }

    fn tags(v: &[Vec<u8>]) -> Vec<u8> {
        v.iter().map(|r| r[0]).collect()
    }

    #[test]
    fn ring_keeps_the_newest_per_cpu() {
        let mut h = Held::new(Policy::Ring { bufsize: 32 }, 256);
        for (cpu, tag) in [(1, 1), (0, 2), (1, 3), (1, 4), (0, 5), (1, 5 + 1)] {
            assert_eq!(h.take(rec(cpu, tag), &none()), None);
        }
        assert!(!h.filled());
        // CPU 0 first, then CPU 1's last two (32 bytes), oldest first.
        assert_eq!(tags(&h.release()), vec![2, 5, 4, 6]);
        // After the release records pass through.
        assert_eq!(h.take(rec(0, 9), &none()).map(|r| r[0]), Some(9));
        assert!(h.take_drops().is_empty());
    }

    #[test]
    fn fill_stops_a_cpu_at_its_first_misfit() {
        let mut h = Held::new(
            Policy::Fill {
                bufsize: 40,
                reserve: 0,
            },
            256,
        );
        for tag in 1..=4 {
            h.take(rec(0, tag), &none());
        }
        h.take(rec(1, 7), &none());
        assert!(h.filled());
        // Two records fit in 40 bytes; the third filled the buffer and it
        // took nothing after, even what would fit.
        assert_eq!(h.take_drops(), BTreeMap::from([(0, 2)]));
        assert!(h.take_drops().is_empty());
        assert_eq!(tags(&h.release()), vec![1, 2, 7]);
    }

    #[test]
    fn commits_and_discards_settle_as_they_are_read() {
        use dtrace_codegen::desc::SPEC_DRAINED;
        let d = spec_desc();
        let mut h = Held::new(Policy::Ring { bufsize: 4096 }, 256);
        // Speculated on CPU 1, committed on CPU 0.
        assert_eq!(h.take(fields(1, 1, &[spec(1, 1), 10]), &d), None);
        h.take(fields(2, 0, &[20]), &d);
        h.take(fields(3, 0, &[SPEC_DRAINED | spec(1, 1)]), &d);
        // Reserved after that commit: dropped. The next use of ID 1 is
        // discarded: nothing of it is kept.
        h.take(fields(1, 0, &[spec(1, 1), 30]), &d);
        h.take(fields(1, 0, &[spec(1, 2), 40]), &d);
        h.take(fields(4, 0, &[SPEC_DRAINED | spec(1, 2)]), &d);
        // Each settled at once: ID 1 freed twice while tracing runs.
        assert_eq!(h.take_freed(), vec![1, 1]);
        // Still active at the end: handed on as speculative, after the buffers.
        h.take(fields(1, 1, &[spec(2, 1), 50]), &d);
        let out = h.release();
        let summary: Vec<(u32, u64, u64)> = out
            .iter()
            .map(|r| {
                (
                    record_cpu(r),
                    field(r, 0),
                    r.get(24..32).map_or(0, |_| field(r, 1)),
                )
            })
            .collect();
        assert_eq!(
            summary,
            vec![
                // CPU 0: its record, then the commit and the discard with
                // their fields cleared.
                (0, 20, 0),
                (0, 0, 0),
                (0, 0, 0),
                // CPU 1: the committed record, now plain.
                (1, 0, 10),
                // The active speculation, untouched.
                (1, spec(2, 1), 50),
            ]
        );
    }

    #[test]
    fn a_commit_that_does_not_fit_copies_nothing() {
        use dtrace_codegen::desc::SPEC_DRAINED;
        let d = spec_desc();
        // The commit records nothing; the two speculated records (16 bytes
        // each in DTrace) do not fit in 24 bytes together.
        let mut h = Held::new(
            Policy::Fill {
                bufsize: 24,
                reserve: 0,
            },
            256,
        );
        h.take(fields(1, 0, &[spec(1, 1), 1]), &d);
        h.take(fields(1, 0, &[spec(1, 1), 2]), &d);
        h.take(fields(3, 0, &[SPEC_DRAINED | spec(1, 1)]), &d);
        assert_eq!(h.take_freed(), vec![1]);
        // One drop for the buffer, which is now full: tracing stops.
        assert_eq!(h.take_drops(), BTreeMap::from([(0, 1)]));
        assert!(h.filled());
        assert_eq!(h.release().len(), 1);
    }
}
