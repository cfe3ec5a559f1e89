//! exit(status): record the status and move the session to DRAINING, so every
//! probe stops running clauses until END.

use crate::desc::ActionDesc;
use crate::gen::Gen;
use crate::layout;
use dtrace_bpf::{Insn, Reg, Size};
use dtrace_sema::TExpr;

impl<'a> Gen<'a> {
    pub fn exit_action(&mut self, status: &TExpr, desc: &ActionDesc) {
        if let Some(f) = desc.fields.first() {
            self.store_field(status, f.offset, &f.ty);
        }
        self.a
            .ld_map_value(Reg::R1, self.l.globals, layout::G_STATE);
        self.a
            .emit(Insn::st_mem(Size::DW, Reg::R1, 0, layout::STATE_DRAINING));
    }
}
