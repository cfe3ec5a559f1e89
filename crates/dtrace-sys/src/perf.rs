//! Perf events: software cpu-clock sampling (profile/tick) and tracepoints, with a
//! BPF program attached by a BPF link (or the legacy `PERF_EVENT_IOC_SET_BPF`).
//!
//! Architecture invariant: a [`PerfEvent`] that is dropped (also while unwinding)
//! is disabled first, then its link and event fds are closed: nothing stays attached.

use crate::prog::ProgFd;
use crate::sys::{owned_fd, Attr, Cmd, Errno, PerfAttr, PerfIoctl, SysRef};
use std::ffi::CString;
use std::fmt;
use std::os::fd::{AsFd, AsRawFd, BorrowedFd, OwnedFd};

/// `perf_event_attr.type` values.
pub const PERF_TYPE_SOFTWARE: u32 = 1;
pub const PERF_TYPE_TRACEPOINT: u32 = 2;
/// `config` of the software cpu-clock event.
pub const PERF_COUNT_SW_CPU_CLOCK: u64 = 0;

/// Byte offsets in `struct perf_event_attr`.
pub const ATTR_TYPE: usize = 0;
pub const ATTR_CONFIG: usize = 8;
pub const ATTR_SAMPLE_PERIOD: usize = 16;
pub const ATTR_SAMPLE_TYPE: usize = 24;
pub const ATTR_FLAGS: usize = 40;
pub const ATTR_WAKEUP_EVENTS: usize = 48;
pub const ATTR_CONFIG1: usize = 56;
pub const ATTR_CONFIG2: usize = 64;

/// Bits of the flags word at [`ATTR_FLAGS`].
pub const FLAG_DISABLED: u64 = 1 << 0;
pub const FLAG_FREQ: u64 = 1 << 10;

/// `perf_event_open` flag: close on exec.
const PERF_FLAG_FD_CLOEXEC: u64 = 1 << 3;

// uapi offsets of `union bpf_attr.link_create`.
const LINK_PROG_FD: usize = 0;
const LINK_TARGET_FD: usize = 4;
const LINK_ATTACH_TYPE: usize = 8;
const LINK_PERF_COOKIE: usize = 16;
/// `BPF_PERF_EVENT` attach type.
const ATTACH_PERF_EVENT: u32 = 41;

/// Perf event errors.
#[derive(Debug)]
pub enum PerfError {
    Open { what: String, errno: Errno },
    Attach { errno: Errno },
    Ioctl { op: &'static str, errno: Errno },
    Pmu { name: String, err: std::io::Error },
}

impl fmt::Display for PerfError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            PerfError::Open { what, errno } => write!(f, "cannot open perf event {what}: {errno}"),
            PerfError::Attach { errno } => {
                write!(f, "cannot attach BPF program to perf event: {errno}")
            }
            PerfError::Ioctl { op, errno } => write!(f, "perf event {op} failed: {errno}"),
            PerfError::Pmu { name, err } => write!(f, "cannot read PMU {name}: {err}"),
        }
    }
}

impl std::error::Error for PerfError {}

/// Attribute of a software cpu-clock sampling event firing every `period_ns` of CPU time.
pub fn cpu_clock_attr(period_ns: u64) -> PerfAttr {
    let mut a = PerfAttr::new();
    a.set_u32(ATTR_TYPE, PERF_TYPE_SOFTWARE);
    a.set_u64(ATTR_CONFIG, PERF_COUNT_SW_CPU_CLOCK);
    a.set_u64(ATTR_SAMPLE_PERIOD, period_ns.max(1));
    a.set_u64(ATTR_FLAGS, FLAG_DISABLED);
    a
}

/// Attribute of a tracepoint event with tracefs id `event_id`, firing on every hit.
pub fn tracepoint_attr(event_id: u32) -> PerfAttr {
    let mut a = PerfAttr::new();
    a.set_u32(ATTR_TYPE, PERF_TYPE_TRACEPOINT);
    a.set_u64(ATTR_CONFIG, event_id as u64);
    a.set_u64(ATTR_SAMPLE_PERIOD, 1);
    a.set_u32(ATTR_WAKEUP_EVENTS, 1);
    a.set_u64(ATTR_FLAGS, FLAG_DISABLED);
    a
}

/// `perf_event_attr.type` of the generic hardware events.
pub const PERF_TYPE_HARDWARE: u32 = 0;
/// Flags-word bits: count only kernel mode / only user mode.
pub const FLAG_EXCLUDE_USER: u64 = 1 << 4;
pub const FLAG_EXCLUDE_KERNEL: u64 = 1 << 5;

/// Attribute of a generic hardware counter (`PERF_COUNT_HW_*` `config`)
/// sampling every `count` events, counting user mode, kernel mode or both.
pub fn hardware_attr(config: u64, count: u64, user: bool, kernel: bool) -> PerfAttr {
    let mut a = PerfAttr::new();
    a.set_u32(ATTR_TYPE, PERF_TYPE_HARDWARE);
    a.set_u64(ATTR_CONFIG, config);
    a.set_u64(ATTR_SAMPLE_PERIOD, count.max(1));
    let mut flags = FLAG_DISABLED;
    if !user {
        flags |= FLAG_EXCLUDE_USER;
    }
    if !kernel {
        flags |= FLAG_EXCLUDE_KERNEL;
    }
    a.set_u64(ATTR_FLAGS, flags);
    a
}

/// Whether this machine has a hardware PMU (`cpu`, or `cpu_core` on hybrid
/// CPUs) for generic hardware events.
pub fn has_hardware_pmu() -> bool {
    pmu_type("cpu").is_ok() || pmu_type("cpu_core").is_ok()
}

/// The dynamic PMU type number of `name` (e.g. `kprobe`, `uprobe`).
pub fn pmu_type(name: &str) -> Result<u32, PerfError> {
    let path = format!("/sys/bus/event_source/devices/{name}/type");
    let err = |err| PerfError::Pmu {
        name: name.to_string(),
        err,
    };
    let text = std::fs::read_to_string(path).map_err(err)?;
    text.trim().parse::<u32>().map_err(|_| {
        err(std::io::Error::new(
            std::io::ErrorKind::InvalidData,
            "not a number",
        ))
    })
}

/// The bit of `config` that PMU `pmu`'s format field `field` occupies, from
/// `/sys/bus/event_source/devices/<pmu>/format/<field>` (e.g. `config:0`).
pub fn pmu_config_bit(pmu: &str, field: &str) -> Result<u32, PerfError> {
    let path = format!("/sys/bus/event_source/devices/{pmu}/format/{field}");
    let err = |err| PerfError::Pmu {
        name: format!("{pmu}/{field}"),
        err,
    };
    let text = std::fs::read_to_string(path).map_err(err)?;
    parse_config_bit(&text).ok_or_else(|| {
        err(std::io::Error::new(
            std::io::ErrorKind::InvalidData,
            format!("unexpected format {text:?}"),
        ))
    })
}

/// Parse a PMU format `config:N` or `config:N-M` into its first bit.
pub fn parse_config_bit(text: &str) -> Option<u32> {
    let rest = text.trim().strip_prefix("config:")?;
    let first = rest.split('-').next()?;
    first.parse::<u32>().ok().filter(|b| *b < 64)
}

/// Where a probe created through a dynamic PMU (kprobe/uprobe) goes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ProbePoint<'a> {
    /// Kernel function `func` plus `offset` (kprobe PMU).
    Kernel { func: &'a str, offset: u64 },
    /// File `path` at file offset `offset`; `ref_ctr_offset` is the file offset of
    /// a USDT semaphore the kernel should maintain (0 for none) (uprobe PMU).
    User {
        path: &'a std::path::Path,
        offset: u64,
        ref_ctr_offset: u32,
    },
}

/// An open perf event, with at most one attached BPF program.
#[derive(Debug)]
pub struct PerfEvent {
    // Field order matters: the link is closed before the event.
    link: Option<OwnedFd>,
    fd: OwnedFd,
    sys: SysRef,
    cpu: i32,
}

impl PerfEvent {
    /// Open an event (disabled if `attr` says so) for all processes on `cpu`, or for
    /// process `pid` on any CPU (`cpu` -1).
    pub fn open(sys: &SysRef, attr: &PerfAttr, pid: i32, cpu: i32) -> Result<PerfEvent, PerfError> {
        let fd = sys
            .perf_event_open(attr, pid, cpu, -1, PERF_FLAG_FD_CLOEXEC)
            .map_err(|errno| PerfError::Open {
                what: format!(
                    "type {} config {} on cpu {cpu}",
                    attr.get_u32(ATTR_TYPE),
                    attr.get_u64(ATTR_CONFIG)
                ),
                errno,
            })?;
        Ok(PerfEvent {
            link: None,
            fd,
            sys: sys.clone(),
            cpu,
        })
    }

    /// A cpu-clock sampling event on `cpu`, all processes, disabled until attached.
    pub fn cpu_clock(sys: &SysRef, period_ns: u64, cpu: u32) -> Result<PerfEvent, PerfError> {
        PerfEvent::open(sys, &cpu_clock_attr(period_ns), -1, cpu as i32)
    }

    /// A tracepoint event, all processes, disabled until attached.
    ///
    /// Open ONE per tracepoint (on any online CPU) to run a program for hits on
    /// every CPU: the kernel keeps tracepoint programs on the tracepoint, not on
    /// the event, and refuses the same program twice (EEXIST).
    pub fn tracepoint(sys: &SysRef, event_id: u32, cpu: u32) -> Result<PerfEvent, PerfError> {
        PerfEvent::open(sys, &tracepoint_attr(event_id), -1, cpu as i32)
    }

    /// A kprobe/kretprobe or uprobe/uretprobe through the kprobe/uprobe PMU, for
    /// process `pid` (-1: all). Attach a `ProgType::Kprobe` program. Like
    /// tracepoints, one event serves all CPUs. The probe disappears with the event.
    pub fn probe(
        sys: &SysRef,
        point: &ProbePoint<'_>,
        retprobe: bool,
        pid: i32,
    ) -> Result<PerfEvent, PerfError> {
        let (pmu, name, off, ref_ctr) = match point {
            ProbePoint::Kernel { func, offset } => ("kprobe", func.as_bytes(), *offset, 0),
            ProbePoint::User {
                path,
                offset,
                ref_ctr_offset,
            } => {
                use std::os::unix::ffi::OsStrExt;
                (
                    "uprobe",
                    path.as_os_str().as_bytes(),
                    *offset,
                    *ref_ctr_offset,
                )
            }
        };
        let target = CString::new(name).map_err(|_| PerfError::Open {
            what: format!("{pmu} on {:?}", String::from_utf8_lossy(name)),
            errno: Errno(libc::EINVAL),
        })?;
        let mut config = 0u64;
        if retprobe {
            config |= 1 << pmu_config_bit(pmu, "retprobe")?;
        }
        if ref_ctr != 0 {
            config |= (ref_ctr as u64) << pmu_config_bit(pmu, "ref_ctr_offset")?;
        }
        let mut a = PerfAttr::new();
        a.set_u32(ATTR_TYPE, pmu_type(pmu)?);
        a.set_u64(ATTR_CONFIG, config);
        a.set_u64(ATTR_CONFIG1, target.as_ptr() as usize as u64);
        a.set_u64(ATTR_CONFIG2, off);
        a.set_u64(ATTR_FLAGS, FLAG_DISABLED);
        let cpu = if pid < 0 { 0 } else { -1 };
        // `target` outlives the call, so the pointer in config1 stays valid.
        let ev = PerfEvent::open(sys, &a, pid, cpu);
        drop(target);
        ev
    }

    pub fn cpu(&self) -> i32 {
        self.cpu
    }

    /// Attach `prog` with `BPF_LINK_CREATE` (the program sees `cookie` through
    /// `bpf_get_attach_cookie`) and enable the event. Falls back to
    /// `PERF_EVENT_IOC_SET_BPF` (no cookie) where links are not supported.
    pub fn attach(&mut self, prog: &ProgFd, cookie: u64) -> Result<(), PerfError> {
        let mut a = Attr::new();
        a.set_u32(LINK_PROG_FD, prog.as_raw_fd() as u32);
        a.set_u32(LINK_TARGET_FD, self.fd.as_raw_fd() as u32);
        a.set_u32(LINK_ATTACH_TYPE, ATTACH_PERF_EVENT);
        a.set_u64(LINK_PERF_COOKIE, cookie);
        // SAFETY: LINK_CREATE for a perf event holds no pointers.
        match unsafe { self.sys.bpf(Cmd::LinkCreate, &mut a) } {
            Ok(fd) => {
                // SAFETY: LINK_CREATE returns a new fd that we now own.
                let link = unsafe { owned_fd(fd) }.map_err(|errno| PerfError::Attach { errno })?;
                self.link = Some(link);
            }
            Err(e) if e.is_unsupported() => {
                let p = prog.as_raw_fd();
                self.sys
                    .perf_ioctl(self.fd.as_fd(), PerfIoctl::SetBpf(p))
                    .map_err(|errno| PerfError::Attach { errno })?;
            }
            Err(errno) => return Err(PerfError::Attach { errno }),
        }
        self.enable()
    }

    pub fn enable(&self) -> Result<(), PerfError> {
        self.sys
            .perf_ioctl(self.fd.as_fd(), PerfIoctl::Enable)
            .map_err(|errno| PerfError::Ioctl {
                op: "enable",
                errno,
            })
    }

    pub fn disable(&self) -> Result<(), PerfError> {
        self.sys
            .perf_ioctl(self.fd.as_fd(), PerfIoctl::Disable)
            .map_err(|errno| PerfError::Ioctl {
                op: "disable",
                errno,
            })
    }
}

impl Drop for PerfEvent {
    fn drop(&mut self) {
        // Stop it firing before the fds go; a failure changes nothing we can fix.
        let _ = self.disable();
    }
}

impl AsFd for PerfEvent {
    fn as_fd(&self) -> BorrowedFd<'_> {
        self.fd.as_fd()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fake::{Call, FakeSys};
    use crate::prog::{ProgSpec, ProgType};
    use dtrace_bpf::{Insn, Reg};
    use std::sync::Arc;

    #[test]
    fn falls_back_to_set_bpf_and_disables_on_drop() {
        // A kernel without BPF links.
        let fake = Arc::new(FakeSys::new());
        fake.fail(Cmd::LinkCreate, libc::EINVAL);
        let sys: SysRef = fake.clone();
        let insns = [Insn::mov64_imm(Reg::R0, 0), Insn::exit()];
        let prog = ProgFd::load(&sys, &ProgSpec::new(ProgType::PerfEvent, "p", &insns));
        let Ok(prog) = prog else {
            panic!("fake load failed: {prog:?}");
        };
        let mut ev = PerfEvent::cpu_clock(&sys, 1000, 0).ok();
        assert!(ev.as_mut().is_some_and(|e| e.attach(&prog, 7).is_ok()));
        let log = || {
            fake.calls()
                .into_iter()
                .filter_map(|c| match c {
                    Call::PerfIoctl(op) => Some(op),
                    _ => None,
                })
                .collect::<Vec<_>>()
        };
        let set = PerfIoctl::SetBpf(prog.as_raw_fd());
        assert_eq!(log(), vec![set, PerfIoctl::Enable]);
        drop(ev);
        assert_eq!(log(), vec![set, PerfIoctl::Enable, PerfIoctl::Disable]);
    }

    #[test]
    fn cpu_clock_layout() {
        let a = cpu_clock_attr(1_000_000);
        assert_eq!(a.get_u32(0), 1);
        assert_eq!(a.get_u32(4), 128);
        assert_eq!(a.get_u64(8), 0);
        assert_eq!(a.get_u64(16), 1_000_000);
        assert_eq!(a.get_u64(40), 1, "disabled");
    }

    #[test]
    fn config_bits() {
        assert_eq!(parse_config_bit("config:0\n"), Some(0));
        assert_eq!(parse_config_bit("config:32-63\n"), Some(32));
        assert_eq!(parse_config_bit("config1:3"), None);
        assert_eq!(parse_config_bit("config:99"), None);
    }

    #[test]
    fn tracepoint_layout() {
        let a = tracepoint_attr(321);
        assert_eq!(a.get_u32(0), 2);
        assert_eq!(a.get_u64(8), 321);
        assert_eq!(a.get_u64(16), 1);
        assert_eq!(a.get_u32(48), 1);
    }
}
