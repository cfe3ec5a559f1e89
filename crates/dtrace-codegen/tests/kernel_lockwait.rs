//! lockstat's contention probes: the companion program on `contention_begin`
//! keeps each thread's lock wait, and the `contention_end` program takes it
//! and fires the probe its flags and result select, with the time waited.
//! Both run with BPF_PROG_TEST_RUN in this thread, as the kernel would run
//! them in a waiting thread.

mod common;

use common::kernel::*;
use common::*;
use dtrace_codegen::Attach;

const SPIN: u64 = 1;
const MUTEX: u64 = 32;

#[test]
fn contention_end_fires_the_probe_of_the_wait_with_its_time() {
    let Some(sys) = gate() else { return };
    let cp = compile_src(
        "lockstat:::adaptive-block { trace(arg0); trace(arg1 > 0); }
         lockstat:::spin-spin { trace(arg0); trace(arg1 > 0); }
         lockstat:::adaptive-acquire-error { trace(arg0); trace(arg1); }",
    );
    let begin = Attach::RawTracepoint("contention_begin".into());
    let end = Attach::RawTracepoint("contention_end".into());
    assert!(prog_for(&cp, begin.clone()).is_some());
    assert!(cp.maps.iter().any(|m| m.name == "dt_lockwait"));
    let mut s = load_or_panic(&sys, &cp);
    let run = |a: &Attach, args: &[u64]| s.run_args(a, args);
    // A mutex waiter that spins, then sleeps, then has the lock.
    run(&begin, &[0x1000, MUTEX | SPIN]);
    run(&begin, &[0x1000, MUTEX]);
    run(&end, &[0x1000, 0]);
    // A mutex waiter that only spins: not adaptive-block.
    run(&begin, &[0x2000, MUTEX | SPIN]);
    run(&end, &[0x2000, 0]);
    // A spinlock.
    run(&begin, &[0x3000, SPIN]);
    run(&end, &[0x3000, 0]);
    // A mutex wait interrupted: -EINTR, as the tracepoint's int.
    run(&begin, &[0x4000, MUTEX]);
    run(&end, &[0x4000, 0xffff_fffc]);
    // An end whose wait began before tracing did: nothing.
    run(&end, &[0x5000, 0]);
    let recs = s.records();
    assert_eq!(recs.len(), 3, "{recs:?}");
    let field = |epid: u32, i: usize, rec: &[u8]| {
        let f = &cp.desc.epids[&epid].actions;
        i64_at(rec, f[i].fields[0].offset as usize)
    };
    assert_eq!((field(1, 0, &recs[0]), field(1, 1, &recs[0])), (0x1000, 1));
    assert_eq!((field(2, 0, &recs[1]), field(2, 1, &recs[1])), (0x3000, 1));
    assert_eq!((field(3, 0, &recs[2]), field(3, 1, &recs[2])), (0x4000, -4));
}
