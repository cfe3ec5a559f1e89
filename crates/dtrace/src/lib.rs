//! dtrace
