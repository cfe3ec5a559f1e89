//! Golden tests for aggregations printed at exit and by printa. Expected layouts
//! are copied from documented dtrace(1) output (cited per test); the data is
//! synthetic, chosen to reproduce each documented example.

mod common;
use common::*;
use dtrace_consumer::*;
use dtrace_desc::*;

const KEYSZ: u32 = 16;

fn str_keyed(func: AggFunc) -> ProgramDesc {
    let mut d = program(vec![], vec![]);
    d.aggs
        .insert(1, agg(1, "a", func, vec![string(0, KEYSZ)], KEYSZ));
    d
}

fn finish_only(desc: ProgramDesc, opts: ConsumerOptions, aggs: &mut Aggs) -> String {
    run(desc, opts, &[], aggs, true).unwrap().0
}

#[test]
fn count_keyed_by_string_sorted_by_value_then_key() {
    // Oracle Linux DTrace guide, "count", Example: @counts[execname] = count();
    // Rows sort by value, ties by key (dirname, dtrace, gnome-panel, ps).
    let mut aggs = Aggs::default();
    let data: &[(&str, i64)] = &[
        ("Xorg", 21),
        ("gnome-session", 9),
        ("ps", 1),
        ("bash", 9),
        ("java", 2),
        ("dirname", 1),
        ("cat", 9),
        ("gconfd-2", 2),
        ("dtrace", 1),
        ("basename", 2),
        ("gnome-panel", 1),
    ];
    for &(k, n) in data {
        // Split each count over two CPUs to exercise merging.
        aggs.add(1, skey(k, 16), vec![words(&[n - n / 2]), words(&[n / 2])]);
    }
    let out = finish_only(str_keyed(AggFunc::Count), Default::default(), &mut aggs);
    let expected = String::new()
        + r#"  dirname                                                           1
  dtrace                                                            1
  gnome-panel                                                       1
  ps                                                                1
  basename                                                          2
  gconfd-2                                                          2
  java                                                              2
  bash                                                              9
  cat                                                               9
  gnome-session                                                     9
  Xorg                                                             21
"#;
    assert_eq!(out, expected);
}

#[test]
fn avg_prints_truncated_integer_mean() {
    // Layout: Oracle Linux DTrace guide, "avg" example (`  lsof ... 14903`).
    let mut aggs = Aggs::default();
    // lsof: (14903 * 3 + 2) / 3 -> 14903; ip: 10 + 20 over 2 CPUs -> 15 (sum 30, count 2).
    aggs.add(
        1,
        skey("lsof", 16),
        vec![words(&[2, 29806]), words(&[1, 14905])],
    );
    aggs.add(1, skey("ip", 16), vec![words(&[1, 10]), words(&[1, 20])]);
    // Negative means truncate toward zero: -10 / 4 -> -2.
    aggs.add(1, skey("neg", 16), vec![words(&[4, -10])]);
    let out = finish_only(str_keyed(AggFunc::Avg), Default::default(), &mut aggs);
    let expected = String::new()
        + r#"  neg                                                              -2
  ip                                                               15
  lsof                                                          14903
"#;
    assert_eq!(out, expected);
}

#[test]
fn min_max_skip_cpus_without_data() {
    let mut aggs = Aggs::default();
    // CPU 0 has count 0: its value word must be ignored.
    aggs.add(
        1,
        skey("k", 16),
        vec![words(&[0, -100]), words(&[2, -5]), words(&[1, 3])],
    );
    let out = finish_only(str_keyed(AggFunc::Min), Default::default(), &mut aggs);
    assert_eq!(
        out,
        "  k                                                                -5\n"
    );
    let mut aggs = Aggs::default();
    aggs.add(
        1,
        skey("k", 16),
        vec![words(&[0, 1000]), words(&[2, -5]), words(&[1, 3])],
    );
    let out = finish_only(str_keyed(AggFunc::Max), Default::default(), &mut aggs);
    assert_eq!(
        out,
        "  k                                                                 3\n"
    );
}

#[test]
fn sum_unkeyed() {
    // An unkeyed aggregation has no key columns: just the value column
    // (a space, then right-aligned in 16).
    let mut d = program(vec![], vec![]);
    d.aggs.insert(1, agg(1, "", AggFunc::Sum, vec![], 8));
    let mut aggs = Aggs::default();
    aggs.add(
        1,
        vec![0; 8],
        vec![words(&[100]), words(&[-1]), words(&[23])],
    );
    assert_eq!(
        finish_only(d, Default::default(), &mut aggs),
        "              122\n"
    );
}

#[test]
fn stddev_integer_semantics() {
    // Oracle Linux DTrace guide, "stddev": sqrt(sum(x^2)/N - (sum(x)/N)^2),
    // integer arithmetic. Values 2,4,4,4,5,5,7,9: N=8, sum=40, sumsq=232 -> 2.
    // Values 1,2: avg 1 (truncated), sumsq/N = 5/2 = 2, 2 - 1 = 1 -> 1.
    let mut aggs = Aggs::default();
    aggs.add(
        1,
        skey("sed", 16),
        vec![words(&[5, 19, 97, 0]), words(&[3, 21, 135, 0])],
    );
    aggs.add(1, skey("head", 16), vec![words(&[2, 3, 5, 0])]);
    aggs.add(1, skey("tr", 16), vec![words(&[1, 7, 49, 0])]);
    // A 128-bit sum of squares: two values of 2^32 -> sumsq 2^65 (hi word 2), stddev 0.
    aggs.add(1, skey("big", 16), vec![words(&[2, 1 << 33, 0, 2])]);
    let out = finish_only(str_keyed(AggFunc::Stddev), Default::default(), &mut aggs);
    // Layout: the "stddev" example (`  tr ... 0`, `  getopt ... 5646`).
    let expected = String::new()
        + r#"  big                                                               0
  tr                                                                0
  head                                                              1
  sed                                                               2
"#;
    assert_eq!(out, expected);
}

#[test]
fn integer_and_multi_keys() {
    // Integer keys: a space then right-aligned in 8 (4-byte) or 16 (8-byte)
    // columns; `tst.lquantize.d.out` shows a 4-byte key as `        0`.
    let mut d = program(vec![], vec![]);
    d.aggs.insert(
        1,
        agg(
            1,
            "a",
            AggFunc::Count,
            vec![string(0, 16), int(16, 4, true), int(24, 8, false)],
            32,
        ),
    );
    let key = |s: &str, i: i32, u: u64| {
        let mut k = skey(s, 16);
        k.extend_from_slice(&i.to_ne_bytes());
        k.extend_from_slice(&[0; 4]);
        k.extend_from_slice(&u.to_ne_bytes());
        k
    };
    let mut aggs = Aggs::default();
    aggs.add(1, key("sh", -1, 42), vec![words(&[3])]);
    aggs.add(1, key("sh", 7, 42), vec![words(&[3])]);
    aggs.add(1, key("bash", 100, 1 << 40), vec![words(&[1])]);
    let out = finish_only(d, Default::default(), &mut aggs);
    let expected = String::new()
        + r#"  bash                                                    100    1099511627776                1
  sh                                                        7               42                3
  sh                                                       -1               42                3
"#;
    assert_eq!(out, expected);
}

fn count_by_int(keys: &[(i32, i64)]) -> (ProgramDesc, Aggs) {
    let mut d = program(vec![], vec![]);
    d.aggs
        .insert(1, agg(1, "a", AggFunc::Count, vec![int(0, 4, true)], 8));
    let mut aggs = Aggs::default();
    for &(k, n) in keys {
        let mut kb = k.to_ne_bytes().to_vec();
        kb.resize(8, 0);
        aggs.add(1, kb, vec![words(&[n])]);
    }
    (d, aggs)
}

#[test]
fn sort_options() {
    let data = [(3, 10), (1, 30), (2, 10), (-4, 20)];
    let row = |k: i32, n: i64| format!(" {k:>8} {n:>16}\n");
    let rows =
        |r: &[(i32, i64)]| String::new() + &r.iter().map(|&(k, n)| row(k, n)).collect::<String>();

    // Default: by value, then key.
    let (d, mut aggs) = count_by_int(&data);
    assert_eq!(
        finish_only(d, Default::default(), &mut aggs),
        rows(&[(2, 10), (3, 10), (-4, 20), (1, 30)])
    );
    // aggsortkey: by key. Integer keys compare as unsigned values of their size
    // (libdtrace's key comparison), so a negative key sorts after the others.
    let (d, mut aggs) = count_by_int(&data);
    let mut o = ConsumerOptions {
        aggsortkey: true,
        ..ConsumerOptions::default()
    };
    assert_eq!(
        finish_only(d, o.clone(), &mut aggs),
        rows(&[(1, 30), (2, 10), (3, 10), (-4, 20)])
    );
    // aggsortkey + aggsortrev.
    let (d, mut aggs) = count_by_int(&data);
    o.aggsortrev = true;
    assert_eq!(
        finish_only(d, o, &mut aggs),
        rows(&[(-4, 20), (3, 10), (2, 10), (1, 30)])
    );
    // aggsortrev alone.
    let (d, mut aggs) = count_by_int(&data);
    let o = ConsumerOptions {
        aggsortrev: true,
        ..ConsumerOptions::default()
    };
    assert_eq!(
        finish_only(d, o, &mut aggs),
        rows(&[(1, 30), (-4, 20), (3, 10), (2, 10)])
    );
}

#[test]
fn aggsortkeypos_picks_first_key_compared() {
    let mut d = program(vec![], vec![]);
    d.aggs.insert(
        1,
        agg(
            1,
            "a",
            AggFunc::Count,
            vec![int(0, 4, true), int(4, 4, true)],
            8,
        ),
    );
    let mut aggs = Aggs::default();
    for (a, b) in [(1i32, 9i32), (2, 8), (3, 7)] {
        let mut k = a.to_ne_bytes().to_vec();
        k.extend_from_slice(&b.to_ne_bytes());
        aggs.add(1, k, vec![words(&[1])]);
    }
    let o = ConsumerOptions {
        aggsortkey: true,
        aggsortkeypos: 1,
        ..ConsumerOptions::default()
    };
    assert_eq!(
        finish_only(d, o, &mut aggs),
        "        3        7                1\n        2        8                1\n        1        9                1\n"
    );
}

#[test]
fn printa_with_format_and_multiple_aggregations() {
    // printa("%-12s %@8d %@8d\n", @c, @s): keys by the ordinary conversions, values
    // by %@ in order; sorted by the first aggregation's value (aggsortpos=0).
    let mut d = program(
        vec![(16, vec![printa(Some("%-12s %@8d %@8d\n"), vec![1, 2])])],
        vec![(2, probe("dtrace", "", "", "END"))],
    );
    d.aggs
        .insert(1, agg(1, "c", AggFunc::Count, vec![string(0, 16)], 16));
    d.aggs
        .insert(2, agg(2, "s", AggFunc::Sum, vec![string(0, 16)], 16));
    let mut aggs = Aggs::default();
    aggs.add(1, skey("cat", 16), vec![words(&[5])]);
    aggs.add(1, skey("bash", 16), vec![words(&[2])]);
    aggs.add(2, skey("bash", 16), vec![words(&[700])]);
    aggs.add(2, skey("cat", 16), vec![words(&[100])]);
    // A key only in the second aggregation prints a zero for the first.
    aggs.add(2, skey("ls", 16), vec![words(&[1])]);
    let r = Rec::new(1, 2, 0, 16).0;
    let (out, ..) = run(
        d.clone(),
        quiet(),
        std::slice::from_ref(&r),
        &mut aggs,
        true,
    )
    .unwrap();
    assert_eq!(
        out,
        "ls                  0        1\nbash                2      700\ncat                 5      100\n"
    );
    // aggsortpos=1 sorts by the second aggregation's value.
    let mut o = quiet();
    o.aggsortpos = 1;
    let (out, ..) = run(d, o, &[r], &mut aggs, true).unwrap();
    assert_eq!(
        out,
        "ls                  0        1\ncat                 5      100\nbash                2      700\n"
    );
}

#[test]
fn printa_without_format_starts_with_newline_and_is_not_reprinted() {
    // Oracle Linux guide "stddev" example: printf("\nSTDDEV:"); printa(@execsd);
    // prints "STDDEV:" then the rows on the following lines: printa without a
    // format begins with a newline. An aggregation printed by printa is not printed
    // again when tracing stops.
    let mut d = program(
        vec![(16, vec![printf("\nSTDDEV:", vec![]), printa(None, vec![1])])],
        vec![(2, probe("dtrace", "", "", "END"))],
    );
    d.aggs.insert(
        1,
        agg(1, "execsd", AggFunc::Stddev, vec![string(0, 16)], 16),
    );
    let mut aggs = Aggs::default();
    aggs.add(1, skey("head", 16), vec![words(&[1, 5, 25, 0])]);
    let r = Rec::new(1, 2, 0, 16).0;
    let (out, ..) = run(
        d.clone(),
        quiet(),
        std::slice::from_ref(&r),
        &mut aggs,
        true,
    )
    .unwrap();
    assert_eq!(
        out,
        "\nSTDDEV:\n  head                                                              0\n"
    );
    // Without quiet: probe line, the printa output, then the record's newline.
    let (out, ..) = run(d, Default::default(), &[r], &mut aggs, true).unwrap();
    assert_eq!(
        out,
        "CPU     ID                    FUNCTION:NAME\n  0      2                             :END \nSTDDEV:\n  head                                                              0\n\n"
    );
}

#[test]
fn empty_aggregations_print_nothing_at_exit() {
    let mut aggs = Aggs::default();
    assert_eq!(
        finish_only(str_keyed(AggFunc::Count), Default::default(), &mut aggs),
        ""
    );
}

/// At exit the aggregations follow one another with no line between them: the
/// Oracle Solaris DTrace Guide's aggregation walker examples
/// (`dtrace_aggregate_walk_keyvarsorted()`) show rows of @c, @d and @e on
/// consecutive lines, and after `^C` the Solaris Dynamic Tracing Guide's
/// "syscall Provider" count example has a single blank line (dtrace(1)'s own)
/// before the first row. (This test used to expect a newline before each.)
#[test]
fn several_aggregations_follow_one_another() {
    let mut d = program(vec![], vec![]);
    d.aggs
        .insert(1, agg(1, "a", AggFunc::Count, vec![string(0, 16)], 16));
    d.aggs.insert(2, agg(2, "b", AggFunc::Sum, vec![], 8));
    let mut aggs = Aggs::default();
    aggs.add(1, skey("x", 16), vec![words(&[1])]);
    aggs.add(2, vec![0; 8], vec![words(&[5])]);
    assert_eq!(
        finish_only(d, Default::default(), &mut aggs),
        "  x                                                                 1\n                5\n"
    );
}

#[test]
fn malformed_aggregation_values_are_errors() {
    let mut aggs = Aggs::default();
    aggs.add(1, skey("x", 16), vec![words(&[1]), vec![1, 2, 3]]);
    assert!(run(
        str_keyed(AggFunc::Count),
        Default::default(),
        &[],
        &mut aggs,
        true
    )
    .is_err());
    let mut aggs = Aggs::default();
    aggs.add(1, vec![1, 2], vec![words(&[1])]);
    assert!(run(
        str_keyed(AggFunc::Count),
        Default::default(),
        &[],
        &mut aggs,
        true
    )
    .is_err());
    let mut aggs = Aggs::default();
    aggs.add(1, skey("x", 16), vec![words(&[1; 10])]);
    assert!(run(
        str_keyed(AggFunc::Quantize),
        Default::default(),
        &[],
        &mut aggs,
        true
    )
    .is_err());
    // printa of an aggregation with no description.
    let d = program(
        vec![(16, vec![printa(None, vec![9])])],
        vec![(1, probe("dtrace", "", "", "BEGIN"))],
    );
    assert!(matches!(
        run(
            d,
            quiet(),
            &[Rec::new(1, 1, 0, 16).0],
            &mut Aggs::default(),
            false
        ),
        Err(ConsumeError::UnknownAgg(9))
    ));
}
