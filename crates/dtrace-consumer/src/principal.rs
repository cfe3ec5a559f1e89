//! DTrace's principal buffers as dtrace(1) sizes them: how many bytes a
//! clause's record takes in a per-CPU buffer of `bufsize` bytes, and what a
//! `ring` or `fill` buffer of that size keeps (Dynamic Tracing Guide,
//! "Buffers and Buffering").
//!
//! The records this implementation writes carry more than DTrace's (a
//! 16-byte header with the probe and CPU; strings at their static capacity),
//! so a buffer's capacity is counted in DTrace's record sizes instead:
//!
//! - a record is the 4-byte EPID followed by each recorded value at its
//!   alignment, the largest of 8, 4, 2 and 1 that divides its size; the
//!   whole is rounded up to 4 bytes and placed at the largest alignment of
//!   its values (padding in between is filler);
//! - value sizes are DTrace's: an integer its size, a pointer 8, a string
//!   `strsize` bytes, `stack(n)` n words, `ustack(n)` n + 1 words, the
//!   user-symbol actions 2 words, `exit()` an int, `printf` without
//!   arguments, `printa()`, `clear()`, `denormalize()` and `ftruncate()` a
//!   64-bit constant each, `trunc()` two; `speculate()`, `commit()` and
//!   `discard()` record nothing;
//! - a clause with no action records only its EPID; one whose actions all
//!   record nothing takes no space at all.
//!
//! A `ring` buffer places each record after the last one, wrapping to the
//! start when it does not fit before the end, and loses every older record
//! the new one overlaps; what is left is printed oldest first. A `fill`
//! buffer takes records until one does not fit in what is left once END's
//! reserve is kept back. A committed speculation is copied into a principal
//! buffer as one block, laid out as in its own buffer.

use dtrace_desc::{ActionKind, EpidDesc, ValueType};
use std::collections::VecDeque;

/// Bytes of the EPID every record starts with.
const EPID_BYTES: u64 = 4;

/// A record's footprint in a principal buffer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RecordSize {
    /// Bytes, the EPID included (0: the record takes no space).
    pub size: u64,
    /// The offset it must start at is a multiple of this.
    pub align: u64,
}

impl RecordSize {
    /// A record of `size` bytes aligned as its largest value would be.
    fn new(size: u64, align: u64) -> RecordSize {
        RecordSize { size, align }
    }
}

/// The alignment DTrace gives a value of `size` bytes.
fn value_align(size: u64) -> u64 {
    [8, 4, 2]
        .into_iter()
        .find(|a| size != 0 && size % a == 0)
        .unwrap_or(1)
}

fn round_up(n: u64, align: u64) -> u64 {
    n.div_ceil(align.max(1)) * align.max(1)
}

/// The sizes of the values one field stands for.
fn field_size(ty: &ValueType, strsize: u64) -> u64 {
    match *ty {
        ValueType::String { .. } => strsize,
        // The pid word and the frames; no strings (jstack's are not kept).
        ValueType::Stack { frames, user } => 8 * (u64::from(frames) + u64::from(user)),
        ValueType::UserStack { frames, .. } => 8 * (u64::from(frames) + 1),
        ref t => u64::from(t.size()),
    }
}

/// The sizes of the values DTrace records for one action, in order.
fn action_values(kind: &ActionKind, fields: &[dtrace_desc::Field], strsize: u64) -> Vec<u64> {
    let each = || fields.iter().map(|f| field_size(&f.ty, strsize));
    match kind {
        ActionKind::Speculate | ActionKind::CommitDiscard { .. } => Vec::new(),
        ActionKind::Exit => vec![4],
        ActionKind::Printa { aggs, .. } => vec![8; aggs.len().max(1)],
        ActionKind::Ftruncate => vec![8],
        // trunc() records its count (0 when absent) after the aggregation.
        ActionKind::AggControl { op, .. } => {
            let arg = each().next();
            match op {
                dtrace_desc::AggOp::Trunc => vec![8, arg.unwrap_or(8)],
                _ => std::iter::once(8).chain(arg).collect(),
            }
        }
        ActionKind::Printf { .. } | ActionKind::System { .. } | ActionKind::Freopen { .. }
            if fields.is_empty() =>
        {
            vec![8]
        }
        // The dynamic size is recorded ahead of the memory.
        ActionKind::Tracemem => match each().collect::<Vec<u64>>()[..] {
            [mem, dynsize] => vec![dynsize, mem],
            ref v => v.to_vec(),
        },
        _ => each().collect(),
    }
}

/// Lays `values` out after the EPID: the end offset and the largest
/// alignment (at least the EPID's).
fn lay_out(values: impl IntoIterator<Item = u64>) -> (u64, u64) {
    let (mut end, mut align) = (EPID_BYTES, EPID_BYTES);
    for v in values {
        let a = value_align(v);
        align = align.max(a);
        end = round_up(end, a) + v;
    }
    (end, align)
}

/// The footprint of a record of `epid` with strings of `strsize` bytes.
pub fn record_size(epid: &EpidDesc, strsize: u64) -> RecordSize {
    if epid.actions.is_empty() {
        return RecordSize::new(EPID_BYTES, EPID_BYTES);
    }
    let values: Vec<u64> = epid
        .actions
        .iter()
        .flat_map(|a| action_values(&a.kind, &a.fields, strsize))
        .filter(|v| *v > 0)
        .collect();
    // A clause that only speculates keeps its EPID (its data follows in
    // later clauses); otherwise no value means no record.
    let only_speculate = matches!(
        epid.actions.as_slice(),
        [a] if matches!(a.kind, ActionKind::Speculate)
    );
    if values.is_empty() && !only_speculate {
        return RecordSize::new(0, EPID_BYTES);
    }
    let (end, align) = lay_out(values);
    RecordSize::new(round_up(end, EPID_BYTES), align)
}

/// The footprint of the record DTrace's ERROR enabling makes of a fault:
/// its five 64-bit arguments.
pub fn fault_record_size() -> RecordSize {
    let (end, align) = lay_out([8; 5]);
    RecordSize::new(round_up(end, EPID_BYTES), align)
}

/// Records placed together in a principal buffer: one record, or a
/// committed speculation's records copied as one block.
#[derive(Debug)]
pub struct Block<T> {
    /// The block's footprint.
    pub size: RecordSize,
    /// Each item with its offset and length within the block.
    pub items: Vec<(u64, u64, T)>,
}

impl<T> Block<T> {
    /// One record of footprint `size`.
    pub fn single(size: RecordSize, item: T) -> Block<T> {
        Block {
            size,
            items: vec![(0, size.size, item)],
        }
    }

    /// Records laid out from offset 0 as in a speculative buffer, the block
    /// placed at 8-byte alignment.
    pub fn packed(records: Vec<(RecordSize, T)>) -> Block<T> {
        let mut end = 0;
        let mut items = Vec::with_capacity(records.len());
        for (s, item) in records {
            let at = round_up(end, s.align);
            items.push((at, s.size, item));
            end = at + s.size;
        }
        Block {
            size: RecordSize::new(end, 8),
            items,
        }
    }

    /// The items, in order.
    pub fn into_items(self) -> impl Iterator<Item = T> {
        self.items.into_iter().map(|(_, _, t)| t)
    }
}

/// One CPU's `ring` principal buffer of `size` bytes, holding `T`s.
#[derive(Debug)]
pub struct RingBuffer<T> {
    size: u64,
    /// Where the next record goes.
    offset: u64,
    /// Kept records, oldest first, with their byte ranges.
    kept: VecDeque<(u64, u64, T)>,
}

impl<T> RingBuffer<T> {
    pub fn new(size: u64) -> RingBuffer<T> {
        RingBuffer {
            size,
            offset: 0,
            kept: VecDeque::new(),
        }
    }

    /// Records `block` after the last record, or at the start when it does
    /// not fit before the end, losing the older records it covers. Gives the
    /// block back when it is larger than the whole buffer (one drop).
    pub fn push(&mut self, block: Block<T>) -> Result<(), Block<T>> {
        let size = block.size;
        let mut from = self.offset;
        let mut start = round_up(from, size.align);
        if start + size.size > self.size {
            if size.size > self.size {
                return Err(block);
            }
            // The rest of the buffer is cleared and the block wraps.
            self.kept.retain(|(at, _, _)| *at < from);
            from = 0;
            start = 0;
        }
        let end = start + size.size;
        self.kept
            .retain(|(at, len, _)| !overlaps(*at, *len, from, end));
        self.kept.extend(
            block
                .items
                .into_iter()
                .map(|(off, len, t)| (start + off, len, t)),
        );
        self.offset = end;
        Ok(())
    }

    /// The records kept, oldest first.
    pub fn into_records(self) -> impl Iterator<Item = T> {
        self.kept.into_iter().map(|(_, _, t)| t)
    }
}

/// Whether the range `[at, at + len)` meets `[from, to)`; an empty range
/// (a record that takes no space) at `at` is met when `from <= at < to`.
fn overlaps(at: u64, len: u64, from: u64, to: u64) -> bool {
    if len == 0 {
        (from..to).contains(&at)
    } else {
        at < to && from < at + len
    }
}

/// One CPU's `fill` principal buffer of `size` bytes, `reserve` of them kept
/// back for END.
#[derive(Debug)]
pub struct FillBuffer<T> {
    size: u64,
    reserve: u64,
    offset: u64,
    full: bool,
    kept: Vec<T>,
}

impl<T> FillBuffer<T> {
    pub fn new(size: u64, reserve: u64) -> FillBuffer<T> {
        FillBuffer {
            size,
            reserve,
            offset: 0,
            full: false,
            kept: Vec::new(),
        }
    }

    /// Records `block` after the last record. Gives it back when it does not
    /// fit: the buffer is then full and takes nothing more.
    pub fn push(&mut self, block: Block<T>) -> Result<(), Block<T>> {
        let start = round_up(self.offset, block.size.align);
        if self.full || start + block.size.size > self.size.saturating_sub(self.reserve) {
            self.full = true;
            return Err(block);
        }
        self.offset = start + block.size.size;
        self.kept.extend(block.into_items());
        Ok(())
    }

    pub fn full(&self) -> bool {
        self.full
    }

    /// The records kept, oldest first.
    pub fn into_records(self) -> impl Iterator<Item = T> {
        self.kept.into_iter()
    }
}

/// The room a `fill` buffer keeps back for END's clauses: each one's
/// record and its alignment.
pub fn end_reserve<'a>(end_clauses: impl IntoIterator<Item = &'a EpidDesc>, strsize: u64) -> u64 {
    end_clauses
        .into_iter()
        .map(|e| {
            let s = record_size(e, strsize);
            s.size + s.align
        })
        .sum()
}

#[cfg(test)]
mod tests;
