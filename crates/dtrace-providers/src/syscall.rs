//! The `syscall` provider: `syscall:vmlinux:<name>:entry` and `:return` for every
//! system call, all served by the raw tracepoints `sys_enter`/`sys_exit` with the
//! syscall number tested in BPF (per-syscall tracepoints cost ~70 ms each to detach).

use crate::syscalls_x86_64::SYSCALLS_X86_64;
use crate::{ProbeTemplate, Provider};
use dtrace_sema::{ArgDesc, ProbeKind};

pub struct SyscallProvider;

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
                args: ArgDesc::natives(&["uint64_t"; 6]),
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
}
