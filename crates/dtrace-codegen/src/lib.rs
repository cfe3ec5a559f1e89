//! Code generation: typed D program -> BPF clause objects, record layouts,
//! map specifications and per-provider trampolines, linked into loadable programs.

pub mod desc;
