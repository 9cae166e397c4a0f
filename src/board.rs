//! Board geometry and storage.
//!
//! A position is a handful of bit sets over the cells (row-major, cell = y * width + x):
//! three bit planes hold each cell's orb count (0 to 7, see below) and one set per player
//! holds the cells that player owns. A cell with no orbs is owned by nobody.
//!
//! Why counts fit in three bits: a cell at rest holds at most its capacity (3) or, as an
//! untouched opening cell, 3 orbs; in one wave it gains at most one orb per neighbour, and a
//! cell that bursts loses at least as many as it can gain in the same wave. So no cell ever
//! holds more than 3 + 4 = 7 orbs.

use crate::bits::Bits;
use crate::rules::Config;

/// Cell masks that depend only on the board's size.
#[derive(Clone, Copy, Debug)]
pub struct Geometry<B> {
    pub width: usize,
    pub height: usize,
    pub cells: usize,
    /// Every cell of the board.
    pub all: B,
    /// Cells that are not in the first column (they have a left neighbour).
    pub not_first_col: B,
    /// Cells that are not in the last column (they have a right neighbour).
    pub not_last_col: B,
    /// Cells with 2 neighbours (capacity 1).
    pub corner: B,
    /// Cells with 3 neighbours (capacity 2).
    pub edge: B,
    /// Cells with 4 neighbours (capacity 3).
    pub inner: B,
}

impl<B: Bits> Geometry<B> {
    pub fn new(width: usize, height: usize) -> Self {
        debug_assert!(width * height <= B::CAPACITY);
        let mut g = Geometry {
            width,
            height,
            cells: width * height,
            all: B::ZERO,
            not_first_col: B::ZERO,
            not_last_col: B::ZERO,
            corner: B::ZERO,
            edge: B::ZERO,
            inner: B::ZERO,
        };
        for y in 0..height {
            for x in 0..width {
                let b = B::bit(y * width + x);
                g.all |= b;
                if x > 0 {
                    g.not_first_col |= b;
                }
                if x + 1 < width {
                    g.not_last_col |= b;
                }
                match degree(width, height, x, y) {
                    2 => g.corner |= b,
                    3 => g.edge |= b,
                    _ => g.inner |= b,
                }
            }
        }
        g
    }

    pub fn degree(&self, cell: usize) -> usize {
        degree(
            self.width,
            self.height,
            cell % self.width,
            cell / self.width,
        )
    }

    /// `degree - 1`: the most orbs the cell holds at rest (RULES.md §1).
    pub fn capacity(&self, cell: usize) -> usize {
        self.degree(cell) - 1
    }

    /// The cells whose count exceeds their capacity.
    #[inline(always)]
    pub fn over_capacity(&self, c: &[B; 3]) -> B {
        // count > 1 on corners, > 2 on edges, > 3 inside (count = c0 + 2 c1 + 4 c2).
        c[2] | (c[1] & (self.corner | (c[0] & self.edge)))
    }

    /// Orthogonal neighbours of a cell, in the order up, left, right, down.
    pub fn neighbours(&self, cell: usize) -> impl Iterator<Item = usize> {
        let (w, h) = (self.width, self.height);
        let (x, y) = (cell % w, cell / w);
        [
            (y > 0).then(|| cell - w),
            (x > 0).then(|| cell - 1),
            (x + 1 < w).then(|| cell + 1),
            (y + 1 < h).then(|| cell + w),
        ]
        .into_iter()
        .flatten()
    }
}

fn degree(width: usize, height: usize, x: usize, y: usize) -> usize {
    usize::from(x > 0)
        + usize::from(x + 1 < width)
        + usize::from(y > 0)
        + usize::from(y + 1 < height)
}

/// Marks "no winner yet".
pub const NO_WINNER: u8 = u8::MAX;

/// Everything that changes during a game. `Copy`, so undo is a plain copy.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Position<B> {
    /// Orb counts as bit planes: count = c[0] + 2 c[1] + 4 c[2].
    pub c: [B; 3],
    /// The cells each player owns (only the first `players` entries are used).
    pub own: [B; 8],
    pub to_move: u8,
    /// Bit p set: player p has moved at least once.
    pub moved: u8,
    /// Bit p set: player p is out.
    pub out: u8,
    /// The winning player, or `NO_WINNER`.
    pub winner: u8,
    /// Moves played since the start of the game.
    pub ply: u32,
}

impl<B: Bits> Position<B> {
    /// The empty board of a new game.
    pub fn start(cfg: &Config) -> Self {
        Position {
            c: [B::ZERO; 3],
            own: [B::ZERO; 8],
            to_move: cfg.first as u8,
            moved: 0,
            out: 0,
            winner: NO_WINNER,
            ply: 0,
        }
    }

    #[inline(always)]
    pub fn occupied(&self) -> B {
        self.c[0] | self.c[1] | self.c[2]
    }

    pub fn count(&self, cell: usize) -> u8 {
        u8::from(self.c[0].has(cell))
            | u8::from(self.c[1].has(cell)) << 1
            | u8::from(self.c[2].has(cell)) << 2
    }

    pub fn owner(&self, cell: usize, players: usize) -> Option<usize> {
        (0..players).find(|&p| self.own[p].has(cell))
    }

    pub fn set_cell(&mut self, cell: usize, count: u8, owner: Option<usize>) {
        let b = B::bit(cell);
        for (k, plane) in self.c.iter_mut().enumerate() {
            if (count >> k) & 1 == 1 {
                *plane |= b;
            } else {
                *plane &= !b;
            }
        }
        for own in self.own.iter_mut() {
            *own &= !b;
        }
        if let Some(p) = owner {
            self.own[p] |= b;
        }
    }

    /// The orbs player `p` holds in total.
    pub fn orbs(&self, p: usize) -> u32 {
        self.orbs_in(self.own[p])
    }

    /// The orbs in the cells of `m`.
    pub fn orbs_in(&self, m: B) -> u32 {
        (self.c[0] & m).count() + 2 * (self.c[1] & m).count() + 4 * (self.c[2] & m).count()
    }

    pub fn winner(&self) -> Option<usize> {
        (self.winner != NO_WINNER).then_some(self.winner as usize)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bits::Wide;

    #[test]
    fn degrees_and_capacity() {
        // RULES.md §1: 2 neighbours in a corner, 3 on an edge, 4 inside; capacity = degree - 1.
        let g = Geometry::<u64>::new(3, 3);
        assert_eq!(
            (0..9).map(|c| g.capacity(c)).collect::<Vec<_>>(),
            [1, 2, 1, 2, 3, 2, 1, 2, 1]
        );
        assert_eq!(g.corner.count() + g.edge.count() + g.inner.count(), 9);
        let w = Geometry::<Wide<16>>::new(32, 32);
        assert_eq!(w.corner.count(), 4);
        assert_eq!(w.edge.count(), 4 * 30);
        assert_eq!(w.inner.count(), 30 * 30);
        assert_eq!(g.neighbours(4).collect::<Vec<_>>(), [1, 3, 5, 7]);
        assert_eq!(g.neighbours(0).collect::<Vec<_>>(), [1, 3]);
    }

    #[test]
    fn over_capacity_matches_arithmetic() {
        let g = Geometry::<u64>::new(4, 3);
        for cell in 0..12 {
            for count in 0..8u8 {
                let mut p = Position::<u64>::start(
                    &Config::new(4, 3, 2, crate::rules::Rules::CLASSIC, 0).unwrap(),
                );
                p.set_cell(cell, count, Some(0));
                assert_eq!(p.count(cell), count);
                let over = g.over_capacity(&p.c).has(cell);
                assert_eq!(
                    over,
                    usize::from(count) > g.capacity(cell),
                    "cell {cell} count {count}"
                );
            }
        }
    }
}
