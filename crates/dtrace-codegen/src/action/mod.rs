//! Recording actions: each writes its fields into the clause's reserved record.

pub(crate) mod control;
mod data;
mod exit;
mod speculate;
pub(crate) mod stack;
