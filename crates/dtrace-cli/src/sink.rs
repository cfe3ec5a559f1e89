//! Where the session's events go: dtrace(1)'s text, or structured output
//! (`-O json`, `-x oformat=json|ndjson`), both over the `-o` file or stdout.
//! The CLI's own lines (probe reports, the newline an interrupt ends a line
//! with) are text-only: structured output stays one valid document.

use crate::output::Output;
use dtrace::{ConsumeError, Context, Event, JsonFormat, JsonOutput, OutputFormat, TextOutput};
use std::io::{self, Stderr};

/// The output format in use.
pub enum Sink {
    /// dtrace(1)'s text.
    Text(TextOutput<Output, Stderr>),
    /// JSON or NDJSON.
    Json(JsonOutput<Output, Stderr>),
}

impl Sink {
    /// `format` over `out`, messages on stderr.
    pub fn new(format: OutputFormat, out: Output) -> Sink {
        match format {
            OutputFormat::Text => Sink::Text(TextOutput::new(out, io::stderr())),
            OutputFormat::Json => {
                Sink::Json(JsonOutput::new(out, io::stderr(), JsonFormat::Document))
            }
            OutputFormat::PrettyJson => Sink::Json(JsonOutput::new(
                out,
                io::stderr(),
                JsonFormat::PrettyDocument,
            )),
            OutputFormat::Ndjson => {
                Sink::Json(JsonOutput::new(out, io::stderr(), JsonFormat::Ndjson))
            }
        }
    }

    /// The stream under the output.
    pub fn out(&mut self) -> &mut Output {
        match self {
            Sink::Text(t) => t.out_mut(),
            Sink::Json(j) => j.out_mut(),
        }
    }

    /// The stream for the CLI's own text lines: None with structured output.
    pub fn text(&mut self) -> Option<&mut Output> {
        match self {
            Sink::Text(t) => Some(t.out_mut()),
            Sink::Json(_) => None,
        }
    }

    /// Ends a structured document (a no-op for text); called on every way
    /// out once tracing started, so the document stays valid.
    pub fn close(&mut self) {
        if let Sink::Json(j) = self {
            let _ = j.close();
        }
    }
}

impl dtrace::Output for Sink {
    fn event(&mut self, cx: &Context<'_>, ev: &Event) -> Result<(), ConsumeError> {
        match self {
            Sink::Text(t) => t.event(cx, ev),
            Sink::Json(j) => j.event(cx, ev),
        }
    }

    fn flush(&mut self) -> Result<(), ConsumeError> {
        match self {
            Sink::Text(t) => t.flush(),
            Sink::Json(j) => j.flush(),
        }
    }
}
