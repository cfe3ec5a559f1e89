//! The `profile` provider: `profile-N` fires on every CPU, `tick-N` on one CPU, at
//! a rate or interval N with DTrace's suffixes (`ns nsec us usec ms msec s sec m min
//! h hour d day hz`; no suffix means hz). Probes named in a description but not
//! listed are created on demand, as in DTrace.

use crate::{ProbeTemplate, Provider};
use dtrace_sema::{ArgDesc, ProbeKind};

/// The smallest interval DTrace's profile provider accepts: 200 microseconds.
pub const MIN_INTERVAL_NS: u64 = 200_000;

pub struct ProfileProvider;

const LISTED: &[&str] = &[
    "profile-97",
    "profile-199",
    "profile-499",
    "profile-997",
    "profile-1999",
    "profile-4001",
    "profile-4999",
    "tick-1",
    "tick-10",
    "tick-100",
    "tick-500",
    "tick-1000",
    "tick-5000",
];

impl Provider for ProfileProvider {
    fn name(&self) -> &'static str {
        "profile"
    }

    fn attributes(&self) -> crate::ProviderAttrs {
        crate::stability::PROFILE
    }

    fn list(&self) -> Vec<ProbeTemplate> {
        LISTED.iter().filter_map(|n| template(n)).collect()
    }

    fn create(&self, module: &str, function: &str, name: &str) -> Option<ProbeTemplate> {
        if !module.is_empty() || !function.is_empty() {
            return None;
        }
        template(name)
    }
}

fn template(name: &str) -> Option<ProbeTemplate> {
    let kind = if let Some(spec) = name.strip_prefix("profile-") {
        ProbeKind::Profile {
            period_ns: parse_interval(spec)?,
        }
    } else if let Some(spec) = name.strip_prefix("tick-") {
        ProbeKind::Tick {
            period_ns: parse_interval(spec)?,
        }
    } else {
        return None;
    };
    Some(ProbeTemplate {
        module: Default::default(),
        function: Default::default(),
        name: name.into(),
        kind,
        // arg0: kernel PC (0 if in user mode), arg1: user PC (0 if in the kernel).
        args: ArgDesc::natives(&["uint64_t", "uint64_t"]),
        fields: Vec::new(),
    })
}

/// Parse `N[suffix]` into a period in nanoseconds. None if malformed, zero, or
/// shorter than [`MIN_INTERVAL_NS`].
pub fn parse_interval(spec: &str) -> Option<u64> {
    let digits = spec.bytes().take_while(u8::is_ascii_digit).count();
    if digits == 0 {
        return None;
    }
    let n: u64 = spec.get(..digits)?.parse().ok()?;
    let suffix = spec.get(digits..)?;
    const NS: u64 = 1;
    const US: u64 = 1_000;
    const MS: u64 = 1_000_000;
    const S: u64 = 1_000_000_000;
    let period = match suffix {
        "" | "hz" => {
            if n == 0 {
                return None;
            }
            S / n
        }
        "ns" | "nsec" => n.checked_mul(NS)?,
        "us" | "usec" => n.checked_mul(US)?,
        "ms" | "msec" => n.checked_mul(MS)?,
        "s" | "sec" => n.checked_mul(S)?,
        "m" | "min" => n.checked_mul(60 * S)?,
        "h" | "hour" => n.checked_mul(3600 * S)?,
        "d" | "day" => n.checked_mul(86400 * S)?,
        _ => return None,
    };
    (period >= MIN_INTERVAL_NS).then_some(period)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn intervals() {
        assert_eq!(parse_interval("97"), Some(1_000_000_000 / 97));
        assert_eq!(parse_interval("1sec"), Some(1_000_000_000));
        assert_eq!(parse_interval("10ms"), Some(10_000_000));
        assert_eq!(parse_interval("250us"), Some(250_000));
        assert_eq!(parse_interval("5000hz"), Some(200_000));
        assert_eq!(parse_interval("1ns"), None);
        assert_eq!(parse_interval("10000"), None);
        assert_eq!(parse_interval("0"), None);
        assert_eq!(parse_interval("1fortnight"), None);
        assert_eq!(parse_interval(""), None);
        assert_eq!(parse_interval("2m"), Some(120_000_000_000));
    }
}
