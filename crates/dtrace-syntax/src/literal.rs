//! Decoding of integer, character and string literals.

use crate::ast::IntSuffix;
use crate::diag::{Diagnostic, Tag};
use crate::span::Span;

/// A decoded integer literal.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct IntLit {
    pub value: u64,
    pub suffix: IntSuffix,
    pub radix: u8,
}

fn suffix_of(s: &str) -> Option<IntSuffix> {
    Some(match s.to_ascii_lowercase().as_str() {
        "" => IntSuffix::None,
        "u" => IntSuffix::U,
        "l" => IntSuffix::L,
        "ul" | "lu" => IntSuffix::UL,
        "ll" => IntSuffix::LL,
        "ull" | "llu" => IntSuffix::ULL,
        _ => return None,
    })
}

/// Decode the text of an integer constant (`42`, `052`, `0x2a`, `42ul`).
/// `span` is used for errors.
pub fn parse_int(text: &str, span: Span) -> Result<IntLit, Diagnostic> {
    let b = text.as_bytes();
    let (radix, digits_start) = if b.len() >= 2 && b[0] == b'0' && (b[1] == b'x' || b[1] == b'X') {
        (16u32, 2usize)
    } else if b.len() >= 2 && b[0] == b'0' && b[1].is_ascii_digit() {
        (8, 1)
    } else {
        (10, 0)
    };
    let mut end = digits_start;
    while end < b.len() && (b[end] as char).is_digit(if radix == 16 { 16 } else { 10 }) {
        end += 1;
    }
    let digits = &text[digits_start..end];
    let suffix_text = &text[end..];
    if radix == 16 && digits.is_empty() {
        return Err(Diagnostic::new(
            Tag::D_INT_DIGIT,
            span,
            format!("invalid digit in hexadecimal constant {}", text),
        ));
    }
    let Some(suffix) = suffix_of(suffix_text) else {
        // A letter that is not a suffix: garbage after the digits.
        return Err(Diagnostic::new(
            Tag::D_SYNTAX,
            span,
            format!(
                "invalid suffix \"{}\" on integer constant {}",
                suffix_text, text
            ),
        ));
    };
    let mut value: u64 = 0;
    for c in digits.chars() {
        let d = c.to_digit(16).unwrap_or(0);
        if d >= radix {
            return Err(Diagnostic::new(
                Tag::D_INT_DIGIT,
                span,
                format!("invalid digit '{}' in octal constant {}", c, text),
            ));
        }
        value = match value
            .checked_mul(radix as u64)
            .and_then(|v| v.checked_add(d as u64))
        {
            Some(v) => v,
            None => {
                return Err(Diagnostic::new(
                    Tag::D_INT_OFLOW,
                    span,
                    format!(
                        "integer constant {} is too large to be represented in 64 bits",
                        text
                    ),
                ))
            }
        };
    }
    Ok(IntLit {
        value,
        suffix,
        radix: radix as u8,
    })
}

/// Decode one escape sequence starting just after the backslash at `b[i]`, as
/// DTrace does (libdtrace's `stresc2chr`): `\a \b \f \n \r \t \v`, `\"`, `\\`,
/// one to three octal digits, `\x` and hex digits; any other character keeps
/// its backslash (`'\?'` is two characters). Appends the bytes to `out` and
/// returns the index after the sequence.
pub fn decode_escape(
    b: &[u8],
    i: usize,
    span: Span,
    out: &mut Vec<u8>,
) -> Result<usize, Diagnostic> {
    let Some(&c) = b.get(i) else {
        out.push(b'\\');
        return Ok(i);
    };
    let simple = match c {
        b'n' => Some(b'\n'),
        b't' => Some(b'\t'),
        b'r' => Some(b'\r'),
        b'a' => Some(0x07),
        b'b' => Some(0x08),
        b'f' => Some(0x0c),
        b'v' => Some(0x0b),
        b'\\' => Some(b'\\'),
        b'"' => Some(b'"'),
        _ => None,
    };
    if let Some(v) = simple {
        out.push(v);
        return Ok(i + 1);
    }
    if (b'0'..=b'7').contains(&c) {
        let mut v: u32 = 0;
        let mut j = i;
        while j < b.len() && j < i + 3 && (b'0'..=b'7').contains(&b[j]) {
            v = v * 8 + (b[j] - b'0') as u32;
            j += 1;
        }
        out.push((v & 0xff) as u8);
        return Ok(j);
    }
    if c == b'x' {
        let mut v: u32 = 0;
        let mut j = i + 1;
        while j < b.len() && b[j].is_ascii_hexdigit() {
            v = (v << 4) | (b[j] as char).to_digit(16).unwrap_or(0);
            j += 1;
        }
        if j == i + 1 {
            return Err(Diagnostic::new(
                Tag::D_SYNTAX,
                span,
                "\\x used with no following hex digits",
            ));
        }
        out.push((v & 0xff) as u8);
        return Ok(j);
    }
    out.push(b'\\');
    out.push(c);
    Ok(i + 1)
}

/// Decode the body of a character constant (between the quotes).
pub fn parse_char(body: &[u8], span: Span) -> Result<i64, Diagnostic> {
    let mut bytes = Vec::new();
    let mut i = 0;
    while i < body.len() {
        if body[i] == b'\\' {
            i = decode_escape(body, i + 1, span, &mut bytes)?;
        } else {
            bytes.push(body[i]);
            i += 1;
        }
    }
    match bytes.len() {
        0 => Err(Diagnostic::new(
            Tag::D_CHR_NULL,
            span,
            "empty character constant",
        )),
        // A single character is a (signed) char, as in C.
        1 => Ok(bytes[0] as i8 as i64),
        // Several: big-endian, the first byte's sign extending the value.
        n if n > 8 => Err(Diagnostic::new(
            Tag::D_CHR_OFLOW,
            span,
            "character constant is too long",
        )),
        _ => Ok(bytes[1..]
            .iter()
            .fold(bytes[0] as i8 as i64, |acc, &b| (acc << 8) | b as i64)),
    }
}

/// Decode the body of a string literal (between the quotes).
pub fn parse_str(body: &[u8], span: Span) -> Result<Vec<u8>, Diagnostic> {
    let mut out = Vec::with_capacity(body.len());
    let mut i = 0;
    while i < body.len() {
        if body[i] == b'\\' {
            i = decode_escape(body, i + 1, span, &mut out)?;
        } else {
            out.push(body[i]);
            i += 1;
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sp() -> Span {
        Span::default()
    }

    #[test]
    fn ints() {
        let i = parse_int("0x2aUL", sp()).unwrap();
        assert_eq!((i.value, i.suffix, i.radix), (42, IntSuffix::UL, 16));
        let i = parse_int("052", sp()).unwrap();
        assert_eq!((i.value, i.radix), (42, 8));
        let i = parse_int("0", sp()).unwrap();
        assert_eq!((i.value, i.radix), (0, 10));
        assert_eq!(
            parse_int("18446744073709551615", sp()).unwrap().value,
            u64::MAX
        );
        assert_eq!(
            parse_int("18446744073709551616", sp()).unwrap_err().tag,
            Tag::D_INT_OFLOW
        );
        assert_eq!(parse_int("09", sp()).unwrap_err().tag, Tag::D_INT_DIGIT);
        assert_eq!(parse_int("0x", sp()).unwrap_err().tag, Tag::D_INT_DIGIT);
        assert_eq!(parse_int("12abc", sp()).unwrap_err().tag, Tag::D_SYNTAX);
        assert_eq!(parse_int("1llu", sp()).unwrap().suffix, IntSuffix::ULL);
    }

    #[test]
    fn chars_and_strings() {
        assert_eq!(parse_char(b"a", sp()).unwrap(), 97);
        assert_eq!(parse_char(b"\\n", sp()).unwrap(), 10);
        assert_eq!(parse_char(b"\\377", sp()).unwrap(), -1);
        assert_eq!(parse_char(b"ab", sp()).unwrap(), 0x6162);
        // DTrace's escapes: `\?` and `\'` are not escapes (the backslash stays),
        // `\"` is; octal takes up to three digits.
        assert_eq!(parse_char(b"\\?", sp()).unwrap(), 0x5c3f);
        assert_eq!(parse_char(b"\\'", sp()).unwrap(), 0x5c27);
        assert_eq!(parse_char(b"\\q", sp()).unwrap(), 0x5c71);
        assert_eq!(parse_char(b"\\\"", sp()).unwrap(), 0x22);
        assert_eq!(parse_char(b"\\0101x", sp()).unwrap(), 0x083178);
        assert_eq!(parse_char(b"x\\by", sp()).unwrap(), 0x780879);
        // Eight characters fill 64 bits; a leading byte >= 0x80 sign-extends.
        assert_eq!(parse_char(b"abcdefgh", sp()).unwrap(), 0x6162636465666768);
        assert_eq!(parse_char(b"\\377a", sp()).unwrap(), -159);
        assert_eq!(parse_str(b"a\\?b", sp()).unwrap(), b"a\\?b");
        assert_eq!(parse_char(b"", sp()).unwrap_err().tag, Tag::D_CHR_NULL);
        assert_eq!(
            parse_char(b"123456789", sp()).unwrap_err().tag,
            Tag::D_CHR_OFLOW
        );
        assert_eq!(
            parse_str(b"a\\tb\\x41\\101\\0\\\\\\\"", sp()).unwrap(),
            b"a\tbAA\0\\\"".to_vec()
        );
        assert!(parse_str(b"\\xg", sp()).is_err());
    }
}
