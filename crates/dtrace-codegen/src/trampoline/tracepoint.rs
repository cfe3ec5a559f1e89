//! Perf-tracepoint trampolines (`sdt:<group>::<event>`): the context is the
//! tracepoint's record, and each argument is read from it where the provider's
//! [`RecordField`] says: scalars by value (sign-extended when the field is
//! signed), arrays and `__data_loc` data by their address in the record.

use super::{dispatch, epilogue, prologue, zero_args, Dispatch, CTX, DC};
use crate::asm::Asm;
use crate::layout::{self, Layout};
use dtrace_bpf::{AluOp, Insn, Reg, Size};
use dtrace_sema::{FieldKind, RecordField};

pub fn build(
    l: &Layout,
    probe_id: u32,
    index: u32,
    fields: &[RecordField],
    args: bool,
    d: &Dispatch,
) -> Asm {
    let mut a = Asm::new();
    let out = a.label();
    prologue(&mut a, l, out, probe_id, index);
    if args {
        zero_args(&mut a);
        for (i, f) in fields.iter().take(10).enumerate() {
            load_field(&mut a, f, layout::D_ARGS + 8 * i as i16);
        }
    }
    dispatch(&mut a, d, Some((l, out)));
    epilogue(&mut a, out);
    a.finish()
}

pub(crate) fn size_of(bytes: u8) -> Size {
    match bytes {
        1 => Size::B,
        2 => Size::H,
        4 => Size::W,
        _ => Size::DW,
    }
}

/// Store argument `f` at `DC + slot`.
fn load_field(a: &mut Asm, f: &RecordField, slot: i16) {
    let off = f.offset as i16;
    match f.kind {
        FieldKind::Scalar => {
            a.emit(Insn::ldx_mem(size_of(f.size), Reg::R1, CTX, off));
            if f.signed && f.size < 8 {
                let shift = 64 - 8 * i32::from(f.size);
                a.emit(Insn::alu64_imm(AluOp::Lsh, Reg::R1, shift));
                a.emit(Insn::alu64_imm(AluOp::Arsh, Reg::R1, shift));
            }
            a.emit(Insn::stx_mem(Size::DW, DC, Reg::R1, slot));
        }
        FieldKind::Array | FieldKind::DataLoc => {
            // The record's address as a plain number: stored into dctx and
            // read back, it is no longer a context pointer, so it may be added
            // to and handed to D as an address.
            a.emit(Insn::stx_mem(Size::DW, DC, CTX, slot));
            a.emit(Insn::ldx_mem(Size::DW, Reg::R2, DC, slot));
            if f.kind == FieldKind::Array {
                a.emit(Insn::alu64_imm(AluOp::Add, Reg::R2, i32::from(f.offset)));
            } else {
                a.emit(Insn::ldx_mem(Size::W, Reg::R1, CTX, off));
                a.emit(Insn::alu64_imm(AluOp::And, Reg::R1, 0xffff));
                a.emit(Insn::alu64_reg(AluOp::Add, Reg::R2, Reg::R1));
            }
            a.emit(Insn::stx_mem(Size::DW, DC, Reg::R2, slot));
        }
        // User-space locations belong to uprobe contexts; a tracepoint has none
        // (the argument stays 0).
        FieldKind::UserReg | FieldKind::UserMem { .. } | FieldKind::Const(_) => {}
    }
}
