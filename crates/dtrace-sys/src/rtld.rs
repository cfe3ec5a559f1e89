//! Watching the dynamic linker: a uprobe on ld.so's `_dl_debug_state`, the
//! function glibc calls for debuggers (the `r_debug.r_brk` rendezvous) each
//! time its list of loaded objects changes: once at start-up, after the
//! needed libraries are mapped and before any of their code runs, and twice
//! per `dlopen`/`dlclose` (while the list changes, then once it is
//! consistent again).
//!
//! When the list is consistent (`r_debug.r_state == RT_CONSISTENT`), the
//! program reports the process ID in a small ring buffer and stops the
//! process with `SIGSTOP` (no ptrace), so that the session can read its new
//! objects and attach their probes before the objects' code runs; the
//! session then resumes it ([`RtldWatch::resume`]). Only processes
//! watched by ID are stopped, and a guard process resumes them if dtrace
//! dies without doing so ([`Guard`]); a watch on every process only
//! reports. Nothing runs between
//! those events: the watch costs nothing while no object comes or goes.
//!
//! The link's cookie is the distance from `_dl_debug_state` to
//! `_r_debug.r_state` in ld.so, so the program finds the state from the
//! probe's address (`bpf_get_func_ip`) in any process, wherever ld.so is
//! loaded.

use crate::map::{MapError, MapFd, MapSpec, MapType};
use crate::prog::{AttachType, Link, ProgFd, ProgSpec, ProgType};
use crate::ringbuf::RingBuf;
use crate::sys::{Errno, SysRef};
use crate::uprobe::{attach_multi, UprobeError, UprobePoint};
use dtrace_bpf::{helper, AluOp, Insn, JmpOp, Reg, Size};
use std::collections::BTreeSet;
use std::os::fd::{AsFd, AsRawFd, BorrowedFd, FromRawFd, OwnedFd};
use std::path::PathBuf;

/// `r_debug.r_state` when the object list is consistent.
const RT_CONSISTENT: i32 = 0;

/// Bytes of the ring buffer of reports (each 16 bytes with its header).
const REPORTS: u32 = 1 << 16;

/// Where the dynamic linker's rendezvous is, in one ld.so file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Rendezvous {
    pub path: PathBuf,
    /// File offset of `_dl_debug_state`.
    pub offset: u64,
    /// Address of `_r_debug.r_state` minus that of `_dl_debug_state`.
    pub state_delta: i64,
}

/// Whether a reporting process is stopped.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Stop {
    Never,
    Always,
    /// Only a descendant of process `pid` (within [`ANCESTORS`]
    /// generations): dtrace's own `system()` commands and what they start.
    /// `real_parent` and `tgid` are their offsets in `struct task_struct`.
    Progeny {
        pid: u32,
        real_parent: u32,
        tgid: u32,
    },
}

/// How many generations up [`Stop::Progeny`] looks for its process.
pub const ANCESTORS: usize = 8;

/// Copy `size` bytes at offset `field` of the task in r6 to the stack slot at
/// `fp + slot` (r0 is the helper's result).
fn read_task_field(p: &mut Vec<Insn>, slot: i32, size: i32, field: u32) {
    p.extend([
        Insn::mov64_reg(Reg::R1, Reg::FP),
        Insn::alu64_imm(AluOp::Add, Reg::R1, slot),
        Insn::mov64_imm(Reg::R2, size),
        Insn::mov64_reg(Reg::R3, Reg::R6),
        Insn::alu64_imm(AluOp::Add, Reg::R3, field as i32),
        Insn::call_helper(helper::PROBE_READ_KERNEL),
    ]);
}

/// Set r9 to 1, and the report at fp-16 to stopped, if the current task
/// descends from process `pid` within [`ANCESTORS`] generations (r6 is
/// clobbered).
fn progeny_check(p: &mut Vec<Insn>, pid: u32, real_parent: u32, tgid: u32) {
    p.push(Insn::mov64_imm(Reg::R9, 0));
    p.push(Insn::call_helper(helper::GET_CURRENT_TASK));
    p.push(Insn::mov64_reg(Reg::R6, Reg::R0));
    let mut done = Vec::new();
    let mut found = Vec::new();
    for _ in 0..ANCESTORS {
        // r6 = r6->real_parent
        read_task_field(p, -24, 8, real_parent);
        done.push(p.len());
        p.push(Insn::jmp_imm(JmpOp::Ne, Reg::R0, 0, 0));
        p.push(Insn::ldx_mem(Size::DW, Reg::R6, Reg::FP, -24));
        done.push(p.len());
        p.push(Insn::jmp_imm(JmpOp::Eq, Reg::R6, 0, 0));
        // its tgid
        read_task_field(p, -32, 4, tgid);
        done.push(p.len());
        p.push(Insn::jmp_imm(JmpOp::Ne, Reg::R0, 0, 0));
        p.push(Insn::ldx_mem(Size::W, Reg::R1, Reg::FP, -32));
        found.push(p.len());
        p.push(Insn::jmp_imm(JmpOp::Eq, Reg::R1, pid as i32, 0));
    }
    done.push(p.len());
    p.push(Insn::ja(0));
    let mark = p.len();
    p.push(Insn::mov64_imm(Reg::R9, 1));
    p.push(Insn::ldx_mem(Size::DW, Reg::R1, Reg::FP, -16));
    p.push(Insn::mov64_imm(Reg::R2, 1));
    p.push(Insn::alu64_imm(AluOp::Lsh, Reg::R2, 32));
    p.push(Insn::alu64_reg(AluOp::Or, Reg::R1, Reg::R2));
    p.push(Insn::stx_mem(Size::DW, Reg::FP, Reg::R1, -16));
    let end = p.len();
    for at in done {
        if let Some(i) = p.get_mut(at) {
            i.off = (end - at - 1) as i16;
        }
    }
    for at in found {
        if let Some(i) = p.get_mut(at) {
            i.off = (mark - at - 1) as i16;
        }
    }
}

/// The program: report (and as `stop` says, stop) the process when its
/// object list is consistent. `reports` is the file descriptor of the ring
/// buffer.
pub fn rtld_program(reports: i32, stop: Stop) -> Vec<Insn> {
    let mut p = vec![
        Insn::mov64_reg(Reg::R6, Reg::R1),
        Insn::call_helper(helper::GET_FUNC_IP),
        Insn::mov64_reg(Reg::R7, Reg::R0),
        Insn::mov64_reg(Reg::R1, Reg::R6),
        Insn::call_helper(helper::GET_ATTACH_COOKIE),
        Insn::mov64_reg(Reg::R3, Reg::R7),
        Insn::alu64_reg(AluOp::Add, Reg::R3, Reg::R0),
        Insn::st_mem(Size::DW, Reg::FP, -8, 0),
        Insn::mov64_reg(Reg::R1, Reg::FP),
        Insn::alu64_imm(AluOp::Add, Reg::R1, -8),
        Insn::mov64_imm(Reg::R2, 4),
        Insn::call_helper(helper::PROBE_READ_USER),
    ];
    // Jumps to the final `return 0`, patched below.
    let mut outs = vec![p.len()];
    p.push(Insn::jmp_imm(JmpOp::Ne, Reg::R0, 0, 0));
    p.push(Insn::ldx_mem(Size::W, Reg::R1, Reg::FP, -8));
    outs.push(p.len());
    p.push(Insn::jmp_imm(JmpOp::Ne, Reg::R1, RT_CONSISTENT, 0));
    // The report: the process ID, and 1 << 32 if it is stopped.
    p.extend([
        Insn::call_helper(helper::GET_CURRENT_PID_TGID),
        Insn::alu64_imm(AluOp::Rsh, Reg::R0, 32),
    ]);
    if stop == Stop::Always {
        p.extend([
            Insn::mov64_imm(Reg::R1, 1),
            Insn::alu64_imm(AluOp::Lsh, Reg::R1, 32),
            Insn::alu64_reg(AluOp::Or, Reg::R0, Reg::R1),
        ]);
    }
    p.push(Insn::stx_mem(Size::DW, Reg::FP, Reg::R0, -16));
    if let Stop::Progeny {
        pid,
        real_parent,
        tgid,
    } = stop
    {
        progeny_check(&mut p, pid, real_parent, tgid);
    }
    p.extend(Insn::ld_map_fd(Reg::R1, reports));
    p.extend([
        Insn::mov64_reg(Reg::R2, Reg::FP),
        Insn::alu64_imm(AluOp::Add, Reg::R2, -16),
        Insn::mov64_imm(Reg::R3, 8),
        Insn::mov64_imm(Reg::R4, 0),
        Insn::call_helper(helper::RINGBUF_OUTPUT),
    ]);
    if stop != Stop::Never {
        // Not reported (no room): not stopped either.
        outs.push(p.len());
        p.push(Insn::jmp_imm(JmpOp::Ne, Reg::R0, 0, 0));
    }
    if matches!(stop, Stop::Progeny { .. }) {
        // Not a descendant: not stopped.
        outs.push(p.len());
        p.push(Insn::jmp_imm(JmpOp::Eq, Reg::R9, 0, 0));
    }
    if stop != Stop::Never {
        p.extend([
            Insn::mov64_imm(Reg::R1, libc::SIGSTOP),
            Insn::call_helper(helper::SEND_SIGNAL),
        ]);
    }
    let out = p.len();
    for at in outs {
        if let Some(i) = p.get_mut(at) {
            i.off = (out - at - 1) as i16;
        }
    }
    p.push(Insn::mov64_imm(Reg::R0, 0));
    p.push(Insn::exit());
    p
}

/// Why the watch could not be set up.
#[derive(Debug)]
pub enum RtldError {
    Map(MapError),
    Load(Errno),
    Attach(UprobeError),
    Reader(String),
}

impl std::fmt::Display for RtldError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            RtldError::Map(e) => write!(f, "{e}"),
            RtldError::Load(e) => write!(f, "cannot load the dynamic-linker probe: {e}"),
            RtldError::Attach(e) => write!(f, "{e}"),
            RtldError::Reader(e) => write!(f, "{e}"),
        }
    }
}

impl std::error::Error for RtldError {}

/// A process that resumes (`SIGCONT`) the processes it was given once dtrace
/// is gone, however it went (SIGKILL included), so none stays stopped: it
/// waits for the end of a pipe only dtrace holds, in its own session (a
/// signal to dtrace's process group does not reach it), with no other file
/// descriptor open. More processes come down the pipe ([`Guard::hold`]), up
/// to [`GUARD_MORE`].
pub struct Guard {
    _pipe: std::os::fd::OwnedFd,
}

/// How many processes a [`Guard`] takes after it started.
pub const GUARD_MORE: usize = 4096;

impl Guard {
    /// Start guarding `pids`.
    pub fn start(pids: &[u32]) -> Result<Guard, Errno> {
        let mut pids: Vec<i32> = pids.iter().filter_map(|p| i32::try_from(*p).ok()).collect();
        // Room for the processes that come later, made before fork: the
        // child allocates nothing.
        pids.reserve_exact(GUARD_MORE);
        let room = pids.capacity();
        let mut fds = [0i32; 2];
        // SAFETY: `fds` has room for the two descriptors pipe2 writes.
        if unsafe { libc::pipe2(fds.as_mut_ptr(), libc::O_CLOEXEC) } != 0 {
            return Err(Errno::last());
        }
        // SAFETY: the child only makes async-signal-safe calls (close_range,
        // setsid, signal, read, kill, _exit) on memory prepared before fork.
        let child = unsafe { libc::fork() };
        if child < 0 {
            let e = Errno::last();
            // SAFETY: both descriptors are ours and open.
            unsafe {
                libc::close(fds[0]);
                libc::close(fds[1]);
            }
            return Err(e);
        }
        if child == 0 {
            // SAFETY: see above; the child never returns from this block.
            unsafe {
                let r = fds[0] as libc::c_uint;
                if r > 0 {
                    libc::syscall(
                        libc::SYS_close_range,
                        0 as libc::c_uint,
                        r - 1,
                        0 as libc::c_uint,
                    );
                }
                libc::syscall(
                    libc::SYS_close_range,
                    r + 1,
                    libc::c_uint::MAX,
                    0 as libc::c_uint,
                );
                libc::setsid();
                libc::signal(libc::SIGINT, libc::SIG_IGN);
                libc::signal(libc::SIGHUP, libc::SIG_IGN);
                libc::signal(libc::SIGTERM, libc::SIG_IGN);
                // Each write is one pid (4 bytes, written whole: less than
                // PIPE_BUF), so reads return whole pids.
                let mut b = [0u8; 256];
                loop {
                    let n = libc::read(fds[0], b.as_mut_ptr().cast(), b.len());
                    if n == 0 || (n < 0 && *libc::__errno_location() != libc::EINTR) {
                        break;
                    }
                    let n = usize::try_from(n).unwrap_or(0);
                    for w in b[..n].chunks_exact(4) {
                        if pids.len() < room {
                            pids.push(i32::from_ne_bytes([w[0], w[1], w[2], w[3]]));
                        }
                    }
                }
                for p in &pids {
                    libc::kill(*p, libc::SIGCONT);
                }
                libc::_exit(0);
            }
        }
        // SAFETY: the read end is ours and open; the write end becomes owned.
        unsafe {
            libc::close(fds[0]);
            Ok(Guard {
                _pipe: std::os::fd::FromRawFd::from_raw_fd(fds[1]),
            })
        }
    }

    /// Guard `pid` too (a process stopped since the guard started).
    pub fn hold(&self, pid: u32) {
        let b = pid.to_ne_bytes();
        // SAFETY: writes 4 bytes from `b` to the pipe we own.
        let _ = unsafe { libc::write(self._pipe.as_raw_fd(), b.as_ptr().cast(), b.len()) };
    }
}

/// The watch: links on each ld.so and the reports of stopped processes.
/// Dropping it detaches the links and resumes every process it stopped.
pub struct RtldWatch {
    /// Told of each process stopped, so that it resumes them should dtrace
    /// die holding them.
    guard: Option<Guard>,
    reports: RingBuf,
    /// Reported (so stopped) and not resumed yet.
    stopped: BTreeSet<u32>,
    /// The program of links filtered by process (stopping every process
    /// that reports), and of the link watching every process.
    prog: ProgFd,
    every: ProgFd,
    links: Vec<Link>,
    _map: MapFd,
}

impl RtldWatch {
    /// Load the programs; nothing is watched until [`RtldWatch::watch`].
    /// A link on one process stops it when it reports; the link on every
    /// process stops as `every` says.
    pub fn new(sys: &SysRef, every: Stop) -> Result<RtldWatch, RtldError> {
        let spec = MapSpec {
            name: "dt_rtld".to_string(),
            map_type: MapType::RingBuf,
            key_size: 0,
            value_size: 0,
            max_entries: REPORTS,
            flags: 0,
        };
        let map = MapFd::create(sys, &spec).map_err(RtldError::Map)?;
        let fd = std::os::fd::AsRawFd::as_raw_fd(&map);
        let load = |stop| {
            let insns = rtld_program(fd, stop);
            let mut pspec = ProgSpec::new(ProgType::Kprobe, "dtrace_rtld", &insns);
            pspec.expected_attach_type = AttachType::UprobeMulti;
            ProgFd::load_errno(sys, &pspec).map_err(RtldError::Load)
        };
        let prog = load(Stop::Always)?;
        let every = load(every)?;
        let reports = RingBuf::new(&map).map_err(|e| RtldError::Reader(e.to_string()))?;
        Ok(RtldWatch {
            guard: None,
            reports,
            stopped: BTreeSet::new(),
            prog,
            every,
            links: Vec::new(),
            _map: map,
        })
    }

    /// Watch the rendezvous `r` in process `pid` (0: in every process).
    pub fn watch(&mut self, r: &Rendezvous, pid: u32) -> Result<(), RtldError> {
        let point = UprobePoint {
            offset: r.offset,
            ref_ctr_offset: 0,
            cookie: r.state_delta as u64,
        };
        let prog = if pid == 0 { &self.every } else { &self.prog };
        let link = attach_multi(prog, &r.path, &[point], false, pid).map_err(RtldError::Attach)?;
        self.links.push(link);
        Ok(())
    }

    /// Hand the processes this watch stops to `guard` as they report.
    pub fn set_guard(&mut self, guard: Guard) {
        self.guard = Some(guard);
    }

    /// Readable when a process has reported.
    pub fn fd(&self) -> BorrowedFd<'_> {
        self.reports.epoll_fd()
    }

    /// The processes that reported since the last call (each maybe stopped,
    /// to be resumed with [`RtldWatch::resume`]).
    pub fn take(&mut self) -> Vec<u32> {
        let mut pids = Vec::new();
        let mut stopped = Vec::new();
        let _ = self.reports.poll(|r| {
            if let Some(b) = r.get(..8).and_then(|b| <[u8; 8]>::try_from(b).ok()) {
                let v = u64::from_ne_bytes(b);
                pids.push(v as u32);
                if v >> 32 != 0 {
                    stopped.push(v as u32);
                }
            }
        });
        pids.sort_unstable();
        pids.dedup();
        if let Some(g) = &self.guard {
            for &p in &stopped {
                g.hold(p);
            }
        }
        self.stopped.extend(stopped);
        pids
    }

    /// Let a reported process run on, if the report stopped it.
    pub fn resume(&mut self, pid: u32) {
        if self.stopped.remove(&pid) {
            crate::proc::resume_pid(pid);
        }
    }
}

impl RtldWatch {
    /// Wait until a process reports (true), or until the [`Stopper`] paired
    /// with `stop` is dropped (false).
    pub fn wait(&self, stop: &Stopped) -> bool {
        loop {
            let mut fds = [
                libc::pollfd {
                    fd: stop.0.as_raw_fd(),
                    events: libc::POLLIN,
                    revents: 0,
                },
                libc::pollfd {
                    fd: self.fd().as_raw_fd(),
                    events: libc::POLLIN,
                    revents: 0,
                },
            ];
            // SAFETY: `fds` is an array of two valid pollfd entries.
            let n = unsafe { libc::poll(fds.as_mut_ptr(), 2, -1) };
            if n < 0 {
                if Errno::last().0 == libc::EINTR {
                    continue;
                }
                return false;
            }
            if fds[0].revents != 0 {
                return false;
            }
            if fds[1].revents != 0 {
                return true;
            }
        }
    }
}

/// Ends the [`RtldWatch::wait`]s given the paired [`Stopped`] when dropped
/// (the write end of a pipe nothing is written to).
pub struct Stopper {
    _pipe: OwnedFd,
}

/// See [`Stopper`].
pub struct Stopped(OwnedFd);

/// A [`Stopper`] and its [`Stopped`].
pub fn stopper() -> Result<(Stopper, Stopped), Errno> {
    let mut fds = [0i32; 2];
    // SAFETY: `fds` has room for the two descriptors pipe2 writes.
    if unsafe { libc::pipe2(fds.as_mut_ptr(), libc::O_CLOEXEC) } != 0 {
        return Err(Errno::last());
    }
    // SAFETY: pipe2 succeeded: both descriptors are open and ours alone.
    unsafe {
        Ok((
            Stopper {
                _pipe: OwnedFd::from_raw_fd(fds[1]),
            },
            Stopped(OwnedFd::from_raw_fd(fds[0])),
        ))
    }
}

impl Drop for RtldWatch {
    fn drop(&mut self) {
        self.links.clear();
        // Reports not taken yet are stopped processes as well.
        let _ = self.take();
        for pid in std::mem::take(&mut self.stopped) {
            crate::proc::resume_pid(pid);
        }
    }
}

impl AsFd for RtldWatch {
    fn as_fd(&self) -> BorrowedFd<'_> {
        self.fd()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn jumps_out_land_on_the_return() {
        let p = rtld_program(3, Stop::Always);
        let n = p.len();
        assert_eq!(p[n - 1], Insn::exit());
        let mut jumps = 0;
        for (at, i) in p.iter().enumerate() {
            let conditional = i.code & 0x07 == 0x05 && !matches!(i.code & 0xf0, 0x80 | 0x90);
            if conditional {
                jumps += 1;
                assert_eq!(
                    at as i64 + 1 + i64::from(i.off),
                    n as i64 - 2,
                    "jump at {at}"
                );
            }
        }
        assert_eq!(jumps, 3);
    }

    fn state(pid: u32) -> Option<char> {
        let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
        stat.rsplit_once(") ")?.1.chars().next()
    }

    #[test]
    fn the_guard_resumes_its_processes_when_dropped() {
        let mut child = std::process::Command::new("sleep")
            .arg("10")
            .spawn()
            .expect("spawn sleep");
        let pid = child.id();
        // SAFETY: kill has no memory-safety preconditions.
        unsafe { libc::kill(pid as i32, libc::SIGSTOP) };
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(5);
        while state(pid) != Some('T') && std::time::Instant::now() < deadline {
            std::thread::sleep(std::time::Duration::from_millis(10));
        }
        assert_eq!(state(pid), Some('T'));
        let guard = Guard::start(&[pid]).expect("guard");
        std::thread::sleep(std::time::Duration::from_millis(100));
        assert_eq!(state(pid), Some('T'), "held while the guard's pipe is open");
        drop(guard);
        while state(pid) == Some('T') && std::time::Instant::now() < deadline {
            std::thread::sleep(std::time::Duration::from_millis(10));
        }
        assert_ne!(state(pid), Some('T'));
        let _ = child.kill();
        let _ = child.wait();
    }

    #[test]
    fn progeny_jumps_stay_inside_and_stop_only_marked_reports() {
        let stop = Stop::Progeny {
            pid: 77,
            real_parent: 1280,
            tgid: 1268,
        };
        let p = rtld_program(3, stop);
        let n = p.len() as i64;
        assert_eq!(p.last(), Some(&Insn::exit()));
        for (at, i) in p.iter().enumerate() {
            if i.is_jump() {
                let to = at as i64 + 1 + i64::from(i.off);
                assert!((0..n).contains(&to), "jump at {at} to {to}");
            }
        }
        // One generation per comparison with the pid, up to ANCESTORS.
        let compares = p
            .iter()
            .filter(|i| **i == Insn::jmp_imm(JmpOp::Eq, Reg::R1, 77, i.off))
            .count();
        assert_eq!(compares, ANCESTORS);
        // The stop is after the report, behind the mark in r9.
        let report = p
            .iter()
            .position(|i| *i == Insn::call_helper(helper::RINGBUF_OUTPUT));
        let gate = p
            .iter()
            .position(|i| *i == Insn::jmp_imm(JmpOp::Eq, Reg::R9, 0, i.off));
        let stop_at = p
            .iter()
            .position(|i| *i == Insn::call_helper(helper::SEND_SIGNAL));
        assert!(matches!((report, gate, stop_at), (Some(r), Some(g), Some(s)) if r < g && g < s));
    }

    #[test]
    fn the_guard_resumes_processes_handed_to_it_later() {
        let mut child = std::process::Command::new("sleep")
            .arg("10")
            .spawn()
            .expect("spawn sleep");
        let pid = child.id();
        let guard = Guard::start(&[]).expect("guard");
        // SAFETY: kill has no memory-safety preconditions.
        unsafe { libc::kill(pid as i32, libc::SIGSTOP) };
        guard.hold(pid);
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(5);
        while state(pid) != Some('T') && std::time::Instant::now() < deadline {
            std::thread::sleep(std::time::Duration::from_millis(10));
        }
        assert_eq!(state(pid), Some('T'));
        drop(guard);
        while state(pid) == Some('T') && std::time::Instant::now() < deadline {
            std::thread::sleep(std::time::Duration::from_millis(10));
        }
        assert_ne!(state(pid), Some('T'));
        let _ = child.kill();
        let _ = child.wait();
    }

    #[test]
    fn stops_only_after_reporting() {
        assert!(!rtld_program(3, Stop::Never).contains(&Insn::call_helper(helper::SEND_SIGNAL)));
        let p = rtld_program(3, Stop::Always);
        let report = p
            .iter()
            .position(|i| *i == Insn::call_helper(helper::RINGBUF_OUTPUT));
        let stop = p
            .iter()
            .position(|i| *i == Insn::call_helper(helper::SEND_SIGNAL));
        assert!(matches!((report, stop), (Some(r), Some(s)) if r < s));
    }
}
