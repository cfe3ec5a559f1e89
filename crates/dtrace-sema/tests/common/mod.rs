//! The preamble the sema tests share: parse a probe specifier and type-check
//! it with every clause on `dtrace:::BEGIN`.

#![allow(dead_code)]

use dtrace_ctypes::TypeTable;
use dtrace_sema::{check, CompileOptions, ProbeInfo, ProbeKind, TypedProgram};
use dtrace_syntax::ast::Item;
use dtrace_syntax::{parse, Diagnostic, ParseOptions, SourceKind, SourceMap};
use std::collections::HashMap;

/// `dtrace:::BEGIN` as the catalog describes it.
pub fn begin() -> ProbeInfo {
    ProbeInfo {
        id: 1,
        provider: "dtrace".into(),
        module: Default::default(),
        function: Default::default(),
        name: "BEGIN".into(),
        kind: ProbeKind::Begin,
        args: Vec::new(),
        fields: Vec::new(),
    }
}

/// Check `src` with `opts`, every clause on BEGIN; a parse error is returned
/// as the diagnostic. With `library`, `src` is compiled as a D library source.
pub fn check_as(
    src: &str,
    library: bool,
    opts: &CompileOptions,
) -> Result<TypedProgram, Diagnostic> {
    check_on(src, library, &begin(), opts)
}

/// [`check_as`] with every clause on `probe`.
pub fn check_on(
    src: &str,
    library: bool,
    probe: &ProbeInfo,
    opts: &CompileOptions,
) -> Result<TypedProgram, Diagnostic> {
    let mut map = SourceMap::new();
    let kind = if library {
        SourceKind::Library {
            name: "test.d".into(),
        }
    } else {
        SourceKind::ProbeSpecifier
    };
    let id = map.add(kind, src.to_string());
    let args: Vec<String> = Vec::new();
    let vars: HashMap<String, String> = HashMap::new();
    let mut t = TypeTable::with_builtins();
    let is_type = |n: &str| t.lookup(n).is_some();
    let popts = ParseOptions {
        macro_args: &args,
        macro_vars: &vars,
        defaultargs: false,
        is_type_name: &is_type,
        is_d_identifier: &dtrace_sema::is_d_identifier,
        pspec: false,
    };
    let prog = parse(&map, id, &popts)?;
    let n = prog
        .items
        .iter()
        .filter(|i| matches!(i, Item::Clause(_)))
        .count();
    let mut opts = opts.clone();
    if library {
        opts.library_sources = vec![id];
    }
    check(&prog, &vec![vec![probe.clone()]; n], &mut t, &opts)
}

/// Check `src` with `opts`, every clause on BEGIN.
pub fn check_with(src: &str, opts: &CompileOptions) -> Result<TypedProgram, Diagnostic> {
    check_as(src, false, opts)
}
