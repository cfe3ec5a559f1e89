//! C struct/union layout for D-declared types, following the x86_64 System V (LP64)
//! rules GCC implements: natural alignment, padding, bitfields packed into storage
//! units of their declared type, arrays, nested aggregates, flexible arrays.
//!
//! Bitfield rule (GCC, `PCC_BITFIELD_TYPE_MATTERS`): a bitfield of declared type `T`
//! starts at the next free bit unless it would cross a `T`-aligned boundary of
//! `sizeof(T)` bytes, in which case it starts at that boundary. A zero-width bitfield
//! pads to the next `T` boundary. Unnamed bitfields do not affect the aggregate's
//! alignment; named ones do.

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

/// Storage size and alignment of a bitfield's declared type, or an error.
fn bitfield_unit(table: &TypeTable, name: &str, ty: TypeId, w: u32) -> Result<u64, LayoutError> {
    let (size, max) = match table.kind(table.resolve(ty)) {
        TypeKind::Int { name: n, size, .. } if n == "_Bool" => (*size as u64, 1),
        TypeKind::Int { size, .. } | TypeKind::Enum { size, .. } => {
            (*size as u64, size.saturating_mul(8))
        }
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
    Ok(size)
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

/// Lay out a struct with `members` as `(name, type, bitfield width)`; an empty name is
/// an anonymous member (or an unnamed bitfield, which only pads). A D `string`
/// member is incomplete here (see [`layout_struct_strsize`]).
pub fn layout_struct<S: AsRef<str>>(
    table: &TypeTable,
    members: &[(S, TypeId, Option<u32>)],
) -> Result<Layout, LayoutError> {
    layout_struct_strsize(table, members, 0)
}

/// [`layout_struct`] where a D `string` member takes `strsize` bytes with
/// alignment 1 (as a `char` array of that size); `strsize == 0`: strings are
/// incomplete.
pub fn layout_struct_strsize<S: AsRef<str>>(
    table: &TypeTable,
    members: &[(S, TypeId, Option<u32>)],
    strsize: u64,
) -> Result<Layout, LayoutError> {
    let mut seen = std::collections::HashSet::new();
    let mut pos: u64 = 0; // in bits
    let mut align: u64 = 1;
    let mut out = Vec::with_capacity(members.len());
    for (name, ty, width) in members {
        let name = name.as_ref();
        let ty = *ty;
        check_member(table, &mut seen, name, ty, strsize)?;
        let a = table.align_of(ty).max(1);
        let a_bits = a.checked_mul(8).ok_or(LayoutError::TooLarge)?;
        match width {
            None => {
                let size = table.size_of(ty, strsize);
                pos = round_up(pos, a_bits).ok_or(LayoutError::TooLarge)?;
                out.push(Member {
                    name: name.to_string(),
                    ty,
                    bit_offset: pos,
                    bit_size: 0,
                });
                let bits = size.checked_mul(8).ok_or(LayoutError::TooLarge)?;
                pos = pos.checked_add(bits).ok_or(LayoutError::TooLarge)?;
                align = align.max(a);
            }
            Some(w) => {
                let unit = bitfield_unit(table, name, ty, *w)? * 8;
                let w = *w as u64;
                if w == 0 {
                    pos = round_up(pos, a_bits).ok_or(LayoutError::TooLarge)?;
                    continue;
                }
                let start = pos / a_bits * a_bits;
                if pos - start + w > unit {
                    pos = round_up(pos, a_bits).ok_or(LayoutError::TooLarge)?;
                }
                if !name.is_empty() {
                    out.push(Member {
                        name: name.to_string(),
                        ty,
                        bit_offset: pos,
                        bit_size: w as u32,
                    });
                    align = align.max(a);
                }
                pos = pos.checked_add(w).ok_or(LayoutError::TooLarge)?;
            }
        }
    }
    let bytes = round_up(pos, 8).ok_or(LayoutError::TooLarge)? / 8;
    let size = round_up(bytes, align).ok_or(LayoutError::TooLarge)?;
    Ok((size, align, out))
}

/// Lay out a union: every member at offset 0, size the largest rounded to alignment.
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
        let a = table.align_of(ty).max(1);
        let (bytes, bit_size) = match width {
            None => (table.size_of(ty, strsize), 0),
            Some(w) => {
                bitfield_unit(table, name, ty, *w)?;
                ((*w as u64).div_ceil(8), *w)
            }
        };
        if name.is_empty() && width.is_some() {
            size = size.max(bytes);
            continue;
        }
        size = size.max(bytes);
        align = align.max(a);
        out.push(Member {
            name: name.to_string(),
            ty,
            bit_offset: 0,
            bit_size,
        });
    }
    let size = round_up(size, align).ok_or(LayoutError::TooLarge)?;
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
