//! Kernel stacks: `stack()` values (traced, aggregation keys, `%k`), and the
//! built-ins `caller` and `stackdepth`, all from `bpf_get_stack` on the
//! program's context (saved at [`FP_CTX`] by the clause prologue).

use crate::gen::{Gen, Val, DCTX, FP_CTX};
use dtrace_bpf::{helper, AluOp, Insn, JmpOp, Reg, Size};
use dtrace_sema::{ProbeKind, MAX_STACK_FRAMES};

/// Frames of the probe machinery at the top of a raw-tracepoint program's
/// kernel stack: the clause subprogram, the trampoline, and the two tracepoint
/// functions that ran it (`bpf_trace_run2` and `__bpf_trace_<tp>`, or for
/// BEGIN/END the two `BPF_PROG_TEST_RUN` functions). A perf-event program's
/// stack starts at the interrupted instruction: nothing to skip. When several
/// programs share a tracepoint the kernel adds an iterator frame
/// (`__traceiter_<tp>`): `stack()` output drops it by name in the consumer,
/// while `caller` and `stackdepth` then count it.
pub const RAW_TP_FRAMES: i32 = 4;

/// Frames above a perf tracepoint's probe site (the perf glue that captured
/// the registers the stack starts from).
pub const PERF_TP_FRAMES: i32 = 1;

impl<'a> Gen<'a> {
    /// Gather up to `frames` kernel return addresses into a zeroed dctx
    /// temporary; returns its dctx offset, with r0 = bytes written (< 0 when
    /// the kernel has no stack to give).
    fn gather_stack(&mut self, frames: u32) -> u32 {
        let frames = frames.clamp(1, MAX_STACK_FRAMES);
        let size = frames * 8;
        let off = self.tmp_str(size);
        self.zero(DCTX, off as i16, size);
        self.a
            .emit(Insn::ldx_mem(Size::DW, Reg::R1, Reg::FP, FP_CTX));
        self.dctx_ptr(Reg::R2, off);
        self.a.emit(Insn::mov64_imm(Reg::R3, size as i32));
        let skip = match self.probes.first().map(|p| &p.kind) {
            Some(ProbeKind::Profile { .. } | ProbeKind::Tick { .. } | ProbeKind::Cpc { .. }) => 0,
            _ => self.l.stack_skip,
        };
        self.a.emit(Insn::mov64_imm(Reg::R4, skip));
        self.a.call_helper(helper::GET_STACK);
        off
    }

    /// `stack(frames)`: the address of the gathered frames.
    pub fn stack_value(&mut self, frames: u32) -> Val {
        let off = self.gather_stack(frames);
        let d = self.alloc(true);
        let w = self.work_reg(d, Reg::R0);
        self.dctx_ptr(w, off);
        self.put(d, w);
        d
    }

    /// `stackdepth`: the number of frames; `caller`: the second frame (the
    /// first is the probe site itself), 0 when there is none.
    pub fn stack_builtin(&mut self, depth: bool) -> Val {
        let off = self.gather_stack(MAX_STACK_FRAMES);
        let d = self.alloc(false);
        let w = self.work_reg(d, Reg::R1);
        if depth {
            let done = self.a.label();
            self.a.emit(Insn::mov64_imm(w, 0));
            self.a.jmp_imm(JmpOp::Sle, Reg::R0, 0, done);
            self.a.emit(Insn::mov64_reg(w, Reg::R0));
            self.a.emit(Insn::alu64_imm(AluOp::Rsh, w, 3));
            self.a.bind(done);
        } else {
            self.a
                .emit(Insn::ldx_mem(Size::DW, w, DCTX, (off + 8) as i16));
        }
        self.put(d, w);
        d
    }

    /// Copy a stack value (`src` holds its address in dctx) of `frames` frames
    /// to `dst + off`.
    pub fn copy_stack(&mut self, dst: Reg, off: i16, src: Reg, frames: u32) {
        for i in 0..frames.min(MAX_STACK_FRAMES) {
            let o = (i * 8) as i16;
            self.a.emit(Insn::ldx_mem(Size::DW, Reg::R0, src, o));
            self.a.emit(Insn::stx_mem(Size::DW, dst, Reg::R0, off + o));
        }
    }
}
