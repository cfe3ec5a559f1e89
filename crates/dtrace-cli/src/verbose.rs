//! `-v`: the stability reports dtrace(1) prints, to standard output (or the
//! `-o` file): after each `dtrace -lv` row, and for each program compiled with
//! `-v` ("Stability attributes for script x.d: ...").

use dtrace::{Attr, StabilityReport};

fn triplet(out: &mut String, a: Attr) {
    out.push_str(&format!("\t\tIdentifier Names: {}\n", a.name));
    out.push_str(&format!("\t\tData Semantics:   {}\n", a.data));
    out.push_str(&format!("\t\tDependency Class: {}\n", a.class));
}

/// The block `dtrace -lv` prints under a probe: description and argument
/// attributes, then the argument types (`None` if there are none).
pub fn probe_info(attr: Attr, arg_attr: Attr, arg_types: &[String]) -> String {
    let mut s = String::from("\n\tProbe Description Attributes\n");
    triplet(&mut s, attr);
    s.push_str("\n\tArgument Attributes\n");
    triplet(&mut s, arg_attr);
    s.push_str("\n\tArgument Types\n");
    for (i, t) in arg_types.iter().enumerate() {
        s.push_str(&format!("\t\targs[{i}]: {t}\n"));
    }
    if arg_types.is_empty() {
        s.push_str("\t\tNone\n");
    }
    s.push('\n');
    s
}

/// The report for one program (`what` is "script" or "description"). With
/// `-e` (`compile_only`) every probe description follows with what it matched.
pub fn program_report(what: &str, name: &str, r: &StabilityReport, compile_only: bool) -> String {
    let mut s = format!("\nStability attributes for {what} {name}:\n");
    s.push_str("\n\tMinimum Probe Description Attributes\n");
    triplet(&mut s, r.desc_attr);
    s.push_str("\n\tMinimum Statement Attributes\n");
    triplet(&mut s, r.stmt_attr);
    if !compile_only {
        s.push('\n');
        return s;
    }
    for d in &r.descriptions {
        s.push_str(&format!("\n{}\n", d.description));
        if let Some(m) = &d.matched {
            s.push_str(&probe_info(m.attr, m.arg_attr, &m.arg_types));
        }
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;
    use dtrace::{DescriptionInfo, MatchedInfo};

    fn attr(s: &str) -> Attr {
        use dtrace::{DepClass, Stability};
        let st = |w: &str| match w {
            "Private" => Stability::Private,
            "Evolving" => Stability::Evolving,
            _ => Stability::Stable,
        };
        let w: Vec<&str> = s.split('/').collect();
        let class = match w.get(2).copied() {
            Some("ISA") => DepClass::Isa,
            Some("Unknown") => DepClass::Unknown,
            _ => DepClass::Common,
        };
        Attr::new(st(w[0]), st(w[1]), class)
    }

    #[test]
    fn probe_block() {
        let text = probe_info(
            attr("Private/Private/Unknown"),
            attr("Private/Private/ISA"),
            &["uint64_t".to_string()],
        );
        assert_eq!(
            text,
            "\n\tProbe Description Attributes\n\t\tIdentifier Names: Private\n\t\tData Semantics:   Private\n\t\tDependency Class: Unknown\n\
             \n\tArgument Attributes\n\t\tIdentifier Names: Private\n\t\tData Semantics:   Private\n\t\tDependency Class: ISA\n\
             \n\tArgument Types\n\t\targs[0]: uint64_t\n\n"
        );
        assert!(probe_info(Attr::STABLE, Attr::STABLE, &[])
            .ends_with("\n\tArgument Types\n\t\tNone\n\n"));
    }

    #[test]
    fn program_block() {
        let r = StabilityReport {
            desc_attr: attr("Private/Private/Unknown"),
            stmt_attr: Attr::STABLE,
            descriptions: vec![
                DescriptionInfo {
                    description: ":::BEGIN".into(),
                    matched: Some(MatchedInfo {
                        attr: attr("Private/Private/Unknown"),
                        arg_attr: Attr::STABLE,
                        arg_types: Vec::new(),
                    }),
                },
                DescriptionInfo {
                    description: "x:::".into(),
                    matched: None,
                },
            ],
        };
        let head = "\nStability attributes for script a.d:\n\n\tMinimum Probe Description Attributes\n\
                    \t\tIdentifier Names: Private\n\t\tData Semantics:   Private\n\t\tDependency Class: Unknown\n\
                    \n\tMinimum Statement Attributes\n\t\tIdentifier Names: Stable\n\t\tData Semantics:   Stable\n\t\tDependency Class: Common\n";
        assert_eq!(
            program_report("script", "a.d", &r, false),
            format!("{head}\n")
        );
        let full = program_report("script", "a.d", &r, true);
        assert!(full.starts_with(head));
        assert!(full.contains("\n:::BEGIN\n\n\tProbe Description Attributes\n"));
        assert!(full.ends_with("\t\tNone\n\n\nx:::\n"));
    }
}
