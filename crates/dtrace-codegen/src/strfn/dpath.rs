//! `d_path()`: a file's path name, built in BPF as the kernel's `d_path()`
//! builds it (the `bpf_d_path` helper is refused outside a few fentry/LSM
//! hooks). From the dentry, up the `d_parent` links, each name collected;
//! at the root of a mount, on to where it is mounted (`struct mount`'s
//! `mnt_mountpoint` in its `mnt_parent`); the walk stops at the current
//! process's root (`current->fs->root`), at the root of the mount tree, or at
//! a dentry that is its own parent (a pseudo file's, or a disconnected one).
//! The names are then written from the top down, each after a "/", with at
//! most `strsize` bytes in all; a walk that collected no name gives "/".
//!
//! A deleted file's path ends in " (deleted)" (its dentry is unhashed), as
//! the kernel writes it.
//!
//! A pipe's, socket's or anonymous inode's file is a dentry of its own with
//! no name above it; the kernel names those by their file system
//! (`d_dname`): "pipe:[INO]", "socket:[INO]", "anon_inode:NAME". So does
//! this walk, telling the file system by its type's name.
//!
//! The subprogram keeps its state in the argument area (so the verifier sees
//! unknown values there, bounded by explicit checks) and counts its steps in
//! a register: at most [`MAX_STEPS`] links and [`MAX_NAMES`] names, so a
//! deeper path loses its top components.

use super::regs::{R0, R1, R2, R3, R6, R7};
use super::subr::Subr;
use super::Buf;
use crate::asm::Asm;
use crate::expr::str_cap;
use crate::gen::{Gen, Val};
use dtrace_bpf::{helper, AluOp, Insn, JmpOp, Reg, Size};
use dtrace_sema::{DPathOffsets, TExpr, Ty};

/// The most links (parents and mount crossings) the walk follows.
pub const MAX_STEPS: i32 = 96;
/// The most names it collects.
pub const MAX_NAMES: u32 = 64;
/// Room past `2 * cd` in the result's buffer for a pseudo file's name
/// ("socket:[" and 20 digits and "]"), cut at `lim` after.
const PSEUDO_ROOM: u32 = 40;

/// Argument-area slots: in, the `struct vfsmount` and dentry addresses.
const S_MNT: i16 = 0;
const S_DENTRY: i16 = 8;
const S_ROOT_MNT: i16 = 16;
const S_ROOT_DENTRY: i16 = 24;
const S_READ: i16 = 32;
const S_PARENT: i16 = 40;
const S_N: i16 = 48;
const S_POS: i16 = 56;
/// Bit 0: the walk stopped at a dentry that is its own parent, not a root;
/// bit 1: the file was deleted (its dentry unhashed, and not its own parent).
const S_ALONE: i16 = 64;
const S_INO: i16 = 72;

const R8: Reg = Reg::R8;
const R9: Reg = Reg::R9;

impl<'a> Gen<'a> {
    pub(crate) fn d_path(
        &mut self,
        mnt: &TExpr,
        dentry: &TExpr,
        offs: &DPathOffsets,
        ty: &Ty,
    ) -> Val {
        let m = self.expr(mnt);
        let d = self.expr(dentry);
        let area = self.tmp_str(super::A_SIZE);
        let r = self.get(m, R1);
        self.a_store(area, S_MNT, r);
        let r = self.get(d, R1);
        self.a_store(area, S_DENTRY, r);
        self.free(m);
        self.free(d);
        let cd = str_cap(ty);
        let lim = self.str_lim();
        // Twice the capacity: the verifier sees each name's read start
        // anywhere below `lim` and run up to `lim` bytes.
        let dst = self.tmp_str(2 * cd + PSEUDO_ROOM);
        let names = self.tmp_str(MAX_NAMES * 8);
        let sub = Subr::DPath {
            cd,
            lim,
            offs: *offs,
        };
        self.call_subr(sub, area, &[Buf::Tmp(dst), Buf::Tmp(names)]);
        self.tmp_val(dst)
    }
}

/// `A[dst] = *(u64 *)(reg + off)` in kernel memory (0 when unreadable).
fn read8(a: &mut Asm, dst: i16, addr: Reg, off: u32) {
    if addr != R3 {
        a.emit(Insn::mov64_reg(R3, addr));
    }
    a.emit(Insn::alu64_imm(AluOp::Add, R3, off as i32));
    a.emit(Insn::mov64_reg(R1, R6));
    a.emit(Insn::alu64_imm(AluOp::Add, R1, dst as i32));
    a.emit(Insn::mov64_imm(R2, 8));
    a.call_helper(helper::PROBE_READ_KERNEL);
}

fn ld(a: &mut Asm, dst: Reg, slot: i16) {
    a.emit(Insn::ldx_mem(Size::DW, dst, R6, slot));
}

fn st(a: &mut Asm, slot: i16, src: Reg) {
    a.emit(Insn::stx_mem(Size::DW, R6, src, slot));
}

/// r1 = the area, r2 = dst (`2 * cd + PSEUDO_ROOM` bytes), r3 = the name pointers
/// ([`MAX_NAMES`] words). r6 = area, r7 = step count, r8 = names, r9 = dst.
pub(super) fn build(a: &mut Asm, cd: u32, lim: u32, o: DPathOffsets) {
    let (walk, not_root, name, emit, write, next, done) = (
        a.label(),
        a.label(),
        a.label(),
        a.label(),
        a.label(),
        a.label(),
        a.label(),
    );
    a.emit(Insn::mov64_reg(R6, R1));
    a.emit(Insn::mov64_reg(R9, R2));
    a.emit(Insn::mov64_reg(R8, R3));
    for i in 0..cd / 8 {
        a.emit(Insn::st_mem(Size::DW, R9, (i * 8) as i16, 0));
    }
    // The walk holds the `struct mount` around the vfsmount.
    ld(a, R0, S_MNT);
    a.emit(Insn::alu64_imm(AluOp::Sub, R0, o.mount_mnt as i32));
    st(a, S_MNT, R0);
    // The process's root: current->fs->root.
    a.call_helper(helper::GET_CURRENT_TASK);
    read8(a, S_READ, R0, o.task_fs);
    ld(a, R3, S_READ);
    read8(a, S_ROOT_MNT, R3, o.fs_root_mnt);
    ld(a, R3, S_READ);
    read8(a, S_ROOT_DENTRY, R3, o.fs_root_dentry);
    a.emit(Insn::st_mem(Size::DW, R6, S_N, 0));
    // Deleted: " (deleted)" follows the path, as the kernel writes it.
    let kept = a.label();
    ld(a, R3, S_DENTRY);
    read8(a, S_READ, R3, o.dentry_hash_pprev);
    ld(a, R3, S_DENTRY);
    read8(a, S_PARENT, R3, o.dentry_parent);
    a.emit(Insn::mov64_imm(R0, 0));
    ld(a, R1, S_READ);
    a.jmp_imm(JmpOp::Ne, R1, 0, kept);
    ld(a, R1, S_PARENT);
    ld(a, R2, S_DENTRY);
    a.jmp_reg(JmpOp::Eq, R1, R2, kept);
    a.emit(Insn::mov64_imm(R0, 2));
    a.bind(kept);
    st(a, S_ALONE, R0);
    a.emit(Insn::mov64_imm(R7, 0));

    a.bind(walk);
    a.leave_imm(JmpOp::Ge, R7, MAX_STEPS, emit);
    a.emit(Insn::alu64_imm(AluOp::Add, R7, 1));
    ld(a, R1, S_DENTRY);
    ld(a, R2, S_ROOT_DENTRY);
    a.jmp_reg(JmpOp::Ne, R1, R2, not_root);
    ld(a, R1, S_MNT);
    a.emit(Insn::alu64_imm(AluOp::Add, R1, o.mount_mnt as i32));
    ld(a, R2, S_ROOT_MNT);
    a.jmp_reg(JmpOp::Eq, R1, R2, emit);
    a.bind(not_root);
    ld(a, R3, S_DENTRY);
    read8(a, S_PARENT, R3, o.dentry_parent);
    ld(a, R3, S_MNT);
    read8(a, S_READ, R3, o.mount_mnt + o.vfsmount_root);
    ld(a, R1, S_READ);
    ld(a, R2, S_DENTRY);
    a.jmp_reg(JmpOp::Ne, R1, R2, name);
    // The root of its mount: on from where it is mounted, unless this is the
    // root of the tree (a mount that is its own parent).
    ld(a, R3, S_MNT);
    read8(a, S_READ, R3, o.mount_parent);
    ld(a, R1, S_READ);
    ld(a, R2, S_MNT);
    a.jmp_reg(JmpOp::Eq, R1, R2, emit);
    a.jmp_imm(JmpOp::Eq, R1, 0, emit);
    ld(a, R3, S_MNT);
    read8(a, S_DENTRY, R3, o.mount_mountpoint);
    ld(a, R1, S_READ);
    st(a, S_MNT, R1);
    a.ja(walk);

    a.bind(name);
    ld(a, R1, S_PARENT);
    ld(a, R2, S_DENTRY);
    let linked = a.label();
    a.jmp_reg(JmpOp::Ne, R1, R2, linked);
    ld(a, R0, S_ALONE);
    a.emit(Insn::alu64_imm(AluOp::Or, R0, 1));
    st(a, S_ALONE, R0);
    a.ja(emit);
    a.bind(linked);
    a.jmp_imm(JmpOp::Eq, R1, 0, emit);
    ld(a, R0, S_N);
    a.jmp_imm(JmpOp::Ge, R0, MAX_NAMES as i32, emit);
    // names[n] = dentry->d_name.name
    a.emit(Insn::alu64_imm(AluOp::Lsh, R0, 3));
    a.emit(Insn::mov64_reg(R1, R8));
    a.emit(Insn::alu64_reg(AluOp::Add, R1, R0));
    a.emit(Insn::mov64_imm(R2, 8));
    ld(a, R3, S_DENTRY);
    a.emit(Insn::alu64_imm(AluOp::Add, R3, o.dentry_name as i32));
    a.call_helper(helper::PROBE_READ_KERNEL);
    ld(a, R0, S_N);
    a.emit(Insn::alu64_imm(AluOp::Add, R0, 1));
    st(a, S_N, R0);
    ld(a, R1, S_PARENT);
    st(a, S_DENTRY, R1);
    a.ja(walk);

    a.bind(emit);
    ld(a, R0, S_N);
    a.jmp_imm(JmpOp::Ne, R0, 0, write);
    let slash = a.label();
    ld(a, R0, S_ALONE);
    a.emit(Insn::alu64_imm(AluOp::And, R0, 1));
    a.jmp_imm(JmpOp::Eq, R0, 0, slash);
    pseudo(a, cd, lim, &o, slash, done);
    a.bind(slash);
    a.emit(Insn::st_mem(Size::B, R9, 0, b'/' as i32));
    a.ja(done);

    let tail = a.label();
    // From the top name down: "/" and the name, up to `lim` bytes.
    a.bind(write);
    a.emit(Insn::st_mem(Size::DW, R6, S_POS, 0));
    a.emit(Insn::mov64_imm(R7, 0));
    a.bind(next);
    a.leave_imm(JmpOp::Ge, R7, MAX_NAMES as i32, tail);
    a.emit(Insn::alu64_imm(AluOp::Add, R7, 1));
    ld(a, R0, S_N);
    a.leave_imm(JmpOp::Eq, R0, 0, tail);
    a.emit(Insn::alu64_imm(AluOp::Sub, R0, 1));
    st(a, S_N, R0);
    a.leave_imm(JmpOp::Ge, R0, MAX_NAMES as i32, tail);
    ld(a, R1, S_POS);
    a.leave_imm(JmpOp::Ge, R1, lim as i32, tail);
    a.emit(Insn::mov64_reg(R2, R9));
    a.emit(Insn::alu64_reg(AluOp::Add, R2, R1));
    a.emit(Insn::st_mem(Size::B, R2, 0, b'/' as i32));
    a.emit(Insn::alu64_imm(AluOp::Add, R1, 1));
    st(a, S_POS, R1);
    // r3 = names[n]
    a.emit(Insn::alu64_imm(AluOp::Lsh, R0, 3));
    a.emit(Insn::mov64_reg(R3, R8));
    a.emit(Insn::alu64_reg(AluOp::Add, R3, R0));
    a.emit(Insn::ldx_mem(Size::DW, R3, R3, 0));
    // r2 = lim + 1 - pos (pos in 1..=lim), r1 = dst + pos
    a.emit(Insn::mov64_imm(R2, lim as i32 + 1));
    a.emit(Insn::alu64_reg(AluOp::Sub, R2, R1));
    a.emit(Insn::alu64_reg(AluOp::Add, R1, R9));
    a.call_helper(helper::PROBE_READ_KERNEL_STR);
    a.jmp_imm(JmpOp::Sle, R0, 1, next);
    a.emit(Insn::alu64_imm(AluOp::Sub, R0, 1));
    ld(a, R1, S_POS);
    a.emit(Insn::alu64_reg(AluOp::Add, R1, R0));
    st(a, S_POS, R1);
    a.ja(next);

    // A deleted file's path ends in " (deleted)", as far as `lim` allows.
    a.bind(tail);
    ld(a, R0, S_ALONE);
    a.emit(Insn::alu64_imm(AluOp::And, R0, 2));
    a.jmp_imm(JmpOp::Eq, R0, 0, done);
    for (i, c) in b" (deleted)".iter().enumerate() {
        ld(a, R1, S_POS);
        a.emit(Insn::alu64_imm(AluOp::Add, R1, i as i32));
        a.leave_imm(JmpOp::Ge, R1, lim as i32, done);
        a.emit(Insn::alu64_reg(AluOp::Add, R1, R9));
        a.emit(Insn::st_mem(Size::B, R1, 0, *c as i32));
    }

    a.bind(done);
    a.emit(Insn::mov64_imm(R0, 0));
    a.emit(Insn::exit());
}

/// The first 8 bytes of `s` (NUL-padded) as a little-endian word.
fn word(s: &[u8]) -> i64 {
    let mut b = [0u8; 8];
    for (d, c) in b.iter_mut().zip(s) {
        *d = *c;
    }
    i64::from_le_bytes(b)
}

/// A pseudo file's name, by its file system's type name (the first 8 bytes
/// compared, NUL included for the short ones); another file system goes on
/// at `other`. Ends at `done`.
fn pseudo(
    a: &mut Asm,
    cd: u32,
    lim: u32,
    o: &DPathOffsets,
    other: crate::asm::Label,
    done: crate::asm::Label,
) {
    let (pipe, sock, anon, number, cut) = (a.label(), a.label(), a.label(), a.label(), a.label());
    // r7 = the type name's first word.
    ld(a, R3, S_DENTRY);
    read8(a, S_READ, R3, o.dentry_sb);
    ld(a, R3, S_READ);
    read8(a, S_READ, R3, o.sb_type);
    ld(a, R3, S_READ);
    read8(a, S_READ, R3, o.fstype_name);
    ld(a, R3, S_READ);
    read8(a, S_READ, R3, 0);
    ld(a, R7, S_READ);
    // The inode number, for "pipe:[INO]" and "socket:[INO]".
    ld(a, R3, S_DENTRY);
    read8(a, S_INO, R3, o.dentry_inode);
    ld(a, R3, S_INO);
    read8(a, S_INO, R3, o.inode_ino);
    let short = 0x00ff_ffff_ffff_ffffu64 as i64;
    a.mov_imm(R1, short);
    a.emit(Insn::mov64_reg(R0, R7));
    a.emit(Insn::alu64_reg(AluOp::And, R0, R1));
    a.mov_imm(R1, word(b"pipefs\0"));
    a.jmp_reg(JmpOp::Eq, R0, R1, pipe);
    a.mov_imm(R1, word(b"sockfs\0"));
    a.jmp_reg(JmpOp::Eq, R0, R1, sock);
    a.mov_imm(R1, word(b"anon_ino"));
    a.jmp_reg(JmpOp::Eq, R7, R1, anon);
    a.ja(other);

    let lit = |a: &mut Asm, text: &[u8]| {
        for (i, c) in text.iter().enumerate() {
            a.emit(Insn::st_mem(Size::B, R9, i as i16, *c as i32));
        }
    };
    a.bind(pipe);
    lit(a, b"pipe:[");
    a.emit(Insn::mov64_imm(R8, 6));
    a.ja(number);
    a.bind(sock);
    lit(a, b"socket:[");
    a.emit(Insn::mov64_imm(R8, 8));
    a.ja(number);

    // "anon_inode:" and the dentry's name.
    a.bind(anon);
    let prefix = b"anon_inode:";
    lit(a, prefix);
    ld(a, R3, S_DENTRY);
    read8(a, S_READ, R3, o.dentry_name);
    a.emit(Insn::mov64_reg(R1, R9));
    a.emit(Insn::alu64_imm(AluOp::Add, R1, prefix.len() as i32));
    a.emit(Insn::mov64_imm(R2, 20));
    ld(a, R3, S_READ);
    a.call_helper(helper::PROBE_READ_KERNEL_STR);
    a.ja(cut);

    // r8 = where the number starts (6 or 8): its digits counted in r7 (at
    // least one), then written from the last one back, then "]".
    a.bind(number);
    let (count, counted, digit) = (a.label(), a.label(), a.label());
    ld(a, R0, S_INO);
    a.emit(Insn::mov64_imm(R7, 1));
    a.bind(count);
    a.leave_imm(JmpOp::Ge, R7, 20, counted);
    a.emit(Insn::alu64_imm(AluOp::Div, R0, 10));
    a.leave_imm(JmpOp::Eq, R0, 0, counted);
    a.emit(Insn::alu64_imm(AluOp::Add, R7, 1));
    a.ja(count);
    a.bind(counted);
    // r1 = dst + start + count: "]" there, digits before it.
    a.emit(Insn::mov64_reg(R1, R9));
    a.emit(Insn::alu64_reg(AluOp::Add, R1, R8));
    a.emit(Insn::alu64_reg(AluOp::Add, R1, R7));
    a.emit(Insn::st_mem(Size::B, R1, 0, b']' as i32));
    ld(a, R0, S_INO);
    a.bind(digit);
    a.leave_imm(JmpOp::Eq, R7, 0, cut);
    a.emit(Insn::alu64_imm(AluOp::Sub, R1, 1));
    a.emit(Insn::mov64_reg(R2, R0));
    a.emit(Insn::alu64_imm(AluOp::Mod, R2, 10));
    a.emit(Insn::alu64_imm(AluOp::Add, R2, b'0' as i32));
    a.emit(Insn::stx_mem(Size::B, R1, R2, 0));
    a.emit(Insn::alu64_imm(AluOp::Div, R0, 10));
    a.emit(Insn::alu64_imm(AluOp::Sub, R7, 1));
    a.ja(digit);

    // At most `lim` bytes: NULs from `lim` to the end of what was written.
    a.bind(cut);
    for i in lim..(lim + 1).max(cd).max(PSEUDO_ROOM) {
        a.emit(Insn::st_mem(Size::B, R9, i as i16, 0));
    }
    a.ja(done);
}
