//! A running session: the runtime's kernel objects plus the consumer.

use crate::{ExecError, Options, WorkStatus};
use dtrace_codegen::CompiledProgram;
use dtrace_consumer::{
    agg_drops_message, drops_message, droptag, dynvar_drops_message, spec_drops_message,
    spec_failed_message, with_droptag, AggSource, Consumer, ConsumerOptions, Control, DynDropKind,
};
use dtrace_runtime::RuntimeError;
use dtrace_sys::{Features, SysRef};
use std::io::Write;
use std::os::fd::{BorrowedFd, RawFd};
use std::time::Duration;

fn exec_error(e: RuntimeError) -> ExecError {
    let detail = match &e {
        RuntimeError::Load { log, .. } => log.clone(),
        _ => None,
    };
    ExecError {
        message: format!("dtrace: {e}"),
        detail,
    }
}

/// Reads aggregations from the kernel for the consumer.
struct Aggs<'a>(&'a dtrace_runtime::Session);

impl AggSource for Aggs<'_> {
    fn snapshot(&mut self, agg_id: u32) -> Vec<(Vec<u8>, Vec<Vec<u8>>)> {
        self.0.agg_snapshot(agg_id).unwrap_or_default()
    }

    fn clear(&mut self, agg_id: u32) {
        // A failure here leaves old values visible; the snapshot that follows
        // reports the map's state as it is.
        let _ = self.0.agg_clear(agg_id);
    }

    fn remove(&mut self, agg_id: u32, key: &[u8]) {
        let _ = self.0.agg_remove(agg_id, key);
    }
}

/// A running tracing session. Dropping it detaches every probe.
pub struct Session {
    rt: dtrace_runtime::Session,
    consumer: Consumer,
    exit_status: Option<i32>,
    stopped: bool,
    /// `-x droptags`: drop reports carry their `DTRACEDROP_*` tag.
    droptags: bool,
    /// `-x prometheus` / `-x otlp`: aggregations exported while tracing runs.
    export_options: Options,
    export: Option<crate::metrics::Exporters>,
}

impl Session {
    pub(crate) fn new(
        sys: &SysRef,
        features: &Features,
        compiled: CompiledProgram,
        options: &Options,
        uprobe_sites: std::collections::BTreeMap<
            u32,
            Vec<(dtrace_providers::procmap::UprobeSite, u16)>,
        >,
    ) -> Result<Session, ExecError> {
        let load = dtrace_runtime::LoadOptions {
            bpflog: options
                .bpflog
                .then(|| options.bpflogsize.unwrap_or(1 << 20) as usize),
            uprobe_sites,
        };
        let rt =
            dtrace_runtime::Session::load(sys, features, &compiled, &load).map_err(exec_error)?;
        let copts = ConsumerOptions {
            quiet: options.quiet,
            aggsortkey: options.aggsortkey,
            aggsortrev: options.aggsortrev,
            aggsortpos: options.aggsortpos.unwrap_or(0),
            aggsortkeypos: options.aggsortkeypos.unwrap_or(0),
            rawbytes: options.rawbytes,
            strsize: options.strsize.min(1 << 16) as u32,
            aggpack: options.aggpack,
            aggzoom: options.aggzoom,
            aggpercpu: options.aggpercpu,
            // libdtrace packs with UTF-8 blocks unless the terminal is one it
            // knows to be ASCII-only.
            utf8: !matches!(
                std::env::var("TERM").as_deref(),
                Ok("sun") | Ok("sun-color") | Ok("dumb")
            ),
            testing: options.testing,
            stackindent: Some(options.stackindent.min(u32::MAX as u64) as u32),
        };
        let needs_symbols = uses_symbols(&compiled.desc);
        let mut consumer = Consumer::new(compiled.desc, copts);
        if needs_symbols {
            consumer.set_symbols(kernel_symbols());
        }
        consumer.set_option_handler(setopt_handler(options.clone()));
        Ok(Session {
            rt,
            consumer,
            exit_status: None,
            stopped: false,
            droptags: options.droptags,
            export_options: options.clone(),
            export: None,
        })
    }

    /// The verifier's log of each loaded program (name, log), kept when the
    /// `bpflog` option is set.
    pub fn verifier_logs(&self) -> &[(String, String)] {
        self.rt.verifier_logs()
    }

    /// Also wake `work` when `fd` becomes readable (e.g. the CLI's signalfd).
    pub fn add_wake_fd(&mut self, fd: RawFd) -> Result<(), ExecError> {
        // SAFETY: the caller promises `fd` is open for the session's life (the CLI
        // keeps its signalfd until after the session is dropped).
        let fd = unsafe { BorrowedFd::borrow_raw(fd) };
        self.rt.add_wake_fd(fd).map_err(exec_error)
    }

    /// Consume every buffered record, then report new drops.
    fn drain(&mut self, out: &mut dyn Write, err: &mut dyn Write) -> Result<(), ExecError> {
        let mut records: Vec<Vec<u8>> = Vec::new();
        self.rt
            .poll(|r| records.push(r.to_vec()))
            .map_err(exec_error)?;
        for r in &records {
            let mut aggs = Aggs(&self.rt);
            match self.consumer.record(r, out, err, &mut aggs) {
                // Every exit() record sets the status dtrace(1) exits with, so an
                // exit() in END overrides the one that stopped tracing ("exit":
                // the consumer should "call exit(3C) with the status value
                // specified", Solaris Dynamic Tracing Guide, "Actions and
                // Subroutines").
                Ok(Control::Exit(status)) => self.exit_status = Some(status),
                Ok(Control::Continue) => {}
                Err(e) => {
                    return Err(ExecError {
                        message: format!("dtrace: failed to process a trace record: {e}"),
                        detail: None,
                    })
                }
            }
            for id in self.consumer.take_freed_speculations() {
                self.rt.free_speculation(id).map_err(exec_error)?;
            }
        }
        let _ = out.flush();
        // Oracle DTrace 2.x reports each fault once, with no per-CPU count after.
        let _ = self.consumer.take_errors();
        let drops = self.rt.drops().map_err(exec_error)?;
        // Speculation drops are reported for all CPUs together.
        let (mut spec, mut busy, mut unavail) = (0u64, 0u64, 0u64);
        for d in &drops {
            spec += d.spec;
            busy += d.spec_busy;
            unavail += d.spec_unavail;
        }
        for d in drops {
            let mut lines = Vec::new();
            if d.ringbuf > 0 {
                lines.push((drops_message(d.cpu, d.ringbuf), droptag::PRINCIPAL));
            }
            if d.agg > 0 {
                lines.push((agg_drops_message(d.cpu, d.agg), droptag::AGGREGATION));
            }
            if d.dynvar > 0 {
                let m = dynvar_drops_message(d.dynvar, DynDropKind::Plain);
                lines.push((m, droptag::DYNAMIC));
            }
            for (line, tag) in lines {
                let _ = writeln!(err, "{}", with_droptag(&line, tag, self.droptags));
            }
        }
        let spec_lines = [
            (spec, spec_drops_message(spec), droptag::SPEC),
            (busy, spec_failed_message(busy, true), droptag::SPECBUSY),
            (
                unavail,
                spec_failed_message(unavail, false),
                droptag::SPECUNAVAIL,
            ),
        ];
        for (n, line, tag) in spec_lines {
            if n > 0 {
                let _ = writeln!(err, "{}", with_droptag(&line, tag, self.droptags));
            }
        }
        Ok(())
    }

    /// Refresh the exported metrics (when a tick is due, or now with `force`).
    fn export_tick(&mut self, force: bool, err: &mut dyn Write) {
        if let Some(ex) = &mut self.export {
            ex.tick(self.consumer.desc(), &mut Aggs(&self.rt), force, err);
        }
    }

    fn status(&self) -> WorkStatus {
        if self.exit_status.is_some() {
            WorkStatus::Done
        } else {
            WorkStatus::Okay
        }
    }

    /// Fire BEGIN (in this process's context), consume its output, then attach all
    /// other probes. Returns `Done` if BEGIN called exit().
    pub fn go(
        &mut self,
        out: &mut dyn Write,
        err: &mut dyn Write,
    ) -> Result<WorkStatus, ExecError> {
        self.export =
            crate::metrics::Exporters::start(&self.export_options, self.consumer.desc(), err)
                .map_err(|message| ExecError {
                    message,
                    detail: None,
                })?;
        self.rt.begin().map_err(exec_error)?;
        self.drain(out, err)?;
        if self.exit_status.is_none() {
            self.rt.attach().map_err(exec_error)?;
        }
        Ok(self.status())
    }

    /// Wait up to `timeout` (the CLI passes 1/switchrate) for records or a wake fd,
    /// then consume what is buffered and report drops.
    pub fn work(
        &mut self,
        timeout: Duration,
        out: &mut dyn Write,
        err: &mut dyn Write,
    ) -> Result<WorkStatus, ExecError> {
        self.rt.wait(timeout).map_err(exec_error)?;
        self.drain(out, err)?;
        self.export_tick(false, err);
        Ok(self.status())
    }

    /// Stop tracing: detach every probe, fire END, drain the buffers.
    pub fn stop(&mut self, out: &mut dyn Write, err: &mut dyn Write) -> Result<(), ExecError> {
        if self.stopped {
            return Ok(());
        }
        self.stopped = true;
        self.rt.detach();
        self.drain(out, err)?;
        self.rt.end().map_err(exec_error)?;
        self.drain(out, err)
    }

    /// Print the aggregations not yet printed (dtrace(1)'s end-of-run output) and
    /// return the status passed to exit() (0 if none).
    pub fn finish(mut self, out: &mut dyn Write, err: &mut dyn Write) -> Result<i32, ExecError> {
        self.stop(out, err)?;
        self.export_tick(true, err);
        let mut aggs = Aggs(&self.rt);
        self.consumer
            .finish(out, &mut aggs)
            .map_err(|e| ExecError {
                message: format!("dtrace: failed to print aggregations: {e}"),
                detail: None,
            })?;
        let _ = out.flush();
        Ok(self.exit_status.unwrap_or(0))
    }
}

/// Whether printing the program's output needs kernel symbols: a stack field
/// (traced, a key, `%k`) or a `%a`/`%A` conversion.
fn uses_symbols(desc: &dtrace_codegen::desc::ProgramDesc) -> bool {
    use dtrace_codegen::desc::{ActionKind, ValueType};
    let stack = |t: &ValueType| matches!(t, ValueType::Stack { .. });
    let symbolic = |f: &str| {
        dtrace_codegen::desc::Format::parse(f)
            .map(|f| f.conversions().any(|c| matches!(c.ch, 'a' | 'A' | 'k')))
            .unwrap_or(false)
    };
    desc.aggs
        .values()
        .any(|a| a.keys.iter().any(|k| stack(&k.ty)))
        || desc.epids.values().flat_map(|e| &e.actions).any(|a| {
            a.fields.iter().any(|f| stack(&f.ty))
                || match &a.kind {
                    ActionKind::Printf { format }
                    | ActionKind::System { format }
                    | ActionKind::Freopen { format } => symbolic(format),
                    ActionKind::Printa {
                        format: Some(format),
                        ..
                    } => symbolic(format),
                    ActionKind::Symbol { .. } => true,
                    _ => false,
                }
        })
}

/// The kernel's function symbols from kallsyms (empty when unreadable).
fn kernel_symbols() -> dtrace_consumer::KernelSymbols {
    let syms = dtrace_sys::kallsyms::functions()
        .into_iter()
        .map(|(addr, name, module)| dtrace_consumer::Symbol { addr, name, module })
        .collect();
    dtrace_consumer::KernelSymbols::new(syms)
}

/// `setopt()` while tracing, through the option table: an unknown name or a
/// bad value is refused as libdtrace refuses it; a valid value of an option
/// that cannot change while tracing is "Operation illegal when tracing is
/// active"; a dynamic option changes what the consumer prints.
fn setopt_handler(mut options: Options) -> dtrace_consumer::consume::SetOption {
    use crate::options::{Stage, TABLE};
    Box::new(move |name, value, copts| {
        let spec = TABLE
            .iter()
            .find(|s| s.name == name)
            .ok_or_else(|| crate::options::OptError::bad_name().0)?;
        let mut next = options.clone();
        (spec.set)(&mut next, value).map_err(|e| e.0)?;
        if spec.stage != Stage::Dynamic {
            return Err("Operation illegal when tracing is active".into());
        }
        options = next;
        copts.quiet = options.quiet;
        copts.aggsortkey = options.aggsortkey;
        copts.aggsortrev = options.aggsortrev;
        copts.aggsortpos = options.aggsortpos.unwrap_or(0);
        copts.aggsortkeypos = options.aggsortkeypos.unwrap_or(0);
        copts.rawbytes = options.rawbytes;
        copts.aggpack = options.aggpack;
        copts.stackindent = Some(options.stackindent.min(u32::MAX as u64) as u32);
        Ok(())
    })
}
