//! The kernel type source read lazily: attaching it reads nothing, the parser's
//! name question indexes names only, and the first import validates the blob.

mod common;

use common::*;
use dtrace_ctypes::{KernelBtf, TypeKind, TypeTable};

fn dir_with(name: &str, blob: &[u8]) -> std::path::PathBuf {
    let dir =
        std::env::temp_dir().join(format!("dtrace-ctypes-lazy-{name}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("vmlinux"), blob).unwrap();
    dir
}

#[test]
fn nothing_is_read_until_a_question_reaches_the_source() {
    let (blob, _) = sample_base();
    let dir = dir_with("ok", &blob);
    let mut t = TypeTable::with_builtins();
    t.set_kernel(KernelBtf::lazy_dir(&dir));
    assert!(t.kernel().is_some());
    assert!(
        t.kernel().unwrap().loaded().is_empty(),
        "attaching reads nothing"
    );
    // D's own names are answered without the source.
    assert!(t.is_type_name_scoped(None, "int"));
    assert!(t.kernel().unwrap().loaded().is_empty());
    // A name question indexes vmlinux's names but imports nothing.
    let before = t.len();
    assert!(t.is_type_name_scoped(None, "pid_t"));
    assert!(
        !t.is_type_name_scoped(None, "node"),
        "a tag is not an ordinary name"
    );
    assert!(!t.is_type_name_scoped(Some("D"), "pid_t"));
    assert_eq!(t.len(), before);
    // A lookup imports on demand, once.
    let node = t.lookup_scoped(None, "struct node").unwrap();
    assert!(matches!(t.kind(node), TypeKind::Struct { .. }));
    assert_eq!(t.kernel().unwrap().loaded(), vec!["vmlinux"]);
    let n = t.len();
    assert_eq!(t.lookup_scoped(Some("vmlinux"), "struct node"), Some(node));
    assert_eq!(t.len(), n);
    assert_eq!(t.enum_constant(None, "GREEN").map(|c| c.1), Some(1));
    // Removing the file now changes nothing: it was read once.
    std::fs::remove_dir_all(&dir).unwrap();
    assert!(t.lookup_scoped(None, "pid_t").is_some());
}

#[test]
fn a_malformed_blob_answers_names_but_imports_nothing() {
    // A typedef of a type id past the end: the name index is fine, the
    // validation before the first import is not.
    let mut b = Builder::new();
    b.int("int", 4, true);
    b.typedef("broken_t", 99);
    let dir = dir_with("bad", &b.finish());
    let mut t = TypeTable::with_builtins();
    t.set_kernel(KernelBtf::lazy_dir(&dir));
    assert!(t.is_type_name_scoped(None, "broken_t"));
    assert!(t.try_lookup_scoped(None, "broken_t").is_err());
    assert_eq!(t.lookup_scoped(None, "broken_t"), None);
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_missing_file_is_a_miss() {
    let dir = std::env::temp_dir().join(format!("dtrace-ctypes-lazy-none-{}", std::process::id()));
    let mut t = TypeTable::with_builtins();
    t.set_kernel(KernelBtf::lazy_dir(&dir));
    assert!(!t.is_type_name_scoped(None, "pid_t"));
    assert_eq!(t.lookup_scoped(None, "struct node"), None);
    assert!(t.try_lookup_scoped(None, "struct node").is_err());
}

#[test]
fn vmlinux_from_a_named_file() {
    // `-x ctfpath=FILE`: vmlinux's types from FILE, read at once; a file that
    // is not BTF is refused.
    let (blob, _) = sample_base();
    let dir = dir_with("file", &blob);
    let file = dir.join("vmlinux");
    let mut t = TypeTable::with_builtins();
    t.set_kernel(KernelBtf::from_file(&file, None).unwrap());
    assert_eq!(t.kernel().unwrap().loaded(), vec!["vmlinux"]);
    let node = t.lookup_scoped(None, "struct node").unwrap();
    assert!(matches!(t.kind(node), TypeKind::Struct { .. }));
    std::fs::remove_dir_all(&dir).unwrap();
    assert!(KernelBtf::from_file(std::path::Path::new("/dev/null"), None).is_err());
    assert!(KernelBtf::from_file(&file, None).is_err());
}
