//! C integer typing for D in its data model (LP64, or ILP32 with `-32`): literal
//! types, integer promotions and the usual arithmetic conversions, and the names
//! dtrace(1) uses in messages.

use crate::ir::Ty;
use dtrace_ctypes::{TypeId, TypeKind, TypeTable};
use dtrace_syntax::ast::IntSuffix;

/// The base types sema refers to, looked up (or added) once per compilation.
#[derive(Debug, Clone, Copy)]
pub struct BaseTypes {
    pub char_: Ty,
    pub int: Ty,
    pub uint: Ty,
    /// The 64-bit integer types D computes in: `long`/`unsigned long` in LP64,
    /// `long long`/`unsigned long long` in ILP32.
    pub long: Ty,
    pub ulong: Ty,
    /// C's `long` and `unsigned long` of the data model (32 bits in ILP32).
    pub c_long: Ty,
    pub c_ulong: Ty,
    pub llong: Ty,
    pub ullong: Ty,
    pub pid_t: Ty,
    pub id_t: Ty,
    pub uid_t: Ty,
    pub gid_t: Ty,
    pub processorid_t: Ty,
    pub uint64_t: Ty,
    pub int64_t: Ty,
    pub uint_t: Ty,
    pub void_id: TypeId,
}

fn int_ty(table: &TypeTable, id: TypeId) -> Option<Ty> {
    match table.kind(table.resolve(id)) {
        TypeKind::Int { size, signed, .. } => Some(Ty::Int {
            size: *size as u8,
            signed: *signed,
            id,
        }),
        TypeKind::Enum { size, .. } => Some(Ty::Int {
            size: *size as u8,
            signed: true,
            id,
        }),
        _ => None,
    }
}

/// Find `name`, or add it as a typedef of `target` (or as a plain integer).
fn ensure(table: &mut TypeTable, name: &str, target: &str, size: u32, signed: bool) -> Ty {
    if let Some(id) = table.lookup(name) {
        if let Some(t) = int_ty(table, id) {
            return t;
        }
    }
    let id = match table.lookup(target) {
        Some(t) if int_ty(table, t).is_some() => table.add(TypeKind::Typedef {
            name: name.to_string(),
            target: t,
        }),
        _ => table.add(TypeKind::Int {
            name: name.to_string(),
            size,
            signed,
        }),
    };
    table.bind(name, id);
    Ty::Int {
        size: size as u8,
        signed,
        id,
    }
}

impl BaseTypes {
    pub fn new(table: &mut TypeTable) -> BaseTypes {
        let void_id = match table.lookup("void") {
            Some(v) => v,
            None => {
                let v = table.add(TypeKind::Void);
                table.bind("void", v);
                v
            }
        };
        let char_ = ensure(table, "char", "char", 1, true);
        let int = ensure(table, "int", "int", 4, true);
        let uint = ensure(table, "unsigned int", "unsigned int", 4, false);
        let word = table.model().word_size();
        let c_long = ensure(table, "long", "long", word, true);
        let c_ulong = ensure(table, "unsigned long", "unsigned long", word, false);
        let llong = ensure(table, "long long", "long long", 8, true);
        let ullong = ensure(table, "unsigned long long", "unsigned long long", 8, false);
        let (long, ulong) = if c_long.size() == 8 {
            (c_long, c_ulong)
        } else {
            (llong, ullong)
        };
        BaseTypes {
            char_,
            int,
            uint,
            long,
            ulong,
            c_long,
            c_ulong,
            llong,
            ullong,
            pid_t: ensure(table, "pid_t", "int", 4, true),
            id_t: ensure(table, "id_t", "int", 4, true),
            uid_t: ensure(table, "uid_t", "unsigned int", 4, false),
            gid_t: ensure(table, "gid_t", "unsigned int", 4, false),
            processorid_t: ensure(table, "processorid_t", "int", 4, true),
            uint64_t: ensure(table, "uint64_t", "unsigned long long", 8, false),
            int64_t: ensure(table, "int64_t", "long long", 8, true),
            uint_t: ensure(table, "uint_t", "unsigned int", 4, false),
            void_id,
        }
    }

    /// C's type of an integer literal (C99 6.4.4.1, as libdtrace applies it):
    /// the first of the suffix's candidate types whose range holds the value,
    /// the ranges being those of the data model (`long` is 32 bits in ILP32).
    pub fn literal(&self, value: u64, suffix: IntSuffix, radix: u8) -> Ty {
        let fits = |t: &Ty| {
            let bits = t.size() * 8 - u32::from(t.signed());
            bits >= 64 || value < (1u64 << bits)
        };
        let decimal = radix == 10;
        let candidates: &[Ty] = match suffix {
            IntSuffix::None if decimal => &[self.int, self.c_long, self.llong],
            IntSuffix::None => &[self.int, self.uint, self.c_long, self.c_ulong, self.llong],
            IntSuffix::U => &[self.uint, self.c_ulong],
            IntSuffix::L => &[self.c_long, self.c_ulong, self.llong],
            IntSuffix::LL => &[self.llong],
            IntSuffix::UL => &[self.c_ulong, self.ullong],
            IntSuffix::ULL => &[self.ullong],
        };
        match candidates.iter().find(|t| fits(t)) {
            Some(t) => *t,
            None if self.c_ulong.size() == 8 && suffix != IntSuffix::ULL => self.c_ulong,
            None => self.ullong,
        }
    }

    /// The type of a binary arithmetic operation in D (libdtrace's promotion):
    /// of the two operand types, the one of greater rank, the rank being its
    /// width in bits plus one when unsigned; no promotion to `int` first, so
    /// `unsigned char + char` is an `unsigned char`.
    pub fn dt_promote(&self, a: Ty, b: Ty) -> Ty {
        let rank = |t: &Ty| match t {
            Ty::Int { size, signed, .. } => u32::from(*size) * 8 + u32::from(!*signed),
            _ => 0,
        };
        match (a, b) {
            (Ty::Int { .. }, Ty::Int { .. }) => {
                if rank(&b) > rank(&a) {
                    b
                } else {
                    a
                }
            }
            _ => self.int,
        }
    }

    /// Integer promotion: types narrower than `int` become `int`.
    pub fn promote(&self, t: Ty) -> Ty {
        match t {
            Ty::Int { size, .. } if size < 4 => self.int,
            other => other,
        }
    }

    /// The usual arithmetic conversions of two integer types.
    pub fn usual(&self, a: Ty, b: Ty) -> Ty {
        let a = self.promote(a);
        let b = self.promote(b);
        let (
            Ty::Int {
                size: sa,
                signed: ga,
                ..
            },
            Ty::Int {
                size: sb,
                signed: gb,
                ..
            },
        ) = (a, b)
        else {
            return self.int;
        };
        if sa == sb && ga == gb {
            return a;
        }
        if sa == sb {
            // Same rank, one unsigned: the unsigned one.
            return if !ga { a } else { b };
        }
        // Different sizes: the larger type can represent every value of the smaller
        // (long vs unsigned int on LP64), so the larger wins.
        if sa > sb {
            a
        } else {
            b
        }
    }
}

/// Normalize a 64-bit value to an integer type's width and signedness.
pub fn normalize(v: i64, t: &Ty) -> i64 {
    match t {
        Ty::Int { size, signed, .. } => match (size, signed) {
            (1, true) => v as i8 as i64,
            (1, false) => v as u8 as i64,
            (2, true) => v as i16 as i64,
            (2, false) => v as u16 as i64,
            (4, true) => v as i32 as i64,
            (4, false) => v as u32 as i64,
            _ => v,
        },
        _ => v,
    }
}

/// The name dtrace(1) prints for a type.
pub fn type_name(table: &TypeTable, t: &Ty) -> String {
    match t {
        Ty::Int { id, .. } | Ty::Ptr { id } | Ty::Agg { id, .. } => table.name_of(*id),
        Ty::Str { .. } => "string".to_string(),
        Ty::Stack { .. } => "stack".to_string(),
        Ty::Void => "void".to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn conversions() {
        let mut t = TypeTable::with_builtins();
        let b = BaseTypes::new(&mut t);
        assert_eq!(b.usual(b.char_, b.char_), b.int);
        assert!(b.usual(b.int, b.uint).same_repr(&b.uint));
        assert!(b.usual(b.uint, b.long).same_repr(&b.long));
        assert!(b.usual(b.long, b.ulong).same_repr(&b.ulong));
        assert_eq!(b.literal(0xffff_ffff, IntSuffix::None, 16), b.uint);
        assert_eq!(b.literal(4294967295, IntSuffix::None, 10), b.long);
        assert_eq!(normalize(-1, &b.uint), 0xffff_ffff);
        assert_eq!(normalize(0x1_0000_0001, &b.int), 1);
        assert_eq!(type_name(&t, &b.pid_t), "pid_t");
    }

    #[test]
    fn ilp32_literals_and_wide_types() {
        let mut t = TypeTable::with_model(dtrace_ctypes::DataModel::Ilp32);
        let b = BaseTypes::new(&mut t);
        // C's long is 32 bits; D still computes in 64 (long long).
        assert_eq!(b.c_long.size(), 4);
        assert_eq!(b.long.size(), 8);
        assert_eq!(type_name(&t, &b.long), "long long");
        // A decimal constant past INT_MAX is a long long, not a (32-bit) long.
        assert_eq!(b.literal(4294967295, IntSuffix::None, 10), b.llong);
        assert_eq!(b.literal(0xffff_ffff, IntSuffix::None, 16), b.uint);
        assert_eq!(b.literal(5, IntSuffix::L, 10), b.c_long);
        assert_eq!(b.literal(1 << 40, IntSuffix::L, 10), b.llong);
        assert_eq!(b.literal(1 << 40, IntSuffix::UL, 10), b.ullong);
    }
}
