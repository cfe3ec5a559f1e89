//! The option table: every option libdtrace knows (its compile-time, run-time
//! and dynamic run-time tables, plus illumos' `aggpack`/`aggzoom`), with its
//! parser and what it does here. docs/OPTIONS.md is this table in prose; a
//! test keeps the two in step.

use super::values::{
    parse_cflag, parse_count, parse_flag, parse_number, parse_period_ns, parse_rate, parse_size,
    BufPolicy, EvalTime, LinkMode, OutputFormat, StdcMode,
};
use super::{OptError, Options, IREGS};

/// When an option takes effect (libdtrace's three tables).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Stage {
    /// Read while compiling.
    Compile,
    /// Read when tracing starts.
    Runtime,
    /// May change while tracing runs (`setopt`).
    Dynamic,
}

/// One option.
pub struct OptSpec {
    /// The option's name, as `-x` and `#pragma D option` spell it.
    pub name: &'static str,
    /// When it takes effect.
    pub stage: Stage,
    /// Must be set before compiling: `#pragma D option` cannot set it.
    pub before_compile: bool,
    /// Parses a value (None: the option given alone) into [`Options`].
    pub set: fn(&mut Options, Option<&str>) -> Result<(), OptError>,
}

/// Whether `name` is an option dtrace knows.
pub fn is_known(name: &str) -> bool {
    TABLE.iter().any(|s| s.name == name)
}

fn need(v: Option<&str>) -> Result<&str, OptError> {
    v.ok_or_else(OptError::bad_value)
}

/// A size option: no value leaves it unchanged, as libdtrace's `dt_opt_size` does.
fn size_or(v: Option<&str>, old: u64) -> Result<u64, OptError> {
    v.map_or(Ok(old), parse_size)
}

fn opt_size(v: Option<&str>) -> Result<Option<u64>, OptError> {
    v.map(parse_size).transpose()
}

fn string(v: Option<&str>) -> Result<String, OptError> {
    need(v).map(str::to_string)
}

/// `HOST:PORT` with a numeric host (the exporter listens there).
fn socket_addr(v: Option<&str>) -> Result<String, OptError> {
    let s = need(v)?;
    s.parse::<std::net::SocketAddr>()
        .map(|_| s.to_string())
        .map_err(|_| OptError::bad_value())
}

/// `http://HOST:PORT[/path]` (plain HTTP: the push has no TLS).
fn otlp_url(v: Option<&str>) -> Result<String, OptError> {
    let s = need(v)?;
    let rest = s.strip_prefix("http://").ok_or_else(OptError::bad_value)?;
    let authority = rest.split('/').next().unwrap_or("");
    match authority.rsplit_once(':') {
        Some((host, port)) if !host.is_empty() && port.parse::<u16>().is_ok() => Ok(s.to_string()),
        _ => Err(OptError::bad_value()),
    }
}

macro_rules! opt {
    ($name:literal, $stage:ident, |$o:ident, $v:ident| $body:expr) => {
        OptSpec {
            name: $name,
            stage: Stage::$stage,
            before_compile: false,
            set: |$o, $v| {
                $body;
                Ok(())
            },
        }
    };
    ($name:literal, $stage:ident, before_compile, |$o:ident, $v:ident| $body:expr) => {
        OptSpec {
            name: $name,
            stage: Stage::$stage,
            before_compile: true,
            set: |$o, $v| {
                $body;
                Ok(())
            },
        }
    };
}

/// Every option, sorted by name within each stage.
pub static TABLE: &[OptSpec] = &[
    // Compile-time options.
    opt!("aggpercpu", Compile, |o, v| o.aggpercpu = parse_cflag(v)?),
    opt!("amin", Compile, |o, v| o.amin = Some(attr(need(v)?)?)),
    opt!("argref", Compile, |o, v| o.argref = parse_cflag(v)?),
    opt!("core", Compile, |o, v| o.core = parse_cflag(v)?),
    opt!("cpp", Compile, |o, v| o.cpp = parse_cflag(v)?),
    opt!("cppargs", Compile, before_compile, |o, v| o.cppargs.extend(
        need(v)?.split_ascii_whitespace().map(str::to_string)
    )),
    opt!("cpphdrs", Compile, before_compile, |o, v| o.cpphdrs =
        parse_cflag(v)?),
    opt!("cpppath", Compile, before_compile, |o, v| o.cpppath =
        Some(string(v)?)),
    opt!("ctfpath", Compile, before_compile, |o, v| o.ctfpath =
        Some(string(v)?)),
    opt!("ctypes", Compile, |_o, v| types_file(need(v)?)?),
    opt!("debug", Compile, |o, v| o.debug = parse_cflag(v)?),
    opt!("debugassert", Compile, |_o, v| debug_assert(need(v)?)?),
    opt!("defaultargs", Compile, |o, v| o.defaultargs =
        parse_cflag(v)?),
    opt!("define", Compile, before_compile, |o, v| o
        .defines
        .push(string(v)?)),
    opt!("disasm", Compile, |o, v| o.disasm = small(need(v)?)?),
    opt!("droptags", Compile, |o, _v| o.droptags = true),
    opt!("dtypes", Compile, |_o, v| types_file(need(v)?)?),
    opt!("empty", Compile, |o, v| o.empty = parse_cflag(v)?),
    opt!("errtags", Compile, |o, v| o.errtags = parse_cflag(v)?),
    opt!("evaltime", Compile, |o, v| o.evaltime =
        EvalTime::parse(need(v)?)?),
    opt!("incdir", Compile, before_compile, |o, v| o
        .incdirs
        .push(string(v)?)),
    opt!("iregs", Compile, |_o, v| iregs(need(v)?)?),
    opt!("kdefs", Compile, |o, v| o.knodefs = !parse_cflag(v)?),
    opt!("knodefs", Compile, |o, v| o.knodefs = parse_cflag(v)?),
    opt!("late", Compile, |o, v| o.late_dynamic = match need(v)? {
        "dynamic" => true,
        "static" => false,
        _ => return Err(OptError::bad_value()),
    }),
    opt!("lazyload", Compile, |_o, v| parse_flag(v).map(|_| ())?),
    opt!("ldpath", Compile, before_compile, |o, v| o.ldpath =
        Some(string(v)?)),
    opt!("libdir", Compile, |o, v| o.libdirs.push(string(v)?)),
    opt!("linkmode", Compile, |o, v| o.linkmode =
        LinkMode::parse(need(v)?)?),
    opt!("linknommap", Compile, |_o, v| parse_flag(v).map(|_| ())?),
    opt!(
        "linktype",
        Compile,
        |o, v| o.linktype_dof = match need(v)? {
            t if t.eq_ignore_ascii_case("elf") => false,
            t if t.eq_ignore_ascii_case("dof") => true,
            _ => return Err(OptError::bad_value()),
        }
    ),
    opt!("modpath", Compile, before_compile, |o, v| o.modpath =
        Some(string(v)?)),
    opt!("nolibs", Compile, |o, v| o.nolibs = parse_cflag(v)?),
    opt!("pgmax", Compile, |_o, v| small(need(v)?).map(|_| ())?),
    opt!("preallocate", Compile, |_o, v| parse_size(need(v)?)
        .map(|_| ())?),
    opt!("procfspath", Compile, before_compile, |o, v| o.procfspath =
        Some(string(v)?)),
    opt!("pspec", Compile, |o, v| o.pspec = parse_cflag(v)?),
    opt!("stdc", Compile, before_compile, |o, v| o.stdc =
        StdcMode::parse(need(v)?)?),
    opt!("strip", Compile, |_o, v| parse_cflag(v).map(|_| ())?),
    opt!("syslibdir", Compile, |o, v| o.syslibdir = Some(string(v)?)),
    opt!("sysslice", Compile, |_o, v| need(v).map(|_| ())?),
    opt!("tree", Compile, |o, v| o.tree = positive(need(v)?)?),
    opt!("tregs", Compile, |o, v| o.tregs = positive(need(v)?)?),
    opt!("udefs", Compile, |o, v| o.unodefs = !parse_cflag(v)?),
    opt!("undef", Compile, before_compile, |o, v| o
        .undefines
        .push(string(v)?)),
    opt!("unodefs", Compile, |o, v| o.unodefs = parse_cflag(v)?),
    opt!("useruid", Compile, |_o, v| small(need(v)?).map(|_| ())?),
    opt!("verbose", Compile, |o, v| o.verbose = parse_cflag(v)?),
    opt!("version", Compile, |o, v| o.version =
        Some(version(need(v)?)?)),
    opt!("zdefs", Compile, |o, v| o.zdefs = parse_cflag(v)?),
    // Run-time options.
    opt!("aggsize", Runtime, |o, v| o.aggsize =
        size_or(v, o.aggsize)?),
    opt!("bpflog", Runtime, |o, v| o.bpflog = parse_flag(v)?),
    opt!("bpflogsize", Runtime, |o, v| o.bpflogsize = opt_size(v)?),
    opt!("bufpolicy", Runtime, |o, v| o.bufpolicy =
        BufPolicy::parse(need(v)?)?),
    opt!(
        "bufresize",
        Runtime,
        |o, v| o.bufresize_manual = match need(v)? {
            "auto" => false,
            "manual" => true,
            _ => return Err(OptError::bad_value()),
        }
    ),
    opt!("bufsize", Runtime, |o, v| o.bufsize =
        size_or(v, o.bufsize)?),
    opt!("cleanrate", Runtime, |o, v| o.cleanrate_hz =
        parse_rate(need(v)?)?),
    opt!("cpu", Runtime, |o, v| o.cpu = parse_count(v)?),
    opt!("destructive", Runtime, |o, v| o.destructive =
        parse_flag(v)?),
    opt!("dynvarsize", Runtime, |o, v| o.dynvarsize =
        size_or(v, o.dynvarsize)?),
    opt!("flamegraph", Runtime, |o, v| o.flamegraph =
        Some(string(v)?)),
    opt!("grabanon", Runtime, |o, v| o.grabanon = parse_flag(v)?),
    opt!("jstackframes", Runtime, |o, v| o.jstackframes =
        parse_count(v)?),
    opt!("jstackstrsize", Runtime, |o, v| o.jstackstrsize =
        opt_size(v)?),
    // FreeBSD's `--libxo json[,pretty]`: the same as oformat.
    opt!("libxo", Runtime, |o, v| o.oformat =
        OutputFormat::parse(need(v)?)?),
    opt!("lockmem", Runtime, before_compile, |o, v| o.lockmem =
        Some(match need(v)? {
            "unlimited" => u64::MAX,
            s => parse_size(s)?,
        })),
    opt!("metriclabels", Runtime, |o, v| o
        .metriclabels
        .push(string(v)?)),
    opt!("maxframes", Runtime, |o, v| o.maxframes = parse_count(v)?),
    opt!("otlp", Runtime, |o, v| o.otlp = Some(otlp_url(v)?)),
    opt!("noresolve", Runtime, |o, v| o.noresolve = parse_flag(v)?),
    opt!("followfork", Runtime, |o, v| o.followfork = parse_flag(v)?),
    opt!("nspec", Runtime, |o, v| o.nspec =
        parse_count(v)?.unwrap_or(1) as u64),
    opt!("oformat", Runtime, |o, v| o.oformat =
        OutputFormat::parse(need(v)?)?),
    opt!(
        "pcapsize",
        Runtime,
        |o, v| o.pcapsize = match opt_size(v)? {
            Some(n) if (1..=65535).contains(&n) => n.div_ceil(8) * 8,
            _ => 128,
        }
    ),
    opt!("prometheus", Runtime, |o, v| o.prometheus =
        Some(socket_addr(v)?)),
    opt!(
        "scratchsize",
        Runtime,
        |o, v| o.scratchsize = match opt_size(v)? {
            Some(n) if n > 0 => (n + 8).div_ceil(8) * 8,
            Some(_) | None => 0,
        }
    ),
    opt!("specsize", Runtime, |o, v| o.specsize =
        size_or(v, o.specsize)?),
    opt!("stackframes", Runtime, |o, v| o.stackframes =
        parse_count(v)?),
    opt!("statusrate", Runtime, |o, v| {
        o.statusrate_hz = parse_rate(need(v)?)?;
        o.statusrate_ns = Some(parse_period_ns(need(v)?)?);
    }),
    opt!("strsize", Runtime, |o, v| o.strsize =
        strsize(v, o.strsize)?),
    opt!("ustackframes", Runtime, |o, v| o.ustackframes =
        parse_count(v)?),
    // Ours: user stack bytes copied for CFI unwinding (docs/OPTIONS.md).
    opt!("ustackbytes", Runtime, |o, v| o.ustackbytes =
        size_or(v, o.ustackbytes)?),
    // Dynamic run-time options.
    opt!("aggfmt", Dynamic, |o, v| o.aggfmt_folded = match need(v)? {
        "folded" => true,
        "text" => false,
        _ => return Err(OptError::bad_value()),
    }),
    opt!("aggpack", Dynamic, |o, v| o.aggpack = parse_flag(v)?),
    opt!("aggrate", Dynamic, |o, v| {
        o.aggrate_hz = parse_rate(need(v)?)?;
        o.aggrate_ns = Some(parse_period_ns(need(v)?)?);
    }),
    opt!("aggsortkey", Dynamic, |o, v| o.aggsortkey = parse_flag(v)?),
    opt!("aggsortkeypos", Dynamic, |o, v| o.aggsortkeypos =
        parse_count(v)?),
    opt!("aggsortpos", Dynamic, |o, v| o.aggsortpos = parse_count(v)?),
    opt!("aggsortrev", Dynamic, |o, v| o.aggsortrev = parse_flag(v)?),
    opt!("aggzoom", Dynamic, |o, v| o.aggzoom = parse_flag(v)?),
    opt!("flowindent", Dynamic, |o, v| o.flowindent = parse_flag(v)?),
    opt!(
        "printsize",
        Dynamic,
        |o, v| o.printsize = match opt_size(v)? {
            Some(n) if (1..=65536).contains(&n) => n.div_ceil(8) * 8,
            _ => 8192,
        }
    ),
    opt!("quiet", Dynamic, |o, v| o.quiet = parse_flag(v)?),
    opt!("quietresize", Dynamic, |o, v| o.quietresize =
        parse_flag(v)?),
    opt!("rawbytes", Dynamic, |o, v| o.rawbytes = parse_flag(v)?),
    opt!("stackindent", Dynamic, |o, v| o.stackindent =
        parse_count(v)?.unwrap_or(0) as u64),
    opt!("switchrate", Dynamic, |o, v| {
        o.switchrate_hz = parse_rate(need(v)?)?;
        o.switchrate_ns = Some(parse_period_ns(need(v)?)?);
    }),
];

/// `strsize`: at least 2 (an empty string and its NUL), at most 65536 here.
fn strsize(v: Option<&str>, old: u64) -> Result<u64, OptError> {
    let n = size_or(v, old)?;
    if !(2..=65536).contains(&n) {
        return Err(OptError::bad_value());
    }
    Ok(n)
}

/// A small non-negative number (`atoi` in libdtrace).
fn small(v: &str) -> Result<u32, OptError> {
    u32::try_from(parse_number(v)?).map_err(|_| OptError::bad_value())
}

fn positive(v: &str) -> Result<u32, OptError> {
    match small(v)? {
        0 => Err(OptError::bad_value()),
        n => Ok(n),
    }
}

/// `iregs`: the BPF machine has a fixed register file; libdtrace accepts only
/// its full size and reports fewer as too few to generate code.
fn iregs(v: &str) -> Result<(), OptError> {
    match small(v)? {
        0 => Err(OptError::bad_value()),
        n if n > IREGS => Err(OptError::bad_value()),
        n if n < IREGS => Err(OptError("Insufficient registers to generate code".into())),
        _ => Ok(()),
    }
}

/// `debugassert`: libdtrace's internal lock assertions; `mutexes` is the one kind.
fn debug_assert(v: &str) -> Result<(), OptError> {
    if v == "mutexes" {
        Ok(())
    } else {
        Err(OptError::bad_value())
    }
}

/// `ctypes`/`dtypes` write the program's C or D types as CTF; Linux's kernel
/// types are BTF and this implementation has no CTF writer.
fn types_file(_v: &str) -> Result<(), OptError> {
    Err(OptError(
        "CTF type files are not supported: kernel types come from BTF".into(),
    ))
}

/// `amin`: a stability attribute triple `name/data/class` (or one level for all).
fn attr(v: &str) -> Result<String, OptError> {
    const LEVELS: &[&str] = &[
        "Internal", "Private", "Obsolete", "External", "Unstable", "Evolving", "Stable", "Standard",
    ];
    const CLASSES: &[&str] = &["Unknown", "CPU", "Platform", "Group", "ISA", "Common"];
    let parts: Vec<&str> = v.split('/').collect();
    let ok = match parts.as_slice() {
        [l] => LEVELS.iter().any(|x| x.eq_ignore_ascii_case(l)),
        [n, d, c] => {
            LEVELS.iter().any(|x| x.eq_ignore_ascii_case(n))
                && LEVELS.iter().any(|x| x.eq_ignore_ascii_case(d))
                && CLASSES.iter().any(|x| x.eq_ignore_ascii_case(c))
        }
        _ => false,
    };
    if ok {
        Ok(v.to_string())
    } else {
        Err(OptError::bad_value())
    }
}

/// The D versions this compiler implements, oldest first.
pub const D_VERSIONS: &[&str] = &[
    "1.0", "1.1", "1.2", "1.2.1", "1.2.2", "1.3", "1.4", "1.4.1", "1.5", "1.6", "1.6.1", "1.6.2",
    "1.6.3", "1.6.4", "2.0",
];

/// `version`: `major.minor[.micro]`, a version this compiler defines.
fn version(v: &str) -> Result<String, OptError> {
    let well_formed = {
        let parts: Vec<&str> = v.split('.').collect();
        (2..=3).contains(&parts.len())
            && parts
                .iter()
                .all(|p| !p.is_empty() && p.bytes().all(|b| b.is_ascii_digit()))
    };
    if !well_formed {
        return Err(OptError("Invalid version string".into()));
    }
    let canonical = v
        .strip_suffix(".0")
        .filter(|s| s.contains('.'))
        .unwrap_or(v);
    if !D_VERSIONS.contains(&canonical) {
        return Err(OptError("Requested version is not supported".into()));
    }
    Ok(canonical.to_string())
}
