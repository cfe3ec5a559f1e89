//! A tracing session: create the maps, load the programs (keeping the verifier's
//! log), run BEGIN in our own context, attach, poll the ring buffer, read drop
//! counters and aggregations, detach, run END.
//!
//! Architecture invariant: a [`Session`] owns every kernel object it made; dropping
//! it (on success, error or unwinding) detaches all probes and frees all maps.

mod aggs;
mod error;
mod load;
mod session;
mod uprobes;

pub use error::RuntimeError;
pub use session::{AggEntries, Drops, LoadOptions, Session};
pub use uprobes::UprobeHandles;
