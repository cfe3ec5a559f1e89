//! The `syscall` provider: `syscall:vmlinux:<name>:entry` and `:return` for every
//! system call.
//!
//! Arguments are typed from the syscall's tracepoint format
//! (`syscalls/sys_enter_<name>/format`: `int dfd`, `const char * filename`...),
//! read when a description matches the probe ([`Provider::resolve`]), so `-lv`
//! shows them and `args[1]` of `openat` is a `const char *`. A syscall without
//! such a tracepoint keeps six `uint64_t` arguments.
//!
//! The probe's record fields say the per-syscall tracepoint exists; code
//! generation then picks the mechanism by how many syscalls a program enables:
//! their own tracepoints for a few (nothing on other syscalls, but ~71 ms each
//! to detach), the raw tracepoints `sys_enter`/`sys_exit` for many (instant to
//! detach, a few ns on every syscall), testing the syscall number in BPF.

use crate::sdt::parse_format;
use crate::syscalls_x86_64::SYSCALLS_X86_64;
use crate::{ProbeTemplate, Provider};
use dtrace_sema::{ArgDesc, ProbeKind};
use dtrace_sys::tracefs::Tracefs;

pub struct SyscallProvider;

/// Six untyped arguments: the entry probe's types before (or without) its format.
fn untyped() -> Vec<ArgDesc> {
    ArgDesc::natives(&["uint64_t"; 6])
}

impl Provider for SyscallProvider {
    fn name(&self) -> &'static str {
        "syscall"
    }

    fn attributes(&self) -> crate::ProviderAttrs {
        crate::stability::SYSCALL
    }

    fn list(&self) -> Vec<ProbeTemplate> {
        let mut v = Vec::with_capacity(SYSCALLS_X86_64.len() * 2);
        for &(nr, name) in SYSCALLS_X86_64 {
            v.push(ProbeTemplate {
                module: "vmlinux".into(),
                function: name.into(),
                name: "entry".into(),
                kind: ProbeKind::SyscallEntry { nr },
                args: untyped(),
                fields: Vec::new(),
            });
            v.push(ProbeTemplate {
                module: "vmlinux".into(),
                function: name.into(),
                name: "return".into(),
                kind: ProbeKind::SyscallReturn { nr },
                args: ArgDesc::natives(&["int64_t", "int64_t"]),
                fields: Vec::new(),
            });
        }
        v
    }

    /// Read the syscall's tracepoint format: the entry probe's argument types,
    /// and for both probes the record layout (which says the tracepoint exists).
    fn resolve(&self, t: &mut ProbeTemplate) -> Result<(), String> {
        let exit = match t.kind {
            ProbeKind::SyscallEntry { .. } => false,
            ProbeKind::SyscallReturn { .. } => true,
            _ => return Ok(()),
        };
        let Ok(fs) = Tracefs::find() else {
            return Ok(());
        };
        let dir = if exit { "exit" } else { "enter" };
        let Ok(format) = fs.event_format("syscalls", &format!("sys_{dir}_{}", t.function)) else {
            return Ok(());
        };
        let args: Vec<_> = parse_format(&format)
            .into_iter()
            .filter(|a| a.name != "__syscall_nr")
            .collect();
        if args.is_empty() && exit {
            return Ok(());
        }
        if !exit {
            let types: Vec<&str> = args.iter().map(|a| a.ty.as_str()).collect();
            t.args = ArgDesc::natives(&types);
        }
        t.fields = args.iter().map(|a| a.field).collect();
        if t.fields.is_empty() {
            // A syscall without arguments still has its tracepoint: record the
            // syscall number's slot so the tracepoint can be chosen.
            t.fields = parse_format(&format).iter().map(|a| a.field).collect();
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn entry_arguments_are_typed_from_the_tracepoint_format() {
        if Tracefs::find().is_err() {
            return; // not root: no tracefs
        }
        let mut c = crate::Catalog::new();
        let m = c.matches(&crate::ProbeDesc::parse("syscall::openat:entry").unwrap_or_default());
        assert_eq!(m.len(), 1);
        let shown = |p: &dtrace_sema::ProbeInfo| -> Vec<String> {
            p.args.iter().map(|a| a.shown().to_string()).collect()
        };
        assert_eq!(shown(&m[0]), vec!["int", "const char *", "int", "umode_t"]);
        assert!(!m[0].fields.is_empty());
        let m = c.matches(&crate::ProbeDesc::parse("syscall::getpid:entry").unwrap_or_default());
        assert!(m[0].args.is_empty(), "{:?}", m[0].args);
        assert!(!m[0].fields.is_empty(), "getpid has its tracepoint");
        let m = c.matches(&crate::ProbeDesc::parse("syscall::openat:return").unwrap_or_default());
        assert_eq!(shown(&m[0]), vec!["int64_t", "int64_t"]);
        assert!(!m[0].fields.is_empty());
    }
}
