//! Consumer options: the values of dtrace's options that change what the
//! consumer prints. The option table (names, parsing) is the facade's
//! (`dtrace::options`); this is only what it hands the consumer.

/// Options that affect output.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ConsumerOptions {
    /// `quiet` (`-q`): print only explicitly traced data; no probe lines.
    pub quiet: bool,
    /// `aggsortkey`: sort aggregation rows by key instead of by value.
    pub aggsortkey: bool,
    /// `aggsortrev`: reverse the sort order.
    pub aggsortrev: bool,
    /// `aggsortpos`: in a printa of several aggregations, which one's value sorts.
    pub aggsortpos: u32,
    /// `aggsortkeypos`: which key (0-based) is compared first.
    pub aggsortkeypos: u32,
    /// `aggpack`: quantize() and lquantize() print packed, one line per key.
    pub aggpack: bool,
    /// `aggzoom`: distribution bars scale to the largest bucket, not the total.
    pub aggzoom: bool,
    /// `aggpercpu`: each row also shows every CPU's own value (`[CPU n]`).
    pub aggpercpu: bool,
    /// Packed histograms may use UTF-8 block characters (the terminal is not
    /// one dtrace knows to be ASCII-only).
    pub utf8: bool,
    /// `rawbytes`: print traced byte arrays as hex dumps even when they look like strings.
    pub rawbytes: bool,
    /// `strsize`: with `rawbytes`, a traced string is dumped as its `strsize + 1`
    /// bytes (the string, then NULs).
    pub strsize: u32,
    /// `stackindent`: spaces before each stack frame (dtrace's default 14 when None).
    pub stackindent: Option<u32>,
    /// dtrace(1)'s testing mode (`_DTRACE_TESTING` in the environment): the default
    /// per-probe output is `FUNCTION:NAME` alone (`%32s`), without the CPU and ID columns.
    pub testing: bool,
    /// `flowindent` (`-F`): probe lines show function entry and return as an
    /// indented flow, also under `quiet`.
    pub flowindent: bool,
    /// `noresolve`: user addresses print as `module:0xoffset`, not as symbols.
    pub noresolve: bool,
    /// `droptags`: drop messages carry their `DTRACEDROP_*` tag.
    pub droptags: bool,
    /// `aggfmt=folded`: stack-keyed aggregations print as folded stacks.
    pub folded: bool,
    /// `printsize`: the most bytes of a value `print()` shows (None: all).
    pub printsize: Option<u32>,
}
