//! Kernel types on demand: vmlinux BTF plus module BTF (split, loaded lazily), imported
//! into a [`TypeTable`] one name at a time. [`KernelBtf`] is the kernel's
//! [`TypeSource`].
//!
//! Architecture invariants: a BTF type is imported at most once per table (memoized
//! BTF id -> [`TypeId`]); importing works from a worklist, never by recursion through
//! aggregates, so recursive structs (pointer cycles) and deep type graphs are fine.
//! A lazy source ([`KernelBtf::lazy_sys`]) reads nothing until a question reaches
//! it; a name question then indexes vmlinux's names ([`Btf::index`]), and the
//! whole blob is validated ([`Btf::check`]) before the first import from it.

use std::path::Path;
use std::sync::{Arc, OnceLock};

use crate::files::KernelBtfFiles;
use crate::source::TypeSource;

use crate::btf::{self, Btf, BtfError, BtfType};
use crate::table::{Enumerator, Member, Module, Qualifier, TypeId, TypeKind, TypeTable};

/// Where the running kernel publishes its BTF.
pub const SYS_BTF_DIR: &str = "/sys/kernel/btf";

/// Bound on recursion through pointer/type-tag chains during import.
const MAX_IMPORT_DEPTH: u32 = 300;

/// The kernel's BTF objects: vmlinux, and modules as they are needed.
#[derive(Debug, Clone)]
pub struct KernelBtf {
    /// The files holding `vmlinux` and `<module>` split BTF (shared with the
    /// providers that read prototypes); `None` for in-memory only.
    files: Option<KernelBtfFiles>,
    /// vmlinux, indexed (not yet validated) when first needed.
    base: OnceLock<Result<Arc<Btf>, BtfError>>,
    /// `objs[0]` is vmlinux, once a lookup has needed more than its names.
    objs: Vec<Obj>,
    /// Module blobs registered in memory and not yet parsed.
    blobs: Vec<(String, Vec<u8>)>,
    /// Modules that failed to load, and why.
    failed: Vec<(String, BtfError)>,
    /// Whether `dir` was listed and every module in it tried (misses stop re-listing).
    scanned: bool,
}

#[derive(Debug, Clone)]
struct Obj {
    name: String,
    btf: Arc<Btf>,
    /// Own type index -> TypeId + 1 (0 = not imported). Allocated on first import.
    memo: Vec<u32>,
    /// Module index in the table, once assigned.
    module: Option<u16>,
}

/// A kernel variable found in BTF (`VAR`, placed by a `DATASEC`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KernelVar {
    pub name: String,
    pub ty: TypeId,
    pub module: Module,
    /// The section (`.data..percpu`, ...) and offset within it, when a DATASEC lists it.
    pub section: Option<(String, u32)>,
}

impl KernelBtf {
    /// Kernel BTF with `vmlinux` as base and no module source.
    pub fn new(vmlinux: Btf) -> KernelBtf {
        let vmlinux = Arc::new(vmlinux);
        KernelBtf {
            files: None,
            base: OnceLock::from(Ok(vmlinux.clone())),
            objs: vec![Obj {
                name: "vmlinux".into(),
                btf: vmlinux,
                memo: Vec::new(),
                module: None,
            }],
            blobs: Vec::new(),
            failed: Vec::new(),
            scanned: false,
        }
    }

    /// Read vmlinux's BTF from `file` now (`-x ctfpath`); modules from
    /// `modules/<module>` when a lookup needs them.
    pub fn from_file(file: &Path, modules: Option<&Path>) -> Result<KernelBtf, BtfError> {
        let vmlinux = Btf::from_file(file)?;
        let mut k = KernelBtf::new(vmlinux);
        k.files = modules.map(KernelBtfFiles::new);
        Ok(k)
    }

    /// Read `dir/vmlinux` now; modules from `dir/<module>` when a lookup needs them.
    pub fn from_dir(dir: &Path) -> Result<KernelBtf, BtfError> {
        let vmlinux = Btf::from_file(&dir.join("vmlinux"))?;
        let mut k = KernelBtf::new(vmlinux);
        k.files = Some(KernelBtfFiles::new(dir));
        Ok(k)
    }

    /// The running kernel's BTF (`/sys/kernel/btf`).
    pub fn from_sys() -> Result<KernelBtf, BtfError> {
        KernelBtf::from_dir(Path::new(SYS_BTF_DIR))
    }

    /// BTF from `dir`, read when a question first reaches it: nothing is read
    /// here, so attaching the source costs nothing.
    pub fn lazy_dir(dir: &Path) -> KernelBtf {
        KernelBtf::lazy_files(KernelBtfFiles::new(dir))
    }

    /// BTF from `files`, read when a question first reaches it (or already
    /// read by another user of the same files).
    pub fn lazy_files(files: KernelBtfFiles) -> KernelBtf {
        KernelBtf {
            files: Some(files),
            base: OnceLock::new(),
            objs: Vec::new(),
            blobs: Vec::new(),
            failed: Vec::new(),
            scanned: false,
        }
    }

    /// The running kernel's BTF, read lazily; `None` when the kernel publishes
    /// none (no `/sys/kernel/btf/vmlinux`).
    pub fn lazy_sys() -> Option<KernelBtf> {
        KernelBtf::lazy_shared(&KernelBtfFiles::running())
    }

    /// [`KernelBtf::lazy_files`] sharing `files`; `None` when they hold no
    /// vmlinux.
    pub fn lazy_shared(files: &KernelBtfFiles) -> Option<KernelBtf> {
        files
            .dir()
            .join("vmlinux")
            .is_file()
            .then(|| KernelBtf::lazy_files(files.clone()))
    }

    /// vmlinux's BTF, indexed on first use.
    fn base(&self) -> Result<&Arc<Btf>, BtfError> {
        self.base
            .get_or_init(|| {
                let Some(files) = &self.files else {
                    return Err(BtfError::Io {
                        path: "vmlinux".into(),
                        message: "no BTF source".into(),
                    });
                };
                files.vmlinux()
            })
            .as_ref()
            .map_err(Clone::clone)
    }

    /// Make vmlinux `objs[0]` (reading it if nothing has yet).
    fn ready(&mut self) -> Result<(), BtfError> {
        if self.objs.is_empty() {
            let btf = self.base()?.clone();
            self.objs.push(Obj {
                name: "vmlinux".into(),
                btf,
                memo: Vec::new(),
                module: None,
            });
        }
        Ok(())
    }

    /// Register a module's split BTF held in memory; parsed when first needed.
    pub fn add_module_blob(&mut self, name: &str, bytes: Vec<u8>) {
        self.blobs.push((name.to_string(), bytes));
    }

    /// vmlinux's BTF (read now if it has not been), or why it cannot be had.
    pub fn vmlinux(&self) -> Result<&Arc<Btf>, BtfError> {
        self.base()
    }

    /// Names of the modules parsed so far (vmlinux first).
    pub fn loaded(&self) -> Vec<&str> {
        self.objs.iter().map(|o| o.name.as_str()).collect()
    }

    /// Modules that failed to load, with the error.
    pub fn failures(&self) -> &[(String, BtfError)] {
        &self.failed
    }

    fn position(&self, name: &str) -> Option<usize> {
        self.objs.iter().position(|o| o.name == name)
    }

    /// Index of module `name` in `objs`, parsing it if needed; `Ok(None)` if it has no BTF.
    fn load(&mut self, name: &str) -> Result<Option<usize>, BtfError> {
        self.ready()?;
        if let Some(i) = self.position(name) {
            return Ok(Some(i));
        }
        if name.is_empty() || name.contains('/') || name == "." || name == ".." {
            return Ok(None);
        }
        if let Some((_, e)) = self.failed.iter().find(|(n, _)| n == name) {
            return Err(e.clone());
        }
        let base = self.objs[0].btf.clone();
        let split = if let Some(i) = self.blobs.iter().position(|(n, _)| n == name) {
            Btf::index_split(self.blobs.swap_remove(i).1, base).map(Arc::new)
        } else if let Some(files) = &self.files {
            match files.module(name) {
                Ok(None) => return Ok(None),
                // Split on the vmlinux this source imports from (the files'
                // own, unless they were released and read again since).
                Ok(Some(b)) if b.base().is_some_and(|v| Arc::ptr_eq(v, &base)) => Ok(b),
                Ok(Some(_)) => btf::read(&files.dir().join(name))
                    .and_then(|bytes| Btf::index_split(bytes, base))
                    .map(Arc::new),
                Err(e) => Err(e),
            }
        } else {
            return Ok(None);
        };
        match split {
            Ok(btf) => {
                self.objs.push(Obj {
                    name: name.to_string(),
                    btf,
                    memo: Vec::new(),
                    module: None,
                });
                Ok(Some(self.objs.len() - 1))
            }
            Err(e) => {
                self.failed.push((name.to_string(), e.clone()));
                Err(e)
            }
        }
    }

    /// Modules with BTF not yet parsed (registered blobs, then the directory, sorted).
    fn unloaded(&self) -> Vec<String> {
        let mut names: Vec<String> = self.blobs.iter().map(|(n, _)| n.clone()).collect();
        if let Some(dir) = self
            .files
            .as_ref()
            .map(|f| f.dir())
            .filter(|_| !self.scanned)
        {
            if let Ok(rd) = std::fs::read_dir(dir) {
                let mut found: Vec<String> = rd
                    .filter_map(|e| e.ok()?.file_name().into_string().ok())
                    .filter(|n| n != "vmlinux")
                    .collect();
                found.sort();
                names.extend(found);
            }
        }
        names.retain(|n| self.position(n).is_none() && !self.failed.iter().any(|(f, _)| f == n));
        names
    }

    /// The object defining `id` as seen from `obj` (split ids below start are vmlinux's).
    fn owner(&self, obj: usize, id: u32) -> usize {
        match self.objs.get(obj) {
            Some(o) if id >= o.btf.start_id() => obj,
            _ => 0,
        }
    }

    fn memo_get(&self, obj: usize, id: u32) -> Option<TypeId> {
        let o = self.objs.get(obj)?;
        let i = id.checked_sub(o.btf.start_id())? as usize;
        match o.memo.get(i) {
            Some(&v) if v != 0 => Some(TypeId(v - 1)),
            _ => None,
        }
    }

    fn memo_set(&mut self, obj: usize, id: u32, tid: TypeId) {
        if let Some(o) = self.objs.get_mut(obj) {
            let Some(i) = id.checked_sub(o.btf.start_id()) else {
                return;
            };
            if o.memo.is_empty() {
                o.memo = vec![0; (o.btf.type_count() - o.btf.start_id()) as usize];
            }
            if let Some(slot) = o.memo.get_mut(i as usize) {
                *slot = tid.0 + 1;
            }
        }
    }
}

/// A C name split into its tag keyword (if any) and identifier.
pub(crate) fn split_name(name: &str) -> (Option<&str>, &str) {
    let name = name.trim();
    for kw in ["struct", "union", "enum"] {
        if let Some(rest) = name.strip_prefix(kw) {
            if rest.starts_with(char::is_whitespace) {
                return (Some(kw), rest.trim());
            }
        }
    }
    (None, name)
}

/// The own type of `btf` that `keyword name` denotes: complete definitions first.
fn find_named(btf: &Btf, keyword: Option<&str>, name: &str) -> Option<u32> {
    let ids = btf.find(name);
    let pick = |pred: &dyn Fn(&BtfType) -> bool| {
        ids.iter()
            .copied()
            .find(|&id| btf.get(id).is_some_and(|t| pred(&t)))
    };
    match keyword {
        Some("struct") => pick(&|t| t.kind == btf::KIND_STRUCT)
            .or_else(|| pick(&|t| t.kind == btf::KIND_FWD && !t.kind_flag)),
        Some("union") => pick(&|t| t.kind == btf::KIND_UNION)
            .or_else(|| pick(&|t| t.kind == btf::KIND_FWD && t.kind_flag)),
        Some(_) => pick(&|t| matches!(t.kind, btf::KIND_ENUM | btf::KIND_ENUM64) && t.vlen > 0)
            .or_else(|| pick(&|t| matches!(t.kind, btf::KIND_ENUM | btf::KIND_ENUM64))),
        None => pick(&|t| matches!(t.kind, btf::KIND_TYPEDEF | btf::KIND_INT | btf::KIND_FLOAT)),
    }
}

/// GCC's spellings of the base types -> D's.
fn canonical_int(name: &str) -> &str {
    match name {
        "long int" => "long",
        "long unsigned int" => "unsigned long",
        "short int" => "short",
        "short unsigned int" => "unsigned short",
        "long long int" => "long long",
        "long long unsigned int" => "unsigned long long",
        other => other,
    }
}

/// Imports BTF types into a table through a worklist.
struct Importer<'a> {
    table: &'a mut TypeTable,
    kb: &'a mut KernelBtf,
    work: Vec<(usize, u32, TypeId)>,
}

impl Importer<'_> {
    fn module(&mut self, obj: usize) -> u16 {
        if let Some(m) = self.kb.objs.get(obj).and_then(|o| o.module) {
            return m;
        }
        let name = self.kb.objs.get(obj).map_or("vmlinux", |o| o.name.as_str());
        let m = self.table.module_index(name);
        if let Some(o) = self.kb.objs.get_mut(obj) {
            o.module = Some(m);
        }
        m
    }

    fn void(&mut self) -> TypeId {
        match self.table.lookup("void") {
            Some(v) => v,
            None => {
                let v = self.table.add(TypeKind::Void);
                self.table.bind("void", v);
                v
            }
        }
    }

    /// Import `id` (as seen from `obj`) and everything it reaches, once the
    /// object (and vmlinux, which it builds on) is validated.
    fn import(&mut self, obj: usize, id: u32) -> Result<TypeId, BtfError> {
        for o in [0, obj] {
            if let Some(ob) = self.kb.objs.get(o) {
                ob.btf.check()?;
            }
        }
        let root = self.reserve(obj, id, 0)?;
        while let Some((o, i, tid)) = self.work.pop() {
            let kind = self.build(o, i)?;
            self.table.set_kind(tid, kind);
        }
        Ok(root)
    }

    /// The TypeId for `id`, allocating a placeholder (built later) if new.
    fn reserve(&mut self, obj: usize, id: u32, depth: u32) -> Result<TypeId, BtfError> {
        if id == 0 {
            return Ok(self.void());
        }
        let obj = self.kb.owner(obj, id);
        if let Some(t) = self.kb.memo_get(obj, id) {
            return Ok(t);
        }
        if depth > MAX_IMPORT_DEPTH {
            return Err(BtfError::Malformed {
                id,
                reason: "type chain too deep",
            });
        }
        let Some(b) = self.kb.objs.get(obj).map(|o| o.btf.clone()) else {
            return Err(BtfError::BadTypeRef { id: 0, target: id });
        };
        let t = b
            .get(id)
            .ok_or(BtfError::BadTypeRef { id: 0, target: id })?;
        let keyword = if t.kind_flag { "union" } else { "struct" };
        let complete = match t.kind {
            // A forward declaration: use the complete definition if BTF has one
            // (this object first, then vmlinux), so members are reachable.
            btf::KIND_FWD => [obj, 0].into_iter().find_map(|o| {
                let ob = self.kb.objs.get(o)?;
                let def = find_named(&ob.btf, Some(keyword), t.name())?;
                (ob.btf.kind_of(def) != btf::KIND_FWD).then_some((o, def))
            }),
            _ => None,
        };
        let tid = match (t.kind, complete) {
            (btf::KIND_FWD, Some((o, def))) => self.reserve(o, def, depth + 1)?,
            (btf::KIND_TYPE_TAG, _) => self.reserve(obj, t.size_or_type, depth + 1)?,
            (btf::KIND_PTR, _) => {
                let target = self.reserve(obj, t.size_or_type, depth + 1)?;
                self.table.pointer_to(target)
            }
            (btf::KIND_INT, _) => {
                let info = t.int_info();
                let size = t.size_or_type;
                let name = if info.is_bool { "_Bool" } else { t.name() };
                let name = canonical_int(name);
                let signed = info.signed;
                match self.table.lookup(name) {
                    Some(d)
                        if *self.table.kind(d)
                            == (TypeKind::Int {
                                name: name.to_string(),
                                size,
                                signed,
                            }) =>
                    {
                        d
                    }
                    _ => {
                        let m = self.module(obj);
                        let kind = TypeKind::Int {
                            name: name.to_string(),
                            size,
                            signed,
                        };
                        self.table.add_in(kind, m)
                    }
                }
            }
            _ => {
                let m = self.module(obj);
                let tid = self.table.add_in(TypeKind::Void, m);
                self.work.push((obj, id, tid));
                tid
            }
        };
        self.kb.memo_set(obj, id, tid);
        Ok(tid)
    }

    fn build(&mut self, obj: usize, id: u32) -> Result<TypeKind, BtfError> {
        let Some(b) = self.kb.objs.get(obj).map(|o| o.btf.clone()) else {
            return Ok(TypeKind::Void);
        };
        let Some(t) = b.get(id) else {
            return Ok(TypeKind::Void);
        };
        let name = t.name();
        let opt_name = (!name.is_empty()).then(|| name.to_string());
        Ok(match t.kind {
            btf::KIND_STRUCT | btf::KIND_UNION => {
                let mut members = Vec::with_capacity(t.vlen as usize);
                for m in t.members() {
                    let ty = self.reserve(obj, m.ty, 0)?;
                    let (mut bit_offset, mut bit_size) = (m.bit_offset as u64, m.bit_size);
                    if !t.kind_flag {
                        // Old encoding: the bitfield lives in the member's INT type.
                        if let Some(it) = b.get(m.ty).filter(|it| it.kind == btf::KIND_INT) {
                            let ii = it.int_info();
                            if ii.bit_offset != 0 || ii.bits != it.size_or_type * 8 {
                                bit_offset += ii.bit_offset as u64;
                                bit_size = ii.bits;
                            }
                        }
                    }
                    members.push(Member {
                        name: m.name.to_string(),
                        ty,
                        bit_offset,
                        bit_size,
                    });
                }
                let size = t.size_or_type as u64;
                if t.kind == btf::KIND_STRUCT {
                    TypeKind::Struct {
                        name: opt_name,
                        size,
                        members,
                    }
                } else {
                    TypeKind::Union {
                        name: opt_name,
                        size,
                        members,
                    }
                }
            }
            btf::KIND_ENUM | btf::KIND_ENUM64 => TypeKind::Enum {
                name: opt_name,
                size: t.size_or_type,
                values: t
                    .enumerators()
                    .map(|(n, value)| Enumerator {
                        name: n.to_string(),
                        value,
                    })
                    .collect(),
            },
            btf::KIND_FWD => TypeKind::Forward {
                name: name.to_string(),
                is_union: t.kind_flag,
            },
            btf::KIND_TYPEDEF => TypeKind::Typedef {
                name: name.to_string(),
                target: self.reserve(obj, t.size_or_type, 0)?,
            },
            btf::KIND_VOLATILE | btf::KIND_CONST | btf::KIND_RESTRICT => TypeKind::Qualified {
                qualifier: match t.kind {
                    btf::KIND_CONST => Qualifier::Const,
                    btf::KIND_VOLATILE => Qualifier::Volatile,
                    _ => Qualifier::Restrict,
                },
                target: self.reserve(obj, t.size_or_type, 0)?,
            },
            btf::KIND_ARRAY => {
                let (elem, _, len) = t.array();
                TypeKind::Array {
                    elem: self.reserve(obj, elem, 0)?,
                    len: len as u64,
                }
            }
            btf::KIND_FUNC => match b.get(t.size_or_type) {
                Some(p) => self.proto(obj, &p)?,
                None => TypeKind::Void,
            },
            btf::KIND_FUNC_PROTO => self.proto(obj, &t)?,
            btf::KIND_FLOAT => TypeKind::Float {
                name: name.to_string(),
                size: t.size_or_type,
            },
            _ => TypeKind::Void,
        })
    }

    fn proto(&mut self, obj: usize, p: &BtfType) -> Result<TypeKind, BtfError> {
        let ret = self.reserve(obj, p.size_or_type, 0)?;
        let mut params = Vec::with_capacity(p.vlen as usize);
        let mut varargs = false;
        let n = p.vlen as usize;
        for (i, (_, ty)) in p.params().enumerate() {
            if ty == 0 && i + 1 == n {
                varargs = true;
            } else {
                params.push(self.reserve(obj, ty, 0)?);
            }
        }
        Ok(TypeKind::Function {
            ret,
            params,
            varargs,
        })
    }
}

/// Which objects a scoped lookup searches, in order.
enum Scope {
    /// `D`/`C`: the table's own names only.
    D,
    /// One kernel object (index into `objs`), then vmlinux for modules.
    Obj(usize),
    /// Unscoped: vmlinux, loaded modules, then the rest loaded lazily.
    All,
}

impl KernelBtf {
    fn scope(&mut self, module: Option<&str>) -> Result<Option<Scope>, BtfError> {
        Ok(match module {
            None => {
                self.ready()?;
                Some(Scope::All)
            }
            Some("D") | Some("C") => Some(Scope::D),
            Some(m) => self.load(m)?.map(Scope::Obj),
        })
    }

    /// Search kernel objects per `scope` with `find`; import the hit with `finish`.
    fn search<T, R>(
        &mut self,
        table: &mut TypeTable,
        module: Option<&str>,
        find: impl Fn(&Btf) -> Option<T>,
        finish: impl Fn(&mut Importer, usize, T) -> Result<Option<R>, BtfError>,
    ) -> Result<Option<R>, BtfError> {
        let scope = match self.scope(module)? {
            Some(s) => s,
            None => return Ok(None),
        };
        let candidates: Vec<usize> = match scope {
            Scope::D => return Ok(None),
            Scope::Obj(0) => vec![0],
            Scope::Obj(i) => vec![i, 0],
            Scope::All => (0..self.objs.len()).collect(),
        };
        let all = matches!(scope, Scope::All);
        let mut imp = Importer {
            table,
            kb: self,
            work: Vec::new(),
        };
        for obj in candidates {
            let hit = imp.kb.objs.get(obj).and_then(|o| find(&o.btf));
            if let Some(h) = hit {
                return finish(&mut imp, obj, h);
            }
        }
        if all {
            // Missed everything loaded: load the remaining modules one by one.
            let rest = imp.kb.unloaded();
            for name in rest {
                let Ok(Some(obj)) = imp.kb.load(&name) else {
                    continue;
                };
                let hit = imp.kb.objs.get(obj).and_then(|o| find(&o.btf));
                if let Some(h) = hit {
                    return finish(&mut imp, obj, h);
                }
            }
            imp.kb.scanned = true;
        }
        Ok(None)
    }
}

impl TypeSource for KernelBtf {
    fn name(&self) -> &str {
        "kernel BTF"
    }

    fn clone_box(&self) -> Box<dyn TypeSource> {
        Box::new(self.clone())
    }

    fn as_kernel(&self) -> Option<&KernelBtf> {
        Some(self)
    }

    /// Typedefs and base types of vmlinux and the modules parsed so far; the
    /// first question indexes vmlinux's names (no validation, no import).
    fn is_type_name(&self, module: Option<&str>, name: &str) -> bool {
        if self.objs.is_empty() {
            if !matches!(module, None | Some("vmlinux")) {
                return false;
            }
            return self
                .base()
                .is_ok_and(|b| find_named(b, None, name).is_some());
        }
        self.objs
            .iter()
            .filter(|o| module.is_none() || module == Some(o.name.as_str()))
            .any(|o| find_named(&o.btf, None, name).is_some())
    }

    fn lookup(
        &mut self,
        table: &mut TypeTable,
        module: Option<&str>,
        name: &str,
    ) -> Result<Option<TypeId>, BtfError> {
        let (keyword, ident) = split_name(name);
        self.search(
            table,
            module,
            |b| find_named(b, keyword, ident),
            |imp, obj, id| imp.import(obj, id).map(Some),
        )
    }

    fn enum_constant(
        &mut self,
        table: &mut TypeTable,
        module: Option<&str>,
        name: &str,
    ) -> Result<Option<(TypeId, i64)>, BtfError> {
        self.search(
            table,
            module,
            |b| b.enum_constant(name),
            |imp, obj, (id, v)| Ok(Some((imp.import(obj, id)?, v))),
        )
    }

    fn var(
        &mut self,
        table: &mut TypeTable,
        module: Option<&str>,
        name: &str,
    ) -> Result<Option<KernelVar>, BtfError> {
        self.search(
            table,
            module,
            |b| b.find_kind(name, &[btf::KIND_VAR]),
            |imp, obj, id| {
                let Some(o) = imp.kb.objs.get(obj) else {
                    return Ok(None);
                };
                let (b, module) = (o.btf.clone(), Module(o.name.clone()));
                let Some(t) = b.get(id) else { return Ok(None) };
                let ty = imp.import(obj, t.size_or_type)?;
                let section = b.var_section(id).map(|(s, off, _)| (s.to_string(), off));
                Ok(Some(KernelVar {
                    name: name.to_string(),
                    ty,
                    module,
                    section,
                }))
            },
        )
    }

    fn func(
        &mut self,
        table: &mut TypeTable,
        module: Option<&str>,
        name: &str,
    ) -> Result<Option<TypeId>, BtfError> {
        self.search(
            table,
            module,
            |b| b.find_kind(name, &[btf::KIND_FUNC]),
            |imp, obj, id| imp.import(obj, id).map(Some),
        )
    }

    fn import_id(
        &mut self,
        table: &mut TypeTable,
        module: &str,
        id: u32,
    ) -> Result<Option<TypeId>, BtfError> {
        let Some(obj) = self.load(module)? else {
            return Ok(None);
        };
        let mut imp = Importer {
            table,
            kb: self,
            work: Vec::new(),
        };
        imp.import(obj, id).map(Some)
    }
}
