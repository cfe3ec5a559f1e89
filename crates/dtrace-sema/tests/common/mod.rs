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
        module: String::new(),
        function: String::new(),
        name: "BEGIN".into(),
        kind: ProbeKind::Begin,
        args: Vec::new(),
        fields: Vec::new(),
    }
}

/// Check `src` (it must parse) with `opts`, every clause on BEGIN.
pub fn check_with(src: &str, opts: &CompileOptions) -> Result<TypedProgram, Diagnostic> {
    let mut map = SourceMap::new();
    let id = map.add(SourceKind::ProbeSpecifier, src.to_string());
    let args: Vec<String> = Vec::new();
    let vars: HashMap<String, String> = HashMap::new();
    let mut t = TypeTable::with_builtins();
    let is_type = |n: &str| t.lookup(n).is_some();
    let popts = ParseOptions {
        macro_args: &args,
        macro_vars: &vars,
        defaultargs: false,
        is_type_name: &is_type,
    };
    let prog = parse(&map, id, &popts).expect("parses");
    let n = prog
        .items
        .iter()
        .filter(|i| matches!(i, Item::Clause(_)))
        .count();
    check(&prog, &vec![vec![begin()]; n], &mut t, opts)
}
