//! The man page (docs/dtrace.1) and the shell completions (contrib/completions)
//! are written by hand; these tests keep them in step with the command line
//! (`args::FLAGS`, `args::WITH_ARGUMENT`) and the option table
//! (`dtrace::options::TABLE`), which stay the one home of each.

use crate::args::{FLAGS, LONG_OPTIONS, WITH_ARGUMENT};
use dtrace::options::TABLE;
use std::collections::BTreeSet;

const MAN: &str = include_str!("../../../docs/dtrace.1");
const BASH: &str = include_str!("../../../contrib/completions/dtrace.bash");
const ZSH: &str = include_str!("../../../contrib/completions/_dtrace");

/// Every flag dtrace accepts, as typed: `-32`, `-64`, `-a`, ...
fn flags() -> BTreeSet<String> {
    let mut set: BTreeSet<String> = WITH_ARGUMENT
        .chars()
        .chain(FLAGS.chars())
        .filter(|c| *c != '3' && *c != '6')
        .map(|c| format!("-{c}"))
        .collect();
    set.insert("-32".into());
    set.insert("-64".into());
    set.extend(LONG_OPTIONS.iter().map(|o| format!("--{o}")));
    set
}

fn options() -> BTreeSet<String> {
    TABLE.iter().map(|s| s.name.to_string()).collect()
}

/// The words of a shell variable's value in a completion script: from the line
/// `start` up to the line `end`.
fn words_between(text: &str, start: &str, end: &str) -> BTreeSet<String> {
    let from = text.find(start).map(|i| i + start.len()).unwrap_or(0);
    let rest = &text[from..];
    let to = rest.find(end).unwrap_or(rest.len());
    rest[..to]
        .split_whitespace()
        .map(|w| w.trim_matches('"').to_string())
        .filter(|w| !w.is_empty())
        .collect()
}

#[test]
fn man_page_names_every_flag() {
    for flag in flags() {
        let escaped = flag.replace('-', "\\-");
        let roff = format!(".B {escaped}");
        let roff_arg = format!(".BI {escaped} ");
        assert!(
            MAN.contains(&format!("{roff}\n")) || MAN.contains(&roff_arg),
            "docs/dtrace.1 has no entry for {flag}"
        );
    }
}

#[test]
fn man_page_names_every_option() {
    for name in options() {
        assert!(
            MAN.contains(&format!(".BR {name} ")) || MAN.contains(&format!(".BR {name}\n")),
            "docs/dtrace.1 does not list -x {name}"
        );
    }
}

#[test]
fn bash_completion_matches_the_command_line() {
    assert_eq!(
        words_between(BASH, "_dtrace_options=", "\n\n"),
        options(),
        "-x names in dtrace.bash"
    );
    assert_eq!(
        words_between(BASH, "_dtrace_flags=", "\n\n"),
        flags(),
        "flags in dtrace.bash"
    );
}

#[test]
fn zsh_completion_matches_the_command_line() {
    assert_eq!(
        words_between(ZSH, "dtrace_options=(", ")"),
        options(),
        "-x names in _dtrace"
    );
    let listed: BTreeSet<String> = ZSH
        .lines()
        .filter_map(|l| l.trim().strip_prefix('\''))
        .filter_map(|l| {
            // An exclusion list first: `(-64)-32[...]`.
            let l = match l.strip_prefix('(') {
                Some(rest) => rest.split_once(')').map_or(rest, |(_, r)| r),
                None => l,
            };
            let l = l.trim_start_matches('*');
            l.split('[').next().map(str::to_string)
        })
        .filter(|f| f.starts_with('-'))
        .collect();
    assert_eq!(listed, flags(), "flags in _dtrace");
}

/// The bash script loads and completes option names after `-x`.
#[test]
fn bash_completion_completes() {
    let script = format!(
        "{BASH}\nCOMP_WORDS=(dtrace -x aggsort); COMP_CWORD=2; _dtrace; echo \"${{COMPREPLY[@]}}\""
    );
    let out = match std::process::Command::new("bash")
        .arg("-c")
        .arg(script)
        .output()
    {
        Ok(out) => out,
        Err(e) => panic!("cannot run bash: {e}"),
    };
    assert_eq!(
        String::from_utf8_lossy(&out.stdout).trim(),
        "aggsortkey aggsortkeypos aggsortpos aggsortrev"
    );
}
