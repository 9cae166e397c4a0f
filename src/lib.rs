//! colorwars: a fast, exact engine for the chain-reaction game Color Wars / Chain Reaction.
//!
//! The rules are in `seeds/RULES.md`. One concept per module: `limits` (every limit a caller
//! meets), `rules` (options, presets, the validated configuration), `board` (geometry and
//! storage), `cascade` (placing and wave resolution), `setup` (a position as described,
//! unvalidated), `game` (history, checked moves, position validation), `notation` (text
//! forms), `rng` (the mixer and the per-game generator), `playout` (the random and greedy
//! policies), `simulate` (many games on a thread pool), `ai` (the search players and
//! matches), `search` (alpha-beta, the solver, proof-number search, symmetries, the proof
//! table), `vecenv` (batched environments), `control` (progress and cancellation). The
//! Python binding lives in `python` and is compiled only with the `python` feature, so the
//! rules code never depends on PyO3.

pub mod ai;
pub mod bits;
pub mod board;
pub mod cascade;
pub mod control;
pub mod error;
pub mod game;
pub mod limits;
pub mod notation;
pub mod playout;
pub mod rng;
pub mod rules;
pub mod search;
pub mod setup;
pub mod simulate;
pub mod vecenv;

#[cfg(feature = "python")]
mod python;

#[cfg(test)]
mod proptests;

pub use error::{Error, Result};
pub use game::{AnyGame, Game, Wave};
pub use rules::{Burst, Config, Opening, Rules};
