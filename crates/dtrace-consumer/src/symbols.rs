//! Kernel symbols for stacks and `%a`: addresses to `module`function+0xoff`, as
//! dtrace(1) prints them. The table is data (from `/proc/kallsyms`, read by the
//! caller), so formatting stays pure and testable.

use std::fmt;
use std::sync::Arc;

/// One function symbol.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Symbol {
    pub addr: u64,
    pub name: String,
    /// `None` for the kernel itself (printed as `vmlinux`).
    pub module: Option<String>,
}

/// A sorted symbol table, cheap to clone. Empty by default: addresses then print
/// in hex.
#[derive(Clone, Default)]
pub struct KernelSymbols {
    syms: Arc<Vec<Symbol>>,
}

impl fmt::Debug for KernelSymbols {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "KernelSymbols({} symbols)", self.syms.len())
    }
}

impl PartialEq for KernelSymbols {
    fn eq(&self, other: &Self) -> bool {
        Arc::ptr_eq(&self.syms, &other.syms) || self.syms == other.syms
    }
}

impl Eq for KernelSymbols {}

impl KernelSymbols {
    /// A table from symbols in any order (zero addresses are dropped).
    pub fn new(mut syms: Vec<Symbol>) -> KernelSymbols {
        syms.retain(|s| s.addr != 0);
        syms.sort_by_key(|s| s.addr);
        KernelSymbols {
            syms: Arc::new(syms),
        }
    }

    pub fn is_empty(&self) -> bool {
        self.syms.is_empty()
    }

    /// The symbol covering `addr` (the last one at or below it) and the offset.
    pub fn lookup(&self, addr: u64) -> Option<(&Symbol, u64)> {
        let i = self.syms.partition_point(|s| s.addr <= addr);
        let s = self.syms.get(i.checked_sub(1)?)?;
        Some((s, addr - s.addr))
    }

    /// `module`function+0xoff` (no `+0x0`), or `0xaddr` when no symbol covers
    /// the address: a stack frame and `%a`.
    pub fn describe(&self, addr: u64) -> String {
        match self.lookup(addr) {
            Some((s, off)) => {
                let m = s.module.as_deref().unwrap_or("vmlinux");
                if off == 0 {
                    format!("{m}`{}", s.name)
                } else {
                    format!("{m}`{}+0x{off:x}", s.name)
                }
            }
            None => format!("0x{addr:x}"),
        }
    }

    /// `module`function` without the offset (`sym()`/`func()`), or hex.
    pub fn function(&self, addr: u64) -> String {
        match self.lookup(addr) {
            Some((s, _)) => format!("{}`{}", s.module.as_deref().unwrap_or("vmlinux"), s.name),
            None => format!("0x{addr:x}"),
        }
    }

    /// The module covering `addr` (`vmlinux` for the kernel), or hex.
    pub fn module(&self, addr: u64) -> String {
        match self.lookup(addr) {
            Some((s, _)) => s.module.as_deref().unwrap_or("vmlinux").to_string(),
            None => format!("0x{addr:x}"),
        }
    }

    /// The frames of a stack to print: the trailing zeros dropped, and the
    /// leading frames of the probe machinery (the BPF program and the
    /// tracepoint glue that called it) left out, so a stack starts where the
    /// probe fired.
    pub fn frames<'a>(&self, pcs: &'a [u64]) -> &'a [u64] {
        let end = pcs.iter().position(|&p| p == 0).unwrap_or(pcs.len());
        let pcs = &pcs[..end];
        let skip = pcs
            .iter()
            .take_while(|&&pc| match self.lookup(pc) {
                Some((s, _)) => is_probe_machinery(&s.name),
                None => false,
            })
            .count();
        &pcs[skip..]
    }
}

/// Kernel functions that run a BPF program rather than being traced code.
fn is_probe_machinery(name: &str) -> bool {
    name.starts_with("bpf_")
        || name.starts_with("__bpf_")
        || name.starts_with("___bpf_")
        || name.starts_with("bpf_prog_")
        || name.starts_with("__traceiter_")
        || name.starts_with("perf_trace_")
        || name.starts_with("trace_call_bpf")
        || name.starts_with("__perf_event_overflow")
        || name.starts_with("perf_swevent_")
}

/// Appends a stack as dtrace(1) prints it: a newline, then one frame per line
/// indented by `indent` spaces.
pub fn print_stack(pcs: &[u64], syms: &KernelSymbols, indent: usize, out: &mut Vec<u8>) {
    out.push(b'\n');
    for &pc in syms.frames(pcs) {
        out.resize(out.len() + indent, b' ');
        out.extend_from_slice(syms.describe(pc).as_bytes());
        out.push(b'\n');
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn table() -> KernelSymbols {
        let s = |addr, name: &str, module: Option<&str>| Symbol {
            addr,
            name: name.into(),
            module: module.map(Into::into),
        };
        KernelSymbols::new(vec![
            s(0xffff_0200, "ksys_read", None),
            s(0xffff_0100, "bpf_trace_run2", None),
            s(0xffff_0300, "do_syscall_64", None),
            s(0xffff_9000, "ext4_read", Some("ext4")),
        ])
    }

    #[test]
    fn describes_addresses() {
        let t = table();
        assert_eq!(t.describe(0xffff_0210), "vmlinux`ksys_read+0x10");
        assert_eq!(t.describe(0xffff_0300), "vmlinux`do_syscall_64");
        assert_eq!(t.describe(0xffff_9004), "ext4`ext4_read+0x4");
        assert_eq!(t.describe(0x10), "0x10");
        assert_eq!(t.function(0xffff_0210), "vmlinux`ksys_read");
        assert_eq!(KernelSymbols::default().describe(0xffff_0210), "0xffff0210");
    }

    #[test]
    fn stacks_skip_probe_frames_and_stop_at_zero() {
        let t = table();
        let mut out = Vec::new();
        print_stack(
            &[0xffff_0104, 0xffff_0222, 0xffff_0333, 0, 0],
            &t,
            4,
            &mut out,
        );
        assert_eq!(
            String::from_utf8_lossy(&out),
            "\n    vmlinux`ksys_read+0x22\n    vmlinux`do_syscall_64+0x33\n"
        );
    }
}
