//! Kernel memory through typed pointers, run in the kernel with BPF_PROG_TEST_RUN:
//! `curthread` members, strings from `char` arrays, bit-fields, and faults on bad
//! addresses (a fault record with the address, later clauses still run).

mod common;

use common::kernel::*;
use common::*;
use dtrace_codegen::desc::{FaultKind, FaultRecord, EPID_FAULT};
use dtrace_codegen::{compile, Attach, CompiledProgram};
use dtrace_ctypes::TypeTable;
use dtrace_sema::{check, CompileOptions};
use dtrace_syntax::ast::Item;
use dtrace_syntax::{parse, ParseOptions, SourceKind, SourceMap};
use std::collections::HashMap;

/// Compile `src` with the kernel's BTF (None when the kernel has none).
fn compile_btf(src: &str) -> Option<CompiledProgram> {
    let mut types = TypeTable::with_builtins();
    if types.load_kernel_btf().is_err() {
        eprintln!("no kernel BTF: skipped");
        return None;
    }
    let mut map = SourceMap::new();
    let id = map.add(SourceKind::ProbeSpecifier, src.to_string());
    let (args, vars) = (Vec::new(), HashMap::new());
    let is_type = |_: &str| false;
    let popts = ParseOptions {
        macro_args: &args,
        macro_vars: &vars,
        defaultargs: false,
        is_type_name: &is_type,
        is_d_identifier: &dtrace_sema::is_d_identifier,
        pspec: false,
    };
    let prog = parse(&map, id, &popts).expect("parses");
    let mut probes = Vec::new();
    for item in &prog.items {
        if let Item::Clause(c) = item {
            probes.push(c.probes.iter().flat_map(|d| resolve(&d.text)).collect());
        }
    }
    let opts = CompileOptions {
        kernel: kernel_offsets(),
        ..CompileOptions::default()
    };
    let tp = check(&prog, &probes, &mut types, &opts).unwrap_or_else(|d| panic!("{d:?}"));
    Some(compile(&tp, &probes, &opts))
}

fn run(src: &str) -> Option<(CompiledProgram, Vec<Vec<u8>>)> {
    let sys = gate()?;
    let cp = compile_btf(src)?;
    let mut s = match load(&sys, &cp) {
        Ok(s) => s,
        Err(e) => panic!(
            "load failed for {src}:\n{e}\n{}",
            dtrace_codegen::disassemble(&cp)
        ),
    };
    s.run(Attach::Begin);
    let recs = s.records();
    Some((cp, recs))
}

#[test]
fn curthread_members_match_builtins() {
    let src = "BEGIN { trace(curthread->tgid); trace(pid); trace(curthread->real_parent->tgid); \
               trace(ppid); trace(curthread->comm); trace(stringof(curthread->comm)); trace(execname); \
               trace(curthread->comm == execname); trace(curthread->pid == tid); }";
    let Some((cp, recs)) = run(src) else { return };
    let a = &cp.desc.epids[&1].actions;
    let r = &recs[0];
    let off = |i: usize| a[i].fields[0].offset as usize;
    assert_eq!(i32_at(r, off(0)), i32_at(r, off(1)));
    assert_eq!(i32_at(r, off(0)) as u32, std::process::id());
    assert_eq!(i32_at(r, off(2)), i32_at(r, off(3)));
    let comm = str_at(r, off(4), 16);
    assert!(!comm.is_empty());
    assert_eq!(str_at(r, off(5), 16), comm);
    assert_eq!(str_at(r, off(6), 16), comm);
    assert_eq!(i32_at(r, off(7)), 1);
    assert_eq!(i32_at(r, off(8)), 1);
}

#[test]
fn bad_address_faults_with_its_address() {
    let src = "BEGIN { trace(1); trace(*(long *)8); } BEGIN { trace(stringof((char *)24)); } BEGIN { trace(2); }";
    let Some((cp, recs)) = run(src) else { return };
    assert_eq!(recs.len(), 3, "two fault records, then the last clause");
    for (r, addr, epid) in [(&recs[0], 8, 1), (&recs[1], 24, 2)] {
        assert_eq!(u32_at(r, 0), EPID_FAULT);
        let f = FaultRecord::parse(r).expect("fault record");
        assert_eq!(f.kind, FaultKind::BadAddr);
        assert_eq!(f.addr, addr);
        assert_eq!(f.epid, epid);
    }
    assert_eq!(FaultRecord::parse(&recs[0]).map(|f| f.action), Some(2));
    let a = &cp.desc.epids[&3].actions;
    assert_eq!(i32_at(&recs[2], a[0].fields[0].offset as usize), 2);
}

#[test]
fn bitfields_and_arrays() {
    let src = "struct bf { unsigned long a : 3, b : 13; long c : 5; }; \
               BEGIN { w = *(unsigned long *)curthread; p = (struct bf *)curthread; \
               trace(p->b == ((w >> 3) & 0x1fff)); trace(p->c == ((long)(w << 43) >> 59)); \
               trace(p->a == (w & 7)); \
               trace(curthread->comm[1] == *((char *)&curthread->comm + 1)); \
               trace(&curthread->comm[3] - &curthread->comm[0]); }";
    let Some((cp, recs)) = run(src) else { return };
    let a = &cp.desc.epids[&1].actions;
    let vals: Vec<i64> = a
        .iter()
        .map(|x| {
            let f = &x.fields[0];
            match f.ty.size() {
                4 => i32_at(&recs[0], f.offset as usize) as i64,
                _ => i64_at(&recs[0], f.offset as usize),
            }
        })
        .collect();
    assert_eq!(vals, vec![1, 1, 1, 1, 3]);
}
