//! The `print()` action: a value printed with its type's structure.
//!
//! Layout follows the Solaris Dynamic Tracing Guide's `print` example: the type's
//! name and `{`, one `member = value` line per member (nested aggregates open their
//! own `{`), 4 columns of indent per level, integers in hex, null pointers as `NULL`,
//! enums by enumerator name, char arrays as quoted strings, other arrays as
//! `[ a, b ]`, then `}`. An anonymous member (C11 unnamed struct or union) is
//! printed as its braces alone, without `name = `.

use dtrace_desc::{PrintMember, PrintType};

/// Deepest nesting printed; deeper members print as `{ ... }`.
const MAX_DEPTH: usize = 32;

/// Print `bytes` as a value of type `ty`, ending with a newline.
pub fn print_value(ty: &PrintType, bytes: &[u8], out: &mut Vec<u8>) {
    match ty {
        PrintType::Struct { name, members } => {
            out.extend_from_slice(format!("{name} {{\n").as_bytes());
            print_members(members, bytes, 1, out);
            out.extend_from_slice(b"}\n");
        }
        _ => {
            scalar(ty, bytes, 0, out);
            out.push(b'\n');
        }
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

    #[test]
    fn struct_layout_as_the_guide_shows() {
        // struct s { int a; char name[8]; struct { void *p; } in; enum e k; unsigned f:3; }
        let inner = PrintType::Struct {
            name: "struct in".into(),
            members: vec![member(
                "p",
                0,
                PrintType::Pointer {
                    name: "void *".into(),
                },
            )],
        };
        let ty = PrintType::Struct {
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
        };
        let mut bytes = vec![0u8; 32];
        bytes[0] = 0x36;
        bytes[4..8].copy_from_slice(b"bash");
        bytes[24] = 9;
        bytes[28] = 0b0001_0100; // f = 0b101 at bit 2
        let mut out = Vec::new();
        print_value(&ty, &bytes, &mut out);
        let want = "struct s {\n    a = 0x36\n    name = \"bash\"\n    in = {\n        p = NULL\n    }\n    k = VPROC\n    f = 0x5\n}\n";
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
        print_value(&ty, &[1, 0, 0, 0, 2, 0, 0, 0], &mut out);
        // The third element is past the end of the data: printed as `?`, no panic.
        assert_eq!(String::from_utf8_lossy(&out), "[ 0x1, 0x2, ? ]\n");
    }
}
