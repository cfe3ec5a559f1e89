//! Process control (libdtrace's `dtrace_proc_create`/`dtrace_proc_grab`): the
//! processes a session is pointed at: `-c` commands it creates and `-p`
//! processes it grabs. Tracing stops once all of them have exited, with a
//! notice for each, worded as dtrace's: `pid N has exited`, `pid N exited
//! with status S`, `pid N terminated by SIGSEGV`.
//!
//! A created command is held twice. Until [`Targets::create`] returns it
//! waits behind a gate, before its `execve`; it is then let through and runs
//! until its executable's entry point, where a one-shot uprobe stops it
//! (`bpf_send_signal(SIGSTOP)`, no ptrace). There its libraries are mapped,
//! so `pid$target:libc.so.6::` can be matched, and nothing it did before
//! `execve` (as a copy of dtrace) was traced. [`Targets::release_all`] lets it
//! go once every probe is attached. Where the stop is not possible (no
//! uprobe_multi, an object we cannot read) it stays at the gate until then.

use std::collections::HashMap;
use std::os::fd::{AsRawFd, RawFd};
use std::path::{Path, PathBuf};

use crate::argv::split_command;
use dtrace_providers::elf::Elf;
use dtrace_sys::proc::{self, Child, ExitStatus, PidFd};
use dtrace_sys::uprobe::{attach_multi, load_stop_program, UprobePoint};

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
    /// It is stopped at its entry point (else still at the gate).
    stopped: bool,
}

/// The processes a session traces (`-c` commands it created, `-p`
/// processes it grabbed), and what has been reported about them.
pub struct Targets {
    children: Vec<Created>,
    grabbed: Vec<Grabbed>,
}

impl Default for Targets {
    fn default() -> Self {
        Targets::new()
    }
}

impl Targets {
    /// No targets yet.
    pub fn new() -> Targets {
        Targets {
            children: Vec::new(),
            grabbed: Vec::new(),
        }
    }

    /// `-c cmd`: split into words with a shell's quoting (no shell runs:
    /// [`split_command`]) and create it, gated. Errors are complete
    /// `dtrace: ...` lines.
    pub fn create(&mut self, command: &str) -> Result<(), String> {
        let words = split_command(command)
            .map_err(|e| format!("dtrace: invalid command '{command}': {e}"))?;
        let argv: Vec<&str> = if words.is_empty() {
            vec![command]
        } else {
            words.iter().map(String::as_str).collect()
        };
        self.create_argv(&argv)
    }

    /// Creates the command `argv` (its words as given, not split again),
    /// gated as [`Targets::create`] does (plockstat's `command [arg...]`).
    pub fn create_argv<S: AsRef<std::ffi::OsStr>>(&mut self, argv: &[S]) -> Result<(), String> {
        let mut child = proc::spawn_gated(argv).map_err(|e| format!("dtrace: {e}"))?;
        let stopped = stop_at_entry(&mut child).map_err(|e| format!("dtrace: {e}"))?;
        self.children.push(Created {
            child,
            reported: false,
            stopped,
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

    /// Whether there is no target at all.
    pub fn is_empty(&self) -> bool {
        self.children.is_empty() && self.grabbed.is_empty()
    }

    /// Every target's pid.
    pub fn pids(&self) -> Vec<u32> {
        self.children
            .iter()
            .map(|c| c.child.pid())
            .chain(self.grabbed.iter().map(|g| g.pid))
            .filter_map(|p| u32::try_from(p).ok())
            .collect()
    }

    /// `$target`: the first created process, else the first grabbed one.
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
            if c.stopped {
                c.stopped = false;
                c.child.resume().map_err(|e| {
                    format!("dtrace: failed to resume process: {}", proc::strerror(&e))
                })?;
            } else {
                c.child.release().map_err(|e| format!("dtrace: {e}"))?;
            }
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

/// The file and file offset where a process running `path` enters its own
/// code: the executable's entry point, or its interpreter's for a `#!` script.
fn entry_of(path: &Path) -> Option<(PathBuf, u64)> {
    let head = std::fs::read(path).ok()?;
    if let Some(rest) = head.strip_prefix(b"#!") {
        let line = rest.split(|b| *b == b'\n').next()?;
        let line = String::from_utf8_lossy(line);
        let interp = line.split_ascii_whitespace().next()?;
        let interp = PathBuf::from(interp);
        let elf = Elf::open(&interp).ok()?;
        let off = elf.file_offset(elf.entry)?;
        return Some((interp, off));
    }
    let elf = Elf::parse(head)?;
    let off = elf.file_offset(elf.entry)?;
    Some((path.to_path_buf(), off))
}

/// Let a gated child run up to its entry point and stop there. False (the
/// child still gated) when that cannot be arranged here.
fn stop_at_entry(child: &mut Child) -> Result<bool, String> {
    let Some((path, offset)) = entry_of(child.path()) else {
        return Ok(false);
    };
    let sys = dtrace_sys::kernel();
    let Ok(prog) = load_stop_program(&sys) else {
        return Ok(false);
    };
    let point = UprobePoint {
        offset,
        ref_ctr_offset: 0,
        cookie: 0,
    };
    let Ok(link) = attach_multi(&prog, &path, &[point], false, child.pid() as u32) else {
        return Ok(false);
    };
    child.release().map_err(|e| e.to_string())?;
    let stopped = child
        .wait_stopped()
        .map_err(|e| format!("failed to control process: {}", proc::strerror(&e)))?;
    drop(link);
    Ok(stopped)
}

/// `$target` (0 without -c/-p) and the identity of this process: `$pid $ppid
/// $uid $gid $euid $egid $sid $pgid`. Linux has no Solaris projects or tasks;
/// `$projid` and `$taskid` are defined as 0 so that scripts written for Solaris
/// still compile. Any other `$name` is an error (D_MACRO_UNDEF) unless
/// `-xdefaultargs`, which makes it 0 (or "" as `$$name`).
pub fn macro_variables(target: Option<i32>) -> HashMap<String, String> {
    let ids = proc::ProcessIds::current();
    let mut vars = HashMap::new();
    vars.insert("target".to_string(), target.unwrap_or(0).to_string());
    vars.insert("projid".to_string(), "0".to_string());
    vars.insert("taskid".to_string(), "0".to_string());
    for (name, value) in [
        ("pid", ids.pid),
        ("ppid", ids.ppid),
        ("uid", ids.uid),
        ("gid", ids.gid),
        ("euid", ids.euid),
        ("egid", ids.egid),
        ("sid", ids.sid),
        ("pgid", ids.pgid),
    ] {
        vars.insert(name.to_string(), value.to_string());
    }
    vars
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

    #[test]
    fn macro_variables_name_this_process() {
        let vars = macro_variables(Some(42));
        assert_eq!(vars.get("target").map(String::as_str), Some("42"));
        assert_eq!(
            vars.get("pid").map(String::as_str),
            Some(std::process::id().to_string().as_str())
        );
        for name in [
            "ppid", "uid", "gid", "euid", "egid", "sid", "pgid", "projid", "taskid",
        ] {
            assert!(vars.contains_key(name), "{name}");
        }
        assert_eq!(
            macro_variables(None).get("target").map(String::as_str),
            Some("0")
        );
    }
}
