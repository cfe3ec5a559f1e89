//! User-space addresses for the consumer: which object and function an
//! address of a traced process is in, and the frames of a captured user stack.
//!
//! Code map:
//! - `alias.rs`: which of several symbols at one address names it (libproc's rule).
//! - `maps.rs`: `/proc/PID/maps` parsing.
//! - `elf.rs`: one ELF object: function and data symbols (`.symtab`, `.dynsym`,
//!   `.gnu_debugdata`, debug files by build-id or debuglink), PT_LOAD
//!   segments, unwind sections.
//! - `dwarf.rs`: function symbols from `.debug_info` when there is no symbol table.
//! - `space.rs`: a process's modules (mapped objects and their load bias).
//! - `unwind.rs`: framehop unwinding of a register set plus stack copy.
//!
//! [`UserSymbols`] is the handle the consumer keeps: a cache of address
//! spaces by pid (read at first sight, kept after the process exits so its
//! addresses still resolve, re-read when an address falls outside every
//! mapping while the process lives) and of objects by file and build-id.
//! It reads files under `/proc` and object files; it makes no other system
//! call, so it stays above `dtrace-sys` in the pipeline.

pub mod alias;
pub mod dwarf;
pub mod elf;
pub mod maps;
pub mod space;
pub mod unwind;

use elf::ElfObject;
use space::Space;
use std::collections::HashMap;
use std::fmt;
use std::sync::{Arc, Mutex, MutexGuard};
pub use unwind::Regs;
use unwind::SpaceUnwinder;

struct Proc {
    space: Space,
    /// The maps text `space` was built from.
    maps_text: String,
    /// Cleared once its maps can no longer be read.
    alive: bool,
    unwinder: Option<SpaceUnwinder>,
}

#[derive(Default)]
struct Inner {
    procs: HashMap<u32, Proc>,
    /// Objects by (path, inode); `None` when unreadable.
    objects: HashMap<(String, u64), Option<Arc<ElfObject>>>,
    by_build_id: HashMap<Vec<u8>, Arc<ElfObject>>,
}

/// The consumer's cache of user address spaces and objects (cheap to clone:
/// clones share the cache).
#[derive(Clone, Default)]
pub struct UserSymbols {
    inner: Arc<Mutex<Inner>>,
}

impl fmt::Debug for UserSymbols {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "UserSymbols")
    }
}

/// What a lookup found for one address.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Resolved {
    /// The module's base name (`libc.so.6`, `[vdso]`), if the address is mapped.
    pub module: Option<String>,
    /// The function and the address's offset into it.
    pub function: Option<(String, u64)>,
    /// The function's start (runtime address), when found.
    pub function_start: Option<u64>,
    /// The start of the module (lowest mapped address).
    pub module_start: Option<u64>,
    /// Offset of the address in the mapping that holds it (`-x noresolve`).
    pub map_offset: Option<u64>,
}

impl UserSymbols {
    pub fn new() -> UserSymbols {
        UserSymbols::default()
    }

    fn lock(&self) -> MutexGuard<'_, Inner> {
        match self.inner.lock() {
            Ok(g) => g,
            Err(p) => p.into_inner(),
        }
    }

    /// Reads the address space of `pid` now if it was never read (call it
    /// when a process is first seen, so it resolves after it exits).
    pub fn grab(&self, pid: u32) {
        let mut g = self.lock();
        g.space(pid, None);
    }

    /// Reads the address space of `pid` again if it changed since last read
    /// and the process still lives (a traced process, polled while tracing,
    /// so that what it mapped last still resolves after it exits).
    pub fn refresh(&self, pid: u32) {
        let Some(text) = read_maps(pid) else {
            return;
        };
        let mut g = self.lock();
        if g.procs.get(&pid).is_some_and(|p| p.maps_text == text) {
            return;
        }
        g.install(pid, text);
    }

    /// Everything known about `addr` in process `pid`.
    pub fn resolve(&self, pid: u32, addr: u64) -> Resolved {
        let mut g = self.lock();
        let Some(space) = g.space(pid, Some(addr)) else {
            return Resolved {
                module: None,
                function: None,
                function_start: None,
                module_start: None,
                map_offset: None,
            };
        };
        let map_offset = space.mapping(addr).map(|m| addr - m.start);
        let module = space.module(addr);
        let function = module.and_then(|m| {
            let obj = m.object.as_ref()?;
            let s = obj.lookup(addr.wrapping_sub(m.bias))?;
            Some((
                s.name.clone(),
                addr.wrapping_sub(m.bias).wrapping_sub(s.addr),
                s.addr.wrapping_add(m.bias),
            ))
        });
        Resolved {
            module: module
                .map(|m| m.name.clone())
                .or_else(|| space.mapping(addr).and_then(|m| m.name().map(String::from))),
            function_start: function.as_ref().map(|f| f.2),
            function: function.map(|(n, o, _)| (n, o)),
            module_start: module.map(|m| m.start),
            map_offset,
        }
    }

    /// `module`function+0xoff` (no `+0x0`), `module`0xaddr`, or `0xaddr`:
    /// a `ustack()` frame, `uaddr()`, `%A`.
    pub fn describe(&self, pid: u32, addr: u64) -> String {
        let r = self.resolve(pid, addr);
        match (&r.module, &r.function) {
            (Some(m), Some((f, 0))) => format!("{m}`{f}"),
            (Some(m), Some((f, off))) => format!("{m}`{f}+0x{off:x}"),
            (Some(m), None) => format!("{m}`0x{addr:x}"),
            _ => format!("0x{addr:x}"),
        }
    }

    /// As [`describe`](Self::describe) for a return address: looked up one
    /// byte before it (a call that ends a function returns just past it),
    /// with the offset still from the return address.
    pub fn describe_return(&self, pid: u32, addr: u64) -> String {
        let r = self.resolve(pid, addr.wrapping_sub(1));
        match (&r.module, &r.function) {
            (Some(m), Some((f, off))) => format!("{m}`{f}+0x{:x}", off.wrapping_add(1)),
            (Some(m), None) => format!("{m}`0x{addr:x}"),
            _ => format!("0x{addr:x}"),
        }
    }

    /// The variable holding data address `addr` of process `pid`, as
    /// `module`variable` or `module`variable+0xoff` (plockstat's lock
    /// names); None when no object's data symbol covers it (heap, stack).
    /// Every module is asked, since a variable in `.bss` may lie past the
    /// object's file-backed mappings.
    pub fn describe_data(&self, pid: u32, addr: u64) -> Option<String> {
        let mut g = self.lock();
        let space = g.space(pid, None)?;
        space.modules.iter().find_map(|m| {
            let s = m.object.as_ref()?.lookup_data(addr.wrapping_sub(m.bias))?;
            let off = addr.wrapping_sub(m.bias).wrapping_sub(s.addr);
            Some(match off {
                0 => format!("{}`{}", m.name, s.name),
                _ => format!("{}`{}+0x{off:x}", m.name, s.name),
            })
        })
    }

    /// `module`function` (`usym()`, `ufunc()`), else as [`describe`](Self::describe).
    pub fn function(&self, pid: u32, addr: u64) -> String {
        let r = self.resolve(pid, addr);
        match (&r.module, &r.function) {
            (Some(m), Some((f, _))) => format!("{m}`{f}"),
            (Some(m), None) => format!("{m}`0x{addr:x}"),
            _ => format!("0x{addr:x}"),
        }
    }

    /// The module (`umod()`), or `0xaddr`.
    pub fn module(&self, pid: u32, addr: u64) -> String {
        match self.resolve(pid, addr).module {
            Some(m) => m,
            None => format!("0x{addr:x}"),
        }
    }

    /// `module:0xoffset-in-mapping`, or `0xaddr` (`-x noresolve`).
    pub fn unresolved(&self, pid: u32, addr: u64) -> String {
        let r = self.resolve(pid, addr);
        match (&r.module, r.map_offset) {
            (Some(m), Some(off)) => format!("{m}:0x{off:x}"),
            _ => format!("0x{addr:x}"),
        }
    }

    /// Unwinds a captured stack of process `pid` (see [`Regs`]): at most `max`
    /// addresses, the probe's pc first. Empty when the pid's space is unknown.
    pub fn unwind(
        &self,
        pid: u32,
        regs: Regs,
        stack_addr: u64,
        stack: &[u8],
        max: usize,
    ) -> Vec<u64> {
        let mut g = self.lock();
        if g.space(pid, Some(regs.ip)).is_none() {
            return Vec::new();
        }
        let Some(p) = g.procs.get_mut(&pid) else {
            return Vec::new();
        };
        let space = &p.space;
        let u = p.unwinder.get_or_insert_with(|| SpaceUnwinder::new(space));
        u.unwind(regs, stack_addr, stack, max)
    }
}

/// The text of `/proc/PID/maps`; None when the process is gone, or is a
/// zombie (whose maps read empty: what was read before is kept).
fn read_maps(pid: u32) -> Option<String> {
    std::fs::read_to_string(format!("/proc/{pid}/maps"))
        .ok()
        .filter(|t| !t.is_empty())
}

impl Inner {
    /// The space of `pid`: read at first sight, and again when `addr` is in no
    /// object while the process lives (a library mapped since, or an exec).
    fn space(&mut self, pid: u32, addr: Option<u64>) -> Option<&Space> {
        if pid == 0 {
            return None;
        }
        let stale = match (self.procs.get(&pid), addr) {
            (None, _) => true,
            // Not in a mapped object: maybe mapped since (dlopen, or an
            // exec since the space was read), so look again while it lives.
            (Some(p), Some(a)) => {
                p.alive && p.space.mapping(a).and_then(|m| m.path.as_ref()).is_none()
            }
            (Some(_), None) => false,
        };
        if stale {
            match read_maps(pid) {
                Some(text) => {
                    if self.procs.get(&pid).map_or(true, |p| p.maps_text != text) {
                        self.install(pid, text);
                    }
                }
                // Gone: keep what was read, and stop trying.
                None => {
                    if let Some(p) = self.procs.get_mut(&pid) {
                        p.alive = false;
                    }
                }
            }
        }
        self.procs.get(&pid).map(|p| &p.space)
    }

    /// Builds and keeps the space of `pid` from its maps text.
    fn install(&mut self, pid: u32, text: String) {
        let root = format!("/proc/{pid}/root");
        let space = Space::new(maps::parse(&text), |path, inode| {
            self.object(&root, path, inode)
        });
        self.procs.insert(
            pid,
            Proc {
                space,
                maps_text: text,
                alive: true,
                unwinder: None,
            },
        );
    }

    /// The object at `path` (through the process's root when it can be read
    /// there), cached by file and by build-id.
    fn object(&mut self, root: &str, path: &str, inode: u64) -> Option<Arc<ElfObject>> {
        let key = (path.to_string(), inode);
        if let Some(o) = self.objects.get(&key) {
            return o.clone();
        }
        let through_root = format!("{root}{path}");
        let obj = ElfObject::load(&through_root, path).or_else(|| ElfObject::load(path, path));
        let obj = obj.map(|o| match o.build_id.clone() {
            Some(id) => self
                .by_build_id
                .entry(id)
                .or_insert_with(|| Arc::new(o))
                .clone(),
            None => Arc::new(o),
        });
        self.objects.insert(key, obj.clone());
        obj
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[inline(never)]
    fn marker() -> u64 {
        marker as fn() -> u64 as usize as u64
    }

    #[test]
    fn resolves_own_function_and_module() {
        let syms = UserSymbols::new();
        let pid = std::process::id();
        let addr = marker();
        let r = syms.resolve(pid, addr + 1);
        let exe = std::env::current_exe().expect("exe");
        let name = exe
            .file_name()
            .and_then(|n| n.to_str())
            .unwrap_or("")
            .to_string();
        assert_eq!(r.module.as_deref(), Some(name.as_str()));
        let (f, off) = r.function.expect("function");
        assert!(f.contains("marker"), "{f}");
        assert_eq!(off, 1);
        assert_eq!(r.function_start, Some(addr));
        assert!(syms.describe(pid, addr).contains("marker"));
        assert!(syms
            .unresolved(pid, addr)
            .starts_with(&format!("{name}:0x")));
        // Unknown processes print in hex.
        assert_eq!(syms.describe(0, 0x1234), "0x1234");
    }

    static NAMED_DATA: [u64; 4] = [1, 2, 3, 4];

    #[test]
    fn names_variables_by_their_symbol() {
        let syms = UserSymbols::new();
        let pid = std::process::id();
        let at = std::hint::black_box(&NAMED_DATA) as *const [u64; 4] as u64;
        let first = syms.describe_data(pid, at).expect("a data symbol");
        assert!(first.contains("NAMED_DATA"), "{first}");
        assert!(!first.contains('+'), "{first}");
        let third = syms
            .describe_data(pid, at + 16)
            .expect("inside the variable");
        assert!(third.ends_with("+0x10"), "{third}");
        // A heap address is in no variable.
        let heap = Box::new(7u64);
        assert_eq!(syms.describe_data(pid, &*heap as *const u64 as u64), None);
    }
}
