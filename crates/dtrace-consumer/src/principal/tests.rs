//! The size model and the two buffer policies on synthetic descriptions.

use super::*;
use dtrace_desc::{ActionDesc, AggOp, Field};

fn int(size: u8) -> ValueType {
    ValueType::Int { size, signed: true }
}

/// An EPID whose actions have fields of these types (offsets do not matter
/// to the model).
fn epid(actions: Vec<(ActionKind, Vec<ValueType>)>) -> EpidDesc {
    EpidDesc {
        epid: 1,
        clause: 0,
        size: 0,
        actions: actions
            .into_iter()
            .map(|(kind, tys)| ActionDesc {
                kind,
                fields: tys.into_iter().map(|ty| Field { offset: 16, ty }).collect(),
            })
            .collect(),
    }
}

fn rs(size: u64, align: u64) -> RecordSize {
    RecordSize { size, align }
}

#[test]
fn record_sizes_follow_dtrace() {
    let s = |acts| record_size(&epid(acts), 256);
    // The EPID, padding to 8, the 64-bit value.
    assert_eq!(s(vec![(ActionKind::Trace, vec![int(8)])]), rs(16, 8));
    // exit(): the EPID and an int.
    assert_eq!(s(vec![(ActionKind::Exit, vec![int(4)])]), rs(8, 4));
    // No action: the EPID alone (the default action).
    assert_eq!(s(vec![]), rs(4, 4));
    // A char, rounded up to the EPID's size.
    assert_eq!(s(vec![(ActionKind::Trace, vec![int(1)])]), rs(8, 4));
    // Two ints pack; a following long is aligned.
    assert_eq!(
        s(vec![(
            ActionKind::Printf {
                format: "%d %d %d".into()
            },
            vec![int(4), int(4), int(8)]
        )]),
        rs(24, 8)
    );
    // Strings count `strsize` bytes whatever their static capacity.
    assert_eq!(
        s(vec![(
            ActionKind::Trace,
            vec![ValueType::String { size: 8 }]
        )]),
        rs(264, 8)
    );
    // printf() without arguments records a 64-bit constant.
    assert_eq!(
        s(vec![(
            ActionKind::Printf {
                format: "hi".into()
            },
            vec![]
        )]),
        rs(16, 8)
    );
    // trunc(@a) records the aggregation and a count of 0.
    assert_eq!(
        s(vec![(
            ActionKind::AggControl {
                op: AggOp::Trunc,
                agg: 1
            },
            vec![]
        )]),
        rs(24, 8)
    );
    // stack(5): five words; ustack(5): the pid word too.
    assert_eq!(
        s(vec![(
            ActionKind::Trace,
            vec![ValueType::Stack {
                frames: 5,
                user: false
            }]
        )]),
        rs(48, 8)
    );
    assert_eq!(
        s(vec![(
            ActionKind::Trace,
            vec![ValueType::Stack {
                frames: 5,
                user: true
            }]
        )]),
        rs(56, 8)
    );
    // commit() records nothing: no record at all; speculate() alone keeps
    // its EPID.
    assert_eq!(
        s(vec![(
            ActionKind::CommitDiscard { commit: true },
            vec![int(8)]
        )])
        .size,
        0
    );
    assert_eq!(s(vec![(ActionKind::Speculate, vec![int(8)])]), rs(4, 4));
    assert_eq!(fault_record_size(), rs(48, 8));
}

fn ring_push(r: &mut RingBuffer<u32>, size: RecordSize, tag: u32) -> bool {
    r.push(Block::single(size, tag)).is_ok()
}

#[test]
fn a_ring_too_small_for_two_records_keeps_the_last() {
    // 16 bytes: a 16-byte record fills it; an 8-byte one wraps over it.
    let mut r = RingBuffer::new(16);
    for tag in 1..=3 {
        assert!(ring_push(&mut r, rs(16, 8), tag));
    }
    assert!(ring_push(&mut r, rs(8, 4), 4));
    assert_eq!(r.into_records().collect::<Vec<_>>(), vec![4]);
}

#[test]
fn a_ring_keeps_the_newest_records_that_fit() {
    let mut r = RingBuffer::new(24);
    for tag in 1..=7 {
        assert!(ring_push(&mut r, rs(8, 4), tag));
    }
    assert_eq!(r.into_records().collect::<Vec<_>>(), vec![5, 6, 7]);

    // Padding counts: an 8-aligned 16-byte record after an 8-byte one
    // at offset 4 would not fit before 28; it wraps and covers the first.
    let mut r = RingBuffer::new(28);
    assert!(ring_push(&mut r, rs(4, 4), 1));
    assert!(ring_push(&mut r, rs(8, 4), 2));
    assert!(ring_push(&mut r, rs(16, 8), 3));
    // [0,4) 1, [4,12) 2, [16,32) does not fit: wraps to [0,16).
    assert_eq!(r.into_records().collect::<Vec<_>>(), vec![3]);

    let mut r = RingBuffer::new(32);
    assert!(ring_push(&mut r, rs(4, 4), 1));
    assert!(ring_push(&mut r, rs(16, 8), 2));
    assert!(ring_push(&mut r, rs(8, 4), 3));
    // [0,4) 1, [8,24) 2, [24,32) 3; the next 8 wraps over 1 only.
    assert!(ring_push(&mut r, rs(8, 4), 4));
    assert_eq!(r.into_records().collect::<Vec<_>>(), vec![2, 3, 4]);
}

#[test]
fn a_record_larger_than_the_ring_is_a_drop() {
    let mut r = RingBuffer::new(16);
    assert!(ring_push(&mut r, rs(8, 4), 1));
    assert!(!ring_push(&mut r, rs(24, 8), 2));
    assert_eq!(r.into_records().collect::<Vec<_>>(), vec![1]);
}

#[test]
fn a_committed_block_lands_whole() {
    let b = Block::packed(vec![(rs(8, 4), 1), (rs(16, 8), 2), (rs(0, 4), 3)]);
    assert_eq!(b.size, rs(24, 8));
    assert_eq!(
        b.items
            .iter()
            .map(|(at, len, _)| (*at, *len))
            .collect::<Vec<_>>(),
        vec![(0, 8), (8, 16), (24, 0)]
    );
    let mut r = RingBuffer::new(32);
    assert!(ring_push(&mut r, rs(8, 4), 9));
    assert!(r.push(b).is_ok());
    // At 8: the first record survives, the block follows it.
    assert_eq!(r.into_records().collect::<Vec<_>>(), vec![9, 1, 2, 3]);
}

#[test]
fn fill_stops_at_the_first_record_that_does_not_fit() {
    // 48 bytes, 8 kept back: two 16-byte records fit in 40, the third
    // does not, nor does anything after it.
    let mut f = FillBuffer::new(48, 8);
    assert!(f.push(Block::single(rs(16, 8), 1)).is_ok());
    assert!(f.push(Block::single(rs(16, 8), 2)).is_ok());
    assert!(!f.full());
    assert!(f.push(Block::single(rs(16, 8), 3)).is_err());
    assert!(f.full());
    assert!(f.push(Block::single(rs(4, 4), 4)).is_err());
    assert_eq!(f.into_records().collect::<Vec<_>>(), vec![1, 2]);
    // Alignment padding is space used: 4 then 8-aligned 16 is 24 bytes.
    let mut f = FillBuffer::new(20, 0);
    assert!(f.push(Block::single(rs(4, 4), 1)).is_ok());
    assert!(f.push(Block::single(rs(16, 8), 2)).is_err());
}

#[test]
fn end_reserve_is_each_end_record_and_its_alignment() {
    let a = epid(vec![(ActionKind::Trace, vec![int(8)])]);
    let b = epid(vec![(ActionKind::Exit, vec![int(4)])]);
    assert_eq!(end_reserve([&a, &b], 256), (16 + 8) + (8 + 4));
}
