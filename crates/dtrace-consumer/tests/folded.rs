//! `-x aggfmt=folded`: stack-keyed aggregations as folded stacks (root first,
//! `module`function` frames without offsets, other keys first, then the
//! count); other aggregations print as usual.

mod common;

use common::*;
use dtrace_consumer::*;
use dtrace_desc::*;

fn syms() -> KernelSymbols {
    let sym = |addr, name: &str, module: Option<&str>| Symbol {
        addr,
        name: name.into(),
        module: module.map(str::to_string),
    };
    KernelSymbols::new(vec![
        sym(0xffff_1000, "ksys_read", None),
        sym(0xffff_2000, "do_syscall_64", None),
        sym(0xffff_3000, "a;b", Some("ext4")),
    ])
}

fn stack_key(pcs: &[u64], frames: usize) -> Vec<u8> {
    let mut k: Vec<u8> = pcs.iter().flat_map(|p| p.to_ne_bytes()).collect();
    k.resize(frames * 8, 0);
    k
}

fn run(opts: ConsumerOptions, descs: Vec<AggDesc>, aggs: &mut Aggs) -> String {
    let mut d = program(vec![], vec![]);
    for a in descs {
        d.aggs.insert(a.id, a);
    }
    let mut c = Consumer::new(d, opts);
    c.set_symbols(syms());
    let mut t = TextOutput::new(Vec::new(), Vec::new());
    c.finish(&mut t, aggs).expect("finish");
    String::from_utf8_lossy(&t.into_parts().0).into_owned()
}

fn folded() -> ConsumerOptions {
    ConsumerOptions {
        folded: true,
        ..Default::default()
    }
}

#[test]
fn stacks_fold_root_first_without_offsets() {
    let stack = Field {
        offset: 0,
        ty: ValueType::Stack {
            frames: 4,
            user: false,
        },
    };
    let a = agg(1, "s", AggFunc::Count, vec![stack], 32);
    let mut aggs = Aggs::default();
    // Innermost first: a;b+0x4 called from ksys_read+0x8, from do_syscall_64+0x10.
    aggs.add(
        1,
        stack_key(&[0xffff_3004, 0xffff_1008, 0xffff_2010], 4),
        vec![words(&[5])],
    );
    aggs.add(1, stack_key(&[0xdead, 0xffff_2000], 4), vec![words(&[2])]);
    assert_eq!(
        run(folded(), vec![a], &mut aggs),
        "vmlinux`do_syscall_64;0xdead 2\nvmlinux`do_syscall_64;vmlinux`ksys_read;ext4`a:b 5\n"
    );
}

#[test]
fn other_keys_come_first_and_plain_aggregations_are_unchanged() {
    let stack = Field {
        offset: 8,
        ty: ValueType::Stack {
            frames: 2,
            user: false,
        },
    };
    let a = agg(1, "s", AggFunc::Sum, vec![string(0, 8), stack], 24);
    let b = agg(2, "n", AggFunc::Count, vec![string(0, 8)], 8);
    let mut aggs = Aggs::default();
    let mut key = skey("bash", 8);
    key.extend(stack_key(&[0xffff_1000], 2));
    aggs.add(1, key, vec![words(&[30])]);
    aggs.add(2, skey("sh", 8), vec![words(&[4])]);
    let out = run(folded(), vec![a, b], &mut aggs);
    assert_eq!(
        out,
        format!("bash;vmlinux`ksys_read 30\n  {:<50} {:>16}\n", "sh", 4)
    );
}
