//! trunc(), clear(), normalize() and denormalize() records, applied where the
//! record stream reaches them; printa() of several aggregations; the sorting
//! options; and distributions divided by normalize().

mod common;

use common::*;
use dtrace_consumer::ConsumerOptions;
use dtrace_desc::*;

/// Clause 1 (EPID 1) runs `actions`; every record is 24 bytes with an optional
/// 8-byte argument at offset 16.
fn one_clause(actions: Vec<ActionDesc>, aggs: Vec<AggDesc>) -> ProgramDesc {
    let mut d = program(
        vec![(24, actions)],
        vec![(1, probe("dtrace", "", "", "BEGIN"))],
    );
    for a in aggs {
        d.aggs.insert(a.id, a);
    }
    d
}

fn control(op: AggOp, agg: u32, with_arg: bool) -> ActionDesc {
    let fields = if with_arg {
        vec![int(16, 8, true)]
    } else {
        vec![]
    };
    action(ActionKind::AggControl { op, agg }, fields)
}

fn ikey(k: i32) -> Vec<u8> {
    let mut b = k.to_ne_bytes().to_vec();
    b.resize(8, 0);
    b
}

/// `@a[int]` summed, with `keys` and one value per key on one CPU.
fn sums(id: u32, data: &[(i32, i64)]) -> (AggDesc, Aggs) {
    let mut aggs = Aggs::default();
    for &(k, v) in data {
        aggs.add(id, ikey(k), vec![words(&[v])]);
    }
    (agg(id, "a", AggFunc::Sum, vec![int(0, 4, true)], 8), aggs)
}

fn rec(arg: i64) -> Vec<u8> {
    Rec::new(1, 1, 0, 24).i64(16, arg).0
}

fn row(k: i32, v: i64) -> String {
    format!(" {k:>8} {v:>16}\n")
}

#[test]
fn trunc_keeps_the_largest_or_smallest() {
    let data = [(1, 10), (2, 40), (3, 30), (4, 20)];
    // trunc(@a, 2) then printa(@a): the two largest, in the usual ascending order.
    let (a, mut aggs) = sums(1, &data);
    let d = one_clause(
        vec![control(AggOp::Trunc, 1, true), printa(None, vec![1])],
        vec![a.clone()],
    );
    let (out, ..) = run(d.clone(), quiet(), &[rec(2)], &mut aggs, false).unwrap();
    assert_eq!(out, format!("\n{}{}", row(3, 30), row(2, 40)));
    // The removed keys are gone from the source, not only from this printa.
    assert_eq!(aggs.0[&1].len(), 2);

    // trunc(@a, -3): the three smallest.
    let (_, mut aggs) = sums(1, &data);
    let (out, ..) = run(d.clone(), quiet(), &[rec(-3)], &mut aggs, false).unwrap();
    assert_eq!(out, format!("\n{}{}{}", row(1, 10), row(4, 20), row(3, 30)));

    // trunc(@a) (no argument): nothing is left; finish() prints nothing for it.
    let (_, mut aggs) = sums(1, &data);
    let d = one_clause(vec![control(AggOp::Trunc, 1, false)], vec![a]);
    let (out, ..) = run(d, quiet(), &[rec(0)], &mut aggs, true).unwrap();
    assert_eq!(out, "");
    assert!(aggs.0[&1].is_empty());
}

#[test]
fn trunc_applies_in_record_order() {
    // Record 1 prints, record 2 truncates to one row, record 3 prints again.
    let (a, mut aggs) = sums(1, &[(1, 1), (2, 2)]);
    let mut d = program(
        vec![
            (24, vec![printa(None, vec![1])]),
            (24, vec![control(AggOp::Trunc, 1, true)]),
        ],
        vec![(1, probe("dtrace", "", "", "BEGIN"))],
    );
    d.aggs.insert(1, a);
    let recs = [
        Rec::new(1, 1, 0, 24).0,
        Rec::new(2, 1, 0, 24).i64(16, 1).0,
        Rec::new(1, 1, 0, 24).0,
    ];
    let (out, ..) = run(d, quiet(), &recs, &mut aggs, false).unwrap();
    assert_eq!(out, format!("\n{}{}\n{}", row(1, 1), row(2, 2), row(2, 2)));
}

#[test]
fn clear_zeroes_values_and_keeps_keys() {
    // As after `clear(@b)`: keys stay, values print 0; min/max with no data show 0.
    let (a, mut aggs) = sums(1, &[(4, 400), (5, 50)]);
    aggs.add(2, ikey(9), vec![words(&[1, 7]), words(&[1, 3])]);
    let m = agg(2, "m", AggFunc::Min, vec![int(0, 4, true)], 8);
    let d = one_clause(
        vec![
            control(AggOp::Clear, 1, false),
            control(AggOp::Clear, 2, false),
            printa(None, vec![1]),
            printa(None, vec![2]),
        ],
        vec![a, m],
    );
    let (out, ..) = run(d, quiet(), &[rec(0)], &mut aggs, false).unwrap();
    assert_eq!(out, format!("\n{}{}\n{}", row(4, 0), row(5, 0), row(9, 0)));
    // The source itself was zeroed, so later snapshots count from zero.
    assert!(aggs.0[&1].iter().all(|(_, v)| v[0].iter().all(|b| *b == 0)));
}

#[test]
fn normalize_divides_printed_values_until_denormalize() {
    let (a, mut aggs) = sums(1, &[(0, 500), (1, 703)]);
    let d = one_clause(
        vec![
            control(AggOp::Normalize, 1, true),
            printa(None, vec![1]),
            printa(Some("%d=%@d\n"), vec![1]),
            control(AggOp::Denormalize, 1, false),
            printa(None, vec![1]),
        ],
        vec![a],
    );
    let (out, ..) = run(d, quiet(), &[rec(100)], &mut aggs, false).unwrap();
    assert_eq!(
        out,
        format!(
            "\n{}{}0=5\n1=7\n\n{}{}",
            row(0, 5),
            row(1, 7),
            row(0, 500),
            row(1, 703)
        )
    );
}

#[test]
fn normalize_applies_to_the_output_at_exit() {
    // normalize(@a, 5); at exit @a prints normalized (sum 3800 over 5 -> 760);
    // avg divides the sum first, then by the count.
    let (a, mut aggs) = sums(1, &[(7, 3800)]);
    aggs.add(2, vec![0; 8], vec![words(&[2, 1000])]);
    let avg = agg(2, "v", AggFunc::Avg, vec![], 8);
    let d = one_clause(
        vec![
            control(AggOp::Normalize, 1, true),
            control(AggOp::Normalize, 2, true),
        ],
        vec![a, avg],
    );
    let (out, ..) = run(d, quiet(), &[rec(5)], &mut aggs, true).unwrap();
    assert_eq!(out, format!("{}{:>17}\n", row(7, 760), 100));
}

#[test]
fn normalized_distribution_divides_counts_not_bars() {
    let f = AggFunc::Lquantize {
        base: 0,
        limit: 2,
        step: 1,
    };
    let mut aggs = Aggs::default();
    aggs.add(1, vec![0; 8], vec![words(&[0, 30, 10, 0])]);
    let d = one_clause(
        vec![control(AggOp::Normalize, 1, true), printa(None, vec![1])],
        vec![agg(1, "", f, vec![], 8)],
    );
    let (out, ..) = run(d, quiet(), &[rec(10)], &mut aggs, false).unwrap();
    let expected = "\n\n".to_string()
        + r#"           value  ------------- Distribution ------------- count    
             < 0 |                                         0        
               0 |@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@           3        
               1 |@@@@@@@@@@                               1        
            >= 2 |                                         0        

"#;
    assert_eq!(out, expected);
}

#[test]
fn multi_aggregation_printa_joins_by_key_and_fills_zeros() {
    // printa(@c, @s): keys of either aggregation; missing values print 0.
    let c = agg(1, "c", AggFunc::Count, vec![int(0, 4, true)], 8);
    let s = agg(2, "s", AggFunc::Sum, vec![int(0, 4, true)], 8);
    let mut aggs = Aggs::default();
    aggs.add(1, ikey(1), vec![words(&[3])]);
    aggs.add(1, ikey(2), vec![words(&[1])]);
    aggs.add(2, ikey(2), vec![words(&[20])]);
    aggs.add(2, ikey(3), vec![words(&[30])]);
    let d = one_clause(
        vec![
            printa(None, vec![1, 2]),
            printa(Some("%d: %@d %@d\n"), vec![1, 2]),
        ],
        vec![c.clone(), s.clone()],
    );
    let (out, ..) = run(d.clone(), quiet(), &[rec(0)], &mut aggs, false).unwrap();
    let r = |k: i32, a: i64, b: i64| format!(" {k:>8} {a:>16} {b:>16}\n");
    assert_eq!(
        out,
        format!(
            "\n{}{}{}3: 0 30\n2: 1 20\n1: 3 0\n",
            r(3, 0, 30),
            r(2, 1, 20),
            r(1, 3, 0)
        )
    );

    // aggsortpos=1 sorts by the second aggregation's values.
    let mut o = quiet();
    o.aggsortpos = 1;
    let d = one_clause(vec![printa(None, vec![1, 2])], vec![c, s]);
    let (out, ..) = run(d, o, &[rec(0)], &mut aggs, false).unwrap();
    assert_eq!(
        out,
        format!("\n{}{}{}", r(1, 3, 0), r(2, 1, 20), r(3, 0, 30))
    );
}

#[test]
fn aggsortrev_reverses_the_aggregations_at_exit() {
    let mut aggs = Aggs::default();
    aggs.add(1, ikey(1), vec![words(&[1])]);
    aggs.add(2, ikey(2), vec![words(&[2])]);
    let d = one_clause(
        vec![],
        vec![
            agg(1, "a", AggFunc::Sum, vec![int(0, 4, true)], 8),
            agg(2, "b", AggFunc::Sum, vec![int(0, 4, true)], 8),
        ],
    );
    let o = ConsumerOptions {
        aggsortrev: true,
        ..Default::default()
    };
    let (out, ..) = run(d, o, &[], &mut aggs, true).unwrap();
    assert_eq!(out, format!("{}{}", row(2, 2), row(1, 1)));
}

#[test]
fn narrow_signed_keys_sort_and_print_as_dtrace_does() {
    // libdtrace compares integer keys as unsigned values of their size and prints
    // 1- and 2-byte keys unsigned: (char)-1 is 255, after 2.
    let a = agg(1, "a", AggFunc::Sum, vec![int(0, 1, true)], 8);
    let mut aggs = Aggs::default();
    for k in [-1i8, 2, 0] {
        let mut kb = vec![k as u8];
        kb.resize(8, 0);
        aggs.add(1, kb, vec![words(&[k as i64])]);
    }
    let o = ConsumerOptions {
        aggsortkey: true,
        ..Default::default()
    };
    let (out, ..) = run(one_clause(vec![], vec![a]), o, &[], &mut aggs, true).unwrap();
    assert_eq!(
        out,
        format!(
            " {:>3} {:>16}\n {:>3} {:>16}\n {:>3} {:>16}\n",
            0, 0, 2, 2, 255, -1
        )
    );
}

#[test]
fn aggpack_prints_one_line_per_key_under_one_header() {
    // quantize() packed: buckets from one below the lowest used (0) to one above
    // the highest (128); labels at least 4 wide; ASCII levels `__xxxxXX`, a count
    // c of a row's total t picking level round(c * 7 / t).
    let q = |v: i64| {
        (0..QUANTIZE_NBUCKETS)
            .rposition(|i| quantize_bucket_value(i) <= v)
            .unwrap_or(0)
    };
    let mut aggs = Aggs::default();
    let mut a = vec![0i64; QUANTIZE_NBUCKETS];
    a[q(1)] = 1;
    a[q(5)] = 2;
    let mut b = vec![0i64; QUANTIZE_NBUCKETS];
    b[q(100)] = 1;
    aggs.add(1, ikey(1), vec![words(&a)]);
    aggs.add(1, ikey(2), vec![words(&b)]);
    let d = one_clause(
        vec![],
        vec![agg(1, "q", AggFunc::Quantize, vec![int(0, 4, true)], 8)],
    );
    let mut o = ConsumerOptions {
        aggpack: true,
        ..Default::default()
    };
    let (out, ..) = run(d.clone(), o.clone(), &[], &mut aggs, true).unwrap();
    assert_eq!(
        out,
        "\n      key  min .---------. max  | count\n        1    0 : x x     : 128  | 3\n        2    0 :       X : 128  | 1\n"
    );
    // With UTF-8, the levels are the block elements U+2581..U+2588.
    o.utf8 = true;
    let (out, ..) = run(d, o, &[], &mut aggs, true).unwrap();
    assert!(out.contains(" : \u{2583} \u{2586}     : "), "{out}");
}

#[test]
fn aggpack_lquantize_shows_every_bucket() {
    let f = AggFunc::Lquantize {
        base: 0,
        limit: 4,
        step: 1,
    };
    let mut aggs = Aggs::default();
    aggs.add(1, vec![0; 8], vec![words(&[0, 0, 4, 0, 0, -2])]);
    let d = one_clause(vec![], vec![agg(1, "", f, vec![], 8)]);
    let o = ConsumerOptions {
        aggpack: true,
        ..Default::default()
    };
    let (out, ..) = run(d, o, &[], &mut aggs, true).unwrap();
    // Negative counts use `vvvvVV`; the count is the sum of the counts.
    assert_eq!(
        out,
        "\n     min .------. max      | count\n     < 0 :  x  v: >= 4     | 2\n"
    );
}

#[test]
fn aggzoom_scales_bars_to_the_largest_bucket() {
    // Counts 1 and 2: without aggzoom 13 and 27 '@' (of 40); with it the largest
    // fills 95% of the bar (38) and the other half of that (19).
    let mut aggs = Aggs::default();
    let mut c = vec![0i64; QUANTIZE_NBUCKETS];
    c[QUANTIZE_ZERO_BUCKET + 1] = 1;
    c[QUANTIZE_ZERO_BUCKET + 2] = 2;
    aggs.add(1, vec![0; 8], vec![words(&c)]);
    let d = one_clause(vec![], vec![agg(1, "", AggFunc::Quantize, vec![], 8)]);
    let o = ConsumerOptions {
        aggzoom: true,
        ..Default::default()
    };
    let (out, ..) = run(d, o, &[], &mut aggs, true).unwrap();
    let bars: Vec<usize> = out
        .lines()
        .filter(|l| l.contains('|'))
        .map(|l| l.matches('@').count())
        .collect();
    assert_eq!(bars, vec![0, 19, 38, 0]);
}

#[test]
fn aggpercpu_shows_each_cpus_value_under_the_total() {
    let mut aggs = Aggs::default();
    aggs.add(1, ikey(7), vec![words(&[2]), words(&[5])]);
    let d = one_clause(
        vec![],
        vec![agg(1, "a", AggFunc::Count, vec![int(0, 4, true)], 8)],
    );
    let o = ConsumerOptions {
        aggpercpu: true,
        ..Default::default()
    };
    let (out, ..) = run(d, o, &[], &mut aggs, true).unwrap();
    assert_eq!(
        out,
        format!(
            " {:>8} {:>16}\n    [CPU 0] {:>16}\n    [CPU 1] {:>16}\n",
            7, 7, 2, 5
        )
    );
}
