//! dtrace-sys
