//! Process resource limits: `-x lockmem` (the locked-memory limit BPF maps were
//! charged against before memory cgroups) and `-x core` (dump core at exit).

use crate::sys::Errno;

/// Set the `RLIMIT_MEMLOCK` soft limit to `bytes` (`u64::MAX` is unlimited),
/// capped at the hard limit: raising the hard limit needs `CAP_SYS_RESOURCE`,
/// and kernels since 5.11 charge BPF memory to the memory cgroup instead.
pub fn set_memlock(bytes: u64) -> Result<(), Errno> {
    let mut r = libc::rlimit {
        rlim_cur: 0,
        rlim_max: 0,
    };
    // SAFETY: `r` is a valid, writable rlimit for the call.
    if unsafe { libc::getrlimit(libc::RLIMIT_MEMLOCK, &mut r) } != 0 {
        return Err(last_errno());
    }
    let want = if bytes == u64::MAX {
        libc::RLIM_INFINITY
    } else {
        bytes as libc::rlim_t
    };
    r.rlim_cur = if r.rlim_max == libc::RLIM_INFINITY {
        want
    } else {
        want.min(r.rlim_max)
    };
    // SAFETY: `r` is a valid rlimit for the call.
    if unsafe { libc::setrlimit(libc::RLIMIT_MEMLOCK, &r) } == 0 {
        Ok(())
    } else {
        Err(last_errno())
    }
}

fn last_errno() -> Errno {
    Errno(std::io::Error::last_os_error().raw_os_error().unwrap_or(0))
}

/// The current `RLIMIT_MEMLOCK` soft limit (`u64::MAX` when unlimited).
pub fn memlock() -> Result<u64, Errno> {
    let mut r = libc::rlimit {
        rlim_cur: 0,
        rlim_max: 0,
    };
    // SAFETY: `r` is a valid, writable rlimit for the call.
    if unsafe { libc::getrlimit(libc::RLIMIT_MEMLOCK, &mut r) } != 0 {
        return Err(last_errno());
    }
    Ok(if r.rlim_cur == libc::RLIM_INFINITY {
        u64::MAX
    } else {
        r.rlim_cur
    })
}

/// `-x core`: lift the core-size limit and abort, so the process leaves a core
/// file (libdtrace's debugging aid, run when dtrace exits).
pub fn dump_core() -> ! {
    let r = libc::rlimit {
        rlim_cur: libc::RLIM_INFINITY,
        rlim_max: libc::RLIM_INFINITY,
    };
    // SAFETY: `r` is a valid rlimit; abort() never returns.
    unsafe {
        libc::setrlimit(libc::RLIMIT_CORE, &r);
    }
    std::process::abort()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn memlock_round_trip() {
        let before = memlock().unwrap_or(u64::MAX);
        // Lowering the soft and hard limit needs no privilege; set it to what it
        // is (or stay put when it is unlimited and we are not root).
        if set_memlock(before).is_ok() {
            assert_eq!(memlock().ok(), Some(before));
        }
    }
}

/// Where the kernel keeps the most frames a stack trace (perf callchains,
/// `bpf_get_stack`) may have.
pub const PERF_EVENT_MAX_STACK: &str = "/proc/sys/kernel/perf_event_max_stack";

/// `kernel.perf_event_max_stack`: the most frames `bpf_get_stack` gives.
/// None when it cannot be read (an older kernel, no /proc).
pub fn perf_event_max_stack() -> Option<u32> {
    parse_max_stack(&std::fs::read_to_string(PERF_EVENT_MAX_STACK).ok()?)
}

fn parse_max_stack(text: &str) -> Option<u32> {
    text.trim().parse::<u32>().ok().filter(|&n| n > 0)
}

#[cfg(test)]
mod max_stack_tests {
    use super::*;

    #[test]
    fn parses_the_sysctl_text() {
        assert_eq!(parse_max_stack("127\n"), Some(127));
        assert_eq!(parse_max_stack("200"), Some(200));
        assert_eq!(parse_max_stack("0\n"), None);
        assert_eq!(parse_max_stack("x"), None);
    }
}
