//! Compiling sources: parse, match probe descriptions, check.

use crate::source::ProbeSpecKind;
use crate::{CompileError, Location};
use dtrace_providers::{Catalog, ProbeDesc};
use dtrace_sema::ProbeInfo;
use dtrace_syntax::ast::{Clause, Item, Program};
use dtrace_syntax::{
    render_dtrace, render_rich, Diagnostic, RenderOptions, SourceKind, SourceMap, Span, Tag,
};

/// A diagnostic as a value (tag, message, place) and rendered both ways.
pub fn error(map: &SourceMap, d: &Diagnostic, errtags: bool) -> CompileError {
    let location = d.span.and_then(|span| {
        let f = map.get(span.source)?;
        let (_, column) = f.line_col(span.lo);
        let file = match (&f.kind, f.logical_file(span.lo)) {
            (SourceKind::Script { .. }, Some(other)) => other.to_string(),
            (SourceKind::Script { path }, _) => path.clone(),
            (SourceKind::ProbeSpecifier, _) => "<command line>".to_string(),
            (SourceKind::Library { name }, _) => name.clone(),
        };
        Some(Box::new(Location {
            file,
            line: f.logical_line(span.lo),
            column,
            span: span.lo..span.hi,
        }))
    });
    CompileError {
        message: render_dtrace(map, d, RenderOptions { errtags }),
        rich: render_rich(map, d),
        tag: Some(d.tag.name()),
        text: d.message.clone(),
        location,
    }
}

/// A plain message that has no source position (and so no rich form).
pub fn plain(message: String) -> CompileError {
    CompileError {
        text: message
            .strip_prefix("dtrace: ")
            .unwrap_or(&message)
            .to_string(),
        message,
        ..CompileError::default()
    }
}

/// The D text a `-P/-m/-f/-i` argument stands for: its first word becomes the
/// matching fields of a probe description, the rest (predicate, actions) is kept.
/// The word is read as dtrace(1) reads it: its `:`-separated parts fill the
/// description from the named field leftwards (`-f mod:func`), and more parts
/// than fields is an error.
pub fn spec_text(
    kind: ProbeSpecKind,
    text: &str,
    catalog: &mut Catalog,
) -> Result<String, CompileError> {
    let t = text.trim_start();
    let end = t
        .find(|c: char| c.is_whitespace() || c == '/' || c == '{')
        .unwrap_or(t.len());
    let (word, rest) = t.split_at(end);
    let bad = |m: String| plain(format!("dtrace: invalid probe specifier {text}: {m}"));
    let digits = word.bytes().take_while(u8::is_ascii_digit).count();
    let (field, what) = match kind {
        ProbeSpecKind::Name => return Ok(text.to_string()),
        ProbeSpecKind::Provider => (0, "providers"),
        ProbeSpecKind::Module => (1, "modules"),
        ProbeSpecKind::Function => (2, "functions"),
        ProbeSpecKind::Id => {
            catalog.list_all();
            if digits == 0 {
                // Not an identifier: a probe name.
                return Ok(format!(":::{word}{rest}"));
            }
            let id = &word[..digits];
            let Some(p) = id.parse::<u32>().ok().and_then(|id| catalog.by_id(id)) else {
                return Err(bad(format!(
                    "invalid probe identifier {id}: Unknown probe identifier"
                )));
            };
            let more = &word[digits..];
            if !more.is_empty() {
                return Ok(format!(":::{more}{rest}"));
            }
            return Ok(format!(
                "{}:{}:{}:{}{rest}",
                p.provider, p.module, p.function, p.name
            ));
        }
    };
    if digits > 0 {
        return Err(bad(format!(
            "probe identifier {} not permitted when specifying {what}",
            &word[..digits]
        )));
    }
    // The parts after each `:` (and before the first, unless the word starts
    // with one), assigned from the right.
    let mut parts: Vec<&str> = word.split(':').collect();
    if word.starts_with(':') {
        parts.remove(0);
    }
    if parts.len() > field + 1 {
        return Err(bad(format!(
            "invalid probe description \"{word}\": Overspecified probe description"
        )));
    }
    let mut fields = ["", "", "", ""];
    for (i, part) in parts.iter().rev().enumerate() {
        fields[field - i] = part;
    }
    Ok(format!("{}{rest}", fields.join(":")))
}

/// Probes matched by each clause of `items` (each once, first-seen order). A
/// description that matches nothing is an error (D_PDESC_ZERO) unless
/// `zdefs`. A clause is repeated for a probe that several of its
/// descriptions match: DTrace makes one enabling per description, so such a
/// probe runs the clause once for each (`pid$1::go:entry, pid$1::_go:entry`,
/// where `_go` is an alias of `go`, runs it twice). The items come back with
/// each repeat right after its clause, and the probes of each clause.
pub fn match_clauses_repeated(
    map: &SourceMap,
    items: Vec<Item>,
    catalog: &mut Catalog,
    zdefs: bool,
    errtags: bool,
) -> Result<(Vec<Item>, Vec<Vec<ProbeInfo>>), CompileError> {
    let mut out_items = Vec::with_capacity(items.len());
    let mut out = Vec::new();
    for item in items {
        let Item::Clause(c) = &item else {
            out_items.push(item);
            continue;
        };
        let (probes, repeats) = match_clause(map, c, catalog, zdefs, errtags)?;
        out.push(probes);
        let copy = item.clone();
        out_items.push(item);
        for r in repeats {
            out_items.push(copy.clone());
            out.push(r);
        }
    }
    Ok((out_items, out))
}

/// The probes a clause's descriptions match (each once), and the probes
/// matched again by a later description: `repeats[j]` those matched for the
/// (j+2)-th time.
fn match_clause(
    map: &SourceMap,
    c: &Clause,
    catalog: &mut Catalog,
    zdefs: bool,
    errtags: bool,
) -> Result<(Vec<ProbeInfo>, Vec<Vec<ProbeInfo>>), CompileError> {
    let mut probes: Vec<ProbeInfo> = Vec::new();
    let mut repeats: Vec<Vec<ProbeInfo>> = Vec::new();
    // Times each id was matched, so a description matching 100k probes (fbt)
    // stays linear.
    let mut ids: std::collections::HashMap<u32, usize> = std::collections::HashMap::new();
    for spec in &c.probes {
        let desc = parse_desc(map, spec, errtags)?;
        let found = catalog.matches_checked(&desc).map_err(|e| {
            error(
                map,
                &Diagnostic::new(proc_tag(e.kind), spec.span, e.message),
                errtags,
            )
        })?;
        if found.is_empty() && !zdefs {
            let d = Diagnostic::new(
                Tag::D_PDESC_ZERO,
                spec.span,
                match catalog.unavailable(&desc) {
                    Some(why) => {
                        format!("probe description {desc} does not match any probes: {why}")
                    }
                    None => format!("probe description {desc} does not match any probes"),
                },
            );
            return Err(error(map, &d, errtags));
        }
        // A description matching a probe twice (`pid$1::go:entry` through an
        // alias) still enables it once.
        let mut seen_here = std::collections::HashSet::new();
        for p in found {
            if !seen_here.insert(p.id) {
                continue;
            }
            let n = ids.entry(p.id).or_insert(0);
            *n += 1;
            match *n {
                1 => probes.push(p),
                k => {
                    if repeats.len() < k - 1 {
                        repeats.resize_with(k - 1, Vec::new);
                    }
                    repeats[k - 2].push(p);
                }
            }
        }
    }
    Ok((probes, repeats))
}

/// The probes one description of `dtrace -l` matches, by ID (resolved only
/// when `resolve`: `-lv`), with the description as parsed; errors as
/// [`match_clauses_repeated`] gives them.
pub fn list_matches(
    map: &SourceMap,
    spec: &dtrace_syntax::ast::ProbeSpec,
    catalog: &mut Catalog,
    resolve: bool,
    errtags: bool,
) -> Result<(ProbeDesc, Vec<u32>), CompileError> {
    let desc = parse_desc(map, spec, errtags)?;
    let ids = catalog.match_ids(&desc, resolve).map_err(|e| {
        error(
            map,
            &Diagnostic::new(proc_tag(e.kind), spec.span, e.message),
            errtags,
        )
    })?;
    Ok((desc, ids))
}

/// A clause's probe description, or `D_PDESC_INVAL` at its span.
fn parse_desc(
    map: &SourceMap,
    spec: &dtrace_syntax::ast::ProbeSpec,
    errtags: bool,
) -> Result<ProbeDesc, CompileError> {
    ProbeDesc::parse(&spec.text).map_err(|e| {
        error(
            map,
            &Diagnostic::new(Tag::D_PDESC_INVAL, spec.span, e.0),
            errtags,
        )
    })
}

/// Each clause's probe descriptions, in clause order (those that do not
/// parse are left out: matching reported them).
pub fn clause_descs(items: &[Item]) -> Vec<Vec<ProbeDesc>> {
    items
        .iter()
        .filter_map(|i| match i {
            Item::Clause(c) => Some(
                c.probes
                    .iter()
                    .filter_map(|s| ProbeDesc::parse(&s.text).ok())
                    .collect(),
            ),
            _ => None,
        })
        .collect()
}

/// The `D_PROC_*` tag of a pid/usdt description's error.
fn proc_tag(kind: dtrace_providers::ProcErrorKind) -> Tag {
    use dtrace_providers::ProcErrorKind as K;
    match kind {
        K::Grab => Tag::D_PROC_GRAB,
        K::Func => Tag::D_PROC_FUNC,
        K::Off => Tag::D_PROC_OFF,
        K::Align => Tag::D_PROC_ALIGN,
        K::Name => Tag::D_PROC_NAME,
        K::Lib => Tag::D_PROC_LIB,
    }
}

/// With `-x amin` (or `#pragma D option amin`), every clause's probe
/// descriptions must be rated at least `amin`: libdtrace checks this as it
/// gives each clause its attributes, before typing its statements, and
/// reports it at the clause's last line (D_ATTR_MIN).
pub fn check_amin(
    map: &SourceMap,
    items: &[Item],
    catalog: &mut Catalog,
    amin: dtrace_providers::Attr,
    errtags: bool,
) -> Result<(), CompileError> {
    for item in items {
        let Item::Clause(c) = item else { continue };
        for spec in &c.probes {
            let Ok(desc) = ProbeDesc::parse(&spec.text) else {
                continue;
            };
            let found = catalog.matches(&desc);
            let Some(attr) = crate::info::description_rating(catalog, &desc, &found) else {
                continue;
            };
            if crate::info::below(attr, amin) {
                let end = c.span.hi.saturating_sub(1);
                let d = Diagnostic::new(
                    Tag::D_ATTR_MIN,
                    dtrace_syntax::Span::new(c.span.source, end, end),
                    format!("attributes for clause ({attr}) are less than predefined minimum"),
                );
                return Err(error(map, &d, errtags));
            }
        }
    }
    Ok(())
}

/// Every probe description of every clause of `items` with the probes it
/// matches (for `-v`; malformed descriptions were reported by `match_clauses_repeated`).
pub fn describe(items: &[Item], catalog: &mut Catalog) -> Vec<(ProbeDesc, Vec<ProbeInfo>)> {
    let mut out = Vec::new();
    for item in items {
        let Item::Clause(c) = item else { continue };
        for spec in &c.probes {
            if let Ok(desc) = ProbeDesc::parse(&spec.text) {
                let found = catalog.matches(&desc);
                out.push((desc, found));
            }
        }
    }
    out
}

/// Each clause's probe descriptions, in program order, as `-S` heads it:
/// every description in its four fields (`BEGIN` is `:::BEGIN`), joined by
/// `, `.
pub fn clause_labels(items: &[Item]) -> Vec<String> {
    let shown = |text: &str| match ProbeDesc::parse(text) {
        Ok(d) => format!("{}:{}:{}:{}", d.provider, d.module, d.function, d.name),
        Err(_) => text.to_string(),
    };
    items
        .iter()
        .filter_map(|item| match item {
            Item::Clause(c) => Some(
                c.probes
                    .iter()
                    .map(|p| shown(&p.text))
                    .collect::<Vec<_>>()
                    .join(", "),
            ),
            _ => None,
        })
        .collect()
}

/// Every macro argument after `$0` must be referenced by the program, unless
/// the `argref` option is set: `extraneous argument 'foo' ($1 is not referenced)`.
pub fn unused_macro_args(
    map: &SourceMap,
    end: Span,
    args: &[String],
    used: &[bool],
    errtags: bool,
) -> Result<(), CompileError> {
    for (n, arg) in args.iter().enumerate().skip(1) {
        if !used.get(n).copied().unwrap_or(false) {
            let d = Diagnostic::new(
                Tag::D_MACRO_UNUSED,
                end,
                format!("extraneous argument '{arg}' (${n} is not referenced)"),
            );
            return Err(error(map, &d, errtags));
        }
    }
    Ok(())
}

/// The `#pragma D` directives DTrace knows; all but `option` have no effect here.
const D_PRAGMAS: &[&str] = &[
    "attributes",
    "binding",
    "depends_on",
    "error",
    "ident",
    "line",
    "option",
];

/// Apply `#pragma D option name[=value]` lines (one option each); other known
/// pragmas are accepted, unknown ones are errors (D_PRAGMA_INVAL), and so is
/// `depends_on library` in a main program (D_PRAGMA_DEPEND).
pub fn pragma_options(
    map: &SourceMap,
    program: &Program,
    options: &mut crate::Options,
    errtags: bool,
) -> Result<(), CompileError> {
    for item in &program.items {
        let Item::Pragma(p) = item else { continue };
        let first = p.words.first().map(String::as_str).unwrap_or("");
        if first == "depends_on" && p.words.get(1).is_some_and(|w| w == "library") {
            // Only a library may name the libraries it needs.
            let d = Diagnostic::new(
                Tag::D_PRAGMA_DEPEND,
                p.span,
                "main program may not explicitly depend on a library",
            );
            return Err(error(map, &d, errtags));
        }
        if first != "option" {
            if D_PRAGMAS.contains(&first) {
                continue;
            }
            let d = Diagnostic::new(
                Tag::D_PRAGMA_INVAL,
                p.span,
                format!("invalid D pragma: {first}"),
            );
            return Err(error(map, &d, errtags));
        }
        if p.words.len() != 2 {
            let msg = if p.words.len() > 2 {
                "superfluous arguments specified for #pragma option"
            } else {
                "malformed #pragma option <option>=<val>"
            };
            let d = Diagnostic::new(Tag::D_PRAGMA_MALFORM, p.span, msg);
            return Err(error(map, &d, errtags));
        }
        for w in p.words.iter().skip(1) {
            let (name, value) = match w.split_once('=') {
                Some((n, v)) => (n, Some(v)),
                None => (w.as_str(), None),
            };
            if let Err(e) = options.set_from(name, value, crate::options::Origin::Program) {
                let what = match value {
                    Some(v) => format!("'{name}' to '{v}'"),
                    None => format!("'{name}'"),
                };
                let d = Diagnostic::new(
                    Tag::D_PRAGMA_OPTSET,
                    p.span,
                    format!("failed to set option {what}: {}", e.0),
                );
                return Err(error(map, &d, errtags));
            }
        }
    }
    Ok(())
}
