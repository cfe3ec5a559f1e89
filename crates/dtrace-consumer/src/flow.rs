//! `-F` (`flowindent`): each record's probe line shows the call flow, as
//! dtrace(1) prints it: a probe named `entry` (or ending in `-entry`)
//! prints ` -> function` and indents what follows by two columns, one named
//! `return` (or ending in `-return`) unindents and prints ` <- function`
//! (`=>`/`<=` for the syscall provider), any other `| function:name`. The
//! probe line is printed under `-q` too. Each CPU keeps its own indentation,
//! as each CPU's buffer does in DTrace. A second clause of an entry probe
//! right after the first does not indent again.

use crate::event::ProbeEvent;
use std::collections::BTreeMap;

/// How a probe name takes part in the flow.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Flow {
    Entry,
    Return,
    None,
}

/// The flow kind of probe `name`: its first occurrence of `entry` or
/// `return` ends it and is the whole name or follows a `-` (so `carpentry`
/// is no entry).
pub fn flow_kind(name: &str) -> Flow {
    let ends = |word: &str| {
        name.find(word).is_some_and(|at| {
            at + word.len() == name.len() && (at == 0 || name[..at].ends_with('-'))
        })
    };
    if ends("entry") {
        Flow::Entry
    } else if ends("return") {
        Flow::Return
    } else {
        Flow::None
    }
}

/// One CPU's flow: its indentation, and the last record's (epid, probe).
#[derive(Debug, Default, Clone, Copy)]
struct CpuFlow {
    indent: usize,
    last: Option<(u32, u32)>,
}

/// The indentation state of every CPU.
#[derive(Debug, Default)]
pub struct FlowIndent {
    cpus: BTreeMap<u32, CpuFlow>,
}

impl FlowIndent {
    /// The probe line's text for record `p` (without the CPU column or the
    /// padding), updating the indentation.
    pub fn line(&mut self, p: &ProbeEvent) -> String {
        let st = self.cpus.entry(p.cpu).or_default();
        let mut flow = flow_kind(&p.probe.name);
        if flow == Flow::Entry {
            if let Some((epid, probe)) = st.last {
                if epid != p.epid && probe == p.id {
                    flow = Flow::None;
                }
            }
        }
        st.last = Some((p.epid, p.id));
        let syscall = p.probe.provider == "syscall";
        let prefix = match (flow, syscall) {
            (Flow::Entry, false) => " -> ",
            (Flow::Entry, true) => " => ",
            (Flow::Return, false) => " <- ",
            (Flow::Return, true) => " <= ",
            (Flow::None, _) => "| ",
        };
        if flow == Flow::Return {
            st.indent = st.indent.saturating_sub(2);
        }
        let line = match flow {
            Flow::None => format!(
                "{:w$}{prefix}{}:{}",
                "",
                p.probe.function,
                p.probe.name,
                w = st.indent
            ),
            _ => format!("{:w$}{prefix}{}", "", p.probe.function, w = st.indent),
        };
        if flow == Flow::Entry {
            st.indent += 2;
        }
        line
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use dtrace_desc::ProbeName;
    use std::sync::Arc;

    fn ev(epid: u32, id: u32, provider: &str, function: &str, name: &str) -> ProbeEvent {
        ProbeEvent {
            epid,
            clause: 0,
            cpu: 0,
            id,
            probe: Arc::new(ProbeName {
                provider: provider.into(),
                module: "m".into(),
                function: function.into(),
                name: name.into(),
            }),
            commit_discard_only: false,
        }
    }

    #[test]
    fn names_that_enter_and_return() {
        assert_eq!(flow_kind("entry"), Flow::Entry);
        assert_eq!(flow_kind("func-entry"), Flow::Entry);
        assert_eq!(flow_kind("-entry"), Flow::Entry);
        assert_eq!(flow_kind("carpentry"), Flow::None);
        assert_eq!(flow_kind("entry-point"), Flow::None);
        assert_eq!(flow_kind("return"), Flow::Return);
        assert_eq!(flow_kind("method-return"), Flow::Return);
        assert_eq!(flow_kind("miniatureturn"), Flow::None);
        assert_eq!(flow_kind("done"), Flow::None);
    }

    #[test]
    fn nesting_indents_and_unindents() {
        let mut f = FlowIndent::default();
        assert_eq!(f.line(&ev(1, 10, "pid9", "main", "entry")), " -> main");
        assert_eq!(f.line(&ev(2, 11, "pid9", "work", "entry")), "   -> work");
        assert_eq!(f.line(&ev(3, 12, "pid9", "work", "17")), "    | work:17");
        assert_eq!(f.line(&ev(4, 13, "pid9", "work", "return")), "   <- work");
        assert_eq!(f.line(&ev(5, 14, "syscall", "read", "entry")), "   => read");
        assert_eq!(
            f.line(&ev(6, 15, "syscall", "read", "return")),
            "   <= read"
        );
        assert_eq!(f.line(&ev(7, 16, "pid9", "main", "return")), " <- main");
        // Never below the left margin.
        assert_eq!(f.line(&ev(7, 16, "pid9", "main", "return")), " <- main");
    }

    #[test]
    fn a_second_clause_of_one_entry_does_not_indent_again() {
        let mut f = FlowIndent::default();
        assert_eq!(f.line(&ev(1, 10, "fbt", "f", "entry")), " -> f");
        assert_eq!(f.line(&ev(2, 10, "fbt", "f", "entry")), "  | f:entry");
        assert_eq!(f.line(&ev(3, 11, "fbt", "f", "return")), " <- f");
        // A recursive call (the same clause again) does.
        assert_eq!(f.line(&ev(1, 10, "fbt", "f", "entry")), " -> f");
        assert_eq!(f.line(&ev(1, 10, "fbt", "f", "entry")), "   -> f");
    }
}
