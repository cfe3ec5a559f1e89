//! One compile-error case per `D_*` tag: `tests/errtags/D_TAG[.variant].d` is
//! compiled with `dtrace -xerrtags -e -s D_TAG.d [args from D_TAG.args]` (from that directory) and
//! must fail with exit status 1 and exactly the standard error in
//! `D_TAG[.variant].err`.
//!
//! A second test lists the tags of `Tag::ALL` that have no case. It fails only
//! for tags the compiler can raise (a `Tag::D_*` in the non-test source of the
//! crates) that have neither a case nor a line in `tests/errtags/NO_CASE`
//! saying why (no D program reaches them today, or our message is not
//! DTrace's yet, which must not be frozen into a case).

mod common;

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .ancestors()
        .nth(2)
        .map(Path::to_path_buf)
        .unwrap_or_else(|| PathBuf::from("."))
}

fn cases_dir() -> PathBuf {
    root().join("tests/errtags")
}

/// `(stem, tag)` of every case, sorted.
fn cases() -> Vec<(String, String)> {
    let mut out = Vec::new();
    let Ok(rd) = std::fs::read_dir(cases_dir()) else {
        panic!("cannot read {}", cases_dir().display());
    };
    for e in rd.flatten() {
        let name = e.file_name().to_string_lossy().into_owned();
        let Some(stem) = name.strip_suffix(".d") else {
            continue;
        };
        let tag = stem.split('.').next().unwrap_or(stem).to_string();
        out.push((stem.to_string(), tag));
    }
    out.sort();
    out
}

#[test]
fn every_case_fails_with_its_exact_message() {
    let dir = cases_dir();
    let mut failures = Vec::new();
    let all = cases();
    assert!(!all.is_empty(), "no cases in {}", dir.display());
    for (stem, tag) in &all {
        let script = format!("{stem}.d");
        let want = match std::fs::read_to_string(dir.join(format!("{stem}.err"))) {
            Ok(w) => w,
            Err(e) => {
                failures.push(format!("{stem}: cannot read {stem}.err: {e}"));
                continue;
            }
        };
        // `TAG.args`, when present, holds macro arguments for the script.
        let extra: Vec<String> = std::fs::read_to_string(dir.join(format!("{stem}.args")))
            .map(|a| a.split_whitespace().map(str::to_string).collect())
            .unwrap_or_default();
        let out = match Command::new(common::dtrace_bin())
            .args(["-xerrtags", "-e", "-s", &script])
            .args(&extra)
            .current_dir(&dir)
            .stdin(Stdio::null())
            .output()
        {
            Ok(o) => o,
            Err(e) => panic!("cannot run dtrace: {e}"),
        };
        let got = common::stderr(&out);
        if out.status.code() != Some(1) || got != want {
            failures.push(format!(
                "{stem}: status {:?}\n  want: {want:?}\n  got:  {got:?}",
                out.status.code()
            ));
        }
        if !got.contains(&format!("[{tag}] ")) {
            failures.push(format!("{stem}: the message does not carry [{tag}]"));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// Tags named as `Tag::D_*` in the non-test part of `crates/*/src`.
fn raised_tags() -> BTreeSet<String> {
    let mut found = BTreeSet::new();
    let mut files = Vec::new();
    let crates = root().join("crates");
    if let Ok(rd) = std::fs::read_dir(&crates) {
        for c in rd.flatten() {
            collect_rs(&c.path().join("src"), &mut files);
        }
    }
    for f in files {
        let Ok(text) = std::fs::read_to_string(&f) else {
            continue;
        };
        // Unit tests come last in a file, after `#[cfg(test)]`.
        let code = text.split("#[cfg(test)]").next().unwrap_or("");
        let mut rest = code;
        while let Some(i) = rest.find("Tag::D_") {
            let after = &rest[i + "Tag::".len()..];
            let end = after
                .find(|c: char| !(c.is_ascii_uppercase() || c == '_' || c.is_ascii_digit()))
                .unwrap_or(after.len());
            found.insert(after[..end].to_string());
            rest = &after[end..];
        }
    }
    found
}

fn collect_rs(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(rd) = std::fs::read_dir(dir) else {
        return;
    };
    for e in rd.flatten() {
        let p = e.path();
        if p.is_dir() {
            collect_rs(&p, out);
        } else if p.extension().is_some_and(|x| x == "rs") {
            out.push(p);
        }
    }
}

/// `D_TAG reason...` lines of `tests/errtags/NO_CASE`.
fn acknowledged() -> BTreeSet<String> {
    std::fs::read_to_string(cases_dir().join("NO_CASE"))
        .unwrap_or_default()
        .lines()
        .filter(|l| l.starts_with("D_"))
        .filter_map(|l| l.split_whitespace().next().map(str::to_string))
        .collect()
}

#[test]
fn raised_tags_have_cases() {
    let covered: BTreeSet<String> = cases().into_iter().map(|(_, t)| t).collect();
    let raised = raised_tags();
    let acked = acknowledged();
    let all: Vec<&str> = dtrace_syntax::Tag::ALL.iter().map(|t| t.name()).collect();
    for t in &covered {
        assert!(all.contains(&t.as_str()), "case for unknown tag {t}");
    }
    let mut no_case = Vec::new();
    let mut missing = Vec::new();
    for t in &all {
        if covered.contains(*t) {
            continue;
        }
        if raised.contains(*t) && !acked.contains(*t) {
            missing.push(*t);
        } else {
            no_case.push(*t);
        }
    }
    eprintln!(
        "errtags: {} of {} tags have a case; without one (not raised, or listed in NO_CASE): {}",
        covered.len(),
        all.len(),
        no_case.join(" ")
    );
    assert!(
        missing.is_empty(),
        "tags the compiler raises but tests/errtags has no case for: {}",
        missing.join(" ")
    );
}
