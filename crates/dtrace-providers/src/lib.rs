//! dtrace-providers
