//! Consumer side of a `BPF_MAP_TYPE_RINGBUF` map.
//!
//! Kernel ABI: the map is mmap()ed as one read-write consumer page (holding
//! `consumer_pos`), then, read-only, one producer page (holding `producer_pos`)
//! followed by the data area. The kernel lets a reader map the data area twice in
//! a row so that a wrapping record is contiguous, but it maps every page of the
//! mapping at mmap() time, so the second copy would double dtrace's resident size
//! (16 MiB for the default 8 MiB ring). We map it once and copy the rare record
//! that wraps around the end into a scratch buffer. Each record starts with an 8-byte header:
//! a u32 length whose bit 31 means "still being written" (BUSY) and bit 30
//! "discarded" (DISCARD), then a u32 page offset. Records are 8-byte aligned.

use crate::map::{MapFd, MapType};
use crate::sys::Errno;
use std::fmt;
use std::os::fd::{AsFd, AsRawFd, FromRawFd, OwnedFd};
use std::ptr::NonNull;
use std::sync::atomic::{AtomicU32, AtomicU64, Ordering};
use std::time::Duration;

/// Header bit: the producer has reserved but not yet committed the record.
pub const RINGBUF_BUSY_BIT: u32 = 1 << 31;
/// Header bit: the producer discarded the record; skip it.
pub const RINGBUF_DISCARD_BIT: u32 = 1 << 30;
/// Size of a record header.
pub const RINGBUF_HDR_SZ: u64 = 8;

/// Ring buffer errors.
#[derive(Debug)]
pub enum RingBufError {
    NotRingBuf,
    Dup(std::io::Error),
    Mmap(Errno),
    Epoll(Errno),
    /// A header announced a record larger than the buffer.
    Corrupt {
        pos: u64,
        len: u32,
    },
}

impl fmt::Display for RingBufError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RingBufError::NotRingBuf => f.write_str("map is not a ring buffer"),
            RingBufError::Dup(e) => write!(f, "cannot duplicate ring buffer fd: {e}"),
            RingBufError::Mmap(e) => write!(f, "cannot map ring buffer: {e}"),
            RingBufError::Epoll(e) => write!(f, "cannot wait on ring buffer: {e}"),
            RingBufError::Corrupt { pos, len } => {
                write!(f, "corrupt ring buffer record of {len} bytes at {pos}")
            }
        }
    }
}

impl std::error::Error for RingBufError {}

/// A decoded record header.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RecordHeader {
    pub len: u32,
    pub busy: bool,
    pub discard: bool,
}

impl RecordHeader {
    /// Decode the length word of a record header.
    pub fn parse(word: u32) -> RecordHeader {
        RecordHeader {
            len: word & !(RINGBUF_BUSY_BIT | RINGBUF_DISCARD_BIT),
            busy: word & RINGBUF_BUSY_BIT != 0,
            discard: word & RINGBUF_DISCARD_BIT != 0,
        }
    }

    /// Bytes the record occupies in the ring, header included, 8-aligned.
    pub fn total_len(&self) -> u64 {
        (self.len as u64 + RINGBUF_HDR_SZ + 7) & !7
    }
}

/// Consume every committed record between `cons` and `prod`. A record whose
/// payload wraps around the end of the data area is copied into `scratch`.
///
/// # Safety
/// `data` must point to `mask + 1` readable bytes, 8-aligned, and stay valid for
/// the call; `mask + 1` must be a power of two and a multiple of 8.
unsafe fn consume(
    cons: &AtomicU64,
    prod: &AtomicU64,
    data: *const u8,
    mask: u64,
    scratch: &mut Vec<u8>,
    f: &mut dyn FnMut(&[u8]),
) -> Result<usize, RingBufError> {
    let size = (mask + 1) as usize;
    let mut count = 0;
    let mut pos = cons.load(Ordering::Acquire);
    loop {
        let end = prod.load(Ordering::Acquire);
        if pos >= end {
            return Ok(count);
        }
        while pos < end {
            let off = (pos & mask) as usize;
            // SAFETY: off < size and 8-aligned as every record is, so the 4-byte
            // word is inside the area; the kernel writes it concurrently, hence the
            // atomic acquire load, which orders the payload reads after it.
            let word = unsafe { (*(data.add(off) as *const AtomicU32)).load(Ordering::Acquire) };
            let hdr = RecordHeader::parse(word);
            if hdr.busy {
                return Ok(count);
            }
            if hdr.total_len() > mask + 1 {
                return Err(RingBufError::Corrupt { pos, len: hdr.len });
            }
            if !hdr.discard {
                let start = (off + RINGBUF_HDR_SZ as usize) & (size - 1);
                let len = hdr.len as usize;
                let first = len.min(size - start);
                // SAFETY: start < size and first <= size - start, so the slice is
                // inside the area; the producer has committed these bytes and will
                // not reuse them until consumer_pos passes them.
                let head = unsafe { std::slice::from_raw_parts(data.add(start), first) };
                if first == len {
                    f(head);
                } else {
                    // SAFETY: len - first < size (len < total_len <= size): the
                    // wrapped tail at the start of the area, committed likewise.
                    let tail = unsafe { std::slice::from_raw_parts(data, len - first) };
                    scratch.clear();
                    scratch.extend_from_slice(head);
                    scratch.extend_from_slice(tail);
                    f(scratch);
                }
                count += 1;
            }
            pos += hdr.total_len();
            cons.store(pos, Ordering::Release);
        }
    }
}

/// One mmap()ed region, unmapped on drop.
#[derive(Debug)]
struct Mapping {
    ptr: NonNull<u8>,
    len: usize,
}

impl Mapping {
    fn new(fd: &OwnedFd, len: usize, prot: i32, offset: i64) -> Result<Mapping, RingBufError> {
        // SAFETY: a fresh shared mapping of `fd` chosen by the kernel; it aliases
        // no Rust object.
        let p = unsafe {
            libc::mmap(
                std::ptr::null_mut(),
                len,
                prot,
                libc::MAP_SHARED,
                fd.as_raw_fd(),
                offset as libc::off_t,
            )
        };
        if p == libc::MAP_FAILED {
            return Err(RingBufError::Mmap(Errno::last()));
        }
        let ptr = NonNull::new(p as *mut u8).ok_or(RingBufError::Mmap(Errno(libc::ENOMEM)))?;
        Ok(Mapping { ptr, len })
    }
}

impl Drop for Mapping {
    fn drop(&mut self) {
        // SAFETY: ptr/len are exactly what mmap returned; no reference into the
        // mapping outlives `RingBuf`, which owns it.
        unsafe { libc::munmap(self.ptr.as_ptr() as *mut libc::c_void, self.len) };
    }
}

/// Reader of one BPF ring buffer.
#[derive(Debug)]
pub struct RingBuf {
    consumer: Mapping,
    producer: Mapping,
    page: usize,
    mask: u64,
    /// Where a record that wraps around the end of the data area is joined.
    scratch: Vec<u8>,
    epoll: OwnedFd,
    _map: OwnedFd,
}

// SAFETY: the mappings are plain shared memory owned by this value, reached only
// through `&mut self` (poll) or atomics; moving it to another thread is sound.
unsafe impl Send for RingBuf {}

impl RingBuf {
    /// Map `map` (a ring buffer) for reading.
    pub fn new(map: &MapFd) -> Result<RingBuf, RingBufError> {
        let spec = map.spec();
        let size = spec.max_entries as usize;
        if spec.map_type != MapType::RingBuf || !size.is_power_of_two() {
            return Err(RingBufError::NotRingBuf);
        }
        let fd = map
            .as_fd()
            .try_clone_to_owned()
            .map_err(RingBufError::Dup)?;
        // SAFETY: sysconf has no memory-safety preconditions.
        let page = unsafe { libc::sysconf(libc::_SC_PAGESIZE) };
        let page = if page > 0 { page as usize } else { 4096 };
        let consumer = Mapping::new(&fd, page, libc::PROT_READ | libc::PROT_WRITE, 0)?;
        let producer = Mapping::new(&fd, page + size, libc::PROT_READ, page as i64)?;
        // SAFETY: epoll_create1 has no memory-safety preconditions.
        let ep = unsafe { libc::epoll_create1(libc::EPOLL_CLOEXEC) };
        if ep < 0 {
            return Err(RingBufError::Epoll(Errno::last()));
        }
        // SAFETY: epoll_create1 returned a new fd we own.
        let epoll = unsafe { OwnedFd::from_raw_fd(ep) };
        let mut ev = libc::epoll_event {
            events: libc::EPOLLIN as u32,
            u64: 0,
        };
        // SAFETY: both fds are live; `ev` is a valid epoll_event for the call.
        let r = unsafe {
            libc::epoll_ctl(
                epoll.as_raw_fd(),
                libc::EPOLL_CTL_ADD,
                fd.as_raw_fd(),
                &mut ev,
            )
        };
        if r < 0 {
            return Err(RingBufError::Epoll(Errno::last()));
        }
        Ok(RingBuf {
            consumer,
            producer,
            page,
            mask: size as u64 - 1,
            scratch: Vec::new(),
            epoll,
            _map: fd,
        })
    }

    fn positions(&self) -> (&AtomicU64, &AtomicU64) {
        // SAFETY: both mappings are at least a page long and page-aligned; the
        // positions are u64s at offset 0 that the kernel and we access atomically.
        unsafe {
            (
                &*(self.consumer.ptr.as_ptr() as *const AtomicU64),
                &*(self.producer.ptr.as_ptr() as *const AtomicU64),
            )
        }
    }

    /// Bytes written by producers and not yet consumed.
    pub fn pending(&self) -> u64 {
        let (c, p) = self.positions();
        p.load(Ordering::Acquire)
            .saturating_sub(c.load(Ordering::Acquire))
    }

    /// Call `f` on every committed record, in order; returns how many were read.
    /// Stops at a record still being written.
    pub fn poll(&mut self, mut f: impl FnMut(&[u8])) -> Result<usize, RingBufError> {
        // SAFETY: both mappings are at least a page long and page-aligned; the
        // positions are u64s at offset 0 that the kernel and we access atomically.
        let (cons, prod) = unsafe {
            (
                &*(self.consumer.ptr.as_ptr() as *const AtomicU64),
                &*(self.producer.ptr.as_ptr() as *const AtomicU64),
            )
        };
        // SAFETY: the data area starts one page into the producer mapping, which
        // is `page + size` bytes long; size (mask + 1) is a power of two >= 4096.
        unsafe {
            let data = self.producer.ptr.as_ptr().add(self.page) as *const u8;
            consume(cons, prod, data, self.mask, &mut self.scratch, &mut f)
        }
    }

    /// Wait until the kernel signals new data or `timeout` passes (`None`: forever).
    /// Returns true if woken by data. An interrupted wait returns false.
    pub fn wait(&self, timeout: Option<Duration>) -> Result<bool, RingBufError> {
        let ms = match timeout {
            None => -1,
            Some(d) => d.as_millis().min(i32::MAX as u128) as i32,
        };
        let mut ev = libc::epoll_event { events: 0, u64: 0 };
        // SAFETY: `ev` has room for the one event requested.
        let r = unsafe { libc::epoll_wait(self.epoll.as_raw_fd(), &mut ev, 1, ms) };
        if r < 0 {
            let e = Errno::last();
            return if e.0 == libc::EINTR {
                Ok(false)
            } else {
                Err(RingBufError::Epoll(e))
            };
        }
        Ok(r > 0)
    }

    /// Also end [`RingBuf::wait`] when `fd` becomes readable (a signalfd, say).
    /// The caller keeps `fd` open for as long as the ring buffer is waited on.
    pub fn add_wake_fd(&self, fd: std::os::fd::BorrowedFd<'_>) -> Result<(), RingBufError> {
        let mut ev = libc::epoll_event {
            events: libc::EPOLLIN as u32,
            u64: 1,
        };
        // SAFETY: both fds are live for the call; `ev` is a valid epoll_event.
        let r = unsafe {
            libc::epoll_ctl(
                self.epoll.as_raw_fd(),
                libc::EPOLL_CTL_ADD,
                fd.as_raw_fd(),
                &mut ev,
            )
        };
        if r < 0 {
            return Err(RingBufError::Epoll(Errno::last()));
        }
        Ok(())
    }

    /// The epoll fd, for callers that multiplex several sources.
    pub fn epoll_fd(&self) -> std::os::fd::BorrowedFd<'_> {
        self.epoll.as_fd()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A fake ring of `size` data bytes, mapped once as dtrace maps it.
    struct Fake {
        cons: AtomicU64,
        prod: AtomicU64,
        data: Vec<u64>,
        size: usize,
    }

    impl Fake {
        fn new(size: usize) -> Fake {
            Fake {
                cons: AtomicU64::new(0),
                prod: AtomicU64::new(0),
                data: vec![0; size / 8],
                size,
            }
        }

        fn put_byte(&mut self, pos: u64, b: u8) {
            let j = (pos as usize) & (self.size - 1);
            let w = &mut self.data[j / 8];
            let mut bytes = w.to_ne_bytes();
            bytes[j % 8] = b;
            *w = u64::from_ne_bytes(bytes);
        }

        fn push(&mut self, payload: &[u8], flags: u32) {
            let pos = self.prod.load(Ordering::Relaxed);
            let word = payload.len() as u32 | flags;
            for (k, b) in word.to_ne_bytes().iter().enumerate() {
                self.put_byte(pos + k as u64, *b);
            }
            for (k, b) in payload.iter().enumerate() {
                self.put_byte(pos + 8 + k as u64, *b);
            }
            let total = RecordHeader::parse(word).total_len();
            self.prod.store(pos + total, Ordering::Release);
        }

        fn drain(&self) -> (Result<usize, RingBufError>, Vec<Vec<u8>>) {
            let mut got = Vec::new();
            let mut scratch = Vec::new();
            // SAFETY: `data` is `size` bytes, 8-aligned.
            let r = unsafe {
                consume(
                    &self.cons,
                    &self.prod,
                    self.data.as_ptr() as *const u8,
                    self.size as u64 - 1,
                    &mut scratch,
                    &mut |r: &[u8]| got.push(r.to_vec()),
                )
            };
            (r, got)
        }
    }

    #[test]
    fn header_bits() {
        let h = RecordHeader::parse(RINGBUF_BUSY_BIT | 5);
        assert_eq!((h.len, h.busy, h.discard), (5, true, false));
        let h = RecordHeader::parse(RINGBUF_DISCARD_BIT | 16);
        assert_eq!((h.len, h.busy, h.discard), (16, false, true));
        assert_eq!(h.total_len(), 24);
        assert_eq!(RecordHeader::parse(5).total_len(), 16);
    }

    #[test]
    fn reads_skips_discarded_and_stops_at_busy() {
        let mut f = Fake::new(64);
        f.push(b"hello", 0);
        f.push(b"gone", RINGBUF_DISCARD_BIT);
        f.push(b"world!!!", 0);
        let (r, got) = f.drain();
        assert_eq!(r.ok(), Some(2));
        assert_eq!(got, vec![b"hello".to_vec(), b"world!!!".to_vec()]);
        assert_eq!(f.cons.load(Ordering::Relaxed), 16 + 16 + 16);

        f.push(b"busy", RINGBUF_BUSY_BIT);
        let (r, got) = f.drain();
        assert_eq!((r.ok(), got.len()), (Some(0), 0));
        assert_eq!(f.cons.load(Ordering::Relaxed), 48, "not advanced past busy");
    }

    #[test]
    fn records_wrap_around_the_end() {
        let mut f = Fake::new(64);
        f.push(&[1; 40], 0); // 48 bytes
        let (_, got) = f.drain();
        assert_eq!(got.len(), 1);
        let payload: Vec<u8> = (0..24).collect(); // starts at 48, wraps at 64
        f.push(&payload, 0);
        let (r, got) = f.drain();
        assert_eq!(r.ok(), Some(1));
        assert_eq!(got, vec![payload]);
    }

    #[test]
    fn payload_starting_exactly_at_the_end_wraps_to_the_start() {
        let mut f = Fake::new(64);
        f.push(&[7; 48], 0); // 56 bytes: the next header sits in the last 8 bytes
        let _ = f.drain();
        let payload: Vec<u8> = (100..116).collect();
        f.push(&payload, 0);
        let (r, got) = f.drain();
        assert_eq!(r.ok(), Some(1));
        assert_eq!(got, vec![payload]);
        assert_eq!(f.cons.load(Ordering::Relaxed), 56 + 24);
    }

    #[test]
    fn oversized_header_is_an_error() {
        let mut f = Fake::new(64);
        for (k, b) in 1000u32.to_ne_bytes().iter().enumerate() {
            f.put_byte(k as u64, *b);
        }
        f.prod.store(8, Ordering::Release);
        assert!(matches!(f.drain().0, Err(RingBufError::Corrupt { .. })));
    }
}
