//! fbt programs: the fentry/fexit trampoline (arguments as u64s) run with
//! BPF_PROG_TEST_RUN as a raw-tracepoint program (the same context; this
//! kernel refuses fentry loads), and the kprobe trampoline (pt_regs) loaded
//! as the kprobe program it is, so the verifier checks its context reads.

mod common;

use common::kernel::*;
use common::*;
use dtrace_codegen::{Attach, ProgType};
use dtrace_sema::CompileOptions;

const SRC: &str = "fbt::vfs_read:entry { trace(arg0); trace(arg3); trace(args[1]); }
    fbt::vfs_read:return { trace(arg0); trace(arg1); }";

#[test]
fn fentry_and_fexit_read_arguments_and_the_return_value() {
    let Some(sys) = gate() else { return };
    let cp = compile_src(SRC);
    let entry = Attach::Fentry {
        func: "vfs_read".into(),
        ret: false,
    };
    let exit = Attach::Fentry {
        func: "vfs_read".into(),
        ret: true,
    };
    for a in [&entry, &exit] {
        let p = prog_for(&cp, a.clone());
        assert_eq!(p.map(|p| p.prog_type), Some(ProgType::Tracing), "{a:?}");
    }
    let mut s = load_or_panic(&sys, &cp);
    let run = |a: &Attach, args: &[u64]| s.run_args(a, args);
    run(&entry, &[11, 22, 33, 44]);
    // fexit: the four arguments, then the return value.
    run(&exit, &[11, 22, 33, 44, (-5i64) as u64]);
    let recs = s.records();
    assert_eq!(recs.len(), 2, "{recs:?}");
    let f = &cp.desc.epids[&1].actions;
    assert_eq!(i64_at(&recs[0], f[0].fields[0].offset as usize), 11);
    assert_eq!(i64_at(&recs[0], f[1].fields[0].offset as usize), 44);
    assert_eq!(i64_at(&recs[0], f[2].fields[0].offset as usize), 22);
    let f = &cp.desc.epids[&2].actions;
    assert_eq!(i64_at(&recs[1], f[0].fields[0].offset as usize), 0);
    assert_eq!(i64_at(&recs[1], f[1].fields[0].offset as usize), -5);
}

#[test]
fn kprobe_trampolines_load_as_kprobe_programs() {
    let Some(sys) = gate() else { return };
    let opts = CompileOptions {
        kprobes: true,
        ..CompileOptions::default()
    };
    let cp = compile_src_opts(SRC, &opts);
    for ret in [false, true] {
        let a = Attach::Kprobe {
            func: "vfs_read".into(),
            ret,
        };
        let p = prog_for(&cp, a.clone());
        assert_eq!(p.map(|p| p.prog_type), Some(ProgType::Kprobe), "{a:?}");
    }
    // The verifier accepts the pt_regs reads (argument registers, ax) of
    // both; kprobe programs cannot be test-run, and this kernel has no
    // kprobes to attach them to.
    if let Err(e) = load(&sys, &cp) {
        panic!("load failed:\n{e}\n{}", dtrace_codegen::disassemble(&cp));
    }
}
