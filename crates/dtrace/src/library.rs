//! D libraries, as DTrace's `/usr/lib/dtrace`: D source files of declarations
//! (types, `inline` constants, translators) compiled before user programs, so
//! their names are visible to them.
//!
//! - Built-in libraries (`crates/dtrace/lib/*.d`) are embedded in the binary:
//!   `errno.d` (Linux errno constants), `signal.d` (signal numbers), `procfs.d`
//!   (`psinfo_t`, `lwpsinfo_t`, their translators from `struct task_struct *`,
//!   `curpsinfo`, `curlwpsinfo`, and `cpuinfo_t` from a task for `sched`),
//!   `cpuinfo.d` (`curcpu`, `pset`, `chip`, `lgrp`), `io.d` (`bufinfo_t`,
//!   `devinfo_t`, `fileinfo_t` and their translators from the block layer),
//!   `io_xfs.d` (the translators from XFS buffers of `io:::wait-start` and
//!   `wait-done`, loaded with the struct they read: a kernel without XFS
//!   never loads it),
//!   `regs.d` (the `R_*` register numbers of `uregs[]`).
//!   A provider whose arguments are translated (`proc`, `sched`, `io`) loads
//!   the library defining their types when a program names it. `net.d` holds
//!   (`ipaddr_t`, `in6_addr_t`, `AF_*`, `IPPROTO_*`, `ARPHRD_*`); `regs.d`
//!   the `R_*` indices of `uregs[]`.
//! - User libraries: every `*.d` file of each `-L dir` / `-x libdir=dir`
//!   directory, directories in the order given, files in name order.
//!
//! A library holds declarations only: a probe clause in one is an error.
//! `#pragma D depends_on library x.d` makes `x.d` load first (and load whenever
//! the dependent one does). Only built-in libraries may call the compiler's
//! `__dt_*` intrinsics (see `dtrace_sema`'s `intrinsic` module).
//!
//! **Loading is lazy.** Libraries are parsed once per handle when the first
//! program is compiled (cheap: a few hundred lines), but typed — which for
//! `procfs.d` needs kernel BTF, ~10 ms — only when a program mentions, as a whole
//! word, a name a library declares (an inline, typedef, variable, struct, union or
//! enum tag, or enumerator). `dtrace -n 'BEGIN { exit(0); }'` therefore pays
//! only the parse. A library's declarations then join the handle's program ahead
//! of the user's, and are checked with it as every compiled program is.

use crate::{compile, CompileError, Dtrace};
use dtrace_syntax::ast::{BaseType, Declarator, Item, TypeSpec};
use dtrace_syntax::{ParseOptions, SourceId, SourceKind};
use std::collections::{HashMap, HashSet};

/// The built-in libraries: (file name, text).
const BUILTIN: &[(&str, &str)] = &[
    ("errno.d", include_str!("../lib/errno.d")),
    ("signal.d", include_str!("../lib/signal.d")),
    ("cpuinfo.d", include_str!("../lib/cpuinfo.d")),
    ("procfs.d", include_str!("../lib/procfs.d")),
    ("io.d", include_str!("../lib/io.d")),
    ("io_xfs.d", include_str!("../lib/io_xfs.d")),
    ("net.d", include_str!("../lib/net.d")),
    ("regs.d", include_str!("../lib/regs.d")),
];

/// Type names sema defines before any program (the parser must know them to read
/// a library's declarations on a fresh handle).
const D_TYPEDEFS: &[&str] = &[
    "pid_t",
    "id_t",
    "uid_t",
    "gid_t",
    "processorid_t",
    "uint_t",
    "uint64_t",
    "int64_t",
];

/// One library.
#[derive(Debug)]
struct Lib {
    name: String,
    text: String,
    builtin: bool,
    /// Its source and declarations, once parsed.
    parsed: Option<(SourceId, Vec<Item>)>,
    /// The names it declares.
    names: HashSet<String>,
    /// The typedef names it declares.
    typedefs: Vec<String>,
    /// Libraries named by `#pragma D depends_on library`.
    deps: Vec<String>,
    loaded: bool,
}

/// The handle's libraries: found on first use, parsed and typed on demand.
#[derive(Debug, Default)]
pub(crate) struct Libraries {
    libs: Option<Vec<Lib>>,
}

impl Libraries {
    /// Sources of loaded built-in libraries (the ones allowed to call intrinsics).
    pub(crate) fn builtin_sources(&self) -> Vec<SourceId> {
        builtin_sources(self.libs.as_deref().unwrap_or(&[]))
    }
}

fn builtin_sources(libs: &[Lib]) -> Vec<SourceId> {
    libs.iter()
        .filter(|l| l.loaded && l.builtin)
        .filter_map(|l| l.parsed.as_ref().map(|(id, _)| *id))
        .collect()
}

/// Identifiers occurring in `text`.
fn words(text: &str) -> HashSet<&str> {
    text.split(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
        .filter(|w| w.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_'))
        .collect()
}

/// The names a built-in library declares, read without parsing it: built-in
/// libraries are written so that each declaration starts its line (`inline T
/// NAME = ...;`, `typedef struct TAG {` ... `} NAME;`, `struct TAG {`). A unit
/// test checks this against the parser for every built-in library.
/// Returns (names, typedef names).
fn scan_names(text: &str) -> (HashSet<String>, Vec<String>) {
    let mut names = HashSet::new();
    let mut typedefs = Vec::new();
    let ident = |w: &str| {
        w.trim_matches(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
            .to_string()
    };
    for line in text.lines() {
        let t: Vec<&str> = line.split_whitespace().collect();
        let eq = t.iter().position(|w| *w == "=");
        match t.as_slice() {
            ["inline", ..] => {
                // `inline T NAME = ...;`, or with parameters `inline T NAME[P p] = ...;`.
                let before = &t[..eq.unwrap_or(0)];
                let param = before
                    .iter()
                    .find_map(|w| w.split_once('[').map(|(n, _)| n));
                let last = eq
                    .and_then(|e| e.checked_sub(1))
                    .and_then(|n| t.get(n))
                    .copied();
                if let Some(name) = param.or(last) {
                    names.insert(ident(name));
                }
            }
            ["typedef", "struct" | "union" | "enum", tag, "{", ..]
            | ["struct" | "union" | "enum", tag, "{", ..] => {
                names.insert(ident(tag));
            }
            // `typedef T NAME;` on one line (T one word, or `struct TAG`).
            ["typedef", .., name] if name.ends_with(';') && !line.contains('{') => {
                if let ["typedef", "struct" | "union" | "enum", tag, ..] = t.as_slice() {
                    names.insert(ident(tag));
                }
                let n = ident(name);
                typedefs.push(n.clone());
                names.insert(n);
            }
            ["}", name] if name.ends_with(';') => {
                let n = ident(name);
                typedefs.push(n.clone());
                names.insert(n);
            }
            _ => {}
        }
    }
    (names, typedefs)
}

fn declarator_name(d: &Declarator) -> Option<&str> {
    match d {
        Declarator::Abstract => None,
        Declarator::Ident(n, _) => Some(n),
        Declarator::Pointer { inner, .. }
        | Declarator::Array { inner, .. }
        | Declarator::Function { inner, .. } => declarator_name(inner),
    }
}

fn spec_names(spec: &TypeSpec, out: &mut HashSet<String>) {
    match &spec.base {
        BaseType::Struct { tag, members } | BaseType::Union { tag, members } => {
            out.extend(tag.iter().cloned());
            for m in members.iter().flatten() {
                spec_names(&m.spec, out);
            }
        }
        BaseType::Enum { tag, values } => {
            out.extend(tag.iter().cloned());
            out.extend(values.iter().flatten().map(|(n, _, _)| n.clone()));
        }
        _ => {}
    }
}

/// The names a library's items declare.
fn declared_names(items: &[Item]) -> HashSet<String> {
    let mut out = HashSet::new();
    for item in items {
        if let Item::Decl(d) = item {
            spec_names(&d.spec, &mut out);
            for (decl, _) in &d.declarators {
                out.extend(declarator_name(decl).map(str::to_string));
            }
        }
    }
    out
}

/// `#pragma D depends_on library x.d` targets.
fn library_deps(items: &[Item]) -> Vec<String> {
    items
        .iter()
        .filter_map(|i| match i {
            Item::Pragma(p) => match p.words.as_slice() {
                [a, b, name] if a == "depends_on" && b == "library" => Some(name.clone()),
                _ => None,
            },
            _ => None,
        })
        .collect()
}

/// The library a `depends_on library` pragma names, by path or file name.
fn find_dep(libs: &[Lib], dep: &str) -> Option<usize> {
    let base = |n: &str| n.rsplit('/').next().unwrap_or(n).to_string();
    libs.iter()
        .position(|l| l.name == dep || base(&l.name) == base(dep))
}

/// The `depends_on library` pragmas of a parsed library, with their spans.
fn dep_pragmas(lib: &Lib) -> Vec<(String, dtrace_syntax::Span)> {
    let Some((_, items)) = &lib.parsed else {
        return Vec::new();
    };
    items
        .iter()
        .filter_map(|i| match i {
            Item::Pragma(p) => match p.words.as_slice() {
                [a, b, name] if a == "depends_on" && b == "library" => Some((name.clone(), p.span)),
                _ => None,
            },
            _ => None,
        })
        .collect()
}

/// Why the libraries' dependencies cannot be met, as dtrace(1) finds when it
/// loads them: a library that depends on one that does not exist, or a cycle
/// of dependencies (D_PRAGMA_DEPEND).
fn dependency_error(libs: &[Lib]) -> Option<dtrace_syntax::Diagnostic> {
    let depend = |span, msg: String| {
        dtrace_syntax::Diagnostic::new(dtrace_syntax::Tag::D_PRAGMA_DEPEND, span, msg)
    };
    let mut edges: Vec<Vec<(usize, dtrace_syntax::Span)>> = vec![Vec::new(); libs.len()];
    for (i, lib) in libs.iter().enumerate() {
        for (dep, span) in dep_pragmas(lib) {
            match find_dep(libs, &dep) {
                Some(j) => edges[i].push((j, span)),
                None => {
                    return Some(depend(
                        span,
                        format!("failed to find library {dep}, a dependency of {}", lib.name),
                    ))
                }
            }
        }
    }
    // Depth-first search; a dependency on a library still being visited closes
    // a cycle. 0: not seen, 1: on the path, 2: done.
    fn visit(
        i: usize,
        edges: &[Vec<(usize, dtrace_syntax::Span)>],
        state: &mut [u8],
    ) -> Option<(usize, dtrace_syntax::Span)> {
        state[i] = 1;
        for &(j, span) in &edges[i] {
            match state[j] {
                1 => return Some((j, span)),
                0 => {
                    if let Some(c) = visit(j, edges, state) {
                        return Some(c);
                    }
                }
                _ => {}
            }
        }
        state[i] = 2;
        None
    }
    let mut state = vec![0u8; libs.len()];
    for i in 0..libs.len() {
        if state[i] == 0 {
            if let Some((j, span)) = visit(i, &edges, &mut state) {
                return Some(depend(
                    span,
                    format!("cyclic dependency on library {}", libs[j].name),
                ));
            }
        }
    }
    None
}

/// `(path, text)` of every user library in `dirs`.
fn user_libraries(dirs: &[String]) -> Result<Vec<(String, String)>, CompileError> {
    let mut out = Vec::new();
    for dir in dirs {
        let fail = |e: std::io::Error| {
            compile::plain(format!(
                "dtrace: failed to initialize dtrace: cannot read library directory {dir}: {e}"
            ))
        };
        let mut files: Vec<std::path::PathBuf> = std::fs::read_dir(dir)
            .map_err(fail)?
            .flatten()
            .map(|e| e.path())
            .filter(|p| p.extension().is_some_and(|x| x == "d") && p.is_file())
            .collect();
        files.sort();
        for f in files {
            let text = std::fs::read_to_string(&f).map_err(fail)?;
            out.push((f.to_string_lossy().into_owned(), text));
        }
    }
    Ok(out)
}

/// Type names the parser must know in a library: D's own and every library's
/// typedefs.
fn known_typedefs(libs: &[Lib]) -> HashSet<String> {
    D_TYPEDEFS
        .iter()
        .map(|s| s.to_string())
        .chain(libs.iter().flat_map(|l| l.typedefs.iter().cloned()))
        .collect()
}

/// What library `i` needs loaded before it: its `depends_on` libraries and any
/// other library that declares a name its text mentions.
fn needs(libs: &[Lib], i: usize) -> Vec<usize> {
    let base = |n: &str| n.rsplit('/').next().unwrap_or(n).to_string();
    let mut out: Vec<usize> = libs[i]
        .deps
        .iter()
        .filter_map(|d| {
            libs.iter()
                .position(|l| l.name == *d || base(&l.name) == base(d))
        })
        .collect();
    let used = words(&libs[i].text);
    for (j, l) in libs.iter().enumerate() {
        let declared_here = |n: &String| libs[i].names.contains(n);
        if j != i
            && l.names
                .iter()
                .any(|n| used.contains(n.as_str()) && !declared_here(n))
        {
            out.push(j);
        }
    }
    out
}

/// Load order for the libraries `want`: each after the ones it needs; libraries
/// already loaded are left out.
fn load_order(libs: &[Lib], want: &[usize]) -> Vec<usize> {
    // Depth-first, needs first; `seen` also stops cycles.
    fn visit(i: usize, libs: &[Lib], seen: &mut HashSet<usize>, order: &mut Vec<usize>) {
        if !seen.insert(i) {
            return;
        }
        for j in needs(libs, i) {
            visit(j, libs, seen, order);
        }
        order.push(i);
    }
    let mut order = Vec::new();
    let mut seen = HashSet::new();
    for &i in want {
        visit(i, libs, &mut seen, &mut order);
    }
    order.retain(|&i| !libs[i].loaded);
    order
}

impl Dtrace {
    /// Find every library once: built-in ones by a scan of their declarations,
    /// `-L` ones parsed.
    fn find_libraries(&mut self) -> Result<(), CompileError> {
        if self.libs.libs.is_some() {
            return Ok(());
        }
        // -x nolibs: no D library at all; -x syslibdir=DIR: the system libraries
        // are DIR's `.d` files instead of the ones built into dtrace.
        if self.options.nolibs {
            self.libs.libs = Some(Vec::new());
            return Ok(());
        }
        let system: Vec<(String, String)> = match &self.options.syslibdir {
            Some(dir) => user_libraries(std::slice::from_ref(dir))?,
            None => BUILTIN
                .iter()
                .map(|(n, t)| (n.to_string(), t.to_string()))
                .collect(),
        };
        let mut libs: Vec<Lib> = system
            .into_iter()
            .map(|(name, text)| {
                let (names, typedefs) = scan_names(&text);
                Lib {
                    name,
                    text,
                    builtin: true,
                    parsed: None,
                    names,
                    typedefs,
                    deps: Vec::new(),
                    loaded: false,
                }
            })
            .collect();
        for (name, text) in user_libraries(&self.options.libdirs)? {
            let mut lib = Lib {
                name,
                text,
                builtin: false,
                parsed: None,
                names: HashSet::new(),
                typedefs: Vec::new(),
                deps: Vec::new(),
                loaded: false,
            };
            let known = known_typedefs(&libs);
            self.parse_library(&mut lib, &known)?;
            libs.push(lib);
        }
        if let Some(d) = dependency_error(&libs) {
            return Err(compile::error(&self.map, &d, self.options.errtags));
        }
        self.libs.libs = Some(libs);
        Ok(())
    }

    /// Parse `lib` (type names of `others` known) and take its names.
    fn parse_library(
        &mut self,
        lib: &mut Lib,
        known: &HashSet<String>,
    ) -> Result<(), CompileError> {
        if lib.parsed.is_some() {
            return Ok(());
        }
        let kind = SourceKind::Library {
            name: lib.name.clone(),
        };
        let id = self.map.add(kind, lib.text.clone());
        let types = &self.types;
        let is_type_name = |n: &str| known.contains(n) || types.is_type_name_scoped(None, n);
        let popts = ParseOptions {
            macro_args: &[],
            macro_vars: &HashMap::new(),
            defaultargs: false,
            is_type_name: &is_type_name,
            is_d_identifier: &dtrace_sema::is_d_identifier,
            pspec: false,
        };
        let (program, info) = dtrace_syntax::parse_with_info(&self.map, id, &popts)
            .map_err(|d| compile::error(&self.map, &d, self.options.errtags))?;
        if let Some(span) = program.items.iter().find_map(|i| match i {
            Item::Clause(c) => Some(c.span),
            _ => None,
        }) {
            let d = dtrace_syntax::Diagnostic::new(
                dtrace_syntax::Tag::D_SYNTAX,
                span,
                "probe clauses are not permitted in a D library",
            );
            return Err(compile::error(&self.map, &d, self.options.errtags));
        }
        if !lib.builtin {
            lib.names = declared_names(&program.items);
            lib.typedefs = info.typedefs;
        }
        lib.deps = library_deps(&program.items);
        lib.parsed = Some((id, program.items));
        Ok(())
    }

    /// Load the libraries a program with source `text` needs (see the module
    /// docs): their declarations join the handle's program, typed once now so
    /// their type names are known when `text` is parsed.
    pub(crate) fn load_libraries(&mut self, text: &str) -> Result<(), CompileError> {
        self.find_libraries()?;
        let Some(mut libs) = self.libs.libs.take() else {
            return Ok(());
        };
        let r = self.load_needed(&mut libs, text);
        self.libs.libs = Some(libs);
        r
    }

    fn load_needed(&mut self, libs: &mut [Lib], text: &str) -> Result<(), CompileError> {
        let used = words(text);
        let want: Vec<usize> = libs
            .iter()
            .enumerate()
            .filter(|(_, l)| !l.loaded && l.names.iter().any(|n| used.contains(n.as_str())))
            .map(|(i, _)| i)
            .collect();
        if want.is_empty() {
            return Ok(());
        }
        // Built-in libraries are parsed when first loaded (their `depends_on`
        // pragmas, if they had any, would not order them; names do).
        let order = load_order(libs, &want);
        let known = known_typedefs(libs);
        for &i in &order {
            self.parse_library(&mut libs[i], &known)?;
        }
        let before = self.items.len();
        for &i in &order {
            let items = libs[i].parsed.as_ref().map(|(_, items)| items.clone());
            self.items.extend(items.into_iter().flatten());
            libs[i].loaded = true;
        }
        let whole = dtrace_syntax::ast::Program {
            items: self.items.clone(),
        };
        let mut opts = self.compile_options();
        opts.library_sources = builtin_sources(libs);
        // A library naming kernel types (net.d's `struct in6_addr`) finds them
        // through the type table, which asks kernel BTF on a miss.
        let checked = dtrace_sema::check_with(
            &whole,
            &self.clause_probes,
            &mut self.types,
            &opts,
            &crate::kallsyms,
        );
        if let Err(d) = checked {
            self.items.truncate(before);
            for &i in &order {
                libs[i].loaded = false;
            }
            return Err(compile::error(&self.map, &d, self.options.errtags));
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn words_are_identifiers() {
        let w = words("BEGIN { trace(curpsinfo->pr_pid + EBADF2); x = 9abc; }");
        assert!(w.contains("curpsinfo") && w.contains("pr_pid") && w.contains("EBADF2"));
        assert!(!w.contains("9abc") && !w.contains("EBADF"));
    }

    /// The line scan of each built-in library finds exactly what the parser does.
    #[test]
    fn builtin_scan_matches_the_parser() {
        let mut map = dtrace_syntax::SourceMap::new();
        let table = dtrace_ctypes::TypeTable::with_builtins();
        let mut typedefs: HashSet<String> = D_TYPEDEFS.iter().map(|s| s.to_string()).collect();
        let mut all = HashSet::new();
        for (name, text) in BUILTIN {
            let kind = SourceKind::Library {
                name: name.to_string(),
            };
            let id = map.add(kind, text.to_string());
            let known = typedefs.clone();
            let is_type = |n: &str| known.contains(n) || table.is_type_name_scoped(None, n);
            let popts = ParseOptions {
                macro_args: &[],
                macro_vars: &HashMap::new(),
                defaultargs: false,
                is_type_name: &is_type,
                is_d_identifier: &dtrace_sema::is_d_identifier,
                pspec: false,
            };
            let parsed = dtrace_syntax::parse_with_info(&map, id, &popts);
            let Ok((p, info)) = parsed else {
                panic!("{name} does not parse: {parsed:?}");
            };
            let (names, mut tds) = scan_names(text);
            assert_eq!(names, declared_names(&p.items), "{name}");
            tds.sort();
            assert_eq!(tds, info.typedefs, "{name}");
            assert!(library_deps(&p.items).is_empty(), "{name}");
            typedefs.extend(info.typedefs);
            all.extend(names);
        }
        for n in [
            "EPERM",
            "EBADF",
            "EHWPOISON",
            "SIGHUP",
            "SIGKILL",
            "curpsinfo",
            "curlwpsinfo",
            "psinfo_t",
            "lwpsinfo_t",
            "curcpu",
            "cpuinfo_t",
            "DTRACEFLT_BADADDR",
        ] {
            assert!(all.contains(n), "{n} not declared");
        }
    }

    fn lib(name: &str, text: &str, names: &[&str], deps: &[&str]) -> Lib {
        Lib {
            name: name.to_string(),
            text: text.to_string(),
            builtin: false,
            parsed: None,
            names: names.iter().map(|n| n.to_string()).collect(),
            typedefs: Vec::new(),
            deps: deps.iter().map(|d| d.to_string()).collect(),
            loaded: false,
        }
    }

    #[test]
    fn dependencies_load_first() {
        let libs = vec![
            lib("/l/a.d", "inline int A = 1;", &["A"], &["c.d"]),
            lib("/l/b.d", "inline int B = C;", &["B"], &[]),
            lib("/l/c.d", "inline int C = 2;", &["C"], &["a.d"]),
        ];
        // a needs c (pragma; c's pragma back to a is a cycle, ignored); b needs c
        // (it names C).
        assert_eq!(load_order(&libs, &[0, 1]), vec![2, 0, 1]);
        assert_eq!(load_order(&libs, &[1]), vec![0, 2, 1]);
    }
}
