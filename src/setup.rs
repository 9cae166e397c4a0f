//! `Setup`: a position as described, not yet validated (shakmaty's `Setup` beside its
//! `Position`). Notation reads text into one (`notation::parse_position`); `Game::from_setup`
//! checks that it is a possible position and builds the game.

use crate::rules::Rules;

/// The contents of one cell in a position description.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CellState {
    pub count: u8,
    pub owner: Option<usize>,
}

/// An unvalidated position, as read from notation by `parse_position`; `Game::from_setup`
/// (through `AnyGame::from_setup`) checks that it is a possible position.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Setup {
    pub width: i64,
    pub height: i64,
    pub players: i64,
    pub rules: Rules,
    pub cells: Vec<CellState>,
    pub to_move: usize,
    pub moved: u8,
    pub out: u8,
    pub ply: u32,
}
