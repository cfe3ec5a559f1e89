//! `-x flamegraph=FILE` (`--flamegraph FILE`): at exit, the stack-keyed
//! aggregations as a flame graph SVG.
//!
//! The folded lines are the consumer's (`-x aggfmt=folded`'s format: root
//! first, `module`function` frames); the SVG is drawn by `inferno`, which is
//! CDDL-1.0 and therefore only built with the `flamegraph` cargo feature.
//! Without it, asking for a flame graph is an error at start.

use dtrace_consumer::printf::Env;
use dtrace_consumer::{folded, AggReport};

/// The folded lines of every aggregation in `reports` that folds.
pub fn folded_lines(reports: &[AggReport], env: &Env) -> Vec<u8> {
    let mut out = Vec::new();
    for r in reports {
        for (i, agg) in r.aggs.iter().enumerate() {
            if folded::folds(agg) {
                let normal = r.normals.get(i).copied().unwrap_or(1);
                folded::print_folded(&r.rows, i, normal, env, &mut out);
            }
        }
    }
    out
}

/// Whether this build can draw flame graphs.
pub const AVAILABLE: bool = cfg!(feature = "flamegraph");

/// Draw `folded` as an SVG into `path`.
#[cfg(feature = "flamegraph")]
pub fn write_svg(path: &str, folded: &[u8], title: &str) -> Result<(), String> {
    let text = String::from_utf8_lossy(folded);
    let lines: Vec<&str> = text.lines().collect();
    if lines.is_empty() {
        // inferno refuses empty input: say so in an SVG of our own.
        let svg = format!(
            "<?xml version=\"1.0\" standalone=\"no\"?>\n\
             <svg version=\"1.1\" width=\"600\" height=\"60\" xmlns=\"http://www.w3.org/2000/svg\">\
             <text x=\"300\" y=\"24\" text-anchor=\"middle\">{title}</text>\
             <text x=\"300\" y=\"48\" text-anchor=\"middle\">no stacks were recorded</text></svg>\n"
        );
        return std::fs::write(path, svg).map_err(|e| format!("cannot write {path}: {e}"));
    }
    let mut opts = inferno::flamegraph::Options::default();
    opts.title = title.to_string();
    let file = std::fs::File::create(path).map_err(|e| format!("cannot create {path}: {e}"))?;
    inferno::flamegraph::from_lines(
        &mut opts,
        lines.iter().copied(),
        std::io::BufWriter::new(file),
    )
    .map_err(|e| format!("cannot draw {path}: {e}"))
}

/// Without the `flamegraph` feature there is nothing to draw with.
#[cfg(not(feature = "flamegraph"))]
pub fn write_svg(_path: &str, _folded: &[u8], _title: &str) -> Result<(), String> {
    Err("-x flamegraph needs a dtrace built with the flamegraph feature".into())
}
