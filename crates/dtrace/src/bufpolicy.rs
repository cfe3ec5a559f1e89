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
//! usual and held, by the CPU in their header, until tracing stops.

use std::collections::{BTreeMap, VecDeque};

/// Byte offset of the CPU in every record's header.
const CPU_AT: usize = 8;

fn record_cpu(r: &[u8]) -> u32 {
    r.get(CPU_AT..CPU_AT + 4)
        .and_then(|b| <[u8; 4]>::try_from(b).ok())
        .map(u32::from_ne_bytes)
        .unwrap_or(0)
}

/// Which policy, with its per-CPU capacity in bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Policy {
    Ring {
        bufsize: u64,
    },
    /// `bufsize` less the room kept for END.
    Fill {
        room: u64,
    },
}

#[derive(Debug, Default)]
struct CpuBuffer {
    records: VecDeque<Vec<u8>>,
    bytes: u64,
    full: bool,
}

/// The per-CPU principal buffers of a `fill` or `ring` session.
#[derive(Debug)]
pub(crate) struct Held {
    policy: Policy,
    cpus: BTreeMap<u32, CpuBuffer>,
    /// Records a full buffer refused, by CPU (cumulative).
    drops: BTreeMap<u32, u64>,
    released: bool,
}

impl Held {
    pub(crate) fn new(policy: Policy) -> Held {
        Held {
            policy,
            cpus: BTreeMap::new(),
            drops: BTreeMap::new(),
            released: false,
        }
    }

    /// Takes a record read from the kernel. Returns it back when buffers are
    /// no longer held (tracing stopped): it goes straight to the consumer.
    pub(crate) fn take(&mut self, r: Vec<u8>) -> Option<Vec<u8>> {
        if self.released {
            return Some(r);
        }
        let cpu = record_cpu(&r);
        let size = r.len() as u64;
        let buf = self.cpus.entry(cpu).or_default();
        match self.policy {
            Policy::Ring { bufsize } => {
                if size > bufsize {
                    *self.drops.entry(cpu).or_default() += 1;
                    return None;
                }
                buf.bytes += size;
                buf.records.push_back(r);
                while buf.bytes > bufsize {
                    match buf.records.pop_front() {
                        Some(old) => buf.bytes -= old.len() as u64,
                        None => break,
                    }
                }
            }
            Policy::Fill { room } => {
                if buf.full || buf.bytes + size > room {
                    buf.full = true;
                    *self.drops.entry(cpu).or_default() += 1;
                    return None;
                }
                buf.bytes += size;
                buf.records.push_back(r);
            }
        }
        None
    }

    /// Under `fill`, while tracing runs.
    pub(crate) fn fills(&self) -> bool {
        !self.released && matches!(self.policy, Policy::Fill { .. })
    }

    /// Some CPU's `fill` buffer is full: tracing must stop.
    pub(crate) fn filled(&self) -> bool {
        self.cpus.values().any(|b| b.full)
    }

    /// Tracing stopped: every held record, CPU by CPU and oldest first. Later
    /// records (END's) are no longer held.
    pub(crate) fn release(&mut self) -> Vec<Vec<u8>> {
        self.released = true;
        std::mem::take(&mut self.cpus)
            .into_values()
            .flat_map(|b| b.records)
            .collect()
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

    fn tags(v: &[Vec<u8>]) -> Vec<u8> {
        v.iter().map(|r| r[0]).collect()
    }

    #[test]
    fn ring_keeps_the_newest_per_cpu() {
        let mut h = Held::new(Policy::Ring { bufsize: 32 });
        for (cpu, tag) in [(1, 1), (0, 2), (1, 3), (1, 4), (0, 5), (1, 5 + 1)] {
            assert_eq!(h.take(rec(cpu, tag)), None);
        }
        assert!(!h.filled());
        // CPU 0 first, then CPU 1's last two (32 bytes), oldest first.
        assert_eq!(tags(&h.release()), vec![2, 5, 4, 6]);
        // After the release records pass through.
        assert_eq!(h.take(rec(0, 9)).map(|r| r[0]), Some(9));
        assert!(h.take_drops().is_empty());
    }

    #[test]
    fn fill_stops_a_cpu_at_its_first_misfit() {
        let mut h = Held::new(Policy::Fill { room: 40 });
        for tag in 1..=4 {
            h.take(rec(0, tag));
        }
        h.take(rec(1, 7));
        assert!(h.filled());
        // Two records fit in 40 bytes; the third filled the buffer and it
        // took nothing after, even what would fit.
        assert_eq!(h.take_drops(), BTreeMap::from([(0, 2)]));
        assert!(h.take_drops().is_empty());
        assert_eq!(tags(&h.release()), vec![1, 2, 7]);
    }
}
