//! dtrace(1)'s command line, parsed getopt-style so that usage and errors read
//! exactly as dtrace's: combined flags (`-qn BEGIN`), option arguments attached
//! or separate (`-xbufsize=4m`, `-x bufsize=4m`), and operands anywhere, which
//! become the macro arguments `$1..$n` (dtrace restarts option parsing after
//! each operand). `--` ends the options: everything after it is an operand.

use dtrace::ProbeSpecKind;

/// Exit status for invalid options or arguments (dtrace(1) "EXIT STATUS").
pub const EXIT_USAGE: i32 = 2;

/// Options that take an argument; every other option letter is a flag.
/// `3` and `6` take one so that `-32`/`-64` parse as getopt does.
pub(crate) const WITH_ARGUMENT: &str = "36bcDfiILmnoOpPsUxX";
pub(crate) const FLAGS: &str = "aACeFGhHlqSvVwZ";
/// Long options (our extensions): each is the `-x` option of the same name,
/// as `--name VALUE` or `--name=VALUE`.
pub(crate) const LONG_OPTIONS: &[&str] = &["prometheus", "otlp", "libxo", "flamegraph"];

/// What dtrace is asked to do; at most one of -A -G -h -l -V may be given.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    /// Compile, enable and trace (the default; `-e` stops after compiling).
    Exec,
    /// `-l`: list probes.
    List,
    /// `-h`: generate a header file from provider definitions.
    Header,
    /// `-G`: generate an ELF file with the program (USDT linking).
    Link,
    /// `-A`: generate anonymous tracing directives.
    Anon,
    /// `-V`: print the D API version.
    Version,
}

/// One program source, in command-line order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SourceArg {
    /// `-n`, `-P`, `-m`, `-f`, `-i`.
    Spec { kind: ProbeSpecKind, text: String },
    /// `-s file`.
    Script(String),
}

/// A library option set from the command line, in order: `-x name[=value]` and
/// the flags that are shorthands for options (`-q` = quiet, `-b` = bufsize, ...).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Setting {
    pub name: String,
    pub value: Option<String>,
    /// How the user wrote it, for "failed to set -b 4x" messages.
    pub origin: String,
}

/// The preprocessor's command-line options, for `cpp` when `-C` runs it
/// (`-X` is the library's `stdc` option, among the settings).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Preprocessor {
    /// `-C`
    pub enabled: bool,
    /// `-D name[=value]`
    pub defines: Vec<String>,
    /// `-U name`
    pub undefines: Vec<String>,
    /// `-I path`
    pub include_dirs: Vec<String>,
    /// `-H`
    pub print_includes: bool,
}

/// `-32` / `-64`: the D compiler's data model (the library's).
pub use dtrace::DataModel;

/// How compile errors are shown: dtrace's one line, plus the rich form with a
/// caret under the source when `Rich` (or `Auto` and stderr is a terminal).
/// Set with `-x diag=rich|plain|auto`, which the command handles itself.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DiagStyle {
    Auto,
    Rich,
    Plain,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Args {
    /// `argv[0]`, which D sees as `$0` for `-n` programs.
    pub argv0: String,
    pub mode: Mode,
    pub sources: Vec<SourceArg>,
    pub settings: Vec<Setting>,
    /// `-c cmd`, each run with its words split on white space.
    pub commands: Vec<String>,
    /// `-p pid`, as given (checked when the process is grabbed).
    pub pids: Vec<String>,
    /// `-o file` (appended to).
    pub output: Option<String>,
    /// `-e`
    pub compile_only: bool,
    /// `-S`
    pub disassemble: bool,
    /// `-v` (may repeat)
    pub verbose: u32,
    /// `-Z`
    pub zdefs: bool,
    /// `-w`
    pub destructive: bool,
    /// `-F`
    pub flowindent: bool,
    /// `-a`
    pub claim_anon: bool,
    pub data_model: Option<DataModel>,
    pub preprocessor: Preprocessor,
    /// `-L path`
    pub lib_dirs: Vec<String>,
    pub diag: DiagStyle,
    /// Operands: `$1..$n`.
    pub macro_args: Vec<String>,
}

/// A command line dtrace refuses. Printed to stderr; exit status 2.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ArgsError {
    /// The line before the usage text (getopt's complaint), or the whole message
    /// when `usage` is false; no trailing newline.
    pub message: Option<String>,
    /// Follow with the usage text.
    pub usage: bool,
}

impl ArgsError {
    fn usage(message: impl Into<String>) -> ArgsError {
        ArgsError {
            message: Some(message.into()),
            usage: true,
        }
    }

    /// The full text for stderr.
    pub fn render(&self) -> String {
        let mut s = String::new();
        if let Some(m) = &self.message {
            s.push_str(m);
            s.push('\n');
        }
        if self.usage {
            s.push_str(&usage_text());
        }
        s
    }
}

impl Args {
    fn new(argv0: String) -> Args {
        Args {
            argv0,
            mode: Mode::Exec,
            sources: Vec::new(),
            settings: Vec::new(),
            commands: Vec::new(),
            pids: Vec::new(),
            output: None,
            compile_only: false,
            disassemble: false,
            verbose: 0,
            zdefs: false,
            destructive: false,
            flowindent: false,
            claim_anon: false,
            data_model: None,
            preprocessor: Preprocessor::default(),
            lib_dirs: Vec::new(),
            diag: DiagStyle::Auto,
            macro_args: Vec::new(),
        }
    }

    fn set(&mut self, name: &str, value: Option<&str>, origin: String) {
        self.settings.push(Setting {
            name: name.to_string(),
            value: value.map(str::to_string),
            origin,
        });
    }
}

/// Parse a full `argv` (including `argv[0]`).
pub fn parse(argv: &[String]) -> Result<Args, ArgsError> {
    let argv0 = argv
        .first()
        .cloned()
        .unwrap_or_else(|| "dtrace".to_string());
    if argv.len() <= 1 {
        return Err(ArgsError {
            message: None,
            usage: true,
        });
    }
    let mut args = Args::new(argv0);
    let mut modes: Vec<char> = Vec::new();
    let mut i = 1;
    while i < argv.len() {
        let word = &argv[i];
        i += 1;
        if word == "--" {
            args.macro_args.extend(argv[i..].iter().cloned());
            break;
        }
        if !word.starts_with('-') || word == "-" {
            args.macro_args.push(word.clone());
            continue;
        }
        if let Some(long) = word.strip_prefix("--") {
            if let Some(opt) = LONG_OPTIONS
                .iter()
                .find(|o| long.split('=').next() == Some(**o))
            {
                let value = match long.split_once('=') {
                    Some((_, v)) => v.to_string(),
                    None if i < argv.len() => {
                        i += 1;
                        argv[i - 1].clone()
                    }
                    None => {
                        return Err(ArgsError::usage(format!(
                            "dtrace: option requires an argument -- '{opt}'"
                        )))
                    }
                };
                args.set(opt, Some(&value), format!("--{opt}"));
                continue;
            }
        }
        // A cluster of option letters: "-qn", "-xbufsize=4m", "-qnBEGIN".
        let cluster = &word[1..];
        for (pos, letter) in cluster.char_indices() {
            if WITH_ARGUMENT.contains(letter) {
                let rest = &cluster[pos + letter.len_utf8()..];
                let value = if !rest.is_empty() {
                    rest.to_string()
                } else if i < argv.len() {
                    i += 1;
                    argv[i - 1].clone()
                } else {
                    return Err(ArgsError::usage(format!(
                        "dtrace: option requires an argument -- '{letter}'"
                    )));
                };
                apply_with_argument(&mut args, letter, value)?;
                break;
            }
            if FLAGS.contains(letter) {
                apply_flag(&mut args, letter, &mut modes);
                continue;
            }
            return Err(ArgsError::usage(format!(
                "dtrace: invalid option -- '{letter}'"
            )));
        }
    }
    if modes.len() > 1 {
        return Err(ArgsError {
            message: Some(
                "dtrace: only one of the [-AGhlV] options can be specified at a time".into(),
            ),
            usage: false,
        });
    }
    Ok(args)
}

fn apply_flag(args: &mut Args, letter: char, modes: &mut Vec<char>) {
    let mut mode = |args: &mut Args, m: Mode| {
        args.mode = m;
        modes.push(letter);
    };
    match letter {
        'a' => args.claim_anon = true,
        'A' => mode(args, Mode::Anon),
        'C' => args.preprocessor.enabled = true,
        'e' => args.compile_only = true,
        'F' => {
            args.flowindent = true;
            args.set("flowindent", None, "-F".into());
        }
        'G' => mode(args, Mode::Link),
        'h' => mode(args, Mode::Header),
        'H' => args.preprocessor.print_includes = true,
        'l' => mode(args, Mode::List),
        'q' => args.set("quiet", None, "-q".into()),
        'S' => args.disassemble = true,
        'v' => args.verbose += 1,
        'V' => mode(args, Mode::Version),
        'w' => {
            args.destructive = true;
            args.set("destructive", None, "-w".into());
        }
        'Z' => {
            args.zdefs = true;
            args.set("zdefs", None, "-Z".into());
        }
        _ => {}
    }
}

fn apply_with_argument(args: &mut Args, letter: char, value: String) -> Result<(), ArgsError> {
    let spec = |kind| SourceArg::Spec {
        kind,
        text: value.clone(),
    };
    match letter {
        '3' | '6' => {
            let (want, model) = if letter == '3' {
                ("2", DataModel::Ilp32)
            } else {
                ("4", DataModel::Lp64)
            };
            if value != want {
                return Err(ArgsError::usage(format!(
                    "dtrace: illegal option -- {letter}{value}"
                )));
            }
            args.data_model = Some(model);
        }
        'b' => args.set("bufsize", Some(&value), format!("-b {value}")),
        'c' => args.commands.push(value),
        'D' => args.preprocessor.defines.push(value),
        'f' => args.sources.push(spec(ProbeSpecKind::Function)),
        'i' => args.sources.push(spec(ProbeSpecKind::Id)),
        'I' => args.preprocessor.include_dirs.push(value),
        'L' => args.lib_dirs.push(value),
        'm' => args.sources.push(spec(ProbeSpecKind::Module)),
        'n' => args.sources.push(spec(ProbeSpecKind::Name)),
        'o' => args.output = Some(value),
        // FreeBSD's structured output: `-O json` is `-x oformat=json`.
        'O' => args.set("oformat", Some(&value), format!("-O {value}")),
        'p' => args.pids.push(value),
        'P' => args.sources.push(spec(ProbeSpecKind::Provider)),
        's' => args.sources.push(SourceArg::Script(value)),
        'U' => args.preprocessor.undefines.push(value),
        'x' => apply_x(args, &value)?,
        // `-X a|c|s|t` is the `stdc` option, checked as `-x stdc` is.
        'X' => args.set("stdc", Some(&value), format!("-X {value}")),
        _ => {}
    }
    Ok(())
}

/// `-x name[=value]`. `diag` is the command's own; the rest go to the library.
fn apply_x(args: &mut Args, text: &str) -> Result<(), ArgsError> {
    let (name, value) = match text.split_once('=') {
        Some((n, v)) => (n, Some(v)),
        None => (text, None),
    };
    if name == "diag" {
        args.diag = match value {
            Some("rich") => DiagStyle::Rich,
            Some("plain") => DiagStyle::Plain,
            Some("auto") => DiagStyle::Auto,
            _ => {
                return Err(ArgsError {
                    message: Some(format!(
                        "dtrace: failed to set -x diag: expected rich, plain or auto, not '{}'",
                        value.unwrap_or("")
                    )),
                    usage: false,
                })
            }
        };
        return Ok(());
    }
    match name {
        "destructive" => args.destructive = true,
        "zdefs" => args.zdefs = true,
        "flowindent" => args.flowindent = true,
        _ => {}
    }
    args.set(name, value, format!("-x {name}"));
    Ok(())
}

/// dtrace's usage text (stderr, before exit status 2).
pub fn usage_text() -> String {
    const PREDACT: &str = "[[ predicate ] action ]";
    let mut s = String::new();
    s.push_str("Usage: dtrace [-32|-64] [-aACeFGhHlqSvVwZ] [-b bufsz] [-c cmd] [-D name[=def]]\n");
    s.push_str("\t[-I path] [-L path] [-o output] [-O format] [-p pid] [-s script] [-U name]\n");
    s.push_str("\t[-x opt[=val]] [-X a|c|s|t]\n\n");
    s.push_str(&format!("\t[-P provider {PREDACT}]\n"));
    s.push_str(&format!("\t[-m [ provider: ] module {PREDACT}]\n"));
    s.push_str(&format!("\t[-f [[ provider: ] module: ] func {PREDACT}]\n"));
    s.push_str(&format!(
        "\t[-n [[[ provider: ] module: ] func: ] name {PREDACT}]\n"
    ));
    s.push_str(&format!("\t[-i probe-id {PREDACT}] [ args ... ]\n\n"));
    s.push_str("\tpredicate -> '/' D-expression '/'\n");
    s.push_str("\t   action -> '{' D-statements '}'\n\n");
    for (flag, what) in OPTION_TABLE {
        if flag.is_empty() {
            s.push('\n');
            continue;
        }
        s.push('\t');
        s.push_str(flag);
        for _ in flag.len()..4 {
            s.push(' ');
        }
        s.push_str(what);
        s.push('\n');
    }
    s
}

/// One line per option in the usage text.
const OPTION_TABLE: &[(&str, &str)] = &[
    ("-32", "compile D programs for the 32-bit data model"),
    (
        "-64",
        "compile D programs for the 64-bit data model (default)",
    ),
    ("", ""),
    (
        "-a",
        "claim anonymous tracing state (not supported on Linux)",
    ),
    (
        "-A",
        "generate anonymous tracing directives (not supported on Linux)",
    ),
    ("-b", "set the principal trace buffer size"),
    ("-c", "run a command, and exit when it exits"),
    ("-C", "run the C preprocessor on script files"),
    ("-D", "define a preprocessor symbol"),
    ("-e", "exit after compiling, before enabling any probe"),
    ("-f", "enable or list probes matching a function name"),
    ("-F", "indent trace output by function entry and return"),
    ("-G", "generate an ELF file holding the D program"),
    ("-h", "generate a header file from provider definitions"),
    ("-H", "list the files the preprocessor includes"),
    ("-i", "enable or list probes matching a probe id"),
    ("-I", "add a directory to the preprocessor include path"),
    ("-l", "list probes matching the given descriptions"),
    ("-L", "add a directory to the D library path"),
    ("-m", "enable or list probes matching a module name"),
    ("-n", "enable or list probes matching a probe name"),
    ("-o", "append trace output to a file"),
    ("-O", "structured output: json or ndjson (as -x oformat=)"),
    ("-p", "trace a running process, and exit when it exits"),
    ("-P", "enable or list probes matching a provider name"),
    ("-q", "quiet: print only explicitly traced data"),
    ("-s", "enable or list probes from a D script file"),
    ("-S", "print the compiled BPF code"),
    ("-U", "undefine a preprocessor symbol"),
    ("-v", "verbose: report stability attributes and arguments"),
    ("-V", "print the D API version"),
    ("-w", "permit destructive actions"),
    (
        "-x",
        "set a compiler or tracing option (diag=rich shows source carets)",
    ),
    ("-X", "choose the preprocessor's ISO C conformance"),
    ("-Z", "permit probe descriptions that match no probe"),
    ("", ""),
    (
        "--prometheus",
        "serve aggregations as metrics at ADDR:PORT/metrics (-x prometheus)",
    ),
    (
        "--otlp",
        "push aggregations to an OTLP/HTTP collector URL (-x otlp)",
    ),
    (
        "--flamegraph",
        "draw stack-keyed aggregations as an SVG file at exit (-x flamegraph)",
    ),
    (
        "--libxo",
        "structured output: json or json,pretty (as -x oformat=)",
    ),
];

#[cfg(test)]
mod tests {
    use super::*;

    fn argv(words: &[&str]) -> Vec<String> {
        std::iter::once("dtrace")
            .chain(words.iter().copied())
            .map(String::from)
            .collect()
    }

    fn ok(words: &[&str]) -> Args {
        match parse(&argv(words)) {
            Ok(a) => a,
            Err(e) => panic!("{words:?}: {}", e.render()),
        }
    }

    fn err(words: &[&str]) -> ArgsError {
        match parse(&argv(words)) {
            Ok(a) => panic!("{words:?} parsed: {a:?}"),
            Err(e) => e,
        }
    }

    fn setting(name: &str, value: Option<&str>, origin: &str) -> Setting {
        Setting {
            name: name.into(),
            value: value.map(String::from),
            origin: origin.into(),
        }
    }

    fn spec(kind: ProbeSpecKind, text: &str) -> SourceArg {
        SourceArg::Spec {
            kind,
            text: text.into(),
        }
    }

    #[test]
    fn no_arguments_is_usage() {
        let e = err(&[]);
        assert_eq!(e.message, None);
        assert!(e.usage);
        assert!(e.render().starts_with("Usage: dtrace [-32|-64] "));
    }

    #[test]
    fn probe_specifiers_keep_order_and_kind() {
        let a = ok(&[
            "-n", "BEGIN", "-P", "syscall", "-m", "vmlinux", "-f", "read", "-i", "7",
        ]);
        assert_eq!(
            a.sources,
            vec![
                spec(ProbeSpecKind::Name, "BEGIN"),
                spec(ProbeSpecKind::Provider, "syscall"),
                spec(ProbeSpecKind::Module, "vmlinux"),
                spec(ProbeSpecKind::Function, "read"),
                spec(ProbeSpecKind::Id, "7"),
            ]
        );
        assert_eq!(a.mode, Mode::Exec);
    }

    #[test]
    fn scripts_and_specs_interleave() {
        let a = ok(&["-s", "a.d", "-n", "END", "-sb.d"]);
        assert_eq!(
            a.sources,
            vec![
                SourceArg::Script("a.d".into()),
                spec(ProbeSpecKind::Name, "END"),
                SourceArg::Script("b.d".into()),
            ]
        );
    }

    #[test]
    fn combined_flags_then_argument() {
        let a = ok(&["-qn", "BEGIN { exit(0); }"]);
        assert_eq!(a.settings, vec![setting("quiet", None, "-q")]);
        assert_eq!(
            a.sources,
            vec![spec(ProbeSpecKind::Name, "BEGIN { exit(0); }")]
        );
        // The argument may be attached to the cluster too.
        let a = ok(&["-qwnBEGIN"]);
        assert_eq!(a.sources, vec![spec(ProbeSpecKind::Name, "BEGIN")]);
        assert!(a.destructive);
        assert_eq!(
            a.settings,
            vec![
                setting("quiet", None, "-q"),
                setting("destructive", None, "-w")
            ]
        );
    }

    #[test]
    fn x_options_attached_or_separate() {
        let a = ok(&[
            "-xbufsize=4m",
            "-x",
            "switchrate=10hz",
            "-x",
            "quiet",
            "-xflowindent",
        ]);
        assert_eq!(
            a.settings,
            vec![
                setting("bufsize", Some("4m"), "-x bufsize"),
                setting("switchrate", Some("10hz"), "-x switchrate"),
                setting("quiet", None, "-x quiet"),
                setting("flowindent", None, "-x flowindent"),
            ]
        );
        assert!(a.flowindent);
        // Only the first '=' splits.
        let a = ok(&["-x", "a=b=c"]);
        assert_eq!(a.settings, vec![setting("a", Some("b=c"), "-x a")]);
    }

    #[test]
    fn x_diag_is_handled_by_the_command() {
        assert_eq!(ok(&["-x", "diag=rich"]).diag, DiagStyle::Rich);
        assert_eq!(ok(&["-xdiag=plain"]).diag, DiagStyle::Plain);
        assert_eq!(ok(&["-n", "BEGIN"]).diag, DiagStyle::Auto);
        assert!(ok(&["-x", "diag=rich"]).settings.is_empty());
        let e = err(&["-x", "diag=loud"]);
        assert!(!e.usage);
        assert!(e.render().contains("failed to set -x diag"));
    }

    #[test]
    fn flag_shorthands_become_settings() {
        let a = ok(&["-b", "8m", "-F", "-Z", "-w", "-q"]);
        assert_eq!(
            a.settings,
            vec![
                setting("bufsize", Some("8m"), "-b 8m"),
                setting("flowindent", None, "-F"),
                setting("zdefs", None, "-Z"),
                setting("destructive", None, "-w"),
                setting("quiet", None, "-q"),
            ]
        );
        assert!(a.zdefs && a.destructive && a.flowindent);
    }

    #[test]
    fn processes_output_and_modes() {
        let a = ok(&[
            "-c", "ls -l /", "-c", "true", "-p", "42", "-o", "out.txt", "-n", "BEGIN",
        ]);
        assert_eq!(a.commands, vec!["ls -l /".to_string(), "true".to_string()]);
        assert_eq!(a.pids, vec!["42".to_string()]);
        assert_eq!(a.output.as_deref(), Some("out.txt"));
        assert_eq!(ok(&["-l"]).mode, Mode::List);
        assert_eq!(ok(&["-ln", "syscall:::"]).mode, Mode::List);
        assert_eq!(ok(&["-V"]).mode, Mode::Version);
        assert_eq!(ok(&["-h", "-s", "p.d"]).mode, Mode::Header);
        assert_eq!(ok(&["-G", "-s", "p.d"]).mode, Mode::Link);
        assert_eq!(ok(&["-A"]).mode, Mode::Anon);
        let a = ok(&["-e", "-S", "-v", "-v", "-a", "-n", "BEGIN"]);
        assert!(a.compile_only && a.disassemble && a.claim_anon);
        assert_eq!(a.verbose, 2);
    }

    #[test]
    fn only_one_mode() {
        let e = err(&["-l", "-V"]);
        assert!(!e.usage);
        assert_eq!(
            e.render(),
            "dtrace: only one of the [-AGhlV] options can be specified at a time\n"
        );
        // Counted per occurrence, as dtrace does.
        assert!(!err(&["-l", "-l"]).usage);
    }

    #[test]
    fn data_model() {
        assert_eq!(
            ok(&["-32", "-n", "BEGIN"]).data_model,
            Some(DataModel::Ilp32)
        );
        assert_eq!(ok(&["-64"]).data_model, Some(DataModel::Lp64));
        assert_eq!(ok(&["-q64"]).data_model, Some(DataModel::Lp64));
        let e = err(&["-33"]);
        assert!(e.usage);
        assert_eq!(e.message.as_deref(), Some("dtrace: illegal option -- 33"));
    }

    #[test]
    fn preprocessor_options_are_kept() {
        let a = ok(&[
            "-C", "-D", "X=1", "-DY", "-U", "Z", "-I", "/inc", "-H", "-X", "a", "-L/lib/d",
        ]);
        assert_eq!(
            a.preprocessor,
            Preprocessor {
                enabled: true,
                defines: vec!["X=1".into(), "Y".into()],
                undefines: vec!["Z".into()],
                include_dirs: vec!["/inc".into()],
                print_includes: true,
            }
        );
        assert_eq!(a.settings, vec![setting("stdc", Some("a"), "-X a")]);
        assert_eq!(a.lib_dirs, vec!["/lib/d".to_string()]);
    }

    #[test]
    fn operands_become_macro_arguments_anywhere() {
        let a = ok(&["-s", "x.d", "one", "-q", "two", "--", "-n", "three"]);
        assert_eq!(a.macro_args, vec!["one", "two", "-n", "three"]);
        assert_eq!(a.sources, vec![SourceArg::Script("x.d".into())]);
        assert_eq!(a.settings, vec![setting("quiet", None, "-q")]);
        // A lone "-" is an operand.
        assert_eq!(ok(&["-n", "BEGIN", "-"]).macro_args, vec!["-"]);
        // An option argument that looks like an option is still the argument.
        assert_eq!(
            ok(&["-n", "-q"]).sources,
            vec![spec(ProbeSpecKind::Name, "-q")]
        );
    }

    #[test]
    fn missing_argument_is_usage() {
        for opt in ["-n", "-s", "-c", "-p", "-o", "-x", "-b", "-qn"] {
            let e = err(&[opt]);
            assert!(e.usage, "{opt}");
            let letter = opt.chars().last().unwrap_or('?');
            assert_eq!(
                e.message.as_deref(),
                Some(format!("dtrace: option requires an argument -- '{letter}'").as_str())
            );
            assert!(e
                .render()
                .contains("\n\tpredicate -> '/' D-expression '/'\n"));
        }
    }

    #[test]
    fn unknown_option_is_usage() {
        let e = err(&["-k"]);
        assert!(e.usage);
        assert_eq!(e.message.as_deref(), Some("dtrace: invalid option -- 'k'"));
        let e = err(&["-qk", "-n", "BEGIN"]);
        assert_eq!(e.message.as_deref(), Some("dtrace: invalid option -- 'k'"));
        // -7 is not a dtrace option; neither is a long option.
        assert!(err(&["-7"]).usage);
        assert_eq!(
            err(&["--help"]).message.as_deref(),
            Some("dtrace: invalid option -- '-'")
        );
    }

    #[test]
    fn long_options_are_their_x_options() {
        let a = ok(&[
            "--prometheus",
            "127.0.0.1:0",
            "--otlp=http://h:1",
            "-n",
            "BEGIN",
        ]);
        assert_eq!(
            a.settings,
            vec![
                setting("prometheus", Some("127.0.0.1:0"), "--prometheus"),
                setting("otlp", Some("http://h:1"), "--otlp"),
            ]
        );
        assert_eq!(
            err(&["--prometheus"]).message.as_deref(),
            Some("dtrace: option requires an argument -- 'prometheus'")
        );
        assert_eq!(
            err(&["--bogus"]).message.as_deref(),
            Some("dtrace: invalid option -- '-'")
        );
    }

    #[test]
    fn usage_lists_every_option() {
        let text = usage_text();
        for letter in WITH_ARGUMENT.chars().chain(FLAGS.chars()) {
            if letter == '3' || letter == '6' {
                continue;
            }
            assert!(
                text.contains(&format!("\t-{letter}  ")),
                "usage misses -{letter}"
            );
        }
        for long in LONG_OPTIONS {
            assert!(
                text.contains(&format!("\t--{long}")),
                "usage misses --{long}"
            );
        }
        assert!(text.contains("\t-32 "));
        assert!(text.contains("\t-64 "));
    }
}
