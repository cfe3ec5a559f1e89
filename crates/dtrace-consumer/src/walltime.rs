//! `%Y`: a walltime in the local time zone, as dtrace(1) prints it
//! (`2004 Jul 26 16:23:58`); `%T`: the same time as RFC 822 dates have it,
//! with the weekday and the zone's abbreviation (`Mon, 26 Jul 2004 16:23:58 PDT`). The zone is the `TZ` environment variable's (a
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
    /// The zone's abbreviation after each transition (`PDT`), when known.
    names: Vec<String>,
    /// The abbreviation of `base`.
    base_name: String,
}

impl TimeZone {
    /// UTC.
    pub fn utc() -> TimeZone {
        TimeZone {
            base_name: "UTC".into(),
            ..TimeZone::default()
        }
    }

    /// A fixed offset east of UTC, in seconds.
    pub fn fixed(offset: i32) -> TimeZone {
        TimeZone {
            base: offset,
            ..TimeZone::default()
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
        let mut z = TimeZone::fixed(sign * (h * 3600 + m * 60));
        z.base_name = tz[..tz.len() - rest.len()].to_string();
        Some(z)
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
        // Each type's abbreviation: an index into the NUL-separated names
        // after the types.
        let chars_at = types_at + typ * 6;
        let name_of = |t: usize| -> String {
            let Some(&i) = b.get(types_at + t * 6 + 5) else {
                return String::new();
            };
            let s = b.get(chars_at + i as usize..).unwrap_or(&[]);
            let end = s.iter().position(|c| *c == 0).unwrap_or(s.len());
            String::from_utf8_lossy(&s[..end]).into_owned()
        };
        if typ == 0 {
            return None;
        }
        let mut transitions = Vec::with_capacity(time);
        let mut names = Vec::with_capacity(time);
        for i in 0..time {
            let t = *b.get(idx_at + i)? as usize;
            transitions.push((read_time(i)?, offset_of(t)?));
            names.push(name_of(t));
        }
        // Before the first transition: the first standard-time type (type 0).
        let base = offset_of(0)?;
        Some(TimeZone {
            transitions,
            base,
            names,
            base_name: name_of(0),
        })
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

impl TimeZone {
    /// The zone's abbreviation at `secs` since the epoch (empty when unknown).
    pub fn name_at(&self, secs: i64) -> &str {
        let i = self.transitions.partition_point(|(t, _)| *t <= secs);
        match i.checked_sub(1) {
            Some(j) => self.names.get(j).map_or("", String::as_str),
            None => &self.base_name,
        }
    }
}

const WEEKDAYS: [&str; 7] = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"];

const MONTHS: [&str; 12] = [
    "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec",
];

/// `%Y`: nanoseconds since the epoch as `%Y %b %e %T` in `tz`.
pub fn walltime_in(ns: i64, tz: &TimeZone) -> String {
    let (_, days, rem) = local_days(ns, tz);
    let (year, month, day) = civil(days);
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

/// `%T`: nanoseconds since the epoch as RFC 822 has a date, in `tz`:
/// `%a, %d %b %G %T %Z` (the year is the ISO 8601 week-numbering year).
pub fn time822_in(ns: i64, tz: &TimeZone) -> String {
    let (utc, days, rem) = local_days(ns, tz);
    let (_, month, day) = civil(days);
    // 1970-01-01 was a Thursday.
    let wday = (days + 4).rem_euclid(7);
    // The ISO year is the year of the Thursday of the (Monday-first) week.
    let (iso_year, _, _) = civil(days - (wday + 6).rem_euclid(7) + 3);
    let name = |i: i64, t: &[&'static str]| t.get(i as usize).copied().unwrap_or("???");
    format!(
        "{}, {day:02} {} {iso_year} {:02}:{:02}:{:02} {}",
        name(wday, &WEEKDAYS),
        name(month - 1, &MONTHS),
        rem / 3600,
        rem % 3600 / 60,
        rem % 60,
        tz.name_at(utc)
    )
}

/// (seconds since the epoch, local days since 1970-01-01, local seconds
/// into that day) of `ns` nanoseconds since the epoch, in `tz`.
fn local_days(ns: i64, tz: &TimeZone) -> (i64, i64, i64) {
    let utc = ns.div_euclid(1_000_000_000);
    let secs = utc + tz.offset_at(utc) as i64;
    (utc, secs.div_euclid(86_400), secs.rem_euclid(86_400))
}

/// (year, month 1..=12, day) of `days` since 1970-01-01 in the proleptic
/// Gregorian calendar.
fn civil(days: i64) -> (i64, i64, i64) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    (year, month, day)
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
        assert_eq!(z.name_at(0), "PST");
        assert_eq!(z.name_at(1000), "PDT");
        // %T: weekday, day, month, year, time and the zone's abbreviation.
        // The year is %G's: Wednesday 31 Dec 1969 is in 1970's first ISO week.
        assert_eq!(time822_in(0, &z), "Wed, 31 Dec 1970 16:00:00 PST");
        assert_eq!(
            time822_in(2_000_000_000_000, &z),
            "Wed, 31 Dec 1970 17:33:20 PDT"
        );
        assert!(TimeZone::from_tzif(b"nope").is_none());
    }

    #[test]
    fn time822_uses_the_iso_week_year() {
        let utc = TimeZone::utc();
        assert_eq!(time822_in(0, &utc), "Thu, 01 Jan 1970 00:00:00 UTC");
        // 2027-01-01 is a Friday: its ISO week belongs to 2026.
        let ns = 1_798_761_600i64 * 1_000_000_000;
        assert_eq!(time822_in(ns, &utc), "Fri, 01 Jan 2026 00:00:00 UTC");
        let est = TimeZone::from_posix("EST5").unwrap();
        assert_eq!(time822_in(0, &est), "Wed, 31 Dec 1970 19:00:00 EST");
    }
}
