//! The record, aggregation and print descriptions codegen fills in: the
//! description crate's (`dtrace-desc`), shared with the consumer.

pub use dtrace_desc::*;
