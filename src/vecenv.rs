//! A batch of games stepped together, for reinforcement learning.
//!
//! Every output is written into caller-owned buffers (the Python binding hands in numpy
//! arrays), in parallel over blocks of environments; nothing is allocated per step.
//!
//! Layouts (B environments, P players, N = width × height cells, row-major):
//! - observation `B × P × N` bytes: plane `k` of environment `b` holds, for each cell, its orb
//!   count if the cell belongs to player `(to_move + k) mod P`, else 0. Plane 0 is always the
//!   player to move: the observation is from that player's point of view.
//! - legal-action mask `B × N` bytes, 1 where the player to move may play.

use rand::RngExt;
use rand_xoshiro::Xoshiro256PlusPlus;
use rayon::prelude::*;

use crate::bits::{Bits, Wide};
use crate::board::{Geometry, Position};
use crate::cascade::{legal_mask, play_unchecked};
use crate::error::{try_vec, Result};
use crate::rng::game_rng;
use crate::rules::Config;
use crate::with_storage;

/// Environments per unit of parallel work.
const CHUNK: usize = 128;

/// `SPREAD[b]`: byte `j` is bit `j` of `b` (turns 8 cells of a bit set into 8 bytes).
const SPREAD: [u64; 256] = {
    let mut t = [0u64; 256];
    let mut b = 0;
    while b < 256 {
        let mut j = 0;
        while j < 8 {
            if b & (1 << j) != 0 {
                t[b] |= 1 << (8 * j);
            }
            j += 1;
        }
        b += 1;
    }
    t
};

/// What happens when an action is not a legal move of its environment.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Illegal {
    /// `step` refuses the whole batch and nothing changes.
    Raise,
    /// That environment's episode ends: the acting player loses (reward -1).
    Lose,
}

/// The per-environment outputs of `reset` and `step`; every slice has B rows.
pub struct Buffers<'a> {
    pub obs: &'a mut [u8],
    pub mask: &'a mut [u8],
    pub to_move: &'a mut [i8],
    /// The reward of the player who acted in this step.
    pub rewards: &'a mut [f32],
    /// Every seat's reward (B × P), zero-sum.
    pub seat_rewards: &'a mut [f32],
    pub terminated: &'a mut [u8],
    pub truncated: &'a mut [u8],
    /// The winner of an episode that ended in this step, else -1.
    pub winner: &'a mut [i8],
    /// The length in plies of an episode that ended in this step, else 0.
    pub episode_plies: &'a mut [u32],
    /// 1 where the action was illegal (only under `Illegal::Lose`).
    pub illegal: &'a mut [u8],
    /// The last observation of an episode that ended in this step (B × P × N, same layout as
    /// `obs`); rows of environments whose episode did not end are left as they were.
    pub final_obs: &'a mut [u8],
}

pub struct VecEnv<B> {
    pub cfg: Config,
    pub geo: Geometry<B>,
    pub max_plies: Option<u32>,
    pub envs: Vec<Position<B>>,
    pub rngs: Vec<Xoshiro256PlusPlus>,
}

impl<B: Bits> VecEnv<B> {
    /// `num_envs` games at the start; `Error::OutOfMemory` when their memory cannot be had.
    pub fn new(cfg: Config, num_envs: usize, max_plies: Option<u32>) -> Result<Self> {
        let mut rngs = try_vec(num_envs, game_rng(0, 0), "the environments' generators")?;
        for (i, rng) in rngs.iter_mut().enumerate() {
            *rng = game_rng(0, i as u64);
        }
        Ok(VecEnv {
            cfg,
            geo: Geometry::new(cfg.width, cfg.height),
            max_plies,
            envs: try_vec(num_envs, Position::start(&cfg), "the environments")?,
            rngs,
        })
    }

    /// Puts every environment at the start; with a seed, reseeds each one's generator
    /// (environment `i` from `(seed, i)`).
    pub fn reset(&mut self, seed: Option<u64>, out: &mut Buffers<'_>) {
        let start = Position::start(&self.cfg);
        self.envs.fill(start);
        if let Some(seed) = seed {
            for (i, rng) in self.rngs.iter_mut().enumerate() {
                *rng = game_rng(seed, i as u64);
            }
        }
        out.rewards.fill(0.0);
        out.seat_rewards.fill(0.0);
        out.terminated.fill(0);
        out.truncated.fill(0);
        out.winner.fill(-1);
        out.episode_plies.fill(0);
        out.illegal.fill(0);
        self.write_observations(out.obs, out.mask, out.to_move);
    }

    /// The first environment whose action is illegal, with the action.
    pub fn find_illegal(&self, actions: &[i64]) -> Option<(usize, i64)> {
        let cells = self.geo.cells as i64;
        self.envs
            .par_iter()
            .zip(actions.par_iter())
            .enumerate()
            .find_first(|(_, (pos, &a))| {
                !(0..cells).contains(&a)
                    || !legal_mask(&self.geo, self.cfg.rules, pos).has(a as usize)
            })
            .map(|(i, (_, &a))| (i, a))
    }

    /// Plays one action in every environment, resets the ones whose episode ended, and writes
    /// all outputs. Under `Illegal::Raise` the caller must have checked `find_illegal` first.
    pub fn step(&mut self, actions: &[i64], illegal: Illegal, out: &mut Buffers<'_>) {
        let (geo, cfg, max_plies) = (&self.geo, &self.cfg, self.max_plies);
        let players = cfg.players;
        let cells = geo.cells;
        let start = Position::start(cfg);
        (
            self.envs.par_chunks_mut(CHUNK),
            actions.par_chunks(CHUNK),
            out.obs.par_chunks_mut(CHUNK * players * cells),
            out.mask.par_chunks_mut(CHUNK * cells),
            out.to_move.par_chunks_mut(CHUNK),
            out.rewards.par_chunks_mut(CHUNK),
            out.seat_rewards.par_chunks_mut(CHUNK * players),
            out.terminated.par_chunks_mut(CHUNK),
            out.truncated.par_chunks_mut(CHUNK),
            out.winner.par_chunks_mut(CHUNK),
            out.episode_plies.par_chunks_mut(CHUNK),
            // (rayon zips at most 12 at once)
            out.illegal
                .par_chunks_mut(CHUNK)
                .zip(out.final_obs.par_chunks_mut(CHUNK * players * cells)),
        )
            .into_par_iter()
            .for_each(
                |(
                    envs,
                    acts,
                    obs,
                    mask,
                    to_move,
                    rew,
                    seat,
                    term,
                    trunc,
                    win,
                    eplies,
                    (ill, fin),
                )| {
                    for (j, pos) in envs.iter_mut().enumerate() {
                        let a = acts[j];
                        let actor = pos.to_move as usize;
                        let seats = &mut seat[j * players..(j + 1) * players];
                        seats.fill(0.0);
                        let (mut reward, mut done, mut cut, mut bad, mut winner) =
                            (0.0, false, false, false, -1i8);
                        let legal = (0..cells as i64).contains(&a)
                            && legal_mask(geo, cfg.rules, pos).has(a as usize);
                        if !legal {
                            debug_assert_eq!(illegal, Illegal::Lose);
                            // The acting player loses; the others share +1 (with two
                            // players, the other one is the winner).
                            (reward, done, bad) = (-1.0, true, true);
                            if players == 2 {
                                winner = (1 - actor) as i8;
                            }
                            let share = 1.0 / (players - 1) as f32;
                            seats.fill(share);
                            seats[actor] = -1.0;
                        } else {
                            play_unchecked(geo, cfg.rules, players, pos, a as usize, &mut ());
                            if let Some(w) = pos.winner() {
                                // Only the mover can win; every other seat shares -1.
                                (reward, done, winner) = (1.0, true, w as i8);
                                let share = -1.0 / (players - 1) as f32;
                                seats.fill(share);
                                seats[w] = 1.0;
                            } else if max_plies.is_some_and(|m| pos.ply >= m) {
                                cut = true;
                            }
                        }
                        rew[j] = reward;
                        term[j] = u8::from(done);
                        trunc[j] = u8::from(cut);
                        ill[j] = u8::from(bad);
                        win[j] = winner;
                        eplies[j] = if done || cut { pos.ply } else { 0 };
                        if done || cut {
                            let row = &mut fin[j * players * cells..(j + 1) * players * cells];
                            write_planes(geo, players, pos, row);
                            *pos = start; // same-step auto-reset
                        }
                        write_one(
                            geo,
                            players,
                            pos,
                            &mut obs[j * players * cells..(j + 1) * players * cells],
                            &mut mask[j * cells..(j + 1) * cells],
                            &mut to_move[j],
                            cfg,
                        );
                    }
                },
            );
    }

    /// A uniformly random legal action for every environment, from each one's generator.
    pub fn sample_legal(&mut self, out: &mut [i64]) {
        let (geo, rules) = (&self.geo, self.cfg.rules);
        (
            self.envs.par_chunks(CHUNK),
            self.rngs.par_chunks_mut(CHUNK),
            out.par_chunks_mut(CHUNK),
        )
            .into_par_iter()
            .for_each(|(envs, rngs, out)| {
                for ((pos, rng), slot) in envs.iter().zip(rngs.iter_mut()).zip(out.iter_mut()) {
                    // Every environment is live (auto-reset), so it has a legal move.
                    *slot = legal_mask(geo, rules, pos)
                        .pick(|n| rng.random_range(0..n))
                        .map_or(-1, |c| c as i64);
                }
            });
    }

    fn write_observations(&self, obs: &mut [u8], mask: &mut [u8], to_move: &mut [i8]) {
        let players = self.cfg.players;
        let cells = self.geo.cells;
        (
            self.envs.par_chunks(CHUNK),
            obs.par_chunks_mut(CHUNK * players * cells),
            mask.par_chunks_mut(CHUNK * cells),
            to_move.par_chunks_mut(CHUNK),
        )
            .into_par_iter()
            .for_each(|(envs, obs, mask, to_move)| {
                for (j, pos) in envs.iter().enumerate() {
                    write_one(
                        &self.geo,
                        players,
                        pos,
                        &mut obs[j * players * cells..(j + 1) * players * cells],
                        &mut mask[j * cells..(j + 1) * cells],
                        &mut to_move[j],
                        &self.cfg,
                    );
                }
            });
    }
}

/// Writes a set of cells as bytes (`values[i]` = the cell's value, 8 cells at a time).
#[inline(always)]
fn write_bytes(out: &mut [u8], mut value_of_byte: impl FnMut(usize) -> u64) {
    let mut chunks = out.chunks_exact_mut(8);
    let mut j = 0;
    for chunk in &mut chunks {
        chunk.copy_from_slice(&value_of_byte(j).to_le_bytes());
        j += 1;
    }
    let tail = chunks.into_remainder();
    if !tail.is_empty() {
        let bytes = value_of_byte(j).to_le_bytes();
        tail.copy_from_slice(&bytes[..tail.len()]);
    }
}

/// One environment's observation planes, legal mask and player to move.
#[inline]
fn write_one<B: Bits>(
    geo: &Geometry<B>,
    players: usize,
    pos: &Position<B>,
    obs: &mut [u8],
    mask: &mut [u8],
    to_move: &mut i8,
    cfg: &Config,
) {
    write_planes(geo, players, pos, obs);
    let legal = legal_mask(geo, cfg.rules, pos);
    write_bytes(mask, |j| SPREAD[legal.byte(j) as usize]);
    *to_move = pos.to_move as i8;
}

/// One environment's observation planes (plane `k`: the counts of player `to_move + k`).
#[inline]
pub(crate) fn write_planes<B: Bits>(
    geo: &Geometry<B>,
    players: usize,
    pos: &Position<B>,
    obs: &mut [u8],
) {
    let cells = geo.cells;
    let p0 = pos.to_move as usize;
    for k in 0..players {
        let p = if p0 + k >= players {
            p0 + k - players
        } else {
            p0 + k
        };
        let own = pos.own[p];
        let (c0, c1, c2) = (pos.c[0] & own, pos.c[1] & own, pos.c[2] & own);
        write_bytes(&mut obs[k * cells..(k + 1) * cells], |j| {
            SPREAD[c0.byte(j) as usize]
                | SPREAD[c1.byte(j) as usize] << 1
                | SPREAD[c2.byte(j) as usize] << 2
        });
    }
}

/// A batch of environments on the storage type the board needs.
pub enum AnyVecEnv {
    W1(VecEnv<u64>),
    W2(VecEnv<Wide<2>>),
    // Boxed so that the enum stays small.
    W4(Box<VecEnv<Wide<4>>>),
    W16(Box<VecEnv<Wide<16>>>),
}

macro_rules! with_env {
    ($any:expr, $e:ident => $body:expr) => {
        match $any {
            AnyVecEnv::W1($e) => $body,
            AnyVecEnv::W2($e) => $body,
            AnyVecEnv::W4($e) => $body,
            AnyVecEnv::W16($e) => $body,
        }
    };
}

impl From<VecEnv<u64>> for AnyVecEnv {
    fn from(e: VecEnv<u64>) -> Self {
        AnyVecEnv::W1(e)
    }
}
impl From<VecEnv<Wide<2>>> for AnyVecEnv {
    fn from(e: VecEnv<Wide<2>>) -> Self {
        AnyVecEnv::W2(e)
    }
}
impl From<VecEnv<Wide<4>>> for AnyVecEnv {
    fn from(e: VecEnv<Wide<4>>) -> Self {
        AnyVecEnv::W4(Box::new(e))
    }
}
impl From<VecEnv<Wide<16>>> for AnyVecEnv {
    fn from(e: VecEnv<Wide<16>>) -> Self {
        AnyVecEnv::W16(Box::new(e))
    }
}

impl AnyVecEnv {
    pub fn new(cfg: Config, num_envs: usize, max_plies: Option<u32>) -> Result<Self> {
        with_storage!(cfg.cells(), B => Ok(VecEnv::<B>::new(cfg, num_envs, max_plies)?.into()))
    }
    pub fn cfg(&self) -> &Config {
        with_env!(self, e => &e.cfg)
    }
    pub fn num_envs(&self) -> usize {
        with_env!(self, e => e.envs.len())
    }
    pub fn reset(&mut self, seed: Option<u64>, out: &mut Buffers<'_>) {
        with_env!(self, e => e.reset(seed, out))
    }
    pub fn find_illegal(&self, actions: &[i64]) -> Option<(usize, i64)> {
        with_env!(self, e => e.find_illegal(actions))
    }
    /// Why a cell is no legal move in environment `i` (`game::illegal_reason`).
    pub fn illegal_reason(&self, i: usize) -> String {
        with_env!(self, e => crate::game::illegal_reason(&e.cfg, &e.envs[i]))
    }
    pub fn step(&mut self, actions: &[i64], illegal: Illegal, out: &mut Buffers<'_>) {
        with_env!(self, e => e.step(actions, illegal, out))
    }
    pub fn sample_legal(&mut self, out: &mut [i64]) {
        with_env!(self, e => e.sample_legal(out))
    }
    /// The position of environment `i` (counts, owners, to move, ply), for inspection.
    pub fn snapshot(&self, i: usize) -> (Vec<u8>, Vec<i8>, usize, u32) {
        with_env!(self, e => {
            let pos = &e.envs[i];
            let players = e.cfg.players;
            (
                (0..e.geo.cells).map(|c| pos.count(c)).collect(),
                (0..e.geo.cells).map(|c| pos.owner(c, players).map_or(-1, |p| p as i8)).collect(),
                pos.to_move as usize,
                pos.ply,
            )
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::game::AnyGame;
    use crate::rules::Rules;

    struct Owned {
        obs: Vec<u8>,
        mask: Vec<u8>,
        to_move: Vec<i8>,
        rewards: Vec<f32>,
        seat: Vec<f32>,
        term: Vec<u8>,
        trunc: Vec<u8>,
        winner: Vec<i8>,
        eplies: Vec<u32>,
        illegal: Vec<u8>,
        fin: Vec<u8>,
    }

    impl Owned {
        fn new(b: usize, p: usize, n: usize) -> Self {
            Owned {
                obs: vec![9; b * p * n],
                mask: vec![9; b * n],
                to_move: vec![9; b],
                rewards: vec![9.0; b],
                seat: vec![9.0; b * p],
                term: vec![9; b],
                trunc: vec![9; b],
                winner: vec![9; b],
                eplies: vec![9; b],
                illegal: vec![9; b],
                fin: vec![0; b * p * n],
            }
        }
        fn bufs(&mut self) -> Buffers<'_> {
            Buffers {
                obs: &mut self.obs,
                mask: &mut self.mask,
                to_move: &mut self.to_move,
                rewards: &mut self.rewards,
                seat_rewards: &mut self.seat,
                terminated: &mut self.term,
                truncated: &mut self.trunc,
                winner: &mut self.winner,
                episode_plies: &mut self.eplies,
                illegal: &mut self.illegal,
                final_obs: &mut self.fin,
            }
        }
    }

    #[test]
    fn steps_match_single_games_and_observations_match_boards() {
        for (w, h, p, rules) in [
            (5, 5, 2, Rules::COLORWARS),
            (3, 4, 3, Rules::CLASSIC),
            (9, 9, 2, Rules::CLASSIC),
        ] {
            let cfg = Config::new(w, h, p, rules, 0).unwrap();
            let (b, n) = (300, (w * h) as usize);
            let p = p as usize;
            let mut env = AnyVecEnv::new(cfg, b, None).unwrap();
            let mut o = Owned::new(b, p, n);
            env.reset(Some(3), &mut o.bufs());
            let mut games: Vec<AnyGame> = (0..b).map(|_| AnyGame::new(cfg)).collect();
            let mut actions = vec![0i64; b];
            for _ in 0..200 {
                env.sample_legal(&mut actions);
                assert!(env.find_illegal(&actions).is_none());
                env.step(&actions, Illegal::Raise, &mut o.bufs());
                for i in 0..b {
                    let g = &mut games[i];
                    g.play(actions[i]).unwrap();
                    if o.term[i] == 1 {
                        assert_eq!(g.winner().map(|x| x as i8), Some(o.winner[i]));
                        assert_eq!(o.eplies[i], g.ply());
                        assert_eq!(o.rewards[i], 1.0);
                        let s: f32 = o.seat[i * p..(i + 1) * p].iter().sum();
                        assert!(s.abs() < 1e-6);
                        // The final observation is the last board, seen by its player to
                        // move (after a win, the winner).
                        let (counts, owners, me) = (g.counts(), g.owners(), g.to_move());
                        for k in 0..p {
                            let plane = &o.fin[(i * p + k) * n..(i * p + k + 1) * n];
                            for c in 0..n {
                                let mine = owners[c] == ((me + k) % p) as i8;
                                assert_eq!(plane[c], if mine { counts[c] } else { 0 });
                            }
                        }
                        *g = AnyGame::new(cfg);
                    } else {
                        assert_eq!(o.rewards[i], 0.0);
                    }
                    // The observation is the board from the point of view of the player to move.
                    let (counts, owners) = (g.counts(), g.owners());
                    let me = g.to_move();
                    assert_eq!(o.to_move[i] as usize, me);
                    for k in 0..p {
                        let plane = &o.obs[(i * p + k) * n..(i * p + k + 1) * n];
                        for c in 0..n {
                            let expect = if owners[c] == ((me + k) % p) as i8 {
                                counts[c]
                            } else {
                                0
                            };
                            assert_eq!(plane[c], expect);
                        }
                    }
                    let legal = g.legal_moves();
                    for c in 0..n {
                        assert_eq!(o.mask[i * n + c] == 1, legal.contains(&c));
                    }
                }
            }
        }
    }

    #[test]
    fn illegal_actions_raise_or_lose() {
        let cfg = Config::new(4, 4, 2, Rules::COLORWARS, 0).unwrap();
        let mut env = AnyVecEnv::new(cfg, 10, None).unwrap();
        let mut o = Owned::new(10, 2, 16);
        env.reset(Some(1), &mut o.bufs());
        let mut actions = vec![0i64; 10];
        env.step(&actions, Illegal::Raise, &mut o.bufs()); // a opens on a1 everywhere
        actions.fill(15); // b opens on d4: legal
        actions[7] = 0; // a1 is a's: illegal for b
        actions[8] = 99; // not a cell
        assert_eq!(env.find_illegal(&actions), Some((7, 0)));
        env.step(&actions, Illegal::Lose, &mut o.bufs());
        assert_eq!(o.illegal[7], 1);
        assert_eq!(o.illegal[8], 1);
        assert_eq!(o.rewards[7], -1.0);
        assert_eq!(o.seat[7 * 2..8 * 2], [1.0, -1.0]);
        assert_eq!(o.term[7], 1);
        assert_eq!(o.term[4], 0);
        assert_eq!(env.snapshot(7).3, 0); // reset
    }

    #[test]
    fn truncation_resets_without_reward() {
        let cfg = Config::new(8, 8, 2, Rules::CLASSIC, 0).unwrap();
        let mut env = AnyVecEnv::new(cfg, 4, Some(10)).unwrap();
        let mut o = Owned::new(4, 2, 64);
        env.reset(None, &mut o.bufs());
        let mut actions = vec![0i64; 4];
        for step in 1..=10 {
            env.sample_legal(&mut actions);
            env.step(&actions, Illegal::Raise, &mut o.bufs());
            assert_eq!(o.trunc.iter().all(|&t| t == 1), step == 10);
        }
        assert!(o.rewards.iter().all(|&r| r == 0.0));
        assert_eq!(o.eplies, [10; 4]);
        assert_eq!(env.snapshot(0).3, 0);
    }
}
