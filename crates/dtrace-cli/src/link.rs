//! `dtrace -G`: the object to link into a program whose probes come from a
//! `dtrace -h` header. The probes are stapsdt notes already emitted by the
//! compiler at each site, so there is nothing to rewrite in the input objects
//! and no DOF: the output is an ELF relocatable object that defines every
//! probe's semaphore (`provider_probe_semaphore`, 2 bytes in `.probes`,
//! hidden), so the probes' is-enabled tests have their counters in the
//! program. The input objects are checked to be ELF objects of one class:
//! the data model is `-32`/`-64`, or else that of the first object, and the
//! output object is of that class (i386 or x86-64).

use crate::args::{Args, SourceArg};
use crate::provider::semaphore;
use crate::run::Fail;

/// The `-x` options of a `-h` or `-G` run, each checked as any other run
/// checks it (a bad name or value is an error there too).
pub fn checked_options(args: &Args) -> Result<dtrace::Options, Fail> {
    let mut o = dtrace::Options::default();
    for s in &args.settings {
        o.set(&s.name, s.value.as_deref())
            .map_err(|e| Fail::error(format!("dtrace: failed to set {}: {}", s.origin, e.0)))?;
    }
    Ok(o)
}

/// Run `-G`: write the object.
pub fn run(args: &Args, objects: &[String]) -> Result<i32, Fail> {
    // The object holds no kernel or user relocations (`linkmode` changes
    // nothing), and it is ELF: probes are stapsdt notes, there is no DOF.
    if checked_options(args)?.linktype_dof {
        return Err(Fail::error(
            "dtrace: failed to link script: linktype=dof is not supported: \
             probes are stapsdt notes in the program's own ELF objects (use linktype=elf)",
        ));
    }
    if args.sources.is_empty() {
        return Err(Fail::usage(
            "dtrace: -G requires one or more scripts or enabling options",
        ));
    }
    let out = match &args.output {
        Some(o) => o.clone(),
        None => match args.sources.as_slice() {
            [SourceArg::Script(path)] if path.ends_with(".d") => {
                let base = path.rsplit('/').next().unwrap_or(path);
                format!("{}.o", &base[..base.len() - 2])
            }
            _ => "d.out".to_string(),
        },
    };
    let mut wide = args.data_model.map(|m| m == crate::args::DataModel::Lp64);
    for o in objects {
        let class = match elf_class(o) {
            Ok(c) => c,
            Err(e) => {
                return Err(Fail::error(format!(
                    "dtrace: failed to open {o}: {}",
                    dtrace_sys::proc::strerror(&e)
                )))
            }
        };
        let script = match args.sources.as_slice() {
            [SourceArg::Script(path), ..] => path.as_str(),
            _ => "",
        };
        let failed =
            |why: String| Fail::error(format!("dtrace: failed to link script {script}: {why}"));
        match (class, wide) {
            (None, _) => return Err(failed(format!("file {o} is not an ELF file"))),
            (Some(c), Some(w)) if c != w => {
                return Err(failed(format!("incorrect ELF class for object file: {o}")))
            }
            (Some(c), _) => wide = Some(c),
        }
    }
    let defs = crate::header::read_providers(args)?;
    let sems: Vec<String> = defs
        .iter()
        .flat_map(|p| p.probes.iter().map(move |q| semaphore(&p.name, &q.name)))
        .collect();
    std::fs::write(&out, object(&sems, wide.unwrap_or(true))).map_err(|e| {
        Fail::error(format!(
            "dtrace: failed to link script: failed to write {out}: {}",
            dtrace_sys::proc::strerror(&e)
        ))
    })?;
    Ok(0)
}

/// Whether file `path` is a 64-bit ELF object (None: not ELF).
fn elf_class(path: &str) -> std::io::Result<Option<bool>> {
    use std::io::Read;
    let mut head = [0u8; 5];
    let mut f = std::fs::File::open(path)?;
    if f.read(&mut head)? < 5 || head[..4] != [0x7f, b'E', b'L', b'F'] {
        return Ok(None);
    }
    Ok(match head[4] {
        1 => Some(false),
        2 => Some(true),
        _ => None,
    })
}

const SHT_PROGBITS: u32 = 1;
const SHT_SYMTAB: u32 = 2;
const SHT_STRTAB: u32 = 3;
const SHF_WRITE: u64 = 1;
const SHF_ALLOC: u64 = 2;
const STB_LOCAL: u8 = 0;
const STB_GLOBAL: u8 = 1;
const STT_OBJECT: u8 = 1;
const STT_SECTION: u8 = 3;
const STV_HIDDEN: u8 = 2;

/// An ELF relocatable object (x86-64 if `wide`, else i386) defining `sems`
/// as 2-byte zeroed objects in `.probes`.
pub fn object(sems: &[String], wide: bool) -> Vec<u8> {
    let e = Elf { wide };
    // Sections: 0 null, 1 .probes, 2 .note.GNU-stack, 3 .symtab, 4 .strtab, 5 .shstrtab.
    let mut shstr = vec![0u8];
    let name = |s: &str, tab: &mut Vec<u8>| -> u32 {
        let at = tab.len() as u32;
        tab.extend_from_slice(s.as_bytes());
        tab.push(0);
        at
    };
    let n_probes = name(".probes", &mut shstr);
    let n_stack = name(".note.GNU-stack", &mut shstr);
    let n_symtab = name(".symtab", &mut shstr);
    let n_strtab = name(".strtab", &mut shstr);
    let n_shstr = name(".shstrtab", &mut shstr);

    let mut strtab = vec![0u8];
    let mut syms = vec![0u8; e.sym_size()]; // the null symbol
                                            // The section symbol of .probes.
    syms.extend(e.sym(0, STB_LOCAL << 4 | STT_SECTION, 0, 1, 0, 0));
    for (i, s) in sems.iter().enumerate() {
        let n = name(s, &mut strtab);
        syms.extend(e.sym(
            n,
            STB_GLOBAL << 4 | STT_OBJECT,
            STV_HIDDEN,
            1,
            2 * i as u64,
            2,
        ));
    }
    let probes = vec![0u8; 2 * sems.len()];

    let ehsize = if wide { 64 } else { 52 };
    let mut f = vec![0u8; ehsize];
    let place = |f: &mut Vec<u8>, data: &[u8], align: usize| -> u64 {
        while f.len() % align != 0 {
            f.push(0);
        }
        let at = f.len() as u64;
        f.extend_from_slice(data);
        at
    };
    let o_probes = place(&mut f, &probes, 2);
    let o_syms = place(&mut f, &syms, 8);
    let o_str = place(&mut f, &strtab, 1);
    let o_shstr = place(&mut f, &shstr, 1);
    while f.len() % 8 != 0 {
        f.push(0);
    }
    let shoff = f.len() as u64;
    let mut sh = vec![0u8; e.shdr_size()];
    sh.extend(e.shdr(
        n_probes,
        SHT_PROGBITS,
        SHF_WRITE | SHF_ALLOC,
        o_probes,
        probes.len() as u64,
        0,
        0,
        2,
        0,
    ));
    sh.extend(e.shdr(n_stack, SHT_PROGBITS, 0, o_probes, 0, 0, 0, 1, 0));
    sh.extend(e.shdr(
        n_symtab,
        SHT_SYMTAB,
        0,
        o_syms,
        syms.len() as u64,
        4,
        2,
        8,
        e.sym_size() as u64,
    ));
    sh.extend(e.shdr(
        n_strtab,
        SHT_STRTAB,
        0,
        o_str,
        strtab.len() as u64,
        0,
        0,
        1,
        0,
    ));
    sh.extend(e.shdr(
        n_shstr,
        SHT_STRTAB,
        0,
        o_shstr,
        shstr.len() as u64,
        0,
        0,
        1,
        0,
    ));
    f.extend(sh);

    // The ELF header.
    let word = |h: &mut Vec<u8>, v: u64| e.word(h, v);
    let mut h = Vec::with_capacity(ehsize);
    h.extend_from_slice(&[0x7f, b'E', b'L', b'F', if wide { 2 } else { 1 }, 1, 1, 0]);
    h.extend_from_slice(&[0; 8]);
    h.extend_from_slice(&1u16.to_le_bytes()); // ET_REL
    let machine: u16 = if wide { 62 } else { 3 }; // EM_X86_64, EM_386
    h.extend_from_slice(&machine.to_le_bytes());
    h.extend_from_slice(&1u32.to_le_bytes());
    word(&mut h, 0); // entry
    word(&mut h, 0); // phoff
    word(&mut h, shoff);
    h.extend_from_slice(&0u32.to_le_bytes()); // flags
    h.extend_from_slice(&(ehsize as u16).to_le_bytes()); // ehsize
    h.extend_from_slice(&0u16.to_le_bytes()); // phentsize
    h.extend_from_slice(&0u16.to_le_bytes()); // phnum
    h.extend_from_slice(&(e.shdr_size() as u16).to_le_bytes()); // shentsize
    h.extend_from_slice(&6u16.to_le_bytes()); // shnum
    h.extend_from_slice(&5u16.to_le_bytes()); // shstrndx
    f[..ehsize].copy_from_slice(&h);
    f
}

/// The layout of one ELF class.
struct Elf {
    wide: bool,
}

impl Elf {
    fn sym_size(&self) -> usize {
        if self.wide {
            24
        } else {
            16
        }
    }

    fn shdr_size(&self) -> usize {
        if self.wide {
            64
        } else {
            40
        }
    }

    /// An address or size: 8 bytes, or 4.
    fn word(&self, v: &mut Vec<u8>, x: u64) {
        if self.wide {
            v.extend_from_slice(&x.to_le_bytes());
        } else {
            v.extend_from_slice(&(x as u32).to_le_bytes());
        }
    }

    fn sym(&self, name: u32, info: u8, other: u8, shndx: u16, value: u64, size: u64) -> Vec<u8> {
        if self.wide {
            return sym(name, info, other, shndx, value, size);
        }
        let mut v = Vec::with_capacity(16);
        v.extend_from_slice(&name.to_le_bytes());
        v.extend_from_slice(&(value as u32).to_le_bytes());
        v.extend_from_slice(&(size as u32).to_le_bytes());
        v.push(info);
        v.push(other);
        v.extend_from_slice(&shndx.to_le_bytes());
        v
    }

    #[allow(clippy::too_many_arguments)]
    fn shdr(
        &self,
        name: u32,
        ty: u32,
        flags: u64,
        off: u64,
        size: u64,
        link: u32,
        info: u32,
        align: u64,
        entsize: u64,
    ) -> Vec<u8> {
        let mut v = Vec::with_capacity(self.shdr_size());
        v.extend_from_slice(&name.to_le_bytes());
        v.extend_from_slice(&ty.to_le_bytes());
        self.word(&mut v, flags);
        self.word(&mut v, 0); // addr
        self.word(&mut v, off);
        self.word(&mut v, size);
        v.extend_from_slice(&link.to_le_bytes());
        v.extend_from_slice(&info.to_le_bytes());
        self.word(&mut v, align);
        self.word(&mut v, entsize);
        v
    }
}

fn sym(name: u32, info: u8, other: u8, shndx: u16, value: u64, size: u64) -> Vec<u8> {
    let mut v = Vec::with_capacity(24);
    v.extend_from_slice(&name.to_le_bytes());
    v.push(info);
    v.push(other);
    v.extend_from_slice(&shndx.to_le_bytes());
    v.extend_from_slice(&value.to_le_bytes());
    v.extend_from_slice(&size.to_le_bytes());
    v
}
