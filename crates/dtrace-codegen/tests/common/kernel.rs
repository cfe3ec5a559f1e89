//! Loading compiled programs into the kernel for tests (dtrace-sys).

#![allow(dead_code)]

use dtrace_codegen::{Attach, CompiledProgram, MapKind, ProgType, RelocKind};
use dtrace_sys::{
    kernel, test_gate, Features, MapFd, MapSpec, MapType, ProgFd, ProgSpec, RingBuf, SysRef,
    TestGate, UpdateFlags,
};
use std::os::fd::AsRawFd;

/// Whether kernel tests run here; panics when BPF is required but unusable.
pub fn gate() -> Option<SysRef> {
    let sys = kernel();
    let f = Features::probe(&sys);
    let require = std::env::var("DTRACE_REQUIRE_BPF")
        .map(|v| v == "1")
        .unwrap_or(false);
    match test_gate(&f, require) {
        TestGate::Run => Some(sys),
        TestGate::Skip(why) => {
            eprintln!("skipping kernel test: {why}");
            None
        }
        TestGate::Fail(why) => panic!("BPF required but unusable: {why}"),
    }
}

pub struct Session {
    pub maps: Vec<MapFd>,
    pub progs: Vec<(ProgFd, Attach)>,
    pub rb: RingBuf,
}

fn map_type(k: MapKind) -> MapType {
    match k {
        MapKind::Hash => MapType::Hash,
        MapKind::Array => MapType::Array,
        MapKind::PercpuHash => MapType::PercpuHash,
        MapKind::PercpuArray => MapType::PercpuArray,
        MapKind::Queue => MapType::Queue,
        MapKind::Ringbuf => MapType::RingBuf,
    }
}

/// Create the maps, patch map references and load every program.
pub fn load(sys: &SysRef, cp: &CompiledProgram) -> Result<Session, String> {
    let mut maps = Vec::new();
    for m in &cp.maps {
        let spec = MapSpec {
            name: m.name.clone(),
            map_type: map_type(m.kind),
            key_size: m.key_size,
            value_size: m.value_size,
            max_entries: m.max_entries,
            flags: m.flags,
        };
        let fd = MapFd::create(sys, &spec).map_err(|e| format!("map {}: {e}", m.name))?;
        for (k, v) in &m.initial {
            fd.update(k, v, UpdateFlags::Any)
                .map_err(|e| format!("init {}: {e}", m.name))?;
        }
        if m.freeze {
            fd.freeze().map_err(|e| format!("freeze {}: {e}", m.name))?;
        }
        maps.push(fd);
    }
    // Tracing on.
    let g = &cp.maps[cp.globals_map];
    let mut v = vec![0u8; g.value_size as usize];
    v[0] = dtrace_codegen::layout::STATE_ACTIVE as u8;
    maps[cp.globals_map]
        .update(&0u32.to_ne_bytes(), &v, UpdateFlags::Any)
        .map_err(|e| format!("globals: {e}"))?;
    let mut progs = Vec::new();
    for p in &cp.programs {
        let mut insns = p.insns.clone();
        for r in &p.relocs {
            let fd = maps[r.map].as_raw_fd();
            insns[r.insn].imm = fd;
            if let RelocKind::Value { offset } = r.kind {
                insns[r.insn + 1].imm = offset as i32;
            }
        }
        let pt = match p.prog_type {
            ProgType::RawTracepoint => dtrace_sys::ProgType::RawTracepoint,
            ProgType::PerfEvent => dtrace_sys::ProgType::PerfEvent,
            ProgType::Tracepoint => dtrace_sys::ProgType::Tracepoint,
            ProgType::Uprobe => dtrace_sys::ProgType::Kprobe,
            ProgType::Kprobe => dtrace_sys::ProgType::Kprobe,
            // fentry/fexit programs need a kernel that allows them (this one
            // may refuse them: EPERM). Their context, the function's arguments
            // as u64s, is a raw tracepoint's too: they are verified, and run
            // with BPF_PROG_TEST_RUN, as raw-tracepoint programs.
            ProgType::Tracing => dtrace_sys::ProgType::RawTracepoint,
        };
        let mut spec = ProgSpec::new(pt, &p.name, &insns);
        if p.prog_type == ProgType::Uprobe {
            spec.expected_attach_type = dtrace_sys::AttachType::UprobeMulti;
        }
        let fd = ProgFd::load(sys, &spec).map_err(|e| format!("{e}"))?;
        progs.push((fd, p.attach.clone()));
    }
    let rb = RingBuf::new(&maps[cp.ringbuf_map]).map_err(|e| format!("ringbuf: {e:?}"))?;
    Ok(Session { maps, progs, rb })
}

/// `load`, or a panic showing the error and the disassembly.
pub fn load_or_panic(sys: &SysRef, cp: &CompiledProgram) -> Session {
    match load(sys, cp) {
        Ok(s) => s,
        Err(e) => panic!("load failed:\n{e}\n{}", dtrace_codegen::disassemble(cp)),
    }
}

impl Session {
    /// Run the program at `a` once with these raw-tracepoint arguments; it
    /// must return 0.
    pub fn run_args(&self, a: &Attach, args: &[u64]) {
        let r = self.prog(a.clone()).map(|p| p.test_run_raw_tp(args, None));
        assert!(matches!(r, Some(Ok(0))), "{a:?}: {r:?}");
    }

    pub fn prog(&self, a: Attach) -> Option<&ProgFd> {
        self.progs.iter().find(|(_, at)| *at == a).map(|(p, _)| p)
    }

    /// Run BEGIN (or END) once in this thread.
    pub fn run(&self, a: Attach) {
        if let Some(p) = self.prog(a) {
            let r = p.test_run_raw_tp(&[0, 0], None);
            assert!(r.is_ok(), "test run failed: {r:?}");
        }
    }

    pub fn records(&mut self) -> Vec<Vec<u8>> {
        let mut out = Vec::new();
        let _ = self.rb.poll(|r| out.push(r.to_vec()));
        out
    }

    /// Sum of an aggregation value's 64-bit words over all CPUs (None: the
    /// key is not live). A keyless aggregation is read from its fixed slot,
    /// live once its entry's state is 1 or a value word is non-zero.
    pub fn agg_words(&self, cp: &CompiledProgram, agg: u32, key: &[u8]) -> Option<Vec<i64>> {
        let g = cp.agg_groups[*cp.agg_maps.get(&agg)?];
        let slot = match cp.agg_fixed.get(&agg) {
            Some(&slot) => {
                let e = self.maps[g.slot_keys]
                    .lookup(&(g.entry_base + slot).to_ne_bytes())
                    .ok()??;
                let state = u64::from_ne_bytes(e.get(..8)?.try_into().ok()?);
                let id = u64::from_ne_bytes(e.get(8..16)?.try_into().ok()?);
                if id != u64::from(agg) {
                    return None;
                }
                if state != 1 {
                    let any = (0..g.cpus).any(|cpu| {
                        self.maps[g.values]
                            .lookup(&(cpu * g.slots + slot).to_ne_bytes())
                            .ok()
                            .flatten()
                            .is_some_and(|v| v.iter().any(|b| *b != 0))
                    });
                    if !any {
                        return None;
                    }
                }
                slot
            }
            None => {
                let mut k = u64::from(agg).to_ne_bytes().to_vec();
                k.extend_from_slice(key);
                let slot = self.maps[g.keys].lookup(&k).ok()??;
                u32::from_ne_bytes(slot.get(..4)?.try_into().ok()?)
            }
        };
        let mut sum = vec![0i64; g.value_size as usize / 8];
        for cpu in 0..g.cpus {
            let index = cpu * g.slots + slot;
            let v = self.maps[g.values].lookup(&index.to_ne_bytes()).ok()??;
            for (i, w) in v.chunks(8).enumerate() {
                if let (Some(s), Ok(b)) = (sum.get_mut(i), <[u8; 8]>::try_from(w)) {
                    *s = s.wrapping_add(i64::from_ne_bytes(b));
                }
            }
        }
        Some(sum)
    }

    pub fn globals(&self, cp: &CompiledProgram) -> Vec<u8> {
        self.maps[cp.globals_map]
            .lookup(&0u32.to_ne_bytes())
            .ok()
            .flatten()
            .unwrap_or_default()
    }
}

pub fn u32_at(b: &[u8], off: usize) -> u32 {
    u32::from_ne_bytes(b[off..off + 4].try_into().unwrap())
}
pub fn i32_at(b: &[u8], off: usize) -> i32 {
    i32::from_ne_bytes(b[off..off + 4].try_into().unwrap())
}
pub fn i64_at(b: &[u8], off: usize) -> i64 {
    i64::from_ne_bytes(b[off..off + 8].try_into().unwrap())
}
pub fn str_at(b: &[u8], off: usize, size: usize) -> String {
    let s = &b[off..off + size];
    let end = s.iter().position(|c| *c == 0).unwrap_or(size);
    String::from_utf8_lossy(&s[..end]).into_owned()
}
