//! Seed inputs: D programs found in the project's tests. Scripts (`.d`) are
//! taken whole; from e2e cases (`.t`) and Rust test files (`.rs`) the quoted
//! program texts are extracted.

use std::path::{Path, PathBuf};

/// The default seed directories, relative to the workspace root.
pub const DEFAULT_DIRS: &[&str] = &[
    "tests/e2e",
    "tests/errtags",
    "tests/fuzz",
    "crates/dtrace-syntax/tests",
    "crates/dtrace-sema/tests",
];

/// The workspace root (two levels above this crate).
pub fn workspace_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .ancestors()
        .nth(2)
        .map(Path::to_path_buf)
        .unwrap_or_else(|| PathBuf::from("."))
}

/// Every seed under `dirs` (recursively), sorted and deduplicated.
pub fn load(dirs: &[PathBuf]) -> Vec<Vec<u8>> {
    let mut files = Vec::new();
    for d in dirs {
        walk(d, &mut files, 0);
    }
    files.sort();
    let mut out: Vec<Vec<u8>> = Vec::new();
    for f in files {
        let Ok(bytes) = std::fs::read(&f) else {
            continue;
        };
        match f.extension().and_then(|e| e.to_str()) {
            Some("d") => out.push(bytes),
            Some("t") => out.extend(quoted(&bytes, b'\'').into_iter().filter(|s| s.len() > 4)),
            Some("rs") => out.extend(rust_strings(&bytes)),
            _ => {}
        }
    }
    out.sort();
    out.dedup();
    out
}

fn walk(dir: &Path, out: &mut Vec<PathBuf>, depth: u32) {
    if depth > 4 {
        return;
    }
    let Ok(rd) = std::fs::read_dir(dir) else {
        if dir.is_file() {
            out.push(dir.to_path_buf());
        }
        return;
    };
    for e in rd.flatten() {
        let p = e.path();
        if p.is_dir() {
            walk(&p, out, depth + 1);
        } else {
            out.push(p);
        }
    }
}

/// Texts between pairs of `q` on each line.
fn quoted(bytes: &[u8], q: u8) -> Vec<Vec<u8>> {
    let mut out = Vec::new();
    for line in bytes.split(|&b| b == b'\n') {
        let parts: Vec<&[u8]> = line.split(|&b| b == q).collect();
        for (i, p) in parts.iter().enumerate() {
            if i % 2 == 1 && i + 1 < parts.len() {
                out.push(p.to_vec());
            }
        }
    }
    out
}

/// Rust string literals that look like D: `"..."` (escapes decoded) and
/// `r#"..."#`, keeping those with a brace, a colon or a slash.
fn rust_strings(bytes: &[u8]) -> Vec<Vec<u8>> {
    let mut out = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i..].starts_with(b"r#\"") {
            let body = i + 3;
            let end = find(&bytes[body..], b"\"#").map(|e| body + e);
            let Some(end) = end else { break };
            out.push(bytes[body..end].to_vec());
            i = end + 2;
        } else if bytes[i] == b'"' && i > 0 && bytes[i - 1] != b'\'' {
            let mut s = Vec::new();
            let mut j = i + 1;
            while j < bytes.len() && bytes[j] != b'"' {
                if bytes[j] == b'\\' && j + 1 < bytes.len() {
                    j += 1;
                    s.push(match bytes[j] {
                        b'n' => b'\n',
                        b't' => b'\t',
                        b'0' => 0,
                        b'\n' => {
                            // A line continuation: skip the next line's indentation.
                            while j + 1 < bytes.len() && bytes[j + 1].is_ascii_whitespace() {
                                j += 1;
                            }
                            j += 1;
                            continue;
                        }
                        c => c,
                    });
                } else {
                    s.push(bytes[j]);
                }
                j += 1;
            }
            out.push(s);
            i = j + 1;
        } else {
            i += 1;
        }
    }
    out.retain(|s| s.len() > 4 && s.iter().any(|b| matches!(b, b'{' | b':' | b'/')));
    out
}

fn find(hay: &[u8], needle: &[u8]) -> Option<usize> {
    hay.windows(needle.len()).position(|w| w == needle)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn extraction() {
        assert_eq!(
            quoted(b"args: -qn 'BEGIN { x }' 41 'y'\n", b'\''),
            vec![b"BEGIN { x }".to_vec(), b"y".to_vec()]
        );
        let rs = b"let a = \"BEGIN { printf(\\\"%d\\\\n\\\", 1); }\"; let b = r#\"tick-1s { }\"#;";
        let got = rust_strings(rs);
        assert_eq!(got[0], b"BEGIN { printf(\"%d\\n\", 1); }".to_vec());
        assert_eq!(got[1], b"tick-1s { }".to_vec());
    }
}
