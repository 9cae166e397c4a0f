//! Game-tree search for two players: Zobrist hashing, an iterative-deepening negamax with a
//! transposition table (the alpha-beta player), and the exact solver built on the same search.
//!
//! Scores are from the point of view of the player to move. A won game scores
//! `WIN - plies to the win` (so the winner prefers the shortest win and the loser the longest
//! resistance); positions at the search horizon score the evaluation (alpha-beta) or 0,
//! "unknown" (the solver).

mod alphabeta;
pub mod learned;
mod learned_weights;
mod length;
mod pns;
mod proof_table;
mod solver;
mod symmetry;
mod table;
mod zobrist;

pub use alphabeta::{
    alphabeta_move, alphabeta_move_eval, alphabeta_move_with, evaluate, Eval, LeafEval, Searcher,
};
pub use length::{
    exact_length, search_length, CheckpointInfo, Length, LengthOutcome, LengthSearch, LengthTable,
    CHECKPOINT_MAGIC, CHECKPOINT_VERSION, LENGTH_STACK, MAX_BOUND, NEAR,
};
pub use pns::{
    probe_position, prove_position, prove_position_first, ProbeOutcome, Proof, ProveOutcome,
    Prover, Team, MAX_THREADS as MAX_PROVER_THREADS, PROVER_STACK,
};
pub use proof_table::{ProofTable, Proven, PROOF_BYTES};
pub use solver::{solve, solve_position, MoveResult, Solution, Solver};
pub use symmetry::Symmetries;
pub use zobrist::zobrist;

pub const WIN: i32 = 1_000_000;
/// Scores beyond this are proven wins or losses.
pub const PROVEN: i32 = WIN - 100_000;
