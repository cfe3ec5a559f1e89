//! dtrace-consumer
