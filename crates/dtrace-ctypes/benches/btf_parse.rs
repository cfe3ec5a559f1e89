//! `cargo bench -p dtrace-ctypes --bench btf_parse`: times parsing the running kernel's
//! BTF and the first lookups/imports. Plain std::time; prints medians of N runs.

use std::hint::black_box;
use std::path::Path;
use std::time::{Duration, Instant};

use dtrace_ctypes::{offset_of_path, Btf, KernelBtf, TypeTable};

fn median(mut v: Vec<Duration>) -> Duration {
    v.sort();
    v[v.len() / 2]
}

fn time<T>(runs: usize, mut f: impl FnMut() -> T) -> (Duration, T) {
    let mut times = Vec::with_capacity(runs);
    let mut last = None;
    for _ in 0..runs {
        let t = Instant::now();
        let r = black_box(f());
        times.push(t.elapsed());
        last = Some(r);
    }
    match last {
        Some(r) => (median(times), r),
        None => (Duration::ZERO, f()),
    }
}

fn main() {
    let path = Path::new("/sys/kernel/btf/vmlinux");
    let Ok(bytes) = std::fs::read(path) else {
        println!("no {}; nothing to measure", path.display());
        return;
    };
    let runs = 21;
    let (read, _) = time(runs, || std::fs::read(path).map(|b| b.len()));
    let (parse, btf) = time(runs, || Btf::parse(black_box(bytes.clone())));
    let btf = match btf {
        Ok(b) => b,
        Err(e) => {
            println!("parse failed: {e}");
            return;
        }
    };
    let (clone, _) = time(runs, || black_box(bytes.clone()).len());
    // The lazy kernel type source's two steps: the name index (what the
    // parser's "is this a type name?" needs) and the validation before the
    // first import.
    let (index, _) = time(runs, || {
        Btf::index(black_box(bytes.clone())).map(|b| b.type_count())
    });
    let check = median(
        (0..runs)
            .filter_map(|_| {
                let b = Btf::index(bytes.clone()).ok()?;
                let t = Instant::now();
                b.check().ok()?;
                Some(t.elapsed())
            })
            .collect(),
    );
    let (read_index, _) = time(runs, || {
        Btf::index(std::fs::read(path).ok()?)
            .ok()
            .map(|b| b.type_count())
    });
    println!(
        "vmlinux BTF: {} bytes, {} types",
        bytes.len(),
        btf.type_count()
    );
    println!("read file          {:>10.3?}", read);
    println!(
        "parse+index        {:>10.3?}  (includes a {:.3?} copy of the blob)",
        parse, clone
    );
    println!(
        "index only         {:>10.3?}  (header, record bounds, name index; incl. the copy)",
        index
    );
    println!(
        "read + index       {:>10.3?}  (what the first type-name question costs)",
        read_index
    );
    println!(
        "check              {:>10.3?}  (validation, before the first import)",
        check
    );
    let (find, _) = time(runs, || btf.find("task_struct"));
    println!("find(task_struct)  {:>10.3?}", find);
    let (en, _) = time(1, || btf.enum_constant("TASK_COMM_LEN"));
    println!(
        "first enum lookup  {:>10.3?}  (builds enumerator index)",
        en
    );
    let (en2, _) = time(runs, || btf.enum_constant("PIDTYPE_TGID"));
    println!("next enum lookup   {:>10.3?}", en2);

    let fresh = || {
        let mut t = TypeTable::with_builtins();
        t.set_kernel(KernelBtf::new(Btf::parse(bytes.clone()).ok()?));
        Some(t)
    };
    let (imp, n) = time(runs, || {
        let mut t = fresh()?;
        let before = t.len();
        let t0 = Instant::now();
        t.lookup_scoped(None, "struct task_struct")?;
        Some((t0.elapsed(), t.len() - before))
    });
    if let Some((d, n)) = n {
        println!(
            "import task_struct {:>10.3?}  ({} types imported; total incl. parse {:.3?})",
            d, n, imp
        );
    }
    if let Some(mut t) = fresh() {
        let _ = t.lookup_scoped(None, "struct task_struct");
        let (again, _) = time(runs, || t.lookup_scoped(None, "struct task_struct"));
        println!("lookup again       {:>10.3?}  (memoized)", again);
        let (off, _) = time(runs, || {
            offset_of_path(&mut t, "struct task_struct", &["real_parent"])
        });
        println!("offset_of_path     {:>10.3?}", off);
        let (pid, _) = time(runs, || t.lookup_scoped(None, "pid_t"));
        println!("lookup pid_t       {:>10.3?}", pid);
    }
}
