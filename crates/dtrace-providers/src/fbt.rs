//! The `fbt` provider: `fbt:<module>:<function>:entry` and `:return` for every
//! traceable kernel function (module `vmlinux` for the kernel itself).
//!
//! Listing reads tracefs' `available_filter_functions` (or, where that is
//! refused, the text symbols of `/proc/kallsyms`), only when a description
//! could name an fbt probe; a glob-free function is looked up alone. Argument
//! types come from the function's BTF prototype when a description matches
//! ([`Provider::resolve`]): `args[]` are the parameters on entry; on return
//! `args[1]` is the return value (of the function's return type) and `arg0`
//! DTrace's return offset.
//!
//! Attachment (the provider's enable op, [`refusal`] and `attach.rs`): fentry/
//! fexit where the kernel allows `BPF_PROG_TYPE_TRACING`, else kprobes; where
//! it has neither, enabling fails with one line naming what is missing.

use crate::kbtf::KernelTypes;
use crate::{ProbeTemplate, Provider};
use dtrace_sema::{ArgDesc, ProbeKind};
use dtrace_sys::tracefs::Tracefs;
use dtrace_sys::Features;
use std::collections::HashSet;

#[derive(Default)]
pub struct FbtProvider {
    types: KernelTypes,
}

/// Every traceable kernel function as `(function, module)`.
fn functions() -> Vec<(String, String)> {
    let listed = Tracefs::find().and_then(|t| t.traceable_functions());
    let raw: Vec<(String, Option<String>)> = match listed {
        Ok(f) if !f.is_empty() => f,
        _ => dtrace_sys::kallsyms::functions()
            .into_iter()
            .map(|(_, name, module)| (name, module))
            .filter(|(name, module)| traceable_symbol(name, module.as_deref()))
            .collect(),
    };
    // The first of each (function, module), without copying names to find it.
    let mut seen = HashSet::with_capacity(raw.len());
    let first: Vec<bool> = raw
        .iter()
        .map(|(name, module)| seen.insert((name.as_str(), module.as_deref())))
        .collect();
    drop(seen);
    raw.into_iter()
        .zip(first)
        .filter(|(_, first)| *first)
        .map(|((name, module), _)| (name, module.unwrap_or_else(|| "vmlinux".into())))
        .collect()
}

/// Whether a kallsyms text symbol is a function ftrace could trace: not a
/// compiler-made fragment (`.cold`, `.isra`), padding or CFI stub, nor code
/// of a pseudo-module (BPF programs, ftrace trampolines).
fn traceable_symbol(name: &str, module: Option<&str>) -> bool {
    !name.contains('.')
        && !name.starts_with("__pfx_")
        && !name.starts_with("__cfi_")
        && !module.is_some_and(|m| m == "bpf" || m.starts_with("__builtin"))
}

fn probe(function: String, module: String, ret: bool) -> ProbeTemplate {
    ProbeTemplate {
        module,
        function,
        name: if ret { "return" } else { "entry" }.into(),
        kind: ProbeKind::KernelFunc { ret, nargs: 0 },
        args: Vec::new(),
        fields: Vec::new(),
    }
}

impl Provider for FbtProvider {
    fn name(&self) -> &'static str {
        "fbt"
    }

    fn attributes(&self) -> crate::ProviderAttrs {
        crate::stability::FBT
    }

    fn lazy(&self) -> bool {
        true
    }

    fn list(&self) -> Vec<ProbeTemplate> {
        functions()
            .into_iter()
            .flat_map(|(f, m)| [probe(f.clone(), m.clone(), false), probe(f, m, true)])
            .collect()
    }

    fn find(&self, module: &str, function: &str, name: &str) -> Option<Vec<ProbeTemplate>> {
        let ret = match name {
            "entry" => false,
            "return" => true,
            _ => return Some(Vec::new()),
        };
        if function.is_empty() {
            return None;
        }
        Some(
            functions()
                .into_iter()
                .filter(|(f, m)| f == function && (module.is_empty() || m == module))
                .map(|(f, m)| probe(f, m, ret))
                .collect(),
        )
    }

    fn resolve(&self, t: &mut ProbeTemplate) -> Result<(), String> {
        let ProbeKind::KernelFunc { ret, .. } = t.kind else {
            return Ok(());
        };
        // Without BTF the function can still be kprobed: six untyped arguments.
        let (params, rtype) = self
            .types
            .func_proto(&t.module, &t.function)
            .unwrap_or_else(|| (vec!["uint64_t".into(); 6], "uint64_t".into()));
        let nargs = params.len().min(12) as u8;
        t.kind = ProbeKind::KernelFunc { ret, nargs };
        t.args = if ret {
            ArgDesc::natives(&["int".to_string(), rtype])
        } else {
            ArgDesc::natives(&params[..params.len().min(10)])
        };
        Ok(())
    }

    fn refusal(&self, _probe: &dtrace_sema::ProbeInfo, features: &Features) -> Option<String> {
        refusal(features)
    }
}

/// Why kernel-function probes (fbt, lockstat) cannot be enabled here, in
/// words naming the missing kernel features; `None` when they can.
pub fn refusal(features: &Features) -> Option<String> {
    if features.tracing || features.kprobe_pmu {
        return None;
    }
    Some(
        "kernel function probes need fentry/fexit or kprobes: this kernel refuses \
         fentry programs (BPF_PROG_TYPE_TRACING: Operation not permitted) and has no \
         kprobes (no kprobe PMU)"
            .into(),
    )
}

/// The BTF id of vmlinux function `func`, that its fentry/fexit program is
/// loaded against.
pub fn btf_func_id(func: &str) -> Option<u32> {
    crate::kbtf::btf_func_id(func)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn symbols_that_are_not_functions_are_skipped() {
        assert!(traceable_symbol("vfs_read", None));
        assert!(traceable_symbol("e1000_probe", Some("e1000")));
        assert!(!traceable_symbol("foo.cold", None));
        assert!(!traceable_symbol("__pfx_vfs_read", None));
        assert!(!traceable_symbol(
            "ftrace_trampoline",
            Some("__builtin__ftrace")
        ));
        assert!(!traceable_symbol("bpf_prog_1234_F", Some("bpf")));
    }

    #[test]
    fn return_probes_type_arg1_as_the_return_value() {
        let fbt = FbtProvider::default();
        if fbt.types.vmlinux().is_none() {
            return;
        }
        let mut t = probe("vfs_read".into(), "vmlinux".into(), true);
        assert_eq!(fbt.resolve(&mut t), Ok(()));
        let shown: Vec<&str> = t.args.iter().map(|a| a.shown()).collect();
        assert_eq!(shown, vec!["int", "ssize_t"]);
        assert_eq!(
            t.kind,
            ProbeKind::KernelFunc {
                ret: true,
                nargs: 4
            }
        );
        let mut t = probe("vfs_read".into(), "vmlinux".into(), false);
        assert_eq!(fbt.resolve(&mut t), Ok(()));
        assert_eq!(t.args[0].shown(), "struct file *");
    }
}
