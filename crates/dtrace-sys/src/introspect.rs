//! The programs loaded in the kernel, as `bpftool prog list` sees them: every id
//! (`BPF_PROG_GET_NEXT_ID`), an fd for one (`BPF_PROG_GET_FD_BY_ID`) and its
//! type and name (`BPF_OBJ_GET_INFO_BY_FD`). Tests use it to prove that no program
//! of ours stays loaded after dtrace exits.

use crate::sys::{owned_fd, Attr, Cmd, Errno, SysRef};
use std::os::fd::{AsRawFd, OwnedFd};

/// `union bpf_attr` offsets for the `*_GET_NEXT_ID` and `*_GET_FD_BY_ID` commands.
const ID_START: usize = 0;
const ID_NEXT: usize = 4;
/// `union bpf_attr` offsets for `OBJ_GET_INFO_BY_FD`.
const INFO_FD: usize = 0;
const INFO_LEN: usize = 4;
const INFO_PTR: usize = 8;
/// `struct bpf_prog_info` offsets.
const PROG_INFO_TYPE: usize = 0;
const PROG_INFO_ID: usize = 4;
const PROG_INFO_XLATED_LEN: usize = 20;
const PROG_INFO_XLATED_INSNS: usize = 32;
const PROG_INFO_NAME: usize = 64;
/// Bytes of `struct bpf_prog_info` we ask for (the kernel fills what it has).
const PROG_INFO_LEN: usize = 256;

/// Program-name prefixes dtrace gives its programs: `dtrace_*` for the programs
/// of a D program (`dtrace_begin`, `dtrace_sys_enter`, ...), `dt_*` for feature
/// probes and helper objects.
pub const DTRACE_PROG_PREFIXES: [&str; 2] = ["dtrace_", "dt_"];

/// One loaded program.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LoadedProg {
    pub id: u32,
    /// `enum bpf_prog_type`.
    pub prog_type: u32,
    /// The name given at load time (at most 15 bytes).
    pub name: String,
}

impl LoadedProg {
    /// True if the name is one dtrace gives its programs.
    pub fn is_dtrace(&self) -> bool {
        DTRACE_PROG_PREFIXES
            .iter()
            .any(|p| self.name.starts_with(p))
    }
}

/// The id after `start` (0: the first), or `None` past the last.
fn next_id(sys: &SysRef, start: u32) -> Result<Option<u32>, Errno> {
    let mut a = Attr::new();
    a.set_u32(ID_START, start);
    // SAFETY: GET_NEXT_ID reads start_id and writes next_id inside `a`; no pointers.
    match unsafe { sys.bpf(Cmd::ProgGetNextId, &mut a) } {
        Ok(_) => Ok(Some(a.get_u32(ID_NEXT))),
        Err(Errno(libc::ENOENT)) => Ok(None),
        Err(e) => Err(e),
    }
}

/// The ids of every program loaded now, ascending.
pub fn prog_ids(sys: &SysRef) -> Result<Vec<u32>, Errno> {
    let mut ids = Vec::new();
    let mut at = 0;
    while let Some(id) = next_id(sys, at)? {
        if id <= at {
            // The kernel hands ids out in increasing order; stop rather than loop.
            break;
        }
        ids.push(id);
        at = id;
    }
    Ok(ids)
}

/// An fd for program `id`, or `None` if it is gone.
fn fd_by_id(sys: &SysRef, id: u32) -> Result<Option<OwnedFd>, Errno> {
    let mut a = Attr::new();
    a.set_u32(ID_START, id);
    // SAFETY: GET_FD_BY_ID reads the id from `a`; no pointers.
    match unsafe { sys.bpf(Cmd::ProgGetFdById, &mut a) } {
        // SAFETY: GET_FD_BY_ID returns a new fd that we own.
        Ok(fd) => unsafe { owned_fd(fd) }.map(Some),
        Err(Errno(libc::ENOENT)) => Ok(None),
        Err(e) => Err(e),
    }
}

/// `OBJ_GET_INFO_BY_FD` into `info`.
fn get_info(sys: &SysRef, fd: &OwnedFd, info: &mut [u8; PROG_INFO_LEN]) -> Result<(), Errno> {
    let mut a = Attr::new();
    a.set_u32(INFO_FD, fd.as_raw_fd() as u32);
    a.set_u32(INFO_LEN, PROG_INFO_LEN as u32);
    a.set_ptr(INFO_PTR, info.as_mut_ptr());
    // SAFETY: `info` is writable for the info_len bytes given and lives until the
    // call returns; any pointer the caller stored in it (xlated_prog_insns) points
    // at a buffer of the length stored beside it, also live; `fd` is open.
    unsafe { sys.bpf(Cmd::ObjGetInfoByFd, &mut a) }?;
    Ok(())
}

/// Type and name of program `id`, or `None` if it is no longer loaded.
pub fn prog_info(sys: &SysRef, id: u32) -> Result<Option<LoadedProg>, Errno> {
    let Some(fd) = fd_by_id(sys, id)? else {
        return Ok(None);
    };
    let mut info = [0u8; PROG_INFO_LEN];
    get_info(sys, &fd, &mut info)?;
    Ok(Some(parse_prog_info(&info)))
}

/// The instructions of program `id` as the kernel holds them after verification
/// (`xlated`, 8 bytes each), or `None` if it is no longer loaded.
pub fn prog_insns(sys: &SysRef, id: u32) -> Result<Option<Vec<[u8; 8]>>, Errno> {
    let Some(fd) = fd_by_id(sys, id)? else {
        return Ok(None);
    };
    let mut info = [0u8; PROG_INFO_LEN];
    get_info(sys, &fd, &mut info)?;
    let len = info
        .get(PROG_INFO_XLATED_LEN..PROG_INFO_XLATED_LEN + 4)
        .and_then(|b| b.try_into().ok())
        .map(u32::from_ne_bytes)
        .unwrap_or(0);
    let mut buf = vec![[0u8; 8]; len as usize / 8];
    let mut info = [0u8; PROG_INFO_LEN];
    info[PROG_INFO_XLATED_LEN..PROG_INFO_XLATED_LEN + 4]
        .copy_from_slice(&((buf.len() * 8) as u32).to_ne_bytes());
    info[PROG_INFO_XLATED_INSNS..PROG_INFO_XLATED_INSNS + 8]
        .copy_from_slice(&(buf.as_mut_ptr() as usize as u64).to_ne_bytes());
    get_info(sys, &fd, &mut info)?;
    Ok(Some(buf))
}

/// The 32-bit immediate of an encoded instruction.
pub fn insn_imm(insn: &[u8; 8]) -> i32 {
    i32::from_ne_bytes([insn[4], insn[5], insn[6], insn[7]])
}

/// Decode the fields we use from a `struct bpf_prog_info`.
pub fn parse_prog_info(info: &[u8]) -> LoadedProg {
    let u32_at = |off: usize| {
        info.get(off..off + 4)
            .and_then(|b| b.try_into().ok())
            .map(u32::from_ne_bytes)
            .unwrap_or(0)
    };
    let name = info
        .get(PROG_INFO_NAME..PROG_INFO_NAME + 16)
        .map(|b| {
            let n = b.iter().position(|c| *c == 0).unwrap_or(b.len());
            String::from_utf8_lossy(&b[..n]).into_owned()
        })
        .unwrap_or_default();
    LoadedProg {
        id: u32_at(PROG_INFO_ID),
        prog_type: u32_at(PROG_INFO_TYPE),
        name,
    }
}

/// Every program loaded now (those unloaded while we look are left out).
pub fn loaded_programs(sys: &SysRef) -> Result<Vec<LoadedProg>, Errno> {
    let mut out = Vec::new();
    for id in prog_ids(sys)? {
        if let Some(p) = prog_info(sys, id)? {
            out.push(p);
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decodes_prog_info() {
        let mut info = [0u8; PROG_INFO_LEN];
        info[PROG_INFO_TYPE..PROG_INFO_TYPE + 4].copy_from_slice(&17u32.to_ne_bytes());
        info[PROG_INFO_ID..PROG_INFO_ID + 4].copy_from_slice(&4242u32.to_ne_bytes());
        info[PROG_INFO_NAME..PROG_INFO_NAME + 12].copy_from_slice(b"dtrace_begin");
        let p = parse_prog_info(&info);
        assert_eq!(
            (p.id, p.prog_type, p.name.as_str()),
            (4242, 17, "dtrace_begin")
        );
        assert!(p.is_dtrace());
        let other = LoadedProg {
            id: 1,
            prog_type: 2,
            name: "sd_fw_ingress".into(),
        };
        assert!(!other.is_dtrace());
    }

    #[test]
    fn short_info_decodes_to_defaults() {
        let p = parse_prog_info(&[1, 0, 0, 0]);
        assert_eq!((p.id, p.prog_type, p.name.as_str()), (0, 1, ""));
    }
}
