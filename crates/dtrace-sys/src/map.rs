//! BPF maps: creation, element operations, iteration and batch reads.
//!
//! Keys and values are raw native-endian bytes; sizes are checked against the
//! map's definition before the kernel sees a pointer. For per-CPU maps a value
//! buffer holds one slot per possible CPU, each rounded up to 8 bytes
//! ([`MapFd::value_buf_size`]).

use crate::cpu::{self, CpuError};
use crate::sys::{obj_name, owned_fd, Attr, Cmd, Errno, SysRef};
use std::collections::HashSet;
use std::fmt;
use std::os::fd::{AsFd, AsRawFd, BorrowedFd, OwnedFd, RawFd};

/// Map types dtrace uses (uapi `enum bpf_map_type`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[repr(u32)]
pub enum MapType {
    Hash = 1,
    Array = 2,
    PercpuHash = 5,
    PercpuArray = 6,
    StackTrace = 7,
    Queue = 22,
    RingBuf = 27,
}

impl MapType {
    pub fn is_percpu(self) -> bool {
        matches!(self, MapType::PercpuHash | MapType::PercpuArray)
    }
}

/// `map_flags`: do not preallocate hash elements.
pub const BPF_F_NO_PREALLOC: u32 = 1 << 0;
/// `map_flags`: programs may only read the map.
pub const BPF_F_RDONLY_PROG: u32 = 1 << 7;
/// `map_flags`: the array map can be mmap()ed.
pub const BPF_F_MMAPABLE: u32 = 1 << 10;

/// How `update` treats an existing or missing key.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[repr(u64)]
pub enum UpdateFlags {
    /// Create or replace.
    Any = 0,
    /// Create only.
    NoExist = 1,
    /// Replace only.
    Exist = 2,
}

/// What to create.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MapSpec {
    /// Up to 15 characters of `[A-Za-z0-9_.]` are kept.
    pub name: String,
    pub map_type: MapType,
    pub key_size: u32,
    pub value_size: u32,
    /// For a ring buffer: its size in bytes (a power of two, a multiple of the page size).
    pub max_entries: u32,
    pub flags: u32,
}

impl MapSpec {
    /// A ring buffer of `size` bytes.
    pub fn ringbuf(name: &str, size: u32) -> MapSpec {
        MapSpec {
            name: name.to_string(),
            map_type: MapType::RingBuf,
            key_size: 0,
            value_size: 0,
            max_entries: size,
            flags: 0,
        }
    }
}

/// Map errors.
#[derive(Debug)]
pub enum MapError {
    Create { name: String, errno: Errno },
    Op { op: &'static str, errno: Errno },
    KeySize { expected: u32, got: usize },
    ValueSize { expected: usize, got: usize },
    Cpu(CpuError),
}

impl fmt::Display for MapError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            MapError::Create { name, errno } => {
                write!(f, "failed to create BPF map '{name}': {errno}")
            }
            MapError::Op { op, errno } => write!(f, "BPF map {op} failed: {errno}"),
            MapError::KeySize { expected, got } => {
                write!(f, "BPF map key is {got} bytes, expected {expected}")
            }
            MapError::ValueSize { expected, got } => {
                write!(
                    f,
                    "BPF map value buffer is {got} bytes, expected {expected}"
                )
            }
            MapError::Cpu(e) => write!(f, "{e}"),
        }
    }
}

impl std::error::Error for MapError {}

/// One (key, value) pair read from a map; the value as `lookup` returns it.
pub type Entry = (Vec<u8>, Vec<u8>);

/// An open map; closed on drop.
#[derive(Debug)]
pub struct MapFd {
    fd: OwnedFd,
    sys: SysRef,
    spec: MapSpec,
    ncpus: u32,
}

// uapi offsets of `union bpf_attr` members used here.
pub(crate) const CREATE_TYPE: usize = 0;
pub(crate) const CREATE_KEY_SIZE: usize = 4;
pub(crate) const CREATE_VALUE_SIZE: usize = 8;
pub(crate) const CREATE_MAX_ENTRIES: usize = 12;
const CREATE_FLAGS: usize = 16;
pub(crate) const CREATE_NAME: usize = 28;
pub(crate) const ELEM_FD: usize = 0;
pub(crate) const ELEM_KEY: usize = 8;
pub(crate) const ELEM_VALUE: usize = 16;
pub(crate) const ELEM_FLAGS: usize = 24;
const BATCH_IN: usize = 0;
const BATCH_OUT: usize = 8;
const BATCH_KEYS: usize = 16;
const BATCH_VALUES: usize = 24;
const BATCH_COUNT: usize = 32;
const BATCH_FD: usize = 36;
const INFO_FD: usize = 0;
const INFO_LEN: usize = 4;
const INFO_PTR: usize = 8;

/// The `MAP_CREATE` attribute for `spec`.
pub fn create_attr(spec: &MapSpec) -> Attr {
    let mut a = Attr::new();
    a.set_u32(CREATE_TYPE, spec.map_type as u32);
    a.set_u32(CREATE_KEY_SIZE, spec.key_size);
    a.set_u32(CREATE_VALUE_SIZE, spec.value_size);
    a.set_u32(CREATE_MAX_ENTRIES, spec.max_entries);
    a.set_u32(CREATE_FLAGS, spec.flags);
    a.set_bytes(CREATE_NAME, &obj_name(&spec.name));
    a
}

/// The id the kernel gave a map or program fd (`OBJ_GET_INFO_BY_FD`).
pub(crate) fn obj_id(sys: &SysRef, fd: BorrowedFd<'_>) -> Result<u32, Errno> {
    // Big enough for bpf_prog_info (232 bytes) and bpf_map_info (88); `id` is at 4.
    let mut info = [0u64; 32];
    let mut a = Attr::new();
    a.set_u32(INFO_FD, fd.as_raw_fd() as u32);
    a.set_u32(INFO_LEN, std::mem::size_of_val(&info) as u32);
    a.set_ptr(INFO_PTR, info.as_mut_ptr());
    // SAFETY: `info` is a writable buffer of the size given in info_len, live until
    // the call returns.
    unsafe { sys.bpf(Cmd::ObjGetInfoByFd, &mut a) }?;
    Ok((info[0] >> 32) as u32)
}

impl MapFd {
    /// A second descriptor of the same map (for another thread's writes).
    pub fn try_clone(&self) -> std::io::Result<MapFd> {
        Ok(MapFd {
            fd: self.fd.try_clone()?,
            sys: self.sys.clone(),
            spec: self.spec.clone(),
            ncpus: self.ncpus,
        })
    }

    /// Create a map.
    pub fn create(sys: &SysRef, spec: &MapSpec) -> Result<MapFd, MapError> {
        let ncpus = if spec.map_type.is_percpu() {
            cpu::num_possible_cpus().map_err(MapError::Cpu)?
        } else {
            1
        };
        let mut a = create_attr(spec);
        let err = |errno| MapError::Create {
            name: spec.name.clone(),
            errno,
        };
        // SAFETY: MAP_CREATE's attribute holds no pointers.
        let r = unsafe { sys.bpf(Cmd::MapCreate, &mut a) }.map_err(err)?;
        // SAFETY: MAP_CREATE returns a new fd that we now own.
        let fd = unsafe { owned_fd(r) }.map_err(err)?;
        Ok(MapFd {
            fd,
            sys: sys.clone(),
            spec: spec.clone(),
            ncpus,
        })
    }

    pub fn spec(&self) -> &MapSpec {
        &self.spec
    }

    /// Slots in a per-CPU value buffer (1 for other maps).
    pub fn possible_cpus(&self) -> u32 {
        self.ncpus
    }

    /// Size of the buffer `lookup` fills: the value size, or for per-CPU maps one
    /// 8-byte-aligned slot per possible CPU.
    pub fn value_buf_size(&self) -> usize {
        if self.spec.map_type.is_percpu() {
            cpu::percpu_stride(self.spec.value_size) * self.ncpus as usize
        } else {
            self.spec.value_size as usize
        }
    }

    /// The kernel's id for this map (as shown by `bpftool map`).
    pub fn id(&self) -> Result<u32, MapError> {
        obj_id(&self.sys, self.fd.as_fd()).map_err(|errno| MapError::Op {
            op: "get info",
            errno,
        })
    }

    fn check_key(&self, key: &[u8]) -> Result<(), MapError> {
        if key.len() != self.spec.key_size as usize {
            return Err(MapError::KeySize {
                expected: self.spec.key_size,
                got: key.len(),
            });
        }
        Ok(())
    }

    fn check_value(&self, value: &[u8]) -> Result<(), MapError> {
        let expected = self.value_buf_size();
        if value.len() != expected {
            return Err(MapError::ValueSize {
                expected,
                got: value.len(),
            });
        }
        Ok(())
    }

    fn elem_attr(&self, key: *const u8, value: u64, flags: u64) -> Attr {
        let mut a = Attr::new();
        a.set_u32(ELEM_FD, self.fd.as_raw_fd() as u32);
        a.set_ptr(ELEM_KEY, key);
        a.set_u64(ELEM_VALUE, value);
        a.set_u64(ELEM_FLAGS, flags);
        a
    }

    /// Look up `key` into `value` (sized [`Self::value_buf_size`]). False if absent.
    pub fn lookup_into(&self, key: &[u8], value: &mut [u8]) -> Result<bool, MapError> {
        self.check_key(key)?;
        self.check_value(value)?;
        let mut a = self.elem_attr(key.as_ptr(), value.as_mut_ptr() as usize as u64, 0);
        // SAFETY: key and value were checked to be exactly the sizes the kernel
        // copies for this map; both outlive the call.
        match unsafe { self.sys.bpf(Cmd::MapLookupElem, &mut a) } {
            Ok(_) => Ok(true),
            Err(Errno(libc::ENOENT)) => Ok(false),
            Err(errno) => Err(MapError::Op {
                op: "lookup",
                errno,
            }),
        }
    }

    /// Look up `key`; `None` if absent.
    pub fn lookup(&self, key: &[u8]) -> Result<Option<Vec<u8>>, MapError> {
        let mut v = vec![0u8; self.value_buf_size()];
        Ok(self.lookup_into(key, &mut v)?.then_some(v))
    }

    /// Create or replace an element (`value` sized [`Self::value_buf_size`]).
    pub fn update(&self, key: &[u8], value: &[u8], flags: UpdateFlags) -> Result<(), MapError> {
        self.check_key(key)?;
        self.check_value(value)?;
        let mut a = self.elem_attr(key.as_ptr(), value.as_ptr() as usize as u64, flags as u64);
        // SAFETY: key and value have the sizes the kernel reads; both outlive the call.
        unsafe { self.sys.bpf(Cmd::MapUpdateElem, &mut a) }
            .map(|_| ())
            .map_err(|errno| MapError::Op {
                op: "update",
                errno,
            })
    }

    /// Push `value` onto a queue map (`BPF_MAP_TYPE_QUEUE`: the key is empty).
    pub fn push(&self, value: &[u8]) -> Result<(), MapError> {
        self.check_value(value)?;
        let mut a = self.elem_attr(std::ptr::null(), value.as_ptr() as usize as u64, 0);
        // SAFETY: a queue map takes no key (NULL) and reads value_size bytes of
        // `value`, which was checked to be that long and outlives the call.
        unsafe { self.sys.bpf(Cmd::MapUpdateElem, &mut a) }
            .map(|_| ())
            .map_err(|errno| MapError::Op { op: "push", errno })
    }

    /// Delete `key`; false if it was absent.
    pub fn delete(&self, key: &[u8]) -> Result<bool, MapError> {
        self.check_key(key)?;
        let mut a = self.elem_attr(key.as_ptr(), 0, 0);
        // SAFETY: key has the size the kernel reads and outlives the call.
        match unsafe { self.sys.bpf(Cmd::MapDeleteElem, &mut a) } {
            Ok(_) => Ok(true),
            Err(Errno(libc::ENOENT)) => Ok(false),
            Err(errno) => Err(MapError::Op {
                op: "delete",
                errno,
            }),
        }
    }

    /// The key after `key` (the first key for `None`); `None` at the end.
    pub fn next_key(&self, key: Option<&[u8]>) -> Result<Option<Vec<u8>>, MapError> {
        if let Some(k) = key {
            self.check_key(k)?;
        }
        let mut next = vec![0u8; self.spec.key_size as usize];
        let kp = key.map_or(std::ptr::null(), |k| k.as_ptr());
        let mut a = self.elem_attr(kp, next.as_mut_ptr() as usize as u64, 0);
        // SAFETY: the key (or NULL) and the next-key buffer are key_size bytes and
        // outlive the call.
        match unsafe { self.sys.bpf(Cmd::MapGetNextKey, &mut a) } {
            Ok(_) => Ok(Some(next)),
            Err(Errno(libc::ENOENT)) => Ok(None),
            Err(errno) => Err(MapError::Op {
                op: "get next key",
                errno,
            }),
        }
    }

    /// All keys, by `get_next_key`. Bounded and de-duplicated: if keys are deleted
    /// meanwhile, the kernel may restart from the first key.
    pub fn keys(&self) -> Result<Vec<Vec<u8>>, MapError> {
        let mut seen = HashSet::new();
        let mut out = Vec::new();
        let mut cur: Option<Vec<u8>> = None;
        let limit = self.spec.max_entries as usize * 2 + 16;
        for _ in 0..limit {
            match self.next_key(cur.as_deref())? {
                Some(k) => {
                    if seen.insert(k.clone()) {
                        out.push(k.clone());
                    }
                    cur = Some(k);
                }
                None => break,
            }
        }
        Ok(out)
    }

    /// Every (key, value) pair: `MAP_LOOKUP_BATCH` where the kernel supports it for
    /// this map, otherwise `get_next_key` plus `lookup`.
    pub fn entries(&self) -> Result<Vec<Entry>, MapError> {
        match self.lookup_batch_all() {
            Ok(v) => Ok(v),
            Err(MapError::Op { errno, .. }) if errno.is_unsupported() => self.entries_slow(),
            Err(e) => Err(e),
        }
    }

    /// `get_next_key` + `lookup`; keys deleted meanwhile are skipped.
    pub fn entries_slow(&self) -> Result<Vec<Entry>, MapError> {
        let mut out = Vec::new();
        for k in self.keys()? {
            if let Some(v) = self.lookup(&k)? {
                out.push((k, v));
            }
        }
        Ok(out)
    }

    /// Every (key, value) pair by `MAP_LOOKUP_BATCH` only. An error with an
    /// "unsupported" errno (see [`Errno::is_unsupported`]) on the first call means
    /// the map type has no batch support.
    pub fn lookup_batch_all(&self) -> Result<Vec<Entry>, MapError> {
        let ks = self.spec.key_size as usize;
        let vs = self.value_buf_size();
        // Hash maps use a u32 bucket cursor, arrays a key; 8 bytes covers both.
        let token = ks.max(8);
        let mut in_batch = vec![0u8; token];
        let mut out_batch = vec![0u8; token];
        let mut chunk = (self.spec.max_entries as usize).clamp(1, 4096);
        let mut out = Vec::new();
        let mut first = true;
        loop {
            let mut keys = vec![0u8; chunk * ks.max(1)];
            let mut vals = vec![0u8; chunk * vs.max(1)];
            let mut a = Attr::new();
            if !first {
                a.set_ptr(BATCH_IN, in_batch.as_ptr());
            }
            a.set_ptr(BATCH_OUT, out_batch.as_mut_ptr());
            a.set_ptr(BATCH_KEYS, keys.as_mut_ptr());
            a.set_ptr(BATCH_VALUES, vals.as_mut_ptr());
            a.set_u32(BATCH_COUNT, chunk as u32);
            a.set_u32(BATCH_FD, self.fd.as_raw_fd() as u32);
            // SAFETY: in/out batch tokens are at least key_size (and 8) bytes; the key
            // and value buffers hold `count` keys and `count` values of this map's
            // user-space sizes; all live until the call returns.
            let r = unsafe { self.sys.bpf(Cmd::MapLookupBatch, &mut a) };
            let got = (a.get_u32(BATCH_COUNT) as usize).min(chunk);
            let done = match r {
                Ok(_) => false,
                Err(Errno(libc::ENOENT)) => true,
                Err(Errno(libc::ENOSPC)) if got == 0 && chunk < (1 << 20) => {
                    // A hash bucket holds more elements than `chunk`.
                    chunk *= 2;
                    continue;
                }
                Err(errno) => {
                    return Err(MapError::Op {
                        op: "lookup batch",
                        errno,
                    })
                }
            };
            for i in 0..got {
                let k = keys.get(i * ks..(i + 1) * ks).unwrap_or_default();
                let v = vals.get(i * vs..(i + 1) * vs).unwrap_or_default();
                out.push((k.to_vec(), v.to_vec()));
            }
            if done || (got == 0 && !first) {
                break;
            }
            in_batch.copy_from_slice(&out_batch);
            first = false;
        }
        Ok(out)
    }

    /// Make the map read-only for user space from now on (`MAP_FREEZE`).
    pub fn freeze(&self) -> Result<(), MapError> {
        let mut a = Attr::new();
        a.set_u32(ELEM_FD, self.fd.as_raw_fd() as u32);
        // SAFETY: MAP_FREEZE's attribute holds no pointers.
        unsafe { self.sys.bpf(Cmd::MapFreeze, &mut a) }
            .map(|_| ())
            .map_err(|errno| MapError::Op {
                op: "freeze",
                errno,
            })
    }

    /// The kernel interface this map was created through.
    pub fn sys(&self) -> &SysRef {
        &self.sys
    }
}

impl AsFd for MapFd {
    fn as_fd(&self) -> BorrowedFd<'_> {
        self.fd.as_fd()
    }
}

impl AsRawFd for MapFd {
    fn as_raw_fd(&self) -> RawFd {
        self.fd.as_raw_fd()
    }
}

/// Split a per-CPU value buffer into one `value_size` slice per CPU.
pub fn percpu_values(buf: &[u8], value_size: u32) -> impl Iterator<Item = &[u8]> {
    let stride = cpu::percpu_stride(value_size);
    buf.chunks(stride.max(1))
        .map(move |c| c.get(..value_size as usize).unwrap_or(c))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn create_attr_layout() {
        let spec = MapSpec {
            name: "dt_aggs".into(),
            map_type: MapType::PercpuHash,
            key_size: 16,
            value_size: 24,
            max_entries: 1024,
            flags: BPF_F_NO_PREALLOC,
        };
        let a = create_attr(&spec);
        assert_eq!(a.get_u32(0), 5);
        assert_eq!(a.get_u32(4), 16);
        assert_eq!(a.get_u32(8), 24);
        assert_eq!(a.get_u32(12), 1024);
        assert_eq!(a.get_u32(16), 1);
        assert_eq!(&a.as_bytes()[28..36], b"dt_aggs\0");
        assert!(a.as_bytes()[36..].iter().all(|b| *b == 0));
        let rb = create_attr(&MapSpec::ringbuf("buf", 1 << 16));
        assert_eq!((rb.get_u32(0), rb.get_u32(12)), (27, 65536));
    }

    #[test]
    fn percpu_split() {
        let buf: Vec<u8> = (0u8..24).collect();
        let v: Vec<&[u8]> = percpu_values(&buf, 4).collect();
        assert_eq!(
            v,
            vec![&[0u8, 1, 2, 3][..], &[8, 9, 10, 11], &[16, 17, 18, 19]]
        );
    }
}
