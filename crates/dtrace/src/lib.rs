//! The library facade, in libdtrace's shape: open a handle, set options, compile
//! programs, list probes, execute, and consume. `dtrace-cli` is one user of it.
//!
//! Flow (as dtrace(1)): `Dtrace::open` -> `set_opt`... -> `compile` (per -n/-s) ->
//! `exec` (load and attach nothing yet) -> `Session::go` (BEGIN, then attach) ->
//! `Session::work` until done -> `Session::stop` (detach, END) -> `Session::finish`
//! (drain, print aggregations).
//!
//! Consumption is by events ([`Event`]): an [`Output`] receives them
//! ([`TextOutput`] is dtrace(1)'s text, [`JsonOutput`] FreeBSD's structured
//! output), or a handler does ([`Session::consume`], [`Session::events`]).
//! Aggregations are read with [`Session::snapshot`] and
//! [`Session::aggregate_walk`], sorted as the `aggsort*` options say.
//!
//! ```no_run
//! use std::ops::ControlFlow;
//! use std::time::Duration;
//!
//! let mut dt = dtrace::Dtrace::open(true)?;
//! dt.set_opt("quiet", None)?;
//! dt.compile_str("BEGIN { trace(42); exit(0); }", &[])?;
//! let mut session = dt.exec()?;
//! let mut values = Vec::new();
//! let mut keep = |ev: &dtrace::Event| {
//!     if let dtrace::Event::Trace(v) = ev {
//!         values.push(v.as_i64());
//!     }
//!     ControlFlow::Continue(())
//! };
//! session.go(&mut dtrace::Handler::new(&mut keep))?;
//! while session.consume(Duration::from_millis(100), &mut keep)?.is_continue() {}
//! assert_eq!(values, [42]);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

#![warn(missing_docs)]

mod aggcache;
mod argv;
mod bufpolicy;
mod compile;
mod error;
mod kernel_types;
mod late;
/// `-x core`: lift the core-size limit and abort, leaving a core file.
pub use dtrace_sys::limits::dump_core;
pub mod cpp;
pub mod flame;
pub mod info;
mod library;
pub mod metrics;
pub mod options;
mod session;
pub mod source;
pub mod targets;

pub use dtrace_codegen::desc::{AggDesc, AggFunc, FaultKind, ProbeName};
pub use dtrace_consumer::{
    AggReport, AggValue, ConsumeError, Context, DropEvent, DropKind, Event, FaultEvent, JsonFormat,
    JsonOutput, Output, ProbeEvent, Row, RowIter, Rows, SetoptError, TextOutput, Value,
};
pub use dtrace_ctypes::DataModel;
pub use dtrace_providers::{Attr, DepClass, Stability};
pub use error::{CompileError, ExecError, Location, OpenError};
pub use info::{
    DescriptionInfo, MatchedInfo, ProbeListing, ProbeRow, ProgramInfo, StabilityReport,
};
pub use options::{OptError, Options, OutputFormat};
pub use session::{Events, Handler, Session};
pub use source::{ProbeSpecKind, Source};

use dtrace_codegen::CompiledProgram;
use dtrace_ctypes::{KernelBtfFiles, TypeTable};
use dtrace_providers::Catalog;
use dtrace_sema::{CompileOptions, KernelOffsets, ProbeInfo, TypedProgram};
use dtrace_syntax::ast::{Item, Program};
use dtrace_syntax::{ParseOptions, SourceKind, SourceMap};
use dtrace_sys::{Features, SysRef};
use kernel_types::{mentions_word, reads_task_offsets, type_table};
use std::collections::HashMap;

/// The result of one `Session::work` step.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WorkStatus {
    /// Keep going.
    Okay,
    /// `exit()` was called (with its status) or tracing otherwise finished.
    Done,
}

/// A DTrace handle (libdtrace's `dtrace_hdl_t`): options, the probe catalog, the
/// type table, and the programs compiled so far (they share one D namespace).
pub struct Dtrace {
    options: Options,
    kernel: Option<(SysRef, Features)>,
    catalog: Catalog,
    types: TypeTable,
    /// The kernel's BTF files, shared by the type table's kernel source and
    /// the providers that type arguments from BTF (read once for both).
    btf: KernelBtfFiles,
    offsets: KernelOffsets,
    map: SourceMap,
    items: Vec<Item>,
    clause_probes: Vec<Vec<ProbeInfo>>,
    libs: library::Libraries,
    /// The last successful check of `items`, reused by code generation unless an
    /// option changed since (options feed the compile options).
    typed: Option<TypedProgram>,
    /// The `ctfpath` the type table reads kernel types from, once applied.
    ctfpath: Option<String>,
    /// Messages for the user that are not errors (see [`Dtrace::take_notices`]).
    notices: Vec<String>,
}

/// Kernel symbol addresses for the compiler (backquoted names), from kallsyms.
fn kallsyms(module: Option<&str>, name: &str) -> Option<u64> {
    dtrace_sys::kallsyms::lookup(module, name)
}

impl Dtrace {
    /// Open the tracing subsystem: probe kernel features once. Kernel BTF (5 MB,
    /// ~10 ms and ~9 MiB to parse) is one of the type table's sources, read only
    /// when a question about a type reaches it (see [`dtrace_ctypes::source`]).
    /// `need_kernel == false` (for `-l`, `-e`) does not require BPF privileges.
    pub fn open(need_kernel: bool) -> Result<Dtrace, OpenError> {
        let kernel = if need_kernel {
            let sys = dtrace_sys::kernel();
            let features = Features::probe(&sys);
            if let Some(why) = features.unusable() {
                return Err(OpenError::Unavailable(why));
            }
            if !features.btf {
                // Without BTF the built-in fallback offsets would be guesses.
                return Err(OpenError::Unavailable(
                    "dtrace: failed to initialize dtrace: kernel BTF (/sys/kernel/btf/vmlinux) is not available".into(),
                ));
            }
            Some((sys, features))
        } else {
            None
        };
        let btf = KernelBtfFiles::running();
        Ok(Dtrace {
            options: Options::default(),
            kernel,
            catalog: Catalog::with_btf(&btf),
            types: type_table(DataModel::default(), &btf),
            btf,
            offsets: KernelOffsets::default(),
            map: SourceMap::new(),
            items: Vec::new(),
            clause_probes: Vec::new(),
            typed: None,
            ctfpath: None,
            notices: Vec::new(),
            libs: library::Libraries::default(),
        })
    }

    /// Choose the D compiler's data model (dtrace(1)'s `-32`/`-64`, libdtrace's
    /// `DTRACE_O_ILP32`/`DTRACE_O_LP64`): the sizes of `long`, D's pointers and
    /// the typedefs over them for every program compiled after this. Kernel
    /// types keep their own sizes, and the programs still run on this 64-bit
    /// kernel. Call it before compiling: it starts a fresh type table.
    pub fn set_data_model(&mut self, model: DataModel) {
        if self.types.model() != model {
            self.types = type_table(model, &self.btf);
            self.typed = None;
        }
    }

    /// The D compiler's data model.
    pub fn data_model(&self) -> DataModel {
        self.types.model()
    }

    /// The `task_struct`/`signal_struct` offsets that `ppid`, `progenyof()` and
    /// the kernel SDT trampolines read, from the type table (which asks kernel
    /// BTF); the built-in fallbacks where it has none.
    fn kernel_offsets(&mut self) -> KernelOffsets {
        let types = &mut self.types;
        let mut off = |s: &str, m: &str| {
            dtrace_ctypes::query::offset_of_path(types, s, &[m])
                .ok()
                .map(|mem| (mem.bit_offset / 8) as u32)
        };
        let task = "struct task_struct";
        match (
            off(task, "real_parent"),
            off(task, "tgid"),
            off(task, "exit_code"),
            off(task, "signal"),
            off("struct signal_struct", "group_exit_code"),
        ) {
            (Some(rp), Some(tg), Some(ec), Some(sig), Some(gec)) => KernelOffsets {
                task_real_parent: rp,
                task_tgid: tg,
                task_exit_code: ec,
                task_signal: sig,
                signal_group_exit_code: gec,
            },
            _ => KernelOffsets::default(),
        }
    }

    /// `-v`: make [`Dtrace::compile`] report each program's stability
    /// attributes ([`ProgramInfo::stability`]).
    pub fn report_stability(&mut self, on: bool) {
        self.options.report_stability = on;
    }

    /// `-x name[=value]` and `#pragma D option`.
    pub fn set_opt(&mut self, name: &str, value: Option<&str>) -> Result<(), OptError> {
        self.typed = None;
        self.options.set(name, value)
    }

    /// dtrace(1)'s testing mode (`_DTRACE_TESTING`): probe output without the CPU
    /// and ID columns.
    pub fn set_testing(&mut self, on: bool) {
        self.options.testing = on;
    }

    /// Apply `DTRACE_OPT_<NAME>` from `vars` for every option the library knows, as
    /// libdtrace's open does; a variable naming no option is ignored, and so is a
    /// value the option rejects (the command line can still set it).
    pub fn set_opts_from_env<I: IntoIterator<Item = (String, String)>>(&mut self, vars: I) {
        for (key, value) in vars {
            let Some(name) = key.strip_prefix("DTRACE_OPT_") else {
                continue;
            };
            let name = name.to_ascii_lowercase();
            if !options::is_known(&name) {
                continue;
            }
            let value = (!value.is_empty()).then_some(value.as_str());
            let _ = self.set_opt(&name, value);
        }
    }

    /// The options set so far.
    pub fn options(&self) -> &Options {
        &self.options
    }

    fn parse(
        &mut self,
        source: &Source,
        macro_args: &[String],
        macro_vars: &HashMap<String, String>,
    ) -> Result<(Program, dtrace_syntax::ParseInfo, dtrace_syntax::Span), CompileError> {
        let (kind, text) = match source {
            Source::Spec { kind, text } => (
                SourceKind::ProbeSpecifier,
                compile::spec_text(*kind, text, &mut self.catalog)?,
            ),
            Source::Script { path, text } => {
                (SourceKind::Script { path: path.clone() }, text.clone())
            }
        };
        let is_script = matches!(kind, SourceKind::Script { .. });
        let id = self.map.add(kind, text);
        if let (Source::Spec { text: written, .. }, Some(f)) = (source, self.map.get_mut(id)) {
            if *written != f.text {
                f.shown = Some(written.clone());
            }
        }
        // `# N "file"` markers (left by cpp, or written by hand) name the
        // user's lines in messages.
        if let (true, Some(f)) = (is_script, self.map.get_mut(id)) {
            let markers = dtrace_syntax::scan_line_markers(&f.text);
            f.set_line_markers(markers);
        }
        let types = &self.types;
        // D's own identifiers are never type names (libdtrace's lexer looks
        // them up first), so `exit(0);` asks no type source anything.
        let is_type_name =
            |n: &str| !dtrace_sema::is_d_identifier(n) && types.is_type_name_scoped(None, n);
        let popts = ParseOptions {
            macro_args,
            macro_vars,
            defaultargs: self.options.defaultargs,
            is_type_name: &is_type_name,
            is_d_identifier: &dtrace_sema::is_d_identifier,
            pspec: self.options.pspec,
        };
        let end = self.map.get(id).map_or(0, |f| f.text.len() as u32);
        let parsed = dtrace_syntax::parse_with_info(&self.map, id, &popts);
        let (program, info) = match parsed {
            Ok(p) => p,
            Err(d) => {
                let prefix = dtrace_syntax::parse_prefix(&self.map, id, &popts);
                let d = self.declaration_error(prefix).unwrap_or(d);
                return Err(compile::error(&self.map, &d, self.options.errtags));
            }
        };
        Ok((program, info, dtrace_syntax::Span::new(id, end, end)))
    }

    /// The first error in the declarations that parsed before a syntax error:
    /// libdtrace acts on a declaration as soon as it is parsed, so that error
    /// comes first. Checked on a copy of the types (nothing is declared).
    fn declaration_error(&self, prefix: Program) -> Option<dtrace_syntax::Diagnostic> {
        let mut items: Vec<_> = self.items.clone();
        items.extend(
            prefix
                .items
                .into_iter()
                .filter(|i| matches!(i, dtrace_syntax::ast::Item::Decl(_))),
        );
        if items.len() == self.items.len() {
            return None;
        }
        let mut types = self.types.clone();
        let opts = self.compile_options();
        let probes = self.clause_probes.clone();
        dtrace_sema::check_with(&Program { items }, &probes, &mut types, &opts, &kallsyms).err()
    }

    /// `source` after the C preprocessor (`-C`, scripts only), run once per
    /// compilation: its messages go to stderr.
    fn preprocessed<'s>(
        &self,
        source: &'s Source,
    ) -> Result<std::borrow::Cow<'s, Source>, CompileError> {
        use std::borrow::Cow;
        match source {
            Source::Script { path, text } if self.options.cpp => {
                let out = cpp::preprocess(&self.cpp_config(), path, text).map_err(|e| {
                    compile::plain(format!("dtrace: failed to compile script {path}: {}", e.0))
                })?;
                Ok(Cow::Owned(Source::Script {
                    path: path.clone(),
                    text: out,
                }))
            }
            _ => Ok(Cow::Borrowed(source)),
        }
    }

    fn cpp_config(&self) -> cpp::CppConfig {
        cpp::CppConfig {
            path: self.options.cpppath.clone(),
            defines: self.options.defines.clone(),
            undefines: self.options.undefines.clone(),
            include_dirs: self.options.incdirs.clone(),
            print_includes: self.options.cpphdrs,
            extra: self.options.cppargs.clone(),
            stdc: self.options.stdc,
        }
    }

    /// Messages for the user that are not errors, gathered since the last
    /// call (dtrace(1) prints each as `dtrace: <text>`): e.g. a `ctfpath`
    /// file that could not be used.
    pub fn take_notices(&mut self) -> Vec<String> {
        std::mem::take(&mut self.notices)
    }

    /// `-x ctfpath`, when it names a file not yet in use.
    fn apply_ctfpath(&mut self) {
        let Some(file) = self.options.ctfpath.clone() else {
            return;
        };
        if self.ctfpath.as_deref() == Some(file.as_str()) {
            return;
        }
        if let Err(why) = kernel_types::use_type_file(&mut self.types, &file) {
            self.notices.push(why);
        }
        self.ctfpath = Some(file);
    }

    /// Compile one source; programs accumulate in the handle.
    /// `macro_args` are `$0..$n`; `macro_vars` hold `target`, `pid`, ... as decimal text.
    pub fn compile(
        &mut self,
        source: &Source,
        macro_args: &[String],
        macro_vars: &HashMap<String, String>,
    ) -> Result<ProgramInfo, CompileError> {
        self.apply_ctfpath();
        let source = &*self.preprocessed(source)?;
        let text = match source {
            Source::Spec { text, .. } | Source::Script { text, .. } => text,
        };
        // The translated argument types of the providers the program names
        // (`psinfo_t` for `proc`) load the libraries that define them. Kernel
        // types are not decided here: the type table asks kernel BTF on a miss.
        let xlated = self.named_provider_types(text);
        self.load_libraries(&format!("{text}\n{xlated}"))?;
        self.compile_source(source, macro_args, macro_vars)
    }

    /// The translated argument type names of the probes of every provider
    /// `text` names as a word (space-separated).
    fn named_provider_types(&self, text: &str) -> String {
        let mut seen: Vec<(&str, bool)> = Vec::new();
        let mut types: Vec<&str> = Vec::new();
        for p in self.catalog.probes() {
            let named = match seen.iter().find(|(n, _)| *n == p.provider) {
                Some((_, named)) => *named,
                None => {
                    let named = mentions_word(text, &p.provider);
                    seen.push((&p.provider, named));
                    named
                }
            };
            if !named {
                continue;
            }
            // A translated argument needs its output type's library and the
            // translator's, named by the native type (`struct xfs_buf *`).
            for a in &p.args {
                if let Some(x) = a.xlate.as_deref() {
                    for t in [x, a.native.as_str()] {
                        if !types.contains(&t) {
                            types.push(t);
                        }
                    }
                }
            }
        }
        types.join(" ")
    }

    fn compile_source(
        &mut self,
        source: &Source,
        macro_args: &[String],
        macro_vars: &HashMap<String, String>,
    ) -> Result<ProgramInfo, CompileError> {
        let (program, info, end) = self.parse(source, macro_args, macro_vars)?;
        let errtags = self.options.errtags;
        compile::pragma_options(&self.map, &program, &mut self.options, errtags)?;
        if !self.options.argref {
            compile::unused_macro_args(&self.map, end, macro_args, &info.macro_args_used, errtags)?;
        }
        let stability_items = self.options.report_stability.then(|| program.items.clone());
        let (program_items, probes) = compile::match_clauses_repeated(
            &self.map,
            program.items,
            &mut self.catalog,
            self.options.zdefs,
            errtags,
        )?;
        if let Some(amin) = self.options.amin.as_deref().and_then(info::parse_attr) {
            compile::check_amin(&self.map, &program_items, &mut self.catalog, amin, errtags)?;
        }
        let matched = probes.iter().map(Vec::len).sum();
        let stability = stability_items.map(|items| {
            let described = compile::describe(&items, &mut self.catalog);
            let text = match source {
                Source::Spec { text, .. } | Source::Script { text, .. } => text,
            };
            info::report(&self.catalog, &described, mentions_word(text, "args"))
        });
        let mut items = self.items.clone();
        items.extend(program_items);
        let mut clause_probes = self.clause_probes.clone();
        clause_probes.extend(probes);
        let whole = Program { items };
        let opts = self.compile_options();
        let typed =
            dtrace_sema::check_with(&whole, &clause_probes, &mut self.types, &opts, &kallsyms)
                .map_err(|d| compile::error(&self.map, &d, errtags))?;
        self.items = whole.items;
        self.clause_probes = clause_probes;
        self.typed = Some(typed);
        Ok(ProgramInfo { matched, stability })
    }

    fn compile_options(&self) -> CompileOptions {
        let cpus = dtrace_sys::cpu::num_possible_cpus().unwrap_or(1).max(1) as u64;
        // Under `fill` and `ring` the consumer keeps each CPU's `bufsize`
        // buffer itself (see bufpolicy.rs): the kernel's ring only carries
        // the records to it, and is not made smaller than by default.
        let transport = match self.options.bufpolicy {
            options::BufPolicy::Switch => self.options.bufsize,
            _ => self.options.bufsize.max(Options::default().bufsize),
        };
        let ring = (transport.max(4096) * cpus)
            .checked_next_power_of_two()
            .unwrap_or(1 << 30)
            .min(1 << 30);
        CompileOptions {
            strsize: self.options.strsize as u32,
            // The option holds libdtrace's size (one reserved word added); the
            // program may allocate the rest.
            scratchsize: self
                .options
                .scratchsize
                .saturating_sub(8)
                .min(u32::MAX as u64) as u32,
            aggsize: self.options.aggsize.min(u32::MAX as u64) as u32,
            dynvarsize: self.options.dynvarsize.min(u32::MAX as u64) as u32,
            bufsize: ring as u32,
            principal_size: self.options.bufsize.clamp(4096, ring) as u32,
            tregs: self.options.tregs,
            only_cpu: self.options.cpu,
            kernel: self.offsets,
            library_sources: self.libs.builtin_sources(),
            nspec: self
                .options
                .nspec
                .clamp(1, dtrace_codegen::layout::MAX_NSPEC as u64) as u32,
            specsize: self.options.specsize.min(u32::MAX as u64) as u32,
            stackframes: self
                .options
                .stackframes
                .unwrap_or(dtrace_sema::DEFAULT_STACK_FRAMES)
                .clamp(1, dtrace_sema::MAX_STACK_FRAMES),
            ustackframes: self
                .options
                .ustackframes
                .unwrap_or(dtrace_sema::DEFAULT_USTACK_FRAMES)
                .clamp(1, dtrace_sema::MAX_STACK_FRAMES),
            jstackframes: self
                .options
                .jstackframes
                .unwrap_or(dtrace_sema::DEFAULT_JSTACK_FRAMES)
                .clamp(1, dtrace_sema::MAX_STACK_FRAMES),
            ustackbytes: self.options.ustackbytes.min(1 << 20) as u32,
            // As DTrace: at most what the kernel's stack walk gives.
            maxframes: self
                .options
                .maxframes
                .or_else(dtrace_sys::limits::perf_event_max_stack)
                .unwrap_or(dtrace_sema::DEFAULT_MAX_FRAMES)
                .max(1),
            kprobes: self
                .kernel
                .as_ref()
                .is_some_and(|(_, f)| !f.tracing && f.kprobe_pmu),
            cpus: dtrace_sys::cpu::possible_cpus()
                .ok()
                .and_then(|c| c.last().map(|m| m + 1))
                .unwrap_or(1),
            ..CompileOptions::default()
        }
    }

    /// Compiles a D program given as text (libdtrace's
    /// `dtrace_program_strcompile`), with `$1`... from `macro_args`.
    ///
    /// Errors are values: the `D_*` tag, the message and the place.
    ///
    /// ```
    /// let mut dt = dtrace::Dtrace::open(false)?;
    /// let info = dt.compile_str("BEGIN { trace($1); }", &["7".into()])?;
    /// assert_eq!(info.matched, 1);
    /// let e = dt.compile_str("BEGIN {\n  trace();\n}", &[]).unwrap_err();
    /// assert_eq!(e.tag, Some("D_PROTO_LEN"));
    /// let at = e.location.expect("a place in the source");
    /// assert_eq!((at.line, at.column), (2, 3));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn compile_str(
        &mut self,
        program: &str,
        macro_args: &[String],
    ) -> Result<ProgramInfo, CompileError> {
        let source = Source::Script {
            path: "<string>".into(),
            text: program.to_string(),
        };
        // `$0` is the program's name, as dtrace(1) passes it.
        let args: Vec<String> = std::iter::once("<string>".to_string())
            .chain(macro_args.iter().cloned())
            .collect();
        self.compile(&source, &args, &HashMap::new())
    }

    /// Compiles the D program in file `path` (libdtrace's
    /// `dtrace_program_fcompile`), with `$1`... from `macro_args`.
    pub fn compile_file(
        &mut self,
        path: &str,
        macro_args: &[String],
    ) -> Result<ProgramInfo, CompileError> {
        let text = std::fs::read_to_string(path).map_err(|e| {
            compile::plain(format!(
                "dtrace: failed to open {path}: {}",
                dtrace_sys::proc::strerror(&e)
            ))
        })?;
        let source = Source::Script {
            path: path.to_string(),
            text,
        };
        let args: Vec<String> = std::iter::once(path.to_string())
            .chain(macro_args.iter().cloned())
            .collect();
        self.compile(&source, &args, &HashMap::new())
    }

    fn generate(&mut self) -> Result<CompiledProgram, CompileError> {
        self.generate_with(&dtrace_codegen::late::LateUprobes::default())
    }

    /// [`Self::generate`], with clauses that may gain probes while tracing.
    fn generate_with(
        &mut self,
        late: &dtrace_codegen::late::LateUprobes,
    ) -> Result<CompiledProgram, CompileError> {
        let mut opts = self.compile_options();
        let typed = match self.typed.clone() {
            Some(t) => t,
            None => {
                let whole = Program {
                    items: self.items.clone(),
                };
                dtrace_sema::check_with(
                    &whole,
                    &self.clause_probes,
                    &mut self.types,
                    &opts,
                    &kallsyms,
                )
                .map_err(|d| compile::error(&self.map, &d, self.options.errtags))?
            }
        };
        // Only a program that reads task structures at fixed offsets asks the
        // type table for them (which reads kernel BTF then, if nothing has).
        if reads_task_offsets(&typed, &self.clause_probes) {
            self.offsets = self.kernel_offsets();
            opts.kernel = self.offsets;
        }
        // Probe names for the consumer come from codegen's description
        // (`link::describe`), built from the same clause probes.
        Ok(dtrace_codegen::compile_with(
            &typed,
            &self.clause_probes,
            &opts,
            late,
        ))
    }

    /// `-S`: disassembly of every compiled program, each clause headed by
    /// its probe descriptions (`Disassembly of clause :::BEGIN (epid 1):`).
    pub fn disassemble(&mut self) -> String {
        let labels = compile::clause_labels(&self.items);
        match self.generate() {
            Ok(c) => dtrace_codegen::disassemble_labelled(&c, &|i| labels.get(i as usize).cloned()),
            Err(e) => e.message,
        }
    }

    /// Load maps and programs into the kernel; nothing fires until `Session::go`.
    pub fn exec(mut self) -> Result<Session, ExecError> {
        // A provider that cannot enable its probes on this kernel (fbt without
        // fentry or kprobes, cpc without hardware counters) says why before any
        // code is generated: a glob such as `fbt::vfs_*:entry` matches hundreds
        // of functions, each of which would otherwise get its own program first.
        if let Some((_, features)) = &self.kernel {
            let enabled: Vec<ProbeInfo> = self.clause_probes.iter().flatten().cloned().collect();
            if let Some(why) = self.catalog.refusal(&enabled, features) {
                return Err(ExecError {
                    message: format!("dtrace: could not enable tracing: {why}"),
                    detail: None,
                });
            }
        }
        let plan = late::Plan::new(&self.catalog, &compile::clause_descs(&self.items));
        // Holding dtrace's own descendants reads task_struct's layout (before
        // code generation releases the kernel's BTF).
        // (Without kernel BTF the offsets would be guesses: not held then.)
        let offsets = plan
            .every()
            .then(|| self.kernel_offsets())
            .filter(|o| *o != KernelOffsets::default());
        let compiled = self.generate_with(&plan.uprobes()).map_err(|e| ExecError {
            message: e.message,
            detail: None,
        })?;
        if compiled.desc.destructive && !self.options.destructive {
            return Err(ExecError {
                message: "dtrace: could not enable tracing: Destructive actions not allowed".into(),
                detail: None,
            });
        }
        let Some((sys, features)) = self.kernel.take() else {
            return Err(ExecError {
                message: "dtrace: failed to initialize dtrace: the handle was opened without kernel access".into(),
                detail: None,
            });
        };
        let writes_user = compiled.writes_user_memory();
        // copyout() and copyoutstr() are destructive subroutines: -w first.
        if writes_user && !self.options.destructive {
            return Err(ExecError {
                message: "dtrace: could not enable tracing: Destructive actions not allowed".into(),
                detail: None,
            });
        }
        if let (true, Some(why)) = (writes_user, features.user_write_refusal()) {
            return Err(ExecError {
                message: why,
                detail: None,
            });
        }
        // The kernel's BTF (~9 MiB parsed) is not needed once code is generated:
        // free it before the ring buffer is mapped, so peak RSS is the larger of
        // the two rather than their sum (docs/PERFORMANCE.md).
        self.types = TypeTable::with_model(self.types.model());
        self.btf.release();
        if let Some(limit) = self.options.lockmem {
            dtrace_sys::limits::set_memlock(limit).map_err(|e| ExecError {
                message: format!(
                    "dtrace: failed to set the locked-memory limit (lockmem): {}",
                    dtrace_sys::proc::strerror(&std::io::Error::from_raw_os_error(e.0))
                ),
                detail: None,
            })?;
        }
        let mut sites = std::collections::BTreeMap::new();
        for (id, _) in compiled.programs.iter().flat_map(|p| p.uprobes.iter()) {
            sites.insert(*id, self.catalog.uprobe_sites(*id).to_vec());
        }
        // The most one END firing records: what a `fill` buffer keeps back.
        let end_clauses: std::collections::BTreeSet<u32> = (0u32..)
            .zip(&self.clause_probes)
            .filter(|(_, probes)| {
                probes
                    .iter()
                    .any(|p| p.provider == "dtrace" && p.name == "END")
            })
            .map(|(i, _)| i)
            .collect();
        let end_reserve = dtrace_consumer::principal::end_reserve(
            compiled
                .desc
                .epids
                .values()
                .filter(|e| end_clauses.contains(&e.clause)),
            self.options.strsize,
        );
        let late = if plan.is_empty() {
            None
        } else {
            let mut late = late::LateProbes::new(self.catalog, plan, &compiled);
            if let Some(o) = offsets {
                late.hold_progeny(o.task_real_parent, o.task_tgid);
            }
            Some(late)
        };
        Session::new(
            &sys,
            &features,
            compiled,
            &self.options,
            sites,
            end_reserve,
            late,
        )
    }
}
