//! A window onto an array map's memory: elements `first..first + count` of a
//! `BPF_F_MMAPABLE` array, mapped shared so that reading them costs no system
//! call.
//!
//! Kernel ABI: an mmapable array's values start page-aligned, element `i` at
//! `i * round_up(value_size, 8)`; `mmap` takes a page offset into them. BPF
//! programs write the same memory while we read it, so every access here is an
//! atomic load or store of one aligned 64-bit word (a value may be read half
//! old, half new, as a `MAP_LOOKUP_ELEM` copy may).

use crate::map::{MapError, MapFd, MapType, BPF_F_MMAPABLE};
use crate::sys::Errno;
use std::os::fd::AsRawFd;
use std::ptr::NonNull;
use std::sync::atomic::{AtomicU64, Ordering};

/// Elements `first..first + count` of an mmapable array, unmapped on drop.
#[derive(Debug)]
pub struct ArrayWindow {
    ptr: NonNull<u8>,
    len: usize,
    /// Bytes from the start of the mapping to element `first`.
    skip: usize,
    first: u32,
    count: u32,
    stride: usize,
    value_size: usize,
}

// SAFETY: the mapping is plain shared memory owned by this value and reached
// only through atomic word accesses, so moving it to another thread is sound.
unsafe impl Send for ArrayWindow {}

fn page_size() -> usize {
    // SAFETY: sysconf has no memory-safety preconditions.
    let p = unsafe { libc::sysconf(libc::_SC_PAGESIZE) };
    usize::try_from(p).ok().filter(|p| *p > 0).unwrap_or(4096)
}

impl ArrayWindow {
    /// Map elements `first..first + count` of `map`, which must be an array
    /// created with `BPF_F_MMAPABLE`.
    pub fn new(map: &MapFd, first: u32, count: u32) -> Result<ArrayWindow, MapError> {
        let spec = map.spec();
        let invalid = || MapError::Op {
            op: "mmap",
            errno: Errno(libc::EINVAL),
        };
        let end = first.checked_add(count).ok_or_else(invalid)?;
        if spec.map_type != MapType::Array
            || spec.flags & BPF_F_MMAPABLE == 0
            || count == 0
            || end > spec.max_entries
        {
            return Err(invalid());
        }
        let stride = crate::cpu::percpu_stride(spec.value_size);
        let page = page_size();
        let start = first as usize * stride;
        let stop = end as usize * stride;
        let offset = start / page * page;
        let len = (stop - offset).div_ceil(page) * page;
        // SAFETY: a fresh shared mapping of the map's fd chosen by the kernel;
        // it aliases no Rust object.
        let p = unsafe {
            libc::mmap(
                std::ptr::null_mut(),
                len,
                libc::PROT_READ | libc::PROT_WRITE,
                libc::MAP_SHARED,
                map.as_raw_fd(),
                offset as libc::off_t,
            )
        };
        if p == libc::MAP_FAILED {
            return Err(MapError::Op {
                op: "mmap",
                errno: Errno::last(),
            });
        }
        let ptr = NonNull::new(p as *mut u8).ok_or(MapError::Op {
            op: "mmap",
            errno: Errno(libc::ENOMEM),
        })?;
        Ok(ArrayWindow {
            ptr,
            len,
            skip: start - offset,
            first,
            count,
            stride,
            value_size: spec.value_size as usize,
        })
    }

    /// The first element mapped.
    pub fn first(&self) -> u32 {
        self.first
    }

    /// How many elements are mapped.
    pub fn count(&self) -> u32 {
        self.count
    }

    /// Whether element `elem` is mapped.
    pub fn covers(&self, elem: u32) -> bool {
        elem >= self.first && elem - self.first < self.count
    }

    /// Word `word` of element `elem`, if both are inside the window.
    fn word(&self, elem: u32, word: usize) -> Option<&AtomicU64> {
        if !self.covers(elem) || (word + 1) * 8 > self.stride {
            return None;
        }
        let at = self.skip + (elem - self.first) as usize * self.stride + word * 8;
        if at + 8 > self.len {
            return None;
        }
        // SAFETY: `at + 8 <= len`, so the word lies inside the live mapping; it
        // is 8-aligned (a page-aligned mapping, 8-byte strides and words); the
        // kernel and BPF programs only ever access it as memory, so treating it
        // as an atomic is sound, and the reference cannot outlive `self`.
        Some(unsafe { AtomicU64::from_ptr(self.ptr.as_ptr().add(at) as *mut u64) })
    }

    /// Load word `word` (of 8 bytes) of element `elem`.
    pub fn load(&self, elem: u32, word: usize) -> Option<u64> {
        self.word(elem, word).map(|w| w.load(Ordering::Acquire))
    }

    /// Store word `word` of element `elem`; false outside the window.
    pub fn store(&self, elem: u32, word: usize, v: u64) -> bool {
        self.word(elem, word)
            .map(|w| w.store(v, Ordering::Release))
            .is_some()
    }

    /// Append element `elem`'s value (`value_size` bytes) to `out`; false
    /// outside the window.
    pub fn read(&self, elem: u32, out: &mut Vec<u8>) -> bool {
        if !self.covers(elem) {
            return false;
        }
        let start = out.len();
        for w in 0..self.stride / 8 {
            match self.load(elem, w) {
                Some(v) => out.extend_from_slice(&v.to_ne_bytes()),
                None => return false,
            }
        }
        out.truncate(start + self.value_size);
        true
    }

    /// Zero element `elem`; false outside the window.
    pub fn zero(&self, elem: u32) -> bool {
        (0..self.stride / 8).all(|w| self.store(elem, w, 0))
    }
}

impl Drop for ArrayWindow {
    fn drop(&mut self) {
        // SAFETY: ptr/len are exactly what mmap returned; every reference into
        // the mapping borrows `self`.
        unsafe { libc::munmap(self.ptr.as_ptr() as *mut libc::c_void, self.len) };
    }
}
