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
        self.key_from(&self.hashes(pos), pos)
    }

    /// The hash of each symmetric image of `pos`'s cells (what `key` takes the least of).
    pub fn hashes<B: Bits>(&self, pos: &Position<B>) -> [u64; 8] {
        let mut h = [0u64; 8];
        for p in 0..2 {
            pos.own[p].for_each(|c| self.toggle(&mut h, c, p, pos.count(c)));
        }
        h
    }

    /// The images' hashes of `child` from those of `parent` (`h`), rehashing only the cells
    /// whose owner or count differ: one cell after most moves, against every occupied cell
    /// for `hashes`.
    pub fn child_hashes<B: Bits>(
        &self,
        h: &[u64; 8],
        parent: &Position<B>,
        child: &Position<B>,
    ) -> [u64; 8] {
        let changed = (parent.c[0] ^ child.c[0])
            | (parent.c[1] ^ child.c[1])
            | (parent.c[2] ^ child.c[2])
            | (parent.own[0] ^ child.own[0])
            | (parent.own[1] ^ child.own[1]);
        let mut h = *h;
        changed.for_each(|c| {
            for p in 0..2 {
                if parent.own[p].has(c) {
                    self.toggle(&mut h, c, p, parent.count(c));
                }
                if child.own[p].has(c) {
                    self.toggle(&mut h, c, p, child.count(c));
                }
            }
        });
        h
    }

    /// `key` of `pos` from its images' hashes (`hashes` or `child_hashes`).
    pub fn key_from<B: Bits>(&self, h: &[u64; 8], pos: &Position<B>) -> u64 {
        let least = h[..self.count].iter().copied().min().unwrap_or(0);
        least
            ^ mix(0x51de_0000 | u64::from(pos.to_move))
            ^ mix(0xf1a9_0000_0000 | u64::from(pos.moved) << 8 | u64::from(pos.out))
    }

    /// Adds or removes (xor) `owner`'s `count` orbs on `cell` in every image's hash.
    #[inline(always)]
    fn toggle(&self, h: &mut [u64; 8], cell: usize, owner: usize, count: u8) {
        let row = &self.keys[(cell * 2 + owner) * 8 + usize::from(count)];
        for t in 0..8 {
            h[t] ^= row[t];
        }
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
