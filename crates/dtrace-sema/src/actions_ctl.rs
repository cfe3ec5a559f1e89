//! The actions beyond trace/printf/print/exit/printa, with DTrace's prototypes:
//! `stack`, `tracemem`, `setopt`, `ftruncate`, `freopen`, `system`, `raise`,
//! `stop`, and the ones Linux has no counterpart for (`panic`, `breakpoint`,
//! `pcap`), which are clear compile-time errors; and the user-space ones:
//! `ustack`/`jstack` (a user stack) and `uaddr`/`usym`/`ufunc`/`umod` (a user
//! address with its process), values that aggregation keys may hold.
//!
//! Destructive actions (`system raise stop chill panic breakpoint freopen`) mark
//! the program; the facade refuses to enable it without `-w`.

use crate::check::{Checker, R};
use crate::expr::const_value;
use crate::ir::*;
use crate::printf::PrintfArg;
use crate::proto::len_mismatch as proto_len;
use dtrace_syntax::ast::{self, ExprKind as K};
use dtrace_syntax::{Diagnostic, Span, Tag};

/// The actions this file checks.
pub(crate) const CONTROL_ACTIONS: &[&str] = &[
    "stack",
    "ustack",
    "jstack",
    "uaddr",
    "usym",
    "ufunc",
    "umod",
    "tracemem",
    "setopt",
    "ftruncate",
    "freopen",
    "system",
    "raise",
    "stop",
    "chill",
    "panic",
    "breakpoint",
    "pcap",
    "sym",
    "func",
    "mod",
];

/// The most frames any stack may have, whatever `maxframes` or
/// `kernel.perf_event_max_stack` say: a traced `ustack()` with its stack
/// copy (at most [`MAX_USTACK_PAGES`] + 1 pages) must fit one record, whose
/// fields are addressed by 16-bit offsets (under 32 KiB).
pub const MAX_STACK_FRAMES: u32 = 256;

/// `maxframes`' default where `/proc/sys/kernel/perf_event_max_stack` cannot
/// be read: the kernel's own default. `bpf_get_stack` gives no more frames
/// than that sysctl allows, so `maxframes` defaults to its value.
pub const DEFAULT_MAX_FRAMES: u32 = 127;

/// `stackframes`' default: dtrace's is 20.
pub const DEFAULT_STACK_FRAMES: u32 = 20;

/// `ustackframes`' default: dtrace's is 100.
pub const DEFAULT_USTACK_FRAMES: u32 = 100;

/// `ustackbytes`' default: bytes of user stack copied above the stack
/// pointer for unwinding a traced `ustack()` (whole pages are copied from the
/// page holding the stack pointer, so at least this many are above it).
pub const DEFAULT_USTACK_BYTES: u32 = 4096;

/// The most pages `ustackbytes` may ask for (a record must fit in 32 KiB).
pub(crate) const MAX_USTACK_PAGES: u32 = 6;

/// `jstackframes`' default: dtrace's is 50.
pub const DEFAULT_JSTACK_FRAMES: u32 = 50;

/// The user-space actions that are values ([`Checker::user_value`]).
const USER_VALUES: &[&str] = &["ustack", "jstack", "uaddr", "usym", "ufunc", "umod"];

/// The largest `tracemem()` size accepted (one record must hold it).
const MAX_TRACEMEM: i64 = 1 << 16;

const SIGSTOP: i64 = 19;

fn arity(func: &str, n: usize, min: usize, max: usize, span: Span) -> R<()> {
    if n < min {
        let exp = if min == max {
            format!("{min}")
        } else {
            format!("at least {min}")
        };
        return Err(proto_len(func, n, &exp, span));
    }
    if n > max {
        let exp = if min == max {
            format!("{max}")
        } else {
            format!("at most {max}")
        };
        return Err(proto_len(func, n, &exp, span));
    }
    Ok(())
}

fn unsupported(func: &str, span: Span) -> Diagnostic {
    Diagnostic::new(
        Tag::D_UNKNOWN,
        span,
        format!("{func}( ) is not supported on Linux"),
    )
}

impl<'a> Checker<'a> {
    fn ctl_proto_arg(&self, func: &str, n: usize, proto: &str, arg: &TExpr) -> Diagnostic {
        crate::proto::arg_mismatch(func, n, proto, &self.name(&arg.ty), arg.span)
    }

    /// An integer argument (prototype `proto`), converted to `int`.
    fn int_arg(&mut self, func: &str, n: usize, proto: &str, a: &ast::Expr) -> R<TExpr> {
        let v = self.expr(a)?;
        if !v.ty.is_int() {
            return Err(self.ctl_proto_arg(func, n, proto, &v));
        }
        Ok(crate::expr::convert(v, self.b.int))
    }

    /// A string argument (prototype `char *`).
    fn str_arg(&mut self, func: &str, n: usize, a: &ast::Expr) -> R<TExpr> {
        let v = self.expr(a)?;
        match self.string_of(v) {
            Ok(s) => Ok(s),
            Err(v) => Err(self.ctl_proto_arg(func, n, "char *", &v)),
        }
    }

    /// A frame count: a positive integer constant, at most `maxframes`.
    fn frames_arg(&mut self, func: &str, a: &ast::Expr) -> R<u32> {
        let v = self.expr(a)?;
        if !v.ty.is_int() {
            return Err(self.ctl_proto_arg(func, 1, "uint32_t", &v));
        }
        match const_value(&v) {
            Some(n) if n > 0 => Ok((n as u64).min(self.opts.frame_cap() as u64) as u32),
            _ => Err(Diagnostic::new(
                Tag::D_STACK_SIZE,
                v.span,
                format!("{func}( ) argument #1 must be a non-zero positive integer constant"),
            )),
        }
    }

    /// `stack([frames])` as a value: an aggregation key, a printf `%k` argument,
    /// or (as a statement) traced.
    pub(crate) fn stack_expr(&mut self, args: &[ast::Expr], span: Span) -> R<TExpr> {
        arity("stack", args.len(), 0, 1, span)?;
        let frames = match args.first() {
            Some(a) => self.frames_arg("stack", a)?,
            None => self.opts.stackframes.clamp(1, self.opts.frame_cap()),
        };
        Ok(TExpr {
            kind: TExprKind::Stack {
                frames,
                kind: StackKind::Kernel,
                pages: 0,
            },
            ty: Ty::Stack {
                frames,
                kind: StackKind::Kernel,
            },
            span,
        })
    }

    /// `ustack([frames [, strsize]])` and `jstack(...)` (the same on Linux: no
    /// ustack helpers, so `strsize` is checked and ignored), and `uaddr(a)`,
    /// `usym(a)`, `ufunc(a)`, `umod(a)`: user-space values, traced as
    /// statements or held in aggregation keys.
    pub(crate) fn user_value(&mut self, func: &str, args: &[ast::Expr], span: Span) -> R<TExpr> {
        let n = args.len();
        if func == "ustack" || func == "jstack" {
            arity(func, n, 0, 2, span)?;
            let frames = match args.first() {
                Some(a) => {
                    let v = self.expr(a)?;
                    if !v.ty.is_int() {
                        return Err(self.ctl_proto_arg(func, 1, "uint32_t", &v));
                    }
                    match const_value(&v) {
                        Some(f) if f > 0 => (f as u64).min(self.opts.frame_cap() as u64) as u32,
                        _ => return Err(Diagnostic::new(
                            Tag::D_USTACK_FRAMES,
                            v.span,
                            "ustack( ) argument #1 must be a non-zero positive integer constant",
                        )),
                    }
                }
                None if func == "jstack" => self.opts.jstackframes,
                None => self.opts.ustackframes,
            };
            if let Some(a) = args.get(1) {
                let v = self.expr(a)?;
                if !v.ty.is_int() {
                    return Err(self.ctl_proto_arg(func, 2, "uint32_t", &v));
                }
                if !matches!(const_value(&v), Some(s) if s >= 0) {
                    return Err(Diagnostic::new(
                        Tag::D_USTACK_STRSIZE,
                        v.span,
                        "ustack( ) argument #2 must be a positive integer constant",
                    ));
                }
            }
            let frames = frames.clamp(1, self.opts.frame_cap());
            let kind = StackKind::User;
            let pages = self.opts.ustack_pages();
            return Ok(TExpr {
                kind: TExprKind::Stack {
                    frames,
                    kind,
                    pages,
                },
                ty: Ty::Stack { frames, kind },
                span,
            });
        }
        arity(func, n, 1, 1, span)?;
        let v = self.expr(&args[0])?;
        if !v.ty.is_int_or_ptr() {
            return Err(self.ctl_proto_arg(func, 1, "_usymaddr_t", &v));
        }
        let kind = match func {
            "uaddr" => StackKind::UAddr,
            "usym" => StackKind::USym,
            "ufunc" => StackKind::UFunc,
            _ => StackKind::UMod,
        };
        Ok(self.user_sym(kind, v))
    }

    /// `sym(a)`, `func(a)`, `mod(a)` as values (aggregation keys): the kernel
    /// address, printed as its function or module and merged by it.
    fn kernel_sym_value(&mut self, func: &str, args: &[ast::Expr], span: Span) -> R<TExpr> {
        arity(func, args.len(), 1, 1, span)?;
        let v = self.expr(&args[0])?;
        if !v.ty.is_int_or_ptr() {
            return Err(self.ctl_proto_arg(func, 1, "_symaddr_t", &v));
        }
        let kind = if func == "mod" {
            StackKind::KMod
        } else {
            StackKind::KSym
        };
        Ok(self.user_sym(kind, v))
    }

    /// An address of the current process as a user symbol value of `kind`.
    pub(crate) fn user_sym(&self, kind: StackKind, v: TExpr) -> TExpr {
        let span = v.span;
        TExpr {
            kind: TExprKind::UserSym {
                kind,
                addr: Box::new(crate::expr::convert(v, self.b.uint64_t)),
            },
            ty: Ty::Stack { frames: 1, kind },
            span,
        }
    }

    /// The printf-style format and arguments of `system` and `freopen`.
    fn format_args(
        &mut self,
        func: &str,
        args: &[ast::Expr],
        span: Span,
    ) -> R<(String, Vec<TExpr>)> {
        let Some(first) = args.first() else {
            return Err(proto_len(func, 0, "at least 1", span));
        };
        let K::Str(fmt) = &first.kind else {
            return Err(Diagnostic::new(
                Tag::D_PRINTF_ARG_FMT,
                first.span,
                format!("{func}( ) argument #1 must be a string constant"),
            ));
        };
        let mut targs = Vec::new();
        for a in &args[1..] {
            targs.push(self.action_arg(a)?);
        }
        // freopen("") restores the original output: no format to check.
        if fmt.is_empty() && func == "freopen" && targs.is_empty() {
            return Ok((String::new(), Vec::new()));
        }
        let targs = self.check_printf(func, fmt, first.span, targs, span)?;
        Ok((crate::format::format_text(fmt), targs))
    }

    /// A printf-style argument: an aggregation is kept as such (a type error
    /// with its own message); other actions named here are `void` values.
    pub(crate) fn action_arg(&mut self, a: &ast::Expr) -> R<PrintfArg> {
        if let K::Agg(_) = &a.kind {
            return Ok(PrintfArg::Agg(a.span));
        }
        Ok(PrintfArg::Expr(self.expr(a)?))
    }

    /// A call of an action or an aggregating function inside an expression:
    /// `stack()` is a value; another action is a `void` value inside an
    /// action's arguments (so `trace(trace(1))` is D_TRACE_VOID), and anywhere
    /// else D_CG_EXPR. Returns None for names that are not actions.
    pub(crate) fn action_in_expr(
        &mut self,
        func: &str,
        args: &[ast::Expr],
        span: Span,
    ) -> Option<R<TExpr>> {
        if func == "stack" {
            return Some(self.stack_expr(args, span));
        }
        if USER_VALUES.contains(&func) {
            return Some(self.user_value(func, args, span));
        }
        if matches!(func, "sym" | "func" | "mod") {
            return Some(self.kernel_sym_value(func, args, span));
        }
        if !(crate::actions::is_action(func) || crate::actions::is_aggfunc(func)) {
            return None;
        }
        if self.action_args > 0 && crate::actions::is_action(func) {
            return Some(Ok(TExpr {
                kind: TExprKind::Int(0),
                ty: Ty::Void,
                span,
            }));
        }
        Some(Err(Diagnostic::new(
            Tag::D_CG_EXPR,
            span,
            format!("{func}( ) may not be called from a D expression (D program context required)"),
        )))
    }

    pub(crate) fn control_action(
        &mut self,
        func: &str,
        args: &[ast::Expr],
        span: Span,
    ) -> R<TStmt> {
        let n = args.len();
        match func {
            "stack" => Ok(TStmt::Trace {
                value: self.stack_expr(args, span)?,
            }),
            "ustack" | "jstack" | "uaddr" | "usym" | "ufunc" | "umod" => Ok(TStmt::Trace {
                value: self.user_value(func, args, span)?,
            }),
            // sym(addr)/func(addr): the kernel symbol covering addr,
            // `module`function`; mod(addr): its module.
            "sym" | "func" | "mod" => {
                arity(func, n, 1, 1, span)?;
                let v = self.expr(&args[0])?;
                if !v.ty.is_int_or_ptr() {
                    return Err(self.ctl_proto_arg(func, 1, "_symaddr_t", &v));
                }
                let kind = if func == "mod" {
                    SymbolKind::Module
                } else {
                    SymbolKind::Function
                };
                Ok(TStmt::Symbol {
                    addr: crate::expr::convert(v, self.b.uint64_t),
                    kind,
                })
            }
            "tracemem" => {
                arity(func, n, 2, 3, span)?;
                let addr = self.expr(&args[0])?;
                if !addr.ty.is_int_or_ptr() && !addr.ty.is_agg() {
                    return Err(self.ctl_proto_arg(func, 1, "void *", &addr));
                }
                let size = self.expr(&args[1])?;
                let size = match const_value(&size).filter(|_| size.ty.is_int()) {
                    Some(v) if v > 0 => v.min(MAX_TRACEMEM) as u32,
                    _ => {
                        return Err(Diagnostic::new(
                            Tag::D_TRACEMEM_SIZE,
                            size.span,
                            "tracemem( ) argument #2 must be a non-zero positive integral constant expression",
                        ))
                    }
                };
                let dynsize = match args.get(2) {
                    Some(a) => {
                        let v = self.expr(a)?;
                        if !v.ty.is_int() {
                            return Err(self.ctl_proto_arg(func, 3, "size_t", &v));
                        }
                        Some(crate::expr::convert(v, self.b.int64_t))
                    }
                    None => None,
                };
                Ok(TStmt::Tracemem {
                    addr,
                    size,
                    dynsize,
                })
            }
            "setopt" => {
                arity(func, n, 1, 2, span)?;
                let name = self.str_arg(func, 1, &args[0])?;
                let value = match args.get(1) {
                    Some(a) => Some(self.str_arg(func, 2, a)?),
                    None => None,
                };
                Ok(TStmt::Setopt { name, value })
            }
            "ftruncate" => {
                arity(func, n, 0, 0, span)?;
                Ok(TStmt::Ftruncate)
            }
            "freopen" | "system" => {
                let (format, args) = self.format_args(func, args, span)?;
                if func == "freopen" && format == "." {
                    return Err(Diagnostic::new(
                        Tag::D_FREOPEN_INVALID,
                        span,
                        "freopen( ) argument #1 cannot be \".\"",
                    ));
                }
                self.out.destructive = true;
                let action = if func == "system" {
                    FormatAction::System
                } else {
                    FormatAction::Freopen
                };
                Ok(TStmt::FormatAction {
                    action,
                    format,
                    args,
                })
            }
            "raise" => {
                arity(func, n, 1, 1, span)?;
                let sig = self.int_arg(func, 1, "int", &args[0])?;
                self.out.destructive = true;
                Ok(TStmt::Raise { sig })
            }
            "stop" => {
                arity(func, n, 0, 0, span)?;
                self.out.destructive = true;
                Ok(TStmt::Raise {
                    sig: TExpr {
                        kind: TExprKind::Int(SIGSTOP),
                        ty: self.b.int,
                        span,
                    },
                })
            }
            "chill" => {
                arity(func, n, 1, 1, span)?;
                let ns = self.int_arg(func, 1, "int", &args[0])?;
                self.out.destructive = true;
                Ok(TStmt::Chill { ns })
            }
            "panic" | "breakpoint" => {
                arity(func, n, 0, 0, span)?;
                Err(unsupported(func, span))
            }
            _ => {
                // pcap(void *, int): the packet capture needs the kernel's
                // skb layout; not supported.
                arity(func, n, 2, 2, span)?;
                let p = self.expr(&args[0])?;
                if !p.ty.is_int_or_ptr() {
                    return Err(self.ctl_proto_arg(func, 1, "void *", &p));
                }
                let proto = self.expr(&args[1])?;
                if !proto.ty.is_int() {
                    return Err(self.ctl_proto_arg(func, 2, "int", &proto));
                }
                Err(unsupported(func, span))
            }
        }
    }
}
