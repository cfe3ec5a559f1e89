//! Semantic analysis: scopes, declarations, typing, and the rules for actions,
//! subroutines and aggregations. Produces the typed program codegen consumes.
//!
//! Architecture invariant (as naga's validator): once sema accepts a program,
//! code generation cannot fail on user input.

pub mod probe;

pub use probe::{ProbeInfo, ProbeKind};
