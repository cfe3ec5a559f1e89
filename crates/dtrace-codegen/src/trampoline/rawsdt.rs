//! Raw-tracepoint trampolines of the SDT providers built on kernel tracepoints
//! (`proc`, `sched`, `io`): one program per raw tracepoint serves every probe
//! mapped to it. For each probe in turn it tests the probe's pre-condition
//! ([`Prep`]: syscall number, tests on the tracepoint's arguments), fills the
//! native arguments, and calls that probe's clauses.
//!
//! The context is the raw tracepoint's `u64 args[]`; for `sys_enter`/`sys_exit`
//! argument 0 is the `pt_regs` of the system call (x86_64 offsets below) and
//! argument 1 the syscall number (enter) or return value (exit). At
//! `contention_end` the lock wait is taken out of its map first (`lockwait`).

use super::{cpu_check, dctx_lookup, dispatch, epilogue, set_probe, state_check, Dispatch};
use super::{lockwait, CTX, DC, ENTRY};
use crate::asm::{Asm, Label};
use crate::layout::{self, Layout};
use dtrace_bpf::{helper, AluOp, Insn, JmpOp, Reg, Size};
use dtrace_sema::{Cmp, KernelOffsets, Prep, Src};

/// x86_64 `struct pt_regs` offsets of the syscall arguments (di, si, dx, r10,
/// r8, r9) and of `orig_ax` (the syscall number).
const PT_ARGS: [i32; 6] = [112, 104, 96, 56, 72, 64];
const PT_ORIG_AX: i32 = 120;
/// The frame slot helpers read into.
const FP_TMP: i16 = -16;

/// The raw tracepoint where a lock wait ends (`lockstat`'s contention probes).
pub const LOCK_END: &str = "contention_end";
/// The raw tracepoint where one begins.
pub const LOCK_BEGIN: &str = "contention_begin";

/// SIGKILL's number.
const SIGKILL: i32 = 9;
/// `execveat`'s number: its path is the second argument.
const NR_EXECVEAT: i32 = 322;

/// One probe served by the program: its id, its probe-name index, how it is
/// presented, and its clauses.
pub struct Served {
    pub id: u32,
    pub index: u32,
    pub prep: Prep,
    pub clauses: Dispatch,
}

/// What the clauses of a program need of its trampoline.
#[derive(Debug, Clone, Copy)]
pub struct Needs {
    /// Some clause reads `args[]`/`argN`: fill them.
    pub args: bool,
    /// Some clause uses dctx (`ClauseCode::uses_dctx`): look it up and set
    /// the probe ID, index, errno and timestamp words. Without it the clauses
    /// get a null dctx they never touch (nor can they fault: a fault is
    /// written to dctx), and a firing touches no dctx cache line.
    pub dctx: bool,
}

pub fn build(l: &Layout, tp: &str, probes: &[Served], needs: Needs, k: KernelOffsets) -> Asm {
    let args = needs.args;
    let mut a = Asm::new();
    let out = a.label();
    let syscall = match tp {
        "sys_enter" => Some(false),
        "sys_exit" => Some(true),
        _ => None,
    };
    a.emit(Insn::mov64_reg(CTX, Reg::R1));
    // The lock wait ends here whether or not a probe fires: take it first.
    if let (LOCK_END, Some(map)) = (tp, l.lockwait) {
        lockwait::take(&mut a, map, out);
    }
    state_check(&mut a, l, out);
    cpu_check(&mut a, l, out);
    if needs.dctx {
        dctx_lookup(&mut a, l, out);
    } else {
        a.emit(Insn::mov64_imm(DC, 0));
    }
    if let Some(exit) = syscall {
        // ENTRY holds the syscall number for the whole program.
        if exit {
            read_kernel(&mut a, 8, |a| {
                a.emit(Insn::ldx_mem(Size::DW, Reg::R3, CTX, 0));
                a.emit(Insn::alu64_imm(AluOp::Add, Reg::R3, PT_ORIG_AX));
            });
            a.emit(Insn::ldx_mem(Size::DW, ENTRY, Reg::FP, FP_TMP));
        } else {
            a.emit(Insn::ldx_mem(Size::DW, ENTRY, CTX, 8));
        }
    }
    for (i, p) in probes.iter().enumerate() {
        let next = a.label();
        if i > 0 {
            state_check(&mut a, l, out);
        }
        if syscall.is_some() && !p.prep.syscalls.is_empty() {
            let ok = a.label();
            for nr in p.prep.syscalls {
                a.jmp_imm(JmpOp::Eq, ENTRY, *nr as i32, ok);
            }
            a.ja(next);
            a.bind(ok);
        }
        for t in p.prep.tests {
            load(&mut a, t.value, k);
            match t.op {
                Cmp::Eq => a.jmp_imm(JmpOp::Ne, Reg::R1, t.imm, next),
                Cmp::Ne => a.jmp_imm(JmpOp::Eq, Reg::R1, t.imm, next),
                Cmp::Gt => a.jmp_imm(JmpOp::Sle, Reg::R1, t.imm, next),
                Cmp::Clear => a.jmp_imm(JmpOp::Set, Reg::R1, t.imm, next),
                Cmp::Set => {
                    a.emit(Insn::alu64_imm(AluOp::And, Reg::R1, t.imm));
                    a.jmp_imm(JmpOp::Eq, Reg::R1, 0, next);
                }
            }
        }
        if needs.dctx {
            set_probe(&mut a, p.id, p.index);
        }
        if args {
            super::zero_args(&mut a);
            for (n, src) in p.prep.args.iter().take(10).enumerate() {
                load(&mut a, *src, k);
                a.emit(Insn::stx_mem(
                    Size::DW,
                    DC,
                    Reg::R1,
                    layout::D_ARGS + 8 * n as i16,
                ));
            }
        }
        dispatch(&mut a, &p.clauses, Some((l, out)));
        a.bind(next);
    }
    epilogue(&mut a, out);
    a.finish()
}

/// `bpf_probe_read_kernel(fp + FP_TMP, size, r3)` (zero on failure) where
/// `addr` leaves the source address in r3 (it may read `fp + FP_TMP`).
fn read_kernel(a: &mut Asm, size: i32, addr: impl FnOnce(&mut Asm)) {
    addr(a);
    a.emit(Insn::st_mem(Size::DW, Reg::FP, FP_TMP, 0));
    a.emit(Insn::mov64_reg(Reg::R1, Reg::FP));
    a.emit(Insn::alu64_imm(AluOp::Add, Reg::R1, FP_TMP as i32));
    a.emit(Insn::mov64_imm(Reg::R2, size));
    a.call_helper(helper::PROBE_READ_KERNEL);
}

/// r1 = the value `src` names (clobbers r0-r5).
fn load(a: &mut Asm, src: Src, k: KernelOffsets) {
    match src {
        Src::Raw(i) => a.emit(Insn::ldx_mem(Size::DW, Reg::R1, CTX, 8 * i16::from(i))),
        Src::RawInt(i) => {
            a.emit(Insn::ldx_mem(Size::DW, Reg::R1, CTX, 8 * i16::from(i)));
            a.emit(Insn::alu64_imm(AluOp::Lsh, Reg::R1, 32));
            a.emit(Insn::alu64_imm(AluOp::Arsh, Reg::R1, 32));
        }
        Src::Deref(i) => {
            read_kernel(a, 8, |a| {
                a.emit(Insn::ldx_mem(Size::DW, Reg::R3, CTX, 8 * i16::from(i)))
            });
            a.emit(Insn::ldx_mem(Size::DW, Reg::R1, Reg::FP, FP_TMP));
        }
        Src::SysArg(i) => sys_arg(a, usize::from(i)),
        Src::ExecPath => {
            let at = a.label();
            let done = a.label();
            a.jmp_imm(JmpOp::Eq, ENTRY, NR_EXECVEAT, at);
            sys_arg(a, 0);
            a.ja(done);
            a.bind(at);
            sys_arg(a, 1);
            a.bind(done);
        }
        Src::NegRet => {
            a.emit(Insn::ldx_mem(Size::DW, Reg::R1, CTX, 8));
            a.emit(Insn::neg64(Reg::R1));
        }
        Src::CurTask => {
            a.call_helper(helper::GET_CURRENT_TASK);
            a.emit(Insn::mov64_reg(Reg::R1, Reg::R0));
        }
        Src::NotLeader => {
            let same = a.label();
            a.call_helper(helper::GET_CURRENT_PID_TGID);
            a.emit(Insn::mov64_reg(Reg::R2, Reg::R0));
            a.emit(Insn::alu64_imm(AluOp::Rsh, Reg::R2, 32));
            a.emit(Insn::mov32_reg(Reg::R0, Reg::R0));
            a.emit(Insn::mov64_imm(Reg::R1, 0));
            a.jmp_reg(JmpOp::Eq, Reg::R0, Reg::R2, same);
            a.emit(Insn::mov64_imm(Reg::R1, 1));
            a.bind(same);
        }
        Src::ExitReason => exit_reason(a, k),
        Src::DeliveredSignal => delivered_signal(a, k),
        Src::LockWait => a.emit(Insn::ldx_mem(Size::DW, Reg::R1, Reg::FP, lockwait::WAITED)),
        Src::LockFlags => a.emit(Insn::ldx_mem(Size::DW, Reg::R1, Reg::FP, lockwait::FLAGS)),
        Src::LockReader => lockwait::reader(a),
        Src::Zero => a.emit(Insn::mov64_imm(Reg::R1, 0)),
    }
}

/// r1 = system-call argument `i`, read from the `pt_regs` in raw argument 0.
fn sys_arg(a: &mut Asm, i: usize) {
    let off = PT_ARGS.get(i).copied().unwrap_or(PT_ARGS[0]);
    read_kernel(a, 8, |a| {
        a.emit(Insn::ldx_mem(Size::DW, Reg::R3, CTX, 0));
        a.emit(Insn::alu64_imm(AluOp::Add, Reg::R3, off));
    });
    a.emit(Insn::ldx_mem(Size::DW, Reg::R1, Reg::FP, FP_TMP));
}

/// r1 = the signal `signal_deliver` acts on (see [`Src::DeliveredSignal`]).
fn delivered_signal(a: &mut Asm, k: KernelOffsets) {
    let done = a.label();
    a.emit(Insn::ldx_mem(Size::DW, Reg::R1, CTX, 0));
    a.jmp_imm(JmpOp::Ne, Reg::R1, SIGKILL, done);
    a.emit(Insn::ldx_mem(Size::DW, Reg::R2, CTX, 8));
    a.jmp_imm(JmpOp::Ne, Reg::R2, 0, done);
    // current->signal->group_exit_code & 0x7f
    a.call_helper(helper::GET_CURRENT_TASK);
    read_kernel(a, 8, |a| {
        a.emit(Insn::mov64_reg(Reg::R3, Reg::R0));
        a.emit(Insn::alu64_imm(AluOp::Add, Reg::R3, k.task_signal as i32));
    });
    read_kernel(a, 4, |a| {
        a.emit(Insn::ldx_mem(Size::DW, Reg::R3, Reg::FP, FP_TMP));
        a.emit(Insn::alu64_imm(
            AluOp::Add,
            Reg::R3,
            k.signal_group_exit_code as i32,
        ));
    });
    a.emit(Insn::ldx_mem(Size::W, Reg::R1, Reg::FP, FP_TMP));
    a.emit(Insn::alu64_imm(AluOp::And, Reg::R1, 0x7f));
    a.bind(done);
}

/// r1 = CLD_EXITED (1) when the current task's exit code has no signal in its
/// low 7 bits, CLD_DUMPED (3) when it has the core-dump bit (0x80), else
/// CLD_KILLED (2).
fn exit_reason(a: &mut Asm, k: KernelOffsets) {
    let done: Label = a.label();
    a.call_helper(helper::GET_CURRENT_TASK);
    read_kernel(a, 4, |a| {
        a.emit(Insn::mov64_reg(Reg::R3, Reg::R0));
        a.emit(Insn::alu64_imm(
            AluOp::Add,
            Reg::R3,
            k.task_exit_code as i32,
        ));
    });
    a.emit(Insn::ldx_mem(Size::W, Reg::R2, Reg::FP, FP_TMP));
    a.emit(Insn::mov64_imm(Reg::R1, 1));
    a.emit(Insn::mov64_reg(Reg::R3, Reg::R2));
    a.emit(Insn::alu64_imm(AluOp::And, Reg::R3, 0x7f));
    a.jmp_imm(JmpOp::Eq, Reg::R3, 0, done);
    a.emit(Insn::mov64_imm(Reg::R1, 3));
    a.jmp_imm(JmpOp::Set, Reg::R2, 0x80, done);
    a.emit(Insn::mov64_imm(Reg::R1, 2));
    a.bind(done);
}
