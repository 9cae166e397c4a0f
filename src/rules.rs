//! Rule options, presets and the validated game configuration (RULES.md §2).

use crate::error::{Error, Result};

pub use crate::limits::{MAX_PLAYERS, MAX_SIDE, MIN_PLAYERS, MIN_SIDE};

/// What a player's first move is (RULES.md §2, the opening axis).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Opening {
    /// First move: three orbs on an empty cell; later moves: one orb on an own cell.
    Drop3,
    /// Every move: one orb on an empty or own cell.
    None,
}

/// What a burst leaves in the cell (RULES.md §2, the burst axis).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Burst {
    /// The cell empties completely; orbs beyond one per neighbour vanish.
    Empty,
    /// The cell loses as many orbs as it has neighbours; any excess stays.
    Subtract,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Rules {
    pub opening: Opening,
    pub burst: Burst,
}

impl Rules {
    /// The default preset, from the Color Wars rules (seed 000).
    pub const COLORWARS: Rules = Rules {
        opening: Opening::Drop3,
        burst: Burst::Empty,
    };
    /// The classic Chain Reaction rules (seeds 001 and 003).
    pub const CLASSIC: Rules = Rules {
        opening: Opening::None,
        burst: Burst::Subtract,
    };

    /// The named presets: one table for the engine, the notation and the Python layer.
    pub const PRESETS: [(&'static str, Rules); 2] =
        [("colorwars", Rules::COLORWARS), ("classic", Rules::CLASSIC)];
    /// The openings by name.
    pub const OPENINGS: [(&'static str, Opening); 2] =
        [("drop3", Opening::Drop3), ("none", Opening::None)];
    /// The bursts by name.
    pub const BURSTS: [(&'static str, Burst); 2] =
        [("empty", Burst::Empty), ("subtract", Burst::Subtract)];

    pub fn preset(name: &str) -> Result<Rules> {
        match Rules::PRESETS.iter().find(|(n, _)| *n == name) {
            Some(&(_, rules)) => Ok(rules),
            None => Err(Error::InvalidRules(format!(
                "unknown rule set {}; allowed are 'colorwars', 'classic', or 'OPENING+BURST' \
                 with OPENING 'drop3' or 'none' and BURST 'empty' or 'subtract'",
                quoted(name)
            ))),
        }
    }

    pub fn from_axes(opening: &str, burst: &str) -> Result<Rules> {
        let Some(&(_, opening)) = Rules::OPENINGS.iter().find(|(n, _)| *n == opening) else {
            return Err(Error::InvalidRules(format!(
                "unknown opening {}; allowed are 'drop3' and 'none'",
                quoted(opening)
            )));
        };
        let Some(&(_, burst)) = Rules::BURSTS.iter().find(|(n, _)| *n == burst) else {
            return Err(Error::InvalidRules(format!(
                "unknown burst {}; allowed are 'empty' and 'subtract'",
                quoted(burst)
            )));
        };
        Ok(Rules { opening, burst })
    }

    /// Parses a preset name or `OPENING+BURST` (the form used in the position notation).
    pub fn parse(s: &str) -> Result<Rules> {
        match s.split_once('+') {
            Some((o, b)) => Rules::from_axes(o, b),
            None => Rules::preset(s),
        }
    }

    pub fn opening_name(self) -> &'static str {
        match self.opening {
            Opening::Drop3 => "drop3",
            Opening::None => "none",
        }
    }

    pub fn burst_name(self) -> &'static str {
        match self.burst {
            Burst::Empty => "empty",
            Burst::Subtract => "subtract",
        }
    }

    /// The canonical name: the preset's name where it is one, else `OPENING+BURST`.
    pub fn name(self) -> String {
        match Rules::PRESETS.iter().find(|(_, r)| *r == self) {
            Some((name, _)) => (*name).into(),
            None => format!("{}+{}", self.opening_name(), self.burst_name()),
        }
    }
}

/// A caller's text in a message, as Python's `repr` shows it and never long: single quotes,
/// escapes for what does not print, at most 60 characters.
fn quoted(text: &str) -> String {
    let shown = format!("'{}'", text.escape_debug());
    if shown.chars().count() <= 60 {
        return shown;
    }
    let cut: String = shown.chars().take(57).collect();
    format!("{cut}...")
}

/// A validated game configuration.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Config {
    pub width: usize,
    pub height: usize,
    pub players: usize,
    pub rules: Rules,
    pub first: usize,
}

impl Config {
    pub fn new(width: i64, height: i64, players: i64, rules: Rules, first: i64) -> Result<Config> {
        let side = MIN_SIDE as i64..=MAX_SIDE as i64;
        if !side.contains(&width) || !side.contains(&height) {
            return Err(Error::InvalidSize { width, height });
        }
        let cells = width * height;
        if !(MIN_PLAYERS as i64..=MAX_PLAYERS as i64).contains(&players) || players > cells {
            return Err(Error::InvalidPlayers { players, cells });
        }
        if !(0..players).contains(&first) {
            return Err(Error::InvalidSeat {
                seat: first,
                players,
            });
        }
        Ok(Config {
            width: width as usize,
            height: height as usize,
            players: players as usize,
            rules,
            first: first as usize,
        })
    }

    pub fn cells(&self) -> usize {
        self.width * self.height
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn presets_and_axes() {
        assert_eq!(Rules::parse("colorwars").unwrap(), Rules::COLORWARS);
        assert_eq!(Rules::parse("classic").unwrap(), Rules::CLASSIC);
        let r = Rules::parse("drop3+subtract").unwrap();
        assert_eq!(r.name(), "drop3+subtract");
        assert_eq!(Rules::parse("none+subtract").unwrap().name(), "classic");
        assert!(Rules::parse("chess").is_err());
        assert!(Rules::parse("drop3+boom").is_err());
    }

    #[test]
    fn config_limits() {
        // RULES.md §2: sides 2..=32, 2 to 8 players, never more players than cells.
        assert!(Config::new(2, 2, 2, Rules::COLORWARS, 0).is_ok());
        assert!(Config::new(32, 32, 8, Rules::CLASSIC, 7).is_ok());
        assert!(matches!(
            Config::new(1, 5, 2, Rules::COLORWARS, 0),
            Err(Error::InvalidSize { .. })
        ));
        assert!(matches!(
            Config::new(33, 5, 2, Rules::COLORWARS, 0),
            Err(Error::InvalidSize { .. })
        ));
        assert!(matches!(
            Config::new(2, 2, 5, Rules::COLORWARS, 0),
            Err(Error::InvalidPlayers { .. })
        ));
        assert!(matches!(
            Config::new(5, 5, 1, Rules::COLORWARS, 0),
            Err(Error::InvalidPlayers { .. })
        ));
        assert!(matches!(
            Config::new(5, 5, 2, Rules::COLORWARS, 2),
            Err(Error::InvalidSeat { .. })
        ));
    }
}
