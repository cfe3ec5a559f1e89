//! The processes dtrace(1) was pointed at: `-c` commands it creates (held behind a
//! gate until tracing is live) and `-p` processes it grabs. Tracing stops once
//! all of them have exited, with a notice for each, worded as dtrace's:
//! `pid N has exited`, `pid N exited with status S`, `pid N terminated by SIGSEGV`.

use std::os::fd::{AsRawFd, RawFd};

use dtrace_sys::proc::{self, Child, ExitStatus, PidFd};

/// A `-p` process: not our child, so we only learn that it is gone.
struct Grabbed {
    pid: i32,
    /// Wakes the command loop when the process exits (None: pidfd unsupported,
    /// fall back to checking on every loop iteration).
    pidfd: Option<PidFd>,
    gone: bool,
}

/// A `-c` process.
struct Created {
    child: Child,
    /// Its exit notice has been given.
    reported: bool,
}

pub struct Targets {
    children: Vec<Created>,
    grabbed: Vec<Grabbed>,
}

impl Targets {
    pub fn new() -> Targets {
        Targets {
            children: Vec::new(),
            grabbed: Vec::new(),
        }
    }

    /// `-c cmd`: split on white space (no shell) and create it, gated.
    /// Errors are complete `dtrace: ...` lines.
    pub fn create(&mut self, command: &str) -> Result<(), String> {
        let words: Vec<&str> = command.split_ascii_whitespace().collect();
        let argv: Vec<&str> = if words.is_empty() {
            vec![command]
        } else {
            words
        };
        let child = proc::spawn_gated(&argv).map_err(|e| format!("dtrace: {e}"))?;
        self.children.push(Created {
            child,
            reported: false,
        });
        Ok(())
    }

    /// `-p pid`: check it names a live process.
    pub fn grab(&mut self, text: &str) -> Result<(), String> {
        let pid = match text.parse::<i32>() {
            Ok(p) if p > 0 => p,
            _ => return Err(format!("dtrace: invalid pid: {text}")),
        };
        if !proc::pid_exists(pid) {
            return Err(format!("dtrace: failed to grab pid {pid}: No such process"));
        }
        self.grabbed.push(Grabbed {
            pid,
            pidfd: PidFd::open(pid).ok(),
            gone: false,
        });
        Ok(())
    }

    pub fn is_empty(&self) -> bool {
        self.children.is_empty() && self.grabbed.is_empty()
    }

    /// `$target`: the first created process, else the first grabbed one.
    /// Every target's pid.
    pub fn pids(&self) -> Vec<u32> {
        self.children
            .iter()
            .map(|c| c.child.pid())
            .chain(self.grabbed.iter().map(|g| g.pid))
            .filter_map(|p| u32::try_from(p).ok())
            .collect()
    }

    pub fn target_pid(&self) -> Option<i32> {
        self.children
            .first()
            .map(|c| c.child.pid())
            .or_else(|| self.grabbed.first().map(|g| g.pid))
    }

    /// Descriptors that become readable when a grabbed process exits.
    pub fn wake_fds(&self) -> Vec<RawFd> {
        self.grabbed
            .iter()
            .filter_map(|g| g.pidfd.as_ref().map(AsRawFd::as_raw_fd))
            .collect()
    }

    /// Let every created process run.
    pub fn release_all(&mut self) -> Result<(), String> {
        for c in &mut self.children {
            c.child.release().map_err(|e| format!("dtrace: {e}"))?;
        }
        Ok(())
    }

    /// Collect the processes that have exited since the last call; one notice
    /// line (without the `dtrace: ` prefix) for each.
    pub fn poll(&mut self) -> Vec<String> {
        let mut notices = Vec::new();
        for c in &mut self.children {
            if c.reported {
                continue;
            }
            if let Ok(Some(status)) = c.child.try_wait() {
                c.reported = true;
                notices.push(exit_notice(c.child.pid(), status));
            }
        }
        for g in &mut self.grabbed {
            if g.gone {
                continue;
            }
            let exited = match &g.pidfd {
                Some(fd) => fd.has_exited(),
                None => !proc::pid_exists(g.pid),
            };
            if exited {
                g.gone = true;
                notices.push(format!("pid {} has exited", g.pid));
            }
        }
        notices
    }

    /// Have all the processes exited? (False when there are none.)
    pub fn all_gone(&mut self) -> bool {
        if self.is_empty() {
            return false;
        }
        let children_gone = self
            .children
            .iter_mut()
            .all(|c| matches!(c.child.try_wait(), Ok(Some(_))));
        children_gone && self.grabbed.iter().all(|g| g.gone)
    }

    /// dtrace(1) does not leave the processes it created running: kill and reap
    /// those still alive (an unreleased one exits without running its command).
    pub fn kill_all(&mut self) {
        self.children.clear();
    }
}

/// dtrace's notice for a created process that ended.
pub fn exit_notice(pid: i32, status: ExitStatus) -> String {
    match status {
        ExitStatus::Signaled(sig) => {
            format!("pid {pid} terminated by {}", proc::signal_name(sig))
        }
        ExitStatus::Exited(0) => format!("pid {pid} has exited"),
        ExitStatus::Exited(code) => format!("pid {pid} exited with status {code}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::{Duration, Instant};

    fn wait_for_notices(t: &mut Targets) -> Vec<String> {
        let deadline = Instant::now() + Duration::from_secs(10);
        let mut all = Vec::new();
        while Instant::now() < deadline {
            all.extend(t.poll());
            if t.all_gone() {
                break;
            }
            std::thread::sleep(Duration::from_millis(10));
        }
        all
    }

    #[test]
    fn notices_are_worded_as_dtrace() {
        assert_eq!(exit_notice(7, ExitStatus::Exited(0)), "pid 7 has exited");
        assert_eq!(
            exit_notice(7, ExitStatus::Exited(3)),
            "pid 7 exited with status 3"
        );
        assert_eq!(
            exit_notice(7, ExitStatus::Signaled(9)),
            "pid 7 terminated by SIGKILL"
        );
    }

    #[test]
    fn created_commands_report_once_and_finish() {
        let mut t = Targets::new();
        assert!(!t.all_gone(), "no processes: never 'all gone'");
        t.create("false").expect("create");
        t.create("true").expect("create");
        let pid = t.target_pid().expect("target");
        assert!(pid > 0);
        assert!(t.poll().is_empty(), "nothing runs before release");
        t.release_all().expect("release");
        let notices = wait_for_notices(&mut t);
        assert!(t.all_gone());
        assert_eq!(notices.len(), 2, "{notices:?}");
        assert!(notices.contains(&format!("pid {pid} exited with status 1")));
        assert!(t.poll().is_empty(), "each process is reported once");
    }

    #[test]
    fn bad_commands_and_pids() {
        let mut t = Targets::new();
        assert_eq!(
            t.create("/nonexistent/cmd arg").unwrap_err(),
            "dtrace: failed to execute /nonexistent/cmd: No such file or directory"
        );
        assert_eq!(t.grab("12x").unwrap_err(), "dtrace: invalid pid: 12x");
        assert_eq!(t.grab("0").unwrap_err(), "dtrace: invalid pid: 0");
        assert!(t.is_empty());
        let me = std::process::id().to_string();
        t.grab(&me).expect("grab self");
        assert_eq!(t.target_pid(), Some(std::process::id() as i32));
        assert!(t.poll().is_empty());
        assert!(!t.all_gone());
    }

    #[test]
    fn grabbed_process_exit_is_noticed() {
        let mut child = proc::spawn_gated(&["sleep", "30"]).expect("spawn");
        child.release().expect("release");
        let mut t = Targets::new();
        t.grab(&child.pid().to_string()).expect("grab");
        assert!(t.poll().is_empty());
        child.kill().expect("kill");
        let _ = child.wait();
        let notices = wait_for_notices(&mut t);
        assert_eq!(notices, vec![format!("pid {} has exited", child.pid())]);
    }
}
