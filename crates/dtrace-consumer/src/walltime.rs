//! `%Y`: a walltime in the local time zone, as dtrace(1) prints it
//! (`2004 Jul 26 16:23:58`). The zone is the `TZ` environment variable's (a
//! zoneinfo name or file, or a fixed POSIX offset such as `EST5`), else
//! `/etc/localtime`, else UTC. Zone files are read in TZif form (RFC 8536).

/// A time zone: UTC offsets in effect from each transition time.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct TimeZone {
    /// (transition time in seconds since the epoch, UTC offset in seconds),
    /// sorted by time.
    transitions: Vec<(i64, i32)>,
    /// The offset before the first transition (or always, with none).
    base: i32,
}

impl TimeZone {
    /// UTC.
    pub fn utc() -> TimeZone {
        TimeZone::default()
    }

    /// A fixed offset east of UTC, in seconds.
    pub fn fixed(offset: i32) -> TimeZone {
        TimeZone {
            transitions: Vec::new(),
            base: offset,
        }
    }

    /// The zone from the environment, as C's `localtime` finds it.
    pub fn local() -> TimeZone {
        match std::env::var("TZ") {
            Ok(tz) => {
                let tz = tz.strip_prefix(':').unwrap_or(&tz);
                if tz.is_empty() {
                    return TimeZone::utc();
                }
                let path = if tz.starts_with('/') {
                    tz.to_string()
                } else {
                    format!("/usr/share/zoneinfo/{tz}")
                };
                if !tz.contains("..") {
                    if let Some(z) = std::fs::read(&path)
                        .ok()
                        .and_then(|b| TimeZone::from_tzif(&b))
                    {
                        return z;
                    }
                }
                TimeZone::from_posix(tz).unwrap_or_default()
            }
            Err(_) => std::fs::read("/etc/localtime")
                .ok()
                .and_then(|b| TimeZone::from_tzif(&b))
                .unwrap_or_default(),
        }
    }

    /// A POSIX `TZ` value's standard offset (`EST5`, `UTC0`, `JST-9`); DST
    /// rules are not applied.
    pub fn from_posix(tz: &str) -> Option<TimeZone> {
        let rest = tz.trim_start_matches(|c: char| c.is_ascii_alphabetic());
        if rest.len() == tz.len() || tz.len() - rest.len() < 3 {
            return None;
        }
        let (sign, digits) = match rest.as_bytes().first() {
            Some(b'-') => (1, &rest[1..]),
            Some(b'+') => (-1, &rest[1..]),
            _ => (-1, rest),
        };
        let end = digits
            .find(|c: char| !(c.is_ascii_digit() || c == ':'))
            .unwrap_or(digits.len());
        let mut parts = digits[..end].split(':');
        let h: i32 = parts.next()?.parse().ok()?;
        let m: i32 = parts.next().map_or(Some(0), |m| m.parse().ok())?;
        Some(TimeZone::fixed(sign * (h * 3600 + m * 60)))
    }

    /// A zone from TZif data (versions 1 to 3); None when it does not parse.
    pub fn from_tzif(b: &[u8]) -> Option<TimeZone> {
        let header = |at: usize| -> Option<[usize; 6]> {
            if b.get(at..at + 4)? != b"TZif" {
                return None;
            }
            let mut n = [0usize; 6];
            for (i, v) in n.iter_mut().enumerate() {
                let o = at + 20 + 4 * i;
                *v = u32::from_be_bytes(b.get(o..o + 4)?.try_into().ok()?) as usize;
            }
            Some(n)
        };
        let [isutc, isstd, leap, time, typ, chars] = header(0)?;
        let v1_len = 44 + time * 5 + typ * 6 + chars + leap * 8 + isstd + isutc;
        // Version 2+ files repeat the data with 64-bit times after the v1 block.
        let (at, tsize, counts) = match b.get(4) {
            Some(b'2'..=b'9') => match header(v1_len) {
                Some(n) => (v1_len, 8, n),
                None => (0, 4, [isutc, isstd, leap, time, typ, chars]),
            },
            _ => (0, 4, [isutc, isstd, leap, time, typ, chars]),
        };
        let [_, _, _, time, typ, _] = counts;
        let times_at = at + 44;
        let idx_at = times_at + time * tsize;
        let types_at = idx_at + time;
        let read_time = |i: usize| -> Option<i64> {
            let o = times_at + i * tsize;
            Some(if tsize == 8 {
                i64::from_be_bytes(b.get(o..o + 8)?.try_into().ok()?)
            } else {
                i32::from_be_bytes(b.get(o..o + 4)?.try_into().ok()?) as i64
            })
        };
        let offset_of = |t: usize| -> Option<i32> {
            let o = types_at + t * 6;
            Some(i32::from_be_bytes(b.get(o..o + 4)?.try_into().ok()?))
        };
        if typ == 0 {
            return None;
        }
        let mut transitions = Vec::with_capacity(time);
        for i in 0..time {
            let t = *b.get(idx_at + i)? as usize;
            transitions.push((read_time(i)?, offset_of(t)?));
        }
        // Before the first transition: the first standard-time type (type 0).
        let base = offset_of(0)?;
        Some(TimeZone { transitions, base })
    }

    /// The UTC offset in seconds at `secs` since the epoch. After the last
    /// transition the last offset holds (the zone's footer rule is not
    /// applied).
    pub fn offset_at(&self, secs: i64) -> i32 {
        let i = self.transitions.partition_point(|(t, _)| *t <= secs);
        match i.checked_sub(1) {
            Some(j) => self.transitions[j].1,
            None => self.base,
        }
    }
}

const MONTHS: [&str; 12] = [
    "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec",
];

/// `%Y`: nanoseconds since the epoch as `%Y %b %e %T` in `tz`.
pub fn walltime_in(ns: i64, tz: &TimeZone) -> String {
    let utc = ns.div_euclid(1_000_000_000);
    let secs = utc + tz.offset_at(utc) as i64;
    let days = secs.div_euclid(86_400);
    let rem = secs.rem_euclid(86_400);
    // Civil date from days since 1970-01-01 (proleptic Gregorian calendar).
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    let mon = MONTHS
        .get((month - 1).clamp(0, 11) as usize)
        .copied()
        .unwrap_or("???");
    format!(
        "{year} {mon} {day:>2} {:02}:{:02}:{:02}",
        rem / 3600,
        rem % 3600 / 60,
        rem % 60
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn utc_and_fixed_offsets() {
        assert_eq!(walltime_in(0, &TimeZone::utc()), "1970 Jan  1 00:00:00");
        let pst = TimeZone::from_posix("PST8").unwrap();
        assert_eq!(walltime_in(0, &pst), "1969 Dec 31 16:00:00");
        let jst = TimeZone::from_posix("JST-9").unwrap();
        assert_eq!(walltime_in(0, &jst), "1970 Jan  1 09:00:00");
        assert!(TimeZone::from_posix("garbage").is_none());
    }

    /// A hand-built version 1 TZif file: standard time -8h, daylight time -7h
    /// from t = 1000.
    #[test]
    fn reads_tzif_transitions() {
        let mut b = b"TZif".to_vec();
        b.push(0);
        b.extend_from_slice(&[0; 15]);
        for n in [0u32, 0, 0, 1, 2, 8] {
            b.extend_from_slice(&n.to_be_bytes());
        }
        b.extend_from_slice(&1000i32.to_be_bytes());
        b.push(1);
        b.extend_from_slice(&(-8 * 3600i32).to_be_bytes());
        b.extend_from_slice(&[0, 0]);
        b.extend_from_slice(&(-7 * 3600i32).to_be_bytes());
        b.extend_from_slice(&[1, 4]);
        b.extend_from_slice(b"PST\0PDT\0");
        let z = TimeZone::from_tzif(&b).unwrap();
        assert_eq!(z.offset_at(0), -8 * 3600);
        assert_eq!(z.offset_at(999), -8 * 3600);
        assert_eq!(z.offset_at(1000), -7 * 3600);
        assert!(TimeZone::from_tzif(b"nope").is_none());
    }
}
