//! Aggregations: groups of maps shared by the aggregations of one key and
//! value size (see [`crate::AggGroup`]), keyed by the aggregation's id (8
//! bytes) then the packed key tuple. Update: find the key's slot (giving it
//! one if it is new, `slot.rs`), then this CPU's value of that slot, and
//! update it in place (no atomics: the value is this CPU's). A keyless
//! aggregation has a fixed slot (`layout.rs`): its value is found from
//! constants, with no key and no hash.

pub mod layout;
mod quantize;
mod simple;
mod slot;

use crate::desc::AggDesc;
use crate::gen::{Gen, DCTX};
use crate::layout::tuple_layout;
use crate::record::value_type;
use dtrace_bpf::{Insn, Reg, Size};
use dtrace_sema::{AggInfo, AggKind, TExpr};

pub fn agg_desc(a: &AggInfo) -> AggDesc {
    let (offs, key_size) = tuple_layout(&a.keys);
    AggDesc {
        id: a.id,
        name: a.name.clone(),
        func: a.kind,
        keys: a
            .keys
            .iter()
            .zip(offs)
            .map(|(t, o)| crate::desc::Field {
                offset: o,
                ty: value_type(t),
            })
            .collect(),
        key_size,
    }
}

/// Whether an update of a `kind` aggregation may leave its value all zero
/// (`sum(0)`, a zero increment), so that a keyless one must mark its fixed
/// slot live itself. The others count every update in a value word, and a
/// reader takes a fixed slot with a non-zero word on any CPU as live.
pub fn may_leave_zero(kind: AggKind, increment: bool) -> bool {
    match kind {
        AggKind::Sum => true,
        AggKind::Quantize | AggKind::Lquantize { .. } | AggKind::Llquantize { .. } => increment,
        AggKind::Count | AggKind::Avg | AggKind::Min | AggKind::Max | AggKind::Stddev => false,
    }
}

impl<'a> Gen<'a> {
    pub fn agg_update(
        &mut self,
        agg: u32,
        keys: &[TExpr],
        value: Option<&TExpr>,
        incr: Option<&TExpr>,
    ) {
        let Some(info) = self.tp.aggs.get(agg as usize).cloned() else {
            return;
        };
        let Some(group) = self
            .l
            .agg_maps
            .get(&agg)
            .and_then(|g| self.l.agg_groups.get(*g))
            .copied()
        else {
            return;
        };
        let keyvals = self.eval_keys(keys);
        let val = value.map(|v| self.expr(v));
        let inc = incr.map(|v| self.expr(v));
        let done = self.a.label();
        let fixed = if keys.is_empty() {
            self.l.agg_fixed.get(&agg).copied()
        } else {
            None
        };
        match fixed {
            Some(slot) => self.agg_fixed_value(&group, slot, done),
            None => {
                // The key: the aggregation's id, then the key tuple.
                let prefix = crate::AGG_KEY_PREFIX;
                if keys.is_empty() {
                    self.zero(DCTX, (self.l.key_area + prefix) as i16, 8);
                } else {
                    self.build_key_at(prefix, &info.keys, keys, &keyvals);
                }
                self.a.emit(Insn::mov64_imm(Reg::R1, agg as i32));
                self.a.emit(Insn::stx_mem(
                    Size::DW,
                    DCTX,
                    Reg::R1,
                    self.l.key_area as i16,
                ));
                self.agg_value(&group, done);
            }
        }
        // r0 = this CPU's value; r5 = value argument; r4 = increment.
        if let Some(v) = val {
            let r = self.get(v, Reg::R5);
            if r != Reg::R5 {
                self.a.emit(Insn::mov64_reg(Reg::R5, r));
            }
        }
        match inc {
            Some(i) => {
                let r = self.get(i, Reg::R4);
                if r != Reg::R4 {
                    self.a.emit(Insn::mov64_reg(Reg::R4, r));
                }
            }
            None => self.a.emit(Insn::mov64_imm(Reg::R4, 1)),
        }
        match info.kind {
            AggKind::Count => simple::count(&mut self.a),
            AggKind::Sum => simple::sum(&mut self.a),
            AggKind::Avg => simple::avg(&mut self.a),
            AggKind::Min => simple::minmax(&mut self.a, true),
            AggKind::Max => simple::minmax(&mut self.a, false),
            AggKind::Stddev => simple::stddev(&mut self.a),
            AggKind::Quantize => quantize::quantize(&mut self.a),
            AggKind::Lquantize { base, limit, step } => {
                quantize::lquantize(&mut self.a, base, limit, step)
            }
            AggKind::Llquantize {
                factor,
                low,
                high,
                nsteps,
            } => quantize::llquantize(&mut self.a, factor, low, high, nsteps),
        }
        if let (Some(slot), true) = (fixed, may_leave_zero(info.kind, incr.is_some())) {
            self.agg_fixed_publish(&group, slot);
        }
        self.a.bind(done);
        if let Some(i) = inc {
            self.free(i);
        }
        if let Some(v) = val {
            self.free(v);
        }
        self.free_all(keyvals);
    }
}
