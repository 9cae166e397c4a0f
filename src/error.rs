//! The errors of the rules core. Each says what was wrong and what is allowed; the Python
//! binding maps each variant to a `ValueError` subclass (see `src/python/mod.rs`).

use core::fmt;

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Error {
    /// Board width or height outside what the engine supports.
    InvalidSize { width: i64, height: i64 },
    /// Player count outside 2..=8, or more players than cells.
    InvalidPlayers { players: i64, cells: i64 },
    /// A seat (a starting player, a player letter) that is not one of the players.
    InvalidSeat { seat: i64, players: i64 },
    /// An unknown rule preset or axis value.
    InvalidRules(String),
    /// A player (what chooses moves) that is not known or not allowed: an unknown name or bad
    /// settings.
    InvalidPlayer(String),
    /// Move input that does not name a cell of this board.
    InvalidMove(String),
    /// A cell of the board on which the player to move may not place (`name`: the cell's
    /// name, such as `b2`, as people type it).
    IllegalMove {
        cell: usize,
        name: String,
        reason: String,
    },
    /// A move after the game has been decided.
    GameOver { winner: u8 },
    /// Notation that does not parse, or that describes an impossible position.
    InvalidPosition(String),
    /// A request whose memory could not be had (the binding raises `MemoryError`).
    OutOfMemory(String),
}

impl Error {
    /// `IllegalMove` at `cell` of a board `width` cells wide, with the cell's name.
    pub fn illegal_move(cell: usize, width: usize, reason: String) -> Self {
        Error::IllegalMove {
            cell,
            name: crate::notation::cell_name(cell, width),
            reason,
        }
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::InvalidSize { width, height } => write!(
                f,
                "invalid board size {width}x{height}: width and height must each be from {} to {}",
                crate::limits::MIN_SIDE,
                crate::limits::MAX_SIDE
            ),
            Error::InvalidPlayers { players, cells } => write!(
                f,
                "invalid number of players {players}: allowed are 2 to 8, and at most the number \
                 of cells ({cells})"
            ),
            Error::InvalidSeat { seat, players } => write!(
                f,
                "invalid player {seat}: players are numbered 0 to {} (letters a to {})",
                players - 1,
                (b'a' + (*players as u8).saturating_sub(1).min(7)) as char
            ),
            Error::InvalidRules(msg) => write!(f, "invalid rules: {msg}"),
            Error::InvalidPlayer(msg) => write!(f, "invalid player: {msg}"),
            Error::InvalidMove(msg) => write!(f, "invalid move: {msg}"),
            Error::IllegalMove { cell, name, reason } => {
                write!(f, "illegal move {name} (cell {cell}): {reason}")
            }
            Error::GameOver { winner } => write!(
                f,
                "illegal move: the game is over (player {} has won); no move is allowed",
                (b'a' + (*winner).min(7)) as char
            ),
            Error::InvalidPosition(msg) => write!(f, "invalid position: {msg}"),
            Error::OutOfMemory(what) => write!(f, "not enough memory for {what}"),
        }
    }
}

impl std::error::Error for Error {}

pub type Result<T> = core::result::Result<T, Error>;

/// A vector of `len` copies of `value`, or `Error::OutOfMemory` naming `what` (never an
/// abort: a caller's number must not size an allocation unchecked).
pub fn try_vec<T: Clone>(len: usize, value: T, what: &str) -> Result<Vec<T>> {
    let mut v = Vec::new();
    v.try_reserve_exact(len)
        .map_err(|_| Error::OutOfMemory(format!("{what} ({len} items)")))?;
    v.resize(len, value);
    Ok(v)
}

/// Grows `v` by one item without aborting on a failed allocation.
#[inline]
pub fn try_push<T>(v: &mut Vec<T>, item: T, what: &str) -> Result<()> {
    if v.len() == v.capacity() {
        v.try_reserve(v.len().max(16))
            .map_err(|_| Error::OutOfMemory(what.to_string()))?;
    }
    v.push(item);
    Ok(())
}

/// An I/O error as the operating system words it, without Rust's "(os error 28)".
pub fn os_words(e: &std::io::Error) -> String {
    let text = e.to_string();
    match text.rsplit_once(" (os error ") {
        Some((words, _)) => words.to_string(),
        None => text,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_os_error_is_said_in_the_systems_words_alone() {
        let full = std::io::Error::from_raw_os_error(28);
        assert!(full.to_string().ends_with("(os error 28)"));
        assert_eq!(os_words(&full), "No space left on device");
        let ours = std::io::Error::other("the board's name is too long");
        assert_eq!(os_words(&ours), "the board's name is too long");
    }
}
