//! Golden tests for quantize(), lquantize() and llquantize() output. Expected
//! text is copied from the Oracle Linux DTrace guide's "quantize" and
//! "lquantize" examples (trailing blanks preserved there) or built from the same
//! row layout, as each test says.
//!
//! At exit nothing precedes an aggregation (the blank line dtrace(1) shows first
//! is the CLI's own); an unkeyed distribution starts with its header's newline.

mod common;
use common::*;
use dtrace_desc::*;

fn keyed(func: AggFunc) -> ProgramDesc {
    let mut d = program(vec![], vec![]);
    d.aggs
        .insert(1, agg(1, "time", func, vec![string(0, 16)], 16));
    d
}

fn unkeyed(func: AggFunc) -> ProgramDesc {
    let mut d = program(vec![], vec![]);
    d.aggs.insert(1, agg(1, "", func, vec![], 8));
    d
}

fn finish(desc: ProgramDesc, aggs: &mut Aggs) -> String {
    run(desc, Default::default(), &[], aggs, true).unwrap().0
}

/// quantize() bucket index of 2^k.
fn q(k: usize) -> usize {
    QUANTIZE_ZERO_BUCKET + 1 + k
}

#[test]
fn quantize_documented_example() {
    // Oracle Linux DTrace guide, "quantize": @time[execname] = quantize(...).
    let mut aggs = Aggs::default();
    let n = QUANTIZE_NBUCKETS;
    // bash: 4 x 16384, 1 x 131072 (split across CPUs).
    aggs.add(
        1,
        skey("bash", 16),
        vec![
            words(&buckets(n, &[(q(14), 3)])),
            words(&buckets(n, &[(q(14), 1), (q(17), 1)])),
        ],
    );
    aggs.add(
        1,
        skey("gnome-terminal", 16),
        vec![words(&buckets(
            n,
            &[(q(13), 5), (q(14), 5), (q(15), 4), (q(16), 1)],
        ))],
    );
    aggs.add(
        1,
        skey("Xorg", 16),
        vec![words(&buckets(
            n,
            &[
                (q(12), 4),
                (q(13), 8),
                (q(14), 7),
                (q(15), 2),
                (q(16), 1),
                (q(21), 2),
            ],
        ))],
    );
    let expected = String::new()
        + r#"  bash                                              
           value  ------------- Distribution ------------- count    
            8192 |                                         0        
           16384 |@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@         4        
           32768 |                                         0        
           65536 |                                         0        
          131072 |@@@@@@@@                                 1        
          262144 |                                         0        

  gnome-terminal                                    
           value  ------------- Distribution ------------- count    
            4096 |                                         0        
            8192 |@@@@@@@@@@@@@                            5        
           16384 |@@@@@@@@@@@@@                            5        
           32768 |@@@@@@@@@@@                              4        
           65536 |@@@                                      1        
          131072 |                                         0        

  Xorg                                              
           value  ------------- Distribution ------------- count    
            2048 |                                         0        
            4096 |@@@@@@@                                  4        
            8192 |@@@@@@@@@@@@@                            8        
           16384 |@@@@@@@@@@@@                             7        
           32768 |@@@                                      2        
           65536 |@@                                       1        
          131072 |                                         0        
          262144 |                                         0        
          524288 |                                         0        
         1048576 |                                         0        
         2097152 |@@@                                      2        
         4194304 |                                         0        

"#;
    assert_eq!(finish(keyed(AggFunc::Quantize), &mut aggs), expected);
}

#[test]
fn lquantize_documented_example() {
    // Oracle Linux DTrace guide, "lquantize": lquantize(arg0, 0, 100, 1).
    // Bucket 0 is the underflow bucket, bucket i holds value i - 1.
    let f = AggFunc::Lquantize {
        base: 0,
        limit: 100,
        step: 1,
    };
    let n = lquantize_nbuckets(0, 100, 1);
    let b = |v: usize| v + 1;
    let mut aggs = Aggs::default();
    aggs.add(
        1,
        skey("gnome-session", 16),
        vec![words(&buckets(n, &[(b(26), 9)]))],
    );
    aggs.add(
        1,
        skey("gnome-terminal", 16),
        vec![words(&buckets(
            n,
            &[
                (b(16), 1),
                (b(21), 4),
                (b(22), 1),
                (b(23), 1),
                (b(29), 6),
                (b(30), 6),
            ],
        ))],
    );
    let expected = String::new()
        + r#"  gnome-session                                     
           value  ------------- Distribution ------------- count    
              25 |                                         0        
              26 |@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@ 9        
              27 |                                         0        

  gnome-terminal                                    
           value  ------------- Distribution ------------- count    
              15 |                                         0        
              16 |@@                                       1        
              17 |                                         0        
              18 |                                         0        
              19 |                                         0        
              20 |                                         0        
              21 |@@@@@@@@                                 4        
              22 |@@                                       1        
              23 |@@                                       1        
              24 |                                         0        
              25 |                                         0        
              26 |                                         0        
              27 |                                         0        
              28 |                                         0        
              29 |@@@@@@@@@@@@@                            6        
              30 |@@@@@@@@@@@@@                            6        
              31 |                                         0        

"#;
    assert_eq!(finish(keyed(f), &mut aggs), expected);
}

#[test]
fn quantize_single_zero_value_unkeyed() {
    // tst.quantize.d.out (illumos test suite output): a single value 0 shows
    // rows -1, 0, 1. Unkeyed: the aggregation's newline, then the header's.
    let mut aggs = Aggs::default();
    aggs.add(
        1,
        vec![0; 8],
        vec![words(&buckets(
            QUANTIZE_NBUCKETS,
            &[(QUANTIZE_ZERO_BUCKET, 1)],
        ))],
    );
    let expected = "\n".to_string()
        + r#"           value  ------------- Distribution ------------- count    
              -1 |                                         0        
               0 |@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@ 1        
               1 |                                         0        

"#;
    assert_eq!(finish(unkeyed(AggFunc::Quantize), &mut aggs), expected);
}

#[test]
fn quantize_negative_and_zero_values() {
    // Values -3 (bucket -2), 0, 0 and 5 (bucket 4): rows from one bucket below
    // the lowest used (-4) to one above the highest (8); total 4, so 1 -> 10 '@'
    // and 2 -> 20 '@'.
    let z = QUANTIZE_ZERO_BUCKET;
    let mut aggs = Aggs::default();
    aggs.add(
        1,
        vec![0; 8],
        vec![words(&buckets(
            QUANTIZE_NBUCKETS,
            &[(z - 2, 1), (z, 2), (q(2), 1)],
        ))],
    );
    let expected = "\n".to_string()
        + r#"           value  ------------- Distribution ------------- count    
              -4 |                                         0        
              -2 |@@@@@@@@@@                               1        
              -1 |                                         0        
               0 |@@@@@@@@@@@@@@@@@@@@                     2        
               1 |                                         0        
               2 |                                         0        
               4 |@@@@@@@@@@                               1        
               8 |                                         0        

"#;
    assert_eq!(finish(unkeyed(AggFunc::Quantize), &mut aggs), expected);
}

#[test]
fn quantize_without_data_shows_buckets_around_zero() {
    let mut aggs = Aggs::default();
    aggs.add(1, vec![0; 8], vec![words(&vec![0; QUANTIZE_NBUCKETS])]);
    let expected = "\n".to_string()
        + r#"           value  ------------- Distribution ------------- count    
              -1 |                                         0        
               0 |                                         0        
               1 |                                         0        

"#;
    assert_eq!(finish(unkeyed(AggFunc::Quantize), &mut aggs), expected);
}

#[test]
fn lquantize_underflow_and_overflow() {
    // lquantize(x, 0, 10, 5): buckets [< 0], [0,5), [5,10), [>= 10].
    // Labels `< 0` as in tst.negtruncquant.d.out (`             < 0 |`).
    let f = AggFunc::Lquantize {
        base: 0,
        limit: 10,
        step: 5,
    };
    let mut aggs = Aggs::default();
    aggs.add(1, skey("k", 16), vec![words(&[1, 0, 2, 1])]);
    let expected = String::new()
        + r#"  k                                                 
           value  ------------- Distribution ------------- count    
             < 0 |@@@@@@@@@@                               1        
               0 |                                         0        
               5 |@@@@@@@@@@@@@@@@@@@@                     2        
           >= 10 |@@@@@@@@@@                               1        

"#;
    assert_eq!(finish(keyed(f), &mut aggs), expected);

    // Only the overflow bucket used: one row before it, none after.
    let mut aggs = Aggs::default();
    aggs.add(1, skey("k", 16), vec![words(&[0, 0, 0, 3])]);
    let expected = String::new()
        + r#"  k                                                 
           value  ------------- Distribution ------------- count    
               5 |                                         0        
           >= 10 |@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@ 3        

"#;
    assert_eq!(finish(keyed(f), &mut aggs), expected);
}

#[test]
fn lquantize_negative_base() {
    // lquantize(x, -100, 200, 100) with one value 0: tst.lquantize.d.out's
    // first distribution (rows -100, 0, 100).
    let f = AggFunc::Lquantize {
        base: -100,
        limit: 200,
        step: 100,
    };
    let mut d = program(vec![], vec![]);
    d.aggs.insert(1, agg(1, "", f, vec![int(0, 4, true)], 8));
    let mut aggs = Aggs::default();
    aggs.add(1, vec![0; 8], vec![words(&[0, 0, 1, 0, 0])]);
    let expected = String::new()
        + r#"        0
           value  ------------- Distribution ------------- count    
            -100 |                                         0        
               0 |@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@ 1        
             100 |                                         0        

"#;
    assert_eq!(finish(d, &mut aggs), expected);
}

#[test]
fn llquantize_labels() {
    // llquantize(x, 10, 1, 1, 10): buckets [< 10], 10, 20, ..., 90, [>= 100].
    // Values 3 (below 10), 25 (bucket 20) and 150 (overflow): every row between
    // the first and last used bucket is shown, with one more on either side (the
    // first negative bucket, -10, before); 1 of 3 -> 13 '@'.
    let f = AggFunc::Llquantize {
        factor: 10,
        low: 1,
        high: 1,
        nsteps: 10,
    };
    // Oracle DTrace 2.x's layout: 10 positive buckets (overflow included),
    // mirrored for negative values around the |value| < 10 bucket.
    assert_eq!(f.value_size(), 21 * 8);
    let mut counts = vec![0i64; 21];
    for v in [3, 25, 150] {
        counts[llquantize_bucket(10, 1, 1, 10, v)] = 1;
    }
    assert_eq!(llquantize_bucket(10, 1, 1, 10, 3), 10);
    assert_eq!(llquantize_bucket(10, 1, 1, 10, -25), 8);
    assert_eq!(llquantize_bucket(10, 1, 1, 10, i64::MIN), 0);
    let mut aggs = Aggs::default();
    aggs.add(1, vec![0; 8], vec![words(&counts)]);
    let expected = "\n".to_string()
        + r#"           value  ------------- Distribution ------------- count    
             -10 |                                         0        
      abs() < 10 |@@@@@@@@@@@@@                            1        
              10 |                                         0        
              20 |@@@@@@@@@@@@@                            1        
              30 |                                         0        
              40 |                                         0        
              50 |                                         0        
              60 |                                         0        
              70 |                                         0        
              80 |                                         0        
              90 |                                         0        
          >= 100 |@@@@@@@@@@@@@                            1        

"#;
    assert_eq!(finish(unkeyed(f), &mut aggs), expected);
}

#[test]
fn llquantize_bucket_bounds() {
    // Solaris DTrace guide, "llquantize() Function": factor 10 and 20 steps gives
    // 20 - 20/10 = 18 buckets per magnitude, but 9 at magnitude 0.
    let b = llquantize_bounds(10, 0, 1, 20);
    assert_eq!(b[0], i64::MIN);
    assert_eq!(&b[1..10], &[1, 2, 3, 4, 5, 6, 7, 8, 9]);
    assert_eq!(b[10], 10);
    assert_eq!(b[11], 15);
    assert_eq!(b.len(), 1 + 9 + 18 + 1);
    assert_eq!(*b.last().unwrap(), 100);
}

#[test]
fn negative_counts_bars_from_the_right() {
    // quantize(x, -1) leaves negative counts: bars grow leftwards into `|`.
    let mut aggs = Aggs::default();
    aggs.add(
        1,
        vec![0; 8],
        vec![words(&buckets(
            QUANTIZE_NBUCKETS,
            &[(q(0), -2), (q(1), -2)],
        ))],
    );
    let expected = "\n".to_string()
        + r#"           value  ------------- Distribution ------------- count    
               0                                         | 0        
               1                     @@@@@@@@@@@@@@@@@@@@| -2       
               2                     @@@@@@@@@@@@@@@@@@@@| -2       
               4                                         | 0        

"#;
    assert_eq!(finish(unkeyed(AggFunc::Quantize), &mut aggs), expected);
}

#[test]
fn mixed_sign_counts_use_half_bars() {
    let mut aggs = Aggs::default();
    aggs.add(
        1,
        vec![0; 8],
        vec![words(&buckets(QUANTIZE_NBUCKETS, &[(q(0), 2), (q(1), -2)]))],
    );
    let expected = "\n".to_string()
        + r#"           value  ------------- Distribution ------------- count    
               0                     |                     0        
               1                     |@@@@@@@@@@           2        
               2           @@@@@@@@@@|                     -2       
               4                     |                     0        

"#;
    assert_eq!(finish(unkeyed(AggFunc::Quantize), &mut aggs), expected);
}

#[test]
fn printa_formatted_distribution() {
    // printa("%s%@d\n", @): the key by %s, then the distribution.
    let mut d = program(
        vec![(16, vec![printa(Some("%s%@d\n"), vec![1])])],
        vec![(2, probe("dtrace", "", "", "END"))],
    );
    d.aggs.insert(
        1,
        agg(
            1,
            "fds",
            AggFunc::Lquantize {
                base: 0,
                limit: 100,
                step: 1,
            },
            vec![string(0, 16)],
            16,
        ),
    );
    let mut aggs = Aggs::default();
    let mut c = vec![0i64; lquantize_nbuckets(0, 100, 1)];
    c[27] = 9;
    aggs.add(1, skey("gnome-session", 16), vec![words(&c)]);
    let (out, ..) = run(d, quiet(), &[Rec::new(1, 2, 0, 16).0], &mut aggs, true).unwrap();
    let expected = "gnome-session\n".to_string()
        + r#"           value  ------------- Distribution ------------- count    
              25 |                                         0        
              26 |@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@ 9        
              27 |                                         0        

"#;
    assert_eq!(out, expected);
}
