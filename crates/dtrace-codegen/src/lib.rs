//! Code generation: typed D program -> BPF clause objects, record layouts,
//! map specifications and per-provider trampolines, linked into loadable programs.
//!
//! Shape of every program: a trampoline main function, one BPF-to-BPF subprogram per
//! clause that applies to the program's probes, and an ERROR subprogram. Clause
//! subprograms take the per-CPU DTrace context (dctx) in r1 and return 0, or 1 when
//! they faulted (the trampoline then calls the ERROR subprogram and goes on).
//!
//! Architecture invariant: `compile` never fails on a program sema accepted.
//!
//! Places inside D variables (`elem.rs`): `LValue::Elem` stores into globals,
//! dctx, thread-local and associative-array values (created zero-filled when
//! missing, a dynamic-variable drop when the map is full).
//!
//! Kernel memory (`memory.rs`): every read is `bpf_probe_read_kernel` (`_str` for
//! strings) into the frame scratch slot, a string temporary or the record; a failed
//! read stores the address in dctx and takes the clause's fault path (kind
//! `BadAddr`), so the fault record carries the address.
//!
//! String subroutines (`strfn/`): shared subprograms, one per kind and buffer
//! capacities, appended by the linker to the programs that call them; callbacks
//! of `bpf_loop` are referenced with `ld_func`, so those programs carry BTF
//! `func_info` (dtrace-sys adds it).
//! Scratch space (`scratch.rs`): `alloca`, `copyin`, `copyinstr`, `copyinto`,
//! `bcopy`, `copyout`, and bounds-checked loads and stores through alloca
//! pointers, in a per-clause region of dctx.
//!
//! ## Runtime contract
//! 1. Create every [`MapSpec`] in order (indices are what instructions refer to),
//!    write its `initial` entries, freeze it if `freeze`.
//! 2. Patch each program's [`MapReloc`]s: the first slot's `imm` becomes the map
//!    fd (`src` is already `BPF_PSEUDO_MAP_FD` / `BPF_PSEUDO_MAP_VALUE`; for
//!    values the second slot's `imm` already holds the offset).
//! 3. Write the globals value (`globals_map`, key 0): u64 state at 0 =
//!    [`layout::STATE_ACTIVE`], u64 realtime-minus-monotonic ns at 8, zeros after.
//! 4. Load, run [`Attach::Begin`] with `BPF_PROG_TEST_RUN` (ctx: two u64), attach
//!    the rest. `exit()` writes [`layout::STATE_DRAINING`] and its record is
//!    submitted with a forced wakeup; then run [`Attach::End`] (it runs in any
//!    state), drain the ring buffer and read the aggregations.
//! 5. Drops: `drops_map` is a per-CPU array of `layout::DROP_SLOTS` u64.
//! 6. Speculations: after consuming a commit/discard record whose field has
//!    `desc::SPEC_DRAINED`, write zeros to that ID's entry of `spec_map`.

mod action;
pub mod agg;
mod asm;
mod builtins;
mod clause;
pub mod desc;
mod elem;
mod error;
mod expr;
mod fuse;
mod gen;
pub mod late;
pub mod layout;
mod link;
mod loops;
mod memory;
mod nullstr;
mod record;
mod scratch;
pub mod strfn;
mod strings;
mod subr;
mod trampoline;
mod vars;
pub mod vartab;
mod xlate;

pub use asm::{MapReloc, RelocKind};
pub use dtrace_sema::{CompileOptions, KernelOffsets};
pub use link::{compile, compile_with, disassemble, disassemble_labelled};
/// x86_64 `struct pt_regs` offsets, for providers describing user-space arguments.
pub use trampoline::uprobe::regs as uprobe_regs;

use desc::ProgramDesc;
use dtrace_bpf::Insn;
use dtrace_syntax::Span;
use std::collections::BTreeMap;

/// `BPF_F_RDONLY_PROG`: programs may only read the map.
pub const BPF_F_RDONLY_PROG: u32 = 1 << 7;
/// `BPF_F_MMAPABLE`: the array can be mmap()ed (the consumer reads it in place).
pub const BPF_F_MMAPABLE: u32 = 1 << 10;

/// Aggregation map keys start with the aggregation's id (a native-endian u64),
/// then its key tuple; maps are shared by the aggregations of one key and value
/// size (`CompiledProgram::agg_maps` names each aggregation's map).
pub const AGG_KEY_PREFIX: u32 = 8;

pub use dtrace_desc::RECORD_FLAGS_VALID;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MapKind {
    Hash,
    Array,
    PercpuHash,
    PercpuArray,
    /// `BPF_MAP_TYPE_QUEUE` (no key).
    Queue,
    Ringbuf,
}

/// The maps of one group of aggregations (those of one key and value size).
///
/// A key is given a *slot* when it is first aggregated: the group's `keys`
/// hash maps the key to its slot. Slots belong to the group's *class*, shared
/// by every group of its value size: the class's `values` array holds each
/// CPU's value of each slot, CPU by CPU (element `cpu * slots + slot`); new
/// slots come from its counter (a u64 at `counter_off` in the `counter`
/// array), recycled ones from its `free` queue, where the consumer puts the
/// slots of the keys it removes (`trunc()`), their values zeroed. The
/// `slot_keys` array, one for the program, holds each slot's `{state, key}`
/// (at `entry_base + slot`; state 1 once the key is in its hash, 0 when free)
/// so the consumer reads keys without walking a hash. A keyless aggregation
/// has a fixed slot among the class's first (`CompiledProgram::agg_fixed`),
/// below the counter's start, and never enters the hash. A key that finds no slot
/// is an aggregation drop. Every map here is one allocation: creating them
/// costs no per-element work, unlike a preallocated per-CPU hash (see
/// docs/PERFORMANCE.md).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct AggGroup {
    pub keys: usize,
    pub slot_keys: usize,
    pub entry_base: u32,
    pub values: usize,
    pub free: usize,
    pub counter: usize,
    pub counter_off: u32,
    /// Slots of the class (keys its groups may hold at once).
    pub slots: u32,
    /// CPU ids are below this.
    pub cpus: u32,
    /// Key size (the aggregation id included) and value size.
    pub key_size: u32,
    pub value_size: u32,
}

/// A map to create before loading the programs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MapSpec {
    pub name: String,
    pub kind: MapKind,
    pub key_size: u32,
    pub value_size: u32,
    pub max_entries: u32,
    pub flags: u32,
    /// Entries to write before load (string table, syscall tables, probe names).
    pub initial: Vec<(Vec<u8>, Vec<u8>)>,
    /// Freeze after writing `initial` (read-only data).
    pub freeze: bool,
}

impl MapSpec {
    pub fn new(
        name: &str,
        kind: MapKind,
        key_size: u32,
        value_size: u32,
        max_entries: u32,
    ) -> MapSpec {
        let mut n: String = name
            .chars()
            .map(|c| {
                if c.is_ascii_alphanumeric() || c == '_' {
                    c
                } else {
                    '_'
                }
            })
            .collect();
        n.truncate(15);
        MapSpec {
            name: n,
            kind,
            key_size,
            value_size,
            max_entries,
            flags: 0,
            initial: Vec::new(),
            freeze: false,
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ProgType {
    RawTracepoint,
    PerfEvent,
    /// A perf tracepoint program: the context is the tracepoint's record.
    Tracepoint,
    /// A kprobe-type program for uprobe_multi links (pid, usdt): the context is
    /// the user's `struct pt_regs`.
    Uprobe,
    /// fentry/fexit (`BPF_PROG_TYPE_TRACING`): the context is the function's
    /// arguments as u64s (then, for fexit, its return value).
    Tracing,
    /// A kprobe/kretprobe program: the context is the `struct pt_regs`.
    Kprobe,
}

/// Where a program is attached. Names are owned: they are known only at run
/// time (a kernel function, a raw tracepoint, a syscall's tracepoint).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Attach {
    /// Run once with `BPF_PROG_TEST_RUN` when tracing starts.
    Begin,
    /// Run once with `BPF_PROG_TEST_RUN` when tracing stops (runs in any state).
    End,
    /// A raw tracepoint by name (`sys_enter`, `sched_switch`).
    RawTracepoint(String),
    /// A cpu-clock perf event: on every CPU (`profile-N`) or one CPU (`tick-N`).
    CpuClock { period_ns: u64, all_cpus: bool },
    /// A kernel tracepoint's perf event (one serves every CPU), by event id.
    Tracepoint { event_id: u32 },
    /// uprobe_multi links, entry or `ret`urn, one per object file; each probe
    /// point's cookie is its index in [`BpfProgram::uprobes`].
    Uprobe { ret: bool },
    /// Kernel tracepoints of one group by name (ids are read when attaching),
    /// one perf event each, all running this program: the per-syscall
    /// tracepoints `syscalls:sys_enter_<name>` of a few enabled syscalls.
    Tracepoints { group: String, events: Vec<String> },
    /// fentry (`ret` false) or fexit on the kernel function `func`.
    Fentry { func: String, ret: bool },
    /// kprobe (`ret` false) or kretprobe on the kernel function `func`.
    Kprobe { func: String, ret: bool },
    /// A hardware counter (perf `PERF_TYPE_HARDWARE` `config`) on every CPU,
    /// overflowing every `count` events; `mode` 0 all, 1 user only, 2 kernel only.
    HwCounter { config: u64, count: u64, mode: u8 },
}

/// One loadable program.
#[derive(Debug, Clone, PartialEq)]
pub struct BpfProgram {
    pub name: String,
    pub prog_type: ProgType,
    pub attach: Attach,
    pub insns: Vec<Insn>,
    pub relocs: Vec<MapReloc>,
    /// Instruction ranges of each clause subprogram: (range, clause index, clause span).
    pub clause_ranges: Vec<(std::ops::Range<usize>, u32, Span)>,
    /// Instruction ranges of each loop and the source line it starts on.
    pub loop_ranges: Vec<(std::ops::Range<usize>, u32)>,
    /// Each clause here with the first of its probes this program serves
    /// (clause index, probe ID): the probe a rejection of that clause's code
    /// is reported for, as DTrace reports a program per probe.
    pub clause_probes: Vec<(u32, u32)>,
    /// [`Attach::Uprobe`]: by attach cookie, the probe ID and which of its
    /// argument layouts the sites with that cookie use (the provider knows
    /// where each probe's sites are).
    pub uprobes: Vec<(u32, u16)>,
    /// A return-uprobe program's map of return offsets: {thread (pid_tgid),
    /// probe cookie} -> the offset of the return site it last left that
    /// function by, written by the marker uprobes at the functions' return
    /// sites and read (and deleted) by the trampoline for `arg0`.
    pub retoff_map: Option<usize>,
    /// [`Attach::Uprobe`] with clauses that may gain probes while tracing:
    /// the table's spare rows (see [`late`]).
    pub late: Option<late::UprobeRows>,
}

/// The output of code generation.
#[derive(Debug, Clone, PartialEq)]
pub struct CompiledProgram {
    pub desc: ProgramDesc,
    pub maps: Vec<MapSpec>,
    pub programs: Vec<BpfProgram>,
    pub ringbuf_map: usize,
    /// Per-CPU u64 counters: key 0 ring-buffer drops, 1 aggregation drops,
    /// 2 dynamic-variable drops, 3 speculative drops, 4 and 5 failed
    /// speculations (busy, unavailable); see `layout::DROP_*`.
    pub drops_map: usize,
    /// The speculations (`layout::SPEC_*`): the consumer frees an ID (writes
    /// zeros to its entry) once it has consumed the record that drained it.
    pub spec_map: usize,
    /// Each aggregation's group, an index into `agg_groups`.
    pub agg_maps: BTreeMap<u32, usize>,
    pub agg_groups: Vec<AggGroup>,
    /// Each keyless aggregation's fixed slot in its class (its values at
    /// elements `cpu * slots + slot`, its entry at `entry_base + slot`); it is
    /// live, like any slot, while its entry's state is 1.
    pub agg_fixed: BTreeMap<u32, u32>,
    /// One-entry array: state word (u64 @0, see [`layout::STATE_ACTIVE`]), realtime
    /// minus monotonic offset (u64 @8), then global variables.
    pub globals_map: usize,
    /// The probe-name table, when probes may join while tracing (see [`late`]).
    pub probe_names: Option<late::ProbeNames>,
    /// Per clause (by index), the variables it uses, for `-S`.
    pub var_tables: Vec<Vec<vartab::VarRow>>,
}

impl CompiledProgram {
    /// Whether a program writes user memory (`copyout`, `copyoutstr`: calls of
    /// `bpf_probe_write_user`), which needs `-w` and a kernel that allows it.
    pub fn writes_user_memory(&self) -> bool {
        let call = dtrace_bpf::Insn::call_helper(dtrace_bpf::helper::PROBE_WRITE_USER);
        self.programs.iter().any(|p| p.insns.contains(&call))
    }
}
