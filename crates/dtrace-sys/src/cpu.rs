//! CPU lists: which CPUs exist (possible) and which run (online).
//!
//! Per-CPU map values are laid out one slot per *possible* CPU, each slot the
//! value size rounded up to 8 bytes.

use std::fmt;
use std::path::Path;

/// Errors reading a CPU list.
#[derive(Debug)]
pub enum CpuError {
    Read { path: String, err: std::io::Error },
    Parse { text: String },
}

impl fmt::Display for CpuError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            CpuError::Read { path, err } => write!(f, "cannot read {path}: {err}"),
            CpuError::Parse { text } => write!(f, "malformed CPU list {text:?}"),
        }
    }
}

impl std::error::Error for CpuError {}

const POSSIBLE: &str = "/sys/devices/system/cpu/possible";
const ONLINE: &str = "/sys/devices/system/cpu/online";

/// Parse a kernel CPU list such as `0-3,5,7-8` into ascending CPU numbers.
pub fn parse_cpu_list(text: &str) -> Result<Vec<u32>, CpuError> {
    let bad = || CpuError::Parse {
        text: text.to_string(),
    };
    let mut out = Vec::new();
    let t = text.trim();
    if t.is_empty() {
        return Ok(out);
    }
    for part in t.split(',') {
        let part = part.trim();
        let (lo, hi) = match part.split_once('-') {
            Some((a, b)) => (
                a.parse::<u32>().map_err(|_| bad())?,
                b.parse::<u32>().map_err(|_| bad())?,
            ),
            None => {
                let v = part.parse::<u32>().map_err(|_| bad())?;
                (v, v)
            }
        };
        if hi < lo || hi - lo > 1 << 16 {
            return Err(bad());
        }
        out.extend(lo..=hi);
    }
    out.sort_unstable();
    out.dedup();
    Ok(out)
}

fn read_list(path: &str) -> Result<Vec<u32>, CpuError> {
    let text = std::fs::read_to_string(Path::new(path)).map_err(|err| CpuError::Read {
        path: path.to_string(),
        err,
    })?;
    parse_cpu_list(&text)
}

/// The possible CPUs.
pub fn possible_cpus() -> Result<Vec<u32>, CpuError> {
    read_list(POSSIBLE)
}

/// The online CPUs (where per-CPU perf events can be opened).
pub fn online_cpus() -> Result<Vec<u32>, CpuError> {
    read_list(ONLINE)
}

/// How many value slots a per-CPU map lookup returns.
pub fn num_possible_cpus() -> Result<u32, CpuError> {
    Ok(possible_cpus()?.len() as u32)
}

/// Stride of one CPU's slot in a per-CPU map value buffer.
pub fn percpu_stride(value_size: u32) -> usize {
    (value_size as usize + 7) & !7
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_lists() {
        assert_eq!(parse_cpu_list("0-3\n").ok(), Some(vec![0, 1, 2, 3]));
        assert_eq!(parse_cpu_list("0").ok(), Some(vec![0]));
        assert_eq!(parse_cpu_list("0-1,4,6-7").ok(), Some(vec![0, 1, 4, 6, 7]));
        assert_eq!(parse_cpu_list("").ok(), Some(vec![]));
        assert!(parse_cpu_list("3-1").is_err());
        assert!(parse_cpu_list("x").is_err());
        assert!(parse_cpu_list("0-99999999").is_err());
    }

    #[test]
    fn stride_rounds_to_8() {
        assert_eq!(percpu_stride(1), 8);
        assert_eq!(percpu_stride(8), 8);
        assert_eq!(percpu_stride(12), 16);
    }

    #[test]
    fn this_machine_has_cpus() {
        // /sys is always there on Linux; this is not a kernel-feature test.
        if let Ok(p) = possible_cpus() {
            assert!(!p.is_empty());
        }
    }
}
