//! Stacks: `stack()` and `ustack()` values (traced, aggregation keys, `%k`),
//! the built-ins `caller`, `stackdepth`, `ucaller` and `ustackdepth`, all from
//! `bpf_get_stack` on the program's context (saved at [`FP_CTX`] by the clause
//! prologue), and the user symbol values `uaddr()`/`usym()`/`ufunc()`/`umod()`.
//!
//! A user stack or symbol value starts with the pid of the process whose
//! addresses follow, so the consumer can resolve them (also after it exits).
//! User frames come from the kernel's frame-pointer walk of the user stack.
//! `stackdepth`/`ustackdepth` in an expression count up to `maxframes`
//! frames (the kernel stops at `kernel.perf_event_max_stack` too); a traced
//! or printed `ustackdepth` is instead recorded with a stack copy for the
//! consumer to unwind (see `record.rs`).
//! BEGIN and END have no kernel stack (`stackdepth` 0, `caller` 0, `stack()`
//! empty): DTrace fires them in dtrace's own context, not at a kernel event.

use crate::gen::{Gen, Val, DCTX, FP_CTX, FP_RECORD, FP_SCRATCH};
use dtrace_bpf::{helper, AluOp, Insn, JmpOp, Reg, Size};
use dtrace_sema::{ProbeKind, StackKind, TExpr, MAX_STACK_FRAMES};

/// `bpf_get_stack` flag: the user stack.
const BPF_F_USER_STACK: i32 = 1 << 8;

/// 8-byte words of a stack value of `frames` frames and `kind`.
pub fn stack_words(frames: u32, kind: StackKind) -> u32 {
    let frames = frames.min(MAX_STACK_FRAMES);
    if kind == StackKind::Kernel {
        frames
    } else {
        frames + 1
    }
}

/// Frames of the probe machinery at the top of a raw-tracepoint program's
/// kernel stack: the clause subprogram, the trampoline, and the two tracepoint
/// functions that ran it (`bpf_trace_run2` and `__bpf_trace_<tp>`, or for
/// BEGIN/END the two `BPF_PROG_TEST_RUN` functions). One fewer for a clause
/// run in line in its trampoline (a probe's only clause: `link.rs`). A perf-event program's
/// stack starts at the interrupted instruction: nothing to skip. When several
/// programs share a tracepoint the kernel adds an iterator frame
/// (`__traceiter_<tp>`): `stack()` output drops it by name in the consumer,
/// while `caller` and `stackdepth` then count it.
pub const RAW_TP_FRAMES: i32 = 4;

/// Frames above a perf tracepoint's probe site (the perf glue that captured
/// the registers the stack starts from).
pub const PERF_TP_FRAMES: i32 = 1;

impl<'a> Gen<'a> {
    /// Store the current pid (tgid) at `dctx + off`.
    fn store_pid(&mut self, off: u32) {
        self.a.call_helper(helper::GET_CURRENT_PID_TGID);
        self.a.emit(Insn::alu64_imm(AluOp::Rsh, Reg::R0, 32));
        self.a
            .emit(Insn::stx_mem(Size::DW, DCTX, Reg::R0, off as i16));
    }

    /// Gather up to `frames` return addresses (kernel, or with `user` the
    /// pid then user addresses) into a zeroed dctx temporary; returns its dctx
    /// offset, with r0 = bytes of frames written (< 0 when the kernel has no
    /// stack to give).
    fn gather_stack(&mut self, frames: u32, user: bool) -> u32 {
        let frames = frames.clamp(1, MAX_STACK_FRAMES);
        let size = frames * 8;
        let lead = if user { 8 } else { 0 };
        let off = self.tmp_str(size + lead);
        self.zero(DCTX, off as i16, size + lead);
        if user {
            self.store_pid(off);
        }
        if !user && self.in_dtrace_context() {
            // BEGIN and END fire in dtrace's own context, as on the probe
            // itself in DTrace: there is no kernel stack to report.
            self.a.emit(Insn::mov64_imm(Reg::R0, 0));
            return off;
        }
        self.a
            .emit(Insn::ldx_mem(Size::DW, Reg::R1, Reg::FP, FP_CTX));
        self.dctx_ptr(Reg::R2, off + lead);
        self.a.emit(Insn::mov64_imm(Reg::R3, size as i32));
        let skip = match self.probes.first().map(|p| &p.kind) {
            _ if user => BPF_F_USER_STACK,
            Some(ProbeKind::Profile { .. } | ProbeKind::Tick { .. } | ProbeKind::Cpc { .. }) => 0,
            _ => self.l.stack_skip,
        };
        self.a.emit(Insn::mov64_imm(Reg::R4, skip));
        self.a.call_helper(helper::GET_STACK);
        off
    }

    /// Whether every probe of the clause is BEGIN or END (run by dtrace itself,
    /// not at a kernel event).
    fn in_dtrace_context(&self) -> bool {
        !self.probes.is_empty()
            && self
                .probes
                .iter()
                .all(|p| matches!(p.kind, ProbeKind::Begin | ProbeKind::End))
    }

    /// `stack(frames)` / `ustack(frames)`: the address of the gathered frames.
    pub fn stack_value(&mut self, frames: u32, kind: StackKind) -> Val {
        let off = self.gather_stack(frames, kind != StackKind::Kernel);
        let d = self.alloc(true);
        let w = self.work_reg(d, Reg::R0);
        self.dctx_ptr(w, off);
        self.put(d, w);
        d
    }

    /// `uaddr(a)` and friends: the pid and the address, in a dctx temporary.
    pub fn user_sym_value(&mut self, addr: &TExpr) -> Val {
        let off = self.tmp_str(16);
        let v = self.expr(addr);
        let r = self.get(v, Reg::R1);
        self.a
            .emit(Insn::stx_mem(Size::DW, DCTX, r, (off + 8) as i16));
        self.free(v);
        self.store_pid(off);
        let d = self.alloc(true);
        let w = self.work_reg(d, Reg::R0);
        self.dctx_ptr(w, off);
        self.put(d, w);
        d
    }

    /// `stackdepth`/`ustackdepth`: the number of frames; `caller`/`ucaller`:
    /// the second frame (the first is the probe site itself), 0 when there is none.
    pub fn stack_builtin(&mut self, depth: bool, user: bool) -> Val {
        if user && !depth && self.at_function_entry() {
            return self.entry_return_address();
        }
        let off = self.gather_stack(self.opts.frame_cap(), user);
        let first = off + if user { 8 } else { 0 };
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
                .emit(Insn::ldx_mem(Size::DW, w, DCTX, (first + 8) as i16));
        }
        self.put(d, w);
        d
    }

    /// Whether every probe of this clause fires on the first instruction of
    /// a function (pid `entry` probes), where the word at the user stack
    /// pointer is the return address into the caller.
    fn at_function_entry(&self) -> bool {
        !self.probes.is_empty()
            && self.probes.iter().all(|p| {
                matches!(p.kind, ProbeKind::Uprobe { ret: false })
                    && p.name == "entry"
                    && p.provider.starts_with("pid")
            })
    }

    /// `ucaller` at a function's entry: the return address at the user stack
    /// pointer, which needs no frame pointer (the kernel's frame-pointer walk
    /// skips the caller there, or stops in code built without frame
    /// pointers). 0 when it cannot be read.
    fn entry_return_address(&mut self) -> Val {
        let off = self.tmp_str(8);
        self.a.emit(Insn::st_mem(Size::DW, DCTX, off as i16, 0));
        self.dctx_ptr(Reg::R1, off);
        self.a.emit(Insn::mov64_imm(Reg::R2, 8));
        self.a
            .emit(Insn::ldx_mem(Size::DW, Reg::R3, Reg::FP, FP_CTX));
        self.a
            .emit(Insn::ldx_mem(Size::DW, Reg::R3, Reg::R3, PT_REGS_SP as i16));
        self.a.call_helper(helper::PROBE_READ_USER);
        let d = self.alloc(false);
        let w = self.work_reg(d, Reg::R1);
        self.a.emit(Insn::ldx_mem(Size::DW, w, DCTX, off as i16));
        self.put(d, w);
        d
    }

    /// Copy a stack value (`src` holds its address in dctx) of `words` 8-byte
    /// words (see [`stack_words`]) to `dst + off`.
    pub fn copy_stack(&mut self, dst: Reg, off: i16, src: Reg, words: u32) {
        for i in 0..words.min(MAX_STACK_FRAMES + 1) {
            let o = (i * 8) as i16;
            self.a.emit(Insn::ldx_mem(Size::DW, Reg::R0, src, o));
            self.a.emit(Insn::stx_mem(Size::DW, dst, Reg::R0, off + o));
        }
    }

    /// The user registers and `pages` pages of user stack, into the record at
    /// `off` (see [`crate::desc::ValueType::UserStack`]). The registers come
    /// from the task's saved user `pt_regs` (valid in any probe context);
    /// pages are read one by one from the page holding sp upwards, stopping
    /// at the first that cannot be read (the top of the stack).
    pub fn capture_user_stack(&mut self, off: u32, pages: u32) {
        let page = crate::desc::USTACK_PAGE;
        let rec = |g: &mut Self, reg: Reg| {
            g.a.emit(Insn::ldx_mem(Size::DW, reg, Reg::FP, FP_RECORD));
        };
        self.a.call_helper(helper::GET_CURRENT_TASK_BTF);
        self.a.emit(Insn::mov64_reg(Reg::R1, Reg::R0));
        self.a.call_helper(helper::TASK_PT_REGS);
        // ip, cs, flags, sp (pt_regs offsets 128..160), then bp (offset 32).
        self.a
            .emit(Insn::stx_mem(Size::DW, Reg::FP, Reg::R0, FP_SCRATCH));
        rec(self, Reg::R1);
        self.a
            .emit(Insn::alu64_imm(AluOp::Add, Reg::R1, off as i32));
        self.a.emit(Insn::mov64_imm(Reg::R2, 32));
        self.a.emit(Insn::mov64_reg(Reg::R3, Reg::R0));
        self.a
            .emit(Insn::alu64_imm(AluOp::Add, Reg::R3, PT_REGS_IP));
        self.a.call_helper(helper::PROBE_READ_KERNEL);
        rec(self, Reg::R1);
        self.a
            .emit(Insn::alu64_imm(AluOp::Add, Reg::R1, (off + 32) as i32));
        self.a.emit(Insn::mov64_imm(Reg::R2, 8));
        self.a
            .emit(Insn::ldx_mem(Size::DW, Reg::R3, Reg::FP, FP_SCRATCH));
        self.a
            .emit(Insn::alu64_imm(AluOp::Add, Reg::R3, PT_REGS_BP));
        self.a.call_helper(helper::PROBE_READ_KERNEL);
        // The copy starts at sp's page.
        rec(self, Reg::R1);
        self.a
            .emit(Insn::ldx_mem(Size::DW, Reg::R2, Reg::R1, (off + 24) as i16));
        self.a
            .emit(Insn::alu64_imm(AluOp::And, Reg::R2, !(page as i32 - 1)));
        self.a
            .emit(Insn::stx_mem(Size::DW, Reg::R1, Reg::R2, (off + 40) as i16));
        self.a
            .emit(Insn::st_mem(Size::DW, Reg::R1, (off + 48) as i16, 0));
        let done = self.a.label();
        let data = off + crate::desc::USTACK_REGS * 8;
        for i in 0..pages {
            rec(self, Reg::R1);
            self.a
                .emit(Insn::ldx_mem(Size::DW, Reg::R3, Reg::R1, (off + 40) as i16));
            self.a.jmp_imm(JmpOp::Eq, Reg::R3, 0, done);
            if i > 0 {
                self.a
                    .emit(Insn::alu64_imm(AluOp::Add, Reg::R3, (i * page) as i32));
            }
            self.a.emit(Insn::alu64_imm(
                AluOp::Add,
                Reg::R1,
                (data + i * page) as i32,
            ));
            self.a.emit(Insn::mov64_imm(Reg::R2, page as i32));
            self.a.call_helper(helper::PROBE_READ_USER);
            self.a.jmp_imm(JmpOp::Ne, Reg::R0, 0, done);
            rec(self, Reg::R1);
            self.a.emit(Insn::st_mem(
                Size::DW,
                Reg::R1,
                (off + 48) as i16,
                (i + 1) as i32,
            ));
        }
        self.a.bind(done);
    }
}

/// Offsets in x86-64 `struct pt_regs`.
const PT_REGS_IP: i32 = 128;
const PT_REGS_BP: i32 = 32;
const PT_REGS_SP: i32 = 152;
