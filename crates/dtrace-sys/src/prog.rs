//! BPF programs: loading (with the verifier log on failure), test runs, and
//! raw-tracepoint attachment.

use crate::btf::{func_btf, load_btf, BtfError, FIRST_FUNC_ID};
use crate::map::obj_id;
use crate::sys::{obj_name, owned_fd, Attr, Cmd, Errno, SysRef};
use dtrace_bpf::{encode_all, subprog_starts, uses_callbacks, Insn};
use std::ffi::CString;
use std::fmt;
use std::os::fd::{AsFd, AsRawFd, BorrowedFd, OwnedFd, RawFd};

/// Program types dtrace uses (uapi `enum bpf_prog_type`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[repr(u32)]
pub enum ProgType {
    Kprobe = 2,
    Tracepoint = 5,
    PerfEvent = 7,
    RawTracepoint = 17,
    Tracing = 26,
}

/// `expected_attach_type` values (uapi `enum bpf_attach_type`) dtrace uses.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[repr(u32)]
pub enum AttachType {
    /// Not set.
    Unspec = 0,
    TraceRawTp = 23,
    TraceFentry = 24,
    TraceFexit = 25,
    PerfEvent = 41,
    KprobeMulti = 42,
    /// `BPF_TRACE_UPROBE_MULTI`: a kprobe-type program on a uprobe_multi link.
    UprobeMulti = 48,
}

/// What to load.
#[derive(Debug, Clone)]
pub struct ProgSpec<'a> {
    pub prog_type: ProgType,
    /// Up to 15 characters of `[A-Za-z0-9_.]` are kept.
    pub name: &'a str,
    pub insns: &'a [Insn],
    pub expected_attach_type: AttachType,
    /// BTF id of the attach target (tracing programs); 0 otherwise.
    pub attach_btf_id: u32,
    /// Map fds that `BPF_PSEUDO_MAP_IDX` instructions index.
    pub fd_array: &'a [RawFd],
    /// Keep the verifier's log of a successful load too (`-x bpflog`), in a
    /// buffer of this many bytes (grown as needed).
    pub keep_log: Option<usize>,
    /// The largest verifier log asked for (`-x bpflogsize`): a log that needs
    /// more is incomplete ([`ProgError::Load`]'s `log_incomplete`).
    pub log_limit: usize,
}

/// DTrace's default `bpflogsize`: the verifier log buffer's bound.
pub const DEFAULT_LOG_LIMIT: usize = 16 * 1024 * 1024 - 1;

impl<'a> ProgSpec<'a> {
    pub fn new(prog_type: ProgType, name: &'a str, insns: &'a [Insn]) -> ProgSpec<'a> {
        ProgSpec {
            prog_type,
            name,
            insns,
            expected_attach_type: AttachType::Unspec,
            attach_btf_id: 0,
            fd_array: &[],
            keep_log: None,
            log_limit: DEFAULT_LOG_LIMIT,
        }
    }
}

/// Program errors.
#[derive(Debug)]
pub enum ProgError {
    /// The load failed; `log` is the verifier's log (empty if it gave none).
    /// `log_incomplete`: the log needed more than the spec's `log_limit`
    /// bytes, so `log` holds only what the kernel kept (its end, on kernels
    /// that keep the end).
    Load {
        name: String,
        errno: Errno,
        log: String,
        log_incomplete: bool,
    },
    TestRun {
        errno: Errno,
    },
    /// Too many context arguments for a raw tracepoint test run (12 at most).
    TooManyArgs(usize),
    Attach {
        target: String,
        errno: Errno,
    },
    BadName(String),
    Info(Errno),
    /// The function BTF a program with callbacks needs failed to load.
    Btf(BtfError),
}

impl fmt::Display for ProgError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ProgError::Load {
                name, errno, log, ..
            } => {
                write!(f, "failed to load BPF program '{name}': {errno}")?;
                if !log.is_empty() {
                    write!(f, "\nverifier log:\n{}", log.trim_end())?;
                }
                Ok(())
            }
            ProgError::TestRun { errno } => write!(f, "BPF test run failed: {errno}"),
            ProgError::TooManyArgs(n) => write!(f, "{n} arguments given, at most 12 allowed"),
            ProgError::Attach { target, errno } => {
                write!(f, "failed to attach BPF program to {target}: {errno}")
            }
            ProgError::BadName(n) => write!(f, "invalid name {n:?}"),
            ProgError::Info(e) => write!(f, "cannot query BPF program: {e}"),
            ProgError::Btf(e) => write!(f, "{e}"),
        }
    }
}

impl std::error::Error for ProgError {}

impl ProgError {
    /// The verifier log of a failed load.
    pub fn verifier_log(&self) -> Option<&str> {
        match self {
            ProgError::Load { log, .. } => Some(log),
            _ => None,
        }
    }
}

// uapi offsets of `union bpf_attr` members used here.
const LOAD_TYPE: usize = 0;
pub(crate) const LOAD_INSN_CNT: usize = 4;
pub(crate) const LOAD_INSNS: usize = 8;
const LOAD_LICENSE: usize = 16;
pub(crate) const LOAD_LOG_LEVEL: usize = 24;
pub(crate) const LOAD_LOG_SIZE: usize = 28;
pub(crate) const LOAD_LOG_BUF: usize = 32;
pub(crate) const LOAD_NAME: usize = 48;
const LOAD_ATTACH_TYPE: usize = 68;
const LOAD_BTF_FD: usize = 72;
const LOAD_FUNC_INFO_REC_SIZE: usize = 76;
const LOAD_FUNC_INFO: usize = 80;
const LOAD_FUNC_INFO_CNT: usize = 88;
const LOAD_ATTACH_BTF_ID: usize = 108;
const LOAD_FD_ARRAY: usize = 120;
pub(crate) const LOAD_LOG_TRUE_SIZE: usize = 140;
const TEST_FD: usize = 0;
const TEST_RETVAL: usize = 4;
const TEST_CTX_SIZE_IN: usize = 40;
const TEST_CTX_IN: usize = 48;
const TEST_FLAGS: usize = 64;
const TEST_CPU: usize = 68;
const RAWTP_NAME: usize = 0;
const RAWTP_FD: usize = 8;
const RAWTP_COOKIE: usize = 16;

/// `BPF_F_TEST_RUN_ON_CPU`.
const TEST_RUN_ON_CPU: u32 = 1;

/// The largest log buffer (the kernel refuses a `log_size` of 2^30 or more).
const LOG_MAX: usize = (1 << 30) - 1;

static LICENSE: &[u8] = b"GPL\0";

/// The `PROG_LOAD` attribute, without the log. `code` must stay alive and unmoved
/// while the attribute is used.
pub fn load_attr(spec: &ProgSpec<'_>, code: &[u8]) -> Attr {
    let mut a = Attr::new();
    a.set_u32(LOAD_TYPE, spec.prog_type as u32);
    a.set_u32(LOAD_INSN_CNT, (code.len() / 8) as u32);
    a.set_ptr(LOAD_INSNS, code.as_ptr());
    a.set_ptr(LOAD_LICENSE, LICENSE.as_ptr());
    a.set_bytes(LOAD_NAME, &obj_name(spec.name));
    a.set_u32(LOAD_ATTACH_TYPE, spec.expected_attach_type as u32);
    a.set_u32(LOAD_ATTACH_BTF_ID, spec.attach_btf_id);
    if !spec.fd_array.is_empty() {
        a.set_ptr(LOAD_FD_ARRAY, spec.fd_array.as_ptr());
    }
    a
}

/// A loaded program; unloaded when dropped (and no link holds it).
#[derive(Debug)]
pub struct ProgFd {
    fd: OwnedFd,
    sys: SysRef,
    prog_type: ProgType,
}

impl ProgFd {
    /// A second descriptor of the same program (for another thread's links).
    pub fn try_clone(&self) -> std::io::Result<ProgFd> {
        Ok(ProgFd {
            fd: self.fd.try_clone()?,
            sys: self.sys.clone(),
            prog_type: self.prog_type,
        })
    }

    /// Load a program. Tries without a log first (fast); if the kernel refuses,
    /// loads again with `log_level` 1, growing the buffer on ENOSPC, so the error
    /// carries the whole verifier log.
    pub fn load(sys: &SysRef, spec: &ProgSpec<'_>) -> Result<ProgFd, ProgError> {
        ProgFd::load_logged(sys, spec).map(|(fd, _)| fd)
    }

    /// [`ProgFd::load`], also returning the verifier's log of a successful load
    /// when `spec.keep_log` asks for it (empty otherwise).
    pub fn load_logged(sys: &SysRef, spec: &ProgSpec<'_>) -> Result<(ProgFd, String), ProgError> {
        let code = encode_all(spec.insns);
        let mut a = load_attr(spec, &code);
        // Programs with callbacks need BTF func_info: one record per subprogram.
        let mut func_info: Vec<u32> = Vec::new();
        let mut _btf: Option<OwnedFd> = None;
        if uses_callbacks(spec.insns) {
            let starts = subprog_starts(spec.insns);
            let names: Vec<String> = (0..starts.len()).map(|i| format!("dt_f{i}")).collect();
            let refs: Vec<&str> = names.iter().map(String::as_str).collect();
            let btf = load_btf(sys, &func_btf(&refs)).map_err(ProgError::Btf)?;
            for (i, off) in starts.iter().enumerate() {
                func_info.extend([*off, FIRST_FUNC_ID + i as u32]);
            }
            a.set_u32(LOAD_BTF_FD, btf.as_raw_fd() as u32);
            a.set_u32(LOAD_FUNC_INFO_REC_SIZE, 8);
            a.set_ptr(LOAD_FUNC_INFO, func_info.as_ptr());
            a.set_u32(LOAD_FUNC_INFO_CNT, starts.len() as u32);
            _btf = Some(btf);
        }
        let limit = spec.log_limit.clamp(128, LOG_MAX);
        let errno = if let Some(size) = spec.keep_log {
            // SAFETY: as below; `a` points at live buffers for the call.
            let (r, log, incomplete) = unsafe { load_with_log(sys, &a, size.min(limit), limit) };
            match r {
                Ok(fd) => return ProgFd::wrap(sys, spec, fd).map(|p| (p, log)),
                // The log did not fit: load again without it for the
                // program's own result.
                Err(_) if incomplete => {
                    let mut plain = a.clone();
                    // SAFETY: as below.
                    match unsafe { sys.bpf(Cmd::ProgLoad, &mut plain) } {
                        Ok(fd) => return ProgFd::wrap(sys, spec, fd).map(|p| (p, log)),
                        Err(errno) => {
                            return Err(ProgError::Load {
                                name: spec.name.to_string(),
                                errno,
                                log,
                                log_incomplete: true,
                            })
                        }
                    }
                }
                Err(errno) => {
                    return Err(ProgError::Load {
                        name: spec.name.to_string(),
                        errno,
                        log,
                        log_incomplete: false,
                    })
                }
            }
        } else {
            let mut first_attr = a.clone();
            // SAFETY: the instructions, license, fd_array and func_info pointed to
            // by the attribute are borrowed from `code`, a static, `spec` and
            // `func_info`, all alive for the call; the BTF fd is held open in `_btf`.
            match unsafe { sys.bpf(Cmd::ProgLoad, &mut first_attr) } {
                Ok(fd) => return ProgFd::wrap(sys, spec, fd).map(|p| (p, String::new())),
                Err(e) => e,
            }
        };
        // Failures the verifier does not explain: do not bother re-verifying.
        // (E2BIG is explained when the verifier gave up on the program's
        // size or complexity: "BPF program is too large. Processed ...".)
        if matches!(errno.0, libc::EPERM | libc::ENOSYS | libc::EBADF) {
            return Err(ProgError::Load {
                name: spec.name.to_string(),
                errno,
                log: String::new(),
                log_incomplete: false,
            });
        }
        // The whole bound at once: a verification can take seconds, and the
        // buffer's pages cost nothing until the kernel writes them.
        // SAFETY: as above; `a` points at the same live buffers.
        let (r, log, incomplete) = unsafe { load_with_log(sys, &a, limit, limit) };
        match r {
            Ok(fd) => ProgFd::wrap(sys, spec, fd).map(|p| (p, String::new())),
            // The first load's errno is the program's; a logged load that ran
            // out of log space says only ENOSPC.
            Err(again) => Err(ProgError::Load {
                name: spec.name.to_string(),
                errno: if incomplete { errno } else { again },
                log,
                log_incomplete: incomplete,
            }),
        }
    }

    /// Load a program once, without a verifier log: only the errno on failure.
    /// For feature probes, where the errno alone answers the question and a
    /// second, logged load (1 MiB buffer) would only cost time. Programs that
    /// need BTF func_info (callbacks) are refused with EINVAL; use [`ProgFd::load`].
    pub fn load_errno(sys: &SysRef, spec: &ProgSpec<'_>) -> Result<ProgFd, Errno> {
        if uses_callbacks(spec.insns) {
            return Err(Errno(libc::EINVAL));
        }
        let code = encode_all(spec.insns);
        let mut a = load_attr(spec, &code);
        // SAFETY: the instructions, license and fd_array pointed to by the
        // attribute are borrowed from `code`, a static and `spec`, all alive for
        // the call; no log buffer is given.
        let fd = unsafe { sys.bpf(Cmd::ProgLoad, &mut a) }?;
        ProgFd::wrap(sys, spec, fd).map_err(|_| Errno(libc::EBADF))
    }

    fn wrap(sys: &SysRef, spec: &ProgSpec<'_>, fd: i64) -> Result<ProgFd, ProgError> {
        // SAFETY: PROG_LOAD returns a new fd that we now own.
        let fd = unsafe { owned_fd(fd) }.map_err(|errno| ProgError::Load {
            name: spec.name.to_string(),
            errno,
            log: String::new(),
            log_incomplete: false,
        })?;
        Ok(ProgFd {
            fd,
            sys: sys.clone(),
            prog_type: spec.prog_type,
        })
    }

    /// The interface to the kernel this program was loaded through.
    pub fn sys(&self) -> &SysRef {
        &self.sys
    }

    pub fn prog_type(&self) -> ProgType {
        self.prog_type
    }

    /// The kernel's id for this program.
    pub fn id(&self) -> Result<u32, ProgError> {
        obj_id(&self.sys, self.fd.as_fd()).map_err(ProgError::Info)
    }

    /// Run a raw-tracepoint program once in the calling thread with `args` as its
    /// context (`BPF_PROG_TEST_RUN`), optionally on a given CPU. Returns r0.
    pub fn test_run_raw_tp(&self, args: &[u64], cpu: Option<u32>) -> Result<u32, ProgError> {
        if args.len() > 12 {
            return Err(ProgError::TooManyArgs(args.len()));
        }
        let mut a = Attr::new();
        a.set_u32(TEST_FD, self.fd.as_raw_fd() as u32);
        if !args.is_empty() {
            a.set_u32(TEST_CTX_SIZE_IN, std::mem::size_of_val(args) as u32);
            a.set_ptr(TEST_CTX_IN, args.as_ptr());
        }
        if let Some(c) = cpu {
            a.set_u32(TEST_FLAGS, TEST_RUN_ON_CPU);
            a.set_u32(TEST_CPU, c);
        }
        // SAFETY: ctx_in points to `args`, ctx_size_in bytes long, alive for the call.
        unsafe { self.sys.bpf(Cmd::ProgTestRun, &mut a) }
            .map_err(|errno| ProgError::TestRun { errno })?;
        Ok(a.get_u32(TEST_RETVAL))
    }

    /// Attach this raw-tracepoint program to the raw tracepoint `name` (e.g.
    /// `sys_enter`). Detached when the returned link is dropped.
    pub fn attach_raw_tp(&self, name: &str) -> Result<Link, ProgError> {
        self.attach_raw_tp_cookie(name, 0)
    }

    /// Like [`Self::attach_raw_tp`]; the program reads `cookie` with
    /// `bpf_get_attach_cookie` (Linux 6.10+; a non-zero cookie fails on older kernels).
    pub fn attach_raw_tp_cookie(&self, name: &str, cookie: u64) -> Result<Link, ProgError> {
        let cname = CString::new(name).map_err(|_| ProgError::BadName(name.to_string()))?;
        let mut a = Attr::new();
        a.set_ptr(RAWTP_NAME, cname.as_ptr());
        a.set_u32(RAWTP_FD, self.fd.as_raw_fd() as u32);
        a.set_u64(RAWTP_COOKIE, cookie);
        let err = |errno| ProgError::Attach {
            target: format!("raw tracepoint {name}"),
            errno,
        };
        // SAFETY: name points to a NUL-terminated string alive for the call.
        let r = unsafe { self.sys.bpf(Cmd::RawTracepointOpen, &mut a) }.map_err(err)?;
        // SAFETY: RAW_TRACEPOINT_OPEN returns a new fd that we now own.
        let fd = unsafe { owned_fd(r) }.map_err(err)?;
        Ok(Link { fd })
    }
}

impl ProgFd {
    /// Attach this fentry/fexit program to the kernel function it was loaded
    /// for (`attach_btf_id`): `BPF_RAW_TRACEPOINT_OPEN` with no name. `what`
    /// names the target in errors.
    pub fn attach_tracing(&self, what: &str) -> Result<Link, ProgError> {
        let mut a = Attr::new();
        a.set_u32(RAWTP_FD, self.fd.as_raw_fd() as u32);
        let err = |errno| ProgError::Attach {
            target: what.to_string(),
            errno,
        };
        // SAFETY: the attr holds no pointers (a null name selects the BTF target).
        let r = unsafe { self.sys.bpf(Cmd::RawTracepointOpen, &mut a) }.map_err(err)?;
        // SAFETY: RAW_TRACEPOINT_OPEN returns a new fd that we now own.
        let fd = unsafe { owned_fd(r) }.map_err(err)?;
        Ok(Link { fd })
    }
}

/// Load with the verifier log on, starting with a `start`-byte buffer and growing
/// it on ENOSPC up to `limit` bytes; returns the result, the log, and whether
/// the log needed more than `limit` (the result is then ENOSPC).
///
/// # Safety
/// Every pointer in `base` must be valid for a `PROG_LOAD` for the whole call.
unsafe fn load_with_log(
    sys: &SysRef,
    base: &Attr,
    start: usize,
    limit: usize,
) -> (Result<i64, Errno>, String, bool) {
    let mut size = start.clamp(128, limit.max(128));
    loop {
        let mut buf = vec![0u8; size];
        let mut a = base.clone();
        a.set_u32(LOAD_LOG_LEVEL, 1);
        a.set_u32(LOAD_LOG_SIZE, size as u32);
        a.set_ptr(LOAD_LOG_BUF, buf.as_mut_ptr());
        // SAFETY: the caller vouches for `base`'s pointers; the log buffer is
        // writable and log_size bytes long.
        let r = unsafe { sys.bpf(Cmd::ProgLoad, &mut a) };
        let true_size = a.get_u32(LOAD_LOG_TRUE_SIZE) as usize;
        match r {
            Err(Errno(libc::ENOSPC)) if size < limit => {
                size = if true_size > size {
                    true_size.min(limit)
                } else {
                    size.saturating_mul(4).min(limit)
                };
            }
            Err(Errno(libc::ENOSPC)) => return (r, log_text(&buf), true),
            r => return (r, log_text(&buf), false),
        }
    }
}

/// The NUL-terminated text of a log buffer.
fn log_text(buf: &[u8]) -> String {
    let end = buf.iter().position(|b| *b == 0).unwrap_or(buf.len());
    String::from_utf8_lossy(&buf[..end]).into_owned()
}

impl AsFd for ProgFd {
    fn as_fd(&self) -> BorrowedFd<'_> {
        self.fd.as_fd()
    }
}

impl AsRawFd for ProgFd {
    fn as_raw_fd(&self) -> RawFd {
        self.fd.as_raw_fd()
    }
}

/// A BPF link (raw tracepoint, perf event link, ...): the program stays attached
/// while this lives and is detached when it is dropped.
#[derive(Debug)]
pub struct Link {
    pub(crate) fd: OwnedFd,
}

impl AsFd for Link {
    fn as_fd(&self) -> BorrowedFd<'_> {
        self.fd.as_fd()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fake::FakeSys;
    use dtrace_bpf::Reg;
    use std::sync::Arc;

    #[test]
    fn load_failure_returns_the_full_log() {
        // The verifier refuses the program and its log needs 3 MiB.
        let fake = Arc::new(FakeSys::new());
        fake.reject_programs("0: R1=ctx\ninvalid mem access 'scalar'\n", 3 << 20);
        let sys: SysRef = fake.clone();
        let insns = [Insn::mov64_imm(Reg::R0, 0), Insn::exit()];
        let spec = ProgSpec::new(ProgType::RawTracepoint, "t", &insns);
        let err = ProgFd::load(&sys, &spec).err();
        let log = err.as_ref().and_then(|e| e.verifier_log()).unwrap_or("");
        assert!(log.contains("invalid mem access"), "{err:?}");
        assert!(matches!(
            err,
            Some(ProgError::Load {
                errno: Errno(libc::EACCES),
                ..
            })
        ));
        assert_eq!(
            fake.log_requests(),
            vec![(0, 0), (1, DEFAULT_LOG_LIMIT as u32)]
        );
    }

    #[test]
    fn log_bounded_by_limit() {
        // The log needs 40 MiB, more than DTrace's default bpflogsize: it is
        // incomplete, and the error keeps the first load's errno.
        let fake = Arc::new(FakeSys::new());
        fake.reject_programs("0: R1=ctx\nBPF program is too large.\n", 40 << 20);
        let sys: SysRef = fake.clone();
        let insns = [Insn::mov64_imm(Reg::R0, 0), Insn::exit()];
        let spec = ProgSpec::new(ProgType::RawTracepoint, "t", &insns);
        let err = ProgFd::load(&sys, &spec).err();
        assert!(
            matches!(
                err,
                Some(ProgError::Load {
                    errno: Errno(libc::EACCES),
                    log_incomplete: true,
                    ..
                })
            ),
            "{err:?}"
        );
        assert_eq!(
            fake.log_requests(),
            vec![(0, 0), (1, DEFAULT_LOG_LIMIT as u32)]
        );
        // A larger bpflogsize holds it.
        let mut spec = ProgSpec::new(ProgType::RawTracepoint, "t", &insns);
        spec.log_limit = 64 << 20;
        let err = ProgFd::load(&sys, &spec).err();
        assert!(
            matches!(
                err,
                Some(ProgError::Load {
                    log_incomplete: false,
                    ..
                })
            ),
            "{err:?}"
        );
        // A small one is used from the start.
        let mut spec = ProgSpec::new(ProgType::RawTracepoint, "t", &insns);
        spec.log_limit = 4096;
        let before = fake.log_requests().len();
        let _ = ProgFd::load(&sys, &spec);
        assert_eq!(fake.log_requests()[before..], [(0, 0), (1, 4096)]);
    }

    #[test]
    fn load_attr_layout() {
        let insns = [Insn::mov64_imm(Reg::R0, 0), Insn::exit()];
        let fds = [7, 9];
        let mut spec = ProgSpec::new(ProgType::RawTracepoint, "dt_clause_1", &insns);
        spec.fd_array = &fds;
        let code = encode_all(&insns);
        let a = load_attr(&spec, &code);
        assert_eq!(a.get_u32(0), 17);
        assert_eq!(a.get_u32(4), 2);
        assert_eq!(a.get_u64(8), code.as_ptr() as u64);
        assert_eq!(a.get_u64(120), fds.as_ptr() as u64);
        assert_eq!(&a.as_bytes()[48..60], b"dt_clause_1\0");
        assert_eq!(a.get_u32(24), 0, "no log on the first try");
    }

    #[test]
    fn log_text_stops_at_nul() {
        assert_eq!(log_text(b"abc\0def"), "abc");
        assert_eq!(log_text(b"abc"), "abc");
    }
}
