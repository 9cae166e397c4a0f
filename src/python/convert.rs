//! Reading the Python layer's objects: a game's configuration, a player's settings, text.

use super::*;
use crate::search::learned::{Weights, FEATURES};
use crate::search::Eval;

/// A game configuration, read from the attributes of `colorwars.rules.GameConfig` (checked
/// again here by `Config::new`).
#[derive(FromPyObject)]
pub(super) struct GameConfig {
    width: i64,
    height: i64,
    players: i64,
    opening: String,
    burst: String,
    first: i64,
}

impl GameConfig {
    pub(super) fn check(&self) -> PyResult<Config> {
        let rules = Rules::from_axes(&self.opening, &self.burst)?;
        Ok(Config::new(
            self.width,
            self.height,
            self.players,
            rules,
            self.first,
        )?)
    }
}

/// A player, read from the attributes of `colorwars.players.NativeSpec`.
#[derive(FromPyObject)]
pub(super) struct NativeSpec {
    kind: String,
    simulations: u32,
    depth: i32,
    seconds: Option<f64>,
    c: f64,
    trees: usize,
    greedy: f64,
    solver: bool,
    minimax: f64,
    cutoff: u32,
    reuse: bool,
    eval: String,
    weights: Vec<i32>,
}

impl NativeSpec {
    pub(super) fn check(&self, cfg: &Config) -> PyResult<Player> {
        let time = match self.seconds {
            Some(t) if !(t.is_finite() && t > 0.0 && t <= MAX_SECONDS) => {
                return Err(Error::InvalidPlayer(format!(
                    "time budget {t}: expected seconds from 0 to {MAX_SECONDS:e}"
                ))
                .into());
            }
            Some(t) => Some(Duration::from_secs_f64(t)),
            None => None,
        };
        let player = match self.kind.as_str() {
            "random" => Player::Random,
            "greedy" => Player::Greedy,
            "mcts" => Player::Mcts(MctsParams {
                simulations: self.simulations,
                time,
                c: self.c,
                trees: self.trees,
                greedy: self.greedy,
                solver: self.solver,
                reuse: self.reuse,
                minimax: self.minimax,
                cutoff: self.cutoff,
            }),
            "alphabeta" => Player::AlphaBeta {
                depth: self.depth,
                time,
                eval: self.eval()?,
            },
            other => {
                return Err(Error::InvalidPlayer(format!(
                    "unknown player {other:?}; allowed are random, greedy, mcts, alphabeta"
                ))
                .into());
            }
        };
        player.check(cfg)?;
        Ok(player)
    }

    /// Alpha-beta's evaluation: `weights` where given, else the named one.
    fn eval(&self) -> PyResult<Eval> {
        if !self.weights.is_empty() {
            let w: Weights = self.weights.as_slice().try_into().map_err(|_| {
                Error::InvalidPlayer(format!(
                    "{} evaluation weights: the learned evaluation takes {}",
                    self.weights.len(),
                    2 * FEATURES
                ))
            })?;
            if w.iter().any(|x| x.unsigned_abs() > 1_000_000) {
                return Err(Error::InvalidPlayer(
                    "evaluation weights: allowed are -1000000 to 1000000".into(),
                )
                .into());
            }
            return Ok(Eval::Weights(w));
        }
        match self.eval.as_str() {
            "hand" => Ok(Eval::Hand),
            "learned" => Ok(Eval::Learned),
            other => Err(Error::InvalidPlayer(format!(
                "unknown evaluation {other:?}; allowed are 'hand' and 'learned'"
            ))
            .into()),
        }
    }
}

/// Text from Python as UTF-8; text that cannot be (lone surrogates) is an error of `what`.
pub(super) fn utf8<'a>(
    text: &'a Bound<'_, PyString>,
    what: fn(String) -> Error,
) -> PyResult<std::borrow::Cow<'a, str>> {
    text.to_cow()
        .map_err(|_| what("the text is not valid Unicode (a lone surrogate?)".into()).into())
}

/// Seat lists must name one player per seat.
pub(super) fn one_per_seat(given: usize, cfg: &Config) -> PyResult<()> {
    if given == cfg.players {
        return Ok(());
    }
    let msg = format!(
        "{given} players given for {} seats: give one per seat",
        cfg.players
    );
    Err(Error::InvalidPlayer(msg).into())
}

/// The rules named by `text` (a preset or `OPENING+BURST`), as (opening, burst); the one
/// parser and the one set of messages for the Python layer too.
#[pyfunction]
pub(super) fn parse_rules(text: &Bound<'_, PyString>) -> PyResult<(&'static str, &'static str)> {
    let rules = Rules::parse(&utf8(text, Error::InvalidRules)?)?;
    Ok((rules.opening_name(), rules.burst_name()))
}

/// The rules of an opening and a burst by name, as (opening, burst).
#[pyfunction]
pub(super) fn rules_from_axes(
    opening: &Bound<'_, PyString>,
    burst: &Bound<'_, PyString>,
) -> PyResult<(&'static str, &'static str)> {
    let rules = Rules::from_axes(
        &utf8(opening, Error::InvalidRules)?,
        &utf8(burst, Error::InvalidRules)?,
    )?;
    Ok((rules.opening_name(), rules.burst_name()))
}
