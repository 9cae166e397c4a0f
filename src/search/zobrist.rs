//! Zobrist hashing: one 64-bit key per position, for the transposition tables and seeds.

use crate::bits::Bits;
use crate::board::Position;
use crate::rng::mix;

/// Zobrist hash of a position: the XOR of one pseudo-random key per (cell, owner, count),
/// plus keys for the player to move and who has moved / is out. The keys are `mix` of the
/// feature's index, so no table is stored.
pub fn zobrist<B: Bits>(pos: &Position<B>, players: usize) -> u64 {
    let mut h = mix(0x7e57_0000 | u64::from(pos.to_move))
        ^ mix(0x0a11_0000_0000 | u64::from(pos.moved) << 8 | u64::from(pos.out));
    for (p, own) in pos.own.iter().enumerate().take(players) {
        own.for_each(|c| {
            let key = (c as u64) << 8 | (p as u64) << 4 | u64::from(pos.count(c));
            h ^= mix(key.wrapping_add(0x9e37_79b9_7f4a_7c15));
        });
    }
    h
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::board::Geometry;
    use crate::cascade::{legal_mask, play_unchecked};
    use crate::rules::{Config, Rules};

    #[test]
    fn zobrist_tells_positions_apart() {
        let cfg = Config::new(3, 3, 2, Rules::CLASSIC, 0).unwrap();
        let geo = Geometry::<u64>::new(3, 3);
        let mut seen = std::collections::HashMap::new();
        let mut stack = vec![Position::<u64>::start(&cfg)];
        while let Some(pos) = stack.pop() {
            if seen.len() > 20_000 {
                break;
            }
            let h = zobrist(&pos, 2);
            if let Some(other) = seen.insert(h, pos) {
                assert_eq!(other, pos, "hash collision");
                continue;
            }
            legal_mask(&geo, cfg.rules, &pos).for_each(|m| {
                let mut child = pos;
                play_unchecked(&geo, cfg.rules, 2, &mut child, m, &mut ());
                child.ply = 0; // the same position reached by different move orders
                stack.push(child);
            });
        }
        assert!(seen.len() > 1000);
    }
}
