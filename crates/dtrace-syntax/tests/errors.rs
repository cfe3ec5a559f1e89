//! Every error path: tag, exact message and the text under the span.
mod common;
use common::*;
use dtrace_syntax::Tag::*;

fn check(src: &str, tag: dtrace_syntax::Tag, msg: &str, under: &str) {
    let (t, m, u) = err(src);
    assert_eq!(
        (t, m.as_str(), u.as_str()),
        (tag, msg, under),
        "for {:?}",
        src
    );
}

#[test]
fn syntax_errors() {
    let near = |t: &str| format!("syntax error near \"{}\"", t);
    let eoi = "syntax error near end of input";
    let cases: &[(&str, String, &str)] = &[
        ("BEGIN { x = ; }", near(";"), ";"),
        ("BEGIN { x = 1 + ; }", near(";"), ";"),
        ("BEGIN { x = 1;", eoi.into(), ""),
        ("BEGIN {", eoi.into(), ""),
        ("BEGIN { x = (1 + 2; }", near(";"), ";"),
        ("BEGIN { f(1, ; }", near(";"), ";"),
        ("BEGIN { f(1 2); }", near("2"), "2"),
        ("BEGIN { a b; }", near("b; }"), "b"),
        ("BEGIN { a[]; }", near("]"), "]"),
        ("BEGIN { a[1; }", near(";"), ";"),
        ("BEGIN { self; }", near(";"), ";"),
        ("BEGIN { self->; }", near(";"), ";"),
        ("BEGIN { this.x; }", near("."), "."),
        ("BEGIN { return 1; }", near("return"), "return"),
        ("BEGIN { else x; }", near("else"), "else"),
        ("BEGIN { if x; }", near("x; }"), "x"),
        ("BEGIN { if (x; }", near(";"), ";"),
        ("BEGIN { a ? b; }", near(";"), ";"),
        // As in C, only a unary expression may be assigned to.
        ("BEGIN { a + b = c; }", near("="), "="),
        ("BEGIN { a ? b : c = d; }", near("="), "="),
        ("BEGIN { x = a + b += c; }", near("+="), "+="),
        ("BEGIN { x = \"a\" \"b\"; }", near("\"b\""), "\"b\""),
        ("BEGIN { } }", near("}"), "}"),
        ("BEGIN { };", near(";"), ";"),
        ("BEGIN /x/ END", eoi.into(), ""),
        ("BEGIN /x { }", near("{"), "{"),
        ("BEGIN /x", eoi.into(), ""),
        ("BEGIN / / {}", near("/"), "/"),
        ("BEGIN /x/ ; ", near(";"), ";"),
        ("{ x; }", near("{"), "{"),
        ("BEGIN { sizeof(int; }", near(";"), ";"),
        (
            "BEGIN { offsetof(struct foo bar); }",
            near("bar); }"),
            "bar",
        ),
        ("BEGIN { xlate(x); }", near("("), "("),
        ("BEGIN { (int x; }", near("x; }"), "x"),
        ("BEGIN { x = #; }", near("#"), "#"),
        ("BEGIN { x = 1 \u{e9}; }", near("\u{e9}"), "\u{e9}"),
        // A lone backquote is an identifier (it names no symbol: sema's error).
        ("BEGIN { x ` ; }", near("` ; }"), "`"),
        ("BEGIN { $; }", near("$"), "$"),
        ("int 3;", near("3"), "3"),
        ("int x", eoi.into(), ""),
        ("int x y;", near("y;"), "y"),
        ("struct;", near(";"), ";"),
        ("struct s { int a }; ", near("}"), "}"),
        ("enum e { };", near("}"), "}"),
        ("translator a < int x > { };", near("a < int x > { };"), "a"),
        ("translator int < int > { };", near(">"), ">"),
        ("provider p { q(); };", near("q(); };"), "q"),
    ];
    for (src, msg, under) in cases {
        check(src, D_SYNTAX, msg, under);
    }
}

#[test]
fn only_a_name_is_called() {
    // `tick-1()` is `tick - 1()`: the arguments are read, then the call refused.
    let msg = "function designator is not of function type";
    check("BEGIN { @ = tick-1(); }", D_FUNC_IDENT, msg, "1()");
    check("BEGIN { x->y(1, 2); }", D_FUNC_IDENT, msg, "x->y(1, 2)");
    check(
        "BEGIN { x->y(1 2); }",
        D_SYNTAX,
        "syntax error near \"2\"",
        "2",
    );
}

#[test]
fn a_second_body_for_a_struct_or_union_tag() {
    // Reported at the second body's `{`, before its members are read (here a
    // translator whose input is in braces reads as a body for its output type).
    let msg = "type redeclared: struct out";
    check(
        "struct out { int a; }; translator struct out { struct in *p } { a = 1; };",
        D_DECL_TYPERED,
        msg,
        "{",
    );
    check(
        "union u { int a; }; union u { int b; };",
        D_DECL_TYPERED,
        "type redeclared: union u",
        "{",
    );
}

#[test]
fn unbalanced_parentheses_and_brackets() {
    assert_eq!(err("BEGIN { trace(1)); }").1, "extra ) in input stream");
    assert_eq!(err("BEGIN { x = 1]; }").1, "extra ] in input stream");
    assert_eq!(
        err("BEGIN\n/(x == 1/\n{ }").1,
        "closing ) expected in predicate before /"
    );
    let (tag, msg, _) = err("BEGIN\n/a[1/\n{ }");
    assert_eq!(
        (tag, msg.as_str()),
        (D_SYNTAX, "closing ] expected in predicate before /")
    );
}

#[test]
fn lexical_errors() {
    check(
        "BEGIN { x = \"abc\n\"; }",
        D_STR_NL,
        "newline encountered in string literal",
        "",
    );
    check(
        "BEGIN { x = 'a\n'; }",
        D_STR_NL,
        "newline encountered in character constant",
        "",
    );
    check(
        "BEGIN { x = \"abc",
        D_SYNTAX,
        "end-of-file encountered in string literal",
        "\"abc",
    );
    check(
        "BEGIN { x = ''; }",
        D_CHR_NULL,
        "empty character constant",
        "''",
    );
    check(
        "BEGIN { x = '123456789'; }",
        D_CHR_OFLOW,
        "character constant is too long",
        "'123456789'",
    );
    check(
        "BEGIN { 0x12345678123456781; }",
        D_INT_OFLOW,
        "integer constant 0x12345678123456781 is too large to be represented in 64 bits",
        "0x12345678123456781",
    );
    check(
        "BEGIN { 18446744073709551616; }",
        D_INT_OFLOW,
        "integer constant 18446744073709551616 is too large to be represented in 64 bits",
        "18446744073709551616",
    );
    check(
        "BEGIN { x = 089; }",
        D_INT_DIGIT,
        "invalid digit '8' in octal constant 089",
        "089",
    );
    check(
        "BEGIN { x = 0x; }",
        D_INT_DIGIT,
        "invalid digit in hexadecimal constant 0x",
        "0x",
    );
    check(
        "BEGIN { x = 12abc; }",
        D_SYNTAX,
        "invalid suffix \"abc\" on integer constant 12abc",
        "12abc",
    );
    check(
        "BEGIN { x = 1.5; }",
        D_SYNTAX,
        "floating-point constants are not permitted",
        "1.5",
    );
    check(
        "BEGIN { x = 2e10; }",
        D_SYNTAX,
        "floating-point constants are not permitted",
        "2e10",
    );
    check(
        "BEGIN { x = \"\\x\"; }",
        D_SYNTAX,
        "\\x used with no following hex digits",
        "\"\\x\"",
    );
    check(
        "BEGIN { /* x ",
        D_SYNTAX,
        "end-of-file encountered before matching */",
        "",
    );
    // Directives other than #pragma, #line and #ident need the C preprocessor.
    check(
        "#include <stdio.h>\nBEGIN {}",
        D_PRAGCTL_INVAL,
        "invalid control directive: #include",
        "#include",
    );
    check(
        "BEGIN {}\n  #define X 1\n",
        D_PRAGCTL_INVAL,
        "invalid control directive: #define",
        "#define",
    );
}

#[test]
fn probe_description_errors() {
    check(
        "a:b:c:d:e {}",
        D_PDESC_INVAL,
        "invalid probe description \"a:b:c:d:e\": Overspecified probe description",
        "a:b:c:d:e",
    );
    check("BEGIN, {}", D_SYNTAX, "syntax error near \"{\"", "{");
    check("BEGIN,", D_SYNTAX, "syntax error near end of input", "");
}

#[test]
fn macro_errors() {
    check(
        "BEGIN { x = $3; }",
        D_MACRO_UNDEF,
        "macro argument $3 is not defined",
        "$3",
    );
    check(
        "BEGIN { x = $$3; }",
        D_MACRO_UNDEF,
        "macro argument $$3 is not defined",
        "$$3",
    );
    check(
        "BEGIN { x = $nosuch; }",
        D_MACRO_UNDEF,
        "macro variable $nosuch is not defined",
        "$nosuch",
    );
    check(
        "pid$3:::entry {}",
        D_MACRO_UNDEF,
        "macro argument $3 is not defined",
        "$3",
    );
    check(
        "BEGIN /$99999999999999999999999/ {}",
        D_MACRO_UNDEF,
        "macro argument $99999999999999999999999 is not defined",
        "$99999999999999999999999",
    );
    let o = Opts {
        args: vec!["t.d".into(), "".into(), "a b".into(), "'".into()],
        ..Opts::default()
    };
    let (t, m, u) = err_with("BEGIN { x = $1; }", &o);
    assert_eq!(
        (t, m.as_str(), u.as_str()),
        (D_SYNTAX, "syntax error near \"$1\"", "$1")
    );
    // A macro expands to a single token.
    let (t, m, u) = err_with("BEGIN { x = $2; }", &o);
    assert_eq!(
        (t, m.as_str(), u.as_str()),
        (D_SYNTAX, "syntax error near \"$2\"", "$2")
    );
    let (t, m, u) = err_with("BEGIN { x = $3; }", &o);
    assert_eq!(
        (t, m.as_str(), u.as_str()),
        (
            D_SYNTAX,
            "end-of-file encountered in character constant",
            "$3"
        )
    );
}

#[test]
fn nesting_limit() {
    let deep = format!("BEGIN {{ x = {}1{}; }}", "(".repeat(2000), ")".repeat(2000));
    let (t, m, _) = err(&deep);
    assert_eq!(t, D_SYNTAX);
    assert!(m.starts_with("program is nested too deeply"), "{}", m);
    let deep = format!("BEGIN {{ {} }}", "{".repeat(3000));
    assert_eq!(err(&deep).0, D_SYNTAX);
    let deep = format!("BEGIN {{ x = {}y; }}", "-".repeat(5000));
    assert_eq!(err(&deep).0, D_SYNTAX);
    let deep = format!("int {}x{};", "(".repeat(3000), ")".repeat(3000));
    assert_eq!(err(&deep).0, D_SYNTAX);
    // Moderate nesting is fine (debug builds use more stack per level, so
    // the limit they reach is lower than release builds').
    let ok_src = format!("BEGIN {{ x = {}1{}; }}", "(".repeat(64), ")".repeat(64));
    ok(&ok_src);
}

#[test]
fn rendering_matches_dtrace() {
    let (map, r) = parse_with("BEGIN\n{\n  x = ;\n}\n", &Opts::default());
    let d = r.unwrap_err();
    assert_eq!(
        dtrace_syntax::render_dtrace(&map, &d, Default::default()),
        "dtrace: failed to compile script test.d: line 3: syntax error near \";\""
    );
}
