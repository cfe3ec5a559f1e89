//! syscall entry/return programs attached to the sys_enter/sys_exit raw
//! tracepoints, triggered by this test's own system calls.

mod common;

use common::kernel::*;
use common::*;
use dtrace_codegen::Attach;
use dtrace_sema::CompileOptions;

#[test]
fn syscall_entry_and_return() {
    let Some(sys) = gate() else { return };
    let pid = std::process::id();
    let src = format!(
        r#"syscall::getppid:entry /pid == {pid}/ {{ @c[probefunc] = count(); self->ts = timestamp; }}
        syscall::getppid:return /pid == {pid} && self->ts/ {{ trace(arg0); trace(errno); trace(ppid); trace(probefunc); self->ts = 0; }}
        syscall::close:entry, syscall::read:entry /pid == {pid} && (int)arg0 == -1/ {{ printf("%s %d", probefunc, (int)arg0); }}
        syscall::close:return /pid == {pid}/ {{ trace(errno); trace(arg1); }}"#
    );
    let opts = CompileOptions {
        kernel: kernel_offsets(),
        ..options()
    };
    let cp = compile_src_opts(&src, &opts);
    let mut s = match load(&sys, &cp) {
        Ok(s) => s,
        Err(e) => panic!("load failed:\n{e}\n{}", dtrace_codegen::disassemble(&cp)),
    };
    let enter = s
        .prog(Attach::RawTracepoint("sys_enter".into()))
        .unwrap()
        .attach_raw_tp("sys_enter")
        .unwrap();
    let exit = s
        .prog(Attach::RawTracepoint("sys_exit".into()))
        .unwrap()
        .attach_raw_tp("sys_exit")
        .unwrap();
    // SAFETY: getppid and close have no memory-safety preconditions; fd -1 is invalid.
    let ppid = unsafe {
        libc::syscall(libc::SYS_getppid);
        libc::syscall(libc::SYS_getppid);
        libc::close(-1);
        libc::syscall(libc::SYS_getppid)
    };
    drop(enter);
    drop(exit);
    let recs = s.records();
    let by_epid = |e: u32| {
        recs.iter()
            .filter(|r| u32_at(r, 0) == e)
            .collect::<Vec<_>>()
    };
    // getppid:return x3
    let rets = by_epid(2);
    assert_eq!(rets.len(), 3, "{recs:?}");
    let acts = &cp.desc.epids[&2].actions;
    for r in &rets {
        assert_eq!(i64_at(r, acts[0].fields[0].offset as usize), ppid);
        assert_eq!(i32_at(r, acts[1].fields[0].offset as usize), 0);
        assert_eq!(i32_at(r, acts[2].fields[0].offset as usize) as i64, ppid);
        assert_eq!(str_at(r, acts[3].fields[0].offset as usize, 8), "getppid");
    }
    // close(-1) entry via the two-probe clause: probefunc comes from the table.
    let e3 = by_epid(3);
    assert_eq!(e3.len(), 1);
    let f = &cp.desc.epids[&3].actions[0].fields;
    assert_eq!(str_at(e3[0], f[0].offset as usize, 8), "close");
    assert_eq!(i32_at(e3[0], f[1].offset as usize), -1);
    // close returned EBADF.
    let e4 = by_epid(4);
    assert!(!e4.is_empty());
    let f = &cp.desc.epids[&4].actions;
    assert_eq!(i32_at(e4[0], f[0].fields[0].offset as usize), libc::EBADF);
    assert_eq!(
        i64_at(e4[0], f[1].fields[0].offset as usize),
        -(libc::EBADF as i64)
    );
    // The aggregation counted 3 entries keyed by "getppid".
    let d = &cp.desc.aggs[&0];
    let mut key = vec![0u8; d.key_size as usize];
    key[..7].copy_from_slice(b"getppid");
    assert_eq!(s.agg_words(&cp, 0, &key), Some(vec![3]));
}

#[test]
fn profile_program_fires() {
    let Some(sys) = gate() else { return };
    let cp = compile_src(
        "profile:::tick-1s { @[cpu] = count(); trace(arg0 != 0 || arg1 != 0); } profile:::profile-97 { trace(arg1); }",
    );
    assert_eq!(cp.programs.len(), 2);
    let mut s = match load(&sys, &cp) {
        Ok(s) => s,
        Err(e) => panic!("load failed:\n{e}\n{}", dtrace_codegen::disassemble(&cp)),
    };
    let attach = Attach::CpuClock {
        period_ns: 10_000_000,
        all_cpus: false,
    };
    let prog = s.prog(attach).unwrap();
    let mut ev = dtrace_sys::PerfEvent::cpu_clock(&sys, 1_000_000, 0).unwrap();
    ev.attach(prog, 0).unwrap();
    ev.enable().unwrap();
    std::thread::sleep(std::time::Duration::from_millis(50));
    ev.disable().unwrap();
    drop(ev);
    let recs = s.records();
    let mine: Vec<_> = recs.iter().filter(|r| u32_at(r, 0) == 1).collect();
    assert!(!mine.is_empty(), "no tick records");
    let f = &cp.desc.epids[&1].actions[0].fields[0];
    assert!(mine.iter().all(|r| i32_at(r, f.offset as usize) == 1));
    assert!(mine.iter().all(|r| u32_at(r, 8) == 0), "all on cpu 0");
    let n = s.agg_words(&cp, 0, &[0u8; 8]).unwrap()[0];
    assert_eq!(n as usize, mine.len());
}
