//! Consumer options: the subset of dtrace's `-x` options (and `#pragma D option`)
//! that change what the consumer prints.

use std::fmt;

/// Options that affect output.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ConsumerOptions {
    /// `quiet` (`-q`): print only explicitly traced data; no probe lines.
    pub quiet: bool,
    /// `aggsortkey`: sort aggregation rows by key instead of by value.
    pub aggsortkey: bool,
    /// `aggsortrev`: reverse the sort order.
    pub aggsortrev: bool,
    /// `aggsortpos`: in a printa of several aggregations, which one's value sorts.
    pub aggsortpos: u32,
    /// `aggsortkeypos`: which key (0-based) is compared first.
    pub aggsortkeypos: u32,
    /// `aggpack`: accepted; packed histograms are not implemented yet.
    pub aggpack: bool,
    /// `strsize`: accepted; string sizes come from the record descriptions.
    pub strsize: Option<u64>,
    /// `rawbytes`: print traced byte arrays as hex dumps even when they look like strings.
    pub rawbytes: bool,
    /// dtrace(1)'s testing mode (`_DTRACE_TESTING` in the environment): the default
    /// per-probe output is `FUNCTION:NAME` alone (`%32s`), without the CPU and ID columns.
    pub testing: bool,
}

/// An option name this crate does not handle, or a bad value.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum OptionError {
    /// Not a consumer option (the caller may handle it elsewhere).
    Unknown(String),
    /// The value cannot be used for this option.
    BadValue { name: String, value: String },
}

impl fmt::Display for OptionError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            OptionError::Unknown(n) => write!(f, "unrecognized option: {n}"),
            OptionError::BadValue { name, value } => {
                write!(f, "invalid value for option {name}: {value}")
            }
        }
    }
}

impl std::error::Error for OptionError {}

fn parse_bool(name: &str, value: Option<&str>) -> Result<bool, OptionError> {
    match value {
        None | Some("") | Some("set") | Some("1") | Some("true") | Some("yes") => Ok(true),
        Some("unset") | Some("0") | Some("false") | Some("no") => Ok(false),
        Some(v) => Err(OptionError::BadValue {
            name: name.to_string(),
            value: v.to_string(),
        }),
    }
}

fn parse_num(name: &str, value: Option<&str>) -> Result<u64, OptionError> {
    let bad = || OptionError::BadValue {
        name: name.to_string(),
        value: value.unwrap_or("").to_string(),
    };
    let v = value.ok_or_else(bad)?;
    // dtrace accepts size suffixes (k, m, g, t) on size options.
    let (digits, mult) = match v.chars().last().map(|c| c.to_ascii_lowercase()) {
        Some('k') => (&v[..v.len() - 1], 1u64 << 10),
        Some('m') => (&v[..v.len() - 1], 1 << 20),
        Some('g') => (&v[..v.len() - 1], 1 << 30),
        Some('t') => (&v[..v.len() - 1], 1 << 40),
        _ => (v, 1),
    };
    digits
        .parse::<u64>()
        .ok()
        .and_then(|n| n.checked_mul(mult))
        .ok_or_else(bad)
}

impl ConsumerOptions {
    /// Sets one option by name; `value` is `None` for a bare `-x name`.
    pub fn set(&mut self, name: &str, value: Option<&str>) -> Result<(), OptionError> {
        match name {
            "quiet" => self.quiet = parse_bool(name, value)?,
            "aggsortkey" => self.aggsortkey = parse_bool(name, value)?,
            "aggsortrev" => self.aggsortrev = parse_bool(name, value)?,
            "aggpack" => self.aggpack = parse_bool(name, value)?,
            "rawbytes" => self.rawbytes = parse_bool(name, value)?,
            "aggsortpos" => {
                self.aggsortpos =
                    u32::try_from(parse_num(name, value)?).map_err(|_| OptionError::BadValue {
                        name: name.to_string(),
                        value: value.unwrap_or("").to_string(),
                    })?
            }
            "aggsortkeypos" => {
                self.aggsortkeypos =
                    u32::try_from(parse_num(name, value)?).map_err(|_| OptionError::BadValue {
                        name: name.to_string(),
                        value: value.unwrap_or("").to_string(),
                    })?
            }
            "strsize" => self.strsize = Some(parse_num(name, value)?),
            _ => return Err(OptionError::Unknown(name.to_string())),
        }
        Ok(())
    }

    /// Sets an option from a `-x` argument: `name` or `name=value`.
    pub fn set_str(&mut self, arg: &str) -> Result<(), OptionError> {
        match arg.split_once('=') {
            Some((n, v)) => self.set(n.trim(), Some(v.trim())),
            None => self.set(arg.trim(), None),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn set_from_strings() {
        let mut o = ConsumerOptions::default();
        o.set_str("quiet").unwrap();
        o.set_str("aggsortpos=2").unwrap();
        o.set_str("strsize=1k").unwrap();
        o.set_str("aggsortrev=unset").unwrap();
        assert!(o.quiet);
        assert_eq!(o.aggsortpos, 2);
        assert_eq!(o.strsize, Some(1024));
        assert!(!o.aggsortrev);
        assert!(matches!(
            o.set_str("bufsize=4m"),
            Err(OptionError::Unknown(_))
        ));
        assert!(matches!(
            o.set_str("aggsortpos=x"),
            Err(OptionError::BadValue { .. })
        ));
    }
}
