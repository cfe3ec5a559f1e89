//! Record layouts: where each recording action's fields go in a clause's record.
//! The plan is computed before code generation (the record is reserved first) and
//! consumed in the same statement order while generating code.

use crate::desc::{ActionDesc, ActionKind, Field, ValueType, HEADER_SIZE};
use dtrace_sema::{
    Builtin, CompileOptions, FormatAction, StackKind, SymbolKind, TExpr, TExprKind, TStmt, Ty,
};

pub fn value_type(t: &Ty) -> ValueType {
    match t {
        Ty::Int { size, signed, .. } => ValueType::Int {
            size: *size,
            signed: *signed,
        },
        Ty::Str { cap } => ValueType::String { size: *cap },
        Ty::Ptr { .. } => ValueType::Pointer,
        Ty::Agg { size, .. } => ValueType::Bytes { size: *size },
        Ty::Stack { frames, kind } => match kind {
            StackKind::Kernel => ValueType::Stack {
                frames: *frames,
                user: false,
            },
            StackKind::User => ValueType::Stack {
                frames: *frames,
                user: true,
            },
            k => ValueType::UserSym { kind: *k },
        },
        Ty::Void => ValueType::Bytes { size: 0 },
    }
}

/// The u64 field of speculate/commit/discard.
const SPEC_FIELD: ValueType = ValueType::Int {
    size: 8,
    signed: false,
};

#[derive(Debug, Clone, Default)]
pub struct RecordPlan {
    pub size: u32,
    pub actions: Vec<ActionDesc>,
    /// Whether each action is under an `if` (executed conditionally).
    pub conditional: Vec<bool>,
    /// Flags bits of actions that always run.
    pub static_flags: u32,
    pub any_conditional: bool,
    /// Pages of user stack a recorded `ustackdepth` copies (as `ustack()`).
    ustack_pages: u32,
    /// The most user frames a stack may have (`maxframes`).
    frame_cap: u32,
}

impl RecordPlan {
    pub fn new(body: &[TStmt], opts: &CompileOptions) -> RecordPlan {
        let mut p = RecordPlan {
            size: HEADER_SIZE,
            ustack_pages: opts.ustack_pages(),
            frame_cap: opts.frame_cap(),
            ..RecordPlan::default()
        };
        p.walk(body, false);
        p.size = p.size.div_ceil(8) * 8;
        p.static_flags |= crate::RECORD_FLAGS_VALID;
        for (i, c) in p.conditional.iter().enumerate() {
            if !*c && i < 31 {
                p.static_flags |= 1 << i;
            }
        }
        p.any_conditional = p.conditional.iter().any(|c| *c);
        p
    }

    /// The record's size as DTrace counts it against a buffer: each string
    /// field a whole string of `str_cap` bytes (DTrace records `strsize` bytes
    /// for every string; records here keep only the string's static capacity).
    pub fn accounted_size(&self, str_cap: u32) -> u32 {
        let extra: u32 = self
            .actions
            .iter()
            .flat_map(|a| &a.fields)
            .map(|f| match f.ty {
                ValueType::String { size } => str_cap.saturating_sub(size),
                _ => 0,
            })
            .sum();
        self.size + extra
    }

    fn field(&mut self, t: &Ty) -> Field {
        self.raw_field(value_type(t))
    }

    /// The field of a traced or printed value. `ustackdepth` is recorded as
    /// a stack to unwind (see [`ValueType::UserStack`]) when `ustack()`
    /// would unwind one (`ustackbytes` > 0), so that it counts the frames
    /// `ustack()` prints.
    fn value_field(&mut self, e: &TExpr) -> Field {
        match e.kind {
            TExprKind::Builtin(Builtin::UStackdepth) if self.ustack_pages > 0 => {
                self.raw_field(ValueType::UserStack {
                    frames: self.frame_cap,
                    pages: self.ustack_pages,
                    depth: true,
                })
            }
            _ => self.field(&e.ty),
        }
    }

    fn raw_field(&mut self, vt: ValueType) -> Field {
        let align = match vt {
            ValueType::Int { size, .. } => size as u32,
            _ => 8,
        }
        .max(1);
        let off = self.size.div_ceil(align) * align;
        self.size = off + vt.size();
        Field {
            offset: off,
            ty: vt,
        }
    }

    fn walk(&mut self, body: &[TStmt], cond: bool) {
        for s in body {
            let kind_fields: Option<(ActionKind, Vec<Field>)> = match s {
                TStmt::If { then, els, .. } => {
                    self.walk(then, true);
                    self.walk(els, true);
                    None
                }
                TStmt::Trace { value } => {
                    let f = match value.kind {
                        dtrace_sema::TExprKind::Stack {
                            frames,
                            kind: StackKind::User,
                            pages,
                        } if pages > 0 => self.raw_field(ValueType::UserStack {
                            frames,
                            pages,
                            depth: false,
                        }),
                        _ => self.value_field(value),
                    };
                    Some((ActionKind::Trace, vec![f]))
                }
                TStmt::Print { value, shape, addr } => {
                    let mut fields = Vec::new();
                    if addr.is_some() {
                        fields.push(self.raw_field(ValueType::Int {
                            size: 8,
                            signed: false,
                        }));
                    }
                    let off = self.size.div_ceil(8) * 8;
                    let size = value.ty.size();
                    self.size = off + size;
                    let f = Field {
                        offset: off,
                        ty: ValueType::Bytes { size },
                    };
                    fields.push(f);
                    let ty = shape.clone();
                    Some((ActionKind::Print { ty }, fields))
                }
                TStmt::Printf { format, args } => {
                    let fs = args.iter().map(|a| self.value_field(a)).collect();
                    Some((
                        ActionKind::Printf {
                            format: format.clone(),
                        },
                        fs,
                    ))
                }
                TStmt::Exit { status } => {
                    let f = self.field(&status.ty);
                    Some((ActionKind::Exit, vec![f]))
                }
                TStmt::Printa { format, aggs } => Some((
                    ActionKind::Printa {
                        format: format.clone(),
                        aggs: aggs.clone(),
                    },
                    Vec::new(),
                )),
                TStmt::AggControl { op, agg, arg } => {
                    let fs = arg.iter().map(|a| self.field(&a.ty)).collect();
                    Some((ActionKind::AggControl { op: *op, agg: *agg }, fs))
                }
                TStmt::Speculate { .. } => {
                    let f = self.raw_field(SPEC_FIELD);
                    Some((ActionKind::Speculate, vec![f]))
                }
                TStmt::CommitDiscard { commit, .. } => {
                    let f = self.raw_field(SPEC_FIELD);
                    Some((ActionKind::CommitDiscard { commit: *commit }, vec![f]))
                }
                TStmt::Tracemem { size, dynsize, .. } => {
                    let off = self.size.div_ceil(8) * 8;
                    self.size = off + size;
                    let mut fs = vec![Field {
                        offset: off,
                        ty: ValueType::Bytes { size: *size },
                    }];
                    if let Some(d) = dynsize {
                        fs.push(self.field(&d.ty));
                    }
                    Some((ActionKind::Tracemem, fs))
                }
                TStmt::FormatAction {
                    action,
                    format,
                    args,
                } => {
                    let fs = args.iter().map(|a| self.field(&a.ty)).collect();
                    let format = format.clone();
                    let kind = match action {
                        FormatAction::System => ActionKind::System { format },
                        FormatAction::Freopen => ActionKind::Freopen { format },
                    };
                    Some((kind, fs))
                }
                TStmt::Setopt { name, value } => {
                    let mut fs = vec![self.field(&name.ty)];
                    if let Some(v) = value {
                        fs.push(self.field(&v.ty));
                    }
                    Some((ActionKind::Setopt, fs))
                }
                TStmt::Ftruncate => Some((ActionKind::Ftruncate, Vec::new())),
                TStmt::Symbol { addr, kind } => {
                    let f = self.field(&addr.ty);
                    let module = *kind == SymbolKind::Module;
                    Some((ActionKind::Symbol { module }, vec![f]))
                }
                TStmt::Loop { body, step, .. } => {
                    self.walk(body, true);
                    self.walk(step, true);
                    None
                }
                TStmt::Expr(_)
                | TStmt::Break
                | TStmt::Continue
                | TStmt::AggUpdate { .. }
                | TStmt::Raise { .. }
                | TStmt::Chill { .. } => None,
            };
            if let Some((kind, fields)) = kind_fields {
                self.actions.push(ActionDesc { kind, fields });
                self.conditional.push(cond);
            }
        }
    }
}
