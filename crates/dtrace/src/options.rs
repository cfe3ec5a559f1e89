//! `-x name[=value]` options and their defaults (as dtrace(1) documents them).

/// An unknown option or a bad value.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OptError(pub String);

/// Options the library understands. Sizes are in bytes, rates in Hz.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Options {
    pub bufsize: u64,
    pub aggsize: u64,
    pub dynvarsize: u64,
    pub strsize: u64,
    pub switchrate_hz: u64,
    pub aggrate_hz: u64,
    pub quiet: bool,
    pub flowindent: bool,
    pub errtags: bool,
    pub verbose: bool,
    pub zdefs: bool,
    pub defaultargs: bool,
    pub aggsortkey: bool,
    pub aggsortrev: bool,
    pub aggsortpos: Option<u32>,
    pub aggsortkeypos: Option<u32>,
}

impl Default for Options {
    fn default() -> Options {
        Options {
            bufsize: 4 << 20,
            aggsize: 4 << 20,
            dynvarsize: 1 << 20,
            strsize: 256,
            switchrate_hz: 1,
            aggrate_hz: 1,
            quiet: false,
            flowindent: false,
            errtags: false,
            verbose: false,
            zdefs: false,
            defaultargs: false,
            aggsortkey: false,
            aggsortrev: false,
            aggsortpos: None,
            aggsortkeypos: None,
        }
    }
}
