//! The D program plockstat runs, generated from its options as Solaris's
//! plockstat generates one (`-V` prints it; `dtrace -s` runs it as is).
//!
//! Solaris fires plockstat's probes from inside libc. This machine's glibc has
//! no such probes (no `.note.stapsdt`), so the program builds them from the
//! pid provider on glibc's exported lock functions, and the `futex` system
//! call they sleep in:
//!
//! - **acquire**: the return of `pthread_mutex_lock`/`timedlock`/`clocklock`/
//!   `trylock` (and the rwlock `rdlock`/`wrlock` families) with 0; and the
//!   return of `pthread_cond_wait` and friends, which take the mutex back.
//!   A recursive acquisition (glibc's `__count` above 1 after it) starts no
//!   hold, as plockstat ignores recursive acquisitions.
//! - **release**: the entry of `pthread_mutex_unlock` (`__count` at most 1:
//!   the last release), `pthread_rwlock_unlock`, and `pthread_cond_wait`
//!   and friends, which give the mutex up.
//! - **block**: the first `futex` wait (`FUTEX_WAIT`, `_BITSET`, `LOCK_PI`,
//!   `LOCK_PI2`) the thread makes on the lock's own words during a lock call;
//!   **blocked** is that call's return. Block time is from the wait's start
//!   to the return: the time the thread slept on the lock and then took it.
//!   A condition wait taking its mutex back blocks the same way.
//! - **spin**: glibc's adaptive mutexes (`PTHREAD_MUTEX_ADAPTIVE_NP`) spin
//!   before they sleep: a lock call on one found held at entry (lock word
//!   non-zero) spins from entry until it acquires (a successful spin) or
//!   starts to block (an unsuccessful one). Other glibc mutexes never spin.
//!
//! Events are aggregated where the lock call or the unlock returns, keyed by
//! the lock's address and the caller: the call's return address, taken at
//! the entry probe where it is exact without frame pointers, or with `-s` the
//! user stack at the return probe, whose first frame is that same address.
//! Hold times are global per mutex (a mutex may be released by another
//! thread), per thread for rwlocks (readers share them), as in Solaris.

use std::fmt::Write;

/// What plockstat watches and how it reports.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Plan {
    /// `-C`: contention events.
    pub contention: bool,
    /// `-H`: hold events.
    pub hold: bool,
    /// `-s depth`: stacks of this many frames, with histograms.
    pub stack_depth: Option<u32>,
    /// `-e secs`: stop after this many seconds.
    pub exit_after: Option<u64>,
}

/// The offsets plockstat reads in glibc's x86-64 lock objects.
const MUTEX_SIZE: u32 = 40; // sizeof (pthread_mutex_t)
const MUTEX_COUNT: u32 = 4; // __data.__count: recursion depth
const MUTEX_KIND: u32 = 16; // __data.__kind
const RWLOCK_SIZE: u32 = 56; // sizeof (pthread_rwlock_t)
/// A timed condition wait that timed out still took its mutex back.
const ETIMEDOUT: u32 = 110;
/// `__kind` of `PTHREAD_MUTEX_ADAPTIVE_NP` (type bits, no protocol flags).
const KIND_ADAPTIVE: u32 = 3;

/// One section of the report: its title, its aggregation and what the
/// program adds to it (a time in nanoseconds, from an expression).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Section {
    pub title: &'static str,
    pub agg: &'static str,
}

/// The sections in the order plockstat prints them: holds, then contention.
pub const HOLD_SECTIONS: [Section; 3] = [
    Section {
        title: "Mutex hold",
        agg: "mtx_hold",
    },
    Section {
        title: "R/W reader hold",
        agg: "rw_r_hold",
    },
    Section {
        title: "R/W writer hold",
        agg: "rw_w_hold",
    },
];

pub const CONTENTION_SECTIONS: [Section; 5] = [
    Section {
        title: "Mutex block",
        agg: "mtx_block",
    },
    Section {
        title: "Mutex spin",
        agg: "mtx_spin",
    },
    Section {
        title: "Mutex unsuccessful spin",
        agg: "mtx_vain_spin",
    },
    Section {
        title: "R/W reader block",
        agg: "rw_r_block",
    },
    Section {
        title: "R/W writer block",
        agg: "rw_w_block",
    },
];

/// A probe on one or more glibc functions.
fn probes(funcs: &[&str], name: &str) -> String {
    funcs
        .iter()
        .map(|f| format!("pid$target:libc.so.6:{f}:{name}"))
        .collect::<Vec<_>>()
        .join(",\n")
}

const MUTEX_LOCKS: [&str; 3] = [
    "pthread_mutex_lock",
    "pthread_mutex_timedlock",
    "pthread_mutex_clocklock",
];
const COND_WAITS: [&str; 3] = [
    "pthread_cond_wait",
    "pthread_cond_timedwait",
    "pthread_cond_clockwait",
];
const RD_LOCKS: [&str; 3] = [
    "pthread_rwlock_rdlock",
    "pthread_rwlock_timedrdlock",
    "pthread_rwlock_clockrdlock",
];
const WR_LOCKS: [&str; 3] = [
    "pthread_rwlock_wrlock",
    "pthread_rwlock_timedwrlock",
    "pthread_rwlock_clockwrlock",
];

/// A `futex` wait by this thread on the words of the object at `lock`.
fn futex_wait_on(lock: &str, size: u32) -> String {
    format!(
        "pid == $target && {lock} && arg0 >= {lock} && arg0 < {lock} + {size} &&\n    \
         ((arg1 & 0x7f) == 0 || (arg1 & 0x7f) == 9 || (arg1 & 0x7f) == 6 ||\n    \
         (arg1 & 0x7f) == 13)"
    )
}

impl Plan {
    /// The aggregation key after the lock: the caller, or the stack.
    fn key(&self, caller: &str) -> String {
        match self.stack_depth {
            Some(_) => "ustack()".to_string(),
            None => caller.to_string(),
        }
    }

    /// The statements that add `time` to section `agg` for `lock`.
    fn record(&self, agg: &str, lock: &str, caller: &str, time: &str) -> String {
        let key = format!("{lock}, {}", self.key(caller));
        let mut s = format!("\t@{agg}[{key}] = sum({time});\n\t@{agg}_count[{key}] = count();\n");
        if self.stack_depth.is_some() {
            let _ = writeln!(s, "\t@{agg}_dist[{key}] = quantize({time});");
        }
        let _ = writeln!(s, "\t{agg}_found = 1;");
        s
    }

    /// The whole program.
    pub fn program(&self) -> String {
        let mut p = String::new();
        if let Some(secs) = self.exit_after {
            let _ = write!(
                p,
                "BEGIN\n{{\n\tend = timestamp + {secs} * 1000000000;\n}}\n\n\
                 tick-10hz\n/timestamp >= end/\n{{\n\texit(0);\n}}\n\n"
            );
        }
        if self.hold || self.contention {
            p.push_str(&self.mutex_calls());
            let _ = write!(
                p,
                "{}\n{{\n\tself->cmutex = arg1;\n\tself->ccaller = ucaller;\n}}\n\n",
                probes(&COND_WAITS, "entry")
            );
        }
        if self.hold {
            p.push_str(&self.mutex_hold());
        }
        if self.contention {
            p.push_str(&self.cond_contention());
        }
        if self.hold || self.contention {
            let _ = write!(
                p,
                "{}\n{{\n\tself->cmutex = 0;\n\tself->ccaller = 0;\n\tself->cblock = 0;\n}}\n\n",
                probes(&COND_WAITS, "return")
            );
        }
        p.push_str(&self.rwlock_calls());
        p.push_str(&self.ends());
        p
    }

    /// Lock calls on mutexes: what contention needs at entry, the futex
    /// waits, and what each return records.
    fn mutex_calls(&self) -> String {
        let mut p = String::new();
        let _ = write!(
            p,
            "{}\n{{\n\tself->mlock = arg0;\n\tself->mcaller = ucaller;\n}}\n\n",
            probes(&MUTEX_LOCKS, "entry")
        );
        if self.contention {
            let _ = write!(
                p,
                "{}\n/(*(int *)copyin(arg0 + {MUTEX_KIND}, 4) & 0x7f) == {KIND_ADAPTIVE} &&\n    \
                 *(int *)copyin(arg0, 4) != 0/\n{{\n\tself->mspin = timestamp;\n}}\n\n",
                probes(&MUTEX_LOCKS, "entry")
            );
            let wait = futex_wait_on("self->mlock", MUTEX_SIZE);
            let _ = write!(
                p,
                "syscall::futex:entry\n/{wait} && self->mspin/\n{{\n\
                 \tself->mvain = timestamp - self->mspin;\n\tself->mspin = 0;\n}}\n\n\
                 syscall::futex:entry\n/{wait} && !self->mblock/\n{{\n\
                 \tself->mblock = timestamp;\n}}\n\n"
            );
            let ret = probes(&MUTEX_LOCKS, "return");
            let block = self.record(
                "mtx_block",
                "self->mlock",
                "self->mcaller",
                "timestamp - self->mblock",
            );
            let vain = self.record(
                "mtx_vain_spin",
                "self->mlock",
                "self->mcaller",
                "self->mvain",
            );
            let spin = self.record(
                "mtx_spin",
                "self->mlock",
                "self->mcaller",
                "timestamp - self->mspin",
            );
            let _ = write!(
                p,
                "{ret}\n/self->mlock && self->mblock && arg1 == 0/\n{{\n{block}}}\n\n\
                 {ret}\n/self->mlock && self->mvain/\n{{\n{vain}}}\n\n\
                 {ret}\n/self->mlock && self->mspin && arg1 == 0/\n{{\n{spin}}}\n\n"
            );
        }
        if self.hold {
            let _ = write!(
                p,
                "{}\n/self->mlock && arg1 == 0 &&\n    \
                 *(unsigned int *)copyin(self->mlock + {MUTEX_COUNT}, 4) <= 1/\n{{\n\
                 \tmtxhold[self->mlock] = timestamp;\n}}\n\n",
                probes(&MUTEX_LOCKS, "return")
            );
        }
        let _ = write!(
            p,
            "{}\n{{\n\tself->mlock = 0;\n\tself->mcaller = 0;\n\tself->mblock = 0;\n\
             \tself->mspin = 0;\n\tself->mvain = 0;\n}}\n\n",
            probes(&MUTEX_LOCKS, "return")
        );
        p
    }

    /// Hold times of mutexes: trylock and the condition waits acquire, the
    /// unlock and the condition waits release.
    fn mutex_hold(&self) -> String {
        let mut p = String::new();
        let _ = write!(
            p,
            "pid$target:libc.so.6:pthread_mutex_trylock:entry\n{{\n\tself->mtry = arg0;\n}}\n\n\
             pid$target:libc.so.6:pthread_mutex_trylock:return\n/self->mtry && arg1 == 0 &&\n    \
             *(unsigned int *)copyin(self->mtry + {MUTEX_COUNT}, 4) <= 1/\n{{\n\
             \tmtxhold[self->mtry] = timestamp;\n}}\n\n\
             pid$target:libc.so.6:pthread_mutex_trylock:return\n{{\n\tself->mtry = 0;\n}}\n\n"
        );
        let release = |lock: &str| {
            format!(
                "{{\n\tself->mheld = timestamp - mtxhold[{lock}];\n\
                 \tself->mheldlock = {lock};\n\tself->mheldcaller = ucaller;\n\
                 \tmtxhold[{lock}] = 0;\n}}\n\n"
            )
        };
        let _ = write!(
            p,
            "pid$target:libc.so.6:pthread_mutex_unlock:entry\n/mtxhold[arg0] &&\n    \
             *(unsigned int *)copyin(arg0 + {MUTEX_COUNT}, 4) <= 1/\n{}",
            release("arg0")
        );
        let _ = write!(
            p,
            "{}\n/mtxhold[arg1]/\n{}",
            probes(&COND_WAITS, "entry"),
            release("arg1")
        );
        let rec = self.record(
            "mtx_hold",
            "self->mheldlock",
            "self->mheldcaller",
            "self->mheld",
        );
        let _ = write!(
            p,
            "pid$target:libc.so.6:pthread_mutex_unlock:return,\n{}\n/self->mheldlock/\n{{\n{rec}\
             \tself->mheld = 0;\n\tself->mheldlock = 0;\n\tself->mheldcaller = 0;\n}}\n\n",
            probes(&COND_WAITS, "return")
        );
        let _ = write!(
            p,
            "{}\n/self->cmutex/\n{{\n\tmtxhold[self->cmutex] = timestamp;\n}}\n\n",
            probes(&COND_WAITS, "return")
        );
        p
    }

    /// A condition wait takes its mutex back before it returns (also when
    /// it times out): a futex wait on the mutex then is a mutex block, from
    /// the wait until the return, charged to the condition wait's caller.
    fn cond_contention(&self) -> String {
        let wait = futex_wait_on("self->cmutex", MUTEX_SIZE);
        let rec = self.record(
            "mtx_block",
            "self->cmutex",
            "self->ccaller",
            "timestamp - self->cblock",
        );
        format!(
            "syscall::futex:entry\n/{wait} && !self->cblock/\n{{\n\
             \tself->cblock = timestamp;\n}}\n\n\
             {}\n/self->cmutex && self->cblock && (arg1 == 0 || arg1 == {ETIMEDOUT})/\n{{\n{rec}}}\n\n",
            probes(&COND_WAITS, "return")
        )
    }

    /// Read-write locks: lock calls (with their futex waits), holds per
    /// thread, and releases.
    fn rwlock_calls(&self) -> String {
        let mut p = String::new();
        let all_locks: Vec<&str> = RD_LOCKS.iter().chain(&WR_LOCKS).copied().collect();
        if !self.contention && !self.hold {
            return p;
        }
        for (funcs, writer) in [(&RD_LOCKS, 0), (&WR_LOCKS, 1)] {
            let _ = write!(
                p,
                "{}\n{{\n\tself->rwlock = arg0;\n\tself->rwwriter = {writer};\n\
                 \tself->rwcaller = ucaller;\n}}\n\n",
                probes(funcs, "entry")
            );
        }
        let ret = probes(&all_locks, "return");
        if self.contention {
            let wait = futex_wait_on("self->rwlock", RWLOCK_SIZE);
            let _ = write!(
                p,
                "syscall::futex:entry\n/{wait} && !self->rwblock/\n{{\n\
                 \tself->rwblock = timestamp;\n}}\n\n"
            );
            for (agg, writer) in [
                ("rw_w_block", "self->rwwriter"),
                ("rw_r_block", "!self->rwwriter"),
            ] {
                let rec = self.record(
                    agg,
                    "self->rwlock",
                    "self->rwcaller",
                    "timestamp - self->rwblock",
                );
                let _ = write!(
                    p,
                    "{ret}\n/self->rwlock && self->rwblock && arg1 == 0 && {writer}/\n{{\n{rec}}}\n\n"
                );
            }
        }
        if self.hold {
            let _ = write!(
                p,
                "{ret}\n/self->rwlock && arg1 == 0/\n{{\n\
                 \tself->rwhold[self->rwlock] = timestamp;\n\
                 \tself->rwheldwriter[self->rwlock] = self->rwwriter;\n}}\n\n"
            );
            for (funcs, writer) in [
                (&["pthread_rwlock_tryrdlock"], 0),
                (&["pthread_rwlock_trywrlock"], 1),
            ] {
                let _ = write!(
                    p,
                    "{}\n{{\n\tself->rwtry = arg0;\n}}\n\n{}\n/self->rwtry && arg1 == 0/\n{{\n\
                     \tself->rwhold[self->rwtry] = timestamp;\n\
                     \tself->rwheldwriter[self->rwtry] = {writer};\n}}\n\n{}\n{{\n\
                     \tself->rwtry = 0;\n}}\n\n",
                    probes(funcs, "entry"),
                    probes(funcs, "return"),
                    probes(funcs, "return")
                );
            }
            let _ = write!(
                p,
                "pid$target:libc.so.6:pthread_rwlock_unlock:entry\n/self->rwhold[arg0]/\n{{\n\
                 \tself->rwheld = timestamp - self->rwhold[arg0];\n\
                 \tself->rwheldlock = arg0;\n\
                 \tself->rwheldcaller = ucaller;\n\
                 \tself->rwheldw = self->rwheldwriter[arg0];\n\
                 \tself->rwhold[arg0] = 0;\n\
                 \tself->rwheldwriter[arg0] = 0;\n}}\n\n"
            );
            for (agg, writer) in [
                ("rw_w_hold", "self->rwheldw"),
                ("rw_r_hold", "!self->rwheldw"),
            ] {
                let rec = self.record(
                    agg,
                    "self->rwheldlock",
                    "self->rwheldcaller",
                    "self->rwheld",
                );
                let _ = write!(
                    p,
                    "pid$target:libc.so.6:pthread_rwlock_unlock:return\n\
                     /self->rwheldlock && {writer}/\n{{\n{rec}}}\n\n"
                );
            }
            let _ = write!(
                p,
                "pid$target:libc.so.6:pthread_rwlock_unlock:return\n{{\n\
                 \tself->rwheld = 0;\n\tself->rwheldlock = 0;\n\
                 \tself->rwheldcaller = 0;\n\tself->rwheldw = 0;\n}}\n\n"
            );
        }
        let _ = write!(
            p,
            "{ret}\n{{\n\tself->rwlock = 0;\n\tself->rwwriter = 0;\n\
             \tself->rwcaller = 0;\n\tself->rwblock = 0;\n}}\n\n"
        );
        p
    }

    /// The END clauses that print each section that has data: its title,
    /// then the aggregations (sum, count and, with `-s`, the distribution).
    fn ends(&self) -> String {
        let mut p = String::new();
        for s in self.sections() {
            let dist = match self.stack_depth {
                Some(_) => format!(", @{}_dist", s.agg),
                None => String::new(),
            };
            let _ = write!(
                p,
                "END\n/{agg}_found/\n{{\n\ttrace(\"{title}\");\n\
                 \tprinta(@{agg}, @{agg}_count{dist});\n}}\n\n",
                agg = s.agg,
                title = s.title
            );
        }
        p
    }

    /// The sections this plan can report, in order.
    pub fn sections(&self) -> Vec<Section> {
        let mut v = Vec::new();
        if self.hold {
            v.extend(HOLD_SECTIONS);
        }
        if self.contention {
            v.extend(CONTENTION_SECTIONS);
        }
        v
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashMap;

    fn plan(contention: bool, hold: bool, depth: Option<u32>, secs: Option<u64>) -> Plan {
        Plan {
            contention,
            hold,
            stack_depth: depth,
            exit_after: secs,
        }
    }

    #[test]
    fn contention_alone_records_no_holds() {
        let p = plan(true, false, None, None).program();
        assert!(p.contains("syscall::futex:entry"));
        assert!(
            p.contains("@mtx_block[self->mlock, self->mcaller] = sum(timestamp - self->mblock);")
        );
        assert!(p.contains("@mtx_block_count[self->mlock, self->mcaller] = count();"));
        assert!(!p.contains("mtxhold"));
        assert!(!p.contains("rwhold"));
        assert!(!p.contains("quantize"));
        let titles: Vec<&str> = p
            .lines()
            .filter_map(|l| l.strip_prefix("\ttrace(\""))
            .collect();
        assert_eq!(
            titles,
            [
                "Mutex block\");",
                "Mutex spin\");",
                "Mutex unsuccessful spin\");",
                "R/W reader block\");",
                "R/W writer block\");"
            ]
        );
    }

    #[test]
    fn condition_waits_block_on_their_mutex() {
        let p = plan(true, false, None, None).program();
        assert!(p.contains("self->cmutex = arg1;"));
        assert!(p.contains("/self->cmutex && self->cblock && (arg1 == 0 || arg1 == 110)/"));
        assert!(p.contains("@mtx_block[self->cmutex, self->ccaller]"));
        let h = plan(false, true, None, None).program();
        assert!(h.contains("pid$target:libc.so.6:pthread_cond_clockwait:entry\n/mtxhold[arg1]/"));
        assert!(!h.contains("self->cblock = timestamp"));
    }

    #[test]
    fn holds_alone_watch_no_futex() {
        let p = plan(false, true, None, None).program();
        assert!(!p.contains("futex"));
        assert!(p.contains("pid$target:libc.so.6:pthread_mutex_unlock:entry"));
        assert!(p.contains("pid$target:libc.so.6:pthread_cond_wait:return"));
        assert!(p.contains("@rw_w_hold[self->rwheldlock, self->rwheldcaller]"));
        assert!(p.contains("END\n/mtx_hold_found/\n{\n\ttrace(\"Mutex hold\");"));
    }

    #[test]
    fn stacks_key_by_ustack_and_add_a_distribution() {
        let p = plan(true, true, Some(6), None).program();
        assert!(p.contains(
            "@mtx_block_dist[self->mlock, ustack()] = quantize(timestamp - self->mblock);"
        ));
        assert!(p.contains("printa(@mtx_hold, @mtx_hold_count, @mtx_hold_dist);"));
        assert!(!p.contains("self->mcaller]"));
    }

    #[test]
    fn a_time_limit_exits_from_a_tick() {
        let p = plan(true, false, None, Some(3)).program();
        assert!(p.starts_with("BEGIN\n{\n\tend = timestamp + 3 * 1000000000;\n}\n"));
        assert!(p.contains("tick-10hz\n/timestamp >= end/\n{\n\texit(0);\n}"));
    }

    /// Every form of the program compiles (against this test process, whose
    /// libc is the one the probes name).
    #[test]
    fn every_program_compiles() {
        let mut vars = HashMap::new();
        vars.insert("target".to_string(), std::process::id().to_string());
        for (c, h) in [(true, false), (false, true), (true, true)] {
            for depth in [None, Some(4)] {
                let text = plan(c, h, depth, Some(1)).program();
                let Ok(mut dt) = dtrace::Dtrace::open(false) else {
                    return;
                };
                if dt.set_opt("zdefs", None).is_err() {
                    panic!("zdefs is an option");
                }
                let source = dtrace::Source::Script {
                    path: "plockstat".into(),
                    text: text.clone(),
                };
                if let Err(e) = dt.compile(&source, &["plockstat".into()], &vars) {
                    panic!("{}\n{text}", e.message);
                }
            }
        }
    }
}
