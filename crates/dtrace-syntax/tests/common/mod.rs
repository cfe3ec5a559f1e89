//! Shared helpers for the parser tests.
#![allow(dead_code)]

use dtrace_syntax::{dump, parse, Diagnostic, ParseOptions, SourceKind, SourceMap, Tag};
use std::collections::HashMap;

pub struct Opts {
    pub args: Vec<String>,
    pub vars: HashMap<String, String>,
    pub defaultargs: bool,
    pub types: Vec<&'static str>,
}

impl Default for Opts {
    fn default() -> Self {
        let mut vars = HashMap::new();
        vars.insert("target".to_string(), "1234".to_string());
        vars.insert("pid".to_string(), "99".to_string());
        Opts {
            args: vec!["test.d".to_string()],
            vars,
            defaultargs: false,
            types: vec!["pid_t", "uint64_t", "size_t"],
        }
    }
}

pub fn parse_with(
    src: &str,
    o: &Opts,
) -> (SourceMap, Result<dtrace_syntax::ast::Program, Diagnostic>) {
    let mut map = SourceMap::new();
    let id = map.add(
        SourceKind::Script {
            path: "test.d".into(),
        },
        src.to_string(),
    );
    let types = o.types.clone();
    let is_type = move |n: &str| types.contains(&n);
    let opts = ParseOptions {
        macro_args: &o.args,
        macro_vars: &o.vars,
        defaultargs: o.defaultargs,
        is_type_name: &is_type,
        is_d_identifier: &|_| false,
        pspec: false,
    };
    let r = parse(&map, id, &opts);
    (map, r)
}

/// Dump of a program that must parse.
pub fn ok(src: &str) -> String {
    ok_with(src, &Opts::default())
}

pub fn ok_with(src: &str, o: &Opts) -> String {
    let (map, r) = parse_with(src, o);
    match r {
        Ok(p) => dump(&p).trim_end().to_string(),
        Err(d) => panic!(
            "unexpected error for {:?}: {}\n{}",
            src,
            d.message,
            dtrace_syntax::render_rich(&map, &d)
        ),
    }
}

/// The body of `BEGIN { <stmt> }` as a dump, for expression tests.
pub fn e(src: &str) -> String {
    let d = ok(&format!("BEGIN {{ {} }}", src));
    d.strip_prefix("(clause (\"BEGIN\") ")
        .and_then(|s| s.strip_suffix(')'))
        .unwrap_or(&d)
        .to_string()
}

/// An expected error: (tag, message, text under the span).
pub fn err(src: &str) -> (Tag, String, String) {
    err_with(src, &Opts::default())
}

pub fn err_with(src: &str, o: &Opts) -> (Tag, String, String) {
    let (map, r) = parse_with(src, o);
    match r {
        Ok(p) => panic!("expected an error for {:?}, got {}", src, dump(&p)),
        Err(d) => {
            let snippet = d
                .span
                .map(|s| map.snippet(s).to_string())
                .unwrap_or_default();
            (d.tag, d.message, snippet)
        }
    }
}
