//! Attaching loaded programs (filled in with the kernel layer).
