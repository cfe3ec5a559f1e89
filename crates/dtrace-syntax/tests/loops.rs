//! Loops, an extension to D: while, do-while, for, break, continue.
mod common;
use common::*;
use dtrace_syntax::Tag;

#[test]
fn loop_forms_parse() {
    assert!(e("while (x) x--;").starts_with("(loop _ x _ (body"));
    assert!(e("do { x++; } while (x < 3);").starts_with("(do-loop _ "));
    assert!(e("for (i = 0; i < 3; i++) { if (i) continue; break; }").contains("(continue)"));
    assert!(e("for (;;) break;").starts_with("(loop _ _ _ (body (break))"));
}

#[test]
fn break_and_continue_need_a_loop() {
    let (tag, msg, text) = err("BEGIN { if (x) break; }");
    assert_eq!(
        (tag, msg.as_str(), text.as_str()),
        (Tag::D_SYNTAX, "break outside a loop", "break")
    );
    let (tag, msg, _) = err("BEGIN { continue; }");
    assert_eq!(
        (tag, msg.as_str()),
        (Tag::D_SYNTAX, "continue outside a loop")
    );
}

#[test]
fn do_needs_its_while() {
    assert_eq!(err("BEGIN { do x++; }").0, Tag::D_SYNTAX);
}
