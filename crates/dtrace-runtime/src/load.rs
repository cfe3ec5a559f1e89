//! Creating maps and loading programs.

use crate::error::RuntimeError;
use dtrace_bpf::{Insn, Reg, Size};
use dtrace_codegen::{Attach, BpfProgram, MapKind, MapSpec, RelocKind};
use dtrace_sys::{
    map, AttachType, MapFd, MapType, ProgFd, ProgSpec, ProgType, SysRef, UpdateFlags,
};
use std::os::fd::AsRawFd;

fn map_type(kind: MapKind) -> MapType {
    match kind {
        MapKind::Hash => MapType::Hash,
        MapKind::Array => MapType::Array,
        MapKind::PercpuHash => MapType::PercpuHash,
        MapKind::PercpuArray => MapType::PercpuArray,
        MapKind::Queue => MapType::Queue,
        MapKind::Ringbuf => MapType::RingBuf,
    }
}

/// Create `spec`, write its initial entries and freeze it if asked.
pub fn create_map(sys: &SysRef, spec: &MapSpec) -> Result<MapFd, RuntimeError> {
    let err = |message: String| RuntimeError::Map {
        map: spec.name.clone(),
        message,
    };
    let mut max_entries = spec.max_entries.max(1);
    if spec.kind == MapKind::Ringbuf {
        // The kernel wants a power-of-two multiple of the page size.
        max_entries = max_entries
            .max(4096)
            .checked_next_power_of_two()
            .unwrap_or(1 << 30);
    }
    let s = map::MapSpec {
        name: spec.name.clone(),
        map_type: map_type(spec.kind),
        key_size: spec.key_size,
        value_size: spec.value_size,
        max_entries,
        flags: spec.flags,
    };
    let fd = MapFd::create(sys, &s).map_err(|e| err(e.to_string()))?;
    for (k, v) in &spec.initial {
        fd.update(k, v, UpdateFlags::Any)
            .map_err(|e| err(e.to_string()))?;
    }
    if spec.freeze {
        fd.freeze().map_err(|e| err(e.to_string()))?;
    }
    Ok(fd)
}

/// Patch map references to fds and load one program.
/// With `keep_log`, the verifier's log of a successful load is returned too
/// (`-x bpflog`, a buffer of that many bytes to start with). `log_limit`
/// bounds the verifier's log (`-x bpflogsize`; `None`: DTrace's default).
pub fn load_program(
    sys: &SysRef,
    prog: &BpfProgram,
    maps: &[MapFd],
    keep_log: Option<usize>,
    log_limit: Option<usize>,
) -> Result<(ProgFd, String), RuntimeError> {
    let mut insns = prog.insns.clone();
    for r in &prog.relocs {
        let fd = maps
            .get(r.map)
            .map(|m| m.as_raw_fd())
            .ok_or_else(|| RuntimeError::Load {
                program: prog.name.clone(),
                probe_id: prog.clause_probes.first().map(|(_, p)| *p),
                errno: None,
                clause: None,
                message: format!("relocation names unknown map {}", r.map),
                log: None,
                log_incomplete: None,
            })?;
        if let Some(i) = insns.get_mut(r.insn) {
            i.imm = fd;
        }
        if let RelocKind::Value { offset } = r.kind {
            if let Some(i) = insns.get_mut(r.insn + 1) {
                i.imm = offset as i32;
            }
        }
    }
    if let Some(clause) = reject_clause_for_tests() {
        sabotage_clause(prog, &mut insns, clause);
    }
    let fds: Vec<i32> = maps.iter().map(|m| m.as_raw_fd()).collect();
    let prog_type = match prog.prog_type {
        dtrace_codegen::ProgType::RawTracepoint => ProgType::RawTracepoint,
        dtrace_codegen::ProgType::PerfEvent => ProgType::PerfEvent,
        dtrace_codegen::ProgType::Tracepoint => ProgType::Tracepoint,
        dtrace_codegen::ProgType::Uprobe => ProgType::Kprobe,
        dtrace_codegen::ProgType::Tracing => ProgType::Tracing,
        dtrace_codegen::ProgType::Kprobe => ProgType::Kprobe,
    };
    let mut spec = ProgSpec::new(prog_type, &prog.name, &insns);
    if prog.prog_type == dtrace_codegen::ProgType::Uprobe {
        spec.expected_attach_type = dtrace_sys::AttachType::UprobeMulti;
    }
    if let Attach::Fentry { func, ret } = &prog.attach {
        // fentry/fexit programs are verified against the function's BTF type.
        spec.expected_attach_type = if *ret {
            AttachType::TraceFexit
        } else {
            AttachType::TraceFentry
        };
        spec.attach_btf_id =
            dtrace_providers::fbt::btf_func_id(func).ok_or_else(|| RuntimeError::Load {
                program: prog.name.clone(),
                probe_id: prog.clause_probes.first().map(|(_, p)| *p),
                errno: None,
                clause: None,
                message: format!("kernel function {func} has no BTF type"),
                log: None,
                log_incomplete: None,
            })?;
    }
    spec.fd_array = &fds;
    spec.keep_log = keep_log;
    let limit = log_limit.unwrap_or(dtrace_sys::prog::DEFAULT_LOG_LIMIT);
    spec.log_limit = limit;
    ProgFd::load_logged(sys, &spec).map_err(|e| {
        let log = e.verifier_log().map(str::to_string);
        let log_incomplete = matches!(
            e,
            dtrace_sys::prog::ProgError::Load {
                log_incomplete: true,
                ..
            }
        )
        .then_some(limit);
        let (insn, message) = match &log {
            Some(l) => summarize_log(l),
            None => (None, e.to_string()),
        };
        let errno = match &e {
            dtrace_sys::prog::ProgError::Load { errno, .. } => Some(*errno),
            _ => None,
        };
        if let Some(line) = failing_loop(prog, insn, &message) {
            return RuntimeError::Loop { line, log };
        }
        let clause = insn.and_then(|i| {
            prog.clause_ranges
                .iter()
                .find(|(r, _, _)| r.contains(&i))
                .map(|(_, c, _)| *c)
        });
        let probe_id = prog
            .clause_probes
            .iter()
            .find(|(c, _)| Some(*c) == clause)
            .or(prog.clause_probes.first())
            .map(|(_, p)| *p);
        RuntimeError::Load {
            program: prog.name.clone(),
            probe_id,
            errno,
            clause,
            message,
            log,
            log_incomplete,
        }
    })
}

/// Test-only, hidden: `DTRACE_TEST_REJECT_CLAUSE=N` makes the verifier reject
/// clause N (1-based, as error messages count) so tests can check how a verifier
/// rejection is reported (the log, the probe named, `-x verbose` naming the
/// clause). No D
/// program is known that our code generator turns into a rejected program, so
/// this is the only way to exercise that path end to end. Documented in
/// docs/PERFORMANCE.md ("Test hooks").
pub const REJECT_CLAUSE_ENV: &str = "DTRACE_TEST_REJECT_CLAUSE";

fn reject_clause_for_tests() -> Option<u32> {
    let v = std::env::var(REJECT_CLAUSE_ENV).ok()?;
    v.trim().parse::<u32>().ok()?.checked_sub(1)
}

/// Replace the first whole instruction of clause `clause` (0-based) in `insns`
/// with a read at the frame pointer itself, which the verifier always refuses
/// ("invalid read from stack"). Programs without that clause are left alone.
pub fn sabotage_clause(prog: &BpfProgram, insns: &mut [Insn], clause: u32) {
    let Some((range, _, _)) = prog.clause_ranges.iter().find(|(_, c, _)| *c == clause) else {
        return;
    };
    let mut i = range.start;
    while i < range.end {
        match insns.get_mut(i) {
            Some(insn) if insn.is_ld_imm64() => i += 2,
            Some(insn) => {
                *insn = Insn::ldx_mem(Size::DW, Reg::R0, Reg::R10, 0);
                return;
            }
            None => return,
        }
    }
}

/// The line of the loop a rejection is about: the innermost loop holding the
/// failing instruction, or, when the verifier gave up on the program's size or
/// on a loop (and names no instruction), the program's first loop.
fn failing_loop(prog: &BpfProgram, insn: Option<usize>, message: &str) -> Option<u32> {
    let innermost = |i: usize| {
        prog.loop_ranges
            .iter()
            .filter(|(r, _)| r.contains(&i))
            .min_by_key(|(r, _)| r.len())
            .map(|(_, l)| *l)
    };
    let loopish = [
        "too large",
        "infinite loop",
        "back-edge",
        "loop",
        "program rejected",
    ]
    .iter()
    .any(|w| message.contains(w));
    match insn {
        Some(i) if loopish => innermost(i).or_else(|| prog.loop_ranges.first().map(|(_, l)| *l)),
        None if loopish => prog.loop_ranges.first().map(|(_, l)| *l),
        _ => None,
    }
}

/// From a verifier log: the index of the last instruction it was checking and the
/// last line that says what was wrong.
pub fn summarize_log(log: &str) -> (Option<usize>, String) {
    let mut insn = None;
    let mut reason = String::new();
    for line in log.lines() {
        let t = line.trim();
        if t.is_empty() {
            continue;
        }
        let digits = t.bytes().take_while(u8::is_ascii_digit).count();
        if digits > 0 && t[digits..].starts_with(": ") {
            insn = t[..digits].parse().ok();
            continue;
        }
        if t.starts_with("processed ")
            || t.starts_with("verification time")
            || t.starts_with("stack depth")
            || t.starts_with("func#")
            || t.starts_with("from ")
            || t.starts_with("last_idx")
            || t.starts_with("regs=")
            || t.starts_with("mark_precise")
            || t.starts_with(';')
        {
            continue;
        }
        reason = t.to_string();
    }
    if reason.is_empty() {
        reason = "program rejected".into();
    }
    (insn, reason)
}

#[cfg(test)]
mod tests {
    use super::*;
    use dtrace_codegen::{Attach, MapReloc};
    use dtrace_sys::fake::FakeSys;
    use dtrace_sys::sys::Cmd;
    use std::sync::Arc;

    fn fake() -> (Arc<FakeSys>, SysRef) {
        let fake = Arc::new(FakeSys::new());
        let sys: SysRef = fake.clone();
        (fake, sys)
    }

    fn spec(name: &str, kind: MapKind, max_entries: u32) -> MapSpec {
        MapSpec {
            name: name.into(),
            kind,
            key_size: 4,
            value_size: 8,
            max_entries,
            flags: 0,
            initial: Vec::new(),
            freeze: false,
        }
    }

    fn program(insns: Vec<Insn>, relocs: Vec<MapReloc>) -> BpfProgram {
        let span = dtrace_syntax::Span::default();
        BpfProgram {
            name: "dt_clause_1".into(),
            prog_type: dtrace_codegen::ProgType::RawTracepoint,
            attach: Attach::Begin,
            insns,
            relocs,
            clause_ranges: vec![(0..2, 0, span), (2..8, 1, span)],
            loop_ranges: Vec::new(),
            clause_probes: vec![(0, 7), (1, 9)],
            uprobes: Vec::new(),
            retoff_map: None,
            late: None,
        }
    }

    #[test]
    fn a_rejection_inside_a_loop_names_the_innermost_loop() {
        let mut p = program(Vec::new(), Vec::new());
        p.loop_ranges = vec![(2..8, 3), (4..6, 5)];
        assert_eq!(
            failing_loop(&p, Some(5), "infinite loop detected at insn 5"),
            Some(5)
        );
        assert_eq!(
            failing_loop(&p, Some(3), "back-edge from insn 7 to 2"),
            Some(3)
        );
        assert_eq!(failing_loop(&p, None, "program rejected"), Some(3));
        assert_eq!(
            failing_loop(&p, Some(5), "invalid mem access 'scalar'"),
            None
        );
        p.loop_ranges.clear();
        assert_eq!(failing_loop(&p, None, "program rejected"), None);
    }

    #[test]
    fn a_map_gets_its_initial_entries_then_is_frozen() {
        let (fake, sys) = fake();
        let mut s = spec("strtab", MapKind::Array, 4);
        s.initial = vec![(1u32.to_ne_bytes().to_vec(), 9u64.to_ne_bytes().to_vec())];
        s.freeze = true;
        let m = create_map(&sys, &s);
        assert!(m.is_ok(), "{:?}", m.err());
        let entries = fake.entries("strtab").unwrap_or_default();
        assert_eq!(entries.len(), 1);
        assert_eq!(fake.frozen("strtab"), Some(true));
    }

    #[test]
    fn a_ring_buffer_is_a_power_of_two_pages() {
        let (_fake, sys) = fake();
        let m = create_map(&sys, &spec("rb", MapKind::Ringbuf, 5000));
        assert_eq!(m.ok().map(|m| m.spec().max_entries), Some(8192));
    }

    #[test]
    fn a_map_the_kernel_refuses_names_the_map() {
        let (fake, sys) = fake();
        fake.fail(Cmd::MapCreate, 1); // EPERM
        let err = create_map(&sys, &spec("aggs", MapKind::Hash, 16)).err();
        assert_eq!(
            err.map(|e| e.to_string()).as_deref(),
            Some("failed to create map aggs: failed to create BPF map 'aggs': Operation not permitted")
        );
    }

    #[test]
    fn map_references_are_patched_to_fds() {
        let (fake, sys) = fake();
        let maps: Vec<MapFd> = ["m0", "m1"]
            .iter()
            .filter_map(|n| create_map(&sys, &spec(n, MapKind::Array, 1)).ok())
            .collect();
        assert_eq!(maps.len(), 2);
        let [a0, a1] = Insn::ld_map_idx(Reg::R1, 1);
        let [b0, b1] = Insn::ld_map_idx_value(Reg::R2, 0, 0);
        let insns = vec![a0, a1, b0, b1, Insn::mov64_imm(Reg::R0, 0), Insn::exit()];
        let relocs = vec![
            MapReloc {
                insn: 0,
                map: 1,
                kind: RelocKind::Fd,
            },
            MapReloc {
                insn: 2,
                map: 0,
                kind: RelocKind::Value { offset: 24 },
            },
        ];
        let r = load_program(&sys, &program(insns, relocs), &maps, None, None);
        assert!(r.is_ok(), "{:?}", r.err());
        let loaded = fake.loaded();
        assert_eq!(loaded.len(), 1);
        assert_eq!(loaded[0].name, "dt_clause_1");
        assert_eq!(loaded[0].imm(0), Some(maps[1].as_raw_fd()));
        assert_eq!(loaded[0].imm(2), Some(maps[0].as_raw_fd()));
        assert_eq!(loaded[0].imm(3), Some(24));
    }

    #[test]
    fn a_reference_to_a_missing_map_is_an_error() {
        let (_fake, sys) = fake();
        let [a0, a1] = Insn::ld_map_idx(Reg::R1, 3);
        let relocs = vec![MapReloc {
            insn: 0,
            map: 3,
            kind: RelocKind::Fd,
        }];
        let insns = vec![a0, a1, Insn::mov64_imm(Reg::R0, 0), Insn::exit()];
        let err = load_program(&sys, &program(insns, relocs), &[], None, None).err();
        assert!(
            matches!(err, Some(RuntimeError::Load { ref message, .. })
            if message == "relocation names unknown map 3"),
            "{err:?}"
        );
    }

    #[test]
    fn a_rejection_names_the_clause_of_the_failing_instruction() {
        let (fake, sys) = fake();
        fake.reject_programs(
            "func#0 @0\n3: R1=ctx() R10=fp0\n3: (79) r1 = *(u64 *)(r10 +0)\ninvalid read from stack off 0+0 size 8\nprocessed 4 insns\n",
            0,
        );
        let insns = vec![Insn::mov64_imm(Reg::R0, 0), Insn::exit()];
        let err = load_program(&sys, &program(insns, Vec::new()), &[], None, None).err();
        let Some(RuntimeError::Load {
            clause,
            probe_id,
            message,
            log,
            ..
        }) = err
        else {
            panic!("expected a load error, got {err:?}");
        };
        assert_eq!(clause, Some(1));
        assert_eq!(probe_id, Some(9));
        assert_eq!(message, "invalid read from stack off 0+0 size 8");
        assert!(log.is_some_and(|l| l.contains("func#0")));
    }

    #[test]
    fn log_summary_finds_the_failing_instruction() {
        let log = "func#0 @0\n0: R1=ctx() R10=fp0\n0: (b7) r0 = 0\n1: (79) r1 = *(u64 *)(r0 +0)\nR0 invalid mem access 'scalar'\nprocessed 2 insns (limit 1000000)\n";
        let (i, why) = summarize_log(log);
        assert_eq!(i, Some(1));
        assert_eq!(why, "R0 invalid mem access 'scalar'");
    }
}
