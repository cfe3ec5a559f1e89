//! Semantic analysis: scopes, declarations, typing, and the rules for actions,
//! subroutines and aggregations. Produces the typed program codegen consumes.
//!
//! Architecture invariant (as naga's validator): once sema accepts a program,
//! code generation cannot fail on user input.
//!
//! Code map: `check` (clauses, statements), `expr` (operators, C conversions,
//! identifiers), `vars` (variables, associative arrays, implicit declarations),
//! `elem` (places inside D variables as lvalues: scalar-array elements and
//! struct/union members of globals, `this->`, `self->` and associative-array
//! elements),
//! `aggctl` (trunc, clear, normalize, denormalize),
//! `proto` (the prototypes of DTrace's functions, checked first), `ctype` (written types -> C types, D scope then kernel BTF), `decl` (struct,
//! union, enum, typedef, variable and inline declarations), `ptr` (pointers,
//! members, kernel memory, `curthread`, `args[]`, kernel symbols, strings from
//! `char` arrays/pointers), `actions`, `actions_ctl` (stack, tracemem, setopt,
//! system, freopen, raise, ...) and `printf` (action rules), `format` (the one
//! printf grammar, shared with the consumer), `symbols`
//! (kernel symbol addresses, injected by the caller), `xlate` (translator
//! declarations and the `xlate` operator), `intrinsic` (`__dt_*` subroutines only
//! the D libraries may call), `speculation` (speculation subroutine and actions,
//! and their placement rules), `strfn` (the string subroutines' prototypes),
//! `memsubr` (`alloca`, `bcopy`, `copyin*`, `copyout*` and alloca-pointer
//! tracking), `uregs` (`uregs[]` and its register numbering), `visit` (walking the typed program; the variables a clause uses).

mod actions;
mod actions_ctl;
mod aggctl;
mod cast;
/// The aggregating functions and their bucket arithmetic (`dtrace-desc`'s).
pub use dtrace_desc::aggfunc;
mod check;
mod ctype;
mod decl;
mod dpath;
mod elem;
mod expr;
/// The one printf grammar (`dtrace-desc`'s).
pub use dtrace_desc::format;
mod intrinsic;
pub mod ir;
mod loops;
mod memsubr;
pub mod name;
pub mod options;
mod pinline;
mod print;
mod printf;
pub mod probe;
mod proto;
mod ptr;
mod speculation;
mod strfn;
mod subr;
pub mod symbols;
pub mod types;
mod uregs;
mod vars;
pub mod visit;
mod xlate;

pub use actions_ctl::{
    DEFAULT_JSTACK_FRAMES, DEFAULT_MAX_FRAMES, DEFAULT_STACK_FRAMES, DEFAULT_USTACK_BYTES,
    DEFAULT_USTACK_FRAMES, MAX_STACK_FRAMES,
};
pub use check::{check, check_with};
pub use ir::*;
pub use name::Name;
pub use options::{CompileOptions, KernelOffsets};
pub use probe::{
    ArgDesc, Cmp, FieldKind, Prep, ProbeInfo, ProbeKind, RecordField, Src, Test, LOCK_SLEPT,
};
pub use proto::is_d_identifier;
pub use symbols::{KernelSymbols, NoSymbols};
