//! Option value grammars, as libdtrace parses them: sizes, rates, flags,
//! numbers and the enumerated options.

use super::OptError;

/// A size: a number (decimal, `0x` hex or `0` octal), optionally followed by
/// `k`, `m`, `g` or `t` (either case), each a factor of 1024.
pub fn parse_size(v: &str) -> Result<u64, OptError> {
    let v = v.trim();
    let (digits, mult) = match v.chars().last().map(|c| c.to_ascii_lowercase()) {
        Some('k') => (&v[..v.len() - 1], 1u64 << 10),
        Some('m') => (&v[..v.len() - 1], 1 << 20),
        Some('g') => (&v[..v.len() - 1], 1 << 30),
        Some('t') => (&v[..v.len() - 1], 1 << 40),
        _ => (v, 1),
    };
    parse_number(digits)?
        .checked_mul(mult)
        .ok_or_else(OptError::bad_value)
}

/// A C integer constant as `strtoull(..., 0)` reads it, with nothing after it
/// and no sign.
pub fn parse_number(v: &str) -> Result<u64, OptError> {
    let bad = OptError::bad_value;
    let (radix, body) = if let Some(h) = v.strip_prefix("0x").or_else(|| v.strip_prefix("0X")) {
        (16, h)
    } else if v.len() > 1 && v.starts_with('0') {
        (8, &v[1..])
    } else {
        (10, v)
    };
    if body.is_empty() || !body.chars().all(|c| c.is_digit(radix)) {
        return Err(bad());
    }
    u64::from_str_radix(body, radix).map_err(|_| bad())
}

const SEC: u64 = 1_000_000_000;

/// A rate option's value as written: a frequency or an interval, never zero.
enum RateValue {
    Hz(u64),
    Ns(u64),
}

/// A number of Hz (bare or `hz`), or an interval with a time suffix
/// (`ns nsec us usec ms msec s sec m min h hour d day`).
fn rate_value(v: &str) -> Result<RateValue, OptError> {
    let v = v.trim();
    // The number ends at the first letter, unless it is hexadecimal.
    let split = if v.starts_with("0x") || v.starts_with("0X") {
        v.len()
    } else {
        v.find(|c: char| c.is_ascii_alphabetic()).unwrap_or(v.len())
    };
    let n = parse_number(&v[..split])?;
    let ns_per = match v[split..].to_ascii_lowercase().as_str() {
        "" | "hz" if n > 0 => return Ok(RateValue::Hz(n)),
        "ns" | "nsec" => 1,
        "us" | "usec" => 1_000,
        "ms" | "msec" => 1_000_000,
        "s" | "sec" => SEC,
        "m" | "min" => 60 * SEC,
        "h" | "hour" => 3600 * SEC,
        "d" | "day" => 86400 * SEC,
        _ => 0,
    };
    match n.saturating_mul(ns_per) {
        0 => Err(OptError::bad_value()),
        ns => Ok(RateValue::Ns(ns)),
    }
}

/// A rate ([`rate_value`]'s forms) in Hz, at least 1.
pub fn parse_rate(v: &str) -> Result<u64, OptError> {
    Ok(match rate_value(v)? {
        RateValue::Hz(n) => n,
        RateValue::Ns(ns) => (SEC / ns).max(1),
    })
}

/// A rate option's value as its period in nanoseconds (`10hz` is 100 ms,
/// `16sec` 16 s): what [`parse_rate`]'s whole hertz cannot hold.
pub fn parse_period_ns(v: &str) -> Result<u64, OptError> {
    match rate_value(v)? {
        RateValue::Hz(n) if n <= SEC => Ok(SEC / n),
        RateValue::Hz(_) => Err(OptError::bad_value()),
        RateValue::Ns(ns) => Ok(ns),
    }
}

/// A run-time option's value as libdtrace's `dt_opt_runtime` reads it: no
/// value is 0, an empty value or a "no" word (`no disable disabled false off
/// unset`, any case) is unset (`None`), a "yes" word is 1, anything else must be
/// a number.
pub fn parse_runtime(v: Option<&str>) -> Result<Option<u64>, OptError> {
    let Some(v) = v else { return Ok(Some(0)) };
    if v.is_empty() {
        return Ok(None);
    }
    const PAIRS: &[(&str, &str)] = &[
        ("yes", "no"),
        ("enable", "disable"),
        ("enabled", "disabled"),
        ("true", "false"),
        ("on", "off"),
        ("set", "unset"),
    ];
    for (yes, no) in PAIRS {
        if v.eq_ignore_ascii_case(yes) {
            return Ok(Some(1));
        }
        if v.eq_ignore_ascii_case(no) {
            return Ok(None);
        }
    }
    parse_number(v).map(Some)
}

/// A run-time flag: set unless [`parse_runtime`] says unset.
pub fn parse_flag(v: Option<&str>) -> Result<bool, OptError> {
    Ok(parse_runtime(v)?.is_some())
}

/// A run-time count: [`parse_runtime`]'s number, `None` when unset.
pub fn parse_count(v: Option<&str>) -> Result<Option<u32>, OptError> {
    parse_runtime(v)?
        .map(|n| u32::try_from(n).map_err(|_| OptError::bad_value()))
        .transpose()
}

/// A compiler flag: set by naming it; a value is an error.
pub fn parse_cflag(v: Option<&str>) -> Result<bool, OptError> {
    match v {
        None => Ok(true),
        Some(_) => Err(OptError::bad_value()),
    }
}

/// `bufpolicy`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BufPolicy {
    /// Records are read and the buffer reused at each switch (the default).
    Switch,
    /// Tracing stops when the buffer fills; END still runs.
    Fill,
    /// The buffer keeps the most recent records, printed at exit.
    Ring,
}

impl BufPolicy {
    /// The option's value as `-x` spells it.
    pub fn parse(v: &str) -> Result<BufPolicy, OptError> {
        match v {
            "switch" => Ok(BufPolicy::Switch),
            "fill" => Ok(BufPolicy::Fill),
            "ring" => Ok(BufPolicy::Ring),
            _ => Err(OptError::bad_value()),
        }
    }
}

/// `oformat` (and `-O`): how traced data is written.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum OutputFormat {
    /// dtrace(1)'s text (the default).
    #[default]
    Text,
    /// One JSON document in FreeBSD's schema (`json`).
    Json,
    /// The same, indented (`json,pretty`, libxo's spelling).
    PrettyJson,
    /// The same probe objects, one per line (`ndjson`, our extension).
    Ndjson,
}

impl OutputFormat {
    /// `text`, `json`, `json,pretty` or `ndjson`.
    pub fn parse(v: &str) -> Result<OutputFormat, OptError> {
        match v {
            "text" => Ok(OutputFormat::Text),
            "json" => Ok(OutputFormat::Json),
            "json,pretty" | "pretty,json" => Ok(OutputFormat::PrettyJson),
            "ndjson" => Ok(OutputFormat::Ndjson),
            _ => Err(OptError::bad_value()),
        }
    }
}

/// `evaltime`: at which point of a `-c` command's start its probes are enabled.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EvalTime {
    /// At the `exec()` (the default).
    Exec,
    /// Before the program's initializers run.
    Preinit,
    /// After its initializers.
    Postinit,
    /// At `main()`.
    Main,
}

impl EvalTime {
    /// The option's value as `-x` spells it.
    pub fn parse(v: &str) -> Result<EvalTime, OptError> {
        match v {
            "exec" => Ok(EvalTime::Exec),
            "preinit" => Ok(EvalTime::Preinit),
            "postinit" => Ok(EvalTime::Postinit),
            "main" => Ok(EvalTime::Main),
            _ => Err(OptError::bad_value()),
        }
    }
}

/// `linkmode`: how `-G` objects refer to kernel and user symbols.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LinkMode {
    /// Kernel objects: symbols resolved as the kernel's.
    Kernel,
    /// Dynamically linked user objects (the default).
    Dynamic,
    /// Statically linked user objects.
    Static,
}

impl LinkMode {
    /// The option's value as `-x` spells it.
    pub fn parse(v: &str) -> Result<LinkMode, OptError> {
        match v {
            "kernel" => Ok(LinkMode::Kernel),
            "dynamic" => Ok(LinkMode::Dynamic),
            "static" => Ok(LinkMode::Static),
            _ => Err(OptError::bad_value()),
        }
    }
}

/// `stdc` (`-X a|c|s|t`): the ISO C mode of the preprocessor. `a`, the
/// default, asks cpp for ISO C (`-std=c99`); `s` (K&R C) runs it in
/// traditional mode, leaving `__STDC__` undefined; `c` and `t` leave cpp's own
/// default.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum StdcMode {
    /// `-Xa`: ISO C plus K&R compatibility (`__STDC__` 0).
    #[default]
    A,
    /// `-Xc`: strictly conforming ISO C (`__STDC__` 1).
    C,
    /// `-Xs`: K&R C (`__STDC__` undefined).
    S,
    /// `-Xt`: K&R C transition (`__STDC__` 0).
    T,
}

impl StdcMode {
    /// The option's value as `-x` spells it.
    pub fn parse(v: &str) -> Result<StdcMode, OptError> {
        match v {
            "a" => Ok(StdcMode::A),
            "c" => Ok(StdcMode::C),
            "s" => Ok(StdcMode::S),
            "t" => Ok(StdcMode::T),
            _ => Err(OptError::bad_value()),
        }
    }
}
