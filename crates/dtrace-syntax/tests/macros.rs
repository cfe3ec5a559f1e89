//! Macro variables: $0..$n, $$n, $target and friends.
mod common;
use common::*;
use dtrace_syntax::{parse_with_info, ParseOptions, SourceKind, SourceMap};

fn with_args(args: &[&str]) -> Opts {
    Opts {
        args: args.iter().map(|s| s.to_string()).collect(),
        ..Opts::default()
    }
}

#[test]
fn arguments_in_code() {
    let o = with_args(&[
        "script.d", "42", "foo", "\"str\"", "-5", "0x10", "a b", "int",
    ]);
    let cases = [
        ("x = $1;", "(= x 42)"),
        ("x = $2;", "(= x foo)"),
        ("x = $3;", "(= x \"str\")"),
        ("x = $4;", "(= x (- 5))"),
        ("x = $5;", "(= x 0x10)"),
        ("x = $$1;", "(= x \"42\")"),
        ("x = $$2;", "(= x \"foo\")"),
        ("x = $$0;", "(= x \"script.d\")"),
        ("x = $target;", "(= x 1234)"),
        ("x = $pid + 1;", "(= x (+ 99 1))"),
        ("x = $$target;", "(= x \"1234\")"),
        // `$7` re-reads as the keyword `int`.
        ("x = sizeof($7);", "(= x (sizeof (type [int])))"),
    ];
    for (src, want) in cases {
        let got = ok_with(&format!("BEGIN {{ {} }}", src), &o);
        let got = got
            .strip_prefix("(clause (\"BEGIN\") ")
            .and_then(|s| s.strip_suffix(')'))
            .unwrap_or(&got)
            .to_string();
        assert_eq!(got, want, "for {}", src);
    }
}

#[test]
fn expansion_keeps_the_macro_span() {
    let o = with_args(&["s.d", "12345"]);
    let (map, r) = parse_with("BEGIN { x = $1; }", &o);
    let p = r.unwrap();
    let dtrace_syntax::ast::Item::Clause(c) = &p.items[0] else {
        panic!()
    };
    let dtrace_syntax::ast::Stmt::Expr(e) = &c.body[0] else {
        panic!()
    };
    let dtrace_syntax::ast::ExprKind::Assign { rhs, .. } = &e.kind else {
        panic!()
    };
    assert_eq!(map.snippet(rhs.span), "$1");
}

#[test]
fn arguments_in_probe_descriptions() {
    let o = with_args(&["s.d", "read", "77"]);
    assert_eq!(
        ok_with("syscall::$1:entry /pid == $2/ {}", &o),
        "(clause (\"syscall::read:entry\") (pred (== pid 77)))"
    );
    assert_eq!(
        ok_with("pid$2:::entry {}", &o),
        "(clause (\"pid77:::entry\"))"
    );
    assert_eq!(
        ok_with("pid$$2:::entry {}", &o),
        "(clause (\"pid77:::entry\"))"
    );
    assert_eq!(
        ok_with("pid$target::f:entry {}", &o),
        "(clause (\"pid1234::f:entry\"))"
    );
    assert_eq!(
        ok_with("$1 {}", &with_args(&["s.d", "BEGIN"])),
        "(clause (\"BEGIN\"))"
    );
}

#[test]
fn defaultargs() {
    let o = Opts {
        defaultargs: true,
        ..Opts::default()
    };
    assert_eq!(
        ok_with("BEGIN { x = $1; y = $$2; }", &o),
        "(clause (\"BEGIN\") (= x 0) (= y \"\"))"
    );
    assert_eq!(
        ok_with("pid$3:::entry {}", &o),
        "(clause (\"pid0:::entry\"))"
    );
}

#[test]
fn used_arguments_are_reported() {
    let mut map = SourceMap::new();
    let id = map.add(
        SourceKind::ProbeSpecifier,
        "syscall::$1:entry { x = $$3; }".into(),
    );
    let args: Vec<String> = ["dtrace", "read", "x", "y"]
        .iter()
        .map(|s| s.to_string())
        .collect();
    let vars = Default::default();
    let opts = ParseOptions {
        macro_args: &args,
        macro_vars: &vars,
        defaultargs: false,
        is_type_name: &|_| false,
        is_d_identifier: &|_| false,
        pspec: false,
    };
    let (_, info) = parse_with_info(&map, id, &opts).unwrap();
    assert_eq!(info.macro_args_used, vec![false, true, false, true]);
}
