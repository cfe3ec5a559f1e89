//! The variable table `dtrace -S` prints under each clause: the D variables the
//! clause uses, where each lives and how it is used (libdtrace prints one under
//! each DIF object; its columns are kept).
//!
//! OFFSET is the variable's byte offset in its storage area: the globals, or the
//! clause-local (`this->`) area, both laid out in declaration order with each
//! variable at its natural alignment (by-reference values at 8). Thread-local
//! variables and associative arrays are each their own dynamic variable
//! (offset 0). FLAG: `r` read or referenced in place (a member or element store),
//! `w` assigned as a whole.

use crate::layout::{self, Layout};
use dtrace_sema::visit::{clause_var_uses, UsedVar};
use dtrace_sema::{CKind, Ty, TypedProgram, VarRef};

/// One row of a clause's variable table.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct VarRow {
    pub name: String,
    /// Index of the variable among those of its scope (and kind).
    pub id: u32,
    pub offset: u32,
    /// `scl` (scalar) or `arr` (associative array).
    pub kind: &'static str,
    /// `glb`, `tls` or `loc`.
    pub scope: &'static str,
    /// `r`, `w` or `r/w`.
    pub flags: &'static str,
    /// `D type (integer) (size 4)`, `D type (struct) by ref (size 8)`, ...
    pub ty: String,
}

fn type_text(ty: &Ty, ckind: CKind) -> String {
    let (kind, by_ref) = match ty {
        Ty::Str { .. } => ("string", true),
        Ty::Agg { .. } | Ty::Stack { .. } => ("D type", true),
        _ => ("D type", false),
    };
    let by_ref = if by_ref { " by ref" } else { "" };
    format!("{kind} ({}){by_ref} (size {})", ckind.name(), ty.size())
}

/// The variable table of each clause, by clause index.
pub fn tables(tp: &TypedProgram, l: &Layout) -> Vec<Vec<VarRow>> {
    tp.clauses
        .iter()
        .map(|c| {
            clause_var_uses(c)
                .into_iter()
                .filter_map(|u| {
                    let flags = match (u.read, u.written) {
                        (true, true) => "r/w",
                        (false, true) => "w",
                        _ => "r",
                    };
                    let (info, id, offset, kind, scope) = match u.var {
                        UsedVar::Scalar(VarRef::Global(i)) => {
                            let off = l.global_offs.get(i as usize)?;
                            let v = tp.globals.get(i as usize)?;
                            (v, i, off - layout::G_VARS, "scl", "glb")
                        }
                        UsedVar::Scalar(VarRef::Clause(i)) => {
                            let off = l.clause_var_offs.get(i as usize)?;
                            let v = tp.clause_vars.get(i as usize)?;
                            (v, i, off - layout::D_CLAUSE_VARS, "scl", "loc")
                        }
                        UsedVar::Scalar(VarRef::Thread(i)) => {
                            (tp.thread_vars.get(i as usize)?, i, 0, "scl", "tls")
                        }
                        UsedVar::Array(i) => {
                            let a = tp.arrays.get(i as usize)?;
                            let (name, scope) = match a.name.strip_prefix("self->") {
                                Some(n) => (n.to_string(), "tls"),
                                None => (a.name.clone(), "glb"),
                            };
                            return Some(VarRow {
                                name,
                                id: i,
                                offset: 0,
                                kind: "arr",
                                scope,
                                flags,
                                ty: type_text(&a.value, a.ckind),
                            });
                        }
                    };
                    Some(VarRow {
                        name: info.name.clone(),
                        id,
                        offset,
                        kind,
                        scope,
                        flags,
                        ty: type_text(&info.ty, info.ckind),
                    })
                })
                .collect()
        })
        .collect()
}

/// The table as `-S` prints it (empty when the clause uses no variable): a
/// header, one line per variable, then a blank line. `range` is where the
/// clause's code is in the listing.
pub fn render(rows: &[VarRow], range: &std::ops::Range<usize>) -> String {
    if rows.is_empty() {
        return String::new();
    }
    let mut out = format!(
        "\n{:<16} {:<4} {:<6} {:<3} {:<3} {:<9} {:<4} TYPE\n",
        "NAME", "ID", "OFFSET", "KND", "SCP", "RANGE", "FLAG"
    );
    let span = format!("{}-{}", range.start, range.end.saturating_sub(1));
    for r in rows {
        out.push_str(&format!(
            "{:<16} {:<4} {:<6} {:<3} {:<3} {:<9} {:<4} {}\n",
            r.name, r.id, r.offset, r.kind, r.scope, span, r.flags, r.ty
        ));
    }
    out.push('\n');
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn renders_columns_and_types() {
        let rows = vec![VarRow {
            name: "x".into(),
            id: 0,
            offset: 4,
            kind: "scl",
            scope: "glb",
            flags: "w",
            ty: type_text(
                &Ty::Int {
                    size: 4,
                    signed: true,
                    id: dtrace_ctypes::TypeId(0),
                },
                CKind::Integer,
            ),
        }];
        let t = render(&rows, &(10..20));
        let lines: Vec<&str> = t.lines().collect();
        assert_eq!(lines[0], "");
        assert!(lines[1].starts_with("NAME") && lines[1].contains("KND SCP"));
        let f: Vec<&str> = lines[2].split_whitespace().collect();
        assert_eq!(
            f,
            [
                "x",
                "0",
                "4",
                "scl",
                "glb",
                "10-19",
                "w",
                "D",
                "type",
                "(integer)",
                "(size",
                "4)"
            ]
        );
        assert_eq!(lines[3], "");
        assert!(render(&[], &(0..1)).is_empty());
        assert_eq!(
            type_text(
                &Ty::Agg {
                    id: dtrace_ctypes::TypeId(0),
                    size: 18
                },
                CKind::Struct
            ),
            "D type (struct) by ref (size 18)"
        );
    }
}
