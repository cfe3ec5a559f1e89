//! A fake kernel for unit tests ([`FakeSys`]), so that code above the choke point
//! (maps, program loading, the runtime) tests without root.
//!
//! It keeps map contents in memory with the kernel's semantics for arrays and
//! hashes (update flags, capacity, freezing, key iteration), records every call,
//! copies each loaded program, and fails any command on request. Every fd it
//! hands out is a real fd (a `/dev/null` open), as [`Sys`] requires.
//!
//! Built for this crate's tests and, with the `fake` feature, for other crates'.

use crate::map::{
    CREATE_KEY_SIZE, CREATE_MAX_ENTRIES, CREATE_NAME, CREATE_TYPE, CREATE_VALUE_SIZE, ELEM_FD,
    ELEM_FLAGS, ELEM_KEY, ELEM_VALUE,
};
use crate::prog::{
    LOAD_INSNS, LOAD_INSN_CNT, LOAD_LOG_BUF, LOAD_LOG_LEVEL, LOAD_LOG_SIZE, LOAD_LOG_TRUE_SIZE,
    LOAD_NAME,
};
use crate::sys::{Attr, Cmd, Errno, PerfAttr, PerfIoctl, Sys};
use crate::{cpu, MapType};
use std::collections::{BTreeMap, HashMap};
use std::os::fd::{BorrowedFd, IntoRawFd, OwnedFd};
use std::sync::{Mutex, MutexGuard};

/// One call the fake received.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Call {
    Bpf(Cmd),
    /// `perf_event_open` with the attribute's `type` and `config`.
    PerfOpen {
        type_: u32,
        config: u64,
    },
    PerfIoctl(PerfIoctl),
}

/// A program the fake loaded: its name and its instructions as bytes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Loaded {
    pub name: String,
    pub code: Vec<u8>,
}

impl Loaded {
    /// The immediate of instruction `i` (bytes 4..8), as map-fd relocations set it.
    pub fn imm(&self, i: usize) -> Option<i32> {
        let b = self.code.get(i * 8 + 4..i * 8 + 8)?;
        Some(i32::from_ne_bytes([b[0], b[1], b[2], b[3]]))
    }
}

#[derive(Debug)]
struct FakeMap {
    name: String,
    map_type: u32,
    key_size: usize,
    /// Bytes user space reads and writes per element (all CPUs for per-CPU maps).
    value_len: usize,
    max_entries: u32,
    frozen: bool,
    entries: BTreeMap<Vec<u8>, Vec<u8>>,
}

impl FakeMap {
    fn is_array(&self) -> bool {
        self.map_type == MapType::Array as u32 || self.map_type == MapType::PercpuArray as u32
    }

    fn index(&self, key: &[u8]) -> Option<u32> {
        let b: [u8; 4] = key.get(..4)?.try_into().ok()?;
        Some(u32::from_ne_bytes(b)).filter(|i| *i < self.max_entries)
    }
}

#[derive(Debug, Default)]
struct State {
    calls: Vec<Call>,
    /// Commands to fail: the errno, and how many more times (None: always).
    failures: Vec<(Cmd, Errno, Option<u32>)>,
    maps: HashMap<i32, FakeMap>,
    loaded: Vec<Loaded>,
    /// `(log_level, log_size)` of each PROG_LOAD.
    log_requests: Vec<(u32, u32)>,
    verifier_log: Option<(String, usize)>,
}

/// The fake kernel. Share it as a [`crate::SysRef`] and keep an `Arc` to inspect it.
#[derive(Debug, Default)]
pub struct FakeSys {
    state: Mutex<State>,
}

fn devnull() -> Result<OwnedFd, Errno> {
    std::fs::File::open("/dev/null")
        .map(OwnedFd::from)
        .map_err(|e| Errno(e.raw_os_error().unwrap_or(libc::EMFILE)))
}

fn cstr(bytes: &[u8]) -> String {
    let end = bytes.iter().position(|b| *b == 0).unwrap_or(bytes.len());
    String::from_utf8_lossy(&bytes[..end]).into_owned()
}

impl FakeSys {
    pub fn new() -> FakeSys {
        FakeSys::default()
    }

    fn state(&self) -> MutexGuard<'_, State> {
        // A test that panicked while holding the lock has failed already; the
        // state is still usable for its report.
        self.state.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Fail every later `cmd` with `errno`.
    pub fn fail(&self, cmd: Cmd, errno: i32) {
        self.state().failures.push((cmd, Errno(errno), None));
    }

    /// Fail the next `cmd` only.
    pub fn fail_once(&self, cmd: Cmd, errno: i32) {
        self.state().failures.push((cmd, Errno(errno), Some(1)));
    }

    /// Refuse every program as the verifier does: EACCES, with `log` written to
    /// the log buffer when one is given; a buffer smaller than `need` bytes gets
    /// ENOSPC and the size it needs.
    pub fn reject_programs(&self, log: &str, need: usize) {
        self.state().verifier_log = Some((log.to_string(), need));
    }

    /// Every call so far, in order.
    pub fn calls(&self) -> Vec<Call> {
        self.state().calls.clone()
    }

    /// How many `bpf(cmd)` calls there were.
    pub fn count(&self, cmd: Cmd) -> usize {
        let want = Call::Bpf(cmd);
        self.state().calls.iter().filter(|c| **c == want).count()
    }

    /// The programs loaded so far.
    pub fn loaded(&self) -> Vec<Loaded> {
        self.state().loaded.clone()
    }

    /// `(log_level, log_size)` of each program load, in order.
    pub fn log_requests(&self) -> Vec<(u32, u32)> {
        self.state().log_requests.clone()
    }

    /// The entries of the live map named `name` (the kernel's 15-byte name).
    pub fn entries(&self, name: &str) -> Option<BTreeMap<Vec<u8>, Vec<u8>>> {
        let st = self.state();
        st.maps
            .values()
            .find(|m| m.name == name)
            .map(|m| m.entries.clone())
    }

    /// Whether the live map named `name` is frozen.
    pub fn frozen(&self, name: &str) -> Option<bool> {
        let st = self.state();
        st.maps.values().find(|m| m.name == name).map(|m| m.frozen)
    }

    fn injected(st: &mut State, cmd: Cmd) -> Option<Errno> {
        let i = st.failures.iter().position(|(c, _, _)| *c == cmd)?;
        let errno = st.failures[i].1;
        if let Some(n) = &mut st.failures[i].2 {
            *n -= 1;
            if *n == 0 {
                st.failures.remove(i);
            }
        }
        Some(errno)
    }

    fn create(st: &mut State, attr: &Attr) -> Result<i64, Errno> {
        let map_type = attr.get_u32(CREATE_TYPE);
        let value_size = attr.get_u32(CREATE_VALUE_SIZE);
        let percpu =
            map_type == MapType::PercpuArray as u32 || map_type == MapType::PercpuHash as u32;
        let value_len = if percpu {
            let n = cpu::num_possible_cpus().map_err(|_| Errno(libc::EINVAL))?;
            cpu::percpu_stride(value_size) * n as usize
        } else {
            value_size as usize
        };
        let fd = devnull()?.into_raw_fd();
        let name = cstr(
            attr.as_bytes()
                .get(CREATE_NAME..CREATE_NAME + 16)
                .unwrap_or(&[]),
        );
        st.maps.insert(
            fd,
            FakeMap {
                name,
                map_type,
                key_size: attr.get_u32(CREATE_KEY_SIZE) as usize,
                value_len,
                max_entries: attr.get_u32(CREATE_MAX_ENTRIES),
                frozen: false,
                entries: BTreeMap::new(),
            },
        );
        Ok(fd as i64)
    }

    /// # Safety
    /// As [`Sys::bpf`]: the key, value and next-key pointers in `attr` are valid
    /// for the map's sizes.
    unsafe fn element(st: &mut State, cmd: Cmd, attr: &Attr) -> Result<i64, Errno> {
        let fd = attr.get_u32(ELEM_FD) as i32;
        let m = st.maps.get_mut(&fd).ok_or(Errno(libc::EBADF))?;
        let key_ptr = attr.get_u64(ELEM_KEY) as usize as *const u8;
        let value_ptr = attr.get_u64(ELEM_VALUE) as usize as *mut u8;
        let key = if key_ptr.is_null() {
            None
        } else {
            // SAFETY: the caller passes key_size readable bytes at `key_ptr`.
            Some(unsafe { std::slice::from_raw_parts(key_ptr, m.key_size) }.to_vec())
        };
        match cmd {
            Cmd::MapLookupElem => {
                let key = key.ok_or(Errno(libc::EFAULT))?;
                let zeros = vec![0u8; m.value_len];
                let v = match m.entries.get(&key) {
                    Some(v) => v,
                    None if m.is_array() && m.index(&key).is_some() => &zeros,
                    None => return Err(Errno(libc::ENOENT)),
                };
                // SAFETY: the caller passes a value buffer of the map's user size.
                unsafe { std::ptr::copy_nonoverlapping(v.as_ptr(), value_ptr, m.value_len) };
                Ok(0)
            }
            Cmd::MapUpdateElem => {
                let key = key.ok_or(Errno(libc::EFAULT))?;
                if m.frozen {
                    return Err(Errno(libc::EPERM));
                }
                let flags = attr.get_u64(ELEM_FLAGS);
                let present = m.entries.contains_key(&key);
                if m.is_array() {
                    if m.index(&key).is_none() {
                        return Err(Errno(libc::E2BIG));
                    }
                    if flags == 1 {
                        return Err(Errno(libc::EEXIST));
                    }
                } else if flags == 1 && present {
                    return Err(Errno(libc::EEXIST));
                } else if flags == 2 && !present {
                    return Err(Errno(libc::ENOENT));
                } else if !present && m.entries.len() >= m.max_entries as usize {
                    return Err(Errno(libc::E2BIG));
                }
                // SAFETY: the caller passes a value of the map's user size.
                let v = unsafe { std::slice::from_raw_parts(value_ptr, m.value_len) }.to_vec();
                m.entries.insert(key, v);
                Ok(0)
            }
            Cmd::MapDeleteElem => {
                let key = key.ok_or(Errno(libc::EFAULT))?;
                if m.is_array() {
                    return Err(Errno(libc::EINVAL));
                }
                m.entries.remove(&key).map(|_| 0).ok_or(Errno(libc::ENOENT))
            }
            _ => {
                // MapGetNextKey: the key after `key` (the first for NULL).
                let next = if m.is_array() {
                    let i = match &key {
                        None => 0,
                        Some(k) => m.index(k).map_or(0, |i| i + 1),
                    };
                    (i < m.max_entries).then(|| i.to_ne_bytes().to_vec())
                } else {
                    match &key {
                        None => m.entries.keys().next().cloned(),
                        // The kernel restarts from the first key when `k` is gone.
                        Some(k) if !m.entries.contains_key(k) => m.entries.keys().next().cloned(),
                        Some(k) => m
                            .entries
                            .range::<Vec<u8>, _>((
                                std::ops::Bound::Excluded(k),
                                std::ops::Bound::Unbounded,
                            ))
                            .next()
                            .map(|(k, _)| k.clone()),
                    }
                };
                let next = next.ok_or(Errno(libc::ENOENT))?;
                // SAFETY: the caller passes a key_size buffer for the next key.
                unsafe { std::ptr::copy_nonoverlapping(next.as_ptr(), value_ptr, m.key_size) };
                Ok(0)
            }
        }
    }

    /// # Safety
    /// As [`Sys::bpf`] for `PROG_LOAD`.
    unsafe fn load(st: &mut State, attr: &mut Attr) -> Result<i64, Errno> {
        st.log_requests
            .push((attr.get_u32(LOAD_LOG_LEVEL), attr.get_u32(LOAD_LOG_SIZE)));
        if let Some((log, need)) = st.verifier_log.clone() {
            let level = attr.get_u32(LOAD_LOG_LEVEL);
            let size = attr.get_u32(LOAD_LOG_SIZE) as usize;
            let buf = attr.get_u64(LOAD_LOG_BUF) as usize as *mut u8;
            if level > 0 && !buf.is_null() && size > 0 {
                let mut text = log.into_bytes();
                text.truncate(size - 1);
                text.push(0);
                // SAFETY: the caller passes a log buffer of `size` bytes.
                unsafe { std::ptr::copy_nonoverlapping(text.as_ptr(), buf, text.len()) };
                if size < need {
                    attr.set_u32(LOAD_LOG_TRUE_SIZE, need as u32);
                    return Err(Errno(libc::ENOSPC));
                }
            }
            return Err(Errno(libc::EACCES));
        }
        let n = attr.get_u32(LOAD_INSN_CNT) as usize;
        let insns = attr.get_u64(LOAD_INSNS) as usize as *const u8;
        if insns.is_null() || n == 0 {
            return Err(Errno(libc::EINVAL));
        }
        // SAFETY: the caller passes `insn_cnt` 8-byte instructions.
        let code = unsafe { std::slice::from_raw_parts(insns, n * 8) }.to_vec();
        let name = cstr(
            attr.as_bytes()
                .get(LOAD_NAME..LOAD_NAME + 16)
                .unwrap_or(&[]),
        );
        st.loaded.push(Loaded { name, code });
        Ok(devnull()?.into_raw_fd() as i64)
    }
}

impl Sys for FakeSys {
    unsafe fn bpf(&self, cmd: Cmd, attr: &mut Attr) -> Result<i64, Errno> {
        let mut st = self.state();
        st.calls.push(Call::Bpf(cmd));
        if let Some(errno) = FakeSys::injected(&mut st, cmd) {
            return Err(errno);
        }
        match cmd {
            Cmd::MapCreate => FakeSys::create(&mut st, attr),
            Cmd::MapLookupElem | Cmd::MapUpdateElem | Cmd::MapDeleteElem | Cmd::MapGetNextKey => {
                // SAFETY: forwarded from the caller's contract.
                unsafe { FakeSys::element(&mut st, cmd, attr) }
            }
            Cmd::MapFreeze => {
                let fd = attr.get_u32(ELEM_FD) as i32;
                let m = st.maps.get_mut(&fd).ok_or(Errno(libc::EBADF))?;
                m.frozen = true;
                Ok(0)
            }
            // SAFETY: forwarded from the caller's contract.
            Cmd::ProgLoad => unsafe { FakeSys::load(&mut st, attr) },
            Cmd::LinkCreate | Cmd::RawTracepointOpen | Cmd::BtfLoad => {
                Ok(devnull()?.into_raw_fd() as i64)
            }
            _ => Err(Errno(libc::EINVAL)),
        }
    }

    fn perf_event_open(
        &self,
        attr: &PerfAttr,
        _pid: i32,
        _cpu: i32,
        _group_fd: i32,
        _flags: u64,
    ) -> Result<OwnedFd, Errno> {
        self.state().calls.push(Call::PerfOpen {
            type_: attr.get_u32(crate::perf::ATTR_TYPE),
            config: attr.get_u64(crate::perf::ATTR_CONFIG),
        });
        devnull()
    }

    fn perf_ioctl(&self, _fd: BorrowedFd<'_>, op: PerfIoctl) -> Result<(), Errno> {
        self.state().calls.push(Call::PerfIoctl(op));
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{MapFd, MapSpec, SysRef, UpdateFlags};
    use std::sync::Arc;

    fn map(sys: &SysRef, name: &str, map_type: MapType, max_entries: u32) -> MapFd {
        let spec = MapSpec {
            name: name.into(),
            map_type,
            key_size: 4,
            value_size: 8,
            max_entries,
            flags: 0,
        };
        match MapFd::create(sys, &spec) {
            Ok(m) => m,
            Err(e) => panic!("fake map create: {e}"),
        }
    }

    fn k(i: u32) -> [u8; 4] {
        i.to_ne_bytes()
    }

    #[test]
    fn hash_maps_keep_the_kernel_update_rules() {
        let fake = Arc::new(FakeSys::new());
        let sys: SysRef = fake.clone();
        let m = map(&sys, "h", MapType::Hash, 2);
        let v = 7u64.to_ne_bytes();
        assert!(matches!(m.lookup(&k(1)), Ok(None)));
        assert!(m.update(&k(1), &v, UpdateFlags::Exist).is_err());
        assert!(m.update(&k(1), &v, UpdateFlags::NoExist).is_ok());
        assert!(m.update(&k(1), &v, UpdateFlags::NoExist).is_err());
        assert!(m.update(&k(2), &v, UpdateFlags::Any).is_ok());
        // Full: a third key does not fit, a present one still updates.
        assert!(m.update(&k(3), &v, UpdateFlags::Any).is_err());
        assert!(m.update(&k(2), &v, UpdateFlags::Exist).is_ok());
        assert_eq!(m.lookup(&k(1)).ok().flatten(), Some(v.to_vec()));
        assert_eq!(m.keys().ok().map(|ks| ks.len()), Some(2));
        assert!(matches!(m.delete(&k(1)), Ok(true)));
        assert!(matches!(m.delete(&k(1)), Ok(false)));
        assert_eq!(fake.entries("h").map(|e| e.len()), Some(1));
    }

    #[test]
    fn arrays_read_zero_and_freeze() {
        let fake = Arc::new(FakeSys::new());
        let sys: SysRef = fake.clone();
        let m = map(&sys, "a", MapType::Array, 3);
        assert_eq!(m.lookup(&k(2)).ok().flatten(), Some(vec![0u8; 8]));
        assert!(matches!(m.lookup(&k(3)), Ok(None)));
        assert!(m.update(&k(3), &[0u8; 8], UpdateFlags::Any).is_err());
        assert!(m.update(&k(0), &[1u8; 8], UpdateFlags::Any).is_ok());
        assert_eq!(m.keys().ok().map(|ks| ks.len()), Some(3));
        assert!(m.freeze().is_ok());
        assert_eq!(fake.frozen("a"), Some(true));
        assert!(m.update(&k(0), &[2u8; 8], UpdateFlags::Any).is_err());
        assert_eq!(m.lookup(&k(0)).ok().flatten(), Some(vec![1u8; 8]));
    }

    #[test]
    fn injected_failures_fail_the_named_command() {
        let fake = Arc::new(FakeSys::new());
        let sys: SysRef = fake.clone();
        fake.fail_once(Cmd::MapCreate, libc::EPERM);
        let spec = MapSpec {
            name: "x".into(),
            map_type: MapType::Array,
            key_size: 4,
            value_size: 8,
            max_entries: 1,
            flags: 0,
        };
        let err = MapFd::create(&sys, &spec).err().map(|e| e.to_string());
        assert_eq!(
            err.as_deref(),
            Some("failed to create BPF map 'x': Operation not permitted")
        );
        assert!(MapFd::create(&sys, &spec).is_ok(), "only once");
        assert_eq!(fake.count(Cmd::MapCreate), 2);
    }
}
