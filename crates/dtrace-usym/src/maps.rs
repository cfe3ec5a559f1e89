//! `/proc/PID/maps`: the mappings of a process's address space.

/// One line of `/proc/PID/maps`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Mapping {
    pub start: u64,
    pub end: u64,
    /// `r`, `w`, `x` as four characters (`r-xp`).
    pub perms: String,
    /// File offset of `start`.
    pub offset: u64,
    pub inode: u64,
    /// The file path, or a pseudo name (`[stack]`, `[vdso]`); `None` when anonymous.
    pub path: Option<String>,
}

impl Mapping {
    pub fn contains(&self, addr: u64) -> bool {
        self.start <= addr && addr < self.end
    }
    pub fn executable(&self) -> bool {
        self.perms.as_bytes().get(2) == Some(&b'x')
    }
    pub fn writable(&self) -> bool {
        self.perms.as_bytes().get(1) == Some(&b'w')
    }
    /// Backed by a file (not anonymous, not `[vdso]`-like).
    pub fn file(&self) -> Option<&str> {
        self.path.as_deref().filter(|p| p.starts_with('/'))
    }
    /// The name dtrace prints for the mapped object: the file's base name, or
    /// the pseudo name.
    pub fn name(&self) -> Option<&str> {
        let p = self.path.as_deref()?;
        let p = p.strip_suffix(" (deleted)").unwrap_or(p);
        Some(p.rsplit('/').next().unwrap_or(p))
    }
}

/// Parses the text of a maps file; malformed lines are skipped.
pub fn parse(text: &str) -> Vec<Mapping> {
    text.lines().filter_map(parse_line).collect()
}

fn parse_line(line: &str) -> Option<Mapping> {
    let mut it = line.splitn(6, ' ');
    let range = it.next()?;
    let perms = it.next()?.to_string();
    let offset = u64::from_str_radix(it.next()?, 16).ok()?;
    let _dev = it.next()?;
    let inode = it.next()?.parse().ok()?;
    let path = it
        .next()
        .map(str::trim)
        .filter(|p| !p.is_empty())
        .map(String::from);
    let (s, e) = range.split_once('-')?;
    Some(Mapping {
        start: u64::from_str_radix(s, 16).ok()?,
        end: u64::from_str_radix(e, 16).ok()?,
        perms,
        offset,
        inode,
        path,
    })
}

/// Reads `/proc/PID/maps` (None when the process is gone or unreadable).
pub fn read(pid: u32) -> Option<Vec<Mapping>> {
    std::fs::read_to_string(format!("/proc/{pid}/maps"))
        .ok()
        .map(|t| parse(&t))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_lines() {
        let t = "55d0c0a00000-55d0c0a01000 r--p 00000000 fe:01 1234                       /usr/bin/prog\n\
                 55d0c0a01000-55d0c0a02000 r-xp 00001000 fe:01 1234                       /usr/bin/prog\n\
                 7ffd1000-7ffd2000 rw-p 00000000 00:00 0                          [stack]\n\
                 7f0000000000-7f0000001000 rw-p 00000000 00:00 0 \n\
                 garbage\n";
        let m = parse(t);
        assert_eq!(m.len(), 4);
        assert_eq!(m[1].start, 0x55d0c0a01000);
        assert_eq!(m[1].offset, 0x1000);
        assert!(m[1].executable() && !m[1].writable());
        assert_eq!(m[1].name(), Some("prog"));
        assert_eq!(m[1].file(), Some("/usr/bin/prog"));
        assert_eq!(m[2].name(), Some("[stack]"));
        assert_eq!(m[2].file(), None);
        assert_eq!(m[3].path, None);
        assert!(m[1].contains(0x55d0c0a01fff) && !m[1].contains(0x55d0c0a02000));
    }
}
