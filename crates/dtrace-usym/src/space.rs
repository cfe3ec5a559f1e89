//! A process's address space: its mappings grouped into modules (one per
//! mapped file), each with its ELF object and load bias.

use crate::elf::ElfObject;
use crate::maps::Mapping;
use std::sync::Arc;

/// One mapped object.
#[derive(Clone)]
pub struct Module {
    /// Lowest and highest address of the object's mappings.
    pub start: u64,
    pub end: u64,
    /// Base name, as dtrace prints modules (`libc.so.6`).
    pub name: String,
    /// Runtime address minus object address (SVMA).
    pub bias: u64,
    pub object: Option<Arc<ElfObject>>,
    path: Option<String>,
    inode: u64,
}

/// The mappings and modules of one process, as last read.
#[derive(Clone, Default)]
pub struct Space {
    pub maps: Vec<Mapping>,
    pub modules: Vec<Module>,
}

impl Space {
    /// Builds the modules from `maps`, loading objects through `load(path, inode)`.
    pub fn new(
        maps: Vec<Mapping>,
        mut load: impl FnMut(&str, u64) -> Option<Arc<ElfObject>>,
    ) -> Space {
        let mut modules: Vec<Module> = Vec::new();
        for m in &maps {
            let Some(name) = m.name() else { continue };
            if let Some(last) = modules.last_mut() {
                if last.path == m.path && last.inode == m.inode && m.start >= last.end {
                    last.end = m.end;
                    continue;
                }
            }
            let object = m.file().and_then(|p| load(p, m.inode));
            modules.push(Module {
                start: m.start,
                end: m.end,
                name: name.to_string(),
                bias: 0,
                object,
                path: m.path.clone(),
                inode: m.inode,
            });
        }
        // The load bias, from any mapping whose file offset falls in a PT_LOAD.
        for md in &mut modules {
            let Some(obj) = &md.object else { continue };
            let bias = maps
                .iter()
                .filter(|m| m.start >= md.start && m.end <= md.end)
                .find_map(|m| {
                    let seg = obj.segment_for_mapping(m.offset)?;
                    Some(
                        m.start
                            .wrapping_sub(m.offset)
                            .wrapping_add(seg.offset)
                            .wrapping_sub(seg.vaddr),
                    )
                });
            md.bias = bias.unwrap_or(md.start);
        }
        Space { maps, modules }
    }

    pub fn mapping(&self, addr: u64) -> Option<&Mapping> {
        self.maps.iter().find(|m| m.contains(addr))
    }

    pub fn module(&self, addr: u64) -> Option<&Module> {
        self.modules
            .iter()
            .find(|m| m.start <= addr && addr < m.end)
    }
}
