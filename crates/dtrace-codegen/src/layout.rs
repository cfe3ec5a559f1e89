//! Program-wide storage layout: the maps, the per-CPU DTrace context (dctx) value,
//! the globals value, the read-only string table and key layouts.

use crate::{AggGroup, MapKind, MapSpec};
use dtrace_sema::{CompileOptions, ProbeInfo, Ty, TypedProgram};
use std::collections::BTreeMap;

/// Global state word values (globals map, offset 0).
pub const STATE_INACTIVE: i32 = 0;
/// Tracing: probes run clauses.
pub const STATE_ACTIVE: i32 = 1;
/// `exit()` was called: probes do nothing until END.
pub const STATE_DRAINING: i32 = 2;

/// Offsets in the globals map value.
pub const G_STATE: u32 = 0;
/// Realtime minus monotonic clock, in ns, written by the runtime before BEGIN.
pub const G_WALLTIME_OFFSET: u32 = 8;
/// The number of live dynamic variables (thread-locals and associative-array
/// elements), which `dynvarsize` bounds.
pub const G_DYNVARS: u32 = 16;
pub const G_VARS: u32 = 24;

/// Offsets in the dctx value (per-CPU array, one entry). What every firing
/// writes (probe id and index, `errno`, the timestamp word) and what an
/// aggregation update uses share its first cache line: probes that fire far
/// apart find every line they touch cold.
pub const D_PROBE_ID: i16 = 0;
pub const D_PROBE_INDEX: i16 = 8;
/// `errno`, cleared (or set, at a syscall's return) by every trampoline.
pub const D_ERRNO: i16 = 16;
/// `timestamp` as first read in this firing (0: not read yet): DTrace reads
/// the clock once per probe firing, so every read in it agrees. Each
/// trampoline clears it with the probe ID.
pub const D_TSTAMP: i16 = 24;
/// An aggregation update's slot (u32), then the index of this CPU's value
/// (u32), passed to the map helpers by address.
pub const D_AGGSLOT: i16 = 32;
/// arg0..arg9.
pub const D_ARGS: i16 = 40;
/// Saved probe id, index and arg0..arg5 while ERROR clauses run.
pub const D_SAVE: i16 = 128;
/// pt_regs bytes read by the syscall trampoline.
pub const D_REGS: i16 = 192;
/// `cpuinfo_t` of the current CPU (16 bytes, filled when `curcpu` is read),
/// then 8 bytes through which its address passes to become a plain integer.
pub const D_CPUINFO: i16 = 256;
/// The 8 bytes a pointer is stored to and reloaded from to become a number.
pub const D_LAUNDER: i16 = D_CPUINFO + 16;
/// The principal-buffer bytes this firing's records may still take, as DTrace
/// counts them, plus one: 0 (no budget) but for BEGIN and END, which run on
/// one CPU while the consumer waits and get one CPU's buffer (`bufsize`); they
/// set it and clear it again when done.
pub const D_BUDGET: i16 = D_LAUNDER + 8;
/// A fault: the EPID, action, kind, pc (u32 each), then the address (u64).
pub const D_FAULT_EPID: i16 = D_BUDGET + 8;
pub const D_FAULT_ACTION: i16 = D_FAULT_EPID + 4;
pub const D_FAULT_KIND: i16 = D_FAULT_EPID + 8;
pub const D_FAULT_PC: i16 = D_FAULT_EPID + 12;
pub const D_FAULT_ADDR: i16 = D_FAULT_EPID + 16;
pub const D_CLAUSE_VARS: u32 = 312;

/// The most entries a hash map of aggregations or dynamic variables gets.
pub const MAX_MAP_ENTRIES: u32 = 1 << 20;

/// Drop counter slots in the drops map.
pub const DROP_RINGBUF: i32 = 0;
pub const DROP_AGG: i32 = 1;
pub const DROP_DYNVAR: i32 = 2;
/// A speculative record over `specsize` (dtrace's "speculative drops").
pub const DROP_SPEC: i32 = 3;
/// speculation() found no free ID, some draining ("available buffer(s) still busy").
pub const DROP_SPECBUSY: i32 = 4;
/// speculation() found no free ID ("no speculative buffer available").
pub const DROP_SPECUNAVAIL: i32 = 5;
/// An ERROR clause faulted (dtrace's "errors in ERROR probe enabling").
pub const DROP_DBLERROR: i32 = 6;
/// Number of drop counter slots.
pub const DROP_SLOTS: u32 = 7;

/// The speculations map (array, key u32 ID 0..=nspec): per ID a u64 state at
/// [`SPEC_STATE`], the u64 bytes recorded so far at [`SPEC_BYTES`], and at
/// [`SPEC_GEN`] the u64 generation, counting the times the ID was handed out
/// (it tells a record speculated before a drain from one after it).
pub const SPEC_VALUE_SIZE: u32 = 24;
pub const SPEC_STATE: i16 = 0;
pub const SPEC_BYTES: i16 = 8;
pub const SPEC_GEN: i16 = 16;
/// Speculation states: free for speculation(), active (speculate() records into
/// it), draining (committed or discarded; the consumer frees it once it has
/// consumed the commit or discard record).
pub const SPEC_FREE: i32 = 0;
pub const SPEC_ACTIVE: i32 = 1;
pub const SPEC_DRAINING: i32 = 2;
/// Largest `nspec` honoured (speculation() tries every ID in turn).
pub const MAX_NSPEC: u32 = 256;

/// Offsets of a tuple's fields (natural alignment) and its 8-aligned size (>= 8).
pub fn tuple_layout(keys: &[Ty]) -> (Vec<u32>, u32) {
    let mut off = 0u32;
    let mut offs = Vec::new();
    for k in keys {
        let a = k.align().max(1);
        off = off.div_ceil(a) * a;
        offs.push(off);
        off += k.size();
    }
    (offs, (off.div_ceil(8) * 8).max(8))
}

/// The bytes a key tuple counts for against `aggsize` and `dynvarsize`, as
/// DTrace counts them: each string key a whole `strsize` string, each other key
/// its size, 8-byte aligned.
pub fn accounted_tuple(keys: &[Ty], opts: &CompileOptions) -> u32 {
    keys.iter()
        .map(|k| match k {
            Ty::Str { .. } => opts.str_cap(),
            _ => round8(k.size()),
        })
        .sum()
}

pub fn round8(v: u32) -> u32 {
    v.div_ceil(8) * 8
}

/// Everything codegen needs to know about where things live.
#[derive(Debug)]
pub struct Layout {
    /// Kernel frames `bpf_get_stack` skips in the program being built: the
    /// tracing path above the probe site (set per program by the linker).
    pub stack_skip: i32,
    pub maps: Vec<MapSpec>,
    pub ringbuf: usize,
    pub drops: usize,
    /// The most dynamic variables that may live at once (see [`G_DYNVARS`]).
    pub dynvar_limit: u32,
    /// `bufsize`: the budget BEGIN and END records get (see [`D_BUDGET`]).
    pub principal_size: u32,
    pub specs: usize,
    pub globals: usize,
    pub dctx: usize,
    pub strtab: usize,
    pub probeinfo: Option<usize>,
    /// Each aggregation's group (an index into `agg_groups`).
    pub agg_maps: BTreeMap<u32, usize>,
    pub agg_groups: Vec<AggGroup>,
    /// Each keyless aggregation's fixed slot (see `agg::layout`).
    pub agg_fixed: BTreeMap<u32, u32>,
    pub thread_maps: Vec<usize>,
    pub array_maps: Vec<usize>,
    /// Offset of each global variable in the globals value.
    pub global_offs: Vec<u32>,
    /// Offset of each clause-local variable in dctx.
    pub clause_var_offs: Vec<u32>,
    /// dctx: key staging area, value staging area, spill area, string temporaries.
    pub key_area: u32,
    pub key_size: u32,
    pub stage_area: u32,
    pub stage_size: u32,
    pub spill_area: u32,
    pub spill_size: u32,
    /// strtok's position (8 bytes) then its string (`str_cap` bytes).
    pub strtok_area: u32,
    /// Clause scratch space (`alloca`, `copyin`): a header (the allocated top,
    /// as an offset from `scratch_data`, and dctx's own address as a number),
    /// then `scratch_size` usable bytes, followed by as many again (so a
    /// verifier-bounded offset plus a bounded length stays inside dctx).
    pub scratch_top: u32,
    pub scratch_self: u32,
    pub scratch_data: u32,
    pub scratch_size: u32,
    pub tmp_area: u32,
    /// The string subprograms the clauses call.
    pub subrs: crate::strfn::subr::Subrs,
    /// String table bytes (read-only map value) and the offset of each entry.
    pub strtab_bytes: Vec<u8>,
    strtab_index: BTreeMap<Vec<u8>, u32>,
    /// Offset of a zero region of `zero_size` bytes in the string table.
    pub zero_off: u32,
    pub zero_size: u32,
    /// Offset of the NULL string in the string table: `str_cap` bytes starting
    /// with [`crate::strings::NULL_WORD`] (see there).
    pub null_off: u32,
    /// probeinfo: dense index per probe id, and the capacity of each of the 4 names.
    pub probe_index: BTreeMap<u32, u32>,
    pub probe_caps: [u32; 4],
    pub str_cap: u32,
    /// `-x cpu=N`: probes fire only on this CPU.
    pub only_cpu: Option<u32>,
    /// Lock waits in progress (lockstat on the contention tracepoints), keyed
    /// by {pid_tgid, lock}: {first contention_begin's time, flags}. Only when
    /// a probe reads them.
    pub lockwait: Option<usize>,
    /// The probe-name table's spare entries, when probes may join while
    /// tracing, and the clauses (by `index`) that may gain them.
    pub late_names: Option<crate::late::ProbeNames>,
    pub late_clauses: std::collections::BTreeSet<u32>,
}

/// Lock waits tracked at once (threads contending at the same moment).
pub const LOCKWAIT_ENTRIES: u32 = 10240;

/// Bytes reserved for spilled temporaries that overflow the stack.
const SPILL_SLOTS: u32 = 32;

impl Layout {
    pub fn new(
        tp: &TypedProgram,
        probes: &[Vec<ProbeInfo>],
        opts: &CompileOptions,
        late: &crate::late::LateUprobes,
    ) -> Layout {
        let str_cap = opts.str_cap();
        let mut maps = Vec::new();
        let mut add = |m: MapSpec| {
            maps.push(m);
            maps.len() - 1
        };
        let pages = opts.bufsize.max(4096).next_power_of_two();
        let ringbuf = add(MapSpec::new("dt_ringbuf", MapKind::Ringbuf, 0, 0, pages));
        let drops = add(MapSpec::new(
            "dt_drops",
            MapKind::PercpuArray,
            4,
            8,
            DROP_SLOTS,
        ));
        let nspec = opts.nspec.clamp(1, MAX_NSPEC);
        let specs = add(MapSpec::new(
            "dt_specs",
            MapKind::Array,
            4,
            SPEC_VALUE_SIZE,
            nspec + 1,
        ));
        // Globals.
        let mut off = G_VARS;
        let mut global_offs = Vec::new();
        for g in &tp.globals {
            let a = g.ty.align().max(1);
            off = off.div_ceil(a) * a;
            global_offs.push(off);
            off += g.ty.size();
        }
        let globals = add(MapSpec::new(
            "dt_globals",
            MapKind::Array,
            4,
            round8(off),
            1,
        ));
        // dctx (size fixed later, when string temporaries are known).
        let dctx = add(MapSpec::new("dt_dctx", MapKind::PercpuArray, 4, 8, 1));
        let strtab = add(MapSpec::new("dt_strtab", MapKind::Array, 4, 8, 1));
        let aggs = crate::agg::layout::agg_maps(tp, opts, &mut add);
        let mut key_size = aggs.key_size;
        let mut zero_size = 8u32;
        // Dynamic variables: `dynvarsize` bytes hold, as DTrace counts them,
        // dynvarsize / (largest key tuple + largest value) variables in all
        // (a thread-local has no tuple; a value counts its own size, not
        // rounded). Each map holds at most that many, and no more than it held
        // before counting bytes (they are preallocated).
        let (max_tuple, max_value) = tp
            .thread_vars
            .iter()
            .map(|v| (0, v.ty.size()))
            .chain(
                tp.arrays
                    .iter()
                    .map(|a| (accounted_tuple(&a.keys, opts) + 8, a.value.size())),
            )
            .fold((0, 0), |(t, v), (a, b)| (t.max(a), v.max(b)));
        let dynvar_limit =
            (opts.dynvarsize / (max_tuple + max_value).max(1)).clamp(1, MAX_MAP_ENTRIES);
        let dyn_entries = dynvar_limit.min((opts.dynvarsize / 64).clamp(64, MAX_MAP_ENTRIES));
        let mut stage_size = 8u32;
        let mut thread_maps = Vec::new();
        for v in &tp.thread_vars {
            let vs = round8(v.ty.size());
            stage_size = stage_size.max(vs);
            let name = format!("dt_self_{}", v.name);
            thread_maps.push(add(MapSpec::new(&name, MapKind::Hash, 8, vs, dyn_entries)));
        }
        let mut array_maps = Vec::new();
        for a in &tp.arrays {
            let (_, ks) = tuple_layout(&a.keys);
            key_size = key_size.max(ks);
            let vs = round8(a.value.size());
            stage_size = stage_size.max(vs);
            let name = format!("dt_arr_{}", a.name);
            array_maps.push(add(MapSpec::new(&name, MapKind::Hash, ks, vs, dyn_entries)));
        }
        // Missing struct/union elements of dynamic variables read as these zeroes.
        zero_size = zero_size.max(stage_size);
        // Probe names table (only used by clauses whose probes differ in a name).
        let mut probe_index = BTreeMap::new();
        let mut caps = [8u32; 4];
        let mut all: BTreeMap<u32, &ProbeInfo> = BTreeMap::new();
        for p in probes.iter().flatten() {
            all.insert(p.id, p);
        }
        for (i, (id, p)) in all.iter().enumerate() {
            probe_index.insert(*id, i as u32);
            for (k, s) in [&p.provider, &p.module, &p.function, &p.name]
                .iter()
                .enumerate()
            {
                caps[k] = caps[k].max(round8(s.len() as u32 + 1).min(str_cap));
            }
        }
        let spare = if late.any() {
            for c in &mut caps {
                *c = (*c).max(crate::late::LATE_NAME_CAP.min(str_cap));
            }
            crate::late::LATE_ROWS
        } else {
            0
        };
        let mut late_names = None;
        let probeinfo = if all.is_empty() && spare == 0 {
            None
        } else {
            let vs: u32 = caps.iter().sum();
            let capacity = all.len() as u32 + spare;
            let mut m = MapSpec::new("dt_probes", MapKind::Array, 4, vs, capacity);
            for (id, p) in &all {
                let mut v = Vec::new();
                for (k, s) in [&p.provider, &p.module, &p.function, &p.name]
                    .iter()
                    .enumerate()
                {
                    let mut b: Vec<u8> = s
                        .as_bytes()
                        .iter()
                        .copied()
                        .take((caps[k] as usize - 1).min(opts.strsize as usize))
                        .collect();
                    b.resize(caps[k] as usize, 0);
                    v.extend_from_slice(&b);
                }
                let idx = probe_index.get(id).copied().unwrap_or(0);
                m.initial.push((idx.to_ne_bytes().to_vec(), v));
            }
            // Not frozen: see the syscall tables in link.rs.
            m.flags = crate::BPF_F_RDONLY_PROG;
            let map = add(m);
            if spare > 0 {
                late_names = Some(crate::late::ProbeNames {
                    map,
                    caps,
                    used: all.len() as u32,
                    capacity,
                    strsize: opts.strsize,
                });
            }
            Some(map)
        };
        let late_clauses = late
            .clauses
            .iter()
            .filter_map(|c| tp.clauses.get(c.clause).map(|tc| tc.index))
            .collect();
        // dctx fixed areas.
        let mut off = D_CLAUSE_VARS;
        let mut clause_var_offs = Vec::new();
        for v in &tp.clause_vars {
            let a = v.ty.align().max(1);
            off = off.div_ceil(a) * a;
            clause_var_offs.push(off);
            off += v.ty.size();
        }
        let key_area = round8(off);
        let stage_area = key_area + round8(key_size);
        let spill_area = stage_area + round8(stage_size);
        let spill_size = SPILL_SLOTS * 8;
        // strtok's string and position (per CPU, kept between clauses).
        let strtok_area = spill_area + spill_size;
        let scratch_top = strtok_area + 8 + str_cap;
        let scratch_size = round8(opts.scratchsize);
        let scratch_data = scratch_top + 16;
        let tmp_area = scratch_data + 2 * scratch_size + 8;
        let lock_wait = probes.iter().flatten().any(|p| match p.kind {
            dtrace_sema::ProbeKind::RawSdt { prep, .. } => prep.lock_wait(),
            _ => false,
        });
        let lockwait = lock_wait.then(|| {
            maps.push(MapSpec::new(
                "dt_lockwait",
                MapKind::Hash,
                16,
                16,
                LOCKWAIT_ENTRIES,
            ));
            maps.len() - 1
        });
        let mut l = Layout {
            stack_skip: crate::action::stack::RAW_TP_FRAMES,
            maps,
            ringbuf,
            drops,
            dynvar_limit,
            principal_size: opts.principal_size,
            specs,
            globals,
            dctx,
            strtab,
            probeinfo,
            agg_maps: aggs.by_agg,
            agg_groups: aggs.groups,
            agg_fixed: aggs.fixed,
            thread_maps,
            array_maps,
            global_offs,
            clause_var_offs,
            key_area,
            key_size: round8(key_size),
            stage_area,
            stage_size: round8(stage_size),
            spill_area,
            spill_size,
            strtok_area,
            scratch_top,
            scratch_self: scratch_top + 8,
            scratch_data,
            scratch_size: opts.scratchsize,
            tmp_area,
            subrs: crate::strfn::subr::Subrs::default(),
            strtab_bytes: Vec::new(),
            strtab_index: BTreeMap::new(),
            zero_off: 0,
            // Also what a fresh alloca() piece is cleared from.
            zero_size: round8(zero_size.max(str_cap).max(opts.scratchsize)),
            null_off: 0,
            probe_index,
            probe_caps: caps,
            str_cap,
            only_cpu: opts.only_cpu,
            lockwait,
            late_names,
            late_clauses,
        };
        l.strtab_bytes.resize(l.zero_size as usize, 0);
        l.null_off = l.zero_size;
        let null = crate::strings::NULL_WORD.to_le_bytes();
        l.strtab_bytes.extend_from_slice(&null);
        l.strtab_bytes
            .resize((l.null_off + str_cap.max(8)) as usize, 0);
        for s in &tp.strings {
            l.intern(s);
        }
        l
    }

    /// Offset of a NUL-padded copy of `s` in the string table (capacity round8(len+1)).
    pub fn intern(&mut self, s: &[u8]) -> u32 {
        if s.is_empty() {
            return self.zero_off;
        }
        if let Some(o) = self.strtab_index.get(s) {
            return *o;
        }
        let off = self.strtab_bytes.len() as u32;
        self.strtab_bytes.extend_from_slice(s);
        let cap = round8(s.len() as u32 + 1);
        self.strtab_bytes.resize((off + cap) as usize, 0);
        self.strtab_index.insert(s.to_vec(), off);
        off
    }

    /// Fix sizes known only after all code is generated.
    pub fn finish(&mut self, tmp_size: u32) {
        // Keep room after the last string so word reads past a short literal in
        // comparisons with longer strings stay inside the value.
        let pad = self.str_cap as usize;
        let len = self.strtab_bytes.len() + pad;
        self.strtab_bytes.resize(round8(len as u32) as usize, 0);
        if let Some(m) = self.maps.get_mut(self.strtab) {
            m.value_size = self.strtab_bytes.len() as u32;
            m.initial = vec![(0u32.to_ne_bytes().to_vec(), self.strtab_bytes.clone())];
            m.flags = crate::BPF_F_RDONLY_PROG;
            m.freeze = true;
        }
        if let Some(m) = self.maps.get_mut(self.dctx) {
            m.value_size = round8(self.tmp_area + tmp_size);
        }
    }
}
