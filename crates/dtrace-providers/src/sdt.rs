//! The `sdt` provider: every kernel tracepoint as `sdt:<group>::<event>`
//! (Oracle's naming: the module is the tracepoint's group, the function empty).
//!
//! Listing reads tracefs' `available_events` only (one file); a probe's event id,
//! argument types and record layout come from its `id` and `format` files when a
//! description matches it ([`Provider::resolve`]). The trampoline reads each
//! argument from the tracepoint's record: scalars by value, arrays and
//! `__data_loc` data by address (`stringof(args[0])` reads a string field).

use crate::{ProbeTemplate, Provider};
use dtrace_sema::{ArgDesc, FieldKind, ProbeKind, RecordField};
use dtrace_sys::tracefs::Tracefs;

pub struct SdtProvider;

/// The groups that have tracepoint `name` (in `module` when given), found by
/// looking it up in tracefs rather than reading the whole event list; none
/// when a function is named (tracepoints have none) or tracefs is missing.
/// Shared by the providers named after tracepoints (`sdt`, `rawtp`).
pub(crate) fn event_groups(module: &str, function: &str, name: &str) -> Vec<String> {
    if !function.is_empty() {
        return Vec::new();
    }
    let Ok(fs) = Tracefs::find() else {
        return Vec::new();
    };
    if module.is_empty() {
        fs.groups_with_event(name)
    } else if fs.has_event(module, name) {
        vec![module.to_string()]
    } else {
        Vec::new()
    }
}

impl Provider for SdtProvider {
    fn name(&self) -> &'static str {
        "sdt"
    }

    fn attributes(&self) -> crate::ProviderAttrs {
        crate::stability::SDT
    }

    fn lazy(&self) -> bool {
        true
    }

    /// Every tracepoint, unresolved; none when tracefs cannot be found.
    fn list(&self) -> Vec<ProbeTemplate> {
        let Ok(events) = Tracefs::find().and_then(|t| t.available_events()) else {
            return Vec::new();
        };
        events
            .into_iter()
            .map(|(group, event)| ProbeTemplate {
                module: group.into(),
                function: Default::default(),
                name: event.into(),
                kind: ProbeKind::Tracepoint { event_id: 0 },
                args: Vec::new(),
                fields: Vec::new(),
            })
            .collect()
    }

    /// A glob-free event name is looked up in tracefs' `events/` directory
    /// rather than by reading the whole event list (so `BEGIN`, which every
    /// provider is asked about, costs one directory listing).
    fn find(&self, module: &str, function: &str, name: &str) -> Option<Vec<ProbeTemplate>> {
        Some(
            event_groups(module, function, name)
                .into_iter()
                .map(|group| ProbeTemplate {
                    module: group.into(),
                    function: Default::default(),
                    name: name.into(),
                    kind: ProbeKind::Tracepoint { event_id: 0 },
                    args: Vec::new(),
                    fields: Vec::new(),
                })
                .collect(),
        )
    }

    fn resolve(&self, t: &mut ProbeTemplate) -> Result<(), String> {
        if !matches!(t.kind, ProbeKind::Tracepoint { event_id: 0 }) {
            return Ok(());
        }
        let fs = Tracefs::find().map_err(|e| e.to_string())?;
        let id = fs.event_id(&t.module, &t.name).map_err(|e| e.to_string())?;
        let format = fs
            .event_format(&t.module, &t.name)
            .map_err(|e| e.to_string())?;
        let args = parse_format(&format);
        t.kind = ProbeKind::Tracepoint { event_id: id };
        t.args = args
            .iter()
            .enumerate()
            .map(|(i, a)| ArgDesc::native(&a.ty, i as u8))
            .collect();
        t.fields = args.iter().map(|a| a.field).collect();
        Ok(())
    }
}

/// One argument of a tracepoint: its D type and where it is in the record.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TpArg {
    pub name: String,
    pub ty: String,
    pub field: RecordField,
}

/// The arguments of a tracepoint from its tracefs `format` text: every field
/// after the `common_*` ones, at most ten (DTrace's `args[0]`..`args[9]`).
pub fn parse_format(text: &str) -> Vec<TpArg> {
    text.lines()
        .filter_map(|l| parse_field(l.trim()))
        .filter(|a| !a.name.starts_with("common_"))
        .take(10)
        .collect()
}

/// `field:unsigned long args[6]; offset:16; size:48; signed:0;` (tab-separated).
fn parse_field(line: &str) -> Option<TpArg> {
    let mut decl = None;
    let (mut offset, mut size, mut signed) = (None, None, false);
    for part in line.split(';').map(str::trim) {
        if let Some(d) = part.strip_prefix("field:") {
            decl = Some(d.trim());
        } else if let Some(v) = part.strip_prefix("offset:") {
            offset = v.trim().parse::<u16>().ok();
        } else if let Some(v) = part.strip_prefix("size:") {
            size = v.trim().parse::<u32>().ok();
        } else if let Some(v) = part.strip_prefix("signed:") {
            signed = v.trim() == "1";
        }
    }
    let (decl, offset, size) = (decl?, offset?, size?);
    let data_loc = decl.starts_with("__data_loc ");
    let decl = decl.trim_start_matches("__data_loc ").trim();
    // "char prev_comm[16]", "unsigned long args[6]", "char[] name" (data_loc).
    let (base, array) = match decl.find('[') {
        Some(i) => (decl[..i].trim(), true),
        None => (decl, false),
    };
    let (ty, name) = if data_loc && decl.contains("[]") {
        // `__data_loc char[] name`: the type precedes the brackets.
        let name = decl.rsplit(' ').next().unwrap_or("").to_string();
        (base.to_string(), name)
    } else {
        let split = base.rfind([' ', '*'])?;
        let name = base[split + 1..].to_string();
        (base[..=split].trim().to_string(), name)
    };
    if name.is_empty() {
        return None;
    }
    let (ty, field) = if data_loc {
        let field = RecordField {
            offset,
            size: 4,
            signed: false,
            kind: FieldKind::DataLoc,
        };
        (format!("{ty} *"), field)
    } else if array {
        let field = RecordField {
            offset,
            size: 8,
            signed: false,
            kind: FieldKind::Array,
        };
        (format!("{ty} *"), field)
    } else {
        let field = RecordField {
            offset,
            size: match size {
                1 | 2 | 4 | 8 => size as u8,
                _ => return None,
            },
            signed,
            kind: FieldKind::Scalar,
        };
        (ty, field)
    };
    Some(TpArg { name, ty, field })
}

#[cfg(test)]
mod tests {
    use super::*;

    const SCHED_SWITCH: &str = "name: sched_switch
ID: 372
format:
\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;
\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;

\tfield:char prev_comm[16];\toffset:8;\tsize:16;\tsigned:0;
\tfield:pid_t prev_pid;\toffset:24;\tsize:4;\tsigned:1;
\tfield:long prev_state;\toffset:32;\tsize:8;\tsigned:1;
\tfield:const char * name;\toffset:64;\tsize:8;\tsigned:0;
\tfield:__data_loc char[] filename;\toffset:72;\tsize:4;\tsigned:0;
\tfield:unsigned long args[6];\toffset:80;\tsize:48;\tsigned:0;

print fmt: \"prev_comm=%s\", REC->prev_comm
";

    #[test]
    fn format_fields_become_typed_arguments() {
        let args = parse_format(SCHED_SWITCH);
        let view: Vec<(&str, &str, u16, u8, bool, FieldKind)> = args
            .iter()
            .map(|a| {
                (
                    a.name.as_str(),
                    a.ty.as_str(),
                    a.field.offset,
                    a.field.size,
                    a.field.signed,
                    a.field.kind,
                )
            })
            .collect();
        assert_eq!(
            view,
            vec![
                ("prev_comm", "char *", 8, 8, false, FieldKind::Array),
                ("prev_pid", "pid_t", 24, 4, true, FieldKind::Scalar),
                ("prev_state", "long", 32, 8, true, FieldKind::Scalar),
                ("name", "const char *", 64, 8, false, FieldKind::Scalar),
                ("filename", "char *", 72, 4, false, FieldKind::DataLoc),
                ("args", "unsigned long *", 80, 8, false, FieldKind::Array),
            ]
        );
    }

    #[test]
    fn odd_lines_are_skipped() {
        assert_eq!(
            parse_format("name: x\nID: 1\nformat:\n\tfield:;\n"),
            Vec::new()
        );
        assert!(parse_field("field:char x[3];\toffset:8;\tsize:3;\tsigned:0;").is_some());
        assert!(parse_field("field:struct big s;\toffset:8;\tsize:24;\tsigned:0;").is_none());
    }
}
