//! Raw opcode bits of the eBPF instruction set.
//!
//! Facts from the kernel's `Documentation/bpf/standardization/instruction-set.rst`
//! and `include/uapi/linux/bpf.h` / `bpf_common.h`. The 8-bit `code` of an
//! instruction is `class | size | mode` for loads and stores, and
//! `class | source | op` for arithmetic and jumps.

// ---- instruction classes (low 3 bits) ----
/// Non-standard load (only `ld_imm64` is used by eBPF).
pub const BPF_LD: u8 = 0x00;
/// Load into a register from memory.
pub const BPF_LDX: u8 = 0x01;
/// Store an immediate to memory.
pub const BPF_ST: u8 = 0x02;
/// Store a register to memory (also atomics).
pub const BPF_STX: u8 = 0x03;
/// 32-bit arithmetic.
pub const BPF_ALU: u8 = 0x04;
/// 64-bit jumps, calls and exit.
pub const BPF_JMP: u8 = 0x05;
/// 32-bit jumps.
pub const BPF_JMP32: u8 = 0x06;
/// 64-bit arithmetic.
pub const BPF_ALU64: u8 = 0x07;

/// Mask of the class bits.
pub const CLASS_MASK: u8 = 0x07;

// ---- size (bits 3-4, load/store classes) ----
pub const BPF_W: u8 = 0x00;
pub const BPF_H: u8 = 0x08;
pub const BPF_B: u8 = 0x10;
pub const BPF_DW: u8 = 0x18;
pub const SIZE_MASK: u8 = 0x18;

// ---- mode (bits 5-7, load/store classes) ----
pub const BPF_IMM: u8 = 0x00;
pub const BPF_ABS: u8 = 0x20;
pub const BPF_IND: u8 = 0x40;
pub const BPF_MEM: u8 = 0x60;
/// Sign-extending load (cpu v4).
pub const BPF_MEMSX: u8 = 0x80;
pub const BPF_ATOMIC: u8 = 0xc0;
pub const MODE_MASK: u8 = 0xe0;

// ---- source (bit 3, arithmetic and jump classes) ----
/// Use the 32-bit immediate as the source operand.
pub const BPF_K: u8 = 0x00;
/// Use the source register as the source operand.
pub const BPF_X: u8 = 0x08;
pub const SRC_MASK: u8 = 0x08;

// ---- arithmetic operations (bits 4-7) ----
pub const BPF_ADD: u8 = 0x00;
pub const BPF_SUB: u8 = 0x10;
pub const BPF_MUL: u8 = 0x20;
pub const BPF_DIV: u8 = 0x30;
pub const BPF_OR: u8 = 0x40;
pub const BPF_AND: u8 = 0x50;
pub const BPF_LSH: u8 = 0x60;
pub const BPF_RSH: u8 = 0x70;
pub const BPF_NEG: u8 = 0x80;
pub const BPF_MOD: u8 = 0x90;
pub const BPF_XOR: u8 = 0xa0;
pub const BPF_MOV: u8 = 0xb0;
pub const BPF_ARSH: u8 = 0xc0;
/// Byte swap. In class ALU the source bit selects `BPF_TO_LE`/`BPF_TO_BE`;
/// in class ALU64 it is an unconditional byte swap (cpu v4).
pub const BPF_END: u8 = 0xd0;
pub const OP_MASK: u8 = 0xf0;

/// `BPF_END` source bit: convert to little endian.
pub const BPF_TO_LE: u8 = 0x00;
/// `BPF_END` source bit: convert to big endian.
pub const BPF_TO_BE: u8 = 0x08;

// ---- jump operations (bits 4-7) ----
pub const BPF_JA: u8 = 0x00;
pub const BPF_JEQ: u8 = 0x10;
pub const BPF_JGT: u8 = 0x20;
pub const BPF_JGE: u8 = 0x30;
pub const BPF_JSET: u8 = 0x40;
pub const BPF_JNE: u8 = 0x50;
pub const BPF_JSGT: u8 = 0x60;
pub const BPF_JSGE: u8 = 0x70;
pub const BPF_CALL: u8 = 0x80;
pub const BPF_EXIT: u8 = 0x90;
pub const BPF_JLT: u8 = 0xa0;
pub const BPF_JLE: u8 = 0xb0;
pub const BPF_JSLT: u8 = 0xc0;
pub const BPF_JSLE: u8 = 0xd0;

// ---- atomic operations (in the immediate of a BPF_STX | BPF_ATOMIC insn) ----
pub const BPF_ATOMIC_ADD: i32 = 0x00;
pub const BPF_ATOMIC_OR: i32 = 0x40;
pub const BPF_ATOMIC_AND: i32 = 0x50;
pub const BPF_ATOMIC_XOR: i32 = 0xa0;
/// Modifier: also return the old value in the source register.
pub const BPF_FETCH: i32 = 0x01;
/// Exchange (always fetches).
pub const BPF_XCHG: i32 = 0xe0 | BPF_FETCH;
/// Compare-and-exchange with R0 (always fetches).
pub const BPF_CMPXCHG: i32 = 0xf0 | BPF_FETCH;

// ---- pseudo source registers of ld_imm64 ----
/// `imm` is a map file descriptor.
pub const BPF_PSEUDO_MAP_FD: u8 = 1;
/// `imm` is a map file descriptor, the second slot's `imm` an offset into its value.
pub const BPF_PSEUDO_MAP_VALUE: u8 = 2;
/// `imm` is a BTF id of a kernel variable.
pub const BPF_PSEUDO_BTF_ID: u8 = 3;
/// `imm` is the pc-relative offset of a subprogram (callback address).
pub const BPF_PSEUDO_FUNC: u8 = 4;
/// `imm` is an index into the `fd_array` passed at program load.
pub const BPF_PSEUDO_MAP_IDX: u8 = 5;
/// Like `BPF_PSEUDO_MAP_VALUE` with an `fd_array` index.
pub const BPF_PSEUDO_MAP_IDX_VALUE: u8 = 6;

// ---- pseudo source registers of call ----
/// `imm` is a pc-relative offset to a local subprogram (bpf-to-bpf call).
pub const BPF_PSEUDO_CALL: u8 = 1;
/// `imm` is the BTF id of a kernel function.
pub const BPF_PSEUDO_KFUNC_CALL: u8 = 2;

/// The class of an opcode.
pub fn class(code: u8) -> u8 {
    code & CLASS_MASK
}
