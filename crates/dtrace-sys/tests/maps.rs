//! Map operations against the real kernel.
mod common;

use dtrace_sys::map::{percpu_values, BPF_F_NO_PREALLOC, BPF_F_RDONLY_PROG};
use dtrace_sys::{Errno, MapError, MapFd, MapSpec, MapType, UpdateFlags};

fn spec(t: MapType, max: u32, flags: u32) -> MapSpec {
    MapSpec {
        name: format!("dt_test_{t:?}"),
        map_type: t,
        key_size: 8,
        value_size: 12,
        max_entries: max,
        flags,
    }
}

fn key(i: u64) -> [u8; 8] {
    i.to_ne_bytes()
}

#[test]
fn hash_map_element_ops() {
    let Some((sys, _)) = common::bpf_or_skip("hash_map_element_ops") else {
        return;
    };
    let m = MapFd::create(&sys, &spec(MapType::Hash, 64, BPF_F_NO_PREALLOC)).unwrap();
    assert!(m.id().unwrap() > 0);
    let v = [7u8; 12];
    assert_eq!(m.lookup(&key(1)).unwrap(), None);
    m.update(&key(1), &v, UpdateFlags::NoExist).unwrap();
    assert_eq!(m.lookup(&key(1)).unwrap(), Some(v.to_vec()));
    let again = m.update(&key(1), &v, UpdateFlags::NoExist);
    assert!(matches!(
        again,
        Err(MapError::Op {
            errno: Errno(libc::EEXIST),
            ..
        })
    ));
    m.update(&key(2), &[1; 12], UpdateFlags::Any).unwrap();
    let mut keys = m.keys().unwrap();
    keys.sort();
    assert_eq!(keys, vec![key(1).to_vec(), key(2).to_vec()]);
    assert!(m.delete(&key(1)).unwrap());
    assert!(!m.delete(&key(1)).unwrap());
    assert!(matches!(m.lookup(&[0u8; 3]), Err(MapError::KeySize { .. })));
    assert!(matches!(
        m.update(&key(3), &[0u8; 4], UpdateFlags::Any),
        Err(MapError::ValueSize { .. })
    ));
}

#[test]
fn batch_lookup_reads_everything() {
    let Some((sys, _)) = common::bpf_or_skip("batch_lookup_reads_everything") else {
        return;
    };
    for t in [MapType::Hash, MapType::PercpuHash] {
        let m = MapFd::create(&sys, &spec(t, 10_000, 0)).unwrap();
        let vs = m.value_buf_size();
        for i in 0..5000u64 {
            let mut val = vec![0u8; vs];
            val[..8].copy_from_slice(&(i * 3).to_ne_bytes());
            m.update(&key(i), &val, UpdateFlags::Any).unwrap();
        }
        let batch = m.lookup_batch_all().unwrap();
        let slow = m.entries_slow().unwrap();
        assert_eq!(batch.len(), 5000, "{t:?}");
        let mut a = batch.clone();
        let mut b = slow;
        a.sort();
        b.sort();
        assert_eq!(a, b, "{t:?}: batch and get_next_key agree");
        for (k, v) in &batch {
            let i = u64::from_ne_bytes(k[..8].try_into().unwrap());
            assert_eq!(&v[..8], &(i * 3).to_ne_bytes());
        }
        assert_eq!(m.entries().unwrap().len(), 5000);
    }
}

#[test]
fn arrays_and_percpu_layout() {
    let Some((sys, f)) = common::bpf_or_skip("arrays_and_percpu_layout") else {
        return;
    };
    let mut s = spec(MapType::PercpuArray, 4, 0);
    s.key_size = 4;
    let m = MapFd::create(&sys, &s).unwrap();
    assert_eq!(m.possible_cpus(), f.possible_cpus);
    assert_eq!(m.value_buf_size(), 16 * f.possible_cpus as usize);
    let mut val = vec![0u8; m.value_buf_size()];
    for (cpu, slot) in val.chunks_mut(16).enumerate() {
        slot[0] = cpu as u8 + 1;
    }
    m.update(&2u32.to_ne_bytes(), &val, UpdateFlags::Any)
        .unwrap();
    let got = m.lookup(&2u32.to_ne_bytes()).unwrap().unwrap();
    let firsts: Vec<u8> = percpu_values(&got, 12).map(|v| v[0]).collect();
    assert_eq!(firsts, (1..=f.possible_cpus as u8).collect::<Vec<_>>());
    // Arrays always have every index; batch (or its fallback) returns all 4.
    assert_eq!(m.entries().unwrap().len(), 4);

    let mut s = spec(MapType::Array, 2, BPF_F_RDONLY_PROG);
    s.key_size = 4;
    let ro = MapFd::create(&sys, &s).unwrap();
    ro.update(&1u32.to_ne_bytes(), &[9; 12], UpdateFlags::Any)
        .unwrap();
    ro.freeze().unwrap();
    let after = ro.update(&1u32.to_ne_bytes(), &[1; 12], UpdateFlags::Any);
    assert!(matches!(
        after,
        Err(MapError::Op {
            errno: Errno(libc::EPERM),
            ..
        })
    ));
    assert_eq!(ro.lookup(&1u32.to_ne_bytes()).unwrap(), Some(vec![9; 12]));
}
