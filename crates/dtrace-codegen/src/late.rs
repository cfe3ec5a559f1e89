//! User-space probes that join while tracing: clauses whose descriptions
//! name a process's pid/usdt providers (`pid$target:libfoo.so::entry`) or
//! USDT providers of every process (`myprov*:::`) are matched again when a
//! process maps new objects (dlopen) or, for provider globs, starts. Their
//! uprobe programs keep spare rows in the probe table (cookie -> probe,
//! clauses, argument layout) and the probe-name table (`dt_probes`), which
//! the session fills in before it attaches the new probes' links.

use crate::layout::round8;
use crate::{MapKind, MapSpec};
use dtrace_sema::{ProbeInfo, RecordField};

/// The spec id of a row that describes its own arguments.
pub const DESCRIBED: u32 = u32::MAX;

/// Spare rows of each uprobe program's probe table, and of `dt_probes`.
pub const LATE_ROWS: u32 = 1024;

/// The least room each of a probe's four names has in `dt_probes` when
/// probes may join later (names are cut there).
pub const LATE_NAME_CAP: u32 = 128;

/// A clause that may gain user-space probes while tracing.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LateClause {
    /// Its index in the program's clauses.
    pub clause: usize,
    /// It may gain entry (or offset, or USDT) probes.
    pub entry: bool,
    /// It may gain return probes.
    pub ret: bool,
}

/// What the compiler is told of the probes that may join while tracing.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct LateUprobes {
    pub clauses: Vec<LateClause>,
    /// Argument layouts the entry program serves even if no probe matched
    /// yet uses them (the pid provider's ABI registers).
    pub entry_specs: Vec<Vec<RecordField>>,
    /// The same for the return program.
    pub ret_specs: Vec<Vec<RecordField>>,
}

impl LateUprobes {
    /// Whether any clause may gain probes.
    pub fn any(&self) -> bool {
        !self.clauses.is_empty()
    }

    /// Whether clause `ci` may gain probes.
    pub fn has(&self, ci: usize) -> bool {
        self.clauses.iter().any(|c| c.clause == ci)
    }
}

/// A uprobe program's probe table, as the session extends it.
#[derive(Debug, Clone, PartialEq)]
pub struct UprobeRows {
    /// The table's map.
    pub map: usize,
    pub value_size: u32,
    /// Byte offset of the spec id in a row (the clause mask words come
    /// before it, from byte 8).
    pub spec_at: u32,
    /// Bit `k` of a row's clause mask runs clause `clauses[k]`.
    pub clauses: Vec<usize>,
    /// Argument layouts, by spec id.
    pub specs: Vec<Vec<RecordField>>,
    /// Where a row's own argument descriptions start (rows whose spec id is
    /// [`DESCRIBED`]; see `trampoline::uprobe::Described`).
    pub args_at: u32,
    /// Rows in use when loaded (cookies `0..used`).
    pub used: u32,
    /// Rows in all.
    pub capacity: u32,
}

impl UprobeRows {
    /// The row of probe `id` (its names at `index` of `dt_probes`) running
    /// the clauses `run` (clause indices; others are ignored), with arguments
    /// by spec `spec`.
    pub fn row(&self, id: u32, index: u32, run: &[usize], spec: u32) -> Vec<u8> {
        let mut mask = vec![0u32; self.clauses.len().div_ceil(32).max(1)];
        for (k, ci) in self.clauses.iter().enumerate() {
            if run.contains(ci) {
                if let Some(w) = mask.get_mut(k / 32) {
                    *w |= 1 << (k % 32);
                }
            }
        }
        encode_row(id, index, &mask, spec, self.value_size)
    }

    /// The row of a probe whose arguments are at `fields`, described in the
    /// row itself; None when they cannot be described so (too many, or a
    /// constant wider than 32 bits).
    pub fn described_row(
        &self,
        id: u32,
        index: u32,
        run: &[usize],
        fields: &[RecordField],
    ) -> Option<Vec<u8>> {
        use crate::trampoline::uprobe::{ARG_CONST, ARG_MEM, ARG_REG, DESCRIBED_ARGS};
        use dtrace_sema::FieldKind;
        if fields.len() > DESCRIBED_ARGS {
            return None;
        }
        let mut v = self.row(id, index, run, DESCRIBED);
        for (i, f) in fields.iter().enumerate() {
            let (kind, value) = match f.kind {
                FieldKind::UserReg => (ARG_REG, 0),
                FieldKind::UserMem { disp } => (ARG_MEM, disp),
                FieldKind::Const(c) => (ARG_CONST, i32::try_from(c).ok()?),
                _ => return None,
            };
            let at = self.args_at as usize + 8 * i;
            let word = u8::try_from(f.offset / 8).ok()?;
            let d = v.get_mut(at..at + 8)?;
            d[0] = kind;
            d[1] = f.size;
            d[2] = u8::from(f.signed);
            d[3] = word;
            d[4..8].copy_from_slice(&value.to_ne_bytes());
        }
        Some(v)
    }

    /// The spec id of argument layout `fields`, if this program has it.
    pub fn spec_of(&self, fields: &[RecordField]) -> Option<u32> {
        self.specs
            .iter()
            .position(|s| s.as_slice() == fields)
            .map(|s| s as u32)
    }
}

/// `{probe id, probe index, clause mask words, spec id}`, zero-padded.
fn encode_row(id: u32, index: u32, mask: &[u32], spec: u32, size: u32) -> Vec<u8> {
    let mut v = Vec::with_capacity(size as usize);
    v.extend_from_slice(&id.to_ne_bytes());
    v.extend_from_slice(&index.to_ne_bytes());
    for w in mask {
        v.extend_from_slice(&w.to_ne_bytes());
    }
    v.extend_from_slice(&spec.to_ne_bytes());
    v.resize(size as usize, 0);
    v
}

/// The probe-name table (`dt_probes`) as the session extends it.
#[derive(Debug, Clone, PartialEq)]
pub struct ProbeNames {
    pub map: usize,
    /// Room for provider, module, function and name, in that order.
    pub caps: [u32; 4],
    /// Entries in use when loaded.
    pub used: u32,
    pub capacity: u32,
    /// `strsize`: no name is kept longer.
    pub strsize: u32,
}

impl ProbeNames {
    /// The entry of a probe named `names` (provider, module, function, name).
    pub fn row(&self, names: [&str; 4]) -> Vec<u8> {
        let mut v = Vec::new();
        for (k, s) in names.iter().enumerate() {
            let cap = self.caps[k] as usize;
            let mut b: Vec<u8> = s
                .as_bytes()
                .iter()
                .copied()
                .take((cap.saturating_sub(1)).min(self.strsize as usize))
                .collect();
            b.resize(cap, 0);
            v.extend_from_slice(&b);
        }
        v
    }
}

/// Cookie -> {probe id, probe index, clause mask words, spec id}: one cookie
/// per argument layout of each probe; `late` rows to spare when clauses may
/// gain probes, and its argument layouts served whether used yet or not.
pub(crate) fn uprobe_table(
    l: &mut crate::layout::Layout,
    ret: bool,
    members: &[(usize, Vec<ProbeInfo>)],
    late: &LateUprobes,
) -> (UprobeRows, Vec<(u32, u16)>) {
    let words = members.len().div_ceil(32).max(1);
    let spec_at = 8 + 4 * words;
    let args_at = round8(spec_at as u32 + 4);
    let is_late = members.iter().any(|(ci, _)| late.has(*ci));
    let vsize = if is_late {
        args_at + 8 * crate::trampoline::uprobe::DESCRIBED_ARGS as u32
    } else {
        args_at
    };
    // (probe id, layout) -> clause mask, spec id
    let mut probes: Vec<((u32, u16), Vec<u32>, usize)> = Vec::new();
    let mut specs: Vec<Vec<RecordField>> = Vec::new();
    for (k, (_, ps)) in members.iter().enumerate() {
        for p in ps {
            let n = p.args.len();
            let layouts: Vec<&[RecordField]> = if n == 0 || p.fields.is_empty() {
                vec![&[]]
            } else {
                p.fields.chunks(n).collect()
            };
            for (j, fields) in layouts.into_iter().enumerate() {
                let key = (p.id, j as u16);
                let at = match probes.iter().position(|(q, _, _)| *q == key) {
                    Some(at) => at,
                    None => {
                        let spec = match specs.iter().position(|s| s.as_slice() == fields) {
                            Some(s) => s,
                            None => {
                                specs.push(fields.to_vec());
                                specs.len() - 1
                            }
                        };
                        probes.push((key, vec![0; words], spec));
                        probes.len() - 1
                    }
                };
                if let Some(w) = probes[at].1.get_mut(k / 32) {
                    *w |= 1 << (k % 32);
                }
            }
        }
    }
    let spare = if is_late {
        let extra = if ret {
            &late.ret_specs
        } else {
            &late.entry_specs
        };
        for s in extra.iter().chain(std::iter::once(&Vec::new())) {
            if !specs.contains(s) {
                specs.push(s.clone());
            }
        }
        LATE_ROWS
    } else {
        0
    };
    let name = if ret { "dt_uret" } else { "dt_uprobe" };
    let capacity = (probes.len() as u32 + spare).max(1);
    let mut m = MapSpec::new(name, MapKind::Array, 4, vsize, capacity);
    for (cookie, ((id, _), mask, spec)) in probes.iter().enumerate() {
        let index = l.probe_index.get(id).copied().unwrap_or(0);
        let v = encode_row(*id, index, mask, *spec as u32, vsize);
        m.initial.push(((cookie as u32).to_ne_bytes().to_vec(), v));
    }
    m.flags = crate::BPF_F_RDONLY_PROG;
    l.maps.push(m);
    let rows = UprobeRows {
        map: l.maps.len() - 1,
        value_size: vsize,
        spec_at: spec_at as u32,
        args_at,
        clauses: members.iter().map(|(ci, _)| *ci).collect(),
        specs,
        used: probes.len() as u32,
        capacity: if spare > 0 {
            capacity
        } else {
            probes.len() as u32
        },
    };
    (rows, probes.iter().map(|(id, _, _)| *id).collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rows_set_the_bits_of_the_clauses_they_run() {
        let t = UprobeRows {
            map: 0,
            value_size: 24,
            spec_at: 12,
            args_at: 16,
            clauses: vec![2, 5, 7],
            specs: vec![vec![]],
            used: 0,
            capacity: 4,
        };
        let r = t.row(9, 3, &[5, 7, 11], 1);
        assert_eq!(r.len(), 24);
        assert_eq!(&r[0..4], &9u32.to_ne_bytes());
        assert_eq!(&r[4..8], &3u32.to_ne_bytes());
        assert_eq!(&r[8..12], &0b110u32.to_ne_bytes());
        assert_eq!(&r[12..16], &1u32.to_ne_bytes());
        assert_eq!(t.spec_of(&[]), Some(0));
    }

    #[test]
    fn names_are_cut_to_their_room() {
        let n = ProbeNames {
            map: 0,
            caps: [8, 8, 16, 8],
            used: 0,
            capacity: 1,
            strsize: 256,
        };
        let r = n.row(["prov123456", "a.out", "f", "go"]);
        assert_eq!(r.len(), 40);
        assert_eq!(&r[0..8], b"prov123\0");
        assert_eq!(&r[8..14], b"a.out\0");
    }
}
