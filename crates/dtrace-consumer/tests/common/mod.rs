//! Builders for synthetic program descriptions, records and aggregation data.
#![allow(dead_code)]

use dtrace_consumer::{
    AggEntries, AggSource, ConsumeError, Consumer, ConsumerOptions, Control, TextOutput,
};
use dtrace_desc::*;
use std::collections::BTreeMap;

/// A record under construction: header plus fields at chosen offsets.
pub struct Rec(pub Vec<u8>);

impl Rec {
    pub fn new(epid: u32, probe_id: u32, cpu: u32, size: usize) -> Rec {
        let mut b = vec![0u8; size.max(16)];
        b[0..4].copy_from_slice(&epid.to_ne_bytes());
        b[4..8].copy_from_slice(&probe_id.to_ne_bytes());
        b[8..12].copy_from_slice(&cpu.to_ne_bytes());
        Rec(b)
    }
    pub fn put(mut self, off: usize, bytes: &[u8]) -> Rec {
        self.0[off..off + bytes.len()].copy_from_slice(bytes);
        self
    }
    pub fn u64(self, off: usize, v: u64) -> Rec {
        self.put(off, &v.to_ne_bytes())
    }
    pub fn i64(self, off: usize, v: i64) -> Rec {
        self.put(off, &v.to_ne_bytes())
    }
    pub fn i32(self, off: usize, v: i32) -> Rec {
        self.put(off, &v.to_ne_bytes())
    }
    pub fn str(self, off: usize, s: &str) -> Rec {
        self.put(off, s.as_bytes())
    }
}

pub fn int(offset: u32, size: u8, signed: bool) -> Field {
    Field {
        offset,
        ty: ValueType::Int { size, signed },
    }
}

pub fn string(offset: u32, size: u32) -> Field {
    Field {
        offset,
        ty: ValueType::String { size },
    }
}

pub fn action(kind: ActionKind, fields: Vec<Field>) -> ActionDesc {
    ActionDesc { kind, fields }
}

pub fn trace(f: Field) -> ActionDesc {
    action(ActionKind::Trace, vec![f])
}

pub fn printf(fmt: &str, fields: Vec<Field>) -> ActionDesc {
    action(
        ActionKind::Printf {
            format: fmt.to_string(),
        },
        fields,
    )
}

pub fn printa(fmt: Option<&str>, aggs: Vec<u32>) -> ActionDesc {
    action(
        ActionKind::Printa {
            format: fmt.map(str::to_string),
            aggs,
        },
        vec![],
    )
}

pub fn probe(provider: &str, module: &str, function: &str, name: &str) -> ProbeName {
    ProbeName {
        provider: provider.into(),
        module: module.into(),
        function: function.into(),
        name: name.into(),
    }
}

/// A program with the given clauses (EPID i+1, record size `size`) and probes.
pub fn program(clauses: Vec<(u32, Vec<ActionDesc>)>, probes: Vec<(u32, ProbeName)>) -> ProgramDesc {
    let mut desc = ProgramDesc::default();
    for (i, (size, actions)) in clauses.into_iter().enumerate() {
        let epid = i as u32 + 1;
        desc.epids.insert(
            epid,
            EpidDesc {
                epid,
                clause: i as u32,
                size,
                actions,
            },
        );
    }
    desc.probes = probes.into_iter().collect();
    desc
}

pub fn agg(id: u32, name: &str, func: AggFunc, keys: Vec<Field>, key_size: u32) -> AggDesc {
    AggDesc {
        id,
        name: name.into(),
        func,
        keys,
        key_size,
    }
}

/// Synthetic aggregation data: per aggregation, keys and per-CPU values.
/// Keys with their per-CPU values.
pub type Entries = Vec<(Vec<u8>, Vec<Vec<u8>>)>;

#[derive(Default)]
pub struct Aggs(pub BTreeMap<u32, Entries>);

impl Aggs {
    pub fn add(&mut self, id: u32, key: Vec<u8>, per_cpu: Vec<Vec<u8>>) -> &mut Self {
        self.0.entry(id).or_default().push((key, per_cpu));
        self
    }
}

impl AggSource for Aggs {
    fn snapshot(&mut self, agg_id: u32, out: &mut AggEntries) {
        for (key, per_cpu) in self.0.get(&agg_id).into_iter().flatten() {
            out.push(key, per_cpu);
        }
    }

    fn clear(&mut self, agg_id: u32) {
        for (_, per_cpu) in self.0.entry(agg_id).or_default() {
            for v in per_cpu {
                v.iter_mut().for_each(|b| *b = 0);
            }
        }
    }

    fn remove(&mut self, agg_id: u32, key: &[u8]) {
        if let Some(e) = self.0.get_mut(&agg_id) {
            e.retain(|(k, _)| k != key);
        }
    }
}

/// Native-endian words.
pub fn words(ws: &[i64]) -> Vec<u8> {
    ws.iter().flat_map(|w| w.to_ne_bytes()).collect()
}

/// A string key NUL-padded to `size` bytes.
pub fn skey(s: &str, size: usize) -> Vec<u8> {
    let mut k = s.as_bytes().to_vec();
    k.resize(size, 0);
    k
}

/// Bucket counts with the given (index, count) pairs set.
pub fn buckets(n: usize, set: &[(usize, i64)]) -> Vec<i64> {
    let mut b = vec![0i64; n];
    for &(i, c) in set {
        b[i] = c;
    }
    b
}

/// Runs records through a consumer and returns (stdout, stderr, last control).
pub fn run(
    desc: ProgramDesc,
    opts: ConsumerOptions,
    recs: &[Vec<u8>],
    aggs: &mut Aggs,
    finish: bool,
) -> Result<(String, String, Control), ConsumeError> {
    let mut c = Consumer::new(desc, opts);
    let mut t = TextOutput::new(Vec::new(), Vec::new());
    let mut ctl = Control::Continue;
    for r in recs {
        ctl = c.record(r, &mut t, aggs)?;
    }
    if finish {
        c.finish(&mut t, aggs)?;
    }
    let (out, err) = t.into_parts();
    Ok((
        String::from_utf8_lossy(&out).into_owned(),
        String::from_utf8_lossy(&err).into_owned(),
        ctl,
    ))
}

pub fn quiet() -> ConsumerOptions {
    ConsumerOptions {
        quiet: true,
        ..Default::default()
    }
}
