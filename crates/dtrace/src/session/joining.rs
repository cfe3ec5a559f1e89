//! The session's side of probes that join while tracing: user-space
//! objects and processes that appear later (`late.rs`), and the children
//! `-x followfork` holds until their probes are attached.

use std::os::fd::BorrowedFd;

use super::{exec_error, Session};
use crate::ExecError;

impl Session {
    /// Start watching for user-space probes that join while tracing.
    pub(super) fn start_late(&mut self) -> Result<(), ExecError> {
        let Some(late) = self.late.as_mut() else {
            return Ok(());
        };
        late.start(&self.sys).map_err(|message| ExecError {
            message: format!("dtrace: cannot watch for new objects: {message}"),
            detail: None,
        })?;
        if let Some(fd) = late.fd() {
            // SAFETY: the watch, and so `fd`, lives as long as the session.
            let fd = unsafe { BorrowedFd::borrow_raw(fd) };
            self.rt.add_wake_fd(fd).map_err(exec_error)?;
        }
        Ok(())
    }

    /// Enable the user-space probes that joined since the last call.
    pub(super) fn late_probes(&mut self) {
        if let Some(late) = self.late.as_mut() {
            late.poll(&mut self.rt, &mut self.consumer);
        }
    }

    /// `-x followfork`: attach the probes of each new child of a traced
    /// process (held stopped until then) and let it run.
    pub(super) fn follow_children(&mut self) -> Result<(), ExecError> {
        let Some(f) = self.follow.as_mut() else {
            return Ok(());
        };
        for (child, root) in f.new_children() {
            let attached = self.rt.attach_process(root, child);
            dtrace_sys::follow::Follower::resume(child);
            attached.map_err(exec_error)?;
            self.consumer.watch_process(child);
        }
        Ok(())
    }
}
