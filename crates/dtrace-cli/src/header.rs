//! `dtrace -h`: generate a C header from a script's provider definitions
//! (`provider foo { probe bar(int); };`). The generator itself lands with the
//! D-language support for provider definitions; until then this checks the
//! command line as dtrace does and says plainly what is missing.

use crate::args::{Args, SourceArg};
use crate::run::Fail;

/// Run `-h`. Never succeeds yet: returns the failure to report.
pub fn run(args: &Args) -> Fail {
    if args.sources.is_empty() {
        return Fail::usage("dtrace: -h requires one or more scripts or enabling options");
    }
    let header = match &args.output {
        Some(o) => o.clone(),
        None => {
            if args.sources.len() > 1 {
                return Fail::usage(
                    "dtrace: -h requires an output file if multiple scripts are specified",
                );
            }
            match &args.sources[0] {
                SourceArg::Script(path) if path.ends_with(".d") => {
                    let base = path.rsplit('/').next().unwrap_or(path);
                    format!("{}.h", &base[..base.len() - 2])
                }
                _ => {
                    return Fail::usage(
                        "dtrace: -h requires an output file if no scripts are specified",
                    )
                }
            }
        }
    };
    let mut providers = Vec::new();
    for source in &args.sources {
        if let SourceArg::Script(path) = source {
            match std::fs::read(path) {
                Ok(bytes) => providers.extend(provider_names(&String::from_utf8_lossy(&bytes))),
                Err(e) => {
                    return Fail::error(format!(
                        "dtrace: failed to open {path}: {}",
                        dtrace_sys::proc::strerror(&e)
                    ))
                }
            }
        }
    }
    if providers.is_empty() {
        return Fail::error(format!(
            "dtrace: failed to create header file {header}: no provider definitions found \
             (-h needs a script that defines a provider)"
        ));
    }
    Fail::error(format!(
        "dtrace: failed to create header file {header}: header generation for provider {} \
         is not supported yet",
        providers.join(", ")
    ))
}

/// Names of the providers a D script defines, found lexically: the keyword
/// `provider`, a name, then `{`, outside comments and string literals.
pub fn provider_names(text: &str) -> Vec<String> {
    let words = words(text);
    let mut names = Vec::new();
    for w in words.windows(3) {
        if w[0] == "provider" && is_identifier(&w[1]) && w[2] == "{" {
            names.push(w[1].clone());
        }
    }
    names
}

fn is_identifier(s: &str) -> bool {
    let mut chars = s.chars();
    matches!(chars.next(), Some(c) if c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
}

/// Identifiers and single punctuation characters, skipping comments, strings,
/// character constants and preprocessor lines.
fn words(text: &str) -> Vec<String> {
    let b = text.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    let mut line_start = true;
    while i < b.len() {
        let c = b[i];
        if c == b'\n' {
            line_start = true;
            i += 1;
            continue;
        }
        if c.is_ascii_whitespace() {
            i += 1;
            continue;
        }
        if line_start && c == b'#' {
            while i < b.len() && b[i] != b'\n' {
                i += 1;
            }
            continue;
        }
        line_start = false;
        if c == b'/' && b.get(i + 1) == Some(&b'*') {
            i += 2;
            while i < b.len() && !(b[i] == b'*' && b.get(i + 1) == Some(&b'/')) {
                i += 1;
            }
            i += 2;
            continue;
        }
        if c == b'/' && b.get(i + 1) == Some(&b'/') {
            while i < b.len() && b[i] != b'\n' {
                i += 1;
            }
            continue;
        }
        if c == b'"' || c == b'\'' {
            i += 1;
            while i < b.len() && b[i] != c {
                if b[i] == b'\\' {
                    i += 1;
                }
                i += 1;
            }
            i += 1;
            continue;
        }
        if c.is_ascii_alphanumeric() || c == b'_' {
            let start = i;
            while i < b.len() && (b[i].is_ascii_alphanumeric() || b[i] == b'_') {
                i += 1;
            }
            out.push(text[start..i].to_string());
            continue;
        }
        // Any other byte (UTF-8 continuation bytes included) is punctuation.
        out.push(char::from(c).to_string());
        i += 1;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_provider_definitions() {
        let text = "#pragma D option quiet\n/* provider fake { */\n\
                    provider myapp {\n  probe start(int);\n};\n\
                    BEGIN { trace(\"provider nope {\"); }\n\
                    provider\n\tother_2 { probe x(); };\n";
        assert_eq!(provider_names(text), vec!["myapp", "other_2"]);
        assert!(provider_names("BEGIN { exit(0); }").is_empty());
        assert!(provider_names("// provider a {\n").is_empty());
    }

    #[test]
    fn usage_checks() {
        let parse = |w: &[&str]| {
            let argv: Vec<String> = std::iter::once("dtrace")
                .chain(w.iter().copied())
                .map(String::from)
                .collect();
            crate::args::parse(&argv).expect("parse")
        };
        let f = run(&parse(&["-h"]));
        assert_eq!(f.code, crate::args::EXIT_USAGE);
        let f = run(&parse(&["-h", "-n", "BEGIN"]));
        assert_eq!(f.code, crate::args::EXIT_USAGE);
        assert_eq!(
            f.message.as_deref(),
            Some("dtrace: -h requires an output file if no scripts are specified")
        );
        let f = run(&parse(&["-h", "-s", "/nonexistent/x.d"]));
        assert_eq!(f.code, 1);
        assert_eq!(
            f.message.as_deref(),
            Some("dtrace: failed to open /nonexistent/x.d: No such file or directory")
        );
    }
}
