//! C types for D: the type table with D's built-ins, user declarations, and kernel
//! types imported from BTF (`/sys/kernel/btf/vmlinux`, modules lazily).
//!
//! Code map:
//! - [`table`]: the [`TypeTable`] core (kinds, names, sizes, module scopes).
//! - [`btf`]: our BTF reader — validated, compact, indexed by name; no conversion.
//! - [`source`]: [`TypeSource`], where the table looks on a miss, and the table's
//!   scoped lookups ([`TypeTable::lookup_scoped`]) that ask its sources in order.
//! - [`files`]: [`KernelBtfFiles`], the kernel's BTF files read once and shared
//!   by the table's kernel source and the providers (prototypes as C type names).
//! - [`kernel`]: [`KernelBtf`], the kernel's source (vmlinux read lazily, module
//!   split BTF as needed) and its on-demand importer.
//! - [`layout`]: layout of D-declared structs/unions (DTrace's: libctf's rules).
//! - [`query`]: member lookup through anonymous members, alignment, bitfield loads,
//!   [`offset_of_path`].

pub mod btf;
pub mod files;
pub mod kernel;
pub mod layout;
pub mod query;
pub mod source;
pub mod table;

pub use btf::{Btf, BtfError};
pub use files::KernelBtfFiles;
pub use kernel::{KernelBtf, KernelVar};
pub use layout::{
    bitfield_bytes, layout_struct, layout_struct_strsize, layout_union, layout_union_strsize,
    Layout, LayoutError,
};
pub use query::{offset_of_path, BitField, PathError};
pub use source::TypeSource;
pub use table::{DataModel, Enumerator, Member, Module, Qualifier, TypeId, TypeKind, TypeTable};
