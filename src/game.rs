//! A game: configuration, the current position, its history for exact undo, and checked moves.

use crate::bits::{Bits, Wide};
use crate::board::{Geometry, Position, NO_WINNER};
use crate::cascade::{legal_mask, play_unchecked};
use crate::error::{Error, Result};
use crate::rules::{Config, Opening};
use crate::setup::Setup;
use crate::with_storage;

/// One wave of a cascade as the API reports it: the cells that burst (ascending) and the
/// board right after the wave.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Wave {
    pub bursts: Vec<usize>,
    pub counts: Vec<u8>,
    pub owners: Vec<i8>,
}

#[derive(Clone, Debug)]
pub struct Game<B> {
    cfg: Config,
    geo: Geometry<B>,
    pos: Position<B>,
    /// The position before each move, and the move.
    history: Vec<(Position<B>, u16)>,
}

fn letter(p: usize) -> char {
    (b'a' + p as u8) as char
}

/// Why a cell that is on the board is no legal move for the player to move in `pos`: the
/// rule it breaks (the same words wherever a move is refused: a game, a vector of them).
pub fn illegal_reason<B: Bits>(cfg: &Config, pos: &Position<B>) -> String {
    let p = pos.to_move as usize;
    let first = pos.moved & (1 << p) == 0;
    match (cfg.rules.opening, first) {
        (Opening::Drop3, true) => format!(
            "player {} opens with three orbs on an empty cell, and this one is taken",
            letter(p)
        ),
        (Opening::Drop3, false) => format!(
            "after the opening, player {} may only add an orb to a cell of their own",
            letter(p)
        ),
        (Opening::None, _) => format!(
            "player {} may only place on an empty cell or a cell of their own",
            letter(p)
        ),
    }
}

impl<B: Bits> Game<B> {
    pub fn new(cfg: Config) -> Self {
        Game {
            cfg,
            geo: Geometry::new(cfg.width, cfg.height),
            pos: Position::start(&cfg),
            history: Vec::new(),
        }
    }

    /// The same position with no history (nothing to undo).
    pub fn without_history(&self) -> Self {
        Game {
            cfg: self.cfg,
            geo: self.geo,
            pos: self.pos,
            history: Vec::new(),
        }
    }

    pub fn cfg(&self) -> &Config {
        &self.cfg
    }

    pub fn geo(&self) -> &Geometry<B> {
        &self.geo
    }

    /// The current position.
    pub fn pos(&self) -> &Position<B> {
        &self.pos
    }

    pub fn legal_mask(&self) -> B {
        legal_mask(&self.geo, self.cfg.rules, &self.pos)
    }

    pub fn legal_moves(&self) -> Vec<usize> {
        let mut v = Vec::new();
        self.legal_mask().for_each(|c| v.push(c));
        v
    }

    /// Checks that `cell` is a legal move, saying why not.
    pub fn check(&self, cell: i64) -> Result<usize> {
        if let Some(w) = self.pos.winner() {
            return Err(Error::GameOver { winner: w as u8 });
        }
        let cells = self.geo.cells;
        if !(0..cells as i64).contains(&cell) {
            return Err(Error::InvalidMove(format!(
                "cell {cell} is not on the {}x{} board: cells are 0 to {}",
                self.cfg.width,
                self.cfg.height,
                cells - 1
            )));
        }
        let cell = cell as usize;
        if self.legal_mask().has(cell) {
            return Ok(cell);
        }
        let reason = illegal_reason(&self.cfg, &self.pos);
        Err(Error::illegal_move(cell, self.cfg.width, reason))
    }

    /// Plays a move after checking it; on error the game is unchanged. Returns the wave count.
    pub fn play(&mut self, cell: i64) -> Result<u32> {
        let cell = self.check(cell)?;
        Ok(self.play_unchecked(cell))
    }

    /// Plays a legal move (checked by the caller), keeping history for `pop`.
    pub fn play_unchecked(&mut self, cell: usize) -> u32 {
        self.history.push((self.pos, cell as u16));
        play_unchecked(
            &self.geo,
            self.cfg.rules,
            self.cfg.players,
            &mut self.pos,
            cell,
            &mut (),
        )
    }

    /// Undoes the last move exactly; `None` when there is no move to undo.
    pub fn pop(&mut self) -> Option<usize> {
        let (pos, cell) = self.history.pop()?;
        self.pos = pos;
        Some(cell as usize)
    }

    pub fn moves(&self) -> Vec<usize> {
        self.history.iter().map(|&(_, c)| c as usize).collect()
    }

    pub fn counts_of(&self, pos: &Position<B>) -> Vec<u8> {
        (0..self.geo.cells).map(|c| pos.count(c)).collect()
    }

    pub fn owners_of(&self, pos: &Position<B>) -> Vec<i8> {
        (0..self.geo.cells)
            .map(|c| pos.owner(c, self.cfg.players).map_or(-1, |p| p as i8))
            .collect()
    }

    /// The last move's cascade, wave by wave (empty when it burst nothing or no move was played).
    pub fn waves(&self) -> Vec<Wave> {
        let Some(&(before, cell)) = self.history.last() else {
            return Vec::new();
        };
        let mut pos = before;
        let mut sink: Vec<(B, Position<B>)> = Vec::new();
        play_unchecked(
            &self.geo,
            self.cfg.rules,
            self.cfg.players,
            &mut pos,
            cell as usize,
            &mut sink,
        );
        sink.iter()
            .map(|(bursts, after)| {
                let mut b = Vec::new();
                bursts.for_each(|c| b.push(c));
                Wave {
                    bursts: b,
                    counts: self.counts_of(after),
                    owners: self.owners_of(after),
                }
            })
            .collect()
    }

    /// Builds a game from a described position, rejecting impossible ones.
    pub fn from_setup(s: &Setup, cfg: Config) -> Result<Self> {
        let bad = |m: String| Err(Error::InvalidPosition(m));
        let geo = Geometry::<B>::new(cfg.width, cfg.height);
        let players = cfg.players;
        let all = ((1u16 << players) - 1) as u8;
        if s.cells.len() != geo.cells {
            return bad(format!(
                "{} cells given for a {}x{} board of {} cells",
                s.cells.len(),
                cfg.width,
                cfg.height,
                geo.cells
            ));
        }
        if s.moved & !all != 0 || s.out & !all != 0 || s.to_move >= players {
            return bad(format!(
                "a player letter beyond the {players} players (a to {})",
                letter(players - 1)
            ));
        }
        let mut pos = Position::<B>::start(&cfg);
        for (i, cell) in s.cells.iter().enumerate() {
            match (cell.count, cell.owner) {
                (0, None) => {}
                (0, Some(_)) => return bad(format!("cell {i} has an owner but no orbs")),
                (_, None) => return bad(format!("cell {i} has orbs but no owner")),
                (n, Some(p)) if p >= players => {
                    return bad(format!(
                        "cell {i} holds {n} orbs of player {}, beyond the {players} players",
                        letter(p)
                    ))
                }
                (n, Some(_)) if n > 7 => {
                    return bad(format!(
                        "cell {i} holds {n} orbs; no cell can ever hold more than 7"
                    ))
                }
                (n, Some(p)) => pos.set_cell(i, n, Some(p)),
            }
        }
        pos.to_move = s.to_move as u8;
        pos.moved = s.moved;
        pos.out = s.out;
        pos.ply = s.ply;
        let holders: u8 = (0..players)
            .filter(|&p| pos.own[p].any())
            .fold(0, |m, p| m | 1 << p);
        if s.out & (1 << s.to_move) != 0 {
            return bad(format!(
                "player {} is to move but is out",
                letter(s.to_move)
            ));
        }
        if holders & s.out != 0 {
            return bad("a player who is out still holds orbs".into());
        }
        if holders & !s.moved != 0 {
            return bad("a player who has not moved yet holds orbs (orbs only ever take the mover's colour)".into());
        }
        let k = s.moved.count_ones();
        if (s.ply as u64) < k as u64 {
            return bad(format!(
                "ply {} is fewer than the {k} players who have moved",
                s.ply
            ));
        }
        if s.moved != all {
            // Before everyone has moved, turns went round once from the first player: the
            // players who have moved are the ones just before the player to move, and each of
            // them has made exactly its opening move (no burst is possible in that first round).
            if s.out != 0 {
                return bad("a player is out before every player has moved".into());
            }
            let expected =
                (1..=k as usize).fold(0u8, |m, d| m | 1 << ((s.to_move + players - d) % players));
            if expected != s.moved || s.ply != k {
                return bad(format!(
                    "before every player has moved, the players who have moved must be the {k} before \
                     player {} in turn order, and the ply must be {k}",
                    letter(s.to_move)
                ));
            }
            let opening_count = if cfg.rules.opening == Opening::Drop3 {
                3
            } else {
                1
            };
            for p in 0..players {
                if s.moved & (1 << p) != 0
                    && (pos.own[p].count() != 1 || pos.orbs(p) != opening_count)
                {
                    return bad(format!(
                        "player {} has made only its first move, so it must hold exactly one cell of {opening_count} orb(s)",
                        letter(p)
                    ));
                }
            }
        } else {
            // RULES.md §1, §3.6: once everyone has moved, a player with no orbs is out.
            if holders | s.out != all {
                return bad(
                    "every player has moved, so a player with no orbs must be marked out".into(),
                );
            }
            if holders.count_ones() == 1 {
                pos.winner = holders.trailing_zeros() as u8;
                if s.to_move != pos.winner as usize {
                    return bad(format!(
                        "the game is won by {}, so it is {} to move",
                        letter(pos.winner as usize),
                        letter(pos.winner as usize)
                    ));
                }
            }
        }
        if pos.winner == NO_WINNER {
            // At rest a cell holds at most its capacity; only an untouched opening cell
            // (drop3) rests above it, with exactly three orbs (RULES.md §2).
            for i in 0..geo.cells {
                let n = pos.count(i) as usize;
                let opening_cell = cfg.rules.opening == Opening::Drop3 && n == 3;
                if n > geo.capacity(i) && !opening_cell {
                    return bad(format!(
                        "cell {i} holds {n} orbs, above its capacity {} (only an opening cell of \
                         3 orbs rests above capacity, and only under drop3)",
                        geo.capacity(i)
                    ));
                }
            }
        }
        Ok(Game {
            cfg,
            geo,
            pos,
            history: Vec::new(),
        })
    }
}

/// A game on the storage type its board needs.
#[derive(Clone, Debug)]
pub enum AnyGame {
    /// Up to 64 cells (8 × 8, 5 × 5, ...).
    W1(Game<u64>),
    W2(Game<Wide<2>>),
    // The wide boards are boxed so that the enum stays small.
    W4(Box<Game<Wide<4>>>),
    W16(Box<Game<Wide<16>>>),
}

/// Runs `$body` with `$g` bound to the inner `Game<B>`.
#[macro_export]
macro_rules! with_game {
    ($any:expr, $g:ident => $body:expr) => {
        match $any {
            $crate::game::AnyGame::W1($g) => $body,
            $crate::game::AnyGame::W2($g) => $body,
            $crate::game::AnyGame::W4($g) => $body,
            $crate::game::AnyGame::W16($g) => $body,
        }
    };
}

impl From<Game<u64>> for AnyGame {
    fn from(g: Game<u64>) -> Self {
        AnyGame::W1(g)
    }
}
impl From<Game<Wide<2>>> for AnyGame {
    fn from(g: Game<Wide<2>>) -> Self {
        AnyGame::W2(g)
    }
}
impl From<Game<Wide<4>>> for AnyGame {
    fn from(g: Game<Wide<4>>) -> Self {
        AnyGame::W4(Box::new(g))
    }
}
impl From<Game<Wide<16>>> for AnyGame {
    fn from(g: Game<Wide<16>>) -> Self {
        AnyGame::W16(Box::new(g))
    }
}

impl AnyGame {
    /// A copy of the position alone, with no history (what a search needs).
    pub fn without_history(&self) -> Self {
        with_game!(self, g => g.without_history().into())
    }

    pub fn new(cfg: Config) -> Self {
        with_storage!(cfg.cells(), B => Game::<B>::new(cfg).into())
    }

    pub fn from_setup(s: &Setup) -> Result<Self> {
        let first = s.to_move as i64;
        // A size or player count the engine does not support makes the notation invalid.
        let cfg = Config::new(
            s.width,
            s.height,
            s.players,
            s.rules,
            first.min(s.players - 1).max(0),
        )
        .map_err(|e| Error::InvalidPosition(e.to_string()))?;
        with_storage!(cfg.cells(), B => Game::<B>::from_setup(s, cfg).map(AnyGame::from))
    }

    pub fn cfg(&self) -> &Config {
        with_game!(self, g => g.cfg())
    }
    pub fn play(&mut self, cell: i64) -> Result<u32> {
        with_game!(self, g => g.play(cell))
    }
    pub fn check(&self, cell: i64) -> Result<usize> {
        with_game!(self, g => g.check(cell))
    }
    pub fn pop(&mut self) -> Option<usize> {
        with_game!(self, g => g.pop())
    }
    pub fn legal_moves(&self) -> Vec<usize> {
        with_game!(self, g => g.legal_moves())
    }
    pub fn legal_count(&self) -> usize {
        with_game!(self, g => g.legal_mask().count() as usize)
    }
    pub fn counts(&self) -> Vec<u8> {
        with_game!(self, g => g.counts_of(g.pos()))
    }
    pub fn owners(&self) -> Vec<i8> {
        with_game!(self, g => g.owners_of(g.pos()))
    }
    pub fn waves(&self) -> Vec<Wave> {
        with_game!(self, g => g.waves())
    }
    pub fn moves(&self) -> Vec<usize> {
        with_game!(self, g => g.moves())
    }
    pub fn to_move(&self) -> usize {
        with_game!(self, g => g.pos().to_move as usize)
    }
    pub fn winner(&self) -> Option<usize> {
        with_game!(self, g => g.pos().winner())
    }
    pub fn ply(&self) -> u32 {
        with_game!(self, g => g.pos().ply)
    }
    pub fn moved(&self) -> u8 {
        with_game!(self, g => g.pos().moved)
    }
    pub fn out(&self) -> u8 {
        with_game!(self, g => g.pos().out)
    }
    pub fn orbs(&self, p: usize) -> u32 {
        with_game!(self, g => g.pos().orbs(p))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::notation::{format_position, parse_cell, parse_position};
    use crate::rules::Rules;

    fn from_text(s: &str) -> AnyGame {
        AnyGame::from_setup(&parse_position(s).unwrap()).unwrap()
    }

    fn play(g: &mut AnyGame, name: &str) {
        let cfg = *g.cfg();
        g.play(parse_cell(name, cfg.width, cfg.height).unwrap() as i64)
            .unwrap();
    }

    #[test]
    fn waves_burst_together_level_by_level() {
        // RULES.md §3.1: every unstable cell bursts in the same wave.
        let mut g = from_text("3x3 classic 2 .2a./2a3a2a/.2a1b a ab - 12");
        play(&mut g, "b2");
        let waves = g.waves();
        assert_eq!(
            waves.iter().map(|w| w.bursts.clone()).collect::<Vec<_>>(),
            [vec![4], vec![1, 3, 5, 7]]
        );
        assert_eq!(waves[0].counts, [0, 3, 0, 3, 0, 3, 0, 3, 1]);
        assert_eq!(waves[1].counts, [2, 0, 2, 0, 4, 0, 2, 0, 3]);
        assert_eq!(g.winner(), Some(0));
    }

    #[test]
    fn empty_burst_loses_the_excess_and_subtract_keeps_it() {
        // RULES.md §3.2, §3.4: a full cell gaining two orbs in one wave.
        for (rules, centre_after, total) in [("none+empty", 0u8, None), ("classic", 1, Some(11u32))]
        {
            let mut g = from_text(&format!("3x3 {rules} 2 1a2a1a/2a3a./..1b a ab - 9"));
            play(&mut g, "a1");
            let waves = g.waves();
            let bursts: Vec<Vec<usize>> = waves.iter().map(|w| w.bursts.clone()).collect();
            assert_eq!(
                bursts,
                [vec![0], vec![1, 3], vec![0, 2, 4], vec![1]],
                "{rules}"
            );
            assert_eq!(waves[1].counts[4], 5);
            assert_eq!(waves[2].counts[4], centre_after, "{rules}");
            if let Some(t) = total {
                assert!(waves
                    .iter()
                    .all(|w| w.counts.iter().map(|&c| u32::from(c)).sum::<u32>() == t));
            }
        }
    }

    #[test]
    fn never_settling_cascade_stops_when_decided() {
        // RULES.md §3.3: 5 orbs on a 2x2 board (capacity 4) can never rest.
        let mut g = from_text("2x2 classic 2 1a1a/1a1b a ab - 6");
        play(&mut g, "a1");
        assert_eq!(g.waves().len(), 2);
        assert_eq!(g.counts(), [2, 0, 0, 3]);
        assert_eq!(g.owners(), [0, -1, -1, 0]);
        assert_eq!(g.winner(), Some(0));
        assert_eq!(g.out(), 0b10);
        assert_eq!(g.legal_count(), 0);
        assert!(matches!(g.play(0), Err(Error::GameOver { winner: 0 })));
        assert_eq!(format_position(&g), "2x2 classic 2 2a./.3a a ab b 7");
    }

    #[test]
    fn drop_never_bursts_and_opening_cell_waits_for_an_arrival() {
        // RULES.md §2 the opening cell.
        for cell in 0..4 {
            let mut g = AnyGame::new(Config::new(2, 2, 2, Rules::COLORWARS, 0).unwrap());
            assert_eq!(g.play(cell).unwrap(), 0);
            assert_eq!(g.counts()[cell as usize], 3);
        }
        let mut g = AnyGame::new(Config::new(2, 2, 2, Rules::COLORWARS, 0).unwrap());
        for m in [0, 3, 0] {
            g.play(m).unwrap();
        }
        // a1 held 3 in a corner; the fourth orb bursts it: 2 sent, 2 lost (empty).
        assert_eq!(g.waves()[0].counts, [0, 1, 1, 3]);
    }

    #[test]
    fn illegal_moves_leave_the_game_unchanged() {
        let mut g = AnyGame::new(Config::new(5, 5, 2, Rules::COLORWARS, 0).unwrap());
        g.play(0).unwrap();
        g.play(24).unwrap();
        let before = format_position(&g);
        for bad in [-1, 25, 1 << 40, 24, 1] {
            assert!(g.play(bad).is_err());
            assert_eq!(format_position(&g), before);
        }
        assert!(matches!(g.play(24), Err(Error::IllegalMove { .. })));
        assert!(matches!(g.play(99), Err(Error::InvalidMove(_))));
    }

    #[test]
    fn pop_restores_every_position() {
        let mut g = AnyGame::new(Config::new(4, 4, 3, Rules::CLASSIC, 1).unwrap());
        let mut seen = vec![format_position(&g)];
        let mut k = 0usize;
        while g.winner().is_none() {
            let moves = g.legal_moves();
            g.play(moves[k % moves.len()] as i64).unwrap();
            k = (k * 31 + 7) % 1_000_003;
            seen.push(format_position(&g));
        }
        while g.pop().is_some() {
            seen.pop();
            assert_eq!(&format_position(&g), seen.last().unwrap());
        }
        assert_eq!(seen.len(), 1);
    }

    #[test]
    fn storage_follows_the_cell_count() {
        // The smallest storage that holds the board, at each threshold of `with_storage!`.
        for (w, h, words) in [
            (2, 2, 1),
            (8, 8, 1),
            (5, 13, 2),
            (8, 16, 2),
            (9, 15, 4),
            (16, 16, 4),
            (17, 16, 16),
            (32, 32, 16),
        ] {
            let g = AnyGame::new(Config::new(w, h, 2, Rules::CLASSIC, 0).unwrap());
            let got = match g {
                AnyGame::W1(_) => 1,
                AnyGame::W2(_) => 2,
                AnyGame::W4(_) => 4,
                AnyGame::W16(_) => 16,
            };
            assert_eq!(got, words, "{w}x{h}");
        }
    }

    #[test]
    fn every_storage_width_gives_the_same_game() {
        // The same moves on boards stored in u64, Wide<2>, Wide<4> and Wide<16> words: the
        // positions must agree cell for cell with a board of a different width class.
        let cfg = Config::new(8, 8, 2, Rules::CLASSIC, 0).unwrap();
        let mut narrow = Game::<u64>::new(cfg);
        let mut wide = Game::<Wide<16>>::new(cfg);
        let mut k = 5usize;
        while narrow.pos().winner().is_none() {
            let moves = narrow.legal_moves();
            assert_eq!(moves, wide.legal_moves());
            let m = moves[k % moves.len()];
            k = k.wrapping_mul(2654435761).wrapping_add(11) % 1_000_003;
            narrow.play(m as i64).unwrap();
            wide.play(m as i64).unwrap();
            assert_eq!(narrow.counts_of(narrow.pos()), wide.counts_of(wide.pos()));
            assert_eq!(narrow.owners_of(narrow.pos()), wide.owners_of(wide.pos()));
        }
        assert_eq!(narrow.pos().winner(), wide.pos().winner());
    }
}
