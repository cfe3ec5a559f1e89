//! The eBPF instruction set: instructions, named constructors, encoding and the
//! disassembler behind `dtrace -S`. No kernel calls and no knowledge of D.
//!
//! Architecture invariant: this crate is pure. It builds and inspects instruction
//! slots; loading them is `dtrace-sys`'s job.

pub mod disasm;
pub mod helper;
pub mod insn;
pub mod opcode;

pub use disasm::{disassemble, disassemble_with, line_index, mnemonic, MapRef};
pub use insn::{
    decode_all, encode_all, subprog_starts, uses_callbacks, AluOp, AtomicOp, Insn, JmpOp, Reg, Size,
};
