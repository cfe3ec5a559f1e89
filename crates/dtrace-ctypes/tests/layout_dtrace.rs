//! Layout of D-declared structs and unions: DTrace's rules (its type library's),
//! which differ from a C compiler's. Each case is worked out by hand from the rules
//! in `dtrace_ctypes::layout`: a member starts at the first byte after the previous
//! member's bits, rounded up to its alignment; a bit-field is an integer of its width
//! rounded up to 1, 2, 4 or 8 bytes; no tail padding; a struct aligns as its first
//! member, a union as its most aligned one.

use dtrace_ctypes::{
    layout_struct, BitField, Enumerator, LayoutError, TypeId, TypeKind, TypeTable,
};

/// `(member name, type, bit-field width)`.
type M<'a> = (&'a str, TypeId, Option<u32>);

fn t() -> TypeTable {
    TypeTable::with_builtins()
}

fn ty(t: &TypeTable, name: &str) -> TypeId {
    t.lookup(name).unwrap_or_else(|| panic!("no type {name}"))
}

/// `(size, alignment, byte offsets of the members)` of a struct.
fn st(t: &mut TypeTable, ms: &[M]) -> (u64, u64, Vec<u64>) {
    let id = t.define_struct(None, ms).expect("lays out");
    let offs = ms
        .iter()
        .filter(|m| !m.0.is_empty())
        .map(|m| t.member(id, m.0).expect("member").0.bit_offset / 8)
        .collect();
    (t.size_of(id, 0), t.align_of(id), offs)
}

#[test]
fn members_follow_the_previous_member_without_tail_padding() {
    let mut t = t();
    let (c, i, l, s) = (
        ty(&t, "char"),
        ty(&t, "int"),
        ty(&t, "long"),
        ty(&t, "short"),
    );
    // A struct aligns as its first member: char.
    let a = [("c", c, None), ("i", i, None), ("l", l, None)];
    assert_eq!(st(&mut t, &a), (16, 1, vec![0, 4, 8]));
    // No padding after the last member: 16 + 2.
    let b = [("u", i, None), ("v", l, None), ("w", s, None)];
    assert_eq!(st(&mut t, &b), (18, 4, vec![0, 8, 16]));
    // A nested struct aligns as its first member (char), so it follows at once.
    let inner = t.define_struct(Some("inner"), &a).unwrap();
    assert_eq!(
        st(&mut t, &[("s", s, None), ("a", inner, None)]),
        (18, 2, vec![0, 2])
    );
    // Arrays: aligned as their element, sized without padding.
    let arr = t.add(TypeKind::Array { elem: i, len: 3 });
    let arr2 = t.add(TypeKind::Array { elem: arr, len: 2 });
    let m = [("c", c, None), ("arr", arr2, None), ("z", c, None)];
    assert_eq!(st(&mut t, &m), (29, 1, vec![0, 4, 28]));
    let void = ty(&t, "void");
    let p = t.pointer_to(void);
    let us = ty(&t, "unsigned short");
    assert_eq!(
        st(&mut t, &[("us", us, None), ("p", p, None)]),
        (16, 2, vec![0, 8])
    );
}

#[test]
fn bitfields_take_bytes_of_their_own() {
    let mut t = t();
    let (c, i, l, ll) = (
        ty(&t, "char"),
        ty(&t, "int"),
        ty(&t, "long"),
        ty(&t, "long long"),
    );
    let one = [("a", i, Some(1))];
    assert_eq!(st(&mut t, &one), (1, 1, vec![0]));
    let two = [("a", i, Some(1)), ("b", i, Some(3))];
    assert_eq!(st(&mut t, &two), (2, 1, vec![0, 1]));
    // 20 bits take 4 bytes; 3 bits fit in the next byte (3); 12 bits take 2
    // bytes aligned to 2, after bit 27: byte 4.
    let m = [("a", i, Some(20)), ("b", i, Some(3)), ("c", i, Some(12))];
    assert_eq!(st(&mut t, &m), (6, 4, vec![0, 3, 4]));
    let m = [("c", l, Some(32)), ("d", ll, Some(9)), ("e", i, Some(1))];
    assert_eq!(st(&mut t, &m), (7, 4, vec![0, 4, 6]));
    let m = [("a", i, Some(30)), ("b", i, Some(30)), ("c", i, Some(32))];
    assert_eq!(st(&mut t, &m), (12, 4, vec![0, 4, 8]));
    // A zero-width bit-field is ignored; an unnamed one takes its bytes.
    let m = [("a", c, None), ("", i, Some(0)), ("b", c, None)];
    assert_eq!(st(&mut t, &m), (2, 1, vec![0, 1]));
    let m = [("a", c, None), ("", i, Some(4)), ("b", c, None)];
    assert_eq!(st(&mut t, &m), (3, 1, vec![0, 2]));
    // _Bool has 8 bits.
    let b = ty(&t, "_Bool");
    assert_eq!(
        st(&mut t, &[("b", b, Some(8)), ("c", c, None)]),
        (2, 1, vec![0, 1])
    );
    // Reading one: its own bytes, from bit 0.
    let id = t
        .define_struct(None, &[("a", i, Some(20)), ("c", i, Some(12))])
        .unwrap();
    let (mem, _) = t.member(id, "c").unwrap();
    let bf = t.bitfield(&mem).unwrap();
    assert_eq!(
        bf,
        BitField {
            byte_offset: 4,
            size: 2,
            shift: 0,
            width: 12,
            signed: true
        }
    );
}

#[test]
fn unions_are_as_large_as_their_largest_member() {
    let mut t = t();
    let (c, i, l) = (ty(&t, "char"), ty(&t, "int"), ty(&t, "long"));
    let buf = t.add(TypeKind::Array { elem: c, len: 13 });
    let u = t
        .define_union(
            Some("U"),
            &[
                ("c", c, None),
                ("i", i, None),
                ("l", l, None),
                ("buf", buf, None),
            ],
        )
        .unwrap();
    assert_eq!((t.size_of(u, 0), t.align_of(u)), (13, 8));
    let k = t
        .define_union(
            None,
            &[("a", i, Some(3)), ("b", c, None), ("c", l, Some(40))],
        )
        .unwrap();
    assert_eq!((t.size_of(k, 0), t.align_of(k)), (8, 8));
    assert_eq!(t.member(k, "c").unwrap().0.bit_size, 40);
}

#[test]
fn only_integers_are_bitfields() {
    let mut t = t();
    let e = t.add(TypeKind::Enum {
        name: Some("E1".into()),
        size: 4,
        values: vec![Enumerator {
            name: "E1_A".into(),
            value: 0,
        }],
    });
    let b = ty(&t, "_Bool");
    assert!(matches!(
        layout_struct(&t, &[("f", e, Some(3))]),
        Err(LayoutError::BitfieldType { .. })
    ));
    assert!(matches!(
        layout_struct(&t, &[("b", b, Some(9))]),
        Err(LayoutError::BitfieldWidth { .. })
    ));
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
