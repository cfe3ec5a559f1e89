//! Struct and union values in every storage class, run in BEGIN: member stores
//! (`=`, compound assignments, `++`/`--`), nested members and array members, in
//! globals, clause-locals (`this->`), thread-locals (`self->`) and
//! associative-array elements (created zero-filled by a member store; a missing
//! element reads as zeroes).

mod common;

use common::kernel::*;
use common::*;
use dtrace_codegen::Attach;

/// Run `src` (BEGIN and END) and return each `trace()`d `int` of the first record.
fn traced_ints(src: &str) -> Option<Vec<i32>> {
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
    let r = recs.first().expect("a record");
    let actions = &cp.desc.epids[&1].actions;
    Some(
        actions
            .iter()
            .map(|a| i32_at(r, a.fields[0].offset as usize))
            .collect(),
    )
}

const TYPES: &str = "
    struct in { int v; int arr[4]; };
    struct s { long a; struct in in; char c; short h; };
    union u { int i; char b[4]; };
";

#[test]
fn member_stores_in_globals_and_clause_locals() {
    let src = format!(
        "{TYPES} struct s g; union u un;
        BEGIN {{
            g.a = 1; g.a += 10; g.a++; g.in.v = 2; g.in.arr[2] = 5; g.in.arr[2] *= 3;
            g.h = 70000; un.i = 0x01020304;
            this->x = g; this->x.in.v--; ++this->x.c; this->x.in.arr[0] |= 6;
            trace((int)g.a); trace(g.in.v); trace(g.in.arr[2]); trace(g.in.arr[1]);
            trace((int)g.h); trace((int)un.b[0]);
            trace((int)this->x.a); trace(this->x.in.v); trace((int)this->x.c);
            trace(this->x.in.arr[0]); trace(this->x.in.arr[2]);
        }}"
    );
    let Some(v) = traced_ints(&src) else {
        return;
    };
    // 70000 in a short is 70000 - 65536; the union's first byte is the int's
    // low byte on little-endian x86-64.
    assert_eq!(v, [12, 2, 15, 0, 4464, 4, 12, 1, 1, 6, 15]);
}

#[test]
fn member_stores_in_thread_locals() {
    let src = format!(
        "{TYPES} self struct s t;
        BEGIN {{
            trace(self->t.in.v);
            self->t.a = 7; self->t.a <<= 2; self->t.in.arr[3] = -1; self->t.in.arr[3]--;
            self->t.c -= 3; self->t.h = self->t.c * 2;
            trace((int)self->t.a); trace(self->t.in.arr[3]); trace(self->t.in.v);
            trace((int)self->t.c); trace((int)self->t.h);
            self->w = self->t; self->w.in.v = 9;
            trace((int)self->w.a); trace(self->w.in.v); trace(self->t.in.v);
        }}"
    );
    let Some(v) = traced_ints(&src) else {
        return;
    };
    assert_eq!(v, [0, 28, -2, 0, -3, -6, 28, 9, 0]);
}

#[test]
fn member_stores_in_associative_arrays() {
    let src = format!(
        "{TYPES} struct s i[string, int];
        BEGIN {{
            trace(i[\"k\", 1].in.v);
            i[\"k\", 1].a = 3; i[\"k\", 1].a++; i[\"k\", 2].in.arr[1] += 9;
            i[\"k\", 2].c = 'x'; i[\"k\", 2].in.arr[1]--;
            trace((int)i[\"k\", 1].a); trace(i[\"k\", 2].in.arr[1]); trace((int)i[\"k\", 2].c);
            trace((int)i[\"k\", 3].a); trace(i[\"k\", 1].in.arr[1]);
            i[\"z\", 0] = i[\"k\", 2]; i[\"z\", 0].in.v = 4;
            trace(i[\"z\", 0].in.arr[1]); trace(i[\"z\", 0].in.v); trace(i[\"k\", 2].in.v);
        }}"
    );
    let Some(v) = traced_ints(&src) else {
        return;
    };
    assert_eq!(v, [0, 4, 8, 'x' as i32, 0, 0, 8, 4, 0]);
}

#[test]
fn struct_members_read_back_across_clauses() {
    // The Guide's callinfo shape (its uint64_t and size_t spelled as the LP64
    // types they name): values written in one clause, read in the next.
    let src = "
        struct callinfo { unsigned long ts; unsigned long elapsed; unsigned long calls;
            unsigned long maxbytes; };
        struct callinfo i[string];
        BEGIN { i[probename].ts = 100; i[probename].calls++; i[probename].calls++;
                i[probename].maxbytes = 5 > i[probename].maxbytes ? 5 : i[probename].maxbytes;
                i[probename].maxbytes = 3 > i[probename].maxbytes ? 3 : i[probename].maxbytes; }
        BEGIN /i[probename].ts != 0/ { i[probename].elapsed += 250 - i[probename].ts;
                trace((int)i[\"BEGIN\"].calls); trace((int)i[\"BEGIN\"].maxbytes);
                trace((int)i[\"BEGIN\"].elapsed); trace((int)i[\"END\"].calls); }";
    let Some(sys) = gate() else {
        return;
    };
    let cp = compile_src(src);
    let mut s = load(&sys, &cp).unwrap_or_else(|e| panic!("{e}"));
    s.run(Attach::Begin);
    let recs = s.records();
    let r = recs.first().expect("a record");
    let a = &cp.desc.epids[&2].actions;
    let got: Vec<i32> = a
        .iter()
        .map(|x| i32_at(r, x.fields[0].offset as usize))
        .collect();
    assert_eq!(got, [2, 5, 150, 0]);
}

#[test]
fn string_members_store_by_value_bounded_by_strsize() {
    // strsize 13: string members take 13 unaligned bytes; longer strings are cut
    // to 12 characters and a NUL, and a store never reaches the next member.
    let src = r#"
        struct fi { int fd; string name; char c; string path; long n; };
        struct fi g; struct fi a[int];
        BEGIN {
            g.c = 'q'; g.n = 77; g.name = "hello"; g.path = "a path longer than strsize";
            a[1].name = g.name; a[1].name = "xy"; self->t = g; self->t.path = "thread";
            this->x = g; this->x.name = "clause";
            trace(g.name); trace(g.path); trace(a[1].name); trace(a[2].name);
            trace(self->t.path); trace(self->t.name); trace(this->x.name);
            trace((int)g.c); trace((int)g.n); trace(sizeof (struct fi));
        }"#;
    let Some(sys) = gate() else {
        return;
    };
    let opts = dtrace_codegen::CompileOptions {
        strsize: 13,
        ..Default::default()
    };
    let cp = compile_src_opts(src, &opts);
    let mut s = load(&sys, &cp).unwrap_or_else(|e| panic!("{e}"));
    s.run(Attach::Begin);
    let recs = s.records();
    let r = recs.first().expect("a record");
    let a = &cp.desc.epids[&1].actions;
    let strs: Vec<String> = a[..7]
        .iter()
        .map(|x| {
            str_at(
                r,
                x.fields[0].offset as usize,
                x.fields[0].ty.size() as usize,
            )
        })
        .collect();
    assert_eq!(
        strs,
        [
            "hello",
            "a path longe",
            "xy",
            "",
            "thread",
            "hello",
            "clause"
        ]
    );
    let ints: Vec<i32> = a[7..]
        .iter()
        .map(|x| i32_at(r, x.fields[0].offset as usize))
        .collect();
    assert_eq!(ints, ['q' as i32, 77, 40]);
}
