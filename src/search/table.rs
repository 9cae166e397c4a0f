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

/// A fixed-size transposition table (`2^bits` entries, indexed by the hash's low bits). A new
/// entry replaces the old one unless that one is the same position searched deeper.
pub(super) struct Table {
    entries: Vec<Entry>,
    mask: u64,
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
        })
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
    fn a_table_too_large_is_an_error_not_an_abort() {
        assert!(matches!(
            Table::new(62),
            Err(crate::error::Error::OutOfMemory(_))
        ));
    }
}
