//! One ELF object as the consumer needs it: its function symbols (from
//! `.symtab`, `.dynsym`, the MiniDebugInfo in `.gnu_debugdata`, a separate
//! debug file found by build-id or `.gnu_debuglink`, or DWARF), its loadable segments
//! (to turn a mapped address into the object's own addresses), and the
//! sections the unwinder needs (`.text`, `.eh_frame`, `.eh_frame_hdr`,
//! `.debug_frame`, `.got`).

use object::{Object, ObjectSection, ObjectSegment, ObjectSymbol, SymbolKind};
use std::ops::{Deref, Range};
use std::sync::Arc;

/// A slice of a shared file buffer (what the unwinder keeps per section).
#[derive(Clone, Default)]
pub struct Bytes {
    data: Arc<Vec<u8>>,
    range: Range<usize>,
}

impl Deref for Bytes {
    type Target = [u8];
    fn deref(&self) -> &[u8] {
        self.data.get(self.range.clone()).unwrap_or(&[])
    }
}

/// One function symbol, at its address in the object (SVMA).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Sym {
    pub addr: u64,
    pub size: u64,
    pub name: String,
    /// Bound `STB_LOCAL` (DWARF's functions count as global).
    pub local: bool,
}

impl Sym {
    /// Orders by address, then aliases at one address best name first
    /// ([`crate::alias::alias_order`]).
    fn by_address(a: &Sym, b: &Sym) -> std::cmp::Ordering {
        a.addr
            .cmp(&b.addr)
            .then_with(|| crate::alias::alias_order(&a.facts(), &b.facts()))
    }

    fn facts(&self) -> crate::alias::AliasFacts<'_> {
        crate::alias::AliasFacts {
            name: self.name.as_str(),
            function: true,
            local: self.local,
            size: self.size,
        }
    }
}

/// A PT_LOAD segment: file range and address.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Segment {
    pub offset: u64,
    pub filesz: u64,
    pub vaddr: u64,
}

/// A section the unwinder needs: its address range and bytes.
#[derive(Clone)]
pub struct Section {
    pub svma: Range<u64>,
    pub data: Bytes,
}

/// What the unwinder needs from an object.
#[derive(Clone, Default)]
pub struct UnwindSections {
    pub text: Option<Section>,
    pub eh_frame: Option<Section>,
    pub eh_frame_hdr: Option<Section>,
    pub got: Option<Range<u64>>,
    pub debug_frame: Option<Bytes>,
}

/// A loaded ELF object.
#[derive(Clone, Default)]
pub struct ElfObject {
    pub build_id: Option<Vec<u8>>,
    /// Function symbols sorted by address, aliases at one address reduced to
    /// the one DTrace names it by.
    pub syms: Vec<Sym>,
    /// Data object symbols (variables) with a size, sorted by address, from
    /// the object's own `.symtab`/`.dynsym` (for naming a lock by its variable).
    pub data: Vec<Sym>,
    pub segments: Vec<Segment>,
    pub unwind: UnwindSections,
}

/// Directory of separate debug files (`.build-id/xx/rest.debug`, debuglink targets).
const DEBUG_DIR: &str = "/usr/lib/debug";

impl ElfObject {
    /// Reads and parses `path` (`display` is the file's path as the process
    /// sees it, for finding debuglink files). None when it is not a readable ELF file.
    pub fn load(path: &str, display: &str) -> Option<ElfObject> {
        let data = Arc::new(std::fs::read(path).ok()?);
        let mut obj = ElfObject::parse(&data)?;
        if !obj.has_symtab(&data) {
            let extra = obj.debug_symbols(&data, display);
            obj.add_syms(extra);
        }
        Some(obj)
    }

    /// Parses an object from its bytes (no debug-file search).
    pub fn parse(data: &Arc<Vec<u8>>) -> Option<ElfObject> {
        let file = object::File::parse(&data[..]).ok()?;
        let segments = file
            .segments()
            .map(|s| {
                let (offset, filesz) = s.file_range();
                Segment {
                    offset,
                    filesz,
                    vaddr: s.address(),
                }
            })
            .collect();
        let section = |name: &str| -> Option<Section> {
            let s = file.section_by_name(name)?;
            let (off, size) = s.file_range()?;
            let start = usize::try_from(off).ok()?;
            let end = start.checked_add(usize::try_from(size).ok()?)?;
            (end <= data.len()).then(|| Section {
                svma: s.address()..s.address().saturating_add(s.size()),
                data: Bytes {
                    data: data.clone(),
                    range: start..end,
                },
            })
        };
        let unwind = UnwindSections {
            text: section(".text"),
            eh_frame: section(".eh_frame"),
            eh_frame_hdr: section(".eh_frame_hdr"),
            got: file
                .section_by_name(".got")
                .map(|s| s.address()..s.address().saturating_add(s.size())),
            debug_frame: section(".debug_frame").map(|s| s.data),
        };
        let mut obj = ElfObject {
            build_id: file.build_id().ok().flatten().map(|b| b.to_vec()),
            syms: Vec::new(),
            data: symbols(&file, SymbolKind::Data)
                .into_iter()
                .filter(|s| s.size > 0)
                .collect(),
            segments,
            unwind,
        };
        obj.data.dedup_by(|b, a| a.addr == b.addr);
        obj.add_syms(symbols(&file, SymbolKind::Text));
        Some(obj)
    }

    fn has_symtab(&self, data: &[u8]) -> bool {
        object::File::parse(data)
            .map(|f| f.symbols().next().is_some())
            .unwrap_or(false)
    }

    /// Symbols from MiniDebugInfo or a separate debug file, when the object has no `.symtab`.
    fn debug_symbols(&self, data: &[u8], display: &str) -> Vec<Sym> {
        let Ok(file) = object::File::parse(data) else {
            return Vec::new();
        };
        let mut out = Vec::new();
        if let Some(xz) = file
            .section_by_name(".gnu_debugdata")
            .and_then(|s| s.data().ok())
        {
            let mut raw = Vec::new();
            if lzma_rs::xz_decompress(&mut &xz[..], &mut raw).is_ok() {
                if let Ok(mini) = object::File::parse(&raw[..]) {
                    out.extend(symbols(&mini, SymbolKind::Text));
                }
            }
        }
        for cand in debug_candidates(self.build_id.as_deref(), &file, display) {
            if let Ok(bytes) = std::fs::read(&cand) {
                if let Ok(dbg) = object::File::parse(&bytes[..]) {
                    out.extend(symbols(&dbg, SymbolKind::Text));
                    if out.is_empty() {
                        out.extend(crate::dwarf::functions(&dbg));
                    }
                    break;
                }
            }
        }
        // Debug information but no symbol table anywhere: DWARF's functions.
        if out.is_empty() {
            out.extend(crate::dwarf::functions(&file));
        }
        out
    }

    fn add_syms(&mut self, more: Vec<Sym>) {
        if more.is_empty() {
            return;
        }
        self.syms.extend(more);
        // Sort by address; at one address keep the best alias.
        self.syms.sort_by(Sym::by_address);
        self.syms.dedup_by(|b, a| a.addr == b.addr);
    }

    /// The object address (SVMA) of file offset `off`, through the PT_LOAD holding it.
    pub fn offset_to_svma(&self, off: u64) -> Option<u64> {
        self.segments
            .iter()
            .find(|s| s.offset <= off && off < s.offset.saturating_add(s.filesz.max(1)))
            .map(|s| (off - s.offset).wrapping_add(s.vaddr))
    }

    /// The segment a mapping at file offset `off` (page aligned) comes from.
    pub fn segment_for_mapping(&self, off: u64) -> Option<&Segment> {
        self.segments
            .iter()
            .find(|s| (s.offset & !0xfff) <= off && off < s.offset.saturating_add(s.filesz.max(1)))
    }

    /// The data symbol (a variable) whose bytes hold object address `svma`.
    pub fn lookup_data(&self, svma: u64) -> Option<&Sym> {
        let i = self.data.partition_point(|s| s.addr <= svma);
        let s = self.data.get(i.checked_sub(1)?)?;
        (svma < s.addr.saturating_add(s.size)).then_some(s)
    }

    /// The function symbol covering object address `svma`.
    pub fn lookup(&self, svma: u64) -> Option<&Sym> {
        let i = self.syms.partition_point(|s| s.addr <= svma);
        let s = self.syms.get(i.checked_sub(1)?)?;
        (s.size == 0 || svma < s.addr.saturating_add(s.size)).then_some(s)
    }
}

/// Where a separate debug file may be: by build-id, then by debuglink.
fn debug_candidates(build_id: Option<&[u8]>, file: &object::File, display: &str) -> Vec<String> {
    let mut out = Vec::new();
    if let Some(id) = build_id.filter(|b| b.len() > 1) {
        let hex: String = id.iter().map(|b| format!("{b:02x}")).collect();
        out.push(format!(
            "{DEBUG_DIR}/.build-id/{}/{}.debug",
            &hex[..2],
            &hex[2..]
        ));
    }
    if let Ok(Some((name, _crc))) = file.gnu_debuglink() {
        let name = String::from_utf8_lossy(name).into_owned();
        let dir = display.rsplit_once('/').map(|(d, _)| d).unwrap_or("");
        out.push(format!("{dir}/{name}"));
        out.push(format!("{dir}/.debug/{name}"));
        out.push(format!("{DEBUG_DIR}{dir}/{name}"));
    }
    out
}

/// Defined symbols of `kind` (functions or variables) of `.symtab` then
/// `.dynsym`, by address, the best alias first at a shared address.
fn symbols(file: &object::File, kind: SymbolKind) -> Vec<Sym> {
    let mut v: Vec<Sym> = file
        .symbols()
        .chain(file.dynamic_symbols())
        .filter(|s| s.kind() == kind && s.is_definition() && s.address() != 0)
        .filter_map(|s| {
            let name = s.name().ok()?;
            let name = name.split('@').next().unwrap_or(name);
            if name.is_empty() {
                return None;
            }
            Some(Sym {
                addr: s.address(),
                size: s.size(),
                name: name.to_string(),
                local: !(s.is_global() || s.is_weak()),
            })
        })
        .collect();
    v.sort_by(Sym::by_address);
    v
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_our_own_executable() {
        let exe = std::env::current_exe().expect("current exe");
        let path = exe.to_string_lossy().into_owned();
        let obj = ElfObject::load(&path, &path).expect("our test binary is ELF");
        assert!(!obj.segments.is_empty());
        assert!(obj.unwind.eh_frame.is_some());
        // This very function is a symbol of the test binary.
        let f = reads_our_own_executable as fn() as usize as u64;
        let _ = f;
        assert!(obj.syms.windows(2).all(|w| w[0].addr < w[1].addr));
        assert!(obj.syms.iter().any(|s| s.name == "main"));
    }
}
