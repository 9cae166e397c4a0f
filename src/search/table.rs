//! The transposition table of the search: fixed size, one entry per slot.

use super::PROVEN;

/// One searched position: its hash, the depth searched, the score (proven scores relative to
/// the node, see `to_tt`), what kind of bound the score is, and the best move found.
#[derive(Clone, Copy, Debug)]
pub(super) struct Entry {
    pub(super) key: u64,
    pub(super) depth: i32,
    pub(super) score: i32,
    pub(super) bound: Bound,
    pub(super) best: u16,
}

/// A transposition table (`2^bits` entries, indexed by the hash's low bits). A new entry
/// replaces the old one unless that one is the same position searched deeper. A table made
/// with `growing` starts small and grows fourfold, up to its limit, each time it has taken
/// half as many stores as it has entries (see `growing`).
pub(super) struct Table {
    entries: Vec<Entry>,
    mask: u64,
    bits: u32,
    /// The most bits it grows to (its own bits for a fixed table).
    max_bits: u32,
    /// Stores since it was made or last grew.
    stores: u64,
}

impl Table {
    /// An empty table, or `Error::OutOfMemory` when its memory cannot be had. The memory
    /// comes zeroed from the allocator (an all-zero entry is an empty slot: every stored entry
    /// has depth >= 1), so even the solver's 768 MiB table costs nothing to set up and a
    /// cancelled solve stops at once.
    pub(super) fn new(bits: u32) -> crate::error::Result<Self> {
        let len = 1usize << bits;
        let oom =
            || crate::error::Error::OutOfMemory(format!("the transposition table ({len} entries)"));
        let layout = std::alloc::Layout::array::<Entry>(len).map_err(|_| oom())?;
        // SAFETY: `layout` has a non-zero size (len >= 1 and Entry is not zero-sized); the
        // pointer is checked for null; an all-zero `Entry` is valid (integers, and `Bound`'s
        // discriminant 0 is `Exact`); the Vec owns exactly `len` initialised entries allocated
        // with the global allocator and this layout.
        let entries = unsafe {
            let ptr = std::alloc::alloc_zeroed(layout).cast::<Entry>();
            if ptr.is_null() {
                return Err(oom());
            }
            Vec::from_raw_parts(ptr, len, len)
        };
        Ok(Table {
            entries,
            mask: (len - 1) as u64,
            bits,
            max_bits: bits,
            stores: 0,
        })
    }

    /// A table of `2^start` entries that grows, fourfold at a time, up to `2^max` (the exact
    /// solver's: a large table costs its pages' faults as the search first touches them, and
    /// their release at the end, three times the search's own time on a board solved in a
    /// second; a long search still gets the whole table). When the memory for a larger table
    /// cannot be had, it stays as it is.
    pub(super) fn growing(start: u32, max: u32) -> crate::error::Result<Self> {
        let mut t = Table::new(start.min(max))?;
        t.max_bits = max;
        Ok(t)
    }

    /// The entries it holds now (`2^bits`).
    #[cfg(test)]
    pub(super) fn capacity(&self) -> usize {
        self.entries.len()
    }

    /// Moves every entry into a table four times larger (none is lost: an entry's slot in the
    /// larger table is its old slot plus the hash's next bits, so no two collide).
    fn grow(&mut self) {
        let bits = (self.bits + 2).min(self.max_bits);
        let Ok(mut larger) = Table::new(bits) else {
            self.max_bits = self.bits; // no memory for more: keep this one
            return;
        };
        for e in self.entries.iter().filter(|e| e.depth > 0) {
            larger.entries[(e.key & larger.mask) as usize] = *e;
        }
        larger.max_bits = self.max_bits;
        *self = larger;
    }

    pub(super) fn get(&self, key: u64) -> Option<Entry> {
        let e = self.entries[(key & self.mask) as usize];
        (e.key == key && e.depth > 0).then_some(e)
    }

    pub(super) fn insert(&mut self, e: Entry) {
        let slot = &mut self.entries[(e.key & self.mask) as usize];
        if slot.key != e.key || slot.depth <= e.depth {
            *slot = e;
        }
        if self.bits < self.max_bits {
            self.stores += 1;
            if self.stores > (self.entries.len() as u64) >> 1 {
                self.grow();
            }
        }
    }
}

/// What an entry's score is: exact, or a bound because the search was cut off by alpha or beta.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u8)]
pub(super) enum Bound {
    Exact = 0,
    Lower,
    Upper,
}

/// Mate scores are stored relative to the node, so they stay right wherever the node recurs.
pub(super) fn to_tt(score: i32, ply: i32) -> i32 {
    if score > PROVEN {
        score + ply
    } else if score < -PROVEN {
        score - ply
    } else {
        score
    }
}

pub(super) fn from_tt(score: i32, ply: i32) -> i32 {
    if score > PROVEN {
        score - ply
    } else if score < -PROVEN {
        score + ply
    } else {
        score
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_new_table_is_empty_and_keeps_what_is_stored() {
        let mut t = Table::new(8).unwrap();
        assert!((0..1000u64).all(|k| t.get(k).is_none()));
        let e = Entry {
            key: 0x1234_5678_9abc_def0,
            depth: 3,
            score: -7,
            bound: Bound::Lower,
            best: 5,
        };
        t.insert(e);
        let got = t.get(e.key).unwrap();
        assert_eq!(
            (got.depth, got.score, got.bound, got.best),
            (3, -7, Bound::Lower, 5)
        );
        assert!(t.get(e.key ^ 1 << 40).is_none());
    }

    #[test]
    fn a_growing_table_keeps_every_entry_as_it_grows() {
        let mut t = Table::growing(4, 10).unwrap();
        assert_eq!(t.capacity(), 16);
        let key = |i: u64| crate::rng::mix(i + 1);
        let entry = |i: u64| Entry {
            key: key(i),
            depth: 1 + (i % 7) as i32,
            score: i as i32,
            bound: Bound::Exact,
            best: (i % 50) as u16,
        };
        // Each store lands in a slot of its own until the table is full, so what it holds
        // before growing must all be there after.
        let mut held: Vec<u64> = Vec::new();
        for i in 0..5000u64 {
            let mask = t.mask; // the slot is taken before the table grows
            t.insert(entry(i));
            held.retain(|&j| j == i || key(j) & mask != key(i) & mask);
            held.push(i);
            for &j in held.iter().rev().take(8) {
                let got = t.get(key(j)).unwrap();
                assert_eq!((got.score, got.best), (j as i32, (j % 50) as u16));
            }
        }
        assert_eq!(t.capacity(), 1 << 10);
        assert!(held.iter().all(|&j| t.get(key(j)).is_some()));
    }

    #[test]
    fn a_growing_table_stays_put_without_memory() {
        let mut t = Table::growing(4, 62).unwrap();
        t.bits = 60; // as if it had grown this far: 2^62 entries cannot be had
        t.grow();
        assert_eq!((t.capacity(), t.max_bits), (16, 60));
    }

    #[test]
    fn a_table_too_large_is_an_error_not_an_abort() {
        assert!(matches!(
            Table::new(62),
            Err(crate::error::Error::OutOfMemory(_))
        ));
    }
}
