//! `d_path(struct path *)`: the path name of a file, as the kernel's `d_path()`
//! writes it. The kernel's `bpf_d_path` helper is allowed only in a few
//! fentry/LSM programs, so the name is built by a walk in BPF over the
//! kernel's structures (code generation's `strfn/dpath.rs`); here the call is
//! typed and the member offsets that walk needs are read from the kernel's BTF.
//!
//! The libraries' `__dt_d_path(mnt, dentry)` intrinsic is the same walk from a
//! `struct vfsmount *` and a `struct dentry *` (`fileinfo_t`'s `fi_mount` is
//! the path of a mount's root).

use crate::check::{Checker, R};
use crate::expr::mk;
use crate::ir::*;
use dtrace_syntax::ast::{self, ExprKind as K};
use dtrace_syntax::{Diagnostic, Span, Tag};

/// Byte offsets of the kernel members `d_path()`'s walk reads (from BTF).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct DPathOffsets {
    /// `struct dentry`: `d_parent`, `d_name.name`, `d_hash.pprev` (NULL
    /// once the dentry is unhashed: its file deleted).
    pub dentry_parent: u32,
    pub dentry_name: u32,
    pub dentry_hash_pprev: u32,
    /// `struct vfsmount`: `mnt_root`.
    pub vfsmount_root: u32,
    /// `struct mount`: `mnt` (the embedded `struct vfsmount`), `mnt_parent`,
    /// `mnt_mountpoint`.
    pub mount_mnt: u32,
    pub mount_parent: u32,
    pub mount_mountpoint: u32,
    /// `struct task_struct`: `fs`; `struct fs_struct`: `root.mnt`, `root.dentry`.
    pub task_fs: u32,
    pub fs_root_mnt: u32,
    pub fs_root_dentry: u32,
    /// For the names of pseudo files: `struct dentry`'s `d_sb` and `d_inode`,
    /// `struct super_block`'s `s_type`, `struct file_system_type`'s `name`,
    /// `struct inode`'s `i_ino`.
    pub dentry_sb: u32,
    pub dentry_inode: u32,
    pub sb_type: u32,
    pub fstype_name: u32,
    pub inode_ino: u32,
}

impl<'a> Checker<'a> {
    /// `d_path(p)`: the walk from `p->mnt` and `p->dentry`.
    pub(crate) fn d_path(&mut self, path: &ast::Expr, span: Span) -> R<TExpr> {
        let field = |name: &str| ast::Expr {
            kind: K::Member {
                base: Box::new(path.clone()),
                name: name.to_string(),
                arrow: true,
            },
            span: path.span,
        };
        let mnt = self.expr(&field("mnt"))?;
        let dentry = self.expr(&field("dentry"))?;
        self.d_path_of(mnt, dentry, span)
    }

    /// The walk from a `struct vfsmount` address and a `struct dentry` address.
    pub(crate) fn d_path_of(&mut self, mnt: TExpr, dentry: TExpr, span: Span) -> R<TExpr> {
        let offs = self.d_path_offsets().ok_or_else(|| {
            Diagnostic::new(
                Tag::D_FUNC_UNDEF,
                span,
                "d_path( ) needs the kernel's types (BTF) of struct dentry, struct mount and struct fs_struct",
            )
        })?;
        let ulong = self.b.ulong;
        let addr = |e: TExpr| {
            if e.ty.is_ptr() {
                crate::ptr::retype(e, ulong)
            } else {
                crate::expr::convert(e, ulong)
            }
        };
        let ty = self.str_ty(self.opts.strsize.clamp(1, 1 << 16) + 1);
        let k = TExprKind::DPath {
            mnt: Box::new(addr(mnt)),
            dentry: Box::new(addr(dentry)),
            offs,
        };
        Ok(mk(k, ty, span))
    }

    /// The offsets of the members the walk reads, from the kernel's BTF.
    fn d_path_offsets(&mut self) -> Option<DPathOffsets> {
        let mut off = |ty: &str, path: &[&str]| -> Option<u32> {
            dtrace_ctypes::query::offset_of_path(self.types, ty, path)
                .ok()
                .map(|m| (m.bit_offset / 8) as u32)
        };
        Some(DPathOffsets {
            dentry_parent: off("struct dentry", &["d_parent"])?,
            dentry_name: off("struct dentry", &["d_name", "name"])?,
            dentry_hash_pprev: off("struct dentry", &["d_hash", "pprev"])?,
            vfsmount_root: off("struct vfsmount", &["mnt_root"])?,
            mount_mnt: off("struct mount", &["mnt"])?,
            mount_parent: off("struct mount", &["mnt_parent"])?,
            mount_mountpoint: off("struct mount", &["mnt_mountpoint"])?,
            task_fs: off("struct task_struct", &["fs"])?,
            fs_root_mnt: off("struct fs_struct", &["root", "mnt"])?,
            fs_root_dentry: off("struct fs_struct", &["root", "dentry"])?,
            dentry_sb: off("struct dentry", &["d_sb"])?,
            dentry_inode: off("struct dentry", &["d_inode"])?,
            sb_type: off("struct super_block", &["s_type"])?,
            fstype_name: off("struct file_system_type", &["name"])?,
            inode_ino: off("struct inode", &["i_ino"])?,
        })
    }
}
