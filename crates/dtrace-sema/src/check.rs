//! The checker: walks clauses in program order, resolves names, types expressions and
//! validates actions, producing the [`TypedProgram`].
//!
//! Like dtrace(1), the first error ends the check.

use crate::ir::*;
use crate::options::CompileOptions;
use crate::probe::ProbeInfo;
use crate::symbols::{KernelSymbols, NoSymbols};
use crate::types::{type_name, BaseTypes};
use dtrace_ctypes::TypeTable;
use dtrace_syntax::ast;
use dtrace_syntax::{Diagnostic, Span, Tag};
use std::collections::HashMap;

pub(crate) type R<T> = Result<T, Diagnostic>;

/// Deepest expression nesting accepted. Together with tuple lengths (which count
/// as nesting) it bounds the temporaries codegen keeps live at once: 3 registers
/// plus 50 stack slots hold any 50 live values, pointers included.
pub(crate) const MAX_DEPTH: u32 = 50;

pub(crate) struct Checker<'a> {
    pub types: &'a mut TypeTable,
    pub opts: &'a CompileOptions,
    pub b: BaseTypes,
    pub out: TypedProgram,
    pub globals: HashMap<String, u32>,
    pub thread: HashMap<String, u32>,
    pub clause: HashMap<String, u32>,
    pub arrays: HashMap<String, u32>,
    pub aggs: HashMap<String, u32>,
    /// Line-less record of where each aggregation was first defined (for messages).
    pub agg_first: HashMap<u32, Span>,
    strings: HashMap<Vec<u8>, u32>,
    /// Probes of the clause being checked.
    pub probes: Vec<ProbeInfo>,
    pub args_used: u16,
    pub depth: u32,
    /// Kernel symbol addresses (backquoted names without a BTF placement).
    pub syms: &'a dyn KernelSymbols,
    /// `inline` definitions by name.
    pub inlines: HashMap<String, crate::decl::Inline>,
    /// `curthread`'s type, once asked for (imports `struct task_struct`).
    pub curthread: Option<Ty>,
    /// Declared translators, in declaration order.
    pub translators: Vec<crate::xlate::Translator>,
    /// Translator inputs bound while a member definition is typed (innermost last).
    pub xlate_env: Vec<(String, TExpr)>,
    /// The enumerators defined so far of the enum being declared (a later
    /// enumerator's value may name them, as in C).
    pub enum_pending: Vec<(String, i64)>,
    /// Speculation placement state of the clause being checked.
    pub spec_flags: crate::speculation::ClauseFlags,
    /// Pointer variables: whether each holds alloca pointers (see `memsubr`).
    pub alloca_vars: HashMap<VarRef, bool>,
    /// Depth of action arguments being checked (an action named inside one is
    /// a `void` value, not an error of its own).
    pub action_args: u32,
    /// Typedef names declared in `#include`d files (libdtrace's "C" scope).
    pub c_typedefs: std::collections::HashSet<String>,
}

/// Type-check a program. `probes[i]` are the probes clause `i` (in program order,
/// counting only clauses) is enabled on.
pub fn check(
    program: &ast::Program,
    probes: &[Vec<ProbeInfo>],
    types: &mut TypeTable,
    opts: &CompileOptions,
) -> Result<TypedProgram, Diagnostic> {
    check_with(program, probes, types, opts, &NoSymbols)
}

/// [`check`], resolving backquoted kernel symbols through `syms`.
pub fn check_with(
    program: &ast::Program,
    probes: &[Vec<ProbeInfo>],
    types: &mut TypeTable,
    opts: &CompileOptions,
    syms: &dyn KernelSymbols,
) -> Result<TypedProgram, Diagnostic> {
    let b = BaseTypes::new(types);
    let mut c = Checker {
        types,
        opts,
        b,
        out: TypedProgram::default(),
        globals: HashMap::new(),
        thread: HashMap::new(),
        clause: HashMap::new(),
        arrays: HashMap::new(),
        aggs: HashMap::new(),
        agg_first: HashMap::new(),
        strings: HashMap::new(),
        probes: Vec::new(),
        args_used: 0,
        depth: 0,
        syms,
        inlines: HashMap::new(),
        curthread: None,
        translators: Vec::new(),
        xlate_env: Vec::new(),
        enum_pending: Vec::new(),
        spec_flags: Default::default(),
        alloca_vars: HashMap::new(),
        action_args: 0,
        c_typedefs: Default::default(),
    };
    let mut index = 0u32;
    for item in &program.items {
        match item {
            ast::Item::Clause(cl) => {
                let p = probes.get(index as usize).cloned().unwrap_or_default();
                let tc = c.clause(cl, index, p)?;
                c.out.clauses.push(tc);
                index += 1;
            }
            ast::Item::Pragma(_) => {}
            ast::Item::Decl(d) => {
                c.probes = Vec::new();
                c.declaration(d)?;
            }
            ast::Item::Translator(t) => {
                c.probes = Vec::new();
                c.translator(t)?;
            }
            // Kept in the AST for header (-h) and ELF (-G) generation; they define no
            // probes this program can enable yet.
            ast::Item::ProviderDecl(_) => {}
        }
    }
    c.fill_ckinds();
    Ok(c.out)
}

impl Checker<'_> {
    /// The C kind of a value type, for variable tables.
    fn ckind(&self, ty: Ty) -> CKind {
        use dtrace_ctypes::TypeKind as T;
        let id = match ty {
            Ty::Str { .. } => return CKind::String,
            Ty::Int { id, .. } | Ty::Ptr { id } | Ty::Agg { id, .. } => id,
            Ty::Stack { .. } => return CKind::Array,
            Ty::Void => return CKind::Unknown,
        };
        match self.types.kind(self.types.resolve(id)) {
            T::Int { .. } => CKind::Integer,
            T::Float { .. } => CKind::Float,
            T::Pointer { .. } => CKind::Pointer,
            T::Array { .. } => CKind::Array,
            T::Struct { .. } => CKind::Struct,
            T::Union { .. } => CKind::Union,
            T::Enum { .. } => CKind::Enum,
            T::String => CKind::String,
            _ => CKind::Unknown,
        }
    }

    fn fill_ckinds(&mut self) {
        let kinds = |c: &Self, vs: &[VarInfo]| vs.iter().map(|v| c.ckind(v.ty)).collect::<Vec<_>>();
        let g = kinds(self, &self.out.globals);
        let t = kinds(self, &self.out.thread_vars);
        let l = kinds(self, &self.out.clause_vars);
        let a: Vec<CKind> = self
            .out
            .arrays
            .iter()
            .map(|a| self.ckind(a.value))
            .collect();
        for (v, k) in self.out.globals.iter_mut().zip(g) {
            v.ckind = k;
        }
        for (v, k) in self.out.thread_vars.iter_mut().zip(t) {
            v.ckind = k;
        }
        for (v, k) in self.out.clause_vars.iter_mut().zip(l) {
            v.ckind = k;
        }
        for (v, k) in self.out.arrays.iter_mut().zip(a) {
            v.ckind = k;
        }
    }
}

impl<'a> Checker<'a> {
    fn clause(&mut self, cl: &ast::Clause, index: u32, probes: Vec<ProbeInfo>) -> R<TClause> {
        self.probes = probes;
        self.args_used = 0;
        // As dtrace cooks a clause: the actions first, so that variables they
        // create may appear in the predicate (`/i < 10/ { @ = sum(i++); }`);
        // when the actions themselves use a name only the predicate creates,
        // the predicate first.
        self.spec_flags = Default::default();
        let (predicate, body) = match self.stmts(&cl.body) {
            Ok(body) => (self.predicate(cl)?, body),
            Err(e) if cl.predicate.is_some() && undefined_name(&e) => {
                let p = self.predicate(cl)?;
                self.spec_flags = Default::default();
                (p, self.stmts(&cl.body)?)
            }
            Err(e) => return Err(e),
        };
        // Placement errors of speculation actions come after type errors.
        if let Some(e) = self.spec_flags.error.take() {
            return Err(e);
        }
        let (records, _aggs) = count_actions(&body);
        // DTrace's default action (print the probe) applies only to a clause with no
        // statements; one that only assigns variables or aggregates records nothing.
        let empty = cl.body.iter().all(|s| matches!(s, ast::Stmt::Empty(_)));
        Ok(TClause {
            index,
            span: cl.span,
            predicate,
            body,
            args_used: self.args_used,
            emits_record: records > 0 || empty,
        })
    }

    fn predicate(&mut self, cl: &ast::Clause) -> R<Option<TExpr>> {
        Ok(match &cl.predicate {
            Some(p) => {
                let e = self.expr(p)?;
                // An array or struct is not a scalar (no decay to a pointer here).
                let e = if matches!(e.ty, Ty::Agg { .. }) {
                    e
                } else {
                    self.testable(e)
                };
                // "The predicate expression must evaluate to a value of integer or
                // pointer type" (Dynamic Tracing Guide, "Predicates"): not a string.
                if !e.ty.is_testable() {
                    // dtrace(1) checks this once the clause is complete: at its end.
                    let end = Span::new(cl.span.source, cl.span.hi, cl.span.hi);
                    return Err(Diagnostic::new(
                        Tag::D_PRED_SCALAR,
                        end,
                        "predicate result must be of scalar type",
                    ));
                }
                Some(e)
            }
            None => None,
        })
    }

    pub(crate) fn stmts(&mut self, stmts: &[ast::Stmt]) -> R<Vec<TStmt>> {
        let mut out = Vec::new();
        for s in stmts {
            self.stmt(s, &mut out)?;
        }
        Ok(out)
    }

    fn stmt(&mut self, s: &ast::Stmt, out: &mut Vec<TStmt>) -> R<()> {
        match s {
            ast::Stmt::Empty(_) => Ok(()),
            ast::Stmt::Block(b, _) => {
                for s in b {
                    self.stmt(s, out)?;
                }
                Ok(())
            }
            // The parser rejects declarations in clauses (a syntax error, as in
            // dtrace(1)); an AST built by hand may still hold one.
            ast::Stmt::Decl(d) => Err(Diagnostic::new(
                Tag::D_SYNTAX,
                d.span,
                "syntax error: declarations are not permitted in clauses",
            )),
            ast::Stmt::If {
                cond, then, els, ..
            } => {
                let c = self.expr(cond)?;
                let c = self.testable(c);
                if !c.ty.is_testable() {
                    return Err(Diagnostic::new(
                        Tag::D_PRED_SCALAR,
                        cond.span,
                        "if-statement condition must be of scalar type",
                    ));
                }
                let then = self.stmts(then)?;
                let els = match els {
                    Some(e) => self.stmts(e)?,
                    None => Vec::new(),
                };
                out.push(TStmt::If { cond: c, then, els });
                Ok(())
            }
            ast::Stmt::Expr(e) => self.expr_stmt(e, out),
            ast::Stmt::Loop {
                init,
                cond,
                step,
                body,
                test_first,
                span,
                line,
            } => self.loop_stmt(
                (init.as_deref(), cond.as_deref(), step.as_deref()),
                body,
                *test_first,
                (*span, *line),
                out,
            ),
            ast::Stmt::Break(_) => {
                out.push(TStmt::Break);
                Ok(())
            }
            ast::Stmt::Continue(_) => {
                out.push(TStmt::Continue);
                Ok(())
            }
        }
    }

    pub(crate) fn expr_stmt(&mut self, e: &ast::Expr, out: &mut Vec<TStmt>) -> R<()> {
        use ast::ExprKind as K;
        if let Some(d) = crate::aggctl::misuse(e) {
            return Err(d);
        }
        match &e.kind {
            K::Call { func, args } if crate::actions::is_action(func) => {
                // A destructive action is checked for its placement first (as
                // below for subroutines): misplaced after speculate() whatever
                // its arguments, and even where Linux does not support it.
                if crate::speculation::Placed::of_call(func)
                    == Some(crate::speculation::Placed::Destructive)
                {
                    self.place_call(func, e.span);
                    if let Some(err) = self.spec_flags.error.take() {
                        return Err(err);
                    }
                    out.push(self.action(func, args, e.span)?);
                    return Ok(());
                }
                out.push(self.action(func, args, e.span)?);
                self.place_call(func, e.span);
                Ok(())
            }
            K::Assign { op: None, lhs, rhs } if is_agg_target(lhs) => {
                out.push(self.agg_assign(lhs, rhs, e.span)?);
                self.spec_flags
                    .place(crate::speculation::Placed::Aggregating, e.span);
                Ok(())
            }
            _ => {
                // A destructive subroutine after speculate() is misplaced whatever
                // its arguments (and even where it is not supported here): report
                // the clause's first misplacement before looking at the call.
                if let K::Call { func, .. } = &e.kind {
                    let kind = crate::speculation::Placed::of_call(func);
                    self.place_call(func, e.span);
                    if kind == Some(crate::speculation::Placed::Destructive) {
                        if let Some(err) = self.spec_flags.error.take() {
                            return Err(err);
                        }
                    }
                }
                let t = self.expr(e)?;
                out.push(TStmt::Expr(t));
                Ok(())
            }
        }
    }

    /// Note a call statement for the speculation placement rules.
    fn place_call(&mut self, func: &str, span: Span) {
        if let Some(k) = crate::speculation::Placed::of_call(func) {
            self.spec_flags.place(k, span);
        }
    }

    /// Intern a string literal; returns its id and capacity.
    pub(crate) fn intern(&mut self, s: &[u8]) -> (u32, u32) {
        let max = self.opts.strsize.clamp(1, 1 << 16) as usize;
        let s: Vec<u8> = s
            .iter()
            .copied()
            .take_while(|b| *b != 0)
            .take(max)
            .collect();
        let cap = str_cap_for(s.len() as u32 + 1, self.opts);
        if let Some(id) = self.strings.get(&s) {
            return (*id, cap);
        }
        let id = self.out.strings.len() as u32;
        self.out.strings.push(s.clone());
        self.strings.insert(s, id);
        (id, cap)
    }

    /// A value tested for truth: `char` arrays read as strings, other arrays
    /// decay to (non-null) pointers.
    pub(crate) fn testable(&mut self, e: TExpr) -> TExpr {
        match self.string_of(e) {
            Ok(s) => s,
            Err(e) => self.decay(e),
        }
    }

    pub(crate) fn name(&self, t: &Ty) -> String {
        type_name(self.types, t)
    }

    /// The string type for values of at most `len` bytes including the NUL.
    pub(crate) fn str_ty(&self, len: u32) -> Ty {
        Ty::Str {
            cap: str_cap_for(len, self.opts),
        }
    }
}

/// String capacity for `len` bytes (NUL included): rounded up to 8, capped at strsize.
pub(crate) fn str_cap_for(len: u32, opts: &CompileOptions) -> u32 {
    (len.max(1).div_ceil(8) * 8).min(opts.str_cap())
}

/// Whether a diagnostic is dtrace's "undefined name" (D_IDENT_UNDEF).
fn undefined_name(d: &Diagnostic) -> bool {
    matches!(d.tag, Tag::D_IDENT_UNDEF)
}

fn is_agg_target(lhs: &ast::Expr) -> bool {
    match &lhs.kind {
        ast::ExprKind::Agg(_) => true,
        ast::ExprKind::Index { base, .. } => matches!(base.kind, ast::ExprKind::Agg(_)),
        _ => false,
    }
}

/// (recording actions, aggregation updates) in a statement list, recursively.
fn count_actions(body: &[TStmt]) -> (u32, u32) {
    let mut r = 0;
    let mut a = 0;
    for s in body {
        match s {
            TStmt::Loop { body, .. } => {
                let (r1, a1) = count_actions(body);
                r += r1;
                a += a1;
            }
            TStmt::If { then, els, .. } => {
                let (r1, a1) = count_actions(then);
                let (r2, a2) = count_actions(els);
                r += r1 + r2;
                a += a1 + a2;
            }
            TStmt::AggUpdate { .. } => a += 1,
            s if s.records() => r += 1,
            _ => {}
        }
    }
    (r, a)
}
