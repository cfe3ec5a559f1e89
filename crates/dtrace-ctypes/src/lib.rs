//! dtrace-ctypes
