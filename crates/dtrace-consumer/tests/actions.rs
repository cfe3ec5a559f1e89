//! Golden tests, from synthetic records, for stacks (traced, `%k`, aggregation
//! keys), `%a`, `%Y` in a time zone, `tracemem()`, `setopt()`, `freopen()`
//! and `ftruncate()`.

mod common;
use common::*;
use dtrace_consumer::walltime::TimeZone;
use dtrace_consumer::*;
use dtrace_desc::*;

fn begin() -> Vec<(u32, ProbeName)> {
    vec![(1, probe("dtrace", "", "", "BEGIN"))]
}

fn syms() -> KernelSymbols {
    let s = |addr, name: &str, module: Option<&str>| Symbol {
        addr,
        name: name.into(),
        module: module.map(Into::into),
    };
    KernelSymbols::new(vec![
        s(0xffff_1000, "ksys_read", None),
        s(0xffff_2000, "do_syscall_64", None),
        s(0xffff_3000, "entry_SYSCALL_64", None),
        s(0xffff_8000, "xfs_read", Some("xfs")),
    ])
}

fn stack_field(offset: u32, frames: u32) -> Field {
    Field {
        offset,
        ty: ValueType::Stack {
            frames,
            user: false,
        },
    }
}

/// Runs records through a consumer with the symbol table above.
fn run_syms(desc: ProgramDesc, opts: ConsumerOptions, recs: &[Vec<u8>]) -> (String, String) {
    let mut c = Consumer::new(desc, opts);
    c.set_symbols(syms());
    let mut t = TextOutput::new(Vec::new(), Vec::new());
    for r in recs {
        c.record(r, &mut t, &mut Aggs::default()).unwrap();
    }
    let (out, err) = t.into_parts();
    (
        String::from_utf8_lossy(&out).into_owned(),
        String::from_utf8_lossy(&err).into_owned(),
    )
}

#[test]
fn traced_stack_one_frame_per_line() {
    // dtrace(1): the probe line, then each frame indented 14 columns, as
    // module`function+0xoffset (no offset at a symbol's start, hex when no
    // symbol covers the address); the frames stop at the first zero.
    let desc = program(vec![(56, vec![trace(stack_field(16, 5))])], begin());
    let r = Rec::new(1, 1, 0, 56)
        .u64(16, 0xffff_1010)
        .u64(24, 0xffff_2000)
        .u64(32, 0xffff_8004)
        .u64(40, 0x10)
        .0;
    let (out, _) = run_syms(desc, Default::default(), &[r]);
    assert_eq!(
        out,
        "CPU     ID                    FUNCTION:NAME\n  0      1                           :BEGIN \n\
         \x20             vmlinux`ksys_read+0x10\n\
         \x20             vmlinux`do_syscall_64\n\
         \x20             xfs`xfs_read+0x4\n\
         \x20             0x10\n\n"
    );
}

#[test]
fn stack_indent_option_and_percent_k() {
    let desc = program(
        vec![(40, vec![printf("[%k]\n", vec![stack_field(16, 3)])])],
        begin(),
    );
    let r = Rec::new(1, 1, 0, 40)
        .u64(16, 0xffff_1001)
        .u64(24, 0xffff_3002)
        .0;
    let mut opts = quiet();
    opts.stackindent = Some(2);
    let (out, _) = run_syms(desc, opts, &[r]);
    assert_eq!(
        out,
        "[\n  vmlinux`ksys_read+0x1\n  vmlinux`entry_SYSCALL_64+0x2\n]\n"
    );
}

#[test]
fn symbol_conversions() {
    let desc = program(
        vec![(
            32,
            vec![printf(
                "%a|%A|%-24a|%a\n",
                vec![
                    Field {
                        offset: 16,
                        ty: ValueType::Pointer,
                    },
                    Field {
                        offset: 16,
                        ty: ValueType::Pointer,
                    },
                    Field {
                        offset: 24,
                        ty: ValueType::Pointer,
                    },
                    int(16, 8, false),
                ],
            )],
        )],
        begin(),
    );
    let r = Rec::new(1, 1, 0, 32)
        .u64(16, 0xffff_2010)
        .u64(24, 0xffff_8000)
        .0;
    let (out, _) = run_syms(desc, quiet(), &[r]);
    assert_eq!(
        out,
        "vmlinux`do_syscall_64+0x10|vmlinux`do_syscall_64+0x10|xfs`xfs_read            |vmlinux`do_syscall_64+0x10\n"
    );
}

#[test]
fn stack_keys_in_aggregations() {
    // Each key's frames on lines of their own after a newline, the value on
    // the line after the last frame.
    let desc = ProgramDesc {
        aggs: [(0, agg(0, "", AggFunc::Count, vec![stack_field(0, 2)], 16))]
            .into_iter()
            .collect(),
        ..program(vec![], begin())
    };
    let mut key = 0xffff_1008u64.to_ne_bytes().to_vec();
    key.extend_from_slice(&0xffff_2004u64.to_ne_bytes());
    let mut aggs = Aggs::default();
    aggs.add(0, key, vec![words(&[3]), words(&[4])]);
    let mut c = Consumer::new(desc, quiet());
    c.set_symbols(syms());
    let mut t = TextOutput::new(Vec::new(), Vec::new());
    c.finish(&mut t, &mut aggs).unwrap();
    let (out, _) = t.into_parts();
    assert_eq!(
        String::from_utf8_lossy(&out),
        "\n              vmlinux`ksys_read+0x8\n              vmlinux`do_syscall_64+0x4\n                7\n"
    );
}

#[test]
fn walltime_in_a_time_zone() {
    let desc = program(
        vec![(24, vec![printf("%Y\n", vec![int(16, 8, false)])])],
        begin(),
    );
    let r = Rec::new(1, 1, 0, 24)
        .u64(16, 1_062_609_821 * 1_000_000_000)
        .0;
    let mut c = Consumer::new(desc, quiet());
    c.set_time_zone(TimeZone::fixed(-7 * 3600));
    let mut t = TextOutput::new(Vec::new(), Vec::new());
    c.record(&r, &mut t, &mut Aggs::default()).unwrap();
    let (out, _) = t.into_parts();
    assert_eq!(String::from_utf8_lossy(&out), "2003 Sep  3 10:23:41\n");
}

#[test]
fn tracemem_dumps_size_or_dynamic_size() {
    let bytes = Field {
        offset: 16,
        ty: ValueType::Bytes { size: 8 },
    };
    let desc = program(
        vec![
            (24, vec![action(ActionKind::Tracemem, vec![bytes.clone()])]),
            (
                32,
                vec![action(ActionKind::Tracemem, vec![bytes, int(24, 8, true)])],
            ),
        ],
        begin(),
    );
    let header =
        "\n             0  1  2  3  4  5  6  7  8  9  a  b  c  d  e  f  0123456789abcdef\n";
    let r1 = Rec::new(1, 1, 0, 24).put(16, b"Linux v\0").0;
    let r2 = Rec::new(2, 1, 0, 32).put(16, b"Linux v\0").i64(24, 3).0;
    let (out, ..) = run(desc, quiet(), &[r1, r2], &mut Aggs::default(), false).unwrap();
    assert_eq!(
        out,
        format!(
            "{header}         0: 4c 69 6e 75 78 20 76 00                          Linux v.\n\
             {header}         0: 4c 69 6e                                         Lin\n"
        )
    );
}

#[test]
fn setopt_reports_what_it_cannot_set() {
    let desc = program(
        vec![(
            64,
            vec![
                action(ActionKind::Setopt, vec![string(16, 16)]),
                action(ActionKind::Setopt, vec![string(32, 16), string(48, 16)]),
            ],
        )],
        begin(),
    );
    let r = Rec::new(1, 1, 0, 64)
        .str(16, "bogus")
        .str(32, "quiet")
        .str(48, "1")
        .0;
    // The option table is the caller's: here it knows `quiet` only.
    let mut c = Consumer::new(desc, Default::default());
    c.set_option_handler(Box::new(|name, value, opts| match (name, value) {
        ("quiet", Some("1")) => {
            opts.quiet = true;
            Ok(())
        }
        ("quiet", _) => Err("Invalid value for specified option".into()),
        _ => Err("Invalid option name".into()),
    }));
    let mut t = TextOutput::new(Vec::new(), Vec::new());
    for rec in [&r, &r] {
        c.record(rec, &mut t, &mut Aggs::default()).unwrap();
    }
    let (out, err) = t.into_parts();
    let (out, err) = (
        String::from_utf8_lossy(&out).into_owned(),
        String::from_utf8_lossy(&err).into_owned(),
    );
    let msg = "dtrace: error in dt_clause_0 for probe ID 1 (dtrace:::BEGIN): couldn't set option \"bogus\" to \"1\": Invalid option name\n\n";
    assert_eq!(err, format!("{msg}{msg}"));
    // quiet takes effect from the next record on: no second probe line.
    assert_eq!(
        out,
        "CPU     ID                    FUNCTION:NAME\n  0      1                           :BEGIN \n"
    );
}

#[test]
fn freopen_and_ftruncate_redirect_output() {
    let dir = std::env::temp_dir().join(format!("dt-freopen-{}", std::process::id()));
    let path = dir.to_string_lossy().into_owned();
    let desc = program(
        vec![
            (
                24,
                vec![
                    printf("one\n", vec![]),
                    action(
                        ActionKind::Freopen {
                            format: path.clone(),
                        },
                        vec![],
                    ),
                    printf("two\n", vec![]),
                ],
            ),
            (
                24,
                vec![
                    action(ActionKind::Ftruncate, vec![]),
                    printf("three\n", vec![]),
                ],
            ),
            (
                24,
                vec![
                    action(
                        ActionKind::Freopen {
                            format: String::new(),
                        },
                        vec![],
                    ),
                    printf("four\n", vec![]),
                ],
            ),
        ],
        begin(),
    );
    let recs: Vec<Vec<u8>> = (1..=3).map(|e| Rec::new(e, 1, 0, 24).0).collect();
    let (out, ..) = run(desc, quiet(), &recs, &mut Aggs::default(), false).unwrap();
    let file = std::fs::read_to_string(&dir).unwrap_or_default();
    let _ = std::fs::remove_file(&dir);
    assert_eq!(out, "one\nfour\n");
    assert_eq!(file, "three\n");
}

#[test]
fn symbol_and_module_records() {
    let desc = program(
        vec![(
            32,
            vec![
                action(
                    ActionKind::Symbol { module: false },
                    vec![int(16, 8, false)],
                ),
                action(ActionKind::Symbol { module: true }, vec![int(24, 8, false)]),
            ],
        )],
        begin(),
    );
    let r = Rec::new(1, 1, 0, 32)
        .u64(16, 0xffff_1004)
        .u64(24, 0xffff_8010)
        .0;
    let (out, _) = run_syms(desc, quiet(), &[r]);
    assert_eq!(out, format!("  {:<50}  {:<50}", "vmlinux`ksys_read", "xfs"));
}
