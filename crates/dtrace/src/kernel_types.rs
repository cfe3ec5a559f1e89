//! What compiling asks of the running kernel's types: the handle's type table
//! (kernel BTF as a lazy source), whether code generation needs the task
//! structure's offsets, and the word test that decides which provider
//! libraries a program names.

use dtrace_ctypes::{DataModel, KernelBtfFiles, TypeTable};
use dtrace_sema::{ProbeInfo, TypedProgram};

/// The type table of a handle: D's built-ins in data model `model`, with the
/// running kernel's BTF (`btf`, shared with the providers) as a lazy source
/// when the kernel publishes it.
pub(crate) fn type_table(model: DataModel, btf: &KernelBtfFiles) -> TypeTable {
    let mut t = TypeTable::with_model(model);
    if let Some(k) = dtrace_ctypes::KernelBtf::lazy_shared(btf) {
        t.set_kernel(k);
    }
    t
}

/// `-x ctfpath=FILE`: the compiler's kernel types come from FILE, a BTF
/// file for vmlinux (modules' BTF still from `/sys/kernel/btf`). DTrace names
/// a CTF archive here and, when it cannot be opened, uses the kernel's own
/// types; so do we, and say why: the text of that notice.
pub(crate) fn use_type_file(table: &mut TypeTable, file: &str) -> Result<(), String> {
    let modules = std::path::Path::new(dtrace_ctypes::kernel::SYS_BTF_DIR);
    match dtrace_ctypes::KernelBtf::from_file(
        std::path::Path::new(file),
        modules.is_dir().then_some(modules),
    ) {
        Ok(k) => {
            table.set_kernel(k);
            Ok(())
        }
        Err(e) => Err(format!(
            "Cannot open CTF archive {file}: {}; using the kernel's BTF instead",
            match e {
                // "No such file or directory (os error 2)": the words only.
                dtrace_ctypes::btf::BtfError::Io { message, .. } => message
                    .split(" (os error")
                    .next()
                    .unwrap_or_default()
                    .to_string(),
                e => e.to_string(),
            }
        )),
    }
}

/// Whether code generation needs the kernel's task-structure offsets: the
/// program reads `ppid` or calls `progenyof()`, or enables a kernel SDT probe
/// (their trampolines read the task and its exit code).
pub(crate) fn reads_task_offsets(typed: &TypedProgram, probes: &[Vec<ProbeInfo>]) -> bool {
    use dtrace_sema::{visit, Builtin, TExpr, TExprKind};
    fn walk(e: &TExpr) -> bool {
        let mut found = matches!(
            e.kind,
            TExprKind::Builtin(Builtin::Ppid) | TExprKind::Progenyof(_)
        );
        visit::each_child(e, &mut |c| found = found || walk(c));
        found
    }
    let kernel_sdt = probes
        .iter()
        .flatten()
        .any(|p| matches!(p.kind, dtrace_sema::ProbeKind::RawSdt { .. }));
    kernel_sdt
        || typed.clauses.iter().any(|c| {
            let mut found = c.predicate.as_ref().is_some_and(walk);
            for s in &c.body {
                visit::each_stmt_expr(s, &mut |e| found = found || walk(e));
            }
            found
        })
}

/// Does `word` occur in `text` as a whole identifier?
pub(crate) fn mentions_word(text: &str, word: &str) -> bool {
    let is_ident = |c: char| c.is_ascii_alphanumeric() || c == '_';
    text.match_indices(word).any(|(i, _)| {
        let before = text[..i].chars().next_back();
        let after = text[i + word.len()..].chars().next();
        !before.is_some_and(is_ident) && !after.is_some_and(is_ident)
    })
}

#[cfg(test)]
mod lazy_btf_tests {
    use super::*;
    use crate::{Dtrace, ProbeSpecKind, Source};
    use std::collections::HashMap;

    fn vmlinux_read(d: &Dtrace) -> bool {
        d.types.kernel().is_some_and(|k| !k.loaded().is_empty())
    }

    #[test]
    fn kernel_types_are_found_on_a_miss_and_only_then() {
        let Ok(mut d) = Dtrace::open(false) else {
            return;
        };
        if d.types.kernel().is_none() {
            return; // this kernel publishes no BTF
        }
        let none = HashMap::new();
        let plain = Source::Spec {
            kind: ProbeSpecKind::Name,
            text: "BEGIN { x = 1; trace(pid); exit(0); }".into(),
        };
        assert!(d.compile(&plain, &[], &none).is_ok());
        assert!(d.generate().is_ok());
        assert!(
            !vmlinux_read(&d),
            "a program without kernel types reads no BTF"
        );
        let typed = Source::Spec {
            kind: ProbeSpecKind::Name,
            text: "BEGIN { trace(((struct task_struct *)curthread)->pid); trace(ppid); }".into(),
        };
        assert!(
            d.compile(&typed, &[], &none).is_ok(),
            "compiled once, no retry"
        );
        assert!(d.generate().is_ok());
        assert!(vmlinux_read(&d));
        // ppid made code generation ask the table for task_struct's offsets.
        let mut t = TypeTable::with_builtins();
        assert!(t.load_kernel_btf().is_ok());
        let rp =
            dtrace_ctypes::query::offset_of_path(&mut t, "struct task_struct", &["real_parent"]);
        assert_eq!(
            rp.map(|m| (m.bit_offset / 8) as u32),
            Ok(d.offsets.task_real_parent)
        );
    }

    #[test]
    fn providers_and_the_type_table_share_one_read_of_kernel_btf() {
        let Ok(mut d) = Dtrace::open(false) else {
            return;
        };
        if d.types.kernel().is_none() {
            return; // this kernel publishes no BTF
        }
        let none = HashMap::new();
        // `-l` reads no BTF; `-lv` of an fbt probe reads its prototype.
        let fbt = Source::Spec {
            kind: ProbeSpecKind::Name,
            text: "fbt::vfs_read:entry".into(),
        };
        assert!(d.list_ids(Some(&fbt), &none, false).is_ok());
        assert!(!d.btf.is_read());
        let rows = d.list_probes(Some(&fbt), &none, true).map(|r| r.0);
        let types = rows.map(|r| r.first().map(|p| p.arg_types.clone()));
        assert_eq!(
            types
                .ok()
                .flatten()
                .and_then(|t| t.first().cloned())
                .as_deref(),
            Some("struct file *")
        );
        assert!(d.btf.is_read());
        // A program naming a kernel type finds vmlinux already read: the
        // table's source imports from the very blob fbt read.
        let typed = Source::Spec {
            kind: ProbeSpecKind::Name,
            text: "BEGIN { trace(((struct task_struct *)curthread)->pid); }".into(),
        };
        assert!(d.compile(&typed, &[], &none).is_ok());
        let shared = d.types.kernel().and_then(|k| k.vmlinux().ok().cloned());
        let read = d.btf.vmlinux().ok();
        assert!(matches!((shared, read), (Some(a), Some(b)) if std::sync::Arc::ptr_eq(&a, &b)));
    }

    #[test]
    fn finds_whole_identifiers_only() {
        assert!(mentions_word("BEGIN { trace(ppid); }", "ppid"));
        assert!(mentions_word("ppid", "ppid"));
        assert!(!mentions_word("BEGIN { trace(ppidx + xppid); }", "ppid"));
        assert!(!mentions_word("", "ppid"));
    }
}
