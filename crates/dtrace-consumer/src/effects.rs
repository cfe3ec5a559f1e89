//! The consumer's side effects on the world: `system()` runs a shell command,
//! `freopen()` redirects output to a file, `ftruncate()` empties it. These are
//! ordinary process and file operations (no kernel tracing calls), kept apart
//! from the formatting code.

use crate::consume::ConsumeError;
use std::fs::{File, OpenOptions};
use std::io::{Seek, SeekFrom, Write};
use std::os::unix::ffi::OsStrExt;
use std::process::Command;

/// `system(cmd)`: runs `cmd` with `/bin/sh -c`, its output on dtrace's own
/// standard output and error, and waits for it. A command that cannot be run
/// is reported on `errors`; tracing goes on.
pub fn system(cmd: &[u8], errors: &mut dyn Write) -> Result<(), ConsumeError> {
    // The command's bytes as they are (a D string need not be UTF-8).
    let text = String::from_utf8_lossy(cmd).into_owned();
    let raw = std::ffi::OsStr::from_bytes(cmd);
    if let Err(e) = Command::new("/bin/sh").arg("-c").arg(raw).status() {
        writeln!(errors, "dtrace: failed to run system(\"{text}\"): {e}")?;
    }
    Ok(())
}

/// `freopen(path)`: the file output goes to from now on, opened for appending
/// (created if missing); `""` goes back to the original output. A file that
/// cannot be opened is reported and output stays where it was.
pub fn freopen(
    path: &[u8],
    current: Option<(String, File)>,
    errors: &mut dyn Write,
) -> Result<Option<(String, File)>, ConsumeError> {
    if let Some((_, f)) = &current {
        let mut f = f;
        f.flush()?;
    }
    if path.is_empty() {
        return Ok(None);
    }
    let name = String::from_utf8_lossy(path).into_owned();
    match OpenOptions::new().create(true).append(true).open(&name) {
        Ok(f) => Ok(Some((name, f))),
        Err(e) => {
            writeln!(errors, "dtrace: failed to freopen \"{name}\": {e}")?;
            Ok(current)
        }
    }
}

/// `ftruncate()`: empties the output file.
pub fn truncate(f: &mut File) -> Result<(), ConsumeError> {
    f.set_len(0)?;
    f.seek(SeekFrom::Start(0))?;
    Ok(())
}
