//! Provider definitions of a D script (`provider p { probe n(int, char *); };`),
//! read lexically for `dtrace -h` and `dtrace -G`: provider names, probe names
//! and their native argument types (a translated list after `:` is skipped).

/// One probe of a provider definition.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ProbeDef {
    /// As written (`d__ash`); DTrace names it with `__` as `-`.
    pub name: String,
    /// The native argument types, as written.
    pub args: Vec<String>,
}

/// One provider definition.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ProviderDef {
    pub name: String,
    pub probes: Vec<ProbeDef>,
}

/// The providers `text` defines, in order.
pub fn providers(text: &str) -> Vec<ProviderDef> {
    let w = crate::header::words(text);
    let mut out = Vec::new();
    let mut i = 0;
    while i + 2 < w.len() {
        if w[i] == "provider" && crate::header::is_identifier(&w[i + 1]) && w[i + 2] == "{" {
            let mut p = ProviderDef {
                name: w[i + 1].clone(),
                probes: Vec::new(),
            };
            i += 3;
            while i < w.len() && w[i] != "}" {
                if w[i] == "probe" && i + 2 < w.len() && w[i + 2] == "(" {
                    let name = w[i + 1].clone();
                    i += 3;
                    let (args, next) = arg_list(&w, i);
                    i = next;
                    p.probes.push(ProbeDef { name, args });
                    // Skip a translated argument list up to the `;`.
                    while i < w.len() && w[i] != ";" && w[i] != "}" {
                        i += 1;
                    }
                } else {
                    i += 1;
                }
            }
            out.push(p);
        }
        i += 1;
    }
    out
}

/// The comma-separated types up to the matching `)` starting at `i` (just
/// after the `(`), with parameter names dropped; returns them and the index
/// after the `)`.
fn arg_list(w: &[String], mut i: usize) -> (Vec<String>, usize) {
    let mut args = Vec::new();
    let mut cur: Vec<String> = Vec::new();
    let mut depth = 0;
    while i < w.len() {
        let t = w[i].as_str();
        i += 1;
        match t {
            "(" | "[" => depth += 1,
            ")" | "]" if depth > 0 => depth -= 1,
            ")" => break,
            "," if depth == 0 => {
                args.push(type_text(std::mem::take(&mut cur)));
                continue;
            }
            _ => {}
        }
        cur.push(t.to_string());
    }
    if !cur.is_empty() {
        args.push(type_text(cur));
    }
    // `probe p(void)` has no arguments.
    if args.len() == 1 && args[0] == "void" {
        args.clear();
    }
    (args, i)
}

/// A type from its tokens, without a trailing parameter name (`uint64_t a0`).
fn type_text(mut t: Vec<String>) -> String {
    const WORDS: &[&str] = &[
        "char", "short", "int", "long", "signed", "unsigned", "float", "double", "void", "const",
        "volatile", "struct", "union", "enum",
    ];
    if t.len() > 1 {
        if let Some(last) = t.last() {
            let prev = &t[t.len() - 2];
            let named = crate::header::is_identifier(last)
                && !WORDS.contains(&last.as_str())
                && !matches!(prev.as_str(), "struct" | "union" | "enum");
            if named {
                t.pop();
            }
        }
    }
    let mut s = String::new();
    for tok in t {
        // A space between words, and before the first `*` of a run.
        let space = !s.is_empty() && !s.ends_with('*');
        if space {
            s.push(' ');
        }
        s.push_str(&tok);
    }
    s
}

/// The macro name DTrace gives a probe: `PROVIDER_PROBE`, upper case, with
/// `__` in the probe name as `_`.
pub fn macro_name(provider: &str, probe: &str) -> String {
    format!(
        "{}_{}",
        provider.to_ascii_uppercase(),
        probe.replace("__", "_").to_ascii_uppercase()
    )
}

/// The semaphore of a probe (the stapsdt convention, `provider_probe_semaphore`).
pub fn semaphore(provider: &str, probe: &str) -> String {
    format!("{provider}_{probe}_semaphore")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_definitions() {
        let t = "/* c */\nprovider test_prov {\n probe zero();\n probe one(uintptr_t);\n\
                 probe two(char *, int i) : (int i, char *);\n probe d__ash(char **);\n\
                 probe v(void);\n};\nBEGIN { }\n";
        let p = providers(t);
        assert_eq!(p.len(), 1);
        assert_eq!(p[0].name, "test_prov");
        let names: Vec<_> = p[0].probes.iter().map(|p| p.name.as_str()).collect();
        assert_eq!(names, ["zero", "one", "two", "d__ash", "v"]);
        assert_eq!(p[0].probes[1].args, ["uintptr_t"]);
        assert_eq!(p[0].probes[2].args, ["char *", "int"]);
        assert_eq!(p[0].probes[3].args, ["char **"]);
        assert!(p[0].probes[4].args.is_empty());
        assert_eq!(macro_name("test_prov", "d__ash"), "TEST_PROV_D_ASH");
        assert_eq!(
            semaphore("test_prov", "d__ash"),
            "test_prov_d__ash_semaphore"
        );
    }
}
