//! The consumer's view of the aggregations between `aggrate` ticks.
//!
//! DTrace reads (snapshots) aggregations at most once per `aggrate` period;
//! `printa()` prints the latest snapshot, so several `printa()`s between two
//! ticks print the same values (Dynamic Tracing Guide, "Options and
//! Tunables": `aggrate`, "Rate of aggregation reading"). As in dtrace(1), the
//! first snapshot is taken at the first regular buffer read (one `switchrate`
//! period after tracing starts), then one per period; the work loop takes
//! them. What reads an aggregation before the first snapshot (a record that
//! woke the consumer early, such as exit()'s), or after `clear()`/`trunc()`
//! changed it, reads the kernel.

use dtrace_consumer::{AggEntries, AggSource};
use std::collections::BTreeMap;
use std::time::{Duration, Instant};

/// The last snapshot of the aggregations `printa()` prints.
#[derive(Debug)]
pub(crate) struct AggCache {
    period: Duration,
    /// The aggregations some `printa()` prints (only those are read per tick).
    printed: Vec<u32>,
    /// When the first snapshot is due (set when tracing starts).
    first: Option<Instant>,
    /// The `switchrate` period: a read that comes early (a record woke the
    /// consumer) takes the snapshot the next regular read would take.
    slack: Duration,
    taken: Option<Instant>,
    rows: BTreeMap<u32, AggEntries>,
}

impl AggCache {
    /// A cache refreshed every `period`, for the aggregations `printed`.
    pub(crate) fn new(period: Duration, printed: Vec<u32>) -> AggCache {
        AggCache {
            period,
            printed,
            first: None,
            slack: Duration::ZERO,
            taken: None,
            rows: BTreeMap::new(),
        }
    }

    /// Tracing started: the first snapshot is due at `first`, and buffers
    /// are read regularly every `switch`.
    pub(crate) fn arm(&mut self, first: Instant, switch: Duration) {
        self.first = Some(first);
        self.slack = switch;
    }

    /// Whether a snapshot is due at `now`.
    pub(crate) fn due(&self, now: Instant) -> bool {
        if self.printed.is_empty() {
            return false;
        }
        match self.taken {
            Some(t) => now.saturating_duration_since(t) >= self.period.saturating_sub(self.slack),
            None => self.first.is_some_and(|f| now >= f),
        }
    }

    /// Takes the snapshot: reads every printed aggregation from `source`.
    pub(crate) fn snap(&mut self, now: Instant, source: &mut dyn AggSource) {
        self.taken = Some(now);
        for &id in &self.printed {
            let rows = self.rows.entry(id).or_default();
            rows.clear();
            source.snapshot(id, rows);
        }
    }

    /// Forgets the snapshot (tracing stopped: END and the final output read
    /// the aggregations as they are).
    pub(crate) fn invalidate(&mut self) {
        self.rows.clear();
    }

    /// An [`AggSource`] that answers from the snapshot, and otherwise from `source`.
    pub(crate) fn view<'a>(&'a mut self, source: &'a mut dyn AggSource) -> CachedAggs<'a> {
        CachedAggs {
            cache: self,
            source,
        }
    }
}

/// Reads through an [`AggCache`].
pub(crate) struct CachedAggs<'a> {
    cache: &'a mut AggCache,
    source: &'a mut dyn AggSource,
}

impl AggSource for CachedAggs<'_> {
    fn snapshot(&mut self, agg_id: u32, out: &mut AggEntries) {
        match self.cache.rows.get(&agg_id) {
            Some(rows) => rows.iter().for_each(|e| out.push(e.key, e.values())),
            None => self.source.snapshot(agg_id, out),
        }
    }

    fn clear(&mut self, agg_id: u32) {
        self.cache.rows.remove(&agg_id);
        self.source.clear(agg_id);
    }

    fn remove(&mut self, agg_id: u32, key: &[u8]) {
        self.cache.rows.remove(&agg_id);
        self.source.remove(agg_id, key);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// An aggregation whose single value counts the reads.
    struct Counter(u8);

    impl AggSource for Counter {
        fn snapshot(&mut self, _agg_id: u32, out: &mut AggEntries) {
            self.0 += 1;
            out.push(&[0], [[self.0]]);
        }
        fn clear(&mut self, _agg_id: u32) {
            self.0 = 0;
        }
        fn remove(&mut self, _agg_id: u32, _key: &[u8]) {}
    }

    /// The first value of aggregation `id`'s first entry, read through `c`.
    fn read(c: &mut AggCache, k: &mut Counter, id: u32) -> Vec<u8> {
        let mut out = AggEntries::new();
        c.view(k).snapshot(id, &mut out);
        out.get(0)
            .and_then(|e| e.values().next())
            .unwrap_or_default()
            .to_vec()
    }

    #[test]
    fn reads_once_per_period() {
        let t0 = Instant::now();
        let mut c = AggCache::new(Duration::from_secs(4), vec![1]);
        let mut k = Counter(0);
        // Not before tracing starts, nor before the first read is due.
        assert!(!c.due(t0));
        c.arm(t0 + Duration::from_millis(100), Duration::from_millis(100));
        assert!(!c.due(t0));
        // Before the first snapshot, reads see the kernel.
        assert_eq!(read(&mut c, &mut k, 1), vec![1]);
        k.0 = 0;
        assert!(c.due(t0 + Duration::from_millis(100)));
        c.snap(t0, &mut k);
        // Between ticks every read sees the snapshot.
        for _ in 0..3 {
            assert_eq!(read(&mut c, &mut k, 1), vec![1]);
        }
        assert!(!c.due(t0 + Duration::from_millis(3800)));
        // Due a switchrate period early: the next regular read would take it.
        assert!(c.due(t0 + Duration::from_millis(3900)));
        assert!(c.due(t0 + Duration::from_secs(4)));
        c.snap(t0 + Duration::from_secs(4), &mut k);
        assert_eq!(read(&mut c, &mut k, 1), vec![2]);
        // An aggregation no printa() prints is read when asked.
        assert_eq!(read(&mut c, &mut k, 2), vec![3]);
        // clear() drops the snapshot of that aggregation.
        c.view(&mut k).clear(1);
        assert_eq!(read(&mut c, &mut k, 1), vec![1]);
        c.invalidate();
        assert_eq!(read(&mut c, &mut k, 1), vec![2]);
    }

    #[test]
    fn nothing_to_read_without_printa() {
        let mut c = AggCache::new(Duration::from_millis(1), Vec::new());
        let now = Instant::now();
        c.arm(now, Duration::ZERO);
        assert!(!c.due(now));
    }
}
