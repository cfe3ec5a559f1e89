//! The `dtrace` provider: BEGIN, END and ERROR.

use crate::{ProbeTemplate, Provider};
use dtrace_sema::{ArgDesc, ProbeKind};

pub struct DtraceProvider;

impl Provider for DtraceProvider {
    fn name(&self) -> &'static str {
        "dtrace"
    }

    fn attributes(&self) -> crate::ProviderAttrs {
        crate::stability::DTRACE
    }

    fn list(&self) -> Vec<ProbeTemplate> {
        let mk = |name: &str, kind| ProbeTemplate {
            module: Default::default(),
            function: Default::default(),
            name: name.into(),
            kind,
            args: Vec::new(),
            fields: Vec::new(),
        };
        let mut error = mk("ERROR", ProbeKind::Error);
        // arg1: EPID, arg2: clause index, arg3: action index, arg4: fault, arg5: address.
        error.args = ArgDesc::natives(&["uint64_t"; 6]);
        vec![
            mk("BEGIN", ProbeKind::Begin),
            mk("END", ProbeKind::End),
            error,
        ]
    }
}
