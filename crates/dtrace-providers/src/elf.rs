//! A small ELF64 (little-endian) reader: what the pid and usdt providers need
//! from an object mapped in a process — function symbols (`.symtab`, then
//! `.dynsym`), loadable segments (to turn addresses into file offsets), the
//! entry point, and `.note.stapsdt` notes. Every read is bounds-checked:
//! a malformed file gives fewer symbols or an error, never a panic.

use std::path::Path;

const PT_LOAD: u32 = 1;
const SHT_SYMTAB: u32 = 2;
const SHT_NOTE: u32 = 7;
const SHT_DYNSYM: u32 = 11;
/// `.gnu.version`: one version index per `.dynsym` entry.
const SHT_GNU_VERSYM: u32 = 0x6fff_ffff;
/// A version index with this bit names a non-default version
/// (`name@VERSION`, which `nm -D` shows with one `@`).
const VERSYM_HIDDEN: u16 = 0x8000;
const STT_FUNC: u8 = 2;
const SHN_UNDEF: u16 = 0;
/// `e_type` of a position-independent object (shared library, PIE).
pub const ET_DYN: u16 = 3;

/// One function symbol.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Symbol {
    pub name: String,
    /// Link-time virtual address.
    pub value: u64,
    pub size: u64,
    /// `STB_LOCAL` (0), `STB_GLOBAL` (1) or `STB_WEAK` (2).
    pub bind: u8,
}

impl Symbol {
    /// How strongly this name stands for its address among aliases (lower is
    /// preferred): global before weak before local, then fewer leading
    /// underscores, then shorter (`go` over `_go`, `malloc` over `__libc_malloc`).
    pub fn preference(&self) -> (u8, usize, usize, &str) {
        let rank = match self.bind {
            1 => 0,
            2 => 1,
            _ => 2,
        };
        let under = self.name.bytes().take_while(|b| *b == b'_').count();
        (rank, under, self.name.len(), &self.name)
    }
}

/// A loadable segment.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Segment {
    pub offset: u64,
    pub vaddr: u64,
    pub filesz: u64,
    pub memsz: u64,
    pub flags: u32,
}

/// A section header (what we use of it).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Section {
    pub name: String,
    pub kind: u32,
    pub addr: u64,
    pub offset: u64,
    pub size: u64,
    pub link: u32,
}

/// A parsed object file.
#[derive(Debug, Clone)]
pub struct Elf {
    data: Vec<u8>,
    pub kind: u16,
    pub entry: u64,
    pub segments: Vec<Segment>,
    pub sections: Vec<Section>,
}

fn u16_at(d: &[u8], o: usize) -> Option<u16> {
    Some(u16::from_le_bytes(d.get(o..o + 2)?.try_into().ok()?))
}

fn u32_at(d: &[u8], o: usize) -> Option<u32> {
    Some(u32::from_le_bytes(d.get(o..o + 4)?.try_into().ok()?))
}

fn u64_at(d: &[u8], o: usize) -> Option<u64> {
    Some(u64::from_le_bytes(d.get(o..o + 8)?.try_into().ok()?))
}

fn cstr_at(d: &[u8], o: usize) -> Option<&str> {
    let rest = d.get(o..)?;
    let end = rest.iter().position(|b| *b == 0)?;
    std::str::from_utf8(&rest[..end]).ok()
}

impl Elf {
    /// Read and parse the object at `path`.
    pub fn open(path: &Path) -> Result<Elf, String> {
        let data = std::fs::read(path).map_err(|e| format!("{}: {e}", path.display()))?;
        Elf::parse(data).ok_or_else(|| format!("{}: not a 64-bit ELF object", path.display()))
    }

    /// Whether the object at `path` has a section called `name`, reading only
    /// its header, section headers and section names (not the whole file).
    pub fn file_has_section(path: &Path, name: &str) -> bool {
        use std::os::unix::fs::FileExt;
        let Ok(f) = std::fs::File::open(path) else {
            return false;
        };
        let read = |off: u64, len: usize| -> Option<Vec<u8>> {
            let mut buf = vec![0; len];
            f.read_exact_at(&mut buf, off).ok()?;
            Some(buf)
        };
        let check = || -> Option<bool> {
            let h = read(0, 64)?;
            if h.get(..4)? != b"\x7fELF" || *h.get(4)? != 2 || *h.get(5)? != 1 {
                return Some(false);
            }
            let shoff = u64_at(&h, 40)?;
            let shentsize = u16_at(&h, 58)? as usize;
            let shnum = u16_at(&h, 60)? as usize;
            let shstrndx = u16_at(&h, 62)? as usize;
            if shentsize < 64 || shnum > 0xff00 {
                return Some(false);
            }
            let sh = read(shoff, shnum.checked_mul(shentsize)?)?;
            let strs = shstrndx.checked_mul(shentsize)?;
            let (str_off, str_size) = (u64_at(&sh, strs + 24)?, u64_at(&sh, strs + 32)?);
            let names = read(str_off, usize::try_from(str_size).ok()?.min(1 << 20))?;
            Some((0..shnum).any(|i| {
                u32_at(&sh, i * shentsize)
                    .and_then(|n| cstr_at(&names, n as usize))
                    .is_some_and(|n| n == name)
            }))
        };
        check().unwrap_or(false)
    }

    /// Parse an object held in memory.
    pub fn parse(data: Vec<u8>) -> Option<Elf> {
        if data.get(..4)? != b"\x7fELF" || *data.get(4)? != 2 || *data.get(5)? != 1 {
            return None;
        }
        let kind = u16_at(&data, 16)?;
        let entry = u64_at(&data, 24)?;
        let phoff = u64_at(&data, 32)? as usize;
        let shoff = u64_at(&data, 40)? as usize;
        let phentsize = u16_at(&data, 54)? as usize;
        let phnum = u16_at(&data, 56)? as usize;
        let shentsize = u16_at(&data, 58)? as usize;
        let shnum = u16_at(&data, 60)? as usize;
        let shstrndx = u16_at(&data, 62)? as usize;
        let mut segments = Vec::new();
        for i in 0..phnum {
            let o = phoff.checked_add(i.checked_mul(phentsize)?)?;
            if u32_at(&data, o)? != PT_LOAD {
                continue;
            }
            segments.push(Segment {
                flags: u32_at(&data, o + 4)?,
                offset: u64_at(&data, o + 8)?,
                vaddr: u64_at(&data, o + 16)?,
                filesz: u64_at(&data, o + 32)?,
                memsz: u64_at(&data, o + 40)?,
            });
        }
        let mut raw = Vec::new();
        for i in 0..shnum {
            let o = shoff.checked_add(i.checked_mul(shentsize)?)?;
            raw.push((
                u32_at(&data, o)?,
                Section {
                    name: String::new(),
                    kind: u32_at(&data, o + 4)?,
                    addr: u64_at(&data, o + 16)?,
                    offset: u64_at(&data, o + 24)?,
                    size: u64_at(&data, o + 32)?,
                    link: u32_at(&data, o + 40)?,
                },
            ));
        }
        let names_off = raw.get(shstrndx).map(|(_, s)| s.offset as usize);
        let sections = raw
            .into_iter()
            .map(|(name, mut s)| {
                if let Some(base) = names_off {
                    s.name = cstr_at(&data, base + name as usize)
                        .unwrap_or("")
                        .to_string();
                }
                s
            })
            .collect();
        Some(Elf {
            data,
            kind,
            entry,
            segments,
            sections,
        })
    }

    /// The bytes of section `s` (empty if out of bounds).
    pub fn section_data(&self, s: &Section) -> &[u8] {
        let start = s.offset as usize;
        let end = start.saturating_add(s.size as usize);
        self.data.get(start..end).unwrap_or(&[])
    }

    pub fn section(&self, name: &str) -> Option<&Section> {
        self.sections.iter().find(|s| s.name == name)
    }

    /// The file offset of link-time address `vaddr` (in a loadable segment's file image).
    pub fn file_offset(&self, vaddr: u64) -> Option<u64> {
        self.segments
            .iter()
            .find(|s| vaddr >= s.vaddr && vaddr - s.vaddr < s.filesz)
            .map(|s| vaddr - s.vaddr + s.offset)
    }

    /// The file offset of `vaddr` in any loadable segment, including its
    /// zero-filled tail (where semaphores live).
    pub fn mem_offset(&self, vaddr: u64) -> Option<u64> {
        self.segments
            .iter()
            .find(|s| vaddr >= s.vaddr && vaddr - s.vaddr < s.memsz.max(s.filesz))
            .map(|s| vaddr - s.vaddr + s.offset)
    }

    /// Is `vaddr` in a writable segment?
    pub fn writable(&self, vaddr: u64) -> bool {
        self.segments
            .iter()
            .any(|s| vaddr >= s.vaddr && vaddr - s.vaddr < s.memsz && s.flags & 2 != 0)
    }

    /// `len` bytes of the file image at link-time address `vaddr`.
    pub fn bytes_at(&self, vaddr: u64, len: u64) -> Option<&[u8]> {
        let off = self.file_offset(vaddr)? as usize;
        self.data.get(off..off.checked_add(len as usize)?)
    }

    /// The defined, sized function symbols of the symbol table of `kind`
    /// (`.symtab` or `.dynsym`), in address order.
    fn functions_of(&self, kind: u32) -> Vec<Symbol> {
        self.symbols_of(kind, true)
    }

    /// The address of the defined symbol `name` (a function or data object),
    /// from `.symtab` or `.dynsym`.
    pub fn symbol_value(&self, name: &str) -> Option<u64> {
        [SHT_SYMTAB, SHT_DYNSYM]
            .into_iter()
            .flat_map(|k| self.symbols_of(k, false))
            .find(|s| s.name == name)
            .map(|s| s.value)
    }

    /// The defined, sized symbols (only functions if `functions`) of the
    /// symbol table of `kind`, in address order.
    fn symbols_of(&self, kind: u32, functions: bool) -> Vec<Symbol> {
        let mut out = Vec::new();
        for s in self.sections.iter().filter(|s| s.kind == kind) {
            let Some(strs) = self.sections.get(s.link as usize) else {
                continue;
            };
            let strtab = self.section_data(strs);
            let syms = self.section_data(s);
            // A dynamic symbol of a non-default version (glibc's old
            // `pthread_cond_wait@GLIBC_2.2.5` beside the default
            // `pthread_cond_wait@@GLIBC_2.3.2`) is not what its plain name
            // means to a program linked now: leave it out.
            let versyms = (kind == SHT_DYNSYM)
                .then(|| self.sections.iter().find(|v| v.kind == SHT_GNU_VERSYM))
                .flatten()
                .map(|v| self.section_data(v));
            for (i, e) in syms.chunks_exact(24).enumerate() {
                if versyms
                    .and_then(|v| u16_at(v, i * 2))
                    .is_some_and(|ver| ver & VERSYM_HIDDEN != 0)
                {
                    continue;
                }
                let (Some(name), Some(info), Some(shndx), Some(value), Some(size)) = (
                    u32_at(e, 0),
                    e.get(4),
                    u16_at(e, 6),
                    u64_at(e, 8),
                    u64_at(e, 16),
                ) else {
                    continue;
                };
                if (functions && info & 0xf != STT_FUNC) || shndx == SHN_UNDEF || size == 0 {
                    continue;
                }
                let Some(name) = cstr_at(strtab, name as usize) else {
                    continue;
                };
                out.push(Symbol {
                    name: name.to_string(),
                    value,
                    size,
                    bind: info >> 4,
                });
            }
        }
        out.sort_by(|a, b| (a.value, &a.name).cmp(&(b.value, &b.name)));
        out
    }

    /// Function symbols from `.symtab`, or from `.dynsym` when the object is
    /// stripped, in address order.
    pub fn functions(&self) -> Vec<Symbol> {
        let syms = self.functions_of(SHT_SYMTAB);
        if syms.is_empty() {
            self.functions_of(SHT_DYNSYM)
        } else {
            syms
        }
    }

    /// Every `(name, descriptor)` of the notes in section `name`.
    pub fn notes(&self, name: &str) -> Vec<(String, u32, Vec<u8>)> {
        let mut out = Vec::new();
        for s in self
            .sections
            .iter()
            .filter(|s| s.kind == SHT_NOTE && s.name == name)
        {
            let d = self.section_data(s);
            let mut o = 0usize;
            while let (Some(namesz), Some(descsz), Some(kind)) =
                (u32_at(d, o), u32_at(d, o + 4), u32_at(d, o + 8))
            {
                let name_start = o + 12;
                let desc_start = name_start + (namesz as usize).next_multiple_of(4);
                let next = desc_start + (descsz as usize).next_multiple_of(4);
                let (Some(n), Some(desc)) = (
                    d.get(name_start..name_start + namesz as usize),
                    d.get(desc_start..desc_start + descsz as usize),
                ) else {
                    break;
                };
                let n = String::from_utf8_lossy(n.strip_suffix(b"\0").unwrap_or(n)).into_owned();
                out.push((n, kind, desc.to_vec()));
                o = next;
            }
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn garbage_is_not_an_object() {
        assert!(Elf::parse(b"\x7fELF".to_vec()).is_none());
        assert!(Elf::parse(vec![0; 100]).is_none());
    }

    #[test]
    fn reads_this_test_binary() {
        let Ok(exe) = std::fs::read_link("/proc/self/exe") else {
            return;
        };
        let elf = Elf::open(&exe).expect("parse");
        assert!(!elf.segments.is_empty());
        let fns = elf.functions();
        assert!(fns.iter().any(|f| f.name == "main"), "main listed");
        let main = fns.iter().find(|f| f.name == "main").expect("main");
        assert!(elf.file_offset(main.value).is_some());
        assert!(elf.bytes_at(main.value, main.size).is_some());
        assert!(!elf.writable(main.value));
        assert!(elf.file_offset(elf.entry).is_some());
    }

    /// glibc keeps old versions of some functions beside the default one;
    /// only the default answers to the plain name.
    #[test]
    fn a_plain_name_is_the_default_version() {
        let maps = std::fs::read_to_string("/proc/self/maps").unwrap_or_default();
        let Some(libc) = maps
            .lines()
            .filter_map(|l| l.split_whitespace().nth(5))
            .find(|p| p.ends_with("/libc.so.6"))
        else {
            return;
        };
        let elf = Elf::open(std::path::Path::new(libc)).expect("libc parses");
        let fns = elf.functions();
        let named = |n: &str| fns.iter().filter(|f| f.name == n).count();
        assert!(named("pthread_cond_wait") <= 1);
        assert!(named("pthread_mutex_lock") == 1);
    }
}
