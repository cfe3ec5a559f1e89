//! Expression parsing: precedence, associativity, every operator and primary.
mod common;
use common::*;

#[test]
fn precedence_table() {
    // One case per adjacent pair of levels in the D precedence table.
    let cases = [
        ("x = a, b;", "(, (= x a) b)"),
        ("x = y = 1;", "(= x (= y 1))"),
        ("x += y -= 2;", "(+= x (-= y 2))"),
        ("x = a ? b : c;", "(= x (? a b c))"),
        ("a ? b : c ? d : e;", "(? a b (? c d e))"),
        ("a ? b, c : d;", "(? a (, b c) d)"),
        ("a || b ^^ c;", "(|| a (^^ b c))"),
        ("a ^^ b && c;", "(^^ a (&& b c))"),
        ("a && b | c;", "(&& a (| b c))"),
        ("a | b ^ c;", "(| a (^ b c))"),
        ("a ^ b & c;", "(^ a (& b c))"),
        ("a & b == c;", "(& a (== b c))"),
        ("a == b < c;", "(== a (< b c))"),
        ("a < b << c;", "(< a (<< b c))"),
        ("a << b + c;", "(<< a (+ b c))"),
        ("a + b * c;", "(+ a (* b c))"),
        ("a * -b;", "(* a (- b))"),
        ("-a[1];", "(- (index a 1))"),
        ("a - b - c;", "(- (- a b) c)"),
        ("a / b % c * d;", "(* (% (/ a b) c) d)"),
        ("a || b || c;", "(|| (|| a b) c)"),
        ("a != b >= c;", "(!= a (>= b c))"),
        ("a <= b > c;", "(> (<= a b) c)"),
        ("a >> b;", "(>> a b)"),
        ("(a + b) * c;", "(* (+ a b) c)"),
    ];
    for (src, want) in cases {
        assert_eq!(e(src), want, "for {}", src);
    }
}

#[test]
fn assignment_operators() {
    for op in [
        "=", "+=", "-=", "*=", "/=", "%=", "&=", "^=", "|=", "<<=", ">>=",
    ] {
        assert_eq!(e(&format!("x {} 1;", op)), format!("({} x 1)", op));
    }
}

#[test]
fn unary_and_postfix() {
    let cases = [
        ("!a;", "(! a)"),
        ("~a;", "(~ a)"),
        ("+a;", "(+ a)"),
        ("*p;", "(* p)"),
        ("&x;", "(& x)"),
        ("++x;", "(pre++ x)"),
        ("--x;", "(pre-- x)"),
        ("x++;", "(post++ x)"),
        ("x--;", "(post-- x)"),
        ("- -x;", "(- (- x))"),
        ("!!x;", "(! (! x))"),
        ("*p->q;", "(* (-> p q))"),
        ("&a.b;", "(& (. a b))"),
        ("-x++;", "(- (post++ x))"),
        ("a.b.c;", "(. (. a b) c)"),
        ("v->counter + a.string;", "(+ (-> v counter) (. a string))"),
        (
            "args[0]->f_path.dentry;",
            "(. (-> (index args 0) f_path) dentry)",
        ),
        ("a[1][2];", "(index (index a 1) 2)"),
        ("f(g(1), 2)[3];", "(index (call f (call g 1) 2) 3)"),
        ("sizeof x;", "(sizeof x)"),
        ("sizeof (x);", "(sizeof x)"),
        ("sizeof x + 1;", "(+ (sizeof x) 1)"),
        ("sizeof(int);", "(sizeof (type [int]))"),
        (
            "sizeof(struct foo *);",
            "(sizeof (type [struct foo] (ptr _)))",
        ),
        ("stringof x;", "(stringof x)"),
        ("stringof(x) + 1;", "(+ (stringof x) 1)"),
        ("-sizeof(int);", "(- (sizeof (type [int])))"),
    ];
    for (src, want) in cases {
        assert_eq!(e(src), want, "for {}", src);
    }
}

#[test]
fn casts_are_typedef_aware() {
    assert_eq!(e("(int)x;"), "(cast (type [int]) x)");
    assert_eq!(
        e("(unsigned long long)x;"),
        "(cast (type [unsigned long long]) x)"
    );
    assert_eq!(e("(char *)p;"), "(cast (type [char] (ptr _)) p)");
    assert_eq!(
        e("(const char **)p;"),
        "(cast (type [const char] (ptr (ptr _))) p)"
    );
    assert_eq!(
        e("(struct task_struct *)curthread;"),
        "(cast (type [struct task_struct] (ptr _)) curthread)"
    );
    assert_eq!(
        e("(struct vmlinux`task_struct *)curthread;"),
        "(cast (type [struct vmlinux`task_struct] (ptr _)) curthread)"
    );
    // pid_t is a type (from is_type_name); foo_t is not, so `(foo_t)` is a parenthesized expression.
    assert_eq!(e("(pid_t)x;"), "(cast (type [pid_t]) x)");
    assert_eq!(e("(vmlinux`pid_t)x;"), "(cast (type [vmlinux`pid_t]) x)");
    assert_eq!(e("(foo_t) - x;"), "(- foo_t x)");
    assert_eq!(e("(pid_t) - x;"), "(cast (type [pid_t]) (- x))");
    assert_eq!(
        e("(int)(long)x;"),
        "(cast (type [int]) (cast (type [long]) x))"
    );
    assert_eq!(e("(int)x + 1;"), "(+ (cast (type [int]) x) 1)");
    assert_eq!(
        e("(int (*)(int))f;"),
        "(cast (type [int] (ptr (fn _ ((type [int]))))) f)"
    );
    assert_eq!(e("(char [4])x;"), "(cast (type [char] (array _ 4)) x)");
    // Program typedefs count too, from their declaration onwards.
    let d = ok("typedef int foo_t;\nBEGIN { (foo_t)x; }");
    assert!(
        d.ends_with("(clause (\"BEGIN\") (cast (type [foo_t]) x))"),
        "{}",
        d
    );
}

#[test]
fn primaries() {
    let cases = [
        ("42;", "42"),
        ("052;", "052"),
        ("0x2A;", "0x2a"),
        ("0X2a;", "0x2a"),
        ("0;", "0"),
        ("1u;", "1u"),
        ("1L;", "1l"),
        ("1ul;", "1ul"),
        ("1LU;", "1ul"),
        ("1ll;", "1ll"),
        ("1ULL;", "1ull"),
        ("18446744073709551615;", "18446744073709551615"),
        ("0xffffffffffffffff;", "0xffffffffffffffff"),
        ("'a';", "(char 97)"),
        ("'\\n';", "(char 10)"),
        ("'\\0';", "(char 0)"),
        // DTrace keeps the backslash of an escape it does not know (\' too).
        ("'\\'';", "(char 23591)"),
        ("'ab';", "(char 24930)"),
        ("\"hi\\tthere\\n\";", "\"hi\\tthere\\n\""),
        ("\"a\\\"b\\\\c\";", "\"a\\\"b\\\\c\""),
        ("\"\\x41\\101\\0\";", "\"AA\\x00\""),
        ("\"\";", "\"\""),
        ("x;", "x"),
        ("`jiffies;", "`jiffies"),
        ("vmlinux`jiffies;", "vmlinux`jiffies"),
        ("self->x;", "self->x"),
        ("this->x;", "this->x"),
        ("self->x[1];", "(index self->x 1)"),
        ("self->p->q;", "(-> self->p q)"),
        ("@a;", "@a"),
        ("@;", "@"),
        (
            "@a[pid, execname] = count();",
            "(= (index @a pid execname) (call count))",
        ),
        ("@ = quantize(x);", "(= @ (call quantize x))"),
        ("args[0];", "(index args 0)"),
        ("f();", "(call f)"),
        ("printf(\"%d %s\", a, b);", "(call printf \"%d %s\" a b)"),
        (
            "offsetof(struct foo, bar);",
            "(offsetof (type [struct foo]) bar)",
        ),
        (
            "offsetof(struct foo, a.b);",
            "(offsetof (type [struct foo]) a.b)",
        ),
        ("offsetof(pid_t, x);", "(offsetof (type [pid_t]) x)"),
        (
            "xlate<struct psinfo *>(curthread);",
            "(xlate (type [struct psinfo] (ptr _)) curthread)",
        ),
        (
            "xlate<psinfo_t>(curthread)->pr_pid;",
            "(-> (xlate (type [psinfo_t]) curthread) pr_pid)",
        ),
    ];
    for (src, want) in cases {
        let got = if src.contains("psinfo_t") {
            let o = Opts {
                types: vec!["psinfo_t", "pid_t"],
                ..Opts::default()
            };
            let d = ok_with(&format!("BEGIN {{ {} }}", src), &o);
            d.strip_prefix("(clause (\"BEGIN\") ")
                .and_then(|s| s.strip_suffix(')'))
                .unwrap_or(&d)
                .to_string()
        } else {
            e(src)
        };
        assert_eq!(got, want, "for {}", src);
    }
}

#[test]
fn spans_cover_expressions() {
    let (map, r) = parse_with("BEGIN { x = a + (b * c); }", &Opts::default());
    let p = r.unwrap();
    let dtrace_syntax::ast::Item::Clause(c) = &p.items[0] else {
        panic!()
    };
    let dtrace_syntax::ast::Stmt::Expr(ex) = &c.body[0] else {
        panic!()
    };
    assert_eq!(map.snippet(ex.span), "x = a + (b * c)");
    let dtrace_syntax::ast::ExprKind::Assign { rhs, .. } = &ex.kind else {
        panic!()
    };
    assert_eq!(map.snippet(rhs.span), "a + (b * c)");
    assert_eq!(map.snippet(c.span), "BEGIN { x = a + (b * c); }");
    assert_eq!(map.snippet(c.probes[0].span), "BEGIN");
}
