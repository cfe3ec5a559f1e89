//! What sema and codegen know of a probe. Providers build these; the compiler never
//! looks probes up itself.

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
    // --- user-space probes (pid, usdt) ---
    /// `pid<PID>:...` and USDT probes: a kprobe-type program on uprobe_multi
    /// links (one per object file), told apart by attach cookie; arguments come
    /// from the user registers and stack, as [`ProbeInfo::fields`] says.
    /// `ret`: a return probe (uretprobe). [`ProbeInfo::fields`] holds one
    /// layout of `arg_types.len()` arguments per distinct way the probe's
    /// sites keep them (USDT sites differ; a pid probe has one).
    Uprobe { ret: bool },
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
    pub provider: String,
    pub module: String,
    pub function: String,
    pub name: String,
    pub kind: ProbeKind,
    /// Native argument types as C type names (`"long"`, `"char *"`), for `args[]`.
    pub arg_types: Vec<String>,
    /// Where each argument is in the record, for probes whose trampoline reads
    /// one ([`ProbeKind::Tracepoint`]); empty for the others.
    pub fields: Vec<RecordField>,
}
