//! Questions the compiler asks of types: members (through anonymous struct/union
//! members), alignment, bitfield access, and member offsets along a path.

use std::fmt;

use crate::table::{Member, TypeId, TypeKind, TypeTable, MAX_DEPTH};

/// How to read a bitfield: load `size` bytes at `byte_offset` (little-endian), shift
/// right by `shift`, keep `width` bits, sign-extend when `signed`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BitField {
    pub byte_offset: u64,
    /// 1, 2, 4 or 8.
    pub size: u32,
    pub shift: u32,
    pub width: u32,
    pub signed: bool,
}

/// Why [`offset_of_path`] failed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PathError {
    NoType(String),
    NotAggregate { path: String, ty: String },
    NoMember { path: String, member: String },
}

impl fmt::Display for PathError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            PathError::NoType(t) => write!(f, "no type {t}"),
            PathError::NotAggregate { path, ty } => {
                write!(f, "{path} is of type {ty}, not a struct or union")
            }
            PathError::NoMember { path, member } => write!(f, "{path} has no member {member}"),
        }
    }
}

impl std::error::Error for PathError {}

impl TypeTable {
    fn members_of(&self, id: TypeId) -> Option<&[Member]> {
        match self.kind(self.resolve(id)) {
            TypeKind::Struct { members, .. } | TypeKind::Union { members, .. } => Some(members),
            _ => None,
        }
    }

    /// Member `name` of struct/union `ty` (typedefs and qualifiers stripped), searching
    /// anonymous members in declaration order. The returned member's `bit_offset` is
    /// from the start of `ty`; the second value is the member's type.
    pub fn member(&self, ty: TypeId, name: &str) -> Option<(Member, TypeId)> {
        let m = self.member_depth(ty, name, 0)?;
        let t = m.ty;
        Some((m, t))
    }

    fn member_depth(&self, ty: TypeId, name: &str, depth: u32) -> Option<Member> {
        if depth > MAX_DEPTH || name.is_empty() {
            return None;
        }
        for m in self.members_of(ty)? {
            if m.name == name {
                return Some(m.clone());
            }
            if m.name.is_empty() {
                if let Some(mut inner) = self.member_depth(m.ty, name, depth + 1) {
                    inner.bit_offset = inner.bit_offset.saturating_add(m.bit_offset);
                    return Some(inner);
                }
            }
        }
        None
    }

    /// Alignment in bytes. Aggregates laid out by [`crate::layout`] know theirs; kernel
    /// ones are inferred from members (1 if a member sits misaligned, i.e. packed).
    pub fn align_of(&self, id: TypeId) -> u64 {
        self.align_depth(id, 0)
    }

    fn align_depth(&self, id: TypeId, depth: u32) -> u64 {
        if depth > MAX_DEPTH {
            return 1;
        }
        let r = self.resolve(id);
        if let Some(a) = self.aligns.get(&r) {
            return *a;
        }
        match self.kind(r) {
            TypeKind::Int { size, .. } | TypeKind::Float { size, .. } => (*size as u64).max(1),
            TypeKind::Enum { size, .. } => (*size as u64).max(1),
            TypeKind::Pointer { .. } => self.pointer_size(r),
            TypeKind::Array { elem, .. } => self.align_depth(*elem, depth + 1),
            TypeKind::Struct { size, members, .. } | TypeKind::Union { size, members, .. } => {
                let mut a = 1;
                for m in members {
                    if m.bit_size > 0 && m.name.is_empty() {
                        continue;
                    }
                    let ma = self.align_depth(m.ty, depth + 1);
                    if m.bit_size == 0 && m.bit_offset % (ma * 8) != 0 {
                        return 1;
                    }
                    a = a.max(ma);
                }
                if *size % a != 0 {
                    return 1;
                }
                a
            }
            TypeKind::Void
            | TypeKind::String
            | TypeKind::Forward { .. }
            | TypeKind::Function { .. }
            | TypeKind::Typedef { .. }
            | TypeKind::Qualified { .. } => 1,
        }
    }

    /// How to load a bitfield member; `None` if `m` is not a bitfield (or is wider than
    /// one 8-byte load can hold).
    pub fn bitfield(&self, m: &Member) -> Option<BitField> {
        if m.bit_size == 0 {
            return None;
        }
        let width = m.bit_size as u64;
        let end = m.bit_offset.checked_add(width)?;
        let signed = match self.kind(self.resolve(m.ty)) {
            TypeKind::Int { signed, .. } => *signed,
            TypeKind::Enum { values, .. } => values.iter().any(|e| e.value < 0),
            _ => false,
        };
        // Smallest naturally aligned load covering the bits.
        for size in [1u64, 2, 4, 8] {
            let start = m.bit_offset / 8 / size * size;
            if start.saturating_add(size).saturating_mul(8) >= end {
                return Some(BitField {
                    byte_offset: start,
                    size: size as u32,
                    shift: (m.bit_offset - start * 8) as u32,
                    width: m.bit_size,
                    signed,
                });
            }
        }
        // Straddles an 8-byte boundary (packed): an unaligned 8-byte load.
        let start = m.bit_offset / 8;
        let shift = m.bit_offset - start * 8;
        (shift + width <= 64).then_some(BitField {
            byte_offset: start,
            size: 8,
            shift: shift as u32,
            width: m.bit_size,
            signed,
        })
    }

    /// Follow `path` (member names) from aggregate `ty`: the last member, with its
    /// `bit_offset` from the start of `ty`.
    pub fn offset_of_path_in(&self, ty: TypeId, path: &[&str]) -> Result<Member, PathError> {
        let mut cur = ty;
        let mut offset = 0u64;
        let mut found: Option<Member> = None;
        let mut walked = self.name_of(ty);
        for name in path {
            if self.members_of(cur).is_none() {
                return Err(PathError::NotAggregate {
                    path: walked,
                    ty: self.name_of(cur),
                });
            }
            let (m, mty) = self.member(cur, name).ok_or_else(|| PathError::NoMember {
                path: walked.clone(),
                member: name.to_string(),
            })?;
            offset = offset.saturating_add(m.bit_offset);
            walked = format!("{walked}.{name}");
            cur = mty;
            found = Some(Member {
                bit_offset: offset,
                ..m
            });
        }
        found.ok_or(PathError::NoMember {
            path: walked,
            member: String::new(),
        })
    }
}

/// Offset of a member path in a named type, importing kernel types as needed:
/// `offset_of_path(t, "struct task_struct", &["real_parent"])`. The type name may carry
/// a module scope: ``"vmlinux`struct task_struct"``.
pub fn offset_of_path(
    table: &mut TypeTable,
    type_name: &str,
    path: &[&str],
) -> Result<Member, PathError> {
    let (module, name) = match type_name.split_once('`') {
        Some((m, n)) => (Some(m), n),
        None => (None, type_name),
    };
    let ty = table
        .lookup_scoped(module, name)
        .ok_or_else(|| PathError::NoType(type_name.to_string()))?;
    table.offset_of_path_in(ty, path)
}
