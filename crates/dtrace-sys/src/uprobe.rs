//! User-space probes: `uprobe_multi` links (one link holds every probe point of
//! one file, entry or return, each with its cookie and optional USDT semaphore),
//! and the one-shot program that stops a `-c` child at its entry point.
//!
//! uprobe_multi needs no per-probe perf event: detaching thousands of probes is
//! one close (a per-probe perf event costs a synchronisation each on close).

use crate::prog::{AttachType, Link, ProgFd, ProgSpec, ProgType};
use crate::sys::{owned_fd, Attr, Cmd, Errno, SysRef};
use dtrace_bpf::{helper, AluOp, Insn, Reg, Size};
use std::ffi::CString;
use std::fmt;
use std::os::fd::AsRawFd;
use std::path::Path;

// `union bpf_attr`, `link_create` for `BPF_TRACE_UPROBE_MULTI`.
const LINK_PROG_FD: usize = 0;
const LINK_ATTACH_TYPE: usize = 8;
const UM_PATH: usize = 16;
const UM_OFFSETS: usize = 24;
const UM_REF_CTR_OFFSETS: usize = 32;
const UM_COOKIES: usize = 40;
const UM_CNT: usize = 48;
const UM_FLAGS: usize = 52;
const UM_PID: usize = 56;
/// `BPF_F_UPROBE_MULTI_RETURN`.
const UM_RETURN: u32 = 1;

/// One probe point of a uprobe_multi link.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct UprobePoint {
    /// File offset of the instruction.
    pub offset: u64,
    /// File offset of the USDT semaphore the kernel counts up while attached (0: none).
    pub ref_ctr_offset: u64,
    /// What `bpf_get_attach_cookie` returns when this point fires.
    pub cookie: u64,
}

/// Why a link could not be made.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UprobeError {
    pub path: String,
    pub errno: Errno,
}

impl fmt::Display for UprobeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "cannot attach uprobes to {}: {}", self.path, self.errno)
    }
}

impl std::error::Error for UprobeError {}

/// Attach `prog` (loaded with [`AttachType::UprobeMulti`]) to every point of
/// `path`, entry or `ret`urn, firing only in process `pid` (0: every process).
pub fn attach_multi(
    prog: &ProgFd,
    path: &Path,
    points: &[UprobePoint],
    ret: bool,
    pid: u32,
) -> Result<Link, UprobeError> {
    let err = |errno| UprobeError {
        path: path.display().to_string(),
        errno,
    };
    let cpath =
        CString::new(path.as_os_str().as_encoded_bytes()).map_err(|_| err(Errno(libc::EINVAL)))?;
    let offsets: Vec<u64> = points.iter().map(|p| p.offset).collect();
    let refs: Vec<u64> = points.iter().map(|p| p.ref_ctr_offset).collect();
    let cookies: Vec<u64> = points.iter().map(|p| p.cookie).collect();
    let mut a = Attr::new();
    a.set_u32(LINK_PROG_FD, prog.as_raw_fd() as u32);
    a.set_u32(LINK_ATTACH_TYPE, AttachType::UprobeMulti as u32);
    a.set_ptr(UM_PATH, cpath.as_ptr());
    a.set_ptr(UM_OFFSETS, offsets.as_ptr());
    if refs.iter().any(|r| *r != 0) {
        a.set_ptr(UM_REF_CTR_OFFSETS, refs.as_ptr());
    }
    a.set_ptr(UM_COOKIES, cookies.as_ptr());
    a.set_u32(UM_CNT, points.len() as u32);
    a.set_u32(UM_FLAGS, if ret { UM_RETURN } else { 0 });
    a.set_u32(UM_PID, pid);
    // SAFETY: path, offsets, ref_ctr_offsets and cookies point to live buffers
    // of `cnt` elements (the path NUL-terminated) for the whole call.
    let r = unsafe { prog.sys().bpf(Cmd::LinkCreate, &mut a) }.map_err(err)?;
    // SAFETY: LINK_CREATE returns a new fd that we now own.
    let fd = unsafe { owned_fd(r) }.map_err(err)?;
    Ok(Link { fd })
}

/// The instructions of the program that stops the process it fires in:
/// `bpf_send_signal(SIGSTOP); return 0`.
pub fn stop_program() -> Vec<Insn> {
    vec![
        Insn::mov64_imm(Reg::R1, libc::SIGSTOP),
        Insn::call_helper(helper::SEND_SIGNAL),
        Insn::mov64_imm(Reg::R0, 0),
        Insn::exit(),
    ]
}

/// The instructions of the return-site marker. Its attach cookie is
/// `probe cookie << 32 | offset`; it stores `map[{pid_tgid, probe cookie}] =
/// offset`, where `map` is the file descriptor of a hash map of 16-byte keys
/// and u64 values. (A return probe's trampoline reads the entry right after
/// the return, on the same thread; see the codegen's `dt_retoff`.)
pub fn return_marker_program(map: i32) -> Vec<Insn> {
    let mut p = vec![
        Insn::mov64_reg(Reg::R6, Reg::R1),
        Insn::call_helper(helper::GET_CURRENT_PID_TGID),
        Insn::stx_mem(Size::DW, Reg::FP, Reg::R0, -16),
        Insn::mov64_reg(Reg::R1, Reg::R6),
        Insn::call_helper(helper::GET_ATTACH_COOKIE),
        Insn::mov64_reg(Reg::R1, Reg::R0),
        Insn::alu64_imm(AluOp::Rsh, Reg::R1, 32),
        Insn::stx_mem(Size::DW, Reg::FP, Reg::R1, -8),
        Insn::alu64_imm(AluOp::Lsh, Reg::R0, 32),
        Insn::alu64_imm(AluOp::Rsh, Reg::R0, 32),
        Insn::stx_mem(Size::DW, Reg::FP, Reg::R0, -24),
    ];
    p.extend(Insn::ld_map_fd(Reg::R1, map));
    p.extend([
        Insn::mov64_reg(Reg::R2, Reg::FP),
        Insn::alu64_imm(AluOp::Add, Reg::R2, -16),
        Insn::mov64_reg(Reg::R3, Reg::FP),
        Insn::alu64_imm(AluOp::Add, Reg::R3, -24),
        Insn::mov64_imm(Reg::R4, 0),
        Insn::call_helper(helper::MAP_UPDATE_ELEM),
        Insn::mov64_imm(Reg::R0, 0),
        Insn::exit(),
    ]);
    p
}

/// Load [`return_marker_program`] for a uprobe_multi link.
pub fn load_return_marker(sys: &SysRef, map: i32) -> Result<ProgFd, Errno> {
    let insns = return_marker_program(map);
    let mut spec = ProgSpec::new(ProgType::Kprobe, "dtrace_retmark", &insns);
    spec.expected_attach_type = AttachType::UprobeMulti;
    ProgFd::load_errno(sys, &spec)
}

/// Load [`stop_program`] for a uprobe_multi link.
pub fn load_stop_program(sys: &SysRef) -> Result<ProgFd, Errno> {
    let insns = stop_program();
    let mut spec = ProgSpec::new(ProgType::Kprobe, "dtrace_stop", &insns);
    spec.expected_attach_type = AttachType::UprobeMulti;
    ProgFd::load_errno(sys, &spec)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn return_marker_stores_the_cookie_by_thread() {
        let p = return_marker_program(5);
        assert!(p.contains(&Insn::call_helper(helper::GET_ATTACH_COOKIE)));
        assert!(p.contains(&Insn::call_helper(helper::MAP_UPDATE_ELEM)));
        assert_eq!(p.last(), Some(&Insn::exit()));
    }

    #[test]
    fn stop_program_sends_sigstop() {
        let p = stop_program();
        assert_eq!(p.len(), 4);
        assert_eq!(p[1], Insn::call_helper(helper::SEND_SIGNAL));
        assert_eq!(p[0], Insn::mov64_imm(Reg::R1, 19));
    }
}
