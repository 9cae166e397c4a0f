//! Playing one move: placing the orb(s) and resolving the cascade wave by wave (RULES.md §2-§3).
//!
//! Everything is whole-board bit arithmetic: a wave costs a few dozen word operations whatever
//! the number of bursting cells, and a move allocates nothing.

use crate::bits::Bits;
use crate::board::{Geometry, Position};
use crate::rules::{Burst, Opening, Rules};

/// Receives each wave of a cascade as it is resolved: the cells that burst in it and the
/// position right after it. The hot loops use `()`, which compiles to nothing.
pub trait WaveSink<B> {
    fn wave(&mut self, bursts: B, after: &Position<B>);
}

impl<B> WaveSink<B> for () {
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
    let mut waves = 0;
    while unstable.any() {
        waves += 1;
        let u = unstable;
        let [mut a0, mut a1, mut a2] = pos.c;
        match burst {
            // RULES.md §2: under `empty` the bursting cell empties completely.
            Burst::Empty => {
                a0 &= !u;
                a1 &= !u;
                a2 &= !u;
            }
            // RULES.md §2: under `subtract` it loses `degree` orbs: 2 (binary 010) in a corner,
            // 3 (011) on an edge, 4 (100) inside. It holds more than its capacity, so at least
            // its degree: no borrow leaves the top plane.
            Burst::Subtract => {
                let b0 = u & geo.edge;
                let b1 = u & (geo.corner | geo.edge);
                let b2 = u & geo.inner;
                let borrow0 = !a0 & b0;
                a0 = a0 ^ b0;
                let t1 = a1 ^ b1;
                let borrow1 = (!a1 & b1) | (!t1 & borrow0);
                a1 = t1 ^ borrow0;
                a2 = a2 ^ b2 ^ borrow1;
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
        let carry0 = a0 & g0;
        let c0 = a0 ^ g0;
        let t1 = a1 ^ g1;
        let carry1 = (a1 & g1) | (t1 & carry0);
        let c1 = t1 ^ carry0;
        let c2 = a2 ^ g2 ^ carry1;
        pos.c = [c0, c1, c2];
        // RULES.md §1: a cell that receives an orb becomes the mover's, with what it held.
        let gained = from_left | from_right | from_above | from_below;
        for own in pos.own.iter_mut().take(players) {
            *own &= !gained;
        }
        let occupied = c0 | c1 | c2;
        // RULES.md §3.1: a cell left with no orbs has no owner (only the mover's cells burst).
        pos.own[mover] = (pos.own[mover] | gained) & occupied;
        sink.wave(u, pos);
        // RULES.md §3.3: stop as soon as the game is decided, so every cascade ends.
        if decisive && (occupied & !pos.own[mover]).is_zero() {
            break;
        }
        // RULES.md §2: unstable next are the cells over capacity that gained an orb or (only
        // possible under `subtract`) have just burst; an untouched opening cell stays put.
        unstable = geo.over_capacity(&pos.c) & (gained | u);
    }
    waves
}

/// Eliminations, the winner and the next player (RULES.md §1, §3.6).
#[inline(always)]
fn finish_turn<B: Bits>(players: usize, pos: &mut Position<B>, mover: usize, decisive: bool) {
    if decisive {
        for p in 0..players {
            if p != mover && pos.own[p].is_zero() {
                pos.out |= 1 << p;
            }
        }
        let all_players = ((1u16 << players) - 1) as u8;
        if pos.out == all_players & !(1 << mover) {
            pos.winner = mover as u8;
        }
    }
    // Turns go round from the mover, skipping players who are out; with everyone else out
    // this comes back to the winner.
    let mut next = mover;
    loop {
        // (no `%`: a division per move is measurable in the hot loop)
        next = if next + 1 == players { 0 } else { next + 1 };
        if pos.out & (1 << next) == 0 {
            break;
        }
    }
    pos.to_move = next as u8;
}
