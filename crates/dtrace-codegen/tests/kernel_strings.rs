//! The string subroutines run in the kernel (BEGIN by `BPF_PROG_TEST_RUN`): their
//! results, their sharing of one subprogram per kind, and programs that use many
//! of them at once or a large `strsize` still pass the verifier.

mod common;

use common::kernel::*;
use common::*;
use dtrace_codegen::Attach;
use dtrace_sema::CompileOptions;

fn begin_strings(src: &str, opts: &CompileOptions) -> Option<Vec<String>> {
    let sys = gate()?;
    let cp = compile_src_opts(src, opts);
    let mut s = match load(&sys, &cp) {
        Ok(s) => s,
        Err(e) => panic!("load failed for {src}:\n{e}"),
    };
    s.run(Attach::Begin);
    let recs = s.records();
    let a = &cp.desc.epids[&1].actions;
    Some(
        a.iter()
            .map(|x| {
                let f = &x.fields[0];
                str_at(&recs[0], f.offset as usize, f.ty.size() as usize)
            })
            .collect(),
    )
}

#[test]
fn results_of_every_family() {
    let src = r#"BEGIN { s = "/usr/lib/../lib64//libc.so";
        trace(strjoin(s, "!")); trace(substr(s, -7, 4)); trace(toupper(basename(s)));
        trace(dirname(s)); trace(cleanpath(s)); trace(strchr(s, 'l')); trace(strrchr(s, '/'));
        trace(strstr(s, "lib64")); trace(strtok(s, "/")); trace(strtok(NULL, "/"));
        trace(lltostr(strlen(s) * -1)); trace(lltostr(strtoll("0x7f", 16), 2));
        trace(lltostr(index(s, "lib", 6))); trace(lltostr(rindex(s, "lib"))); }"#;
    let Some(got) = begin_strings(src, &CompileOptions::default()) else {
        return;
    };
    let want = [
        "/usr/lib/../lib64//libc.so!",
        "libc",
        "LIBC.SO",
        "/usr/lib/../lib64",
        "/usr/lib64/libc.so",
        "lib/../lib64//libc.so",
        "/libc.so",
        "lib64//libc.so",
        "usr",
        "lib",
        "-26",
        "1111111",
        "12",
        "19",
    ];
    assert_eq!(got, want);
}

#[test]
fn one_subprogram_per_kind() {
    let cp = compile_src(
        r#"BEGIN { trace(strlen("a")); trace(strlen("b")); trace(strlen(execname)); }"#,
    );
    let p = prog_for(&cp, Attach::Begin).expect("BEGIN program");
    let calls = dtrace_bpf::subprog_starts(&p.insns);
    // Trampoline, clause, ERROR subprogram, and strlen once per string capacity
    // (the literals share one, execname has its own).
    assert_eq!(calls.len(), 5, "{}", dtrace_codegen::disassemble(&cp));
}

#[test]
fn large_strsize_still_verifies() {
    let opts = CompileOptions {
        strsize: 4096,
        ..CompileOptions::default()
    };
    let src = r#"BEGIN { s = "a/b/./c"; t = strjoin(s, "/../d");
        trace(cleanpath(t)); trace(strstr(t, "../d")); trace(lltostr(rindex(t, "/")));
        trace(substr(t, 2)); trace(strtok(t, "/")); trace(lltostr(strtoll("  -0x2a", 16)));
        trace(strrchr(t, 'c')); }"#;
    let Some(got) = begin_strings(src, &opts) else {
        return;
    };
    assert_eq!(
        got,
        ["a/b/d", "../d", "10", "b/./c/../d", "a", "-42", "c/../d"]
    );
}
