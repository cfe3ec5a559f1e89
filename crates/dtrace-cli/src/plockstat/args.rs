//! plockstat's command line, as plockstat(1M) documents it:
//!
//! ```text
//! plockstat [-vACHV] [-n count] [-s depth] [-e secs] [-x opt[=val]] command [arg...]
//! plockstat [-vACHV] [-n count] [-s depth] [-e secs] [-x opt[=val]] -p pid
//! ```
//!
//! Options are read POSIX getopt style (`-AH`, `-n5`, `-n 5`, `--` ends
//! them); they stop at the first operand, so the command's own options are
//! left to it. `-p` takes no argument: the pid is the operand.

use super::program::Plan;

/// The exit status of a usage error.
pub const EXIT_USAGE: i32 = 2;

/// What the command line asks for.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Args {
    pub plan: Plan,
    /// `-n count`: rows per section.
    pub count: Option<u64>,
    /// `-v`: say when tracing starts.
    pub verbose: bool,
    /// `-V`: print the D program.
    pub show_program: bool,
    /// `-x opt[=val]`, in order.
    pub options: Vec<(String, Option<String>)>,
    /// `-p`: the operand is a process ID.
    pub grab: bool,
    /// The operands: a command and its arguments, or one pid.
    pub operands: Vec<String>,
}

/// A usage error: the message line (without the program name) and whether
/// the usage text follows it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UsageError {
    pub message: Option<String>,
}

/// The usage text, for program name `name`.
pub fn usage(name: &str) -> String {
    format!(
        "Usage:\n\
         \t{name} [-vACHV] [-n count] [-s depth] [-e secs] [-x opt[=val]]\n\
         \t    command [arg...]\n\
         \t{name} [-vACHV] [-n count] [-s depth] [-e secs] [-x opt[=val]]\n\
         \t    -p pid\n"
    )
}

fn positive(text: &str, what: &str) -> Result<u64, UsageError> {
    match text.parse::<u64>() {
        Ok(n) if !text.starts_with('+') => Ok(n),
        _ => Err(UsageError {
            message: Some(format!("invalid {what} '{text}'")),
        }),
    }
}

/// Parses `argv` (without the program name).
pub fn parse(argv: &[String]) -> Result<Args, UsageError> {
    let mut a = Args::default();
    let (mut contention, mut hold) = (false, false);
    let mut i = 0;
    while i < argv.len() {
        let word = &argv[i];
        if word == "--" {
            i += 1;
            break;
        }
        if !word.starts_with('-') || word.len() < 2 {
            break;
        }
        let letters: Vec<char> = word[1..].chars().collect();
        let mut j = 0;
        while j < letters.len() {
            let c = letters[j];
            j += 1;
            match c {
                'A' => (contention, hold) = (true, true),
                'C' => contention = true,
                'H' => hold = true,
                'v' => a.verbose = true,
                'V' => a.show_program = true,
                'p' => a.grab = true,
                'n' | 's' | 'e' | 'x' => {
                    // The argument is the rest of this word, or the next word.
                    let rest: String = letters[j..].iter().collect();
                    j = letters.len();
                    let value = if !rest.is_empty() {
                        rest
                    } else {
                        i += 1;
                        match argv.get(i) {
                            Some(v) => v.clone(),
                            None => {
                                return Err(UsageError {
                                    message: Some(format!("option requires an argument -- '{c}'")),
                                })
                            }
                        }
                    };
                    match c {
                        'n' => a.count = Some(positive(&value, "count")?),
                        's' => {
                            let depth = positive(&value, "depth")?;
                            a.plan.stack_depth =
                                Some(u32::try_from(depth).map_err(|_| UsageError {
                                    message: Some(format!("invalid depth '{value}'")),
                                })?);
                        }
                        'e' => a.plan.exit_after = Some(positive(&value, "timeout")?),
                        _ => {
                            let (name, val) = match value.split_once('=') {
                                Some((n, v)) => (n.to_string(), Some(v.to_string())),
                                None => (value.clone(), None),
                            };
                            a.options.push((name, val));
                        }
                    }
                }
                other => {
                    return Err(UsageError {
                        message: Some(format!("invalid option -- '{other}'")),
                    })
                }
            }
        }
        i += 1;
    }
    a.operands = argv[i..].to_vec();
    if a.operands.is_empty() {
        return Err(UsageError { message: None });
    }
    if a.grab {
        if a.operands.len() > 1 {
            return Err(UsageError {
                message: Some("only one pid is allowed".into()),
            });
        }
        let pid = &a.operands[0];
        if !matches!(pid.parse::<i32>(), Ok(p) if p > 0) {
            return Err(UsageError {
                message: Some(format!("invalid pid '{pid}'")),
            });
        }
    }
    // Contention events are the default.
    if !contention && !hold {
        contention = true;
    }
    a.plan.contention = contention;
    a.plan.hold = hold;
    Ok(a)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(words: &[&str]) -> Result<Args, UsageError> {
        parse(&words.iter().map(|s| s.to_string()).collect::<Vec<_>>())
    }

    #[test]
    fn contention_is_the_default_and_a_means_both() {
        let a = args(&["ls", "-l"]).expect("parses");
        assert!(a.plan.contention && !a.plan.hold);
        assert_eq!(a.operands, ["ls", "-l"]);
        let a = args(&["-A", "ls"]).expect("parses");
        assert!(a.plan.contention && a.plan.hold);
        let a = args(&["-H", "ls"]).expect("parses");
        assert!(!a.plan.contention && a.plan.hold);
        let a = args(&["-CH", "ls"]).expect("parses");
        assert!(a.plan.contention && a.plan.hold);
    }

    #[test]
    fn option_arguments_attached_or_apart() {
        let a = args(&[
            "-n5",
            "-s",
            "8",
            "-e",
            "3",
            "-xaggsize=1m",
            "-x",
            "quiet",
            "cmd",
        ])
        .expect("parses");
        assert_eq!(a.count, Some(5));
        assert_eq!(a.plan.stack_depth, Some(8));
        assert_eq!(a.plan.exit_after, Some(3));
        assert_eq!(
            a.options,
            [
                ("aggsize".to_string(), Some("1m".to_string())),
                ("quiet".to_string(), None)
            ]
        );
        assert_eq!(a.operands, ["cmd"]);
    }

    #[test]
    fn options_stop_at_the_command() {
        let a = args(&["-v", "prog", "-A", "-n", "x"]).expect("parses");
        assert!(a.verbose && !a.plan.hold);
        assert_eq!(a.operands, ["prog", "-A", "-n", "x"]);
        let a = args(&["--", "-weird"]).expect("parses");
        assert_eq!(a.operands, ["-weird"]);
    }

    #[test]
    fn pid_is_the_operand_of_p() {
        let a = args(&["-p", "123"]).expect("parses");
        assert!(a.grab);
        assert_eq!(a.operands, ["123"]);
        let e = args(&["-p", "12x"]).expect_err("not a pid");
        assert_eq!(e.message.as_deref(), Some("invalid pid '12x'"));
        let e = args(&["-p", "1", "2"]).expect_err("two pids");
        assert_eq!(e.message.as_deref(), Some("only one pid is allowed"));
    }

    /// The man page (written by hand) documents every flag.
    #[test]
    fn the_man_page_names_every_flag() {
        const MAN: &str = include_str!("../../../../docs/plockstat.1");
        for flag in "vACHVnsepx".chars() {
            let roff = format!("\\-{flag}");
            assert!(
                MAN.lines()
                    .any(|l| l.starts_with(".B") && l.contains(&roff)),
                "docs/plockstat.1 has no entry for -{flag}"
            );
        }
    }

    #[test]
    fn bad_command_lines() {
        assert_eq!(args(&[]).expect_err("nothing").message, None);
        assert_eq!(args(&["-A"]).expect_err("no command").message, None);
        let e = args(&["-n", "-1", "ls"]).expect_err("negative");
        assert_eq!(e.message.as_deref(), Some("invalid count '-1'"));
        let e = args(&["-e", "soon", "ls"]).expect_err("not a number");
        assert_eq!(e.message.as_deref(), Some("invalid timeout 'soon'"));
        let e = args(&["-q", "ls"]).expect_err("unknown");
        assert_eq!(e.message.as_deref(), Some("invalid option -- 'q'"));
        let e = args(&["ls", "-s"]).map(|a| a.operands);
        assert_eq!(e.expect("command operands"), ["ls", "-s"]);
        let e = args(&["-s"]).expect_err("missing argument");
        assert_eq!(
            e.message.as_deref(),
            Some("option requires an argument -- 's'")
        );
    }
}
