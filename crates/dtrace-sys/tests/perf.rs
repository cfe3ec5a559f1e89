//! Perf events: cpu-clock sampling and a tracepoint, each running a BPF program.
mod common;

use dtrace_sys::cpu::online_cpus;
use dtrace_sys::{PerfEvent, ProbePoint, ProgFd, ProgSpec, ProgType, Tracefs};
use std::os::fd::AsRawFd;
use std::time::{Duration, Instant};

fn burn(d: Duration) {
    let t = Instant::now();
    let mut x = 0u64;
    while t.elapsed() < d {
        x = std::hint::black_box(x.wrapping_mul(31).wrapping_add(7));
    }
}

#[test]
fn cpu_clock_event_fires() {
    let Some((sys, f)) = common::bpf_or_skip("cpu_clock_event_fires") else {
        return;
    };
    assert!(f.perf_event_prog);
    let map = common::counter_map(&sys);
    let insns = common::count_program(map.as_raw_fd());
    let spec = ProgSpec::new(ProgType::PerfEvent, "dt_test_prof", &insns);
    let prog = ProgFd::load(&sys, &spec).unwrap_or_else(|e| panic!("{e}"));
    let mut events = Vec::new();
    for cpu in online_cpus().unwrap() {
        // 1 ms of CPU time per sample.
        let mut ev = PerfEvent::cpu_clock(&sys, 1_000_000, cpu).unwrap();
        ev.attach(&prog, cpu as u64).unwrap();
        events.push(ev);
    }
    burn(Duration::from_millis(200));
    let fired = common::read_counter(&map);
    assert!(fired >= 20, "only {fired} samples in 200 ms of CPU");
    drop(events);
    let stopped = common::read_counter(&map);
    burn(Duration::from_millis(50));
    assert_eq!(common::read_counter(&map), stopped);
}

fn pin_to(cpu: u32) {
    // SAFETY: a zeroed cpu_set_t is a valid empty set; CPU_SET stays in bounds for
    // cpu < 1024; sched_setaffinity reads the set for the call only.
    unsafe {
        let mut set: libc::cpu_set_t = std::mem::zeroed();
        libc::CPU_SET(cpu as usize, &mut set);
        libc::sched_setaffinity(0, std::mem::size_of::<libc::cpu_set_t>(), &set);
    }
}

#[test]
fn tracepoint_event_fires() {
    let Some((sys, f)) = common::bpf_or_skip("tracepoint_event_fires") else {
        return;
    };
    assert!(f.tracepoint_prog);
    let tfs = Tracefs::find().unwrap();
    let id = tfs.event_id("syscalls", "sys_enter_getppid").unwrap();
    assert!(tfs
        .available_events()
        .unwrap()
        .iter()
        .any(|(s, e)| s == "syscalls" && e == "sys_enter_getppid"));
    let map = common::counter_map(&sys);
    let insns = common::count_program(map.as_raw_fd());
    let spec = ProgSpec::new(ProgType::Tracepoint, "dt_test_tp", &insns);
    let prog = ProgFd::load(&sys, &spec).unwrap_or_else(|e| panic!("{e}"));
    // One event serves every CPU; pin ourselves elsewhere to show it.
    let cpus = online_cpus().unwrap();
    let mut ev = PerfEvent::tracepoint(&sys, id, cpus[0]).unwrap();
    ev.attach(&prog, 0).unwrap();
    for cpu in &cpus {
        pin_to(*cpu);
        let before = common::read_counter(&map);
        common::make_syscalls(50);
        let after = common::read_counter(&map);
        assert!(after >= before + 50, "cpu {cpu}: {before} -> {after}");
    }
    drop(ev);
    let stopped = common::read_counter(&map);
    common::make_syscalls(50);
    assert_eq!(common::read_counter(&map), stopped);
}

#[no_mangle]
#[inline(never)]
pub extern "C" fn dt_test_uprobe_target(x: u64) -> u64 {
    std::hint::black_box(x).wrapping_mul(3)
}

/// The executable file and file offset holding code address `addr`, from /proc/self/maps.
fn file_offset_of(addr: usize) -> Option<(std::path::PathBuf, u64)> {
    let maps = std::fs::read_to_string("/proc/self/maps").ok()?;
    for line in maps.lines() {
        let f: Vec<&str> = line.split_whitespace().collect();
        let (range, perms, off, path) = (f.first()?, f.get(1)?, f.get(2)?, f.get(5));
        let (lo, hi) = range.split_once('-')?;
        let lo = usize::from_str_radix(lo, 16).ok()?;
        let hi = usize::from_str_radix(hi, 16).ok()?;
        if (lo..hi).contains(&addr) && perms.contains('x') {
            let off = u64::from_str_radix(off, 16).ok()?;
            return Some((path?.into(), (addr - lo) as u64 + off));
        }
    }
    None
}

#[test]
fn uprobe_on_our_own_function_fires() {
    let Some((sys, f)) = common::bpf_or_skip("uprobe_on_our_own_function_fires") else {
        return;
    };
    if !f.uprobe_pmu {
        eprintln!("SKIP uprobe_on_our_own_function_fires: no uprobe PMU");
        return;
    }
    let (path, offset) = file_offset_of(dt_test_uprobe_target as *const () as usize).unwrap();
    let map = common::counter_map(&sys);
    let insns = common::count_program(map.as_raw_fd());
    let spec = ProgSpec::new(ProgType::Kprobe, "dt_test_up", &insns);
    let prog = ProgFd::load(&sys, &spec).unwrap_or_else(|e| panic!("{e}"));
    // SAFETY: gettid has no preconditions.
    let tid = unsafe { libc::syscall(libc::SYS_gettid) } as i32;
    let point = ProbePoint::User {
        path: &path,
        offset,
        ref_ctr_offset: 0,
    };
    for retprobe in [false, true] {
        let mut ev = PerfEvent::probe(&sys, &point, retprobe, tid).unwrap();
        ev.attach(&prog, 0).unwrap();
        let before = common::read_counter(&map);
        for i in 0..10 {
            std::hint::black_box(dt_test_uprobe_target(i));
        }
        let after = common::read_counter(&map);
        assert_eq!(after, before + 10, "retprobe {retprobe}");
        drop(ev);
        std::hint::black_box(dt_test_uprobe_target(1));
        assert_eq!(common::read_counter(&map), after);
    }
}
