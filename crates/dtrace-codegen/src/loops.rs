//! Loops (an extension to D, see docs/LOOPS.md) compiled to back-edges the
//! verifier can bound: every pass of a loop, and of the loops nested in it,
//! counts against [`LOOP_PASSES`] in a stack slot, and the firing ends with an
//! illegal-operation error when that budget is spent. The verifier follows the
//! counter, so it sees every loop end whatever its condition depends on.

use crate::gen::Gen;
use crate::record::RecordPlan;
use dtrace_bpf::{AluOp, Insn, JmpOp, Reg, Size};
use dtrace_desc::FaultKind;
use dtrace_sema::{TExpr, TStmt};

/// Passes an outermost loop, with the loops inside it, may make per firing.
pub const LOOP_PASSES: i32 = 1024;

impl Gen<'_> {
    #[allow(clippy::too_many_arguments)]
    pub fn gen_loop(
        &mut self,
        cond: Option<&TExpr>,
        body: &[TStmt],
        step: &[TStmt],
        test_first: bool,
        line: u32,
        plan: &RecordPlan,
        cursor: &mut usize,
    ) {
        self.stmt_no += 1;
        let start = self.a.pc();
        let outermost = self.loop_budget.is_none();
        let slot = match self.loop_budget {
            Some(s) => s,
            None => {
                let s = self.alloc_slot();
                self.a.emit(Insn::mov64_imm(Reg::R0, 0));
                self.a.emit(Insn::stx_mem(Size::DW, Reg::FP, Reg::R0, s));
                self.loop_budget = Some(s);
                s
            }
        };
        let head = self.a.label();
        let next = self.a.label();
        let done = self.a.label();
        self.a.bind(head);
        if test_first {
            if let Some(c) = cond {
                self.tmp_off = 0;
                self.branch_if_false(c, done);
            }
        }
        self.loop_labels.push((next, done));
        self.stmts(body, plan, cursor);
        self.loop_labels.pop();
        self.a.bind(next);
        self.stmts(step, plan, cursor);
        if !test_first {
            if let Some(c) = cond {
                self.tmp_off = 0;
                self.branch_if_false(c, done);
            }
        }
        self.a.emit(Insn::ldx_mem(Size::DW, Reg::R0, Reg::FP, slot));
        self.a.emit(Insn::alu64_imm(AluOp::Add, Reg::R0, 1));
        self.a.emit(Insn::stx_mem(Size::DW, Reg::FP, Reg::R0, slot));
        self.fault_unless(JmpOp::Lt, Reg::R0, LOOP_PASSES, FaultKind::IllOp);
        self.a.ja(head);
        self.a.bind(done);
        if outermost {
            self.loop_budget = None;
            self.free(crate::gen::Val::Stack(slot));
        }
        let end = self.a.pc();
        self.a.loops.push((start..end, line));
    }

    /// `break` (or `continue`) in the innermost loop.
    pub fn loop_jump(&mut self, brk: bool) {
        if let Some(&(next, done)) = self.loop_labels.last() {
            self.a.ja(if brk { done } else { next });
        }
    }
}
