//! Kernel symbol addresses: what sema asks about a backquoted name (`` `jiffies``)
//! that kernel BTF does not place. The facade answers from `/proc/kallsyms` (through
//! `dtrace-sys`); tests answer from a table. Sema itself never touches the system.

/// Resolves kernel symbol names to addresses.
pub trait KernelSymbols {
    /// The address of kernel symbol `name` (in `module`, when scoped), if known.
    fn address(&self, module: Option<&str>, name: &str) -> Option<u64>;
}

/// Knows no symbols (compilation without kernel access).
#[derive(Debug, Clone, Copy, Default)]
pub struct NoSymbols;

impl KernelSymbols for NoSymbols {
    fn address(&self, _module: Option<&str>, _name: &str) -> Option<u64> {
        None
    }
}

/// Any `Fn(module, name) -> address` closure is a symbol source.
impl<F: Fn(Option<&str>, &str) -> Option<u64>> KernelSymbols for F {
    fn address(&self, module: Option<&str>, name: &str) -> Option<u64> {
        self(module, name)
    }
}
