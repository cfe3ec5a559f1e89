//! Top-level declarations, type names and declarators.
mod common;
use common::*;

#[test]
fn variables() {
    let cases = [
        ("int x;", "(decl [int] x)"),
        ("int x, y;", "(decl [int] x y)"),
        ("self int x;", "(decl [self int] x)"),
        ("this int x;", "(decl [this int] x)"),
        ("string s;", "(decl [string] s)"),
        ("self string s;", "(decl [self string] s)"),
        ("unsigned long long x;", "(decl [unsigned long long] x)"),
        ("const volatile int x;", "(decl [const volatile int] x)"),
        ("extern int foo;", "(decl [extern int] foo)"),
        ("static int x;", "(decl [static int] x)"),
        ("pid_t p;", "(decl [pid_t] p)"),
        ("vmlinux`pid_t p;", "(decl [vmlinux`pid_t] p)"),
        ("int a[string, int];", "(decl [int] (array a (keys (type [string]) (type [int]))))"),
        ("self int a[int];", "(decl [self int] (array a (keys (type [int]))))"),
        ("int a[4];", "(decl [int] (array a 4))"),
        ("int a[];", "(decl [int] (array a))"),
        ("int a[2][3];", "(decl [int] (array (array a 3) 2))"),
        ("int *p;", "(decl [int] (ptr p))"),
        ("char **argv;", "(decl [char] (ptr (ptr argv)))"),
        ("int * const p;", "(decl [int] (ptr const p))"),
        ("int *a[4];", "(decl [int] (array (ptr a) 4))"),
        ("int (*a)[4];", "(decl [int] (ptr (array a 4)))"),
        ("int (*fp)(int, char *);", "(decl [int] (ptr (fn fp ((type [int]) (type [char] (ptr _))))))"),
        ("int f(void);", "(decl [int] (fn f ((type [void]))))"),
        ("int f();", "(decl [int] (fn f ()))"),
        ("int printf(const char *, ...);", "(decl [int] (fn printf ((type [const char] (ptr _)) ...)))"),
        ("int f(int a, char *b);", "(decl [int] (fn f ((type [int] a) (type [char] (ptr b)))))"),
        ("void (*signal(int, void (*)(int)))(int);", "(decl [void] (fn (ptr (fn signal ((type [int])))) ((type [int]) (type [void] (ptr (fn _ ((type [int]))))))))"),
        ("int (x);", "(decl [int] x)"),
        ("struct foo *p;", "(decl [struct foo] (ptr p))"),
        ("struct vmlinux`task_struct *t;", "(decl [struct vmlinux`task_struct] (ptr t))"),
        ("int;", "(decl [int])"),
    ];
    for (src, want) in cases {
        assert_eq!(ok(src), want, "for {}", src);
    }
}

#[test]
fn inline_and_typedef() {
    assert_eq!(ok("inline int X = 3;"), "(decl [inline int] X = 3)");
    assert_eq!(
        ok("inline string S = \"a\" ;"),
        "(decl [inline string] S = \"a\")"
    );
    assert_eq!(
        ok("inline int Y = X * 2 + 1;"),
        "(decl [inline int] Y = (+ (* X 2) 1))"
    );
    assert_eq!(
        ok("typedef unsigned long my_t;\nmy_t v;\nBEGIN { v = (my_t)1; sizeof(my_t); }"),
        "(decl [typedef unsigned long] my_t)\n(decl [my_t] v)\n\
         (clause (\"BEGIN\") (= v (cast (type [my_t]) 1)) (sizeof (type [my_t])))"
    );
    assert_eq!(
        ok("typedef struct foo { int a; } foo_t, *foo_p;\nfoo_p p;"),
        "(decl [typedef struct foo { [int] a; }] foo_t (ptr foo_p))\n(decl [foo_p] p)"
    );
    // Before its typedef, a name is an ordinary identifier.
    assert_eq!(
        ok("BEGIN { (my_t) - 1; }\ntypedef int my_t;"),
        "(clause (\"BEGIN\") (- my_t 1))\n(decl [typedef int] my_t)"
    );
}

#[test]
fn structs_unions_enums() {
    let cases = [
        (
            "struct s { int a; int b : 3; };",
            "(decl [struct s { [int] a; [int] b : 3; }])",
        ),
        (
            "struct s { int a, *b; char c[8]; };",
            "(decl [struct s { [int] a; [int] (ptr b); [char] (array c 8); }])",
        ),
        (
            "struct s { struct t { int x; } in; unsigned : 4; };",
            "(decl [struct s { [struct t { [int] x; }] in; [unsigned] _ : 4; }])",
        ),
        (
            "union u { int i; char c[4]; };",
            "(decl [union u { [int] i; [char] (array c 4); }])",
        ),
        ("struct s;", "(decl [struct s])"),
        (
            "struct { int a; } anon;",
            "(decl [struct { [int] a; }] anon)",
        ),
        (
            "enum e { A, B = 3, C };",
            "(decl [enum e { A, B = 3, C, }])",
        ),
        ("enum e { A, B, };", "(decl [enum e { A, B, }])"),
        (
            "enum { X = 1 << 2 } v;",
            "(decl [enum { X = (<< 1 2), }] v)",
        ),
        ("enum e x;", "(decl [enum e] x)"),
    ];
    for (src, want) in cases {
        assert_eq!(ok(src), want, "for {}", src);
    }
}

#[test]
fn translators() {
    let o = Opts {
        types: vec!["psinfo_t", "pid_t"],
        ..Opts::default()
    };
    assert_eq!(
        ok_with(
            "translator psinfo_t < struct task_struct *T > {\n\
             pr_pid = T->pid;\n pr_fname = stringof(T->comm);\n};",
            &o
        ),
        "(translator (type [psinfo_t]) (type [struct task_struct] (ptr _)) T \
         (pr_pid (-> T pid)) (pr_fname (stringof (-> T comm))))"
    );
    assert_eq!(
        ok("translator struct out < int x > { a = x; };"),
        "(translator (type [struct out]) (type [int]) x (a x))"
    );
    assert_eq!(
        ok("translator struct out < int x > { };"),
        "(translator (type [struct out]) (type [int]) x)"
    );
}

#[test]
fn providers() {
    assert_eq!(
        ok("provider myprov {\n probe start(int, char *);\n probe done__now();\n probe x(int a) : (int);\n};"),
        "(provider myprov (probe start (type [int]) (type [char] (ptr _))) (probe done__now) (probe x (type [int] a)))"
    );
    assert_eq!(ok("provider p { };"), "(provider p)");
}

#[test]
fn declarations_mixed_with_clauses() {
    let src = "int x;\nBEGIN { x = 1; }\nstruct s { int a; };\nEND\n{ trace(x); }\nself string y;";
    assert_eq!(
        ok(src),
        "(decl [int] x)\n(clause (\"BEGIN\") (= x 1))\n(decl [struct s { [int] a; }])\n\
         (clause (\"END\") (call trace x))\n(decl [self string] y)"
    );
    // A type name followed by a colon is a probe description, not a declaration.
    let o = Opts {
        types: vec!["proc"],
        ..Opts::default()
    };
    assert_eq!(ok_with("proc:::exec {}", &o), "(clause (\"proc:::exec\"))");
    assert_eq!(ok_with("proc {}", &o), "(clause (\"proc\"))");
}
