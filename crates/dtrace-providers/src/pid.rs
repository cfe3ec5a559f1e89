//! The `pid` provider: `pid<PID>:<module>:<function>:entry|return|<offset>`
//! over every ELF object the process maps. Probes are made when a description
//! names the process (they are not listed otherwise), from the objects'
//! function symbols; offsets are instruction boundaries, found by decoding the
//! function. Errors carry libdtrace's `D_PROC_*` tags and wording.

use crate::elf::{Elf, Symbol};
use crate::pdesc::glob;
use crate::procmap::{self, ElfCache, Object, UprobeSite};
use crate::{ProbeTemplate, ProcError, ProcErrorKind, ProcProbe};
use dtrace_codegen::uprobe_regs as regs;
use dtrace_sema::{ArgDesc, FieldKind, ProbeKind, RecordField};
use iced_x86::{Decoder, DecoderOptions, Mnemonic, OpKind, Register};

/// Does `s` contain glob characters?
pub fn is_glob(s: &str) -> bool {
    s.contains(['*', '?', '['])
}

fn gmatch(pat: &str, s: &str) -> bool {
    glob(pat.as_bytes(), s.as_bytes())
}

fn reg(offset: u16) -> RecordField {
    RecordField {
        offset,
        size: 8,
        signed: false,
        kind: FieldKind::UserReg,
    }
}

/// Function arguments at entry (x86_64 SysV): six registers, then the stack
/// above the return address.
pub fn entry_args() -> Vec<RecordField> {
    let mut f: Vec<RecordField> = [regs::DI, regs::SI, regs::DX, regs::CX, regs::R8, regs::R9]
        .into_iter()
        .map(reg)
        .collect();
    for i in 1..=4 {
        f.push(RecordField {
            offset: regs::SP,
            size: 8,
            signed: false,
            kind: FieldKind::UserMem { disp: 8 * i },
        });
    }
    f
}

/// At return: arg0 the offset of the return instruction (filled in by the
/// trampoline from the return site's marker: see `UprobeSite::returns`),
/// arg1 the return value.
pub fn return_args() -> Vec<RecordField> {
    vec![
        RecordField {
            offset: 0,
            size: 8,
            signed: false,
            kind: FieldKind::Const(0),
        },
        reg(regs::AX),
    ]
}

fn err(kind: ProcErrorKind, message: String) -> ProcError {
    ProcError { kind, message }
}

/// The offsets of the instructions of `code` (a function at `ip`) that a
/// uprobe may be placed on. Decoding stops at the first invalid instruction.
pub fn instruction_offsets(code: &[u8], ip: u64) -> Vec<(u64, bool)> {
    instructions(code, ip)
        .map(|insn| (insn.ip() - ip, probeable(&insn)))
        .collect()
}

/// The instructions of `code` (a function at `ip`), up to the first invalid one.
fn instructions(code: &[u8], ip: u64) -> impl Iterator<Item = iced_x86::Instruction> + '_ {
    let mut d = Decoder::with_ip(64, code, ip, DecoderOptions::NONE);
    std::iter::from_fn(move || {
        if !d.can_decode() {
            return None;
        }
        let insn = d.decode();
        (!insn.is_invalid()).then_some(insn)
    })
}

/// The offsets in `code` (a function at `ip`) where it returns: its `ret`
/// instructions, and the direct jumps that leave it (tail calls, which DTrace
/// counts as returns). Decoding stops at the first invalid instruction.
pub fn return_offsets(code: &[u8], ip: u64) -> Vec<u64> {
    let end = ip + code.len() as u64;
    let mut out = Vec::new();
    for insn in instructions(code, ip) {
        let leaves = match insn.mnemonic() {
            Mnemonic::Ret => true,
            Mnemonic::Jmp if insn.op0_kind() == OpKind::NearBranch64 => {
                let target = insn.near_branch_target();
                target < ip || target >= end
            }
            _ => false,
        };
        if leaves && probeable(&insn) {
            out.push(insn.ip() - ip);
        }
    }
    out
}

/// What the kernel's uprobe instruction check rejects (lock and ES/CS/DS/SS
/// prefixes, moves to SS) and what cannot be traced usefully (`hlt`).
fn probeable(insn: &iced_x86::Instruction) -> bool {
    if insn.has_lock_prefix() {
        return false;
    }
    if matches!(
        insn.segment_prefix(),
        Register::ES | Register::CS | Register::DS | Register::SS
    ) {
        return false;
    }
    if insn.mnemonic() == Mnemonic::Hlt || insn.mnemonic() == Mnemonic::Int3 {
        return false;
    }
    !(matches!(insn.mnemonic(), Mnemonic::Mov | Mnemonic::Pop)
        && insn.op0_register() == Register::SS)
}

struct Ctx<'a> {
    pid: u32,
    provider: String,
    module_pat: &'a str,
    name_pat: &'a str,
    out: Vec<ProcProbe>,
}

impl Ctx<'_> {
    fn push(&mut self, o: &Object, func: &str, name: String, offset: u64, ret: bool) {
        self.push_returns(o, func, name, offset, ret, Vec::new());
    }

    fn push_returns(
        &mut self,
        o: &Object,
        func: &str,
        name: String,
        offset: u64,
        ret: bool,
        returns: Vec<u64>,
    ) {
        let fields = if ret { return_args() } else { entry_args() };
        self.out.push(ProcProbe {
            provider: self.provider.clone(),
            template: ProbeTemplate {
                module: o.name.as_str().into(),
                function: func.into(),
                name: name.into(),
                kind: ProbeKind::Uprobe { ret },
                args: ArgDesc::natives(&vec!["uint64_t"; fields.len()]),
                fields,
            },
            site: UprobeSite {
                path: o.path.clone(),
                offset,
                ref_ctr_offset: 0,
                pid: self.pid,
                ret,
                returns,
            },
        });
    }

    /// The probes of one function (DTrace's per-symbol step).
    fn per_sym(&mut self, o: &Object, elf: &Elf, sym: &Symbol) -> Result<(), ProcError> {
        let Some(base) = elf.file_offset(sym.value) else {
            return Ok(());
        };
        let code = elf.bytes_at(sym.value, sym.size).unwrap_or(&[]);
        let insns = instruction_offsets(code, sym.value);
        let entry_ok = insns.first().is_some_and(|(off, ok)| *off == 0 && *ok);
        let name = self.name_pat;
        if gmatch(name, "return") && entry_ok {
            let returns = return_offsets(code, sym.value);
            self.push_returns(o, &sym.name, "return".into(), base, true, returns);
        }
        if gmatch(name, "entry") && entry_ok {
            self.push(o, &sym.name, "entry".into(), base, false);
        }
        if is_glob(name) {
            for (off, ok) in insns {
                if ok && gmatch(name, &format!("{off:x}")) {
                    self.push(o, &sym.name, format!("{off:x}"), base + off, false);
                }
            }
            return Ok(());
        }
        if name == "entry" || name == "return" {
            return Ok(());
        }
        let Ok(off) = u64::from_str_radix(name, 16) else {
            return Err(err(
                ProcErrorKind::Name,
                format!("'{name}' is an invalid probe name"),
            ));
        };
        if off >= sym.size {
            return Err(err(
                ProcErrorKind::Off,
                format!("offset 0x{off:x} outside of function '{}'", sym.name),
            ));
        }
        if !insns.iter().any(|(o, ok)| *o == off && *ok) {
            return Err(err(
                ProcErrorKind::Align,
                format!("offset 0x{off:x} is not aligned on an instruction"),
            ));
        }
        self.push(o, &sym.name, format!("{off:x}"), base + off, false);
        Ok(())
    }

    /// The probes of one object (DTrace's per-module step).
    fn per_mod(&mut self, o: &Object, elf: &Elf, func: &str) -> Result<(), ProcError> {
        let syms = elf.functions();
        if !is_glob(func) {
            let Some(sym) = syms.iter().find(|s| s.name == func) else {
                if !is_glob(self.module_pat) {
                    return Err(err(
                        ProcErrorKind::Func,
                        format!("failed to lookup '{func}' in module '{}'", self.module_pat),
                    ));
                }
                return Ok(());
            };
            if elf.writable(sym.value) {
                return Ok(());
            }
            // The probe is named by the function's preferred name, as a
            // lookup by address names it (`_go`, a weak alias, is `go`).
            let sym = syms
                .iter()
                .filter(|s| (s.value, s.size) == (sym.value, sym.size))
                .filter(|s| !s.name.contains(['@', '.']))
                .min_by(|a, b| a.preference().cmp(&b.preference()))
                .unwrap_or(sym);
            return self.per_sym(o, elf, sym);
        }
        // Aliases (same address and size) make one function, named by its
        // plainest matching name (`malloc` rather than `__libc_malloc`).
        let mut i = 0;
        while i < syms.len() {
            let key = (syms[i].value, syms[i].size);
            let end = syms[i..]
                .iter()
                .position(|s| (s.value, s.size) != key)
                .map_or(syms.len(), |n| i + n);
            let best = syms[i..end]
                .iter()
                .filter(|s| !s.name.contains(['@', '.']) && gmatch(func, &s.name))
                .min_by(|a, b| a.preference().cmp(&b.preference()));
            i = end;
            if let Some(sym) = best {
                if !elf.writable(sym.value) {
                    self.per_sym(o, elf, sym)?;
                }
            }
        }
        Ok(())
    }

    /// `-`: the probe name is an address in the executable.
    fn absolute(&mut self, objects: &[Object], cache: &mut ElfCache) -> Result<(), ProcError> {
        let name = self.name_pat;
        let aout = matches!(self.module_pat, "" | "*" | "a.out")
            || objects
                .iter()
                .any(|o| o.is_exe && procmap::names_object(self.module_pat, o));
        if !aout {
            return Err(err(
                ProcErrorKind::Lib,
                "only the a.out module is valid with the '-' function".into(),
            ));
        }
        if is_glob(name) {
            return Err(err(
                ProcErrorKind::Name,
                "only individual addresses may be specified with the '-' function".into(),
            ));
        }
        let Ok(addr) = u64::from_str_radix(name, 16) else {
            return Err(err(
                ProcErrorKind::Name,
                format!("'{name}' is an invalid probe name"),
            ));
        };
        let Some(o) = objects.iter().find(|o| o.is_exe) else {
            return Ok(());
        };
        let found = cache.get(&o.path).and_then(|elf| {
            let sym = elf
                .functions()
                .into_iter()
                .find(|s| addr >= s.value && addr - s.value < s.size)?;
            Some((sym.name, elf.file_offset(addr)?))
        });
        let Some((func, offset)) = found else {
            return Err(err(
                ProcErrorKind::Name,
                format!("failed to lookup 0x{addr:x} in module '{}'", o.name),
            ));
        };
        let _ = func;
        self.push(o, "-", name.to_string(), offset, false);
        Ok(())
    }
}

/// The probes `pid<pid>:module:function:name` names (empty fields: `*`).
pub fn probes(
    pid: u32,
    module: &str,
    function: &str,
    name: &str,
) -> Result<Vec<ProcProbe>, ProcError> {
    let objects = procmap::objects(pid)
        .map_err(|_| err(ProcErrorKind::Grab, format!("failed to grab process {pid}")))?;
    let module_pat = if module.is_empty() { "*" } else { module };
    let func = if function.is_empty() { "*" } else { function };
    let mut cx = Ctx {
        pid,
        provider: format!("pid{pid}"),
        module_pat,
        name_pat: if name.is_empty() { "*" } else { name },
        out: Vec::new(),
    };
    let mut cache = ElfCache::default();
    if func == "-" {
        cx.absolute(&objects, &mut cache)?;
        return Ok(cx.out);
    }
    for o in &objects {
        let hit = if is_glob(module_pat) {
            gmatch(module_pat, &o.name)
        } else {
            procmap::names_object(module_pat, o)
        };
        if !hit {
            continue;
        }
        let Some(elf) = cache.get(&o.path) else {
            continue;
        };
        cx.per_mod(o, elf, func)?;
        if !is_glob(module_pat) {
            break;
        }
    }
    Ok(cx.out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn return_sites_are_rets_and_jumps_out() {
        // 0: cmp $1,%rdi; 4: jne +3 (inside); 6: ret; 7: jmp -0x107 (out);
        // c: jmp +0 (inside, to e); e: ret
        let code = [
            0x48, 0x83, 0xff, 0x01, 0x75, 0x03, 0xc3, 0xe9, 0xf4, 0xfe, 0xff, 0xff, 0xeb, 0x00,
            0xc3,
        ];
        assert_eq!(return_offsets(&code, 0x1000), [0x6, 0x7, 0xe]);
    }

    #[test]
    fn instruction_boundaries() {
        // push %rbp; mov %rsp,%rbp; lock incl (%rdi); hlt; ret
        let code = [0x55, 0x48, 0x89, 0xe5, 0xf0, 0xff, 0x07, 0xf4, 0xc3];
        assert_eq!(
            instruction_offsets(&code, 0x1000),
            vec![(0, true), (1, true), (4, false), (7, false), (8, true)]
        );
    }

    #[test]
    fn own_process_functions() {
        let me = std::process::id();
        let ps = probes(me, "a.out", "main", "entry").expect("main");
        assert_eq!(ps.len(), 1);
        assert_eq!(ps[0].template.name, "entry");
        assert_eq!(ps[0].provider, format!("pid{me}"));
        let e = probes(me, "a.out", "no_such_function_here", "entry").unwrap_err();
        assert_eq!(e.kind, ProcErrorKind::Func);
        assert_eq!(
            e.message,
            "failed to lookup 'no_such_function_here' in module 'a.out'"
        );
        let e = probes(me, "a.out", "main", "fffffff").unwrap_err();
        assert_eq!(e.kind, ProcErrorKind::Off);
        let e = probes(me, "a.out", "main", "zz").unwrap_err();
        assert_eq!(e.message, "'zz' is an invalid probe name");
        let e = probes(me, "libc", "-", "10").unwrap_err();
        assert_eq!(e.kind, ProcErrorKind::Lib);
        let e = probes(me, "", "-", "1*").unwrap_err();
        assert_eq!(e.kind, ProcErrorKind::Name);
        let offs = probes(me, "a.out", "main", "*").expect("offsets");
        assert!(offs.iter().any(|p| p.template.name == "0"));
        assert!(offs.iter().any(|p| p.template.name == "return"));
        assert!(probes(u32::MAX, "", "", "").is_err());
    }
}
