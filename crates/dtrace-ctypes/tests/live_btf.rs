//! Against the running kernel's BTF. Skipped when /sys/kernel/btf/vmlinux is absent,
//! unless DTRACE_REQUIRE_BPF=1 (then absence is a failure).

use dtrace_ctypes::btf::KIND_STRUCT;
use dtrace_ctypes::{offset_of_path, Btf, KernelBtf, TypeKind, TypeTable};

const VMLINUX: &str = "/sys/kernel/btf/vmlinux";

fn vmlinux() -> Option<Vec<u8>> {
    match std::fs::read(VMLINUX) {
        Ok(b) => Some(b),
        Err(e) => {
            if std::env::var("DTRACE_REQUIRE_BPF").as_deref() == Ok("1") {
                panic!("DTRACE_REQUIRE_BPF=1 but {VMLINUX} unreadable: {e}");
            }
            eprintln!("skipping: {VMLINUX}: {e}");
            None
        }
    }
}

fn table() -> Option<(TypeTable, Btf)> {
    let bytes = vmlinux()?;
    let raw = Btf::parse(bytes.clone()).expect("vmlinux BTF parses");
    let mut t = TypeTable::with_builtins();
    t.set_kernel(KernelBtf::new(
        Btf::parse(bytes).expect("vmlinux BTF parses"),
    ));
    Some((t, raw))
}

/// The raw BTF member `name` of struct `s` (top level only).
fn raw_member(b: &Btf, s: &str, name: &str) -> (u32, u32) {
    let id = b.find_kind(s, &[KIND_STRUCT]).expect("struct in BTF");
    let t = b.get(id).unwrap();
    let m = t.members().find(|m| m.name == name).expect("member in BTF");
    (m.bit_offset, m.bit_size)
}

#[test]
fn task_struct_members() {
    let Some((mut t, raw)) = table() else { return };
    let ts = t
        .lookup_scoped(None, "struct task_struct")
        .expect("task_struct");
    assert_eq!(t.module_of(ts).0, "vmlinux");
    assert_eq!(
        t.lookup_scoped(Some("vmlinux"), "struct task_struct"),
        Some(ts)
    );

    let (pid, pid_ty) = t.member(ts, "pid").unwrap();
    assert_eq!(t.name_of(pid_ty), "pid_t");
    assert_eq!(
        *t.kind(t.resolve(pid_ty)),
        TypeKind::Int {
            name: "int".into(),
            size: 4,
            signed: true
        }
    );
    assert_eq!(
        pid.bit_offset,
        raw_member(&raw, "task_struct", "pid").0 as u64
    );

    let (_, comm_ty) = t.member(ts, "comm").unwrap();
    assert_eq!(t.name_of(comm_ty), "char [16]");
    assert_eq!(t.size_of(comm_ty, 0), 16);

    let (_, rp_ty) = t.member(ts, "real_parent").unwrap();
    assert_eq!(
        *t.kind(rp_ty),
        TypeKind::Pointer { target: ts },
        "pointer cycle"
    );
    assert_eq!(t.name_of(rp_ty), "struct task_struct *");

    for f in ["pid", "tgid", "comm", "real_parent"] {
        let m = offset_of_path(&mut t, "struct task_struct", &[f]).unwrap();
        assert_eq!(
            m.bit_offset,
            raw_member(&raw, "task_struct", f).0 as u64,
            "{f}"
        );
    }
    let scoped = offset_of_path(&mut t, "vmlinux`struct task_struct", &["tgid"]).unwrap();
    assert_eq!(scoped.bit_offset % 8, 0);
    // A nested path through a pointer-free member.
    let se = offset_of_path(&mut t, "struct task_struct", &["se", "vruntime"]).unwrap();
    let se_only = offset_of_path(&mut t, "struct task_struct", &["se"]).unwrap();
    assert!(se.bit_offset >= se_only.bit_offset);
    assert!(offset_of_path(&mut t, "struct task_struct", &["no_such_member"]).is_err());
    assert!(offset_of_path(&mut t, "struct no_such_struct", &["x"]).is_err());
    assert_eq!(t.align_of(ts) % 8, 0);
}

#[test]
fn pt_regs_layout() {
    let Some((mut t, _)) = table() else { return };
    let regs = t.lookup_scoped(None, "struct pt_regs").unwrap();
    if cfg!(target_arch = "x86_64") {
        assert_eq!(t.size_of(regs, 0), 168);
        let off = |t: &TypeTable, n: &str| t.member(regs, n).map(|(m, _)| m.bit_offset / 8);
        assert_eq!(off(&t, "r15"), Some(0));
        assert_eq!(off(&t, "di"), Some(112));
        assert_eq!(off(&t, "orig_ax"), Some(120));
        assert_eq!(off(&t, "ip"), Some(128));
        // `cs` sits in an anonymous union on recent kernels.
        assert_eq!(off(&t, "cs"), Some(136));
        assert_eq!(off(&t, "sp"), Some(152));
        assert_eq!(t.align_of(regs), 8);
    }
}

#[test]
fn bitfields_decode() {
    let Some((mut t, raw)) = table() else { return };
    // Find any kind_flag struct with a bitfield member and check it round-trips.
    let mut checked = 0;
    for id in 1..raw.type_count() {
        let Some(s) = raw.get(id) else { continue };
        if s.kind != KIND_STRUCT || !s.kind_flag || s.name().is_empty() {
            continue;
        }
        let Some(bm) = s.members().find(|m| m.bit_size > 0 && !m.name.is_empty()) else {
            continue;
        };
        let ty = t.import_btf_id("vmlinux", id).unwrap();
        let (m, _) = t.member(ty, bm.name).unwrap();
        assert_eq!(
            (m.bit_offset, m.bit_size),
            (bm.bit_offset as u64, bm.bit_size)
        );
        let bf = t.bitfield(&m).unwrap();
        assert!(bf.byte_offset * 8 + bf.shift as u64 == m.bit_offset);
        assert!(bf.shift + bf.width <= bf.size * 8);
        checked += 1;
        if checked > 50 {
            break;
        }
    }
    assert!(checked > 0, "vmlinux has kind_flag bitfields");
    let ts = t.lookup_scoped(None, "struct task_struct").unwrap();
    if let Some((m, _)) = t.member(ts, "sched_reset_on_fork") {
        assert_eq!(m.bit_size, 1);
        assert_eq!(
            m.bit_offset,
            raw_member(&raw, "task_struct", "sched_reset_on_fork").0 as u64
        );
    }
}

#[test]
fn enum_constants_typedefs_vars() {
    let Some((mut t, _)) = table() else { return };
    let (e, v) = t.enum_constant(None, "PIDTYPE_TGID").unwrap();
    assert_eq!(v, 1);
    assert_eq!(t.name_of(e), "enum pid_type");
    let pt = t.lookup_scoped(None, "enum pid_type").unwrap();
    assert_eq!(pt, e);
    let u64_ = t.lookup_scoped(None, "u64").unwrap();
    assert_eq!(t.size_of(u64_, 0), 8);
    assert!(t.is_type_name_scoped(None, "pid_t"));
    assert!(t.is_type_name_scoped(Some("vmlinux"), "u32"));
    // Per-CPU variables are in vmlinux BTF (DATASEC .data..percpu).
    let rq = t.kernel_var(None, "runqueues").unwrap();
    assert_eq!(t.name_of(rq.ty), "struct rq");
    assert_eq!(
        rq.section.as_ref().map(|s| s.0.as_str()),
        Some(".data..percpu")
    );
    assert!(t.kernel_var(None, "no_such_var_xyz").is_none());
    let f = t.kernel_func(None, "do_sys_openat2");
    if let Some(f) = f {
        assert!(matches!(t.kind(f), TypeKind::Function { .. }));
    }
}

#[test]
fn fuzz_mutated_vmlinux() {
    let Some(bytes) = vmlinux() else { return };
    let mut rng: u64 = 0x2545_f491_4f6c_dd1d;
    let mut next = move || {
        rng ^= rng >> 12;
        rng ^= rng << 25;
        rng ^= rng >> 27;
        rng.wrapping_mul(0x2545_f491_4f6c_dd1d)
    };
    let start = std::time::Instant::now();
    let mut runs = 0;
    let mut parsed = 0;
    // DTRACE_FUZZ_SECS lengthens a local run.
    let secs: f64 = std::env::var("DTRACE_FUZZ_SECS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(3.0);
    let max_runs = if secs > 3.0 { usize::MAX } else { 200 };
    while start.elapsed().as_secs_f64() < secs && runs < max_runs {
        runs += 1;
        let mut b = bytes.clone();
        // Mutate mostly the header and type section, where structure lives.
        let hot = 24 + u32::from_le_bytes([b[12], b[13], b[14], b[15]]) as usize;
        for _ in 0..1 + next() % 8 {
            let at = (next() as usize) % hot.min(b.len());
            b[at] = next() as u8;
        }
        if runs % 5 == 0 {
            let cut = (next() as usize) % b.len();
            b.truncate(cut);
        }
        if let Ok(btf) = Btf::parse(b) {
            parsed += 1;
            let mut t = TypeTable::with_builtins();
            t.set_kernel(KernelBtf::new(btf));
            for n in ["struct task_struct", "struct pt_regs", "pid_t", "struct rq"] {
                if let Some(ty) = t.lookup_scoped(None, n) {
                    let _ = (t.name_of(ty), t.size_of(ty, 0), t.align_of(ty));
                    let _ = t.member(ty, "pid");
                }
            }
            let _ = t.enum_constant(None, "PIDTYPE_TGID");
        }
    }
    eprintln!("fuzz: {runs} mutated vmlinux blobs, {parsed} parsed");
    assert!(runs > 0);
}
