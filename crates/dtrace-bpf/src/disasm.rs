//! The disassembler behind `dtrace -S`.
//!
//! One line per instruction slot: index and byte offset (`INS OFF`, as
//! dtrace(1)'s listings, `0004 00032:`), the 8 raw bytes in hex, then a mnemonic in
//! the style of the kernel verifier log (`r1 = *(u64 *)(r10 -8)`,
//! `call bpf_map_lookup_elem#1`, `if r1 s< w2 goto pc+3`). The second slot of an
//! `ld_imm64` is shown with its bytes only. Immediates are printed in decimal,
//! except 64-bit constants (hex). Disassembly never fails: unknown opcodes print
//! as `invalid`.

use crate::helper::helper_name;
use crate::insn::Insn;
use crate::opcode::*;
use std::fmt::Write as _;

/// A map reference inside an `ld_imm64`, for naming maps in the output.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MapRef {
    /// `BPF_PSEUDO_MAP_FD` / `BPF_PSEUDO_MAP_VALUE`: the immediate is a map fd (or id).
    Fd(i32),
    /// `BPF_PSEUDO_MAP_IDX` / `BPF_PSEUDO_MAP_IDX_VALUE`: an `fd_array` index.
    Index(i32),
}

/// Disassemble a program, maps shown as `map[id:N]` / `map[idx:N]`.
pub fn disassemble(insns: &[Insn]) -> String {
    disassemble_with(insns, &|_| None)
}

/// Disassemble a program; `map_name` may give a map a name, shown as `map[NAME]`.
pub fn disassemble_with(insns: &[Insn], map_name: &dyn Fn(MapRef) -> Option<String>) -> String {
    let mut out = String::new();
    let mut i = 0;
    while i < insns.len() {
        let insn = &insns[i];
        let next = insns.get(i + 1);
        let _ = writeln!(
            out,
            "{}: {}  {}",
            position(i),
            hex_bytes(insn),
            mnemonic_with(insn, next, map_name)
        );
        if insn.is_ld_imm64() {
            if let Some(n) = next {
                let _ = writeln!(out, "{}: {}", position(i + 1), hex_bytes(n));
            }
            i += 2;
        } else {
            i += 1;
        }
    }
    out
}

/// A slot's index and byte offset: `0004 00032`.
fn position(i: usize) -> String {
    format!("{i:04} {:05}", i * 8)
}

/// The slot index a listing line starts with (`0004 00032: ...` gives 4).
pub fn line_index(line: &str) -> Option<usize> {
    let (pos, _) = line.split_once(':')?;
    let mut w = pos.split(' ');
    let (i, off) = (w.next()?, w.next()?);
    let i: usize = i.parse().ok()?;
    (w.next().is_none() && off.parse::<usize>().ok()? == i * 8).then_some(i)
}

fn hex_bytes(insn: &Insn) -> String {
    let b = insn.encode();
    let mut s = String::with_capacity(23);
    for (k, byte) in b.iter().enumerate() {
        if k > 0 {
            s.push(' ');
        }
        let _ = write!(s, "{byte:02x}");
    }
    s
}

/// The mnemonic of one instruction. `next` is the following slot (needed for `ld_imm64`).
pub fn mnemonic(insn: &Insn, next: Option<&Insn>) -> String {
    mnemonic_with(insn, next, &|_| None)
}

fn mnemonic_with(
    insn: &Insn,
    next: Option<&Insn>,
    map_name: &dyn Fn(MapRef) -> Option<String>,
) -> String {
    match class(insn.code) {
        BPF_ALU | BPF_ALU64 => alu(insn),
        BPF_LDX => ldx(insn),
        BPF_ST | BPF_STX => store(insn),
        BPF_LD => ld(insn, next, map_name),
        BPF_JMP | BPF_JMP32 => jmp(insn),
        _ => invalid(insn),
    }
}

fn invalid(insn: &Insn) -> String {
    format!("({:02x}) invalid", insn.code)
}

fn alu_sym(op: u8) -> Option<&'static str> {
    Some(match op {
        BPF_ADD => "+=",
        BPF_SUB => "-=",
        BPF_MUL => "*=",
        BPF_DIV => "/=",
        BPF_OR => "|=",
        BPF_AND => "&=",
        BPF_LSH => "<<=",
        BPF_RSH => ">>=",
        BPF_MOD => "%=",
        BPF_XOR => "^=",
        BPF_MOV => "=",
        BPF_ARSH => "s>>=",
        _ => return None,
    })
}

fn alu(insn: &Insn) -> String {
    let wide = class(insn.code) == BPF_ALU64;
    let r = if wide { 'r' } else { 'w' };
    let op = insn.code & OP_MASK;
    let dst = insn.dst;
    let src_is_reg = insn.code & SRC_MASK == BPF_X;
    match op {
        BPF_NEG => format!("{r}{dst} = -{r}{dst}"),
        BPF_END => {
            let kind = if wide {
                "bswap"
            } else if src_is_reg {
                "be"
            } else {
                "le"
            };
            format!("r{dst} = {kind}{} r{dst}", insn.imm)
        }
        BPF_MOV if src_is_reg && insn.off != 0 => {
            format!("{r}{dst} = (s{}){r}{}", insn.off, insn.src)
        }
        _ => {
            let Some(sym) = alu_sym(op) else {
                return invalid(insn);
            };
            let signed = insn.off == 1 && (op == BPF_DIV || op == BPF_MOD);
            let s = if signed { "s" } else { "" };
            if src_is_reg {
                format!("{r}{dst} {s}{sym} {r}{}", insn.src)
            } else {
                format!("{r}{dst} {s}{sym} {}", insn.imm)
            }
        }
    }
}

fn size_name(code: u8, signed: bool) -> &'static str {
    match (code & SIZE_MASK, signed) {
        (BPF_B, false) => "u8",
        (BPF_H, false) => "u16",
        (BPF_W, false) => "u32",
        (BPF_B, true) => "s8",
        (BPF_H, true) => "s16",
        (BPF_W, true) => "s32",
        (_, true) => "s64",
        _ => "u64",
    }
}

fn mem(code: u8, signed: bool, reg: u8, off: i16) -> String {
    format!("*({} *)(r{reg} {off:+})", size_name(code, signed))
}

fn ldx(insn: &Insn) -> String {
    match insn.code & MODE_MASK {
        BPF_MEM | BPF_MEMSX => {
            let signed = insn.code & MODE_MASK == BPF_MEMSX;
            format!(
                "r{} = {}",
                insn.dst,
                mem(insn.code, signed, insn.src, insn.off)
            )
        }
        _ => invalid(insn),
    }
}

fn store(insn: &Insn) -> String {
    let stx = class(insn.code) == BPF_STX;
    match insn.code & MODE_MASK {
        BPF_MEM if stx => format!(
            "{} = r{}",
            mem(insn.code, false, insn.dst, insn.off),
            insn.src
        ),
        BPF_MEM => format!(
            "{} = {}",
            mem(insn.code, false, insn.dst, insn.off),
            insn.imm
        ),
        BPF_ATOMIC if stx => atomic(insn),
        _ => invalid(insn),
    }
}

fn atomic(insn: &Insn) -> String {
    let m = mem(insn.code, false, insn.dst, insn.off);
    let sz = if insn.code & SIZE_MASK == BPF_DW {
        "64"
    } else {
        ""
    };
    let (dst, src) = (insn.dst, insn.src);
    let ptr = format!(
        "(u{} *)(r{dst} {:+})",
        if sz.is_empty() { 32 } else { 64 },
        insn.off
    );
    let opname = |op: i32| match op {
        BPF_ATOMIC_ADD => Some(("+=", "add")),
        BPF_ATOMIC_OR => Some(("|=", "or")),
        BPF_ATOMIC_AND => Some(("&=", "and")),
        BPF_ATOMIC_XOR => Some(("^=", "xor")),
        _ => None,
    };
    match insn.imm {
        BPF_XCHG => format!("r{src} = atomic{sz}_xchg({ptr}, r{src})"),
        BPF_CMPXCHG => format!("r0 = atomic{sz}_cmpxchg({ptr}, r0, r{src})"),
        imm if imm & BPF_FETCH != 0 => match opname(imm & !BPF_FETCH) {
            Some((_, name)) => format!("r{src} = atomic{sz}_fetch_{name}({ptr}, r{src})"),
            None => invalid(insn),
        },
        imm => match opname(imm) {
            Some((sym, _)) => format!("lock {m} {sym} r{src}"),
            None => invalid(insn),
        },
    }
}

fn ld(insn: &Insn, next: Option<&Insn>, map_name: &dyn Fn(MapRef) -> Option<String>) -> String {
    if !insn.is_ld_imm64() {
        return invalid(insn);
    }
    let hi = next.map(|n| n.imm).unwrap_or(0);
    let dst = insn.dst;
    let name = |r: MapRef| {
        map_name(r).unwrap_or_else(|| match r {
            MapRef::Fd(v) => format!("id:{v}"),
            MapRef::Index(v) => format!("idx:{v}"),
        })
    };
    match insn.src {
        0 => {
            let v = (insn.imm as u32 as u64) | ((hi as u32 as u64) << 32);
            format!("r{dst} = {v:#x} ll")
        }
        BPF_PSEUDO_MAP_FD => format!("r{dst} = map[{}]", name(MapRef::Fd(insn.imm))),
        BPF_PSEUDO_MAP_IDX => format!("r{dst} = map[{}]", name(MapRef::Index(insn.imm))),
        BPF_PSEUDO_MAP_VALUE => {
            format!("r{dst} = map[{}][0]+{hi}", name(MapRef::Fd(insn.imm)))
        }
        BPF_PSEUDO_MAP_IDX_VALUE => {
            format!("r{dst} = map[{}][0]+{hi}", name(MapRef::Index(insn.imm)))
        }
        BPF_PSEUDO_BTF_ID => format!("r{dst} = btf_id:{}", insn.imm),
        BPF_PSEUDO_FUNC => format!("r{dst} = func pc{:+}", insn.imm),
        _ => invalid(insn),
    }
}

fn jmp_sym(op: u8) -> Option<&'static str> {
    Some(match op {
        BPF_JEQ => "==",
        BPF_JGT => ">",
        BPF_JGE => ">=",
        BPF_JSET => "&",
        BPF_JNE => "!=",
        BPF_JSGT => "s>",
        BPF_JSGE => "s>=",
        BPF_JLT => "<",
        BPF_JLE => "<=",
        BPF_JSLT => "s<",
        BPF_JSLE => "s<=",
        _ => return None,
    })
}

fn jmp(insn: &Insn) -> String {
    let wide = class(insn.code) == BPF_JMP;
    let op = insn.code & OP_MASK;
    match op {
        BPF_JA if wide => format!("goto pc{:+}", insn.off),
        BPF_JA => format!("gotol pc{:+}", insn.imm),
        BPF_EXIT if wide => "exit".to_string(),
        BPF_CALL if wide => match insn.src {
            BPF_PSEUDO_CALL => format!("call pc{:+}", insn.imm),
            BPF_PSEUDO_KFUNC_CALL => format!("call kernel-function#{}", insn.imm),
            _ => match helper_name(insn.imm) {
                Some(n) => format!("call bpf_{n}#{}", insn.imm),
                None => format!("call unknown#{}", insn.imm),
            },
        },
        _ => {
            let Some(sym) = jmp_sym(op) else {
                return invalid(insn);
            };
            let r = if wide { 'r' } else { 'w' };
            let rhs = if insn.code & SRC_MASK == BPF_X {
                format!("{r}{}", insn.src)
            } else {
                insn.imm.to_string()
            };
            format!("if {r}{} {sym} {rhs} goto pc{:+}", insn.dst, insn.off)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::helper;
    use crate::insn::{AluOp, AtomicOp, JmpOp, Reg, Size};

    fn m(i: Insn) -> String {
        mnemonic(&i, None)
    }

    #[test]
    fn alu_mnemonics() {
        assert_eq!(m(Insn::mov64_imm(Reg::R1, 0)), "r1 = 0");
        assert_eq!(m(Insn::mov64_reg(Reg::R6, Reg::R1)), "r6 = r1");
        assert_eq!(m(Insn::mov32_imm(Reg::R2, -1)), "w2 = -1");
        assert_eq!(m(Insn::alu64_imm(AluOp::Add, Reg::R2, -8)), "r2 += -8");
        assert_eq!(
            m(Insn::alu64_reg(AluOp::Arsh, Reg::R2, Reg::R3)),
            "r2 s>>= r3"
        );
        assert_eq!(m(Insn::alu32_reg(AluOp::Mod, Reg::R2, Reg::R3)), "w2 %= w3");
        assert_eq!(m(Insn::sdivmod64_reg(false, Reg::R2, Reg::R3)), "r2 s/= r3");
        assert_eq!(m(Insn::sdivmod64_reg(true, Reg::R2, Reg::R3)), "r2 s%= r3");
        assert_eq!(m(Insn::movsx64_reg(Reg::R1, Reg::R2, 8)), "r1 = (s8)r2");
        assert_eq!(m(Insn::neg64(Reg::R4)), "r4 = -r4");
        assert_eq!(m(Insn::neg32(Reg::R4)), "w4 = -w4");
        assert_eq!(m(Insn::to_be(Reg::R1, 16)), "r1 = be16 r1");
        assert_eq!(m(Insn::to_le(Reg::R1, 64)), "r1 = le64 r1");
        assert_eq!(m(Insn::bswap(Reg::R1, 32)), "r1 = bswap32 r1");
    }

    #[test]
    fn memory_mnemonics() {
        assert_eq!(
            m(Insn::ldx_mem(Size::DW, Reg::R1, Reg::FP, -8)),
            "r1 = *(u64 *)(r10 -8)"
        );
        assert_eq!(
            m(Insn::ldx_memsx(Size::W, Reg::R1, Reg::R2, 4)),
            "r1 = *(s32 *)(r2 +4)"
        );
        assert_eq!(
            m(Insn::stx_mem(Size::B, Reg::FP, Reg::R3, -1)),
            "*(u8 *)(r10 -1) = r3"
        );
        assert_eq!(
            m(Insn::st_mem(Size::H, Reg::R1, 0, 9)),
            "*(u16 *)(r1 +0) = 9"
        );
        assert_eq!(
            m(Insn::atomic_add(Size::DW, Reg::R0, Reg::R1, 8)),
            "lock *(u64 *)(r0 +8) += r1"
        );
        assert_eq!(
            m(Insn::atomic(
                Size::W,
                AtomicOp::FetchOr,
                Reg::R0,
                Reg::R1,
                0
            )),
            "r1 = atomic_fetch_or((u32 *)(r0 +0), r1)"
        );
        assert_eq!(
            m(Insn::atomic(
                Size::DW,
                AtomicOp::Cmpxchg,
                Reg::R3,
                Reg::R1,
                0
            )),
            "r0 = atomic64_cmpxchg((u64 *)(r3 +0), r0, r1)"
        );
        assert_eq!(
            m(Insn::atomic(Size::DW, AtomicOp::Xchg, Reg::R3, Reg::R1, 0)),
            "r1 = atomic64_xchg((u64 *)(r3 +0), r1)"
        );
    }

    #[test]
    fn jump_mnemonics() {
        assert_eq!(
            m(Insn::jmp_imm(JmpOp::Eq, Reg::R0, 0, 3)),
            "if r0 == 0 goto pc+3"
        );
        assert_eq!(
            m(Insn::jmp_reg(JmpOp::Sle, Reg::R1, Reg::R2, -4)),
            "if r1 s<= r2 goto pc-4"
        );
        assert_eq!(
            m(Insn::jmp32_imm(JmpOp::Set, Reg::R1, 4, 1)),
            "if w1 & 4 goto pc+1"
        );
        assert_eq!(m(Insn::ja(-1)), "goto pc-1");
        assert_eq!(
            m(Insn::call_helper(helper::MAP_LOOKUP_ELEM)),
            "call bpf_map_lookup_elem#1"
        );
        assert_eq!(m(Insn::call_helper(9999)), "call unknown#9999");
        assert_eq!(m(Insn::call_local(7)), "call pc+7");
        assert_eq!(m(Insn::exit()), "exit");
        assert_eq!(
            m(Insn {
                code: 0xff,
                ..Insn::default()
            }),
            "(ff) invalid"
        );
    }

    #[test]
    fn golden_program() {
        let mut p = vec![
            Insn::mov64_reg(Reg::R6, Reg::R1),
            Insn::st_mem(Size::W, Reg::FP, -4, 0),
            Insn::mov64_reg(Reg::R2, Reg::FP),
            Insn::alu64_imm(AluOp::Add, Reg::R2, -4),
        ];
        p.extend(Insn::ld_map_fd(Reg::R1, 3));
        p.push(Insn::call_helper(helper::MAP_LOOKUP_ELEM));
        p.push(Insn::jmp_imm(JmpOp::Eq, Reg::R0, 0, 2));
        p.push(Insn::mov64_imm(Reg::R1, 1));
        p.push(Insn::atomic_add(Size::DW, Reg::R0, Reg::R1, 0));
        p.extend(Insn::ld_imm64(Reg::R3, 0xdead_beef_0000_0001));
        p.extend(Insn::ld_map_idx_value(Reg::R4, 1, 16));
        p.push(Insn::mov64_imm(Reg::R0, 0));
        p.push(Insn::exit());
        let want = "0000 00000: bf 16 00 00 00 00 00 00  r6 = r1
0001 00008: 62 0a fc ff 00 00 00 00  *(u32 *)(r10 -4) = 0
0002 00016: bf a2 00 00 00 00 00 00  r2 = r10
0003 00024: 07 02 00 00 fc ff ff ff  r2 += -4
0004 00032: 18 11 00 00 03 00 00 00  r1 = map[id:3]
0005 00040: 00 00 00 00 00 00 00 00
0006 00048: 85 00 00 00 01 00 00 00  call bpf_map_lookup_elem#1
0007 00056: 15 00 02 00 00 00 00 00  if r0 == 0 goto pc+2
0008 00064: b7 01 00 00 01 00 00 00  r1 = 1
0009 00072: db 10 00 00 00 00 00 00  lock *(u64 *)(r0 +0) += r1
0010 00080: 18 03 00 00 01 00 00 00  r3 = 0xdeadbeef00000001 ll
0011 00088: 00 00 00 00 ef be ad de
0012 00096: 18 64 00 00 01 00 00 00  r4 = map[idx:1][0]+16
0013 00104: 00 00 00 00 10 00 00 00
0014 00112: b7 00 00 00 00 00 00 00  r0 = 0
0015 00120: 95 00 00 00 00 00 00 00  exit
";
        assert_eq!(disassemble(&p), want);
        let named = disassemble_with(&p[4..6], &|r| match r {
            MapRef::Fd(3) => Some("aggs".to_string()),
            _ => None,
        });
        assert_eq!(
            named,
            "0000 00000: 18 11 00 00 03 00 00 00  r1 = map[aggs]\n0001 00008: 00 00 00 00 00 00 00 00\n"
        );
    }

    #[test]
    fn listing_lines_give_their_index() {
        assert_eq!(
            line_index("0012 00096: 95 00 00 00 00 00 00 00  exit"),
            Some(12)
        );
        assert_eq!(line_index("0013 00104: 00 00 00 00 10 00 00 00"), Some(13));
        // An offset that is not 8 times the index, and other lines, are not slots.
        assert_eq!(line_index("0012 00097: 95"), None);
        assert_eq!(line_index("Disassembly of clause :::BEGIN (epid 1):"), None);
        assert_eq!(line_index("NAME             ID"), None);
    }
}
