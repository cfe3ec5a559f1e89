//! Struct/union layout for D-declared types, as DTrace does it: DTrace builds the
//! types a program declares with its type library (libctf), whose layout differs
//! from a C compiler's (see [`layout_struct_strsize`]): no tail padding, a
//! bit-field in bytes of its own, a struct aligned as its first member. Kernel
//! types keep the layout their BTF gives.

use std::fmt;

use crate::table::{Member, TypeId, TypeKind, TypeTable};

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum LayoutError {
    /// A member of incomplete type (void, a forward declaration, a function, string).
    Incomplete {
        member: String,
        ty: String,
    },
    /// A bitfield whose type is not an integer or enum.
    BitfieldType {
        member: String,
        ty: String,
    },
    /// A bitfield wider than its type.
    BitfieldWidth {
        member: String,
        width: u32,
        max: u32,
    },
    /// `int x : 0;` — zero-width bitfields must be unnamed.
    NamedZeroWidth {
        member: String,
    },
    DuplicateMember {
        member: String,
    },
    /// The aggregate's size overflows.
    TooLarge,
    /// `define_struct` of a tag that is already complete.
    Redefined {
        tag: String,
    },
}

impl fmt::Display for LayoutError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            LayoutError::Incomplete { member, ty } => {
                write!(f, "incomplete struct/union/enum {ty}: {member}")
            }
            LayoutError::BitfieldType { member, ty } => {
                write!(f, "bit-field {member} has invalid type {ty}")
            }
            LayoutError::BitfieldWidth { member, width, max } => {
                write!(
                    f,
                    "width of bit-field {member} ({width}) exceeds its type ({max})"
                )
            }
            LayoutError::NamedZeroWidth { member } => {
                write!(f, "zero width for bit-field {member}")
            }
            LayoutError::DuplicateMember { member } => write!(f, "duplicate member {member}"),
            LayoutError::TooLarge => write!(f, "aggregate is too large"),
            LayoutError::Redefined { tag } => write!(f, "{tag} redefined"),
        }
    }
}

impl std::error::Error for LayoutError {}

/// `(size in bytes, alignment in bytes, members with bit offsets)`.
pub type Layout = (u64, u64, Vec<Member>);

fn round_up(v: u64, a: u64) -> Option<u64> {
    let a = a.max(1);
    v.checked_add(a - 1).map(|x| x / a * a)
}

/// Whether `ty` has a size: not void, forward or function, nor a D string unless
/// `strsize` gives strings one (arrays by element).
fn is_complete(table: &TypeTable, ty: TypeId, strsize: u64) -> bool {
    let mut t = ty;
    for _ in 0..crate::table::MAX_DEPTH {
        match table.kind(table.resolve(t)) {
            TypeKind::Void | TypeKind::Forward { .. } | TypeKind::Function { .. } => return false,
            TypeKind::String => return strsize > 0,
            TypeKind::Array { elem, .. } => t = *elem,
            _ => return true,
        }
    }
    false
}

/// The bytes a bit-field of `w` bits occupies, which is also its alignment: the
/// integer type DTrace makes for it holds the bits rounded up to whole bytes, then
/// to a power of two (1, 2, 4 or 8).
pub fn bitfield_bytes(w: u32) -> u64 {
    u64::from(w).div_ceil(8).max(1).next_power_of_two()
}

/// Check a bit-field of `w` bits on declared type `ty`; only integers (not enums)
/// may be bit-fields, at most as wide as their type.
fn check_bitfield(table: &TypeTable, name: &str, ty: TypeId, w: u32) -> Result<(), LayoutError> {
    let max = match table.kind(table.resolve(ty)) {
        TypeKind::Int { size, .. } => size.saturating_mul(8),
        _ => {
            return Err(LayoutError::BitfieldType {
                member: name.to_string(),
                ty: table.name_of(ty),
            })
        }
    };
    if w > max {
        return Err(LayoutError::BitfieldWidth {
            member: name.to_string(),
            width: w,
            max,
        });
    }
    if w == 0 && !name.is_empty() {
        return Err(LayoutError::NamedZeroWidth {
            member: name.to_string(),
        });
    }
    Ok(())
}

fn check_member(
    table: &TypeTable,
    seen: &mut std::collections::HashSet<String>,
    name: &str,
    ty: TypeId,
    strsize: u64,
) -> Result<(), LayoutError> {
    if !name.is_empty() && !seen.insert(name.to_string()) {
        return Err(LayoutError::DuplicateMember {
            member: name.to_string(),
        });
    }
    if !is_complete(table, ty, strsize) {
        return Err(LayoutError::Incomplete {
            member: name.to_string(),
            ty: table.name_of(ty),
        });
    }
    Ok(())
}

/// One member as the layout sees it: its size and alignment in bytes, and the
/// bits it takes from its offset (a bit-field's width, else its size in bits).
struct Placed {
    size: u64,
    align: u64,
    bits: u64,
}

/// Size, alignment and extent of a member; `None` for a zero-width bit-field,
/// which DTrace ignores.
fn place(
    table: &TypeTable,
    name: &str,
    ty: TypeId,
    width: Option<u32>,
    strsize: u64,
) -> Result<Option<Placed>, LayoutError> {
    match width {
        None => {
            let size = table.size_of(ty, strsize);
            let bits = size.checked_mul(8).ok_or(LayoutError::TooLarge)?;
            Ok(Some(Placed {
                size,
                align: table.align_of(ty).max(1),
                bits,
            }))
        }
        Some(w) => {
            check_bitfield(table, name, ty, w)?;
            if w == 0 {
                return Ok(None);
            }
            let size = bitfield_bytes(w);
            Ok(Some(Placed {
                size,
                align: size,
                bits: u64::from(w),
            }))
        }
    }
}

/// Lay out a struct with `members` as `(name, type, bitfield width)`; an empty name is
/// an anonymous member (or an unnamed bitfield). A D `string` member is incomplete
/// here (see [`layout_struct_strsize`]).
pub fn layout_struct<S: AsRef<str>>(
    table: &TypeTable,
    members: &[(S, TypeId, Option<u32>)],
) -> Result<Layout, LayoutError> {
    layout_struct_strsize(table, members, 0)
}

/// [`layout_struct`] where a D `string` member takes `strsize` bytes with
/// alignment 1 (as a `char` array of that size); `strsize == 0`: strings are
/// incomplete.
///
/// DTrace lays out the structs a program declares as its type library (libctf)
/// does, not as a C compiler would: each member starts at the first byte after
/// the bits of the member before it (a bit-field ends after its width), rounded
/// up to the member's alignment; a bit-field is an integer of its width rounded
/// up to 1, 2, 4 or 8 bytes, so it starts on a byte boundary of its own; the
/// struct ends where its last member ends (no tail padding) and aligns as its
/// first member does.
pub fn layout_struct_strsize<S: AsRef<str>>(
    table: &TypeTable,
    members: &[(S, TypeId, Option<u32>)],
    strsize: u64,
) -> Result<Layout, LayoutError> {
    let mut seen = std::collections::HashSet::new();
    let mut end_bits: u64 = 0; // where the previous member's bits end
    let mut size: u64 = 0;
    let mut align: Option<u64> = None;
    let mut out = Vec::with_capacity(members.len());
    for (name, ty, width) in members {
        let name = name.as_ref();
        let ty = *ty;
        check_member(table, &mut seen, name, ty, strsize)?;
        let Some(p) = place(table, name, ty, *width, strsize)? else {
            continue;
        };
        let offset = if out.is_empty() {
            0
        } else {
            let bytes = round_up(end_bits, 8).ok_or(LayoutError::TooLarge)? / 8;
            round_up(bytes, p.align).ok_or(LayoutError::TooLarge)?
        };
        let bit_offset = offset.checked_mul(8).ok_or(LayoutError::TooLarge)?;
        end_bits = bit_offset
            .checked_add(p.bits)
            .ok_or(LayoutError::TooLarge)?;
        size = size.max(offset.checked_add(p.size).ok_or(LayoutError::TooLarge)?);
        align.get_or_insert(p.align);
        out.push(Member {
            name: name.to_string(),
            ty,
            bit_offset,
            bit_size: width.unwrap_or(0),
        });
    }
    Ok((size, align.unwrap_or(1), out))
}

/// Lay out a union: every member at offset 0; the size is the largest member's
/// (no tail padding, as DTrace's type library does it), the alignment the largest.
pub fn layout_union<S: AsRef<str>>(
    table: &TypeTable,
    members: &[(S, TypeId, Option<u32>)],
) -> Result<Layout, LayoutError> {
    layout_union_strsize(table, members, 0)
}

/// [`layout_union`] with D `string` members of `strsize` bytes (see
/// [`layout_struct_strsize`]).
pub fn layout_union_strsize<S: AsRef<str>>(
    table: &TypeTable,
    members: &[(S, TypeId, Option<u32>)],
    strsize: u64,
) -> Result<Layout, LayoutError> {
    let mut seen = std::collections::HashSet::new();
    let mut size: u64 = 0;
    let mut align: u64 = 1;
    let mut out = Vec::with_capacity(members.len());
    for (name, ty, width) in members {
        let name = name.as_ref();
        let ty = *ty;
        check_member(table, &mut seen, name, ty, strsize)?;
        let Some(p) = place(table, name, ty, *width, strsize)? else {
            continue;
        };
        size = size.max(p.size);
        align = align.max(p.align);
        out.push(Member {
            name: name.to_string(),
            ty,
            bit_offset: 0,
            bit_size: width.unwrap_or(0),
        });
    }
    Ok((size, align, out))
}

impl TypeTable {
    /// Declare `struct name { members }` (or an anonymous struct) in the `D` scope: lay
    /// it out, add it, bind its tag, completing an earlier forward declaration in place.
    pub fn define_struct<S: AsRef<str>>(
        &mut self,
        name: Option<&str>,
        members: &[(S, TypeId, Option<u32>)],
    ) -> Result<TypeId, LayoutError> {
        self.define_struct_strsize(name, members, 0)
    }

    /// [`TypeTable::define_struct`] with D `string` members of `strsize` bytes
    /// (see [`layout_struct_strsize`]).
    pub fn define_struct_strsize<S: AsRef<str>>(
        &mut self,
        name: Option<&str>,
        members: &[(S, TypeId, Option<u32>)],
        strsize: u64,
    ) -> Result<TypeId, LayoutError> {
        let (size, align, members) = layout_struct_strsize(self, members, strsize)?;
        let kind = TypeKind::Struct {
            name: name.map(str::to_string),
            size,
            members,
        };
        self.define_aggregate("struct", name, kind, align)
    }

    /// Declare `union name { members }` in the `D` scope (see [`TypeTable::define_struct`]).
    pub fn define_union<S: AsRef<str>>(
        &mut self,
        name: Option<&str>,
        members: &[(S, TypeId, Option<u32>)],
    ) -> Result<TypeId, LayoutError> {
        self.define_union_strsize(name, members, 0)
    }

    /// [`TypeTable::define_union`] with D `string` members of `strsize` bytes.
    pub fn define_union_strsize<S: AsRef<str>>(
        &mut self,
        name: Option<&str>,
        members: &[(S, TypeId, Option<u32>)],
        strsize: u64,
    ) -> Result<TypeId, LayoutError> {
        let (size, align, members) = layout_union_strsize(self, members, strsize)?;
        let kind = TypeKind::Union {
            name: name.map(str::to_string),
            size,
            members,
        };
        self.define_aggregate("union", name, kind, align)
    }

    fn define_aggregate(
        &mut self,
        keyword: &str,
        name: Option<&str>,
        kind: TypeKind,
        align: u64,
    ) -> Result<TypeId, LayoutError> {
        let id = match name.and_then(|n| self.lookup_tag(keyword, n)) {
            Some(existing) => {
                if !matches!(self.kind(existing), TypeKind::Forward { .. }) {
                    return Err(LayoutError::Redefined {
                        tag: format!("{keyword} {}", name.unwrap_or("")),
                    });
                }
                self.set_kind(existing, kind);
                existing
            }
            None => {
                let id = self.add(kind);
                if let Some(n) = name {
                    self.bind_tag(keyword, n, id);
                }
                id
            }
        };
        self.aligns.insert(id, align);
        Ok(id)
    }
}
