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

use crate::{Lister, ProbeTemplate, Provider};
use dtrace_ctypes::KernelBtfFiles;
use dtrace_sema::{ArgDesc, Name, ProbeKind};
use dtrace_sys::tracefs::Tracefs;
use dtrace_sys::Features;
use std::collections::hash_map::{Entry, HashMap};
use std::hash::{BuildHasherDefault, Hasher};

pub struct FbtProvider {
    /// The kernel's BTF, shared with the handle's type table.
    btf: KernelBtfFiles,
}

impl FbtProvider {
    /// fbt with argument types from `btf`.
    pub fn new(btf: KernelBtfFiles) -> FbtProvider {
        FbtProvider { btf }
    }
}

const VMLINUX: Name = Name::from_static("vmlinux");
const ENTRY: Name = Name::from_static("entry");
const RETURN: Name = Name::from_static("return");

/// Each traceable kernel function as `(function, module)` (module `None` for the
/// kernel itself), in the kernel's order, duplicates included: tracefs'
/// `available_filter_functions` where it can be read, else the text symbols of
/// `/proc/kallsyms`. Names are borrowed from the text read.
fn each_function(mut f: impl FnMut(&str, Option<&str>)) {
    let listed = Tracefs::find().and_then(|t| t.filter_functions_text());
    let mut any = false;
    if let Ok(text) = &listed {
        for (name, module) in dtrace_sys::tracefs::filter_functions(text) {
            any = true;
            f(name, module);
        }
    }
    if !any {
        dtrace_sys::kallsyms::each_function(|_, name, module| {
            if traceable_symbol(name, module) {
                f(name, module);
            }
        });
    }
}

/// A 64-bit hash of a (function, module) pair (FxHash's word-at-a-time mix):
/// the kernel's own symbols, 100k+ of them, none chosen by an adversary.
fn pair_hash(function: &str, module: &str) -> u64 {
    const K: u64 = 0x517c_c1b7_2722_0a95;
    let mut h: u64 = 0;
    for part in [function.as_bytes(), &[0xff], module.as_bytes()] {
        let mut words = part.chunks_exact(8);
        for w in &mut words {
            let mut word = [0u8; 8];
            word.copy_from_slice(w);
            h = (h.rotate_left(5) ^ u64::from_le_bytes(word)).wrapping_mul(K);
        }
        for &b in words.remainder() {
            h = (h.rotate_left(5) ^ u64::from(b)).wrapping_mul(K);
        }
    }
    h
}

/// A hasher for keys that are hashes already.
#[derive(Default)]
struct Prehashed(u64);

impl Hasher for Prehashed {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = (self.0 << 8) | u64::from(b);
        }
    }
    fn write_u64(&mut self, n: u64) {
        self.0 = n;
    }
}

/// Every traceable kernel function as `(function, module)`, the first of each
/// pair only.
fn functions() -> Vec<(Name, Name)> {
    distinct(|f| each_function(f))
}

/// The pairs `walk` gives as `(function, module)` (module `None`: `vmlinux`),
/// the first of each only, in order. Each function name is allocated once (its
/// entry and return probes share it), and each module name once per run of it.
fn distinct(walk: impl FnOnce(&mut dyn FnMut(&str, Option<&str>))) -> Vec<(Name, Name)> {
    // The first pair of each hash, by index in `out`; pairs whose hash an
    // earlier, different pair has (vanishingly rare) are compared one by one.
    let mut first: HashMap<u64, u32, BuildHasherDefault<Prehashed>> =
        HashMap::with_capacity_and_hasher(1 << 16, Default::default());
    let mut collided: Vec<u32> = Vec::new();
    let mut out: Vec<(Name, Name)> = Vec::with_capacity(1 << 16);
    // kallsyms lists a module's symbols together: one name per run of them.
    let mut last: Option<Name> = None;
    walk(&mut |name, module| {
        let m = module.unwrap_or("vmlinux");
        let seen = |i: u32| {
            out.get(i as usize)
                .is_some_and(|(f, m2)| f == name && m2 == m)
        };
        match first.entry(pair_hash(name, m)) {
            Entry::Occupied(e) => {
                if seen(*e.get()) || collided.iter().any(|&i| seen(i)) {
                    return;
                }
                collided.push(out.len() as u32);
            }
            Entry::Vacant(e) => {
                e.insert(out.len() as u32);
            }
        }
        let module = match module {
            None => VMLINUX,
            Some(m) => match &last {
                Some(l) if *l == m => l.clone(),
                _ => {
                    let n = Name::from(m);
                    last = Some(n.clone());
                    n
                }
            },
        };
        out.push((Name::from(name), module));
    });
    out
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

fn probe(function: Name, module: Name, ret: bool) -> ProbeTemplate {
    ProbeTemplate {
        module,
        function,
        name: if ret { RETURN } else { ENTRY },
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
        let mut out = Vec::new();
        self.list_into(&mut out);
        out
    }

    fn list_into(&self, out: &mut dyn Lister) {
        let functions = functions();
        out.reserve(functions.len() * 2);
        for (f, m) in functions {
            out.add(probe(f.clone(), m.clone(), false));
            out.add(probe(f, m, true));
        }
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
        let mut found: Vec<ProbeTemplate> = Vec::new();
        each_function(|f, m| {
            let m = m.unwrap_or("vmlinux");
            if f == function
                && (module.is_empty() || m == module)
                && !found.iter().any(|t| t.module == m)
            {
                found.push(probe(f.into(), m.into(), ret));
            }
        });
        Some(found)
    }

    fn resolve(&self, t: &mut ProbeTemplate) -> Result<(), String> {
        let ProbeKind::KernelFunc { ret, .. } = t.kind else {
            return Ok(());
        };
        // Without BTF the function can still be kprobed: six untyped arguments.
        let (params, rtype) = self
            .btf
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
/// loaded against (read through the one BTF reader, [`KernelBtfFiles`]).
pub fn btf_func_id(func: &str) -> Option<u32> {
    KernelBtfFiles::running().func_id(func)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_function_is_listed_once_in_first_seen_order() {
        let pairs = distinct(|f| {
            for (name, module) in [
                ("vfs_read", None),
                ("init_once", None),
                ("e1000_probe", Some("e1000")),
                ("init_once", None),
                ("init_once", Some("e1000")),
                ("vfs_read", Some("vmlinux")),
                ("e1000_probe", Some("e1000")),
            ] {
                f(name, module);
            }
        });
        let got: Vec<(&str, &str)> = pairs.iter().map(|(f, m)| (&**f, &**m)).collect();
        assert_eq!(
            got,
            [
                ("vfs_read", "vmlinux"),
                ("init_once", "vmlinux"),
                ("e1000_probe", "e1000"),
                ("init_once", "e1000"),
            ]
        );
        // One module name for the module's run of symbols.
        assert!(std::ptr::eq(pairs[2].1.as_str(), pairs[3].1.as_str()));
    }

    #[test]
    fn pairs_hash_by_both_names() {
        assert_eq!(
            pair_hash("vfs_read", "vmlinux"),
            pair_hash("vfs_read", "vmlinux")
        );
        assert_ne!(
            pair_hash("vfs_read", "vmlinux"),
            pair_hash("vfs_read", "ext4")
        );
        assert_ne!(pair_hash("ab", "c"), pair_hash("a", "bc"));
        assert_ne!(
            pair_hash("a_function_longer_than_a_word", ""),
            pair_hash("a_function_longer_than_a_worc", "")
        );
    }

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
        let fbt = FbtProvider::new(KernelBtfFiles::running());
        if fbt.btf.vmlinux().is_err() {
            return;
        }
        let mut t = probe("vfs_read".into(), VMLINUX, true);
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
        let mut t = probe("vfs_read".into(), VMLINUX, false);
        assert_eq!(fbt.resolve(&mut t), Ok(()));
        assert_eq!(t.args[0].shown(), "struct file *");
    }
}
