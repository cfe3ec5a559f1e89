//! dtrace-consumer: decodes the records and aggregations that compiled D programs
//! produce, through the descriptions in `dtrace_desc`, and prints exactly
//! what dtrace(1) prints.
//!
//! Architecture invariant: this crate is pure. It makes no kernel calls; records
//! arrive as byte slices and aggregation data through the [`AggSource`] trait, so
//! every output format is tested from synthetic records.
//!
//! Code map (names follow libdtrace's files):
//! - [`value`]: bytes + field description -> [`Value`], bounds-checked;
//! - [`printf`]: the D printf engine (the grammar is the compiler's); [`walltime`]:
//!   `%Y` and time zones; [`symbols`]: kernel symbols and stacks; [`ustack`]:
//!   user stacks and symbols (through `dtrace_usym`);
//! - [`effects`]: `system()`, `freopen()`, `ftruncate()`;
//! - [`consume`]: the per-record driver ([`Consumer`]): records -> [`Event`]s,
//!   speculations, `setopt()`, aggregation control, drops;
//! - [`event`]: the events and the [`Output`] trait every output format implements;
//! - [`text`]: dtrace(1)'s text output ([`TextOutput`]); [`json`]: FreeBSD's
//!   structured output ([`JsonOutput`], `-O json`, `-x oformat=ndjson`);
//! - [`aggregate`]: per-CPU merging, sorting and printing of aggregations;
//! - [`folded`]: `-x aggfmt=folded`, stack-keyed aggregations as folded stacks;
//! - [`quantize`]: the ASCII distributions; [`packed`]: their `aggpack` layout;
//! - [`speculation`]: speculative records held until their commit or discard;
//! - [`principal`]: DTrace's record sizes and the `ring`/`fill` principal buffers;
//! - [`options`]: consumer options settable with `-x name=value`.

pub mod aggregate;
mod aggsort;
pub mod consume;
pub mod effects;
pub mod event;
pub mod flow;
pub mod folded;
pub mod json;
pub mod options;
pub mod packed;
pub mod principal;
pub mod print;
pub mod printf;
pub mod quantize;
mod rows;
pub mod speculation;
pub mod symbols;
pub mod text;
pub mod ustack;
pub mod value;
pub mod walltime;

pub use aggregate::{AggSource, AggValue, Snapshot};
pub use aggregate::{Row, RowIter, Rows};
pub use consume::{ConsumeError, Consumer, Control};
pub use dtrace_desc::{AggEntries, AggEntry};
pub use event::{
    AggReport, Context, DropEvent, DropKind, Event, FaultEvent, Output, ProbeEvent, SetoptError,
};
pub use json::{JsonFormat, JsonOutput};
pub use options::ConsumerOptions;
pub use printf::{Apply, Format};
pub use symbols::{KernelSymbols, Symbol};
pub use text::TextOutput;
pub use value::Value;
