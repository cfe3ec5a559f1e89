//! printf engine: every conversion, flag, width/precision form and length
//! modifier. Expected strings follow ISO C printf semantics, which the Solaris
//! Dynamic Tracing Guide ("Output Formatting: printf") says D follows, with D's
//! rule that each argument is passed at its own type's size.

use dtrace_consumer::printf::{AggArg, Apply, Format};
use dtrace_consumer::Value;

fn i32v(v: i32) -> Value {
    Value::Int {
        bits: v as u32 as u64,
        size: 4,
        signed: true,
    }
}

fn u32v(v: u32) -> Value {
    Value::Int {
        bits: v as u64,
        size: 4,
        signed: false,
    }
}

fn s(v: &str) -> Value {
    Value::Str(v.as_bytes().to_vec())
}

fn fmt(f: &str, args: &[Value]) -> String {
    let mut out = Vec::new();
    Format::parse(f).unwrap().apply(args, &mut out);
    String::from_utf8(out).unwrap()
}

#[test]
fn signed_decimal_and_flags() {
    assert_eq!(fmt("%d", &[i32v(42)]), "42");
    assert_eq!(fmt("%i", &[i32v(-1)]), "-1");
    assert_eq!(fmt("%5d|", &[i32v(42)]), "   42|");
    assert_eq!(fmt("%-5d|", &[i32v(42)]), "42   |");
    assert_eq!(fmt("%05d", &[i32v(42)]), "00042");
    assert_eq!(fmt("%05d", &[i32v(-42)]), "-0042");
    assert_eq!(fmt("%+d", &[i32v(42)]), "+42");
    assert_eq!(fmt("% d", &[i32v(42)]), " 42");
    assert_eq!(fmt("%+ d", &[i32v(42)]), "+42");
    assert_eq!(fmt("%+d", &[i32v(-42)]), "-42");
    assert_eq!(fmt("%.4d", &[i32v(42)]), "0042");
    assert_eq!(fmt("%8.4d|", &[i32v(-42)]), "   -0042|");
    // The 0 flag is ignored when a precision is given.
    assert_eq!(fmt("%08.4d", &[i32v(42)]), "    0042");
    assert_eq!(fmt("%.0d|", &[i32v(0)]), "|");
    assert_eq!(fmt("%-+6d|", &[i32v(7)]), "+7    |");
    assert_eq!(fmt("%d", &[Value::i64(i64::MIN)]), "-9223372036854775808");
}

#[test]
fn unsigned_octal_hex() {
    assert_eq!(fmt("%u", &[i32v(-1)]), "4294967295");
    assert_eq!(fmt("%u", &[Value::i64(-1)]), "18446744073709551615");
    assert_eq!(fmt("%x", &[i32v(-1)]), "ffffffff");
    assert_eq!(fmt("%X", &[u32v(255)]), "FF");
    assert_eq!(fmt("%#x", &[u32v(255)]), "0xff");
    assert_eq!(fmt("%#X", &[u32v(255)]), "0XFF");
    assert_eq!(fmt("%#x", &[u32v(0)]), "0");
    assert_eq!(fmt("%o", &[u32v(8)]), "10");
    assert_eq!(fmt("%#o", &[u32v(8)]), "010");
    assert_eq!(fmt("%#o", &[u32v(0)]), "0");
    assert_eq!(fmt("%08x", &[u32v(0xbeef)]), "0000beef");
    assert_eq!(fmt("%-8x|", &[u32v(0xbeef)]), "beef    |");
    assert_eq!(fmt("%#010x", &[u32v(0xbeef)]), "0x0000beef");
    assert_eq!(fmt("%.6x", &[u32v(0xbeef)]), "00beef");
    // + and space do not apply to unsigned conversions.
    assert_eq!(fmt("%+u % u", &[u32v(5), u32v(6)]), "5 6");
}

/// Solaris Dynamic Tracing Guide, "Output Formatting", "Conversion Formats", d:
/// "If the argument is signed, it will be printed as a signed value. If the
/// argument is unsigned, it will be printed as an unsigned value." (This test
/// used to expect `-1` for an unsigned 0xffffffff, against the guide.)
#[test]
fn decimal_of_unsigned_is_unsigned() {
    assert_eq!(fmt("%d", &[u32v(0xffff_ffff)]), "4294967295");
    assert_eq!(fmt("%i", &[u32v(0xffff_ffff)]), "4294967295");
    let u8v = Value::Int {
        bits: 255,
        size: 1,
        signed: false,
    };
    assert_eq!(fmt("%d", &[u8v]), "255");
    let u64v = Value::Int {
        bits: u64::MAX,
        size: 8,
        signed: false,
    };
    assert_eq!(fmt("%d", &[u64v]), "18446744073709551615");
    assert_eq!(
        fmt("%d", &[Value::Pointer(u64::MAX)]),
        "18446744073709551615"
    );
    // As %u, the sign flags do not apply; width and zero padding still do.
    assert_eq!(
        fmt("%+d|% d|%05d", &[u32v(5), u32v(6), u32v(7)]),
        "5|6|00007"
    );
    // Signed values keep their sign.
    assert_eq!(fmt("%d", &[i32v(-1)]), "-1");
}

/// "Conversion Formats", C: "printed as an ASCII character if the character is
/// a printable ASCII character. If the character is not a printable character,
/// it is printed using the corresponding escape sequence".
#[test]
fn char_or_escape() {
    assert_eq!(fmt("%C", &[i32v(65)]), "A");
    assert_eq!(fmt("%C", &[i32v(10)]), "\\n");
    assert_eq!(fmt("%C", &[i32v(9)]), "\\t");
    assert_eq!(fmt("%C", &[i32v(1)]), "\\001");
    assert_eq!(fmt("%3C|", &[i32v(0x22)]), "  \"|");
}

#[test]
fn length_modifiers() {
    assert_eq!(fmt("%hhd", &[i32v(255)]), "-1");
    assert_eq!(fmt("%hd", &[i32v(65535)]), "-1");
    assert_eq!(fmt("%hu", &[i32v(0x12345)]), "9029");
    assert_eq!(fmt("%hhx", &[i32v(0x1ff)]), "ff");
    assert_eq!(fmt("%lld", &[Value::i64(-5)]), "-5");
    assert_eq!(
        fmt("%ld %lu", &[Value::i64(-5), Value::i64(-5)]),
        "-5 18446744073709551611"
    );
    // Wider modifiers keep the value's own size (D passes ints as ints).
    assert_eq!(fmt("%lu", &[i32v(-1)]), "4294967295");
    assert_eq!(fmt("%lx", &[i32v(-1)]), "ffffffff");
    assert_eq!(
        fmt(
            "%jd %zu %td %Lf",
            &[Value::i64(1), Value::i64(2), Value::i64(3), Value::i64(4)]
        ),
        "1 2 3 4.000000"
    );
}

#[test]
fn chars_and_strings() {
    assert_eq!(fmt("%c", &[i32v(65)]), "A");
    assert_eq!(fmt("%3c|", &[i32v(65)]), "  A|");
    assert_eq!(fmt("%-3c|", &[i32v(65)]), "A  |");
    assert_eq!(fmt("%s", &[s("hello")]), "hello");
    assert_eq!(fmt("%10s|", &[s("hello")]), "     hello|");
    assert_eq!(fmt("%-10s|", &[s("hello")]), "hello     |");
    assert_eq!(fmt("%.3s|", &[s("hello")]), "hel|");
    assert_eq!(fmt("%10.3s|", &[s("hello")]), "       hel|");
    assert_eq!(fmt("%s and %s", &[s("a"), s("")]), "a and ");
}

#[test]
fn escaped_strings() {
    assert_eq!(fmt("%S", &[s("a\"b\\c\n\t\x01")]), "a\\\"b\\\\c\\n\\t\\001");
    assert_eq!(fmt("%8S|", &[s("x\ny")]), "    x\\ny|");
}

#[test]
fn star_width_and_precision() {
    assert_eq!(fmt("%*d|", &[i32v(6), i32v(42)]), "    42|");
    assert_eq!(fmt("%-*d|", &[i32v(6), i32v(42)]), "42    |");
    // A negative * width means left-justify.
    assert_eq!(fmt("%*d|", &[i32v(-6), i32v(42)]), "42    |");
    assert_eq!(fmt("%.*d", &[i32v(4), i32v(42)]), "0042");
    // A negative * precision is as if omitted.
    assert_eq!(fmt("%.*s", &[i32v(-1), s("hello")]), "hello");
    assert_eq!(fmt("%*.*s|", &[i32v(8), i32v(2), s("hello")]), "      he|");
}

#[test]
fn percent_and_literals() {
    assert_eq!(fmt("%%", &[]), "%");
    assert_eq!(fmt("100%% done\n", &[]), "100% done\n");
    assert_eq!(fmt("a%db%sc", &[i32v(1), s("x")]), "a1bxc");
    // Missing arguments print nothing rather than failing.
    assert_eq!(fmt("[%d]", &[]), "[]");
}

#[test]
fn pointers_and_symbols() {
    // "Conversion Formats", p: "printed as a hexadecimal (base 16) integer ...
    // If the # flag is specified, 0x will be prepended to non-zero results."
    // (These used to expect a 0x prefix without #, against the guide.)
    assert_eq!(fmt("%p", &[Value::Pointer(0x1000)]), "1000");
    assert_eq!(fmt("%#p", &[Value::Pointer(0x1000)]), "0x1000");
    assert_eq!(fmt("%#p", &[Value::Pointer(0)]), "0");
    assert_eq!(
        fmt("%#18p|", &[Value::Pointer(0xffff_8000_0000_1000)]),
        "0xffff800000001000|"
    );
    assert_eq!(fmt("%-10p|", &[Value::Pointer(0xab)]), "ab        |");
    assert_eq!(fmt("%A", &[Value::Pointer(0x1234)]), "0x1234");
    assert_eq!(
        fmt("%a", &[Value::Pointer(0xffffffff81000000)]),
        "0xffffffff81000000"
    );
}

#[test]
fn floating_conversions_on_integers() {
    assert_eq!(fmt("%e", &[i32v(12345)]), "1.234500e+04");
    assert_eq!(fmt("%.2e", &[i32v(12345)]), "1.23e+04");
    assert_eq!(fmt("%E", &[i32v(12345)]), "1.234500E+04");
    assert_eq!(fmt("%e", &[i32v(0)]), "0.000000e+00");
    assert_eq!(fmt("%.0e", &[i32v(5)]), "5e+00");
    assert_eq!(fmt("%f", &[i32v(3)]), "3.000000");
    assert_eq!(fmt("%.1f", &[i32v(3)]), "3.0");
    assert_eq!(fmt("%8.2f|", &[i32v(-3)]), "   -3.00|");
    assert_eq!(fmt("%010.2f", &[i32v(-3)]), "-000003.00");
    assert_eq!(fmt("%+.0f", &[i32v(5)]), "+5");
    assert_eq!(fmt("%#.0f", &[i32v(5)]), "5.");
    assert_eq!(fmt("%g", &[i32v(100000)]), "100000");
    assert_eq!(fmt("%g", &[i32v(1000000)]), "1e+06");
    assert_eq!(fmt("%g", &[i32v(0)]), "0");
    assert_eq!(fmt("%g", &[i32v(1234567)]), "1.23457e+06");
    assert_eq!(fmt("%G", &[i32v(10000000)]), "1E+07");
    assert_eq!(fmt("%#g", &[i32v(1)]), "1.00000");
    assert_eq!(fmt("%.3g", &[i32v(1234)]), "1.23e+03");
    assert_eq!(fmt("%u", &[u32v(7)]), "7");
    assert_eq!(
        fmt("%f", &[Value::u64(u64::MAX)]),
        "18446744073709551616.000000"
    );
}

#[test]
fn walltimestamp_dates() {
    // %Y prints "%Y %b %e %T" (e.g. "2004 Jul 26 16:23:58" in the guide); we print UTC.
    assert_eq!(fmt("%Y", &[Value::i64(0)]), "1970 Jan  1 00:00:00");
    assert_eq!(
        fmt("%Y", &[Value::i64(1_000_000_000 * 1_000_000_000 + 999)]),
        "2001 Sep  9 01:46:40"
    );
    assert_eq!(
        fmt("%Y", &[Value::i64(951_782_400 * 1_000_000_000)]),
        "2000 Feb 29 00:00:00"
    );
    assert_eq!(
        fmt("[%25Y]", &[Value::i64(951_782_400 * 1_000_000_000)]),
        "[     2000 Feb 29 00:00:00]"
    );
}

#[test]
fn printa_conversions_take_keys_then_values() {
    let f = Format::parse("%-10s %5d %@8d|%@x\n").unwrap();
    let mut out = Vec::new();
    f.apply_printa(
        &[s("bash"), i32v(12)],
        &[
            AggArg::Value(Value::i64(42)),
            AggArg::Value(Value::i64(255)),
        ],
        &mut out,
    );
    assert_eq!(
        String::from_utf8(out).unwrap(),
        "bash          12       42|ff\n"
    );
}

#[test]
fn parse_errors() {
    assert!(Format::parse("%").is_err());
    assert!(Format::parse("%5").is_err());
    assert!(Format::parse("%.3.4d").is_err());
    assert!(Format::parse("%**d").is_err());
    assert_eq!(Format::parse("%d %s %%").unwrap().nargs(), 2);
    assert_eq!(Format::parse("%*.*d").unwrap().nargs(), 3);
}
