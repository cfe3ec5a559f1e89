//! A BTF reader: parses a blob (vmlinux or a module's split BTF) into a compact,
//! validated index, and answers questions about its records without converting them.
//!
//! Architecture invariant: [`Btf::parse`] checks every bound, every type reference and
//! every name offset once, so the accessors afterwards cannot read out of range; a
//! malformed blob is a [`BtfError`], never a panic. Reference chains that carry no
//! storage (pointer, typedef, qualifiers, array element, type tag) are checked to be
//! acyclic, so walking them terminates.
//!
//! [`Btf::index`] does only the cheap half (the header, each record's bounds, the name
//! index): enough to answer "is there a type named X" (every accessor is bounds-checked
//! and cannot panic), but nothing may follow type references before [`Btf::check`] has
//! succeeded. The kernel type source indexes vmlinux when the parser first asks about
//! a name, and checks it before the first import.
//!
//! Format: `Documentation/bpf/btf.rst` in the kernel. A header, a type section of
//! `btf_type` records (each followed by kind-specific data), and a string section.
//! Split BTF (modules) continues the base's type ids and string offsets.

use std::fmt;
use std::sync::{Arc, OnceLock};

mod validate;

pub const KIND_INT: u8 = 1;
pub const KIND_PTR: u8 = 2;
pub const KIND_ARRAY: u8 = 3;
pub const KIND_STRUCT: u8 = 4;
pub const KIND_UNION: u8 = 5;
pub const KIND_ENUM: u8 = 6;
pub const KIND_FWD: u8 = 7;
pub const KIND_TYPEDEF: u8 = 8;
pub const KIND_VOLATILE: u8 = 9;
pub const KIND_CONST: u8 = 10;
pub const KIND_RESTRICT: u8 = 11;
pub const KIND_FUNC: u8 = 12;
pub const KIND_FUNC_PROTO: u8 = 13;
pub const KIND_VAR: u8 = 14;
pub const KIND_DATASEC: u8 = 15;
pub const KIND_FLOAT: u8 = 16;
pub const KIND_DECL_TAG: u8 = 17;
pub const KIND_TYPE_TAG: u8 = 18;
pub const KIND_ENUM64: u8 = 19;

const MAGIC: u16 = 0xeb9f;
const HDR_LEN: usize = 24;
pub(crate) const REC: usize = 12;
/// Chains longer than this are rejected as malformed (real ones are a handful).
pub(crate) const MAX_CHAIN: usize = 256;

/// Why a blob was rejected.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum BtfError {
    Truncated { what: &'static str, offset: usize },
    BadMagic(u16),
    BadVersion(u8),
    BadHeader(&'static str),
    BadString { id: u32, offset: u32 },
    UnknownKind { id: u32, kind: u8 },
    BadTypeRef { id: u32, target: u32 },
    Malformed { id: u32, reason: &'static str },
    Cycle { id: u32 },
    Io { path: String, message: String },
}

impl fmt::Display for BtfError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            BtfError::Truncated { what, offset } => {
                write!(f, "BTF truncated: {what} at byte {offset}")
            }
            BtfError::BadMagic(m) => write!(f, "not BTF (magic {m:#06x})"),
            BtfError::BadVersion(v) => write!(f, "unsupported BTF version {v}"),
            BtfError::BadHeader(why) => write!(f, "bad BTF header: {why}"),
            BtfError::BadString { id, offset } => {
                write!(f, "BTF type {id}: bad string offset {offset}")
            }
            BtfError::UnknownKind { id, kind } => write!(f, "BTF type {id}: unknown kind {kind}"),
            BtfError::BadTypeRef { id, target } => {
                write!(f, "BTF type {id}: bad reference to type {target}")
            }
            BtfError::Malformed { id, reason } => write!(f, "BTF type {id}: {reason}"),
            BtfError::Cycle { id } => write!(f, "BTF type {id}: reference cycle"),
            BtfError::Io { path, message } => write!(f, "{path}: {message}"),
        }
    }
}

impl std::error::Error for BtfError {}

pub(crate) fn u32_at(d: &[u8], off: usize) -> u32 {
    match off.checked_add(4).and_then(|end| d.get(off..end)) {
        Some(&[a, b, c, e]) => u32::from_le_bytes([a, b, c, e]),
        _ => 0,
    }
}

fn fnv(bytes: &[u8]) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for &b in bytes {
        h ^= b as u64;
        h = h.wrapping_mul(0x0100_0000_01b3);
    }
    h
}

/// Open-addressed slots (entry index + 1) and entries `(own type index, enumerator)`.
type EnumIndex = (Vec<u32>, Vec<(u32, u32)>);

/// A parsed BTF object: vmlinux (base) or a module (split, on top of a base).
pub struct Btf {
    data: Vec<u8>,
    strs: std::ops::Range<usize>,
    /// Byte offset in `data` of each own type record; index i is id `start_id + i`.
    offsets: Vec<u32>,
    start_id: u32,
    start_str: u32,
    base: Option<Arc<Btf>>,
    /// Open-addressed name -> own type index (+1; 0 = empty).
    names: Vec<u32>,
    /// Enumerator name -> (own type index, enumerator index), built on first use.
    enumerators: OnceLock<EnumIndex>,
    /// The outcome of the full validation ([`Btf::check`]), run once.
    checked: OnceLock<Result<(), BtfError>>,
}

impl fmt::Debug for Btf {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Btf")
            .field("bytes", &self.data.len())
            .field("types", &self.offsets.len())
            .field("start_id", &self.start_id)
            .field("split", &self.base.is_some())
            .finish()
    }
}

/// One record, borrowed from the [`Btf`] that owns it.
#[derive(Clone, Copy)]
pub struct BtfType<'a> {
    btf: &'a Btf,
    off: usize,
    pub id: u32,
    pub kind: u8,
    pub kind_flag: bool,
    pub vlen: u16,
    /// `size` or `type`, depending on the kind.
    pub size_or_type: u32,
    pub(crate) name_off: u32,
}

/// A struct/union member as BTF stores it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BtfMember<'a> {
    pub name: &'a str,
    pub ty: u32,
    pub bit_offset: u32,
    /// Bitfield width from a `kind_flag` struct; 0 otherwise.
    pub bit_size: u32,
}

/// INT encoding.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct IntInfo {
    pub signed: bool,
    pub is_char: bool,
    pub is_bool: bool,
    pub bit_offset: u32,
    pub bits: u32,
}

/// `btf_var_secinfo`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SecInfo {
    pub ty: u32,
    pub offset: u32,
    pub size: u32,
}

impl<'a> BtfType<'a> {
    pub fn name(&self) -> &'a str {
        self.btf.str_at(self.name_off).unwrap_or("")
    }

    pub(crate) fn word(&self, i: usize) -> u32 {
        u32_at(&self.btf.data, self.off + REC + 4 * i)
    }

    pub fn int_info(&self) -> IntInfo {
        let v = self.word(0);
        let enc = (v >> 24) & 0xf;
        IntInfo {
            signed: enc & 1 != 0,
            is_char: enc & 2 != 0,
            is_bool: enc & 4 != 0,
            bit_offset: (v >> 16) & 0xff,
            bits: v & 0xff,
        }
    }

    /// `(element type, index type, element count)` of an ARRAY.
    pub fn array(&self) -> (u32, u32, u32) {
        (self.word(0), self.word(1), self.word(2))
    }

    /// Members of a STRUCT/UNION, bitfields decoded according to `kind_flag`.
    pub fn members(&self) -> impl Iterator<Item = BtfMember<'a>> + 'a {
        let t = *self;
        (0..self.vlen as usize).map(move |i| {
            let name_off = t.word(3 * i);
            let off = t.word(3 * i + 2);
            let (bit_offset, bit_size) = if t.kind_flag {
                (off & 0x00ff_ffff, off >> 24)
            } else {
                (off, 0)
            };
            BtfMember {
                name: t.btf.str_at(name_off).unwrap_or(""),
                ty: t.word(3 * i + 1),
                bit_offset,
                bit_size,
            }
        })
    }

    /// Enumerators of an ENUM or ENUM64, values sign- or zero-extended per `kind_flag`.
    pub fn enumerators(&self) -> impl Iterator<Item = (&'a str, i64)> + 'a {
        let t = *self;
        (0..self.vlen as usize).map(move |i| t.enumerator(i))
    }

    fn enumerator(&self, i: usize) -> (&'a str, i64) {
        if self.kind == KIND_ENUM64 {
            let lo = self.word(3 * i + 1) as u64;
            let hi = self.word(3 * i + 2) as u64;
            let name = self.btf.str_at(self.word(3 * i)).unwrap_or("");
            (name, ((hi << 32) | lo) as i64)
        } else {
            let raw = self.word(2 * i + 1);
            let v = if self.kind_flag {
                raw as i32 as i64
            } else {
                raw as i64
            };
            (self.btf.str_at(self.word(2 * i)).unwrap_or(""), v)
        }
    }

    /// Parameters of a FUNC_PROTO as `(name, type)`; a final `("", 0)` means `...`.
    pub fn params(&self) -> impl Iterator<Item = (&'a str, u32)> + 'a {
        let t = *self;
        (0..self.vlen as usize)
            .map(move |i| (t.btf.str_at(t.word(2 * i)).unwrap_or(""), t.word(2 * i + 1)))
    }

    /// Variables of a DATASEC.
    pub fn secinfos(&self) -> impl Iterator<Item = SecInfo> + 'a {
        let t = *self;
        (0..self.vlen as usize).map(move |i| SecInfo {
            ty: t.word(3 * i),
            offset: t.word(3 * i + 1),
            size: t.word(3 * i + 2),
        })
    }

    /// VAR linkage / DECL_TAG component index.
    pub fn extra(&self) -> u32 {
        self.word(0)
    }
}

/// Size in bytes of the kind-specific data after the 12-byte record, or `None` for an
/// unknown kind.
fn tail_len(kind: u8, vlen: usize) -> Option<usize> {
    Some(match kind {
        KIND_INT | KIND_VAR | KIND_DECL_TAG => 4,
        KIND_PTR | KIND_FWD | KIND_TYPEDEF | KIND_VOLATILE | KIND_CONST | KIND_RESTRICT
        | KIND_FUNC | KIND_FLOAT | KIND_TYPE_TAG => 0,
        KIND_ARRAY => 12,
        KIND_STRUCT | KIND_UNION | KIND_DATASEC | KIND_ENUM64 => 12 * vlen,
        KIND_ENUM | KIND_FUNC_PROTO => 8 * vlen,
        _ => return None,
    })
}

/// Kinds whose reference carries no storage of its own: following them must end.
pub(crate) fn is_chain(kind: u8) -> bool {
    matches!(
        kind,
        KIND_PTR
            | KIND_ARRAY
            | KIND_TYPEDEF
            | KIND_VOLATILE
            | KIND_CONST
            | KIND_RESTRICT
            | KIND_TYPE_TAG
            | KIND_FUNC
    )
}

/// Kinds a value (member, pointer target, parameter, variable) may have.
pub(crate) fn is_value_kind(kind: u8) -> bool {
    !matches!(kind, KIND_FUNC | KIND_VAR | KIND_DATASEC | KIND_DECL_TAG)
}

impl Btf {
    /// Parse and validate a base (vmlinux) blob.
    pub fn parse(data: Vec<u8>) -> Result<Btf, BtfError> {
        let b = Btf::index(data)?;
        b.check()?;
        Ok(b)
    }

    /// Parse and validate a module's split BTF on top of `base`.
    pub fn parse_split(data: Vec<u8>, base: Arc<Btf>) -> Result<Btf, BtfError> {
        let b = Btf::index_split(data, base)?;
        b.check()?;
        Ok(b)
    }

    /// Read, parse and validate a base blob from a file.
    pub fn from_file(path: &std::path::Path) -> Result<Btf, BtfError> {
        Btf::parse(read(path)?)
    }

    /// The cheap half of [`Btf::parse`]: header, record bounds and the name index,
    /// without validating references ([`Btf::check`] does, once, when asked).
    pub fn index(data: Vec<u8>) -> Result<Btf, BtfError> {
        Btf::parse_inner(data, None)
    }

    /// [`Btf::index`] of a module's split BTF on top of `base`.
    pub fn index_split(data: Vec<u8>, base: Arc<Btf>) -> Result<Btf, BtfError> {
        Btf::parse_inner(data, Some(base))
    }

    /// Validate every record, reference and name, and the acyclicity of reference
    /// chains (see the module invariant); the result is computed once and kept.
    /// A split object's base is checked too.
    pub fn check(&self) -> Result<(), BtfError> {
        self.checked
            .get_or_init(|| {
                if let Some(b) = &self.base {
                    b.check()?;
                }
                let s = self.data.get(self.strs.clone()).unwrap_or(&[]);
                if std::str::from_utf8(s).is_err() {
                    return Err(BtfError::BadHeader("string section is not UTF-8"));
                }
                self.validate()?;
                self.check_chains()
            })
            .clone()
    }

    fn parse_inner(data: Vec<u8>, base: Option<Arc<Btf>>) -> Result<Btf, BtfError> {
        if data.len() < HDR_LEN {
            return Err(BtfError::Truncated {
                what: "header",
                offset: data.len(),
            });
        }
        let magic = u16::from_le_bytes([data[0], data[1]]);
        if magic != MAGIC {
            return Err(BtfError::BadMagic(magic));
        }
        if data[2] != 1 {
            return Err(BtfError::BadVersion(data[2]));
        }
        let hdr_len = u32_at(&data, 4) as usize;
        if hdr_len < HDR_LEN || hdr_len > data.len() {
            return Err(BtfError::BadHeader("header length"));
        }
        let section = |off_at: usize, what: &'static str| {
            let off = u32_at(&data, off_at) as usize;
            let len = u32_at(&data, off_at + 4) as usize;
            let start = hdr_len + off;
            match start.checked_add(len) {
                Some(end) if end <= data.len() => Ok(start..end),
                _ => Err(BtfError::Truncated {
                    what,
                    offset: start,
                }),
            }
        };
        let types = section(8, "type section")?;
        let strs = section(16, "string section")?;
        // Newer kernels may append a layout section describing each kind's sizes,
        // which lets a reader skip kinds it does not know.
        let layout = if hdr_len >= 32 {
            Some(section(24, "layout section")?)
        } else {
            None
        };
        if types.len() % 4 != 0 {
            return Err(BtfError::BadHeader("type section length"));
        }
        if types.start < strs.end && strs.start < types.end {
            return Err(BtfError::BadHeader("type and string sections overlap"));
        }
        let s = &data[strs.clone()];
        match (s.first(), s.last(), &base) {
            (Some(0), Some(0), None) => {}
            (_, Some(0), Some(_)) => {}
            (None, None, Some(_)) => {}
            _ => return Err(BtfError::BadHeader("string section")),
        }
        let (start_id, start_str) = match &base {
            Some(b) => (b.type_count(), b.str_end()?),
            None => (1, 0),
        };
        let mut btf = Btf {
            data: Vec::new(),
            strs,
            offsets: Vec::new(),
            start_id,
            start_str,
            base,
            names: Vec::new(),
            enumerators: OnceLock::new(),
            checked: OnceLock::new(),
        };
        btf.offsets = scan_offsets(&data, types, layout, start_id)?;
        btf.data = data;
        if btf.type_count() > 0x00ff_ffff {
            return Err(BtfError::BadHeader("too many types"));
        }
        btf.build_names();
        Ok(btf)
    }

    fn str_end(&self) -> Result<u32, BtfError> {
        let own = u32::try_from(self.strs.len()).map_err(|_| BtfError::BadHeader("strings"))?;
        self.start_str
            .checked_add(own)
            .ok_or(BtfError::BadHeader("strings"))
    }

    /// One past the largest type id (void, id 0, counts).
    pub fn type_count(&self) -> u32 {
        self.start_id + self.offsets.len() as u32
    }

    /// First type id this object defines (1 for a base, the base's count for split).
    pub fn start_id(&self) -> u32 {
        self.start_id
    }

    pub fn base(&self) -> Option<&Arc<Btf>> {
        self.base.as_ref()
    }

    /// The string at `off`, or `None` when `off` is not a valid string start.
    pub fn str_at(&self, off: u32) -> Option<&str> {
        if off < self.start_str {
            return self.base.as_ref()?.str_at(off);
        }
        let rel = (off - self.start_str) as usize;
        let s = self.data.get(self.strs.clone())?;
        let tail = s.get(rel..)?;
        let end = tail.iter().position(|&b| b == 0)?;
        std::str::from_utf8(tail.get(..end)?).ok()
    }

    pub(crate) fn str_ok(&self, off: u32) -> bool {
        if off < self.start_str {
            return self.base.as_ref().is_some_and(|b| b.str_ok(off));
        }
        let rel = (off - self.start_str) as usize;
        // The section is UTF-8 and NUL-terminated: a start that is not a UTF-8
        // continuation byte gives a valid string.
        match self.data.get(self.strs.start + rel) {
            Some(b) => rel < self.strs.len() && (b & 0xc0) != 0x80,
            None => false,
        }
    }

    /// The record for `id`, or `None` for void (0) and ids out of range.
    pub fn get(&self, id: u32) -> Option<BtfType<'_>> {
        if id < self.start_id {
            return self.base.as_ref()?.get(id);
        }
        let off = *self.offsets.get((id - self.start_id) as usize)? as usize;
        let info = u32_at(&self.data, off + 4);
        Some(BtfType {
            btf: self,
            off,
            id,
            kind: ((info >> 24) & 0x1f) as u8,
            kind_flag: info >> 31 != 0,
            vlen: (info & 0xffff) as u16,
            size_or_type: u32_at(&self.data, off + 8),
            name_off: u32_at(&self.data, off),
        })
    }

    /// Kind of `id`; 0 for void or out of range.
    pub fn kind_of(&self, id: u32) -> u8 {
        self.get(id).map_or(0, |t| t.kind)
    }

    /// The name of own type `local` as raw bytes (no UTF-8 check: it is only
    /// hashed and compared), empty when unnamed or out of range.
    fn name_bytes(&self, local: usize) -> &[u8] {
        let off = self.offsets.get(local).map_or(0, |&o| o as usize);
        self.str_bytes(u32_at(&self.data, off)).unwrap_or(&[])
    }

    /// The bytes of the string at `off` (up to its NUL).
    fn str_bytes(&self, off: u32) -> Option<&[u8]> {
        if off < self.start_str {
            return self.base.as_ref()?.str_bytes(off);
        }
        let rel = (off - self.start_str) as usize;
        let tail = self.data.get(self.strs.clone())?.get(rel..)?;
        let end = tail.iter().position(|&b| b == 0)?;
        tail.get(..end)
    }

    fn build_names(&mut self) {
        let cap = (self.offsets.len() * 2).next_power_of_two().max(16);
        let mut slots = vec![0u32; cap];
        let mask = cap - 1;
        for i in 0..self.offsets.len() {
            let name = self.name_bytes(i);
            if name.is_empty() {
                continue;
            }
            let mut s = fnv(name) as usize & mask;
            while slots[s] != 0 {
                s = (s + 1) & mask;
            }
            slots[s] = i as u32 + 1;
        }
        self.names = slots;
    }

    /// Ids of this object's own types named `name` (any kind), in id order.
    pub fn find(&self, name: &str) -> Vec<u32> {
        let mut out = Vec::new();
        if name.is_empty() || self.names.is_empty() {
            return out;
        }
        let mask = self.names.len() - 1;
        let mut s = fnv(name.as_bytes()) as usize & mask;
        loop {
            let v = self.names.get(s).copied().unwrap_or(0);
            if v == 0 {
                break;
            }
            if self.name_bytes(v as usize - 1) == name.as_bytes() {
                out.push(self.start_id + v - 1);
            }
            s = (s + 1) & mask;
        }
        out.sort_unstable();
        out
    }

    /// The first own type of one of `kinds` named `name`.
    pub fn find_kind(&self, name: &str, kinds: &[u8]) -> Option<u32> {
        let ids = self.find(name);
        kinds
            .iter()
            .find_map(|k| ids.iter().copied().find(|&id| self.kind_of(id) == *k))
    }

    /// The enum type and value of the enumerator `name` among this object's own enums.
    pub fn enum_constant(&self, name: &str) -> Option<(u32, i64)> {
        let (slots, entries) = self.enumerators.get_or_init(|| self.build_enumerators());
        if slots.is_empty() {
            return None;
        }
        let mask = slots.len() - 1;
        let mut s = fnv(name.as_bytes()) as usize & mask;
        loop {
            let v = *slots.get(s)?;
            if v == 0 {
                return None;
            }
            let &(local, k) = entries.get(v as usize - 1)?;
            let t = self.get(self.start_id + local)?;
            let (n, value) = t.enumerator(k as usize);
            if n == name {
                return Some((t.id, value));
            }
            s = (s + 1) & mask;
        }
    }

    fn build_enumerators(&self) -> EnumIndex {
        let mut entries = Vec::new();
        for i in 0..self.offsets.len() as u32 {
            if let Some(t) = self.get(self.start_id + i) {
                if t.kind == KIND_ENUM || t.kind == KIND_ENUM64 {
                    entries.extend((0..t.vlen as u32).map(|k| (i, k)));
                }
            }
        }
        let cap = (entries.len() * 2).next_power_of_two().max(16);
        let mask = cap - 1;
        let mut slots = vec![0u32; cap];
        for (e, &(local, k)) in entries.iter().enumerate() {
            let Some(t) = self.get(self.start_id + local) else {
                continue;
            };
            let (name, _) = t.enumerator(k as usize);
            if name.is_empty() {
                continue;
            }
            let mut s = fnv(name.as_bytes()) as usize & mask;
            while slots[s] != 0 {
                s = (s + 1) & mask;
            }
            slots[s] = e as u32 + 1;
        }
        (slots, entries)
    }

    /// The DATASEC entry holding variable `var_id`: `(section name, offset, size)`.
    pub fn var_section(&self, var_id: u32) -> Option<(&str, u32, u32)> {
        (self.start_id..self.type_count())
            .filter_map(|id| self.get(id))
            .filter(|t| t.kind == KIND_DATASEC)
            .find_map(|t| {
                t.secinfos()
                    .find(|s| s.ty == var_id)
                    .map(|s| (t.name(), s.offset, s.size))
            })
    }
}

fn scan_offsets(
    data: &[u8],
    types: std::ops::Range<usize>,
    layout: Option<std::ops::Range<usize>>,
    start_id: u32,
) -> Result<Vec<u32>, BtfError> {
    let mut offsets = Vec::with_capacity(types.len() / 24);
    let mut off = types.start;
    while off < types.end {
        let id = start_id.saturating_add(offsets.len() as u32);
        if off + REC > types.end {
            return Err(BtfError::Truncated {
                what: "type record",
                offset: off,
            });
        }
        let info = u32_at(data, off + 4);
        let kind = ((info >> 24) & 0x1f) as u8;
        let vlen = (info & 0xffff) as usize;
        let tail = match tail_len(kind, vlen) {
            Some(t) if kind != 0 => t,
            _ => layout_tail(data, layout.as_ref(), kind, vlen)
                .ok_or(BtfError::UnknownKind { id, kind })?,
        };
        let end = off + REC + tail;
        if end > types.end {
            return Err(BtfError::Truncated {
                what: "type data",
                offset: off,
            });
        }
        offsets.push(u32::try_from(off).map_err(|_| BtfError::BadHeader("blob too large"))?);
        off = end;
    }
    Ok(offsets)
}

/// Size of an unknown kind's data from the layout section (`btf_layout`: info_sz u8,
/// elem_sz u8, flags u16 per kind).
fn layout_tail(
    data: &[u8],
    layout: Option<&std::ops::Range<usize>>,
    kind: u8,
    vlen: usize,
) -> Option<usize> {
    let layout = layout?;
    if kind == 0 {
        return None;
    }
    let at = layout.start + 4 * kind as usize;
    if at + 4 > layout.end {
        return None;
    }
    let info_sz = *data.get(at)? as usize;
    let elem_sz = *data.get(at + 1)? as usize;
    Some(info_sz + elem_sz * vlen)
}

pub(crate) fn read(path: &std::path::Path) -> Result<Vec<u8>, BtfError> {
    std::fs::read(path).map_err(|e| BtfError::Io {
        path: path.display().to_string(),
        message: e.to_string(),
    })
}
