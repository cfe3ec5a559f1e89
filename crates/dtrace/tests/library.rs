//! The library API with no text output: a consume handler, the event
//! iterator, and aggregate snapshots and walks sorted as the `aggsort*`
//! options say. Needs BPF (root); skipped where it is not usable, failed
//! when DTRACE_REQUIRE_BPF=1.

use dtrace::{AggValue, Dtrace, Event, Handler, Value};
use dtrace_sys::{Features, TestGate};
use std::ops::ControlFlow;
use std::time::Duration;

fn require_bpf() -> bool {
    let require = std::env::var("DTRACE_REQUIRE_BPF").is_ok_and(|v| v == "1");
    let features = Features::probe(&dtrace_sys::kernel());
    match dtrace_sys::test_gate(&features, require) {
        TestGate::Run => true,
        TestGate::Skip(why) => {
            eprintln!("note: skipping a test that needs BPF: {why}");
            false
        }
        TestGate::Fail(why) => panic!("DTRACE_REQUIRE_BPF=1 but BPF is not usable: {why}"),
    }
}

const PROGRAM: &str = r#"
BEGIN {
    trace(7);
    printf("n=%d %s\n", 5, "five");
    @c["a"] = count(); @c["a"] = count(); @c["b"] = count();
    @s[3] = sum(10); @s[1] = sum(20);
}
tick-10ms { exit(4); }
"#;

fn session(options: &[(&str, Option<&str>)]) -> dtrace::Session {
    let mut dt = Dtrace::open(true).expect("open");
    for (name, value) in options {
        dt.set_opt(name, *value).expect("option");
    }
    dt.compile_str(PROGRAM, &[]).expect("compile");
    dt.exec().expect("exec")
}

/// A short name for an event, with the values a test checks.
fn describe(ev: &Event) -> String {
    match ev {
        Event::Probe(p) => format!("probe {}:{}", p.probe.provider, p.probe.name),
        Event::Trace(v) => format!("trace {}", v.as_i64()),
        Event::Printf { text, args } => format!(
            "printf {:?} {:?}",
            String::from_utf8_lossy(text),
            args.iter()
                .map(|a| match a {
                    Value::Str(s) => String::from_utf8_lossy(s).into_owned(),
                    v => v.as_i64().to_string(),
                })
                .collect::<Vec<_>>()
        ),
        Event::Exit(s) => format!("exit {s}"),
        Event::ProbeEnd => "end".into(),
        other => format!("{other:?}"),
    }
}

#[test]
fn consume_handler_and_aggregate_walk() {
    if !require_bpf() {
        return;
    }
    let mut s = session(&[]);
    let mut seen = Vec::new();
    let mut handler = |ev: &Event| {
        seen.push(describe(ev));
        ControlFlow::Continue(())
    };
    s.go(&mut Handler::new(&mut handler)).expect("go");
    let mut steps = 0;
    while s
        .consume(Duration::from_millis(50), &mut handler)
        .expect("consume")
        .is_continue()
    {
        steps += 1;
        assert!(steps < 200, "exit() never arrived");
    }
    assert_eq!(
        seen[..5],
        [
            "probe dtrace:BEGIN",
            "trace 7",
            "printf \"n=5 five\\n\" [\"5\", \"five\"]",
            "end",
            "probe profile:tick-10ms",
        ]
    );
    assert!(seen.contains(&"exit 4".to_string()), "{seen:?}");
    assert_eq!(s.exit_status(), Some(4));

    // The snapshot: every aggregation in ID order, rows by value (ties by key).
    let snap = s.snapshot().expect("snapshot");
    let names: Vec<&str> = snap.iter().map(|a| a.aggs[0].name.as_str()).collect();
    assert_eq!(names, ["c", "s"]);
    let mut rows = Vec::new();
    let flow = s.aggregate_walk(|agg, row| {
        let key = match &row.keys[0] {
            Value::Str(k) => String::from_utf8_lossy(k).into_owned(),
            k => k.as_i64().to_string(),
        };
        let value = match row.values[0] {
            Some(AggValue::Scalar(v)) => v,
            ref other => panic!("{other:?}"),
        };
        rows.push(format!("{}[{key}]={value}", agg.aggs[0].name));
        ControlFlow::Continue(())
    });
    assert!(flow.expect("walk").is_continue());
    assert_eq!(rows, ["c[b]=1", "c[a]=2", "s[3]=10", "s[1]=20"]);

    // A walk stops where the callback breaks.
    let mut n = 0;
    let flow = s
        .aggregate_walk(|_, _| {
            n += 1;
            ControlFlow::Break(())
        })
        .expect("walk");
    assert!(flow.is_break());
    assert_eq!(n, 1);

    // finish() hands the aggregations not printed to the handler: no text.
    let mut at_exit = Vec::new();
    let status = s
        .finish(&mut Handler::new(|ev: &Event| {
            if let Event::Aggregation(r) = ev {
                at_exit.push(r.aggs[0].name.clone());
            }
            ControlFlow::Continue(())
        }))
        .expect("finish");
    assert_eq!(status, 4);
    assert_eq!(at_exit, ["c", "s"]);
}

#[test]
fn event_iterator_and_sort_options() {
    if !require_bpf() {
        return;
    }
    let mut s = session(&[("aggsortkey", None), ("aggsortrev", None)]);
    s.go(&mut Handler::new(|_: &Event| ControlFlow::Continue(())))
        .expect("go");
    let events: Vec<Event> = s
        .events(Duration::from_millis(50))
        .collect::<Result<_, _>>()
        .expect("events");
    assert!(events.iter().any(|e| matches!(e, Event::Exit(4))));
    // The iterator ended after END: the probes are detached, no more events.
    assert!(s.events(Duration::from_millis(10)).next().is_none());
    // aggsortkey + aggsortrev: by key, descending.
    let snap = s.snapshot().expect("snapshot");
    let keys: Vec<String> = snap[0]
        .rows
        .iter()
        .map(|r| match &r.keys[0] {
            Value::Str(k) => String::from_utf8_lossy(k).into_owned(),
            k => k.as_i64().to_string(),
        })
        .collect();
    assert_eq!(keys, ["b", "a"]);
    let keys: Vec<i64> = snap[1].rows.iter().map(|r| r.keys[0].as_i64()).collect();
    assert_eq!(keys, [3, 1]);
}
