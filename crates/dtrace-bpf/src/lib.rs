//! dtrace-bpf
