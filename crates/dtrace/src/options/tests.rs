use super::*;

#[test]
fn sizes_and_rates() {
    assert_eq!(parse_size("4m"), Ok(4 << 20));
    assert_eq!(parse_size("512"), Ok(512));
    assert_eq!(parse_size("2K"), Ok(2048));
    assert_eq!(parse_size("0x10"), Ok(16));
    assert!(parse_size("4x").is_err());
    assert!(parse_size("").is_err());
    assert!(parse_size("-1").is_err());
    assert_eq!(parse_rate("10hz"), Ok(10));
    assert_eq!(parse_rate("5"), Ok(5));
    assert_eq!(parse_rate("100ms"), Ok(10));
    assert_eq!(parse_rate("2min"), Ok(1));
    assert!(parse_rate("0").is_err());
    assert!(parse_rate("3furlongs").is_err());
}

#[test]
fn flags_follow_libdtrace() {
    let mut o = Options::default();
    assert!(o.set("quiet", None).is_ok() && o.quiet);
    assert!(o.set("quiet", Some("no")).is_ok() && !o.quiet);
    assert!(o.set("quiet", Some("ON")).is_ok() && o.quiet);
    assert!(o.set("quiet", Some("")).is_ok() && !o.quiet);
    assert_eq!(o.set("quiet", Some("maybe")), Err(OptError::bad_value()));
    // Compiler flags take no value at all.
    assert_eq!(o.set("zdefs", Some("yes")), Err(OptError::bad_value()));
    assert!(o.set("zdefs", None).is_ok() && o.zdefs);
    assert_eq!(o.set("nosuch", None), Err(OptError::bad_name()));
}

#[test]
fn values_are_checked() {
    let mut o = Options::default();
    assert!(o.set("bufsize", Some("4x")).is_err());
    assert!(o.set("strsize", Some("32")).is_ok());
    assert_eq!(o.strsize, 32);
    assert_eq!(o.set("strsize", Some("1")), Err(OptError::bad_value()));
    assert_eq!(o.strsize, 32);
    assert_eq!(o.set("stdc", Some("x")), Err(OptError::bad_value()));
    assert!(o.set("stdc", Some("s")).is_ok() && o.stdc == StdcMode::S);
    assert_eq!(o.set("linkmode", Some("foo")), Err(OptError::bad_value()));
    assert_eq!(o.set("evaltime", Some("later")), Err(OptError::bad_value()));
    assert!(o.set("evaltime", Some("main")).is_ok() && o.evaltime == EvalTime::Main);
    assert_eq!(
        o.set("bufpolicy", Some("spill")),
        Err(OptError::bad_value())
    );
    assert!(o.set("bufpolicy", Some("ring")).is_ok() && o.bufpolicy == BufPolicy::Ring);
    assert!(o.set("lockmem", Some("unlimited")).is_ok() && o.lockmem == Some(u64::MAX));
    assert!(o.set("scratchsize", Some("100")).is_ok());
    assert_eq!(
        o.scratchsize, 112,
        "rounded up to 8 after one word is added"
    );
    assert!(o.set("debugassert", Some("mutexes")).is_ok());
    assert!(o.set("debugassert", Some("locks")).is_err());
    assert!(o.set("amin", Some("Stable/Stable/Common")).is_ok());
    assert!(o.set("amin", Some("Solid")).is_err());
}

#[test]
fn registers_and_versions() {
    let mut o = Options::default();
    assert!(o.set("iregs", Some("8")).is_ok());
    assert_eq!(o.set("iregs", Some("9")), Err(OptError::bad_value()));
    assert_eq!(
        o.set("iregs", Some("7")).map_err(|e| e.0),
        Err("Insufficient registers to generate code".to_string())
    );
    assert!(o.set("tregs", Some("5")).is_ok() && o.tregs == 5);
    assert!(o.set("tregs", Some("0")).is_err());
    assert!(o.set("version", Some("2.0")).is_ok());
    assert!(o.set("version", Some("1.6.4")).is_ok());
    assert_eq!(
        o.set("version", Some("two")).map_err(|e| e.0),
        Err("Invalid version string".to_string())
    );
    assert_eq!(
        o.set("version", Some("9.9")).map_err(|e| e.0),
        Err("Requested version is not supported".to_string())
    );
}

#[test]
fn some_options_cannot_come_from_the_program() {
    let mut o = Options::default();
    for name in ["ldpath", "modpath", "cpppath", "define", "incdir", "stdc"] {
        assert_eq!(
            o.set_from(name, Some("x"), Origin::Program),
            Err(OptError::bad_context()),
            "{name}"
        );
    }
    assert!(o.set_from("quiet", None, Origin::Program).is_ok());
    assert!(o
        .set_from("cppargs", Some("-H  -dM"), Origin::Command)
        .is_ok());
    assert_eq!(o.cppargs, vec!["-H".to_string(), "-dM".to_string()]);
}

#[test]
fn preprocessor_options_accumulate() {
    let mut o = Options::default();
    assert!(o.set("define", Some("X=1")).is_ok());
    assert!(o.set("define", None).is_err());
    assert!(o.set("undef", Some("Y")).is_ok() && o.set("incdir", Some("/i")).is_ok());
    assert!(o.set("cpp", None).is_ok() && o.set("cpphdrs", None).is_ok());
    assert_eq!(o.defines, vec!["X=1".to_string()]);
    assert_eq!(o.undefines, vec!["Y".to_string()]);
    assert_eq!(o.incdirs, vec!["/i".to_string()]);
    assert!(o.cpp && o.cpphdrs);
}

/// docs/OPTIONS.md describes every option of the table, and no other.
#[test]
fn every_option_is_documented() {
    let doc = include_str!("../../../../docs/OPTIONS.md");
    let documented: Vec<&str> = doc
        .lines()
        .filter_map(|l| l.strip_prefix("| `"))
        .filter_map(|l| l.split('`').next())
        .collect();
    for spec in TABLE {
        assert!(
            documented.contains(&spec.name),
            "{} is not in docs/OPTIONS.md",
            spec.name
        );
    }
    for name in &documented {
        assert!(
            is_known(name),
            "docs/OPTIONS.md names {name}, which is not an option"
        );
    }
    // Names are unique.
    let mut names: Vec<&str> = TABLE.iter().map(|s| s.name).collect();
    names.sort_unstable();
    names.dedup();
    assert_eq!(names.len(), TABLE.len());
}

#[test]
fn export_options_check_their_addresses() {
    let mut o = Options::default();
    assert!(o.set("prometheus", Some("127.0.0.1:9464")).is_ok());
    assert_eq!(o.prometheus.as_deref(), Some("127.0.0.1:9464"));
    assert!(o.set("prometheus", Some("[::1]:0")).is_ok());
    assert!(o.set("prometheus", Some("localhost")).is_err());
    assert!(o.set("otlp", Some("http://127.0.0.1:4318")).is_ok());
    assert!(o
        .set("otlp", Some("http://collector:4318/v1/metrics"))
        .is_ok());
    assert!(o.set("otlp", Some("https://collector:4318")).is_err());
    assert!(o.set("otlp", Some("http://collector")).is_err());
    assert!(o.set("metriclabels", Some("calls:exec")).is_ok());
    assert!(o.set("metriclabels", Some("lat:func")).is_ok());
    assert_eq!(
        o.metriclabels,
        vec!["calls:exec".to_string(), "lat:func".to_string()]
    );
}
