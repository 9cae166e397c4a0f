//! Text notation: cell names (`c3`) and the one-line position notation.
//!
//! Position notation, fields separated by single spaces (see README "Position notation"):
//!
//! ```text
//! 5x5 colorwars 2 ...../.3a.../...../...3b./..... a ab - 2
//! ```
//!
//! size, rules (a preset name or `OPENING+BURST`), players, the board (rows from row 1 down,
//! separated by `/`; each cell `.` when empty or its count followed by its owner's letter),
//! the player to move, the players who have moved, the players who are out (`-` for none),
//! and the ply.

use crate::error::{Error, Result};
use crate::game::AnyGame;
use crate::rules::Rules;
pub use crate::setup::{CellState, Setup};

/// The column name of column `x`: a..z, then aa, ab, ... (like spreadsheet columns).
pub fn column_name(x: usize) -> String {
    let mut n = x + 1;
    let mut s = Vec::new();
    while n > 0 {
        n -= 1;
        s.push(b'a' + (n % 26) as u8);
        n /= 26;
    }
    s.reverse();
    String::from_utf8(s).expect("ascii")
}

/// The name of a cell: column letters, then the row number counted from 1 (row 1 is y = 0).
pub fn cell_name(cell: usize, width: usize) -> String {
    format!("{}{}", column_name(cell % width), cell / width + 1)
}

/// Parses a cell name such as `c3` or `ab12` (case-insensitive) on a `width × height` board.
pub fn parse_cell(s: &str, width: usize, height: usize) -> Result<usize> {
    let allowed = || {
        format!(
            "cells are named by a column letter a to {} and a row number 1 to {height}, e.g. \"a1\"",
            column_name(width - 1)
        )
    };
    let t = s.to_ascii_lowercase();
    let split = t.find(|c: char| !c.is_ascii_lowercase()).unwrap_or(t.len());
    let (letters, digits) = t.split_at(split);
    if letters.is_empty()
        || digits.is_empty()
        || letters.len() > 3
        || !digits.bytes().all(|b| b.is_ascii_digit())
        || digits.len() > 6
    {
        return Err(Error::InvalidMove(format!(
            "{s:?} is not a cell name: {}",
            allowed()
        )));
    }
    let x = letters
        .bytes()
        .fold(0usize, |n, b| n * 26 + (b - b'a' + 1) as usize)
        - 1;
    let row: usize = digits
        .parse()
        .map_err(|_| Error::InvalidMove(format!("{s:?} is not a cell name: {}", allowed())))?;
    if x >= width || row == 0 || row > height {
        return Err(Error::InvalidMove(format!(
            "{s:?} is not on this {width}x{height} board: {}",
            allowed()
        )));
    }
    Ok((row - 1) * width + x)
}

fn players_field(mask: u8) -> String {
    if mask == 0 {
        return "-".into();
    }
    (0..8)
        .filter(|p| mask & (1 << p) != 0)
        .map(|p| (b'a' + p) as char)
        .collect()
}

/// Writes a game's position in the notation.
pub fn format_position(g: &AnyGame) -> String {
    let cfg = g.cfg();
    let counts = g.counts();
    let owners = g.owners();
    let mut board = String::new();
    for y in 0..cfg.height {
        if y > 0 {
            board.push('/');
        }
        for x in 0..cfg.width {
            let i = y * cfg.width + x;
            if counts[i] == 0 {
                board.push('.');
            } else {
                board.push((b'0' + counts[i]) as char);
                board.push((b'a' + owners[i] as u8) as char);
            }
        }
    }
    format!(
        "{}x{} {} {} {} {} {} {} {}",
        cfg.width,
        cfg.height,
        cfg.rules.name(),
        cfg.players,
        board,
        (b'a' + g.to_move() as u8) as char,
        players_field(g.moved()),
        players_field(g.out()),
        g.ply()
    )
}

fn bad<T>(msg: impl Into<String>) -> Result<T> {
    Err(Error::InvalidPosition(msg.into()))
}

fn parse_int(field: &str, what: &str, max: i64) -> Result<i64> {
    let not_whole = || format!("{what} {field:?} is not a whole number from 0 to {max}");
    if field.is_empty() || field.len() > 9 || !field.bytes().all(|b| b.is_ascii_digit()) {
        return bad(not_whole());
    }
    let n: i64 = field
        .parse()
        .map_err(|_| Error::InvalidPosition(not_whole()))?;
    if n > max {
        return bad(format!("{what} {n} is too large (at most {max})"));
    }
    Ok(n)
}

fn parse_seat(c: u8, players: i64, what: &str) -> Result<usize> {
    let p = c.wrapping_sub(b'a') as i64;
    if !(0..players).contains(&p) {
        return bad(format!(
            "{what} {:?} is not a player: players are the letters a to {}",
            c as char,
            (b'a' + (players as u8 - 1)) as char
        ));
    }
    Ok(p as usize)
}

fn parse_seats(field: &str, players: i64, what: &str) -> Result<u8> {
    if field == "-" {
        return Ok(0);
    }
    let mut mask = 0u8;
    for &c in field.as_bytes() {
        let p = parse_seat(c, players, what)?;
        if mask & (1 << p) != 0 {
            return bad(format!("{what}: player {:?} is listed twice", c as char));
        }
        mask |= 1 << p;
    }
    Ok(mask)
}

/// Reads a position from the notation (structure only; `AnyGame::from_setup` checks that it
/// is a possible position).
pub fn parse_position(text: &str) -> Result<Setup> {
    let fields: Vec<&str> = text.split_ascii_whitespace().collect();
    if fields.len() != 8 {
        return bad(format!(
            "expected 8 fields separated by spaces (SIZE RULES PLAYERS BOARD TO_MOVE MOVED OUT PLY), found {}",
            fields.len()
        ));
    }
    let Some((w, h)) = fields[0].split_once('x') else {
        return bad(format!(
            "size {:?} is not WIDTHxHEIGHT, e.g. 5x5",
            fields[0]
        ));
    };
    let width = parse_int(w, "width", 1_000)?;
    let height = parse_int(h, "height", 1_000)?;
    let rules = Rules::parse(fields[1]).map_err(|e| Error::InvalidPosition(e.to_string()))?;
    let players = parse_int(fields[2], "players", 1_000)?;
    if !(crate::limits::MIN_SIDE as i64..=crate::limits::MAX_SIDE as i64).contains(&width)
        || !(crate::limits::MIN_SIDE as i64..=crate::limits::MAX_SIDE as i64).contains(&height)
    {
        return bad(Error::InvalidSize { width, height }.to_string());
    }
    if !(2..=8).contains(&players) || players > width * height {
        return bad(Error::InvalidPlayers {
            players,
            cells: width * height,
        }
        .to_string());
    }
    let rows: Vec<&str> = fields[3].split('/').collect();
    if rows.len() as i64 != height {
        return bad(format!(
            "the board has {} rows separated by '/', but the size says {height}",
            rows.len()
        ));
    }
    let mut cells = Vec::with_capacity((width * height) as usize);
    for (y, row) in rows.iter().enumerate() {
        let b = row.as_bytes();
        let mut i = 0;
        let mut n = 0;
        while i < b.len() {
            if b[i] == b'.' {
                cells.push(CellState {
                    count: 0,
                    owner: None,
                });
                i += 1;
            } else if b[i].is_ascii_digit() {
                let count = b[i] - b'0';
                let Some(&owner) = b.get(i + 1) else {
                    return bad(format!(
                        "row {}: the count {count} at its end has no owner letter",
                        y + 1
                    ));
                };
                let p = parse_seat(owner, players, &format!("row {}: the owner", y + 1))?;
                cells.push(CellState {
                    count,
                    owner: Some(p),
                });
                i += 2;
            } else {
                return bad(format!(
                    "row {}: unexpected {:?}; a cell is '.' (empty) or a count followed by the owner's letter, e.g. 2a",
                    y + 1,
                    b[i] as char
                ));
            }
            n += 1;
        }
        if n != width {
            return bad(format!(
                "row {} has {n} cells, but the board is {width} wide",
                y + 1
            ));
        }
    }
    let to_move_field = fields[4].as_bytes();
    if to_move_field.len() != 1 {
        return bad(format!("to move {:?} must be one player letter", fields[4]));
    }
    let to_move = parse_seat(to_move_field[0], players, "to move")?;
    let moved = parse_seats(fields[5], players, "moved")?;
    let out = parse_seats(fields[6], players, "out")?;
    let ply = parse_int(fields[7], "ply", u32::MAX as i64 / 2)? as u32;
    Ok(Setup {
        width,
        height,
        players,
        rules,
        cells,
        to_move,
        moved,
        out,
        ply,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::Config;

    #[test]
    fn cell_names_round_trip() {
        assert_eq!(cell_name(0, 5), "a1");
        assert_eq!(cell_name(12, 5), "c3");
        assert_eq!(column_name(26), "aa");
        assert_eq!(column_name(31), "af");
        for w in [2usize, 5, 27, 32] {
            for c in 0..w * 3 {
                assert_eq!(parse_cell(&cell_name(c, w), w, 3).unwrap(), c);
            }
        }
        for bad in [
            "",
            "3",
            "c",
            "c0",
            "f1",
            "a6",
            "c3x",
            "é3",
            "a99999999999",
            "zzzz1",
            "-1",
        ] {
            assert!(parse_cell(bad, 5, 5).is_err(), "{bad:?}");
        }
    }

    #[test]
    fn position_round_trip() {
        let mut g = AnyGame::new(Config::new(5, 5, 2, Rules::COLORWARS, 0).unwrap());
        g.play(6).unwrap();
        g.play(18).unwrap();
        let text = format_position(&g);
        assert_eq!(
            text,
            "5x5 colorwars 2 ...../.3a.../...../...3b./..... a ab - 2"
        );
        let back = AnyGame::from_setup(&parse_position(&text).unwrap()).unwrap();
        assert_eq!(format_position(&back), text);
    }

    #[test]
    fn malformed_positions_are_errors() {
        for bad in [
            "",
            "5x5",
            "5y5 colorwars 2 ...../...../...../...../..... a - - 0",
            "5x5 chess 2 ...../...../...../...../..... a - - 0",
            "5x5 colorwars 9 ...../...../...../...../..... a - - 0",
            "5x5 colorwars 2 ...../...../...../..... a - - 0",
            "5x5 colorwars 2 ...../...../...../...../.... a - - 0",
            "5x5 colorwars 2 ...../...../...../...../....3 a - - 0",
            "5x5 colorwars 2 ...../...../...../...../....3c a - - 0",
            "5x5 colorwars 2 ...../...../...../...../..... c - - 0",
            "5x5 colorwars 2 ...../...../...../...../..... a aa - 0",
            "5x5 colorwars 2 ...../...../...../...../..... a - - x",
            "99999999999x5 colorwars 2 ...../...../...../...../..... a - - 0",
        ] {
            assert!(
                parse_position(bad)
                    .and_then(|s| AnyGame::from_setup(&s))
                    .is_err(),
                "{bad:?}"
            );
        }
    }
}
