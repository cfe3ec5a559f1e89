//! Golden tests for per-record output: probe lines, trace(), printf(), exit(),
//! quiet mode, fault messages and malformed input.

mod common;
use common::*;
use dtrace_consumer::text::drop_message;
use dtrace_consumer::*;
use dtrace_desc::*;

const HEADING: &str = "CPU     ID                    FUNCTION:NAME\n";

fn begin() -> Vec<(u32, ProbeName)> {
    vec![(1, probe("dtrace", "", "", "BEGIN"))]
}

#[test]
fn empty_clause_prints_probe_line() {
    // Layout: Oracle Linux DTrace tutorial, `sudo dtrace -n dtrace:::BEGIN`:
    //   CPU     ID                    FUNCTION:NAME
    //     2      1                           :BEGIN
    // (the record's line ends with the separating space before the newline).
    let desc = program(vec![(16, vec![])], begin());
    let r = Rec::new(1, 1, 2, 16).0;
    let (out, err, ctl) = run(desc, Default::default(), &[r], &mut Aggs::default(), false).unwrap();
    assert_eq!(
        out,
        format!("{HEADING}  2      1                           :BEGIN \n")
    );
    assert_eq!(err, "");
    assert_eq!(ctl, Control::Continue);
}

#[test]
fn heading_printed_once() {
    let desc = program(vec![(16, vec![])], begin());
    let r = Rec::new(1, 1, 0, 16).0;
    let (out, ..) = run(
        desc,
        Default::default(),
        &[r.clone(), r],
        &mut Aggs::default(),
        false,
    )
    .unwrap();
    let line = "  0      1                           :BEGIN \n";
    assert_eq!(out, format!("{HEADING}{line}{line}"));
}

#[test]
fn trace_string_pads_to_33() {
    // Windows DTrace docs, helloworld.d:
    //   0      1                           :BEGIN   Hello World from DTrace!
    // and the padding to 33 columns from the node-dtrace-provider README:
    //   1 123563                      func:probe2   hello, dtrace
    let desc = program(
        vec![
            (48, vec![trace(string(16, 32))]),
            (48, vec![trace(string(16, 32))]),
        ],
        vec![
            (1, probe("dtrace", "", "", "BEGIN")),
            (123563, probe("nodeapp1", "mod", "func", "probe2")),
        ],
    );
    let r1 = Rec::new(1, 1, 0, 48).str(16, "Hello World from DTrace!").0;
    let r2 = Rec::new(2, 123563, 1, 48).str(16, "hello, dtrace").0;
    let (out, ..) = run(
        desc,
        Default::default(),
        &[r1, r2],
        &mut Aggs::default(),
        false,
    )
    .unwrap();
    assert_eq!(
        out,
        [
            HEADING,
            "  0      1                           :BEGIN   Hello World from DTrace!         \n",
            "  1 123563                      func:probe2   hello, dtrace                    \n",
        ]
        .concat()
    );
}

#[test]
fn trace_integers_by_size() {
    // 8-byte values: a space then 19 columns (Oracle DTrace 2.x prints `trace(++x)`
    // as `:BEGIN` and 20 more columns).
    let desc = program(
        vec![(32, vec![trace(int(16, 8, true)), trace(int(24, 8, true))])],
        vec![(123562, probe("nodeapp1", "mod", "func", "probe1"))],
    );
    let r = Rec::new(1, 123562, 1, 32).i64(16, 1).i64(24, 2).0;
    let (out, ..) = run(desc, Default::default(), &[r], &mut Aggs::default(), false).unwrap();
    assert_eq!(
        out,
        format!(
            "{HEADING}  1 123562                      func:probe1  {:>19} {:>19}\n",
            1, 2
        )
    );

    // 4-, 2- and 1-byte values: a space and widths 10, 5 and 3; signed types
    // print signed (`trace((int8_t)-1)` is `-1`), unsigned ones unsigned.
    let desc = program(
        vec![(
            24,
            vec![
                trace(int(16, 4, true)),
                trace(int(20, 2, true)),
                trace(int(22, 1, true)),
            ],
        )],
        begin(),
    );
    let r = Rec::new(1, 1, 0, 24)
        .i32(16, -1)
        .put(20, &[0xff, 0xff, 0xff])
        .0;
    let (out, ..) = run(desc, Default::default(), &[r], &mut Aggs::default(), false).unwrap();
    assert_eq!(
        out,
        format!("{HEADING}  0      1                           :BEGIN          -1    -1  -1\n")
    );

    // Unsigned types keep their maxima: 4294967295 and 18446744073709551615.
    let desc = program(
        vec![(32, vec![trace(int(16, 4, false)), trace(int(24, 8, false))])],
        begin(),
    );
    let r = Rec::new(1, 1, 0, 32).i32(16, -1).i64(24, -1).0;
    let (out, ..) = run(desc, Default::default(), &[r], &mut Aggs::default(), false).unwrap();
    assert_eq!(
        out,
        format!("{HEADING}  0      1                           :BEGIN  4294967295 18446744073709551615\n")
    );

    // Unsigned types print unsigned, their maxima included.
    let desc = program(
        vec![(
            32,
            vec![
                trace(int(16, 8, false)),
                trace(int(24, 4, false)),
                trace(int(28, 1, false)),
            ],
        )],
        begin(),
    );
    let r = Rec::new(1, 1, 0, 32)
        .put(16, &[0xff; 8])
        .put(24, &[0xff; 5])
        .0;
    let (out, ..) = run(desc, quiet(), &[r], &mut Aggs::default(), false).unwrap();
    assert_eq!(out, "184467440737095516154294967295255");
}

#[test]
fn printf_follows_probe_line() {
    // `printf("%d", arg0)` without -q, from a USDT demo:
    //   0  81899         checkout:checkout-return 5250
    let desc = program(
        vec![(24, vec![printf("%d", vec![int(16, 8, true)])])],
        vec![(
            81899,
            probe("demo4600", "demo", "checkout", "checkout-return"),
        )],
    );
    let r = Rec::new(1, 81899, 0, 24).i64(16, 5250).0;
    let (out, ..) = run(desc, Default::default(), &[r], &mut Aggs::default(), false).unwrap();
    assert_eq!(
        out,
        format!("{HEADING}  0  81899         checkout:checkout-return 5250\n")
    );
}

#[test]
fn quiet_prints_only_data() {
    let desc = program(
        vec![(
            48,
            vec![
                printf("pid %d: ", vec![int(16, 4, true)]),
                trace(string(24, 16)),
                trace(int(40, 8, true)),
                printf("\n", vec![]),
            ],
        )],
        begin(),
    );
    let r = Rec::new(1, 1, 0, 48)
        .i32(16, 42)
        .str(24, "bash")
        .i64(40, -7)
        .0;
    let (out, ..) = run(desc, quiet(), &[r], &mut Aggs::default(), false).unwrap();
    assert_eq!(out, "pid 42: bash-7\n");
}

#[test]
fn exit_returns_status() {
    let desc = program(
        vec![(24, vec![action(ActionKind::Exit, vec![int(16, 4, true)])])],
        begin(),
    );
    let r = Rec::new(1, 1, 0, 24).i32(16, 3).0;
    let (out, _, ctl) = run(
        desc.clone(),
        quiet(),
        std::slice::from_ref(&r),
        &mut Aggs::default(),
        false,
    )
    .unwrap();
    assert_eq!(ctl, Control::Exit(3));
    assert_eq!(out, "");
    // Not quiet: the BEGIN line still prints.
    let (out, _, ctl) = run(desc, Default::default(), &[r], &mut Aggs::default(), false).unwrap();
    assert_eq!(ctl, Control::Exit(3));
    assert_eq!(
        out,
        format!("{HEADING}  0      1                           :BEGIN \n")
    );
}

fn fault(epid: u32, action: u32, kind: FaultKind, pc: u32, addr: u64, probe_id: u32) -> Vec<u8> {
    Rec::new(EPID_FAULT, probe_id, 0, 40)
        .put(16, &epid.to_ne_bytes())
        .put(20, &action.to_ne_bytes())
        .put(24, &(kind as u32).to_ne_bytes())
        .put(28, &pc.to_ne_bytes())
        .u64(32, addr)
        .0
}

#[test]
fn fault_messages() {
    // Wording: Oracle DTrace 2.x (dtrace-utils' expected outputs):
    //   dtrace: error in dt_clause_0 for probe ID 1 (dtrace:::BEGIN): invalid
    //   address (0x0) at BPF pc 12
    // The clause is the record's EPID less one.
    let desc = program(vec![(16, vec![])], begin());
    let recs = [
        fault(1, 1, FaultKind::BadAddr, 12, 0, 1),
        fault(1, 2, FaultKind::DivZero, 20, 0, 1),
        fault(1, 0, FaultKind::BadAlign, 8, 0x1003, 1),
    ];
    let (out, err, ctl) =
        run(desc, Default::default(), &recs, &mut Aggs::default(), false).unwrap();
    assert_eq!(out, "");
    assert_eq!(ctl, Control::Continue);
    assert_eq!(
        err,
        "dtrace: error in dt_clause_0 for probe ID 1 (dtrace:::BEGIN): invalid address (0x0) at BPF pc 12\n\
dtrace: error in dt_clause_0 for probe ID 1 (dtrace:::BEGIN): divide-by-zero at BPF pc 20\n\
dtrace: error in dt_clause_0 for probe ID 1 (dtrace:::BEGIN): invalid alignment (0x1003) at BPF pc 8\n"
    );
}

#[test]
fn scratch_fault_messages() {
    // An invalid size names the size; running out of scratch space names nothing.
    let desc = program(vec![(16, vec![])], begin());
    let recs = [
        fault(1, 3, FaultKind::BadSize, 40, 0xffff, 1),
        fault(1, 3, FaultKind::NoScratch, 44, 0, 1),
    ];
    let (_, err, _) = run(desc, Default::default(), &recs, &mut Aggs::default(), false).unwrap();
    assert_eq!(
        err,
        "dtrace: error in dt_clause_0 for probe ID 1 (dtrace:::BEGIN): invalid size (0xffff) at BPF pc 40\n\
dtrace: error in dt_clause_0 for probe ID 1 (dtrace:::BEGIN): out of scratch space at BPF pc 44\n"
    );
}

#[test]
fn fault_names_full_probe() {
    // Access faults carry no address in dtrace's message; the probe is named in
    // full.
    let mut desc = program(vec![(16, vec![])], vec![]);
    desc.probes
        .insert(300, probe("syscall", "vmlinux", "read", "entry"));
    let (_, err, _) = run(
        desc,
        Default::default(),
        &[fault(1, 1, FaultKind::KPriv, 4, 0xffff_8000_0000_0000, 300)],
        &mut Aggs::default(),
        false,
    )
    .unwrap();
    assert_eq!(
        err,
        "dtrace: error in dt_clause_0 for probe ID 300 (syscall:vmlinux:read:entry): invalid kernel access at BPF pc 4\n"
    );
}

fn drop(cpu: Option<u32>, kind: DropKind, count: u64) -> String {
    drop_message(&DropEvent {
        cpu,
        kind,
        count,
        total: count,
    })
}

#[test]
fn drop_messages() {
    // dtrace(1): "dtrace: 5 drops on CPU 0"; one drop is singular.
    assert_eq!(
        drop(Some(0), DropKind::Principal, 5),
        "dtrace: 5 drops on CPU 0"
    );
    assert_eq!(
        drop(Some(3), DropKind::Principal, 1),
        "dtrace: 1 drop on CPU 3"
    );
    assert_eq!(
        drop(Some(1), DropKind::Aggregation, 2),
        "dtrace: 2 aggregation drops on CPU 1"
    );
    assert_eq!(
        drop(Some(0), DropKind::Dynamic, 7),
        "dtrace: 7 dynamic variable drops"
    );
    assert_eq!(
        drop(Some(0), DropKind::DynDirty, 1),
        "dtrace: 1 dynamic variable drop with non-empty dirty list"
    );
    assert_eq!(
        drop(Some(0), DropKind::DynRinse, 2),
        "dtrace: 2 dynamic variable drops with non-empty rinsing list"
    );
    assert_eq!(drop(None, DropKind::Spec, 4), "dtrace: 4 speculative drops");
    assert_eq!(
        drop(None, DropKind::SpecBusy, 2),
        "dtrace: 2 failed speculations (available buffer(s) still busy)"
    );
    assert_eq!(
        drop(None, DropKind::SpecUnavail, 1),
        "dtrace: 1 failed speculation (no speculative buffer available)"
    );
}

#[test]
fn drops_are_reported_per_cpu_then_summed() {
    // Per-CPU kinds CPU by CPU, each CPU's in kind order; speculation drops
    // summed over every CPU after them; droptags put the tag after "dtrace: ".
    let mut c = Consumer::new(
        program(vec![], begin()),
        ConsumerOptions {
            droptags: true,
            ..Default::default()
        },
    );
    let mut t = TextOutput::new(Vec::new(), Vec::new());
    let counts = [
        (1, DropKind::Principal, 2),
        (0, DropKind::Spec, 1),
        (0, DropKind::Aggregation, 3),
        (1, DropKind::Spec, 2),
        (0, DropKind::Principal, 0),
    ];
    c.drops(&counts, &mut t).unwrap();
    let (_, err) = t.into_parts();
    assert_eq!(
        String::from_utf8_lossy(&err),
        "dtrace: [DTRACEDROP_AGGREGATION] 3 aggregation drops on CPU 0\n\
dtrace: [DTRACEDROP_PRINCIPAL] 2 drops on CPU 1\n\
dtrace: [DTRACEDROP_SPEC] 3 speculative drops\n"
    );
}

#[test]
fn malformed_input_is_an_error_not_a_panic() {
    let desc = program(
        vec![(48, vec![trace(string(16, 32)), trace(int(40, 8, true))])],
        begin(),
    );
    let mut c = Consumer::new(desc, Default::default());
    let mut t = TextOutput::new(Vec::new(), Vec::new());
    let mut aggs = Aggs::default();
    // Every truncation of a valid record, and some garbage.
    let good = Rec::new(1, 1, 0, 48).str(16, "x").i64(40, 1).0;
    for n in 0..good.len() {
        let r = c.record(&good[..n], &mut t, &mut aggs);
        assert!(r.is_err(), "length {n} accepted");
    }
    assert!(
        t.out_mut().is_empty(),
        "partial output for a malformed record"
    );
    assert!(matches!(
        c.record(&Rec::new(9, 1, 0, 48).0, &mut t, &mut aggs),
        Err(ConsumeError::UnknownEpid(9))
    ));
    assert!(matches!(
        c.record(&Rec::new(1, 77, 0, 48).0, &mut t, &mut aggs),
        Err(ConsumeError::UnknownProbe(77))
    ));
    // A fault record cut short.
    let f = fault(1, 1, FaultKind::DivZero, 0, 0, 1);
    assert!(c.record(&f[..30], &mut t, &mut aggs).is_err());
    // Fields that point past any buffer.
    let desc = program(vec![(16, vec![trace(string(u32::MAX - 2, 8))])], begin());
    let mut c = Consumer::new(desc, Default::default());
    assert!(c
        .record(&Rec::new(1, 1, 0, 16).0, &mut t, &mut aggs)
        .is_err());
    assert!(t.out_mut().is_empty());
    // The full record works.
    assert!(Consumer::new(
        program(
            vec![(48, vec![trace(string(16, 32)), trace(int(40, 8, true))])],
            begin()
        ),
        Default::default()
    )
    .record(&good, &mut t, &mut aggs)
    .is_ok());
}

#[test]
fn bad_format_is_an_error() {
    let desc = program(
        vec![(24, vec![printf("%q", vec![int(16, 8, true)])])],
        begin(),
    );
    let r = Rec::new(1, 1, 0, 24).0;
    assert!(matches!(
        run(desc, quiet(), &[r], &mut Aggs::default(), false),
        Err(ConsumeError::BadFormat { .. })
    ));
}

#[test]
fn trace_bytes_hexdump_and_string_like_bytes() {
    let bytes_field = |off, size| Field {
        offset: off,
        ty: ValueType::Bytes { size },
    };
    let desc = program(vec![(24, vec![trace(bytes_field(16, 4))])], begin());
    // Structs and arrays, char arrays too, print as a hex dump with column
    // offsets and a character column.
    let r = Rec::new(1, 1, 0, 24).put(16, b"ab\0\0").0;
    let (out, ..) = run(desc.clone(), quiet(), &[r], &mut Aggs::default(), false).unwrap();
    assert_eq!(
        out,
        "\n             0  1  2  3  4  5  6  7  8  9  a  b  c  d  e  f  0123456789abcdef\n\
        \x20        0: 61 62 00 00                                      ab..\n"
    );
    let r = Rec::new(1, 1, 0, 24).put(16, &[0x01, 0x41, 0x00, 0xff]).0;
    let (out, ..) = run(desc, quiet(), &[r], &mut Aggs::default(), false).unwrap();
    assert_eq!(
        out,
        "\n             0  1  2  3  4  5  6  7  8  9  a  b  c  d  e  f  0123456789abcdef\n\
        \x20        0: 01 41 00 ff                                      .A..\n"
    );
}

#[test]
fn rawbytes_dumps_strings_as_strsize_plus_one_bytes() {
    let desc = program(vec![(24, vec![trace(string(16, 8))])], begin());
    let r = Rec::new(1, 1, 0, 24).put(16, b"abc\0\0\0\0\0").0;
    let opts = ConsumerOptions {
        quiet: true,
        rawbytes: true,
        strsize: 5,
        ..Default::default()
    };
    let (out, ..) = run(desc, opts, &[r], &mut Aggs::default(), false).unwrap();
    assert_eq!(
        out,
        "\n             0  1  2  3  4  5  6  7  8  9  a  b  c  d  e  f  0123456789abcdef\n\
        \x20        0: 61 62 63 00 00 00                                abc...\n"
    );
}

#[test]
fn random_bytes_never_panic() {
    // A deterministic pseudo-random byte soup through every action kind.
    let mut d = program(
        vec![(
            64,
            vec![
                trace(string(16, 16)),
                trace(int(32, 4, true)),
                printf(
                    "%s %d %x %*d %c %e %Y\n",
                    vec![
                        string(16, 16),
                        int(32, 4, true),
                        int(40, 8, false),
                        int(32, 4, true),
                        int(48, 8, true),
                        int(36, 1, false),
                        int(40, 8, false),
                        int(48, 8, true),
                    ],
                ),
                printa(None, vec![1]),
                action(ActionKind::Exit, vec![int(56, 4, true)]),
            ],
        )],
        begin(),
    );
    d.aggs.insert(
        1,
        agg(
            1,
            "q",
            AggFunc::Llquantize {
                factor: 10,
                low: 0,
                high: 3,
                nsteps: 10,
            },
            vec![string(0, 8)],
            8,
        ),
    );
    let mut seed: u64 = 0x9e37_79b9_7f4a_7c15;
    let mut next = move || {
        seed = seed
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        (seed >> 33) as u8
    };
    let mut c = Consumer::new(d, Default::default());
    for i in 0..800 {
        let len = next() as usize % 80;
        let mut b: Vec<u8> = (0..len).map(|_| next()).collect();
        if b.len() >= 4 {
            let epid: u32 = if i % 3 == 0 { EPID_FAULT } else { 1 };
            b[0..4].copy_from_slice(&epid.to_ne_bytes());
        }
        if b.len() >= 8 {
            b[4..8].copy_from_slice(&1u32.to_ne_bytes());
        }
        let mut aggs = Aggs::default();
        let vlen = if i % 2 == 0 { 8 * 39 } else { next() as usize };
        let key: Vec<u8> = (0..(next() as usize % 12)).map(|_| next()).collect();
        let val: Vec<u8> = (0..vlen).map(|_| next()).collect();
        aggs.add(1, key, vec![val]);
        let mut t = TextOutput::new(Vec::new(), Vec::new());
        let _ = c.record(&b, &mut t, &mut aggs);
        let _ = c.finish(&mut t, &mut aggs);
    }
}
