//! Tree heights, to keep every AST the parser returns shallower than
//! [`super::MAX_DEPTH`]: code that walks the tree recursively (including
//! `Drop`) must not overflow the stack. Left-leaning chains such as
//! `1 + 1 + ... + 1` or `a[1][1]...[1]` are parsed by loops, not recursion, so
//! the depth counter alone does not bound them.
//!
//! These functions recurse, but only over trees whose subtrees were already
//! checked, so their own depth is bounded.

use crate::ast::{ArrayDim, Declarator, Expr, ExprKind, TypeName};

pub(crate) fn expr_height(e: &Expr) -> u32 {
    1 + match &e.kind {
        ExprKind::Int { .. }
        | ExprKind::Char(_)
        | ExprKind::Str(_)
        | ExprKind::Ident(_)
        | ExprKind::SelfVar(_)
        | ExprKind::ThisVar(_)
        | ExprKind::Agg(_) => 0,
        ExprKind::Call { args, .. } => max_of(args),
        ExprKind::Index { base, index } => expr_height(base).max(max_of(index)),
        ExprKind::Unary { expr, .. }
        | ExprKind::SizeofExpr(expr)
        | ExprKind::Stringof(expr)
        | ExprKind::Member { base: expr, .. } => expr_height(expr),
        ExprKind::Binary { lhs, rhs, .. } | ExprKind::Assign { lhs, rhs, .. } => {
            expr_height(lhs).max(expr_height(rhs))
        }
        ExprKind::Ternary { cond, then, els } => expr_height(cond)
            .max(expr_height(then))
            .max(expr_height(els)),
        ExprKind::Cast { ty, expr } | ExprKind::Xlate { ty, expr } => {
            type_height(ty).max(expr_height(expr))
        }
        ExprKind::SizeofType(ty) | ExprKind::Offsetof { ty, .. } => type_height(ty),
    }
}

/// The height of `e`, given that its first child (the operand a loop kept
/// extending) has height `first`: only the other children are measured.
pub(crate) fn height_after_link(first: u32, e: &Expr) -> u32 {
    let others = match &e.kind {
        ExprKind::Binary { rhs, .. } | ExprKind::Assign { rhs, .. } => expr_height(rhs),
        ExprKind::Ternary { then, els, .. } => expr_height(then).max(expr_height(els)),
        ExprKind::Index { index, .. } => max_of(index),
        ExprKind::Call { args, .. } => max_of(args),
        ExprKind::Cast { ty, .. } | ExprKind::Xlate { ty, .. } => type_height(ty),
        _ => 0,
    };
    1u32.saturating_add(first.max(others))
}

fn max_of(v: &[Expr]) -> u32 {
    v.iter().map(expr_height).max().unwrap_or(0)
}

pub(crate) fn type_height(t: &TypeName) -> u32 {
    decl_height(&t.decl)
}

pub(crate) fn decl_height(d: &Declarator) -> u32 {
    match d {
        Declarator::Abstract | Declarator::Ident(..) => 1,
        Declarator::Pointer { inner, .. } => 1 + decl_height(inner),
        Declarator::Array { inner, dim } => {
            let dim_h = match dim {
                ArrayDim::None => 0,
                ArrayDim::Size(e) => expr_height(e),
                ArrayDim::Assoc(keys) => keys.iter().map(type_height).max().unwrap_or(0),
            };
            1 + decl_height(inner).max(dim_h)
        }
        Declarator::Function { inner, params, .. } => {
            let p = params.iter().map(type_height).max().unwrap_or(0);
            1 + decl_height(inner).max(p)
        }
    }
}
