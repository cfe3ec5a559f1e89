//! USDT probes: the stapsdt notes (`.note.stapsdt`, as `<sys/sdt.h>` and our
//! `dtrace -h` emit them) of the objects a process maps, as
//! `<provider><PID>:<module>:<function>:<name>` with `__` in names shown as `-`.
//!
//! A note's descriptor: the probe's address, the link-time address of
//! `.stapsdt.base` (to correct for prelinking), the semaphore's address (0:
//! none), then `provider\0name\0arguments\0`. Semaphores are counted by the
//! kernel while the probe is attached (uprobe `ref_ctr_offset`), so
//! `PROVIDER_PROBE_ENABLED()` is true exactly while it is traced.
//! Arguments are `[-]size@operand`: `%reg`, `$constant`, `disp(%reg)`.

use crate::elf::Elf;
use crate::pdesc::glob;
use crate::procmap::{self, ElfCache, UprobeSite};
use crate::{ProbeTemplate, ProcError, ProcErrorKind, ProcProbe};
use dtrace_codegen::uprobe_regs as regs;
use dtrace_sema::{ArgDesc, FieldKind, ProbeKind, RecordField};

/// One stapsdt note.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Note {
    pub provider: String,
    pub name: String,
    /// Link-time address of the probe site (prelink-corrected).
    pub pc: u64,
    /// Link-time address of the semaphore (0: none).
    pub semaphore: u64,
    pub args: String,
}

/// The stapsdt notes of an object.
pub fn notes(elf: &Elf) -> Vec<Note> {
    let base = elf.section(".stapsdt.base").map(|s| s.addr);
    let mut out = Vec::new();
    for (owner, kind, desc) in elf.notes(".note.stapsdt") {
        if owner != "stapsdt" || kind != 3 || desc.len() < 24 {
            continue;
        }
        let word = |i: usize| {
            desc.get(i * 8..i * 8 + 8)
                .and_then(|b| b.try_into().ok())
                .map(u64::from_le_bytes)
                .unwrap_or(0)
        };
        let (mut pc, note_base, semaphore) = (word(0), word(1), word(2));
        if let Some(b) = base {
            if note_base != 0 {
                pc = pc.wrapping_add(b).wrapping_sub(note_base);
            }
        }
        let mut strs = desc[24..].split(|b| *b == 0);
        let mut next = || String::from_utf8_lossy(strs.next().unwrap_or(&[])).into_owned();
        let (provider, name, args) = (next(), next(), next());
        out.push(Note {
            provider,
            name,
            pc,
            semaphore,
            args,
        });
    }
    out
}

/// The `pt_regs` offset of an x86_64 register name (any width) and its width.
fn register(name: &str) -> Option<(u16, u8)> {
    use regs::*;
    let full = [
        ("ax", AX),
        ("bx", BX),
        ("cx", CX),
        ("dx", DX),
        ("si", SI),
        ("di", DI),
        ("bp", BP),
        ("sp", SP),
        ("ip", IP),
    ];
    for (r, off) in full {
        if name == format!("r{r}") {
            return Some((off, 8));
        }
        if name == format!("e{r}") {
            return Some((off, 4));
        }
        if name == r {
            return Some((off, 2));
        }
    }
    let low = [
        ("al", AX),
        ("bl", BX),
        ("cl", CX),
        ("dl", DX),
        ("sil", SI),
        ("dil", DI),
        ("bpl", BP),
        ("spl", SP),
    ];
    if let Some((_, off)) = low.iter().find(|(n, _)| *n == name) {
        return Some((*off, 1));
    }
    let numbered = [R8, R9, R10, R11, R12, R13, R14, R15];
    let rest = name.strip_prefix('r')?;
    let digits: String = rest.chars().take_while(char::is_ascii_digit).collect();
    let n: usize = digits.parse().ok()?;
    let off = *numbered.get(n.checked_sub(8)?)?;
    let width = match &rest[digits.len()..] {
        "" => 8,
        "d" => 4,
        "w" => 2,
        "b" => 1,
        _ => return None,
    };
    Some((off, width))
}

/// One argument spec (`-4@%edi`, `8@16(%rbp)`, `-4@$5`); `None` when it is
/// a form we do not read (the argument is then 0).
pub fn parse_arg(spec: &str) -> Option<RecordField> {
    let (size, operand) = spec.split_once('@')?;
    let size: i32 = size.parse().ok()?;
    let signed = size < 0;
    let size = u8::try_from(size.unsigned_abs()).ok()?;
    if !matches!(size, 1 | 2 | 4 | 8) {
        return None;
    }
    if let Some(c) = operand.strip_prefix('$') {
        let v: i64 = c.parse().ok()?;
        return Some(RecordField {
            offset: 0,
            size,
            signed,
            kind: FieldKind::Const(v),
        });
    }
    if let Some(r) = operand.strip_prefix('%') {
        let (offset, _) = register(r)?;
        return Some(RecordField {
            offset,
            size,
            signed,
            kind: FieldKind::UserReg,
        });
    }
    let (disp, rest) = operand.split_once('(')?;
    let r = rest.strip_suffix(')')?.strip_prefix('%')?;
    if r.contains(',') {
        return None; // base + index * scale: not read
    }
    let disp: i32 = if disp.is_empty() {
        0
    } else {
        disp.parse().ok()?
    };
    let (offset, _) = register(r)?;
    Some(RecordField {
        offset,
        size,
        signed,
        kind: FieldKind::UserMem { disp },
    })
}

/// The argument locations of a note's argument string.
pub fn parse_args(args: &str) -> Vec<RecordField> {
    args.split_ascii_whitespace()
        .map(|a| {
            parse_arg(a).unwrap_or(RecordField {
                offset: 0,
                size: 8,
                signed: false,
                kind: FieldKind::Const(0),
            })
        })
        .collect()
}

/// The C type of an argument of `size` bytes.
fn arg_type(f: &RecordField) -> String {
    let bits = 8 * u32::from(f.size);
    if f.signed {
        format!("int{bits}_t")
    } else {
        format!("uint{bits}_t")
    }
}

/// The USDT probes of process `pid` whose provider matches `prefix` (a glob
/// over the provider name without the pid) and whose module, function and
/// name match (empty: any).
pub fn probes(
    prefix: &str,
    pid: u32,
    module: &str,
    function: &str,
    name: &str,
) -> Result<Vec<ProcProbe>, ProcError> {
    let objects = procmap::objects(pid).map_err(|_| ProcError {
        kind: ProcErrorKind::Grab,
        message: format!("failed to grab process {pid}"),
    })?;
    let want = Want {
        provider: &|p: &str| prefix.is_empty() || glob(prefix.as_bytes(), p.as_bytes()),
        module,
        function,
        name,
    };
    let mut cache = ElfCache::default();
    Ok(process_probes(pid, &objects, &want, &mut cache))
}

/// `provider*:::`: the USDT probes of every process whose full provider name
/// (`myprov123`) matches `provider`, a glob without a process ID. Processes
/// that cannot be read (gone, or kernel threads) are passed over; each object
/// file is read once.
pub fn all_processes(provider: &str, module: &str, function: &str, name: &str) -> Vec<ProcProbe> {
    let Ok(dir) = std::fs::read_dir("/proc") else {
        return Vec::new();
    };
    let mut pids: Vec<u32> = dir
        .filter_map(|e| e.ok()?.file_name().to_str()?.parse().ok())
        .collect();
    pids.sort_unstable();
    let mut cache = ElfCache::default();
    let mut out = Vec::new();
    for pid in pids {
        let Ok(objects) = procmap::objects(pid) else {
            continue;
        };
        let spec = [provider, module, function, name];
        out.extend(glob_process_probes(pid, &objects, spec, &mut cache));
    }
    out
}

/// Object files known to have no USDT probes, each with what identifies
/// its contents (device, inode, size, modification time), so that a file
/// rebuilt in place is read again.
#[derive(Debug, Default)]
pub struct NoNotes {
    files: std::collections::BTreeMap<std::path::PathBuf, (u64, u64, u64, i64, i64)>,
}

impl NoNotes {
    fn identity(path: &std::path::Path) -> Option<(u64, u64, u64, i64, i64)> {
        use std::os::unix::fs::MetadataExt;
        let m = std::fs::metadata(path).ok()?;
        Some((m.dev(), m.ino(), m.size(), m.mtime(), m.mtime_nsec()))
    }

    /// Whether `path` is known to have no USDT probes.
    fn known(&self, path: &std::path::Path) -> bool {
        self.files
            .get(path)
            .is_some_and(|id| Self::identity(path).as_ref() == Some(id))
    }

    fn insert(&mut self, path: &std::path::Path) {
        if let Some(id) = Self::identity(path) {
            self.files.insert(path.to_path_buf(), id);
        }
    }
}

/// `provider*:::` in process `pid` alone (see [`all_processes`]); objects
/// in `none` are passed over, and those found without notes join it.
pub fn one_process(
    provider: &str,
    pid: u32,
    module: &str,
    function: &str,
    name: &str,
    none: &mut NoNotes,
) -> Vec<ProcProbe> {
    let Ok(mut objects) = procmap::objects(pid) else {
        return Vec::new();
    };
    objects.retain(|o| !none.known(&o.path));
    let mut cache = ElfCache::default();
    for o in &objects {
        if cache.get_with(&o.path, ".note.stapsdt").is_none() {
            none.insert(&o.path);
        }
    }
    let spec = [provider, module, function, name];
    glob_process_probes(pid, &objects, spec, &mut cache)
}

/// The probes of process `pid` whose full provider name (`myprov123`)
/// matches the glob `spec[0]`, and module, function and name `spec[1..]`.
fn glob_process_probes(
    pid: u32,
    objects: &[procmap::Object],
    [provider, module, function, name]: [&str; 4],
    cache: &mut ElfCache,
) -> Vec<ProcProbe> {
    let full = |p: &str| glob(provider.as_bytes(), format!("{p}{pid}").as_bytes());
    let want = Want {
        provider: &full,
        module,
        function,
        name,
    };
    process_probes(pid, objects, &want, cache)
}

/// What a USDT probe description asks for (empty fields: any).
struct Want<'a> {
    /// Whether a provider, named as in its notes (without the pid), matches.
    provider: &'a dyn Fn(&str) -> bool,
    module: &'a str,
    function: &'a str,
    name: &'a str,
}

fn process_probes(
    pid: u32,
    objects: &[procmap::Object],
    want: &Want<'_>,
    cache: &mut ElfCache,
) -> Vec<ProcProbe> {
    let Want {
        module,
        function,
        name,
        ..
    } = *want;
    let m = |pat: &str, s: &str| pat.is_empty() || glob(pat.as_bytes(), s.as_bytes());
    let mut out = Vec::new();
    for o in objects {
        let module_hit = if crate::pid::is_glob(module) || module.is_empty() {
            m(module, &o.name)
        } else {
            procmap::names_object(module, o)
        };
        if !module_hit {
            continue;
        }
        let Some(elf) = cache.get_with(&o.path, ".note.stapsdt") else {
            continue;
        };
        let notes: Vec<Note> = notes(elf)
            .into_iter()
            .filter(|n| (want.provider)(&n.provider) && m(name, &n.name.replace("__", "-")))
            .collect();
        if notes.is_empty() {
            continue;
        }
        let funcs = elf.functions();
        for n in notes {
            let probe_name = n.name.replace("__", "-");
            let func = funcs
                .iter()
                .find(|s| n.pc >= s.value && n.pc - s.value < s.size)
                .map(|s| s.name.clone())
                .unwrap_or_default();
            if !m(function, &func) {
                continue;
            }
            // The site itself, even where a 5-byte nop follows it (libbpf's
            // `nop; nop5`): Linux 6.18 turns a uprobe on a 5-byte nop into a
            // `call`, whose return address overwrites the 8 bytes below the
            // stack pointer, in the red zone a leaf function may keep its
            // locals in (measured: a probed function's argument changed).
            let Some(offset) = elf.file_offset(n.pc) else {
                continue;
            };
            let ref_ctr_offset = if n.semaphore == 0 {
                0
            } else {
                elf.mem_offset(n.semaphore).unwrap_or(0)
            };
            let fields = parse_args(&n.args);
            out.push(ProcProbe {
                provider: format!("{}{pid}", n.provider),
                template: ProbeTemplate {
                    module: o.name.as_str().into(),
                    function: func.into(),
                    name: probe_name.into(),
                    kind: ProbeKind::Uprobe { ret: false },
                    args: ArgDesc::natives(&fields.iter().map(arg_type).collect::<Vec<_>>()),
                    fields,
                },
                site: UprobeSite {
                    path: o.path.clone(),
                    offset,
                    ref_ctr_offset,
                    pid,
                    ret: false,
                    returns: Vec::new(),
                },
            });
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn argument_specs() {
        let f = parse_arg("-4@%edi").expect("reg");
        assert_eq!(
            (f.offset, f.size, f.signed, f.kind),
            (regs::DI, 4, true, FieldKind::UserReg)
        );
        let f = parse_arg("8@16(%rbp)").expect("mem");
        assert_eq!(f.kind, FieldKind::UserMem { disp: 16 });
        assert_eq!(f.offset, regs::BP);
        let f = parse_arg("8@-1204(%rbp)").expect("mem");
        assert_eq!(f.kind, FieldKind::UserMem { disp: -1204 });
        let f = parse_arg("-4@$5").expect("const");
        assert_eq!(f.kind, FieldKind::Const(5));
        let f = parse_arg("8@%r12").expect("r12");
        assert_eq!(f.offset, regs::R12);
        let f = parse_arg("4@%r9d").expect("r9d");
        assert_eq!((f.offset, f.size), (regs::R9, 4));
        let f = parse_arg("1@%sil").expect("sil");
        assert_eq!(f.offset, regs::SI);
        assert!(parse_arg("8@(%rax,%rbx,8)").is_none());
        assert!(parse_arg("3@%eax").is_none());
        assert_eq!(parse_args("8@%rax -4@$1 8@x(%y)").len(), 3);
    }
}
