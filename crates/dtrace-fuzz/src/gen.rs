//! Random D expressions and statements from a small grammar, spliced into
//! inputs by [`crate::mutate`]: most come out well-typed, so they reach the
//! type checker's and code generator's deeper paths, with edge-case constants,
//! casts, pointers, strings and aggregations mixed in.

use crate::rng::Rng;

const ATOMS: &[&str] = &[
    "0",
    "1",
    "-1",
    "7",
    "255",
    "0x7fffffffffffffff",
    "0x8000000000000000",
    "0xffffffffffffffff",
    "'a'",
    "\"\"",
    "\"str\"",
    "arg0",
    "arg1",
    "arg9",
    "pid",
    "tid",
    "ppid",
    "uid",
    "cpu",
    "timestamp",
    "vtimestamp",
    "walltimestamp",
    "execname",
    "probefunc",
    "probename",
    "probeprov",
    "errno",
    "curthread",
    "curthread->pid",
    "curthread->comm",
    "curthread->real_parent->tgid",
    "self->x",
    "self->s",
    "this->y",
    "x",
    "s",
    "a[1]",
    "a[\"k\"]",
    "m[pid, execname]",
    "$1",
    "$$2",
    "$target",
    "`max_pfn",
    "vmlinux`jiffies",
    "stackdepth",
    "id",
    "epid",
];

const CASTS: &[&str] = &[
    "(int)",
    "(char)",
    "(unsigned char)",
    "(short)",
    "(uint64_t)",
    "(int64_t)",
    "(long)",
    "(string)",
    "(char *)",
    "(void *)",
    "(struct task_struct *)",
    "(uintptr_t)",
];

const UNARY: &[&str] = &["-", "!", "~", "+", "*", "&", "++", "--", "sizeof "];

const BINARY: &[&str] = &[
    "+", "-", "*", "/", "%", "<<", ">>", "&", "|", "^", "&&", "||", "^^", "==", "!=", "<", "<=",
    ">", ">=", ",",
];

const CALLS: &[(&str, usize)] = &[
    ("strlen", 1),
    ("strjoin", 2),
    ("stringof", 1),
    ("copyinstr", 1),
    ("substr", 2),
    ("strchr", 2),
    ("index", 2),
    ("lltostr", 1),
    ("basename", 1),
    ("htons", 1),
    ("rand", 0),
    ("progenyof", 1),
    ("offsetof", 0),
    ("xlate <psinfo_t *>", 1),
];

const AGGS: &[&str] = &[
    "count()",
    "sum(E)",
    "avg(E)",
    "min(E)",
    "max(E)",
    "stddev(E)",
    "quantize(E)",
    "lquantize(E, 0, 100, 10)",
    "llquantize(E, 10, 0, 6, 20)",
];

/// An expression at most `depth` levels deep.
pub fn expr(rng: &mut Rng, depth: u32) -> String {
    if depth == 0 || rng.one_in(3) {
        return rng.pick(ATOMS).copied().unwrap_or("0").to_string();
    }
    let d = depth - 1;
    match rng.below(8) {
        0 => format!("({})", expr(rng, d)),
        1 => format!("{}{}", rng.pick(CASTS).copied().unwrap_or(""), expr(rng, d)),
        2 => format!(
            "{}{}",
            rng.pick(UNARY).copied().unwrap_or("-"),
            expr(rng, d)
        ),
        3 | 4 => format!(
            "{} {} {}",
            expr(rng, d),
            rng.pick(BINARY).copied().unwrap_or("+"),
            expr(rng, d)
        ),
        5 => format!("{} ? {} : {}", expr(rng, d), expr(rng, d), expr(rng, d)),
        6 => {
            let (name, n) = rng.pick(CALLS).copied().unwrap_or(("strlen", 1));
            if name == "offsetof" {
                return "offsetof(struct task_struct, pid)".to_string();
            }
            let args: Vec<String> = (0..n).map(|_| expr(rng, d)).collect();
            format!("{name}({})", args.join(", "))
        }
        _ => format!(
            "{}[{}]",
            rng.pick(ATOMS).copied().unwrap_or("a"),
            expr(rng, d)
        ),
    }
}

/// A statement (with its `;`).
pub fn statement(rng: &mut Rng) -> String {
    let e = expr(rng, 3);
    match rng.below(7) {
        0 => format!("x = {e};"),
        1 => format!("self->x = {e};"),
        2 => format!("this->y = {e};"),
        3 => {
            let agg = rng.pick(AGGS).copied().unwrap_or("count()");
            let key = if rng.one_in(2) {
                format!("[{}]", expr(rng, 2))
            } else {
                String::new()
            };
            format!("@a{}{key} = {};", rng.below(3), agg.replace('E', &e))
        }
        4 => {
            let conv = [
                "%d", "%s", "%u", "%x", "%p", "%c", "%lld", "%5.2s", "%-8d", "%@d",
            ];
            let c = rng.pick(&conv).copied().unwrap_or("%d");
            format!("printf(\"{c}\\n\", {e});")
        }
        5 => format!("trace({e});"),
        _ => format!(
            "if ({e}) {{ {} }} else {{ {} }}",
            statement_simple(rng),
            statement_simple(rng)
        ),
    }
}

fn statement_simple(rng: &mut Rng) -> String {
    format!("x = {};", expr(rng, 2))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bounded_and_varied() {
        let mut rng = Rng::new(3);
        let mut seen = std::collections::HashSet::new();
        for _ in 0..500 {
            let s = statement(&mut rng);
            assert!(s.len() < 4096, "{s}");
            seen.insert(s);
        }
        assert!(seen.len() > 300);
    }
}
