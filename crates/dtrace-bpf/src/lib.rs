//! The eBPF instruction set: instructions, named constructors, encoding and the
//! disassembler behind `dtrace -S`. No kernel calls and no knowledge of D.

pub mod insn;

pub use insn::{encode_all, Insn, Reg};
