//! Compile options: sizes that shape the generated maps and values, and the kernel
//! structure offsets the lead fills from BTF.

/// Offsets inside kernel structures, taken from BTF by the caller.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct KernelOffsets {
    /// `offsetof(struct task_struct, real_parent)`.
    pub task_real_parent: u32,
    /// `offsetof(struct task_struct, tgid)`.
    pub task_tgid: u32,
    /// `offsetof(struct task_struct, exit_code)` (`proc:::exit`'s reason).
    pub task_exit_code: u32,
    /// `offsetof(struct task_struct, signal)`.
    pub task_signal: u32,
    /// `offsetof(struct signal_struct, group_exit_code)`.
    pub signal_group_exit_code: u32,
}

impl Default for KernelOffsets {
    /// Offsets of a typical x86_64 6.x kernel; only a fallback for tests.
    fn default() -> KernelOffsets {
        KernelOffsets {
            task_real_parent: 2456,
            task_tgid: 2444,
            task_exit_code: 1164,
            task_signal: 1848,
            signal_group_exit_code: 96,
        }
    }
}

/// Options of one compilation (`-x strsize=...` and friends).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CompileOptions {
    /// Maximum string length (`strsize`, default 256): as in DTrace for Linux, a
    /// string holds at most `strsize` bytes before its NUL (`strlen` of a longer
    /// literal is `strsize`).
    pub strsize: u32,
    /// Bytes of scratch space each clause may allocate (`scratchsize`, default 256).
    pub scratchsize: u32,
    /// Aggregation space in bytes (`aggsize`): as in DTrace for Linux, each
    /// CPU's aggregations hold `aggsize / (largest key + largest value)` entries.
    pub aggsize: u32,
    /// Dynamic-variable space in bytes (`dynvarsize`): as in DTrace for Linux,
    /// `dynvarsize / (largest key tuple + largest value)` thread-locals and
    /// associative-array elements may live at once.
    pub dynvarsize: u32,
    /// `-x cpu=N`: trace only on this CPU (BEGIN and END are not probes of a CPU).
    pub only_cpu: Option<u32>,
    /// The most keys a tuple may have (`tregs`, libdtrace's tuple registers).
    pub tregs: u32,
    /// Number of speculation buffers (`nspec`): speculation IDs are 1..=nspec.
    pub nspec: u32,
    /// Bytes of records one speculation may hold before its drops (`specsize`).
    pub specsize: u32,
    /// Ring-buffer size in bytes (`bufsize`); a power of two, at least one page.
    pub bufsize: u32,
    /// One CPU's principal buffer (`bufsize` itself): what BEGIN or END, run
    /// on one CPU while the consumer waits, may leave unread in the ring.
    pub principal_size: u32,
    /// Kernel structure offsets (from BTF).
    pub kernel: KernelOffsets,
    /// Number of entries of the syscall-number tables (syscall numbers must be below it).
    pub max_syscalls: u32,
    /// Sources of the D libraries (`SourceKind::Library`): only their code may call
    /// the compiler's intrinsics (`__dt_*` subroutines).
    pub library_sources: Vec<dtrace_syntax::SourceId>,
    /// Frames `stack()` records when not given a count (`stackframes`).
    pub stackframes: u32,
    /// Frames `ustack()` records when not given a count (`ustackframes`).
    pub ustackframes: u32,
    /// Frames `jstack()` records when not given a count (`jstackframes`).
    pub jstackframes: u32,
    /// The most frames a user stack may have (`maxframes`).
    pub maxframes: u32,
    /// Bytes of user stack a traced `ustack()` copies for unwinding (`ustackbytes`).
    pub ustackbytes: u32,
    /// Attach kernel-function probes (fbt) with kprobes rather than fentry
    /// (set when the kernel refuses fentry but has kprobes).
    pub kprobes: bool,
    /// CPU ids are below this (the highest possible CPU plus one): the
    /// aggregations keep one value per CPU id.
    pub cpus: u32,
}

impl Default for CompileOptions {
    fn default() -> CompileOptions {
        CompileOptions {
            strsize: 256,
            scratchsize: 256,
            aggsize: 4 << 20,
            dynvarsize: 1 << 20,
            tregs: 8,
            only_cpu: None,
            nspec: 1,
            specsize: 32 << 10,
            bufsize: 4 << 20,
            principal_size: 4 << 20,
            kernel: KernelOffsets::default(),
            max_syscalls: 1024,
            library_sources: Vec::new(),
            stackframes: crate::actions_ctl::DEFAULT_STACK_FRAMES,
            ustackframes: crate::actions_ctl::DEFAULT_USTACK_FRAMES,
            jstackframes: crate::actions_ctl::DEFAULT_JSTACK_FRAMES,
            ustackbytes: crate::actions_ctl::DEFAULT_USTACK_BYTES,
            maxframes: crate::actions_ctl::DEFAULT_MAX_FRAMES,
            kprobes: false,
            cpus: 1,
        }
    }
}

impl CompileOptions {
    /// The most frames a stack gets: `maxframes` (which defaults to
    /// `kernel.perf_event_max_stack`), within [`crate::MAX_STACK_FRAMES`].
    pub fn frame_cap(&self) -> u32 {
        self.maxframes
            .clamp(1, crate::actions_ctl::MAX_STACK_FRAMES)
    }

    /// Pages of user stack a traced `ustack()` (or a recorded `ustackdepth`)
    /// copies for unwinding: enough for `ustackbytes` above the stack
    /// pointer, plus the page holding it; 0 when `ustackbytes` is 0.
    pub fn ustack_pages(&self) -> u32 {
        match self
            .ustackbytes
            .div_ceil(4096)
            .min(crate::actions_ctl::MAX_USTACK_PAGES)
        {
            0 => 0,
            n => n + 1,
        }
    }

    /// The string buffer size actually used: `strsize` plus the NUL, rounded up
    /// to 8.
    pub fn str_cap(&self) -> u32 {
        let s = self.strsize.clamp(1, 1 << 16) + 1;
        s.div_ceil(8) * 8
    }

    /// Bytes a `string` member of a D struct or union takes: `strsize`, unrounded
    /// (alignment 1, as a `char` array).
    pub fn str_member_size(&self) -> u32 {
        self.strsize.clamp(1, 1 << 16)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn frame_cap_follows_maxframes_within_the_record_limit() {
        let mut o = CompileOptions::default();
        assert_eq!(o.frame_cap(), crate::DEFAULT_MAX_FRAMES);
        o.maxframes = 200;
        assert_eq!(o.frame_cap(), 200);
        o.maxframes = 100_000;
        assert_eq!(o.frame_cap(), crate::MAX_STACK_FRAMES);
        o.maxframes = 0;
        assert_eq!(o.frame_cap(), 1);
    }

    #[test]
    fn ustack_pages_cover_ustackbytes_above_the_stack_pointer() {
        let mut o = CompileOptions {
            ustackbytes: 0,
            ..CompileOptions::default()
        };
        assert_eq!(o.ustack_pages(), 0);
        o.ustackbytes = 1;
        assert_eq!(o.ustack_pages(), 2);
        o.ustackbytes = 4096;
        assert_eq!(o.ustack_pages(), 2);
        o.ustackbytes = 1 << 20;
        assert_eq!(o.ustack_pages(), crate::actions_ctl::MAX_USTACK_PAGES + 1);
    }
}
