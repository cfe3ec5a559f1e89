//! Providers: each one lists its probes (with argument types), creates on-demand
//! probes, resolves what a matched probe needs (event ids, argument layouts), and
//! says which trampoline kind serves them ([`dtrace_sema::ProbeKind`]).
//! [`Catalog`] numbers every probe and matches probe descriptions.
//!
//! Architecture invariants: probe IDs are assigned once per [`Catalog`] and never
//! change for its life; on-demand probes and the probes of lazy providers (listed
//! the first time a description could match them) get the next free IDs.
//! User-space probes (pid, USDT) are numbered apart, from [`USER_PROBE_BASE`]:
//! after every kernel probe, as DTrace numbers the probes of a process it grabs
//! after those of the kernel, however few kernel providers were listed.

pub mod attach;
pub mod cpc;
pub mod dtrace_provider;
pub mod elf;
pub mod fbt;
pub mod io;
pub mod kernel_sdt;
pub mod late;
pub mod lockstat;
pub mod pdesc;
pub mod pid;
pub mod proc;
pub mod procmap;
pub mod profile;
pub mod rawtp;
pub mod sched;
pub mod sdt;
pub mod stability;
pub mod syscall;
pub mod syscalls_x86_64;
pub mod usdt;

pub use pdesc::{glob, DescError, ProbeDesc};
pub use stability::{Attr, DepClass, ProviderAttrs, Stability};

use dtrace_ctypes::KernelBtfFiles;
use dtrace_sema::{Name, ProbeInfo, ProbeKind};

/// A probe as a provider describes it, before the catalog gives it an ID.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ProbeTemplate {
    pub module: Name,
    pub function: Name,
    pub name: Name,
    pub kind: ProbeKind,
    /// The arguments' descriptions (libdtrace's `dt_argdesc_t`).
    pub args: Vec<dtrace_sema::ArgDesc>,
    /// Where each argument is in the record (tracepoints); see [`ProbeInfo::fields`].
    pub fields: Vec<dtrace_sema::RecordField>,
}

// --- user-space (per-process) providers: pid, usdt ---

/// A probe of a process-specific provider (`pid123`, `myprov123`) and where
/// it attaches.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ProcProbe {
    pub provider: String,
    pub template: ProbeTemplate,
    pub site: procmap::UprobeSite,
}

/// Which `D_PROC_*` error a process-specific description gave.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ProcErrorKind {
    /// `D_PROC_GRAB`: no such process.
    Grab,
    /// `D_PROC_FUNC`: no such function in the named module.
    Func,
    /// `D_PROC_OFF`: an offset past the function's end.
    Off,
    /// `D_PROC_ALIGN`: an offset inside an instruction.
    Align,
    /// `D_PROC_NAME`: a malformed probe name.
    Name,
    /// `D_PROC_LIB`: `-` with a module other than `a.out`.
    Lib,
}

/// An error matching a process-specific description, in libdtrace's words.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ProcError {
    pub kind: ProcErrorKind,
    pub message: String,
}

/// The provider operations (as libdtrace's provider ops table).
pub trait Provider: Send {
    fn name(&self) -> &'static str;
    /// The provider's stability attributes (its chapter's "Stability" table).
    fn attributes(&self) -> ProviderAttrs;
    /// Every probe listed by `dtrace -l`.
    fn list(&self) -> Vec<ProbeTemplate>;
    /// [`Provider::list`], each probe handed to `out` as it is made: a provider
    /// with 100k+ probes (fbt) builds no list of its own.
    fn list_into(&self, out: &mut dyn Lister) {
        let listed = self.list();
        out.reserve(listed.len());
        for t in listed {
            out.add(t);
        }
    }
    /// A probe made on demand for an exact (glob-free) description, e.g. `tick-7ms`.
    fn create(&self, module: &str, function: &str, name: &str) -> Option<ProbeTemplate> {
        let _ = (module, function, name);
        None
    }
    /// A lazy provider is listed only when a description could match it (or
    /// `dtrace -l` lists everything), so that start-up does not pay for it.
    fn lazy(&self) -> bool {
        false
    }
    /// The probes of a lazy provider that a description with a glob-free name
    /// matches (`module`/`function` empty: any), found without listing the
    /// provider; `None` when the provider cannot answer that cheaply.
    fn find(&self, module: &str, function: &str, name: &str) -> Option<Vec<ProbeTemplate>> {
        let _ = (module, function, name);
        None
    }
    /// Complete a listed probe once a description matches it (read its event id,
    /// argument types and layout). An error leaves the probe out of the match.
    fn resolve(&self, probe: &mut ProbeTemplate) -> Result<(), String> {
        let _ = probe;
        Ok(())
    }
    /// Why the provider has no probe `name` that DTrace documents for it (no
    /// kernel event fires at the same moment), for the error that enabling it
    /// gives; `None` for names it does not document.
    fn unavailable(&self, name: &str) -> Option<&'static str> {
        let _ = name;
        None
    }
    /// Why `probe` cannot be enabled on this kernel, in one line naming what
    /// is missing (the enable op's refusal, before anything is loaded).
    fn refusal(&self, probe: &ProbeInfo, features: &dtrace_sys::Features) -> Option<String> {
        let _ = (probe, features);
        None
    }
}

/// Where a provider lists its probes ([`Provider::list_into`]).
pub trait Lister {
    /// `n` more probes are coming.
    fn reserve(&mut self, n: usize);
    fn add(&mut self, t: ProbeTemplate);
}

impl Lister for Vec<ProbeTemplate> {
    fn reserve(&mut self, n: usize) {
        Vec::reserve(self, n);
    }
    fn add(&mut self, t: ProbeTemplate) {
        self.push(t);
    }
}

/// The catalog's probes, numbering one provider's as it lists them.
struct Numbering<'a> {
    probes: &'a mut Vec<ProbeInfo>,
    resolved: &'a mut Vec<bool>,
    found_early: &'a FoundEarly,
    provider: Name,
}

impl Lister for Numbering<'_> {
    fn reserve(&mut self, n: usize) {
        // fbt lists 100k+ probes: grow once, not by doubling (each a copy).
        self.probes.reserve(n);
        self.resolved.reserve(n);
    }
    fn add(&mut self, t: ProbeTemplate) {
        if !found(self.found_early, &self.provider, &t) {
            number(self.probes, self.resolved, self.provider.clone(), t);
        }
    }
}

/// Lazy providers' probes found by name before their provider was listed
/// (provider, module, function, name).
type FoundEarly = std::collections::HashSet<(Name, Name, Name, Name)>;

/// Whether `provider`'s probe `t` is numbered already (found before its
/// provider was listed).
fn found(early: &FoundEarly, provider: &Name, t: &ProbeTemplate) -> bool {
    !early.is_empty()
        && early.contains(&(
            provider.clone(),
            t.module.clone(),
            t.function.clone(),
            t.name.clone(),
        ))
}

/// Give `provider`'s probe `t` the next ID.
fn number(probes: &mut Vec<ProbeInfo>, resolved: &mut Vec<bool>, provider: Name, t: ProbeTemplate) {
    probes.push(ProbeInfo {
        id: probes.len() as u32 + 1,
        provider,
        module: t.module,
        function: t.function,
        name: t.name,
        kind: t.kind,
        args: t.args,
        fields: t.fields,
    });
    resolved.push(false);
}

/// User-space probes take IDs from `USER_PROBE_BASE + 1`. Kernel probes are
/// numbered from 1 and stay far below it (about 124,000 with every fbt and
/// tracepoint probe of a distribution kernel), so a user-space probe's ID does
/// not depend on which kernel providers a program happened to list.
pub const USER_PROBE_BASE: u32 = 1 << 20;

/// All providers and their numbered probes.
pub struct Catalog {
    providers: Vec<Box<dyn Provider>>,
    /// Whether each provider's probes have been listed.
    listed: Vec<bool>,
    probes: Vec<ProbeInfo>,
    /// Whether each probe (by index) has been resolved.
    resolved: Vec<bool>,
    /// User-space probes: `user[i]` has ID `USER_PROBE_BASE + 1 + i`.
    user: Vec<ProbeInfo>,
    /// Lazy providers' probes found by name before their provider was listed,
    /// so listing does not number them twice.
    found_early: FoundEarly,
    /// Where each user-space (pid, usdt) probe attaches, by probe ID: its
    /// sites, each with the index of its argument layout among the probe's
    /// (a USDT probe's sites may keep their arguments in different places).
    sites: std::collections::HashMap<u32, Vec<(procmap::UprobeSite, u16)>>,
}

impl Default for Catalog {
    fn default() -> Self {
        Catalog::new()
    }
}

impl Catalog {
    /// The built-in providers, probes numbered from 1 in provider order.
    pub fn new() -> Catalog {
        Catalog::without(&[])
    }

    /// [`Catalog::new`], the providers that read kernel BTF (fbt, rawtp)
    /// reading it through `btf`: the handle's type table shares it, so the
    /// kernel's BTF is read once for both.
    pub fn with_btf(btf: &KernelBtfFiles) -> Catalog {
        Catalog::build(btf, &[])
    }

    /// The built-in providers except those named in `omit` (the fuzzer omits
    /// `fbt`: its ~120k probes make every whole-catalog glob cost a debug
    /// build minutes, and they add no code paths `rawtp` does not cover).
    pub fn without(omit: &[&str]) -> Catalog {
        Catalog::build(&KernelBtfFiles::running(), omit)
    }

    fn build(btf: &KernelBtfFiles, omit: &[&str]) -> Catalog {
        let mut providers: Vec<Box<dyn Provider>> = vec![
            Box::new(dtrace_provider::DtraceProvider),
            Box::new(syscall::SyscallProvider),
            Box::new(profile::ProfileProvider),
            Box::new(sdt::SdtProvider),
            Box::new(proc::PROVIDER),
            Box::new(sched::PROVIDER),
            Box::new(io::PROVIDER),
            Box::new(rawtp::RawtpProvider::new(btf.clone())),
            Box::new(fbt::FbtProvider::new(btf.clone())),
            Box::new(lockstat::LockstatProvider),
            Box::new(cpc::CpcProvider),
        ];
        providers.retain(|p| !omit.contains(&p.name()));
        let mut c = Catalog {
            listed: vec![false; providers.len()],
            providers,
            probes: Vec::new(),
            resolved: Vec::new(),
            user: Vec::new(),
            found_early: std::collections::HashSet::new(),
            sites: std::collections::HashMap::new(),
        };
        for i in 0..c.providers.len() {
            if !c.providers[i].lazy() {
                c.list_provider(i);
            }
        }
        c
    }

    fn list_provider(&mut self, i: usize) {
        if self.listed.get(i).copied().unwrap_or(true) {
            return;
        }
        self.listed[i] = true;
        // The provider lists straight into the catalog, numbered as they come.
        let provider = &self.providers[i];
        let mut numbering = Numbering {
            probes: &mut self.probes,
            resolved: &mut self.resolved,
            found_early: &self.found_early,
            provider: Name::from_static(provider.name()),
        };
        provider.list_into(&mut numbering);
    }

    fn has(&self, provider: &Name, t: &ProbeTemplate) -> bool {
        found(&self.found_early, provider, t)
    }

    /// Consult lazy provider `i` for `desc`: a glob-free name is looked up
    /// directly when the provider can; anything else lists the provider.
    fn consult(&mut self, i: usize, desc: &ProbeDesc) {
        if self.listed.get(i).copied().unwrap_or(true) {
            return;
        }
        let exact = desc.is_exact() && !desc.name.is_empty();
        let found = exact
            .then(|| self.providers[i].find(&desc.module, &desc.function, &desc.name))
            .flatten();
        let Some(found) = found else {
            self.list_provider(i);
            return;
        };
        let name = Name::from_static(self.providers[i].name());
        for t in found {
            if !self.has(&name, &t) {
                self.found_early.insert((
                    name.clone(),
                    t.module.clone(),
                    t.function.clone(),
                    t.name.clone(),
                ));
                self.push(name.clone(), t);
            }
        }
    }

    /// List every lazy provider too (`dtrace -l` of everything, `-i ID`).
    pub fn list_all(&mut self) {
        for i in 0..self.providers.len() {
            self.list_provider(i);
        }
    }

    fn push(&mut self, provider: Name, t: ProbeTemplate) {
        number(&mut self.probes, &mut self.resolved, provider, t);
    }

    /// Resolve probe `index` with its provider; false if the provider cannot.
    fn resolve(&mut self, index: usize) -> bool {
        if self.resolved.get(index).copied().unwrap_or(false) {
            return true;
        }
        let Some(p) = self.probes.get(index) else {
            return false;
        };
        let Some(provider) = self.providers.iter().find(|q| q.name() == p.provider) else {
            return false;
        };
        let mut t = ProbeTemplate {
            module: p.module.clone(),
            function: p.function.clone(),
            name: p.name.clone(),
            kind: p.kind,
            args: p.args.clone(),
            fields: p.fields.clone(),
        };
        if provider.resolve(&mut t).is_err() {
            return false;
        }
        let p = &mut self.probes[index];
        p.kind = t.kind;
        p.args = t.args;
        p.fields = t.fields;
        self.resolved[index] = true;
        true
    }

    /// The probe with ID `id`, resolved (argument types and layout filled in).
    pub fn resolved(&mut self, id: u32) -> Option<&ProbeInfo> {
        if id > USER_PROBE_BASE {
            return self.by_id(id);
        }
        let index = (id as usize).checked_sub(1)?;
        if !self.resolve(index) {
            return None;
        }
        self.probes.get(index)
    }

    /// Why a description that matched nothing names a documented probe this
    /// kernel cannot provide (`sched:::tick`), when it does.
    pub fn unavailable(&self, desc: &ProbeDesc) -> Option<String> {
        if desc.provider.is_empty() || desc.name.is_empty() || !desc.is_exact() {
            return None;
        }
        let p = self.providers.iter().find(|p| p.name() == desc.provider)?;
        p.unavailable(&desc.name).map(str::to_string)
    }

    /// Why one of `probes` cannot be enabled here (`provider:module:function:name:
    /// reason`), from its provider's enable op; `None` when all can.
    pub fn refusal(&self, probes: &[ProbeInfo], features: &dtrace_sys::Features) -> Option<String> {
        probes.iter().find_map(|p| {
            let provider = self.providers.iter().find(|q| q.name() == p.provider)?;
            let why = provider.refusal(p, features)?;
            Some(format!(
                "{}:{}:{}:{}: {why}",
                p.provider, p.module, p.function, p.name
            ))
        })
    }

    /// The attributes of the provider named `provider`, if there is one.
    pub fn attributes(&self, provider: &str) -> Option<ProviderAttrs> {
        self.providers
            .iter()
            .find(|p| p.name() == provider)
            .map(|p| p.attributes())
    }

    /// Every probe known so far, by ID: the kernel's, then user-space probes.
    pub fn probes(&self) -> impl Iterator<Item = &ProbeInfo> {
        self.probes.iter().chain(&self.user)
    }

    /// How many probes are known so far.
    pub fn probe_count(&self) -> usize {
        self.probes.len() + self.user.len()
    }

    pub fn by_id(&self, id: u32) -> Option<&ProbeInfo> {
        match id.checked_sub(USER_PROBE_BASE + 1) {
            Some(i) => self.user.get(i as usize),
            None => self.probes.get((id as usize).checked_sub(1)?),
        }
    }

    /// Where user-space probe `id` attaches, and which of its argument
    /// layouts each site uses (see [`ProbeKind::Uprobe`]).
    pub fn uprobe_sites(&self, id: u32) -> &[(procmap::UprobeSite, u16)] {
        self.sites.get(&id).map(Vec::as_slice).unwrap_or(&[])
    }

    /// Add `site` (its arguments at `fields`) to known user-space probe `index`.
    fn add_site(
        &mut self,
        index: usize,
        site: procmap::UprobeSite,
        fields: Vec<dtrace_sema::RecordField>,
    ) {
        let Some(q) = self.user.get_mut(index) else {
            return;
        };
        let sites = self.sites.entry(q.id).or_default();
        if sites.iter().any(|(s, _)| *s == site) {
            return;
        }
        let n = q.args.len();
        let layout = if n == 0 {
            Some(0)
        } else {
            q.fields.chunks(n).position(|c| c == fields.as_slice())
        };
        let layout = match layout {
            Some(l) => l,
            None if fields.len() == n => {
                q.fields.extend(fields);
                q.fields.len() / n - 1
            }
            None => return,
        };
        sites.push((site, layout as u16));
    }

    /// Make the probes of a description naming a process (`pid123:...`,
    /// `myprov123:...`): pid probes from the process's objects' symbols, USDT
    /// probes from their stapsdt notes. Probes made before keep their IDs.
    /// `None` when the description names no process. (The module `a.out`
    /// names the executable, whose probes carry its file name: these probes
    /// are the answer, not a glob match of the description.)
    fn add_proc_probes(&mut self, desc: &ProbeDesc) -> Result<Option<Vec<ProbeInfo>>, ProcError> {
        let Some((prefix, pid)) = procmap::split_pid(&desc.provider) else {
            // `myprov*:::` names the USDT providers of every process; they
            // join the catalog here and match below with the others.
            let known = self.providers.iter().map(|p| p.name());
            if scans_processes(&desc.provider, known.chain(["pid"])) {
                let found =
                    usdt::all_processes(&desc.provider, &desc.module, &desc.function, &desc.name);
                self.register_proc(found);
            }
            return Ok(None);
        };
        let found = if prefix == "pid" {
            pid::probes(pid, &desc.module, &desc.function, &desc.name)?
        } else if pid::is_glob(prefix) {
            // A provider glob (`p*d$target`) matches the process's pid
            // provider as well as its USDT providers; what the pid provider
            // cannot match is no error here, only no probes.
            let mut all = usdt::probes(prefix, pid, &desc.module, &desc.function, &desc.name)?;
            if pdesc::glob(prefix.as_bytes(), b"pid") {
                let pid_probes = pid::probes(pid, &desc.module, &desc.function, &desc.name);
                all.splice(0..0, pid_probes.unwrap_or_default());
            }
            all
        } else {
            usdt::probes(prefix, pid, &desc.module, &desc.function, &desc.name)?
        };
        Ok(Some(self.register_proc(found)))
    }

    /// Number the process probes not known yet and record every site; the
    /// probes, each once, with every site's argument layout.
    fn register_proc(&mut self, found: Vec<ProcProbe>) -> Vec<ProbeInfo> {
        let mut out = Vec::with_capacity(found.len());
        for p in found {
            let t = &p.template;
            let known = self.user.iter().position(|q| {
                q.provider == p.provider
                    && q.module == t.module
                    && q.function == t.function
                    && q.name == t.name
            });
            let index = match known {
                Some(i) => i,
                None => {
                    let t = &p.template;
                    self.user.push(ProbeInfo {
                        id: USER_PROBE_BASE + 1 + self.user.len() as u32,
                        provider: p.provider.as_str().into(),
                        module: t.module.clone(),
                        function: t.function.clone(),
                        name: t.name.clone(),
                        kind: t.kind,
                        args: t.args.clone(),
                        fields: Vec::new(),
                    });
                    self.user.len() - 1
                }
            };
            self.add_site(index, p.site, p.template.fields);
            let id = USER_PROBE_BASE + 1 + index as u32;
            if !out.iter().any(|q: &ProbeInfo| q.id == id) {
                out.extend(self.user.get(index).cloned());
            }
        }
        // The probes as complete as this match made them (every site's layout).
        for q in &mut out {
            if let Some(full) = self.by_id(q.id) {
                q.fields = full.fields.clone();
            }
        }
        out
    }

    /// [`Catalog::matches`], with the errors of process-specific descriptions.
    ///
    /// A provider glob without a process ID whose fixed start names no
    /// provider of the catalog (`myprov*`, not `*` or `sys*`) also looks for
    /// USDT providers in every process.
    pub fn matches_checked(&mut self, desc: &ProbeDesc) -> Result<Vec<ProbeInfo>, ProcError> {
        match self.add_proc_probes(desc)? {
            Some(found) => Ok(found),
            None => Ok(self.match_known(desc)),
        }
    }

    /// The probes a description matches, creating an on-demand probe if the
    /// description is exact and a provider can make it.
    pub fn matches(&mut self, desc: &ProbeDesc) -> Vec<ProbeInfo> {
        match self.add_proc_probes(desc) {
            Ok(Some(found)) => found,
            Ok(None) => self.match_known(desc),
            Err(_) => Vec::new(),
        }
    }

    /// The IDs of the probes `desc` matches, for `dtrace -l`: as
    /// [`Catalog::matches_checked`], but a probe is resolved (its provider asked
    /// for argument types and layout, which can mean reading tracefs or BTF) only
    /// when `resolve` is set (`-lv` shows argument types; plain `-l` does not).
    pub fn match_ids(&mut self, desc: &ProbeDesc, resolve: bool) -> Result<Vec<u32>, ProcError> {
        if let Some(found) = self.add_proc_probes(desc)? {
            return Ok(found.iter().map(|p| p.id).collect());
        }
        Ok(self.match_indices(desc, resolve))
    }

    /// IDs of the probes `desc` matches (resolved if `resolve`: a probe
    /// its provider cannot resolve is left out), making an on-demand probe
    /// when the description is exact and a provider can.
    fn match_indices(&mut self, desc: &ProbeDesc, resolve: bool) -> Vec<u32> {
        for i in 0..self.providers.len() {
            if desc.matches_provider(self.providers[i].name()) {
                self.consult(i, desc);
            }
        }
        let mut hits: Vec<usize> = self
            .probes
            .iter()
            .enumerate()
            .filter(|(_, p)| desc.matches(&p.provider, &p.module, &p.function, &p.name))
            .map(|(i, _)| i)
            .collect();
        if resolve {
            hits.retain(|&i| self.resolve(i));
        }
        let mut hits: Vec<u32> = hits.into_iter().map(|i| i as u32 + 1).collect();
        // User-space probes made by an earlier description (`myprov*:::`).
        hits.extend(
            self.user
                .iter()
                .filter(|p| desc.matches(&p.provider, &p.module, &p.function, &p.name))
                .map(|p| p.id),
        );
        if !hits.is_empty() || !desc.is_exact() {
            return hits;
        }
        let mut made = None;
        for p in &self.providers {
            if desc.provider.is_empty() || desc.provider == p.name() {
                if let Some(t) = p.create(&desc.module, &desc.function, &desc.name) {
                    made = Some((p.name(), t));
                    break;
                }
            }
        }
        match made {
            Some((name, t)) => {
                self.push(Name::from_static(name), t);
                let last = self.probes.len() - 1;
                self.resolve(last);
                vec![last as u32 + 1]
            }
            None => Vec::new(),
        }
    }

    fn match_known(&mut self, desc: &ProbeDesc) -> Vec<ProbeInfo> {
        let hits = self.match_indices(desc, true);
        hits.into_iter()
            .filter_map(|id| self.by_id(id).cloned())
            .collect()
    }
}

/// Whether a provider description is a glob to look for USDT providers in
/// every process: it has a fixed start (so `*` and `*:::entry` do not read
/// every process's objects) that is not the start of the name of one of
/// `known` (the catalog's providers, and `pid`).
fn scans_processes<'a>(provider: &str, mut known: impl Iterator<Item = &'a str>) -> bool {
    let Some(at) = provider.find(['*', '?', '[']) else {
        return false;
    };
    let start = &provider[..at];
    !start.is_empty() && !known.any(|k| k.starts_with(start))
}

#[cfg(test)]
mod tests;
