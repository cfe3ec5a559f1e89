//! The catalog's unit tests: numbering, matching, lazy listing, user probe sites.
use super::*;

#[test]
fn which_provider_globs_look_in_every_process() {
    let known = || ["syscall", "sched", "pid"].into_iter();
    assert!(scans_processes("myprov*", known()));
    assert!(scans_processes("my?rov", known()));
    assert!(!scans_processes("myprov", known()), "not a glob");
    assert!(!scans_processes("*", known()), "no fixed start");
    assert!(
        !scans_processes("sys*", known()),
        "a kernel provider's start"
    );
    assert!(scans_processes("sched_x*", known()), "cannot name sched");
    assert!(!scans_processes("p*d", known()), "pid's start");
}

#[test]
fn numbering_and_matching() {
    let mut c = Catalog::new();
    assert_eq!(c.by_id(1).map(|p| p.name.as_str()), Some("BEGIN"));
    assert_eq!(c.by_id(2).map(|p| p.name.as_str()), Some("END"));
    assert_eq!(c.by_id(3).map(|p| p.name.as_str()), Some("ERROR"));
    let m = c.matches(&ProbeDesc::parse("BEGIN").unwrap());
    assert_eq!(m.len(), 1);
    let m = c.matches(&ProbeDesc::parse("syscall::getppid:entry").unwrap());
    assert_eq!(m.len(), 1);
    assert_eq!(m[0].kind, ProbeKind::SyscallEntry { nr: 110 });
    let all = c.matches(&ProbeDesc::parse("syscall:::entry").unwrap());
    assert_eq!(all.len(), syscalls_x86_64::SYSCALLS_X86_64.len());
    let before = c.probe_count();
    let t = c.matches(&ProbeDesc::parse("tick-7ms").unwrap());
    assert_eq!(t.len(), 1);
    assert_eq!(
        t[0].kind,
        ProbeKind::Tick {
            period_ns: 7_000_000
        }
    );
    assert_eq!(t[0].id as usize, before + 1);
    // Asking again finds the same probe rather than making another.
    assert_eq!(
        c.matches(&ProbeDesc::parse("profile:::tick-7ms").unwrap())[0].id,
        t[0].id
    );
    assert!(c.matches(&ProbeDesc::parse("tick-*").unwrap()).len() >= 6);
    assert!(c
        .matches(&ProbeDesc::parse("nosuch:::probe").unwrap())
        .is_empty());
    assert!(c
        .matches(&ProbeDesc::parse("profile:::tick-1ns").unwrap())
        .is_empty());
    assert_eq!(c.attributes("syscall"), Some(stability::SYSCALL));
    assert_eq!(c.attributes("dtrace"), Some(stability::DTRACE));
    assert_eq!(c.attributes("profile"), Some(stability::PROFILE));
    assert_eq!(c.attributes("nosuch"), None);
}

#[test]
fn kernel_sdt_probes_match_and_explain_their_absence() {
    let mut c = Catalog::new();
    let m = c.matches(&ProbeDesc::parse("proc:::exit").unwrap());
    assert_eq!(m.len(), 1);
    assert_eq!(m[0].module, "vmlinux");
    assert!(matches!(
        m[0].kind,
        ProbeKind::RawSdt {
            tp: "sched_process_exit",
            ..
        }
    ));
    assert_eq!(
        c.matches(&ProbeDesc::parse("sched:::*-cpu").unwrap()).len(),
        3
    );
    // start and done always; wait-start and wait-done where XFS is.
    let xfs =
        dtrace_sys::tracefs::Tracefs::find().is_ok_and(|t| t.has_event("xfs", "xfs_buf_iowait"));
    let io = c.matches(&ProbeDesc::parse("io:::").unwrap()).len();
    assert_eq!(io, if xfs { 4 } else { 2 });
    let wait = ProbeDesc::parse("io:::wait-start").unwrap();
    assert_eq!(c.unavailable(&wait).is_some(), !xfs);
    let tick = ProbeDesc::parse("sched:::tick").unwrap();
    assert!(c.matches(&tick).is_empty());
    assert!(c.unavailable(&tick).is_some_and(|w| w.contains("tick")));
    assert_eq!(
        c.unavailable(&ProbeDesc::parse("sched:::nosuch").unwrap()),
        None
    );
    assert_eq!(
        c.unavailable(&ProbeDesc::parse("sched:::tic*").unwrap()),
        None
    );
    assert_eq!(c.attributes("io"), Some(stability::KERNEL_SDT));
}

#[test]
fn user_probe_sites_keep_their_argument_layouts() {
    use dtrace_sema::{FieldKind, RecordField};
    let site = |offset| procmap::UprobeSite {
        path: "/x".into(),
        offset,
        ref_ctr_offset: 0,
        pid: 7,
        ret: false,
        returns: Vec::new(),
    };
    let konst = |v| RecordField {
        offset: 0,
        size: 4,
        signed: true,
        kind: FieldKind::Const(v),
    };
    let mut c = Catalog::new();
    let info_id = USER_PROBE_BASE + 1;
    c.user.push(ProbeInfo {
        id: info_id,
        provider: "p7".into(),
        module: "x".into(),
        function: "main".into(),
        name: "twice".into(),
        kind: ProbeKind::Uprobe { ret: false },
        args: dtrace_sema::ArgDesc::natives(&["int32_t"]),
        fields: Vec::new(),
    });
    let index = 0;
    c.add_site(index, site(10), vec![konst(1)]);
    c.add_site(index, site(20), vec![konst(2)]);
    c.add_site(index, site(30), vec![konst(1)]);
    c.add_site(index, site(20), vec![konst(2)]); // again: no new site
    let sites: Vec<(u64, u16)> = c
        .uprobe_sites(info_id)
        .iter()
        .map(|(s, l)| (s.offset, *l))
        .collect();
    assert_eq!(sites, vec![(10, 0), (20, 1), (30, 0)]);
    let p = c.by_id(info_id).expect("probe");
    assert_eq!(p.fields, vec![konst(1), konst(2)]);
    // A layout of the wrong arity is not taken.
    c.add_site(index, site(40), vec![konst(1), konst(2)]);
    assert_eq!(c.uprobe_sites(info_id).len(), 3);
}

#[test]
fn listing_matches_without_resolving() {
    let mut c = Catalog::new();
    let desc = ProbeDesc::parse("syscall::read:").unwrap();
    let ids = c.match_ids(&desc, false).unwrap();
    assert_eq!(ids.len(), 2);
    // Plain -l asked no provider for argument types...
    assert!(ids.iter().all(|&id| !c.resolved[id as usize - 1]));
    // ...-lv does, and finds the same probes.
    assert_eq!(c.match_ids(&desc, true).unwrap(), ids);
    assert!(ids.iter().all(|&id| c.resolved[id as usize - 1]));
    let m: Vec<u32> = c.matches(&desc).iter().map(|p| p.id).collect();
    assert_eq!(m, ids);
    // An exact description a provider makes on demand is made once.
    let t = ProbeDesc::parse("profile:::tick-9ms").unwrap();
    let made = c.match_ids(&t, false).unwrap();
    assert_eq!(made.len(), 1);
    assert_eq!(c.match_ids(&t, false).unwrap(), made);
    assert!(c
        .match_ids(&ProbeDesc::parse("nosuch:::").unwrap(), false)
        .unwrap()
        .is_empty());
}

#[test]
fn lazy_providers_are_listed_only_when_asked() {
    let mut c = Catalog::new();
    assert!(c.probes().all(|p| p.provider != "sdt"));
    // A glob-free name is looked up without listing the provider.
    assert_eq!(c.matches(&ProbeDesc::parse("BEGIN").unwrap()).len(), 1);
    assert!(c.probes().all(|p| p.provider != "sdt"));
    if dtrace_sys::tracefs::Tracefs::find().is_err() {
        return; // no tracefs here (not root): nothing more to check
    }
    let m = c.matches(&ProbeDesc::parse("sdt:sched::sched_switch").unwrap());
    assert_eq!(m.len(), 1);
    assert!(matches!(m[0].kind, ProbeKind::Tracepoint { event_id } if event_id > 0));
    assert!(!m[0].fields.is_empty() && m[0].fields.len() == m[0].args.len());
    let id = m[0].id;
    // Listing everything later keeps the ID and adds no duplicate.
    c.list_all();
    let same: Vec<&ProbeInfo> = c
        .probes()
        .filter(|p| p.provider == "sdt" && p.name == "sched_switch")
        .collect();
    assert_eq!(same.len(), 1);
    assert_eq!(same[0].id, id);
    assert!(c.probes().filter(|p| p.provider == "sdt").count() > 100);
}

#[test]
fn user_probes_are_numbered_after_every_kernel_probe() {
    let probe = |name: &str, offset: u64| ProcProbe {
        provider: "myprov42".into(),
        template: ProbeTemplate {
            module: "a.out".into(),
            function: "main".into(),
            name: name.into(),
            kind: ProbeKind::Uprobe { ret: false },
            args: Vec::new(),
            fields: Vec::new(),
        },
        site: procmap::UprobeSite {
            pid: 42,
            path: "/bin/true".into(),
            offset,
            ref_ctr_offset: 0,
            ret: false,
            returns: Vec::new(),
        },
    };
    let mut c = Catalog::new();
    let kernel = c.probe_count() as u32;
    let first = c.register_proc(vec![probe("go", 16), probe("stop", 32)]);
    let ids: Vec<u32> = first.iter().map(|p| p.id).collect();
    assert_eq!(ids, vec![USER_PROBE_BASE + 1, USER_PROBE_BASE + 2]);
    // Listing a lazy provider afterwards numbers kernel probes below them.
    c.list_all();
    assert!(c.probe_count() as u32 > kernel);
    assert!(c.probes().filter(|p| p.id <= USER_PROBE_BASE).count() < USER_PROBE_BASE as usize);
    // A probe seen again keeps its ID and gains the site.
    let again = c.register_proc(vec![probe("go", 48)]);
    assert_eq!(again[0].id, USER_PROBE_BASE + 1);
    assert_eq!(c.uprobe_sites(USER_PROBE_BASE + 1).len(), 2);
    assert_eq!(
        c.by_id(USER_PROBE_BASE + 2).map(|p| p.name.as_str()),
        Some("stop")
    );
    // A description that does not name the process finds them too.
    let m = c.matches(&ProbeDesc::parse("*:a.out:main:").unwrap());
    assert_eq!(m.len(), 2);
    assert_eq!(c.probes().last().map(|p| p.id), Some(USER_PROBE_BASE + 2));
}

#[test]
fn a_catalog_can_move_to_another_thread() {
    fn send<T: Send>(_: &T) {}
    send(&Catalog::new());
}
