//! The smallest BTF the kernel accepts to describe a program's functions.
//!
//! The verifier refuses callbacks (`ld_func`, e.g. for `bpf_loop`) unless the
//! program comes with BTF `func_info`: one BTF `FUNC` per subprogram. dtrace's
//! programs need no other BTF, so we build it here: `int` (id 1), a prototype
//! `int (void)` (id 2), then one static `FUNC` per subprogram (ids 3...).

use crate::sys::{owned_fd, Attr, Cmd, Errno, SysRef};
use std::fmt;
use std::os::fd::OwnedFd;

const BTF_MAGIC: u16 = 0xeb9f;
const HDR_LEN: u32 = 24;
const KIND_INT: u32 = 1;
const KIND_FUNC: u32 = 12;
const KIND_FUNC_PROTO: u32 = 13;
/// Type id of the first `FUNC`.
pub const FIRST_FUNC_ID: u32 = 3;

// uapi offsets of `union bpf_attr` for BPF_BTF_LOAD.
const BTF_PTR: usize = 0;
const BTF_LOG_BUF: usize = 8;
const BTF_SIZE: usize = 16;
const BTF_LOG_SIZE: usize = 20;
const BTF_LOG_LEVEL: usize = 24;

/// A BTF load failure, with the kernel's BTF log.
#[derive(Debug)]
pub struct BtfError {
    pub errno: Errno,
    pub log: String,
}

impl fmt::Display for BtfError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "failed to load BTF: {}", self.errno)?;
        if !self.log.is_empty() {
            write!(f, "\nBTF log:\n{}", self.log.trim_end())?;
        }
        Ok(())
    }
}

impl std::error::Error for BtfError {}

fn push_u32(out: &mut Vec<u8>, v: u32) {
    out.extend_from_slice(&v.to_ne_bytes());
}

/// BTF with one `FUNC` named `names[i]` (type id `FIRST_FUNC_ID + i`) per subprogram.
/// Names should be C identifiers.
pub fn func_btf(names: &[&str]) -> Vec<u8> {
    let mut strings = vec![0u8];
    let mut intern = |s: &str| -> u32 {
        let off = strings.len() as u32;
        strings.extend_from_slice(s.as_bytes());
        strings.push(0);
        off
    };
    let int_name = intern("int");
    let func_names: Vec<u32> = names.iter().map(|n| intern(n)).collect();

    let mut types = Vec::new();
    // [1] int: signed, 32 bits.
    push_u32(&mut types, int_name);
    push_u32(&mut types, KIND_INT << 24);
    push_u32(&mut types, 4);
    push_u32(&mut types, (1 << 24) | 32);
    // [2] int (void)
    push_u32(&mut types, 0);
    push_u32(&mut types, KIND_FUNC_PROTO << 24);
    push_u32(&mut types, 1);
    // [3..] static functions of that prototype (vlen holds the linkage: 0 = static).
    for n in &func_names {
        push_u32(&mut types, *n);
        push_u32(&mut types, KIND_FUNC << 24);
        push_u32(&mut types, 2);
    }

    let mut out = Vec::with_capacity(HDR_LEN as usize + types.len() + strings.len());
    out.extend_from_slice(&BTF_MAGIC.to_ne_bytes());
    out.push(1); // version
    out.push(0); // flags
    push_u32(&mut out, HDR_LEN);
    push_u32(&mut out, 0); // type_off
    push_u32(&mut out, types.len() as u32);
    push_u32(&mut out, types.len() as u32); // str_off
    push_u32(&mut out, strings.len() as u32);
    out.extend_from_slice(&types);
    out.extend_from_slice(&strings);
    out
}

/// Load a BTF blob; on failure, load again with the log on and return it.
pub fn load_btf(sys: &SysRef, blob: &[u8]) -> Result<OwnedFd, BtfError> {
    let attempt = |log: Option<&mut Vec<u8>>| {
        let mut a = Attr::new();
        a.set_ptr(BTF_PTR, blob.as_ptr());
        a.set_u32(BTF_SIZE, blob.len() as u32);
        if let Some(buf) = log {
            a.set_ptr(BTF_LOG_BUF, buf.as_mut_ptr());
            a.set_u32(BTF_LOG_SIZE, buf.len() as u32);
            a.set_u32(BTF_LOG_LEVEL, 1);
        }
        // SAFETY: the blob (btf_size bytes) and the optional log buffer
        // (btf_log_size bytes, writable) outlive the call.
        unsafe { sys.bpf(Cmd::BtfLoad, &mut a) }
    };
    let r = match attempt(None) {
        Ok(fd) => Ok(fd),
        Err(errno) => {
            let mut buf = vec![0u8; 1 << 16];
            match attempt(Some(&mut buf)) {
                Ok(fd) => Ok(fd),
                Err(e2) => {
                    let end = buf.iter().position(|b| *b == 0).unwrap_or(buf.len());
                    let log = String::from_utf8_lossy(&buf[..end]).into_owned();
                    let errno = if e2 == errno { errno } else { e2 };
                    return Err(BtfError { errno, log });
                }
            }
        }
    }?;
    // SAFETY: BTF_LOAD returns a new fd that we now own.
    unsafe { owned_fd(r) }.map_err(|errno| BtfError {
        errno,
        log: String::new(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn layout() {
        let b = func_btf(&["main", "cb"]);
        assert_eq!(&b[..2], &0xeb9fu16.to_ne_bytes());
        let w = |i: usize| u32::from_ne_bytes([b[i], b[i + 1], b[i + 2], b[i + 3]]);
        assert_eq!(w(4), 24);
        let type_len = w(12) as usize;
        assert_eq!(type_len, 16 + 12 + 2 * 12);
        assert_eq!(w(16) as usize, type_len);
        let strs = &b[24 + type_len..];
        assert_eq!(strs, b"\0int\0main\0cb\0");
        assert_eq!(w(20) as usize, strs.len());
        // The second FUNC's name offset points at "cb".
        assert_eq!(w(24 + 28 + 12), 10);
    }
}
