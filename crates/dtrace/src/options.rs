//! `-x name[=value]` options and their defaults (as dtrace(1) documents them).

/// An unknown option or a bad value; the text completes
/// `dtrace: failed to set -x NAME: ...`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OptError(pub String);

impl std::fmt::Display for OptError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

/// Options the library understands. Sizes are in bytes, rates in Hz.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Options {
    pub bufsize: u64,
    pub aggsize: u64,
    pub dynvarsize: u64,
    pub strsize: u64,
    pub switchrate_hz: u64,
    pub aggrate_hz: u64,
    pub quiet: bool,
    pub flowindent: bool,
    pub errtags: bool,
    pub verbose: bool,
    pub zdefs: bool,
    pub defaultargs: bool,
    pub destructive: bool,
    pub aggsortkey: bool,
    pub aggsortrev: bool,
    pub aggsortpos: Option<u32>,
    pub aggsortkeypos: Option<u32>,
    /// `-C`: run the C preprocessor over script files.
    pub cpp: bool,
    /// `-x cpppath=PATH`: the preprocessor to run (default `cpp` on `PATH`).
    pub cpppath: Option<String>,
    /// `-D name[=value]` (option `define`), in order.
    pub defines: Vec<String>,
    /// `-U name` (option `undef`), in order.
    pub undefines: Vec<String>,
    /// `-I dir` (option `incdir`), in order.
    pub incdirs: Vec<String>,
    /// `-L dir` (option `libdir`): directories of user D libraries, in order.
    pub libdirs: Vec<String>,
    /// `-H` (option `cpphdrs`): the preprocessor lists the files it includes.
    pub cpphdrs: bool,
    /// `-v` (not an `-x` option): compiling reports stability attributes.
    pub report_stability: bool,
    /// dtrace(1)'s testing mode (`_DTRACE_TESTING` set in the environment; not an
    /// `-x` option): probe output without the CPU and ID columns.
    pub testing: bool,
}

impl Default for Options {
    fn default() -> Options {
        Options {
            bufsize: 4 << 20,
            aggsize: 4 << 20,
            dynvarsize: 1 << 20,
            strsize: 256,
            switchrate_hz: 1,
            aggrate_hz: 1,
            quiet: false,
            flowindent: false,
            errtags: false,
            verbose: false,
            zdefs: false,
            defaultargs: false,
            destructive: false,
            aggsortkey: false,
            aggsortrev: false,
            aggsortpos: None,
            aggsortkeypos: None,
            cpp: false,
            cpppath: None,
            defines: Vec::new(),
            undefines: Vec::new(),
            incdirs: Vec::new(),
            libdirs: Vec::new(),
            cpphdrs: false,
            report_stability: false,
            testing: false,
        }
    }
}

/// A size: bytes, or with a `k`/`m`/`g`/`t` suffix (either case).
pub fn parse_size(v: &str) -> Result<u64, OptError> {
    let v = v.trim();
    let digits = v.bytes().take_while(u8::is_ascii_digit).count();
    let n: u64 = v
        .get(..digits)
        .and_then(|d| d.parse().ok())
        .ok_or_else(|| OptError("Invalid value for specified option".into()))?;
    let mult: u64 = match v.get(digits..).unwrap_or("").to_ascii_lowercase().as_str() {
        "" => 1,
        "k" => 1 << 10,
        "m" => 1 << 20,
        "g" => 1 << 30,
        "t" => 1 << 40,
        _ => return Err(OptError("Invalid value for specified option".into())),
    };
    n.checked_mul(mult)
        .ok_or_else(|| OptError("Invalid value for specified option".into()))
}

/// A rate: Hz, or a time interval with `ns us ms s` (and long) suffixes; returns Hz.
pub fn parse_rate(v: &str) -> Result<u64, OptError> {
    let bad = || OptError("Invalid value for specified option".into());
    let v = v.trim();
    let digits = v.bytes().take_while(u8::is_ascii_digit).count();
    let n: u64 = v
        .get(..digits)
        .and_then(|d| d.parse().ok())
        .ok_or_else(bad)?;
    let per_sec_ns = 1_000_000_000u64;
    let ns = match v.get(digits..).unwrap_or("") {
        "" | "hz" => return if n == 0 { Err(bad()) } else { Ok(n) },
        "ns" | "nsec" => n,
        "us" | "usec" => n.saturating_mul(1_000),
        "ms" | "msec" => n.saturating_mul(1_000_000),
        "s" | "sec" => n.saturating_mul(per_sec_ns),
        _ => return Err(bad()),
    };
    if ns == 0 {
        return Err(bad());
    }
    Ok((per_sec_ns / ns).max(1))
}

/// Every option name libdtrace knows (its compile-time, run-time and dynamic
/// run-time tables), so that `DTRACE_OPT_<NAME>` is consulted for these alone.
pub const NAMES: &[&str] = &[
    // compile-time
    "aggpercpu",
    "amin",
    "argref",
    "core",
    "cpp",
    "cppargs",
    "cpphdrs",
    "cpppath",
    "ctypes",
    "ctfpath",
    "defaultargs",
    "debug",
    "debugassert",
    "define",
    "disasm",
    "droptags",
    "dtypes",
    "empty",
    "errtags",
    "evaltime",
    "incdir",
    "iregs",
    "kdefs",
    "knodefs",
    "late",
    "lazyload",
    "ldpath",
    "libdir",
    "linkmode",
    "linktype",
    "linknommap",
    "modpath",
    "nolibs",
    "pgmax",
    "preallocate",
    "procfspath",
    "pspec",
    "stdc",
    "strip",
    "syslibdir",
    "sysslice",
    "tree",
    "tregs",
    "udefs",
    "undef",
    "unodefs",
    "useruid",
    "verbose",
    "version",
    "zdefs",
    // run-time
    "aggsize",
    "bpflog",
    "bpflogsize",
    "bufsize",
    "bufpolicy",
    "bufresize",
    "cleanrate",
    "cpu",
    "destructive",
    "dynvarsize",
    "grabanon",
    "jstackframes",
    "jstackstrsize",
    "lockmem",
    "maxframes",
    "nspec",
    "pcapsize",
    "scratchsize",
    "specsize",
    "stackframes",
    "statusrate",
    "strsize",
    "ustackframes",
    "noresolve",
    // dynamic run-time
    "aggrate",
    "aggsortkey",
    "aggsortkeypos",
    "aggsortpos",
    "aggsortrev",
    "flowindent",
    "quiet",
    "quietresize",
    "rawbytes",
    "stackindent",
    "switchrate",
    "printsize",
    "aggpack",
    "aggzoom",
];

/// Whether `name` is an option libdtrace knows.
pub fn is_known(name: &str) -> bool {
    NAMES.contains(&name)
}

impl Options {
    /// Set one option by name, as `-x name[=value]` does.
    pub fn set(&mut self, name: &str, value: Option<&str>) -> Result<(), OptError> {
        let need = || value.ok_or_else(|| OptError("Invalid value for specified option".into()));
        let flag = |v: Option<&str>| -> Result<bool, OptError> {
            match v {
                None | Some("") => Ok(true),
                Some(_) => Err(OptError("Invalid value for specified option".into())),
            }
        };
        match name {
            "bufsize" => self.bufsize = parse_size(need()?)?,
            "aggsize" => self.aggsize = parse_size(need()?)?,
            "dynvarsize" => self.dynvarsize = parse_size(need()?)?,
            "strsize" => {
                let s = parse_size(need()?)?;
                if s == 0 || s > 65536 {
                    return Err(OptError("Invalid value for specified option".into()));
                }
                self.strsize = s;
            }
            "switchrate" => self.switchrate_hz = parse_rate(need()?)?,
            "aggrate" => self.aggrate_hz = parse_rate(need()?)?,
            "quiet" => self.quiet = flag(value)?,
            "flowindent" => self.flowindent = flag(value)?,
            "errtags" => self.errtags = flag(value)?,
            "verbose" => self.verbose = flag(value)?,
            "zdefs" => self.zdefs = flag(value)?,
            "defaultargs" => self.defaultargs = flag(value)?,
            "destructive" => self.destructive = flag(value)?,
            "aggsortkey" => self.aggsortkey = flag(value)?,
            "aggsortrev" => self.aggsortrev = flag(value)?,
            "aggsortpos" => {
                self.aggsortpos = Some(
                    need()?
                        .parse()
                        .map_err(|_| OptError("Invalid value for specified option".into()))?,
                )
            }
            "aggsortkeypos" => {
                self.aggsortkeypos = Some(
                    need()?
                        .parse()
                        .map_err(|_| OptError("Invalid value for specified option".into()))?,
                )
            }
            // The preprocessor (libdtrace's names for -C -D -U -I -H).
            "cpp" => self.cpp = flag(value)?,
            "cpphdrs" => self.cpphdrs = flag(value)?,
            "cpppath" => self.cpppath = Some(need()?.to_string()),
            "define" => self.defines.push(need()?.to_string()),
            "undef" => self.undefines.push(need()?.to_string()),
            "incdir" => self.incdirs.push(need()?.to_string()),
            "libdir" => self.libdirs.push(need()?.to_string()),
            // Accepted for compatibility; they have no effect in this implementation.
            "bufpolicy" | "bufresize" | "cpu" | "nspec" | "specsize" | "statusrate"
            | "cleanrate" | "stackframes" | "ustackframes" | "jstackframes" | "jstackstrsize"
            | "rawbytes" | "aggpercpu" | "stackindent" | "dynvarrate" => {}
            _ => return Err(OptError("Invalid option name".into())),
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_and_rates() {
        assert_eq!(parse_size("4m"), Ok(4 << 20));
        assert_eq!(parse_size("512"), Ok(512));
        assert_eq!(parse_size("2K"), Ok(2048));
        assert!(parse_size("4x").is_err());
        assert!(parse_size("").is_err());
        assert_eq!(parse_rate("10hz"), Ok(10));
        assert_eq!(parse_rate("5"), Ok(5));
        assert_eq!(parse_rate("100ms"), Ok(10));
        assert!(parse_rate("0").is_err());
        let mut o = Options::default();
        assert!(o.set("quiet", None).is_ok() && o.quiet);
        assert_eq!(
            o.set("nosuch", None),
            Err(OptError("Invalid option name".into()))
        );
        assert!(o.set("bufsize", None).is_err());
        assert!(o.set("strsize", Some("32")).is_ok());
        assert_eq!(o.strsize, 32);
        assert!(o.set("define", Some("X=1")).is_ok());
        assert!(o.set("define", None).is_err());
        assert!(o.set("undef", Some("Y")).is_ok() && o.set("incdir", Some("/i")).is_ok());
        assert!(o.set("cpp", None).is_ok() && o.set("cpphdrs", None).is_ok());
        assert_eq!(
            (
                o.defines.clone(),
                o.undefines.clone(),
                o.incdirs.clone(),
                o.cpp,
                o.cpphdrs
            ),
            (
                vec!["X=1".to_string()],
                vec!["Y".to_string()],
                vec!["/i".to_string()],
                true,
                true
            )
        );
    }
}
