//! The `print()` action: a value printed with its type's structure.
//!
//! A struct or union (and the object a pointer argument points to) is printed as
//! DTrace 2.x prints it: for a pointer, `0xADDR = *` on its own line; then the
//! object from column 44, `(type) {`, one `.member = (type)value,` line per
//! member one column deeper per level (nested aggregates open `(struct) {` or
//! `(type [n]) [` and close `},` / `],`), and `}`. Members whose bytes are all
//! zero are left out, char arrays stop at their first NUL, integers are decimal
//! (printable chars quoted), pointers hex, enums by enumerator name. A member
//! beyond the recorded bytes (the `printsize` option) prints `...` and ends the
//! object. Other values print on one line: integers in hex, null pointers as
//! `NULL`, char arrays and strings quoted, other arrays as `[ a, b ]`.

use dtrace_desc::{PrintMember, PrintType};

/// Deepest nesting printed; deeper members print as `{ ... }`.
const MAX_DEPTH: usize = 32;

/// The column a struct printed by `print()` starts at.
const BASE_INDENT: usize = 44;

/// Print `bytes` as a value of type `ty`, ending with a newline; `addr` is the
/// pointer `print()` was given, when it was given one.
pub fn print_value(ty: &PrintType, bytes: &[u8], addr: Option<u64>, out: &mut Vec<u8>) {
    if let Some(a) = addr {
        out.extend_from_slice(format!("{a:#x} = *\n").as_bytes());
    }
    match ty {
        PrintType::Struct { .. } => {
            let mut w = Typed {
                bytes,
                out,
                truncated: false,
            };
            w.value(ty, 0, 0, None);
        }
        _ => {
            scalar(ty, bytes, 0, out);
            out.push(b'\n');
        }
    }
}

/// The DTrace 2.x typed layout of one object.
struct Typed<'a> {
    bytes: &'a [u8],
    out: &'a mut Vec<u8>,
    /// A member was past the recorded bytes: nothing more is printed.
    truncated: bool,
}

impl Typed<'_> {
    fn line_start(&mut self, depth: usize) {
        self.out.resize(self.out.len() + BASE_INDENT + depth, b' ');
    }

    /// One value at byte offset `at` (bit-field: `bits` = (bit offset, width)),
    /// at nesting `depth`, named `.name = ` when it is a member.
    fn value(&mut self, ty: &PrintType, at: usize, depth: usize, name: Option<&str>) {
        self.value_bits(ty, at, None, depth, name)
    }

    fn value_bits(
        &mut self,
        ty: &PrintType,
        at: usize,
        bits: Option<(u64, u32)>,
        depth: usize,
        name: Option<&str>,
    ) {
        if self.truncated {
            return;
        }
        let size = type_size(ty);
        let avail = self.bytes.len();
        let aggregate = matches!(ty, PrintType::Struct { .. } | PrintType::Array { .. });
        if at >= avail || (!aggregate && at + size > avail) {
            self.line_start(depth);
            self.out.extend_from_slice(b"...\n");
            self.truncated = true;
            return;
        }
        let here = &self.bytes[at..avail.min(at + size)];
        let top = depth == 0;
        let zero = match bits {
            Some((off, width)) => bitfield(self.bytes, off, width) == 0,
            None => here.iter().all(|b| *b == 0),
        };
        if zero && !top {
            return;
        }
        self.line_start(depth);
        if let Some(n) = name.filter(|n| !n.is_empty()) {
            self.out.extend_from_slice(format!(".{n} = ").as_bytes());
        }
        self.out
            .extend_from_slice(format!("({})", type_label(ty)).as_bytes());
        let close = if top { "" } else { "," };
        match ty {
            PrintType::Struct { members, .. } => {
                if depth >= MAX_DEPTH {
                    self.out
                        .extend_from_slice(format!(" {{ ... }}{close}\n").as_bytes());
                    return;
                }
                self.out.extend_from_slice(b" {\n");
                for m in members {
                    let off = at + (m.bit_offset / 8) as usize;
                    if m.bit_size > 0 {
                        let abs = (at as u64) * 8 + m.bit_offset;
                        self.value_bits(
                            &m.ty,
                            off,
                            Some((abs, m.bit_size)),
                            depth + 1,
                            Some(&m.name),
                        );
                    } else {
                        self.value(&m.ty, off, depth + 1, Some(&m.name));
                    }
                }
                self.line_start(depth);
                self.out
                    .extend_from_slice(format!("}}{close}\n").as_bytes());
            }
            PrintType::Array {
                elem, len, stride, ..
            } => {
                self.out.extend_from_slice(b" [\n");
                let chars = is_char(elem);
                for i in 0..*len as usize {
                    let e = at + i * *stride as usize;
                    if chars && self.bytes.get(e).map_or(true, |b| *b == 0) {
                        break;
                    }
                    self.value(elem, e, depth + 1, None);
                }
                self.line_start(depth);
                self.out.extend_from_slice(format!("]{close}\n").as_bytes());
            }
            _ => {
                match bits {
                    Some((off, width)) => {
                        let v = bitfield(self.bytes, off, width);
                        self.out.extend_from_slice(v.to_string().as_bytes());
                    }
                    None => typed_scalar(ty, here, self.out),
                }
                self.out.extend_from_slice(format!("{close}\n").as_bytes());
            }
        }
    }
}

/// The type as DTrace 2.x labels a value: anonymous structs and unions are
/// `struct` and `union`.
fn type_label(ty: &PrintType) -> String {
    let name = match ty {
        PrintType::Int { name, .. }
        | PrintType::Pointer { name }
        | PrintType::Enum { name, .. }
        | PrintType::Array { name, .. }
        | PrintType::Struct { name, .. }
        | PrintType::Opaque { name, .. } => name.as_str(),
        PrintType::String { .. } => "string",
    };
    for kw in ["struct", "union"] {
        if let Some(rest) = name.strip_prefix(kw) {
            let rest = rest.trim();
            if rest.is_empty() || rest.starts_with('<') || rest.starts_with('(') {
                return kw.to_string();
            }
        }
    }
    name.to_string()
}

/// Bytes a value of `ty` occupies.
fn type_size(ty: &PrintType) -> usize {
    match ty {
        PrintType::Int { size, .. } | PrintType::Enum { size, .. } => *size as usize,
        PrintType::Pointer { .. } => 8,
        PrintType::Array { len, stride, .. } => *len as usize * *stride as usize,
        PrintType::Struct { members, .. } => members
            .iter()
            .map(|m| {
                let end_bits = m.bit_offset + u64::from(m.bit_size);
                let by_bits = end_bits.div_ceil(8) as usize;
                let by_type = (m.bit_offset / 8) as usize + type_size(&m.ty);
                if m.bit_size > 0 {
                    by_bits
                } else {
                    by_type
                }
            })
            .max()
            .unwrap_or(0),
        PrintType::String { size } | PrintType::Opaque { size, .. } => *size as usize,
    }
}

/// A scalar as DTrace 2.x prints it after its `(type)`.
fn typed_scalar(ty: &PrintType, bytes: &[u8], out: &mut Vec<u8>) {
    match ty {
        PrintType::Int { size, signed, .. } => {
            let Some(raw) = read_uint(bytes, *size as usize) else {
                out.push(b'?');
                return;
            };
            if is_char(ty) && (0x20..0x7f).contains(&raw) {
                out.extend_from_slice(format!("'{}'", raw as u8 as char).as_bytes());
            } else if *signed {
                out.extend_from_slice(sign_extend(raw, *size).to_string().as_bytes());
            } else {
                out.extend_from_slice(raw.to_string().as_bytes());
            }
        }
        PrintType::Pointer { .. } => match read_uint(bytes, 8) {
            Some(v) => out.extend_from_slice(format!("{v:#x}").as_bytes()),
            None => out.push(b'?'),
        },
        _ => scalar(ty, bytes, 0, out),
    }
}

fn indent(depth: usize, out: &mut Vec<u8>) {
    out.resize(out.len() + depth * 4, b' ');
}

fn print_members(members: &[PrintMember], bytes: &[u8], depth: usize, out: &mut Vec<u8>) {
    for m in members {
        indent(depth, out);
        // An anonymous struct or union member opens its braces without a name.
        if !m.name.is_empty() {
            out.extend_from_slice(format!("{} = ", m.name).as_bytes());
        }
        let start = (m.bit_offset / 8) as usize;
        if m.bit_size > 0 {
            let v = bitfield(bytes, m.bit_offset, m.bit_size);
            out.extend_from_slice(format!("{v:#x}").as_bytes());
        } else {
            let rest = bytes.get(start..).unwrap_or(&[]);
            member_value(&m.ty, rest, depth, out);
        }
        out.push(b'\n');
    }
}

fn member_value(ty: &PrintType, bytes: &[u8], depth: usize, out: &mut Vec<u8>) {
    match ty {
        PrintType::Struct { members, .. } => {
            if depth >= MAX_DEPTH {
                out.extend_from_slice(b"{ ... }");
                return;
            }
            out.extend_from_slice(b"{\n");
            print_members(members, bytes, depth + 1, out);
            indent(depth, out);
            out.push(b'}');
        }
        _ => scalar(ty, bytes, depth, out),
    }
}

/// Little-endian read of up to 8 bytes.
fn read_uint(bytes: &[u8], size: usize) -> Option<u64> {
    let b = bytes.get(..size)?;
    let mut buf = [0u8; 8];
    buf.get_mut(..size)?.copy_from_slice(b);
    Some(u64::from_le_bytes(buf))
}

fn bitfield(bytes: &[u8], bit_offset: u64, bit_size: u32) -> u64 {
    let first = (bit_offset / 8) as usize;
    let shift = (bit_offset % 8) as u32;
    let span = ((shift + bit_size).div_ceil(8) as usize).min(8);
    let raw = read_uint(bytes.get(first..).unwrap_or(&[]), span).unwrap_or(0);
    let v = raw >> shift;
    if bit_size >= 64 {
        v
    } else {
        v & ((1u64 << bit_size) - 1)
    }
}

fn is_char(ty: &PrintType) -> bool {
    matches!(ty, PrintType::Int { size: 1, name, .. } if name == "char" || name == "signed char" || name == "unsigned char")
}

fn scalar(ty: &PrintType, bytes: &[u8], depth: usize, out: &mut Vec<u8>) {
    match ty {
        PrintType::Int { size, .. } => match read_uint(bytes, *size as usize) {
            Some(v) => out.extend_from_slice(format!("{v:#x}").as_bytes()),
            None => out.extend_from_slice(b"?"),
        },
        PrintType::Pointer { .. } => match read_uint(bytes, 8) {
            Some(0) => out.extend_from_slice(b"NULL"),
            Some(v) => out.extend_from_slice(format!("{v:#x}").as_bytes()),
            None => out.extend_from_slice(b"?"),
        },
        PrintType::Enum { size, values, .. } => {
            let Some(raw) = read_uint(bytes, *size as usize) else {
                out.extend_from_slice(b"?");
                return;
            };
            let v = sign_extend(raw, *size);
            match values.iter().find(|(_, x)| *x == v) {
                Some((n, _)) => out.extend_from_slice(n.as_bytes()),
                None => out.extend_from_slice(v.to_string().as_bytes()),
            }
        }
        PrintType::Array {
            elem, len, stride, ..
        } => {
            if is_char(elem) {
                let n = (*len as usize).min(bytes.len());
                quoted(&bytes[..n], out);
                return;
            }
            out.extend_from_slice(b"[ ");
            for i in 0..*len as usize {
                if i > 0 {
                    out.extend_from_slice(b", ");
                }
                let at = i.saturating_mul(*stride as usize);
                member_value(elem, bytes.get(at..).unwrap_or(&[]), depth, out);
            }
            out.extend_from_slice(b" ]");
        }
        PrintType::String { size } => {
            let n = (*size as usize).min(bytes.len());
            quoted(&bytes[..n], out);
        }
        PrintType::Struct { .. } => member_value(ty, bytes, depth, out),
        PrintType::Opaque { size, .. } => {
            let n = (*size as usize).min(bytes.len());
            for b in &bytes[..n] {
                out.extend_from_slice(format!("{b:02x}").as_bytes());
            }
        }
    }
}

fn sign_extend(raw: u64, size: u8) -> i64 {
    match size {
        1 => raw as u8 as i8 as i64,
        2 => raw as u16 as i16 as i64,
        4 => raw as u32 as i32 as i64,
        _ => raw as i64,
    }
}

/// A C string (to its first NUL) in double quotes, escaping non-printables.
fn quoted(bytes: &[u8], out: &mut Vec<u8>) {
    out.push(b'"');
    for &b in bytes.iter().take_while(|&&b| b != 0) {
        match b {
            b'"' => out.extend_from_slice(b"\\\""),
            b'\\' => out.extend_from_slice(b"\\\\"),
            b'\n' => out.extend_from_slice(b"\\n"),
            b'\t' => out.extend_from_slice(b"\\t"),
            0x20..=0x7e => out.push(b),
            _ => out.extend_from_slice(format!("\\{b:03o}").as_bytes()),
        }
    }
    out.push(b'"');
}

#[cfg(test)]
mod tests {
    use super::*;

    fn int(name: &str, size: u8) -> PrintType {
        PrintType::Int {
            name: name.into(),
            size,
            signed: true,
        }
    }

    fn member(name: &str, byte: u64, ty: PrintType) -> PrintMember {
        PrintMember {
            name: name.into(),
            bit_offset: byte * 8,
            bit_size: 0,
            ty,
        }
    }

    fn test_struct() -> PrintType {
        // struct s { int a; char name[8]; struct { void *p; } in; enum e k; unsigned f:3; }
        let inner = PrintType::Struct {
            name: "struct <anon>".into(),
            members: vec![member(
                "p",
                0,
                PrintType::Pointer {
                    name: "void *".into(),
                },
            )],
        };
        PrintType::Struct {
            name: "struct s".into(),
            members: vec![
                member("a", 0, int("int", 4)),
                member(
                    "name",
                    4,
                    PrintType::Array {
                        name: "char [8]".into(),
                        elem: Box::new(int("char", 1)),
                        len: 8,
                        stride: 1,
                    },
                ),
                member("in", 16, inner),
                member(
                    "k",
                    24,
                    PrintType::Enum {
                        name: "enum e".into(),
                        size: 4,
                        values: vec![("VREG".into(), 1), ("VPROC".into(), 9)],
                    },
                ),
                PrintMember {
                    name: "f".into(),
                    bit_offset: 28 * 8 + 2,
                    bit_size: 3,
                    ty: int("unsigned int", 4),
                },
            ],
        }
    }

    fn lines(text: &[&str]) -> String {
        text.iter()
            .map(|l| {
                let depth = l.len() - l.trim_start().len();
                format!("{}{}\n", " ".repeat(BASE_INDENT + depth), l.trim_start())
            })
            .collect()
    }

    #[test]
    fn pointer_to_struct_prints_address_then_typed_members() {
        let mut bytes = vec![0u8; 32];
        bytes[0..4].copy_from_slice(&(-2i32).to_le_bytes());
        bytes[4..8].copy_from_slice(b"bash");
        bytes[16..24].copy_from_slice(&0xffff_8000_1234_0000u64.to_le_bytes());
        bytes[24] = 9;
        bytes[28] = 0b0001_0100; // f = 0b101 at bit 2
        let mut out = Vec::new();
        print_value(&test_struct(), &bytes, Some(0xffffc90000001000), &mut out);
        let want = format!(
            "0xffffc90000001000 = *\n{}",
            lines(&[
                "(struct s) {",
                " .a = (int)-2,",
                " .name = (char [8]) [",
                "  (char)'b',",
                "  (char)'a',",
                "  (char)'s',",
                "  (char)'h',",
                " ],",
                " .in = (struct) {",
                "  .p = (void *)0xffff800012340000,",
                " },",
                " .k = (enum e)VPROC,",
                " .f = (unsigned int)5,",
                "}",
            ])
        );
        assert_eq!(String::from_utf8_lossy(&out), want);
    }

    #[test]
    fn zero_members_are_left_out() {
        let mut bytes = vec![0u8; 32];
        bytes[24] = 1;
        let mut out = Vec::new();
        print_value(&test_struct(), &bytes, None, &mut out);
        let want = lines(&["(struct s) {", " .k = (enum e)VREG,", "}"]);
        assert_eq!(String::from_utf8_lossy(&out), want);
    }

    #[test]
    fn members_past_the_recorded_bytes_print_an_ellipsis() {
        // Only 20 bytes recorded (printsize): `in.p` (16..24) does not fit.
        let mut bytes = vec![0u8; 20];
        bytes[0] = 7;
        bytes[16] = 1;
        let mut out = Vec::new();
        print_value(&test_struct(), &bytes, None, &mut out);
        let want = lines(&[
            "(struct s) {",
            " .a = (int)7,",
            " .in = (struct) {",
            "  ...",
            " },",
            "}",
        ]);
        assert_eq!(String::from_utf8_lossy(&out), want);
    }

    #[test]
    fn arrays_and_short_input() {
        let ty = PrintType::Array {
            name: "int [3]".into(),
            elem: Box::new(int("int", 4)),
            len: 3,
            stride: 4,
        };
        let mut out = Vec::new();
        print_value(&ty, &[1, 0, 0, 0, 2, 0, 0, 0], None, &mut out);
        // The third element is past the end of the data: printed as `?`, no panic.
        assert_eq!(String::from_utf8_lossy(&out), "[ 0x1, 0x2, ? ]\n");
    }
}
