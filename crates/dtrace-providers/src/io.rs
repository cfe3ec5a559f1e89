//! The `io` provider (the Dynamic Tracing Guide's "io Provider"): block I/O,
//! on the block layer's tracepoints.
//!
//! | probe | raw tracepoint | when |
//! |---|---|---|
//! | `start` | `block_rq_issue` | a request is issued to the device driver |
//! | `done` | `block_rq_complete` | the device has completed (part of) a request |
//! | `wait-start` | `xfs_buf_iowait` | a thread starts waiting for an XFS buffer's I/O |
//! | `wait-done` | `xfs_buf_iowait_done` | that thread is done waiting |
//!
//! Arguments are DTrace's `bufinfo_t *` and `devinfo_t *`, translated from the
//! native `struct request *` by `io.d` (from the XFS buffer, `struct xfs_buf *`,
//! by `io_xfs.d`, for the wait probes), and `fileinfo_t *` (from a null
//! `struct file *`: the block layer does not know the file).
//!
//! The block layer has no tracepoint where a thread starts or stops waiting
//! for its I/O (a waiter sleeps on a completion, seen by no event that names
//! the I/O). XFS has one pair, around every synchronous buffer I/O (metadata
//! reads and writes), as Oracle's DTrace uses; they are the wait probes where
//! the kernel has XFS, and without XFS enabling them is an error saying so.

use crate::kernel_sdt::{xlate, Optional, SdtProbe, TableProvider};
use dtrace_sema::{Prep, Src};

/// The `io` provider.
pub const PROVIDER: TableProvider = TableProvider {
    name: "io",
    probes: PROBES,
    unavailable: &[],
    optional: OPTIONAL,
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

const XFS_BUF: &str = "struct xfs_buf *";

const XFS_ARGS: &[crate::kernel_sdt::Arg] = &[
    xlate(XFS_BUF, "bufinfo_t *", 0),
    xlate(XFS_BUF, "devinfo_t *", 0),
    xlate("struct file *", "fileinfo_t *", 1),
];

/// `xfs_buf_iowait(bp, caller_ip)` and `xfs_buf_iowait_done(bp, caller_ip)`.
const XFS_PREP: Prep = Prep {
    syscalls: &[],
    tests: &[],
    args: &[Src::Raw(0), Src::Zero],
};

pub const OPTIONAL: &[Optional] = &[
    Optional {
        probe: SdtProbe {
            name: "wait-start",
            tp: "xfs_buf_iowait",
            prep: XFS_PREP,
            args: XFS_ARGS,
        },
        group: "xfs",
        missing: "built on XFS's xfs_buf_iowait tracepoint (the block layer has no event \
                  where a thread starts waiting for an I/O), and this kernel has no XFS",
    },
    Optional {
        probe: SdtProbe {
            name: "wait-done",
            tp: "xfs_buf_iowait_done",
            prep: XFS_PREP,
            args: XFS_ARGS,
        },
        group: "xfs",
        missing: "built on XFS's xfs_buf_iowait_done tracepoint (the block layer has no \
                  event where a thread is done waiting for an I/O), and this kernel has no XFS",
    },
];

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Provider;

    #[test]
    fn table_is_consistent() {
        crate::kernel_sdt::check_table(PROBES, &[]);
        let optional: Vec<SdtProbe> = OPTIONAL.iter().map(|o| o.probe).collect();
        crate::kernel_sdt::check_table(&optional, &[]);
        let start = PROVIDER
            .list()
            .into_iter()
            .find(|p| p.name == "start")
            .unwrap();
        let shown: Vec<&str> = start.args.iter().map(|a| a.shown()).collect();
        assert_eq!(shown, ["bufinfo_t *", "devinfo_t *", "fileinfo_t *"]);
    }
}
