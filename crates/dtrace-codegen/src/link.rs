//! Grouping clauses into programs (one per attachment), building each program's
//! trampoline, clause subprograms and ERROR subprogram, and linking them: local
//! calls resolved, relocations and clause ranges placed. Also the `-S` listing.

use crate::asm::{Asm, FuncId, MapReloc};
use crate::clause::gen_clause;
use crate::desc::{EpidDesc, ProbeName, ProgramDesc};
use crate::late::LateUprobes;
use crate::layout::{round8, Layout};
use crate::record::RecordPlan;
use crate::strfn::subr::{Subrs, SUBR_BASE};
use crate::trampoline::args::ArgsCtx;
use crate::trampoline::syscall::SysCtx;
use crate::trampoline::{self, Dispatch};
use crate::{Attach, BpfProgram, CompiledProgram, MapKind, MapSpec, ProgType};
use dtrace_bpf::MapRef;
use dtrace_sema::{CompileOptions, ProbeInfo, ProbeKind, TypedProgram};
use std::collections::BTreeMap;

/// The programs of a D program: one per attachment point (or, for syscalls,
/// one per direction, dispatching by syscall number). Names are owned: they
/// come from the probes, known only at run time.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
enum Group {
    Begin,
    /// pid and usdt probes: entry/offset or return. Attached first (groups
    /// attach in this order), so that a process a kernel probe acts on
    /// (`raise()` from a syscall probe) cannot run past them unseen.
    Uprobe(bool),
    SysEnter,
    SysExit,
    Profile(u32),
    /// A kernel tracepoint, by perf event id.
    Tracepoint(u32),
    /// A raw tracepoint serving SDT probes (proc, sched, io), by name.
    RawSdt(&'static str),
    /// A raw tracepoint, by name.
    RawTracepoint(String),
    /// A kernel function's entry or return.
    KernelFunc {
        func: String,
        ret: bool,
    },
    /// A hardware-counter probe, by probe id.
    Cpc(u32),
    End,
}

/// The most syscalls that are traced through their own tracepoints
/// (`syscalls:sys_enter_<name>`): these cost nothing on other syscalls but take
/// about 71 ms each to detach (one RCU grace period, serialized: see
/// KERNEL-FACTS.md), so 6 of them add under half a second at exit. More use
/// the raw `sys_enter`/`sys_exit` tracepoints: instant to detach, ~65 ns on
/// every syscall.
pub const SYSCALL_TRACEPOINTS_MAX: usize = 6;

/// Where a probe's clauses go.
enum Home {
    Group(Group),
    /// The ERROR probe: compiled into every program as the fault handler.
    Error,
    /// No program: lockstat probes, which their provider refuses to enable
    /// before code generation matters (they need kernel-function attachment
    /// with pre-conditions not generated yet).
    None,
}

fn group_of(p: &ProbeInfo) -> Home {
    Home::Group(match p.kind {
        ProbeKind::Begin => Group::Begin,
        ProbeKind::End => Group::End,
        ProbeKind::Error => return Home::Error,
        ProbeKind::SyscallEntry { .. } => Group::SysEnter,
        ProbeKind::SyscallReturn { .. } => Group::SysExit,
        ProbeKind::Profile { .. } | ProbeKind::Tick { .. } => Group::Profile(p.id),
        ProbeKind::Tracepoint { event_id } => Group::Tracepoint(event_id),
        ProbeKind::RawSdt { tp, .. } => Group::RawSdt(tp),
        ProbeKind::Uprobe { ret } => Group::Uprobe(ret),
        ProbeKind::RawTracepoint => Group::RawTracepoint(p.name.to_string()),
        ProbeKind::KernelFunc { ret, .. } => Group::KernelFunc {
            func: p.function.to_string(),
            ret,
        },
        ProbeKind::Cpc { .. } => Group::Cpc(p.id),
        ProbeKind::Lockstat { .. } => return Home::None,
    })
}

/// The per-syscall tracepoints of a syscall group, when it has few syscalls and
/// each has one (its provider read the tracepoint's format: `fields` is set).
fn syscall_tracepoints(members: &[(usize, Vec<ProbeInfo>)], exit: bool) -> Option<Vec<String>> {
    let mut names: Vec<String> = Vec::new();
    for p in members.iter().flat_map(|(_, ps)| ps) {
        if p.fields.is_empty() {
            return None;
        }
        let name = format!("sys_{}_{}", if exit { "exit" } else { "enter" }, p.function);
        if !names.contains(&name) {
            names.push(name);
        }
    }
    (!names.is_empty() && names.len() <= SYSCALL_TRACEPOINTS_MAX).then_some(names)
}

/// Compile a checked program into maps, programs and the consumer's descriptions.
pub fn compile(
    tp: &TypedProgram,
    probes: &[Vec<ProbeInfo>],
    opts: &CompileOptions,
) -> CompiledProgram {
    compile_with(tp, probes, opts, &LateUprobes::default())
}

/// [`compile`], with clauses that may gain user-space probes while tracing
/// (see [`crate::late`]).
pub fn compile_with(
    tp: &TypedProgram,
    probes: &[Vec<ProbeInfo>],
    opts: &CompileOptions,
    late: &LateUprobes,
) -> CompiledProgram {
    let mut l = Layout::new(tp, probes, opts, late);
    // Clauses per group, in program order, with the probes they have there.
    let mut groups: BTreeMap<Group, Vec<(usize, Vec<ProbeInfo>)>> = BTreeMap::new();
    let mut error_clauses = Vec::new();
    let mut error_probe = None;
    for (ci, ps) in probes.iter().enumerate().take(tp.clauses.len()) {
        let mut per: BTreeMap<Group, Vec<ProbeInfo>> = BTreeMap::new();
        for p in ps {
            match group_of(p) {
                Home::Group(g) => {
                    let v = per.entry(g).or_default();
                    if !v.iter().any(|q| q.id == p.id) {
                        v.push(p.clone());
                    }
                }
                Home::Error => {
                    if !error_clauses.contains(&ci) {
                        error_clauses.push(ci);
                    }
                    error_probe = Some(p.clone());
                }
                Home::None => {}
            }
        }
        for (g, v) in per {
            groups.entry(g).or_default().push((ci, v));
        }
    }
    // A clause that may gain user-space probes is in the uprobe programs
    // (in program order) even before any of its probes exists.
    for c in &late.clauses {
        for (ret, wanted) in [(false, c.entry), (true, c.ret)] {
            let members = groups.entry(Group::Uprobe(ret)).or_default();
            if wanted && !members.iter().any(|(ci, _)| *ci == c.clause) {
                let at = members.partition_point(|(ci, _)| *ci < c.clause);
                members.insert(at, (c.clause, Vec::new()));
            }
        }
    }
    groups.retain(|_, members| !members.is_empty());
    let error_ids = error_probe
        .as_ref()
        .map(|p| (p.id, l.probe_index.get(&p.id).copied().unwrap_or(0)));
    let mut programs = Vec::new();
    let mut tmp_max = 0u32;
    for (g, members) in &groups {
        let mut funcs: Vec<(Asm, Option<usize>)> = Vec::new();
        funcs.push((Asm::new(), None));
        let mut clause_ids = Vec::new();
        let mut args = false;
        // Whether some clause uses dctx (see `ClauseCode::uses_dctx`).
        let mut dctx = false;
        // Which arguments the clauses read (bit i: `argi`).
        let mut args_mask = 0u16;
        // Syscalls: their own tracepoints for a few, raw sys_enter/sys_exit
        // for many; the context decides how many frames stack() skips.
        let sys_tp = match g {
            Group::SysEnter | Group::SysExit => syscall_tracepoints(members, *g == Group::SysExit),
            _ => None,
        };
        l.stack_skip = if sys_tp.is_some() || matches!(g, Group::Tracepoint(_)) {
            crate::action::stack::PERF_TP_FRAMES
        } else {
            crate::action::stack::RAW_TP_FRAMES
        };
        // A probe's only clause runs in line in the trampoline (one call
        // site: a raw-SDT program serving one probe), except in BEGIN and END,
        // whose trampolines go on after their clauses.
        let mut inlined = None;
        let inline = members.len() == 1
            && !matches!(g, Group::Begin | Group::End)
            && (!matches!(g, Group::RawSdt(_)) || members[0].1.len() == 1);
        let frame_skip = l.stack_skip;
        if inline && l.stack_skip == crate::action::stack::RAW_TP_FRAMES {
            // No clause subprogram frame on the kernel stack.
            l.stack_skip = crate::action::stack::RAW_TP_FRAMES - 1;
        }
        for (ci, ps) in members {
            let Some(c) = tp.clauses.get(*ci) else {
                continue;
            };
            args |= c.args_used != 0;
            args_mask |= c.args_used;
            let code = gen_clause(&mut l, tp, opts, c, ps.clone());
            tmp_max = tmp_max.max(code.tmp_size);
            dctx |= code.uses_dctx;
            if inline {
                // Not a function: `dispatch` places it.
                clause_ids.push(FuncId(usize::MAX));
                inlined = Some((code.asm, *ci));
            } else {
                clause_ids.push(FuncId(funcs.len()));
                funcs.push((code.asm, Some(*ci)));
            }
        }
        l.stack_skip = frame_skip;
        let err_id = FuncId(funcs.len());
        funcs.push((Asm::new(), None));
        let mut err_clause_ids = Vec::new();
        for ci in &error_clauses {
            let Some(c) = tp.clauses.get(*ci) else {
                continue;
            };
            let ps: Vec<ProbeInfo> = error_probe.iter().cloned().collect();
            let code = gen_clause(&mut l, tp, opts, c, ps);
            tmp_max = tmp_max.max(code.tmp_size);
            err_clause_ids.push(FuncId(funcs.len()));
            funcs.push((code.asm, Some(*ci)));
        }
        funcs[err_id.0].0 = crate::error::build(&l, error_ids, &err_clause_ids);
        let clause_probes: Vec<(u32, u32)> = members
            .iter()
            .filter_map(|(ci, ps)| Some((*ci as u32, ps.first()?.id)))
            .chain(
                error_clauses
                    .iter()
                    .filter_map(|ci| Some((*ci as u32, error_probe.as_ref()?.id))),
            )
            .collect();
        if let Group::RawSdt(raw) = *g {
            let mut served = raw_sdt_probes(&l, members, &clause_ids, err_id);
            if let [only] = served.as_mut_slice() {
                only.clauses.inline = inlined.take();
            }
            let needs = trampoline::rawsdt::Needs {
                args,
                dctx: dctx || args,
            };
            funcs[0].0 = trampoline::rawsdt::build(&l, raw, &served, needs, opts.kernel);
            add_subrs(&mut funcs, &l.subrs);
            let name = format!("dtrace_{raw}");
            let attach = Attach::RawTracepoint(raw.to_string());
            let mut prog = link(name, ProgType::RawTracepoint, attach, funcs, tp);
            prog.clause_probes = clause_probes;
            programs.push(prog);
            continue;
        }
        let d = Dispatch {
            clauses: clause_ids,
            error: err_id,
            masked: matches!(g, Group::SysEnter | Group::SysExit | Group::Uprobe(_)),
            inline: inlined.take(),
        };
        let first = members.first().and_then(|(_, ps)| ps.first().cloned());
        let probe_id = first.as_ref().map(|p| p.id).unwrap_or(0);
        let index = l.probe_index.get(&probe_id).copied().unwrap_or(0);
        let mut uprobes = Vec::new();
        let mut late_rows = None;
        let mut retoff_map = None;
        let (name, prog_type, attach, main) = match g {
            Group::Begin => (
                "dtrace_begin".to_string(),
                ProgType::RawTracepoint,
                Attach::Begin,
                trampoline::dtrace::build(&l, false, probe_id, index, args, &d),
            ),
            Group::End => (
                "dtrace_end".to_string(),
                ProgType::RawTracepoint,
                Attach::End,
                trampoline::dtrace::build(&l, true, probe_id, index, args, &d),
            ),
            Group::SysEnter | Group::SysExit => {
                let exit = *g == Group::SysExit;
                let table = syscall_table(&mut l, exit, members, opts);
                let nr_max = opts.max_syscalls;
                let dir = if exit { "exit" } else { "enter" };
                let (attach, ctx) = match sys_tp.clone() {
                    Some(events) => (
                        Attach::Tracepoints {
                            group: "syscalls".into(),
                            events,
                        },
                        SysCtx::Tracepoint,
                    ),
                    None => (Attach::RawTracepoint(format!("sys_{dir}")), SysCtx::Raw),
                };
                let prog_type = match ctx {
                    SysCtx::Raw => ProgType::RawTracepoint,
                    SysCtx::Tracepoint => ProgType::Tracepoint,
                };
                (
                    format!("dtrace_sys_{dir}"),
                    prog_type,
                    attach,
                    trampoline::syscall::build(&l, exit, ctx, table, nr_max, args, &d),
                )
            }
            Group::Profile(id) => {
                let (period_ns, all_cpus) = match first.as_ref().map(|p| p.kind) {
                    Some(ProbeKind::Profile { period_ns }) => (period_ns, true),
                    Some(ProbeKind::Tick { period_ns }) => (period_ns, false),
                    _ => (1_000_000_000, false),
                };
                (
                    format!("dtrace_prof_{id}"),
                    ProgType::PerfEvent,
                    Attach::CpuClock {
                        period_ns,
                        all_cpus,
                    },
                    trampoline::profile::build(&l, probe_id, index, args, &d),
                )
            }
            Group::RawSdt(_) => continue,
            Group::Tracepoint(event_id) => {
                let fields = first.as_ref().map(|p| p.fields.as_slice()).unwrap_or(&[]);
                (
                    format!("dtrace_tp_{event_id}"),
                    ProgType::Tracepoint,
                    Attach::Tracepoint {
                        event_id: *event_id,
                    },
                    trampoline::tracepoint::build(&l, probe_id, index, fields, args, &d),
                )
            }
            Group::Uprobe(ret) => {
                let (t, served) = crate::late::uprobe_table(&mut l, *ret, members, late);
                uprobes = served;
                late_rows = (t.capacity > t.used).then(|| t.clone());
                let described = late_rows.as_ref().map(|r| {
                    // The registers are copied to the temporaries' area.
                    tmp_max = tmp_max.max(8 * trampoline::uprobe::PT_REGS_WORDS as u32);
                    trampoline::uprobe::Described {
                        at: r.args_at as i16,
                        regs: l.tmp_area,
                    }
                });
                if *ret {
                    l.maps.push(MapSpec::new(
                        "dt_retoff",
                        MapKind::Hash,
                        16,
                        8,
                        RETOFF_THREADS,
                    ));
                    retoff_map = Some(l.maps.len() - 1);
                }
                (
                    format!("dtrace_uprobe{}", if *ret { "_ret" } else { "" }),
                    ProgType::Uprobe,
                    Attach::Uprobe { ret: *ret },
                    trampoline::uprobe::build(
                        &l,
                        &trampoline::uprobe::Table {
                            map: t.map,
                            n: t.capacity,
                            spec_at: t.spec_at as i16,
                            specs: &t.specs,
                            retoff: retoff_map,
                            described,
                        },
                        args_mask,
                        &d,
                    ),
                )
            }
            Group::RawTracepoint(name) => {
                let nargs = first.as_ref().map_or(0, |p| p.args.len()) as u8;
                (
                    format!("dtrace_rawtp_{probe_id}"),
                    ProgType::RawTracepoint,
                    Attach::RawTracepoint(name.clone()),
                    trampoline::args::build(
                        &l,
                        probe_id,
                        index,
                        ArgsCtx::Entry { nargs },
                        args,
                        &d,
                    ),
                )
            }
            Group::KernelFunc { func, ret } => {
                let nargs = match first.as_ref().map(|p| p.kind) {
                    Some(ProbeKind::KernelFunc { nargs, .. }) => nargs,
                    _ => 0,
                };
                let name = format!("dtrace_fbt_{probe_id}");
                if opts.kprobes {
                    (
                        name,
                        ProgType::Kprobe,
                        Attach::Kprobe {
                            func: func.clone(),
                            ret: *ret,
                        },
                        trampoline::kprobe::build(&l, probe_id, index, *ret, args, &d),
                    )
                } else {
                    let ctx = if *ret {
                        ArgsCtx::Return { nargs }
                    } else {
                        ArgsCtx::Entry { nargs }
                    };
                    (
                        name,
                        ProgType::Tracing,
                        Attach::Fentry {
                            func: func.clone(),
                            ret: *ret,
                        },
                        trampoline::args::build(&l, probe_id, index, ctx, args, &d),
                    )
                }
            }
            Group::Cpc(id) => {
                let (config, mode, count) = match first.as_ref().map(|p| p.kind) {
                    Some(ProbeKind::Cpc { event, mode, count }) => (event, mode, count),
                    _ => (0, 0, 1),
                };
                (
                    format!("dtrace_cpc_{id}"),
                    ProgType::PerfEvent,
                    Attach::HwCounter {
                        config: u64::from(config),
                        count,
                        mode,
                    },
                    trampoline::profile::build(&l, probe_id, index, args, &d),
                )
            }
        };
        funcs[0].0 = main;
        add_subrs(&mut funcs, &l.subrs);
        let mut prog = link(name, prog_type, attach, funcs, tp);
        prog.uprobes = uprobes;
        prog.retoff_map = retoff_map;
        prog.late = late_rows;
        prog.clause_probes = clause_probes;
        programs.push(prog);
    }
    // lockstat's contention probes read the waits a companion program on
    // `contention_begin` keeps.
    if let Some(map) = l.lockwait {
        let begin = trampoline::rawsdt::LOCK_BEGIN;
        let funcs = vec![(trampoline::lockwait::begin(&l, map), None)];
        let attach = Attach::RawTracepoint(begin.to_string());
        let name = format!("dtrace_{begin}");
        programs.push(link(name, ProgType::RawTracepoint, attach, funcs, tp));
    }
    l.finish(tmp_max);
    let desc = describe(tp, probes, opts);
    let var_tables = crate::vartab::tables(tp, &l);
    CompiledProgram {
        var_tables,
        desc,
        ringbuf_map: l.ringbuf,
        drops_map: l.drops,
        spec_map: l.specs,
        agg_maps: l.agg_maps.clone(),
        agg_groups: l.agg_groups.clone(),
        agg_fixed: l.agg_fixed.clone(),
        globals_map: l.globals,
        probe_names: l.late_names.clone(),
        maps: l.maps,
        programs,
    }
}

/// The probes a raw-tracepoint program serves, in probe-ID order, each with
/// the clauses (of `clause_ids`, one per member) that name it.
fn raw_sdt_probes(
    l: &Layout,
    members: &[(usize, Vec<ProbeInfo>)],
    clause_ids: &[FuncId],
    error: FuncId,
) -> Vec<trampoline::rawsdt::Served> {
    let mut probes: BTreeMap<u32, dtrace_sema::Prep> = BTreeMap::new();
    for (_, ps) in members {
        for p in ps {
            if let ProbeKind::RawSdt { prep, .. } = p.kind {
                probes.insert(p.id, prep);
            }
        }
    }
    probes
        .into_iter()
        .map(|(id, prep)| trampoline::rawsdt::Served {
            id,
            index: l.probe_index.get(&id).copied().unwrap_or(0),
            prep,
            clauses: Dispatch {
                clauses: members
                    .iter()
                    .zip(clause_ids)
                    .filter(|((_, ps), _)| ps.iter().any(|p| p.id == id))
                    .map(|(_, f)| *f)
                    .collect(),
                error,
                masked: false,
                inline: None,
            },
        })
        .collect()
}

/// The read-only syscall table of a syscall program: nr -> {probe id, probe index,
/// clause mask words}.
fn syscall_table(
    l: &mut Layout,
    exit: bool,
    members: &[(usize, Vec<ProbeInfo>)],
    opts: &CompileOptions,
) -> usize {
    let words = members.len().div_ceil(32).max(1);
    let vsize = 8 + 4 * words as u32;
    let mut entries: BTreeMap<u32, (u32, Vec<u32>)> = BTreeMap::new();
    for (k, (_, ps)) in members.iter().enumerate() {
        for p in ps {
            let nr = match p.kind {
                ProbeKind::SyscallEntry { nr } | ProbeKind::SyscallReturn { nr } => nr,
                _ => continue,
            };
            if nr >= opts.max_syscalls {
                continue;
            }
            let e = entries.entry(nr).or_insert((p.id, vec![0; words]));
            if let Some(w) = e.1.get_mut(k / 32) {
                *w |= 1 << (k % 32);
            }
        }
    }
    let name = if exit { "dt_sysret" } else { "dt_sysent" };
    let mut m = MapSpec::new(
        name,
        MapKind::Array,
        4,
        round8(vsize),
        opts.max_syscalls.max(1),
    );
    for (nr, (id, mask)) in entries {
        let mut v = Vec::new();
        v.extend_from_slice(&id.to_ne_bytes());
        v.extend_from_slice(&l.probe_index.get(&id).copied().unwrap_or(0).to_ne_bytes());
        for w in mask {
            v.extend_from_slice(&w.to_ne_bytes());
        }
        v.resize(round8(vsize) as usize, 0);
        m.initial.push((nr.to_ne_bytes().to_vec(), v));
    }
    // Not frozen: the verifier cannot read frozen multi-entry arrays as constants
    // (it tries, and fails with ENOTSUPP); BPF_F_RDONLY_PROG still forbids writes.
    m.flags = crate::BPF_F_RDONLY_PROG;
    l.maps.push(m);
    l.maps.len() - 1
}

/// Append the string subprograms that `funcs` call (directly or through other
/// subprograms) and point those calls at them.
fn add_subrs(funcs: &mut Vec<(Asm, Option<usize>)>, subrs: &Subrs) {
    let mut placed: BTreeMap<usize, usize> = BTreeMap::new();
    let mut i = 0;
    while i < funcs.len() {
        let wanted: Vec<usize> = funcs[i]
            .0
            .calls
            .iter()
            .map(|(_, f)| f.0)
            .filter(|t| *t >= SUBR_BASE)
            .collect();
        for t in wanted {
            if placed.contains_key(&t) {
                continue;
            }
            if let Some(code) = subrs.get(FuncId(t)) {
                placed.insert(t, funcs.len());
                funcs.push((code.clone(), None));
            }
        }
        i += 1;
    }
    for (f, _) in funcs.iter_mut() {
        for (_, id) in f.calls.iter_mut() {
            if let Some(p) = placed.get(&id.0) {
                *id = FuncId(*p);
            }
        }
    }
}

fn link(
    name: String,
    prog_type: ProgType,
    attach: Attach,
    funcs: Vec<(Asm, Option<usize>)>,
    tp: &TypedProgram,
) -> BpfProgram {
    let funcs = crate::fuse::fuse(funcs, crate::fuse::MAX_FUNCS);
    let mut starts = Vec::new();
    let mut pos = 0usize;
    for (f, _) in &funcs {
        starts.push(pos);
        pos += f.insns.len();
    }
    let mut insns = Vec::with_capacity(pos);
    let mut relocs = Vec::new();
    let mut clause_ranges = Vec::new();
    let mut loop_ranges = Vec::new();
    for (i, (f, ci)) in funcs.iter().enumerate() {
        let base = starts[i];
        let mut code = f.insns.clone();
        for (at, FuncId(t)) in &f.calls {
            let target = starts.get(*t).copied().unwrap_or(0) as i64;
            if let Some(insn) = code.get_mut(*at) {
                insn.imm = (target - (base + at + 1) as i64) as i32;
            }
        }
        for r in &f.relocs {
            relocs.push(MapReloc {
                insn: r.insn + base,
                ..*r
            });
        }
        for (r, line) in &f.loops {
            loop_ranges.push((r.start + base..r.end + base, *line));
        }
        if let Some(ci) = ci {
            if let Some(c) = tp.clauses.get(*ci) {
                clause_ranges.push((base..base + code.len(), c.index, c.span));
            }
        }
        for (r, ci) in &f.inlined {
            if let Some(c) = tp.clauses.get(*ci) {
                clause_ranges.push((r.start + base..r.end + base, c.index, c.span));
            }
        }
        insns.extend(code);
    }
    BpfProgram {
        name,
        prog_type,
        attach,
        insns,
        relocs,
        clause_ranges,
        loop_ranges,
        clause_probes: Vec::new(),
        uprobes: Vec::new(),
        retoff_map: None,
        late: None,
    }
}

/// Threads whose last return offset the `dt_retoff` map holds at once.
const RETOFF_THREADS: u32 = 16384;

fn describe(tp: &TypedProgram, probes: &[Vec<ProbeInfo>], opts: &CompileOptions) -> ProgramDesc {
    let mut d = ProgramDesc {
        destructive: tp.destructive,
        ..ProgramDesc::default()
    };
    for c in &tp.clauses {
        let plan = RecordPlan::new(&c.body, opts);
        d.epids.insert(
            c.index + 1,
            EpidDesc {
                epid: c.index + 1,
                clause: c.index,
                size: plan.size,
                actions: plan.actions,
            },
        );
    }
    for a in &tp.aggs {
        d.aggs.insert(a.id, crate::agg::agg_desc(a));
    }
    for p in probes.iter().flatten() {
        d.probes.insert(
            p.id,
            ProbeName {
                provider: p.provider.to_string(),
                module: p.module.to_string(),
                function: p.function.to_string(),
                name: p.name.to_string(),
            },
        );
    }
    d
}

/// The `dtrace -S` listing: every program with its clause boundaries marked.
pub fn disassemble(cp: &CompiledProgram) -> String {
    disassemble_labelled(cp, &|_| None)
}

/// The `dtrace -S` listing, each clause headed `Disassembly of clause LABEL`
/// where `label` gives one for the clause index (its probe descriptions), and
/// by its index otherwise.
pub fn disassemble_labelled(cp: &CompiledProgram, label: &dyn Fn(u32) -> Option<String>) -> String {
    let mut out = String::new();
    let names = |r: MapRef| -> Option<String> {
        let i = match r {
            MapRef::Fd(i) | MapRef::Index(i) => i,
        };
        cp.maps.get(i as usize).map(|m| m.name.clone())
    };
    for p in &cp.programs {
        out.push_str(&format!(
            "program {} ({:?}, {:?}): {} instructions\n",
            p.name,
            p.prog_type,
            p.attach,
            p.insns.len()
        ));
        let text = dtrace_bpf::disassemble_with(&p.insns, &names);
        for line in text.lines() {
            let idx = dtrace_bpf::line_index(line);
            if let Some(i) = idx {
                for (r, c, _) in &p.clause_ranges {
                    if r.start == i {
                        let what = label(*c).unwrap_or_else(|| c.to_string());
                        out.push_str(&format!("Disassembly of clause {what} (epid {}):\n", c + 1));
                    }
                }
                if i == 0 {
                    out.push_str("; ---- trampoline ----\n");
                }
            }
            out.push_str(line);
            out.push('\n');
            if let Some(i) = idx {
                for (r, c, _) in &p.clause_ranges {
                    if r.end == i + 1 {
                        let rows = cp.var_tables.get(*c as usize);
                        out.push_str(&crate::vartab::render(rows.map_or(&[], |v| v), r));
                    }
                }
            }
        }
    }
    out
}
