//! C types for D: the type table with D's built-ins, user declarations, and kernel
//! types imported from BTF (`/sys/kernel/btf/vmlinux`, modules lazily).

pub mod table;

pub use table::{Enumerator, Member, Module, Qualifier, TypeId, TypeKind, TypeTable};
