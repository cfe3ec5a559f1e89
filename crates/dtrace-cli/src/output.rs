//! Where traced data goes: standard output, or the `-o` file (appended to, as
//! dtrace(1) opens it with mode "a"). Buffered, flushed after every consume step.
//! The first write error is remembered so that a closed pipe (`dtrace -l | head`)
//! ends quietly instead of as a library error.

use std::fs::{File, OpenOptions};
use std::io::{self, BufWriter, Stdout, Write};

enum Sink {
    Stdout(BufWriter<Stdout>),
    File(BufWriter<File>),
}

pub struct Output {
    sink: Sink,
    /// For messages: the file name, or `<stdout>`.
    name: String,
    error: Option<io::Error>,
}

impl Output {
    /// Standard output, or `path` opened for appending (created if missing).
    /// The error is a complete `dtrace: ...` line.
    pub fn open(path: Option<&str>) -> Result<Output, String> {
        match path {
            None => Ok(Output {
                sink: Sink::Stdout(BufWriter::new(io::stdout())),
                name: "<stdout>".to_string(),
                error: None,
            }),
            Some(p) => {
                let file = OpenOptions::new()
                    .append(true)
                    .create(true)
                    .open(p)
                    .map_err(|e| {
                        format!(
                            "dtrace: failed to open output file '{p}': {}",
                            dtrace_sys::proc::strerror(&e)
                        )
                    })?;
                Ok(Output {
                    sink: Sink::File(BufWriter::new(file)),
                    name: p.to_string(),
                    error: None,
                })
            }
        }
    }

    /// The first write error, as dtrace reports it; `Ok(())` if none or if the
    /// reader went away (a broken pipe ends dtrace quietly).
    pub fn check(&mut self) -> Result<(), String> {
        let _ = self.flush();
        match &self.error {
            None => Ok(()),
            Some(e) if e.kind() == io::ErrorKind::BrokenPipe => Ok(()),
            Some(e) => Err(format!(
                "dtrace: failed to write to {}: {}",
                self.name,
                dtrace_sys::proc::strerror(e)
            )),
        }
    }

    /// Has the reader gone away?
    pub fn broken_pipe(&self) -> bool {
        matches!(&self.error, Some(e) if e.kind() == io::ErrorKind::BrokenPipe)
    }

    fn note<T>(&mut self, r: io::Result<T>) -> io::Result<T> {
        if let Err(e) = &r {
            if self.error.is_none() {
                self.error = Some(io::Error::new(e.kind(), e.to_string()));
            }
        }
        r
    }
}

impl Write for Output {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        let r = match &mut self.sink {
            Sink::Stdout(w) => w.write(buf),
            Sink::File(w) => w.write(buf),
        };
        self.note(r)
    }

    fn flush(&mut self) -> io::Result<()> {
        let r = match &mut self.sink {
            Sink::Stdout(w) => w.flush(),
            Sink::File(w) => w.flush(),
        };
        self.note(r)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn output_file_is_appended_to() {
        let path = std::env::temp_dir().join(format!("dtrace-cli-out-{}", std::process::id()));
        let p = path.to_string_lossy().into_owned();
        let _ = std::fs::remove_file(&path);
        for line in ["one\n", "two\n"] {
            let mut out = Output::open(Some(&p)).expect("open");
            out.write_all(line.as_bytes()).expect("write");
            out.check().expect("check");
        }
        assert_eq!(std::fs::read_to_string(&path).expect("read"), "one\ntwo\n");
        let _ = std::fs::remove_file(&path);
    }

    #[test]
    fn unopenable_output_file() {
        let e = Output::open(Some("/nonexistent/dir/out"))
            .err()
            .expect("error");
        assert_eq!(
            e,
            "dtrace: failed to open output file '/nonexistent/dir/out': No such file or directory"
        );
    }
}
