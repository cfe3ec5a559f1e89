//! Kernel feature probing, done once per session into a [`Features`] value that
//! the runtime passes around (no global cache).

use crate::cpu;
use crate::map::{MapFd, MapSpec};
use crate::prog::{AttachType, ProgError, ProgFd, ProgSpec, ProgType};
use crate::sys::{Errno, SysRef};
use dtrace_bpf::{helper, Insn, Reg};
use std::path::Path;

/// What this kernel lets dtrace do.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Features {
    /// Effective uid is 0.
    pub root: bool,
    /// `bpf(2)` exists (not ENOSYS).
    pub bpf_syscall: bool,
    /// Why the simplest program failed to load, if it did.
    pub load_errno: Option<Errno>,
    /// A raw-tracepoint program loads.
    pub raw_tp: bool,
    /// A perf-event (profile) program loads.
    pub perf_event_prog: bool,
    /// A tracepoint program loads.
    pub tracepoint_prog: bool,
    /// A kprobe-type program loads (kprobes may still be missing: see `kprobe_pmu`).
    pub kprobe_prog: bool,
    /// fentry/fexit (`BPF_PROG_TYPE_TRACING`) loads are allowed.
    pub tracing: bool,
    /// Ring-buffer maps can be created.
    pub ringbuf: bool,
    /// Helpers (callable from raw-tracepoint programs).
    pub bpf_loop: bool,
    pub strncmp: bool,
    pub probe_read_kernel: bool,
    pub get_attach_cookie: bool,
    pub send_signal: bool,
    /// `bpf_probe_write_user` (`copyout`, `copyoutstr`); kernel lockdown
    /// (integrity or confidentiality) forbids it.
    pub probe_write_user: bool,
    /// Raw-tracepoint attachments can carry a cookie (Linux 6.10+).
    pub raw_tp_cookie: bool,
    /// `/sys/bus/event_source/devices/kprobe` exists.
    pub kprobe_pmu: bool,
    /// `/sys/bus/event_source/devices/uprobe` exists.
    pub uprobe_pmu: bool,
    /// `/sys/kernel/btf/vmlinux` exists.
    pub btf: bool,
    /// Number of possible CPUs (per-CPU value slots); 0 if unknown.
    pub possible_cpus: u32,
}

const TRIVIAL: [Insn; 2] = [Insn::mov64_imm(Reg::R0, 0), Insn::exit()];

fn try_load(sys: &SysRef, t: ProgType, at: AttachType) -> Result<(), ProgError> {
    let mut spec = ProgSpec::new(t, "dt_probe", &TRIVIAL);
    spec.expected_attach_type = at;
    ProgFd::load(sys, &spec).map(drop)
}

fn errno_of(r: &Result<(), ProgError>) -> Option<Errno> {
    match r {
        Ok(()) => None,
        Err(ProgError::Load { errno, .. }) => Some(*errno),
        Err(_) => Some(Errno(libc::EINVAL)),
    }
}

/// True unless the verifier says the helper does not exist or is not allowed for
/// raw tracepoints. The probe program calls it with unset arguments on purpose:
/// the verifier looks the helper up before it checks arguments.
fn has_helper(sys: &SysRef, id: i32) -> bool {
    let insns = [
        Insn::call_helper(id),
        Insn::mov64_imm(Reg::R0, 0),
        Insn::exit(),
    ];
    let spec = ProgSpec::new(ProgType::RawTracepoint, "dt_probe", &insns);
    // The errno usually answers without a verifier log: EACCES comes from the
    // argument checks, made only once the helper is known and allowed; EINVAL
    // from "unknown func" / "cannot use helper" (or a GPL-only helper, which we
    // never are). Anything else is settled by the log below.
    match ProgFd::load_errno(sys, &spec) {
        Ok(_) | Err(Errno(libc::EACCES)) => return true,
        Err(Errno(libc::EINVAL)) => return false,
        Err(_) => {}
    }
    match ProgFd::load(sys, &spec) {
        Ok(_) => true,
        Err(ProgError::Load { log, errno, .. }) => {
            !log.is_empty()
                && !errno_is_privilege(errno)
                && !log.contains("invalid func")
                && !log.contains("unknown func")
                && !log.contains("cannot use helper")
        }
        Err(_) => false,
    }
}

/// Attach an empty program to `sys_enter` with a cookie for an instant; kernels
/// without raw-tracepoint cookies reject the non-zero cookie field.
fn has_raw_tp_cookie(sys: &SysRef) -> bool {
    let spec = ProgSpec::new(ProgType::RawTracepoint, "dt_probe", &TRIVIAL);
    match ProgFd::load(sys, &spec) {
        Ok(p) => p.attach_raw_tp_cookie("sys_enter", 1).is_ok(),
        Err(_) => false,
    }
}

fn errno_is_privilege(e: Errno) -> bool {
    e.0 == libc::EPERM
}

impl Features {
    /// Probe the kernel. Cheap (a few ms); call once per session.
    pub fn probe(sys: &SysRef) -> Features {
        // SAFETY: geteuid has no preconditions.
        let root = unsafe { libc::geteuid() } == 0;
        let raw = try_load(sys, ProgType::RawTracepoint, AttachType::Unspec);
        let load_errno = errno_of(&raw);
        let bpf_syscall = load_errno != Some(Errno(libc::ENOSYS));
        let raw_tp = raw.is_ok();
        let mut f = Features {
            root,
            bpf_syscall,
            load_errno,
            raw_tp,
            kprobe_pmu: Path::new("/sys/bus/event_source/devices/kprobe").exists(),
            uprobe_pmu: Path::new("/sys/bus/event_source/devices/uprobe").exists(),
            btf: Path::new("/sys/kernel/btf/vmlinux").exists(),
            possible_cpus: cpu::num_possible_cpus().unwrap_or(0),
            ..Features::default()
        };
        if !bpf_syscall || load_errno.is_some_and(errno_is_privilege) {
            return f;
        }
        f.perf_event_prog = try_load(sys, ProgType::PerfEvent, AttachType::Unspec).is_ok();
        f.tracepoint_prog = try_load(sys, ProgType::Tracepoint, AttachType::Unspec).is_ok();
        f.kprobe_prog = try_load(sys, ProgType::Kprobe, AttachType::Unspec).is_ok();
        // Without a target BTF id the load cannot succeed; EPERM means "never".
        let tracing = try_load(sys, ProgType::Tracing, AttachType::TraceFentry);
        f.tracing = !matches!(errno_of(&tracing), Some(Errno(libc::EPERM)));
        f.ringbuf = MapFd::create(sys, &MapSpec::ringbuf("dt_probe", 4096)).is_ok();
        if raw_tp {
            f.bpf_loop = has_helper(sys, helper::LOOP);
            f.strncmp = has_helper(sys, helper::STRNCMP);
            f.probe_read_kernel = has_helper(sys, helper::PROBE_READ_KERNEL);
            f.get_attach_cookie = has_helper(sys, helper::GET_ATTACH_COOKIE);
            f.send_signal = has_helper(sys, helper::SEND_SIGNAL);
            f.probe_write_user = has_helper(sys, helper::PROBE_WRITE_USER);
            f.raw_tp_cookie = has_raw_tp_cookie(sys);
        }
        f
    }

    /// Why programs that write user memory (`copyout`, `copyoutstr`) cannot be
    /// enabled here, in one line; `None` when they can.
    pub fn user_write_refusal(&self) -> Option<String> {
        if self.probe_write_user {
            return None;
        }
        let lockdown = std::fs::read_to_string("/sys/kernel/security/lockdown")
            .ok()
            .and_then(|s| {
                let start = s.find('[')? + 1;
                let end = s[start..].find(']')? + start;
                Some(s[start..end].to_string())
            })
            .filter(|m| m != "none");
        let why = match lockdown {
            Some(mode) => format!("kernel lockdown ({mode}) forbids it"),
            None => "this kernel forbids it (kernel lockdown)".to_string(),
        };
        Some(format!(
            "dtrace: could not enable tracing: copyout( ) and copyoutstr( ) need \
             bpf_probe_write_user, and {why}"
        ))
    }

    /// A one-line, user-facing reason why dtrace cannot run here, or `None` if the
    /// essentials (raw-tracepoint programs and ring buffers) work.
    pub fn unusable(&self) -> Option<String> {
        const P: &str = "dtrace: failed to initialize dtrace";
        if !self.bpf_syscall {
            return Some(format!(
                "{P}: this kernel does not support BPF (the bpf system call is missing)"
            ));
        }
        match self.load_errno {
            Some(Errno(libc::EPERM)) | Some(Errno(libc::EACCES)) if !self.root => {
                return Some(format!("{P}: DTrace requires additional privileges"));
            }
            Some(Errno(libc::EPERM)) => {
                return Some(format!(
                    "{P}: the kernel refused to load BPF programs (Operation not permitted: \
                     check lockdown, seccomp or a missing CAP_BPF/CAP_PERFMON)"
                ));
            }
            Some(e) => {
                return Some(format!("{P}: cannot load BPF programs: {e}"));
            }
            None => {}
        }
        if !self.ringbuf {
            return Some(format!(
                "{P}: this kernel lacks the BPF ring buffer (Linux 5.8 or later is required)"
            ));
        }
        None
    }
}

/// What a real-kernel test should do.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TestGate {
    Run,
    /// Skip, saying why.
    Skip(String),
    /// Fail: BPF was required (`DTRACE_REQUIRE_BPF=1`) but is unusable.
    Fail(String),
}

/// The decision for tests that need a working BPF: run; skip when BPF is unusable;
/// fail instead of skipping when `require` (the `DTRACE_REQUIRE_BPF=1` setting).
pub fn test_gate(features: &Features, require: bool) -> TestGate {
    match features.unusable() {
        None => TestGate::Run,
        Some(why) if require => TestGate::Fail(why),
        Some(why) => TestGate::Skip(why),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn explanations() {
        let mut f = Features {
            bpf_syscall: true,
            load_errno: Some(Errno(libc::EPERM)),
            ..Features::default()
        };
        assert_eq!(
            f.unusable().as_deref(),
            Some("dtrace: failed to initialize dtrace: DTrace requires additional privileges")
        );
        f.root = true;
        assert!(f.unusable().is_some_and(|s| s.contains("refused")));
        f.load_errno = None;
        assert!(f.unusable().is_some_and(|s| s.contains("ring buffer")));
        f.ringbuf = true;
        assert_eq!(f.unusable(), None);
        f.bpf_syscall = false;
        assert!(f
            .unusable()
            .is_some_and(|s| s.contains("does not support BPF")));
    }

    #[test]
    fn gate() {
        let ok = Features {
            bpf_syscall: true,
            ringbuf: true,
            ..Features::default()
        };
        assert_eq!(test_gate(&ok, true), TestGate::Run);
        let bad = Features::default();
        assert!(matches!(test_gate(&bad, false), TestGate::Skip(_)));
        assert!(matches!(test_gate(&bad, true), TestGate::Fail(_)));
    }
}
