//! The parser never panics, never loops, and its error spans stay in bounds:
//! every prefix of sample programs, random bytes and random token soup.
mod common;
use common::*;

const SAMPLES: &[&str] = &[
    "#!/usr/sbin/dtrace -s\n#pragma D option quiet\nBEGIN { printf(\"hello\\n\"); exit(0); }\n",
    "syscall::read:entry,syscall::write:entry /pid == $target && arg0 > 2/ { @[probefunc, execname] = count(); self->ts = timestamp; }\n\
     syscall::read:return /self->ts/ { @q = quantize(timestamp - self->ts); self->ts = 0; }\n",
    "tick-1sec { printa(\"%s %@d\\n\", @c); trunc(@c); } profile:::profile-97 /arg0/ { @k[stack()] = count(); }",
    "typedef unsigned long ulong_t;\nstruct s { int a; int b : 3; union { char c[4]; } u; };\nenum e { A, B = 3, C };\n\
     inline int MAX = 10 * sizeof(struct s);\nself int depth[int, string];\nint (*fp)(int, char *);\n",
    "translator psinfo_t < struct task_struct *T > { pr_pid = T->pid; pr_fname = stringof(T->comm); };\n\
     provider p { probe a(int, char *); probe b() : (int); };\n",
    "BEGIN { x = a ? b : c ? d : e; y = (int)x + sizeof(int) * -~!z++; if (x) { y = 1; } else if (z) y = 2; else { ; } }",
    "pid$target:libc.so.6:malloc:entry /x / 2 > 1/ { this->p = (char *)arg0; trace(xlate<psinfo_t *>(curthread)->pr_pid); trace(offsetof(struct s, a)); }",
    "fbt:vmlinux:do_sys_open*:entry { trace(vmlinux`jiffies); trace(`max_pfn); printf(\"%s\\t%c\\x41\\101\", 'a', '\\n'); }",
    "/* comment */ // line comment\nBEGIN\n/x/\n{\n\tx = 0x1fULL + 0777 + 'ab' + $1 + $$1;\n}\n",
];

fn opts() -> Opts {
    Opts {
        args: vec!["t.d".into(), "42".into()],
        types: vec!["pid_t", "psinfo_t"],
        ..Opts::default()
    }
}

fn check_no_panic(src: &str) {
    let (map, r) = parse_with(src, &opts());
    if let Err(d) = r {
        let s = d.span.expect("parser errors have spans");
        assert!(
            s.lo <= s.hi && s.hi as usize <= src.len(),
            "span {:?} out of bounds for {:?}",
            s,
            src
        );
        // Both renderers must cope with any span.
        let _ = dtrace_syntax::render_rich(&map, &d);
        let _ = dtrace_syntax::render_dtrace(&map, &d, Default::default());
    }
}

#[test]
fn samples_parse() {
    for s in SAMPLES {
        let (map, r) = parse_with(s, &opts());
        if let Err(d) = r {
            panic!("{}", dtrace_syntax::render_rich(&map, &d));
        }
    }
}

#[test]
fn every_prefix_and_suffix() {
    for s in SAMPLES {
        for (i, _) in s.char_indices() {
            check_no_panic(&s[..i]);
            check_no_panic(&s[i..]);
        }
    }
}

/// A small deterministic xorshift generator (no dependencies).
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}

#[test]
fn random_bytes() {
    let mut rng = Rng(0x9e3779b97f4a7c15);
    let alphabet = b"abcxyz_019$@`'\"\\/*{}()[];:,.?!~^&|<>=+-%# \n\t\x00\xff";
    for _ in 0..3000 {
        let len = rng.below(64);
        let bytes: Vec<u8> = (0..len)
            .map(|_| alphabet[rng.below(alphabet.len())])
            .collect();
        let src = String::from_utf8_lossy(&bytes).into_owned();
        check_no_panic(&src);
    }
}

#[test]
fn random_token_soup() {
    let mut rng = Rng(12345);
    let toks = [
        "BEGIN",
        "syscall::read:entry",
        "tick-1sec",
        "{",
        "}",
        "(",
        ")",
        "[",
        "]",
        "/",
        ";",
        ",",
        "x",
        "self",
        "this",
        "->",
        ".",
        "@a",
        "@",
        "=",
        "+=",
        "?",
        ":",
        "*",
        "&",
        "-",
        "++",
        "sizeof",
        "stringof",
        "offsetof",
        "xlate",
        "<",
        ">",
        "int",
        "char",
        "struct",
        "union",
        "enum",
        "typedef",
        "inline",
        "translator",
        "provider",
        "probe",
        "if",
        "else",
        "1",
        "0x10",
        "'a'",
        "\"s\"",
        "$1",
        "$$1",
        "$target",
        "#pragma D option q\n",
        "pid_t",
        "`x",
        "a`b",
        "\n",
        "/*c*/",
        "//c\n",
        "...",
        "&&",
        "||",
        "^^",
        "!",
    ];
    for _ in 0..5000 {
        let n = rng.below(40);
        let mut src = String::new();
        for _ in 0..n {
            src.push_str(toks[rng.below(toks.len())]);
            if rng.below(2) == 0 {
                src.push(' ');
            }
        }
        check_no_panic(&src);
    }
}

#[test]
fn pathological_inputs() {
    let big = [
        "(".repeat(100_000),
        ")".repeat(100_000),
        "{".repeat(100_000),
        format!("BEGIN {{ x = {}1; }}", "-".repeat(100_000)),
        format!("BEGIN {{ x = {}1; }}", "!".repeat(100_000)),
        format!("BEGIN {{ x = {}1; }}", "(int)".repeat(100_000)),
        format!("BEGIN {{ x = 1{}; }}", " + 1".repeat(100_000)),
        format!("BEGIN {{ x = a{}; }}", "[1]".repeat(100_000)),
        format!("BEGIN {{ x = a{}; }}", "->b".repeat(100_000)),
        format!("BEGIN {{ {} }}", "a = ".repeat(100_000)),
        format!("BEGIN {{ {} x; }}", "if (a) ".repeat(100_000)),
        format!("BEGIN {{ x = {}; }}", "a ? b : ".repeat(100_000)),
        format!("int {}x;", "*".repeat(100_000)),
        format!("int x{};", "[1]".repeat(100_000)),
        "struct { ".repeat(100_000),
        format!("BEGIN {{ {} }}", ";".repeat(100_000)),
        "BEGIN\n".repeat(10_000),
        format!("\"{}", "a".repeat(100_000)),
        format!("/*{}", "a".repeat(100_000)),
        // Deep trees built partly by loops and partly by recursion.
        format!(
            "BEGIN {{ x = {}1{}; }}",
            "((".repeat(900),
            ")+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1)".repeat(900)
        ),
        format!(
            "int {}x{};",
            "(*************************".repeat(900),
            ")".repeat(900)
        ),
        format!(
            "BEGIN {{ x = {}1{}; }}",
            "(int ********************)(".repeat(900),
            ")".repeat(900)
        ),
        format!(
            "BEGIN {{ x = {}1{}; }}",
            "a[1][1][1][1][1][1][1][1][1][1][1][1][1][".repeat(900),
            "]".repeat(900)
        ),
        format!(
            "BEGIN {{ x = {}1{}; }}",
            "f(1, g(2, ".repeat(900),
            "))".repeat(900)
        ),
        format!("int x[{}1{}];", "sizeof(int[".repeat(900), "])".repeat(900)),
    ];
    for src in &big {
        check_no_panic(src);
    }
}
