//! The eBPF instruction: one 8-byte slot (`ld_imm64` takes two).
//!
//! Encoding per the kernel's instruction-set document: `code` (op class, size/source,
//! op), `dst` and `src` registers in one byte (dst low nibble), 16-bit signed offset,
//! 32-bit signed immediate; little-endian on x86_64.
//!
//! Every instruction form has one named constructor here. Constructors never fail:
//! operands are typed ([`Reg`], [`Size`], [`AluOp`], [`JmpOp`], [`AtomicOp`]), so the
//! only invalid programs they can build are ones the verifier rejects.

use crate::opcode::*;

/// A BPF register.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Reg(pub u8);

impl Reg {
    pub const R0: Reg = Reg(0);
    pub const R1: Reg = Reg(1);
    pub const R2: Reg = Reg(2);
    pub const R3: Reg = Reg(3);
    pub const R4: Reg = Reg(4);
    pub const R5: Reg = Reg(5);
    pub const R6: Reg = Reg(6);
    pub const R7: Reg = Reg(7);
    pub const R8: Reg = Reg(8);
    pub const R9: Reg = Reg(9);
    /// The read-only frame pointer.
    pub const FP: Reg = Reg(10);
    /// Alias of [`Reg::FP`].
    pub const R10: Reg = Reg(10);
}

/// Width of a memory access.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Size {
    /// 1 byte.
    B,
    /// 2 bytes.
    H,
    /// 4 bytes.
    W,
    /// 8 bytes.
    DW,
}

impl Size {
    /// The size bits of the opcode.
    pub const fn code(self) -> u8 {
        match self {
            Size::B => BPF_B,
            Size::H => BPF_H,
            Size::W => BPF_W,
            Size::DW => BPF_DW,
        }
    }

    /// Width in bytes.
    pub const fn bytes(self) -> u32 {
        match self {
            Size::B => 1,
            Size::H => 2,
            Size::W => 4,
            Size::DW => 8,
        }
    }

    /// The size for an access of `bytes` bytes (1, 2, 4 or 8).
    pub const fn from_bytes(bytes: u32) -> Option<Size> {
        match bytes {
            1 => Some(Size::B),
            2 => Some(Size::H),
            4 => Some(Size::W),
            8 => Some(Size::DW),
            _ => None,
        }
    }
}

/// A two-operand arithmetic operation (`dst = dst OP src`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum AluOp {
    Add,
    Sub,
    Mul,
    /// Unsigned division (by zero gives 0).
    Div,
    Or,
    And,
    Lsh,
    /// Logical right shift.
    Rsh,
    /// Unsigned modulo (by zero leaves dst unchanged).
    Mod,
    Xor,
    Mov,
    /// Arithmetic right shift.
    Arsh,
}

impl AluOp {
    /// The operation bits of the opcode.
    pub const fn code(self) -> u8 {
        match self {
            AluOp::Add => BPF_ADD,
            AluOp::Sub => BPF_SUB,
            AluOp::Mul => BPF_MUL,
            AluOp::Div => BPF_DIV,
            AluOp::Or => BPF_OR,
            AluOp::And => BPF_AND,
            AluOp::Lsh => BPF_LSH,
            AluOp::Rsh => BPF_RSH,
            AluOp::Mod => BPF_MOD,
            AluOp::Xor => BPF_XOR,
            AluOp::Mov => BPF_MOV,
            AluOp::Arsh => BPF_ARSH,
        }
    }
}

/// A conditional jump comparison.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum JmpOp {
    Eq,
    /// Unsigned `>`.
    Gt,
    /// Unsigned `>=`.
    Ge,
    /// `dst & src != 0`.
    Set,
    Ne,
    /// Signed `>`.
    Sgt,
    /// Signed `>=`.
    Sge,
    /// Unsigned `<`.
    Lt,
    /// Unsigned `<=`.
    Le,
    /// Signed `<`.
    Slt,
    /// Signed `<=`.
    Sle,
}

impl JmpOp {
    /// The operation bits of the opcode.
    pub const fn code(self) -> u8 {
        match self {
            JmpOp::Eq => BPF_JEQ,
            JmpOp::Gt => BPF_JGT,
            JmpOp::Ge => BPF_JGE,
            JmpOp::Set => BPF_JSET,
            JmpOp::Ne => BPF_JNE,
            JmpOp::Sgt => BPF_JSGT,
            JmpOp::Sge => BPF_JSGE,
            JmpOp::Lt => BPF_JLT,
            JmpOp::Le => BPF_JLE,
            JmpOp::Slt => BPF_JSLT,
            JmpOp::Sle => BPF_JSLE,
        }
    }

    /// The comparison that is true exactly when `self` is false.
    pub const fn negate(self) -> Option<JmpOp> {
        Some(match self {
            JmpOp::Eq => JmpOp::Ne,
            JmpOp::Ne => JmpOp::Eq,
            JmpOp::Gt => JmpOp::Le,
            JmpOp::Le => JmpOp::Gt,
            JmpOp::Ge => JmpOp::Lt,
            JmpOp::Lt => JmpOp::Ge,
            JmpOp::Sgt => JmpOp::Sle,
            JmpOp::Sle => JmpOp::Sgt,
            JmpOp::Sge => JmpOp::Slt,
            JmpOp::Slt => JmpOp::Sge,
            JmpOp::Set => return None,
        })
    }
}

/// An atomic read-modify-write operation on memory.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum AtomicOp {
    Add,
    Or,
    And,
    Xor,
    /// `*mem += src`, returning the old value in `src`.
    FetchAdd,
    FetchOr,
    FetchAnd,
    FetchXor,
    /// Swap `src` and `*mem`.
    Xchg,
    /// If `*mem == r0` then `*mem = src`; the old value is returned in `r0`.
    Cmpxchg,
}

impl AtomicOp {
    /// The immediate that selects the operation.
    pub const fn imm(self) -> i32 {
        match self {
            AtomicOp::Add => BPF_ATOMIC_ADD,
            AtomicOp::Or => BPF_ATOMIC_OR,
            AtomicOp::And => BPF_ATOMIC_AND,
            AtomicOp::Xor => BPF_ATOMIC_XOR,
            AtomicOp::FetchAdd => BPF_ATOMIC_ADD | BPF_FETCH,
            AtomicOp::FetchOr => BPF_ATOMIC_OR | BPF_FETCH,
            AtomicOp::FetchAnd => BPF_ATOMIC_AND | BPF_FETCH,
            AtomicOp::FetchXor => BPF_ATOMIC_XOR | BPF_FETCH,
            AtomicOp::Xchg => BPF_XCHG,
            AtomicOp::Cmpxchg => BPF_CMPXCHG,
        }
    }
}

/// One raw instruction slot.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct Insn {
    pub code: u8,
    pub dst: u8,
    pub src: u8,
    pub off: i16,
    pub imm: i32,
}

impl Insn {
    /// The 8 bytes the kernel reads.
    pub fn encode(&self) -> [u8; 8] {
        let mut b = [0u8; 8];
        b[0] = self.code;
        b[1] = (self.dst & 0x0f) | ((self.src & 0x0f) << 4);
        b[2..4].copy_from_slice(&self.off.to_le_bytes());
        b[4..8].copy_from_slice(&self.imm.to_le_bytes());
        b
    }

    pub fn decode(b: [u8; 8]) -> Insn {
        Insn {
            code: b[0],
            dst: b[1] & 0x0f,
            src: b[1] >> 4,
            off: i16::from_le_bytes([b[2], b[3]]),
            imm: i32::from_le_bytes([b[4], b[5], b[6], b[7]]),
        }
    }

    /// A raw instruction from its parts.
    pub const fn new(code: u8, dst: Reg, src: Reg, off: i16, imm: i32) -> Insn {
        Insn {
            code,
            dst: dst.0,
            src: src.0,
            off,
            imm,
        }
    }

    /// True if this is the first slot of a two-slot `ld_imm64`.
    pub const fn is_ld_imm64(&self) -> bool {
        self.code == BPF_LD | BPF_DW | BPF_IMM
    }

    /// True for any jump-class instruction other than call and exit.
    pub const fn is_jump(&self) -> bool {
        let class = self.code & CLASS_MASK;
        let op = self.code & OP_MASK;
        (class == BPF_JMP || class == BPF_JMP32) && op != BPF_CALL && op != BPF_EXIT
    }

    // ---- arithmetic ----

    /// `dst = imm` (64-bit, sign-extended).
    pub const fn mov64_imm(dst: Reg, imm: i32) -> Insn {
        Insn::alu64_imm(AluOp::Mov, dst, imm)
    }

    /// `dst = src` (64-bit).
    pub const fn mov64_reg(dst: Reg, src: Reg) -> Insn {
        Insn::alu64_reg(AluOp::Mov, dst, src)
    }

    /// `dst = (u32)imm`, upper half zeroed.
    pub const fn mov32_imm(dst: Reg, imm: i32) -> Insn {
        Insn::alu32_imm(AluOp::Mov, dst, imm)
    }

    /// `dst = (u32)src`, upper half zeroed.
    pub const fn mov32_reg(dst: Reg, src: Reg) -> Insn {
        Insn::alu32_reg(AluOp::Mov, dst, src)
    }

    /// `dst = (sN)src` sign-extending the low `bits` (8, 16 or 32) of `src` (cpu v4).
    pub const fn movsx64_reg(dst: Reg, src: Reg, bits: u8) -> Insn {
        Insn::new(BPF_ALU64 | BPF_X | BPF_MOV, dst, src, bits as i16, 0)
    }

    /// `dst OP= imm` on 64 bits.
    pub const fn alu64_imm(op: AluOp, dst: Reg, imm: i32) -> Insn {
        Insn::new(BPF_ALU64 | BPF_K | op.code(), dst, Reg(0), 0, imm)
    }

    /// `dst OP= src` on 64 bits.
    pub const fn alu64_reg(op: AluOp, dst: Reg, src: Reg) -> Insn {
        Insn::new(BPF_ALU64 | BPF_X | op.code(), dst, src, 0, 0)
    }

    /// `dst OP= imm` on the low 32 bits, upper half zeroed.
    pub const fn alu32_imm(op: AluOp, dst: Reg, imm: i32) -> Insn {
        Insn::new(BPF_ALU | BPF_K | op.code(), dst, Reg(0), 0, imm)
    }

    /// `dst OP= src` on the low 32 bits, upper half zeroed.
    pub const fn alu32_reg(op: AluOp, dst: Reg, src: Reg) -> Insn {
        Insn::new(BPF_ALU | BPF_X | op.code(), dst, src, 0, 0)
    }

    /// Signed `dst /= src` (`signed_mod` false) or `dst %= src` (true), 64-bit (cpu v4).
    pub const fn sdivmod64_reg(signed_mod: bool, dst: Reg, src: Reg) -> Insn {
        let op = if signed_mod { BPF_MOD } else { BPF_DIV };
        Insn::new(BPF_ALU64 | BPF_X | op, dst, src, 1, 0)
    }

    /// `dst = -dst` on 64 bits.
    pub const fn neg64(dst: Reg) -> Insn {
        Insn::new(BPF_ALU64 | BPF_K | BPF_NEG, dst, Reg(0), 0, 0)
    }

    /// `dst = -dst` on 32 bits.
    pub const fn neg32(dst: Reg) -> Insn {
        Insn::new(BPF_ALU | BPF_K | BPF_NEG, dst, Reg(0), 0, 0)
    }

    /// Convert the low `bits` (16, 32 or 64) of `dst` to big endian (no-op swap on BE hosts).
    pub const fn to_be(dst: Reg, bits: i32) -> Insn {
        Insn::new(BPF_ALU | BPF_TO_BE | BPF_END, dst, Reg(0), 0, bits)
    }

    /// Convert the low `bits` (16, 32 or 64) of `dst` to little endian (truncates on LE hosts).
    pub const fn to_le(dst: Reg, bits: i32) -> Insn {
        Insn::new(BPF_ALU | BPF_TO_LE | BPF_END, dst, Reg(0), 0, bits)
    }

    /// Unconditionally byte-swap the low `bits` (16, 32 or 64) of `dst` (cpu v4).
    pub const fn bswap(dst: Reg, bits: i32) -> Insn {
        Insn::new(BPF_ALU64 | BPF_TO_LE | BPF_END, dst, Reg(0), 0, bits)
    }

    // ---- memory ----

    /// `dst = *(size *)(src + off)`.
    pub const fn ldx_mem(size: Size, dst: Reg, src: Reg, off: i16) -> Insn {
        Insn::new(BPF_LDX | size.code() | BPF_MEM, dst, src, off, 0)
    }

    /// `dst = *(sN *)(src + off)`, sign-extended (cpu v4; not for DW).
    pub const fn ldx_memsx(size: Size, dst: Reg, src: Reg, off: i16) -> Insn {
        Insn::new(BPF_LDX | size.code() | BPF_MEMSX, dst, src, off, 0)
    }

    /// `*(size *)(dst + off) = src`.
    pub const fn stx_mem(size: Size, dst: Reg, src: Reg, off: i16) -> Insn {
        Insn::new(BPF_STX | size.code() | BPF_MEM, dst, src, off, 0)
    }

    /// `*(size *)(dst + off) = imm`.
    pub const fn st_mem(size: Size, dst: Reg, off: i16, imm: i32) -> Insn {
        Insn::new(BPF_ST | size.code() | BPF_MEM, dst, Reg(0), off, imm)
    }

    /// `lock *(size *)(dst + off) += src` (size W or DW).
    pub const fn atomic_add(size: Size, dst: Reg, src: Reg, off: i16) -> Insn {
        Insn::atomic(size, AtomicOp::Add, dst, src, off)
    }

    /// Any atomic operation on `*(size *)(dst + off)` with operand `src` (size W or DW).
    pub const fn atomic(size: Size, op: AtomicOp, dst: Reg, src: Reg, off: i16) -> Insn {
        let size = op_size_guard(size);
        Insn::new(BPF_STX | size.code() | BPF_ATOMIC, dst, src, off, op.imm())
    }

    /// `dst = imm` for a full 64-bit constant: two slots.
    pub const fn ld_imm64(dst: Reg, imm: u64) -> [Insn; 2] {
        Insn::ld_imm64_pseudo(dst, 0, imm as u32 as i32, (imm >> 32) as u32 as i32)
    }

    /// `dst = &map` where `fd` is the map's file descriptor (`BPF_PSEUDO_MAP_FD`).
    pub const fn ld_map_fd(dst: Reg, fd: i32) -> [Insn; 2] {
        Insn::ld_imm64_pseudo(dst, BPF_PSEUDO_MAP_FD, fd, 0)
    }

    /// `dst = &map.value[0] + offset` for an array map's file descriptor
    /// (`BPF_PSEUDO_MAP_VALUE`; the map must be a one-entry array).
    pub const fn ld_map_value(dst: Reg, fd: i32, offset: i32) -> [Insn; 2] {
        Insn::ld_imm64_pseudo(dst, BPF_PSEUDO_MAP_VALUE, fd, offset)
    }

    /// `dst = &map` where `index` is a position in the `fd_array` passed to
    /// `BPF_PROG_LOAD` (`BPF_PSEUDO_MAP_IDX`). Lets code be generated before maps exist.
    pub const fn ld_map_idx(dst: Reg, index: i32) -> [Insn; 2] {
        Insn::ld_imm64_pseudo(dst, BPF_PSEUDO_MAP_IDX, index, 0)
    }

    /// `dst = &map.value[0] + offset`, map by `fd_array` index (`BPF_PSEUDO_MAP_IDX_VALUE`).
    pub const fn ld_map_idx_value(dst: Reg, index: i32, offset: i32) -> [Insn; 2] {
        Insn::ld_imm64_pseudo(dst, BPF_PSEUDO_MAP_IDX_VALUE, index, offset)
    }

    /// `dst = &subprog` for a callback (e.g. of `bpf_loop`): the subprogram starting
    /// at `pc + 1 + rel_off` (`BPF_PSEUDO_FUNC`).
    pub const fn ld_func(dst: Reg, rel_off: i32) -> [Insn; 2] {
        Insn::ld_imm64_pseudo(dst, BPF_PSEUDO_FUNC, rel_off, 0)
    }

    /// A raw two-slot `ld_imm64` with pseudo source `src` and immediate halves.
    pub const fn ld_imm64_pseudo(dst: Reg, src: u8, lo: i32, hi: i32) -> [Insn; 2] {
        [
            Insn::new(BPF_LD | BPF_DW | BPF_IMM, dst, Reg(src), 0, lo),
            Insn::new(0, Reg(0), Reg(0), 0, hi),
        ]
    }

    // ---- control flow ----

    /// `if dst OP imm goto pc + 1 + off` (64-bit compare).
    pub const fn jmp_imm(op: JmpOp, dst: Reg, imm: i32, off: i16) -> Insn {
        Insn::new(BPF_JMP | BPF_K | op.code(), dst, Reg(0), off, imm)
    }

    /// `if dst OP src goto pc + 1 + off` (64-bit compare).
    pub const fn jmp_reg(op: JmpOp, dst: Reg, src: Reg, off: i16) -> Insn {
        Insn::new(BPF_JMP | BPF_X | op.code(), dst, src, off, 0)
    }

    /// `if wdst OP imm goto pc + 1 + off` (32-bit compare).
    pub const fn jmp32_imm(op: JmpOp, dst: Reg, imm: i32, off: i16) -> Insn {
        Insn::new(BPF_JMP32 | BPF_K | op.code(), dst, Reg(0), off, imm)
    }

    /// `if wdst OP wsrc goto pc + 1 + off` (32-bit compare).
    pub const fn jmp32_reg(op: JmpOp, dst: Reg, src: Reg, off: i16) -> Insn {
        Insn::new(BPF_JMP32 | BPF_X | op.code(), dst, src, off, 0)
    }

    /// `goto pc + 1 + off`.
    pub const fn ja(off: i16) -> Insn {
        Insn::new(BPF_JMP | BPF_JA, Reg(0), Reg(0), off, 0)
    }

    /// `gotol pc + 1 + off`: the unconditional jump with a 32-bit offset, carried in
    /// `imm` (`BPF_JMP32 | BPF_JA`; cpu v4, kernel 6.4 and later).
    pub const fn gotol(off: i32) -> Insn {
        Insn::new(BPF_JMP32 | BPF_JA, Reg(0), Reg(0), 0, off)
    }

    /// True for `gotol` (whose offset is in `imm`, not `off`).
    pub const fn is_gotol(&self) -> bool {
        self.code == BPF_JMP32 | BPF_JA
    }

    /// True for a conditional jump (either width), whose target is `pc + 1 + off`.
    pub const fn is_cond_jump(&self) -> bool {
        self.is_jump() && self.code & OP_MASK != BPF_JA
    }

    /// The comparison of a conditional jump, if it is one.
    pub const fn jmp_op(&self) -> Option<JmpOp> {
        if !self.is_cond_jump() {
            return None;
        }
        Some(match self.code & OP_MASK {
            BPF_JEQ => JmpOp::Eq,
            BPF_JGT => JmpOp::Gt,
            BPF_JGE => JmpOp::Ge,
            BPF_JSET => JmpOp::Set,
            BPF_JNE => JmpOp::Ne,
            BPF_JSGT => JmpOp::Sgt,
            BPF_JSGE => JmpOp::Sge,
            BPF_JLT => JmpOp::Lt,
            BPF_JLE => JmpOp::Le,
            BPF_JSLT => JmpOp::Slt,
            BPF_JSLE => JmpOp::Sle,
            _ => return None,
        })
    }

    /// A conditional jump with its comparison replaced by `op`, everything else kept
    /// (width, source, registers, immediate, offset).
    pub const fn with_jmp_op(self, op: JmpOp) -> Insn {
        Insn {
            code: (self.code & !OP_MASK) | op.code(),
            ..self
        }
    }

    /// Call helper function `id` (see [`crate::helper`]); arguments in r1-r5, result in r0.
    pub const fn call_helper(id: i32) -> Insn {
        Insn::new(BPF_JMP | BPF_CALL, Reg(0), Reg(0), 0, id)
    }

    /// Call the local subprogram starting at `pc + 1 + rel_off` (bpf-to-bpf call).
    pub const fn call_local(rel_off: i32) -> Insn {
        Insn::new(BPF_JMP | BPF_CALL, Reg(0), Reg(BPF_PSEUDO_CALL), 0, rel_off)
    }

    /// Return r0.
    pub const fn exit() -> Insn {
        Insn::new(BPF_JMP | BPF_EXIT, Reg(0), Reg(0), 0, 0)
    }
}

/// Atomics exist only for W and DW; narrower sizes are widened to W so the
/// constructor stays infallible (the verifier would reject B/H anyway).
const fn op_size_guard(size: Size) -> Size {
    match size {
        Size::B | Size::H => Size::W,
        s => s,
    }
}

/// Encode a whole program for `BPF_PROG_LOAD`.
pub fn encode_all(insns: &[Insn]) -> Vec<u8> {
    let mut out = Vec::with_capacity(insns.len() * 8);
    for i in insns {
        out.extend_from_slice(&i.encode());
    }
    out
}

/// Instruction indexes where subprograms start, ascending: 0, plus the target of
/// every bpf-to-bpf call and every `ld_func` (callback) address. This is how the
/// kernel splits a program into functions; the loader needs it to describe them.
pub fn subprog_starts(insns: &[Insn]) -> Vec<u32> {
    let mut starts = vec![0i64];
    for (pc, i) in insns.iter().enumerate() {
        let call = i.code == BPF_JMP | BPF_CALL && i.src == BPF_PSEUDO_CALL;
        let func = i.is_ld_imm64() && i.src == BPF_PSEUDO_FUNC;
        if call || func {
            starts.push(pc as i64 + 1 + i.imm as i64);
        }
    }
    let mut out: Vec<u32> = starts
        .into_iter()
        .filter(|t| *t >= 0 && (*t as usize) < insns.len().max(1))
        .map(|t| t as u32)
        .collect();
    out.sort_unstable();
    out.dedup();
    out
}

/// True if the program takes the address of a subprogram (`ld_func`), which the
/// kernel only accepts with BTF function information.
pub fn uses_callbacks(insns: &[Insn]) -> bool {
    insns
        .iter()
        .any(|i| i.is_ld_imm64() && i.src == BPF_PSEUDO_FUNC)
}

/// Decode a byte image (length a multiple of 8; a trailing partial slot is ignored).
pub fn decode_all(bytes: &[u8]) -> Vec<Insn> {
    bytes
        .chunks_exact(8)
        .map(|c| {
            let mut b = [0u8; 8];
            b.copy_from_slice(c);
            Insn::decode(b)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hex(i: Insn) -> String {
        i.encode().iter().map(|b| format!("{b:02x}")).collect()
    }

    #[test]
    fn encodings_match_the_isa() {
        // Reference encodings computed by hand from the ISA document.
        assert_eq!(hex(Insn::mov64_imm(Reg::R0, 0)), "b700000000000000");
        assert_eq!(hex(Insn::mov64_reg(Reg::R1, Reg::FP)), "bfa1000000000000");
        assert_eq!(
            hex(Insn::alu64_imm(AluOp::Add, Reg::R1, -8)),
            "07010000f8ffffff"
        );
        assert_eq!(
            hex(Insn::alu32_reg(AluOp::Xor, Reg::R2, Reg::R3)),
            "ac32000000000000"
        );
        assert_eq!(hex(Insn::neg64(Reg::R4)), "8704000000000000");
        assert_eq!(
            hex(Insn::ldx_mem(Size::DW, Reg::R1, Reg::FP, -8)),
            "79a1f8ff00000000"
        );
        assert_eq!(
            hex(Insn::stx_mem(Size::W, Reg::FP, Reg::R1, -4)),
            "631afcff00000000"
        );
        assert_eq!(
            hex(Insn::st_mem(Size::B, Reg::FP, -1, 7)),
            "720affff07000000"
        );
        assert_eq!(
            hex(Insn::atomic_add(Size::DW, Reg::R0, Reg::R1, 0)),
            "db10000000000000"
        );
        assert_eq!(
            hex(Insn::jmp_imm(JmpOp::Eq, Reg::R0, 0, 2)),
            "1500020000000000"
        );
        assert_eq!(
            hex(Insn::jmp32_reg(JmpOp::Slt, Reg::R1, Reg::R2, -3)),
            "ce21fdff00000000"
        );
        assert_eq!(hex(Insn::ja(5)), "0500050000000000");
        assert_eq!(hex(Insn::call_helper(1)), "8500000001000000");
        assert_eq!(hex(Insn::call_local(4)), "8510000004000000");
        assert_eq!(hex(Insn::exit()), "9500000000000000");
        assert_eq!(hex(Insn::to_be(Reg::R1, 32)), "dc01000020000000");
        assert_eq!(hex(Insn::bswap(Reg::R1, 16)), "d701000010000000");
    }

    #[test]
    fn gotol_carries_its_offset_in_imm() {
        // BPF_JMP32 | BPF_JA, off 0, imm 40000 (0x9c40) little-endian.
        assert_eq!(hex(Insn::gotol(40000)), "06000000409c0000");
        assert_eq!(hex(Insn::gotol(-1)), "06000000ffffffff");
        let g = Insn::gotol(7);
        assert!(g.is_gotol() && g.is_jump() && !g.is_cond_jump());
        assert!(!Insn::ja(7).is_gotol());
        assert!(crate::disassemble(&[g]).trim().ends_with("  gotol pc+7"));
    }

    #[test]
    fn jump_ops_read_back_and_swap() {
        let j = Insn::jmp32_reg(JmpOp::Sge, Reg::R3, Reg::R4, 9);
        assert_eq!(j.jmp_op(), Some(JmpOp::Sge));
        assert_eq!(
            j.with_jmp_op(JmpOp::Slt),
            Insn::jmp32_reg(JmpOp::Slt, Reg::R3, Reg::R4, 9)
        );
        assert_eq!(Insn::ja(3).jmp_op(), None);
        assert_eq!(Insn::exit().jmp_op(), None);
    }

    #[test]
    fn ld_imm64_splits_halves() {
        let [a, b] = Insn::ld_imm64(Reg::R2, 0x1122_3344_5566_7788);
        assert_eq!(hex(a), "1802000088776655");
        assert_eq!(hex(b), "0000000044332211");
        let [m, n] = Insn::ld_map_fd(Reg::R1, 3);
        assert_eq!((m.src, m.imm, n.imm), (BPF_PSEUDO_MAP_FD, 3, 0));
        let [m, n] = Insn::ld_map_value(Reg::R1, 4, 16);
        assert_eq!((m.src, m.imm, n.imm), (BPF_PSEUDO_MAP_VALUE, 4, 16));
        let [m, _] = Insn::ld_map_idx(Reg::R1, 2);
        assert_eq!((m.src, m.imm), (BPF_PSEUDO_MAP_IDX, 2));
        assert!(m.is_ld_imm64());
    }

    #[test]
    fn round_trip() {
        let prog = [
            Insn::mov64_imm(Reg::R1, -1),
            Insn::jmp_reg(JmpOp::Sge, Reg::R1, Reg::R9, -32768),
            Insn::exit(),
        ];
        assert_eq!(decode_all(&encode_all(&prog)), prog.to_vec());
    }

    #[test]
    fn finds_subprograms() {
        let mut p = vec![Insn::call_local(3)];
        p.extend(Insn::ld_func(Reg::R2, 4)); // at 1: target 6
        p.extend([
            Insn::exit(),
            Insn::exit(),
            Insn::call_local(-6),
            Insn::exit(),
        ]);
        assert_eq!(subprog_starts(&p), vec![0, 4, 6]);
        assert!(uses_callbacks(&p));
        assert!(!uses_callbacks(&p[..1]));
        assert_eq!(subprog_starts(&[Insn::call_local(-9)]), vec![0]);
    }

    #[test]
    fn negated_jumps() {
        assert_eq!(JmpOp::Lt.negate(), Some(JmpOp::Ge));
        assert_eq!(JmpOp::Set.negate(), None);
        assert_eq!(Size::from_bytes(8), Some(Size::DW));
        assert_eq!(Size::from_bytes(3), None);
    }
}
