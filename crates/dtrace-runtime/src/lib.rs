//! dtrace-runtime
