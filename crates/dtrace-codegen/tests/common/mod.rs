//! Test helpers: compile D source against a small fake probe table, and load the
//! result into the kernel through dtrace-sys.

#![allow(dead_code)]

pub mod kernel;

use dtrace_codegen::{compile, Attach, CompiledProgram, MapKind};
use dtrace_ctypes::TypeTable;
use dtrace_sema::{check, CompileOptions, ProbeInfo, ProbeKind};
use dtrace_syntax::ast::Item;
use dtrace_syntax::{parse, Diagnostic, ParseOptions, SourceKind, SourceMap};
use std::collections::HashMap;

fn probe(id: u32, prov: &str, func: &str, name: &str, kind: ProbeKind) -> ProbeInfo {
    ProbeInfo {
        id,
        provider: prov.into(),
        module: Default::default(),
        function: func.into(),
        name: name.into(),
        kind,
        args: Vec::new(),
        fields: Vec::new(),
    }
}

/// x86_64 syscall numbers used by the tests.
const SYSCALLS: &[(&str, u32)] = &[
    ("read", 0),
    ("write", 1),
    ("close", 3),
    ("getpid", 39),
    ("getppid", 110),
    ("getuid", 102),
];

/// lockstat's contention probes as its provider defines them (at
/// `contention_end`, told apart by the wait's flags: `LCB_F_SPIN` 1,
/// `LCB_F_MUTEX` 32), for the lock-wait tests.
fn lockstat(name: &str) -> Option<ProbeInfo> {
    use dtrace_sema::{Cmp, Prep, Src, Test, LOCK_SLEPT};
    const fn flags(op: Cmp, imm: i32) -> Test {
        Test {
            value: Src::LockFlags,
            op,
            imm,
        }
    }
    const GOT: Test = Test {
        value: Src::Raw(1),
        op: Cmp::Eq,
        imm: 0,
    };
    const BLOCK: Prep = Prep {
        syscalls: &[],
        tests: &[flags(Cmp::Set, 32), flags(Cmp::Set, LOCK_SLEPT), GOT],
        args: &[Src::Raw(0), Src::LockWait],
    };
    const SPIN: Prep = Prep {
        syscalls: &[],
        tests: &[flags(Cmp::Set, 1), flags(Cmp::Clear, 62 | LOCK_SLEPT), GOT],
        args: &[Src::Raw(0), Src::LockWait],
    };
    const ERROR: Prep = Prep {
        syscalls: &[],
        tests: &[
            flags(Cmp::Set, 32),
            Test {
                value: Src::Raw(1),
                op: Cmp::Ne,
                imm: 0,
            },
        ],
        args: &[Src::Raw(0), Src::RawInt(1)],
    };
    let (id, prep) = match name {
        "adaptive-block" => (30, BLOCK),
        "spin-spin" => (31, SPIN),
        "adaptive-acquire-error" => (32, ERROR),
        _ => return None,
    };
    let kind = ProbeKind::RawSdt {
        tp: "contention_end",
        prep,
    };
    let mut p = probe(id, "lockstat", "", name, kind);
    p.args = dtrace_sema::ArgDesc::natives(&["uint64_t", "int64_t"]);
    Some(p)
}

/// A tiny stand-in for the providers: resolves the probe descriptions the tests use.
pub fn resolve(desc: &str) -> Vec<ProbeInfo> {
    let parts: Vec<&str> = desc.split(':').collect();
    let (prov, func, name) = match parts.as_slice() {
        [n] => ("", "", *n),
        [p, _m, f, n] => (*p, *f, *n),
        _ => ("", "", desc),
    };
    match (prov, name) {
        ("" | "dtrace", "BEGIN") => vec![probe(1, "dtrace", "", "BEGIN", ProbeKind::Begin)],
        ("" | "dtrace", "END") => vec![probe(2, "dtrace", "", "END", ProbeKind::End)],
        ("" | "dtrace", "ERROR") => vec![probe(3, "dtrace", "", "ERROR", ProbeKind::Error)],
        ("syscall", "entry") | ("syscall", "return") => SYSCALLS
            .iter()
            .filter(|(n, _)| func.is_empty() || *n == func)
            .map(|(n, nr)| {
                let entry = name == "entry";
                let kind = if entry {
                    ProbeKind::SyscallEntry { nr: *nr }
                } else {
                    ProbeKind::SyscallReturn { nr: *nr }
                };
                probe(100 + 2 * nr + u32::from(!entry), "syscall", n, name, kind)
            })
            .collect(),
        ("fbt", "entry") => {
            let mut p = probe(
                20,
                "fbt",
                func,
                name,
                ProbeKind::KernelFunc {
                    ret: false,
                    nargs: 4,
                },
            );
            p.args = dtrace_sema::ArgDesc::natives(&["uint64_t"; 4]);
            vec![p]
        }
        ("fbt", "return") => {
            let mut p = probe(
                21,
                "fbt",
                func,
                name,
                ProbeKind::KernelFunc {
                    ret: true,
                    nargs: 4,
                },
            );
            p.args = dtrace_sema::ArgDesc::natives(&["int", "long"]);
            vec![p]
        }
        ("lockstat", n) => lockstat(n).into_iter().collect(),
        ("profile", n) if n.starts_with("tick-") => {
            vec![probe(
                10,
                "profile",
                "",
                n,
                ProbeKind::Tick {
                    period_ns: 10_000_000,
                },
            )]
        }
        ("profile", n) => vec![probe(
            11,
            "profile",
            "",
            n,
            ProbeKind::Profile {
                period_ns: 10_000_000,
            },
        )],
        _ => Vec::new(),
    }
}

/// Parse and check `src`; returns the typed program and per-clause probes.
pub fn check_src(
    src: &str,
) -> Result<(dtrace_sema::TypedProgram, Vec<Vec<ProbeInfo>>), Diagnostic> {
    check_src_opts(src, &CompileOptions::default())
}

pub fn check_src_opts(
    src: &str,
    opts: &CompileOptions,
) -> Result<(dtrace_sema::TypedProgram, Vec<Vec<ProbeInfo>>), Diagnostic> {
    let mut map = SourceMap::new();
    let id = map.add(SourceKind::ProbeSpecifier, src.to_string());
    let args: Vec<String> = Vec::new();
    let vars: HashMap<String, String> = HashMap::new();
    let is_type = |_: &str| false;
    let popts = ParseOptions {
        macro_args: &args,
        macro_vars: &vars,
        defaultargs: false,
        is_type_name: &is_type,
        is_d_identifier: &dtrace_sema::is_d_identifier,
        pspec: false,
    };
    let prog = parse(&map, id, &popts)?;
    let mut probes = Vec::new();
    for item in &prog.items {
        if let Item::Clause(c) = item {
            let mut ps = Vec::new();
            for d in &c.probes {
                ps.extend(resolve(&d.text));
            }
            probes.push(ps);
        }
    }
    let mut types = TypeTable::with_builtins();
    let tp = check(&prog, &probes, &mut types, opts)?;
    Ok((tp, probes))
}

/// The default options, with this machine's CPU ids (the aggregations keep a
/// value per CPU id).
pub fn options() -> CompileOptions {
    let cpus = dtrace_sys::cpu::possible_cpus()
        .ok()
        .and_then(|c| c.last().map(|m| m + 1))
        .unwrap_or(1);
    CompileOptions {
        cpus,
        ..CompileOptions::default()
    }
}

pub fn compile_src(src: &str) -> CompiledProgram {
    let (tp, probes) = match check_src(src) {
        Ok(x) => x,
        Err(d) => panic!("compile error: {d:?}"),
    };
    compile(&tp, &probes, &options())
}

pub fn check_err(src: &str) -> Diagnostic {
    match check_src(src) {
        Ok(_) => panic!("expected an error for {src}"),
        Err(d) => d,
    }
}

pub fn map_kind_count(cp: &CompiledProgram, k: MapKind) -> usize {
    cp.maps.iter().filter(|m| m.kind == k).count()
}

pub fn prog_for(cp: &CompiledProgram, a: Attach) -> Option<&dtrace_codegen::BpfProgram> {
    cp.programs.iter().find(|p| p.attach == a)
}

/// task_struct offsets from this kernel's BTF (fallback: the defaults).
pub fn kernel_offsets() -> dtrace_sema::KernelOffsets {
    let mut t = TypeTable::with_builtins();
    if t.load_kernel_btf().is_err() {
        return dtrace_sema::KernelOffsets::default();
    }
    let off = |t: &mut TypeTable, m: &str| {
        dtrace_ctypes::offset_of_path(t, "struct task_struct", &[m])
            .ok()
            .map(|m| (m.bit_offset / 8) as u32)
    };
    let d = dtrace_sema::KernelOffsets::default();
    dtrace_sema::KernelOffsets {
        task_real_parent: off(&mut t, "real_parent").unwrap_or(d.task_real_parent),
        task_tgid: off(&mut t, "tgid").unwrap_or(d.task_tgid),
        task_exit_code: off(&mut t, "exit_code").unwrap_or(d.task_exit_code),
        task_signal: off(&mut t, "signal").unwrap_or(d.task_signal),
        ..d
    }
}

pub fn compile_src_opts(src: &str, opts: &CompileOptions) -> CompiledProgram {
    let (tp, probes) = match check_src_opts(src, opts) {
        Ok(x) => x,
        Err(d) => panic!("compile error: {d:?}"),
    };
    compile(&tp, &probes, opts)
}
