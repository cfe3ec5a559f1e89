//! Speculative records from synthetic input: held until their commit (printed
//! there) or discard (dropped), and the probe lines of commit-only records.

mod common;

use common::*;
use dtrace_consumer::{Consumer, ConsumerOptions, TextOutput};
use dtrace_desc::{ActionKind, SPEC_DRAINED};

/// Generations 1 and 2 in a speculation field.
const G1: u64 = 1 << 32;
const G2: u64 = 2 << 32;

const HEADING: &str = "CPU     ID                    FUNCTION:NAME\n";

/// EPID 1: speculate(id) @16 then printf("%d\n") of an int @24 (32 bytes);
/// EPID 2: printf("plain\n") (16 bytes); EPID 3: commit(id) @16 (24 bytes);
/// EPID 4: discard(id) @16 then trace(int) @24 (32 bytes).
fn desc() -> dtrace_desc::ProgramDesc {
    program(
        vec![
            (
                32,
                vec![
                    action(ActionKind::Speculate, vec![int(16, 8, false)]),
                    printf("%d\n", vec![int(24, 4, true)]),
                ],
            ),
            (16, vec![printf("plain\n", vec![])]),
            (
                24,
                vec![action(
                    ActionKind::CommitDiscard { commit: true },
                    vec![int(16, 8, false)],
                )],
            ),
            (
                32,
                vec![
                    action(
                        ActionKind::CommitDiscard { commit: false },
                        vec![int(16, 8, false)],
                    ),
                    trace(int(24, 4, true)),
                ],
            ),
        ],
        vec![(1, probe("dtrace", "", "", "BEGIN"))],
    )
}

fn spec(id: u64, v: i32) -> Vec<u8> {
    Rec::new(1, 1, 0, 32).u64(16, id).i32(24, v).0
}

fn plain() -> Vec<u8> {
    Rec::new(2, 1, 0, 16).0
}

fn commit(field: u64) -> Vec<u8> {
    Rec::new(3, 1, 0, 24).u64(16, field).0
}

fn discard(field: u64, v: i32) -> Vec<u8> {
    Rec::new(4, 1, 0, 32).u64(16, field).i32(24, v).0
}

fn consume(opts: ConsumerOptions, recs: &[Vec<u8>]) -> (String, Vec<u32>) {
    let mut c = Consumer::new(desc(), opts);
    let mut t = TextOutput::new(Vec::new(), Vec::new());
    let mut aggs = Aggs::default();
    let mut freed = Vec::new();
    for r in recs {
        c.record(r, &mut t, &mut aggs).unwrap();
        freed.extend(c.take_freed_speculations());
    }
    let (out, _) = t.into_parts();
    (String::from_utf8_lossy(&out).into_owned(), freed)
}

#[test]
fn commit_prints_held_records_at_the_commit() {
    let recs = [
        spec(G1 | 1, 10),
        plain(),
        spec(G1 | 2, 20),
        spec(G1 | 1, 11),
        commit(SPEC_DRAINED | G1 | 1),
        plain(),
        // Speculated before the commit, reserved after it: dropped.
        spec(G1 | 1, 12),
        // The ID handed out again.
        spec(G2 | 1, 13),
        commit(SPEC_DRAINED | G2 | 1),
    ];
    let (out, freed) = consume(quiet(), &recs);
    assert_eq!(out, "plain\n10\n11\nplain\n13\n");
    assert_eq!(freed, vec![1, 1]);
}

#[test]
fn discard_drops_held_records_and_prints_its_own() {
    let recs = [
        spec(2, 20),
        discard(SPEC_DRAINED | 2, 7),
        commit(SPEC_DRAINED | 2),
    ];
    let (out, freed) = consume(quiet(), &recs);
    assert_eq!(out, "7");
    assert_eq!(freed, vec![2, 2]);
}

#[test]
fn a_commit_that_drained_nothing_does_nothing() {
    // Speculation 3 was not active when committed (0, already draining, or
    // never allocated): its records stay held, and nothing is freed.
    let recs = [spec(G1 | 3, 30), commit(3), commit(0)];
    let (out, freed) = consume(quiet(), &recs);
    assert_eq!(out, "");
    assert!(freed.is_empty());
}

#[test]
fn commit_only_records_print_no_probe_line() {
    let recs = [plain(), spec(G1 | 1, 5), commit(SPEC_DRAINED | G1 | 1)];
    let (out, _) = consume(ConsumerOptions::default(), &recs);
    let line = "  0      1                           :BEGIN ";
    assert_eq!(out, format!("{HEADING}{line}plain\n\n{line}5\n\n"));
}
