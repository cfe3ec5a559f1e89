//! The typed program: what sema hands codegen.
//!
//! Expressions are trees with a [`Ty`] and a [`Span`] on every node. Conversions are
//! explicit ([`TExprKind::Convert`]), so codegen never applies C's conversion rules
//! itself: an integer of type `T` is always held in a 64-bit register sign- or
//! zero-extended from `T`'s width, and every operation names the type it computes in.
//!
//! Architecture invariant: every node here has passed sema's checks; codegen treats
//! any inconsistency as an internal error it cannot meet on user input.

pub use crate::dpath::DPathOffsets;
use dtrace_ctypes::TypeId;
use dtrace_syntax::Span;

/// A D value type as codegen needs it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Ty {
    /// A C integer of `size` bytes; `id` names it in messages.
    Int { size: u8, signed: bool, id: TypeId },
    /// A string held NUL-padded in a buffer of `cap` bytes (a multiple of 8, at most
    /// the rounded `strsize`). `cap` is the static maximum size of this value.
    Str { cap: u32 },
    /// A pointer (to a kernel or D type); `id` is the pointer type. Held as a 64-bit
    /// address, compared unsigned.
    Ptr { id: TypeId },
    /// A struct, union or C array object of `size` bytes in kernel memory; the value
    /// of such an expression is the object's address. `id` is the object's type.
    Agg { id: TypeId, size: u32 },
    /// A kernel stack of at most `frames` return addresses (`stack()`): 8-byte
    /// addresses, innermost first, zero after the last frame. Like `Agg`, the
    /// value of such an expression is the address of its bytes. `kind` tells a
    /// kernel stack from a user one (`ustack()`, the pid first) and from the
    /// user symbols (`uaddr()` and friends: the pid, then one address).
    Stack { frames: u32, kind: StackKind },
    /// No value (actions, `void` results).
    Void,
}

impl Ty {
    pub fn is_int(&self) -> bool {
        matches!(self, Ty::Int { .. })
    }
    pub fn is_str(&self) -> bool {
        matches!(self, Ty::Str { .. })
    }
    pub fn is_ptr(&self) -> bool {
        matches!(self, Ty::Ptr { .. })
    }
    pub fn is_agg(&self) -> bool {
        matches!(self, Ty::Agg { .. })
    }
    /// Integers and pointers: values held in one register and tested against zero.
    pub fn is_int_or_ptr(&self) -> bool {
        matches!(self, Ty::Int { .. } | Ty::Ptr { .. })
    }
    /// What a predicate, `if`, `!`, `&&` or `?:` may test: integers, pointers, strings.
    /// Whether the value can be tested for truth: "The logical operators may be
    /// applied to operands of integer or pointer types", and "the predicate
    /// expression must evaluate to a value of integer or pointer type" (Dynamic
    /// Tracing Guide, "Logical Operators", "Predicates") -- not strings.
    pub fn is_testable(&self) -> bool {
        matches!(self, Ty::Int { .. } | Ty::Ptr { .. })
    }
    /// The C type naming this value's type, if it has one.
    pub fn type_id(&self) -> Option<TypeId> {
        match self {
            Ty::Int { id, .. } | Ty::Ptr { id } | Ty::Agg { id, .. } => Some(*id),
            _ => None,
        }
    }
    /// Bytes this value takes in a record, key or variable.
    pub fn size(&self) -> u32 {
        match self {
            Ty::Int { size, .. } => *size as u32,
            Ty::Str { cap } => *cap,
            Ty::Ptr { .. } => 8,
            Ty::Agg { size, .. } => *size,
            Ty::Stack { frames, kind } => {
                frames * 8 + if *kind == StackKind::Kernel { 0 } else { 8 }
            }
            Ty::Void => 0,
        }
    }
    /// Natural alignment in records and keys.
    pub fn align(&self) -> u32 {
        match self {
            Ty::Int { size, .. } => (*size as u32).max(1),
            Ty::Str { .. } | Ty::Ptr { .. } | Ty::Agg { .. } | Ty::Stack { .. } => 8,
            Ty::Void => 1,
        }
    }
    pub fn signed(&self) -> bool {
        matches!(self, Ty::Int { signed: true, .. })
    }
    /// Same representation (size and signedness, or both strings).
    pub fn same_repr(&self, other: &Ty) -> bool {
        match (self, other) {
            (
                Ty::Int {
                    size: a, signed: s, ..
                },
                Ty::Int {
                    size: b, signed: t, ..
                },
            ) => a == b && s == t,
            (Ty::Str { .. }, Ty::Str { .. }) => true,
            (Ty::Ptr { .. }, Ty::Ptr { .. }) => true,
            (Ty::Agg { size: a, .. }, Ty::Agg { size: b, .. }) => a == b,
            (Ty::Stack { frames: a, kind: k }, Ty::Stack { frames: b, kind: l }) => {
                a == b && k == l
            }
            (Ty::Void, Ty::Void) => true,
            _ => false,
        }
    }
}

/// What a [`Ty::Stack`] holds and how it prints (the description crate's).
pub use dtrace_desc::StackKind;

/// Built-in variables.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Builtin {
    Pid,
    Tid,
    Ppid,
    Uid,
    Gid,
    Execname,
    Cpu,
    Timestamp,
    /// Approximated by `bpf_ktime_get_ns` (no per-thread on-CPU clock in BPF).
    Vtimestamp,
    Walltimestamp,
    Probeprov,
    Probemod,
    Probefunc,
    Probename,
    Arg(u8),
    Id,
    Epid,
    Errno,
    /// `curthread`: the current `struct task_struct *`.
    Curthread,
    /// `caller`: the kernel address the probed function returns to (the
    /// second frame of the kernel stack; 0 when there is none).
    Caller,
    /// `stackdepth`: the number of frames of the kernel stack.
    Stackdepth,
    /// `ucaller`: the user return address of the current function (the
    /// second frame of the user stack; 0 when there is none).
    UCaller,
    /// `ustackdepth`: the number of frames of the user stack.
    UStackdepth,
}

/// Where a scalar variable lives.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum VarRef {
    /// Index into [`TypedProgram::globals`].
    Global(u32),
    /// `self->`: index into [`TypedProgram::thread_vars`].
    Thread(u32),
    /// `this->`: index into [`TypedProgram::clause_vars`].
    Clause(u32),
}

/// An assignable place.
#[derive(Debug, Clone, PartialEq)]
pub enum LValue {
    Var(VarRef),
    /// `a[k, ...]`: index into [`TypedProgram::arrays`].
    Array {
        array: u32,
        keys: Vec<TExpr>,
    },
    /// A scalar inside a D variable's storage: an element of a scalar array
    /// (`int a[5]; a[i] = ...`) or a struct/union member (`i[k].calls++`), at byte
    /// offset `off` of the root's storage. An offset past `limit` (the storage's
    /// size less the scalar's) faults. A missing dynamic root (thread-local or
    /// associative-array element) is created zero-filled.
    Elem {
        root: ElemRoot,
        off: Box<TExpr>,
        limit: u32,
        /// A bit-field: the `size`-byte unit at `off` holds it at bit `shift`,
        /// `width` bits wide (stores read, merge and write back the unit).
        bits: Option<BitPlace>,
    },
    /// A scalar in memory at the address `addr` evaluates to (`*p = v`,
    /// `p->m = v`, `p[i] = v`). Only the clause's allocated scratch memory is
    /// writable: any other address faults (invalid address), as a store that
    /// ends past the allocation does (invalid size).
    Mem(Box<TExpr>),
}

/// Where a bit-field lies in its storage unit (see [`LValue::Elem`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BitPlace {
    pub size: u8,
    pub shift: u8,
    pub width: u8,
}

/// The D variable an [`LValue::Elem`] lies in.
#[derive(Debug, Clone, PartialEq)]
pub enum ElemRoot {
    Var(VarRef),
    /// The element `array[keys]` of an associative array of aggregates.
    Array {
        array: u32,
        keys: Vec<TExpr>,
    },
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ArithOp {
    Add,
    Sub,
    Mul,
    Div,
    Mod,
    Shl,
    Shr,
    And,
    Or,
    Xor,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CmpOp {
    Lt,
    Le,
    Gt,
    Ge,
    Eq,
    Ne,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LogicOp {
    And,
    Or,
    Xor,
}

#[derive(Debug, Clone, PartialEq)]
pub struct TExpr {
    pub kind: TExprKind,
    pub ty: Ty,
    pub span: Span,
}

#[derive(Debug, Clone, PartialEq)]
pub enum TExprKind {
    /// An integer constant, already normalized to `ty`.
    Int(i64),
    /// A string literal: index into [`TypedProgram::strings`].
    Str(u32),
    Builtin(Builtin),
    Var(VarRef),
    /// Read `array[keys]`; a missing element reads as 0 or "".
    ArrayGet {
        array: u32,
        keys: Vec<TExpr>,
    },
    /// Convert the operand's integer value to `ty` (truncate / extend), or widen a
    /// string's static capacity (no code).
    Convert(Box<TExpr>),
    Neg(Box<TExpr>),
    BitNot(Box<TExpr>),
    /// `!e` on an integer or a string (`!s` is `s == ""`); result `int`.
    LogNot(Box<TExpr>),
    /// Both operands already have type `ty` (for shifts: the left one; the right one
    /// is any integer).
    Arith {
        op: ArithOp,
        lhs: Box<TExpr>,
        rhs: Box<TExpr>,
    },
    /// Integer comparison; both operands have the same type, whose signedness decides.
    Cmp {
        op: CmpOp,
        lhs: Box<TExpr>,
        rhs: Box<TExpr>,
    },
    /// String comparison by content.
    StrCmp {
        op: CmpOp,
        lhs: Box<TExpr>,
        rhs: Box<TExpr>,
    },
    /// Short-circuit (`&&`, `||`) or both-sided (`^^`) logic; operands are tested
    /// against zero (strings: against ""); result `int`.
    Logic {
        op: LogicOp,
        lhs: Box<TExpr>,
        rhs: Box<TExpr>,
    },
    Ternary {
        cond: Box<TExpr>,
        then: Box<TExpr>,
        els: Box<TExpr>,
    },
    Comma(Box<TExpr>, Box<TExpr>),
    /// `lv = rhs` (rhs already converted to `lv`'s type) or, with `op`, `lv op= rhs`:
    /// computed as `(lv converted to op_ty) op rhs`, then converted back to `ty`.
    /// The value of the expression is the stored value (type `ty`).
    Assign {
        lv: LValue,
        op: Option<(ArithOp, Ty)>,
        rhs: Box<TExpr>,
    },
    /// `++`/`--`, prefix or postfix, on an integer or pointer lvalue of type `ty`
    /// (pointers step by `step`, the size of what they point to; integers by 1).
    IncDec {
        lv: LValue,
        inc: bool,
        post: bool,
        step: u32,
    },
    /// Read a scalar (integer or pointer) of type `ty` from kernel memory at the
    /// address `addr` evaluates to. A failed read faults (invalid address).
    Load(Box<TExpr>),
    /// Read a bit-field: `size` bytes (1, 2, 4 or 8) at `addr`, shifted right by
    /// `shift`, keeping `width` bits, sign-extended when `ty` is signed.
    LoadBits {
        addr: Box<TExpr>,
        size: u8,
        shift: u8,
        width: u8,
    },
    /// Read a NUL-terminated string from kernel memory at `addr`: at most `max`
    /// bytes including the NUL, into a NUL-padded string of capacity `ty`'s cap
    /// (`max <= cap`). A failed read faults (invalid address).
    KStr {
        addr: Box<TExpr>,
        max: u32,
    },
    /// The library intrinsic `__dt_uargs(start, end)`: the bytes `[start, end)` of
    /// the current process's user memory (at most `ty`'s cap minus one), with each
    /// NUL but the last read byte replaced by a space: a process's argument area
    /// (`mm->arg_start..arg_end`) read as one string. A failed read yields "".
    UserArgs {
        start: Box<TExpr>,
        end: Box<TExpr>,
    },
    /// An array index checked at run time: the value of `index` (a `long`), or
    /// an invalid-address fault (the index as the address) when it is not below
    /// `len`, the array's element count.
    CheckIndex {
        index: Box<TExpr>,
        len: u32,
    },
    /// The pointer `->` is applied to: its value, or an invalid-address fault
    /// at address 0 when it is NULL (DTrace checks the pointer before adding
    /// the member's offset).
    NotNull(Box<TExpr>),
    /// The library intrinsic `__dt_curcpu()`: the address (an integer) of this
    /// CPU's `cpuinfo_t`, filled in: CPU number, -1, -1, NUMA node.
    CurCpu,
    /// `uregs[R_*]`: word `n` (0..20) of the current thread's saved user
    /// registers (`struct pt_regs`), a `uint64_t`; 0 if they cannot be read.
    URegs(u8),
    /// The library intrinsic `__dt_uword(addr)`: the 64-bit word at `addr` in the
    /// current process's user memory (type `uint64_t`), 0 when it cannot be read.
    UserWord(Box<TExpr>),
    /// `alloca(size)`: `size` bytes of the clause's scratch space (`scratchsize`),
    /// 8-byte aligned, valid until the clause ends; the value (`void *`) is their
    /// address. Too little space left faults (out of scratch space).
    Alloca(Box<TExpr>),
    /// `copyin(addr, size)`: `size` bytes of the current process's memory at
    /// `addr`, copied into newly allocated scratch space (as `alloca`); the value
    /// is the scratch address. A failed read faults (invalid address).
    CopyIn {
        addr: Box<TExpr>,
        size: Box<TExpr>,
    },
    /// `copyinstr(addr [, maxlen])`: the NUL-terminated string at `addr` in the
    /// current process's memory, at most `maxlen` bytes (NUL included; without it
    /// `strsize`), never more than `ty`'s cap. A failed read faults.
    CopyInStr {
        addr: Box<TExpr>,
        max: Option<Box<TExpr>>,
    },
    /// `copyinto(addr, size, dest)`: copy `size` bytes of user memory at `addr`
    /// into the scratch memory at `dest` (an alloca pointer). Type void.
    CopyInto {
        addr: Box<TExpr>,
        size: Box<TExpr>,
        dest: Box<TExpr>,
    },
    /// `bcopy(src, dest, size)`: copy `size` bytes of kernel memory (or, when
    /// `src_scratch`, of allocated scratch memory) at `src` into the scratch
    /// memory at `dest`. Type void.
    Bcopy {
        src: Box<TExpr>,
        dest: Box<TExpr>,
        size: Box<TExpr>,
        src_scratch: bool,
    },
    /// `copyout(buf, addr, size)` (`string`: `copyoutstr(str, addr, maxlen)`):
    /// write to the current process's memory. Type void.
    CopyOut {
        src: Box<TExpr>,
        addr: Box<TExpr>,
        size: Box<TExpr>,
        string: bool,
    },
    /// Read a scalar of type `ty` from the clause's allocated scratch memory at the
    /// address `addr` evaluates to (a load through an alloca pointer). An access
    /// outside the allocated space faults (invalid address, or invalid size when
    /// it starts inside and ends past it).
    LoadScratch(Box<TExpr>),
    /// A string read from allocated scratch memory at `addr`: at most `max` bytes
    /// (NUL included) and never past the allocated space. Faults as `LoadScratch`.
    ScratchStr {
        addr: Box<TExpr>,
        max: u32,
    },
    /// The NULL string: `NULL` stored in, compared with or chosen as a string,
    /// and what a never-assigned thread-local or associative-array string reads
    /// as. Reading its characters (tracing it, indexing it, passing it to a string
    /// subroutine) is an invalid-address fault at address 0; it compares equal
    /// only to NULL and below every other string.
    NullStr,
    /// `s + n` (or `n + s`): D's pointer arithmetic on a string, the string from
    /// byte `n` of `s` on ("" past its buffer). Offsetting NULL faults (invalid
    /// address `n`).
    StrOffset {
        s: Box<TExpr>,
        off: Box<TExpr>,
    },
    /// `s[i]` on a string: the `char` at index `i` (an integer) of the string's
    /// buffer; 0 past its end, a fault (invalid address) outside `[0, strsize)`.
    StrIndex {
        s: Box<TExpr>,
        index: Box<TExpr>,
    },
    /// A struct or union value built in scratch memory (a whole translated struct):
    /// `size` zeroed bytes, then each member's value stored at its byte offset.
    /// The expression's value (type [`Ty::Agg`]) is the scratch address.
    Build {
        size: u32,
        members: Vec<BuildMember>,
    },
    /// `speculation()`: a free speculation ID (1..=nspec) marked active, or 0 when
    /// none is free (counted as a failed speculation, busy or unavailable).
    Speculation,
    /// A string subroutine call (see [`StrFunc`]); arguments already converted to
    /// the prototype (strings, `int`, `char`, `int64_t`). `strtok`'s first argument
    /// is the integer 0 when the call goes on with the previous string.
    StrFn {
        func: StrFunc,
        args: Vec<TExpr>,
    },
    /// `htons`/`htonl`/`htonll` (and `ntoh*`): the operand's bytes reversed in
    /// `ty`'s width (16, 32 or 64 bits), as the host is little-endian.
    ByteSwap(Box<TExpr>),
    /// `inet_ntoa6`/`inet_ntop(AF_INET6, ...)`: an IPv6 address (eight 16-bit
    /// groups, host order) as text: the longest run of two or more zero groups
    /// (the first of equal ones) written `::`, groups in lowercase hex; an
    /// IPv4-mapped or -compatible address as its IPv4 dotted quad, after
    /// `::ffff:` or `::` when `prefix`.
    Inet6 {
        groups: Vec<TExpr>,
        prefix: bool,
    },
    /// `rand()`: a pseudo-random `int`.
    Rand,
    /// `progenyof(pid)`: 1 if the current process or one of its ancestors has
    /// process ID `pid`, else 0.
    Progenyof(Box<TExpr>),
    /// `d_path()`: the path of the dentry at address `dentry` in the mount
    /// whose `struct vfsmount` is at `mnt`, as the kernel's `d_path()` writes
    /// it (relative to the current process's root; "/" for a dentry with no
    /// name above it), at most `strsize` bytes.
    DPath {
        mnt: Box<TExpr>,
        dentry: Box<TExpr>,
        offs: DPathOffsets,
    },
    /// `stack(frames)`: the current kernel stack (type [`Ty::Stack`]), gathered
    /// into scratch memory; the value is its address.
    Stack {
        frames: u32,
        kind: StackKind,
        /// For a traced `ustack()`: pages of user stack memory copied above
        /// the stack pointer with the registers, for the consumer to unwind
        /// with CFI (0: frame-pointer frames only). Keys never copy.
        pages: u32,
    },
    /// `uaddr(a)`, `usym(a)`, `ufunc(a)`, `umod(a)` (type [`Ty::Stack`] of one
    /// frame and that kind): the pid and the address, in scratch memory.
    UserSym {
        kind: StackKind,
        addr: Box<TExpr>,
    },
}

/// The D string subroutines.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum StrFunc {
    Strlen,
    Strjoin,
    Substr,
    Index,
    Rindex,
    Strchr,
    Strrchr,
    Strstr,
    Strtok,
    Toupper,
    Tolower,
    Lltostr,
    Strtoll,
    Basename,
    Dirname,
    Cleanpath,
}

/// One member stored by [`TExprKind::Build`]: an integer or pointer stored in
/// `size` bytes, a string copied into a `char` array of `size` bytes, or an
/// aggregate's `size` bytes copied.
#[derive(Debug, Clone, PartialEq)]
pub struct BuildMember {
    pub offset: u32,
    pub size: u32,
    pub value: TExpr,
}

pub use crate::aggfunc::AggKind;

#[derive(Debug, Clone, PartialEq)]
pub enum TStmt {
    Expr(TExpr),
    If {
        cond: TExpr,
        then: Vec<TStmt>,
        els: Vec<TStmt>,
    },
    /// A loop (an extension to D): `cond` (none: always true) is tested before
    /// each pass when `test_first`, else after it; `step` runs after each pass
    /// (and on `continue`). `span` is the loop's source.
    Loop {
        cond: Option<TExpr>,
        body: Vec<TStmt>,
        step: Vec<TStmt>,
        test_first: bool,
        span: dtrace_syntax::Span,
        /// The source line the loop starts on.
        line: u32,
    },
    /// `break` out of the innermost loop.
    Break,
    /// `continue` with the innermost loop's next pass.
    Continue,
    /// `trace(value)`; an aggregate (`Ty::Agg`) value records its bytes.
    Trace {
        value: TExpr,
    },
    /// `print(value)`: the value's bytes recorded, printed by `shape`.
    Print {
        value: TExpr,
        shape: PrintShape,
        /// For a pointer argument: the pointer, recorded before the object
        /// (`value`) it points to.
        addr: Option<TExpr>,
    },
    /// `printf(format, args...)`; the format is validated against the arguments.
    Printf {
        format: String,
        args: Vec<TExpr>,
    },
    /// `exit(status)`.
    Exit {
        status: TExpr,
    },
    /// `printa([format,] @a, ...)`.
    Printa {
        format: Option<String>,
        aggs: Vec<u32>,
    },
    /// `trunc(@a[, n])`, `clear(@a)`, `normalize(@a, n)`, `denormalize(@a)`: recorded
    /// with their argument (an int64_t) and applied by the consumer in record order.
    AggControl {
        op: AggOp,
        agg: u32,
        arg: Option<TExpr>,
    },
    /// `speculate(id)`: the rest of the clause's record goes to speculation `id`
    /// (an `int64_t`); an ID that is not active ends the clause quietly.
    Speculate {
        id: TExpr,
    },
    /// `commit(id)` / `discard(id)` (`id` an `int64_t`): mark the speculation
    /// draining; the consumer prints (commit) or drops (discard) its records when
    /// it reaches this record. An ID above `nspec` faults (illegal operation).
    CommitDiscard {
        id: TExpr,
        commit: bool,
    },
    /// `tracemem(addr, size [, dynsize])`: `size` bytes at `addr` recorded; with
    /// `dynsize`, only the first `dynsize` (at most `size`) are printed.
    Tracemem {
        addr: TExpr,
        size: u32,
        dynsize: Option<TExpr>,
    },
    /// `system(...)` / `freopen(...)`: a printf-formatted string the consumer
    /// acts on.
    FormatAction {
        action: FormatAction,
        format: String,
        args: Vec<TExpr>,
    },
    /// `setopt(name [, value])`: the consumer sets the option.
    Setopt {
        name: TExpr,
        value: Option<TExpr>,
    },
    /// `ftruncate()`: the consumer truncates its output file.
    Ftruncate,
    /// `sym(addr)`, `func(addr)`, `mod(addr)`: the address recorded, printed
    /// as its kernel symbol or module.
    Symbol {
        addr: TExpr,
        kind: SymbolKind,
    },
    /// `raise(sig)` / `stop()`: the signal is sent to the current thread.
    Raise {
        sig: TExpr,
    },
    /// `chill(ns)`: spin on this CPU for `ns` nanoseconds (at most
    /// [`CHILL_MAX_NS`] per call, as DTrace bounds it).
    Chill {
        ns: TExpr,
    },
    /// `@a[keys] = func(value [, incr])`.
    AggUpdate {
        agg: u32,
        keys: Vec<TExpr>,
        /// The value argument (absent for `count()`).
        value: Option<TExpr>,
        /// The optional increment (weight) of quantize/lquantize/llquantize.
        incr: Option<TExpr>,
        span: Span,
    },
}

impl TStmt {
    /// Whether the statement writes data into the clause's record (or, for
    /// `raise()`, is an action whose firing dtrace(1) reports with the probe
    /// line).
    pub fn records(&self) -> bool {
        matches!(
            self,
            TStmt::Trace { .. }
                | TStmt::Print { .. }
                | TStmt::Printf { .. }
                | TStmt::Exit { .. }
                | TStmt::Printa { .. }
                | TStmt::AggControl { .. }
                | TStmt::Speculate { .. }
                | TStmt::CommitDiscard { .. }
                | TStmt::Tracemem { .. }
                | TStmt::FormatAction { .. }
                | TStmt::Setopt { .. }
                | TStmt::Ftruncate
                | TStmt::Raise { .. }
                | TStmt::Chill { .. }
                | TStmt::Symbol { .. }
        )
    }
}

/// The longest one `chill()` spins: DTrace lets chill take at most half of
/// each second.
pub const CHILL_MAX_NS: i64 = 500_000_000;

/// An action on a whole aggregation (the description crate's).
pub use dtrace_desc::AggOp;

/// How a [`TStmt::Symbol`] prints its address.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SymbolKind {
    /// `module`function` (`sym`, `func`).
    Function,
    /// `module` (`mod`).
    Module,
}

/// What a [`TStmt::FormatAction`] does with its formatted string.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FormatAction {
    /// Run it as a shell command.
    System,
    /// Send the output to the file it names ("" restores standard output).
    Freopen,
}

/// One clause, typed.
#[derive(Debug, Clone, PartialEq)]
pub struct TClause {
    /// Position in program order (also the clause index of its EPID).
    pub index: u32,
    pub span: Span,
    pub predicate: Option<TExpr>,
    pub body: Vec<TStmt>,
    /// Bit `i` set: `arg<i>` is read by this clause.
    pub args_used: u16,
    /// Whether the clause records data (so it reserves a ring-buffer record).
    pub emits_record: bool,
}

/// A scalar variable (global, thread-local or clause-local).
#[derive(Debug, Clone, PartialEq)]
pub struct VarInfo {
    pub name: String,
    pub ty: Ty,
    pub span: Span,
    /// The C kind of the variable's type (filled when the check ends).
    pub ckind: CKind,
}

/// The kind of a variable's C type, as `dtrace -S` names it in variable tables.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum CKind {
    #[default]
    Unknown,
    Integer,
    Float,
    Pointer,
    Array,
    Struct,
    Union,
    Enum,
    /// D's `string`.
    String,
}

impl CKind {
    pub fn name(&self) -> &'static str {
        match self {
            CKind::Unknown | CKind::String => "unknown",
            CKind::Integer => "integer",
            CKind::Float => "float",
            CKind::Pointer => "pointer",
            CKind::Array => "array",
            CKind::Struct => "struct",
            CKind::Union => "union",
            CKind::Enum => "enum",
        }
    }
}

/// An associative array: key tuple types and value type.
#[derive(Debug, Clone, PartialEq)]
pub struct ArrayInfo {
    pub name: String,
    /// Key types; string capacities are the maximum over all uses.
    pub keys: Vec<Ty>,
    pub value: Ty,
    /// The C kind of the value type (filled when the check ends).
    pub ckind: CKind,
}

/// An aggregation.
#[derive(Debug, Clone, PartialEq)]
pub struct AggInfo {
    pub id: u32,
    /// Without the `@` ("" for `@`).
    pub name: String,
    pub kind: AggKind,
    /// Key types; string capacities are the maximum over all uses.
    pub keys: Vec<Ty>,
}

/// The checked program.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct TypedProgram {
    pub clauses: Vec<TClause>,
    pub globals: Vec<VarInfo>,
    pub thread_vars: Vec<VarInfo>,
    pub clause_vars: Vec<VarInfo>,
    pub arrays: Vec<ArrayInfo>,
    pub aggs: Vec<AggInfo>,
    /// String literals (without NUL).
    pub strings: Vec<Vec<u8>>,
    /// Whether a clause uses a destructive action (which needs `-w`).
    pub destructive: bool,
}

/// A type as `print()` shows it: the description crate's one print-type enum,
/// which the consumer reads as it is.
pub use dtrace_desc::{PrintMember as PrintField, PrintType as PrintShape};
