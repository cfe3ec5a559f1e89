//! The byte-order, device, random, process, IPv4-address and lock subroutines:
//! `htons htonl htonll ntohs ntohl ntohll getmajor getminor rand progenyof
//! inet_ntoa mutex_owned mutex_owner mutex_type_adaptive mutex_type_spin
//! rw_read_held rw_write_held rw_iswriter`.
//!
//! Most are written here in terms of the typed program's other forms:
//! - `getmajor`/`getminor` split a Linux kernel `dev_t` (32 bits: 12 of major,
//!   20 of minor);
//! - `inet_ntoa(p)` joins the four bytes at `p` (kernel or scratch memory), each
//!   in decimal, with dots;
//! - the lock subroutines read Linux's lock words through the kernel's types
//!   (BTF): a `struct mutex`'s `owner` (the owning task, low 3 bits are flags);
//!   a `rwlock_t`'s queued-lock word (readers from bit 9, `0xff` in the low
//!   byte while a writer holds it, bit 8 while one waits) or a `struct
//!   rw_semaphore`'s `count` (readers from bit 8, bit 0 while a writer holds it).
//!   Linux mutexes are adaptive (they spin while the owner runs, then sleep).

use crate::check::{Checker, R};
use crate::expr::{convert, mk};
use crate::ir::*;
use dtrace_syntax::ast::{self, BinOp, ExprKind as K, IntSuffix};
use dtrace_syntax::{Diagnostic, Span, Tag};

/// Whether `name` is one of this module's subroutines.
pub(crate) fn is_subr(name: &str) -> bool {
    matches!(
        name,
        "htons"
            | "htonl"
            | "htonll"
            | "ntohs"
            | "ntohl"
            | "ntohll"
            | "getmajor"
            | "getminor"
            | "rand"
            | "progenyof"
            | "d_path"
            | "inet_ntoa"
            | "inet_ntoa6"
            | "inet_ntop"
            | "link_ntop"
            | "mutex_owned"
            | "mutex_owner"
            | "mutex_type_adaptive"
            | "mutex_type_spin"
            | "rw_read_held"
            | "rw_write_held"
            | "rw_iswriter"
    )
}

/// `link_ntop()`'s address types (`<net/if_arp.h>`) and their address sizes.
const ARPHRD_ETHER: i64 = 1;
const ARPHRD_INFINIBAND: i64 = 32;
const ETHER_LEN: i64 = 6;
const INFINIBAND_LEN: i64 = 20;

/// Linux's `MINORBITS`: a kernel `dev_t` keeps the minor number in its low 20 bits.
const MINORBITS: i64 = 20;
/// The flag bits of a `struct mutex`'s owner word.
const MUTEX_FLAGS: u64 = 0x07;

fn int_lit(v: u64, span: Span) -> ast::Expr {
    ast::Expr {
        kind: K::Int {
            value: v,
            suffix: IntSuffix::UL,
            radix: 16,
        },
        span,
    }
}

fn bin(op: BinOp, lhs: ast::Expr, rhs: ast::Expr, span: Span) -> ast::Expr {
    ast::Expr {
        kind: K::Binary {
            op,
            lhs: Box::new(lhs),
            rhs: Box::new(rhs),
            at: span,
        },
        span,
    }
}

fn member(base: ast::Expr, name: &str, arrow: bool, span: Span) -> ast::Expr {
    ast::Expr {
        kind: K::Member {
            base: Box::new(base),
            name: name.to_string(),
            arrow,
        },
        span,
    }
}

impl<'a> Checker<'a> {
    /// A call of one of this module's subroutines (prototype already checked).
    pub(crate) fn misc_subr(&mut self, func: &str, args: &[ast::Expr], span: Span) -> R<TExpr> {
        let arg = |i: usize| -> R<&ast::Expr> {
            args.get(i).ok_or_else(|| {
                crate::proto::len_mismatch(func, args.len(), &(i + 1).to_string(), span)
            })
        };
        match func {
            "htons" | "ntohs" | "htonl" | "ntohl" | "htonll" | "ntohll" => {
                let ty = match &func[4..] {
                    "s" => self.named_int("uint16_t"),
                    "l" => self.named_int("uint32_t"),
                    _ => self.b.uint64_t,
                };
                let v = self.expr(arg(0)?)?;
                let v = convert(v, ty);
                Ok(mk(TExprKind::ByteSwap(Box::new(v)), ty, span))
            }
            "getmajor" | "getminor" => {
                let dev = self.named_int("dev_t");
                let u32t = self.named_int("uint32_t");
                let v = convert(self.expr(arg(0)?)?, u32t);
                let r = if func == "getmajor" {
                    let n = mk(TExprKind::Int(MINORBITS), u32t, span);
                    self.arith(ArithOp::Shr, ">>", v, n, span)?
                } else {
                    let m = mk(TExprKind::Int((1 << MINORBITS) - 1), u32t, span);
                    self.arith(ArithOp::And, "&", v, m, span)?
                };
                Ok(convert(r, dev))
            }
            "rand" => Ok(mk(TExprKind::Rand, self.b.int, span)),
            "progenyof" => {
                let v = self.expr(arg(0)?)?;
                let v = convert(v, self.b.int);
                Ok(mk(TExprKind::Progenyof(Box::new(v)), self.b.int, span))
            }
            "d_path" => self.d_path(arg(0)?, span),
            "inet_ntoa" => {
                let p = self.expr(arg(0)?)?;
                self.inet_ntoa(p, span)
            }
            // The optional second argument (Oracle's): non-zero writes IPv4
            // addresses as `inet_ntop` does.
            "inet_ntoa6" => {
                let p = self.expr(arg(0)?)?;
                let Some(strict) = args.get(1) else {
                    return self.inet_ntoa6(p, false, span);
                };
                let strict = convert(self.expr(strict)?, self.b.int);
                if let Some(v) = crate::expr::const_value(&strict) {
                    return self.inet_ntoa6(p, v != 0, span);
                }
                let (with, without) = (
                    self.inet_ntoa6(p.clone(), true, span)?,
                    self.inet_ntoa6(p, false, span)?,
                );
                let ty = with.ty;
                let k = TExprKind::Ternary {
                    cond: Box::new(strict),
                    then: Box::new(with),
                    els: Box::new(without),
                };
                Ok(mk(k, ty, span))
            }
            "inet_ntop" => self.inet_ntop(arg(0)?, arg(1)?, span),
            "link_ntop" => {
                let kind = convert(self.expr(arg(0)?)?, self.b.int);
                let p = self.expr(arg(1)?)?;
                match crate::expr::const_value(&kind) {
                    Some(ARPHRD_ETHER) => self.link_ntop(p, ETHER_LEN, span),
                    Some(ARPHRD_INFINIBAND) => self.link_ntop(p, INFINIBAND_LEN, span),
                    Some(_) => Err(Diagnostic::new(
                        Tag::D_PROTO_ARG,
                        kind.span,
                        "link_ntop( ) argument #1 must be ARPHRD_ETHER or ARPHRD_INFINIBAND",
                    )),
                    // Both layouts in one clause would not fit the per-CPU
                    // string temporaries: the type must be known here.
                    None => Err(Diagnostic::new(
                        Tag::D_PROTO_ARG,
                        kind.span,
                        "link_ntop( ) argument #1 must be a constant: ARPHRD_ETHER or ARPHRD_INFINIBAND",
                    )),
                }
            }
            _ => self.lock_subr(func, arg(0)?, span),
        }
    }

    /// The integer type `name` names (its value type), `unsigned long` if none.
    fn named_int(&mut self, name: &str) -> Ty {
        match self.types.lookup(name).map(|id| self.value_ty(id)) {
            Some(t @ Ty::Int { .. }) => t,
            _ => self.b.ulong,
        }
    }

    /// `inet_ntop(af, p)`: `inet_ntoa(p)` for `AF_INET`, the IPv6 form for
    /// `AF_INET6` (IPv4-mapped and -compatible addresses as `::ffff:a.b.c.d` and
    /// `::a.b.c.d`); another family is an illegal operation at run time.
    fn inet_ntop(&mut self, af: &ast::Expr, a: &ast::Expr, span: Span) -> R<TExpr> {
        const AF_INET: i64 = 2;
        const AF_INET6: i64 = 10;
        let af = convert(self.expr(af)?, self.b.int);
        let p = self.expr(a)?;
        let v4 = |c: &mut Checker| c.inet_ntoa(p.clone(), span);
        let v6 = |c: &mut Checker| c.inet_ntoa6(p.clone(), true, span);
        match crate::expr::const_value(&af) {
            Some(AF_INET) => return v4(self),
            Some(AF_INET6) => return v6(self),
            _ => {}
        }
        let sty = Ty::Str {
            cap: self.opts.str_cap(),
        };
        // `lltostr(0, 0)`: base 0 is the illegal-operation fault DTrace raises.
        let bad = mk(
            TExprKind::StrFn {
                func: StrFunc::Lltostr,
                args: vec![
                    mk(TExprKind::Int(0), self.b.int64_t, span),
                    mk(TExprKind::Int(0), self.b.int, span),
                ],
            },
            sty,
            span,
        );
        let is = |c: &Checker, v: i64| {
            mk(
                TExprKind::Cmp {
                    op: CmpOp::Eq,
                    lhs: Box::new(af.clone()),
                    rhs: Box::new(mk(TExprKind::Int(v), c.b.int, span)),
                },
                c.b.int,
                span,
            )
        };
        let (is4, is6) = (is(self, AF_INET), is(self, AF_INET6));
        let (s4, s6) = (v4(self)?, v6(self)?);
        let inner = mk(
            TExprKind::Ternary {
                cond: Box::new(is6),
                then: Box::new(s6),
                els: Box::new(bad),
            },
            sty,
            span,
        );
        Ok(mk(
            TExprKind::Ternary {
                cond: Box::new(is4),
                then: Box::new(s4),
                els: Box::new(inner),
            },
            sty,
            span,
        ))
    }

    /// `inet_ntoa6(p)` (`prefix`: as `inet_ntop` writes it): the 16 bytes at `p`
    /// as eight 16-bit groups for the `Inet6` formatter.
    fn inet_ntoa6(&mut self, p: TExpr, prefix: bool, span: Span) -> R<TExpr> {
        let p = self.decay(p);
        let Some(u16id) = self.types.lookup("uint16_t") else {
            return Err(crate::proto::undefined("inet_ntoa6", span));
        };
        let u16t = self.value_ty(u16id);
        let addr_ty = p.ty;
        let mut groups = Vec::new();
        for i in 0..8 {
            let at = self.addr_plus(p.clone(), 2 * i, addr_ty);
            let g = self.place(at, u16id, span)?;
            groups.push(mk(TExprKind::ByteSwap(Box::new(g)), u16t, span));
        }
        let sty = Ty::Str {
            cap: self.opts.str_cap(),
        };
        Ok(mk(TExprKind::Inet6 { groups, prefix }, sty, span))
    }

    /// `inet_ntoa(p)`: `"a.b.c.d"` from the four bytes at `p`.
    fn inet_ntoa(&mut self, p: TExpr, span: Span) -> R<TExpr> {
        let p = self.decay(p);
        let Some(u8id) = self.types.lookup("uint8_t") else {
            return Err(crate::proto::undefined("inet_ntoa", span));
        };
        let cap = self.opts.str_cap();
        let sty = Ty::Str { cap };
        let (dot, dcap) = self.intern(b".");
        let dot = mk(TExprKind::Str(dot), Ty::Str { cap: dcap }, span);
        let addr_ty = p.ty;
        let mut out: Option<TExpr> = None;
        for i in 0..4 {
            let at = self.addr_plus(p.clone(), i, addr_ty);
            let byte = self.place(at, u8id, span)?;
            let byte = convert(byte, self.b.int64_t);
            let digits = mk(
                TExprKind::StrFn {
                    func: StrFunc::Lltostr,
                    args: vec![byte],
                },
                sty,
                span,
            );
            out = Some(match out {
                None => digits,
                Some(prev) => {
                    let with_dot = mk(
                        TExprKind::StrFn {
                            func: StrFunc::Strjoin,
                            args: vec![prev, dot.clone()],
                        },
                        sty,
                        span,
                    );
                    mk(
                        TExprKind::StrFn {
                            func: StrFunc::Strjoin,
                            args: vec![with_dot, digits],
                        },
                        sty,
                        span,
                    )
                }
            });
        }
        out.ok_or_else(|| crate::proto::undefined("inet_ntoa", span))
    }

    /// `link_ntop(type, addr)`: the `len` bytes at `addr` as two lowercase
    /// hex digits each, separated by `:` (`00:1b:21:3a:4f:5e`).
    fn link_ntop(&mut self, p: TExpr, len: i64, span: Span) -> R<TExpr> {
        let p = self.decay(p);
        let Some(u8id) = self.types.lookup("uint8_t") else {
            return Err(crate::proto::undefined("link_ntop", span));
        };
        let max = self.opts.str_cap();
        let (colon, ccap) = self.intern(b":");
        let colon = mk(TExprKind::Str(colon), Ty::Str { cap: ccap }, span);
        let piece = Ty::Str { cap: max };
        let strfn = |func, args, ty| mk(TExprKind::StrFn { func, args }, ty, span);
        let int64 = self.b.int64_t;
        let addr_ty = p.ty;
        let mut out: Option<TExpr> = None;
        for i in 0..len {
            let at = self.addr_plus(p.clone(), i, addr_ty);
            let byte = convert(self.place(at, u8id, span)?, int64);
            // lltostr(0x100 + b, 16) is "0x1hh": its last two digits are b's.
            let k = TExprKind::Arith {
                op: ArithOp::Add,
                lhs: Box::new(byte),
                rhs: Box::new(mk(TExprKind::Int(0x100), int64, span)),
            };
            let hex = strfn(
                StrFunc::Lltostr,
                vec![mk(k, int64, span), mk(TExprKind::Int(16), self.b.int, span)],
                piece,
            );
            let digits = strfn(
                StrFunc::Substr,
                vec![hex, mk(TExprKind::Int(3), int64, span)],
                piece,
            );
            out = Some(match out {
                None => digits,
                Some(prev) => {
                    let joined = strfn(StrFunc::Strjoin, vec![prev, colon.clone()], piece);
                    strfn(StrFunc::Strjoin, vec![joined, digits], piece)
                }
            });
        }
        out.ok_or_else(|| crate::proto::undefined("link_ntop", span))
    }

    /// The mutex and reader-writer lock subroutines on Linux's locks.
    fn lock_subr(&mut self, func: &str, a: &ast::Expr, span: Span) -> R<TExpr> {
        let pv = self.expr(a)?;
        let ty_name = self.name(&pv.ty);
        let is = |s: &str| ty_name.replace(' ', "") == s.replace(' ', "");
        let bool_of = |c: &mut Checker, e: ast::Expr| -> R<TExpr> {
            let v = c.expr(&e)?;
            Ok(convert(v, c.b.int))
        };
        let word = |base: &ast::Expr, path: &[&str]| -> ast::Expr {
            let mut e = member(base.clone(), path[0], true, span);
            for m in &path[1..] {
                e = member(e, m, false, span);
            }
            e
        };
        match func {
            "mutex_type_adaptive" | "mutex_type_spin" => {
                let v = (func == "mutex_type_adaptive") as i64;
                Ok(mk(TExprKind::Int(v), self.b.int, span))
            }
            "mutex_owned" | "mutex_owner" => {
                let owner = word(a, &["owner", "counter"]);
                let masked = bin(BinOp::BitAnd, owner, int_lit(!MUTEX_FLAGS, span), span);
                if func == "mutex_owned" {
                    bool_of(self, bin(BinOp::Ne, masked, int_lit(0, span), span))
                } else {
                    let v = self.expr(&masked)?;
                    let task = self.curthread_ty();
                    Ok(crate::ptr::retype(convert(v, self.b.ulong), task))
                }
            }
            _ if is("struct rw_semaphore *") => {
                let count = word(a, &["count", "counter"]);
                let e = match func {
                    "rw_read_held" => bin(BinOp::Shr, count, int_lit(8, span), span),
                    _ => bin(BinOp::BitAnd, count, int_lit(1, span), span),
                };
                bool_of(self, bin(BinOp::Ne, e, int_lit(0, span), span))
            }
            _ if is("rwlock_t *") || is("struct rwlock *") => {
                let cnts = word(a, &["raw_lock", "cnts", "counter"]);
                let e = match func {
                    "rw_read_held" => bin(
                        BinOp::Ne,
                        bin(BinOp::Shr, cnts, int_lit(9, span), span),
                        int_lit(0, span),
                        span,
                    ),
                    "rw_write_held" => bin(
                        BinOp::Eq,
                        bin(BinOp::BitAnd, cnts, int_lit(0xff, span), span),
                        int_lit(0xff, span),
                        span,
                    ),
                    _ => bin(
                        BinOp::Ne,
                        bin(BinOp::BitAnd, cnts, int_lit(0x1ff, span), span),
                        int_lit(0, span),
                        span,
                    ),
                };
                bool_of(self, e)
            }
            _ => Err(Diagnostic::new(
                Tag::D_PROTO_ARG,
                a.span,
                format!(
                    "{func}( ) argument #1 is incompatible with prototype:\n\tprototype: rwlock_t *\n\t argument: {ty_name}"
                ),
            )),
        }
    }
}
