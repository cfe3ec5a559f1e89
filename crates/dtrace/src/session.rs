//! A running session: the runtime's kernel objects plus the consumer.
//!
//! Records go from the ring buffer to the consumer, which turns them into
//! [`Event`]s for an [`Output`]: dtrace(1)'s text, JSON, or a library user's
//! handler ([`Session::consume`], [`Session::events`]). Drops are events too.

mod failure;
mod joining;

use failure::{exec_error, load_error};

use crate::aggcache::AggCache;
use crate::bufpolicy::{Held, Policy};
use crate::options::BufPolicy;
use crate::{ExecError, Options, WorkStatus};
use dtrace_codegen::CompiledProgram;
use dtrace_consumer::{
    AggEntries, AggReport, AggSource, ConsumeError, Consumer, ConsumerOptions, Context, Control,
    DropKind, Event, Output,
};
use dtrace_sys::{Features, SysRef};
use std::collections::VecDeque;
use std::ops::ControlFlow;
use std::os::fd::{BorrowedFd, RawFd};
use std::time::Duration;

/// Reads aggregations from the kernel for the consumer.
struct Aggs<'a>(&'a dtrace_runtime::Session);

impl AggSource for Aggs<'_> {
    fn snapshot(&mut self, agg_id: u32, out: &mut AggEntries) {
        // A failed read shows what was read before it.
        let _ = self.0.agg_snapshot(agg_id, out);
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

/// A running tracing session (libdtrace after `dtrace_program_exec`).
/// Dropping it detaches every probe.
pub struct Session {
    /// User-space probes that join while tracing, once started (see
    /// late.rs); first, so that its links go and the processes it stopped
    /// are resumed before the probes go.
    late_thread: Option<crate::late::LateThread>,
    /// The same, before it starts.
    late: Option<crate::late::LateProbes>,
    sys: SysRef,
    /// `-x followfork`: finds the traced processes' new children (first, so
    /// that it stops before the probes go).
    follow: Option<dtrace_sys::follow::Follower>,
    rt: dtrace_runtime::Session,
    consumer: Consumer,
    exit_status: Option<i32>,
    stopped: bool,
    /// `-x prometheus` / `-x otlp`: aggregations exported while tracing runs.
    export_options: Options,
    export: Option<crate::metrics::Exporters>,
    /// Records read from the ring buffer and not yet consumed: a handler that
    /// breaks leaves the rest for the next call.
    pending: Pending,
    /// The last read found records: read again soon (see [`BUSY_WAIT`]).
    busy: bool,
    /// What `printa()` prints between two `aggrate` ticks.
    agg_cache: AggCache,
    /// The last [`Session::snapshot`], whose memory the next one reuses.
    snap: dtrace_consumer::Snapshot,
    /// The per-CPU buffers of `bufpolicy=fill` or `ring` (None: `switch`).
    held: Option<Held>,
    /// A `fill` buffer filled, or exit() was called with buffers held:
    /// tracing is over.
    filled: bool,
    /// `bufresize=auto` made each CPU's principal buffer this small.
    buffer_lowered: Option<u64>,
}

/// Records read from the ring buffer and not yet consumed, copied one after
/// another into one buffer that keeps its capacity (a record costs no
/// allocation of its own).
#[derive(Debug, Default)]
struct Pending {
    bytes: Vec<u8>,
    /// Each record's start and length in `bytes`, oldest first.
    spans: VecDeque<(usize, usize)>,
}

impl Pending {
    fn push(&mut self, r: &[u8]) {
        if self.spans.is_empty() {
            self.bytes.clear();
        }
        self.spans.push_back((self.bytes.len(), r.len()));
        self.bytes.extend_from_slice(r);
    }
}

/// A closure as an [`Output`]: it sees every event until it returns
/// [`ControlFlow::Break`], and none after.
pub struct Handler<F> {
    f: F,
    broke: bool,
}

impl<F: FnMut(&Event) -> ControlFlow<()>> Handler<F> {
    /// The handler `f`.
    pub fn new(f: F) -> Handler<F> {
        Handler { f, broke: false }
    }

    /// Whether the handler returned `Break`.
    pub fn broke(&self) -> bool {
        self.broke
    }
}

impl<F: FnMut(&Event) -> ControlFlow<()>> Output for Handler<F> {
    fn event(&mut self, _cx: &Context<'_>, ev: &Event) -> Result<(), ConsumeError> {
        if !self.broke && (self.f)(ev).is_break() {
            self.broke = true;
        }
        Ok(())
    }
}

fn consume_error(e: ConsumeError) -> ExecError {
    ExecError {
        message: format!("dtrace: failed to process a trace record: {e}"),
        detail: None,
    }
}

/// While records keep coming, the buffer is read at least this often rather
/// than once per `switchrate` period: records are submitted without waking
/// the consumer (a wake-up per record costs more than the record), so under
/// load only reading often keeps the ring from filling.
const BUSY_WAIT: Duration = Duration::from_millis(10);

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
        end_reserve: u64,
        late: Option<crate::late::LateProbes>,
    ) -> Result<Session, ExecError> {
        // Each CPU's buffer, in DTrace's record sizes: `bufsize` bytes
        // rounded down to whole 64-bit words.
        let bufsize = options.bufsize - options.bufsize % 8;
        let strsize = options.strsize;
        let held = match options.bufpolicy {
            BufPolicy::Switch => None,
            BufPolicy::Ring => Some(Held::new(Policy::Ring { bufsize }, strsize)),
            // DTrace keeps room for END's records in every buffer, and will
            // not start if they could not fit at all.
            BufPolicy::Fill if end_reserve <= bufsize => Some(Held::new(
                Policy::Fill {
                    bufsize,
                    reserve: end_reserve,
                },
                strsize,
            )),
            BufPolicy::Fill => {
                return Err(ExecError {
                    message: "dtrace: END enablings exceed size of principal buffer".into(),
                    detail: None,
                })
            }
        };
        let load = dtrace_runtime::LoadOptions {
            bpflog: options
                .bpflog
                .then(|| options.bpflogsize.unwrap_or(1 << 20).min(1 << 20) as usize),
            bpflogsize: options
                .bpflogsize
                .map(|n| usize::try_from(n).unwrap_or(usize::MAX)),
            uprobe_sites,
            bufresize_manual: options.bufresize_manual,
        };
        // The ring buffer all CPUs share holds each CPU's principal buffer
        // (`bufsize`); smaller than that, the buffers were lowered: by the
        // most the ring may take, or (`bufresize=auto`) by the kernel.
        let cpus = dtrace_sys::cpu::num_possible_cpus().unwrap_or(1).max(1) as u64;
        let lowered = |ring: u64| (ring / cpus < options.bufsize).then_some(ring / cpus);
        let planned = compiled
            .maps
            .get(compiled.ringbuf_map)
            .map_or(0, |m| m.max_entries as u64);
        if options.bufresize_manual && lowered(planned).is_some() {
            return Err(ExecError {
                message: format!(
                    "dtrace: could not enable tracing: cannot allocate principal buffers of {} bytes \
                     (bufresize=manual)",
                    options.bufsize
                ),
                detail: None,
            });
        }
        let rt = dtrace_runtime::Session::load(sys, features, &compiled, &load)
            .map_err(|e| load_error(e, &compiled.desc.probes))?;
        let buffer_lowered = lowered(rt.principal_size());
        let roots = rt.uprobe_pids();
        let follow = if options.followfork && !roots.is_empty() {
            Some(
                dtrace_sys::follow::Follower::start(sys, &roots).map_err(|e| ExecError {
                    message: format!("dtrace: cannot follow forks: {e}"),
                    detail: None,
                })?,
            )
        } else {
            None
        };
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
            flowindent: options.flowindent,
            stackindent: Some(options.stackindent.min(u32::MAX as u64) as u32),
            noresolve: options.noresolve,
            droptags: options.droptags,
            folded: options.aggfmt_folded,
            printsize: Some(options.printsize.min(u32::MAX as u64) as u32),
        };
        let agg_cache = AggCache::new(
            Duration::from_nanos(options.aggrate_ns.unwrap_or(1_000_000_000)),
            printed_aggs(&compiled.desc),
        );
        let needs_symbols = uses_symbols(&compiled.desc);
        let mut consumer = Consumer::new(compiled.desc, copts);
        if needs_symbols {
            consumer.set_symbols(kernel_symbols());
        }
        consumer.set_option_handler(setopt_handler(options.clone()));
        Ok(Session {
            late,
            late_thread: None,
            sys: sys.clone(),
            follow,
            rt,
            consumer,
            exit_status: None,
            stopped: false,
            export_options: options.clone(),
            export: None,
            pending: Pending::default(),
            busy: false,
            agg_cache,
            snap: dtrace_consumer::Snapshot::new(),
            held,
            filled: false,
            buffer_lowered,
        })
    }

    /// The size each CPU's principal buffer was lowered to when it could not
    /// be allocated at `bufsize` (`bufresize=auto`).
    pub fn buffer_lowered(&self) -> Option<u64> {
        self.buffer_lowered
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

    /// The status passed to `exit()`, once a record of it was consumed.
    pub fn exit_status(&self) -> Option<i32> {
        self.exit_status
    }

    /// Consumes the buffered records into `output` until `broke` says the
    /// output wants no more, then (when every record was consumed) reports
    /// new drops. Returns whether it stopped early.
    fn drain<O: Output + ?Sized>(
        &mut self,
        output: &mut O,
        broke: impl Fn(&O) -> bool,
    ) -> Result<bool, ExecError> {
        let pending = &mut self.pending;
        let held = &mut self.held;
        let desc = self.consumer.desc();
        let mut read = false;
        self.rt
            .poll(|r| {
                read = true;
                match held {
                    Some(h) => {
                        if let Some(r) = h.take(r.to_vec(), desc) {
                            pending.push(&r);
                        }
                    }
                    None => pending.push(r),
                }
            })
            .map_err(exec_error)?;
        self.busy = read;
        // Speculations settled while buffers are held are free again at once.
        if let Some(h) = &mut self.held {
            for id in h.take_freed() {
                self.rt.free_speculation(id).map_err(exec_error)?;
            }
        }
        if !self.stopped && self.held.is_some() {
            self.check_held()?;
        }
        while let Some((at, len)) = self.pending.spans.pop_front() {
            let r = self.pending.bytes.get(at..at + len).unwrap_or_default();
            if let Some(t) = &self.late_thread {
                t.joined().install(&mut self.consumer);
            }
            let mut kernel = Aggs(&self.rt);
            let mut aggs = self.agg_cache.view(&mut kernel);
            match self
                .consumer
                .record(r, &mut &mut *output, &mut aggs)
                .map_err(consume_error)?
            {
                // Every exit() record sets the status dtrace(1) exits with, so an
                // exit() in END overrides the one that stopped tracing ("exit":
                // the consumer should "call exit(3C) with the status value
                // specified", Solaris Dynamic Tracing Guide, "Actions and
                // Subroutines").
                Control::Exit(status) => self.exit_status = Some(status),
                Control::Continue => {}
            }
            for id in self.consumer.take_freed_speculations() {
                self.rt.free_speculation(id).map_err(exec_error)?;
            }
            if broke(output) {
                return Ok(true);
            }
        }
        // Oracle DTrace 2.x reports each fault once, with no per-CPU count after.
        let _ = self.consumer.take_errors();
        let mut counts = Vec::new();
        // Records a full `fill` or `ring` buffer refused are principal drops.
        if let Some(h) = &mut self.held {
            for (cpu, n) in h.take_drops() {
                counts.push((cpu, DropKind::Principal, n));
            }
        }
        for d in self.rt.drops().map_err(exec_error)? {
            counts.extend([
                (d.cpu, DropKind::Principal, d.ringbuf),
                (d.cpu, DropKind::Aggregation, d.agg),
                (d.cpu, DropKind::Dynamic, d.dynvar),
                (d.cpu, DropKind::Spec, d.spec),
                (d.cpu, DropKind::SpecBusy, d.spec_busy),
                (d.cpu, DropKind::SpecUnavail, d.spec_unavail),
                (d.cpu, DropKind::DblError, d.dbl_error),
            ]);
        }
        self.consumer
            .drops(&counts, &mut &mut *output)
            .map_err(consume_error)?;
        output.flush().map_err(consume_error)?;
        Ok(broke(output))
    }

    /// Takes the aggregation snapshot `printa()` prints when an `aggrate`
    /// period has passed (libdtrace's `dtrace_work` does so before it
    /// consumes: the first time at the first call).
    fn snapshot_due(&mut self) {
        let now = std::time::Instant::now();
        if !self.stopped && self.agg_cache.due(now) {
            self.agg_cache.snap(now, &mut Aggs(&self.rt));
        }
    }

    /// Refresh the exported metrics (when a tick is due, or now with `force`).
    fn export_tick(&mut self, force: bool) {
        if let Some(ex) = &mut self.export {
            let mut err = std::io::stderr();
            ex.tick(self.consumer.desc(), &mut Aggs(&self.rt), force, &mut err);
        }
    }

    /// Under `fill` or `ring`: once a buffer filled or exit() was called,
    /// tracing is over. The held buffers go to the consumer when it stops
    /// (with what was still on its way from the probes).
    fn check_held(&mut self) -> Result<(), ExecError> {
        if self.held.as_ref().is_some_and(Held::filled) || self.rt.exiting().map_err(exec_error)? {
            self.filled = true;
        }
        Ok(())
    }

    /// Hands every held record to the consumer, before any read later.
    fn release_held(&mut self) {
        if let Some(h) = &mut self.held {
            let mut all = Pending::default();
            for r in h.release() {
                all.push(&r);
            }
            for &(at, len) in &self.pending.spans {
                all.push(self.pending.bytes.get(at..at + len).unwrap_or_default());
            }
            self.pending = all;
        }
    }

    fn status(&self) -> WorkStatus {
        if self.exit_status.is_some() || self.filled {
            WorkStatus::Done
        } else {
            WorkStatus::Okay
        }
    }

    /// Follow the address space of a traced process (`-c`/`-p`), so user
    /// addresses of it resolve also after it exits.
    pub fn watch_process(&mut self, pid: u32) {
        self.consumer.watch_process(pid);
    }

    /// Process `pid` is the session's own (`-c`, `-p`), told before
    /// [`Session::go`]: when a provider glob over every process
    /// (`myprov*:::`) may gain probes in it, it is held while the probes of
    /// the objects it loads are attached, as a process a description names.
    pub fn add_target(&mut self, pid: u32) {
        if let Some(late) = self.late.as_mut() {
            late.add_target(pid);
        }
    }

    /// Fire BEGIN (in this process's context), attach all other probes unless
    /// BEGIN called exit(), then consume BEGIN's output: as in DTrace, its
    /// actions (a `system()` command) take effect with the probes enabled.
    /// Returns `Done` if BEGIN called exit().
    pub fn go(&mut self, output: &mut dyn Output) -> Result<WorkStatus, ExecError> {
        // The exporters' messages (the endpoint's address, failures) are
        // dtrace's own, on stderr, as the CLI's notices are.
        self.export = crate::metrics::Exporters::start(
            &self.export_options,
            self.consumer.desc(),
            &mut std::io::stderr(),
        )
        .map_err(|message| ExecError {
            message,
            detail: None,
        })?;
        if self.export_options.flamegraph.is_some() && !crate::flame::AVAILABLE {
            return Err(ExecError {
                message: "dtrace: -x flamegraph needs a dtrace built with the flamegraph feature"
                    .into(),
                detail: None,
            });
        }
        // dtrace(1) reads its buffers first one `switchrate` period after
        // tracing starts, and takes the first aggregation snapshot then.
        let switch = Duration::from_nanos(
            self.export_options
                .switchrate_ns
                .unwrap_or(1_000_000_000 / self.export_options.switchrate_hz.max(1)),
        );
        self.agg_cache
            .arm(std::time::Instant::now() + switch, switch);
        self.rt.begin().map_err(exec_error)?;
        if !self.rt.exiting().map_err(exec_error)? {
            self.rt.attach().map_err(exec_error)?;
            self.start_late()?;
        }
        self.drain(output, |_| false)?;
        Ok(self.status())
    }

    /// Wait up to `timeout` (the CLI passes 1/switchrate) for records or a wake fd,
    /// then consume what is buffered and report drops.
    pub fn work(
        &mut self,
        timeout: Duration,
        output: &mut dyn Output,
    ) -> Result<WorkStatus, ExecError> {
        // A `fill` buffer is checked as often as a busy one: tracing should
        // stop soon after it fills.
        let filling = self.held.as_ref().is_some_and(Held::fills);
        let timeout = if self.busy || filling || self.follow.is_some() {
            timeout.min(BUSY_WAIT)
        } else {
            timeout
        };
        self.rt.wait(timeout).map_err(exec_error)?;
        self.follow_children()?;
        self.late_probes();
        self.consumer.refresh_processes();
        self.snapshot_due();
        self.drain(output, |_| false)?;
        self.export_tick(false);
        Ok(self.status())
    }

    /// libdtrace's `dtrace_work` with a handler instead of an output: waits
    /// up to `timeout`, then hands every buffered event to `handler` in order.
    /// Returns `Break` when the handler broke (the records after the one it
    /// broke in stay buffered for the next call) or when `exit()` ended
    /// tracing; `Continue` otherwise.
    pub fn consume<F>(
        &mut self,
        timeout: Duration,
        handler: F,
    ) -> Result<ControlFlow<()>, ExecError>
    where
        F: FnMut(&Event) -> ControlFlow<()>,
    {
        if self.pending.spans.is_empty() {
            let timeout = if self.follow.is_some() {
                timeout.min(BUSY_WAIT)
            } else {
                timeout
            };
            self.rt.wait(timeout).map_err(exec_error)?;
            self.follow_children()?;
            self.late_probes();
            self.consumer.refresh_processes();
        }
        self.snapshot_due();
        let mut h = Handler {
            f: handler,
            broke: false,
        };
        let broke = self.drain(&mut h, |h| h.broke)?;
        Ok(if broke || self.exit_status.is_some() {
            ControlFlow::Break(())
        } else {
            ControlFlow::Continue(())
        })
    }

    /// An iterator of owned events: each step waits (`timeout` at a time) for
    /// the next one. It ends when `exit()` has ended tracing, after the
    /// events of END (the probes are detached then).
    pub fn events(&mut self, timeout: Duration) -> Events<'_> {
        Events {
            session: self,
            timeout,
            queue: VecDeque::new(),
            ended: false,
        }
    }

    /// Every aggregation now (libdtrace's `dtrace_aggregate_snap`), in ID
    /// order, each with its rows sorted as the `aggsort*` options say. The
    /// session keeps the snapshot until the next one, which reuses its memory.
    pub fn snapshot(&mut self) -> Result<&[AggReport], ExecError> {
        self.snap_now()?;
        Ok(self.snap.reports())
    }

    /// Takes a snapshot into `self.snap`.
    fn snap_now(&mut self) -> Result<(), ExecError> {
        self.consumer
            .snapshot_into(&mut Aggs(&self.rt), &mut self.snap)
            .map_err(consume_error)
    }

    /// [`Session::snapshot`] as one JSON array in the `-O json` schema's
    /// aggregation form (docs/JSON.md).
    pub fn snapshot_json(&mut self) -> Result<String, ExecError> {
        self.snap_now()?;
        Ok(dtrace_consumer::json::snapshot_json(
            self.snap.reports(),
            self.consumer.env(),
        ))
    }

    /// Walks every row of every aggregation in [`Session::snapshot`]'s order
    /// (libdtrace's `dtrace_aggregate_walk`), until `f` breaks.
    pub fn aggregate_walk<F>(&mut self, mut f: F) -> Result<ControlFlow<()>, ExecError>
    where
        F: FnMut(&dtrace_consumer::AggReport, &dtrace_consumer::Row<'_>) -> ControlFlow<()>,
    {
        for report in self.snapshot()? {
            for row in &report.rows {
                if f(report, &row).is_break() {
                    return Ok(ControlFlow::Break(()));
                }
            }
        }
        Ok(ControlFlow::Continue(()))
    }

    /// Stop tracing: detach every probe, fire END, drain the buffers.
    pub fn stop(&mut self, output: &mut dyn Output) -> Result<(), ExecError> {
        if self.stopped {
            return Ok(());
        }
        self.stopped = true;
        if let Some(t) = self.late_thread.as_mut() {
            t.stop();
        }
        self.rt.detach();
        self.agg_cache.invalidate();
        self.drain(output, |_| false)?;
        self.release_held();
        self.drain(output, |_| false)?;
        self.rt.end().map_err(exec_error)?;
        self.drain(output, |_| false)?;
        Ok(())
    }

    /// Stop, hand the aggregations not yet printed to `output` (dtrace(1)'s
    /// end-of-run output) and return the status passed to exit() (0 if none).
    pub fn finish(mut self, output: &mut dyn Output) -> Result<i32, ExecError> {
        self.stop(output)?;
        self.export_tick(true);
        if let Some(path) = self.export_options.flamegraph.clone() {
            self.snap_now()?;
            let folded = crate::flame::folded_lines(self.snap.reports(), self.consumer.env());
            crate::flame::write_svg(&path, &folded, "dtrace").map_err(|m| ExecError {
                message: format!("dtrace: {m}"),
                detail: None,
            })?;
        }
        let mut aggs = Aggs(&self.rt);
        self.consumer
            .finish(output, &mut aggs)
            .map_err(|e| ExecError {
                message: format!("dtrace: failed to print aggregations: {e}"),
                detail: None,
            })?;
        Ok(self.exit_status.unwrap_or(0))
    }
}

/// Owned events from [`Session::events`].
pub struct Events<'a> {
    session: &'a mut Session,
    timeout: Duration,
    queue: VecDeque<Event>,
    ended: bool,
}

impl Iterator for Events<'_> {
    type Item = Result<Event, ExecError>;

    fn next(&mut self) -> Option<Self::Item> {
        loop {
            if let Some(ev) = self.queue.pop_front() {
                return Some(Ok(ev));
            }
            if self.ended {
                return None;
            }
            let queue = &mut self.queue;
            let collect = |ev: &Event| {
                queue.push_back(ev.clone());
                ControlFlow::Continue(())
            };
            if self.session.exit_status.is_some() {
                // Tracing ended: END's events are the last ones.
                self.ended = true;
                let mut h = Handler {
                    f: collect,
                    broke: false,
                };
                if let Err(e) = self.session.stop(&mut h) {
                    return Some(Err(e));
                }
                continue;
            }
            if let Err(e) = self.session.consume(self.timeout, collect) {
                self.ended = true;
                return Some(Err(e));
            }
        }
    }
}

/// Whether printing the program's output needs kernel symbols: a stack field
/// (traced, a key, `%k`) or a `%a`/`%A` conversion.
/// The aggregations some `printa()` of the program prints.
fn printed_aggs(desc: &dtrace_codegen::desc::ProgramDesc) -> Vec<u32> {
    let mut ids: Vec<u32> = desc
        .epids
        .values()
        .flat_map(|e| &e.actions)
        .filter_map(|a| match &a.kind {
            dtrace_codegen::desc::ActionKind::Printa { aggs, .. } => Some(aggs.iter().copied()),
            _ => None,
        })
        .flatten()
        .collect();
    ids.sort_unstable();
    ids.dedup();
    ids
}

fn uses_symbols(desc: &dtrace_codegen::desc::ProgramDesc) -> bool {
    use dtrace_codegen::desc::{ActionKind, ValueType};
    let stack = |t: &ValueType| {
        matches!(
            t,
            ValueType::Stack { .. }
                | ValueType::UserSym {
                    kind: dtrace_codegen::desc::StackKind::KSym
                        | dtrace_codegen::desc::StackKind::KMod
                }
        )
    };
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
        copts.droptags = options.droptags;
        copts.folded = options.aggfmt_folded;
        copts.printsize = Some(options.printsize.min(u32::MAX as u64) as u32);
        Ok(())
    })
}
