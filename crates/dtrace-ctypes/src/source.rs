//! Type sources: where the table finds a type it does not hold.
//!
//! The table answers D's own names itself (built-ins and declarations). On a miss it
//! asks its [`TypeSource`]s in order — the kernel's BTF ([`crate::KernelBtf`]: vmlinux
//! and module split BTF), and later a traced program's DWARF or BTF — and imports what
//! a source finds. Nothing is loaded up front: a source reads its data when the first
//! question reaches it, so a program that names no kernel type never reads kernel BTF.
//!
//! Architecture invariant: the table is the only place that decides where a type comes
//! from; the compiler asks the table, never a source, and never decides in advance
//! whether a program will need one.

use crate::btf::BtfError;
use crate::kernel::{KernelBtf, KernelVar};
use crate::table::{TypeId, TypeTable};

/// One place types come from (libdtrace's CTF containers; here BTF, later DWARF).
///
/// `module` scopes a question: `None` is unscoped, `Some("vmlinux")` or
/// `Some("ext4")` a kernel object, `Some("D")`/`Some("C")` the table's own names
/// (which a source does not hold). A source imports what it finds into the table it
/// is given and remembers what it imported, so each of its types is imported once.
pub trait TypeSource: std::fmt::Debug + Send {
    /// What the source is, for messages (`kernel BTF`).
    fn name(&self) -> &str;

    /// A copy of the source (the table is `Clone`).
    fn clone_box(&self) -> Box<dyn TypeSource>;

    /// The kernel's BTF, when this source is it.
    fn as_kernel(&self) -> Option<&KernelBtf> {
        None
    }

    /// Whether `name` is an ordinary type name (typedef or base type) here,
    /// without importing anything: the parser's typedef question.
    fn is_type_name(&self, module: Option<&str>, name: &str) -> bool;

    /// The type a C name (`struct task_struct`, `pid_t`, `enum pid_type`) denotes.
    fn lookup(
        &mut self,
        table: &mut TypeTable,
        module: Option<&str>,
        name: &str,
    ) -> Result<Option<TypeId>, BtfError>;

    /// An enumerator and its enum type.
    fn enum_constant(
        &mut self,
        table: &mut TypeTable,
        module: Option<&str>,
        name: &str,
    ) -> Result<Option<(TypeId, i64)>, BtfError>;

    /// A variable (`` `jiffies ``) and its type.
    fn var(
        &mut self,
        table: &mut TypeTable,
        module: Option<&str>,
        name: &str,
    ) -> Result<Option<KernelVar>, BtfError>;

    /// A function's prototype.
    fn func(
        &mut self,
        table: &mut TypeTable,
        module: Option<&str>,
        name: &str,
    ) -> Result<Option<TypeId>, BtfError>;

    /// The source's own type `id` of object `module`, when ids mean something to it.
    fn import_id(
        &mut self,
        table: &mut TypeTable,
        module: &str,
        id: u32,
    ) -> Result<Option<TypeId>, BtfError> {
        let _ = (table, module, id);
        Ok(None)
    }
}

impl Clone for Box<dyn TypeSource> {
    fn clone(&self) -> Self {
        self.clone_box()
    }
}

/// Whether a scope names only the table's own (D) names.
fn d_only(module: Option<&str>) -> bool {
    matches!(module, Some("D") | Some("C"))
}

/// Whether a scope includes the table's own (D) names.
fn has_d(module: Option<&str>) -> bool {
    matches!(module, None | Some("D") | Some("C"))
}

impl TypeTable {
    /// A C name (`struct x`, `pid_t`) among the table's own names.
    fn lookup_c_name(&self, name: &str) -> Option<TypeId> {
        match crate::kernel::split_name(name) {
            (Some(kw), ident) => self.lookup_tag(kw, ident),
            (None, ident) => self.lookup(ident),
        }
    }

    /// Add a source, asked after those added before it.
    pub fn add_source(&mut self, source: Box<dyn TypeSource>) {
        self.sources.push(source);
    }

    /// Make `kernel` the table's kernel source (replacing any before it).
    pub fn set_kernel(&mut self, kernel: KernelBtf) {
        self.sources.retain(|s| s.as_kernel().is_none());
        self.sources.insert(0, Box::new(kernel));
    }

    /// Attach the running kernel's BTF from `/sys/kernel/btf`, read now.
    pub fn load_kernel_btf(&mut self) -> Result<(), BtfError> {
        self.set_kernel(KernelBtf::from_sys()?);
        Ok(())
    }

    /// The kernel source, if the table has one (loaded or not).
    pub fn kernel(&self) -> Option<&KernelBtf> {
        self.sources.iter().find_map(|s| s.as_kernel())
    }

    /// The table's sources, in the order they are asked.
    pub fn sources(&self) -> impl Iterator<Item = &dyn TypeSource> {
        self.sources.iter().map(|s| s.as_ref())
    }

    /// Ask each source in turn with the sources taken out of the table (so a
    /// source can import into it); the first `Ok(Some)` or error ends the search.
    fn ask<R>(
        &mut self,
        mut f: impl FnMut(&mut dyn TypeSource, &mut TypeTable) -> Result<Option<R>, BtfError>,
    ) -> Result<Option<R>, BtfError> {
        let mut sources = std::mem::take(&mut self.sources);
        let mut found = Ok(None);
        for s in sources.iter_mut() {
            found = f(s.as_mut(), self);
            if !matches!(found, Ok(None)) {
                break;
            }
        }
        // Sources added while asking (none today) come after the existing ones.
        sources.append(&mut self.sources);
        self.sources = sources;
        found
    }

    /// Look up a type by C name (`struct task_struct`, `pid_t`, `enum pid_type`) in a
    /// module scope: `None` searches D, then each source (vmlinux, then modules,
    /// loading them lazily); `Some("vmlinux")`, `Some("ext4")` search that module
    /// (then vmlinux, which its split BTF builds on); `Some("D")` only D. Found types
    /// are imported on demand.
    pub fn lookup_scoped(&mut self, module: Option<&str>, name: &str) -> Option<TypeId> {
        self.try_lookup_scoped(module, name).ok().flatten()
    }

    /// [`TypeTable::lookup_scoped`], reporting a named module whose BTF is malformed.
    pub fn try_lookup_scoped(
        &mut self,
        module: Option<&str>,
        name: &str,
    ) -> Result<Option<TypeId>, BtfError> {
        if has_d(module) {
            if let Some(t) = self.lookup_c_name(name) {
                return Ok(Some(t));
            }
        }
        if d_only(module) {
            return Ok(None);
        }
        self.ask(|s, t| s.lookup(t, module, name))
    }

    /// Whether `name` is an ordinary type name in D or a source (typedef-aware
    /// parsing), without importing anything.
    pub fn is_type_name_scoped(&self, module: Option<&str>, name: &str) -> bool {
        if has_d(module) && self.is_type_name(name) {
            return true;
        }
        !d_only(module) && self.sources.iter().any(|s| s.is_type_name(module, name))
    }

    /// An enumerator: D's first, then the sources' (importing its enum type).
    pub fn enum_constant(&mut self, module: Option<&str>, name: &str) -> Option<(TypeId, i64)> {
        if has_d(module) {
            if let Some(c) = self.lookup_constant(name) {
                return Some(c);
            }
        }
        if d_only(module) {
            return None;
        }
        self.ask(|s, t| s.enum_constant(t, module, name))
            .ok()
            .flatten()
    }

    /// A kernel variable's type (and section placement), e.g. `` `jiffies ``.
    pub fn kernel_var(&mut self, module: Option<&str>, name: &str) -> Option<KernelVar> {
        if d_only(module) {
            return None;
        }
        self.ask(|s, t| s.var(t, module, name)).ok().flatten()
    }

    /// A kernel function's prototype as a [`crate::TypeKind::Function`] (for fbt
    /// arguments).
    pub fn kernel_func(&mut self, module: Option<&str>, name: &str) -> Option<TypeId> {
        if d_only(module) {
            return None;
        }
        self.ask(|s, t| s.func(t, module, name)).ok().flatten()
    }

    /// Import BTF type `id` of `module` (`vmlinux` or a module) directly.
    pub fn import_btf_id(&mut self, module: &str, id: u32) -> Result<TypeId, BtfError> {
        match self.ask(|s, t| s.import_id(t, module, id))? {
            Some(t) => Ok(t),
            None => Err(BtfError::BadTypeRef { id: 0, target: id }),
        }
    }
}
