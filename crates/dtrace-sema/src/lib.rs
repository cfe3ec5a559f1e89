//! Semantic analysis: scopes, declarations, typing, and the rules for actions,
//! subroutines and aggregations. Produces the typed program codegen consumes.
//!
//! Architecture invariant (as naga's validator): once sema accepts a program,
//! code generation cannot fail on user input.

mod actions;
mod check;
mod expr;
pub mod ir;
pub mod options;
mod printf;
pub mod probe;
pub mod types;
mod vars;

pub use check::check;
pub use ir::*;
pub use options::{CompileOptions, KernelOffsets};
pub use probe::{ProbeInfo, ProbeKind};
