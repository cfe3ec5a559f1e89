//! An aggregation report's rows, laid out flat: every row's key bytes in one
//! buffer, its decoded keys in one vector of values, its aggregation values
//! in another (as many per row as the report has aggregations), and the
//! printed order as a vector of row indices. Filling them again for the next
//! snapshot reuses all of it; sorting moves indices, not rows.

use crate::aggregate::AggValue;
use crate::value::Value;

/// One row, borrowed from [`Rows`].
#[derive(Debug, Clone, Copy)]
pub struct Row<'a> {
    /// The key's bytes as the kernel stores them.
    pub key: &'a [u8],
    /// The decoded keys.
    pub keys: &'a [Value],
    /// One value per aggregation of the report (None: the key is not in that
    /// aggregation).
    pub values: &'a [Option<AggValue>],
    /// With `aggpercpu`: each aggregation's value on each CPU, by CPU index
    /// (empty without it).
    pub per_cpu: &'a [Vec<AggValue>],
}

/// The rows of a report, in printed order.
#[derive(Debug, Clone, Default)]
pub struct Rows {
    /// Values per row (the report's aggregations).
    width: usize,
    /// Whether rows keep per-CPU values (`aggpercpu`).
    percpu: bool,
    key_bytes: Vec<u8>,
    /// Per row, in the order added: the end of its bytes in `key_bytes` and
    /// of its decoded keys in `keys`.
    ends: Vec<(usize, usize)>,
    keys: Vec<Value>,
    values: Vec<Option<AggValue>>,
    per_cpu: Vec<Vec<AggValue>>,
    /// Row indices (in the order added) in printed order.
    order: Vec<u32>,
}

impl Rows {
    /// No rows, each to hold `width` aggregations' values (and per-CPU
    /// values when `percpu`).
    pub fn new(width: usize, percpu: bool) -> Rows {
        Rows {
            width,
            percpu,
            ..Rows::default()
        }
    }

    /// Forget every row, keeping the memory; rows added next hold `width`
    /// values.
    pub(crate) fn reset(&mut self, width: usize, percpu: bool) {
        self.width = width;
        self.percpu = percpu;
        self.key_bytes.clear();
        self.ends.clear();
        self.keys.clear();
        self.values.clear();
        self.per_cpu.clear();
        self.order.clear();
    }

    /// Room for `n` more rows of `keys` decoded keys and `key_size` key bytes
    /// each.
    pub(crate) fn reserve(&mut self, n: usize, keys: usize, key_size: usize) {
        self.key_bytes.reserve(n.saturating_mul(key_size));
        self.keys.reserve(n.saturating_mul(keys));
        self.ends.reserve(n);
        self.order.reserve(n);
        self.values.reserve(n.saturating_mul(self.width));
    }

    /// Add a row with key bytes `key` and decoded keys `keys`, holding no
    /// value yet (it comes last in the printed order until the order is set);
    /// returns its index in the order added.
    pub(crate) fn push<E>(
        &mut self,
        key: &[u8],
        keys: impl Iterator<Item = Result<Value, E>>,
    ) -> Result<usize, E> {
        let start = self.keys.len();
        for k in keys {
            match k {
                Ok(v) => self.keys.push(v),
                Err(e) => {
                    self.keys.truncate(start);
                    return Err(e);
                }
            }
        }
        let i = self.ends.len();
        self.key_bytes.extend_from_slice(key);
        self.ends.push((self.key_bytes.len(), self.keys.len()));
        self.values.resize(self.values.len() + self.width, None);
        if self.percpu {
            self.per_cpu
                .resize_with(self.per_cpu.len() + self.width, Vec::new);
        }
        self.order.push(i as u32);
        Ok(i)
    }

    /// Set aggregation `pos`'s value (and per-CPU values) in row `i` (in the
    /// order added).
    pub(crate) fn set(&mut self, i: usize, pos: usize, value: AggValue, cpus: Vec<AggValue>) {
        let at = i.saturating_mul(self.width).saturating_add(pos);
        if pos >= self.width {
            return;
        }
        if let Some(slot) = self.values.get_mut(at) {
            *slot = Some(value);
        }
        if let Some(slot) = self.per_cpu.get_mut(at) {
            *slot = cpus;
        }
    }

    /// Row `i` in the order added.
    pub(crate) fn added(&self, i: usize) -> Option<Row<'_>> {
        let (kend, vend) = *self.ends.get(i)?;
        let (kstart, vstart) = match i {
            0 => (0, 0),
            _ => *self.ends.get(i - 1)?,
        };
        let values = i.checked_mul(self.width)?;
        let values = values..values.checked_add(self.width)?;
        Some(Row {
            key: self.key_bytes.get(kstart..kend)?,
            keys: self.keys.get(vstart..vend)?,
            values: self.values.get(values.clone())?,
            per_cpu: if self.percpu {
                self.per_cpu.get(values)?
            } else {
                &[]
            },
        })
    }

    /// The printed order (row indices in the order added), taken out to be
    /// sorted and put back with [`Rows::set_order`].
    pub(crate) fn take_order(&mut self) -> Vec<u32> {
        std::mem::take(&mut self.order)
    }

    /// Sets the printed order: `order` must hold each row index once.
    pub(crate) fn set_order(&mut self, order: Vec<u32>) {
        self.order = order;
    }

    /// How many rows there are.
    pub fn len(&self) -> usize {
        self.order.len()
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.order.is_empty()
    }

    /// Row `i` in printed order.
    pub fn get(&self, i: usize) -> Option<Row<'_>> {
        self.added(*self.order.get(i)? as usize)
    }

    /// The first row printed.
    pub fn first(&self) -> Option<Row<'_>> {
        self.get(0)
    }

    /// The last row printed.
    pub fn last(&self) -> Option<Row<'_>> {
        self.get(self.len().checked_sub(1)?)
    }

    /// Every row in printed order.
    pub fn iter(&self) -> RowIter<'_> {
        RowIter {
            rows: self,
            front: 0,
            back: self.len(),
        }
    }
}

/// The rows of [`Rows`] in printed order.
#[derive(Debug, Clone)]
pub struct RowIter<'a> {
    rows: &'a Rows,
    front: usize,
    back: usize,
}

impl<'a> Iterator for RowIter<'a> {
    type Item = Row<'a>;

    fn next(&mut self) -> Option<Row<'a>> {
        while self.front < self.back {
            self.front += 1;
            if let Some(r) = self.rows.get(self.front - 1) {
                return Some(r);
            }
        }
        None
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        let n = self.back - self.front;
        (n, Some(n))
    }
}

impl DoubleEndedIterator for RowIter<'_> {
    fn next_back(&mut self) -> Option<Self::Item> {
        while self.front < self.back {
            self.back -= 1;
            if let Some(r) = self.rows.get(self.back) {
                return Some(r);
            }
        }
        None
    }
}

impl ExactSizeIterator for RowIter<'_> {}

impl<'a> IntoIterator for &'a Rows {
    type Item = Row<'a>;
    type IntoIter = RowIter<'a>;

    fn into_iter(self) -> RowIter<'a> {
        self.iter()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rows_keep_their_parts_apart_and_print_in_order() {
        let mut rows = Rows::new(2, false);
        let int = |v: u64| Ok::<_, ()>(Value::i64(v as i64));
        let a = rows.push(b"aa", [int(1), int(2)].into_iter()).unwrap_or(9);
        let b = rows.push(b"b", [int(3)].into_iter()).unwrap_or(9);
        assert_eq!((a, b), (0, 1));
        assert!(rows.push(b"c", [int(4), Err(())].into_iter()).is_err());
        rows.set(1, 1, AggValue::Scalar(7), Vec::new());
        rows.set(1, 2, AggValue::Scalar(8), Vec::new());
        assert_eq!(rows.len(), 2);
        let mut order = rows.take_order();
        order.reverse();
        rows.set_order(order);
        let first = rows
            .first()
            .map(|r| (r.key, r.keys.len(), r.values.to_vec()));
        assert_eq!(
            first,
            Some((&b"b"[..], 1, vec![None, Some(AggValue::Scalar(7))]))
        );
        let keys: Vec<&[u8]> = rows.iter().rev().map(|r| r.key).collect();
        assert_eq!(keys, [&b"aa"[..], b"b"]);
        assert_eq!(rows.iter().len(), 2);
        assert!(rows
            .last()
            .is_some_and(|r| r.keys.len() == 2 && r.per_cpu.is_empty()));
        rows.reset(1, true);
        assert!(rows.is_empty());
        let _ = rows.push(b"x", std::iter::empty::<Result<Value, ()>>());
        assert_eq!(rows.first().map(|r| r.per_cpu.len()), Some(1));
    }
}
