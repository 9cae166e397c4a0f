//! Every limit on what a caller may ask, in one place: the rules code checks against these,
//! the error messages quote them, and the Python layer reads the same table (`_core.LIMITS`),
//! so a limit is never restated.

/// Smallest supported side: a 1-wide board has cells of capacity 0 (RULES.md §2).
pub const MIN_SIDE: usize = 2;
/// Largest supported side; boards up to 32 × 32 (1024 cells).
pub const MAX_SIDE: usize = 32;
pub const MIN_PLAYERS: usize = 2;
pub const MAX_PLAYERS: usize = 8;
/// The most threads one call may start (pool workers, or MCTS trees); 0 asks for one per core
/// where a pool is meant.
pub const MAX_THREADS: usize = 256;
/// The longest time budget of one decision, in seconds.
pub const MAX_SECONDS: f64 = 1e6;
/// Alpha-beta's deepest fixed depth.
pub const MAX_ALPHABETA_DEPTH: i32 = 64;
/// The exact solver's deepest search, in plies.
pub const MAX_SOLVER_DEPTH: i32 = 10_000;
/// The longest MCTS playout cut-off, in moves.
pub const MAX_CUTOFF: u32 = 100_000;
/// The most MCTS simulations of one decision.
pub const MAX_SIMULATIONS: u32 = 1_000_000_000;
/// The largest MCTS exploration constant.
pub const MAX_C: f64 = 1e6;
/// The most games of one run (results are bounded by memory too).
pub const MAX_GAMES: u64 = 1 << 40;
/// The most environments of one `VectorEnv`.
pub const MAX_ENVS: u64 = 1 << 24;
/// The longest `max_plies`.
pub const MAX_PLIES: u32 = (1 << 31) - 1;
/// The deepest bound of the exact-length search, in plies (its `start` too).
pub const MAX_LENGTH_BOUND: u32 = 10_000;

/// The table the Python layer reads: (name, value) pairs (whole numbers there as ints).
pub const TABLE: [(&str, f64); 16] = [
    ("min_side", MIN_SIDE as f64),
    ("max_side", MAX_SIDE as f64),
    ("min_players", MIN_PLAYERS as f64),
    ("max_players", MAX_PLAYERS as f64),
    ("max_threads", MAX_THREADS as f64),
    ("max_seconds", MAX_SECONDS),
    ("max_alphabeta_depth", MAX_ALPHABETA_DEPTH as f64),
    ("max_solver_depth", MAX_SOLVER_DEPTH as f64),
    ("max_cutoff", MAX_CUTOFF as f64),
    ("max_cells", (MAX_SIDE * MAX_SIDE) as f64),
    ("max_simulations", MAX_SIMULATIONS as f64),
    ("max_c", MAX_C),
    ("max_games", MAX_GAMES as f64),
    ("max_envs", MAX_ENVS as f64),
    ("max_plies", MAX_PLIES as f64),
    ("max_length_bound", MAX_LENGTH_BOUND as f64),
];
