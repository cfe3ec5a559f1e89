//! Fleet export: aggregations as metrics.
//!
//! - [`metrics`]: the model ([`Family`], [`Series`], [`Point`]) that aggregation
//!   snapshots are mapped into, with metric-name and label rules.
//! - [`openmetrics`]: the OpenMetrics 1.0 text exposition of a set of families.
//! - [`server`]: a small loopback-friendly HTTP listener serving the latest
//!   exposition at `/metrics` while tracing runs.
//!
//! The text format is written here rather than through `prometheus-client`:
//! DTrace's distributions arrive pre-bucketed and the whole exposition is rebuilt
//! from one snapshot per refresh, so the crate's registry and metric types would
//! only be an extra copy, and the format is small. No dependencies.
//!
//! Invariant: nothing here knows D. The facade maps aggregation rows to
//! [`Family`] values; this crate only encodes and serves them.

pub mod metrics;
pub mod openmetrics;
#[cfg(feature = "otlp")]
pub mod otlp;
pub mod server;

pub use metrics::{Bound, Family, Kind, Point, Series};
pub use server::{Exporter, ExporterError};
