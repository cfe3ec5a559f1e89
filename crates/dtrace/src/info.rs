//! What `dtrace -l`, `-lv` and `-v` report about probes and programs: IDs and
//! names, stability attributes (from each provider's table) and argument types.

use dtrace_providers::stability::{DepClass, ProviderAttrs, Stability};
use dtrace_providers::{Attr, Catalog, ProbeDesc};
use dtrace_sema::ProbeInfo;
use std::collections::HashMap;

use crate::{compile, CompileError, Source};

/// What a description that names no provider, or names providers by a glob,
/// is rated: it could match any provider's probes (libdtrace rates it so).
const ANY_PROVIDER: Attr = Attr::new(Stability::Unstable, Stability::Unstable, DepClass::Common);

fn is_glob(field: &str) -> bool {
    field.contains(['*', '?', '[', '\\'])
}

/// The attributes of a probe description, as libdtrace rates one: the
/// provider's, lowered by each of module, function and name that the
/// description gives exactly (an empty or glob field matches anything and
/// does not count). A description naming no provider, or a glob of them, is
/// rated as any provider.
fn description_attr(attrs: &ProviderAttrs, d: [&str; 4]) -> Attr {
    let [provider, module, function, name] = d;
    if provider.is_empty() || is_glob(provider) {
        return ANY_PROVIDER;
    }
    let mut a = attrs.provider;
    for (field, attr) in [
        (module, attrs.module),
        (function, attrs.function),
        (name, attrs.name),
    ] {
        if !field.is_empty() && !is_glob(field) {
            a = a.min(attr);
        }
    }
    a
}

/// One row of `dtrace -l`, with what `-v` adds.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ProbeListing {
    /// The probe ID.
    pub id: u32,
    /// The provider.
    pub provider: String,
    /// The module.
    pub module: String,
    /// The function.
    pub function: String,
    /// The probe's name.
    pub name: String,
    /// "Probe Description Attributes": the lowest of the provider's
    /// provider, module, function and name attributes.
    pub attr: Attr,
    /// "Argument Attributes".
    pub arg_attr: Attr,
    /// "Argument Types": `args[i]`'s C type names.
    pub arg_types: Vec<String>,
}

/// One probe description of a clause and what it matched, for `-v`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DescriptionInfo {
    /// `provider:module:function:name` as the description gives them.
    pub description: String,
    /// `None` if the description matched no probe (then dtrace(1) prints no
    /// attributes for it).
    pub matched: Option<MatchedInfo>,
}

/// The attributes and argument types of the probes a description matched.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MatchedInfo {
    /// "Probe Description Attributes".
    pub attr: Attr,
    /// "Argument Attributes".
    pub arg_attr: Attr,
    /// Empty unless every matched probe has the same argument types.
    pub arg_types: Vec<String>,
}

/// `dtrace -v`'s stability report for one program.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StabilityReport {
    /// "Minimum Probe Description Attributes": over every matched probe.
    pub desc_attr: Attr,
    /// "Minimum Statement Attributes". The checker does not rate each
    /// identifier yet; D's variables and functions are Stable/Stable/Common,
    /// and typed arguments (`args[]`) lower this to the matched probes'
    /// argument attributes.
    pub stmt_attr: Attr,
    /// Every probe description of every clause, in program order.
    pub descriptions: Vec<DescriptionInfo>,
}

/// What one compiled program (one -n or -s) matched.
#[derive(Debug, Clone)]
pub struct ProgramInfo {
    /// Number of probes matched by all its clauses (dtrace(1)'s "matched N probes").
    pub matched: usize,
    /// Present when the handle was asked to report stability (`-v`).
    pub stability: Option<StabilityReport>,
}

/// A catalog probe as `dtrace -l(v)` shows it.
pub fn listing(catalog: &Catalog, p: &ProbeInfo) -> ProbeListing {
    ProbeRow::new(p, catalog.attributes(&p.provider)).to_listing()
}

/// One row of `dtrace -l`, borrowed from the catalog: listing every probe
/// (100k+) copies no names. [`ProbeRow::to_listing`] makes the owned
/// [`ProbeListing`].
#[derive(Debug, Clone, Copy)]
pub struct ProbeRow<'a> {
    /// The probe: ID, names and argument descriptions.
    pub probe: &'a ProbeInfo,
    /// Its provider's attributes (`None`: no such provider; rated stable).
    attrs: Option<ProviderAttrs>,
}

impl<'a> ProbeRow<'a> {
    fn new(probe: &'a ProbeInfo, attrs: Option<ProviderAttrs>) -> ProbeRow<'a> {
        ProbeRow { probe, attrs }
    }

    /// "Probe Description Attributes" (`-lv`).
    pub fn attr(&self) -> Attr {
        let p = self.probe;
        let own = [&*p.provider, &*p.module, &*p.function, &*p.name];
        self.attrs
            .map(|a| description_attr(&a, own))
            .unwrap_or(Attr::STABLE)
    }

    /// "Argument Attributes" (`-lv`).
    pub fn arg_attr(&self) -> Attr {
        self.attrs.map(|a| a.args).unwrap_or(Attr::STABLE)
    }

    /// "Argument Types": `args[i]`'s C type names (`-lv`).
    pub fn arg_types(&self) -> impl Iterator<Item = &'a str> {
        self.probe.args.iter().map(|a| a.shown())
    }

    /// The row as an owned [`ProbeListing`].
    pub fn to_listing(&self) -> ProbeListing {
        let p = self.probe;
        ProbeListing {
            attr: self.attr(),
            arg_attr: self.arg_attr(),
            arg_types: self.arg_types().map(str::to_string).collect(),
            id: p.id,
            provider: p.provider.to_string(),
            module: p.module.to_string(),
            function: p.function.to_string(),
            name: p.name.to_string(),
        }
    }
}

/// The rows of the probes `ids` (unknown IDs left out), asking the catalog for
/// a provider's attributes once per run of its probes.
pub fn rows<'a>(catalog: &'a Catalog, ids: &'a [u32]) -> impl Iterator<Item = ProbeRow<'a>> + 'a {
    let mut last: Option<(&'a str, Option<ProviderAttrs>)> = None;
    ids.iter().filter_map(move |&id| {
        let p = catalog.by_id(id)?;
        let attrs = match last {
            Some((name, attrs)) if name == &*p.provider => attrs,
            _ => {
                let attrs = catalog.attributes(&p.provider);
                last = Some((&p.provider, attrs));
                attrs
            }
        };
        Some(ProbeRow::new(p, attrs))
    })
}

/// An attribute triplet as `-x amin` writes it (`Evolving/Evolving/Common`,
/// any case); one level alone rates names and data, with the lowest class.
pub(crate) fn parse_attr(text: &str) -> Option<Attr> {
    const LEVELS: [Stability; 8] = [
        Stability::Internal,
        Stability::Private,
        Stability::Obsolete,
        Stability::External,
        Stability::Unstable,
        Stability::Evolving,
        Stability::Stable,
        Stability::Standard,
    ];
    const CLASSES: [DepClass; 6] = [
        DepClass::Unknown,
        DepClass::Cpu,
        DepClass::Platform,
        DepClass::Group,
        DepClass::Isa,
        DepClass::Common,
    ];
    let level = |w: &str| {
        LEVELS
            .into_iter()
            .find(|l| l.to_string().eq_ignore_ascii_case(w))
    };
    let class = |w: &str| {
        CLASSES
            .into_iter()
            .find(|c| c.to_string().eq_ignore_ascii_case(w))
    };
    match text.split('/').collect::<Vec<_>>().as_slice() {
        [l] => level(l).map(|l| Attr::new(l, l, DepClass::Unknown)),
        [n, d, c] => Some(Attr::new(level(n)?, level(d)?, class(c)?)),
        _ => None,
    }
}

/// Whether `a` is rated below `min`: libdtrace compares name stability, then
/// data stability, then dependency class.
pub(crate) fn below(a: Attr, min: Attr) -> bool {
    (a.name, a.data, a.class) < (min.name, min.data, min.class)
}

/// The attributes of the probes one description matched (`None` when it
/// matched none), as libdtrace rates the clause it begins.
pub(crate) fn description_rating(
    catalog: &Catalog,
    d: &ProbeDesc,
    probes: &[ProbeInfo],
) -> Option<Attr> {
    matched_info(catalog, d, probes).map(|m| m.attr)
}

/// What a set of probes has in common, as dtrace(1) reports a description.
fn matched_info(catalog: &Catalog, d: &ProbeDesc, probes: &[ProbeInfo]) -> Option<MatchedInfo> {
    let first = probes.first()?;
    let mut attr = Attr::STABLE;
    let mut arg_attr = Attr::STABLE;
    for p in probes {
        if let Some(a) = catalog.attributes(&p.provider) {
            attr = attr.min(description_attr(
                &a,
                [&*d.provider, &*d.module, &*d.function, &*d.name],
            ));
            arg_attr = arg_attr.min(a.args);
        }
    }
    let same = probes.iter().all(|p| p.args == first.args);
    Some(MatchedInfo {
        attr,
        arg_attr,
        arg_types: if same {
            first.args.iter().map(|a| a.shown().to_string()).collect()
        } else {
            Vec::new()
        },
    })
}

/// The stability report of a program whose descriptions matched `described`;
/// `uses_args` says whether its statements use typed arguments (`args[]`).
pub fn report(
    catalog: &Catalog,
    described: &[(ProbeDesc, Vec<ProbeInfo>)],
    uses_args: bool,
) -> StabilityReport {
    let mut desc_attr = Attr::STABLE;
    let mut stmt_attr = Attr::STABLE;
    let mut descriptions = Vec::new();
    for (d, probes) in described {
        let matched = matched_info(catalog, d, probes);
        if let Some(m) = &matched {
            desc_attr = desc_attr.min(m.attr);
            if uses_args {
                stmt_attr = stmt_attr.min(m.arg_attr);
            }
        }
        descriptions.push(DescriptionInfo {
            description: format!("{}:{}:{}:{}", d.provider, d.module, d.function, d.name),
            matched,
        });
    }
    StabilityReport {
        desc_attr,
        stmt_attr,
        descriptions,
    }
}

impl crate::Dtrace {
    /// `dtrace -l`: the probes matching `source`'s descriptions (all probes if `None`).
    pub fn list(&mut self, source: Option<&Source>) -> Result<Vec<ProbeListing>, CompileError> {
        self.list_with_misses(source).map(|(rows, _)| rows)
    }

    /// Like [`Dtrace::list`], also giving dtrace(1)'s message for each
    /// description that matches no probe (`failed to match ::x:: No probe
    /// matches description`), which `-l` reports and goes on.
    pub fn list_with_misses(
        &mut self,
        source: Option<&Source>,
    ) -> Result<(Vec<ProbeListing>, Vec<String>), CompileError> {
        self.list_with_vars(source, &HashMap::new())
    }

    /// Like [`Dtrace::list_with_misses`], with macro variables (`$target`
    /// of `-l -c cmd`) defined.
    pub fn list_with_vars(
        &mut self,
        source: Option<&Source>,
        macro_vars: &HashMap<String, String>,
    ) -> Result<(Vec<ProbeListing>, Vec<String>), CompileError> {
        self.list_probes(source, macro_vars, true)
    }

    /// `dtrace -l` (`with_args`: `-lv`): the probes matching `source`'s
    /// descriptions, each listed once, and the misses. Only `-lv` resolves the
    /// matched probes (their argument types: tracefs formats, BTF prototypes);
    /// listing everything (`source` `None`) shows the probes as listed.
    pub fn list_probes(
        &mut self,
        source: Option<&Source>,
        macro_vars: &HashMap<String, String>,
        with_args: bool,
    ) -> Result<(Vec<ProbeListing>, Vec<String>), CompileError> {
        let (ids, misses) = self.list_ids(source, macro_vars, with_args)?;
        let rows = self.listing_rows(&ids).map(|r| r.to_listing()).collect();
        Ok((rows, misses))
    }

    /// [`Dtrace::list_probes`] as probe IDs, in order, for
    /// [`Dtrace::listing_rows`]: every probe when `source` is `None`.
    pub fn list_ids(
        &mut self,
        source: Option<&Source>,
        macro_vars: &HashMap<String, String>,
        with_args: bool,
    ) -> Result<(Vec<u32>, Vec<String>), CompileError> {
        let Some(src) = source else {
            self.catalog.list_all();
            let ids = self.catalog.probes().map(|p| p.id).collect();
            return Ok((ids, Vec::new()));
        };
        let src = &*self.preprocessed(src)?;
        let (program, _, _) = self.parse(src, &[], macro_vars)?;
        let mut misses = Vec::new();
        let mut ids: Vec<u32> = Vec::new();
        for item in &program.items {
            let dtrace_syntax::ast::Item::Clause(c) = item else {
                continue;
            };
            for spec in &c.probes {
                let errtags = self.options.errtags;
                let (desc, found) =
                    compile::list_matches(&self.map, spec, &mut self.catalog, with_args, errtags)?;
                if found.is_empty() {
                    misses.push(format!(
                        "dtrace: failed to match {}:{}:{}:{}: No probe matches description",
                        desc.provider, desc.module, desc.function, desc.name
                    ));
                }
                ids.extend(found);
            }
        }
        ids.sort_unstable();
        ids.dedup();
        Ok((ids, misses))
    }

    /// The `dtrace -l` rows of probes `ids`, borrowed from the catalog (no
    /// name is copied: listing every probe is 100k+ rows).
    pub fn listing_rows<'a>(&'a self, ids: &'a [u32]) -> impl Iterator<Item = ProbeRow<'a>> + 'a {
        rows(&self.catalog, ids)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use dtrace_providers::stability;

    #[test]
    fn listings_and_reports() {
        let mut c = Catalog::new();
        let begin = c.matches(&ProbeDesc {
            provider: String::new(),
            module: String::new(),
            function: String::new(),
            name: "BEGIN".into(),
        });
        let l = listing(&c, &begin[0]);
        // dtrace:::BEGIN names no module or function: provider and name count.
        assert_eq!(
            l.attr,
            stability::DTRACE.provider.min(stability::DTRACE.name)
        );
        assert_eq!(l.arg_attr, stability::DTRACE.args);
        let desc = |s: &str| {
            ProbeDesc::parse(s).ok().unwrap_or(ProbeDesc {
                provider: String::new(),
                module: String::new(),
                function: String::new(),
                name: String::new(),
            })
        };
        let read = c.matches(&desc("syscall::read:entry"));
        // read(unsigned int fd, char *buf, size_t count) from its tracepoint
        // format; six untyped arguments where tracefs cannot be read.
        let read_args = read.first().map_or(0, |p| p.args.len());
        assert!(read_args == 3 || read_args == 6, "{read:?}");
        let all = c.matches(&desc("syscall:::"));
        let r = report(
            &c,
            &[
                (desc("BEGIN"), begin),
                (desc("syscall::read:entry"), read),
                (desc("syscall:::"), all),
                (desc("nosuch:::"), Vec::new()),
            ],
            true,
        );
        // ":::BEGIN" names no provider: rated as any provider's probes.
        let attr_of = |i: usize| r.descriptions[i].matched.as_ref().map(|m| m.attr);
        assert_eq!(attr_of(0), Some(ANY_PROVIDER));
        let s = stability::SYSCALL;
        let read_attr = s.provider.min(s.function).min(s.name);
        assert_eq!(attr_of(1), Some(read_attr));
        assert_eq!(attr_of(2), Some(s.provider.min(s.name)));
        assert_eq!(r.desc_attr, ANY_PROVIDER.min(read_attr));
        assert_eq!(r.stmt_attr, stability::SYSCALL.args);
        assert_eq!(r.descriptions[0].description, ":::BEGIN");
        assert_eq!(
            r.descriptions[1]
                .matched
                .as_ref()
                .map(|m| m.arg_types.len()),
            Some(read_args)
        );
        // entry and return probes have different arguments: none are shown.
        assert_eq!(
            r.descriptions[2]
                .matched
                .as_ref()
                .map(|m| m.arg_types.len()),
            Some(0)
        );
        assert_eq!(r.descriptions[3].matched, None);
    }
}
