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
    pub(super) fn new(bits: u32) -> Self {
        let empty = Entry {
            key: 0,
            depth: -1,
            score: 0,
            bound: Bound::Exact,
            best: 0,
        };
        Table {
            entries: vec![empty; 1 << bits],
            mask: (1 << bits) - 1,
        }
    }

    pub(super) fn get(&self, key: u64) -> Option<Entry> {
        let e = self.entries[(key & self.mask) as usize];
        (e.key == key && e.depth >= 0).then_some(e)
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
pub(super) enum Bound {
    Exact,
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
