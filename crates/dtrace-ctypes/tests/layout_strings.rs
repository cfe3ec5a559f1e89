//! D `string` members: `strsize` bytes with alignment 1 when the caller gives a
//! strsize, incomplete without one.

use dtrace_ctypes::{layout_struct, layout_struct_strsize, layout_union_strsize, LayoutError};
use dtrace_ctypes::{TypeId, TypeTable};

fn ids(t: &TypeTable) -> (TypeId, TypeId, TypeId, TypeId) {
    let get = |n: &str| t.lookup(n).expect("built-in type");
    (get("int"), get("string"), get("char"), get("long"))
}

#[test]
fn string_members_take_strsize_bytes_unaligned() {
    let t = TypeTable::with_builtins();
    let (int, string, char_, long) = ids(&t);
    let ms = [
        ("fd", int, None),
        ("name", string, None),
        ("c", char_, None),
        ("path", string, None),
        ("n", long, None),
    ];
    // fd 0..4, name 4..17, c 17, path 18..31, n at 32 (aligned 8): 40 bytes,
    // aligned as the first member.
    let (size, align, members) = layout_struct_strsize(&t, &ms, 13).expect("lays out");
    let offs: Vec<u64> = members.iter().map(|m| m.bit_offset / 8).collect();
    assert_eq!(offs, [0, 4, 17, 18, 32]);
    assert_eq!((size, align), (40, 4));
    // The default strsize: 4 + 256 + 1 + 256 = 517, n at 520.
    let (size, _, members) = layout_struct_strsize(&t, &ms, 256).expect("lays out");
    assert_eq!(members[4].bit_offset / 8, 520);
    assert_eq!(size, 528);
    // A string alone aligns to 1.
    let (size, align, _) = layout_struct_strsize(&t, &[("s", string, None)], 5).expect("lays out");
    assert_eq!((size, align), (5, 1));
    let (size, align, _) =
        layout_union_strsize(&t, &[("s", string, None), ("i", int, None)], 5).expect("lays out");
    assert_eq!((size, align), (5, 4));
}

#[test]
fn string_members_without_strsize_stay_incomplete() {
    let mut t = TypeTable::with_builtins();
    let (_, string, _, _) = ids(&t);
    assert!(matches!(
        layout_struct(&t, &[("s", string, None)]),
        Err(LayoutError::Incomplete { .. })
    ));
    assert!(matches!(
        layout_struct_strsize(&t, &[("s", string, None)], 0),
        Err(LayoutError::Incomplete { .. })
    ));
    let id = t
        .define_struct_strsize(Some("named"), &[("s", string, None)], 16)
        .expect("defines");
    assert_eq!(t.size_of(id, 0), 16);
    assert_eq!(t.member(id, "s").map(|(m, _)| m.bit_offset), Some(0));
}
