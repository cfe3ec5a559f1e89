//! Lock waits for the `lockstat` probes built on the kernel's contention
//! tracepoints: `contention_begin(lock, flags)` fires as a thread starts to
//! wait for a lock (again, with other flags, when a mutex waiter goes from
//! spinning to sleeping), `contention_end(lock, ret)` when it has the lock or
//! gave up. DTrace's contention probes fire at the end with the time waited,
//! so a companion program on `contention_begin` ([`begin`]) keeps, per thread
//! and lock, when the wait began and how (the `LCB_F_*` flags, or'd, with
//! [`LOCK_SLEPT`] once the waiter blocked); the `contention_end` program takes
//! that entry out ([`take`]) before its probes test and read it
//! (`Src::LockWait`, `Src::LockFlags`, `Src::LockReader`).

use super::{epilogue, state_check, CTX};
use crate::asm::{Asm, Label};
use crate::layout::Layout;
use dtrace_bpf::{helper, AluOp, Insn, JmpOp, Reg, Size};
use dtrace_sema::LOCK_SLEPT;

/// `LCB_F_SPIN`: the waiter spins.
const LCB_F_SPIN: i32 = 1;
/// `LCB_F_READ`: the waiter wants a read lock.
const LCB_F_READ: i32 = 2;
/// `BPF_NOEXIST`.
const NOEXIST: i32 = 1;

/// Frame slots: the map key {pid_tgid, lock} and, once taken, the time waited
/// and the flags (read by `rawsdt`'s loaders).
const KEY: i16 = -48;
pub const WAITED: i16 = -24;
pub const FLAGS: i16 = -32;
/// The value a new entry is made from: {time, flags}.
const NEW: i16 = -64;

/// KEY = {the current thread, raw argument 0 (the lock)}. A thread is its
/// pid_tgid, except the idle threads (all pid_tgid 0): their CPU + 1 above
/// any pid_tgid (tgid < 2^22).
fn key(a: &mut Asm) {
    let task = a.label();
    a.call_helper(helper::GET_CURRENT_PID_TGID);
    a.jmp_imm(JmpOp::Ne, Reg::R0, 0, task);
    a.call_helper(helper::GET_SMP_PROCESSOR_ID);
    a.emit(Insn::alu64_imm(AluOp::Add, Reg::R0, 1));
    a.emit(Insn::alu64_imm(AluOp::Lsh, Reg::R0, 56));
    a.bind(task);
    a.emit(Insn::stx_mem(Size::DW, Reg::FP, Reg::R0, KEY));
    a.emit(Insn::ldx_mem(Size::DW, Reg::R1, CTX, 0));
    a.emit(Insn::stx_mem(Size::DW, Reg::FP, Reg::R1, KEY + 8));
}

/// r1 = map, r2 = &KEY.
fn map_key(a: &mut Asm, map: usize) {
    a.ld_map(Reg::R1, map);
    a.emit(Insn::mov64_reg(Reg::R2, Reg::FP));
    a.emit(Insn::alu64_imm(AluOp::Add, Reg::R2, KEY as i32));
}

/// The `contention_begin` program: start (or mark) this thread's wait.
pub fn begin(l: &Layout, map: usize) -> Asm {
    let mut a = Asm::new();
    let out = a.label();
    let add = a.label();
    a.emit(Insn::mov64_reg(CTX, Reg::R1));
    state_check(&mut a, l, out);
    key(&mut a);
    // r7 = flags, with LOCK_SLEPT unless the waiter spins.
    a.emit(Insn::ldx_mem(Size::DW, Reg::R7, CTX, 8));
    a.emit(Insn::mov32_reg(Reg::R7, Reg::R7));
    let spins = a.label();
    a.jmp_imm(JmpOp::Set, Reg::R7, LCB_F_SPIN, spins);
    a.emit(Insn::alu64_imm(AluOp::Or, Reg::R7, LOCK_SLEPT));
    a.bind(spins);
    map_key(&mut a, map);
    a.call_helper(helper::MAP_LOOKUP_ELEM);
    a.jmp_imm(JmpOp::Eq, Reg::R0, 0, add);
    a.emit(Insn::ldx_mem(Size::DW, Reg::R1, Reg::R0, 8));
    a.emit(Insn::alu64_reg(AluOp::Or, Reg::R1, Reg::R7));
    a.emit(Insn::stx_mem(Size::DW, Reg::R0, Reg::R1, 8));
    a.ja(out);
    a.bind(add);
    a.call_helper(helper::KTIME_GET_NS);
    a.emit(Insn::stx_mem(Size::DW, Reg::FP, Reg::R0, NEW));
    a.emit(Insn::stx_mem(Size::DW, Reg::FP, Reg::R7, NEW + 8));
    map_key(&mut a, map);
    a.emit(Insn::mov64_reg(Reg::R3, Reg::FP));
    a.emit(Insn::alu64_imm(AluOp::Add, Reg::R3, NEW as i32));
    a.emit(Insn::mov64_imm(Reg::R4, NOEXIST));
    a.call_helper(helper::MAP_UPDATE_ELEM);
    epilogue(&mut a, out);
    a.finish()
}

/// In the `contention_end` program (CTX set): take this thread's wait for the
/// lock out of the map into WAITED (ns since it began) and FLAGS; without one
/// (the wait began before tracing did) go to `out`.
pub fn take(a: &mut Asm, map: usize, out: Label) {
    key(a);
    map_key(a, map);
    a.call_helper(helper::MAP_LOOKUP_ELEM);
    a.jmp_imm(JmpOp::Eq, Reg::R0, 0, out);
    a.emit(Insn::ldx_mem(Size::DW, Reg::R1, Reg::R0, 0));
    a.emit(Insn::stx_mem(Size::DW, Reg::FP, Reg::R1, WAITED));
    a.emit(Insn::ldx_mem(Size::DW, Reg::R1, Reg::R0, 8));
    a.emit(Insn::stx_mem(Size::DW, Reg::FP, Reg::R1, FLAGS));
    map_key(a, map);
    a.call_helper(helper::MAP_DELETE_ELEM);
    a.call_helper(helper::KTIME_GET_NS);
    a.emit(Insn::ldx_mem(Size::DW, Reg::R1, Reg::FP, WAITED));
    a.emit(Insn::alu64_reg(AluOp::Sub, Reg::R0, Reg::R1));
    a.emit(Insn::stx_mem(Size::DW, Reg::FP, Reg::R0, WAITED));
}

/// r1 = 1 when the wait in FLAGS was for a read lock, else 0.
pub fn reader(a: &mut Asm) {
    a.emit(Insn::ldx_mem(Size::DW, Reg::R1, Reg::FP, FLAGS));
    a.emit(Insn::alu64_imm(AluOp::Rsh, Reg::R1, 1));
    a.emit(Insn::alu64_imm(AluOp::And, Reg::R1, LCB_F_READ >> 1));
}
