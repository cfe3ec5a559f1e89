//! Following forks (`-x followfork`): two small programs that hold each new
//! child of a followed process before it runs any code of its own, so that
//! its uprobe links can be made first.
//!
//! - On `sched_process_fork` (in the parent, before the child is first woken):
//!   if the parent's process is followed, remember the child task (by its
//!   `task_struct` address) as pending, with the followed root it descends from.
//! - On `sys_exit` (the child's first return to user space is the end of its
//!   fork/clone): a pending task becomes followed (its process ID mapped to
//!   the root) and stops itself with `SIGSTOP`. A new thread of a followed
//!   process is already followed, and is not stopped.
//!
//! The consumer reads the followed map, attaches the child's links and sends
//! `SIGCONT`. No ptrace: the child is only stopped, as a `-c` command is.

use crate::map::{MapError, MapFd, MapSpec, MapType, UpdateFlags};
use crate::prog::{Link, ProgError, ProgFd, ProgSpec, ProgType};
use crate::sys::SysRef;
use dtrace_bpf::{helper, AluOp, Insn, JmpOp, Reg, Size};
use std::collections::BTreeSet;
use std::os::fd::AsRawFd;

/// How many processes and pending tasks the maps hold.
const MAX_FOLLOWED: u32 = 4096;

/// A jump to the end of a hand-written program, patched once its length is known.
struct Prog {
    insns: Vec<Insn>,
    to_out: Vec<usize>,
}

impl Prog {
    fn new() -> Prog {
        Prog {
            insns: Vec::new(),
            to_out: Vec::new(),
        }
    }
    fn emit(&mut self, i: Insn) {
        self.insns.push(i);
    }
    fn map(&mut self, dst: Reg, fd: i32) {
        self.insns.extend(Insn::ld_map_fd(dst, fd));
    }
    fn jmp_out(&mut self, op: JmpOp, reg: Reg, imm: i32) {
        self.to_out.push(self.insns.len());
        self.insns.push(Insn::jmp_imm(op, reg, imm, 0));
    }
    /// `return 0`, the target of every jump out.
    fn finish(mut self) -> Vec<Insn> {
        let out = self.insns.len();
        for at in self.to_out {
            if let Some(i) = self.insns.get_mut(at) {
                i.off = (out - at - 1) as i16;
            }
        }
        self.insns.push(Insn::mov64_imm(Reg::R0, 0));
        self.insns.push(Insn::exit());
        self.insns
    }
}

/// The `sched_process_fork` program (raw tracepoint: parent, child task).
pub fn fork_program(followed: i32, pending: i32) -> Vec<Insn> {
    let mut p = Prog::new();
    p.emit(Insn::mov64_reg(Reg::R6, Reg::R1));
    p.emit(Insn::call_helper(helper::GET_CURRENT_PID_TGID));
    p.emit(Insn::alu64_imm(AluOp::Rsh, Reg::R0, 32));
    p.emit(Insn::stx_mem(Size::W, Reg::FP, Reg::R0, -4));
    p.map(Reg::R1, followed);
    p.emit(Insn::mov64_reg(Reg::R2, Reg::FP));
    p.emit(Insn::alu64_imm(AluOp::Add, Reg::R2, -4));
    p.emit(Insn::call_helper(helper::MAP_LOOKUP_ELEM));
    p.jmp_out(JmpOp::Eq, Reg::R0, 0);
    p.emit(Insn::ldx_mem(Size::W, Reg::R1, Reg::R0, 0));
    p.emit(Insn::stx_mem(Size::W, Reg::FP, Reg::R1, -16));
    p.emit(Insn::ldx_mem(Size::DW, Reg::R1, Reg::R6, 8));
    p.emit(Insn::stx_mem(Size::DW, Reg::FP, Reg::R1, -24));
    p.map(Reg::R1, pending);
    p.emit(Insn::mov64_reg(Reg::R2, Reg::FP));
    p.emit(Insn::alu64_imm(AluOp::Add, Reg::R2, -24));
    p.emit(Insn::mov64_reg(Reg::R3, Reg::FP));
    p.emit(Insn::alu64_imm(AluOp::Add, Reg::R3, -16));
    p.emit(Insn::mov64_imm(Reg::R4, 0));
    p.emit(Insn::call_helper(helper::MAP_UPDATE_ELEM));
    p.finish()
}

/// The `sys_exit` program: a pending task becomes followed and stops.
pub fn exit_program(followed: i32, pending: i32) -> Vec<Insn> {
    let mut p = Prog::new();
    p.emit(Insn::call_helper(helper::GET_CURRENT_TASK));
    p.emit(Insn::stx_mem(Size::DW, Reg::FP, Reg::R0, -8));
    p.map(Reg::R1, pending);
    p.emit(Insn::mov64_reg(Reg::R2, Reg::FP));
    p.emit(Insn::alu64_imm(AluOp::Add, Reg::R2, -8));
    p.emit(Insn::call_helper(helper::MAP_LOOKUP_ELEM));
    p.jmp_out(JmpOp::Eq, Reg::R0, 0);
    p.emit(Insn::ldx_mem(Size::W, Reg::R6, Reg::R0, 0));
    p.map(Reg::R1, pending);
    p.emit(Insn::mov64_reg(Reg::R2, Reg::FP));
    p.emit(Insn::alu64_imm(AluOp::Add, Reg::R2, -8));
    p.emit(Insn::call_helper(helper::MAP_DELETE_ELEM));
    p.emit(Insn::call_helper(helper::GET_CURRENT_PID_TGID));
    p.emit(Insn::alu64_imm(AluOp::Rsh, Reg::R0, 32));
    p.emit(Insn::stx_mem(Size::W, Reg::FP, Reg::R0, -12));
    p.emit(Insn::stx_mem(Size::W, Reg::FP, Reg::R6, -16));
    p.map(Reg::R1, followed);
    p.emit(Insn::mov64_reg(Reg::R2, Reg::FP));
    p.emit(Insn::alu64_imm(AluOp::Add, Reg::R2, -12));
    p.emit(Insn::mov64_reg(Reg::R3, Reg::FP));
    p.emit(Insn::alu64_imm(AluOp::Add, Reg::R3, -16));
    p.emit(Insn::mov64_imm(Reg::R4, UpdateFlags::NoExist as i32));
    p.emit(Insn::call_helper(helper::MAP_UPDATE_ELEM));
    p.jmp_out(JmpOp::Ne, Reg::R0, 0);
    p.emit(Insn::mov64_imm(Reg::R1, libc::SIGSTOP));
    p.emit(Insn::call_helper(helper::SEND_SIGNAL));
    p.finish()
}

/// Why following could not be set up.
#[derive(Debug)]
pub enum FollowError {
    Map(MapError),
    Prog(ProgError),
}

impl std::fmt::Display for FollowError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            FollowError::Map(e) => write!(f, "{e}"),
            FollowError::Prog(e) => write!(f, "{e}"),
        }
    }
}

impl std::error::Error for FollowError {}

/// The followed processes and the programs that find new ones; detached on drop.
pub struct Follower {
    followed: MapFd,
    /// Processes already handed out by [`Follower::new_children`].
    known: BTreeSet<u32>,
    _links: Vec<Link>,
    _progs: Vec<ProgFd>,
    _pending: MapFd,
}

impl Follower {
    /// Follow `roots` (each its own root) and, from now on, their descendants.
    pub fn start(sys: &SysRef, roots: &[u32]) -> Result<Follower, FollowError> {
        let spec = |name: &str, key_size| MapSpec {
            name: name.to_string(),
            map_type: MapType::Hash,
            key_size,
            value_size: 4,
            max_entries: MAX_FOLLOWED,
            flags: 0,
        };
        let followed = MapFd::create(sys, &spec("dt_followed", 4)).map_err(FollowError::Map)?;
        let pending = MapFd::create(sys, &spec("dt_fork_pending", 8)).map_err(FollowError::Map)?;
        for r in roots {
            followed
                .update(&r.to_ne_bytes(), &r.to_ne_bytes(), UpdateFlags::Any)
                .map_err(FollowError::Map)?;
        }
        let (f, pd) = (followed.as_raw_fd(), pending.as_raw_fd());
        let mut progs = Vec::new();
        let mut links = Vec::new();
        for (name, tp, insns) in [
            ("dtrace_fork", "sched_process_fork", fork_program(f, pd)),
            ("dtrace_forked", "sys_exit", exit_program(f, pd)),
        ] {
            let spec = ProgSpec::new(ProgType::RawTracepoint, name, &insns);
            let prog = ProgFd::load(sys, &spec).map_err(FollowError::Prog)?;
            links.push(prog.attach_raw_tp(tp).map_err(FollowError::Prog)?);
            progs.push(prog);
        }
        Ok(Follower {
            followed,
            known: roots.iter().copied().collect(),
            _links: links,
            _progs: progs,
            _pending: pending,
        })
    }

    /// Processes that began to be followed since the last call, each with
    /// its root: they are stopped, waiting for [`Follower::resume`].
    pub fn new_children(&mut self) -> Vec<(u32, u32)> {
        let Ok(entries) = self.followed.entries() else {
            return Vec::new();
        };
        let mut out = Vec::new();
        for (key, value) in entries {
            let (Ok(k), Ok(v)) = (
                <[u8; 4]>::try_from(key.as_slice()),
                <[u8; 4]>::try_from(value.get(..4).unwrap_or(&[])),
            ) else {
                continue;
            };
            let (pid, root) = (u32::from_ne_bytes(k), u32::from_ne_bytes(v));
            if self.known.insert(pid) {
                out.push((pid, root));
            }
        }
        out
    }

    /// Let a child found by [`Follower::new_children`] run.
    pub fn resume(pid: u32) {
        crate::proc::resume_pid(pid);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn jumps_out_land_on_the_return() {
        for prog in [fork_program(3, 4), exit_program(3, 4)] {
            let n = prog.len();
            assert_eq!(prog[n - 1], Insn::exit());
            for (at, i) in prog.iter().enumerate() {
                let conditional = i.code & 0x07 == 0x05 && !matches!(i.code & 0xf0, 0x80 | 0x90);
                if conditional {
                    assert_eq!(
                        at as i64 + 1 + i64::from(i.off),
                        n as i64 - 2,
                        "jump at {at}"
                    );
                }
            }
        }
    }

    #[test]
    fn the_exit_program_stops_only_after_claiming_the_process() {
        let p = exit_program(3, 4);
        let stop = p
            .iter()
            .position(|i| *i == Insn::call_helper(helper::SEND_SIGNAL));
        let claim = p
            .iter()
            .rposition(|i| *i == Insn::call_helper(helper::MAP_UPDATE_ELEM));
        assert!(matches!((claim, stop), (Some(c), Some(s)) if c < s));
    }
}
