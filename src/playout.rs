//! The playout policy: how the random and greedy players choose a move, in the simulation loop,
//! in native matches and in MCTS's playouts. The search players (`ai`) are built on top.

use rand::RngExt;
use rand_xoshiro::Xoshiro256PlusPlus;

use crate::bits::Bits;
use crate::board::{Geometry, Position};
use crate::cascade::play_unchecked;
use crate::error::{Error, Result};
use crate::rules::Config;

/// A playout policy.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Playout {
    /// Uniform over the legal moves.
    Random,
    /// The move after whose cascade the mover holds the most orbs; ties broken at random.
    Greedy,
}

impl Playout {
    /// The policy's name, as `parse` reads it.
    pub fn name(self) -> &'static str {
        match self {
            Playout::Random => "random",
            Playout::Greedy => "greedy",
        }
    }

    /// The policy of a seat by name: "random" or "greedy".
    pub fn parse(name: &str) -> Result<Playout> {
        match name {
            "random" => Ok(Playout::Random),
            "greedy" => Ok(Playout::Greedy),
            _ => Err(Error::InvalidPlayer(format!(
                "unknown player {name:?}; the simulation loop plays \"random\" and \"greedy\""
            ))),
        }
    }
}

/// Chooses a move by `playout` in `pos`, among the `legal` moves (there must be one).
#[inline]
pub fn choose<B: Bits>(
    geo: &Geometry<B>,
    cfg: &Config,
    pos: &Position<B>,
    legal: B,
    playout: Playout,
    rng: &mut Xoshiro256PlusPlus,
) -> usize {
    match playout {
        Playout::Random => legal.pick(|n| rng.random_range(0..n)).unwrap_or(0),
        Playout::Greedy => {
            let mover = pos.to_move as usize;
            let (mut best, mut best_orbs, mut ties) = (0usize, 0u32, 0u32);
            legal.for_each(|cell| {
                let mut after = *pos;
                play_unchecked(geo, cfg.rules, cfg.players, &mut after, cell, &mut ());
                let orbs = after.orbs(mover);
                if ties == 0 || orbs > best_orbs {
                    (best, best_orbs, ties) = (cell, orbs, 1);
                } else if orbs == best_orbs {
                    // Reservoir sampling: each tied move is kept with equal probability.
                    ties += 1;
                    if rng.random_range(0..ties) == 0 {
                        best = cell;
                    }
                }
            });
            best
        }
    }
}
