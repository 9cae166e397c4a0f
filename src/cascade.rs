//! Playing one move: placing the orb(s) and resolving the cascade wave by wave (RULES.md §2-§3).
//!
//! Everything is whole-board bit arithmetic: a wave costs a few dozen word operations whatever
//! the number of bursting cells, and a move allocates nothing.

use crate::bits::Bits;
use crate::board::{Geometry, Position};
use crate::rules::{Burst, Opening, Rules};

/// Receives each wave of a cascade as it is resolved: the cells that burst in it and the
/// position right after it. The hot loops use `()`, for which no position is even built.
pub trait WaveSink<B> {
    /// False for a sink that ignores waves (then `wave` is never called).
    const ACTIVE: bool = true;
    fn wave(&mut self, bursts: B, after: &Position<B>);
}

impl<B> WaveSink<B> for () {
    const ACTIVE: bool = false;
    #[inline(always)]
    fn wave(&mut self, _: B, _: &Position<B>) {}
}

/// Collects every wave (used by `Game::waves`).
impl<B: Copy> WaveSink<B> for Vec<(B, Position<B>)> {
    fn wave(&mut self, bursts: B, after: &Position<B>) {
        self.push((bursts, *after));
    }
}

/// The cells on which the player to move may place (RULES.md §2). Empty once the game is won.
#[inline(always)]
pub fn legal_mask<B: Bits>(geo: &Geometry<B>, rules: Rules, pos: &Position<B>) -> B {
    if pos.winner != crate::board::NO_WINNER {
        return B::ZERO;
    }
    let p = pos.to_move as usize;
    let empty = !pos.occupied() & geo.all;
    let first = pos.moved & (1 << p) == 0;
    match (rules.opening, first) {
        // colorwars: the opening drop goes on an empty cell, every later orb on an own cell.
        (Opening::Drop3, true) => empty,
        (Opening::Drop3, false) => pos.own[p],
        // classic: an empty cell or an own cell, always.
        (Opening::None, _) => empty | pos.own[p],
    }
}

/// Plays `cell` for the player to move, which the caller has checked is legal. Returns the
/// number of waves in the cascade.
#[inline]
pub fn play_unchecked<B: Bits, S: WaveSink<B>>(
    geo: &Geometry<B>,
    rules: Rules,
    players: usize,
    pos: &mut Position<B>,
    cell: usize,
    sink: &mut S,
) -> u32 {
    let mover = pos.to_move as usize;
    let first = pos.moved & (1 << mover) == 0;
    pos.moved |= 1 << mover;
    pos.ply += 1;
    // RULES.md §1: elimination applies once every player has had a turn (this one included).
    let all_players = ((1u16 << players) - 1) as u8;
    let decisive = pos.moved == all_players;
    let b = B::bit(cell);
    pos.own[mover] |= b;
    let mut waves = 0;
    if first && rules.opening == Opening::Drop3 {
        // RULES.md §2 "the opening cell": three orbs on an empty cell. The drop is not an
        // arrival, so it never bursts, even on a corner of capacity 1.
        pos.c[0] |= b;
        pos.c[1] |= b;
    } else {
        // One orb arrives: add 1 to the cell's count (it holds at most 3, so no overflow).
        let carry0 = pos.c[0] & b;
        pos.c[0] = pos.c[0] ^ b;
        let carry1 = pos.c[1] & carry0;
        pos.c[1] = pos.c[1] ^ carry0;
        pos.c[2] = pos.c[2] ^ carry1;
        let unstable = geo.over_capacity(&pos.c) & b;
        if unstable.any() {
            waves = cascade(
                geo,
                rules.burst,
                players,
                pos,
                unstable,
                mover,
                decisive,
                sink,
            );
        }
    }
    finish_turn(players, pos, mover, decisive);
    waves
}

/// Resolves a cascade from its first unstable set. RULES.md §3.1: in a wave every unstable
/// cell bursts at once; first each bursting cell is reduced, then each cell gains one orb per
/// bursting neighbour and, if it gained any, becomes the mover's.
#[allow(clippy::too_many_arguments)]
#[inline]
fn cascade<B: Bits, S: WaveSink<B>>(
    geo: &Geometry<B>,
    burst: Burst,
    players: usize,
    pos: &mut Position<B>,
    mut unstable: B,
    mover: usize,
    decisive: bool,
    sink: &mut S,
) -> u32 {
    // The cascade runs on locals (kept in registers): the count planes, the mover's cells and
    // the cells the mover has captured. Only the mover's cells burst and every cell that
    // receives an orb becomes the mover's, so the other players lose exactly the captured
    // cells; their sets are updated once, at the end.
    let [mut c0, mut c1, mut c2] = pos.c;
    let mut mine = pos.own[mover];
    let mut captured = B::ZERO;
    let mut waves = 0;
    // RULES.md §3.3 ends every decisive cascade (an endless one would reach and convert every
    // cell). Before every player has moved no cascade happens at all (each first move lands
    // on an empty cell, and a drop never bursts), so a cascade then can only come from a
    // position that breaks the rules' invariants (built by hand, not by play or notation):
    // it is cut off after this many waves instead of running for ever.
    let limit = if decisive {
        u32::MAX
    } else {
        16 * geo.cells as u32 + 16
    };
    while unstable.any() && waves < limit {
        waves += 1;
        let u = unstable;
        match burst {
            // RULES.md §2: under `empty` the bursting cell empties completely.
            Burst::Empty => {
                c0 &= !u;
                c1 &= !u;
                c2 &= !u;
            }
            // RULES.md §2: under `subtract` it loses `degree` orbs: 2 (binary 010) in a corner,
            // 3 (011) on an edge, 4 (100) inside. It holds more than its capacity, so at least
            // its degree: no borrow leaves the top plane.
            Burst::Subtract => {
                let b0 = u & geo.edge;
                let b1 = u & (geo.corner | geo.edge);
                let b2 = u & geo.inner;
                let borrow0 = !c0 & b0;
                c0 = c0 ^ b0;
                let t1 = c1 ^ b1;
                let borrow1 = (!c1 & b1) | (!t1 & borrow0);
                c1 = t1 ^ borrow0;
                c2 = c2 ^ b2 ^ borrow1;
            }
        }
        // One orb from each bursting neighbour, by direction.
        let from_left = u.shl(1) & geo.not_first_col;
        let from_right = u.shr(1) & geo.not_last_col;
        let from_above = u.shl(geo.width) & geo.all;
        let from_below = u.shr(geo.width);
        // gain = the number of those four sets a cell is in (0 to 4), as bit planes.
        let s1 = from_left ^ from_right;
        let k1 = from_left & from_right;
        let s2 = from_above ^ from_below;
        let k2 = from_above & from_below;
        let g0 = s1 ^ s2;
        let t = s1 & s2;
        let g1 = k1 ^ k2 ^ t;
        let g2 = k1 & k2;
        // count += gain (the result is at most 7, see board.rs).
        let carry0 = c0 & g0;
        c0 = c0 ^ g0;
        let t1 = c1 ^ g1;
        let carry1 = (c1 & g1) | (t1 & carry0);
        c1 = t1 ^ carry0;
        c2 = c2 ^ g2 ^ carry1;
        // RULES.md §1: a cell that receives an orb becomes the mover's, with what it held.
        let gained = from_left | from_right | from_above | from_below;
        captured |= gained;
        let occupied = c0 | c1 | c2;
        // RULES.md §3.1: a cell left with no orbs has no owner (only the mover's cells burst).
        mine = (mine | gained) & occupied;
        if S::ACTIVE {
            let mut after = *pos;
            after.c = [c0, c1, c2];
            settle_owners(&mut after, players, mover, mine, captured);
            sink.wave(u, &after);
        }
        // RULES.md §3.3: stop as soon as the game is decided, so every cascade ends.
        if decisive && (occupied & !mine).is_zero() {
            break;
        }
        // RULES.md §2: unstable next are the cells over capacity that gained an orb or (only
        // possible under `subtract`) have just burst; an untouched opening cell stays put.
        unstable = geo.over_capacity(&[c0, c1, c2]) & (gained | u);
    }
    pos.c = [c0, c1, c2];
    settle_owners(pos, players, mover, mine, captured);
    waves
}

/// Writes the cascade's ownership back: the mover holds `mine`; the others lose `captured`.
#[inline(always)]
fn settle_owners<B: Bits>(
    pos: &mut Position<B>,
    players: usize,
    mover: usize,
    mine: B,
    captured: B,
) {
    for own in pos.own.iter_mut().take(players) {
        *own &= !captured;
    }
    pos.own[mover] = mine;
}

/// Eliminations, the winner and the next player (RULES.md §1, §3.6).
#[inline(always)]
fn finish_turn<B: Bits>(players: usize, pos: &mut Position<B>, mover: usize, decisive: bool) {
    if decisive {
        // Who holds nothing, without a branch per player (the mover always holds orbs).
        let mut empty = 0u8;
        for (p, own) in pos.own.iter().enumerate().take(players) {
            empty |= u8::from(own.is_zero()) << p;
        }
        pos.out |= empty;
        let all_players = ((1u16 << players) - 1) as u8;
        if pos.out == all_players & !(1 << mover) {
            pos.winner = mover as u8;
        }
    }
    let mut next = mover;
    loop {
        next = if next + 1 == players { 0 } else { next + 1 };
        if pos.out & (1 << next) == 0 {
            break;
        }
    }
    pos.to_move = next as u8;
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::Config;

    #[test]
    fn a_cascade_on_a_position_that_breaks_the_invariants_still_ends() {
        // 2x2 classic (subtract), player a on every cell before b has moved: five orbs on a
        // board of capacity four would circulate for ever, and the game cannot be decided
        // (the elimination check is not active yet). No play or notation reaches this.
        let cfg = Config::new(2, 2, 2, Rules::CLASSIC, 0).unwrap();
        let geo = Geometry::<u64>::new(2, 2);
        let mut pos = Position::<u64>::start(&cfg);
        for cell in 0..4 {
            pos.set_cell(cell, 1, Some(0));
        }
        pos.moved = 1;
        pos.ply = 1;
        let waves = play_unchecked(&geo, cfg.rules, 2, &mut pos, 0, &mut ());
        assert_eq!(waves, 16 * 4 + 16);
        assert_eq!(pos.winner(), None);
    }
}
