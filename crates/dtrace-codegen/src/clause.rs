//! One clause subprogram: predicate, record reservation, statements, and the fault
//! paths. Called with r1 = dctx and r2 = the program's context; returns 0, or 1
//! after a fault (fault details are in dctx for the ERROR subprogram).

use crate::asm::Asm;
use crate::gen::{Gen, DCTX, FP_CTX, FP_RECORD};
use crate::layout::{self, Layout};
use crate::record::RecordPlan;
use dtrace_bpf::{helper, AluOp, Insn, JmpOp, Reg, Size};
use dtrace_sema::{CompileOptions, ProbeInfo, TClause, TStmt, TypedProgram};

/// `bpf_ringbuf_submit` flags.
const BPF_RB_NO_WAKEUP: i32 = 1;
const BPF_RB_FORCE_WAKEUP: i32 = 2;
/// `bpf_ringbuf_query`: the bytes not yet consumed.
const BPF_RB_AVAIL_DATA: i32 = 0;
/// Bytes of the ring buffer's header before each record.
const RINGBUF_HDR: u32 = 8;

pub struct ClauseCode {
    pub asm: Asm,
    /// Bytes of dctx string temporaries this clause needs.
    pub tmp_size: u32,
    /// Whether the clause reads or writes dctx at all (its probe ID, index,
    /// arguments, errno, timestamp, a fault's words, any staging area). A
    /// trampoline whose clauses do not may skip dctx: one cache line fewer
    /// for a probe that fires far apart (`@ = count()`).
    pub uses_dctx: bool,
}

/// Whether the clause's record should wake the consumer at once: exit() ends
/// tracing, and a commit() or discard() frees its speculation only once consumed.
fn has_exit(body: &[TStmt]) -> bool {
    body.iter().any(|s| match s {
        TStmt::Exit { .. } | TStmt::CommitDiscard { .. } => true,
        TStmt::If { then, els, .. } => has_exit(then) || has_exit(els),
        _ => false,
    })
}

pub fn gen_clause(
    l: &mut Layout,
    tp: &TypedProgram,
    opts: &CompileOptions,
    clause: &TClause,
    probes: Vec<ProbeInfo>,
) -> ClauseCode {
    let epid = clause.index + 1;
    let plan = RecordPlan::new(&clause.body, opts);
    let mut g = Gen::new(l, tp, opts, probes, epid);
    g.record_size = plan.size;
    g.emits_record = clause.emits_record;
    let skip = g.a.label();
    g.a.emit(Insn::mov64_reg(DCTX, Reg::R1));
    // strtok's position is clause-local: NULL until strtok(s, ...) in this clause.
    let strtok_reset = g.a.pc();
    g.a.emit(Insn::st_mem(Size::DW, DCTX, g.l.strtok_area as i16, -1));
    g.a.emit(Insn::stx_mem(Size::DW, Reg::FP, Reg::R2, FP_CTX));
    let scratch_reset = g.a.pc()..{
        g.scratch_reset();
        g.a.pc()
    };
    if let Some(p) = &clause.predicate {
        g.branch_if_false(p, skip);
        g.tmp_off = 0;
    }
    if clause.emits_record {
        let ok = g.a.label();
        let reserve = g.a.label();
        // Within the firing's budget (BEGIN and END: one CPU's buffer, as
        // DTrace counts records)? Other firings have none (0).
        let acct = layout::round8(plan.accounted_size(opts.str_cap())) + RINGBUF_HDR;
        let budgeted = g.a.label();
        g.a.emit(Insn::ldx_mem(Size::DW, Reg::R1, DCTX, layout::D_BUDGET));
        g.a.jmp_imm(JmpOp::Eq, Reg::R1, 0, reserve);
        g.a.jmp_imm(JmpOp::Gt, Reg::R1, acct as i32, budgeted);
        g.count_drop(layout::DROP_RINGBUF);
        g.a.ja(skip);
        g.a.bind(budgeted);
        g.a.emit(Insn::alu64_imm(AluOp::Sub, Reg::R1, acct as i32));
        g.a.emit(Insn::stx_mem(Size::DW, DCTX, Reg::R1, layout::D_BUDGET));
        g.a.bind(reserve);
        g.a.ld_map(Reg::R1, g.l.ringbuf);
        g.a.emit(Insn::mov64_imm(Reg::R2, plan.size as i32));
        g.a.emit(Insn::mov64_imm(Reg::R3, 0));
        g.a.call_helper(helper::RINGBUF_RESERVE);
        g.a.jmp_imm(JmpOp::Ne, Reg::R0, 0, ok);
        g.count_drop(layout::DROP_RINGBUF);
        g.a.ja(skip);
        g.a.bind(ok);
        g.a.emit(Insn::stx_mem(Size::DW, Reg::FP, Reg::R0, FP_RECORD));
        if plan.any_conditional {
            g.zero(Reg::R0, 0, plan.size);
        }
        g.a.emit(Insn::st_mem(Size::W, Reg::R0, 0, epid as i32));
        g.a.emit(Insn::ldx_mem(Size::W, Reg::R1, DCTX, layout::D_PROBE_ID));
        g.a.emit(Insn::stx_mem(Size::W, Reg::R0, Reg::R1, 4));
        g.a.emit(Insn::st_mem(Size::W, Reg::R0, 12, plan.static_flags as i32));
        g.a.call_helper(helper::GET_SMP_PROCESSOR_ID);
        g.a.emit(Insn::ldx_mem(Size::DW, Reg::R1, Reg::FP, FP_RECORD));
        g.a.emit(Insn::stx_mem(Size::W, Reg::R1, Reg::R0, 8));
        g.in_body = true;
    }
    let mut cursor = 0usize;
    g.stmts(&clause.body, &plan, &mut cursor);
    // A clause that never reaches its scratch space or strtok's position does
    // not reset them: each reset is a store to its own line of dctx, a cache
    // miss per firing where probes fire far apart (exec, context switches).
    // (A jump by 0 is no instruction once JITed.)
    if !g.uses_strtok {
        g.a.insns[strtok_reset] = Insn::ja(0);
    }
    if !g.uses_scratch {
        for pc in scratch_reset {
            g.a.insns[pc] = Insn::ja(0);
        }
    }
    if clause.emits_record {
        if has_exit(&clause.body) {
            g.a.emit(Insn::mov64_imm(Reg::R2, BPF_RB_FORCE_WAKEUP));
        } else {
            // No wake-up per record (it would cost more than the record),
            // but one whenever the ring is past a quarter full: the consumer
            // may be waiting out a whole `switchrate` period.
            let quiet = g.a.label();
            g.a.ld_map(Reg::R1, g.l.ringbuf);
            g.a.emit(Insn::mov64_imm(Reg::R2, BPF_RB_AVAIL_DATA));
            g.a.call_helper(helper::RINGBUF_QUERY);
            g.a.emit(Insn::mov64_imm(Reg::R2, BPF_RB_NO_WAKEUP));
            g.a.jmp_imm(JmpOp::Le, Reg::R0, (opts.bufsize / 4) as i32, quiet);
            g.a.emit(Insn::mov64_imm(Reg::R2, BPF_RB_FORCE_WAKEUP));
            g.a.bind(quiet);
        }
        g.a.emit(Insn::ldx_mem(Size::DW, Reg::R1, Reg::FP, FP_RECORD));
        g.a.call_helper(helper::RINGBUF_SUBMIT);
    }
    g.a.bind(skip);
    g.a.emit(Insn::mov64_imm(Reg::R0, 0));
    g.a.emit(Insn::exit());
    // Fault before the record exists.
    let fp = g.fault_pred;
    g.a.bind(fp);
    g.a.emit(Insn::st_mem(
        Size::W,
        DCTX,
        layout::D_FAULT_EPID,
        epid as i32,
    ));
    g.a.emit(Insn::mov64_imm(Reg::R0, 1));
    g.a.emit(Insn::exit());
    // Fault with a reserved record: discard it.
    let fb = g.fault_body;
    g.a.bind(fb);
    g.a.emit(Insn::st_mem(
        Size::W,
        DCTX,
        layout::D_FAULT_EPID,
        epid as i32,
    ));
    if clause.emits_record {
        g.a.emit(Insn::ldx_mem(Size::DW, Reg::R1, Reg::FP, FP_RECORD));
        g.a.emit(Insn::mov64_imm(Reg::R2, 0));
        g.a.call_helper(helper::RINGBUF_DISCARD);
    }
    g.a.emit(Insn::mov64_imm(Reg::R0, 1));
    g.a.emit(Insn::exit());
    // Quiet end of the clause with a reserved record: discard it.
    let ab = g.abort_body;
    g.a.bind(ab);
    if clause.emits_record {
        g.a.emit(Insn::ldx_mem(Size::DW, Reg::R1, Reg::FP, FP_RECORD));
        g.a.emit(Insn::mov64_imm(Reg::R2, 0));
        g.a.call_helper(helper::RINGBUF_DISCARD);
    }
    g.a.emit(Insn::mov64_imm(Reg::R0, 0));
    g.a.emit(Insn::exit());
    let tmp_size = g.tmp_max;
    let asm = g.a.finish();
    // Past the first instruction (`DCTX = r1`), any use of the register.
    let dctx = DCTX.0;
    let uses_dctx = asm
        .insns
        .iter()
        .skip(1)
        .any(|i| i.dst == dctx || i.src == dctx);
    ClauseCode {
        asm,
        tmp_size,
        uses_dctx,
    }
}

impl<'a> Gen<'a> {
    pub fn stmts(&mut self, body: &[TStmt], plan: &RecordPlan, cursor: &mut usize) {
        for s in body {
            self.stmt(s, plan, cursor);
        }
    }

    fn stmt(&mut self, s: &TStmt, plan: &RecordPlan, cursor: &mut usize) {
        self.tmp_off = 0;
        if !matches!(s, TStmt::If { .. } | TStmt::Loop { .. }) {
            self.stmt_no += 1;
        }
        match s {
            TStmt::Expr(e) => {
                let v = self.expr(e);
                self.free(v);
            }
            TStmt::If { cond, then, els } => {
                self.stmt_no += 1;
                let f = self.a.label();
                let end = self.a.label();
                self.branch_if_false(cond, f);
                self.stmts(then, plan, cursor);
                self.a.ja(end);
                self.a.bind(f);
                self.stmts(els, plan, cursor);
                self.a.bind(end);
            }
            TStmt::AggUpdate {
                agg,
                keys,
                value,
                incr,
                ..
            } => self.agg_update(*agg, keys, value.as_ref(), incr.as_ref()),
            TStmt::Raise { sig } => self.raise(sig),
            TStmt::Chill { ns } => self.chill(ns),
            TStmt::Loop {
                cond,
                body,
                step,
                test_first,
                line,
                ..
            } => self.gen_loop(cond.as_ref(), body, step, *test_first, *line, plan, cursor),
            TStmt::Break | TStmt::Continue => self.loop_jump(matches!(s, TStmt::Break)),
            _ => {
                let i = *cursor;
                *cursor += 1;
                if let Some(desc) = plan.actions.get(i) {
                    let desc = desc.clone();
                    self.action(s, &desc);
                    if plan.conditional.get(i).copied().unwrap_or(false) && i < 31 {
                        self.set_flag(1 << i);
                    }
                }
            }
        }
    }

    fn set_flag(&mut self, bit: u32) {
        self.a
            .emit(Insn::ldx_mem(Size::DW, Reg::R1, Reg::FP, FP_RECORD));
        self.a.emit(Insn::ldx_mem(Size::W, Reg::R2, Reg::R1, 12));
        self.a.emit(Insn::alu32_imm(AluOp::Or, Reg::R2, bit as i32));
        self.a.emit(Insn::stx_mem(Size::W, Reg::R1, Reg::R2, 12));
    }
}
