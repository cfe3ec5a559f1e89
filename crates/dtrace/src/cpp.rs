//! `-C`: running the system's C preprocessor over a script before compiling it.
//!
//! The script's text goes to `cpp` on standard input, read as `/dev/stdin` as
//! dtrace(1) does (so cpp's own complaints, which go straight to our stderr,
//! read `/dev/stdin:17: error: ...`); the output's line markers give the user's
//! lines, which the compiler installs (`SourceFile::set_line_markers`) so that
//! errors report the original line. An interpreter line (`#!/usr/sbin/dtrace -s`)
//! is blanked first: it is not a preprocessor directive. `-x cppargs` adds
//! arguments of the user's.
//!
//! The preprocessor sees what DTrace for Linux gives it: `__linux`, `__unix`,
//! `__SVR4`, `__SUNW_D=1`, `__SUNW_D_64` (the data model's pointer bits) and
//! `__Linux` (the system's name), with `__GNUC__` undefined (a D program is
//! not compiled by GCC, so headers keep GCC-only code to themselves); then
//! the user's `-D`/`-U`/`-I`; then `__SUNW_D_VERSION` (this compiler's D
//! version, `0xMMmmmuuu`) and the `stdc` mode: `-Xa`, the default, is ISO C
//! (`-std=c99`, so system headers hold only ISO C: declarations D can read,
//! without GNU extensions or inline function bodies), `-Xs` is K&R C
//! (`-traditional-cpp`), and `-Xc`/`-Xt` leave cpp's own default.

use std::io::Write;
use std::os::unix::process::CommandExt;
use std::process::{Command, Stdio};

use crate::options::StdcMode;

/// D version 2.0.0 as `0xMMmmmuuu`.
pub const D_VERSION_HEX: &str = "0x02000000";

/// What `-D`, `-U`, `-I` and `-H` asked for, and which program to run.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct CppConfig {
    /// The preprocessor: `-x cpppath=...`, else `cpp` found on `PATH`.
    pub path: Option<String>,
    /// `-D name[=def]`.
    pub defines: Vec<String>,
    /// `-U name`.
    pub undefines: Vec<String>,
    /// `-I dir`.
    pub include_dirs: Vec<String>,
    /// `-H`: cpp prints the files it includes (to stderr).
    pub print_includes: bool,
    /// `-x cppargs=...`: more arguments, after dtrace's own.
    pub extra: Vec<String>,
    /// `-X a|c|s|t` (`-x stdc=...`): the C dialect cpp is asked for.
    pub stdc: StdcMode,
}

/// Defined (or undefined) before anything of the user's, as DTrace does.
/// `__Linux` is `-D__` + the system's name (`uname -s`), which is `Linux`
/// wherever this tool runs.
const FIXED: [&str; 7] = [
    "-D__linux",
    "-D__unix",
    "-D__SVR4",
    "-D__SUNW_D=1",
    "-U__GNUC__",
    "-D__SUNW_D_64",
    "-D__Linux",
];

/// Why preprocessing failed; the text completes `failed to compile script X: `.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CppError(pub String);

/// The arguments given to cpp for `script` (its directory is searched for
/// `#include "..."` first, as if cpp had read the file itself).
pub fn arguments(cfg: &CppConfig, script: &str) -> Vec<String> {
    let mut args: Vec<String> = FIXED.iter().map(|a| a.to_string()).collect();
    for d in &cfg.defines {
        args.push(format!("-D{d}"));
    }
    for u in &cfg.undefines {
        args.push(format!("-U{u}"));
    }
    for i in &cfg.include_dirs {
        args.push(format!("-I{i}"));
    }
    let dir = std::path::Path::new(script)
        .parent()
        .map(|p| p.to_string_lossy().into_owned())
        .filter(|p| !p.is_empty())
        .unwrap_or_else(|| ".".to_string());
    args.push("-iquote".into());
    args.push(dir);
    args.push(format!("-D__SUNW_D_VERSION={D_VERSION_HEX}"));
    match cfg.stdc {
        StdcMode::A => args.push("-std=c99".into()),
        StdcMode::S => args.push("-traditional-cpp".into()),
        StdcMode::C | StdcMode::T => {}
    }
    args.extend(cfg.extra.iter().cloned());
    if cfg.print_includes {
        args.push("-H".into());
    }
    args.push(STDIN.into());
    args
}

/// The name cpp reads its input under; line markers naming it refer to the script.
pub const STDIN: &str = "/dev/stdin";

/// The text handed to cpp: the script with an interpreter line blanked
/// (keeping every line where it was).
pub fn input_text(text: &str) -> String {
    if text.starts_with("#!") {
        text.find('\n')
            .map(|i| &text[i..])
            .unwrap_or("")
            .to_string()
    } else {
        text.to_string()
    }
}

/// Run cpp over `text` (the contents of `script`).
pub fn preprocess(cfg: &CppConfig, script: &str, text: &str) -> Result<String, CppError> {
    let program = cfg.path.clone().unwrap_or_else(|| "cpp".to_string());
    // Like libdtrace, name the program by its base name (`argv[0]`), so its
    // own messages read `cpp: ...` whatever `cpppath` says.
    let argv0 = program.rsplit('/').next().unwrap_or(&program).to_string();
    let mut child = Command::new(&program)
        .arg0(argv0)
        .args(arguments(cfg, script))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .map_err(|e| {
            let why = match e.kind() {
                std::io::ErrorKind::NotFound => {
                    "not found (install gcc's cpp, or name it with -x cpppath=PATH)".to_string()
                }
                _ => e.to_string(),
            };
            CppError(format!("cannot run the C preprocessor {program}: {why}"))
        })?;
    let input = input_text(text);
    // Write from another thread: cpp may fill its output pipe before it has
    // read all of its input.
    let stdin = child.stdin.take();
    let writer = std::thread::spawn(move || {
        if let Some(mut s) = stdin {
            let _ = s.write_all(input.as_bytes());
        }
    });
    let output = child
        .wait_with_output()
        .map_err(|e| CppError(format!("failed to run the C preprocessor {program}: {e}")))?;
    let _ = writer.join();
    if !output.status.success() {
        return Err(CppError(
            "Preprocessor failed to process input program".to_string(),
        ));
    }
    Ok(String::from_utf8_lossy(&output.stdout).into_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn arguments_and_input() {
        let cfg = CppConfig {
            path: None,
            defines: vec!["X=1".into(), "Y".into()],
            undefines: vec!["Z".into()],
            include_dirs: vec!["/inc".into()],
            print_includes: true,
            extra: vec!["-dM".into()],
            stdc: StdcMode::S,
        };
        let a = arguments(&cfg, "/tmp/s/x.d");
        assert_eq!(a[..7], FIXED);
        assert_eq!(
            a[7..],
            [
                "-DX=1",
                "-DY",
                "-UZ",
                "-I/inc",
                "-iquote",
                "/tmp/s",
                "-D__SUNW_D_VERSION=0x02000000",
                "-traditional-cpp",
                "-dM",
                "-H",
                "/dev/stdin"
            ]
        );
        let a = arguments(&CppConfig::default(), "x.d");
        assert_eq!(a[8], ".");
        assert_eq!(a[10], "-std=c99");
        let c = CppConfig {
            stdc: StdcMode::C,
            ..CppConfig::default()
        };
        assert_eq!(arguments(&c, "x.d")[10], "/dev/stdin");
        assert_eq!(input_text("#!/usr/sbin/dtrace -s\nBEGIN\n"), "\nBEGIN\n");
        assert_eq!(input_text("BEGIN"), "BEGIN");
    }

    #[test]
    fn missing_preprocessor() {
        let cfg = CppConfig {
            path: Some("/nonexistent/cpp".into()),
            ..CppConfig::default()
        };
        let e = preprocess(&cfg, "x.d", "BEGIN {}").err();
        assert_eq!(
            e,
            Some(CppError(
                "cannot run the C preprocessor /nonexistent/cpp: not found (install gcc's cpp, or name it with -x cpppath=PATH)".into()
            ))
        );
    }
}
