//! Board symmetries: the cell permutations of a board (8 on a square board, 4 on a
//! rectangle), one key shared by a position and all its symmetric images, and the legal moves
//! of a position grouped by symmetry. The proof-number search uses them to prove each
//! position once for all its images.

use crate::bits::Bits;
use crate::board::{Geometry, Position};
use crate::cascade::{legal_mask, play_unchecked};
use crate::rng::mix;
use crate::rules::Rules;

/// The cell permutations of a board's symmetries (8 on a square board, 4 on a rectangle) and
/// Zobrist keys indexed so that one pass over the occupied cells hashes every symmetric image.
pub struct Symmetries {
    count: usize,
    /// `images[c][t]`: where symmetry `t` sends cell `c`.
    images: Vec<[u16; 8]>,
    /// `keys[(c * 2 + owner) * 8 + count][t]`: the key of (owner, count) on the image of `c`.
    keys: Vec<[u64; 8]>,
}

impl Symmetries {
    pub fn new(width: usize, height: usize) -> Self {
        let (w, h) = (width, height);
        // The identity, the two reflections and the half turn; on a square board also the
        // transposition, the two quarter turns and the anti-transposition.
        let count = if w == h { 8 } else { 4 };
        let map = |t: usize, x: usize, y: usize| match t {
            0 => (x, y),
            1 => (w - 1 - x, y),
            2 => (x, h - 1 - y),
            3 => (w - 1 - x, h - 1 - y),
            4 => (y, x),
            5 => (w - 1 - y, x),
            6 => (y, h - 1 - x),
            _ => (w - 1 - y, h - 1 - x),
        };
        let cells = w * h;
        let images: Vec<[u16; 8]> = (0..cells)
            .map(|c| {
                let mut img = [0u16; 8];
                for (t, cell) in img.iter_mut().enumerate().take(count) {
                    let (x, y) = map(t, c % w, c / w);
                    *cell = (y * w + x) as u16;
                }
                img
            })
            .collect();
        let key =
            |cell: usize, feature: usize| mix(0x5e_0000_0000 | (cell as u64) << 8 | feature as u64);
        let keys = (0..cells * 16)
            .map(|i| {
                let (c, feature) = (i / 16, i % 16);
                let mut row = [0u64; 8];
                for (t, k) in row.iter_mut().enumerate().take(count) {
                    *k = key(usize::from(images[c][t]), feature);
                }
                row
            })
            .collect();
        Symmetries {
            count,
            images,
            keys,
        }
    }

    /// How many symmetries the board has (the identity included).
    pub fn count(&self) -> usize {
        self.count
    }

    /// Where symmetry `t` sends `cell`.
    pub fn image(&self, cell: usize, t: usize) -> usize {
        usize::from(self.images[cell][t])
    }

    /// One key for a position and all its symmetric images (the least of their hashes): the
    /// cells' owners and counts, the player to move, who has moved and who is out.
    pub fn key<B: Bits>(&self, pos: &Position<B>) -> u64 {
        let mut h = [0u64; 8];
        for p in 0..2 {
            pos.own[p].for_each(|c| {
                let row = &self.keys[(c * 2 + p) * 8 + usize::from(pos.count(c))];
                for t in 0..8 {
                    h[t] ^= row[t];
                }
            });
        }
        let least = h[..self.count].iter().copied().min().unwrap_or(0);
        least
            ^ mix(0x51de_0000 | u64::from(pos.to_move))
            ^ mix(0xf1a9_0000_0000 | u64::from(pos.moved) << 8 | u64::from(pos.out))
    }
}

impl Symmetries {
    /// The legal moves of `pos` grouped by symmetry: moves whose positions are images of one
    /// another share a group (ascending cells, the groups ordered by their first cell).
    pub fn move_groups<B: Bits>(
        &self,
        geo: &Geometry<B>,
        rules: Rules,
        players: usize,
        pos: &Position<B>,
    ) -> Vec<Vec<usize>> {
        let mut groups: Vec<(u64, Vec<usize>)> = Vec::new();
        legal_mask(geo, rules, pos).for_each(|m| {
            let mut child = *pos;
            play_unchecked(geo, rules, players, &mut child, m, &mut ());
            let key = self.key(&child);
            match groups.iter_mut().find(|(k, _)| *k == key) {
                Some((_, cells)) => cells.push(m),
                None => groups.push((key, vec![m])),
            }
        });
        groups.into_iter().map(|(_, cells)| cells).collect()
    }
}
