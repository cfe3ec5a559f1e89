//! tracefs: where the kernel lists its tracepoints and their ids.

use std::ffi::CString;
use std::fmt;
use std::path::{Path, PathBuf};

/// tracefs errors.
#[derive(Debug)]
pub enum TracefsError {
    /// No tracefs mounted and we could not mount one.
    NotFound {
        mount_errno: Option<i32>,
    },
    Io {
        path: PathBuf,
        err: std::io::Error,
    },
    /// A subsystem or event name that is not a plain file name.
    BadName(String),
    BadId {
        path: PathBuf,
        text: String,
    },
}

impl fmt::Display for TracefsError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            TracefsError::NotFound { mount_errno: None } => f.write_str(
                "tracefs is not mounted (try: mount -t tracefs nodev /sys/kernel/tracing)",
            ),
            TracefsError::NotFound {
                mount_errno: Some(e),
            } => write!(
                f,
                "tracefs is not mounted and mounting it failed: {}",
                crate::sys::Errno(*e)
            ),
            TracefsError::Io { path, err } => write!(f, "{}: {err}", path.display()),
            TracefsError::BadName(n) => write!(f, "invalid tracepoint name {n:?}"),
            TracefsError::BadId { path, text } => {
                write!(f, "{}: not an event id: {text:?}", path.display())
            }
        }
    }
}

impl std::error::Error for TracefsError {}

const TRACING: &str = "/sys/kernel/tracing";
const DEBUG_TRACING: &str = "/sys/kernel/debug/tracing";

/// A mounted tracefs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Tracefs {
    root: PathBuf,
}

/// Mount points of tracefs filesystems listed in `/proc/mounts` text.
pub fn tracefs_mounts(mounts: &str) -> Vec<PathBuf> {
    mounts
        .lines()
        .filter_map(|l| {
            let mut it = l.split_whitespace();
            let (_dev, dir, fstype) = (it.next()?, it.next()?, it.next()?);
            (fstype == "tracefs").then(|| PathBuf::from(dir.replace("\\040", " ")))
        })
        .collect()
}

impl Tracefs {
    /// A tracefs at a known root (for tests, or a caller that found it).
    pub fn at(root: impl Into<PathBuf>) -> Tracefs {
        Tracefs { root: root.into() }
    }

    /// Find tracefs; if none is mounted and we are root, mount it at
    /// `/sys/kernel/tracing`.
    pub fn find() -> Result<Tracefs, TracefsError> {
        if let Ok(m) = std::fs::read_to_string("/proc/mounts") {
            let mounts = tracefs_mounts(&m);
            let pick = mounts
                .iter()
                .find(|p| p.as_path() == Path::new(TRACING))
                .or_else(|| mounts.first());
            if let Some(p) = pick {
                return Ok(Tracefs::at(p));
            }
        }
        if Path::new(DEBUG_TRACING).join("events").is_dir() {
            return Ok(Tracefs::at(DEBUG_TRACING));
        }
        // SAFETY: geteuid has no preconditions.
        if unsafe { libc::geteuid() } != 0 {
            return Err(TracefsError::NotFound { mount_errno: None });
        }
        mount_tracefs(TRACING)?;
        Ok(Tracefs::at(TRACING))
    }

    pub fn root(&self) -> &Path {
        &self.root
    }

    fn event_dir(&self, system: &str, event: &str) -> Result<PathBuf, TracefsError> {
        for n in [system, event] {
            if n.is_empty() || n.contains('/') || n == "." || n == ".." || n.contains('\0') {
                return Err(TracefsError::BadName(n.to_string()));
            }
        }
        Ok(self.root.join("events").join(system).join(event))
    }

    /// The groups (systems) that have an event named `event`, without reading
    /// the whole event list: one directory listing and a lookup per group.
    pub fn groups_with_event(&self, event: &str) -> Vec<String> {
        if event.is_empty() || event.contains('/') || event == "." || event == ".." {
            return Vec::new();
        }
        let Ok(dir) = std::fs::read_dir(self.root.join("events")) else {
            return Vec::new();
        };
        let mut groups: Vec<String> = dir
            .filter_map(Result::ok)
            .filter(|e| e.path().join(event).join("id").exists())
            .filter_map(|e| e.file_name().into_string().ok())
            .collect();
        groups.sort();
        groups
    }

    /// Whether tracepoint `system:event` exists.
    pub fn has_event(&self, system: &str, event: &str) -> bool {
        self.event_dir(system, event)
            .map(|d| d.join("id").exists())
            .unwrap_or(false)
    }

    /// Read a tracefs file. Its size reads as 0, so a buffer is given up front:
    /// otherwise the read proceeds 32 bytes per system call.
    fn read(&self, path: PathBuf) -> Result<String, TracefsError> {
        use std::io::Read;
        let mut text = String::with_capacity(128 << 10);
        std::fs::File::open(&path)
            .and_then(|mut f| f.read_to_string(&mut text))
            .map(|_| text)
            .map_err(|err| TracefsError::Io { path, err })
    }

    /// The perf event id of tracepoint `system:event`.
    pub fn event_id(&self, system: &str, event: &str) -> Result<u32, TracefsError> {
        let path = self.event_dir(system, event)?.join("id");
        let text = self.read(path.clone())?;
        text.trim()
            .parse::<u32>()
            .map_err(|_| TracefsError::BadId { path, text })
    }

    /// The `format` file of tracepoint `system:event` (field offsets and types).
    pub fn event_format(&self, system: &str, event: &str) -> Result<String, TracefsError> {
        let path = self.event_dir(system, event)?.join("format");
        self.read(path)
    }

    /// Every tracepoint as `(system, event)`, from `available_events`.
    pub fn available_events(&self) -> Result<Vec<(String, String)>, TracefsError> {
        let text = self.read(self.root.join("available_events"))?;
        Ok(parse_available_events(&text))
    }
}

impl Tracefs {
    /// Every function ftrace can trace, as `(function, module)` (module `None`
    /// for the kernel itself), from `available_filter_functions`.
    pub fn traceable_functions(&self) -> Result<Vec<(String, Option<String>)>, TracefsError> {
        Ok(parse_filter_functions(&self.filter_functions_text()?))
    }

    /// The text of `available_filter_functions`, to walk with
    /// [`filter_functions`] without an allocation per function.
    pub fn filter_functions_text(&self) -> Result<String, TracefsError> {
        self.read(self.root.join("available_filter_functions"))
    }
}

/// `available_filter_functions` lines (`name` or `name [module]`) as
/// `(name, module)`, borrowed from `text`.
pub fn filter_functions(text: &str) -> impl Iterator<Item = (&str, Option<&str>)> {
    text.lines().filter_map(|l| {
        let mut it = l.split_ascii_whitespace();
        let name = it.next()?;
        let module = it
            .next()
            .map(|m| m.trim_start_matches('[').trim_end_matches(']'));
        Some((name, module))
    })
}

/// Parse `available_filter_functions` lines: `name` or `name [module]`.
pub fn parse_filter_functions(text: &str) -> Vec<(String, Option<String>)> {
    filter_functions(text)
        .map(|(name, module)| (name.to_string(), module.map(str::to_string)))
        .collect()
}

/// Parse `available_events` lines of the form `system:event`.
pub fn parse_available_events(text: &str) -> Vec<(String, String)> {
    text.lines()
        .filter_map(|l| {
            let (s, e) = l.trim().split_once(':')?;
            (!s.is_empty() && !e.is_empty()).then(|| (s.to_string(), e.to_string()))
        })
        .collect()
}

fn mount_tracefs(dir: &str) -> Result<(), TracefsError> {
    let err = |e: i32| TracefsError::NotFound {
        mount_errno: Some(e),
    };
    let (Ok(src), Ok(target), Ok(fstype)) = (
        CString::new("tracefs"),
        CString::new(dir),
        CString::new("tracefs"),
    ) else {
        return Err(err(libc::EINVAL));
    };
    // SAFETY: all three are NUL-terminated strings alive for the call; no data.
    let r = unsafe {
        libc::mount(
            src.as_ptr(),
            target.as_ptr(),
            fstype.as_ptr(),
            0,
            std::ptr::null(),
        )
    };
    if r < 0 {
        return Err(err(crate::sys::Errno::last().0));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_tracefs_in_mounts() {
        let m = "proc /proc proc rw 0 0\nnone /sys/kernel/tracing tracefs rw 0 0\n\
                 debugfs /sys/kernel/debug debugfs rw 0 0\n";
        assert_eq!(
            tracefs_mounts(m),
            vec![PathBuf::from("/sys/kernel/tracing")]
        );
        assert!(tracefs_mounts("proc /proc proc rw 0 0\n").is_empty());
    }

    #[test]
    fn parses_events() {
        let v = parse_available_events("syscalls:sys_enter_read\nsched:sched_switch\n\nbogus\n");
        assert_eq!(
            v,
            vec![
                ("syscalls".to_string(), "sys_enter_read".to_string()),
                ("sched".to_string(), "sched_switch".to_string())
            ]
        );
    }

    #[test]
    fn rejects_path_tricks() {
        let t = Tracefs::at("/nonexistent");
        assert!(matches!(
            t.event_id("..", "x"),
            Err(TracefsError::BadName(_))
        ));
        assert!(matches!(
            t.event_id("a/b", "x"),
            Err(TracefsError::BadName(_))
        ));
        assert!(matches!(t.event_id("a", ""), Err(TracefsError::BadName(_))));
    }

    #[test]
    fn reads_ids_from_a_fake_tree() {
        let dir = std::env::temp_dir().join(format!("dtrace-tracefs-{}", std::process::id()));
        let ev = dir.join("events/sched/sched_switch");
        if std::fs::create_dir_all(&ev).is_err() {
            return;
        }
        let _ = std::fs::write(ev.join("id"), "316\n");
        let _ = std::fs::write(dir.join("available_events"), "sched:sched_switch\n");
        let t = Tracefs::at(&dir);
        assert_eq!(t.event_id("sched", "sched_switch").ok(), Some(316));
        assert_eq!(t.available_events().map(|v| v.len()).ok(), Some(1));
        let _ = std::fs::remove_dir_all(&dir);
    }
}
