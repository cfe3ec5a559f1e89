//! The prototypes of DTrace's functions (subroutines, actions and aggregating
//! functions), checked before anything else about a call, as libdtrace does: a
//! wrong number of arguments is `D_PROTO_LEN`, an argument whose type the
//! parameter does not accept is `D_PROTO_ARG`. Only then do the rules of the
//! function itself apply (or, for a function this implementation lacks, the
//! error saying so).
//!
//! Prototypes are written as DTrace writes them: `@` is a parameter of any type,
//! `[T]` an optional one, `...` any number more. The parameter types that matter
//! are integers, strings (`string`, `char *`: strings, `char` arrays and pointers)
//! and pointers (`T *`: pointers, arrays and strings).

use crate::check::{Checker, R};
use crate::ir::*;
use dtrace_syntax::ast::{self, ExprKind as K};
use dtrace_syntax::{Diagnostic, Span, Tag};

/// What kind of function a name is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum FuncKind {
    /// A subroutine: usable in expressions, has a value (unless its result is void).
    Subr,
    /// An action: a statement; as an expression it is `void`.
    Action,
    /// An aggregating function: only as the right side of `@x[...] =`.
    AggFunc,
}

/// One function's prototype.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Proto {
    pub kind: FuncKind,
    /// The result type as DTrace writes it (`void` for no value).
    pub ret: &'static str,
    /// The parameter list as DTrace writes it.
    pub params: &'static str,
}

const fn p(kind: FuncKind, ret: &'static str, params: &'static str) -> Proto {
    Proto { kind, ret, params }
}

use FuncKind::{Action as A, AggFunc as G, Subr as S};

/// DTrace's function identifiers (libdtrace's global identifier table), sorted.
const PROTOS: &[(&str, Proto)] = &[
    ("alloca", p(S, "void *", "size_t")),
    ("avg", p(G, "void", "@")),
    ("basename", p(S, "string", "const char *")),
    ("bcopy", p(S, "void", "void *, void *, size_t")),
    ("breakpoint", p(A, "void", "")),
    ("chill", p(A, "void", "int")),
    ("cleanpath", p(S, "string", "const char *")),
    ("clear", p(A, "void", "@")),
    ("commit", p(A, "void", "int")),
    ("copyin", p(S, "void *", "uintptr_t, size_t")),
    ("copyinstr", p(S, "string", "uintptr_t, [size_t]")),
    ("copyinto", p(S, "void", "uintptr_t, size_t, void *")),
    ("copyout", p(S, "void", "void *, uintptr_t, size_t")),
    ("copyoutstr", p(S, "void", "char *, uintptr_t, size_t")),
    ("count", p(G, "void", "")),
    ("d_path", p(S, "string", "struct path *")),
    ("denormalize", p(A, "void", "@")),
    ("dirname", p(S, "string", "const char *")),
    ("discard", p(A, "void", "int")),
    ("exit", p(A, "void", "int")),
    ("freopen", p(A, "void", "@, ...")),
    ("ftruncate", p(A, "void", "")),
    ("func", p(A, "_symaddr", "uintptr_t")),
    ("getmajor", p(S, "dev_t", "dev_t")),
    ("getminor", p(S, "dev_t", "dev_t")),
    ("htonl", p(S, "uint32_t", "uint32_t")),
    ("htonll", p(S, "uint64_t", "uint64_t")),
    ("htons", p(S, "uint16_t", "uint16_t")),
    ("index", p(S, "int", "const char *, const char *, [int]")),
    ("inet_ntoa", p(S, "string", "ipaddr_t *")),
    ("inet_ntoa6", p(S, "string", "struct in6_addr *, [int]")),
    ("inet_ntop", p(S, "string", "int, void *")),
    ("jstack", p(A, "stack", "[uint32_t], [uint32_t]")),
    ("link_ntop", p(S, "string", "int, void *")),
    (
        "llquantize",
        p(G, "void", "@, int32_t, int32_t, int32_t, int32_t, ..."),
    ),
    ("lltostr", p(S, "string", "int64_t, [int]")),
    ("lquantize", p(G, "void", "@, int32_t, int32_t, ...")),
    ("max", p(G, "void", "@")),
    ("min", p(G, "void", "@")),
    ("mod", p(A, "_symaddr", "uintptr_t")),
    ("msgdsize", p(S, "size_t", "mblk_t *")),
    ("msgsize", p(S, "size_t", "mblk_t *")),
    ("mutex_owned", p(S, "int", "struct mutex *")),
    (
        "mutex_owner",
        p(S, "struct task_struct *", "struct mutex *"),
    ),
    ("mutex_type_adaptive", p(S, "int", "struct mutex *")),
    ("mutex_type_spin", p(S, "int", "struct mutex *")),
    ("normalize", p(A, "void", "@, [uint64_t]")),
    ("ntohl", p(S, "uint32_t", "uint32_t")),
    ("ntohll", p(S, "uint64_t", "uint64_t")),
    ("ntohs", p(S, "uint16_t", "uint16_t")),
    ("panic", p(A, "void", "")),
    ("pcap", p(A, "void", "void *, int")),
    ("print", p(A, "void", "@")),
    ("printa", p(A, "void", "@, ...")),
    ("printf", p(A, "void", "string, ...")),
    ("progenyof", p(S, "int", "pid_t")),
    ("quantize", p(G, "void", "@, ...")),
    ("raise", p(A, "void", "int")),
    ("rand", p(S, "int", "")),
    ("rindex", p(S, "int", "const char *, const char *, [int]")),
    ("rw_iswriter", p(S, "int", "rwlock_t *")),
    ("rw_read_held", p(S, "int", "rwlock_t *")),
    ("rw_write_held", p(S, "int", "rwlock_t *")),
    ("setopt", p(A, "void", "const char *, [const char *]")),
    ("speculate", p(A, "void", "int")),
    ("speculation", p(S, "int", "")),
    ("stack", p(A, "stack", "[uint32_t]")),
    ("stddev", p(G, "void", "@")),
    ("stop", p(A, "void", "")),
    ("strchr", p(S, "string", "const char *, char")),
    ("strjoin", p(S, "string", "const char *, const char *")),
    ("strlen", p(S, "size_t", "const char *")),
    ("strrchr", p(S, "string", "const char *, char")),
    ("strstr", p(S, "string", "const char *, const char *")),
    ("strtok", p(S, "string", "const char *, const char *")),
    ("substr", p(S, "string", "const char *, int, [int]")),
    ("sum", p(G, "void", "@")),
    ("sym", p(A, "_symaddr", "uintptr_t")),
    ("system", p(A, "void", "@, ...")),
    ("trace", p(A, "void", "@")),
    ("tracemem", p(A, "void", "@, size_t, [size_t]")),
    ("trunc", p(A, "void", "@, [uint64_t]")),
    ("uaddr", p(A, "_usymaddr", "uintptr_t")),
    ("ufunc", p(A, "_usymaddr", "uintptr_t")),
    ("umod", p(A, "_usymaddr", "uintptr_t")),
    ("ustack", p(A, "stack", "[uint32_t], [uint32_t]")),
    ("usym", p(A, "_usymaddr", "uintptr_t")),
];

/// The prototype of DTrace function `name`, if it is one.
pub(crate) fn lookup(name: &str) -> Option<Proto> {
    PROTOS
        .binary_search_by(|(n, _)| n.cmp(&name))
        .ok()
        .map(|i| PROTOS[i].1)
}

/// D's built-in variables (the names `Checker::builtin` types, and the arrays).
const BUILTIN_VARIABLES: &[&str] = &[
    "arg0",
    "arg1",
    "arg2",
    "arg3",
    "arg4",
    "arg5",
    "arg6",
    "arg7",
    "arg8",
    "arg9",
    "args",
    "caller",
    "cpu",
    "curthread",
    "epid",
    "errno",
    "execname",
    "gid",
    "id",
    "pid",
    "ppid",
    "probefunc",
    "probemod",
    "probename",
    "probeprov",
    "stackdepth",
    "tid",
    "timestamp",
    "ucaller",
    "uid",
    "uregs",
    "ustackdepth",
    "vtimestamp",
    "walltimestamp",
];

/// Whether `name` is one of D's own identifiers: a built-in variable or a
/// DTrace function (action, subroutine, aggregating function). libdtrace's
/// lexer looks an identifier up among D's identifiers before it asks whether
/// the identifier names a type, so these are never type names, and the
/// compiler need not ask a type source about them.
pub fn is_d_identifier(name: &str) -> bool {
    BUILTIN_VARIABLES.contains(&name) || lookup(name).is_some()
}

/// Whether `name` is an action or aggregating function without a value (which
/// code generation cannot call from inside an expression).
pub(crate) fn is_void_action(name: &str) -> bool {
    lookup(name).is_some_and(|p| p.kind != FuncKind::Subr && p.ret == "void")
}

/// Whether a call of `name` is an expression without a value (an action, an
/// aggregating function, or a subroutine whose result is void).
pub(crate) fn returns_void(name: &str) -> bool {
    lookup(name).is_some_and(|p| p.ret == "void")
}

/// One parameter: what it accepts and how DTrace names it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Param {
    Any,
    Int(&'static str),
    Str(&'static str),
    Ptr(&'static str),
}

/// The parameter list: fixed parameters, how many of them are required, and
/// whether more may follow (`...`).
struct Params {
    params: Vec<Param>,
    required: usize,
    varargs: bool,
}

fn parse(list: &'static str) -> Params {
    let mut params = Vec::new();
    let mut required = 0;
    let mut varargs = false;
    for raw in list.split(',').map(str::trim).filter(|s| !s.is_empty()) {
        if raw == "..." {
            varargs = true;
            continue;
        }
        let (optional, t) = match raw.strip_prefix('[').and_then(|r| r.strip_suffix(']')) {
            Some(inner) => (true, inner.trim()),
            None => (false, raw),
        };
        if !optional {
            required = params.len() + 1;
        }
        // DTrace names a parameter without its qualifiers.
        let shown = t.strip_prefix("const ").unwrap_or(t);
        params.push(if t == "@" {
            Param::Any
        } else if t == "string" || shown == "char *" {
            Param::Str(shown)
        } else if t.ends_with('*') {
            Param::Ptr(shown)
        } else {
            Param::Int(shown)
        });
    }
    Params {
        params,
        required,
        varargs,
    }
}

/// An argument's type as the prototype check sees it.
enum ArgTy {
    /// A value of this type; `true` when it is the integer constant 0 (after
    /// folding: `0`, `NULL`, `1 - 1`), which DTrace accepts for any pointer.
    Value(Ty, bool),
    /// A call of a function without a value.
    Void,
    /// An aggregation (`@a`): DTrace's dynamic type.
    Aggregation,
}

impl<'a> Checker<'a> {
    /// Check a call of DTrace function `func` against its prototype (nothing for
    /// a name that is not one).
    pub(crate) fn check_proto(&mut self, func: &str, args: &[ast::Expr], span: Span) -> R<()> {
        let Some(proto) = lookup(func) else {
            return Ok(());
        };
        let ps = parse(proto.params);
        let n = args.len();
        let max = ps.params.len();
        let expected = if n < ps.required {
            if ps.varargs || ps.required < max {
                format!("at least {}", ps.required)
            } else {
                ps.required.to_string()
            }
        } else if n > max && !ps.varargs {
            if ps.required < max {
                format!("at most {max}")
            } else {
                max.to_string()
            }
        } else {
            String::new()
        };
        if !expected.is_empty() {
            return Err(len_mismatch(func, n, &expected, span));
        }
        for (i, (param, arg)) in ps.params.iter().zip(args).enumerate() {
            if *param == Param::Any {
                continue;
            }
            let ty = self.arg_ty(arg)?;
            let (ok, shown) = match (param, &ty) {
                (_, ArgTy::Void) => (false, "void".to_string()),
                (_, ArgTy::Aggregation) => (false, "aggregation".to_string()),
                (Param::Int(_), ArgTy::Value(t, _)) => (t.is_int(), self.name(t)),
                (Param::Str(_), ArgTy::Value(t, zero)) => (
                    t.is_str() || t.is_ptr() || matches!(t, Ty::Agg { .. }) || *zero,
                    self.name(t),
                ),
                // A string is a `char *`, so it passes for `void *` but not for a
                // pointer to another type (`struct mutex *`).
                (Param::Ptr(want), ArgTy::Value(t, zero)) => (
                    t.is_ptr()
                        || (t.is_str() && (*want == "void *" || want.contains("char")))
                        || matches!(t, Ty::Agg { .. })
                        || *zero,
                    self.name(t),
                ),
                (Param::Any, _) => (true, String::new()),
            };
            if !ok {
                let want = match param {
                    Param::Int(s) | Param::Str(s) | Param::Ptr(s) => *s,
                    Param::Any => "@",
                };
                return Err(Diagnostic::new(
                    Tag::D_PROTO_ARG,
                    arg.span,
                    format!(
                        "{func}( ) argument #{} is incompatible with prototype:\n\tprototype: {want}\n\t argument: {shown}",
                        i + 1
                    ),
                ));
            }
        }
        Ok(())
    }

    /// The type of an argument, without requiring it to have a value: a call of
    /// a function without one (checked against its own prototype) is `void`.
    fn arg_ty(&mut self, arg: &ast::Expr) -> R<ArgTy> {
        match &arg.kind {
            K::Agg(_) => Ok(ArgTy::Aggregation),
            K::Call { func, args } if returns_void(func) => {
                self.check_proto(func, args, arg.span)?;
                Ok(ArgTy::Void)
            }
            _ => {
                let v = self.expr(arg)?;
                let zero = v.ty.is_int() && crate::expr::const_value(&v) == Some(0);
                Ok(ArgTy::Value(v.ty, zero))
            }
        }
    }

    /// A call of a function without a value, used where a value is needed: its
    /// own prototype is checked, and the call stands for a `void` expression
    /// (which the caller's rules then reject with their own message).
    pub(crate) fn void_call(&mut self, arg: &ast::Expr) -> R<Option<TExpr>> {
        match &arg.kind {
            K::Call { func, args } if returns_void(func) => {
                self.check_proto(func, args, arg.span)?;
                Ok(Some(crate::expr::mk(TExprKind::Int(0), Ty::Void, arg.span)))
            }
            _ => Ok(None),
        }
    }
}

/// The error for a call of `func` that no rule accepts: a name that is not a
/// function at all, or a DTrace function this implementation does not provide.
pub(crate) fn undefined(func: &str, span: Span) -> Diagnostic {
    let msg = if lookup(func).is_some() {
        format!("{func}( ) is not supported by this implementation")
    } else {
        format!("undefined function name: {func}")
    };
    Diagnostic::new(Tag::D_FUNC_UNDEF, span, msg)
}

/// D_PROTO_LEN in DTrace's words: `f( ) prototype mismatch: N args passed,
/// E expected` (`E` as "2", "at least 1", "at most 3").
pub(crate) fn len_mismatch(func: &str, passed: usize, expected: &str, span: Span) -> Diagnostic {
    Diagnostic::new(
        Tag::D_PROTO_LEN,
        span,
        format!(
            "{func}( ) prototype mismatch: {passed} arg{}passed, {expected} expected",
            if passed == 1 { " " } else { "s " }
        ),
    )
}

/// D_PROTO_ARG in DTrace's words, with its tab-indented prototype and
/// argument lines.
pub(crate) fn arg_mismatch(
    func: &str,
    n: usize,
    proto: &str,
    shown: &str,
    span: Span,
) -> Diagnostic {
    Diagnostic::new(
        Tag::D_PROTO_ARG,
        span,
        format!(
            "{func}( ) argument #{n} is incompatible with prototype:\n\tprototype: {proto}\n\t argument: {shown}"
        ),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn table_is_sorted_for_lookup() {
        assert!(PROTOS.windows(2).all(|w| w[0].0 < w[1].0));
        assert_eq!(
            lookup("copyin").map(|p| p.params),
            Some("uintptr_t, size_t")
        );
        assert!(lookup("nosuch").is_none());
        assert!(returns_void("trace") && !returns_void("strlen"));
    }

    #[test]
    fn parameter_lists() {
        let ps = parse("const char *, int, [int]");
        assert_eq!(ps.required, 2);
        assert_eq!(ps.params.len(), 3);
        assert_eq!(ps.params[0], Param::Str("char *"));
        assert!(!ps.varargs);
        let ps = parse("@, int32_t, int32_t, ...");
        assert_eq!((ps.required, ps.varargs), (3, true));
        assert_eq!(parse("").params.len(), 0);
        assert_eq!(parse("void *, int").params[0], Param::Ptr("void *"));
    }
}
