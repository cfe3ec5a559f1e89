//! The library facade, in libdtrace's shape: open a handle, set options, compile
//! programs, list probes, execute, and consume. `dtrace-cli` is one user of it.
//!
//! Flow (as dtrace(1)): `Dtrace::open` -> `set_opt`... -> `compile` (per -n/-s) ->
//! `exec` (load and attach nothing yet) -> `Session::go` (BEGIN, then attach) ->
//! `Session::work` until done -> `Session::stop` (detach, END) -> `Session::finish`
//! (drain, print aggregations).

mod compile;
pub mod options;
mod session;
pub mod source;

pub use options::{OptError, Options};
pub use session::Session;
pub use source::{ProbeSpecKind, Source};

use dtrace_codegen::CompiledProgram;
use dtrace_ctypes::TypeTable;
use dtrace_providers::Catalog;
use dtrace_sema::{CompileOptions, KernelOffsets, ProbeInfo};
use dtrace_syntax::ast::{Item, Program};
use dtrace_syntax::{ParseOptions, SourceKind, SourceMap};
use dtrace_sys::{Features, SysRef};
use std::collections::HashMap;

/// Errors opening the tracing subsystem.
#[derive(Debug)]
pub enum OpenError {
    /// One line a user understands, e.g. "DTrace requires root privileges".
    Unavailable(String),
}

impl std::fmt::Display for OpenError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            OpenError::Unavailable(s) => f.write_str(s),
        }
    }
}

/// A compile error, already rendered in dtrace(1)'s form (and the rich form).
#[derive(Debug, Clone)]
pub struct CompileError {
    /// `dtrace: failed to compile script x.d: line 3: ...` (no trailing newline).
    pub message: String,
    /// file:line:col with the source line and a caret.
    pub rich: String,
}

/// A failure after compilation: loading, attaching, or the kernel refusing a program.
#[derive(Debug, Clone)]
pub struct ExecError {
    /// `dtrace: ...` one line, no trailing newline.
    pub message: String,
    /// Extra detail shown with `-x verbose` (e.g. the verifier log).
    pub detail: Option<String>,
}

/// The result of one `Session::work` step.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WorkStatus {
    /// Keep going.
    Okay,
    /// `exit()` was called (with its status) or tracing otherwise finished.
    Done,
}

/// What one compiled program (one -n or -s) matched.
#[derive(Debug, Clone)]
pub struct ProgramInfo {
    /// Number of probes matched by all its clauses (dtrace(1)'s "matched N probes").
    pub matched: usize,
}

/// One row of `dtrace -l`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ProbeListing {
    pub id: u32,
    pub provider: String,
    pub module: String,
    pub function: String,
    pub name: String,
}

/// A DTrace handle (libdtrace's `dtrace_hdl_t`): options, the probe catalog, the
/// type table, and the programs compiled so far (they share one D namespace).
pub struct Dtrace {
    options: Options,
    kernel: Option<(SysRef, Features)>,
    catalog: Catalog,
    types: TypeTable,
    offsets: KernelOffsets,
    map: SourceMap,
    items: Vec<Item>,
    clause_probes: Vec<Vec<ProbeInfo>>,
}

impl Dtrace {
    /// Open the tracing subsystem: probe kernel features once, load kernel BTF.
    /// `need_kernel == false` (for `-l`, `-e`) does not require BPF privileges.
    pub fn open(need_kernel: bool) -> Result<Dtrace, OpenError> {
        let kernel = if need_kernel {
            let sys = dtrace_sys::kernel();
            let features = Features::probe(&sys);
            if let Some(why) = features.unusable() {
                return Err(OpenError::Unavailable(why));
            }
            Some((sys, features))
        } else {
            None
        };
        let mut types = TypeTable::with_builtins();
        let mut offsets = KernelOffsets::default();
        if types.load_kernel_btf().is_ok() {
            let off = |t: &mut TypeTable, m: &str| {
                dtrace_ctypes::query::offset_of_path(t, "struct task_struct", &[m])
                    .ok()
                    .map(|mem| (mem.bit_offset / 8) as u32)
            };
            if let (Some(rp), Some(tg)) = (off(&mut types, "real_parent"), off(&mut types, "tgid"))
            {
                offsets = KernelOffsets {
                    task_real_parent: rp,
                    task_tgid: tg,
                };
            }
        } else if need_kernel {
            // Without BTF the built-in fallback offsets would be guesses.
            return Err(OpenError::Unavailable(
                "dtrace: failed to initialize dtrace: kernel BTF (/sys/kernel/btf/vmlinux) is not available".into(),
            ));
        }
        Ok(Dtrace {
            options: Options::default(),
            kernel,
            catalog: Catalog::new(),
            types,
            offsets,
            map: SourceMap::new(),
            items: Vec::new(),
            clause_probes: Vec::new(),
        })
    }

    /// `-x name[=value]` and `#pragma D option`.
    pub fn set_opt(&mut self, name: &str, value: Option<&str>) -> Result<(), OptError> {
        self.options.set(name, value)
    }

    pub fn options(&self) -> &Options {
        &self.options
    }

    fn parse(
        &mut self,
        source: &Source,
        macro_args: &[String],
        macro_vars: &HashMap<String, String>,
    ) -> Result<Program, CompileError> {
        let (kind, text) = match source {
            Source::Spec { kind, text } => (
                SourceKind::ProbeSpecifier,
                compile::spec_text(*kind, text, &self.catalog)?,
            ),
            Source::Script { path, text } => {
                (SourceKind::Script { path: path.clone() }, text.clone())
            }
        };
        let id = self.map.add(kind, text);
        let types = &self.types;
        let is_type_name = |n: &str| types.is_type_name_scoped(None, n);
        let popts = ParseOptions {
            macro_args,
            macro_vars,
            defaultargs: self.options.defaultargs,
            is_type_name: &is_type_name,
        };
        dtrace_syntax::parse(&self.map, id, &popts)
            .map_err(|d| compile::error(&self.map, &d, self.options.errtags))
    }

    /// Compile one source; programs accumulate in the handle.
    /// `macro_args` are `$0..$n`; `macro_vars` hold `target`, `pid`, ... as decimal text.
    pub fn compile(
        &mut self,
        source: &Source,
        macro_args: &[String],
        macro_vars: &HashMap<String, String>,
    ) -> Result<ProgramInfo, CompileError> {
        let program = self.parse(source, macro_args, macro_vars)?;
        let errtags = self.options.errtags;
        compile::pragma_options(&self.map, &program, &mut self.options, errtags)?;
        let probes = compile::match_clauses(
            &self.map,
            &program.items,
            &mut self.catalog,
            self.options.zdefs,
            errtags,
        )?;
        let matched = probes.iter().map(Vec::len).sum();
        let mut items = self.items.clone();
        items.extend(program.items);
        let mut clause_probes = self.clause_probes.clone();
        clause_probes.extend(probes);
        let whole = Program { items };
        let opts = self.compile_options();
        dtrace_sema::check(&whole, &clause_probes, &mut self.types, &opts)
            .map_err(|d| compile::error(&self.map, &d, errtags))?;
        self.items = whole.items;
        self.clause_probes = clause_probes;
        Ok(ProgramInfo { matched })
    }

    fn compile_options(&self) -> CompileOptions {
        let cpus = dtrace_sys::cpu::num_possible_cpus().unwrap_or(1).max(1) as u64;
        let ring = (self.options.bufsize.max(4096) * cpus)
            .checked_next_power_of_two()
            .unwrap_or(1 << 30)
            .min(1 << 30);
        CompileOptions {
            strsize: self.options.strsize as u32,
            aggsize: (self.options.aggsize / 256).clamp(64, 1 << 20) as u32,
            dynvarsize: (self.options.dynvarsize / 64).clamp(64, 1 << 20) as u32,
            bufsize: ring as u32,
            kernel: self.offsets,
            ..CompileOptions::default()
        }
    }

    /// `dtrace -l`: the probes matching `source`'s descriptions (all probes if `None`).
    pub fn list(&mut self, source: Option<&Source>) -> Result<Vec<ProbeListing>, CompileError> {
        let probes: Vec<ProbeInfo> = match source {
            None => self.catalog.probes().to_vec(),
            Some(src) => {
                let program = self.parse(src, &[], &HashMap::new())?;
                let per = compile::match_clauses(
                    &self.map,
                    &program.items,
                    &mut self.catalog,
                    true,
                    self.options.errtags,
                )?;
                let mut all: Vec<ProbeInfo> = per.into_iter().flatten().collect();
                all.sort_by_key(|p| p.id);
                all.dedup_by_key(|p| p.id);
                all
            }
        };
        Ok(probes
            .into_iter()
            .map(|p| ProbeListing {
                id: p.id,
                provider: p.provider,
                module: p.module,
                function: p.function,
                name: p.name,
            })
            .collect())
    }

    fn generate(&mut self) -> Result<CompiledProgram, CompileError> {
        let opts = self.compile_options();
        let whole = Program {
            items: self.items.clone(),
        };
        let typed = dtrace_sema::check(&whole, &self.clause_probes, &mut self.types, &opts)
            .map_err(|d| compile::error(&self.map, &d, self.options.errtags))?;
        let mut compiled = dtrace_codegen::compile(&typed, &self.clause_probes, &opts);
        for ps in &self.clause_probes {
            for p in ps {
                compiled.desc.probes.insert(
                    p.id,
                    dtrace_codegen::desc::ProbeName {
                        provider: p.provider.clone(),
                        module: p.module.clone(),
                        function: p.function.clone(),
                        name: p.name.clone(),
                    },
                );
            }
        }
        Ok(compiled)
    }

    /// `-S`: disassembly of every compiled program.
    pub fn disassemble(&mut self) -> String {
        match self.generate() {
            Ok(c) => dtrace_codegen::disassemble(&c),
            Err(e) => e.message,
        }
    }

    /// Load maps and programs into the kernel; nothing fires until `Session::go`.
    pub fn exec(mut self) -> Result<Session, ExecError> {
        let compiled = self.generate().map_err(|e| ExecError {
            message: e.message,
            detail: None,
        })?;
        let Some((sys, features)) = self.kernel.take() else {
            return Err(ExecError {
                message: "dtrace: failed to initialize dtrace: the handle was opened without kernel access".into(),
                detail: None,
            });
        };
        Session::new(&sys, &features, compiled, &self.options)
    }
}
