//! One aggregation's entries as read at one moment, laid out flat: every key's
//! bytes back to back in one buffer, every value (one per CPU) back to back in
//! another, and the ends of each in index vectors. Filling it allocates nothing
//! per key once its buffers have grown, so a snapshot of many keys costs a few
//! buffer growths, not several small allocations per key.
//!
//! The runtime fills it from the kernel's maps, tests from synthetic data; the
//! consumer merges, decodes and sorts from it.

/// Aggregation entries: each a key and that key's value on each CPU.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct AggEntries {
    keys: Vec<u8>,
    values: Vec<u8>,
    /// Per entry: the end of its key in `keys`.
    key_ends: Vec<usize>,
    /// Per entry: the end of its values in `value_ends`.
    entry_ends: Vec<usize>,
    /// Per value: its end in `values`.
    value_ends: Vec<usize>,
}

/// One entry: its key's bytes and its per-CPU values.
#[derive(Debug, Clone, Copy)]
pub struct AggEntry<'a> {
    pub key: &'a [u8],
    values: &'a [u8],
    ends: &'a [usize],
    /// Where this entry's values start in the shared buffer.
    base: usize,
}

impl<'a> AggEntry<'a> {
    /// How many values (CPUs) the entry has.
    pub fn cpus(&self) -> usize {
        self.ends.len()
    }

    /// Each CPU's value, in CPU order.
    pub fn values(&self) -> impl ExactSizeIterator<Item = &'a [u8]> + Clone + 'a {
        let (values, base, ends) = (self.values, self.base, self.ends);
        (0..ends.len()).map(move |i| {
            let start = if i == 0 { base } else { ends[i - 1] };
            values.get(start..ends[i]).unwrap_or_default()
        })
    }
}

impl AggEntries {
    /// No entries.
    pub fn new() -> AggEntries {
        AggEntries::default()
    }

    /// Forget every entry, keeping the buffers for the next snapshot.
    pub fn clear(&mut self) {
        self.keys.clear();
        self.values.clear();
        self.key_ends.clear();
        self.entry_ends.clear();
        self.value_ends.clear();
    }

    /// How many entries there are.
    pub fn len(&self) -> usize {
        self.key_ends.len()
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.key_ends.is_empty()
    }

    /// Make room for `entries` more entries with keys of `key_size` bytes and
    /// `cpus` values of `value_size` bytes each, so that filling them grows
    /// no buffer.
    pub fn reserve(&mut self, entries: usize, key_size: usize, cpus: usize, value_size: usize) {
        let values = entries.saturating_mul(cpus);
        self.keys.reserve(entries.saturating_mul(key_size));
        self.key_ends.reserve(entries);
        self.entry_ends.reserve(entries);
        self.value_ends.reserve(values);
        self.values.reserve(values.saturating_mul(value_size));
    }

    /// Start a new entry with key `key` (and no values yet).
    pub fn begin(&mut self, key: &[u8]) {
        self.keys.extend_from_slice(key);
        self.key_ends.push(self.keys.len());
        self.entry_ends.push(self.value_ends.len());
    }

    /// Add one CPU's value to the last entry: `fill` appends its bytes to the
    /// buffer it is given and says whether it could; a value it could not
    /// read is left out. Without an entry, nothing is added.
    pub fn value_with(&mut self, fill: impl FnOnce(&mut Vec<u8>) -> bool) {
        let start = self.values.len();
        if self.entry_ends.is_empty() || !fill(&mut self.values) {
            self.values.truncate(start);
            return;
        }
        self.value_ends.push(self.values.len());
        if let Some(end) = self.entry_ends.last_mut() {
            *end = self.value_ends.len();
        }
    }

    /// Add one CPU's value to the last entry.
    pub fn value(&mut self, value: &[u8]) {
        self.value_with(|b| {
            b.extend_from_slice(value);
            true
        });
    }

    /// Add an entry: `key` and its values, CPU by CPU.
    pub fn push<V: AsRef<[u8]>>(&mut self, key: &[u8], per_cpu: impl IntoIterator<Item = V>) {
        self.begin(key);
        for v in per_cpu {
            self.value(v.as_ref());
        }
    }

    /// Entry `i`.
    pub fn get(&self, i: usize) -> Option<AggEntry<'_>> {
        let key_end = *self.key_ends.get(i)?;
        let key_start = if i == 0 { 0 } else { self.key_ends[i - 1] };
        let last = *self.entry_ends.get(i)?;
        let first = if i == 0 { 0 } else { self.entry_ends[i - 1] };
        let ends = self.value_ends.get(first..last)?;
        let base = if first == 0 {
            0
        } else {
            self.value_ends[first - 1]
        };
        Some(AggEntry {
            key: self.keys.get(key_start..key_end)?,
            values: &self.values,
            ends,
            base,
        })
    }

    /// Every entry, in order.
    pub fn iter(&self) -> impl Iterator<Item = AggEntry<'_>> + '_ {
        (0..self.len()).filter_map(|i| self.get(i))
    }

    /// Keep only the entries `keep` accepts (their order unchanged).
    pub fn retain(&mut self, mut keep: impl FnMut(&AggEntry<'_>) -> bool) {
        let mut kept = AggEntries::new();
        for e in self.iter() {
            if keep(&e) {
                kept.push(e.key, e.values());
            }
        }
        *self = kept;
    }

    /// Zero every value, keeping the keys (`clear()` on synthetic data).
    pub fn zero_values(&mut self) {
        self.values.iter_mut().for_each(|b| *b = 0);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn entries_keep_keys_and_values_apart() {
        let mut e = AggEntries::new();
        e.push(b"ab", [&[1u8, 2][..], &[3, 4]]);
        e.push(b"", Vec::<Vec<u8>>::new());
        e.begin(b"xyz");
        e.value_with(|b| {
            b.push(9);
            false
        });
        e.value(&[5, 6, 7]);
        assert_eq!(e.len(), 3);
        let all: Vec<(Vec<u8>, Vec<Vec<u8>>)> = e
            .iter()
            .map(|x| (x.key.to_vec(), x.values().map(<[u8]>::to_vec).collect()))
            .collect();
        assert_eq!(
            all,
            vec![
                (b"ab".to_vec(), vec![vec![1, 2], vec![3, 4]]),
                (Vec::new(), Vec::new()),
                (b"xyz".to_vec(), vec![vec![5, 6, 7]]),
            ]
        );
        e.retain(|x| !x.key.is_empty());
        assert_eq!(e.len(), 2);
        assert_eq!(e.get(1).map(|x| x.cpus()), Some(1));
        e.zero_values();
        assert!(e.get(0).is_some_and(|x| x.values().all(|v| v == [0, 0])));
        e.clear();
        assert!(e.is_empty() && e.get(0).is_none());
    }
}
