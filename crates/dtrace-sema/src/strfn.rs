//! The D string subroutines (`strlen strjoin substr index rindex strchr strrchr
//! strstr strtok toupper tolower lltostr strtoll basename dirname cleanpath`):
//! their prototypes, DTrace's argument checks (`D_PROTO_LEN`, `D_PROTO_ARG`) and
//! result types. A string parameter (`char *` in messages) takes a D string, a
//! `char` array or any pointer (read as a string from kernel memory: a bad
//! address faults at run time), or the null pointer constant.

use crate::check::{Checker, R};
use crate::expr::{const_value, convert, mk};
use crate::ir::*;
use dtrace_syntax::ast;
use dtrace_syntax::{Diagnostic, Span};

/// A parameter's kind, named in messages as DTrace names it.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Param {
    /// `const char *`
    Str,
    Int,
    Char,
    Int64,
}

impl Param {
    fn name(self) -> &'static str {
        match self {
            Param::Str => "char *",
            Param::Int => "int",
            Param::Char => "char",
            Param::Int64 => "int64_t",
        }
    }
}

/// Prototype of each string subroutine: parameters and how many are required.
fn prototype(f: StrFunc) -> (&'static [Param], usize) {
    use Param::*;
    use StrFunc as F;
    match f {
        F::Strlen | F::Toupper | F::Tolower | F::Basename | F::Dirname | F::Cleanpath => {
            (&[Str], 1)
        }
        F::Strjoin | F::Strstr | F::Strtok => (&[Str, Str], 2),
        F::Substr => (&[Str, Int, Int], 2),
        F::Index | F::Rindex => (&[Str, Str, Int], 2),
        F::Strchr | F::Strrchr => (&[Str, Char], 2),
        F::Lltostr => (&[Int64, Int], 1),
        F::Strtoll => (&[Str, Int], 1),
    }
}

/// The string subroutine called `name`, if it is one.
pub(crate) fn lookup(name: &str) -> Option<StrFunc> {
    use StrFunc as F;
    Some(match name {
        "strlen" => F::Strlen,
        "strjoin" => F::Strjoin,
        "substr" => F::Substr,
        "index" => F::Index,
        "rindex" => F::Rindex,
        "strchr" => F::Strchr,
        "strrchr" => F::Strrchr,
        "strstr" => F::Strstr,
        "strtok" => F::Strtok,
        "toupper" => F::Toupper,
        "tolower" => F::Tolower,
        "lltostr" => F::Lltostr,
        "strtoll" => F::Strtoll,
        "basename" => F::Basename,
        "dirname" => F::Dirname,
        "cleanpath" => F::Cleanpath,
        _ => return None,
    })
}

fn proto_len(func: &str, passed: usize, min: usize, max: usize, span: Span) -> Diagnostic {
    let expected = if min == max {
        format!("{max}")
    } else if passed < min {
        format!("at least {min}")
    } else {
        format!("at most {max}")
    };
    crate::proto::len_mismatch(func, passed, &expected, span)
}

/// Whether `e` is a null pointer constant (`NULL`, `0`, `(char *)0`).
pub(crate) fn is_null_constant(e: &TExpr) -> bool {
    e.ty.is_int_or_ptr() && const_value(e) == Some(0)
}

impl<'a> Checker<'a> {
    /// A call of the string subroutine `f`.
    pub(crate) fn string_subr(
        &mut self,
        name: &str,
        f: StrFunc,
        args: &[ast::Expr],
        span: Span,
    ) -> R<TExpr> {
        let (params, min) = prototype(f);
        if args.len() < min || args.len() > params.len() {
            return Err(proto_len(name, args.len(), min, params.len(), span));
        }
        let mut out = Vec::new();
        for (i, (a, p)) in args.iter().zip(params.iter()).enumerate() {
            let v = self.expr(a)?;
            let v = self.decay(v);
            // strtok(NULL, delim) goes on with the string of the previous call.
            if f == StrFunc::Strtok && i == 0 && is_null_constant(&v) {
                out.push(mk(TExprKind::Int(0), self.b.int, v.span));
                continue;
            }
            out.push(self.subr_arg(name, i + 1, *p, v)?);
        }
        let cap = self.opts.str_cap();
        let ty = match f {
            StrFunc::Strlen => self.size_t(),
            StrFunc::Index | StrFunc::Rindex => self.b.int,
            StrFunc::Strtoll => self.b.int64_t,
            _ => Ty::Str { cap },
        };
        Ok(mk(TExprKind::StrFn { func: f, args: out }, ty, span))
    }

    fn size_t(&mut self) -> Ty {
        match self.types.lookup("size_t") {
            Some(id) => match self.value_ty(id) {
                t @ Ty::Int { .. } => t,
                _ => self.b.ulong,
            },
            None => self.b.ulong,
        }
    }

    /// Argument `n` checked against parameter `p` and converted to it.
    fn subr_arg(&mut self, func: &str, n: usize, p: Param, v: TExpr) -> R<TExpr> {
        let bad = |c: &Checker, v: &TExpr| {
            crate::proto::arg_mismatch(func, n, p.name(), &c.name(&v.ty), v.span)
        };
        match p {
            Param::Str => {
                if v.ty.is_str() {
                    return Ok(v);
                }
                if v.ty.is_ptr() || is_null_constant(&v) {
                    let v = match self.string_of(v) {
                        Ok(s) => return Ok(s),
                        Err(v) => v,
                    };
                    // Any other pointer (or NULL) is read as the address of a string.
                    let max = self.opts.strsize.clamp(1, 1 << 16) + 1;
                    let ulong = self.b.ulong;
                    let addr = if v.ty.is_ptr() {
                        crate::ptr::retype(v, ulong)
                    } else {
                        convert(v, ulong)
                    };
                    let span = addr.span;
                    let cap = crate::check::str_cap_for(max, self.opts);
                    let k = TExprKind::KStr {
                        addr: Box::new(addr),
                        max,
                    };
                    return Ok(mk(k, Ty::Str { cap }, span));
                }
                Err(bad(self, &v))
            }
            Param::Int | Param::Char | Param::Int64 => {
                if !v.ty.is_int() {
                    return Err(bad(self, &v));
                }
                let to = match p {
                    Param::Int => self.b.int,
                    Param::Char => self.b.char_,
                    _ => self.b.int64_t,
                };
                Ok(convert(v, to))
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_and_arity() {
        assert_eq!(lookup("substr"), Some(StrFunc::Substr));
        assert_eq!(lookup("strcat"), None);
        let (p, min) = prototype(StrFunc::Index);
        assert_eq!((p.len(), min), (3, 2));
        let d = proto_len("substr", 1, 2, 3, Span::default());
        assert!(d.message.ends_with("1 arg passed, at least 2 expected"));
        let d = proto_len("substr", 4, 2, 3, Span::default());
        assert!(d.message.ends_with("4 args passed, at most 3 expected"));
        let d = proto_len("strtok", 3, 2, 2, Span::default());
        assert!(d.message.ends_with("3 args passed, 2 expected"));
    }
}
