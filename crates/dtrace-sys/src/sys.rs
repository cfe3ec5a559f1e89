//! The choke point: every kernel call dtrace makes for BPF and perf goes through
//! the [`Sys`] trait. [`Kernel`] is the real implementation; tests substitute fakes.
//!
//! Architecture invariant: no other module calls `bpf(2)`, `perf_event_open(2)` or
//! the perf ioctls directly.

use std::fmt;
use std::os::fd::{AsRawFd, BorrowedFd, FromRawFd, OwnedFd};
use std::sync::Arc;

/// A kernel error number.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Errno(pub i32);

/// The kernel-internal "not supported" errno some BPF commands leak to user space.
pub const ENOTSUPP: i32 = 524;

impl Errno {
    /// The calling thread's last error.
    pub fn last() -> Errno {
        Errno(std::io::Error::last_os_error().raw_os_error().unwrap_or(0))
    }

    /// True for the "this command or map type does not support that" family.
    pub fn is_unsupported(self) -> bool {
        matches!(self.0, libc::EINVAL | libc::EOPNOTSUPP | ENOTSUPP)
    }

    /// ESRCH: the process named has exited.
    pub fn is_no_process(self) -> bool {
        self.0 == libc::ESRCH
    }
}

impl fmt::Display for Errno {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.0 == ENOTSUPP {
            return f.write_str("Operation not supported (ENOTSUPP)");
        }
        let e = std::io::Error::from_raw_os_error(self.0);
        // io::Error's Display appends " (os error N)"; keep only the message.
        let s = e.to_string();
        match s.find(" (os error") {
            Some(i) => f.write_str(&s[..i]),
            None => f.write_str(&s),
        }
    }
}

impl std::error::Error for Errno {}

/// `bpf(2)` commands (uapi `enum bpf_cmd`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[repr(u32)]
pub enum Cmd {
    MapCreate = 0,
    MapLookupElem = 1,
    MapUpdateElem = 2,
    MapDeleteElem = 3,
    MapGetNextKey = 4,
    ProgLoad = 5,
    ProgTestRun = 10,
    ProgGetNextId = 11,
    ProgGetFdById = 13,
    ObjGetInfoByFd = 15,
    RawTracepointOpen = 17,
    BtfLoad = 18,
    MapFreeze = 22,
    MapLookupBatch = 24,
    LinkCreate = 28,
}

/// Bytes of `union bpf_attr` we pass (the uapi size as of Linux 6.1; newer kernels
/// zero-fill the rest, older ones check that our unused tail is zero).
pub const ATTR_SIZE: usize = 144;

/// A zero-initialised `union bpf_attr`, written field by field at the uapi offsets.
/// Pointers are stored as `u64`; whoever stores one is responsible for keeping the
/// pointee alive and large enough until the command returns.
#[derive(Clone, PartialEq, Eq)]
#[repr(C, align(8))]
pub struct Attr {
    bytes: [u8; ATTR_SIZE],
}

impl Default for Attr {
    fn default() -> Self {
        Attr::new()
    }
}

impl fmt::Debug for Attr {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let last = self
            .bytes
            .iter()
            .rposition(|b| *b != 0)
            .map_or(0, |i| i + 1);
        write!(f, "Attr({:02x?})", &self.bytes[..last])
    }
}

impl Attr {
    pub fn new() -> Attr {
        Attr {
            bytes: [0; ATTR_SIZE],
        }
    }

    /// Store `v` at byte offset `off` (native endian). Offsets are compile-time
    /// constants of this crate; an out-of-range one is ignored (and caught by tests).
    pub fn set_u32(&mut self, off: usize, v: u32) {
        self.set_bytes(off, &v.to_ne_bytes());
    }

    pub fn set_u64(&mut self, off: usize, v: u64) {
        self.set_bytes(off, &v.to_ne_bytes());
    }

    /// Store a pointer as a `__aligned_u64`.
    pub fn set_ptr<T>(&mut self, off: usize, p: *const T) {
        self.set_u64(off, p as usize as u64);
    }

    pub fn set_bytes(&mut self, off: usize, v: &[u8]) {
        debug_assert!(off + v.len() <= ATTR_SIZE, "attr offset {off} out of range");
        if let Some(dst) = self.bytes.get_mut(off..off + v.len()) {
            dst.copy_from_slice(v);
        }
    }

    pub fn get_u32(&self, off: usize) -> u32 {
        u32::from_ne_bytes(read_field(&self.bytes, off))
    }

    pub fn get_u64(&self, off: usize) -> u64 {
        u64::from_ne_bytes(read_field(&self.bytes, off))
    }

    pub fn as_bytes(&self) -> &[u8] {
        &self.bytes
    }

    fn as_mut_ptr(&mut self) -> *mut u8 {
        self.bytes.as_mut_ptr()
    }
}

/// `N` bytes of an attribute struct at `off`; zeroes if out of range.
fn read_field<const N: usize>(bytes: &[u8], off: usize) -> [u8; N] {
    let mut b = [0u8; N];
    if let Some(src) = bytes.get(off..off + N) {
        b.copy_from_slice(src);
    }
    b
}

/// Store `v` at `off` of an attribute struct; out-of-range stores are ignored.
fn write_field(bytes: &mut [u8], off: usize, v: &[u8]) {
    if let Some(dst) = bytes.get_mut(off..off + v.len()) {
        dst.copy_from_slice(v);
    }
}

/// Size of `struct perf_event_attr` we pass (`PERF_ATTR_SIZE_VER8`).
pub const PERF_ATTR_SIZE: usize = 128;

/// A zero-initialised `struct perf_event_attr`.
#[derive(Clone, PartialEq, Eq, Debug)]
#[repr(C, align(8))]
pub struct PerfAttr {
    bytes: [u8; PERF_ATTR_SIZE],
}

impl Default for PerfAttr {
    fn default() -> Self {
        PerfAttr::new()
    }
}

impl PerfAttr {
    pub fn new() -> PerfAttr {
        let mut a = PerfAttr {
            bytes: [0; PERF_ATTR_SIZE],
        };
        a.set_u32(4, PERF_ATTR_SIZE as u32);
        a
    }

    pub fn set_u32(&mut self, off: usize, v: u32) {
        write_field(&mut self.bytes, off, &v.to_ne_bytes());
    }

    pub fn set_u64(&mut self, off: usize, v: u64) {
        write_field(&mut self.bytes, off, &v.to_ne_bytes());
    }

    pub fn get_u64(&self, off: usize) -> u64 {
        u64::from_ne_bytes(read_field(&self.bytes, off))
    }

    pub fn get_u32(&self, off: usize) -> u32 {
        u32::from_ne_bytes(read_field(&self.bytes, off))
    }

    pub fn as_bytes(&self) -> &[u8] {
        &self.bytes
    }
}

/// The perf ioctls dtrace uses; all take an integer argument.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PerfIoctl {
    Enable,
    Disable,
    /// Attach the BPF program with this fd (the legacy, link-less way).
    SetBpf(i32),
}

impl PerfIoctl {
    fn request_and_arg(self) -> (libc::c_ulong, libc::c_ulong) {
        match self {
            PerfIoctl::Enable => (0x2400, 0),
            PerfIoctl::Disable => (0x2401, 0),
            PerfIoctl::SetBpf(fd) => (0x4004_2408, fd as u32 as libc::c_ulong),
        }
    }
}

/// The kernel interface, as a trait so tests can fake it.
///
/// Implementations that hand out file descriptors must return real, owned fds
/// (a fake can return `dup`s of `/dev/null`): callers wrap them in [`OwnedFd`].
pub trait Sys: Send + Sync + fmt::Debug {
    /// `bpf(cmd, attr, size)`. Returns the non-negative result (often a new fd).
    ///
    /// # Safety
    /// Every pointer stored in `attr` must be valid, for the access `cmd` makes
    /// (reads of inputs, writes of outputs, at the sizes given in `attr`), until
    /// this call returns.
    unsafe fn bpf(&self, cmd: Cmd, attr: &mut Attr) -> Result<i64, Errno>;

    /// `perf_event_open(attr, pid, cpu, group_fd, flags)`.
    fn perf_event_open(
        &self,
        attr: &PerfAttr,
        pid: i32,
        cpu: i32,
        group_fd: i32,
        flags: u64,
    ) -> Result<OwnedFd, Errno>;

    /// One of the integer-argument perf ioctls on a perf event fd.
    fn perf_ioctl(&self, fd: BorrowedFd<'_>, op: PerfIoctl) -> Result<(), Errno>;
}

/// A shared handle to the kernel interface.
pub type SysRef = Arc<dyn Sys>;

/// The real kernel.
#[derive(Debug, Default, Clone, Copy)]
pub struct Kernel;

/// The real kernel as a [`SysRef`].
pub fn kernel() -> SysRef {
    Arc::new(Kernel)
}

impl Sys for Kernel {
    unsafe fn bpf(&self, cmd: Cmd, attr: &mut Attr) -> Result<i64, Errno> {
        let ptr = attr.as_mut_ptr();
        // SAFETY: `ptr` points to ATTR_SIZE writable bytes owned by `attr`, which the
        // kernel may write back into; the caller guarantees every pointer inside it.
        let r = unsafe { libc::syscall(libc::SYS_bpf, cmd as u32 as libc::c_long, ptr, ATTR_SIZE) };
        if r < 0 {
            Err(Errno::last())
        } else {
            Ok(r)
        }
    }

    fn perf_event_open(
        &self,
        attr: &PerfAttr,
        pid: i32,
        cpu: i32,
        group_fd: i32,
        flags: u64,
    ) -> Result<OwnedFd, Errno> {
        // The kernel may write the size it supports back on E2BIG; use a copy.
        let mut copy = attr.clone();
        let ptr = copy.bytes.as_mut_ptr();
        // SAFETY: `ptr` points to a PERF_ATTR_SIZE-byte perf_event_attr whose size
        // field says PERF_ATTR_SIZE; it has no pointers the kernel follows for the
        // event kinds we open (config1/config2 pointers are the caller's only for
        // kprobe/uprobe PMUs, whose builders keep the strings alive).
        let r = unsafe {
            libc::syscall(
                libc::SYS_perf_event_open,
                ptr,
                pid as libc::c_long,
                cpu as libc::c_long,
                group_fd as libc::c_long,
                flags as libc::c_ulong,
            )
        };
        if r < 0 {
            return Err(Errno::last());
        }
        // SAFETY: the kernel returned a new file descriptor that nothing else owns.
        Ok(unsafe { OwnedFd::from_raw_fd(r as i32) })
    }

    fn perf_ioctl(&self, fd: BorrowedFd<'_>, op: PerfIoctl) -> Result<(), Errno> {
        let (req, arg) = op.request_and_arg();
        // SAFETY: the perf ioctls used here take an integer argument, not a pointer;
        // `fd` is a live descriptor borrowed for the call.
        let r = unsafe { libc::ioctl(fd.as_raw_fd(), req as _, arg) };
        if r < 0 {
            Err(Errno::last())
        } else {
            Ok(())
        }
    }
}

/// Wrap a non-negative fd returned by a [`Sys`] call.
///
/// # Safety
/// `fd` must be a newly created descriptor that nothing else owns.
pub(crate) unsafe fn owned_fd(fd: i64) -> Result<OwnedFd, Errno> {
    if fd < 0 || fd > i32::MAX as i64 {
        return Err(Errno(libc::EBADF));
    }
    // SAFETY: forwarded from the caller's contract.
    Ok(unsafe { OwnedFd::from_raw_fd(fd as i32) })
}

/// Copy a name into a fixed `char[16]` field: at most 15 bytes, alphanumerics,
/// `_` and `.` only (what the kernel accepts for map and program names).
pub(crate) fn obj_name(name: &str) -> [u8; 16] {
    let mut out = [0u8; 16];
    let mut n = 0;
    for b in name.bytes() {
        if n == 15 {
            break;
        }
        if b.is_ascii_alphanumeric() || b == b'_' || b == b'.' {
            out[n] = b;
            n += 1;
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn attr_fields_land_at_offsets() {
        let mut a = Attr::new();
        a.set_u32(4, 0x1122_3344);
        a.set_u64(8, 0x0102_0304_0506_0708);
        assert_eq!(a.get_u32(4), 0x1122_3344);
        assert_eq!(a.get_u64(8), 0x0102_0304_0506_0708);
        assert_eq!(a.as_bytes()[4], 0x44);
        assert_eq!(a.get_u32(ATTR_SIZE), 0, "out of range reads as zero");
    }

    #[test]
    fn perf_attr_has_size() {
        let a = PerfAttr::new();
        assert_eq!(a.get_u32(4), 128);
    }

    #[test]
    fn names_are_sanitised() {
        assert_eq!(&obj_name("dt_aggs")[..8], b"dt_aggs\0");
        assert_eq!(&obj_name("a-b c")[..4], b"abc\0");
        assert_eq!(obj_name("0123456789abcdefXYZ")[15], 0);
    }

    #[test]
    fn errno_text() {
        assert_eq!(Errno(libc::EPERM).to_string(), "Operation not permitted");
        assert!(Errno(ENOTSUPP).to_string().contains("ENOTSUPP"));
        assert!(Errno(ENOTSUPP).is_unsupported());
    }
}
