//! dtrace's options: one table ([`table::TABLE`]) with every option libdtrace
//! knows, its parser, its stage and its effect here, and the [`Options`] value it
//! fills. `-x name[=value]`, `#pragma D option`, `DTRACE_OPT_<NAME>` and the
//! command-line flags that are options (`-q`, `-w`, `-Z`, `-C`, ...) all go
//! through [`Options::set`].
//!
//! **Invariant: an option has exactly one entry here.** The compiler's
//! `CompileOptions` and the consumer's `ConsumerOptions` are filled from
//! [`Options`]; neither parses option text.

pub mod table;
mod values;

pub use table::{is_known, OptSpec, Stage, TABLE};
pub use values::{parse_rate, parse_size, BufPolicy, EvalTime, LinkMode, OutputFormat, StdcMode};

/// An unknown option or a bad value; the text completes
/// `dtrace: failed to set -x NAME: ...`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OptError(pub String);

impl OptError {
    /// libdtrace's `EDT_BADOPTVAL`.
    pub fn bad_value() -> OptError {
        OptError("Invalid value for specified option".into())
    }
    /// libdtrace's `EDT_BADOPTNAME`.
    pub fn bad_name() -> OptError {
        OptError("Invalid option name".into())
    }
    /// libdtrace's `EDT_BADOPTCTX`: the option must be set before compiling.
    pub fn bad_context() -> OptError {
        OptError("Option cannot be used from within a D program".into())
    }
}

impl std::fmt::Display for OptError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for OptError {}

/// Where an option is being set from: some options shape the preprocessor or
/// the link and cannot be set by the program they would apply to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Origin {
    /// `-x`, a command-line flag, `DTRACE_OPT_*`, or the library API.
    Command,
    /// `#pragma D option` inside a D program.
    Program,
}

/// Every option's value. Sizes are in bytes, rates in Hz; `None` is "unset"
/// (the documented default applies).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Options {
    // Buffers and sizes.
    /// `bufsize`: principal buffer size per CPU.
    pub bufsize: u64,
    /// `bufpolicy`: what happens when the principal buffer fills.
    pub bufpolicy: BufPolicy,
    /// `bufresize=manual`: fail rather than shrink buffers that cannot be allocated.
    pub bufresize_manual: bool,
    /// `aggsize`: aggregation buffer size.
    pub aggsize: u64,
    /// `dynvarsize`: dynamic-variable space.
    pub dynvarsize: u64,
    /// `strsize`: the size of D's `string` type.
    pub strsize: u64,
    /// `scratchsize`: scratch space per clause (alloca, string temporaries),
    /// rounded up to 8 plus one word as libdtrace does.
    pub scratchsize: u64,
    /// `nspec`: number of speculation buffers.
    pub nspec: u64,
    /// `specsize`: size of each speculation buffer.
    pub specsize: u64,
    /// `lockmem`: the locked-memory limit (`RLIMIT_MEMLOCK`) to set before
    /// creating maps; `Some(u64::MAX)` for `unlimited`.
    pub lockmem: Option<u64>,
    /// `pcapsize`: bytes of each packet `pcap()` captures.
    pub pcapsize: u64,
    /// `printsize`: largest value `print()` shows.
    pub printsize: u64,
    // Rates.
    /// `switchrate`: how often the principal buffers are read.
    pub switchrate_hz: u64,
    /// `aggrate`: how often aggregations are read.
    pub aggrate_hz: u64,
    /// `aggrate` as set (its period in ns); unset, once a second.
    pub aggrate_ns: Option<u64>,
    /// `statusrate`: how often the kernel-side status (drops, errors) is checked.
    pub statusrate_hz: u64,
    /// `cleanrate`: how often dynamic variables are cleaned.
    pub cleanrate_hz: u64,
    /// `switchrate` as set (its period in ns): exit() is then noticed at the
    /// first buffer switch after it, a whole period apart from the start.
    pub switchrate_ns: Option<u64>,
    /// `statusrate` as set (its period in ns): exit() is then noticed at the
    /// first status check after it.
    pub statusrate_ns: Option<u64>,
    // Output.
    /// `quiet` (`-q`): only explicitly traced data.
    pub quiet: bool,
    /// `flowindent` (`-F`): indent by function entry and return.
    pub flowindent: bool,
    /// `rawbytes`: traced byte data always as a hex dump.
    pub rawbytes: bool,
    /// `stackindent`: spaces before each stack frame.
    pub stackindent: u64,
    /// `droptags`: drop reports carry their `DTRACEDROP_*` tag.
    pub droptags: bool,
    /// `oformat` (`-O`): text, JSON or NDJSON.
    pub oformat: OutputFormat,
    /// `aggfmt=folded`: stack-keyed aggregations print as folded stacks.
    pub aggfmt_folded: bool,
    /// `quietresize`: no message when a buffer is resized.
    pub quietresize: bool,
    /// `aggsortkey`: sort aggregations by key, ties by value.
    pub aggsortkey: bool,
    /// `aggsortrev`: reverse the sort.
    pub aggsortrev: bool,
    /// `aggsortpos`: which aggregation of a `printa` sorts.
    pub aggsortpos: Option<u32>,
    /// `aggsortkeypos`: which key is compared first.
    pub aggsortkeypos: Option<u32>,
    /// `aggpercpu`: each row also shows every CPU's value.
    pub aggpercpu: bool,
    /// `aggpack`: histograms packed on one line per key.
    pub aggpack: bool,
    /// `aggzoom`: histogram bars scaled to the largest bucket.
    pub aggzoom: bool,
    /// `noresolve`: print addresses instead of symbol names.
    pub noresolve: bool,
    /// `followfork` (ours): pid and usdt probes also fire in the children
    /// the traced processes fork, and theirs.
    pub followfork: bool,
    // Stacks.
    /// `stackframes`: frames `stack()` records by default.
    pub stackframes: Option<u32>,
    /// `ustackframes`: frames `ustack()` records by default.
    pub ustackframes: Option<u32>,
    /// `jstackframes`: frames `jstack()` records by default.
    pub jstackframes: Option<u32>,
    /// `ustackbytes` (ours): bytes of user stack a traced `ustack()` copies
    /// for the consumer's CFI unwinding; 0 keeps frame-pointer frames only.
    pub ustackbytes: u64,
    /// `jstackstrsize`: string space of `jstack()`.
    pub jstackstrsize: Option<u64>,
    /// `maxframes`: the most frames any stack may have (default:
    /// `kernel.perf_event_max_stack`, as DTrace).
    pub maxframes: Option<u32>,
    // Tracing control.
    /// `destructive` (`-w`): destructive actions are allowed.
    pub destructive: bool,
    /// `cpu`: trace only on this CPU.
    pub cpu: Option<u32>,
    /// `grabanon`: claim anonymous state (Linux has none; see the table).
    pub grabanon: bool,
    /// `evaltime`: when a `-c` command's probes are enabled.
    pub evaltime: EvalTime,
    // Compiler.
    /// `errtags`: compile errors show their `D_*` tag.
    pub errtags: bool,
    /// `verbose`: more detail on failures (the verifier log).
    pub verbose: bool,
    /// `zdefs` (`-Z`): descriptions that match no probe are allowed.
    pub zdefs: bool,
    /// `defaultargs`: unset macro arguments are 0 or "".
    pub defaultargs: bool,
    /// `argref`: macro arguments need not all be referenced.
    pub argref: bool,
    /// `empty`: an empty program is accepted.
    pub empty: bool,
    /// `knodefs`: unresolvable kernel symbols are not an error.
    pub knodefs: bool,
    /// `unodefs`: unresolvable user symbols are not an error.
    pub unodefs: bool,
    /// `nolibs`: the built-in D libraries are not loaded.
    pub nolibs: bool,
    /// `pspec`: `-s` programs are parsed as probe specifiers.
    pub pspec: bool,
    /// `amin`: the minimum stability attributes a program's statements must have.
    pub amin: Option<String>,
    /// `late`: translators bound at run time (`dynamic`) or compile time (`static`).
    pub late_dynamic: bool,
    /// `version`: the D language version the program is written for.
    pub version: Option<String>,
    /// `tregs`: the most keys a tuple (associative array or aggregation key) may have.
    pub tregs: u32,
    /// `tree`: dump the parse tree at these stages (bit mask).
    pub tree: u32,
    /// `disasm`: which `-S` listings to print (bit mask).
    pub disasm: u32,
    /// `bpflog`: print the BPF verifier's log for every program loaded.
    pub bpflog: bool,
    /// `bpflogsize`: the verifier log buffer size.
    pub bpflogsize: Option<u64>,
    /// `debug`: libdtrace's debugging messages on stderr.
    pub debug: bool,
    /// `core`: dump core when dtrace exits.
    pub core: bool,
    // The preprocessor (-C -D -U -I -H).
    /// `-C`: run the C preprocessor over script files.
    pub cpp: bool,
    /// `-x cpppath=PATH`: the preprocessor to run (default `cpp` on `PATH`).
    pub cpppath: Option<String>,
    /// `cppargs`: more arguments for the preprocessor, split at white space.
    pub cppargs: Vec<String>,
    /// `-D name[=value]` (option `define`), in order.
    pub defines: Vec<String>,
    /// `-U name` (option `undef`), in order.
    pub undefines: Vec<String>,
    /// `-I dir` (option `incdir`), in order.
    pub incdirs: Vec<String>,
    /// `-L dir` (option `libdir`): directories of user D libraries, in order.
    pub libdirs: Vec<String>,
    /// `syslibdir`: the directory of the system D libraries, replacing the built-in ones.
    pub syslibdir: Option<String>,
    /// `-H` (option `cpphdrs`): the preprocessor lists the files it includes.
    pub cpphdrs: bool,
    /// `stdc`: the `-X` mode (`__STDC__` defined or not).
    pub stdc: StdcMode,
    // Linking (-G) and paths.
    /// `linkmode`: how `-G` links.
    pub linkmode: LinkMode,
    /// `linktype`: `elf` (true) or `dof`.
    pub linktype_dof: bool,
    /// `ldpath`: the linker for `-G`.
    pub ldpath: Option<String>,
    /// `modpath`: where kernel modules are looked for.
    pub modpath: Option<String>,
    /// `procfspath`: where procfs is mounted.
    pub procfspath: Option<String>,
    /// `ctfpath`: where type data is looked for.
    pub ctfpath: Option<String>,
    // Fleet export (extensions).
    /// `prometheus`: serve aggregations at `http://ADDR:PORT/metrics`.
    pub prometheus: Option<String>,
    /// `otlp`: push aggregations to this OTLP/HTTP collector URL.
    pub otlp: Option<String>,
    /// `metriclabels`: `AGG:NAME[,NAME...]`, label names for an aggregation's keys.
    pub metriclabels: Vec<String>,
    /// `flamegraph`: write the stack-keyed aggregations as an SVG here at exit.
    pub flamegraph: Option<String>,
    /// `-v` (not an `-x` option): compiling reports stability attributes.
    pub report_stability: bool,
    /// dtrace(1)'s testing mode (`_DTRACE_TESTING` set in the environment; not an
    /// `-x` option): probe output without the CPU and ID columns.
    pub testing: bool,
}

/// libdtrace's tuple register count, the default of `tregs`.
pub const DEFAULT_TREGS: u32 = 8;
/// libdtrace's integer register count: `iregs` accepts only this.
pub const IREGS: u32 = 8;

impl Default for Options {
    fn default() -> Options {
        Options {
            bufsize: 4 << 20,
            bufpolicy: BufPolicy::Switch,
            bufresize_manual: false,
            aggsize: 4 << 20,
            dynvarsize: 1 << 20,
            strsize: 256,
            scratchsize: 256 + 8,
            nspec: 1,
            specsize: 32 << 10,
            lockmem: None,
            pcapsize: 128,
            printsize: 8192,
            switchrate_hz: 1,
            aggrate_hz: 1,
            aggrate_ns: None,
            statusrate_hz: 1,
            cleanrate_hz: 101,
            switchrate_ns: None,
            statusrate_ns: None,
            quiet: false,
            flowindent: false,
            rawbytes: false,
            stackindent: 14,
            droptags: false,
            oformat: OutputFormat::Text,
            aggfmt_folded: false,
            quietresize: false,
            aggsortkey: false,
            aggsortrev: false,
            aggsortpos: None,
            aggsortkeypos: None,
            aggpercpu: false,
            aggpack: false,
            aggzoom: false,
            noresolve: false,
            followfork: false,
            stackframes: None,
            ustackframes: None,
            jstackframes: None,
            ustackbytes: dtrace_sema::DEFAULT_USTACK_BYTES as u64,
            jstackstrsize: None,
            maxframes: None,
            destructive: false,
            cpu: None,
            grabanon: false,
            evaltime: EvalTime::Exec,
            errtags: false,
            verbose: false,
            zdefs: false,
            defaultargs: false,
            argref: false,
            empty: false,
            knodefs: false,
            unodefs: false,
            nolibs: false,
            pspec: false,
            amin: None,
            late_dynamic: false,
            version: None,
            tregs: DEFAULT_TREGS,
            tree: 0,
            disasm: 0,
            bpflog: false,
            bpflogsize: None,
            debug: false,
            core: false,
            cpp: false,
            cpppath: None,
            cppargs: Vec::new(),
            defines: Vec::new(),
            undefines: Vec::new(),
            incdirs: Vec::new(),
            libdirs: Vec::new(),
            prometheus: None,
            otlp: None,
            metriclabels: Vec::new(),
            flamegraph: None,
            syslibdir: None,
            cpphdrs: false,
            stdc: StdcMode::A,
            linkmode: LinkMode::Kernel,
            linktype_dof: false,
            ldpath: None,
            modpath: None,
            procfspath: None,
            ctfpath: None,
            report_stability: false,
            testing: false,
        }
    }
}

impl Options {
    /// Set one option by name, as `-x name[=value]` does.
    pub fn set(&mut self, name: &str, value: Option<&str>) -> Result<(), OptError> {
        self.set_from(name, value, Origin::Command)
    }

    /// Set one option by name from `origin`: options that must be set before
    /// compiling refuse [`Origin::Program`] with libdtrace's `EDT_BADOPTCTX`.
    pub fn set_from(
        &mut self,
        name: &str,
        value: Option<&str>,
        origin: Origin,
    ) -> Result<(), OptError> {
        let spec = TABLE
            .iter()
            .find(|s| s.name == name)
            .ok_or_else(OptError::bad_name)?;
        if spec.before_compile && origin == Origin::Program {
            return Err(OptError::bad_context());
        }
        (spec.set)(self, value)
    }
}

#[cfg(test)]
mod tests;
