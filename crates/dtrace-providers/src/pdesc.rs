//! Probe descriptions (`provider:module:function:name`) and glob matching.

/// A parsed probe description. Empty fields match anything.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct ProbeDesc {
    pub provider: String,
    pub module: String,
    pub function: String,
    pub name: String,
}

/// Why a probe description is malformed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DescError(pub String);

impl ProbeDesc {
    /// Parse `p:m:f:n`. With fewer than four fields the given ones fill from the
    /// right, as in DTrace: `BEGIN` is `:::BEGIN`, `read:entry` is `::read:entry`.
    pub fn parse(text: &str) -> Result<ProbeDesc, DescError> {
        let text = text.trim();
        // A backquote or colon inside [...] is not a separator; D descriptions do not
        // nest brackets, so a simple scan suffices.
        let mut fields = Vec::new();
        let mut cur = String::new();
        let mut in_class = false;
        for c in text.chars() {
            match c {
                '[' => {
                    in_class = true;
                    cur.push(c)
                }
                ']' => {
                    in_class = false;
                    cur.push(c)
                }
                ':' if !in_class => fields.push(std::mem::take(&mut cur)),
                _ => cur.push(c),
            }
        }
        fields.push(cur);
        if fields.len() > 4 {
            return Err(DescError(format!(
                "invalid probe description \"{text}\": Overspecified probe description"
            )));
        }
        let mut all = vec![String::new(); 4 - fields.len()];
        all.extend(fields);
        let mut it = all.into_iter();
        let mut next = || it.next().unwrap_or_default();
        Ok(ProbeDesc {
            provider: next(),
            module: next(),
            function: next(),
            name: next(),
        })
    }

    /// Whether every field is empty or matches the corresponding probe field.
    pub fn matches(&self, provider: &str, module: &str, function: &str, name: &str) -> bool {
        field_matches(&self.provider, provider)
            && field_matches(&self.module, module)
            && field_matches(&self.function, function)
            && field_matches(&self.name, name)
    }

    /// Whether the provider field is empty or matches `provider` (so that
    /// provider's probes must be consulted).
    pub fn matches_provider(&self, provider: &str) -> bool {
        field_matches(&self.provider, provider)
    }

    /// True if no field uses glob characters (so on-demand probes may be created).
    pub fn is_exact(&self) -> bool {
        [&self.provider, &self.module, &self.function, &self.name]
            .iter()
            .all(|f| !has_glob(f))
    }
}

impl std::fmt::Display for ProbeDesc {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{}:{}:{}:{}",
            self.provider, self.module, self.function, self.name
        )
    }
}

fn has_glob(s: &str) -> bool {
    s.contains(['*', '?', '[', '\\'])
}

fn field_matches(pattern: &str, value: &str) -> bool {
    pattern.is_empty() || glob(pattern.as_bytes(), value.as_bytes())
}

/// Shell-style glob: `*`, `?`, `[abc]`, `[a-z]`, `[!x]`/`[^x]`, `\` escapes.
/// Iterative with single-star backtracking, so it is linear-ish and never recurses.
pub fn glob(pat: &[u8], s: &[u8]) -> bool {
    let (mut p, mut i) = (0usize, 0usize);
    let mut star: Option<(usize, usize)> = None;
    while i < s.len() {
        let step = match pat.get(p) {
            Some(b'*') => {
                star = Some((p, i));
                p += 1;
                continue;
            }
            Some(b'?') => Some(p + 1),
            Some(b'[') => match class(pat, p, s[i]) {
                Some((true, end)) => Some(end),
                _ => None,
            },
            Some(b'\\') if p + 1 < pat.len() => (pat[p + 1] == s[i]).then_some(p + 2),
            Some(&c) => (c == s[i]).then_some(p + 1),
            None => None,
        };
        match step {
            Some(np) => {
                p = np;
                i += 1;
            }
            None => match star {
                Some((sp, si)) => {
                    p = sp + 1;
                    i = si + 1;
                    star = Some((sp, si + 1));
                }
                None => return false,
            },
        }
    }
    pat[p.min(pat.len())..].iter().all(|&c| c == b'*')
}

/// Match `c` against the class starting at `pat[start] == '['`.
/// Returns (matched, index after `]`), or None if the class is unterminated.
fn class(pat: &[u8], start: usize, c: u8) -> Option<(bool, usize)> {
    let mut j = start + 1;
    let negate = matches!(pat.get(j), Some(b'!') | Some(b'^'));
    if negate {
        j += 1;
    }
    let mut matched = false;
    let mut first = true;
    loop {
        let &lo = pat.get(j)?;
        if lo == b']' && !first {
            return Some((matched != negate, j + 1));
        }
        first = false;
        if pat.get(j + 1) == Some(&b'-') && pat.get(j + 2).is_some_and(|&h| h != b']') {
            let hi = pat[j + 2];
            if lo <= c && c <= hi {
                matched = true;
            }
            j += 3;
        } else {
            if lo == c {
                matched = true;
            }
            j += 1;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fields_fill_from_the_right() {
        let d = ProbeDesc::parse("BEGIN").unwrap();
        assert_eq!(d.name, "BEGIN");
        assert!(d.provider.is_empty() && d.module.is_empty() && d.function.is_empty());
        let d = ProbeDesc::parse("read:entry").unwrap();
        assert_eq!((d.function.as_str(), d.name.as_str()), ("read", "entry"));
        let d = ProbeDesc::parse("syscall:::entry").unwrap();
        assert_eq!(d.provider, "syscall");
        assert!(ProbeDesc::parse("a:b:c:d:e").is_err());
    }

    #[test]
    fn globs() {
        assert!(glob(b"*read*", b"pread64"));
        assert!(glob(b"read", b"read"));
        assert!(!glob(b"read", b"readv"));
        assert!(glob(b"re?d", b"read"));
        assert!(glob(b"[rw]*", b"write"));
        assert!(!glob(b"[!rw]*", b"write"));
        assert!(glob(b"[a-c]x", b"bx"));
        assert!(glob(b"*", b""));
        assert!(!glob(b"?", b""));
        assert!(glob(b"a\\*", b"a*"));
        assert!(!glob(b"a\\*", b"ab"));
        assert!(!glob(b"[abc", b"a"));
        assert!(glob(b"*e*n*", b"sys_enter_open"));
    }

    #[test]
    fn description_matching() {
        let d = ProbeDesc::parse("syscall::*read:entry").unwrap();
        assert!(d.matches("syscall", "vmlinux", "pread", "entry"));
        assert!(!d.matches("syscall", "vmlinux", "readv", "entry"));
        assert!(!d.is_exact());
        assert!(ProbeDesc::parse("profile:::tick-1sec").unwrap().is_exact());
    }
}
