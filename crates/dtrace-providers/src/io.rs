//! The `io` provider (the Dynamic Tracing Guide's "io Provider"): block I/O,
//! on the block layer's tracepoints.
//!
//! | probe | raw tracepoint | when |
//! |---|---|---|
//! | `start` | `block_rq_issue` | a request is issued to the device driver |
//! | `done` | `block_rq_complete` | the device has completed (part of) a request |
//!
//! Arguments are DTrace's `bufinfo_t *` and `devinfo_t *`, translated from the
//! native `struct request *` by `io.d`, and `fileinfo_t *` (from a null
//! `struct file *`: the block layer does not know the file). `wait-start` and
//! `wait-done` have no block-layer tracepoint: enabling them is an error that
//! says so.

use crate::kernel_sdt::{xlate, SdtProbe, TableProvider, Unavailable};
use dtrace_sema::{Prep, Src};

/// The `io` provider.
pub const PROVIDER: TableProvider = TableProvider {
    name: "io",
    probes: PROBES,
    unavailable: UNAVAILABLE,
};

const REQ: &str = "struct request *";

const ARGS: &[crate::kernel_sdt::Arg] = &[
    xlate(REQ, "bufinfo_t *", 0),
    xlate(REQ, "devinfo_t *", 0),
    xlate("struct file *", "fileinfo_t *", 1),
];

const PREP: Prep = Prep {
    syscalls: &[],
    tests: &[],
    args: &[Src::Raw(0), Src::Zero],
};

pub const PROBES: &[SdtProbe] = &[
    SdtProbe {
        name: "done",
        tp: "block_rq_complete",
        prep: PREP,
        args: ARGS,
    },
    SdtProbe {
        name: "start",
        tp: "block_rq_issue",
        prep: PREP,
        args: ARGS,
    },
];

pub const UNAVAILABLE: &[Unavailable] = &[
    Unavailable {
        name: "wait-start",
        why: "no block-layer tracepoint fires when a thread starts waiting for an I/O",
    },
    Unavailable {
        name: "wait-done",
        why: "no block-layer tracepoint fires when a thread is done waiting for an I/O",
    },
];

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Provider;

    #[test]
    fn table_is_consistent() {
        crate::kernel_sdt::check_table(PROBES, UNAVAILABLE);
        let start = PROVIDER
            .list()
            .into_iter()
            .find(|p| p.name == "start")
            .unwrap();
        let shown: Vec<&str> = start.args.iter().map(|a| a.shown()).collect();
        assert_eq!(shown, ["bufinfo_t *", "devinfo_t *", "fileinfo_t *"]);
    }
}
