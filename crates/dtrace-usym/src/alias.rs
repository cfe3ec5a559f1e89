//! Which name an address gets when several symbols share it (a function and
//! its aliases: glibc's `strdup` and `__strdup`, `malloc` and `__libc_malloc`).
//!
//! DTrace names the address as Solaris/Oracle libproc does when it sorts a
//! symbol table by address: among symbols at one address it prefers, in
//! order, a function to any other kind of symbol; a global or weak binding
//! to a local one (global and weak rank alike); a name not starting with
//! `$`; the name with fewer leading underscores; the smaller symbol; and
//! last the lexical order of the names. This is the one place that rule
//! lives: user symbol tables (`usym`, `ufunc`, `uaddr`, `ustack`, `%A`) sort
//! by it, and so do kernel symbols that carry the facts it needs.

use std::cmp::Ordering;

/// The facts about one symbol that decide between aliases.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct AliasFacts<'a> {
    pub name: &'a str,
    /// A function (`STT_FUNC`, kallsyms `t`/`T`/`w`/`W`).
    pub function: bool,
    /// Bound `STB_LOCAL`.
    pub local: bool,
    pub size: u64,
}

/// `Less` when `a` is the better name for an address both symbols start at.
pub fn alias_order(a: &AliasFacts, b: &AliasFacts) -> Ordering {
    // A function first, then a global or weak symbol.
    b.function
        .cmp(&a.function)
        .then(a.local.cmp(&b.local))
        // Compilers' generated names start with '$'.
        .then(a.name.starts_with('$').cmp(&b.name.starts_with('$')))
        .then_with(|| {
            // Fewer leading underscores, then the smaller symbol, then the
            // names' lexical order past their common underscores.
            let (ua, ub) = (underscores(a.name), underscores(b.name));
            ua.cmp(&ub)
                .then(a.size.cmp(&b.size))
                .then_with(|| a.name[ua..].cmp(&b.name[ub..]))
        })
}

fn underscores(name: &str) -> usize {
    name.bytes().take_while(|&c| c == b'_').count()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn f(name: &str, local: bool, size: u64) -> AliasFacts<'_> {
        AliasFacts {
            name,
            function: true,
            local,
            size,
        }
    }

    fn best<'a>(mut v: Vec<AliasFacts<'a>>) -> &'a str {
        v.sort_by(alias_order);
        v[0].name
    }

    #[test]
    fn fewer_underscores_win_between_global_and_weak() {
        // glibc: `__strdup` is global, `strdup` weak; DTrace prints strdup.
        assert_eq!(
            best(vec![f("__strdup", false, 64), f("strdup", false, 64)]),
            "strdup"
        );
        assert_eq!(
            best(vec![f("_IO_puts", false, 9), f("puts", false, 9)]),
            "puts"
        );
    }

    #[test]
    fn global_or_weak_beats_local_before_underscores() {
        assert_eq!(
            best(vec![f("helper", true, 8), f("__helper", false, 8)]),
            "__helper"
        );
    }

    #[test]
    fn functions_beat_other_symbols() {
        let data = AliasFacts {
            name: "table",
            function: false,
            local: false,
            size: 8,
        };
        assert_eq!(
            best(vec![data, f("_start_of_table", true, 8)]),
            "_start_of_table"
        );
    }

    #[test]
    fn dollar_names_lose() {
        assert_eq!(
            best(vec![f("$x.1", false, 4), f("__real", false, 4)]),
            "__real"
        );
    }

    #[test]
    fn then_smaller_then_lexical() {
        assert_eq!(
            best(vec![f("big", false, 40), f("small", false, 4)]),
            "small"
        );
        assert_eq!(
            best(vec![f("beta", false, 4), f("alpha", false, 4)]),
            "alpha"
        );
        // Past the common underscores: `_b` against `_a`.
        assert_eq!(best(vec![f("_b", false, 4), f("_a", false, 4)]), "_a");
    }
}
