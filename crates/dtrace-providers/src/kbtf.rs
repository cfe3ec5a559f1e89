//! What the kernel-function and raw-tracepoint providers read from the
//! kernel's BTF: function prototypes (`fbt` arguments), `btf_trace_<event>`
//! prototypes (`rawtp` arguments) and the type ids fentry programs are loaded
//! against. Types are rendered as C type names for `args[]`.
//!
//! The BTF is parsed on first use by the provider that owns a [`KernelTypes`]
//! (never at start-up, never for listing).

use dtrace_ctypes::btf::{
    Btf, KIND_CONST, KIND_ENUM, KIND_ENUM64, KIND_FLOAT, KIND_FUNC, KIND_FUNC_PROTO, KIND_FWD,
    KIND_INT, KIND_PTR, KIND_RESTRICT, KIND_STRUCT, KIND_TYPEDEF, KIND_TYPE_TAG, KIND_UNION,
    KIND_VOLATILE,
};
use std::collections::HashMap;
use std::path::Path;
use std::sync::{Arc, Mutex, OnceLock};

const BTF_DIR: &str = "/sys/kernel/btf";

/// The kernel's BTF, parsed when first asked for.
#[derive(Default)]
pub struct KernelTypes {
    vmlinux: OnceLock<Option<Arc<Btf>>>,
    /// Modules' split BTF, parsed once each (`None`: the module has none).
    modules: Mutex<HashMap<String, Option<Arc<Btf>>>>,
}

impl KernelTypes {
    /// vmlinux BTF, `None` when the kernel has none (or it does not parse).
    pub fn vmlinux(&self) -> Option<&Arc<Btf>> {
        self.vmlinux
            .get_or_init(|| {
                Btf::from_file(&Path::new(BTF_DIR).join("vmlinux"))
                    .ok()
                    .map(Arc::new)
            })
            .as_ref()
    }

    /// The BTF holding `module`'s types: vmlinux, or the module's split BTF.
    pub fn module(&self, module: &str) -> Option<Arc<Btf>> {
        let base = self.vmlinux()?;
        if module.is_empty() || module == "vmlinux" {
            return Some(base.clone());
        }
        let mut modules = self.modules.lock().ok()?;
        modules
            .entry(module.to_string())
            .or_insert_with(|| {
                let data = std::fs::read(Path::new(BTF_DIR).join(module)).ok()?;
                Btf::parse_split(data, base.clone()).ok().map(Arc::new)
            })
            .clone()
    }

    /// The parameter types and return type of kernel function `func` of
    /// `module`, as C type names; `None` when BTF does not describe it.
    pub fn func_proto(&self, module: &str, func: &str) -> Option<(Vec<String>, String)> {
        let btf = self.module(module)?;
        let id = btf.find_kind(func, &[KIND_FUNC])?;
        let proto = btf.get(btf.get(id)?.size_or_type)?;
        if proto.kind != KIND_FUNC_PROTO {
            return None;
        }
        let params = proto
            .params()
            .filter(|(_, ty)| *ty != 0)
            .map(|(_, ty)| c_type_name(&btf, ty))
            .collect();
        Some((params, c_type_name(&btf, proto.size_or_type)))
    }

    /// The arguments of raw tracepoint `event`, from the prototype of its
    /// `btf_trace_<event>` typedef less the leading `void *` context.
    pub fn raw_tracepoint_args(&self, event: &str) -> Option<Vec<String>> {
        let btf = self.vmlinux()?;
        let id = btf.find_kind(&format!("btf_trace_{event}"), &[KIND_TYPEDEF])?;
        let ptr = btf.get(btf.get(id)?.size_or_type)?;
        let proto = btf.get(ptr.size_or_type)?;
        if ptr.kind != KIND_PTR || proto.kind != KIND_FUNC_PROTO {
            return None;
        }
        Some(
            proto
                .params()
                .skip(1)
                .map(|(_, ty)| c_type_name(btf, ty))
                .collect(),
        )
    }
}

/// The BTF id of vmlinux function `func`, that an fentry/fexit program is
/// loaded against.
pub fn btf_func_id(func: &str) -> Option<u32> {
    KernelTypes::default()
        .vmlinux()?
        .find_kind(func, &[KIND_FUNC])
}

/// `id` as a C type name D can parse: `struct file *`, `const char *`,
/// `unsigned int`. Function pointers become `void *`; an unknown id `uint64_t`.
pub fn c_type_name(btf: &Btf, id: u32) -> String {
    render(btf, id, 0)
}

fn render(btf: &Btf, id: u32, depth: usize) -> String {
    if id == 0 {
        return "void".into();
    }
    let Some(t) = btf.get(id) else {
        return "uint64_t".into();
    };
    if depth > 16 {
        return "uint64_t".into();
    }
    let tagged = |tag: &str| {
        if t.name().is_empty() {
            "uint64_t".to_string()
        } else {
            format!("{tag} {}", t.name())
        }
    };
    match t.kind {
        KIND_INT | KIND_FLOAT | KIND_TYPEDEF => t.name().to_string(),
        KIND_STRUCT => tagged("struct"),
        KIND_UNION => tagged("union"),
        KIND_ENUM | KIND_ENUM64 => tagged("enum"),
        KIND_FWD => tagged(if t.kind_flag { "union" } else { "struct" }),
        KIND_PTR => {
            let target = btf.get(t.size_or_type);
            if target.is_some_and(|p| p.kind == KIND_FUNC_PROTO) {
                return "void *".into();
            }
            let inner = render(btf, t.size_or_type, depth + 1);
            if inner == "uint64_t" {
                "void *".into()
            } else {
                format!("{inner} *")
            }
        }
        KIND_CONST => format!("const {}", render(btf, t.size_or_type, depth + 1)),
        KIND_VOLATILE | KIND_RESTRICT | KIND_TYPE_TAG => render(btf, t.size_or_type, depth + 1),
        _ => "uint64_t".into(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kernel_prototypes_render_as_c_types() {
        let k = KernelTypes::default();
        if k.vmlinux().is_none() {
            return; // no kernel BTF here
        }
        let (vfs_read, ret) = k.func_proto("vmlinux", "vfs_read").unwrap_or_default();
        assert_eq!(ret, "ssize_t");
        assert_eq!(
            vfs_read,
            vec!["struct file *", "char *", "size_t", "loff_t *"],
            "vfs_read(struct file *, char __user *, size_t, loff_t *)"
        );
        let switch = k.raw_tracepoint_args("sched_switch").unwrap_or_default();
        assert_eq!(switch.len(), 4, "{switch:?}");
        assert_eq!(switch[0], "bool");
        assert_eq!(switch[1], "struct task_struct *");
        assert!(btf_func_id("vfs_read").is_some());
        assert!(k.func_proto("vmlinux", "no_such_function_here").is_none());
    }
}
