//! dtrace-desc: the contract between the compiler and the consumer, in one small
//! crate with no dependencies, so the consumer builds without the compiler.
//!
//! - this file: record, aggregation and print descriptions ([`ProgramDesc`],
//!   [`EpidDesc`], [`AggDesc`], [`PrintType`] — the one print-type enum, which
//!   sema builds and the consumer reads), record headers, fault records;
//! - [`aggfunc`]: the aggregating functions and their bucket arithmetic;
//! - [`format`]: the one printf grammar (parsing and argument checks).
//!
//! Record and aggregation descriptions: the contract between the compiler and the consumer.
//!
//! Architecture invariant: the consumer decodes every byte the BPF programs emit
//! through these descriptions and nothing else. If codegen changes a layout, it changes
//! the description in the same place; the consumer never assumes offsets.
//!
//! ## Ring-buffer record layout
//! Every record written to the ring buffer starts with a [`RecordHeader`]
//! (16 bytes, native endian), followed by the fields of the enabled probe's actions
//! at the offsets given by its [`EpidDesc`]. Offsets are from the start of the record.

pub mod aggfunc;
pub mod entries;
pub mod format;

pub use aggfunc::{
    llquantize_bounds, llquantize_bucket, llquantize_nbuckets, lquantize_nbuckets,
    quantize_bucket_value, AggKind as AggFunc, QUANTIZE_NBUCKETS, QUANTIZE_ZERO_BUCKET,
};
pub use entries::{AggEntries, AggEntry};
pub use format::{
    Conversion, Count, Format, Length, ParseError as FormatError, Piece, Want,
    MAX_WIDTH as MAX_FORMAT_WIDTH,
};
use std::collections::BTreeMap;

/// An action on a whole aggregation, applied by the consumer (as libdtrace does).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AggOp {
    /// Keep the `n` largest values (the `|n|` smallest when `n < 0`); none when absent.
    Trunc,
    /// Zero every value, keeping the keys.
    Clear,
    /// Divide printed values by `n`.
    Normalize,
    /// Undo normalize().
    Denormalize,
}

/// Record header flags: bit `i` (for `i < 31`) is set when action `i` of the
/// clause was executed (actions under an `if` may be skipped; skipped actions'
/// fields are zero). Bit 31 is set on every record so the consumer can tell the
/// flags are meaningful.
pub const RECORD_FLAGS_VALID: u32 = 1 << 31;

/// Size of [`RecordHeader`] in bytes.
pub const HEADER_SIZE: u32 = 16;

/// EPID of a fault record (see [`FaultRecord`]); never a real EPID.
pub const EPID_FAULT: u32 = u32::MAX;

/// The 16-byte header of every ring-buffer record.
/// `epid` at 0 (u32), `probe_id` at 4 (u32), `cpu` at 8 (u32), `flags` at 12 (u32, 0).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RecordHeader {
    pub epid: u32,
    pub probe_id: u32,
    pub cpu: u32,
    pub flags: u32,
}

impl RecordHeader {
    pub fn parse(bytes: &[u8]) -> Option<RecordHeader> {
        let w = |i: usize| -> Option<u32> {
            Some(u32::from_ne_bytes(bytes.get(i..i + 4)?.try_into().ok()?))
        };
        Some(RecordHeader {
            epid: w(0)?,
            probe_id: w(4)?,
            cpu: w(8)?,
            flags: w(12)?,
        })
    }
}

/// A fault record (header.epid == [`EPID_FAULT`]), written when a clause faults
/// (divide-by-zero, invalid address, ...), after which ERROR clauses run.
/// Layout after the header: `epid` u32 @16 (the faulting enabled probe), `action` u32 @20
/// (1-based action index within the clause), `kind` u32 @24 ([`FaultKind`] as u32),
/// `pc` u32 @28 (instruction offset of the fault within the clause, printed as dtrace(1)'s
/// "DIF offset"), `addr` u64 @32. Total 40 bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FaultRecord {
    pub epid: u32,
    pub action: u32,
    pub kind: FaultKind,
    pub pc: u32,
    pub addr: u64,
}

pub const FAULT_RECORD_SIZE: u32 = 40;

impl FaultRecord {
    pub fn parse(bytes: &[u8]) -> Option<FaultRecord> {
        let w = |i: usize| -> Option<u32> {
            Some(u32::from_ne_bytes(bytes.get(i..i + 4)?.try_into().ok()?))
        };
        Some(FaultRecord {
            epid: w(16)?,
            action: w(20)?,
            kind: FaultKind::from_u32(w(24)?),
            pc: w(28)?,
            addr: u64::from_ne_bytes(bytes.get(32..40)?.try_into().ok()?),
        })
    }
}

/// DTrace's fault kinds, with the wording dtrace(1) uses for each.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FaultKind {
    BadAddr = 1,
    BadAlign = 2,
    IllOp = 3,
    DivZero = 4,
    NoScratch = 5,
    KPriv = 6,
    UPriv = 7,
    TupOflow = 8,
    BadStack = 9,
    /// DTRACEFLT_BADSIZE: a size passed to a subroutine is out of range (the
    /// fault's value is the size).
    BadSize = 10,
    Unknown = 0,
}

impl FaultKind {
    pub fn from_u32(v: u32) -> FaultKind {
        match v {
            1 => FaultKind::BadAddr,
            2 => FaultKind::BadAlign,
            3 => FaultKind::IllOp,
            4 => FaultKind::DivZero,
            5 => FaultKind::NoScratch,
            6 => FaultKind::KPriv,
            7 => FaultKind::UPriv,
            8 => FaultKind::TupOflow,
            9 => FaultKind::BadStack,
            10 => FaultKind::BadSize,
            _ => FaultKind::Unknown,
        }
    }

    /// The phrase dtrace(1) prints, e.g. "divide-by-zero", "invalid address".
    pub fn message(self) -> &'static str {
        match self {
            FaultKind::BadAddr => "invalid address",
            FaultKind::BadAlign => "invalid alignment",
            FaultKind::IllOp => "illegal operation",
            FaultKind::DivZero => "divide-by-zero",
            FaultKind::NoScratch => "out of scratch space",
            FaultKind::KPriv => "invalid kernel access",
            FaultKind::UPriv => "invalid user access",
            FaultKind::TupOflow => "tuple stack overflow",
            FaultKind::BadStack => "bad stack",
            FaultKind::BadSize => "invalid size",
            FaultKind::Unknown => "unknown fault",
        }
    }
}

/// How a value stored in a record or an aggregation key is to be read and printed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ValueType {
    /// A C integer of 1, 2, 4 or 8 bytes.
    Int { size: u8, signed: bool },
    /// A pointer-sized unsigned value that dtrace(1) prints in hex (pointers).
    Pointer,
    /// A NUL-terminated string stored NUL-padded in `size` bytes.
    String { size: u32 },
    /// Raw bytes (structs, arrays): trace() prints them as a hex dump.
    Bytes { size: u32 },
    /// A stack: `frames` 8-byte addresses, innermost first, 0 after the last.
    /// `user: false` is a kernel stack (symbolized from kallsyms). A user stack
    /// (`user: true`, `ustack()`) is preceded by the 8-byte pid of the process
    /// whose addresses they are, in the same field.
    Stack { frames: u32, user: bool },
    /// `uaddr()`, `usym()`, `ufunc()`, `umod()` (`kind` says which): the
    /// 8-byte pid, then the 8-byte user address.
    UserSym { kind: StackKind },
    /// A traced `ustack()` with a copy of the stack for unwinding: a `Stack`
    /// of `frames` user frames (pid first), then [`USTACK_REGS`] words (the
    /// user ip, cs, flags, sp, bp; the address of the copy, the number of
    /// pages copied), then `pages` pages of stack memory from the page that
    /// holds sp upwards. With `depth`, the value is `ustackdepth`: the
    /// consumer unwinds the copy as for `ustack()` and the value is the
    /// number of frames that gives (at most `frames`).
    UserStack {
        frames: u32,
        pages: u32,
        depth: bool,
    },
}

/// What a stack or user-symbol value holds and how it prints.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum StackKind {
    /// `stack()`: kernel return addresses.
    Kernel,
    /// `ustack()`/`jstack()`: the pid, then user return addresses.
    User,
    /// `uaddr(a)`: the pid and `a`, printed `module`function+0xoff`.
    UAddr,
    /// `usym(a)`: printed `module`function`; aggregation keys merge by function.
    USym,
    /// `ufunc(a)`: as `usym`.
    UFunc,
    /// `umod(a)`: printed as the module; keys merge by module.
    UMod,
    /// `sym(a)`/`func(a)` held as a value (an aggregation key): a kernel
    /// address printed `module`function`; keys merge by function.
    KSym,
    /// `mod(a)` held as a value: a kernel address printed as its module.
    KMod,
}

/// Words of registers and copy description in a [`ValueType::UserStack`].
pub const USTACK_REGS: u32 = 7;

/// The page size of a [`ValueType::UserStack`] copy.
pub const USTACK_PAGE: u32 = 4096;

impl ValueType {
    pub fn size(&self) -> u32 {
        match self {
            ValueType::Int { size, .. } => *size as u32,
            ValueType::Pointer => 8,
            ValueType::String { size } | ValueType::Bytes { size } => *size,
            ValueType::Stack { frames, user } => frames * 8 + if *user { 8 } else { 0 },
            ValueType::UserSym { .. } => 16,
            ValueType::UserStack { frames, pages, .. } => {
                8 + frames * 8 + USTACK_REGS * 8 + pages * USTACK_PAGE
            }
        }
    }
}

/// One stored value: where it is and how to read it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Field {
    pub offset: u32,
    pub ty: ValueType,
}

/// What an action asks the consumer to do with its fields.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ActionKind {
    /// `trace(expr)`: one field.
    Trace,
    /// `printf(format, args...)`: one field per argument, in order.
    Printf { format: String },
    /// `exit(status)`: one field, the status (Int 4 signed).
    Exit,
    /// `printa([format,] @a, ...)`: no fields; print the named aggregations now.
    Printa {
        format: Option<String>,
        aggs: Vec<u32>,
    },
    /// `trunc`/`clear`/`normalize`/`denormalize` of aggregation `agg`: its argument
    /// (an 8-byte signed field) when the action has one. The consumer applies it to
    /// its view of the aggregation (and the kernel's data) when it reaches the record.
    AggControl { op: AggOp, agg: u32 },
    /// `print(expr)`: one `Bytes` field holding the value, printed with its type;
    /// for a pointer to a struct or union, the pointer (an 8-byte integer field)
    /// comes first and the `Bytes` are the object it points to.
    Print { ty: PrintType },
    /// `speculate(id)`: one u64 field, the speculation ID (bits 0-31) and its
    /// generation (bits 32-62, see [`spec_gen`]). A record in which it ran with a
    /// non-zero ID belongs to that speculation: the consumer holds it back until
    /// the commit or discard of that ID and generation.
    Speculate,
    /// `commit(id)` (`commit` true) or `discard(id)`: one u64 field, the ID (bits
    /// 0-31), and when this action moved the speculation from active to draining,
    /// its generation and [`SPEC_DRAINED`] (the consumer then prints or drops
    /// the held records, and frees the ID).
    CommitDiscard { commit: bool },
    /// `tracemem(addr, size [, dynsize])`: a `Bytes` field, then (with
    /// `dynsize`) an Int 8 field with the number of bytes to print.
    Tracemem,
    /// `system(format, args...)`: fields as printf's; the formatted string is
    /// run by the shell.
    System { format: String },
    /// `freopen(format, args...)`: fields as printf's; output goes to the file
    /// named by the formatted string ("" restores standard output).
    Freopen { format: String },
    /// `setopt(name [, value])`: one or two String fields.
    Setopt,
    /// `ftruncate()`: no fields; the output file is truncated.
    Ftruncate,
    /// `sym(addr)`/`func(addr)` (`module: false`) or `mod(addr)`: one
    /// Int 8 field, printed as the kernel symbol or module covering it.
    Symbol { module: bool },
}

/// Bit of a commit/discard field: this action started draining the speculation.
pub const SPEC_DRAINED: u64 = 1 << 63;

/// The generation in a speculate/commit/discard field.
pub fn spec_gen(field: u64) -> u32 {
    ((field >> 32) & 0x7fff_ffff) as u32
}

/// A type as `print()` shows it: enough structure to print a value member by member.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PrintType {
    /// An integer (also `char`, `_Bool`); `name` is the C spelling.
    Int {
        name: String,
        size: u8,
        signed: bool,
    },
    /// A pointer: printed as `NULL` or in hex.
    Pointer { name: String },
    /// An enum: printed by enumerator name when one matches.
    Enum {
        name: String,
        size: u8,
        values: Vec<(String, i64)>,
    },
    /// A C array of `len` elements `stride` bytes apart.
    Array {
        name: String,
        elem: Box<PrintType>,
        len: u32,
        stride: u32,
    },
    /// A struct or union.
    Struct {
        name: String,
        members: Vec<PrintMember>,
    },
    /// A D string of at most `size` bytes.
    String { size: u32 },
    /// Anything print() does not decode (floats, functions): shown as raw bytes.
    Opaque { name: String, size: u32 },
}

/// One member of a [`PrintType::Struct`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PrintMember {
    pub name: String,
    /// Offset from the start of the struct, in bits.
    pub bit_offset: u64,
    /// Bitfield width; 0 when the member is not a bitfield.
    pub bit_size: u32,
    pub ty: PrintType,
}

/// One action of a clause.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ActionDesc {
    pub kind: ActionKind,
    pub fields: Vec<Field>,
}

/// One enabled-probe description (DTrace's `dtrace_eprobedesc`): the records a
/// clause emits. EPIDs are dense from 1; one clause has one EPID.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EpidDesc {
    pub epid: u32,
    /// Index of the clause in program order.
    pub clause: u32,
    /// Total record size, header included, 8-byte aligned.
    pub size: u32,
    pub actions: Vec<ActionDesc>,
}

/// One aggregation (`@name`), its function and its key layout.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AggDesc {
    pub id: u32,
    /// Name without the `@` ("" for the anonymous `@`).
    pub name: String,
    pub func: AggFunc,
    /// Key fields, offsets relative to the start of the key.
    pub keys: Vec<Field>,
    /// Key size in bytes (8-aligned; at least 8 for unkeyed aggregations).
    pub key_size: u32,
}

/// A probe's four-part name, for `CPU ID FUNCTION:NAME` output.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct ProbeName {
    pub provider: String,
    pub module: String,
    pub function: String,
    pub name: String,
}

/// Everything the consumer needs to decode a session's output.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct ProgramDesc {
    /// By EPID.
    pub epids: BTreeMap<u32, EpidDesc>,
    /// By aggregation id.
    pub aggs: BTreeMap<u32, AggDesc>,
    /// The enabled probes by probe ID.
    pub probes: BTreeMap<u32, ProbeName>,
    /// The program uses destructive actions: it may only be enabled with `-w`.
    pub destructive: bool,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quantize_buckets() {
        assert_eq!(quantize_bucket_value(QUANTIZE_ZERO_BUCKET), 0);
        assert_eq!(quantize_bucket_value(64), 1);
        assert_eq!(quantize_bucket_value(65), 2);
        assert_eq!(quantize_bucket_value(62), -1);
        assert_eq!(quantize_bucket_value(126), 1 << 62);
        assert_eq!(quantize_bucket_value(0), -(1 << 62));
    }

    #[test]
    fn lquantize_sizes() {
        assert_eq!(lquantize_nbuckets(0, 100, 10), 12);
        assert_eq!(
            AggFunc::Lquantize {
                base: 0,
                limit: 100,
                step: 10
            }
            .value_size(),
            96
        );
    }
}
