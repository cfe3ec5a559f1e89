//! Mutations of D source text: byte flips, insertions and deletions, splices of
//! tokens from other corpus entries, insertions of D keywords and operators, and
//! deep nesting (which finds recursion limits).

use crate::rng::Rng;

/// Words and operators of D that a mutation may insert.
pub const DICTIONARY: &[&str] = &[
    "BEGIN",
    "END",
    "ERROR",
    "syscall::read:entry",
    "syscall:::return",
    "tick-1s",
    "profile-97",
    "dtrace:::BEGIN",
    "*:::",
    "::",
    ":",
    "/",
    "{",
    "}",
    "(",
    ")",
    "[",
    "]",
    ";",
    ",",
    "->",
    ".",
    "++",
    "--",
    "<<=",
    ">>=",
    "<<",
    ">>",
    "&&",
    "||",
    "^^",
    "!",
    "~",
    "*",
    "&",
    "-",
    "+",
    "%",
    "==",
    "!=",
    "<=",
    ">=",
    "<",
    ">",
    "=",
    "+=",
    "-=",
    "*=",
    "/=",
    "%=",
    "&=",
    "|=",
    "^=",
    "?",
    "...",
    "@",
    "@a",
    "@[",
    "self->",
    "this->",
    "`",
    "vmlinux`",
    "sizeof",
    "sizeof(",
    "offsetof(",
    "stringof(",
    "xlate <",
    "translator",
    "inline",
    "typedef",
    "struct",
    "union",
    "enum",
    "provider",
    "probe",
    "if",
    "else",
    "return",
    "for",
    "while",
    "do",
    "break",
    "continue",
    "switch",
    "case",
    "default",
    "int",
    "char",
    "char *",
    "string",
    "unsigned",
    "signed",
    "long long",
    "short",
    "void",
    "float",
    "double",
    "_Bool",
    "const",
    "volatile",
    "restrict",
    "register",
    "static",
    "extern",
    "self",
    "this",
    "global",
    "count()",
    "sum(",
    "avg(",
    "min(",
    "max(",
    "stddev(",
    "quantize(",
    "lquantize(",
    "llquantize(",
    "printf(\"%d\\n\", ",
    "printf(\"%s %@d\", ",
    "printa(",
    "trace(",
    "tracemem(",
    "exit(0)",
    "speculation()",
    "speculate(",
    "commit(",
    "discard(",
    "stack()",
    "ustack()",
    "copyinstr(",
    "strlen(",
    "strjoin(",
    "trunc(",
    "clear(",
    "normalize(",
    "denormalize(",
    "$0",
    "$1",
    "$2",
    "$$1",
    "$99",
    "$target",
    "$pid",
    "$uid",
    "$nosuch",
    "args[0]",
    "args[",
    "arg0",
    "arg9",
    "execname",
    "pid",
    "tid",
    "timestamp",
    "probefunc",
    "curthread->",
    "errno",
    "\"",
    "'",
    "\"\\n\"",
    "'\\0'",
    "'ab'",
    "0x",
    "0x7fffffffffffffff",
    "0xffffffffffffffffff",
    "077",
    "08",
    "1e9",
    "1.5",
    "42ULL",
    "-1",
    "0",
    "\\",
    "/*",
    "*/",
    "//",
    "\n",
    " ",
    "\t",
    "#pragma D option quiet\n",
    "#pragma D ",
    "#pragma ",
    "#",
    "# 3 \"x.d\"\n",
    "#line 9\n",
    "#!/usr/sbin/dtrace -s\n",
    "\0",
];

/// Bytes that matter to D's lexer.
const PUNCT: &[u8] = b"{}()[];:/*@$\"'\\#\n`.-+";

/// How a nesting mutation wraps text: (open, close).
const NESTERS: &[(&str, &str)] = &[
    ("(", ")"),
    ("{", "}"),
    ("[", "]"),
    ("-", ""),
    ("!", ""),
    ("*", ""),
    ("(int)", ""),
    ("if (1) ", ""),
    ("x ? ", " : 0"),
    ("1 + ", ""),
    ("sizeof(", ")"),
    ("a[", "]"),
    ("struct { ", " x; } "),
    ("*", ""),
    ("(*", ")"),
];

/// Split text into rough tokens: runs of word characters, runs of spaces, and
/// single other bytes. Good enough to splice programs together.
pub fn rough_tokens(text: &[u8]) -> Vec<std::ops::Range<usize>> {
    let mut out = Vec::new();
    let mut i = 0;
    let class = |b: u8| -> u8 {
        if b.is_ascii_alphanumeric() || b == b'_' || b == b'$' {
            0
        } else if b.is_ascii_whitespace() {
            1
        } else {
            2
        }
    };
    while i < text.len() {
        let c = class(text[i]);
        let mut j = i + 1;
        if c != 2 {
            while j < text.len() && class(text[j]) == c {
                j += 1;
            }
        }
        out.push(i..j);
        i = j;
    }
    out
}

/// One mutation of `input`, maybe using `other` (another corpus entry).
pub fn mutate_once(rng: &mut Rng, input: &mut Vec<u8>, other: &[u8]) {
    let len = input.len();
    let at = rng.below(len + 1);
    match rng.below(12) {
        0 => {
            if let Some(b) = input.get_mut(rng.below(len)) {
                *b ^= 1 << rng.below(8);
            }
        }
        1 => {
            let b = match rng.below(4) {
                0 => rng.below(256) as u8,
                _ => PUNCT.get(rng.below(PUNCT.len())).copied().unwrap_or(b' '),
            };
            input.insert(at, b);
        }
        2 => {
            let n = rng.below(8).min(len - at.min(len));
            input.drain(at.min(len)..at.min(len) + n);
        }
        3..=5 => {
            if let Some(w) = rng.pick(DICTIONARY) {
                splice(input, at, w.as_bytes());
            }
        }
        6 | 7 => {
            // Replace a run of our tokens with a run of the other's.
            let mine = rough_tokens(input);
            let theirs = rough_tokens(other);
            if mine.is_empty() || theirs.is_empty() {
                return;
            }
            let a = rng.below(mine.len());
            let b = (a + rng.below(6)).min(mine.len() - 1);
            let c = rng.below(theirs.len());
            let d = (c + rng.below(12)).min(theirs.len() - 1);
            let piece = other[theirs[c].start..theirs[d].end].to_vec();
            input.splice(mine[a].start..mine[b].end, piece);
        }
        8 => {
            // Delete a run of tokens.
            let mine = rough_tokens(input);
            if mine.is_empty() {
                return;
            }
            let a = rng.below(mine.len());
            let b = (a + rng.below(4)).min(mine.len() - 1);
            input.drain(mine[a].start..mine[b].end);
        }
        9 => {
            if rng.one_in(2) {
                nest(rng, input)
            } else {
                generated(rng, input)
            }
        }
        10 => {
            // Duplicate a chunk.
            let start = rng.below(len + 1);
            let end = (start + rng.below(64)).min(len);
            let chunk = input[start..end].to_vec();
            splice(input, rng.below(len + 1), &chunk);
        }
        _ => {
            if rng.one_in(2) {
                input.truncate(at);
            } else {
                let n = other.len();
                let s = rng.below(n + 1);
                let e = (s + rng.below(200)).min(n);
                splice(input, at, &other[s..e]);
            }
        }
    }
}

/// Insert a generated statement after a `{`, or put a generated expression
/// in place of a token.
fn generated(rng: &mut Rng, input: &mut Vec<u8>) {
    let braces: Vec<usize> = input
        .iter()
        .enumerate()
        .filter(|(_, &b)| b == b'{')
        .map(|(i, _)| i + 1)
        .collect();
    if !braces.is_empty() && rng.one_in(2) {
        let at = braces.get(rng.below(braces.len())).copied().unwrap_or(0);
        let s = format!(" {} ", crate::gen::statement(rng));
        splice(input, at, s.as_bytes());
        return;
    }
    let toks = rough_tokens(input);
    let Some(t) = toks.get(rng.below(toks.len())).cloned() else {
        return;
    };
    let e = crate::gen::expr(rng, 3);
    input.splice(t, e.into_bytes());
}

fn splice(input: &mut Vec<u8>, at: usize, piece: &[u8]) {
    let at = at.min(input.len());
    input.splice(at..at, piece.iter().copied());
}

/// Wrap a token range (or an empty place) in many levels of one nesting form.
fn nest(rng: &mut Rng, input: &mut Vec<u8>) {
    let Some(&(open, close)) = rng.pick(NESTERS) else {
        return;
    };
    let depth = match rng.below(4) {
        0 => rng.below(10) + 1,
        1 => rng.below(200) + 1,
        2 => rng.below(2000) + 1,
        _ => rng.below(20000) + 1,
    };
    let toks = rough_tokens(input);
    let (s, e) = match toks.len() {
        0 => (0, 0),
        n => {
            let a = rng.below(n);
            let b = (a + rng.below(3)).min(n - 1);
            (toks[a].start, toks[b].end)
        }
    };
    let mut out = Vec::with_capacity(input.len() + depth * (open.len() + close.len()));
    out.extend_from_slice(&input[..s]);
    for _ in 0..depth {
        out.extend_from_slice(open.as_bytes());
    }
    out.extend_from_slice(&input[s..e]);
    for _ in 0..depth {
        out.extend_from_slice(close.as_bytes());
    }
    out.extend_from_slice(&input[e..]);
    *input = out;
}

/// A few stacked mutations; the result stays under `max_len` bytes.
pub fn mutate(rng: &mut Rng, input: &[u8], other: &[u8], max_len: usize) -> Vec<u8> {
    let mut out = input.to_vec();
    let n = 1 + rng.below(4);
    for _ in 0..n {
        mutate_once(rng, &mut out, other);
    }
    out.truncate(max_len);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tokens_cover_the_text() {
        let t = b"BEGIN { x = 1; }";
        let toks = rough_tokens(t);
        assert_eq!(toks.first().map(|r| r.start), Some(0));
        assert_eq!(toks.last().map(|r| r.end), Some(t.len()));
        assert!(toks.windows(2).all(|w| w[0].end == w[1].start));
    }

    #[test]
    fn mutations_stay_in_bounds() {
        let mut rng = Rng::new(1);
        let mut cur = b"BEGIN { printf(\"%d\", 1); }".to_vec();
        for _ in 0..5000 {
            cur = mutate(
                &mut rng,
                &cur,
                b"syscall::read:entry /pid/ { @[execname] = count(); }",
                4096,
            );
            if cur.is_empty() {
                cur = b"END".to_vec();
            }
        }
        for _ in 0..500 {
            let mut empty = Vec::new();
            mutate_once(&mut rng, &mut empty, b"");
        }
    }
}
