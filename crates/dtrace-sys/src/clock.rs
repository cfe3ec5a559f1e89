//! Clocks: what `walltimestamp` needs to turn BPF's monotonic time into wall time.

use crate::sys::Errno;

fn now(clock: libc::clockid_t) -> Result<i128, Errno> {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: `ts` is a valid, writable timespec for the call.
    let r = unsafe { libc::clock_gettime(clock, &mut ts) };
    if r < 0 {
        return Err(Errno::last());
    }
    Ok(ts.tv_sec as i128 * 1_000_000_000 + ts.tv_nsec as i128)
}

/// CLOCK_REALTIME minus CLOCK_MONOTONIC, in ns: add it to `bpf_ktime_get_ns()`
/// to get nanoseconds since the Unix epoch.
pub fn realtime_offset_ns() -> Result<u64, Errno> {
    let mono = now(libc::CLOCK_MONOTONIC)?;
    let real = now(libc::CLOCK_REALTIME)?;
    Ok((real - mono).max(0) as u64)
}

#[cfg(test)]
mod tests {
    #[test]
    fn offset_is_plausible() {
        let off = super::realtime_offset_ns().unwrap_or(0);
        // After 2020-01-01 in wall time, whatever the uptime.
        assert!(off > 1_577_836_800_000_000_000 - 10 * 365 * 86_400_000_000_000);
    }
}
