//! The C type table: D's built-in types, user declarations and (lazily) kernel BTF,
//! all as [`TypeId`]s into one [`TypeTable`].
//!
//! Architecture invariant: a `TypeId` is only meaningful with the table that made it;
//! types are never removed, so ids stay valid for the table's life.

use std::collections::HashMap;

/// Bound on recursion through types (arrays of arrays, anonymous members, ...), so a
/// malformed kernel type graph cannot exhaust the stack.
pub(crate) const MAX_DEPTH: u32 = 64;

/// Index of a type in a [`TypeTable`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct TypeId(pub u32);

/// An aggregate member.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Member {
    pub name: String,
    pub ty: TypeId,
    /// Offset from the start of the aggregate, in bits.
    pub bit_offset: u64,
    /// Bitfield width in bits; 0 when not a bitfield.
    pub bit_size: u32,
}

/// One enumerator.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Enumerator {
    pub name: String,
    pub value: i64,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TypeKind {
    Void,
    /// A C integer type; `name` is its canonical spelling (`unsigned long`).
    Int {
        name: String,
        size: u32,
        signed: bool,
    },
    /// Floating types exist in kernel BTF; D can carry but not compute with them.
    Float {
        name: String,
        size: u32,
    },
    /// D's `string`: NUL-terminated, stored in `strsize` bytes.
    String,
    Pointer {
        target: TypeId,
    },
    Array {
        elem: TypeId,
        len: u64,
    },
    Struct {
        name: Option<String>,
        size: u64,
        members: Vec<Member>,
    },
    Union {
        name: Option<String>,
        size: u64,
        members: Vec<Member>,
    },
    Enum {
        name: Option<String>,
        size: u32,
        values: Vec<Enumerator>,
    },
    /// `struct name;` not (yet) defined.
    Forward {
        name: String,
        is_union: bool,
    },
    Typedef {
        name: String,
        target: TypeId,
    },
    Function {
        ret: TypeId,
        params: Vec<TypeId>,
        varargs: bool,
    },
    /// `const`/`volatile`/`restrict` wrappers, as BTF has them.
    Qualified {
        qualifier: Qualifier,
        target: TypeId,
    },
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Qualifier {
    Const,
    Volatile,
    Restrict,
}

/// The D compiler's data model (dtrace(1)'s `-32`/`-64`): the sizes of `long`,
/// `unsigned long` and D's pointers, and so of `size_t`, `uintptr_t` and the
/// other typedefs over them. Kernel types keep the sizes their BTF gives.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum DataModel {
    /// `long` and pointers are 64 bits (the kernel's own model; the default).
    #[default]
    Lp64,
    /// `int`, `long` and pointers are 32 bits.
    Ilp32,
}

impl DataModel {
    /// Size in bytes of `long`, `unsigned long` and D's pointers.
    pub fn word_size(self) -> u32 {
        match self {
            DataModel::Lp64 => 8,
            DataModel::Ilp32 => 4,
        }
    }
}

/// Which module a type came from: `D` (built-ins and user declarations), or a kernel
/// module's BTF (`vmlinux`, ...). Backquote scoping (``vmlinux`task_struct``) uses it.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Module(pub String);

/// The type table. Name lookup follows C's namespaces: ordinary names (typedefs and
/// base types) and tags (`struct`/`union`/`enum`).
///
/// Every type belongs to a [`Module`]: `D` for built-ins and declarations made through
/// [`TypeTable::add`], or the kernel module whose BTF it was imported from. Kernel
/// names live in per-module scopes reached through [`TypeTable::lookup_scoped`]; the
/// plain [`TypeTable::lookup`]/[`TypeTable::lookup_tag`] see only the `D` scope.
#[derive(Debug, Clone, Default)]
pub struct TypeTable {
    kinds: Vec<TypeKind>,
    names: HashMap<String, TypeId>,
    tags: HashMap<String, TypeId>,
    pointers: HashMap<TypeId, TypeId>,
    /// Module index (into `modules`) of each type; missing entries are `D` (0).
    pub(crate) type_module: Vec<u16>,
    /// Interned module names; index 0 is `D` once anything is scoped.
    pub(crate) modules: Vec<Module>,
    /// Enumerators of `D`-scope enums.
    pub(crate) constants: HashMap<String, (TypeId, i64)>,
    /// Alignment of aggregates laid out by [`crate::layout`] (overrides inference).
    pub(crate) aligns: HashMap<TypeId, u64>,
    /// Where types missing here are looked for, in order (kernel BTF first);
    /// see [`crate::source`].
    pub(crate) sources: Vec<Box<dyn crate::source::TypeSource>>,
    /// The data model of D's built-in types and of the pointers D makes.
    model: DataModel,
}

impl TypeTable {
    /// A table holding D's built-in types with LP64 sizes.
    pub fn with_builtins() -> TypeTable {
        TypeTable::with_model(DataModel::Lp64)
    }

    /// A table holding D's built-in types with the sizes of data model `model`
    /// (libdtrace's intrinsic types and `<sys/types.h>` typedefs of that model).
    pub fn with_model(model: DataModel) -> TypeTable {
        let word = model.word_size();
        let mut t = TypeTable {
            model,
            ..TypeTable::default()
        };
        t.kinds.push(TypeKind::Void);
        t.names.insert("void".into(), TypeId(0));
        let ints: &[(&str, u32, bool)] = &[
            ("char", 1, true),
            ("signed char", 1, true),
            ("unsigned char", 1, false),
            ("short", 2, true),
            ("unsigned short", 2, false),
            ("int", 4, true),
            ("unsigned int", 4, false),
            ("long", word, true),
            ("unsigned long", word, false),
            ("long long", 8, true),
            ("unsigned long long", 8, false),
            ("_Bool", 1, false),
        ];
        for (name, size, signed) in ints {
            let id = t.add(TypeKind::Int {
                name: (*name).to_string(),
                size: *size,
                signed: *signed,
            });
            t.names.insert((*name).to_string(), id);
        }
        // Floating types: D declares, stores, copies and prints them (printf's
        // %e %f %g), but has no floating-point arithmetic (nor has BPF).
        for (name, size) in [("float", 4), ("double", 8), ("long double", 16)] {
            let id = t.add(TypeKind::Float {
                name: name.to_string(),
                size,
            });
            t.names.insert(name.to_string(), id);
        }
        let s = t.add(TypeKind::String);
        t.names.insert("string".into(), s);
        // The pointer-sized typedefs are over `long` in LP64 and over `int` in
        // ILP32, as libdtrace's tables of each model have them.
        let (sword, uword) = match model {
            DataModel::Lp64 => ("long", "unsigned long"),
            DataModel::Ilp32 => ("int", "unsigned int"),
        };
        let fixed: &[(&str, &str)] = &[
            ("int8_t", "signed char"),
            ("int16_t", "short"),
            ("int32_t", "int"),
            ("int64_t", "long long"),
            ("uint8_t", "unsigned char"),
            ("uint16_t", "unsigned short"),
            ("uint32_t", "unsigned int"),
            ("uint64_t", "unsigned long long"),
            ("intptr_t", sword),
            ("uintptr_t", uword),
            ("size_t", uword),
            ("ssize_t", sword),
            ("ptrdiff_t", sword),
            ("uchar_t", "unsigned char"),
            ("ushort_t", "unsigned short"),
            ("uint_t", "unsigned int"),
            ("ulong_t", "unsigned long"),
            ("u_longlong_t", "unsigned long long"),
        ];
        for (name, target) in fixed {
            if let Some(target) = t.names.get(*target).copied() {
                let id = t.add(TypeKind::Typedef {
                    name: (*name).to_string(),
                    target,
                });
                t.names.insert((*name).to_string(), id);
            }
        }
        t
    }

    /// Add a type; returns its id. Does not register a name (see [`TypeTable::bind`]).
    /// The type belongs to the `D` module; an enum's enumerators become `D` constants.
    pub fn add(&mut self, kind: TypeKind) -> TypeId {
        let id = TypeId(self.kinds.len() as u32);
        if let TypeKind::Enum { values, .. } = &kind {
            for e in values {
                self.constants.insert(e.name.clone(), (id, e.value));
            }
        }
        self.push_kind(kind, 0);
        id
    }

    fn push_kind(&mut self, kind: TypeKind, module: u16) {
        // Keep `type_module` parallel to `kinds` even if a kind was pushed directly.
        self.type_module.resize(self.kinds.len(), 0);
        self.kinds.push(kind);
        self.type_module.push(module);
    }

    /// Add a type that belongs to module index `module` (see [`TypeTable::module_index`]).
    pub(crate) fn add_in(&mut self, kind: TypeKind, module: u16) -> TypeId {
        let id = TypeId(self.kinds.len() as u32);
        self.push_kind(kind, module);
        id
    }

    /// Replace a type's kind in place (completing a placeholder or a forward).
    pub(crate) fn set_kind(&mut self, id: TypeId, kind: TypeKind) {
        if let Some(k) = self.kinds.get_mut(id.0 as usize) {
            *k = kind;
        }
    }

    /// Index of module `name`, interning it.
    pub(crate) fn module_index(&mut self, name: &str) -> u16 {
        if self.modules.is_empty() {
            self.modules.push(Module("D".into()));
        }
        if let Some(i) = self.modules.iter().position(|m| m.0 == name) {
            return i as u16;
        }
        self.modules.push(Module(name.to_string()));
        (self.modules.len() - 1) as u16
    }

    /// The module `id` belongs to (`D` for built-ins and D declarations).
    pub fn module_of(&self, id: TypeId) -> Module {
        let idx = self.type_module.get(id.0 as usize).copied().unwrap_or(0) as usize;
        match self.modules.get(idx) {
            Some(m) if idx != 0 => m.clone(),
            _ => Module("D".into()),
        }
    }

    /// A `D`-scope enumerator: its enum type and value.
    pub fn lookup_constant(&self, name: &str) -> Option<(TypeId, i64)> {
        self.constants.get(name).copied()
    }

    /// Make `name` an ordinary name (typedef or base type) for `id`.
    pub fn bind(&mut self, name: &str, id: TypeId) {
        self.names.insert(name.to_string(), id);
    }

    /// Make `tag` a struct/union/enum tag for `id`, keyed as `struct tag` etc.
    pub fn bind_tag(&mut self, keyword: &str, tag: &str, id: TypeId) {
        self.tags.insert(format!("{keyword} {tag}"), id);
    }

    pub fn kind(&self, id: TypeId) -> &TypeKind {
        self.kinds.get(id.0 as usize).unwrap_or(&TypeKind::Void)
    }

    pub fn lookup(&self, name: &str) -> Option<TypeId> {
        self.names.get(name).copied()
    }

    /// `keyword` is `struct`, `union` or `enum`.
    pub fn lookup_tag(&self, keyword: &str, tag: &str) -> Option<TypeId> {
        self.tags.get(&format!("{keyword} {tag}")).copied()
    }

    /// Whether `name` names a type (for typedef-aware parsing).
    pub fn is_type_name(&self, name: &str) -> bool {
        self.names.contains_key(name)
    }

    /// The pointer type to `target` (interned).
    pub fn pointer_to(&mut self, target: TypeId) -> TypeId {
        if let Some(p) = self.pointers.get(&target) {
            return *p;
        }
        let p = self.add(TypeKind::Pointer { target });
        self.pointers.insert(target, p);
        p
    }

    /// Strip typedefs and qualifiers.
    pub fn resolve(&self, mut id: TypeId) -> TypeId {
        for _ in 0..64 {
            match self.kind(id) {
                TypeKind::Typedef { target, .. } | TypeKind::Qualified { target, .. } => {
                    id = *target
                }
                _ => return id,
            }
        }
        id
    }

    /// The data model of D's built-in types.
    pub fn model(&self) -> DataModel {
        self.model
    }

    /// Size in bytes of a pointer type: D's pointers (made in the `D` module,
    /// to a `D` type) have the data model's size; a kernel type's pointers,
    /// from its BTF or to it, are the kernel's 64-bit addresses.
    pub fn pointer_size(&self, ptr: TypeId) -> u64 {
        let target = match self.kind(ptr) {
            TypeKind::Pointer { target } => Some(*target),
            _ => None,
        };
        let kernel = |id: TypeId| self.type_module.get(id.0 as usize).copied().unwrap_or(0) != 0;
        if kernel(ptr) || target.is_some_and(|t| kernel(self.resolve(t))) {
            8
        } else {
            u64::from(self.model.word_size())
        }
    }

    /// Size in bytes (`string` is `strsize`, given by the caller's options).
    pub fn size_of(&self, id: TypeId, strsize: u64) -> u64 {
        self.size_of_depth(id, strsize, 0)
    }

    fn size_of_depth(&self, id: TypeId, strsize: u64, depth: u32) -> u64 {
        if depth > MAX_DEPTH {
            return 0;
        }
        let r = self.resolve(id);
        match self.kind(r) {
            TypeKind::Void | TypeKind::Function { .. } | TypeKind::Forward { .. } => 0,
            TypeKind::Int { size, .. } | TypeKind::Float { size, .. } => *size as u64,
            TypeKind::Enum { size, .. } => *size as u64,
            TypeKind::String => strsize,
            TypeKind::Pointer { .. } => self.pointer_size(r),
            TypeKind::Array { elem, len } => self
                .size_of_depth(*elem, strsize, depth + 1)
                .saturating_mul(*len),
            TypeKind::Struct { size, .. } | TypeKind::Union { size, .. } => *size,
            TypeKind::Typedef { .. } | TypeKind::Qualified { .. } => 0,
        }
    }

    /// The C spelling of a type, as dtrace(1) prints it in messages (`char *`, `struct foo`).
    pub fn name_of(&self, id: TypeId) -> String {
        self.name_of_depth(id, 0)
    }

    fn name_of_depth(&self, id: TypeId, depth: u32) -> String {
        if depth > MAX_DEPTH {
            return "...".into();
        }
        let name_of = |t: TypeId| self.name_of_depth(t, depth + 1);
        match self.kind(id) {
            TypeKind::Void => "void".into(),
            TypeKind::Int { name, .. } | TypeKind::Float { name, .. } => name.clone(),
            TypeKind::String => "string".into(),
            TypeKind::Pointer { target } => {
                let inner = name_of(*target);
                if inner.ends_with('*') {
                    format!("{inner}*")
                } else {
                    format!("{inner} *")
                }
            }
            TypeKind::Array { elem, len } => format!("{} [{}]", name_of(*elem), len),
            TypeKind::Struct { name, .. } => format!("struct {}", name.as_deref().unwrap_or("")),
            TypeKind::Union { name, .. } => format!("union {}", name.as_deref().unwrap_or("")),
            TypeKind::Enum { name, .. } => format!("enum {}", name.as_deref().unwrap_or("")),
            // DTrace's type library names every forward declaration a struct,
            // whatever its keyword (`incomplete struct/union/enum struct u`).
            TypeKind::Forward { name, .. } => format!("struct {name}"),
            TypeKind::Typedef { name, .. } => name.clone(),
            TypeKind::Function { ret, .. } => format!("{} ()", name_of(*ret)),
            TypeKind::Qualified { qualifier, target } => {
                let q = match qualifier {
                    Qualifier::Const => "const",
                    Qualifier::Volatile => "volatile",
                    Qualifier::Restrict => "restrict",
                };
                format!("{} {}", q, name_of(*target))
            }
        }
    }

    pub fn len(&self) -> usize {
        self.kinds.len()
    }

    pub fn is_empty(&self) -> bool {
        self.kinds.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn builtins_have_lp64_sizes() {
        let mut t = TypeTable::with_builtins();
        let long = t.lookup("long").unwrap();
        assert_eq!(t.size_of(long, 256), 8);
        let u32_ = t.lookup("uint32_t").unwrap();
        assert_eq!(t.size_of(u32_, 256), 4);
        assert_eq!(t.name_of(u32_), "uint32_t");
        let ch = t.lookup("char").unwrap();
        let p = t.pointer_to(ch);
        assert_eq!(t.pointer_to(ch), p);
        assert_eq!(t.name_of(p), "char *");
        assert_eq!(t.size_of(t.lookup("string").unwrap(), 256), 256);
    }

    #[test]
    fn ilp32_model_sizes() {
        let mut t = TypeTable::with_model(DataModel::Ilp32);
        assert_eq!(t.model(), DataModel::Ilp32);
        for (name, size) in [
            ("long", 4),
            ("unsigned long", 4),
            ("long long", 8),
            ("size_t", 4),
            ("ssize_t", 4),
            ("uintptr_t", 4),
            ("ulong_t", 4),
            ("uint64_t", 8),
        ] {
            let id = t.lookup(name).unwrap();
            assert_eq!(t.size_of(id, 256), size, "{name}");
        }
        let ch = t.lookup("char").unwrap();
        let p = t.pointer_to(ch);
        assert_eq!(t.size_of(p, 256), 4);
        assert_eq!(t.align_of(p), 4);
        // A kernel type's pointers stay the kernel's 64-bit addresses.
        let m = t.module_index("vmlinux");
        let task = t.add_in(
            TypeKind::Struct {
                name: Some("task_struct".into()),
                size: 16,
                members: Vec::new(),
            },
            m,
        );
        let kp = t.pointer_to(task);
        assert_eq!(t.size_of(kp, 256), 8);
        let lp = TypeTable::with_builtins();
        assert_eq!(lp.size_of(lp.lookup("size_t").unwrap(), 256), 8);
    }
}
