//! Recording actions: each writes its fields into the clause's reserved record.

mod data;
mod exit;
mod speculate;
