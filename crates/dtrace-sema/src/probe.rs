//! What sema and codegen know of a probe. Providers build these; the compiler never
//! looks probes up itself.

use crate::name::Name;

/// Which trampoline kind (and so which BPF program type and attachment) serves a probe.
/// One variant per attachment mechanism; providers choose it, codegen implements it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum ProbeKind {
    /// `dtrace:::BEGIN`: a raw-tracepoint program run once with `BPF_PROG_TEST_RUN`.
    Begin,
    /// `dtrace:::END`: likewise, after tracing stops.
    End,
    /// `dtrace:::ERROR`: compiled into every program as the fault handler.
    Error,
    /// `syscall::<name>:entry`: raw tracepoint `sys_enter`, filtered by syscall number.
    SyscallEntry { nr: u32 },
    /// `syscall::<name>:return`: raw tracepoint `sys_exit`, filtered by syscall number.
    SyscallReturn { nr: u32 },
    /// `profile:::profile-N`: a cpu-clock perf event on every CPU, period in ns.
    Profile { period_ns: u64 },
    /// `profile:::tick-N`: a cpu-clock perf event on one CPU, period in ns.
    Tick { period_ns: u64 },
    /// `sdt:<group>::<event>`: a kernel tracepoint, by its perf event id (0 until
    /// the provider has resolved the probe); arguments come from its record, as
    /// [`ProbeInfo::fields`] says.
    Tracepoint { event_id: u32 },
    // [kprov] SDT providers on raw tracepoints (proc, sched, io).
    /// A probe of an SDT provider built on the kernel raw tracepoint `tp`
    /// (`sched_switch`, `sys_exit`, ...): its trampoline tests `prep`'s
    /// pre-condition and fills the native arguments as `prep` says.
    RawSdt { tp: &'static str, prep: Prep },
    // --- user-space probes (pid, usdt) ---
    /// `pid<PID>:...` and USDT probes: a kprobe-type program on uprobe_multi
    /// links (one per object file), told apart by attach cookie; arguments come
    /// from the user registers and stack, as [`ProbeInfo::fields`] says.
    /// `ret`: a return probe (uretprobe). [`ProbeInfo::fields`] holds one
    /// layout of `arg_types.len()` arguments per distinct way the probe's
    /// sites keep them (USDT sites differ; a pid probe has one).
    Uprobe { ret: bool },
    // [fbt] Kernel functions, raw tracepoints and hardware counters (fbt,
    // lockstat, rawtp, cpc): the attach point's name is the probe's own.
    /// `fbt:<module>:<function>:entry|return`: the kernel function named by the
    /// probe's function, at entry or return; `nargs` parameters (from BTF).
    KernelFunc { ret: bool, nargs: u8 },
    /// `rawtp:<group>::<event>`: the raw tracepoint named by the probe's name;
    /// `args[i]` is the i-th u64 of the context.
    RawTracepoint,
    /// `lockstat:vmlinux::<probe>`: a lock event, by its index in the provider's table.
    Lockstat { probe: u8 },
    /// `cpc:::<event>-<mode>-<count>`: a hardware counter overflow every `count`
    /// events; `event` is the perf hardware event (`PERF_COUNT_HW_*`), `mode` 0
    /// all, 1 user, 2 kernel.
    Cpc { event: u8, mode: u8, count: u64 },
}

/// How a raw-tracepoint trampoline presents one probe (libdtrace's "dependent
/// probe" trampoline code, as data): the probe fires only when its syscall
/// number is one of `syscalls` (for `sys_enter`/`sys_exit`; empty: any) and
/// every test holds; native argument `i` is `args[i]`'s value.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Prep {
    pub syscalls: &'static [u32],
    pub tests: &'static [Test],
    pub args: &'static [Src],
}

/// One pre-condition: `value op imm`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Test {
    pub value: Src,
    pub op: Cmp,
    pub imm: i32,
}

/// Comparisons of a pre-condition (signed).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Cmp {
    Eq,
    Ne,
    Gt,
    /// `value & imm` is zero.
    Clear,
    /// `value & imm` is not zero.
    Set,
}

/// Where a native argument (or a tested value) comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Src {
    /// Raw tracepoint argument `i` (the tracepoint's prototype order).
    Raw(u8),
    /// Raw tracepoint argument `i`, a C `int`: its low 32 bits, sign-extended.
    RawInt(u8),
    /// The 64-bit word raw argument `i` points to (read from kernel memory).
    Deref(u8),
    /// System-call argument `i` (`sys_enter`: from the `pt_regs` in raw argument 0).
    SysArg(u8),
    /// The path an exec system call names: `execve`'s first argument,
    /// `execveat`'s second (`sys_enter`).
    ExecPath,
    /// A system call's return value, negated (`sys_exit`: the errno of a failure).
    NegRet,
    /// The current task (`curthread`).
    CurTask,
    /// 1 when the current thread is not its process's first thread, else 0.
    NotLeader,
    /// How the current task exited, as `wait(2)`'s `CLD_EXITED` (1),
    /// `CLD_KILLED` (2) or `CLD_DUMPED` (3), from its exit code.
    ExitReason,
    /// The signal `signal_deliver` (raw arguments: signal, siginfo, action)
    /// acts on: its signal, except that the SIGKILL with no siginfo by which
    /// a thread group dies of a fatal signal is that signal (the group's exit
    /// code), and 0 when the group dies by exit or exec (no signal).
    DeliveredSignal,
    /// At `contention_end`: nanoseconds since this thread's first
    /// `contention_begin` on the lock (kept per thread and lock by a companion
    /// program on `contention_begin`).
    LockWait,
    /// At `contention_end`: the `LCB_F_*` flags of every `contention_begin` of
    /// that wait, or'd, with [`LOCK_SLEPT`] when one of them was not a spin.
    LockFlags,
    /// At `contention_end`: 1 when the wait was for a read lock, else 0
    /// (DTrace's `RW_READER` and `RW_WRITER`).
    LockReader,
    Zero,
}

/// A bit of [`Src::LockFlags`]: the waiter blocked (a `contention_begin`
/// without `LCB_F_SPIN`), rather than only spinning.
pub const LOCK_SLEPT: i32 = 1 << 30;

impl Prep {
    /// Whether the probe reads a lock wait's state (`Src::Lock*`).
    pub fn lock_wait(&self) -> bool {
        let lock = |s: &Src| matches!(s, Src::LockWait | Src::LockFlags | Src::LockReader);
        self.args.iter().any(lock) || self.tests.iter().any(|t| lock(&t.value))
    }
}

/// One argument of a probe, as libdtrace's argument description: `args[i]` has
/// type `xlate` (when given) translated from native argument `mapping` of
/// type `native`, or that native argument itself.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ArgDesc {
    /// The native C type (`"struct task_struct *"`), or `"string"`.
    pub native: String,
    /// The translated type (`"psinfo_t *"`), when a translator applies.
    pub xlate: Option<String>,
    /// The native argument (`argN`) it is made from.
    pub mapping: u8,
    /// A `string` native argument is an address in user space (exec's path).
    pub user: bool,
}

impl ArgDesc {
    /// Native argument `mapping` as it is, of type `native`.
    pub fn native(native: &str, mapping: u8) -> ArgDesc {
        ArgDesc {
            native: native.to_string(),
            xlate: None,
            mapping,
            user: false,
        }
    }

    /// `xlate` translated from native argument `mapping` of type `native`.
    pub fn translated(native: &str, xlate: &str, mapping: u8) -> ArgDesc {
        ArgDesc {
            xlate: Some(xlate.to_string()),
            ..ArgDesc::native(native, mapping)
        }
    }

    /// Argument `i` of each type, untranslated (`args[i]` is `argi`).
    pub fn natives<S: AsRef<str>>(types: &[S]) -> Vec<ArgDesc> {
        types
            .iter()
            .enumerate()
            .map(|(i, t)| ArgDesc::native(t.as_ref(), i as u8))
            .collect()
    }

    /// The type `args[i]` has (what `dtrace -lv` shows).
    pub fn shown(&self) -> &str {
        self.xlate.as_deref().unwrap_or(&self.native)
    }
}

/// How a trampoline finds one argument in the record a tracepoint passes it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RecordField {
    /// Byte offset in the record.
    pub offset: u16,
    /// Size in bytes of the scalar (1, 2, 4 or 8); 4 for a `__data_loc` word.
    pub size: u8,
    /// Sign-extend a scalar narrower than 64 bits.
    pub signed: bool,
    pub kind: FieldKind,
}

/// What an argument's value is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FieldKind {
    /// The scalar stored at the offset.
    Scalar,
    /// The address of an array stored at the offset.
    Array,
    /// The address of dynamic data: the 32-bit word at the offset holds its
    /// offset in the record (low 16 bits) and its length (high 16 bits).
    DataLoc,
    // --- user-space probes (pid, usdt): `offset` is a `struct pt_regs` offset ---
    /// The value of a user register (truncated to `size` bytes).
    UserReg,
    /// `size` bytes of user memory at the register's value plus `disp`.
    UserMem { disp: i32 },
    /// A constant (`$5` in a USDT argument).
    Const(i64),
}

/// One probe as the compiler sees it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ProbeInfo {
    /// The probe ID shown by `dtrace -l` and the `id` variable.
    pub id: u32,
    pub provider: Name,
    pub module: Name,
    pub function: Name,
    pub name: Name,
    pub kind: ProbeKind,
    /// The arguments' descriptions (types of `args[]`).
    pub args: Vec<ArgDesc>,
    /// Where each argument is in the record, for probes whose trampoline reads
    /// one ([`ProbeKind::Tracepoint`]); empty for the others.
    pub fields: Vec<RecordField>,
}
