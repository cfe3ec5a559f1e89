//! A raw-tracepoint program writes to a ring buffer under BPF_PROG_TEST_RUN; we read
//! the records back.
mod common;

use dtrace_bpf::{helper, AluOp, Insn, JmpOp, Reg, Size};
use dtrace_sys::{MapFd, MapSpec, ProgFd, ProgSpec, ProgType, RingBuf};
use std::os::fd::AsRawFd;
use std::time::Duration;

/// Emit {args[0], args[1]} with ringbuf_output, map by fd_array index 0; return 5.
fn output_program() -> Vec<Insn> {
    let mut p = vec![
        Insn::mov64_reg(Reg::R6, Reg::R1),
        Insn::ldx_mem(Size::DW, Reg::R1, Reg::R6, 0),
        Insn::stx_mem(Size::DW, Reg::FP, Reg::R1, -16),
        Insn::ldx_mem(Size::DW, Reg::R1, Reg::R6, 8),
        Insn::stx_mem(Size::DW, Reg::FP, Reg::R1, -8),
    ];
    p.extend(Insn::ld_map_idx(Reg::R1, 0));
    p.extend([
        Insn::mov64_reg(Reg::R2, Reg::FP),
        Insn::alu64_imm(AluOp::Add, Reg::R2, -16),
        Insn::mov64_imm(Reg::R3, 16),
        Insn::mov64_imm(Reg::R4, 0),
        Insn::call_helper(helper::RINGBUF_OUTPUT),
        Insn::mov64_imm(Reg::R0, 5),
        Insn::exit(),
    ]);
    p
}

/// Reserve 8 bytes and discard them, then reserve 8, store args[0] and submit.
fn discard_program(ringbuf_fd: i32) -> Vec<Insn> {
    let mut p = vec![Insn::mov64_reg(Reg::R6, Reg::R1)];
    for keep in [false, true] {
        p.extend(Insn::ld_map_fd(Reg::R1, ringbuf_fd));
        p.extend([
            Insn::mov64_imm(Reg::R2, 8),
            Insn::mov64_imm(Reg::R3, 0),
            Insn::call_helper(helper::RINGBUF_RESERVE),
            Insn::jmp_imm(JmpOp::Eq, Reg::R0, 0, 5),
            Insn::ldx_mem(Size::DW, Reg::R2, Reg::R6, 0),
            Insn::stx_mem(Size::DW, Reg::R0, Reg::R2, 0),
            Insn::mov64_reg(Reg::R1, Reg::R0),
            Insn::mov64_imm(Reg::R2, 0),
            Insn::call_helper(if keep {
                helper::RINGBUF_SUBMIT
            } else {
                helper::RINGBUF_DISCARD
            }),
        ]);
    }
    p.extend([Insn::mov64_imm(Reg::R0, 0), Insn::exit()]);
    p
}

#[test]
fn test_run_writes_records_we_read_back() {
    let Some((sys, _)) = common::bpf_or_skip("test_run_writes_records_we_read_back") else {
        return;
    };
    let map = MapFd::create(&sys, &MapSpec::ringbuf("dt_test_rb", 1 << 16)).unwrap();
    let mut rb = RingBuf::new(&map).unwrap();
    let insns = output_program();
    let fds = [map.as_raw_fd()];
    let mut spec = ProgSpec::new(ProgType::RawTracepoint, "dt_test_out", &insns);
    spec.fd_array = &fds;
    let prog = ProgFd::load(&sys, &spec).unwrap_or_else(|e| panic!("{e}"));

    assert_eq!(rb.poll(|_| panic!("empty")).unwrap(), 0);
    for i in 0..3000u64 {
        // 3000 records * 24 bytes wraps the 64 KiB ring once.
        assert_eq!(prog.test_run_raw_tp(&[i, 0xdead_beef], None).unwrap(), 5);
        if i % 1000 == 999 {
            let mut seen = Vec::new();
            let n = rb
                .poll(|r| {
                    assert_eq!(r.len(), 16);
                    seen.push(u64::from_ne_bytes(r[..8].try_into().unwrap()));
                    assert_eq!(&r[8..], &0xdead_beefu64.to_ne_bytes());
                })
                .unwrap();
            assert_eq!(n, 1000);
            assert_eq!(seen, (i - 999..=i).collect::<Vec<_>>());
        }
    }
    assert_eq!(rb.pending(), 0);
    prog.test_run_raw_tp(&[1, 2], Some(0)).unwrap();
    assert!(rb.wait(Some(Duration::from_millis(1000))).unwrap());
    assert_eq!(rb.poll(|_| {}).unwrap(), 1);
}

#[test]
fn discarded_records_are_skipped() {
    let Some((sys, _)) = common::bpf_or_skip("discarded_records_are_skipped") else {
        return;
    };
    let map = MapFd::create(&sys, &MapSpec::ringbuf("dt_test_rb2", 4096)).unwrap();
    let mut rb = RingBuf::new(&map).unwrap();
    let insns = discard_program(map.as_raw_fd());
    let spec = ProgSpec::new(ProgType::RawTracepoint, "dt_test_disc", &insns);
    let prog = ProgFd::load(&sys, &spec).unwrap_or_else(|e| panic!("{e}"));
    prog.test_run_raw_tp(&[77], None).unwrap();
    let mut got = Vec::new();
    assert_eq!(rb.poll(|r| got.push(r.to_vec())).unwrap(), 1);
    assert_eq!(got, vec![77u64.to_ne_bytes().to_vec()]);
    assert_eq!(rb.pending(), 0);
}

/// Every syscall on the machine emits its pid_tgid while two pinned threads make
/// many syscalls and the test thread reads concurrently.
#[test]
fn concurrent_producers_on_every_cpu() {
    let Some((sys, _)) = common::bpf_or_skip("concurrent_producers_on_every_cpu") else {
        return;
    };
    let map = MapFd::create(&sys, &MapSpec::ringbuf("dt_test_rb3", 1 << 22)).unwrap();
    let mut rb = RingBuf::new(&map).unwrap();
    let mut insns = vec![
        Insn::call_helper(helper::GET_CURRENT_PID_TGID),
        Insn::stx_mem(Size::DW, Reg::FP, Reg::R0, -8),
    ];
    insns.extend(Insn::ld_map_fd(Reg::R1, map.as_raw_fd()));
    insns.extend([
        Insn::mov64_reg(Reg::R2, Reg::FP),
        Insn::alu64_imm(AluOp::Add, Reg::R2, -8),
        Insn::mov64_imm(Reg::R3, 8),
        Insn::mov64_imm(Reg::R4, 0),
        Insn::call_helper(helper::RINGBUF_OUTPUT),
        Insn::mov64_imm(Reg::R0, 0),
        Insn::exit(),
    ]);
    let spec = ProgSpec::new(ProgType::RawTracepoint, "dt_test_rb3", &insns);
    let prog = ProgFd::load(&sys, &spec).unwrap_or_else(|e| panic!("{e}"));
    let tgid = std::process::id() as u64;
    let cpus = dtrace_sys::cpu::online_cpus().unwrap();
    const PER_THREAD: usize = 20_000;

    let link = prog.attach_raw_tp("sys_enter").unwrap();
    let workers: Vec<_> = cpus
        .iter()
        .take(2)
        .map(|&cpu| {
            std::thread::spawn(move || {
                // SAFETY: a zeroed cpu_set_t is a valid empty set; CPU_SET stays in
                // bounds for small cpu numbers; the set is only read by the call.
                unsafe {
                    let mut set: libc::cpu_set_t = std::mem::zeroed();
                    libc::CPU_SET(cpu as usize, &mut set);
                    libc::sched_setaffinity(0, std::mem::size_of::<libc::cpu_set_t>(), &set);
                }
                common::make_syscalls(PER_THREAD);
            })
        })
        .collect();
    let mut ours = 0usize;
    let mut total = 0usize;
    let mut read = |rb: &mut RingBuf| {
        rb.poll(|r| {
            assert_eq!(r.len(), 8);
            total += 1;
            if u64::from_ne_bytes(r.try_into().unwrap()) >> 32 == tgid {
                ours += 1;
            }
        })
        .unwrap()
    };
    while workers.iter().any(|w| !w.is_finished()) {
        rb.wait(Some(Duration::from_millis(10))).unwrap();
        read(&mut rb);
    }
    for w in workers {
        w.join().unwrap();
    }
    drop(link);
    read(&mut rb);
    assert_eq!(rb.pending(), 0);
    let want = PER_THREAD * cpus.len().min(2);
    assert!(
        ours >= want,
        "read {ours} of our records, want >= {want} ({total} total)"
    );
}
