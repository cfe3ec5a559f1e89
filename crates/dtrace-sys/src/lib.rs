//! dtrace-sys: the only crate that calls the kernel.
//!
//! Code map:
//! - [`sys`]: the choke point. Every `bpf(2)`, `perf_event_open(2)` and perf ioctl
//!   goes through the [`Sys`] trait; [`Kernel`] is the real one, tests fake it.
//! - [`map`]: BPF maps ([`MapFd`]), element ops, batch reads.
//! - [`prog`]: program load with the verifier log ([`ProgFd`]), test runs,
//!   raw-tracepoint links ([`Link`]).
//! - [`perf`]: perf events (cpu-clock, tracepoints) with a program attached ([`PerfEvent`]).
//! - [`ringbuf`]: the BPF ring-buffer reader ([`RingBuf`]).
//! - [`window`]: a window of an mmapable array map's elements
//!   ([`window::ArrayWindow`]), read and written with atomic word accesses.
//! - [`btf`]: the minimal function BTF that programs with callbacks need.
//! - [`cpu`]: possible/online CPU lists.
//! - [`tracefs`]: finding (or mounting) tracefs, tracepoint ids.
//! - [`kallsyms`]: kernel symbol addresses from `/proc/kallsyms`.
//! - [`features`]: probing what this kernel allows, once ([`Features`]).
//! - `fake` (tests, or the `fake` feature): `FakeSys`, an in-memory kernel for
//!   unit tests above the choke point.
//! - [`introspect`]: listing the programs loaded in the kernel (for leak tests).
//!
//! **Architecture invariant: every kernel object is an owned handle that releases
//! itself on drop (also while unwinding).** Maps, programs and links are fds; perf
//! events are disabled and closed. Nothing is pinned or left attached.

pub mod btf;
pub mod clock;
pub mod cpu;
#[cfg(any(test, feature = "fake"))]
pub mod fake;
pub mod features;
pub mod follow;
pub mod introspect;
pub mod kallsyms;
pub mod limits;
pub mod map;
pub mod perf;
pub mod proc;
pub mod prog;
pub mod ringbuf;
pub mod rtld;
pub mod sys;
pub mod tracefs;
pub mod uprobe;
pub mod window;

pub use features::{test_gate, Features, TestGate};
pub use map::{MapError, MapFd, MapSpec, MapType, UpdateFlags};
pub use perf::{PerfError, PerfEvent, ProbePoint};
pub use prog::{AttachType, Link, ProgError, ProgFd, ProgSpec, ProgType};
pub use ringbuf::{RingBuf, RingBufError};
pub use sys::{kernel, Errno, Kernel, Sys, SysRef};
pub use tracefs::{Tracefs, TracefsError};
