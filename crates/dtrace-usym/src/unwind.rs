//! Unwinding a captured user stack: the registers at the probe (ip, sp, bp)
//! and a copy of the stack memory above sp, unwound with the objects'
//! `.eh_frame`/`.debug_frame` CFI by framehop (frame pointers as its fallback),
//! so code built without frame pointers still gives whole stacks.

use crate::elf::Bytes;
use crate::space::Space;
use framehop::x86_64::{CacheX86_64, UnwindRegsX86_64, UnwinderX86_64};
use framehop::{ExplicitModuleSectionInfo, Module, Unwinder};

/// The registers the probe captured.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Regs {
    pub ip: u64,
    pub sp: u64,
    pub bp: u64,
}

/// A framehop unwinder for one address space, with its rule cache.
pub struct SpaceUnwinder {
    unwinder: UnwinderX86_64<Bytes>,
    cache: CacheX86_64,
}

impl SpaceUnwinder {
    pub fn new(space: &Space) -> SpaceUnwinder {
        let mut unwinder = UnwinderX86_64::new();
        for m in &space.modules {
            let Some(obj) = &m.object else { continue };
            let u = &obj.unwind;
            if u.eh_frame.is_none() && u.debug_frame.is_none() {
                continue;
            }
            let info = ExplicitModuleSectionInfo {
                base_svma: 0,
                text_svma: u.text.as_ref().map(|s| s.svma.clone()),
                text: u.text.as_ref().map(|s| s.data.clone()),
                got_svma: u.got.clone(),
                eh_frame_svma: u.eh_frame.as_ref().map(|s| s.svma.clone()),
                eh_frame: u.eh_frame.as_ref().map(|s| s.data.clone()),
                eh_frame_hdr_svma: u.eh_frame_hdr.as_ref().map(|s| s.svma.clone()),
                eh_frame_hdr: u.eh_frame_hdr.as_ref().map(|s| s.data.clone()),
                debug_frame: u.debug_frame.clone(),
                ..Default::default()
            };
            unwinder.add_module(Module::new(m.name.clone(), m.start..m.end, m.bias, info));
        }
        SpaceUnwinder {
            unwinder,
            cache: CacheX86_64::new(),
        }
    }

    /// Up to `max` frames (the probe's pc first, then return addresses), from
    /// `regs` and the stack bytes `stack` that were at address `stack_addr`.
    pub fn unwind(&mut self, regs: Regs, stack_addr: u64, stack: &[u8], max: usize) -> Vec<u64> {
        let mut read = |addr: u64| -> Result<u64, ()> {
            let off = addr.checked_sub(stack_addr).ok_or(())? as usize;
            let w = stack.get(off..off.checked_add(8).ok_or(())?).ok_or(())?;
            let mut b = [0u8; 8];
            b.copy_from_slice(w);
            Ok(u64::from_le_bytes(b))
        };
        let mut out = Vec::new();
        let mut it = self.unwinder.iter_frames(
            regs.ip,
            UnwindRegsX86_64::new(regs.ip, regs.sp, regs.bp),
            &mut self.cache,
            &mut read,
        );
        while out.len() < max {
            match it.next() {
                Ok(Some(f)) if f.address() != 0 => out.push(f.address()),
                _ => break,
            }
        }
        out
    }
}
