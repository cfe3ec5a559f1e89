//! Creating maps and loading programs.

use crate::error::RuntimeError;
use dtrace_bpf::{Insn, Reg, Size};
use dtrace_codegen::{BpfProgram, MapKind, MapSpec, RelocKind};
use dtrace_sys::{map, MapFd, MapType, ProgFd, ProgSpec, ProgType, SysRef, UpdateFlags};
use std::os::fd::AsRawFd;

fn map_type(kind: MapKind) -> MapType {
    match kind {
        MapKind::Hash => MapType::Hash,
        MapKind::Array => MapType::Array,
        MapKind::PercpuHash => MapType::PercpuHash,
        MapKind::PercpuArray => MapType::PercpuArray,
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
/// (`-x bpflog`, a buffer of that many bytes to start with).
pub fn load_program(
    sys: &SysRef,
    prog: &BpfProgram,
    maps: &[MapFd],
    keep_log: Option<usize>,
) -> Result<(ProgFd, String), RuntimeError> {
    let mut insns = prog.insns.clone();
    for r in &prog.relocs {
        let fd = maps
            .get(r.map)
            .map(|m| m.as_raw_fd())
            .ok_or_else(|| RuntimeError::Load {
                program: prog.name.clone(),
                clause: None,
                message: format!("relocation names unknown map {}", r.map),
                log: None,
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
    };
    let mut spec = ProgSpec::new(prog_type, &prog.name, &insns);
    spec.fd_array = &fds;
    spec.keep_log = keep_log;
    ProgFd::load_logged(sys, &spec).map_err(|e| {
        let log = e.verifier_log().map(str::to_string);
        let (insn, message) = match &log {
            Some(l) => summarize_log(l),
            None => (None, e.to_string()),
        };
        let clause = insn.and_then(|i| {
            prog.clause_ranges
                .iter()
                .find(|(r, _, _)| r.contains(&i))
                .map(|(_, c, _)| *c)
        });
        RuntimeError::Load {
            program: prog.name.clone(),
            clause,
            message,
            log,
        }
    })
}

/// Test-only, hidden: `DTRACE_TEST_REJECT_CLAUSE=N` makes the verifier reject
/// clause N (1-based, as error messages count) so tests can check how a verifier
/// rejection is reported (the clause named, `-x verbose` showing the log). No D
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

    #[test]
    fn log_summary_finds_the_failing_instruction() {
        let log = "func#0 @0\n0: R1=ctx() R10=fp0\n0: (b7) r0 = 0\n1: (79) r1 = *(u64 *)(r0 +0)\nR0 invalid mem access 'scalar'\nprocessed 2 insns (limit 1000000)\n";
        let (i, why) = summarize_log(log);
        assert_eq!(i, Some(1));
        assert_eq!(why, "R0 invalid mem access 'scalar'");
    }
}
