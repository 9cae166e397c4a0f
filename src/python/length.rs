//! The exact length of a game by depth-bounded proof-number search (`exact_length`).

use std::path::PathBuf;

use super::*;
use crate::bits::Bits;
use crate::board::Position;
use crate::search::{CheckpointInfo, LengthOutcome, LengthTable, Symmetries, MAX_BOUND};

/// The key of `cfg`'s empty board (`B` as the game's): a checkpoint's fingerprint of the
/// hashing that made its keys.
fn start_key<B: Bits>(_: &Position<B>, cfg: &Config) -> u64 {
    Symmetries::new(cfg.width, cfg.height).key(&Position::<B>::start(cfg))
}

/// The table a checkpointed search starts from: the saved one if `path` exists (checked to
/// be of this board and hashing; `FileError` naming it otherwise), else a new one.
fn starting_table(
    path: Option<&PathBuf>,
    memory: u64,
    huge: Option<bool>,
    board: &str,
    key: u64,
) -> PyResult<(LengthTable, Option<CheckpointInfo>)> {
    let Some(path) = path.filter(|p| p.exists()) else {
        return Ok((LengthTable::with_huge_pages(memory, huge)?, None));
    };
    let (table, info) = LengthTable::load(path, memory, huge).map_err(|e| match e.kind() {
        std::io::ErrorKind::InvalidData => FileError::new_err(e.to_string()),
        std::io::ErrorKind::Other if e.to_string().contains("memory") => {
            PyMemoryError::new_err(e.to_string())
        }
        _ => FileError::new_err(format!(
            "cannot read the checkpoint {}: {}",
            path.display(),
            crate::error::os_words(&e)
        )),
    })?;
    if (info.board.as_str(), info.start_key) != (board, key) {
        return Err(FileError::new_err(format!(
            "{}: a checkpoint of {} (or of another build's hashing), not of {board}",
            path.display(),
            info.board
        )));
    }
    Ok((table, Some(info)))
}

/// What `exact_length` returns: (winner or None, plies or None, line, positions, seconds,
/// a win within plies proven, a win within plies - 1 refuted, the least length not yet
/// refuted (`at_least`), the least bound proven a win (`at_most`, None if none), with
/// `verify` the positions of the walked proof and refutation, whether it stopped, and what the
/// earlier runs of its checkpoint took: positions and seconds, which the totals include).
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
    (u64, f64),
);

/// The exact length of a two-player game from its position (GIL released, Ctrl-C stops it):
/// the least bound within which the winner wins, proven, with a win within one ply less
/// refuted. `winner` if known (else both players are tried); `memory` the table's bytes;
/// `seconds` bounds the time (None: no bound), `max_plies` the bound, `start` the first bound
/// tried (None: twice the cells; the answer does not depend on it). With `verify`, both
/// sides are walked on real positions. `progress(positions)` is called every `interval`
/// seconds; with `verify`, `progress(positions, walked)` at every call, as `prove`'s (see
/// `watched_until`). A table or thread that cannot be had is `MemoryError`.
#[pyfunction]
#[pyo3(signature = (game, memory, seconds=None, winner=None, max_plies=MAX_BOUND, start=None, verify=false, progress=None, interval=0.5, checkpoint=None, save_every=1800.0, huge_pages=None))]
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
    checkpoint: Option<PathBuf>,
    save_every: f64,
    huge_pages: Option<bool>,
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
    let board = format!("{}x{} {}", cfg.width, cfg.height, cfg.rules.name());
    let every = Duration::from_secs_f64(save_every.clamp(1.0, 1e9));
    let (found, _) = watched_until(py, progress.as_ref(), interval, None, verify, |control| {
        with_game!(&position, g => {
            let key = start_key(g.pos(), &cfg);
            let (mut table, resumed) =
                starting_table(checkpoint.as_ref(), memory, huge_pages, &board, key)?;
            let (mut positions, near, mut seconds) = resumed
                .map_or((0, 0, 0.0), |i| (i.positions, i.near_positions, i.seconds));
            let earlier = (positions, seconds);
            // Once the length is bracketed, what is left (the line and the check's walks)
            // runs to its end in one part: a walk stopped by a part's end started again from
            // its beginning in the next, so a check longer than `every` never ended.
            let mut bracketed = false;
            loop {
                // With a checkpoint, the search runs in parts of `every`, the table saved
                // after each (and when Ctrl-C or the time ends it); a part resumes from what
                // the table settled.
                let part = checkpoint
                    .as_ref()
                    .filter(|_| !bracketed)
                    .map(|_| std::time::Instant::now() + every);
                let until = match (deadline, part) {
                    (Some(d), Some(p)) => Some(d.min(p)),
                    (d, p) => d.or(p),
                };
                let began = std::time::Instant::now();
                let o: LengthOutcome = crate::search::exact_length(
                    g.geo(), &cfg, g.pos(), winner, max_plies.min(MAX_BOUND), start, &mut table,
                    control, until, verify,
                )?;
                positions += o.positions;
                seconds += began.elapsed().as_secs_f64();
                if let Some(path) = &checkpoint {
                    let info = CheckpointInfo {
                        board: board.clone(),
                        prover: winner.map_or(u8::MAX, |w| w as u8),
                        start_key: key,
                        positions,
                        near_positions: near,
                        seconds,
                    };
                    table.save(path, &info).map_err(|e| {
                        FileError::new_err(format!(
                            "cannot write the checkpoint {}: {}",
                            path.display(),
                            crate::error::os_words(&e)
                        ))
                    })?;
                }
                bracketed |= o.at_most.is_some_and(|m| m <= o.at_least.saturating_add(1));
                let over = deadline.is_some_and(|d| std::time::Instant::now() >= d);
                if !o.stopped || checkpoint.is_none() || over || control.cancelled() {
                    break Ok::<_, PyErr>((LengthOutcome { positions, ..o }, seconds, earlier));
                }
            }
        })
    })?;
    let (o, secs, earlier) = found?; // the run's seconds so far, across its sessions
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
        earlier,
    ))
}
