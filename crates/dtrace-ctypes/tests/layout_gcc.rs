//! Golden layout tests: our layout of D-declared structs/unions against what GCC gives
//! for the same C declarations (compiled and run at test time). Skipped without gcc.

use std::collections::HashMap;
use std::fmt::Write as _;
use std::process::Command;

use dtrace_ctypes::{layout_struct, Enumerator, LayoutError, TypeId, TypeKind, TypeTable};

/// `(C base type, member name, array dims, bitfield width)`.
type M = (&'static str, &'static str, &'static [u64], Option<u32>);

struct Case {
    keyword: &'static str,
    tag: &'static str,
    members: Vec<M>,
}

fn cases() -> Vec<Case> {
    let s = |tag, members| Case {
        keyword: "struct",
        tag,
        members,
    };
    let u = |tag, members| Case {
        keyword: "union",
        tag,
        members,
    };
    vec![
        s(
            "A",
            vec![
                ("char", "c", &[], None),
                ("int", "i", &[], None),
                ("long", "l", &[], None),
            ],
        ),
        u(
            "U",
            vec![
                ("char", "c", &[], None),
                ("int", "i", &[], None),
                ("long", "l", &[], None),
                ("char", "buf", &[13], None),
            ],
        ),
        s(
            "S2",
            vec![("char", "d", &[], None), ("short", "e", &[], None)],
        ),
        s(
            "B",
            vec![
                ("char", "a", &[], None),
                ("int", "b", &[], Some(3)),
                ("int", "c", &[], Some(5)),
                ("char", "d", &[], None),
                ("unsigned int", "e", &[], Some(30)),
                ("unsigned int", "f", &[], Some(4)),
            ],
        ),
        s(
            "C",
            vec![
                ("char", "a", &[], None),
                ("int", "", &[], Some(0)),
                ("char", "b", &[], None),
            ],
        ),
        s(
            "D",
            vec![
                ("char", "a", &[], None),
                ("long long", "b", &[], Some(20)),
                ("char", "c", &[], None),
                ("long long", "d", &[], Some(50)),
            ],
        ),
        s(
            "E",
            vec![
                ("short", "s", &[], None),
                ("char", "arr", &[3], None),
                ("struct A", "a", &[], None),
                ("union U", "u", &[], None),
                ("char", "tail", &[0], None),
            ],
        ),
        s(
            "F",
            vec![
                ("char", "a", &[], None),
                ("int", "", &[], Some(4)),
                ("char", "b", &[], None),
            ],
        ),
        s(
            "G",
            vec![
                ("unsigned char", "a", &[], Some(1)),
                ("unsigned char", "b", &[], Some(7)),
                ("unsigned char", "c", &[], Some(1)),
            ],
        ),
        s(
            "H",
            vec![
                ("int", "a", &[], Some(20)),
                ("int", "b", &[], Some(20)),
                ("int", "c", &[], Some(20)),
                ("long", "d", &[], Some(40)),
                ("long", "e", &[], Some(30)),
            ],
        ),
        s(
            "I",
            vec![
                ("char", "c", &[], None),
                ("struct S2", "inner", &[], None),
                ("int", "arr", &[2, 3], None),
                ("char", "z", &[], None),
            ],
        ),
        s(
            "J",
            vec![
                ("_Bool", "b", &[], Some(1)),
                ("char", "c", &[], None),
                ("_Bool", "d", &[], None),
            ],
        ),
        u(
            "K",
            vec![
                ("int", "a", &[], Some(3)),
                ("char", "b", &[], None),
                ("long", "c", &[], Some(40)),
            ],
        ),
        s(
            "L",
            vec![
                ("char", "c", &[], None),
                ("union U", "u", &[], None),
                ("short", "s", &[], Some(9)),
                ("short", "t", &[], Some(9)),
            ],
        ),
        s(
            "N",
            vec![
                ("void *", "p", &[], None),
                ("unsigned short", "us", &[], None),
                ("char", "c", &[], None),
            ],
        ),
        s(
            "P",
            vec![
                ("enum E1", "e", &[], None),
                ("char", "c", &[], None),
                ("enum E1", "f", &[], Some(3)),
                ("unsigned long long", "g", &[], Some(61)),
            ],
        ),
        s(
            "Q",
            vec![
                ("char", "a", &[], None),
                ("short", "b", &[], Some(1)),
                ("char", "", &[], Some(3)),
                ("int", "c", &[], Some(17)),
                ("long", "", &[], Some(0)),
                ("char", "d", &[], None),
            ],
        ),
        s("R", vec![("char", "c", &[], None)]),
        s(
            "T",
            vec![
                ("struct R", "r", &[3], None),
                ("struct I", "i", &[], None),
                ("struct B", "b", &[2], None),
            ],
        ),
    ]
}

fn base_type(t: &mut TypeTable, c: &str) -> TypeId {
    if c == "void *" {
        let v = t.lookup("void").unwrap();
        return t.pointer_to(v);
    }
    if let Some(tag) = c.strip_prefix("struct ") {
        return t.lookup_tag("struct", tag).unwrap();
    }
    if let Some(tag) = c.strip_prefix("union ") {
        return t.lookup_tag("union", tag).unwrap();
    }
    if let Some(tag) = c.strip_prefix("enum ") {
        return t.lookup_tag("enum", tag).unwrap();
    }
    t.lookup(c).unwrap_or_else(|| panic!("no type {c}"))
}

fn member_type(t: &mut TypeTable, m: &M) -> TypeId {
    let mut ty = base_type(t, m.0);
    for &d in m.2.iter().rev() {
        ty = t.add(TypeKind::Array { elem: ty, len: d });
    }
    ty
}

fn c_source(cases: &[Case]) -> String {
    let mut c = String::from(
        "#include <stdio.h>\n#include <stddef.h>\n#include <string.h>\n\
         enum E1 { E1_A, E1_B = 5 };\n\
         static void bit(const char *n, const void *p, size_t sz) {\n\
           const unsigned char *b = p;\n\
           for (size_t i = 0; i < sz * 8; i++) if (b[i / 8] >> (i % 8) & 1) { printf(\"%s %zu\\n\", n, i); return; }\n\
           printf(\"%s none\\n\", n);\n}\n",
    );
    for case in cases {
        let _ = write!(c, "{} {} {{", case.keyword, case.tag);
        for (ty, name, dims, w) in &case.members {
            let _ = write!(c, " {ty} {name}");
            for d in dims.iter() {
                if *d == 0 {
                    c.push_str("[]");
                } else {
                    let _ = write!(c, "[{d}]");
                }
            }
            if let Some(w) = w {
                let _ = write!(c, " : {w}");
            }
            c.push(';');
        }
        c.push_str(" };\n");
    }
    c.push_str("int main(void) {\n");
    for case in cases {
        let (k, tag) = (case.keyword, case.tag);
        let _ = writeln!(
            c,
            "  printf(\"{tag} %zu %zu\\n\", sizeof({k} {tag}), _Alignof({k} {tag}));"
        );
        for (_, name, _, w) in &case.members {
            if name.is_empty() {
                continue;
            }
            if w.is_some() {
                let _ = writeln!(
                    c,
                    "  {{ {k} {tag} x; memset(&x, 0, sizeof x); x.{name} = ~0ull; bit(\"{tag}.{name}\", &x, sizeof x); }}"
                );
            } else {
                let _ = writeln!(
                    c,
                    "  printf(\"{tag}.{name} %zu\\n\", offsetof({k} {tag}, {name}) * 8);"
                );
            }
        }
    }
    c.push_str("  return 0;\n}\n");
    c
}

fn gcc_results(src: &str) -> Option<HashMap<String, String>> {
    let dir = std::env::temp_dir().join(format!("dtrace-ctypes-layout-{}", std::process::id()));
    std::fs::create_dir_all(&dir).ok()?;
    let c = dir.join("t.c");
    let exe = dir.join("t");
    std::fs::write(&c, src).ok()?;
    let out = match Command::new("gcc")
        .arg("-w")
        .arg("-o")
        .arg(&exe)
        .arg(&c)
        .output()
    {
        Ok(o) => o,
        Err(e) => {
            eprintln!("skipping: no gcc ({e})");
            return None;
        }
    };
    assert!(
        out.status.success(),
        "gcc failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let run = Command::new(&exe).output().expect("run layout program");
    let _ = std::fs::remove_dir_all(&dir);
    let text = String::from_utf8(run.stdout).unwrap();
    Some(
        text.lines()
            .filter_map(|l| l.split_once(' '))
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect(),
    )
}

#[test]
fn layout_matches_gcc() {
    if !cfg!(all(target_arch = "x86_64", target_os = "linux")) {
        return;
    }
    let cases = cases();
    let Some(gcc) = gcc_results(&c_source(&cases)) else {
        return;
    };
    let mut t = TypeTable::with_builtins();
    let e1 = t.add(TypeKind::Enum {
        name: Some("E1".into()),
        size: 4,
        values: vec![
            Enumerator {
                name: "E1_A".into(),
                value: 0,
            },
            Enumerator {
                name: "E1_B".into(),
                value: 5,
            },
        ],
    });
    t.bind_tag("enum", "E1", e1);
    assert_eq!(t.lookup_constant("E1_B"), Some((e1, 5)));
    let mut failures = Vec::new();
    for case in &cases {
        let members: Vec<(&str, TypeId, Option<u32>)> = case
            .members
            .iter()
            .map(|m| (m.1, member_type(&mut t, m), m.3))
            .collect();
        let id = if case.keyword == "struct" {
            t.define_struct(Some(case.tag), &members).unwrap()
        } else {
            t.define_union(Some(case.tag), &members).unwrap()
        };
        let ours = format!("{} {}", t.size_of(id, 0), t.align_of(id));
        if gcc[case.tag] != ours {
            failures.push(format!("{}: gcc {} ours {}", case.tag, gcc[case.tag], ours));
        }
        for m in case.members.iter().filter(|m| !m.1.is_empty()) {
            let key = format!("{}.{}", case.tag, m.1);
            let (mem, _) = t.member(id, m.1).unwrap();
            if gcc[&key] != mem.bit_offset.to_string() {
                failures.push(format!("{key}: gcc {} ours {}", gcc[&key], mem.bit_offset));
            }
            if let Some(w) = m.3 {
                assert_eq!(mem.bit_size, w);
            }
        }
    }
    assert!(
        failures.is_empty(),
        "layout differs from gcc:\n{}",
        failures.join("\n")
    );
}

#[test]
fn layout_errors() {
    let mut t = TypeTable::with_builtins();
    let int = t.lookup("int").unwrap();
    let void = t.lookup("void").unwrap();
    let string = t.lookup("string").unwrap();
    let fwd = t.add(TypeKind::Forward {
        name: "later".into(),
        is_union: false,
    });
    t.bind_tag("struct", "later", fwd);
    let p = t.pointer_to(int);
    let err = |t: &TypeTable, m: &[(&str, TypeId, Option<u32>)]| layout_struct(t, m).unwrap_err();
    assert!(matches!(
        err(&t, &[("v", void, None)]),
        LayoutError::Incomplete { .. }
    ));
    assert!(matches!(
        err(&t, &[("s", string, None)]),
        LayoutError::Incomplete { .. }
    ));
    assert!(matches!(
        err(&t, &[("f", fwd, None)]),
        LayoutError::Incomplete { .. }
    ));
    assert!(matches!(
        err(&t, &[("b", int, Some(33))]),
        LayoutError::BitfieldWidth { .. }
    ));
    assert!(matches!(
        err(&t, &[("b", int, Some(0))]),
        LayoutError::NamedZeroWidth { .. }
    ));
    assert!(matches!(
        err(&t, &[("b", p, Some(3))]),
        LayoutError::BitfieldType { .. }
    ));
    assert!(matches!(
        err(&t, &[("a", int, None), ("a", int, None)]),
        LayoutError::DuplicateMember { .. }
    ));
    // Completing a forward declaration keeps its id (pointers to it stay valid).
    let pf = t.pointer_to(fwd);
    let done = t
        .define_struct(Some("later"), &[("x", int, None), ("next", pf, None)])
        .unwrap();
    assert_eq!(done, fwd);
    assert_eq!(t.size_of(done, 0), 16);
    assert!(matches!(
        t.define_struct(Some("later"), &[("x", int, None)]),
        Err(LayoutError::Redefined { .. })
    ));
    // Anonymous struct member: its members are reachable through member().
    let inner = t
        .define_struct(None, &[("a", int, None), ("b", int, None)])
        .unwrap();
    let outer = t
        .define_struct(Some("outer"), &[("c", int, None), ("", inner, None)])
        .unwrap();
    assert_eq!(t.member(outer, "b").unwrap().0.bit_offset, 64);
}
