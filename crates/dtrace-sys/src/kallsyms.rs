//! Kernel symbol addresses from `/proc/kallsyms` (`address type name [module]` per
//! line). The compiler asks for the address of a backquoted symbol (`` `jiffies``)
//! that kernel BTF does not place. Addresses read as zero (kptr_restrict, no
//! CAP_SYSLOG) count as unknown.

use std::fs::File;
use std::io::{BufRead, BufReader};

/// Where the kernel lists its symbols.
pub const KALLSYMS: &str = "/proc/kallsyms";

/// One kallsyms line: address, type letter, name, module (without brackets).
pub fn parse_line(line: &str) -> Option<(u64, char, &str, Option<&str>)> {
    let mut it = line.split_ascii_whitespace();
    let addr = u64::from_str_radix(it.next()?, 16).ok()?;
    let kind = it.next()?.chars().next()?;
    let name = it.next()?;
    let module = it
        .next()
        .map(|m| m.trim_start_matches('[').trim_end_matches(']'));
    Some((addr, kind, name, module))
}

/// Whether a line's module matches a lookup scope (`None`: any; `vmlinux`: the
/// kernel itself).
fn module_matches(want: Option<&str>, have: Option<&str>) -> bool {
    match want {
        None => true,
        Some("vmlinux") => have.is_none(),
        Some(m) => have == Some(m),
    }
}

/// The address of `name` in kallsyms-formatted lines.
pub fn find_in<R: BufRead>(lines: R, module: Option<&str>, name: &str) -> Option<u64> {
    for line in lines.lines() {
        let Ok(line) = line else { return None };
        if let Some((addr, _, n, m)) = parse_line(&line) {
            if n == name && addr != 0 && module_matches(module, m) {
                return Some(addr);
            }
        }
    }
    None
}

/// The address of kernel symbol `name` (in `module` when given) from
/// `/proc/kallsyms`, if it is listed and visible.
pub fn lookup(module: Option<&str>, name: &str) -> Option<u64> {
    let f = File::open(KALLSYMS).ok()?;
    find_in(BufReader::new(f), module, name)
}

/// Each function symbol (text: `t`/`T`, and weak `w`/`W`) of kallsyms-formatted
/// lines, in order, handed to `f` as (address, name, module; `None` for the kernel
/// itself) borrowed from one line buffer: nothing is allocated per symbol.
pub fn each_function_in<R: BufRead>(mut lines: R, mut f: impl FnMut(u64, &str, Option<&str>)) {
    let mut line = Vec::with_capacity(256);
    loop {
        line.clear();
        match lines.read_until(b'\n', &mut line) {
            Ok(0) | Err(_) => break,
            Ok(_) => {}
        }
        let Ok(text) = std::str::from_utf8(&line) else {
            continue;
        };
        if let Some((addr, kind, name, module)) = parse_line(text.trim_end_matches('\n')) {
            if addr != 0 && matches!(kind, 't' | 'T' | 'w' | 'W') {
                f(addr, name, module);
            }
        }
    }
}

/// Function symbols of kallsyms-formatted lines ([`each_function_in`]), owned.
pub fn functions_in<R: BufRead>(lines: R) -> Vec<(u64, String, Option<String>)> {
    let mut out = Vec::new();
    each_function_in(lines, |addr, name, module| {
        out.push((addr, name.to_string(), module.map(str::to_string)))
    });
    out
}

/// [`each_function_in`] over `/proc/kallsyms` (nothing when unreadable). The
/// file (120k+ lines) is read in large blocks: each read of it formats symbols
/// in the kernel, and fewer, larger reads cost less.
pub fn each_function(f: impl FnMut(u64, &str, Option<&str>)) {
    if let Ok(file) = File::open(KALLSYMS) {
        each_function_in(BufReader::with_capacity(1 << 17, file), f);
    }
}

/// The kernel's function symbols from `/proc/kallsyms` (empty when unreadable).
pub fn functions() -> Vec<(u64, String, Option<String>)> {
    let mut out = Vec::new();
    each_function(|addr, name, module| {
        out.push((addr, name.to_string(), module.map(str::to_string)))
    });
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_symbols() {
        let text = "ffffffff81000000 T _stext\n\
                    ffffffff82a05000 D jiffies\n\
                    0000000000000000 D hidden\n\
                    ffffffffc0001000 t helper\t[ext4]\n";
        let r = |m: Option<&str>, n: &str| find_in(text.as_bytes(), m, n);
        assert_eq!(r(None, "jiffies"), Some(0xffffffff82a05000));
        assert_eq!(r(Some("vmlinux"), "jiffies"), Some(0xffffffff82a05000));
        assert_eq!(r(None, "hidden"), None);
        assert_eq!(r(Some("ext4"), "helper"), Some(0xffffffffc0001000));
        assert_eq!(r(Some("vmlinux"), "helper"), None);
        assert_eq!(r(None, "nope"), None);
        let f = functions_in(text.as_bytes());
        assert_eq!(
            f,
            vec![
                (0xffffffff81000000, "_stext".to_string(), None),
                (
                    0xffffffffc0001000,
                    "helper".to_string(),
                    Some("ext4".to_string())
                ),
            ]
        );
        assert_eq!(
            parse_line("ffffffffc0001000 t helper\t[ext4]"),
            Some((0xffffffffc0001000, 't', "helper", Some("ext4")))
        );
    }
}
