//! More BEGIN-run programs: conditionals with record flags, string ternaries,
//! string-keyed arrays and aggregations, thread/clause locals, deep expressions.

mod common;

use common::kernel::*;
use common::*;
use dtrace_codegen::{Attach, RECORD_FLAGS_VALID};

fn run(src: &str) -> Option<(dtrace_codegen::CompiledProgram, Session, Vec<Vec<u8>>)> {
    let sys = gate()?;
    let cp = compile_src(src);
    let mut s = match load(&sys, &cp) {
        Ok(s) => s,
        Err(e) => panic!(
            "load failed for {src}:\n{e}\n{}",
            dtrace_codegen::disassemble(&cp)
        ),
    };
    s.run(Attach::Begin);
    s.run(Attach::End);
    let recs = s.records();
    Some((cp, s, recs))
}

#[test]
fn conditional_actions_set_flags() {
    let src = r#"BEGIN { x = 2; if (x > 1) { trace(1); } else { trace(2); } trace(3); }"#;
    let Some((cp, _s, recs)) = run(src) else {
        return;
    };
    let flags = u32_at(&recs[0], 12);
    assert_eq!(flags, RECORD_FLAGS_VALID | 0b101);
    let a = &cp.desc.epids[&1].actions;
    assert_eq!(i32_at(&recs[0], a[0].fields[0].offset as usize), 1);
    assert_eq!(i32_at(&recs[0], a[1].fields[0].offset as usize), 0);
}

#[test]
fn string_ternary_keys_and_locals() {
    let src = r#"
        BEGIN { this->n = 3; s = this->n > 2 ? "a much longer string than eight" : "b"; trace(s);
                a[execname, 7] = 1; a[execname, 7]++; trace(a[execname, 7]);
                @k[execname, probename] = sum(this->n); self->x = 5; self->x = 0; trace(self->x);
                b["k"] = "v"; trace(b["k"]); trace(b["missing"] == NULL); }
        BEGIN { trace(this->n); }
        END { trace(probename); printa(@k); }"#;
    let Some((cp, _s, recs)) = run(src) else {
        return;
    };
    assert_eq!(recs.len(), 3);
    let a = &cp.desc.epids[&1].actions;
    let r = &recs[0];
    let f = &a[0].fields[0];
    assert_eq!(
        str_at(r, f.offset as usize, f.ty.size() as usize),
        "a much longer string than eight"
    );
    assert_eq!(i32_at(r, a[1].fields[0].offset as usize), 2);
    assert_eq!(i32_at(r, a[2].fields[0].offset as usize), 0);
    let f = &a[3].fields[0];
    assert_eq!(str_at(r, f.offset as usize, f.ty.size() as usize), "v");
    // An element never assigned is the NULL string.
    assert_eq!(i32_at(r, a[4].fields[0].offset as usize), 1);
    let a2 = &cp.desc.epids[&2].actions;
    assert_eq!(i32_at(&recs[1], a2[0].fields[0].offset as usize), 3);
    let a3 = &cp.desc.epids[&3].actions;
    assert_eq!(str_at(&recs[2], a3[0].fields[0].offset as usize, 8), "END");
}

#[test]
fn deep_expressions_spill() {
    // More live temporaries than registers and stack slots in a few places.
    let mut e = String::from("1");
    for i in 2..25 {
        e = format!("({i} + x * {e})");
    }
    let src = format!(
        "BEGIN {{ x = 1; trace({e}); y = x + (x + (x + (x + (x + (x + (x + x)))))); trace(y); }}"
    );
    let Some((cp, _s, recs)) = run(&src) else {
        return;
    };
    let a = &cp.desc.epids[&1].actions;
    let want: i64 = (1..25).sum();
    assert_eq!(
        i32_at(&recs[0], a[0].fields[0].offset as usize) as i64,
        want
    );
    assert_eq!(i32_at(&recs[0], a[1].fields[0].offset as usize), 8);
}

#[test]
fn builtins_load_and_make_sense() {
    let src = r#"BEGIN { trace(timestamp > 0); trace(walltimestamp > 0); trace(uid); trace(gid);
        trace(cpu >= 0); trace(id); trace(epid); trace(tid); trace(vtimestamp > 0); trace(errno); }"#;
    let Some((cp, _s, recs)) = run(src) else {
        return;
    };
    let a = &cp.desc.epids[&1].actions;
    let v = |i: usize| i32_at(&recs[0], a[i].fields[0].offset as usize);
    assert_eq!(v(0), 1);
    // SAFETY: getuid/getgid have no preconditions.
    let (uid, gid) = unsafe { (libc::getuid(), libc::getgid()) };
    assert_eq!(v(2) as u32, uid);
    assert_eq!(v(3) as u32, gid);
    assert_eq!(v(4), 1);
    assert_eq!(v(5), 1);
    assert_eq!(v(6), 1);
    // SAFETY: gettid has no preconditions.
    assert_eq!(v(7), unsafe { libc::gettid() });
    assert_eq!(v(9), 0);
}
