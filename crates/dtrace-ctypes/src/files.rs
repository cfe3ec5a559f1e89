//! The kernel's BTF files, read once and shared.
//!
//! Two parts of a handle read kernel BTF: the type table's kernel source
//! ([`crate::KernelBtf`], importing types by name) and the providers that type
//! probe arguments from it (fbt's function prototypes, rawtp's
//! `btf_trace_<event>`, the BTF id an fentry program is loaded against). Both
//! ask one [`KernelBtfFiles`], so vmlinux (and each module's split BTF) is read
//! and indexed at most once, by whichever asks first, and never before a
//! question needs it.
//!
//! The providers want C type names D can parse (`struct file *`, `const char
//! *`), not imported types: a probe's argument descriptions are names the
//! compiler resolves through the table later ([`c_type_name`]).

use crate::btf::{
    self, Btf, BtfError, KIND_CONST, KIND_ENUM, KIND_ENUM64, KIND_FLOAT, KIND_FUNC,
    KIND_FUNC_PROTO, KIND_FWD, KIND_INT, KIND_PTR, KIND_RESTRICT, KIND_STRUCT, KIND_TYPEDEF,
    KIND_TYPE_TAG, KIND_UNION, KIND_VOLATILE,
};
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, MutexGuard};

/// A shared handle on a directory of kernel BTF (`/sys/kernel/btf`: `vmlinux`
/// and one split file per module). Clones share what has been read.
#[derive(Debug, Clone)]
pub struct KernelBtfFiles(Arc<Files>);

#[derive(Debug)]
struct Files {
    dir: PathBuf,
    /// vmlinux, indexed (not validated) when first asked for.
    vmlinux: Mutex<Option<Result<Arc<Btf>, BtfError>>>,
    /// Each module asked for: its split BTF, `None` when it has none.
    modules: Mutex<HashMap<String, ModuleBtf>>,
}

/// What reading a module's split BTF gave (`None`: the module has none).
type ModuleBtf = Result<Option<Arc<Btf>>, BtfError>;

/// A lock that a panic elsewhere cannot make unusable (the data are caches).
fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

impl KernelBtfFiles {
    /// BTF from `dir`; nothing is read until asked.
    pub fn new(dir: &Path) -> KernelBtfFiles {
        KernelBtfFiles(Arc::new(Files {
            dir: dir.to_path_buf(),
            vmlinux: Mutex::new(None),
            modules: Mutex::new(HashMap::new()),
        }))
    }

    /// The running kernel's BTF (`/sys/kernel/btf`), read when asked.
    pub fn running() -> KernelBtfFiles {
        KernelBtfFiles::new(Path::new(crate::kernel::SYS_BTF_DIR))
    }

    /// The directory the files are in.
    pub fn dir(&self) -> &Path {
        &self.0.dir
    }

    /// vmlinux's BTF, read and indexed on the first call.
    pub fn vmlinux(&self) -> Result<Arc<Btf>, BtfError> {
        lock(&self.0.vmlinux)
            .get_or_insert_with(|| {
                Btf::index(btf::read(&self.0.dir.join("vmlinux"))?).map(Arc::new)
            })
            .clone()
    }

    /// The BTF holding `module`'s own types: vmlinux for `vmlinux` (or ``), else
    /// the module's split BTF on top of vmlinux, read on the first call;
    /// `Ok(None)` when the module has no BTF file.
    pub fn module(&self, module: &str) -> Result<Option<Arc<Btf>>, BtfError> {
        if module.is_empty() || module == "vmlinux" {
            return self.vmlinux().map(Some);
        }
        if module.contains('/') || module == "." || module == ".." {
            return Ok(None);
        }
        if let Some(found) = lock(&self.0.modules).get(module) {
            return found.clone();
        }
        let base = self.vmlinux()?;
        let path = self.0.dir.join(module);
        let found = if path.is_file() {
            btf::read(&path)
                .and_then(|data| Btf::index_split(data, base))
                .map(|b| Some(Arc::new(b)))
        } else {
            Ok(None)
        };
        lock(&self.0.modules).insert(module.to_string(), found.clone());
        found
    }

    /// Forget what was read (the next question reads again): a handle frees
    /// kernel BTF once code is generated, before it maps the ring buffer.
    pub fn release(&self) {
        *lock(&self.0.vmlinux) = None;
        lock(&self.0.modules).clear();
    }

    /// Whether vmlinux has been read (and not released since).
    pub fn is_read(&self) -> bool {
        lock(&self.0.vmlinux).is_some()
    }

    /// The parameter types and return type of kernel function `func` of
    /// `module`, as C type names; `None` when BTF does not describe it.
    pub fn func_proto(&self, module: &str, func: &str) -> Option<(Vec<String>, String)> {
        let btf = self.module(module).ok()??;
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
        let btf = self.vmlinux().ok()?;
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
                .map(|(_, ty)| c_type_name(&btf, ty))
                .collect(),
        )
    }

    /// The BTF id of vmlinux function `func`, that an fentry/fexit program is
    /// loaded against.
    pub fn func_id(&self, func: &str) -> Option<u32> {
        self.vmlinux().ok()?.find_kind(func, &[KIND_FUNC])
    }
}

/// `id` as a C type name D can parse: `struct file *`, `const char *`,
/// `unsigned int`. Function pointers become `void *`; an unknown id `uint64_t`.
/// (Reading an indexed, unvalidated blob is safe: every access is bounds
/// checked, and the depth bound ends a reference cycle.)
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
        let k = KernelBtfFiles::running();
        if k.vmlinux().is_err() {
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
        assert!(k.func_id("vfs_read").is_some());
        assert!(k.func_proto("vmlinux", "no_such_function_here").is_none());
        assert!(matches!(k.module("no_such_module"), Ok(None)));
        assert!(matches!(k.module("../etc"), Ok(None)));
    }

    #[test]
    fn clones_share_one_read_and_release_forgets_it() {
        let k = KernelBtfFiles::running();
        let Ok(first) = k.vmlinux() else {
            return; // no kernel BTF here
        };
        let other = k.clone();
        let again = other.vmlinux().ok();
        assert!(again.is_some_and(|b| Arc::ptr_eq(&b, &first)));
        assert!(k.is_read());
        other.release();
        assert!(!k.is_read());
        assert!(k.vmlinux().is_ok_and(|b| !Arc::ptr_eq(&b, &first)));
    }

    #[test]
    fn a_missing_directory_answers_nothing() {
        let k = KernelBtfFiles::new(Path::new("/nonexistent/btf"));
        assert!(k.vmlinux().is_err());
        assert!(k.module("ext4").is_err());
        assert!(k.func_proto("vmlinux", "vfs_read").is_none());
        assert!(k.raw_tracepoint_args("sched_switch").is_none());
        assert!(k.func_id("vfs_read").is_none());
    }
}
