//! The exact length of a game by depth-bounded proof-number search (`exact_length`).

use super::*;
use crate::search::{LengthTable, MAX_BOUND};

/// What `exact_length` returns: (winner or None, plies or None, line, positions, seconds,
/// a win within plies proven, a win within plies - 1 refuted, the least length not yet
/// refuted (`at_least`), the least bound proven a win (`at_most`, None if none), with
/// `verify` the positions of the walked proof and refutation, and whether it stopped).
pub(super) type LengthResult = (
    Option<usize>,
    Option<u32>,
    Vec<usize>,
    u64,
    f64,
    bool,
    bool,
    u32,
    Option<u32>,
    Option<(u64, u64)>,
    bool,
);

/// The exact length of a two-player game from its position (GIL released, Ctrl-C stops it):
/// the least bound within which the winner wins, proven, with a win within one ply less
/// refuted. `winner` if known (else both players are tried); `memory` the table's bytes;
/// `seconds` bounds the time (None: no bound), `max_plies` the bound, `start` the first bound
/// tried (None: twice the cells; the answer does not depend on it). With `verify`, both
/// sides are walked on real positions. A table or thread that cannot be had is `MemoryError`.
#[pyfunction]
#[pyo3(signature = (game, memory, seconds=None, winner=None, max_plies=MAX_BOUND, start=None, verify=false, progress=None, interval=0.5))]
#[allow(clippy::too_many_arguments)]
pub(super) fn exact_length(
    py: Python<'_>,
    game: &Bound<'_, NativeGame>,
    memory: u64,
    seconds: Option<f64>,
    winner: Option<usize>,
    max_plies: u32,
    start: Option<u32>,
    verify: bool,
    progress: Option<Py<PyAny>>,
    interval: f64,
) -> PyResult<LengthResult> {
    let (position, cfg) = two_player_position(game)?;
    if winner.is_some_and(|w| w > 1) {
        return Err(Error::InvalidSeat {
            seat: winner.unwrap_or(0) as i64,
            players: 2,
        }
        .into());
    }
    let deadline = deadline_in(seconds);
    let (found, secs) = watched(py, progress.as_ref(), interval, |control| {
        let mut table = LengthTable::new(memory)?;
        with_game!(&position, g => crate::search::exact_length(
            g.geo(), &cfg, g.pos(), winner, max_plies.min(MAX_BOUND), start, &mut table, control,
            deadline, verify,
        ))
    })?;
    let o = found?;
    let (plies, line, proven, refuted, checked) = match o.length {
        Some(l) => (Some(l.plies), l.line, l.proven, l.refuted, l.checked),
        None => (None, Vec::new(), false, false, None),
    };
    Ok((
        o.winner,
        plies,
        line,
        o.positions,
        secs,
        proven,
        refuted,
        o.at_least,
        o.at_most,
        checked,
        o.stopped,
    ))
}
