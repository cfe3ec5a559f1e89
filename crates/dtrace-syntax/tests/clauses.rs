//! Clauses: probe descriptions, predicates, bodies, statements, pragmas.
mod common;
use common::*;

#[test]
fn probe_descriptions() {
    let cases = [
        ("BEGIN {}", "(clause (\"BEGIN\"))"),
        (
            "syscall::read:entry {}",
            "(clause (\"syscall::read:entry\"))",
        ),
        ("syscall:::entry {}", "(clause (\"syscall:::entry\"))"),
        (
            "profile:::profile-97 {}",
            "(clause (\"profile:::profile-97\"))",
        ),
        ("tick-1sec {}", "(clause (\"tick-1sec\"))"),
        (
            "syscall::*read*:entry {}",
            "(clause (\"syscall::*read*:entry\"))",
        ),
        (
            "pid$target:libc.so.6:malloc:entry {}",
            "(clause (\"pid1234:libc.so.6:malloc:entry\"))",
        ),
        (
            "fbt:vmlinux:do_sys_open*:entry {}",
            "(clause (\"fbt:vmlinux:do_sys_open*:entry\"))",
        ),
        (
            "syscall::[a-z]?:entry {}",
            "(clause (\"syscall::[a-z]?:entry\"))",
        ),
        (
            "syscall::[!a]*:entry {}",
            "(clause (\"syscall::[!a]*:entry\"))",
        ),
        (":::BEGIN {}", "(clause (\":::BEGIN\"))"),
        ("*:::* {}", "(clause (\"*:::*\"))"),
        ("12345 {}", "(clause (\"12345\"))"),
        ("BEGIN, END {}", "(clause (\"BEGIN\" \"END\"))"),
        (
            "syscall::read:entry,\nsyscall::write:entry\n{}",
            "(clause (\"syscall::read:entry\" \"syscall::write:entry\"))",
        ),
        (
            "syscall::read:entry ,  /* c */ syscall::write:entry{}",
            "(clause (\"syscall::read:entry\" \"syscall::write:entry\"))",
        ),
        ("BEGIN{exit(0);}", "(clause (\"BEGIN\") (call exit 0))"),
        ("sched:::on-cpu {}", "(clause (\"sched:::on-cpu\"))"),
        (
            "proc:::exec-success {}",
            "(clause (\"proc:::exec-success\"))",
        ),
        ("pid$1::$2:entry {}", "(clause (\"pid42::malloc:entry\"))"),
    ];
    let o = Opts {
        args: vec!["t.d".into(), "42".into(), "malloc".into()],
        ..Opts::default()
    };
    for (src, want) in cases {
        assert_eq!(ok_with(src, &o), want, "for {}", src);
    }
}

#[test]
fn clauses_without_body() {
    // dtrace -n BEGIN is a clause, but a script file must give each
    // description a predicate or actions.
    let want = "expected predicate and/or actions following probe description";
    assert_eq!(err("BEGIN").1, want);
    assert_eq!(err("BEGIN\ntick-1sec\nEND { exit(0); }").1, want);
    assert_eq!(ok("BEGIN /x/"), "(clause (\"BEGIN\") (pred x))");
    assert_eq!(ok("BEGIN, END {}"), "(clause (\"BEGIN\" \"END\"))");
}

#[test]
fn predicates() {
    let cases = [
        ("BEGIN /x/ {}", "(clause (\"BEGIN\") (pred x))"),
        ("BEGIN / x / {}", "(clause (\"BEGIN\") (pred x))"),
        (
            "BEGIN /x / 2 > 1/ {}",
            "(clause (\"BEGIN\") (pred (> (/ x 2) 1)))",
        ),
        ("BEGIN /x/2/ {}", "(clause (\"BEGIN\") (pred (/ x 2)))"),
        (
            "BEGIN /(x / 2) == 1/\n{}",
            "(clause (\"BEGIN\") (pred (== (/ x 2) 1)))",
        ),
        (
            "syscall::read:entry /pid == $target && execname == \"ls\"/ { }",
            "(clause (\"syscall::read:entry\") (pred (&& (== pid 1234) (== execname \"ls\"))))",
        ),
        ("BEGIN /x/ /* c */ {}", "(clause (\"BEGIN\") (pred x))"),
        ("BEGIN /x/", "(clause (\"BEGIN\") (pred x))"),
        (
            "BEGIN /self->ts/\n{ }",
            "(clause (\"BEGIN\") (pred self->ts))",
        ),
        (
            "BEGIN /a ? b : c/ {}",
            "(clause (\"BEGIN\") (pred (? a b c)))",
        ),
        ("BEGIN /x/{}", "(clause (\"BEGIN\") (pred x))"),
        ("BEGIN/x/{}", "(clause (\"BEGIN\") (pred x))"),
    ];
    for (src, want) in cases {
        assert_eq!(ok(src), want, "for {}", src);
    }
    // "No declarations inside of the enclosing { } are permitted" (Dynamic
    // Tracing Guide, "Probe Clauses and Declarations"); dtrace(1) reports a
    // syntax error at the first token no statement can continue with. At a
    // name its lexer peeked past (a type name here), the message quotes the
    // rest of the line, blanks after the name as spaces.
    for (src, near) in [
        ("BEGIN { this int x; }", "int"),
        ("BEGIN { self int x; }", "int"),
        ("BEGIN { pid_t p; }", "pid_t p; }"),
        ("BEGIN { pid_t\t* p; }\n", "pid_t * p; }"),
        ("BEGIN { pid_t\n* p; }", "pid_t"),
        ("BEGIN { int i = 0; exit(0); }", "int"),
        ("BEGIN { x = 1; } END { trace(1) x; }", "x"),
        ("BEGIN { trace(a.b c); }", "c); }"),
        ("BEGIN { trace(a->b c); }", "c); }"),
        ("BEGIN { trace(a->b); a->b c; }", "c; }"),
    ] {
        let (tag, msg, _) = common::err(src);
        assert_eq!(tag, dtrace_syntax::Tag::D_SYNTAX, "for {src}");
        assert_eq!(msg, format!("syntax error near \"{near}\""), "for {src}");
    }
}

#[test]
fn statements() {
    let cases = [
        ("BEGIN { a; b; }", "(clause (\"BEGIN\") a b)"),
        ("BEGIN { a; b }", "(clause (\"BEGIN\") a b)"),
        ("BEGIN { a }", "(clause (\"BEGIN\") a)"),
        ("BEGIN { ; }", "(clause (\"BEGIN\") (empty))"),
        (
            "BEGIN { ;; a;; }",
            "(clause (\"BEGIN\") (empty) (empty) a (empty))",
        ),
        (
            "BEGIN { { a; { b } } }",
            "(clause (\"BEGIN\") (block a (block b)))",
        ),
        (
            "BEGIN { if (x) a; }",
            "(clause (\"BEGIN\") (if x (then a)))",
        ),
        (
            "BEGIN { if (x) { a; b; } }",
            "(clause (\"BEGIN\") (if x (then a b)))",
        ),
        (
            "BEGIN { if (x) a; else b; }",
            "(clause (\"BEGIN\") (if x (then a) (else b)))",
        ),
        (
            "BEGIN { if (x) { a; } else if (y) { b; } else { c; } d; }",
            "(clause (\"BEGIN\") (if x (then a) (else (if y (then b) (else c)))) d)",
        ),
        (
            "BEGIN { if (x) if (y) a; else b; }",
            "(clause (\"BEGIN\") (if x (then (if y (then a) (else b)))))",
        ),
        ("BEGIN { if (x) {} }", "(clause (\"BEGIN\") (if x (then)))"),
        ("BEGIN { if (x) a }", "(clause (\"BEGIN\") (if x (then a)))"),
        (
            "BEGIN { self->x = 1; this->y = 2; }",
            "(clause (\"BEGIN\") (= self->x 1) (= this->y 2))",
        ),
        ("BEGIN { foo_t * p; }", "(clause (\"BEGIN\") (* foo_t p))"),
    ];
    for (src, want) in cases {
        assert_eq!(ok(src), want, "for {}", src);
    }
}

#[test]
fn pragmas_and_control_lines() {
    let src = "#!/usr/sbin/dtrace -s\n#pragma D option quiet\n#pragma D option bufsize=16m\n\
               # 1 \"foo.d\"\n#line 3\n#pragma ident \"x\"\n#pragma D depends_on module vmlinux\n\
               BEGIN { exit(0); }\n#pragma D attributes Evolving/Evolving/Common provider foo provider\n\
               #pragma D binding \"1.0\" foo\n";
    assert_eq!(
        ok(src),
        "(pragma \"option\" \"quiet\")\n(pragma \"option\" \"bufsize=16m\")\n\
         (pragma \"depends_on\" \"module\" \"vmlinux\")\n(clause (\"BEGIN\") (call exit 0))\n\
         (pragma \"attributes\" \"Evolving/Evolving/Common\" \"provider\" \"foo\" \"provider\")\n\
         (pragma \"binding\" \"\\\"1.0\\\"\" \"foo\")"
    );
    // A pragma inside a clause is kept, after the clause.
    assert_eq!(
        ok("BEGIN {\n#pragma D option quiet\n trace(1); }"),
        "(clause (\"BEGIN\") (call trace 1))\n(pragma \"option\" \"quiet\")"
    );
    // A trailing comment is not part of a pragma; `# pragma` may have blanks.
    assert_eq!(
        ok("#pragma D option quiet /* shh */\n# pragma D option q2 // x\n"),
        "(pragma \"option\" \"quiet\")\n(pragma \"option\" \"q2\")"
    );
    // Indented control lines count; `#` in the middle of a line does not.
    assert_eq!(
        ok("  #pragma D option flowindent\n"),
        "(pragma \"option\" \"flowindent\")"
    );
}

#[test]
fn comments() {
    assert_eq!(
        ok("/* a */ BEGIN // x\n{ /* { */ a; // }\n b; }\n// end"),
        "(clause (\"BEGIN\") a b)"
    );
    assert_eq!(
        ok("BEGIN { x = a /* / */ / b; }"),
        "(clause (\"BEGIN\") (= x (/ a b)))"
    );
    // A file with nothing to compile is DTrace's empty translation unit.
    assert_eq!(err("").1, "empty D program translation unit");
    assert_eq!(
        err("  \n /* only a comment */ \n").0,
        dtrace_syntax::Tag::D_EMPTY
    );
}

#[test]
fn whole_scripts() {
    let src = r#"
#pragma D option quiet

inline int MAX = 10;
self int depth;

syscall::open*:entry,
syscall::read:entry
/execname != "dtrace" && pid != $pid/
{
	self->ts = timestamp;
	@calls[probefunc] = count();
}

syscall::read:return
/self->ts/
{
	@lat["read"] = quantize(timestamp - self->ts);
	self->ts = 0;
}

tick-5sec
{
	printa("%-20s %@d\n", @calls);
	trunc(@calls, MAX);
	exit(0);
}
"#;
    let d = ok(src);
    let lines: Vec<&str> = d.lines().collect();
    assert_eq!(lines.len(), 6, "{}", d);
    assert_eq!(lines[0], "(pragma \"option\" \"quiet\")");
    assert_eq!(lines[1], "(decl [inline int] MAX = 10)");
    assert_eq!(lines[2], "(decl [self int] depth)");
    assert_eq!(
        lines[3],
        "(clause (\"syscall::open*:entry\" \"syscall::read:entry\") (pred (&& (!= execname \"dtrace\") (!= pid 99))) (= self->ts timestamp) (= (index @calls probefunc) (call count)))"
    );
    assert_eq!(
        lines[4],
        "(clause (\"syscall::read:return\") (pred self->ts) (= (index @lat \"read\") (call quantize (- timestamp self->ts))) (= self->ts 0))"
    );
    assert_eq!(
        lines[5],
        "(clause (\"tick-5sec\") (call printa \"%-20s %@d\\n\" @calls) (call trunc @calls MAX) (call exit 0))"
    );
}

#[test]
fn line_markers_fix_error_lines() {
    use dtrace_syntax::{
        parse, render_dtrace, scan_line_markers, ParseOptions, SourceKind, SourceMap,
    };
    let src = "# 1 \"foo.d\"\nBEGIN\n# 20 \"foo.d\"\n{\n  x = ;\n}\n";
    let mut map = SourceMap::new();
    let id = map.add(
        SourceKind::Script {
            path: "foo.d".into(),
        },
        src.into(),
    );
    if let Some(f) = map.get_mut(id) {
        let markers = scan_line_markers(&f.text);
        assert_eq!(markers.len(), 2);
        assert_eq!(markers[1].line, 20);
        assert_eq!(markers[1].file.as_deref(), Some("foo.d"));
        f.set_line_markers(markers);
    }
    let args = vec!["foo.d".to_string()];
    let vars = Default::default();
    let opts = ParseOptions {
        macro_args: &args,
        macro_vars: &vars,
        defaultargs: false,
        is_type_name: &|_| false,
        is_d_identifier: &|_| false,
        pspec: false,
    };
    let d = parse(&map, id, &opts).unwrap_err();
    assert_eq!(
        render_dtrace(&map, &d, Default::default()),
        "dtrace: failed to compile script foo.d: line 21: syntax error near \";\""
    );
}

#[test]
fn pspec_reads_probe_descriptions() {
    // Without pspec, `int*x;` declares a pointer; with it (as a pragma), the
    // run `int*x` is a probe description, which then needs a body.
    assert!(ok("int*x;").contains("decl"), "{}", ok("int*x;"));
    let (tag, msg, _) = common::err("#pragma D option pspec\nint*x\n");
    assert_eq!(tag, dtrace_syntax::Tag::D_SYNTAX);
    assert_eq!(
        msg,
        "expected predicate and/or actions following probe description"
    );
    assert_eq!(
        ok("#pragma D option pspec\nint*x { }"),
        "(pragma \"option\" \"pspec\")\n(clause (\"int*x\"))"
    );
}
