//! A compact S-expression printer for the AST (`-xtree`-style debugging and
//! golden tests). One top-level item per line.
//!
//! Shapes: `(clause ("BEGIN" "END") (pred E) S...)`, `(pragma "option" "quiet")`,
//! `(decl SPEC (DECLARATOR [= E])...)`, expressions as `(op a b)`, identifiers
//! bare, `self->x`, `this->x`, `@x`, integers as written (`0x10`, `010`, `1ul`).

use crate::ast::*;
use std::fmt::Write;

/// The whole program, one item per line.
pub fn dump(p: &Program) -> String {
    let mut out = String::new();
    for item in &p.items {
        item_to(&mut out, item);
        out.push('\n');
    }
    out
}

/// One expression.
pub fn dump_expr(e: &Expr) -> String {
    let mut s = String::new();
    expr_to(&mut s, e);
    s
}

fn quote(out: &mut String, bytes: &[u8]) {
    out.push('"');
    for &b in bytes {
        match b {
            b'"' => out.push_str("\\\""),
            b'\\' => out.push_str("\\\\"),
            b'\n' => out.push_str("\\n"),
            b'\t' => out.push_str("\\t"),
            0x20..=0x7e => out.push(b as char),
            _ => {
                let _ = write!(out, "\\x{:02x}", b);
            }
        }
    }
    out.push('"');
}

fn item_to(out: &mut String, item: &Item) {
    match item {
        Item::Clause(c) => {
            out.push_str("(clause (");
            for (i, p) in c.probes.iter().enumerate() {
                if i > 0 {
                    out.push(' ');
                }
                quote(out, p.text.as_bytes());
            }
            out.push(')');
            if let Some(p) = &c.predicate {
                out.push_str(" (pred ");
                expr_to(out, p);
                out.push(')');
            }
            for s in &c.body {
                out.push(' ');
                stmt_to(out, s);
            }
            out.push(')');
        }
        Item::Pragma(p) => {
            out.push_str("(pragma");
            for w in &p.words {
                out.push(' ');
                quote(out, w.as_bytes());
            }
            out.push(')');
        }
        Item::Decl(d) => decl_to(out, d),
        Item::Translator(t) => {
            out.push_str("(translator ");
            type_to(out, &t.output);
            out.push(' ');
            type_to(out, &t.input);
            let _ = write!(out, " {}", t.input_name);
            for (m, e, _) in &t.members {
                let _ = write!(out, " ({} ", m);
                expr_to(out, e);
                out.push(')');
            }
            out.push(')');
        }
        Item::ProviderDecl(p) => {
            let _ = write!(out, "(provider {}", p.name);
            for (name, args, _) in &p.probes {
                let _ = write!(out, " (probe {}", name);
                for a in args {
                    out.push(' ');
                    type_to(out, a);
                }
                out.push(')');
            }
            out.push(')');
        }
    }
}

fn stmts_to(out: &mut String, head: &str, v: &[Stmt]) {
    let _ = write!(out, "({}", head);
    for s in v {
        out.push(' ');
        stmt_to(out, s);
    }
    out.push(')');
}

fn stmt_to(out: &mut String, s: &Stmt) {
    match s {
        Stmt::Expr(e) => expr_to(out, e),
        Stmt::If {
            cond, then, els, ..
        } => {
            out.push_str("(if ");
            expr_to(out, cond);
            out.push(' ');
            stmts_to(out, "then", then);
            if let Some(e) = els {
                out.push(' ');
                stmts_to(out, "else", e);
            }
            out.push(')');
        }
        Stmt::Block(v, _) => stmts_to(out, "block", v),
        Stmt::Decl(d) => decl_to(out, d),
        Stmt::Empty(_) => out.push_str("(empty)"),
        Stmt::Loop {
            init,
            cond,
            step,
            body,
            test_first,
            ..
        } => {
            out.push_str(if *test_first { "(loop" } else { "(do-loop" });
            for e in [init, cond, step] {
                out.push(' ');
                match e {
                    Some(e) => expr_to(out, e),
                    None => out.push('_'),
                }
            }
            out.push(' ');
            stmts_to(out, "body", body);
            out.push(')');
        }
        Stmt::Break(_) => out.push_str("(break)"),
        Stmt::Continue(_) => out.push_str("(continue)"),
    }
}

fn decl_to(out: &mut String, d: &Decl) {
    out.push_str("(decl ");
    spec_to(out, &d.spec);
    for (dd, init) in &d.declarators {
        out.push(' ');
        declarator_to(out, dd);
        if let Some(e) = init {
            out.push_str(" = ");
            expr_to(out, e);
        }
    }
    out.push(')');
}

fn spec_to(out: &mut String, s: &TypeSpec) {
    out.push('[');
    let mut words: Vec<String> = Vec::new();
    if let Some(st) = &s.storage {
        words.push(st.clone());
    }
    words.extend(s.qualifiers.iter().cloned());
    let mut base = String::new();
    match &s.base {
        BaseType::Keywords(k) => base = k.join(" "),
        BaseType::Named(n) => base = n.clone(),
        BaseType::Struct { tag, members } | BaseType::Union { tag, members } => {
            let kw = if matches!(s.base, BaseType::Struct { .. }) {
                "struct"
            } else {
                "union"
            };
            base.push_str(kw);
            if let Some(t) = tag {
                base.push(' ');
                base.push_str(t);
            }
            if let Some(ms) = members {
                base.push_str(" {");
                for m in ms {
                    base.push(' ');
                    spec_to(&mut base, &m.spec);
                    base.push(' ');
                    declarator_to(&mut base, &m.decl);
                    if let Some(b) = &m.bitfield {
                        base.push_str(" : ");
                        expr_to(&mut base, b);
                    }
                    base.push(';');
                }
                base.push_str(" }");
            }
        }
        BaseType::Enum { tag, values } => {
            base.push_str("enum");
            if let Some(t) = tag {
                base.push(' ');
                base.push_str(t);
            }
            if let Some(vs) = values {
                base.push_str(" {");
                for (n, v, _) in vs {
                    base.push(' ');
                    base.push_str(n);
                    if let Some(v) = v {
                        base.push_str(" = ");
                        expr_to(&mut base, v);
                    }
                    base.push(',');
                }
                base.push_str(" }");
            }
        }
        BaseType::Implicit => {}
    }
    if !base.is_empty() {
        words.push(base);
    }
    out.push_str(&words.join(" "));
    out.push(']');
}

fn declarator_to(out: &mut String, d: &Declarator) {
    match d {
        Declarator::Abstract => out.push('_'),
        Declarator::Ident(n, _) => out.push_str(n),
        Declarator::Pointer { inner, qualifiers } => {
            out.push_str("(ptr");
            for q in qualifiers {
                out.push(' ');
                out.push_str(q);
            }
            out.push(' ');
            declarator_to(out, inner);
            out.push(')');
        }
        Declarator::Array { inner, dim } => {
            out.push_str("(array ");
            declarator_to(out, inner);
            match dim {
                ArrayDim::None => {}
                ArrayDim::Size(e) => {
                    out.push(' ');
                    expr_to(out, e);
                }
                ArrayDim::Assoc(keys) => {
                    out.push_str(" (keys");
                    for k in keys {
                        out.push(' ');
                        type_to(out, k);
                    }
                    out.push(')');
                }
            }
            out.push(')');
        }
        Declarator::Function {
            inner,
            params,
            varargs,
        } => {
            out.push_str("(fn ");
            declarator_to(out, inner);
            out.push_str(" (");
            for (i, p) in params.iter().enumerate() {
                if i > 0 {
                    out.push(' ');
                }
                type_to(out, p);
            }
            if *varargs {
                out.push_str(if params.is_empty() { "..." } else { " ..." });
            }
            out.push_str("))");
        }
    }
}

fn type_to(out: &mut String, t: &TypeName) {
    out.push_str("(type ");
    spec_to(out, &t.spec);
    if t.decl != Declarator::Abstract {
        out.push(' ');
        declarator_to(out, &t.decl);
    }
    out.push(')');
}

fn unop_text(op: UnOp) -> &'static str {
    match op {
        UnOp::Neg => "-",
        UnOp::Plus => "+",
        UnOp::Not => "!",
        UnOp::BitNot => "~",
        UnOp::Deref => "*",
        UnOp::AddrOf => "&",
        UnOp::PreInc => "pre++",
        UnOp::PreDec => "pre--",
        UnOp::PostInc => "post++",
        UnOp::PostDec => "post--",
    }
}

fn suffix_text(s: IntSuffix) -> &'static str {
    match s {
        IntSuffix::None => "",
        IntSuffix::U => "u",
        IntSuffix::L => "l",
        IntSuffix::UL => "ul",
        IntSuffix::LL => "ll",
        IntSuffix::ULL => "ull",
    }
}

fn expr_to(out: &mut String, e: &Expr) {
    match &e.kind {
        ExprKind::Int {
            value,
            suffix,
            radix,
        } => {
            let _ = match radix {
                16 => write!(out, "0x{:x}", value),
                8 => write!(out, "0{:o}", value),
                _ => write!(out, "{}", value),
            };
            out.push_str(suffix_text(*suffix));
        }
        ExprKind::Char(c) => {
            let _ = write!(out, "(char {})", c);
        }
        ExprKind::Str(s) => quote(out, s),
        ExprKind::Ident(n) => out.push_str(n),
        ExprKind::SelfVar(n) => {
            let _ = write!(out, "self->{}", n);
        }
        ExprKind::ThisVar(n) => {
            let _ = write!(out, "this->{}", n);
        }
        ExprKind::Agg(n) => {
            let _ = write!(out, "@{}", n);
        }
        ExprKind::Call { func, args } => {
            let _ = write!(out, "(call {}", func);
            for a in args {
                out.push(' ');
                expr_to(out, a);
            }
            out.push(')');
        }
        ExprKind::Index { base, index } => {
            out.push_str("(index ");
            expr_to(out, base);
            for a in index {
                out.push(' ');
                expr_to(out, a);
            }
            out.push(')');
        }
        ExprKind::Unary { op, expr } => {
            let _ = write!(out, "({} ", unop_text(*op));
            expr_to(out, expr);
            out.push(')');
        }
        ExprKind::Binary { op, lhs, rhs, .. } => {
            let _ = write!(out, "({} ", op.symbol());
            expr_to(out, lhs);
            out.push(' ');
            expr_to(out, rhs);
            out.push(')');
        }
        ExprKind::Assign { op, lhs, rhs } => {
            let _ = write!(out, "({}= ", op.map(|o| o.symbol()).unwrap_or(""));
            expr_to(out, lhs);
            out.push(' ');
            expr_to(out, rhs);
            out.push(')');
        }
        ExprKind::Ternary { cond, then, els } => {
            out.push_str("(? ");
            expr_to(out, cond);
            out.push(' ');
            expr_to(out, then);
            out.push(' ');
            expr_to(out, els);
            out.push(')');
        }
        ExprKind::Member { base, name, arrow } => {
            let _ = write!(out, "({} ", if *arrow { "->" } else { "." });
            expr_to(out, base);
            let _ = write!(out, " {})", name);
        }
        ExprKind::Cast { ty, expr } => {
            out.push_str("(cast ");
            type_to(out, ty);
            out.push(' ');
            expr_to(out, expr);
            out.push(')');
        }
        ExprKind::SizeofType(t) => {
            out.push_str("(sizeof ");
            type_to(out, t);
            out.push(')');
        }
        ExprKind::SizeofExpr(x) => {
            out.push_str("(sizeof ");
            expr_to(out, x);
            out.push(')');
        }
        ExprKind::Offsetof { ty, member } => {
            out.push_str("(offsetof ");
            type_to(out, ty);
            let _ = write!(out, " {})", member);
        }
        ExprKind::Stringof(x) => {
            out.push_str("(stringof ");
            expr_to(out, x);
            out.push(')');
        }
        ExprKind::Xlate { ty, expr } => {
            out.push_str("(xlate ");
            type_to(out, ty);
            out.push(' ');
            expr_to(out, expr);
            out.push(')');
        }
    }
}
