//! Proof-number search: depth-first proof-number search (df-pn, Nagai 2002) with the 1 + ε
//! threshold trick (Pawlewicz and Lew 2007), a memory-bounded transposition table that prefers
//! to keep proofs, symmetry reduction and immediate-win detection. It proves who wins a
//! two-player position; the exact length is the alpha-beta solver's job.
//!
//! Numbers are from the point of view of the player to move (negamax form): `pn` is the effort
//! still needed to prove that the mover wins, `dn` the effort to prove that the mover loses.
//! A node's `pn` is the least `dn` of its children, its `dn` the sum of their `pn`s.
//!
//! Cycles. Under `subtract` every move adds orbs and bursts keep them, so no position repeats
//! and the game graph has no cycles. Under `empty` bursts can lose orbs, positions can repeat
//! and a game can in principle go on forever (the rules have no draws and no move limit). The
//! search then proves one player's win at a time (the *prover*): a position that repeats one on
//! the current path, or lies deeper than `MAX_PLY`, counts as "the prover does not win". A
//! proof of the prover's win is therefore a finite strategy that wins whatever the opponent
//! does, however the table was filled; a "does not win" is only trusted once the opponent's win
//! has been proven by a second search (see `Prover::prove`).
//!
//! Threads. `prove_position` with several threads runs one searcher per thread on one shared
//! table, after the parallel df-pn of Kaneko 2010 ("Parallel depth first proof number search",
//! AAAI): every thread searches the same root and marks the child it descends into as busy.
//! Where the threads part is this module's own: a proof needs every child of the loser's nodes
//! and one child of the winner's, so a thread takes a free sibling of a busy child only at
//! the nodes of the player the root's current numbers point to as the loser, and elsewhere
//! follows the other threads into the best child (Kaneko's virtual numbers, which part the
//! threads at every node, searched 25 to 55% more positions than one thread on the boards
//! measured; this 0 to 25%). The threads meet only through the table: before a thread
//! descends into a child it rereads the child's numbers, and chooses again if another thread
//! has changed them. A thread stops once the root is proven (by any of them). The threads only
//! find the winner; the line and the check are read afterwards by one searcher from the table,
//! as with one thread, so the result does not depend on how the work was shared.

use std::sync::atomic::{AtomicBool, AtomicU8, Ordering};
use std::time::Instant;

use crate::bits::Bits;
use crate::board::{Geometry, Position};
use crate::cascade::{legal_mask, play_unchecked};
use crate::control::Control;
use crate::error::{Error, Result};
use crate::rng::mix;
use crate::rules::{Burst, Config};
pub use crate::search::proof_table::INF;
use crate::search::proof_table::{proven, ProofTable, Slot};
use crate::search::symmetry::Symmetries;

/// Sums of proof numbers stop here, below `INF`, so that a large sum never reads as a proof.
const FINITE: u32 = u32::MAX - 1;
/// A path longer than this counts as "the prover does not win" (games under `subtract` are
/// far shorter: they last at most the board's capacity plus one plies).
const MAX_PLY: usize = 20_000;

/// A child of an expanded node: its position, key, move and current numbers; `fixed` when
/// they come from the path (a repetition or the depth limit), not the table.
struct Child<B> {
    pos: Position<B>,
    key: u64,
    pn: u32,
    dn: u32,
    fixed: bool,
}

/// What the threads of one parallel search share besides the table: how many of them are
/// inside each node (by a hash of its key, so two nodes may share a counter: that only steers
/// the choice of child), and whether the search is over.
pub struct Team {
    busy: Box<[AtomicU8]>,
    finished: AtomicBool,
    /// The player the root's numbers point to as the loser: where that player moves the
    /// threads part, elsewhere they keep together.
    loser: AtomicU8,
}

const BUSY_BITS: u32 = 16;

impl Team {
    pub fn new() -> Self {
        Team {
            busy: (0..1usize << BUSY_BITS).map(|_| AtomicU8::new(0)).collect(),
            finished: AtomicBool::new(false),
            loser: AtomicU8::new(0),
        }
    }

    #[inline]
    fn counter(&self, key: u64) -> &AtomicU8 {
        &self.busy[(key >> (64 - BUSY_BITS)) as usize]
    }

    #[inline]
    fn busy(&self, key: u64) -> u32 {
        u32::from(self.counter(key).load(Ordering::Relaxed))
    }

    /// Records the root's current numbers (two players): with `pn >= dn` its mover looks lost.
    #[inline]
    fn guess_loser(&self, mover: usize, pn: u32, dn: u32) {
        let loser = if pn >= dn { mover } else { 1 - mover };
        self.loser.store(loser as u8, Ordering::Relaxed);
    }

    #[inline]
    fn likely_loser(&self) -> usize {
        usize::from(self.loser.load(Ordering::Relaxed))
    }

    /// Ends the search for every thread (they notice within 64 positions).
    pub fn finish(&self) {
        self.finished.store(true, Ordering::Relaxed);
    }
}

impl Default for Team {
    fn default() -> Self {
        Team::new()
    }
}

/// What `Prover::prove` found.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Proof {
    /// The player proven to win, or None (stopped, or no proof either way).
    pub winner: Option<usize>,
    /// A line in which the winner wins: the winner's proven moves, the loser's most stubborn
    /// replies (empty unless proven).
    pub line: Vec<usize>,
}

/// The proof-number searcher. It borrows a table, so many positions (a position's moves, the
/// calls of a long run) share what was proven.
pub struct Prover<'a, B> {
    geo: &'a Geometry<B>,
    cfg: &'a Config,
    sym: &'a Symmetries,
    table: &'a ProofTable,
    control: &'a Control,
    deadline: Option<Instant>,
    /// The most positions to expand (checked every 1,024 of them): the budget of a probe.
    budget: u64,
    /// Positions expanded so far.
    pub positions: u64,
    /// Set when the deadline passed or the control was cancelled.
    pub stopped: bool,
    /// Positions can repeat (burst `empty`): search one prover at a time.
    cycles: bool,
    prover: usize,
    /// The player whose win is tried first (None: the mover; see `with_first`).
    first: Option<usize>,
    path: Vec<u64>,
    /// The other threads of a parallel search, if any.
    team: Option<&'a Team>,
    /// The key of the root being searched, and whether the search left it because the root
    /// was proven (by another thread) or the team finished, rather than for time.
    root: u64,
    abandoned: bool,
    /// Slots this searcher filled that the table has not counted yet.
    filled: u64,
}

impl<'a, B: Bits> Prover<'a, B> {
    pub fn new(
        geo: &'a Geometry<B>,
        cfg: &'a Config,
        sym: &'a Symmetries,
        table: &'a ProofTable,
        control: &'a Control,
        deadline: Option<Instant>,
    ) -> Self {
        Prover {
            geo,
            cfg,
            sym,
            table,
            control,
            deadline,
            budget: u64::MAX,
            positions: 0,
            stopped: false,
            cycles: cfg.rules.burst == Burst::Empty,
            prover: 0,
            first: None,
            path: Vec::new(),
            team: None,
            root: 0,
            abandoned: false,
            filled: 0,
        }
    }

    /// Stops the search once it has expanded about `positions` positions (a whole multiple
    /// of 1,024 at the most), the way a deadline stops it.
    pub fn with_budget(mut self, positions: u64) -> Self {
        self.budget = positions;
        self
    }

    /// Tries `player`'s win first rather than the mover's (under `empty`, where each
    /// prover's searches keep their own keys): a position a search from its parent has
    /// settled is then read from that search's proofs, not searched again.
    pub fn with_first(mut self, player: Option<usize>) -> Self {
        self.first = player;
        self
    }

    /// Searches as one thread of `team` (see the module notes).
    pub fn with_team(mut self, team: &'a Team) -> Self {
        self.team = Some(team);
        self
    }

    /// The table key of `pos` in the current search: the symmetric key, and under `empty`
    /// the prover (the two searches keep their own, path-dependent "does not win" apart).
    fn key(&self, pos: &Position<B>) -> u64 {
        self.key_from(&self.sym.hashes(pos), pos)
    }

    /// `key` from the hashes of `pos`'s images (`Symmetries::hashes`).
    fn key_from(&self, h: &[u64; 8], pos: &Position<B>) -> u64 {
        let k = self.sym.key_from(h, pos);
        if self.cycles {
            k ^ mix(0x9a0e_0000 | self.prover as u64)
        } else {
            k
        }
    }

    fn child(&self, pos: &Position<B>, m: usize) -> Position<B> {
        let mut child = *pos;
        play_unchecked(self.geo, self.cfg.rules, 2, &mut child, m, &mut ());
        child
    }

    /// Proves who wins `pos` (two players): first that its mover wins; if that is disproven
    /// and positions can repeat, that the opponent wins (a disproof may rest on a repetition).
    pub fn prove(&mut self, pos: &Position<B>) -> Proof {
        let winner = self.resolve(pos);
        // The line is read from the proofs of the search that found the winner, by this
        // searcher alone.
        self.team = None;
        let line = match winner {
            Some(w) if pos.winner().is_none() => self.line(pos, w),
            _ => Vec::new(),
        };
        Proof {
            winner: if self.stopped { None } else { winner },
            line,
        }
    }

    /// Who wins `pos` (see `prove`), without the line: what every thread of a parallel
    /// search runs.
    pub fn resolve(&mut self, pos: &Position<B>) -> Option<usize> {
        if let Some(w) = pos.winner() {
            return Some(w);
        }
        let mover = pos.to_move as usize;
        let mut winner = None;
        let first = self.first.filter(|&p| p < 2).unwrap_or(mover);
        for prover in [first, 1 - first] {
            self.prover = prover;
            let (pn, dn) = self.search_root(pos);
            if self.stopped {
                break;
            }
            // The mover's win is sound from the mover's own search; from the opponent's it
            // says only that the opponent does not win, which may rest on a repetition (the
            // game then need not end), so it counts only if no repetition touched it.
            if pn == 0 && (prover == mover || !self.cycles || !self.table.tainted(prover)) {
                winner = Some(mover);
                break;
            }
            // A disproof of the prover's win is the opponent's win unless it may rest on a
            // repetition; then the opponent's win is proven by a search of its own.
            let trusted = !self.cycles || prover != mover || !self.table.tainted(prover);
            if dn == 0 && trusted {
                winner = Some(1 - mover);
                break;
            }
            if !self.cycles {
                break;
            }
        }
        if self.stopped {
            None
        } else {
            winner
        }
    }

    /// Makes `player` the prover of the searches that follow (see the module notes).
    pub fn prove_for(&mut self, player: usize) {
        self.prover = player;
    }

    fn search_root(&mut self, pos: &Position<B>) -> (u32, u32) {
        let key = self.key(pos);
        if let Some(s) = self.table.get(key).filter(proven) {
            return (s.pn, s.dn);
        }
        self.path.clear();
        self.root = key;
        let found = self.mid(pos, key, INF, INF);
        if !self.abandoned {
            return found;
        }
        // Another thread proved the root (or the team finished): its numbers are the table's.
        self.abandoned = false;
        self.stopped = self
            .team
            .is_some_and(|t| t.finished.load(Ordering::Relaxed))
            || self.control.cancelled()
            || self.positions >= self.budget
            || self.deadline.is_some_and(|d| Instant::now() >= d);
        match self.table.get(key).filter(proven) {
            Some(s) if !self.stopped => (s.pn, s.dn),
            _ => {
                self.stopped = true;
                (1, 1)
            }
        }
    }

    /// The current numbers of a child: a repetition or the depth limit counts as the
    /// prover not winning; otherwise the table's, or 1 to prove and the child's number of
    /// moves to disprove (every move must be refuted) if it has not been searched.
    fn look(&mut self, pos: Position<B>, key: u64) -> Child<B> {
        let mover_is_prover = pos.to_move as usize == self.prover;
        let fixed = self.path.len() >= MAX_PLY || (self.cycles && self.path.contains(&key));
        if fixed {
            self.table.taint(self.prover);
        }
        let (pn, dn) = if fixed {
            if mover_is_prover {
                (INF, 0)
            } else {
                (0, INF)
            }
        } else if let Some(s) = self.table.get(key) {
            (s.pn, s.dn)
        } else {
            (1, legal_mask(self.geo, self.cfg.rules, &pos).count().max(1))
        };
        Child {
            pos,
            key,
            pn,
            dn,
            fixed,
        }
    }

    /// Expands `pos` and searches below it until its proof number reaches `th_pn` or its
    /// disproof number `th_dn` (or it is proven, or the search stops); returns its numbers.
    fn mid(&mut self, pos: &Position<B>, key: u64, th_pn: u32, th_dn: u32) -> (u32, u32) {
        self.positions += 1;
        // Ctrl-C, the deadline and the other threads are looked at every 64 positions: a
        // position usually takes microseconds, but the first stores into a large fresh table
        // fault in its (huge) pages, and then 1,024 positions took two seconds (6x6 classic
        // with the default 4 GiB table). The progress count and the budget go by 1,024.
        if self.positions & 63 == 0 {
            if self.positions & 1023 == 0 {
                self.control.add_done(1024);
                self.table.count_filled(std::mem::take(&mut self.filled));
                self.stopped |= self.positions >= self.budget;
            }
            if self.control.cancelled() || self.deadline.is_some_and(|d| Instant::now() >= d) {
                self.stopped = true;
            }
            if let Some(team) = self.team {
                // The root proven by another thread, or the search over: leave the tree.
                if !self.stopped
                    && (team.finished.load(Ordering::Relaxed)
                        || self.table.get(self.root).is_some_and(|s| proven(&s)))
                {
                    self.stopped = true;
                    self.abandoned = true;
                }
            }
        }
        if self.stopped {
            return (1, 1);
        }
        let start = self.positions;
        let mover = pos.to_move as usize;
        // Expand: a move that wins at once proves the node. The children's table buckets are
        // fetched from memory together, before any is read.
        let mut expanded: Vec<(u32, u64, Position<B>)> = Vec::with_capacity(32);
        let mut won = false;
        // The children's keys come from this node's images' hashes, updated for the cells the
        // move changed (a fifth of the search's time went to hashing every cell of every child).
        let hashes = self.sym.hashes(pos);
        let legal = legal_mask(self.geo, self.cfg.rules, pos);
        legal.for_each(|m| {
            if won {
                return;
            }
            let child = self.child(pos, m);
            if child.winner().is_some() {
                won = true;
                return;
            }
            let ckey = self.key_from(&self.sym.child_hashes(&hashes, pos, &child), &child);
            debug_assert_eq!(ckey, self.key(&child));
            // Moves that are mirror images of one another (the position is symmetric) lead to
            // one child: counting it once keeps the disproof number honest.
            if expanded.iter().any(|e| e.1 == ckey) {
                return;
            }
            self.table.prefetch(ckey);
            // Order: the moves that leave the mover the most orbs first (ties go to them).
            expanded.push((u32::MAX - child.orbs(mover), ckey, child));
        });
        if won {
            self.store(key, mover, 0, INF, 1);
            return (0, INF);
        }
        expanded.sort_by_key(|c| c.0);
        self.path.push(key);
        let mut children: Vec<Child<B>> = expanded
            .into_iter()
            .map(|(_, ckey, child)| self.look(child, ckey))
            .collect();
        let (mut pn, mut dn);
        let team = self.team;
        loop {
            let (mut best, mut best_dn, mut second) = (0usize, INF, INF);
            let mut sum: u32 = 0;
            for (i, c) in children.iter().enumerate() {
                sum = if c.pn == INF || sum == INF {
                    INF
                } else {
                    sum.saturating_add(c.pn).min(FINITE)
                };
                if c.dn < best_dn {
                    second = best_dn;
                    best_dn = c.dn;
                    best = i;
                } else if c.dn < second {
                    second = c.dn;
                }
            }
            pn = best_dn;
            dn = sum;
            if pn >= th_pn || dn >= th_dn || self.stopped {
                break;
            }
            if let Some(team) = team {
                if key == self.root {
                    team.guess_loser(mover, pn, dn);
                }
                // Where the likely loser moves, the proof needs every child: a child other
                // threads are in counts as taken, and this thread takes the best free sibling
                // (if it can make progress within the node's threshold), else goes in too.
                // Where the likely winner moves the proof needs one child: the threads go into
                // the best one together and part further down.
                if team.likely_loser() == mover
                    && !children[best].fixed
                    && team.busy(children[best].key) > 0
                {
                    if let Some((b, s)) = free_choice(&children, team, th_pn) {
                        (best, second) = (b, s);
                    }
                }
            }
            if team.is_some() && !children[best].fixed {
                // Another thread may have searched the child since: if the table's numbers
                // differ, they are the child's, and the choice is made again.
                let c = &mut children[best];
                if let Some(t) = self.table.get(c.key) {
                    if (t.pn, t.dn) != (c.pn, c.dn) {
                        (c.pn, c.dn) = (t.pn, t.dn);
                        continue;
                    }
                }
            }
            let c = &children[best];
            let c_th_pn = if th_dn == INF {
                INF
            } else {
                (th_dn - dn).saturating_add(c.pn).min(FINITE)
            };
            let grown = if second >= FINITE {
                INF
            } else {
                second.saturating_add(1 + second / 4)
            };
            let c_th_dn = th_pn.min(grown);
            let (cpos, ckey) = (c.pos, c.key);
            if let Some(team) = team {
                team.counter(ckey).fetch_add(1, Ordering::Relaxed);
            }
            let (cpn, cdn) = self.mid(&cpos, ckey, c_th_pn, c_th_dn);
            if let Some(team) = team {
                team.counter(ckey).fetch_sub(1, Ordering::Relaxed);
            }
            if self.stopped {
                break;
            }
            let c = &mut children[best];
            (c.pn, c.dn) = (cpn, cdn);
        }
        self.path.pop();
        if !self.stopped {
            let work = u32::try_from(self.positions - start + 1).unwrap_or(u32::MAX);
            self.store(key, mover, pn, dn, work);
        }
        (pn, dn)
    }

    /// Stores a node's numbers. A proof is sound when it proves the prover's win, or when no
    /// position can repeat.
    fn store(&mut self, key: u64, mover: usize, pn: u32, dn: u32, work: u32) {
        let mover_wins = pn == 0;
        let sound = !self.cycles
            || !self.table.tainted(self.prover)
            || (mover_wins == (mover == self.prover));
        let new = self.table.put(Slot {
            key,
            pn,
            dn,
            work: work.max(1),
            sound: u32::from(sound && (pn == 0 || dn == 0)),
        });
        self.filled += u64::from(new);
    }

    /// A line the winner wins by: at the winner's turns a proven winning move (the one whose
    /// proof took the fewest positions, a proxy for the quickest), at the loser's the reply whose
    /// proof took the most. Where the table has lost the proofs needed, the position is proven
    /// again.
    fn line(&mut self, pos: &Position<B>, winner: usize) -> Vec<usize> {
        let mut line = Vec::new();
        let mut cur = *pos;
        let mut seen = vec![self.key(&cur)];
        while cur.winner().is_none() && line.len() < MAX_PLY && !self.stopped {
            // The table's proofs: the winner's own where the loser's may rest on a repetition.
            let own = self.prover;
            let read = if self.sound_for(own, winner) {
                self.pick(&cur, winner, &seen)
            } else {
                let seen = self.rekey(&seen, own, winner);
                self.prover = winner;
                let found = self.pick(&cur, winner, &seen);
                self.prover = own;
                found
            };
            let next = match read {
                Some(found) => Some(found),
                None => self.pick_by_search(&cur, winner, &seen),
            };
            let Some((m, child)) = next else {
                break;
            };
            line.push(m);
            seen.push(self.key(&child));
            cur = child;
        }
        line
    }

    /// A move after which the player to move is proven to win (the one whose proof took the
    /// fewest positions), searching again if the table has lost it; None if there is none.
    /// Right after `prove`, the proofs it used are read (the mover's own, if those were the
    /// loser's and a repetition has touched them since); otherwise those of the mover's own
    /// search (`prove_for`).
    pub fn winning_move(&mut self, pos: &Position<B>) -> Option<usize> {
        let key = self.key(pos);
        let mover = pos.to_move as usize;
        let seen = [key];
        // The proofs of the mover's win are sound; so are the opponent's disproofs while no
        // repetition has touched the opponent's searches (the run's own searches included:
        // after `prove` they are the opponent's when the opponent's search found the winner).
        let own = self.prover;
        for prover in [own, 1 - own] {
            if !self.sound_for(prover, mover) {
                continue;
            }
            self.prover = prover;
            let found = self.pick(pos, mover, &seen);
            self.prover = own;
            if let Some((m, _)) = found {
                return Some(m);
            }
        }
        self.pick_by_search(pos, mover, &seen).map(|(m, _)| m)
    }

    /// Checks that `winner` wins from `pos` by walking the proof: every move of the loser,
    /// and at the winner's turns the move the proofs give, down to the end of every game
    /// (real positions, exact hashes: neither the symmetry reduction nor the proof numbers
    /// are trusted). Returns the number of distinct positions of the proof, or None if some
    /// line does not end in the winner's win (or the search stopped).
    /// The check keeps the search's deadline and cancellation: stopped, it returns None with
    /// `stopped` set (a refutation is None with `stopped` clear).
    pub fn verify(&mut self, pos: &Position<B>, winner: usize) -> Option<u64> {
        let mut done = std::collections::HashSet::new();
        let mut path = Vec::new();
        let mut visits = 0u64;
        let ok = self.verify_node(pos, winner, &mut done, &mut path, &mut visits);
        (ok && !self.stopped).then_some(done.len() as u64)
    }

    fn verify_node(
        &mut self,
        pos: &Position<B>,
        winner: usize,
        done: &mut std::collections::HashSet<u64>,
        path: &mut Vec<u64>,
        visits: &mut u64,
    ) -> bool {
        *visits += 1;
        if *visits & 1023 == 0 {
            self.control.add_walked(1024);
            self.stopped |=
                self.control.cancelled() || self.deadline.is_some_and(|d| Instant::now() >= d);
        }
        if self.stopped {
            return false;
        }
        if let Some(w) = pos.winner() {
            return w == winner;
        }
        let exact = crate::search::zobrist(pos, 2);
        if done.contains(&exact) {
            return true;
        }
        if path.contains(&exact) {
            return false; // a cycle: the strategy would not end the game
        }
        path.push(exact);
        let ok = if pos.to_move as usize == winner {
            match self.winning_move(pos) {
                Some(m) => {
                    let child = self.child(pos, m);
                    self.verify_node(&child, winner, done, path, visits)
                }
                None => false,
            }
        } else {
            let mut moves = Vec::new();
            legal_mask(self.geo, self.cfg.rules, pos).for_each(|m| moves.push(m));
            moves.into_iter().all(|m| {
                let child = self.child(pos, m);
                self.verify_node(&child, winner, done, path, visits)
            })
        };
        path.pop();
        if ok {
            done.insert(exact);
        }
        ok
    }

    /// Whether `prover`'s searches prove `winner`'s wins soundly: always when `prover` is the
    /// winner or positions cannot repeat, otherwise while no repetition has touched them (the
    /// winner's win is then "the prover does not win", which may rest on one).
    fn sound_for(&self, prover: usize, winner: usize) -> bool {
        !self.cycles || prover == winner || !self.table.tainted(prover)
    }

    /// The line's move when the table has lost the proofs: at the winner's turns the move
    /// through which a search of the position itself proves it (read from the table), else
    /// the first move whose child a search proves to be the winner's. The search is the
    /// current prover's, whose table holds the run's work; where that prover is the loser and
    /// a repetition has touched its searches (positions can repeat), what it finds may rest
    /// on the repetition, and the search is made again as the winner, whose proofs never do.
    fn pick_by_search(
        &mut self,
        cur: &Position<B>,
        winner: usize,
        seen: &[u64],
    ) -> Option<(usize, Position<B>)> {
        let own = self.prover;
        if self.sound_for(own, winner) {
            let found = self.pick_by_search_as(cur, winner, seen);
            if self.stopped || self.sound_for(own, winner) {
                return found;
            }
        }
        let seen = self.rekey(seen, own, winner);
        self.prover = winner;
        let found = self.pick_by_search_as(cur, winner, &seen);
        self.prover = own;
        found
    }

    /// `keys` of `from`'s searches as `to`'s searches key the same positions (under `empty`
    /// each prover's keys are xor-ed with its own tag, see `key_from`).
    fn rekey(&self, keys: &[u64], from: usize, to: usize) -> Vec<u64> {
        let shift = if self.cycles {
            mix(0x9a0e_0000 | from as u64) ^ mix(0x9a0e_0000 | to as u64)
        } else {
            0
        };
        keys.iter().map(|k| k ^ shift).collect()
    }

    /// `pick_by_search` as the current prover.
    fn pick_by_search_as(
        &mut self,
        cur: &Position<B>,
        winner: usize,
        seen: &[u64],
    ) -> Option<(usize, Position<B>)> {
        let winners_turn = cur.to_move as usize == winner;
        if winners_turn {
            // The position itself first: df-pn proves it through its most promising move and
            // the proven child is read from the table. Searching the moves in turn, each to
            // its end, spent most of a check read from a checkpoint disproving moves that
            // lose (a table too small had lost the proofs: over 10 minutes on 5 x 5).
            let key = self.key(cur);
            self.path.clear();
            self.path.extend(seen.iter().copied().filter(|&k| k != key));
            let (pn, _) = self.mid(cur, key, INF, INF);
            if self.stopped {
                return None;
            }
            if pn == 0 {
                if let Some(found) = self.pick(cur, winner, seen) {
                    return Some(found);
                }
            }
        }
        let mut moves = Vec::new();
        legal_mask(self.geo, self.cfg.rules, cur).for_each(|m| moves.push(m));
        for m in moves {
            let child = self.child(cur, m);
            let key = self.key(&child);
            if child.winner().is_some() {
                return Some((m, child));
            }
            if seen.contains(&key) {
                continue;
            }
            self.path.clear();
            self.path.extend_from_slice(seen);
            let (_, dn) = self.mid(&child, key, INF, INF);
            if self.stopped {
                return None;
            }
            if (dn == 0) == winners_turn {
                return Some((m, child));
            }
        }
        None
    }

    /// The move the line takes from `cur` among the proofs in the table (see `line`).
    fn pick(&self, cur: &Position<B>, winner: usize, seen: &[u64]) -> Option<(usize, Position<B>)> {
        let winners_turn = cur.to_move as usize == winner;
        let mut pick: Option<(u32, usize, Position<B>)> = None;
        let legal = legal_mask(self.geo, self.cfg.rules, cur);
        let mut moves = Vec::new();
        legal.for_each(|m| moves.push(m));
        for m in moves {
            let child = self.child(cur, m);
            if child.winner().is_some() {
                // A move that wins at once: the winner's best (a loser has none).
                return Some((m, child));
            }
            let key = self.key(&child);
            if seen.contains(&key) {
                continue;
            }
            let Some(slot) = self.table.get(key).filter(proven) else {
                continue;
            };
            let better = |p: &(u32, usize, Position<B>)| {
                if winners_turn {
                    slot.work < p.0
                } else {
                    slot.work > p.0
                }
            };
            // The child's mover loses (dn = 0) exactly when the winner moved into it.
            if (slot.dn == 0) == winners_turn && pick.as_ref().is_none_or(better) {
                pick = Some((slot.work, m, child));
            }
        }
        pick.map(|(_, m, child)| (m, child))
    }
}

impl<B> Drop for Prover<'_, B> {
    fn drop(&mut self) {
        self.table.count_filled(self.filled);
    }
}

/// The child a thread of a team takes at a node of the likely loser: the one with the least
/// disproof number that no other thread is in, with the second-least number of any child (a
/// busy one counting as taken, `FINITE - 1`) for its threshold; None when every child is busy
/// or the free child could not make progress within `th_pn` (the real best is then taken).
/// The caller asks only when the best child is busy.
fn free_choice<B>(children: &[Child<B>], team: &Team, th_pn: u32) -> Option<(usize, u32)> {
    let busy = |c: &Child<B>| !c.fixed && team.busy(c.key) > 0;
    let mut free: Option<usize> = None;
    for (i, c) in children.iter().enumerate() {
        if !busy(c) && free.is_none_or(|f| c.dn < children[f].dn) {
            free = Some(i);
        }
    }
    let chosen = free?;
    let second = children
        .iter()
        .enumerate()
        .filter(|&(i, _)| i != chosen)
        .map(|(_, c)| if busy(c) { FINITE - 1 } else { c.dn })
        .min()
        .unwrap_or(INF);
    // Progress: the chosen child's real number must be below both thresholds it will get.
    let dn = children[chosen].dn;
    (dn < th_pn && dn < FINITE).then_some((chosen, second))
}

/// What `prove_position` found: the proven winner (None if not proven), a line, the positions
/// expanded, with `verify` the positions of the checked proof (None if unchecked, refuted or
/// stopped), and whether the search stopped (time or cancellation) before it finished.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ProveOutcome {
    pub winner: Option<usize>,
    pub line: Vec<usize>,
    pub positions: u64,
    pub checked: Option<u64>,
    pub stopped: bool,
}

/// The stack of the proof search's own thread: the search recurses once per ply.
pub const PROVER_STACK: usize = 1 << 28;

/// Proves who wins `pos` (two players) with `table`, on threads of their own with a deep
/// stack (`PROVER_STACK`): `threads` searchers share the table (see the module notes; 0 counts
/// as 1); with `verify`, walks the proof before it counts. `deadline` bounds both. A thread
/// that cannot be had is `Error::OutOfMemory`. `budget` (None: no bound) stops each searcher
/// after about that many positions, as the deadline does.
#[allow(clippy::too_many_arguments)]
pub fn prove_position<B: Bits>(
    geo: &Geometry<B>,
    cfg: &Config,
    pos: &Position<B>,
    table: &ProofTable,
    control: &Control,
    deadline: Option<Instant>,
    budget: Option<u64>,
    verify: bool,
    threads: usize,
) -> Result<ProveOutcome> {
    prove_position_first(
        geo, cfg, pos, table, control, deadline, budget, verify, threads, None,
    )
}

/// `prove_position`, trying `first`'s win first (None: the mover's; see `Prover::with_first`).
#[allow(clippy::too_many_arguments)]
pub fn prove_position_first<B: Bits>(
    geo: &Geometry<B>,
    cfg: &Config,
    pos: &Position<B>,
    table: &ProofTable,
    control: &Control,
    deadline: Option<Instant>,
    budget: Option<u64>,
    verify: bool,
    threads: usize,
    first: Option<usize>,
) -> Result<ProveOutcome> {
    let budget = budget.unwrap_or(u64::MAX);
    let threads = threads.clamp(1, MAX_THREADS);
    let sym = Symmetries::new(cfg.width, cfg.height);
    let team = Team::new();
    let no_thread = |e: std::io::Error| {
        Error::OutOfMemory(format!(
            "a thread with the proof search's {} MiB stack ({e})",
            PROVER_STACK >> 20
        ))
    };
    std::thread::scope(|scope| {
        let spawn = |name: usize| {
            std::thread::Builder::new()
                .name(format!("colorwars-prover-{name}"))
                .stack_size(PROVER_STACK)
        };
        let mut helpers = Vec::with_capacity(threads - 1);
        for i in 1..threads {
            let (sym, team) = (&sym, &team);
            let helper = spawn(i).spawn_scoped(scope, move || {
                let mut p = Prover::new(geo, cfg, sym, table, control, deadline)
                    .with_budget(budget)
                    .with_first(first)
                    .with_team(team);
                p.resolve(pos);
                p.positions
            });
            match helper {
                Ok(h) => helpers.push(h),
                Err(e) => {
                    team.finish();
                    return Err(no_thread(e));
                }
            }
        }
        let main = spawn(0).spawn_scoped(scope, || {
            let mut p = Prover::new(geo, cfg, &sym, table, control, deadline)
                .with_budget(budget)
                .with_first(first);
            if threads > 1 {
                p = p.with_team(&team);
            }
            let winner = p.resolve(pos);
            team.finish();
            let stopped = p.stopped;
            // The line and the check, by this searcher alone, from the table.
            p.team = None;
            let line = match winner {
                Some(w) if pos.winner().is_none() => p.line(pos, w),
                _ => Vec::new(),
            };
            let winner = if p.stopped { None } else { winner };
            let checked = match winner {
                Some(w) if verify && !p.stopped => p.verify(pos, w),
                _ => None,
            };
            ProveOutcome {
                winner,
                line,
                positions: p.positions,
                checked,
                stopped: stopped || p.stopped,
            }
        });
        let main = match main {
            Ok(m) => m,
            Err(e) => {
                team.finish();
                return Err(no_thread(e));
            }
        };
        let mut outcome = main
            .join()
            .unwrap_or_else(|panic| std::panic::resume_unwind(panic));
        for h in helpers {
            outcome.positions += h
                .join()
                .unwrap_or_else(|panic| std::panic::resume_unwind(panic));
        }
        Ok(outcome)
    })
}

/// What `probe_position` found: a move proven to win for the player to move (None where
/// no win was proven), the positions expanded, and whether the search gave up because the
/// proof number of the mover's win reached its threshold.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ProbeOutcome {
    pub cell: Option<usize>,
    pub positions: u64,
    pub gave_up: bool,
}

/// The endgame probe: looks for a win of the player to move in `pos` (two players) with
/// `table`, for at most about `budget` positions, and gives up as soon as the proof number
/// of that win reaches `threshold` (the fewest positions still to prove it: a position far
/// from a forced win is left at once, where a search for the budget would find nothing).
/// Runs on a thread of its own with the proof search's deep stack. A thread that cannot be
/// had is `Error::OutOfMemory`.
#[allow(clippy::too_many_arguments)]
pub fn probe_position<B: Bits>(
    geo: &Geometry<B>,
    cfg: &Config,
    pos: &Position<B>,
    table: &ProofTable,
    control: &Control,
    deadline: Option<Instant>,
    budget: u64,
    threshold: u32,
) -> Result<ProbeOutcome> {
    let sym = Symmetries::new(cfg.width, cfg.height);
    std::thread::scope(|scope| {
        let probe = std::thread::Builder::new()
            .name("colorwars-probe".into())
            .stack_size(PROVER_STACK)
            .spawn_scoped(scope, || {
                let mut p =
                    Prover::new(geo, cfg, &sym, table, control, deadline).with_budget(budget);
                let mover = pos.to_move as usize;
                p.prove_for(mover);
                let key = p.key(pos);
                let (pn, _) = match table.get(key).filter(proven) {
                    Some(s) => (s.pn, s.dn),
                    None if pos.winner().is_some() => (INF, 0),
                    None => {
                        p.path.clear();
                        p.root = key;
                        p.mid(pos, key, threshold.max(2), INF)
                    }
                };
                let won = pn == 0 && !p.stopped;
                let cell = if won { p.winning_move(pos) } else { None };
                ProbeOutcome {
                    cell,
                    positions: p.positions,
                    gave_up: !p.stopped && pn != 0 && pn != INF && pn >= threshold.max(2),
                }
            })
            .map_err(|e| {
                Error::OutOfMemory(format!(
                    "a thread with the proof search's {} MiB stack ({e})",
                    PROVER_STACK >> 20
                ))
            })?;
        Ok(probe
            .join()
            .unwrap_or_else(|panic| std::panic::resume_unwind(panic)))
    })
}

/// The most threads one proof search takes.
pub const MAX_THREADS: usize = 64;

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::game_rng;
    use crate::rules::Rules;
    use crate::search::solve;
    use rand::RngExt;

    fn prove(cfg: &Config, pos: &Position<u64>) -> Proof {
        let geo = Geometry::<u64>::new(cfg.width, cfg.height);
        let sym = Symmetries::new(cfg.width, cfg.height);
        let table = ProofTable::new(1 << 22).unwrap();
        let control = Control::new();
        let proof = Prover::new(&geo, cfg, &sym, &table, &control, None).prove(pos);
        proof
    }

    fn replays_to(cfg: &Config, pos: &Position<u64>, line: &[usize], winner: usize) {
        let geo = Geometry::<u64>::new(cfg.width, cfg.height);
        let mut p = *pos;
        for &m in line {
            assert!(legal_mask(&geo, cfg.rules, &p).has(m));
            play_unchecked(&geo, cfg.rules, 2, &mut p, m, &mut ());
        }
        assert_eq!(p.winner(), Some(winner));
    }

    #[test]
    fn symmetric_positions_share_a_key_and_others_do_not() {
        for (w, h) in [(3, 3), (4, 4), (3, 5), (5, 2)] {
            let cfg = Config::new(w, h, 2, Rules::COLORWARS, 0).unwrap();
            let geo = Geometry::<u64>::new(w as usize, h as usize);
            let sym = Symmetries::new(w as usize, h as usize);
            assert_eq!(sym.count(), if w == h { 8 } else { 4 });
            let mut rng = game_rng(7, 0);
            let mut pos = Position::<u64>::start(&cfg);
            while pos.winner().is_none() {
                // Every image of the position has the same key.
                for t in 0..sym.count() {
                    let mut img = pos;
                    img.c = [0; 3];
                    img.own = [0; 8];
                    for c in 0..geo.cells {
                        let owner = pos.owner(c, 2);
                        img.set_cell(sym.image(c, t), pos.count(c), owner);
                    }
                    assert_eq!(sym.key(&img), sym.key(&pos), "{w}x{h} symmetry {t}");
                }
                let mut other = pos;
                other.to_move ^= 1;
                assert_ne!(sym.key(&other), sym.key(&pos));
                let legal = legal_mask(&geo, cfg.rules, &pos);
                let m = legal.nth(rng.random_range(0..legal.count()));
                play_unchecked(&geo, cfg.rules, 2, &mut pos, m, &mut ());
            }
        }
    }

    #[test]
    fn a_childs_hashes_from_its_parents_are_its_own() {
        // Every move of every position along random games, both rule sets, square and
        // rectangular boards (big cascades included): the hashes updated for the changed
        // cells equal the child's hashed from scratch, and so does its key.
        let mut rng = game_rng(13, 0);
        for rules in [Rules::CLASSIC, Rules::COLORWARS] {
            for (w, h) in [(3, 3), (5, 5), (4, 6), (8, 8)] {
                let cfg = Config::new(w, h, 2, rules, 0).unwrap();
                let geo = Geometry::<u64>::new(w as usize, h as usize);
                let sym = Symmetries::new(w as usize, h as usize);
                for _ in 0..5 {
                    let mut pos = Position::<u64>::start(&cfg);
                    let mut checked = 0;
                    while pos.winner().is_none() {
                        let hashes = sym.hashes(&pos);
                        let legal = legal_mask(&geo, cfg.rules, &pos);
                        legal.for_each(|m| {
                            let mut child = pos;
                            play_unchecked(&geo, cfg.rules, 2, &mut child, m, &mut ());
                            let updated = sym.child_hashes(&hashes, &pos, &child);
                            assert_eq!(updated, sym.hashes(&child), "{w}x{h} move {m}");
                            assert_eq!(sym.key_from(&updated, &child), sym.key(&child));
                            checked += 1;
                        });
                        let m = legal.nth(rng.random_range(0..legal.count()));
                        play_unchecked(&geo, cfg.rules, 2, &mut pos, m, &mut ());
                    }
                    assert!(checked > 0);
                }
            }
        }
    }

    #[test]
    fn proof_number_search_agrees_with_alpha_beta_on_small_boards() {
        // Every board both searches finish in a moment, from the start and from positions of
        // random games; the line replays to the proven winner.
        let mut rng = game_rng(11, 0);
        for rules in [Rules::CLASSIC, Rules::COLORWARS] {
            for (w, h) in [(2, 2), (2, 3), (3, 2), (2, 4), (3, 3)] {
                let cfg = Config::new(w, h, 2, rules, 0).unwrap();
                let geo = Geometry::<u64>::new(w as usize, h as usize);
                let mut pos = Position::<u64>::start(&cfg);
                while pos.winner().is_none() {
                    let ab = solve(&geo, &cfg, &pos, 400, &Control::new())
                        .unwrap()
                        .unwrap();
                    let pn = prove(&cfg, &pos);
                    assert_eq!(
                        pn.winner,
                        Some(ab.winner),
                        "{w}x{h} {rules:?} ply {}",
                        pos.ply
                    );
                    replays_to(&cfg, &pos, &pn.line, ab.winner);
                    let legal = legal_mask(&geo, cfg.rules, &pos);
                    let m = legal.nth(rng.random_range(0..legal.count()));
                    play_unchecked(&geo, cfg.rules, 2, &mut pos, m, &mut ());
                }
            }
        }
    }

    #[test]
    fn a_tiny_table_still_proves() {
        // Replacement in a table of one bucket: slower, never wrong.
        let cfg = Config::new(3, 3, 2, Rules::CLASSIC, 0).unwrap();
        let geo = Geometry::<u64>::new(3, 3);
        let sym = Symmetries::new(3, 3);
        let table = ProofTable::new(1).unwrap();
        assert_eq!(table.capacity(), 4);
        let control = Control::new();
        let pos = Position::<u64>::start(&cfg);
        let p = Prover::new(&geo, &cfg, &sym, &table, &control, None).prove(&pos);
        let ab = solve(&geo, &cfg, &pos, 400, &control).unwrap().unwrap();
        assert_eq!(p.winner, Some(ab.winner));
        replays_to(&cfg, &pos, &p.line, ab.winner);
    }

    #[test]
    fn a_child_the_parents_search_settled_is_read_from_its_side() {
        // Under `empty` (Color Wars) each prover's searches keep their own keys: the start's
        // search tries its mover's win, so its proofs of the children are under that side's
        // keys, and a child's search that tries the same side first reads them at once.
        let cfg = Config::new(4, 5, 2, Rules::COLORWARS, 0).unwrap();
        let geo = Geometry::<u64>::new(4, 5);
        let sym = Symmetries::new(4, 5);
        let control = Control::new();
        let pos = Position::<u64>::start(&cfg);
        let table = ProofTable::new(1 << 24).unwrap();
        let mut root = Prover::new(&geo, &cfg, &sym, &table, &control, None);
        assert_eq!(root.prove(&pos).winner, Some(1));
        // Proven by the first player's search alone (no repetition met): b's win is "a does
        // not win", under a's keys.
        assert!(
            !table.tainted(0),
            "the start needed b's own search: pick another board"
        );
        let mover = Some(pos.to_move as usize);
        let mut searched_again = 0;
        legal_mask(&geo, cfg.rules, &pos).for_each(|m| {
            let child = root.child(&pos, m);
            let mut read = Prover::new(&geo, &cfg, &sym, &table, &control, None).with_first(mover);
            assert_eq!(read.resolve(&child), Some(1), "after {m}");
            assert_eq!(read.positions, 0, "after {m}: searched, not read");
            let mut own = Prover::new(&geo, &cfg, &sym, &table, &control, None);
            assert_eq!(own.resolve(&child), Some(1), "after {m}");
            searched_again += own.positions;
        });
        // Trying the child's mover first searches anew (that side's keys are empty).
        assert!(searched_again > 0);
    }

    #[test]
    fn the_check_does_not_trust_the_losers_searches_once_a_repetition_touched_them() {
        // Under `empty` b's win at the start is proven by a's search ("a does not win"), sound
        // while no repetition touched a's searches. Once one has, a's entries for b's wins may
        // rest on it: the check must not take b's moves from them. Forged here: after each
        // first move of a, every reply of b that loses is stored as b's proven win under a's
        // keys, with the least work (the move the check would take). The check, reading a's
        // entries, walked into a lost position and rejected a right proof; it now reads b's
        // own searches and searches again as b.
        let cfg = Config::new(3, 4, 2, Rules::COLORWARS, 0).unwrap();
        let geo = Geometry::<u64>::new(3, 4);
        let sym = Symmetries::new(3, 4);
        let control = Control::new();
        let pos = Position::<u64>::start(&cfg);
        let table = ProofTable::new(1 << 24).unwrap();
        let mut run = Prover::new(&geo, &cfg, &sym, &table, &control, None);
        assert_eq!(run.resolve(&pos), Some(1));
        assert_eq!(
            run.prover, 0,
            "b's win proven by a's search: pick another board"
        );
        assert!(!table.tainted(0));
        let solo = ProofTable::new(1 << 22).unwrap();
        let mut forged = 0;
        legal_mask(&geo, cfg.rules, &pos).for_each(|m| {
            let after = run.child(&pos, m);
            legal_mask(&geo, cfg.rules, &after).for_each(|r| {
                let reply = run.child(&after, r);
                if reply.winner().is_some() {
                    return;
                }
                let mut judge = Prover::new(&geo, &cfg, &sym, &solo, &control, None);
                if judge.prove(&reply).winner == Some(0) {
                    // b loses after this reply: stored as "a, to move, loses".
                    table.put(Slot {
                        key: run.key(&reply),
                        pn: INF,
                        dn: 0,
                        work: 1,
                        sound: 0,
                    });
                    forged += 1;
                }
            });
        });
        assert!(forged > 0);
        table.taint(0);
        // The forgery bites: a's entries now give b a losing move somewhere.
        let mut bitten = false;
        legal_mask(&geo, cfg.rules, &pos).for_each(|m| {
            let after = run.child(&pos, m);
            if let Some((_, reply)) = run.pick(&after, 1, &[run.key(&after)]) {
                let mut judge = Prover::new(&geo, &cfg, &sym, &solo, &control, None);
                bitten |= judge.prove(&reply).winner == Some(0);
            }
        });
        assert!(bitten);
        assert!(run.verify(&pos, 1).is_some(), "a right proof rejected");
        assert_eq!(run.prover, 0, "the check left the prover as it found it");
        let line = run.line(&pos, 1);
        replays_to(&cfg, &pos, &line, 1);
        assert_eq!(run.prover, 0, "the line left the prover as it found it");
    }

    #[test]
    fn saved_proofs_prove_again_at_once() {
        let cfg = Config::new(3, 3, 2, Rules::COLORWARS, 0).unwrap();
        let geo = Geometry::<u64>::new(3, 3);
        let sym = Symmetries::new(3, 3);
        let control = Control::new();
        let pos = Position::<u64>::start(&cfg);
        let table = ProofTable::new(1 << 22).unwrap();
        let mut first = Prover::new(&geo, &cfg, &sym, &table, &control, None);
        let winner = first.prove(&pos).winner;
        let work = first.positions;
        let saved = table.proofs(1);
        assert!(!saved.is_empty());
        let fresh = ProofTable::new(1 << 22).unwrap();
        fresh.add_proofs(&saved);
        let mut again = Prover::new(&geo, &cfg, &sym, &fresh, &control, None);
        assert_eq!(again.prove(&pos).winner, winner);
        assert!(again.positions < work, "{} >= {work}", again.positions);
    }

    fn prove_with(cfg: &Config, pos: &Position<u64>, threads: usize, bytes: u64) -> ProveOutcome {
        let geo = Geometry::<u64>::new(cfg.width, cfg.height);
        let table = ProofTable::new(bytes).unwrap();
        prove_position(
            &geo,
            cfg,
            pos,
            &table,
            &Control::new(),
            None,
            None,
            true,
            threads,
        )
        .unwrap()
    }

    #[test]
    fn threads_prove_what_one_thread_proves() {
        // Every small board of both rule sets, from the start and along random games, with
        // 1, 2 and 3 threads (and on the smallest boards a table of 170 entries, where the
        // threads overwrite each other's entries all the time): the same winner, a checked proof, a line that replays to it.
        let mut rng = game_rng(23, 0);
        for rules in [Rules::CLASSIC, Rules::COLORWARS] {
            for (w, h) in [(2, 3), (3, 3), (3, 4), (4, 4)] {
                // 4x4 classic takes a billion positions; the larger boards only in an optimised
                // build (`cargo test --release`; the Python tests prove 4x4 and 5x5 colorwars
                // with threads too).
                let large = w * h > 9;
                if (rules == Rules::CLASSIC && (w, h) == (4, 4))
                    || (large && cfg!(debug_assertions))
                {
                    continue;
                }
                let cfg = Config::new(w, h, 2, rules, 0).unwrap();
                let geo = Geometry::<u64>::new(w as usize, h as usize);
                let mut pos = Position::<u64>::start(&cfg);
                while pos.winner().is_none() {
                    let one = prove_with(&cfg, &pos, 1, 1 << 24);
                    assert!(one.winner.is_some() && one.checked.is_some());
                    for (threads, bytes) in [(2, 1 << 24), (3, 1 << 24), (2, 1 << 12)] {
                        if bytes < 1 << 20 && w * h > 9 {
                            continue; // a tiny table makes the larger boards very slow
                        }
                        let many = prove_with(&cfg, &pos, threads, bytes);
                        let what = format!("{w}x{h} {rules:?} ply {} threads {threads}", pos.ply);
                        assert_eq!(many.winner, one.winner, "{what}");
                        assert!(many.checked.is_some(), "{what}");
                        assert!(!many.stopped, "{what}");
                        replays_to(&cfg, &pos, &many.line, one.winner.unwrap());
                    }
                    let legal = legal_mask(&geo, cfg.rules, &pos);
                    let m = legal.nth(rng.random_range(0..legal.count()));
                    play_unchecked(&geo, cfg.rules, 2, &mut pos, m, &mut ());
                }
            }
        }
    }

    #[test]
    fn a_thread_parts_from_the_others_only_for_a_child_it_can_search() {
        // Children with disproof numbers 3, 5 and 9; the first is busy (another thread is in
        // it): a thread takes the best free child, 5, with the next number (9) for threshold.
        let cfg = Config::new(3, 3, 2, Rules::CLASSIC, 0).unwrap();
        let pos = Position::<u64>::start(&cfg);
        let child = |key: u64, dn: u32| Child {
            pos,
            key,
            pn: 1,
            dn,
            fixed: false,
        };
        let (a, b, c) = (1u64 << 60, 2u64 << 60, 3u64 << 60);
        let children = [child(a, 3), child(b, 5), child(c, 9)];
        let team = Team::new();
        // (Asked only when the best child is busy; with none busy, the best is free.)
        assert_eq!(free_choice(&children, &team, INF), Some((0, 5)));
        team.counter(a).fetch_add(1, Ordering::Relaxed);
        assert_eq!(free_choice(&children, &team, INF), Some((1, 9)));
        // The free child must be able to make progress within the node's threshold.
        assert_eq!(free_choice(&children, &team, 5), None);
        // Every child busy (three threads or more): none is free, the thread follows the best.
        team.counter(b).fetch_add(1, Ordering::Relaxed);
        assert_eq!(free_choice(&children, &team, INF), Some((2, FINITE - 1)));
        team.counter(c).fetch_add(1, Ordering::Relaxed);
        assert_eq!(free_choice(&children, &team, INF), None);
        // The likely loser: the root's mover while its proof number is at least its disproof
        // number, the other player otherwise.
        team.guess_loser(0, 7, 7);
        assert_eq!(team.likely_loser(), 0);
        team.guess_loser(0, 2, 7);
        assert_eq!(team.likely_loser(), 1);
        team.guess_loser(1, 9, 3);
        assert_eq!(team.likely_loser(), 1);
    }

    #[test]
    fn a_cancelled_parallel_search_proves_nothing() {
        let cfg = Config::new(5, 5, 2, Rules::COLORWARS, 0).unwrap();
        let geo = Geometry::<u64>::new(5, 5);
        let table = ProofTable::new(1 << 20).unwrap();
        let control = Control::new();
        control.cancel();
        let pos = Position::<u64>::start(&cfg);
        let o = prove_position(&geo, &cfg, &pos, &table, &control, None, None, false, 2).unwrap();
        assert_eq!(o.winner, None);
        assert!(o.stopped && o.line.is_empty());
        // A deadline stops every thread too.
        let control = Control::new();
        let soon = Some(Instant::now() + std::time::Duration::from_millis(50));
        let o = prove_position(&geo, &cfg, &pos, &table, &control, soon, None, false, 2).unwrap();
        assert!(o.stopped && o.winner.is_none());
    }

    #[test]
    fn a_cancelled_search_proves_nothing() {
        let cfg = Config::new(5, 5, 2, Rules::COLORWARS, 0).unwrap();
        let geo = Geometry::<u64>::new(5, 5);
        let sym = Symmetries::new(5, 5);
        let table = ProofTable::new(1 << 20).unwrap();
        let control = Control::new();
        control.cancel();
        let pos = Position::<u64>::start(&cfg);
        let p = Prover::new(&geo, &cfg, &sym, &table, &control, None).prove(&pos);
        assert_eq!(p.winner, None);
        assert!(p.line.is_empty());
    }

    #[test]
    fn the_probe_plays_only_proven_wins_and_finds_them_given_room() {
        // Along random games of small boards of both rule sets: with room (no threshold that
        // bites, a large budget) the probe finds a win exactly where the mover is proven to
        // win; with a tight threshold or budget it may find none, but a move it gives always
        // wins (its child is proven won for the mover in a fresh table).
        let mut rng = game_rng(5, 0);
        for rules in [Rules::CLASSIC, Rules::COLORWARS] {
            for (w, h) in [(3, 3), (2, 4), (4, 2)] {
                let cfg = Config::new(w, h, 2, rules, 0).unwrap();
                let geo = Geometry::<u64>::new(w as usize, h as usize);
                let (roomy, tight) = (
                    ProofTable::new(1 << 22).unwrap(),
                    ProofTable::new(1 << 20).unwrap(),
                );
                let mut pos = Position::<u64>::start(&cfg);
                while pos.winner().is_none() {
                    let control = Control::new();
                    let mover = pos.to_move as usize;
                    let truth = prove(&cfg, &pos).winner;
                    let wide =
                        probe_position(&geo, &cfg, &pos, &roomy, &control, None, 1 << 40, INF)
                            .unwrap();
                    assert_eq!(
                        wide.cell.is_some(),
                        truth == Some(mover),
                        "{w}x{h} {rules:?}"
                    );
                    let narrow =
                        probe_position(&geo, &cfg, &pos, &tight, &control, None, 2000, 8).unwrap();
                    for cell in [wide.cell, narrow.cell].into_iter().flatten() {
                        let mut child = pos;
                        play_unchecked(&geo, cfg.rules, 2, &mut child, cell, &mut ());
                        let won = child.winner() == Some(mover)
                            || prove(&cfg, &child).winner == Some(mover);
                        assert!(
                            won,
                            "{w}x{h} {rules:?}: the probe's move {cell} does not win"
                        );
                    }
                    assert!(narrow.positions <= 2000 + 1024);
                    let legal = legal_mask(&geo, cfg.rules, &pos);
                    let m = legal.nth(rng.random_range(0..legal.count()));
                    play_unchecked(&geo, cfg.rules, 2, &mut pos, m, &mut ());
                }
            }
        }
    }

    #[test]
    fn the_probe_gives_up_at_once_far_from_a_forced_win() {
        // The opening of 8 x 8 classic: the proof number of the mover's win is the opponent's
        // replies at the first expansion, so a threshold below it stops the probe there.
        let cfg = Config::new(8, 8, 2, Rules::CLASSIC, 0).unwrap();
        let geo = Geometry::<u64>::new(8, 8);
        let mut pos = Position::<u64>::start(&cfg);
        play_unchecked(&geo, cfg.rules, 2, &mut pos, 27, &mut ());
        let table = ProofTable::new(1 << 20).unwrap();
        let o =
            probe_position(&geo, &cfg, &pos, &table, &Control::new(), None, 1 << 40, 32).unwrap();
        assert_eq!(o.cell, None);
        assert!(o.gave_up);
        assert!(o.positions < 100, "{} positions", o.positions);
    }
}
