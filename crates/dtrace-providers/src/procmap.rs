//! A traced process's address space, as the pid and usdt providers see it:
//! the ELF objects it maps (from `/proc/PID/maps`, read when probes are
//! matched), their module names, and where a user-space probe attaches.

use crate::elf::Elf;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// Where a user-space probe attaches: an instruction of a file, in one process.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct UprobeSite {
    pub path: PathBuf,
    /// File offset of the instruction.
    pub offset: u64,
    /// File offset of the USDT semaphore (0: none).
    pub ref_ctr_offset: u64,
    pub pid: u32,
    /// A return probe.
    pub ret: bool,
    /// A return probe's return sites: the offsets in the function of its
    /// `ret` instructions and tail-call jumps. Each gets a marker uprobe that
    /// tells the return probe which one returned (its `arg0`).
    pub returns: Vec<u64>,
}

/// One object mapped in the process.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Object {
    pub path: PathBuf,
    /// Its module name: the file's base name (`libc.so.6`).
    pub name: String,
    /// The process's executable (`a.out`).
    pub is_exe: bool,
}

/// A failure to read a process.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GrabError(pub String);

/// The ELF objects process `pid` has mapped executable, the executable first,
/// then in address order.
pub fn objects(pid: u32) -> Result<Vec<Object>, GrabError> {
    let maps = std::fs::read_to_string(format!("/proc/{pid}/maps"))
        .map_err(|e| GrabError(e.to_string()))?;
    let exe = std::fs::read_link(format!("/proc/{pid}/exe")).ok();
    let mut out: Vec<Object> = Vec::new();
    for line in maps.lines() {
        let mut parts = line.split_ascii_whitespace();
        let perms = parts.nth(1).unwrap_or("");
        let path = parts.nth(3).unwrap_or("");
        if !perms.contains('x') || !path.starts_with('/') || line.ends_with(" (deleted)") {
            continue;
        }
        let path = PathBuf::from(path);
        if out.iter().any(|o| o.path == path) {
            continue;
        }
        let is_exe = exe.as_deref() == Some(path.as_path());
        out.push(Object {
            name: base_name(&path),
            is_exe,
            path,
        });
    }
    out.sort_by_key(|o| !o.is_exe);
    Ok(out)
}

pub fn base_name(path: &Path) -> String {
    path.file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default()
}

/// Does the module name `want` (not a glob) name object `o`? `a.out` is the
/// executable; a base name (`libc.so.6`), a full path, or a base name without
/// its version or `.so` suffix (`libc`, `libc.so`) name a library.
pub fn names_object(want: &str, o: &Object) -> bool {
    if want == "a.out" {
        return o.is_exe;
    }
    if want == o.name || Path::new(want) == o.path {
        return true;
    }
    o.name
        .strip_prefix(want)
        .is_some_and(|rest| rest.starts_with('.'))
}

/// Parsed objects, read once per match.
#[derive(Default)]
pub struct ElfCache {
    files: BTreeMap<PathBuf, Option<Elf>>,
}

impl ElfCache {
    pub fn get(&mut self, path: &Path) -> Option<&Elf> {
        self.files
            .entry(path.to_path_buf())
            .or_insert_with(|| Elf::open(path).ok())
            .as_ref()
    }

    /// [`ElfCache::get`], keeping (and giving) only objects with section
    /// `name`: a scan of many files holds on to few of them.
    pub fn get_with(&mut self, path: &Path, name: &str) -> Option<&Elf> {
        self.files
            .entry(path.to_path_buf())
            .or_insert_with(|| {
                if Elf::file_has_section(path, name) {
                    Elf::open(path).ok()
                } else {
                    None
                }
            })
            .as_ref()
    }
}

/// Offset of `r_state` in glibc's `struct r_debug` (x86_64: after
/// `r_version`, `r_map` and `r_brk`).
const R_STATE: u64 = 24;

/// Where the dynamic linker process `pid` runs under has its rendezvous
/// (`_dl_debug_state`, and `_r_debug.r_state` relative to it): in the one
/// object mapped there that defines both. None for a static executable.
pub fn rendezvous(pid: u32) -> Option<dtrace_sys::rtld::Rendezvous> {
    let mut objects = objects(pid).ok()?;
    // ld.so is named so; look at it first.
    objects.sort_by_key(|o| !o.name.starts_with("ld"));
    objects.iter().find_map(|o| {
        let elf = crate::elf::Elf::open(&o.path).ok()?;
        let brk = elf.symbol_value("_dl_debug_state")?;
        let state = elf.symbol_value("_r_debug")? + R_STATE;
        Some(dtrace_sys::rtld::Rendezvous {
            path: o.path.clone(),
            offset: elf.file_offset(brk)?,
            state_delta: state.wrapping_sub(brk) as i64,
        })
    })
}

/// Split a provider name into its prefix and trailing process ID
/// (`pid123` -> `("pid", 123)`), if it ends in one.
pub fn split_pid(provider: &str) -> Option<(&str, u32)> {
    let digits = provider
        .bytes()
        .rev()
        .take_while(u8::is_ascii_digit)
        .count();
    if digits == 0 {
        return None;
    }
    let (prefix, num) = provider.split_at(provider.len() - digits);
    if prefix.is_empty() {
        return None;
    }
    num.parse().ok().map(|pid| (prefix, pid))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn obj(path: &str, is_exe: bool) -> Object {
        Object {
            path: PathBuf::from(path),
            name: base_name(Path::new(path)),
            is_exe,
        }
    }

    #[test]
    fn module_names() {
        let libc = obj("/usr/lib/x86_64-linux-gnu/libc.so.6", false);
        let exe = obj("/tmp/prog", true);
        assert!(names_object("libc.so.6", &libc));
        assert!(names_object("libc", &libc));
        assert!(names_object("libc.so", &libc));
        assert!(names_object("/usr/lib/x86_64-linux-gnu/libc.so.6", &libc));
        assert!(!names_object("lib", &libc));
        assert!(!names_object("a.out", &libc));
        assert!(names_object("a.out", &exe));
        assert!(names_object("prog", &exe));
    }

    #[test]
    fn provider_pids() {
        assert_eq!(split_pid("pid123"), Some(("pid", 123)));
        assert_eq!(split_pid("my_prov7"), Some(("my_prov", 7)));
        assert_eq!(split_pid("pid"), None);
        assert_eq!(split_pid("123"), None);
    }

    #[test]
    fn this_process_maps_its_executable() {
        let objs = objects(std::process::id()).expect("own maps");
        assert!(objs.first().is_some_and(|o| o.is_exe));
        assert!(objects(u32::MAX).is_err());
    }
}
