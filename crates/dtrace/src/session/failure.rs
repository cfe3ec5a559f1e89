//! How a runtime failure is reported: as dtrace(1) reports it.

use crate::ExecError;
use dtrace_codegen::desc::ProbeName;
use dtrace_runtime::RuntimeError;
use std::collections::BTreeMap;

/// A runtime failure as dtrace(1) reports it. A program the kernel refused
/// is reported as DTrace reports it: the verifier's log, each line after
/// `BPF: ` (or, when `bpflogsize` cut it short, that it is not shown), then
/// `could not enable tracing: BPF program load for '<probe>' failed: <errno>`;
/// which clause the rejected instruction is in is the `-x verbose` detail.
pub(super) fn exec_error(e: RuntimeError) -> ExecError {
    load_error(e, &Default::default())
}

/// [`exec_error`], naming the probe a refused program was loaded for from
/// the program's probe names.
pub(super) fn load_error(e: RuntimeError, names: &BTreeMap<u32, ProbeName>) -> ExecError {
    match &e {
        RuntimeError::Load {
            program,
            probe_id,
            errno,
            message: reason,
            log,
            log_incomplete,
            ..
        } => {
            let mut message = String::new();
            match (log_incomplete, log) {
                (Some(size), _) => message.push_str(&format!(
                    "BPF verifier log is incomplete and is not reported.\n\
                     Set DTrace option 'bpflogsize' to some greater size for more output.\n\
                     (Current size is {size}.)\n"
                )),
                (None, Some(log)) => {
                    for line in log.lines() {
                        message.push_str("BPF: ");
                        message.push_str(line);
                        message.push('\n');
                    }
                }
                (None, None) => {}
            }
            let probe = probe_id
                .and_then(|id| names.get(&id))
                .map(|n| format!("{}:{}:{}:{}", n.provider, n.module, n.function, n.name))
                .unwrap_or_else(|| program.clone());
            let why = errno.map_or_else(|| reason.clone(), |e| e.to_string());
            message.push_str(&format!(
                "dtrace: could not enable tracing: BPF program load for '{probe}' failed: {why}"
            ));
            ExecError {
                message,
                detail: e.rejection_hint().map(|h| format!("dtrace: {h}")),
            }
        }
        RuntimeError::Loop { log, .. } => ExecError {
            message: format!("dtrace: {e}"),
            detail: log.clone(),
        },
        _ => ExecError {
            message: format!("dtrace: {e}"),
            detail: None,
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rejection(log: Option<&str>, incomplete: Option<usize>) -> RuntimeError {
        RuntimeError::Load {
            program: "dtrace_begin".into(),
            probe_id: Some(1),
            // EFAULT: the verifier's errno when it gives up on a jump sequence.
            errno: Some(dtrace_sys::Errno(14)),
            clause: Some(0),
            message: "The sequence of 8193 jumps is too complex.".into(),
            log: log.map(str::to_string),
            log_incomplete: incomplete,
        }
    }

    fn names() -> BTreeMap<u32, ProbeName> {
        BTreeMap::from([(
            1,
            ProbeName {
                provider: "dtrace".into(),
                module: String::new(),
                function: String::new(),
                name: "BEGIN".into(),
            },
        )])
    }

    #[test]
    fn a_rejection_shows_the_log_then_the_probe() {
        let e = load_error(
            rejection(Some("0: (b7) r0 = 0\n\nthe reason\n"), None),
            &names(),
        );
        assert_eq!(
            e.message,
            "BPF: 0: (b7) r0 = 0\nBPF: \nBPF: the reason\n\
             dtrace: could not enable tracing: BPF program load for 'dtrace:::BEGIN' \
             failed: Bad address"
        );
        assert_eq!(
            e.detail.as_deref(),
            Some(
                "dtrace: the BPF verifier rejected clause 1 (program dtrace_begin): \
                 The sequence of 8193 jumps is too complex."
            )
        );
    }

    #[test]
    fn an_incomplete_log_is_not_shown() {
        let e = load_error(rejection(Some("the end"), Some(200)), &names());
        assert_eq!(
            e.message,
            "BPF verifier log is incomplete and is not reported.\n\
             Set DTrace option 'bpflogsize' to some greater size for more output.\n\
             (Current size is 200.)\n\
             dtrace: could not enable tracing: BPF program load for 'dtrace:::BEGIN' \
             failed: Bad address"
        );
    }

    #[test]
    fn without_probe_names_the_program_is_named() {
        let e = exec_error(rejection(None, None));
        assert_eq!(
            e.message,
            "dtrace: could not enable tracing: BPF program load for 'dtrace_begin' \
             failed: Bad address"
        );
    }
}
