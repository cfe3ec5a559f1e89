//! Events: what the consumer decodes records into, before any output format.
//!
//! The [`crate::Consumer`] turns each ring-buffer record into a run of events,
//! in libdtrace's order (its `dtrace_consume_probe_f` then one
//! `dtrace_consume_rec_f` per record): a [`Event::Probe`] that opens the
//! firing, one event per action that ran, and an [`Event::ProbeEnd`]. Faults,
//! drops and the aggregations printed at exit are events of their own. An
//! [`Output`] turns events into bytes: [`crate::text::TextOutput`] is
//! dtrace(1)'s text, [`crate::json::JsonOutput`] FreeBSD's structured output;
//! a library user's handler is another.
//!
//! Architecture invariant: events are owned values that say what happened;
//! they carry no formatting choices except printf's, whose formatted text is
//! part of the action (with its raw arguments beside it).

use crate::aggregate::Rows;
use crate::options::ConsumerOptions;
use crate::printf::{Env, Format};
use crate::value::Value;
use crate::ConsumeError;
use dtrace_desc::{AggDesc, FaultKind, PrintType, ProbeName, ProgramDesc};
use std::sync::Arc;

/// A probe firing: the header of one record.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ProbeEvent {
    /// The enabled probe ID (one per clause).
    pub epid: u32,
    /// The clause's index in program order.
    pub clause: u32,
    /// The CPU the probe fired on.
    pub cpu: u32,
    /// The probe ID.
    pub id: u32,
    /// The probe's four-part name (shared by the firings of one probe).
    pub probe: Arc<ProbeName>,
    /// The record holds only `commit()`/`discard()` results: dtrace(1) prints
    /// no probe line for it.
    pub commit_discard_only: bool,
}

/// Aggregations as `printa()` or the exit-time output shows them: the rows of
/// one or more aggregations joined by key and sorted as the `aggsort*` options
/// say.
#[derive(Debug, Clone)]
pub struct AggReport {
    /// The aggregations, in the order their values appear in each row.
    pub aggs: Vec<AggDesc>,
    /// The `normalize()` factor of each aggregation (1 when none).
    pub normals: Vec<u64>,
    /// The rows, sorted.
    pub rows: Rows,
    /// `printa()`'s format string, parsed (None: the default layout).
    pub format: Option<Format>,
}

/// A fault in a clause (libdtrace's `dtrace_errdata_t`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FaultEvent {
    /// The CPU the fault happened on.
    pub cpu: u32,
    /// The faulting probe.
    pub probe_id: u32,
    /// Its name (empty parts when unknown).
    pub probe: ProbeName,
    /// The enabled probe ID of the faulting clause.
    pub epid: u32,
    /// The action (0-based) that faulted.
    pub action: u32,
    /// The fault (`DTRACEFLT_*`).
    pub kind: FaultKind,
    /// The address (or size) involved.
    pub addr: u64,
    /// The BPF instruction offset of the fault.
    pub pc: u32,
}

/// The kinds of drops (libdtrace's `dtrace_dropkind_t`, in its order and
/// numbering).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum DropKind {
    /// The principal buffer was full.
    Principal = 0,
    /// The aggregation buffer (map) was full.
    Aggregation = 1,
    /// Dynamic variable space ran out.
    Dynamic = 2,
    /// ... while the rinsing list was not empty.
    DynRinse = 3,
    /// ... while the dirty list was not empty.
    DynDirty = 4,
    /// A speculative buffer was full.
    Spec = 5,
    /// `speculation()` failed: buffers busy.
    SpecBusy = 6,
    /// `speculation()` failed: no buffer available.
    SpecUnavail = 7,
    /// A stack or string overflowed its space.
    StackStrOverflow = 8,
    /// An error in an ERROR clause.
    DblError = 9,
}

impl DropKind {
    /// The `DTRACEDROP_*` tag that `-x droptags` shows.
    pub fn tag(self) -> &'static str {
        match self {
            DropKind::Principal => "DTRACEDROP_PRINCIPAL",
            DropKind::Aggregation => "DTRACEDROP_AGGREGATION",
            DropKind::Dynamic => "DTRACEDROP_DYNAMIC",
            DropKind::DynRinse => "DTRACEDROP_DYNRINSE",
            DropKind::DynDirty => "DTRACEDROP_DYNDIRTY",
            DropKind::Spec => "DTRACEDROP_SPEC",
            DropKind::SpecBusy => "DTRACEDROP_SPECBUSY",
            DropKind::SpecUnavail => "DTRACEDROP_SPECUNAVAIL",
            DropKind::StackStrOverflow => "DTRACEDROP_STKSTROVERFLOW",
            DropKind::DblError => "DTRACEDROP_DBLERROR",
        }
    }

    /// Whether dtrace(1) reports this kind per CPU (the others are summed
    /// over all CPUs).
    pub fn per_cpu(self) -> bool {
        matches!(
            self,
            DropKind::Principal
                | DropKind::Aggregation
                | DropKind::Dynamic
                | DropKind::DynRinse
                | DropKind::DynDirty
        )
    }
}

/// Drops of one kind (libdtrace's `dtrace_dropdata_t`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DropEvent {
    /// The CPU, for the kinds counted per CPU.
    pub cpu: Option<u32>,
    /// What was dropped.
    pub kind: DropKind,
    /// Drops since the last report.
    pub count: u64,
    /// Drops of this kind (on this CPU) since tracing started.
    pub total: u64,
}

/// A `setopt()` that tracing refused.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SetoptError {
    /// The probe whose clause called `setopt()`.
    pub probe_id: u32,
    /// Its name.
    pub probe: ProbeName,
    /// The clause's index in program order.
    pub clause: u32,
    /// The option's name.
    pub name: String,
    /// The value asked for (None: set a boolean).
    pub value: Option<String>,
    /// Why, in dtrace's words ("Invalid option name", ...).
    pub why: String,
}

/// One decoded thing that happened while tracing.
#[derive(Debug, Clone)]
pub enum Event {
    /// A probe fired: the actions of its record follow, then [`Event::ProbeEnd`].
    Probe(ProbeEvent),
    /// `trace()`: one value.
    Trace(Value),
    /// `printf()`: the formatted text and the raw arguments.
    Printf {
        /// The text as printf formats it.
        text: Vec<u8>,
        /// The arguments as traced.
        args: Vec<Value>,
    },
    /// `tracemem()`: the bytes to show.
    Tracemem(Vec<u8>),
    /// `sym()`/`func()` (`module` false) or `mod()`: an address and its name.
    Symbol {
        /// The traced address.
        addr: u64,
        /// `mod()` rather than `sym()`.
        module: bool,
        /// The symbol or module covering it (hex when unknown).
        text: String,
    },
    /// `print()`: a value and its type.
    Print {
        /// The value's type.
        ty: PrintType,
        /// The value's bytes (at most `printsize` of them).
        bytes: Vec<u8>,
        /// The pointer `print()` was given: `bytes` are the object it points to.
        addr: Option<u64>,
    },
    /// `printa()`: aggregations printed now.
    Printa(AggReport),
    /// `system()`: the command to run (after the output so far is written).
    System(Vec<u8>),
    /// `freopen()`: output goes to this file from now on ("" restores it).
    Freopen(Vec<u8>),
    /// `ftruncate()`: empty the output file.
    Ftruncate,
    /// `exit(status)` ran.
    Exit(i32),
    /// `setopt()` was refused.
    Setopt(SetoptError),
    /// The end of the record opened by [`Event::Probe`].
    ProbeEnd,
    /// An aggregation not printed by `printa()`, printed when tracing ends.
    Aggregation(AggReport),
    /// A clause faulted.
    Fault(FaultEvent),
    /// Data was dropped.
    Drop(DropEvent),
}

/// What an [`Output`] may consult besides the event: the program's
/// descriptions, the current options (`setopt()` changes them) and the
/// environment for symbols and time zones.
pub struct Context<'a> {
    /// The program's record and aggregation descriptions.
    pub desc: &'a ProgramDesc,
    /// The consumer options in force.
    pub opts: &'a ConsumerOptions,
    /// Kernel symbols, stack indent and time zone.
    pub env: &'a Env,
}

/// An output format: receives every event in order.
pub trait Output {
    /// Handles one event.
    fn event(&mut self, cx: &Context<'_>, ev: &Event) -> Result<(), ConsumeError>;

    /// Writes out whatever is buffered (called between consume steps).
    fn flush(&mut self) -> Result<(), ConsumeError> {
        Ok(())
    }
}

impl<O: Output + ?Sized> Output for &mut O {
    fn event(&mut self, cx: &Context<'_>, ev: &Event) -> Result<(), ConsumeError> {
        (**self).event(cx, ev)
    }

    fn flush(&mut self) -> Result<(), ConsumeError> {
        (**self).flush()
    }
}
