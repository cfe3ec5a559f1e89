//! The small subroutines with their own code: `hton*`/`ntoh*` (one byte-swap
//! instruction: the host is little-endian, the network big-endian), `rand()`
//! (`bpf_get_prandom_u32`) and `progenyof(pid)` (a bounded walk up
//! `task_struct::real_parent`).

use crate::gen::{Gen, Val, FP_SCRATCH};
use dtrace_bpf::{helper, AluOp, Insn, JmpOp, Reg, Size};
use dtrace_sema::TExpr;

/// The most ancestors `progenyof` looks at (process trees are far shallower).
pub const PROGENY_DEPTH: i32 = 128;

impl<'a> Gen<'a> {
    /// `v` in the other byte order, in `bits` (16, 32 or 64) bits.
    pub fn byte_swap(&mut self, arg: &TExpr, bits: u32) -> Val {
        let v = self.expr(arg);
        let w = self.work_reg(v, Reg::R0);
        let r = self.get(v, w);
        if r != w {
            self.a.emit(Insn::mov64_reg(w, r));
        }
        self.a.emit(Insn::to_be(w, bits as i32));
        self.put(v, w);
        v
    }

    /// `rand()`: 32 random bits as an `int`.
    pub fn rand(&mut self) -> Val {
        let d = self.alloc(false);
        self.a.call_helper(helper::GET_PRANDOM_U32);
        let w = self.work_reg(d, Reg::R0);
        self.a.emit(Insn::movsx64_reg(w, Reg::R0, 32));
        self.put(d, w);
        d
    }

    /// Read `size` bytes of kernel memory at `task + off` into the frame's
    /// scratch word; jumps to `fail` if the read fails.
    fn task_field(&mut self, task: Val, off: u32, size: i32, fail: crate::asm::Label) {
        let r = self.get(task, Reg::R3);
        if r != Reg::R3 {
            self.a.emit(Insn::mov64_reg(Reg::R3, r));
        }
        self.a
            .emit(Insn::alu64_imm(AluOp::Add, Reg::R3, off as i32));
        self.a.emit(Insn::st_mem(Size::DW, Reg::FP, FP_SCRATCH, 0));
        self.a.emit(Insn::mov64_reg(Reg::R1, Reg::FP));
        self.a
            .emit(Insn::alu64_imm(AluOp::Add, Reg::R1, FP_SCRATCH as i32));
        self.a.emit(Insn::mov64_imm(Reg::R2, size));
        self.a.call_helper(helper::PROBE_READ_KERNEL);
        self.a.jmp_imm(JmpOp::Ne, Reg::R0, 0, fail);
    }

    /// `progenyof(pid)`: walk from the current task up its `real_parent`s
    /// (at most [`PROGENY_DEPTH`] of them, stopping at the task that is its own
    /// parent) looking for process ID `pid`.
    pub fn progenyof(&mut self, arg: &TExpr) -> Val {
        let k = self.opts.kernel;
        let pid = self.expr(arg);
        let task = self.alloc(false);
        let n = self.alloc(false);
        let d = self.alloc(false);
        let (top, yes, no, end) = (
            self.a.label(),
            self.a.label(),
            self.a.label(),
            self.a.label(),
        );
        self.a.call_helper(helper::GET_CURRENT_TASK);
        self.put(task, Reg::R0);
        self.a.emit(Insn::mov64_imm(Reg::R0, 0));
        self.put(n, Reg::R0);
        self.a.bind(top);
        self.task_field(task, k.task_tgid, 4, no);
        self.a
            .emit(Insn::ldx_memsx(Size::W, Reg::R1, Reg::FP, FP_SCRATCH));
        let p = self.get(pid, Reg::R2);
        self.a.jmp_reg(JmpOp::Eq, Reg::R1, p, yes);
        self.task_field(task, k.task_real_parent, 8, no);
        self.a
            .emit(Insn::ldx_mem(Size::DW, Reg::R1, Reg::FP, FP_SCRATCH));
        self.a.jmp_imm(JmpOp::Eq, Reg::R1, 0, no);
        let t = self.get(task, Reg::R2);
        self.a.jmp_reg(JmpOp::Eq, Reg::R1, t, no);
        self.put(task, Reg::R1);
        let c = self.get(n, Reg::R0);
        let cw = self.work_reg(n, Reg::R0);
        if c != cw {
            self.a.emit(Insn::mov64_reg(cw, c));
        }
        self.a.emit(Insn::alu64_imm(AluOp::Add, cw, 1));
        self.put(n, cw);
        self.a.jmp_imm(JmpOp::Ge, cw, PROGENY_DEPTH, no);
        self.a.ja(top);
        self.a.bind(yes);
        self.set_const(d, 1);
        self.a.ja(end);
        self.a.bind(no);
        self.set_const(d, 0);
        self.a.bind(end);
        self.free(n);
        self.free(task);
        self.free(pid);
        d
    }
}
