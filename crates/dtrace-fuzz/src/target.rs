//! The code under test: lex and parse a D program, match its probe descriptions
//! against the built-in provider catalog, type-check it, generate code for it
//! if accepted, and render any diagnostic both ways.

use std::collections::HashMap;
use std::panic::{catch_unwind, AssertUnwindSafe};

use dtrace_ctypes::TypeTable;
use dtrace_providers::{Catalog, ProbeDesc};
use dtrace_sema::{CompileOptions, ProbeInfo};
use dtrace_syntax::ast::Item;
use dtrace_syntax::{
    render_dtrace, render_rich, scan_line_markers, Diagnostic, ParseOptions, RenderOptions,
    SourceKind, SourceMap,
};

/// What happened to one input.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Outcome {
    /// Parsed and accepted by the checker (and code was generated).
    Accepted,
    /// Rejected with a diagnostic; the text is a digit-free summary used to
    /// recognise new behaviour (tag and message shape).
    Rejected(String),
    /// A probe description matched nothing.
    NoProbes,
    /// Something panicked: the panic message.
    Panicked(String),
}

/// Which stages to run.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Stages {
    pub sema: bool,
    pub codegen: bool,
}

impl Default for Stages {
    fn default() -> Stages {
        Stages {
            sema: true,
            codegen: true,
        }
    }
}

/// Reusable state: the probe catalog and the built-in type table.
pub struct Target {
    catalog: Catalog,
    base_probes: usize,
    types: TypeTable,
    macro_args: Vec<String>,
    macro_vars: HashMap<String, String>,
    opts: CompileOptions,
    stages: Stages,
}

/// Providers the fuzzer leaves out: fbt lists every kernel function (~120k
/// probes), so a `*:::*` input would take minutes in a debug build; its code
/// generation shares the raw tracepoints' u64-argument trampoline.
const FUZZ_OMITS: &[&str] = &["fbt"];

impl Target {
    pub fn new(stages: Stages) -> Target {
        let catalog = Catalog::without(FUZZ_OMITS);
        let base_probes = catalog.probe_count();
        let mut macro_vars = HashMap::new();
        for (k, v) in [
            ("target", "1234"),
            ("pid", "100"),
            ("ppid", "1"),
            ("uid", "0"),
            ("gid", "0"),
            ("euid", "0"),
            ("egid", "0"),
            ("sid", "100"),
            ("pgid", "100"),
        ] {
            macro_vars.insert(k.to_string(), v.to_string());
        }
        Target {
            catalog,
            base_probes,
            types: TypeTable::with_builtins(),
            macro_args: vec!["fuzz.d".into(), "42".into(), "foo".into(), "\"s\"".into()],
            macro_vars,
            opts: CompileOptions::default(),
            stages,
        }
    }

    /// Run one input, catching panics.
    pub fn run(&mut self, input: &[u8]) -> Outcome {
        // On-demand probes (tick-N) accumulate; start over now and then.
        if self.catalog.probe_count() > self.base_probes + 1000 {
            self.catalog = Catalog::without(FUZZ_OMITS);
        }
        let text = String::from_utf8_lossy(input).into_owned();
        let r = catch_unwind(AssertUnwindSafe(|| self.run_inner(text)));
        match r {
            Ok(o) => o,
            Err(payload) => {
                // The catalog may be half-updated: rebuild it.
                self.catalog = Catalog::without(FUZZ_OMITS);
                let msg = payload
                    .downcast_ref::<&str>()
                    .map(|s| s.to_string())
                    .or_else(|| payload.downcast_ref::<String>().cloned())
                    .unwrap_or_else(|| "non-string panic".to_string());
                Outcome::Panicked(msg)
            }
        }
    }

    fn run_inner(&mut self, text: String) -> Outcome {
        let mut map = SourceMap::new();
        let markers = scan_line_markers(&text);
        let id = map.add(
            SourceKind::Script {
                path: "fuzz.d".into(),
            },
            text,
        );
        if let Some(f) = map.get_mut(id) {
            f.set_line_markers(markers);
        }
        let types = &self.types;
        let is_type_name = |n: &str| types.is_type_name_scoped(None, n);
        let popts = ParseOptions {
            macro_args: &self.macro_args,
            macro_vars: &self.macro_vars,
            defaultargs: false,
            is_type_name: &is_type_name,
            is_d_identifier: &dtrace_sema::is_d_identifier,
            pspec: false,
        };
        let program = match dtrace_syntax::parse(&map, id, &popts) {
            Ok(p) => p,
            Err(d) => return rejected(&map, &d),
        };
        if !self.stages.sema {
            return Outcome::Accepted;
        }
        let mut clause_probes: Vec<Vec<ProbeInfo>> = Vec::new();
        for item in &program.items {
            let Item::Clause(c) = item else { continue };
            let mut probes: Vec<ProbeInfo> = Vec::new();
            for spec in &c.probes {
                let Ok(desc) = ProbeDesc::parse(&spec.text) else {
                    return Outcome::Rejected("D_PDESC_INVAL".into());
                };
                for p in self.catalog.matches(&desc) {
                    if !probes.iter().any(|q| q.id == p.id) {
                        probes.push(p);
                    }
                }
            }
            if probes.is_empty() {
                return Outcome::NoProbes;
            }
            clause_probes.push(probes);
        }
        // The checker may add user types to the table: give it a copy.
        let mut types = self.types.clone();
        let typed = match dtrace_sema::check(&program, &clause_probes, &mut types, &self.opts) {
            Ok(t) => t,
            Err(d) => return rejected(&map, &d),
        };
        if self.stages.codegen {
            let compiled = dtrace_codegen::compile(&typed, &clause_probes, &self.opts);
            let _ = dtrace_codegen::disassemble(&compiled);
        }
        Outcome::Accepted
    }
}

fn rejected(map: &SourceMap, d: &Diagnostic) -> Outcome {
    let _ = render_dtrace(map, d, RenderOptions { errtags: true });
    let _ = render_rich(map, d);
    // The message without its quoted parts and numbers: "syntax error near" etc.
    let mut shape = String::new();
    let mut quoted = false;
    for c in d.message.chars() {
        if c == '"' || c == '\'' {
            quoted = !quoted;
        } else if !quoted && !c.is_ascii_digit() {
            shape.push(c);
        }
    }
    let shape: String = shape.chars().take(32).collect();
    Outcome::Rejected(format!("{} {}", d.tag, shape))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn outcomes() {
        let mut t = Target::new(Stages::default());
        assert_eq!(
            t.run(b"BEGIN { printf(\"%d\\n\", 1); exit(0); }"),
            Outcome::Accepted
        );
        assert!(
            matches!(t.run(b"BEGIN { x = ; }"), Outcome::Rejected(s) if s.starts_with("D_SYNTAX"))
        );
        assert_eq!(t.run(b"nosuch:::probe {}"), Outcome::NoProbes);
    }
}
