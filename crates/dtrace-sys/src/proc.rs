//! Process control for dtrace(1): the `-c` command (created stopped behind a gate,
//! released once tracing is live), the `-p` process (watched until it exits), the
//! signals the command loop waits on (through a signalfd), and the identity of
//! the current process (for the `$pid`, `$uid`, ... macro variables).
//!
//! Nothing here needs privileges.
//!
//! **Invariant: a created child never runs the user's command before
//! [`Child::release`].** It blocks reading a gate pipe; if the gate closes
//! without the release byte (dtrace failed, or the `Child` was dropped), the
//! child exits without executing anything.

use std::ffi::{CString, OsStr};
use std::fmt;
use std::io;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd, RawFd};
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};

/// Exit status a gated child uses when it stops without executing the command.
const GATE_CLOSED_STATUS: libc::c_int = 126;
/// Exit status a gated child uses when execv fails.
const EXEC_FAILED_STATUS: libc::c_int = 127;

/// Why creating or releasing a child failed.
#[derive(Debug)]
pub enum SpawnError {
    /// The command was empty (`-c ''`).
    EmptyCommand,
    /// The command could not be executed (not found, not executable, ...).
    Exec { command: String, error: io::Error },
    /// A system call needed to set the child up failed.
    Setup(io::Error),
}

impl fmt::Display for SpawnError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SpawnError::EmptyCommand => f.write_str("empty command"),
            SpawnError::Exec { command, error } => {
                write!(f, "failed to execute {command}: {}", strerror(error))
            }
            SpawnError::Setup(e) => write!(f, "failed to create process: {}", strerror(e)),
        }
    }
}

impl std::error::Error for SpawnError {}

/// An `io::Error`'s text without Rust's " (os error N)" suffix, as strerror(3) gives it.
pub fn strerror(e: &io::Error) -> String {
    let text = e.to_string();
    match text.find(" (os error ") {
        Some(i) => text[..i].to_string(),
        None => text,
    }
}

/// How a process ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ExitStatus {
    /// `exit(code)`.
    Exited(i32),
    /// Killed by this signal number.
    Signaled(i32),
}

impl ExitStatus {
    fn from_wait_status(status: libc::c_int) -> ExitStatus {
        if libc::WIFSIGNALED(status) {
            ExitStatus::Signaled(libc::WTERMSIG(status))
        } else {
            ExitStatus::Exited(libc::WEXITSTATUS(status))
        }
    }
}

/// A child created by [`spawn_gated`]: it exists, but runs the command only after
/// [`Child::release`]. Dropping a `Child` that is still running kills it (dtrace(1)
/// does not leave the processes it created behind) and reaps it.
#[derive(Debug)]
pub struct Child {
    pid: libc::pid_t,
    command: String,
    path: PathBuf,
    /// Write end of the gate: one byte releases the child, closing it cancels.
    gate: Option<OwnedFd>,
    /// Read end of the close-on-exec error pipe: EOF means exec succeeded.
    exec_errors: Option<OwnedFd>,
    status: Option<ExitStatus>,
}

/// Create a child for `argv` that waits, before doing anything else, for
/// [`Child::release`]; then it restores the default signal state and executes
/// `argv[0]` (searched in `PATH` like execvp(3); the search is done here, in the
/// parent, so a missing command is reported now rather than after release).
pub fn spawn_gated<S: AsRef<OsStr>>(argv: &[S]) -> Result<Child, SpawnError> {
    let first = argv.first().ok_or(SpawnError::EmptyCommand)?;
    let command = first.as_ref().to_string_lossy().into_owned();
    if command.is_empty() {
        return Err(SpawnError::EmptyCommand);
    }
    let path = find_executable(first.as_ref()).map_err(|error| SpawnError::Exec {
        command: command.clone(),
        error,
    })?;

    // Everything the child touches is prepared here: after fork it may only make
    // async-signal-safe calls, so no allocation happens there.
    let c_path = cstring(path.as_os_str())?;
    let c_args = argv
        .iter()
        .map(|a| cstring(a.as_ref()))
        .collect::<Result<Vec<CString>, SpawnError>>()?;
    let mut c_argv: Vec<*const libc::c_char> = c_args.iter().map(|a| a.as_ptr()).collect();
    c_argv.push(std::ptr::null());

    let (gate_read, gate_write) = pipe().map_err(SpawnError::Setup)?;
    let (err_read, err_write) = pipe().map_err(SpawnError::Setup)?;

    // SAFETY: fork has no memory-safety preconditions. In the child we only call
    // async-signal-safe functions (close, read, prctl, sigprocmask, signal, execv, write,
    // _exit) on data prepared before the fork, and never return from this function.
    let pid = unsafe { libc::fork() };
    if pid < 0 {
        return Err(SpawnError::Setup(io::Error::last_os_error()));
    }
    if pid == 0 {
        child_after_fork(
            gate_read.as_raw_fd(),
            gate_write.as_raw_fd(),
            err_write.as_raw_fd(),
            &c_path,
            &c_argv,
        );
    }
    drop(gate_read);
    drop(err_write);
    Ok(Child {
        pid,
        command,
        path,
        gate: Some(gate_write),
        exec_errors: Some(err_read),
        status: None,
    })
}

/// The child's side of [`spawn_gated`]. Never returns.
fn child_after_fork(
    gate_read: RawFd,
    gate_write: RawFd,
    err_write: RawFd,
    path: &CString,
    argv: &[*const libc::c_char],
) -> ! {
    // SAFETY: only async-signal-safe calls on file descriptors this process owns
    // and on buffers allocated before fork; `argv` is NULL-terminated and its
    // strings outlive the call because this function never returns.
    unsafe {
        // Our copy of the write end must go, or the parent's death would never
        // close the gate.
        libc::close(gate_write);
        let mut byte = 0u8;
        let n = loop {
            let n = libc::read(gate_read, (&mut byte as *mut u8).cast(), 1);
            if n < 0 && *libc::__errno_location() == libc::EINTR {
                continue;
            }
            break n;
        };
        if n != 1 {
            libc::_exit(GATE_CLOSED_STATUS);
        }
        libc::close(gate_read);
        // If dtrace dies (even by SIGKILL) the command dies too: it may be
        // stopped at its entry point waiting for dtrace, and dtrace(1) never
        // leaves the processes it created behind.
        libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL as libc::c_ulong);

        // dtrace blocks signals for its signalfd and Rust ignores SIGPIPE: the
        // command must start with the defaults.
        let mut empty: libc::sigset_t = std::mem::zeroed();
        libc::sigemptyset(&mut empty);
        libc::sigprocmask(libc::SIG_SETMASK, &empty, std::ptr::null_mut());
        libc::signal(libc::SIGPIPE, libc::SIG_DFL);

        libc::execv(path.as_ptr(), argv.as_ptr());

        let errno = *libc::__errno_location();
        let bytes = errno.to_ne_bytes();
        libc::write(err_write, bytes.as_ptr().cast(), bytes.len());
        libc::_exit(EXEC_FAILED_STATUS);
    }
}

impl Child {
    pub fn pid(&self) -> i32 {
        self.pid
    }

    /// The command name (`argv[0]` as given).
    pub fn command(&self) -> &str {
        &self.command
    }

    /// Let the child execute its command, and wait until it has (or failed to).
    /// Releasing twice is a no-op.
    pub fn release(&mut self) -> Result<(), SpawnError> {
        let Some(gate) = self.gate.take() else {
            return Ok(());
        };
        let byte = [1u8];
        // SAFETY: writes one byte from a live buffer to a descriptor we own.
        let n = unsafe { libc::write(gate.as_raw_fd(), byte.as_ptr().cast(), 1) };
        if n != 1 {
            return Err(SpawnError::Setup(io::Error::last_os_error()));
        }
        drop(gate);

        let Some(errors) = self.exec_errors.take() else {
            return Ok(());
        };
        let mut buf = [0u8; 4];
        let mut got = 0usize;
        while got < buf.len() {
            // SAFETY: reads into the unfilled tail of a live buffer from a
            // descriptor we own.
            let n = unsafe {
                libc::read(
                    errors.as_raw_fd(),
                    buf[got..].as_mut_ptr().cast(),
                    buf.len() - got,
                )
            };
            if n < 0 {
                let e = io::Error::last_os_error();
                if e.kind() == io::ErrorKind::Interrupted {
                    continue;
                }
                return Err(SpawnError::Setup(e));
            }
            if n == 0 {
                break;
            }
            got += n as usize;
        }
        if got == 0 {
            return Ok(()); // EOF: the close-on-exec pipe closed in a successful exec
        }
        let errno = i32::from_ne_bytes(buf);
        // Reap it now so it does not linger as a zombie.
        let _ = self.wait();
        Err(SpawnError::Exec {
            command: self.command.clone(),
            error: io::Error::from_raw_os_error(errno),
        })
    }

    /// Has the child ended? Reaps it if so.
    pub fn try_wait(&mut self) -> io::Result<Option<ExitStatus>> {
        self.waitpid(libc::WNOHANG)
    }

    /// Wait for the child to end.
    pub fn wait(&mut self) -> io::Result<ExitStatus> {
        loop {
            if let Some(status) = self.waitpid(0)? {
                return Ok(status);
            }
        }
    }

    /// Wait until the child stops (true) or ends (false; its status is kept).
    pub fn wait_stopped(&mut self) -> io::Result<bool> {
        if self.status.is_some() {
            return Ok(false);
        }
        let mut raw = 0;
        loop {
            // SAFETY: `raw` is a valid out-pointer for the duration of the call.
            let r = unsafe { libc::waitpid(self.pid, &mut raw, libc::WUNTRACED) };
            if r < 0 {
                let e = io::Error::last_os_error();
                if e.kind() == io::ErrorKind::Interrupted {
                    continue;
                }
                return Err(e);
            }
            if libc::WIFSTOPPED(raw) {
                return Ok(true);
            }
            self.status = Some(ExitStatus::from_wait_status(raw));
            return Ok(false);
        }
    }

    /// Let a stopped child go on (SIGCONT).
    pub fn resume(&self) -> io::Result<()> {
        if self.status.is_some() {
            return Ok(());
        }
        // SAFETY: kill has no memory-safety preconditions; `pid` is our unreaped child.
        if unsafe { libc::kill(self.pid, libc::SIGCONT) } != 0 {
            return Err(io::Error::last_os_error());
        }
        Ok(())
    }

    /// The executable the child runs (resolved in `PATH`).
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Send SIGKILL (if it has not been reaped yet).
    pub fn kill(&mut self) -> io::Result<()> {
        if self.status.is_some() {
            return Ok(());
        }
        // SAFETY: kill has no memory-safety preconditions; `pid` is our unreaped
        // child, so it cannot have been recycled for another process.
        if unsafe { libc::kill(self.pid, libc::SIGKILL) } != 0 {
            return Err(io::Error::last_os_error());
        }
        Ok(())
    }

    fn waitpid(&mut self, flags: libc::c_int) -> io::Result<Option<ExitStatus>> {
        if let Some(status) = self.status {
            return Ok(Some(status));
        }
        let mut raw = 0;
        loop {
            // SAFETY: `raw` is a valid out-pointer for the duration of the call.
            let r = unsafe { libc::waitpid(self.pid, &mut raw, flags) };
            if r < 0 {
                let e = io::Error::last_os_error();
                if e.kind() == io::ErrorKind::Interrupted {
                    continue;
                }
                return Err(e);
            }
            if r == 0 {
                return Ok(None);
            }
            let status = ExitStatus::from_wait_status(raw);
            self.status = Some(status);
            return Ok(Some(status));
        }
    }
}

impl Drop for Child {
    fn drop(&mut self) {
        if self.status.is_some() {
            return;
        }
        if self.gate.take().is_some() {
            // Never released: closing the gate makes it exit by itself.
        } else {
            let _ = self.kill();
        }
        let _ = self.wait();
    }
}

/// Resolve a command like execvp(3): a name containing `/` is used as is; any other
/// is looked up in `PATH` (default `/bin:/usr/bin`).
pub fn find_executable(name: &OsStr) -> io::Result<PathBuf> {
    if name.as_bytes().contains(&b'/') {
        let path = PathBuf::from(name);
        check_executable(&path)?;
        return Ok(path);
    }
    let search = std::env::var_os("PATH").unwrap_or_else(|| "/bin:/usr/bin".into());
    let mut first_error: Option<io::Error> = None;
    for dir in search.as_bytes().split(|&b| b == b':') {
        let dir = if dir.is_empty() { &b"."[..] } else { dir };
        let candidate = Path::new(OsStr::from_bytes(dir)).join(name);
        match check_executable(&candidate) {
            Ok(()) => return Ok(candidate),
            Err(e) if e.kind() == io::ErrorKind::NotFound => {}
            Err(e) => {
                first_error.get_or_insert(e);
            }
        }
    }
    Err(first_error.unwrap_or_else(|| io::Error::from_raw_os_error(libc::ENOENT)))
}

fn check_executable(path: &Path) -> io::Result<()> {
    let meta = std::fs::metadata(path)?;
    if meta.is_dir() {
        return Err(io::Error::from_raw_os_error(libc::EACCES));
    }
    let c = CString::new(path.as_os_str().as_bytes())
        .map_err(|_| io::Error::from_raw_os_error(libc::ENOENT))?;
    // SAFETY: `c` is a valid NUL-terminated string for the duration of the call.
    if unsafe { libc::access(c.as_ptr(), libc::X_OK) } != 0 {
        return Err(io::Error::last_os_error());
    }
    Ok(())
}

fn cstring(s: &OsStr) -> Result<CString, SpawnError> {
    CString::new(s.as_bytes()).map_err(|_| {
        SpawnError::Setup(io::Error::new(
            io::ErrorKind::InvalidInput,
            "argument contains a NUL byte",
        ))
    })
}

/// A pipe, both ends close-on-exec.
fn pipe() -> io::Result<(OwnedFd, OwnedFd)> {
    let mut fds = [0 as libc::c_int; 2];
    // SAFETY: `fds` has room for the two descriptors pipe2 writes.
    if unsafe { libc::pipe2(fds.as_mut_ptr(), libc::O_CLOEXEC) } != 0 {
        return Err(io::Error::last_os_error());
    }
    // SAFETY: pipe2 succeeded, so both descriptors are open and owned by nobody else.
    Ok(unsafe { (OwnedFd::from_raw_fd(fds[0]), OwnedFd::from_raw_fd(fds[1])) })
}

/// Does a process with this pid exist (and is it not a zombie)?
pub fn pid_exists(pid: i32) -> bool {
    if pid <= 0 {
        return false;
    }
    // SAFETY: signal 0 only checks for existence and permission.
    let alive = unsafe { libc::kill(pid, 0) } == 0
        || io::Error::last_os_error().raw_os_error() == Some(libc::EPERM);
    alive && !is_zombie(pid)
}

fn is_zombie(pid: i32) -> bool {
    // /proc/PID/stat: "pid (comm) S ..."; comm may contain ')' so take the last one.
    match std::fs::read(format!("/proc/{pid}/stat")) {
        Ok(stat) => match stat.iter().rposition(|&b| b == b')') {
            Some(i) => matches!(stat.get(i + 2), Some(b'Z') | Some(b'X')),
            None => false,
        },
        Err(_) => false,
    }
}

/// A pidfd (Linux 5.3+): readable once the process has exited. Lets the command
/// loop wake up for a `-p` process that is not its child.
#[derive(Debug)]
pub struct PidFd {
    fd: OwnedFd,
}

impl PidFd {
    pub fn open(pid: i32) -> io::Result<PidFd> {
        // SAFETY: pidfd_open takes a pid and flags and returns a new descriptor.
        let r = unsafe { libc::syscall(libc::SYS_pidfd_open, pid, 0) };
        if r < 0 {
            return Err(io::Error::last_os_error());
        }
        let fd = RawFd::try_from(r).map_err(|_| io::Error::from_raw_os_error(libc::EBADF))?;
        // SAFETY: the syscall returned a fresh descriptor that nothing else owns.
        Ok(PidFd {
            fd: unsafe { OwnedFd::from_raw_fd(fd) },
        })
    }

    /// Has the process exited?
    pub fn has_exited(&self) -> bool {
        let mut pfd = libc::pollfd {
            fd: self.fd.as_raw_fd(),
            events: libc::POLLIN,
            revents: 0,
        };
        // SAFETY: one valid pollfd, zero timeout.
        let r = unsafe { libc::poll(&mut pfd, 1, 0) };
        r > 0 && (pfd.revents & (libc::POLLIN | libc::POLLHUP)) != 0
    }
}

impl AsRawFd for PidFd {
    fn as_raw_fd(&self) -> RawFd {
        self.fd.as_raw_fd()
    }
}

/// A signal the command loop reacts to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Signal {
    Int,
    Term,
    Chld,
}

/// SIGINT, SIGTERM and SIGCHLD blocked in the calling thread (and in threads it
/// creates afterwards) and delivered through a non-blocking signalfd instead.
/// The mask stays blocked after drop: unblocking could deliver a pending SIGINT
/// with its default action while probes are being detached.
#[derive(Debug)]
pub struct SignalFd {
    fd: OwnedFd,
}

impl SignalFd {
    pub fn new() -> io::Result<SignalFd> {
        // SAFETY: the sigset is initialised by sigemptyset before any use, and
        // every pointer passed lives for the duration of its call.
        unsafe {
            let mut mask: libc::sigset_t = std::mem::zeroed();
            libc::sigemptyset(&mut mask);
            libc::sigaddset(&mut mask, libc::SIGINT);
            libc::sigaddset(&mut mask, libc::SIGTERM);
            libc::sigaddset(&mut mask, libc::SIGCHLD);
            let r = libc::pthread_sigmask(libc::SIG_BLOCK, &mask, std::ptr::null_mut());
            if r != 0 {
                return Err(io::Error::from_raw_os_error(r));
            }
            let fd = libc::signalfd(-1, &mask, libc::SFD_NONBLOCK | libc::SFD_CLOEXEC);
            if fd < 0 {
                return Err(io::Error::last_os_error());
            }
            Ok(SignalFd {
                fd: OwnedFd::from_raw_fd(fd),
            })
        }
    }

    /// The signals received since the last call, oldest first (empty if none).
    pub fn read(&self) -> io::Result<Vec<Signal>> {
        let mut out = Vec::new();
        loop {
            // SAFETY: signalfd_siginfo is plain data; all-zero is a valid value.
            let mut info: libc::signalfd_siginfo = unsafe { std::mem::zeroed() };
            let size = std::mem::size_of::<libc::signalfd_siginfo>();
            // SAFETY: reads at most `size` bytes into `info`, which is `size` bytes.
            let n = unsafe {
                libc::read(
                    self.fd.as_raw_fd(),
                    (&mut info as *mut libc::signalfd_siginfo).cast(),
                    size,
                )
            };
            if n < 0 {
                let e = io::Error::last_os_error();
                match e.kind() {
                    io::ErrorKind::WouldBlock => return Ok(out),
                    io::ErrorKind::Interrupted => continue,
                    _ => return Err(e),
                }
            }
            if n as usize != size {
                return Ok(out);
            }
            let signo = info.ssi_signo as libc::c_int;
            if signo == libc::SIGINT {
                out.push(Signal::Int);
            } else if signo == libc::SIGTERM {
                out.push(Signal::Term);
            } else if signo == libc::SIGCHLD {
                out.push(Signal::Chld);
            }
        }
    }
}

impl AsRawFd for SignalFd {
    fn as_raw_fd(&self) -> RawFd {
        self.fd.as_raw_fd()
    }
}

/// The current process's identity: the values of D's `$pid`, `$ppid`, `$uid`,
/// `$gid`, `$euid`, `$egid`, `$sid` and `$pgid` macro variables.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ProcessIds {
    pub pid: i64,
    pub ppid: i64,
    pub uid: i64,
    pub gid: i64,
    pub euid: i64,
    pub egid: i64,
    pub sid: i64,
    pub pgid: i64,
}

impl ProcessIds {
    pub fn current() -> ProcessIds {
        // SAFETY: these calls take no pointers and cannot fail for the calling
        // process (getsid(0)/getpgid(0) name ourselves).
        unsafe {
            ProcessIds {
                pid: i64::from(libc::getpid()),
                ppid: i64::from(libc::getppid()),
                uid: i64::from(libc::getuid()),
                gid: i64::from(libc::getgid()),
                euid: i64::from(libc::geteuid()),
                egid: i64::from(libc::getegid()),
                sid: i64::from(libc::getsid(0)),
                pgid: i64::from(libc::getpgid(0)),
            }
        }
    }
}

/// A signal's name as dtrace(1) prints it ("SIGKILL"), or its number.
pub fn signal_name(signo: i32) -> String {
    let name = match signo {
        libc::SIGHUP => "SIGHUP",
        libc::SIGINT => "SIGINT",
        libc::SIGQUIT => "SIGQUIT",
        libc::SIGILL => "SIGILL",
        libc::SIGTRAP => "SIGTRAP",
        libc::SIGABRT => "SIGABRT",
        libc::SIGBUS => "SIGBUS",
        libc::SIGFPE => "SIGFPE",
        libc::SIGKILL => "SIGKILL",
        libc::SIGUSR1 => "SIGUSR1",
        libc::SIGSEGV => "SIGSEGV",
        libc::SIGUSR2 => "SIGUSR2",
        libc::SIGPIPE => "SIGPIPE",
        libc::SIGALRM => "SIGALRM",
        libc::SIGTERM => "SIGTERM",
        libc::SIGCHLD => "SIGCHLD",
        libc::SIGCONT => "SIGCONT",
        libc::SIGSTOP => "SIGSTOP",
        libc::SIGTSTP => "SIGTSTP",
        libc::SIGTTIN => "SIGTTIN",
        libc::SIGTTOU => "SIGTTOU",
        libc::SIGURG => "SIGURG",
        libc::SIGXCPU => "SIGXCPU",
        libc::SIGXFSZ => "SIGXFSZ",
        libc::SIGVTALRM => "SIGVTALRM",
        libc::SIGPROF => "SIGPROF",
        libc::SIGWINCH => "SIGWINCH",
        libc::SIGIO => "SIGIO",
        libc::SIGPWR => "SIGPWR",
        libc::SIGSYS => "SIGSYS",
        _ => return format!("signal {signo}"),
    };
    name.to_string()
}

/// Let a stopped process go on (SIGCONT); a pid that is gone is no error.
pub fn resume_pid(pid: u32) {
    let Ok(pid) = i32::try_from(pid) else {
        return;
    };
    // SAFETY: kill has no memory-safety preconditions.
    unsafe {
        libc::kill(pid, libc::SIGCONT);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::{Duration, Instant};

    fn temp_path(tag: &str) -> PathBuf {
        std::env::temp_dir().join(format!("dtrace-sys-proc-{}-{tag}", std::process::id()))
    }

    #[test]
    fn true_exits_zero_after_release() {
        let mut child = spawn_gated(&["true"]).expect("spawn true");
        assert!(child.pid() > 0);
        child.release().expect("release");
        assert_eq!(child.wait().expect("wait"), ExitStatus::Exited(0));
    }

    #[test]
    fn exit_status_is_reported() {
        let mut child = spawn_gated(&["sh", "-c", "exit 3"]).expect("spawn sh");
        child.release().expect("release");
        assert_eq!(child.wait().expect("wait"), ExitStatus::Exited(3));
        // Reaped: later calls keep answering.
        assert_eq!(
            child.try_wait().expect("try_wait"),
            Some(ExitStatus::Exited(3))
        );
    }

    #[test]
    fn child_does_nothing_before_release() {
        let marker = temp_path("gate");
        let _ = std::fs::remove_file(&marker);
        let script = format!("echo ran > '{}'", marker.display());
        let mut child = spawn_gated(&["sh", "-c", script.as_str()]).expect("spawn");
        std::thread::sleep(Duration::from_millis(200));
        assert!(!marker.exists(), "the command ran before release");
        assert_eq!(child.try_wait().expect("try_wait"), None);
        child.release().expect("release");
        assert_eq!(child.wait().expect("wait"), ExitStatus::Exited(0));
        assert!(marker.exists(), "the command did not run after release");
        let _ = std::fs::remove_file(&marker);
    }

    #[test]
    fn dropping_an_unreleased_child_never_runs_it() {
        let marker = temp_path("dropped");
        let _ = std::fs::remove_file(&marker);
        let script = format!("echo ran > '{}'", marker.display());
        let child = spawn_gated(&["sh", "-c", script.as_str()]).expect("spawn");
        let pid = child.pid();
        drop(child);
        assert!(!pid_exists(pid));
        assert!(!marker.exists());
    }

    #[test]
    fn missing_command_is_reported_before_fork() {
        let err = spawn_gated(&["/nonexistent/dtrace-no-such-command"]).unwrap_err();
        assert_eq!(
            err.to_string(),
            "failed to execute /nonexistent/dtrace-no-such-command: No such file or directory"
        );
        let err = spawn_gated(&["dtrace-no-such-command-in-path"]).unwrap_err();
        assert!(
            err.to_string().ends_with("No such file or directory"),
            "{err}"
        );
        assert!(matches!(
            spawn_gated::<&str>(&[]),
            Err(SpawnError::EmptyCommand)
        ));
    }

    #[test]
    fn kill_reports_the_signal() {
        let mut child = spawn_gated(&["sleep", "30"]).expect("spawn sleep");
        child.release().expect("release");
        child.kill().expect("kill");
        assert_eq!(
            child.wait().expect("wait"),
            ExitStatus::Signaled(libc::SIGKILL)
        );
        assert_eq!(signal_name(libc::SIGKILL), "SIGKILL");
    }

    #[test]
    fn pid_exists_and_pidfd() {
        assert!(pid_exists(std::process::id() as i32));
        assert!(!pid_exists(0));
        assert!(!pid_exists(-1));
        let mut child = spawn_gated(&["sleep", "30"]).expect("spawn sleep");
        child.release().expect("release");
        let pidfd = match PidFd::open(child.pid()) {
            Ok(fd) => Some(fd),
            Err(e) if e.raw_os_error() == Some(libc::ENOSYS) => None,
            Err(e) => panic!("pidfd_open: {e}"),
        };
        assert!(pid_exists(child.pid()));
        if let Some(fd) = &pidfd {
            assert!(!fd.has_exited());
        }
        child.kill().expect("kill");
        let deadline = Instant::now() + Duration::from_secs(5);
        while pid_exists(child.pid()) && Instant::now() < deadline {
            std::thread::sleep(Duration::from_millis(10));
        }
        assert!(!pid_exists(child.pid()), "a zombie counts as gone");
        if let Some(fd) = &pidfd {
            assert!(fd.has_exited());
        }
        let _ = child.wait();
    }

    #[test]
    fn signalfd_reads_thread_directed_signals() {
        let sfd = SignalFd::new().expect("signalfd");
        assert_eq!(sfd.read().expect("read"), Vec::<Signal>::new());
        // SAFETY: raise(SIGCHLD) sends a harmless signal to this thread, where it
        // is blocked and so queued for the signalfd.
        assert_eq!(unsafe { libc::raise(libc::SIGCHLD) }, 0);
        assert_eq!(sfd.read().expect("read"), vec![Signal::Chld]);
        assert_eq!(sfd.read().expect("read"), Vec::<Signal>::new());
    }

    #[test]
    fn process_ids() {
        let ids = ProcessIds::current();
        assert_eq!(ids.pid, i64::from(std::process::id()));
        assert!(ids.ppid > 0);
        assert!(ids.pgid > 0);
    }

    #[test]
    fn strerror_drops_the_os_error_suffix() {
        let e = io::Error::from_raw_os_error(libc::ENOENT);
        assert_eq!(strerror(&e), "No such file or directory");
    }
}
