//! BTF reader and importer against small hand-built blobs (no kernel needed).

mod common;

use common::*;
use dtrace_ctypes::{Btf, BtfError, KernelBtf, TypeKind, TypeTable};
use std::sync::Arc;

fn table_with(blob: Vec<u8>) -> TypeTable {
    let mut t = TypeTable::with_builtins();
    t.set_kernel(KernelBtf::new(Btf::parse(blob).expect("sample parses")));
    t
}

#[test]
fn parses_and_indexes_names() {
    let (blob, _) = sample_base();
    let b = Btf::parse(blob).unwrap();
    assert_eq!(b.type_count(), 26);
    assert_eq!(b.find("node"), vec![5]);
    assert_eq!(b.find("unsigned int"), vec![2, 14]);
    assert_eq!(b.find("nope"), Vec::<u32>::new());
    assert_eq!(b.enum_constant("GREEN"), Some((9, 1)));
}

#[test]
fn recursive_struct_and_bitfields() {
    let (blob, _) = sample_base();
    let mut t = table_with(blob);
    let node = t.lookup_scoped(None, "struct node").unwrap();
    assert_eq!(t.size_of(node, 0), 24);
    assert_eq!(t.module_of(node).0, "vmlinux");
    let (next, next_ty) = t.member(node, "next").unwrap();
    assert_eq!(next.bit_offset, 64);
    assert_eq!(*t.kind(next_ty), TypeKind::Pointer { target: node });
    assert_eq!(t.pointer_to(node), next_ty, "kernel pointers are interned");
    let (b, _) = t.member(node, "b").unwrap();
    assert_eq!((b.bit_offset, b.bit_size), (131, 5));
    let bf = t.bitfield(&b).unwrap();
    assert_eq!(
        (bf.byte_offset, bf.size, bf.shift, bf.width, bf.signed),
        (16, 1, 3, 5, false)
    );
    let (name, name_ty) = t.member(node, "name").unwrap();
    assert_eq!(name.bit_offset, 136);
    assert_eq!(t.name_of(name_ty), "char [8]");
    assert_eq!(t.align_of(node), 8);
    // Memoized: a second lookup imports nothing.
    let n = t.len();
    assert_eq!(t.lookup_scoped(Some("vmlinux"), "struct node"), Some(node));
    assert_eq!(t.len(), n);
}

#[test]
fn anonymous_members_typedefs_enums() {
    let (blob, _) = sample_base();
    let mut t = table_with(blob);
    let outer = t.lookup_scoped(None, "struct outer").unwrap();
    let (x, _) = t.member(outer, "x").unwrap();
    assert_eq!(x.bit_offset, 64);
    let (y, yty) = t.member(outer, "y").unwrap();
    assert_eq!((y.bit_offset, t.name_of(yty).as_str()), (64, "long"));
    assert_eq!(t.member(outer, "z").unwrap().0.bit_offset, 128);
    let (p, pty) = t.member(outer, "p").unwrap();
    assert_eq!((p.bit_offset, t.name_of(pty).as_str()), (0, "pid_t"));
    assert_eq!(
        t.resolve(pty),
        t.lookup("int").unwrap(),
        "kernel int is D's int"
    );
    assert!(t.member(outer, "nope").is_none());
    let pid = t.lookup_scoped(None, "pid_t").unwrap();
    assert_eq!(t.size_of(pid, 0), 4);
    assert!(t.is_type_name_scoped(None, "pid_t"));
    assert!(!t.is_type_name_scoped(None, "node"));
    let (e, v) = t.enum_constant(None, "NEG").unwrap();
    assert_eq!(v, -2);
    assert_eq!(t.name_of(e), "enum color");
    assert_eq!(
        t.enum_constant(None, "HUGE").unwrap().1,
        0xffff_ffff_0000_0001u64 as i64
    );
    assert!(t.enum_constant(None, "NOPE").is_none());
    let u = t.lookup_scoped(None, "union u").unwrap();
    assert_eq!((t.size_of(u, 0), t.align_of(u)), (8, 8));
    let old = t.lookup_scoped(None, "struct oldbits").unwrap();
    let (f, _) = t.member(old, "f").unwrap();
    assert_eq!((f.bit_offset, f.bit_size), (2, 4));
}

#[test]
fn functions_vars_tags_floats() {
    let (blob, _) = sample_base();
    let mut t = table_with(blob);
    let f = t.kernel_func(None, "myfunc").unwrap();
    match t.kind(f).clone() {
        TypeKind::Function {
            ret,
            params,
            varargs,
        } => {
            assert_eq!(t.name_of(ret), "int");
            assert_eq!(params.len(), 1);
            assert_eq!(t.name_of(params[0]), "const int");
            assert!(varargs);
        }
        k => panic!("not a function: {k:?}"),
    }
    let v = t.kernel_var(None, "counter").unwrap();
    assert_eq!(t.name_of(v.ty), "long");
    assert_eq!(v.section, Some((".data..percpu".to_string(), 0)));
    assert_eq!(v.module.0, "vmlinux");
    let p = t.import_btf_id("vmlinux", 24).unwrap();
    assert_eq!(t.name_of(p), "int *", "type tags are transparent");
    let d = t.import_btf_id("vmlinux", 22).unwrap();
    assert_eq!(
        *t.kind(d),
        TypeKind::Float {
            name: "double".into(),
            size: 8
        }
    );
    assert!(t.import_btf_id("vmlinux", 999).is_err());
}

fn split_module(base: &Builder) -> Vec<u8> {
    let mut m = Builder::split(base.next_id(), base.str_len());
    let node_ptr = 6;
    let int = 1;
    m.aggregate(
        STRUCT,
        "modthing",
        16,
        false,
        &[("n", node_ptr, 0, 0), ("k", int, 64, 0)],
    );
    let e = m.enum32("modenum", false, &[("MODCONST", 7)]);
    m.typedef("mod_t", e);
    m.finish()
}

#[test]
fn split_module_btf_loads_lazily() {
    let (blob, base) = sample_base();
    let module = split_module(&base);
    let mut kb = KernelBtf::new(Btf::parse(blob).unwrap());
    kb.add_module_blob("mymod", module.clone());
    let mut t = TypeTable::with_builtins();
    t.set_kernel(kb);
    assert_eq!(t.kernel().unwrap().loaded(), vec!["vmlinux"]);
    // Scoped lookup names the module.
    let thing = t.lookup_scoped(Some("mymod"), "struct modthing").unwrap();
    assert_eq!(t.kernel().unwrap().loaded(), vec!["vmlinux", "mymod"]);
    assert_eq!(t.module_of(thing).0, "mymod");
    let (n, nty) = t.member(thing, "n").unwrap();
    assert_eq!(n.bit_offset, 0);
    let node = t.lookup_scoped(Some("vmlinux"), "struct node").unwrap();
    assert_eq!(
        *t.kind(nty),
        TypeKind::Pointer { target: node },
        "base ids map to vmlinux's"
    );
    assert_eq!(t.module_of(node).0, "vmlinux");
    // Module scope falls back to the base it builds on; D scope sees neither.
    assert_eq!(t.lookup_scoped(Some("mymod"), "struct node"), Some(node));
    assert_eq!(t.lookup_scoped(Some("D"), "struct node"), None);
    assert_eq!(t.lookup_scoped(Some("nosuchmod"), "struct node"), None);
    assert_eq!(t.enum_constant(Some("mymod"), "MODCONST").unwrap().1, 7);

    // An unscoped miss in vmlinux loads modules.
    let mut kb = KernelBtf::new(Btf::parse(sample_base().0).unwrap());
    kb.add_module_blob("mymod", module.clone());
    let mut t = TypeTable::with_builtins();
    t.set_kernel(kb);
    let mt = t.lookup_scoped(None, "mod_t").unwrap();
    assert_eq!(t.name_of(t.resolve(mt)), "enum modenum");
    assert_eq!(t.module_of(mt).0, "mymod");

    // Split parsing directly: ids continue after the base.
    let base_btf = Arc::new(Btf::parse(sample_base().0).unwrap());
    let m = Btf::parse_split(module, base_btf).unwrap();
    assert_eq!(m.start_id(), 26);
    assert_eq!(m.find("modthing"), vec![26]);
    assert_eq!(m.get(26).unwrap().name(), "modthing");
    assert_eq!(m.get(5).unwrap().name(), "node");
}

#[test]
fn module_files_from_a_directory() {
    let (blob, base) = sample_base();
    let dir = std::env::temp_dir().join(format!("dtrace-ctypes-btf-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("vmlinux"), &blob).unwrap();
    std::fs::write(dir.join("mymod"), split_module(&base)).unwrap();
    std::fs::write(dir.join("broken"), b"not btf").unwrap();
    let mut t = TypeTable::with_builtins();
    t.set_kernel(KernelBtf::from_dir(&dir).unwrap());
    assert!(t.lookup_scoped(Some("mymod"), "struct modthing").is_some());
    assert!(t.try_lookup_scoped(Some("broken"), "struct x").is_err());
    // A miss everywhere tries every module and records the broken one.
    assert_eq!(t.lookup_scoped(None, "struct nowhere"), None);
    assert_eq!(t.kernel().unwrap().failures().len(), 1);
    std::fs::remove_dir_all(&dir).unwrap();
}

fn header(types_len: u32, strs_len: u32) -> Vec<u8> {
    let mut h = vec![0x9f, 0xeb, 1, 0, 24, 0, 0, 0, 0, 0, 0, 0];
    h.extend_from_slice(&types_len.to_le_bytes());
    h.extend_from_slice(&types_len.to_le_bytes());
    h.extend_from_slice(&strs_len.to_le_bytes());
    h
}

#[test]
fn malformed_blobs_are_errors() {
    let (blob, _) = sample_base();
    for cut in [0, 3, 23, 24, 30, blob.len() / 2, blob.len() - 1] {
        assert!(Btf::parse(blob[..cut].to_vec()).is_err(), "cut at {cut}");
    }
    let mut bad = blob.clone();
    bad[0] = 0;
    assert!(matches!(Btf::parse(bad), Err(BtfError::BadMagic(_))));
    let mut bad = blob.clone();
    bad[2] = 2;
    assert!(matches!(Btf::parse(bad), Err(BtfError::BadVersion(2))));

    let build = |f: &dyn Fn(&mut Builder)| {
        let mut b = Builder::new();
        f(&mut b);
        Btf::parse(b.finish())
    };
    // Reference past the end.
    assert!(matches!(
        build(&|b| {
            b.ptr(5);
        }),
        Err(BtfError::BadTypeRef { .. })
    ));
    // Cycles along storage-free references.
    assert!(matches!(
        build(&|b| {
            b.typedef("t", 1);
        }),
        Err(BtfError::Cycle { .. })
    ));
    assert!(matches!(
        build(&|b| {
            b.ptr(2);
            b.ptr(1);
        }),
        Err(BtfError::Cycle { .. })
    ));
    assert!(matches!(
        build(&|b| {
            b.array(1, 0, 3);
        }),
        Err(BtfError::Cycle { .. })
    ));
    // Unknown kind.
    assert!(matches!(
        build(&|b| {
            b.rec("x", 25, 0, false, 0);
        }),
        Err(BtfError::UnknownKind { .. })
    ));
    // Bad int size; void member; FUNC not pointing at a FUNC_PROTO; pointer to a VAR.
    assert!(build(&|b| {
        b.int("int", 3, true);
    })
    .is_err());
    assert!(build(&|b| {
        b.aggregate(STRUCT, "s", 4, false, &[("m", 0, 0, 0)]);
    })
    .is_err());
    assert!(build(&|b| {
        b.int("int", 4, true);
        b.rec("f", FUNC, 0, false, 1);
    })
    .is_err());
    assert!(build(&|b| {
        b.int("int", 4, true);
        b.var("v", 1);
        b.ptr(2);
    })
    .is_err());
    // Name offset out of range.
    let mut raw = header(12, 1);
    raw.extend_from_slice(&[99, 0, 0, 0, 0, 0, 0, 2, 0, 0, 0, 0, 0]);
    assert!(matches!(Btf::parse(raw), Err(BtfError::BadString { .. })));
    // String section not NUL-terminated.
    let mut raw = header(0, 2);
    raw.extend_from_slice(&[0, b'a']);
    assert!(Btf::parse(raw).is_err());
    // Overlapping sections, odd type length.
    let mut raw = header(12, 12);
    raw.extend_from_slice(&[0; 12]);
    assert!(Btf::parse(raw).is_err());
}

/// xorshift64*: deterministic, no dependencies.
pub struct Rng(pub u64);
impl Rng {
    pub fn next_u64(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }
}

/// Import everything a parsed blob names and ask every question; must not panic.
fn exercise(btf: Btf) {
    let names: Vec<String> = (1..btf.type_count())
        .filter_map(|id| btf.get(id).map(|t| t.name().to_string()))
        .filter(|n| !n.is_empty())
        .collect();
    let count = btf.type_count();
    let mut t = TypeTable::with_builtins();
    t.set_kernel(KernelBtf::new(btf));
    for id in 0..count + 2 {
        if let Ok(ty) = t.import_btf_id("vmlinux", id) {
            let _ = (t.name_of(ty), t.size_of(ty, 256), t.align_of(ty));
            let _ = t.member(ty, "v");
        }
    }
    for n in names {
        for kw in ["struct ", "union ", "enum ", ""] {
            let _ = t.lookup_scoped(None, &format!("{kw}{n}"));
        }
        let _ = t.enum_constant(None, &n);
        let _ = t.kernel_var(None, &n);
    }
}

#[test]
fn fuzz_mutated_sample_blobs() {
    let (blob, _) = sample_base();
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    let start = std::time::Instant::now();
    let mut ok = 0;
    // DTRACE_FUZZ_ITERS raises the bound for a longer local run.
    let iters: u64 = std::env::var("DTRACE_FUZZ_ITERS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(20_000);
    let secs = if iters > 20_000 { u64::MAX } else { 3 };
    for i in 0..iters {
        if start.elapsed().as_secs() >= secs {
            break;
        }
        let mut b = blob.clone();
        let flips = 1 + rng.next_u64() % 4;
        for _ in 0..flips {
            let at = (rng.next_u64() % b.len() as u64) as usize;
            b[at] = match rng.next_u64() % 3 {
                0 => rng.next_u64() as u8,
                1 => b[at] ^ (1 << (rng.next_u64() % 8)),
                _ => [0, 1, 0xff, 0x7f, 0x80][(rng.next_u64() % 5) as usize],
            };
        }
        if i % 7 == 0 {
            let cut = (rng.next_u64() % b.len() as u64) as usize;
            b.truncate(cut);
        }
        if let Ok(btf) = Btf::parse(b) {
            ok += 1;
            exercise(btf);
        }
    }
    eprintln!("fuzz: {ok} of the mutated blobs parsed and were exercised");
    assert!(ok > 0, "some mutations should still parse");
}

#[test]
fn forward_declarations_resolve_to_definitions() {
    let mut b = Builder::new();
    let int = b.int("int", 4, true); // 1
    let fwd = b.rec("thing", FWD, 0, false, 0); // 2
    let p = b.ptr(fwd); // 3
    b.aggregate(STRUCT, "holder", 8, false, &[("t", p, 0, 0)]); // 4
    b.aggregate(STRUCT, "thing", 4, false, &[("x", int, 0, 0)]); // 5
    b.rec("opaque", FWD, 0, false, 0); // 6: no definition anywhere
    let mut t = table_with(b.finish());
    let holder = t.lookup_scoped(None, "struct holder").unwrap();
    let (_, pty) = t.member(holder, "t").unwrap();
    let TypeKind::Pointer { target } = t.kind(pty).clone() else {
        panic!("pointer expected")
    };
    assert_eq!(t.member(target, "x").unwrap().0.bit_offset, 0);
    assert_eq!(Some(target), t.lookup_scoped(None, "struct thing"));
    let opaque = t.lookup_scoped(None, "struct opaque").unwrap();
    assert_eq!(
        *t.kind(opaque),
        TypeKind::Forward {
            name: "opaque".into(),
            is_union: false
        }
    );
}
