//! Decoding one stored [`Field`] from record or key bytes into a [`Value`].
//!
//! Architecture invariant: decoding is bounds-checked and never panics; a field
//! that does not fit in the bytes it is read from is a [`DecodeError`].

use dtrace_desc::{Field, StackKind, ValueType};
use std::fmt;

/// One decoded value, as the formatting code sees it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Value {
    /// A C integer. `bits` holds the raw value zero-extended from `size` bytes;
    /// use [`Value::as_i64`] / [`Value::as_u64`] to read it.
    Int { bits: u64, size: u8, signed: bool },
    /// A pointer-sized unsigned value.
    Pointer(u64),
    /// A string: the bytes before the first NUL (no UTF-8 requirement, as in C).
    Str(Vec<u8>),
    /// Raw bytes (structs, arrays).
    Bytes(Vec<u8>),
    /// A kernel stack: its return addresses, innermost first (zeros after the
    /// last frame kept, so equal stacks compare equal).
    Stack(Vec<u64>),
    /// A user stack (`ustack()`): the process and its addresses, innermost first.
    UStack { pid: u64, pcs: Vec<u64> },
    /// A traced `ustack()` with the registers and stack copy to unwind
    /// (`pcs` are the kernel's frame-pointer frames, used when unwinding
    /// finds fewer).
    UCapture(Box<UserCapture>),
    /// A user address with its process (`uaddr()` and friends, `%A`).
    USym {
        kind: StackKind,
        pid: u64,
        addr: u64,
    },
}

/// A captured user stack (see [`ValueType::UserStack`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UserCapture {
    pub pid: u64,
    pub pcs: Vec<u64>,
    pub ip: u64,
    pub sp: u64,
    pub bp: u64,
    /// Where `stack` was in the process.
    pub stack_addr: u64,
    pub stack: Vec<u8>,
    /// A recorded `ustackdepth`: the value is the number of frames this
    /// stack unwinds to (see [`crate::ustack::settle`]), not the stack.
    pub depth: bool,
}

/// Why a field could not be decoded.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum DecodeError {
    /// The field's bytes extend past the end of the input.
    OutOfBounds { offset: u32, size: u32, len: usize },
    /// An integer with a size other than 1, 2, 4 or 8.
    BadIntSize(u8),
}

impl fmt::Display for DecodeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            DecodeError::OutOfBounds { offset, size, len } => write!(
                f,
                "field at offset {offset} of size {size} exceeds {len}-byte input"
            ),
            DecodeError::BadIntSize(s) => write!(f, "invalid integer size {s}"),
        }
    }
}

impl std::error::Error for DecodeError {}

fn slice(bytes: &[u8], offset: u32, size: u32) -> Result<&[u8], DecodeError> {
    let oob = DecodeError::OutOfBounds {
        offset,
        size,
        len: bytes.len(),
    };
    let start = offset as usize;
    let end = start.checked_add(size as usize).ok_or(oob.clone())?;
    bytes.get(start..end).ok_or(oob)
}

/// Reads a native-endian unsigned integer of 1, 2, 4 or 8 bytes.
pub fn read_uint(bytes: &[u8], offset: u32, size: u8) -> Result<u64, DecodeError> {
    let b = slice(bytes, offset, size as u32)?;
    let mut buf = [0u8; 8];
    match size {
        1 | 2 | 4 | 8 => {
            // Native endian: place the bytes where a native u64 of that value keeps them.
            if cfg!(target_endian = "little") {
                buf[..b.len()].copy_from_slice(b);
                Ok(u64::from_le_bytes(buf))
            } else {
                buf[8 - b.len()..].copy_from_slice(b);
                Ok(u64::from_be_bytes(buf))
            }
        }
        other => Err(DecodeError::BadIntSize(other)),
    }
}

/// Reads a native-endian i64 word at `offset` (aggregation values).
pub fn read_i64(bytes: &[u8], offset: u32) -> Result<i64, DecodeError> {
    read_uint(bytes, offset, 8).map(|v| v as i64)
}

/// Decodes `field` from `bytes` (offsets are relative to the start of `bytes`).
pub fn decode(field: &Field, bytes: &[u8]) -> Result<Value, DecodeError> {
    match &field.ty {
        ValueType::Int { size, signed } => Ok(Value::Int {
            bits: read_uint(bytes, field.offset, *size)?,
            size: *size,
            signed: *signed,
        }),
        ValueType::Pointer => Ok(Value::Pointer(read_uint(bytes, field.offset, 8)?)),
        ValueType::String { size } => {
            let b = slice(bytes, field.offset, *size)?;
            let end = b.iter().position(|&c| c == 0).unwrap_or(b.len());
            Ok(Value::Str(b[..end].to_vec()))
        }
        ValueType::Bytes { size } => Ok(Value::Bytes(slice(bytes, field.offset, *size)?.to_vec())),
        ValueType::Stack { frames, user } => {
            // A user stack's field starts with the pid (see the description).
            let skip = if *user { 8 } else { 0 };
            let b = slice(bytes, field.offset, frames * 8 + skip)?;
            let pcs = b[skip as usize..]
                .chunks_exact(8)
                .map(|w| {
                    let mut a = [0u8; 8];
                    a.copy_from_slice(w);
                    u64::from_ne_bytes(a)
                })
                .collect();
            if *user {
                let pid = read_uint(bytes, field.offset, 8)?;
                Ok(Value::UStack { pid, pcs })
            } else {
                Ok(Value::Stack(pcs))
            }
        }
        ValueType::UserStack {
            frames,
            pages,
            depth,
        } => {
            let fp = Field {
                offset: field.offset,
                ty: ValueType::Stack {
                    frames: *frames,
                    user: true,
                },
            };
            let Value::UStack { pid, pcs } = decode(&fp, bytes)? else {
                return Err(DecodeError::BadIntSize(0));
            };
            let regs = field.offset + 8 + frames * 8;
            let word = |i: u32| read_uint(bytes, regs + i * 8, 8);
            let page = dtrace_desc::USTACK_PAGE;
            let n = word(6)?.min(*pages as u64) as u32;
            let data = regs + dtrace_desc::USTACK_REGS * 8;
            Ok(Value::UCapture(Box::new(UserCapture {
                pid,
                pcs,
                ip: word(0)?,
                sp: word(3)?,
                bp: word(4)?,
                stack_addr: word(5)?,
                stack: slice(bytes, data, n * page)?.to_vec(),
                depth: *depth,
            })))
        }
        ValueType::UserSym { kind } => Ok(Value::USym {
            kind: *kind,
            pid: read_uint(bytes, field.offset, 8)?,
            addr: read_uint(bytes, field.offset + 8, 8)?,
        }),
    }
}

/// Sign-extends the low `size` bytes of `bits`.
pub fn sign_extend(bits: u64, size: u8) -> i64 {
    match size {
        1 => bits as u8 as i8 as i64,
        2 => bits as u16 as i16 as i64,
        4 => bits as u32 as i32 as i64,
        _ => bits as i64,
    }
}

/// Keeps the low `size` bytes of `bits`.
pub fn mask(bits: u64, size: u8) -> u64 {
    match size {
        1 => bits & 0xff,
        2 => bits & 0xffff,
        4 => bits & 0xffff_ffff,
        _ => bits,
    }
}

impl Value {
    /// The value as a signed 64-bit integer (strings and bytes read as 0).
    pub fn as_i64(&self) -> i64 {
        match self {
            Value::Int { bits, size, signed } => {
                if *signed {
                    sign_extend(*bits, *size)
                } else {
                    mask(*bits, *size) as i64
                }
            }
            Value::Pointer(p) => *p as i64,
            Value::Str(_)
            | Value::Bytes(_)
            | Value::Stack(_)
            | Value::UStack { .. }
            | Value::UCapture(_) => 0,
            Value::USym { addr, .. } => *addr as i64,
        }
    }

    /// The value as an unsigned 64-bit integer (signed values are sign-extended first).
    pub fn as_u64(&self) -> u64 {
        self.as_i64() as u64
    }

    /// The integer in decimal as trace() and aggregation keys show it: signed
    /// types with their sign (`(int8_t)-1` is `-1`), unsigned ones unsigned
    /// (`(uint32_t)-1` is `4294967295`); pointers as signed 64-bit values.
    pub fn decimal(&self) -> String {
        match self {
            Value::Int {
                bits,
                size,
                signed: false,
            } => mask(*bits, *size).to_string(),
            other => other.as_i64().to_string(),
        }
    }

    /// Size in bytes of an integer or pointer value (8 for anything else).
    pub fn int_size(&self) -> u8 {
        match self {
            Value::Int { size, .. } => *size,
            _ => 8,
        }
    }

    /// Builds a signed 8-byte integer value.
    pub fn i64(v: i64) -> Value {
        Value::Int {
            bits: v as u64,
            size: 8,
            signed: true,
        }
    }

    /// Builds an unsigned 8-byte integer value.
    pub fn u64(v: u64) -> Value {
        Value::Int {
            bits: v,
            size: 8,
            signed: false,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn field(offset: u32, ty: ValueType) -> Field {
        Field { offset, ty }
    }

    #[test]
    fn ints_by_size_and_sign() {
        let mut b = vec![0u8; 16];
        b[0..4].copy_from_slice(&(-5i32).to_ne_bytes());
        b[8..16].copy_from_slice(&u64::MAX.to_ne_bytes());
        let v = decode(
            &field(
                0,
                ValueType::Int {
                    size: 4,
                    signed: true,
                },
            ),
            &b,
        )
        .unwrap();
        assert_eq!(v.as_i64(), -5);
        let v = decode(
            &field(
                0,
                ValueType::Int {
                    size: 4,
                    signed: false,
                },
            ),
            &b,
        )
        .unwrap();
        assert_eq!(v.as_i64(), 0xffff_fffb);
        let v = decode(&field(8, ValueType::Pointer), &b).unwrap();
        assert_eq!(v.as_u64(), u64::MAX);
    }

    #[test]
    fn strings_stop_at_nul() {
        let b = b"abc\0def\0";
        let v = decode(&field(0, ValueType::String { size: 8 }), b).unwrap();
        assert_eq!(v, Value::Str(b"abc".to_vec()));
        let v = decode(&field(4, ValueType::String { size: 3 }), b).unwrap();
        assert_eq!(v, Value::Str(b"def".to_vec()));
    }

    #[test]
    fn short_input_is_an_error() {
        let b = [0u8; 3];
        assert!(decode(
            &field(
                0,
                ValueType::Int {
                    size: 4,
                    signed: true
                }
            ),
            &b
        )
        .is_err());
        assert!(decode(&field(u32::MAX, ValueType::Pointer), &b).is_err());
        assert!(decode(&field(2, ValueType::String { size: u32::MAX }), &b).is_err());
        assert!(decode(
            &field(
                0,
                ValueType::Int {
                    size: 3,
                    signed: true
                }
            ),
            &[0u8; 8]
        )
        .is_err());
    }
}
