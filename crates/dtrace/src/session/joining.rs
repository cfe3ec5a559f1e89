//! The session's side of probes that join while tracing: user-space
//! objects and processes that appear later (`late.rs`), and the children
//! `-x followfork` holds until their probes are attached.

use super::{exec_error, Session};
use crate::ExecError;

impl Session {
    /// Start watching for user-space probes that join while tracing (on a
    /// thread of their own).
    pub(super) fn start_late(&mut self) -> Result<(), ExecError> {
        let Some(late) = self.late.take() else {
            return Ok(());
        };
        let (progs, maps) = late.handle_indices();
        let handles = self.rt.uprobe_handles(&progs, &maps).map_err(exec_error)?;
        let thread =
            crate::late::LateThread::start(late, &self.sys, handles).map_err(|message| {
                ExecError {
                    message: format!("dtrace: cannot watch for new objects: {message}"),
                    detail: None,
                }
            })?;
        self.late_thread = Some(thread);
        Ok(())
    }

    /// Give the consumer the names of the user-space probes that joined.
    pub(super) fn late_probes(&mut self) {
        if let Some(t) = &self.late_thread {
            t.joined().install(&mut self.consumer);
        }
    }

    /// `-x followfork`: attach the probes of each new child of a traced
    /// process (held stopped until then) and let it run.
    pub(super) fn follow_children(&mut self) -> Result<(), ExecError> {
        let Some(f) = self.follow.as_mut() else {
            return Ok(());
        };
        for (child, root) in f.new_children() {
            let mut attached = self.rt.attach_process(root, child).map_err(exec_error);
            if let (Ok(()), Some(t)) = (&attached, self.late_thread.as_mut()) {
                attached = t.attach_process(root, child).map_err(|message| ExecError {
                    message: format!("dtrace: {message}"),
                    detail: None,
                });
            }
            dtrace_sys::follow::Follower::resume(child);
            attached?;
            self.consumer.watch_process(child);
        }
        Ok(())
    }
}
