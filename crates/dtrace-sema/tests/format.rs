//! The printf grammar's checks against argument types, with dtrace's
//! D_PRINTF_* wording (moved here with the one format parser).

use dtrace_sema::format::{self, ArgKind, ArgType, CheckError, CheckKind, Format};

fn check(func: &str, f: &str, args: &[ArgType]) -> Result<Format, CheckError> {
    format::check(func, f, args, false)
}

fn check_printa(f: &str, keys: &[ArgType]) -> Result<Format, CheckError> {
    format::check("printa", f, keys, true)
}

fn t(kind: ArgKind, name: &str) -> ArgType {
    ArgType::new(kind, name)
}

#[test]
fn validation_messages() {
    let int = t(ArgKind::Int, "int");
    let string = t(ArgKind::String, "string");
    // Wording of dtrace's D_PRINTF_* diagnostics.
    let e = check("printf", "%d", std::slice::from_ref(&string)).unwrap_err();
    assert_eq!(e.kind, CheckKind::ArgType);
    assert_eq!(
        e.message,
        "printf( ) argument #2 is incompatible with conversion #1 prototype:\n\
         \tconversion: %d\n\t prototype: char, short, int, long, or long long\n\t  argument: string"
    );
    let e = check("printf", "%d %s", &[int.clone(), t(ArgKind::Other, "void")]).unwrap_err();
    assert_eq!(
        e.message,
        "printf( ) argument #3 is incompatible with conversion #2 prototype:\n\
         \tconversion: %s\n\t prototype: char [] or string (or use stringof)\n\t  argument: void"
    );
    let e = check("printf", "%d %lld", std::slice::from_ref(&int)).unwrap_err();
    assert_eq!(e.kind, CheckKind::ArgProto);
    assert_eq!(
        e.message,
        "printf( ) prototype mismatch: conversion #2 (%lld) is missing a corresponding value argument"
    );
    let e = check("printf", "%d", &[int.clone(), int.clone()]).unwrap_err();
    assert_eq!(e.kind, CheckKind::ArgExtra);
    assert_eq!(
        e.message,
        "printf( ) prototype mismatch: only 1 arguments required by this format string"
    );
    let e = check("printf", "", &[]).unwrap_err();
    assert_eq!(e.kind, CheckKind::FmtEmpty);
    assert_eq!(e.message, "printf( ) format string is empty");
    let e = check("printf", "%*d", &[]).unwrap_err();
    assert_eq!(e.kind, CheckKind::DynProto);
    assert_eq!(
        e.message,
        "printf( ) prototype mismatch: conversion #1 (%d) is missing a corresponding \"*\" argument"
    );
    let e = check("printf", "%*d", &[string.clone(), int.clone()]).unwrap_err();
    assert_eq!(e.kind, CheckKind::DynType);
    assert_eq!(
        e.message,
        "printf( ) argument #2 is incompatible with conversion #1 prototype:\n\
         \tconversion: % * d\n\t prototype: int\n\t  argument: string"
    );
    let e = check("printf", "%@d", &[]).unwrap_err();
    assert_eq!(e.kind, CheckKind::AggConv);
    assert_eq!(
        e.message,
        "%@ conversion requires an aggregation and is not for use with printf( )"
    );
    // %k takes a stack.
    assert_eq!(
        check("printf", "%k", std::slice::from_ref(&int))
            .unwrap_err()
            .kind,
        CheckKind::ArgType
    );
    // %% counts as a conversion when numbering.
    let e = check("printf", "%% %s", std::slice::from_ref(&int)).unwrap_err();
    assert!(e.message.contains("conversion #2"), "{}", e.message);
    // Accepted forms.
    assert!(check(
        "printf",
        "%d %s %p %x %f\n",
        &[
            int.clone(),
            string.clone(),
            t(ArgKind::Pointer, "void *"),
            t(ArgKind::Pointer, "char *"),
            t(ArgKind::Float, "double"),
        ]
    )
    .is_ok());
    // %f takes a double, not an integer.
    let e = check("printf", "%f", std::slice::from_ref(&int)).unwrap_err();
    assert_eq!(e.kind, CheckKind::ArgType);
    assert!(check_printa("%s %@d\n", &[string.clone(), int.clone()]).is_ok());
    assert!(check_printa("%d %@d\n", &[string]).is_err());
}
