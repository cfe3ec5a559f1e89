//! Built-in variables (`pid`, `execname`, `probefunc`, `arg0`, ...).

use crate::expr::str_cap;
use crate::gen::{Gen, Val, DCTX, FP_SCRATCH};
use crate::layout;
use dtrace_bpf::{helper, AluOp, Insn, JmpOp, Reg, Size};
use dtrace_sema::{Builtin, Ty};

impl<'a> Gen<'a> {
    pub fn builtin(&mut self, b: Builtin, ty: &Ty) -> Val {
        match b {
            Builtin::Execname => {
                let off = self.tmp_str(16);
                self.zero(DCTX, off as i16, 16);
                self.dctx_ptr(Reg::R1, off);
                self.a.emit(Insn::mov64_imm(Reg::R2, 16));
                self.a.call_helper(helper::GET_CURRENT_COMM);
                // strsize below the comm size truncates (the NUL at strsize).
                let keep = self.opts.strsize.clamp(1, 15);
                for i in keep..16 {
                    self.a
                        .emit(Insn::st_mem(Size::B, DCTX, (off + i) as i16, 0));
                }
                let d = self.alloc(true);
                let w = self.work_reg(d, Reg::R0);
                self.dctx_ptr(w, off);
                self.put(d, w);
                return d;
            }
            Builtin::Probeprov | Builtin::Probemod | Builtin::Probefunc | Builtin::Probename => {
                return self.probe_string(b, ty);
            }
            Builtin::Caller => return self.stack_builtin(false, false),
            Builtin::Stackdepth => return self.stack_builtin(true, false),
            Builtin::UCaller => return self.stack_builtin(false, true),
            Builtin::UStackdepth => return self.stack_builtin(true, true),
            _ => {}
        }
        let d = self.alloc(false);
        let w = self.work_reg(d, Reg::R0);
        match b {
            Builtin::Pid | Builtin::Tid => {
                self.a.call_helper(helper::GET_CURRENT_PID_TGID);
                if b == Builtin::Pid {
                    self.a.emit(Insn::alu64_imm(AluOp::Rsh, Reg::R0, 32));
                }
                // pid_t / id_t are int: sign-extend the low 32 bits.
                self.a.emit(Insn::movsx64_reg(w, Reg::R0, 32));
            }
            Builtin::Uid | Builtin::Gid => {
                self.a.call_helper(helper::GET_CURRENT_UID_GID);
                if b == Builtin::Gid {
                    self.a.emit(Insn::alu64_imm(AluOp::Rsh, Reg::R0, 32));
                }
                self.a.emit(Insn::mov32_reg(w, Reg::R0));
            }
            Builtin::Ppid => {
                let k = self.opts.kernel;
                self.a.call_helper(helper::GET_CURRENT_TASK);
                // parent = task->real_parent
                self.a.emit(Insn::mov64_reg(Reg::R3, Reg::R0));
                self.a.emit(Insn::alu64_imm(
                    AluOp::Add,
                    Reg::R3,
                    k.task_real_parent as i32,
                ));
                self.a.emit(Insn::mov64_reg(Reg::R1, Reg::FP));
                self.a
                    .emit(Insn::alu64_imm(AluOp::Add, Reg::R1, FP_SCRATCH as i32));
                self.a.emit(Insn::mov64_imm(Reg::R2, 8));
                self.a.call_helper(helper::PROBE_READ_KERNEL);
                // ppid = parent->tgid
                self.a
                    .emit(Insn::ldx_mem(Size::DW, Reg::R3, Reg::FP, FP_SCRATCH));
                self.a
                    .emit(Insn::alu64_imm(AluOp::Add, Reg::R3, k.task_tgid as i32));
                self.a.emit(Insn::mov64_reg(Reg::R1, Reg::FP));
                self.a
                    .emit(Insn::alu64_imm(AluOp::Add, Reg::R1, FP_SCRATCH as i32));
                self.a.emit(Insn::mov64_imm(Reg::R2, 4));
                self.a.call_helper(helper::PROBE_READ_KERNEL);
                self.a
                    .emit(Insn::ldx_memsx(Size::W, w, Reg::FP, FP_SCRATCH));
            }
            Builtin::Curthread => {
                self.a.call_helper(helper::GET_CURRENT_TASK);
                self.a.emit(Insn::mov64_reg(w, Reg::R0));
            }
            Builtin::Cpu => {
                self.a.call_helper(helper::GET_SMP_PROCESSOR_ID);
                self.a.emit(Insn::movsx64_reg(w, Reg::R0, 32));
            }
            Builtin::Timestamp => {
                self.firing_timestamp();
                self.a.emit(Insn::mov64_reg(w, Reg::R0));
            }
            Builtin::Vtimestamp => {
                self.a.call_helper(helper::KTIME_GET_NS);
                self.a.emit(Insn::mov64_reg(w, Reg::R0));
            }
            Builtin::Walltimestamp => {
                // The firing's timestamp moved to the wall clock: one value per
                // firing, as DTrace gives, and consistent with `timestamp`.
                self.firing_timestamp();
                self.a
                    .ld_map_value(Reg::R1, self.l.globals, layout::G_WALLTIME_OFFSET);
                self.a.emit(Insn::ldx_mem(Size::DW, Reg::R1, Reg::R1, 0));
                self.a.emit(Insn::alu64_reg(AluOp::Add, Reg::R0, Reg::R1));
                self.a.emit(Insn::mov64_reg(w, Reg::R0));
            }
            Builtin::Arg(n) => {
                let off = layout::D_ARGS + 8 * n as i16;
                self.a.emit(Insn::ldx_mem(Size::DW, w, DCTX, off));
            }
            Builtin::Id => {
                self.a
                    .emit(Insn::ldx_mem(Size::W, w, DCTX, layout::D_PROBE_ID));
            }
            Builtin::Epid => self.a.mov_imm(w, self.epid as i64),
            Builtin::Errno => {
                self.a
                    .emit(Insn::ldx_memsx(Size::W, w, DCTX, layout::D_ERRNO));
            }
            _ => self.a.emit(Insn::mov64_imm(w, 0)),
        }
        self.put(d, w);
        d
    }

    /// r0 = this firing's `timestamp`: the clock is read at the first use and
    /// kept in `D_TSTAMP` (cleared by the trampoline with the probe ID), so
    /// every read in one firing agrees, as DTrace's do.
    fn firing_timestamp(&mut self) {
        let have = self.a.label();
        self.a
            .emit(Insn::ldx_mem(Size::DW, Reg::R0, DCTX, layout::D_TSTAMP));
        self.a.jmp_imm(JmpOp::Ne, Reg::R0, 0, have);
        self.a.call_helper(helper::KTIME_GET_NS);
        self.a
            .emit(Insn::stx_mem(Size::DW, DCTX, Reg::R0, layout::D_TSTAMP));
        self.a.bind(have);
    }

    /// probeprov/probemod/probefunc/probename: a literal when every probe of the
    /// clause in this program agrees, else a lookup in the probe-name table.
    fn probe_string(&mut self, b: Builtin, ty: &Ty) -> Val {
        let field = match b {
            Builtin::Probeprov => 0,
            Builtin::Probemod => 1,
            Builtin::Probefunc => 2,
            _ => 3,
        };
        let pick = |p: &dtrace_sema::ProbeInfo| -> String {
            match field {
                0 => p.provider.to_string(),
                1 => p.module.to_string(),
                2 => p.function.to_string(),
                _ => p.name.to_string(),
            }
        };
        let vals: Vec<String> = self.probes.iter().map(pick).collect();
        let first = vals.first().cloned().unwrap_or_default();
        let want = str_cap(ty);
        // A clause that may gain probes while tracing looks its names up.
        let late = self.l.late_clauses.contains(&self.epid.wrapping_sub(1));
        if (vals.iter().all(|v| *v == first) && !late) || self.l.probeinfo.is_none() {
            // A literal of capacity round8(len+1) <= want; widen it for readers.
            // Like every string, at most strsize bytes.
            let mut bytes = first.into_bytes();
            bytes.truncate(self.opts.strsize as usize);
            let v = self.str_literal(&bytes);
            let have = crate::layout::round8(bytes.len() as u32 + 1).min(want);
            if have < want {
                let tmp = self.tmp_str(want);
                let r = self.get(v, Reg::R2);
                crate::strings::copy(&mut self.a, DCTX, tmp as i16, want, r, 0, have, Reg::R3);
                let w = self.work_reg(v, Reg::R0);
                self.dctx_ptr(w, tmp);
                self.put(v, w);
            }
            return v;
        }
        let map = self.l.probeinfo.unwrap_or(0);
        let caps = self.l.probe_caps;
        let off: u32 = caps[..field].iter().sum();
        let cap = caps[field];
        let tmp = self.tmp_str(want);
        // key = probe index
        self.a
            .emit(Insn::ldx_mem(Size::W, Reg::R0, DCTX, layout::D_PROBE_INDEX));
        self.a
            .emit(Insn::stx_mem(Size::W, Reg::FP, Reg::R0, FP_SCRATCH));
        self.a.ld_map(Reg::R1, map);
        self.a.emit(Insn::mov64_reg(Reg::R2, Reg::FP));
        self.a
            .emit(Insn::alu64_imm(AluOp::Add, Reg::R2, FP_SCRATCH as i32));
        self.a.call_helper(helper::MAP_LOOKUP_ELEM);
        let missing = self.a.label();
        let end = self.a.label();
        self.a.jmp_imm(dtrace_bpf::JmpOp::Eq, Reg::R0, 0, missing);
        crate::strings::copy(
            &mut self.a,
            DCTX,
            tmp as i16,
            want,
            Reg::R0,
            off as i16,
            cap,
            Reg::R3,
        );
        self.a.ja(end);
        self.a.bind(missing);
        self.zero(DCTX, tmp as i16, want);
        self.a.bind(end);
        let d = self.alloc(true);
        let w = self.work_reg(d, Reg::R0);
        self.dctx_ptr(w, tmp);
        self.put(d, w);
        d
    }
}

impl<'a> Gen<'a> {
    /// `__dt_curcpu()`: fill this CPU's `cpuinfo_t` in dctx and yield its address
    /// as an integer (stored and reloaded through dctx, so the verifier sees a
    /// number rather than a map pointer, and D may compute with it).
    /// `uregs[n]`: word `n` of the current task's user `pt_regs`
    /// (`bpf_task_pt_regs(bpf_get_current_task_btf())`), 0 if unreadable.
    pub fn uregs(&mut self, n: u8) -> Val {
        let slot = layout::D_CPUINFO + 16;
        self.a.emit(Insn::st_mem(Size::DW, DCTX, slot, 0));
        self.a.call_helper(helper::GET_CURRENT_TASK_BTF);
        self.a.emit(Insn::mov64_reg(Reg::R1, Reg::R0));
        self.a.call_helper(helper::TASK_PT_REGS);
        self.a.emit(Insn::mov64_reg(Reg::R3, Reg::R0));
        self.a
            .emit(Insn::alu64_imm(AluOp::Add, Reg::R3, 8 * i32::from(n)));
        self.dctx_ptr(Reg::R1, slot as u32);
        self.a.emit(Insn::mov64_imm(Reg::R2, 8));
        self.a.call_helper(helper::PROBE_READ_KERNEL);
        let d = self.alloc(false);
        let w = self.work_reg(d, Reg::R0);
        self.a.emit(Insn::ldx_mem(Size::DW, w, DCTX, slot));
        self.put(d, w);
        d
    }

    pub fn curcpu(&mut self) -> Val {
        let base = layout::D_CPUINFO;
        self.a.call_helper(helper::GET_SMP_PROCESSOR_ID);
        self.a.emit(Insn::stx_mem(Size::W, DCTX, Reg::R0, base));
        self.a.emit(Insn::st_mem(Size::W, DCTX, base + 4, -1));
        self.a.emit(Insn::st_mem(Size::W, DCTX, base + 8, -1));
        self.a.call_helper(helper::GET_NUMA_NODE_ID);
        self.a
            .emit(Insn::stx_mem(Size::W, DCTX, Reg::R0, base + 12));
        self.dctx_ptr(Reg::R1, base as u32);
        self.a
            .emit(Insn::stx_mem(Size::DW, DCTX, Reg::R1, base + 16));
        let d = self.alloc(false);
        let w = self.work_reg(d, Reg::R0);
        self.a.emit(Insn::ldx_mem(Size::DW, w, DCTX, base + 16));
        self.put(d, w);
        d
    }
}
