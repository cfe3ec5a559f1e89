//! How compile errors are shown: dtrace(1)'s one line always (with `[D_TAG]`
//! under `-xerrtags`), followed by the rich form (file:line:column, the line,
//! a caret) when stderr is a terminal or with `-x diag=rich`; exit status 1.
//! Positions are the user's: through `$n` macro expansion and through cpp.

mod common;

use std::process::{Command, Stdio};

use common::{dtrace, stderr, temp_path};

fn script(tag: &str, text: &str) -> String {
    let path = temp_path(tag);
    if let Err(e) = std::fs::write(&path, text) {
        panic!("cannot write {}: {e}", path.display());
    }
    path.to_string_lossy().into_owned()
}

#[test]
fn plain_when_not_a_terminal() {
    let out = dtrace(&["-n", "BEGIN { x = ; }"]);
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(
        stderr(&out),
        "dtrace: invalid probe specifier BEGIN { x = ; }: syntax error near \";\"\n"
    );
}

#[test]
fn rich_on_request_with_errtags() {
    let path = script("rich.d", "BEGIN\n{\n\tx = \"a\" == 1;\n}\n");
    let out = dtrace(&["-xerrtags", "-x", "diag=rich", "-e", "-s", &path]);
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(
        stderr(&out),
        format!(
            "dtrace: failed to compile script {path}: [D_OP_INCOMPAT] line 3: operands have incompatible types: \"string\" == \"int\"\n\
             {path}:3:6: error[D_OP_INCOMPAT]: operands have incompatible types: \"string\" == \"int\"\n\
             \x20 | \tx = \"a\" == 1;\n\
             \x20 |      ^^^^^^^^\n"
        )
    );
    let _ = std::fs::remove_file(&path);
}

#[test]
fn plain_on_request() {
    let out = dtrace(&["-x", "diag=plain", "-n", "BEGIN { x = ; }"]);
    assert_eq!(stderr(&out).lines().count(), 1);
}

#[test]
fn macro_argument_keeps_its_position() {
    let out = dtrace(&["-x", "diag=rich", "-n", "BEGIN { x = \"s\" == $1; }", "7"]);
    assert_eq!(out.status.code(), Some(1));
    let err = stderr(&out);
    assert!(
        err.contains("<command line>:1:13: error[D_OP_INCOMPAT]"),
        "{err}"
    );
}

#[test]
fn cpp_keeps_the_users_lines() {
    let path = script(
        "cpp.d",
        "#define BAD(x) ((x) == 1)\n\n\nBEGIN\n{\n\ty = BAD(\"a\");\n}\n",
    );
    let out = dtrace(&["-C", "-x", "diag=rich", "-e", "-s", &path]);
    assert_eq!(out.status.code(), Some(1));
    let err = stderr(&out);
    let first = err.lines().next().unwrap_or("");
    assert!(
        first.starts_with(&format!(
            "dtrace: failed to compile script {path}: line 6: "
        )),
        "{err}"
    );
    assert!(err.contains(&format!("{path}:6:")), "{err}");
    let _ = std::fs::remove_file(&path);
}

/// `script(1)` gives dtrace a terminal for stderr.
#[test]
fn rich_on_a_terminal() {
    let have_script = Command::new("script")
        .arg("--version")
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success());
    if !have_script {
        eprintln!("note: script(1) is missing; not testing the terminal case");
        return;
    }
    let cmd = format!("{} -n 'BEGIN {{ x = ; }}'", common::dtrace_bin());
    let out = match Command::new("script")
        .args(["-qec", &cmd, "/dev/null"])
        .stdin(Stdio::null())
        .output()
    {
        Ok(o) => o,
        Err(e) => panic!("cannot run script: {e}"),
    };
    let text = String::from_utf8_lossy(&out.stdout).replace("\r\n", "\n");
    assert_eq!(out.status.code(), Some(1), "{text}");
    assert!(
        text.contains("dtrace: invalid probe specifier BEGIN { x = ; }: syntax error near \";\"\n"),
        "{text}"
    );
    assert!(
        text.contains("<command line>:1:13: error[D_SYNTAX]: syntax error near \";\"\n"),
        "{text}"
    );
    assert!(text.contains("  |             ^\n"), "{text}");
}
