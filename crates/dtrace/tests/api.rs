//! The public API snapshot: every `pub` item of the facade's source (and of
//! the consumer modules whose types it re-exports: events, outputs) is listed
//! in `crates/dtrace/api.txt`. A change to the API fails this test until the
//! list is updated, on purpose: run
//! `UPDATE_API=1 cargo test -p dtrace --test api` and commit the new list.
//!
//! The scan is a source scan, not rustdoc: it records each line that starts a
//! `pub` item (functions, types, fields, constants, re-exports; multi-line
//! signatures joined up to their `{` or `;`) and every line of a public
//! enum's body (its variants). Items inside `#[cfg(test)]` modules are left out.

use std::path::{Path, PathBuf};

const SOURCES: &[&str] = &[
    "crates/dtrace/src",
    "crates/dtrace-consumer/src/event.rs",
    "crates/dtrace-consumer/src/json.rs",
    "crates/dtrace-consumer/src/text.rs",
];

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn files(p: &Path, out: &mut Vec<PathBuf>) {
    if p.is_dir() {
        let mut entries: Vec<PathBuf> = std::fs::read_dir(p)
            .map(|d| d.flatten().map(|e| e.path()).collect())
            .unwrap_or_default();
        entries.sort();
        for e in entries {
            files(&e, out);
        }
    } else if p.extension().is_some_and(|e| e == "rs") {
        out.push(p.to_path_buf());
    }
}

/// Private modules of the facade: their `pub` items are not public API.
const PRIVATE: &[&str] = &[
    "crates/dtrace/src/compile.rs",
    "crates/dtrace/src/library.rs",
];

fn scan(path: &Path, rel: &str, out: &mut Vec<String>) {
    if PRIVATE.contains(&rel) {
        return;
    }
    let text = std::fs::read_to_string(path).unwrap_or_default();
    let lines: Vec<&str> = text.lines().collect();
    let mut i = 0;
    // Inside a public enum: the closing line to look for.
    let mut enum_end: Option<String> = None;
    while i < lines.len() {
        let line = lines[i];
        let t = line.trim();
        if t == "#[cfg(test)]" {
            break;
        }
        if let Some(end) = &enum_end {
            if line == end {
                enum_end = None;
            } else if !t.is_empty() && !t.starts_with("//") {
                out.push(format!("{rel}:   {t}"));
            }
            i += 1;
            continue;
        }
        if t.starts_with("pub ") && !t.starts_with("pub(") {
            let mut sig = t.to_string();
            // A field or variant ends at its comma; an item at its body or `;`.
            let item = [
                "pub fn ",
                "pub struct ",
                "pub enum ",
                "pub trait ",
                "pub type ",
                "pub use ",
            ]
            .iter()
            .any(|k| t.starts_with(k));
            while !sig.contains('{') && !sig.ends_with(';') && (item || !sig.ends_with(',')) {
                i += 1;
                match lines.get(i) {
                    Some(l) => {
                        sig.push(' ');
                        sig.push_str(l.trim());
                    }
                    None => break,
                }
            }
            let sig = sig.split('{').next().unwrap_or("").trim().to_string();
            if sig.starts_with("pub enum ") && t.ends_with('{') {
                let indent = &line[..line.len() - line.trim_start().len()];
                enum_end = Some(format!("{indent}}}"));
            }
            out.push(format!("{rel}: {sig}"));
        }
        i += 1;
    }
}

fn api() -> String {
    let root = root();
    let mut out = Vec::new();
    for s in SOURCES {
        let mut fs = Vec::new();
        files(&root.join(s), &mut fs);
        for f in fs {
            let rel = f
                .strip_prefix(&root)
                .map(|p| p.display().to_string())
                .unwrap_or_default();
            scan(&f, &rel, &mut out);
        }
    }
    out.join("\n") + "\n"
}

#[test]
fn public_api_matches_snapshot() {
    let now = api();
    let path = root().join("crates/dtrace/api.txt");
    if std::env::var("UPDATE_API").is_ok_and(|v| v == "1") {
        std::fs::write(&path, &now).expect("write api.txt");
        return;
    }
    let old = std::fs::read_to_string(&path).unwrap_or_default();
    if old != now {
        let olds: Vec<&str> = old.lines().collect();
        let news: Vec<&str> = now.lines().collect();
        let gone: Vec<&&str> = olds.iter().filter(|l| !news.contains(l)).collect();
        let added: Vec<&&str> = news.iter().filter(|l| !olds.contains(l)).collect();
        panic!(
            "the public API changed; review, then run UPDATE_API=1 cargo test -p dtrace --test api\nremoved: {gone:#?}\nadded: {added:#?}"
        );
    }
}
