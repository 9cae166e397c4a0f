//! Exact game lengths by depth-bounded proof-number search.
//!
//! The question "does player `w` win from this position within at most `d` plies?" is
//! finite: every line is cut at the bound, so repetitions (possible under the `empty` burst
//! rule) do not matter and the search graph of (position, bound) pairs has no cycles. A
//! df-pn search (Nagai 2002, with the 1 + ε threshold of Pawlewicz and Lew 2007, as in
//! `pns.rs` but with ε = 1/2) answers it; `exact_length` finds the smallest bound that is a
//! win (galloping up from twice the cells until a win is proven, then descending two plies at
//! a time, so that the only refutation searched is the expensive one that is needed), and
//! proves both sides of the answer: a win within `plies` and no win within `plies - 1`. That
//! smallest bound is the game's length under perfect play (the winner as fast as it can, the
//! loser holding out as long as it can), the number the alpha-beta solver gives where it
//! finishes.
//!
//! Numbers are from the prover's (`w`'s) point of view throughout (not negamax): `pn` is the
//! effort still needed to prove the win within the bound, `dn` to refute it. At `w`'s turns
//! `pn` is the least of the children's and `dn` their sum; at the opponent's the reverse.
//!
//! Bounds. `w` can only win by a move of its own, so from a position where `w` is to move a
//! win takes an odd number of plies, otherwise an even one: a bound is first rounded down to
//! that parity (`norm`). The table keeps for each position (under the board's symmetries,
//! `Symmetries::key`) the least bound proven a win (a win within `d` is one within `d + 1`)
//! and the bound below which none is a win, so one entry serves every bound.
//!
//! Near the bound the table is not used. The prover's positions with at most `NEAR` plies
//! left are answered by a plain search of the moves (`LengthSearch::wins_near`: a move after
//! which every reply leaves a win within two plies less, the moves that burst tried first),
//! and with one ply left only the moves that burst are tried, since only they capture. Those
//! positions are most of the tree, and each one's hashing, table probes and numbers cost
//! more than searching it: on 5 x 5 colorwars the refutation within 28 plies went from 144 s
//! to 9 s, on 4 x 4 classic within 14 from 55 s to 0.2 s (docs/solver.md).

use std::time::Instant;

use crate::bits::Bits;
use crate::board::{Geometry, Position};
use crate::cascade::{legal_mask, play_unchecked};
use crate::control::Control;
use crate::error::{Error, Result};
use crate::rng::mix;
use crate::rules::{Config, Opening};
use crate::search::proof_table::{huge_pages, prefetch, HUGE_PAGES_FROM};
use crate::search::symmetry::Symmetries;
use crate::search::zobrist;

/// Proof or disproof number of a settled node.
const INF: u32 = u32::MAX;
/// Sums stop here, below `INF`, so that a large sum never reads as settled.
const FINITE: u32 = u32::MAX - 1;
/// The largest bound a search takes (bounds are stored in 16 bits; the recursion is one
/// frame per ply of the bound).
pub const MAX_BOUND: u32 = crate::limits::MAX_LENGTH_BOUND;
/// `Entry::win` when no bound is known to be a win.
const NO_WIN: u16 = u16::MAX;
/// `Entry::lose` when no bound is a win at all (the opponent has won, or wins at once).
const NEVER: u16 = u16::MAX;
/// The stack of the search's own thread: it recurses once per ply of the bound.
pub const LENGTH_STACK: usize = 1 << 26;

/// One stored position: its key, what is settled about it for every bound, and the proof
/// numbers of the last search at bound `at` (estimates, valid for that bound only).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[repr(C)]
struct Entry {
    key: u64,
    pn: u32,
    dn: u32,
    /// Positions its searches took (what replacement keeps); 0 marks an empty slot.
    work: u32,
    /// The least bound proven a win (`NO_WIN`: none).
    win: u16,
    /// Every bound below this is refuted (0: none; `NEVER`: every bound).
    lose: u16,
    /// The bound `pn` and `dn` were computed for.
    at: u16,
    _pad: u16,
}

const WAYS: usize = 4;

/// The cells of `m`, lowest first.
fn cells<B: Bits>(mut m: B) -> impl Iterator<Item = usize> {
    std::iter::from_fn(move || {
        m.any().then(|| {
            let c = m.nth(0);
            m &= !B::bit(c);
            c
        })
    })
}

/// Positions of the prover's with at most this many plies left are searched directly
/// (`LengthSearch::wins_near`) rather than through the table. On 5 x 5 colorwars (bounds 26
/// and 28) and 4 x 4 classic (14 and 16) 7 was the fastest of 3, 5, 7 and 9.
pub const NEAR: i64 = 7;

/// The length search's table: a fixed number of 4-way buckets allocated up front. A full
/// bucket replaces the entry whose searches took the least work.
pub struct LengthTable {
    buckets: Vec<[Entry; WAYS]>,
    filled: u64,
}

impl LengthTable {
    /// Bytes one entry takes.
    pub const ENTRY_BYTES: usize = std::mem::size_of::<Entry>();

    /// A table in about `bytes` of memory (at least one bucket), or `Error::OutOfMemory`;
    /// in huge pages from `HUGE_PAGES_FROM` bytes.
    pub fn new(bytes: u64) -> Result<Self> {
        Self::with_huge_pages(bytes, None)
    }

    /// `new`, with huge pages asked for or not (`huge`; None: by the size, as `new`). A
    /// short search is better off without: each huge page's first touch is slow.
    pub fn with_huge_pages(bytes: u64, huge: Option<bool>) -> Result<Self> {
        let n = (bytes / (Self::ENTRY_BYTES * WAYS) as u64).max(1);
        let oom = || Error::OutOfMemory(format!("a length table of {bytes} bytes"));
        let n = usize::try_from(n).map_err(|_| oom())?;
        let layout = std::alloc::Layout::array::<[Entry; WAYS]>(n).map_err(|_| oom())?;
        // Zeroed memory from the allocator: the system hands out pages as they are touched,
        // so a large table costs nothing until it fills (writing it up front took seconds).
        // SAFETY: the layout has a non-zero size (n >= 1, Entry is not zero-sized); the
        // pointer is checked for null; an all-zero Entry is valid (plain integers; work 0
        // marks an empty slot); the Vec owns exactly n initialised buckets from the global
        // allocator with this layout.
        let buckets = unsafe {
            let ptr = std::alloc::alloc_zeroed(layout).cast::<[Entry; WAYS]>();
            if ptr.is_null() {
                return Err(oom());
            }
            Vec::from_raw_parts(ptr, n, n)
        };
        // Huge pages spare a large table most TLB misses, as in the proof table.
        if huge.unwrap_or(bytes >= HUGE_PAGES_FROM) {
            huge_pages(&buckets);
        }
        Ok(LengthTable { buckets, filled: 0 })
    }

    /// How many positions the table can hold.
    pub fn capacity(&self) -> u64 {
        (self.buckets.len() * WAYS) as u64
    }

    /// How many it holds.
    pub fn filled(&self) -> u64 {
        self.filled
    }

    fn bucket(&self, key: u64) -> usize {
        ((u128::from(key) * self.buckets.len() as u128) >> 64) as usize
    }

    /// Asks the processor to bring `key`'s bucket into the cache (a hint).
    fn prefetch(&self, key: u64) {
        prefetch(self.buckets.as_ptr().wrapping_add(self.bucket(key)));
    }

    fn get(&self, key: u64) -> Option<&Entry> {
        self.buckets[self.bucket(key)]
            .iter()
            .find(|e| e.key == key && e.work > 0)
    }

    /// Records what a search of `key` at bound `d` found: `pn == 0` a win within `d`,
    /// `dn == 0` a refutation, otherwise estimates for `d`.
    fn put(&mut self, key: u64, d: u16, pn: u32, dn: u32, work: u32) {
        let b = self.bucket(key);
        let bucket = &mut self.buckets[b];
        let slot = match bucket.iter().position(|e| e.key == key && e.work > 0) {
            Some(i) => i,
            None => {
                // The entry whose searches took the least work goes (what is cheapest to
                // find again), settled or not: a table full of small settled entries must
                // still take the estimates the search is working with.
                let i = victim(bucket);
                if bucket[i].work == 0 {
                    self.filled += 1;
                }
                bucket[i] = Entry {
                    key,
                    win: NO_WIN,
                    ..Entry::default()
                };
                i
            }
        };
        let e = &mut bucket[slot];
        e.work = e.work.saturating_add(work.max(1));
        if pn == 0 {
            e.win = e.win.min(d);
        } else if dn == 0 {
            e.lose = e.lose.max(d.saturating_add(1));
        } else {
            (e.pn, e.dn, e.at) = (pn, dn, d);
        }
    }

    /// Marks `key` as never a win (the opponent has won or wins at once).
    fn put_never(&mut self, key: u64) {
        self.put(key, NEVER - 1, INF, 0, 1);
    }

    /// Puts a saved entry back (`load`): into its bucket by key, as `put` places a new one.
    fn restore(&mut self, e: Entry) {
        let b = self.bucket(e.key);
        let bucket = &mut self.buckets[b];
        let i = victim(bucket);
        if bucket[i].work == 0 {
            self.filled += 1;
        } else if bucket[i].work > e.work {
            return; // a smaller table than the saved one keeps the costlier entries
        }
        bucket[i] = e;
    }

    /// Saves the table to `path` with `info` (a checkpoint a long search resumes from):
    /// written to `path` + `.tmp`, synced and renamed over `path`, so a run stopped while
    /// saving leaves the previous checkpoint whole. The format (version `CHECKPOINT_VERSION`):
    /// `CHECKPOINT_MAGIC`, the version (u32), `info`, the entry count (u64), each entry's
    /// fields (26 bytes), and a CRC-32 of everything before it; little-endian throughout.
    pub fn save(&self, path: &std::path::Path, info: &CheckpointInfo) -> std::io::Result<()> {
        // A temporary file of this process's own next to it, renamed over the checkpoint once
        // whole, and removed if the write fails (a full disk must not keep a part of it).
        let pid = std::process::id();
        let tmp = path.with_extension(match path.extension() {
            Some(e) => format!("{}.{pid}.tmp", e.to_string_lossy()),
            None => format!("{pid}.tmp"),
        });
        let written = self.write_to(&tmp, info);
        if written.is_err() {
            let _ = std::fs::remove_file(&tmp);
            return written;
        }
        std::fs::rename(&tmp, path).inspect_err(|_| {
            let _ = std::fs::remove_file(&tmp);
        })?;
        if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
            std::fs::File::open(dir)?.sync_all()?;
        }
        Ok(())
    }

    /// The checkpoint's bytes into `tmp`, synced to the disk.
    fn write_to(&self, tmp: &std::path::Path, info: &CheckpointInfo) -> std::io::Result<()> {
        use std::io::Write;
        let file = std::fs::File::create(tmp)?;
        let mut out = Crc32Writer {
            inner: std::io::BufWriter::with_capacity(1 << 23, file),
            crc: crc32fast::Hasher::new(),
        };
        out.write_all(CHECKPOINT_MAGIC)?;
        out.write_all(&CHECKPOINT_VERSION.to_le_bytes())?;
        let board = info.board.as_bytes();
        let board_len = u16::try_from(board.len())
            .map_err(|_| std::io::Error::other("the board's name is too long"))?;
        out.write_all(&board_len.to_le_bytes())?;
        out.write_all(board)?;
        out.write_all(&[info.prover])?;
        for n in [info.start_key, info.positions, info.near_positions] {
            out.write_all(&n.to_le_bytes())?;
        }
        out.write_all(&info.seconds.to_bits().to_le_bytes())?;
        let held = self.buckets.iter().flatten().filter(|e| e.work > 0);
        out.write_all(&(held.clone().count() as u64).to_le_bytes())?;
        for e in held {
            let mut b = [0u8; ENTRY_SAVED];
            b[0..8].copy_from_slice(&e.key.to_le_bytes());
            b[8..12].copy_from_slice(&e.pn.to_le_bytes());
            b[12..16].copy_from_slice(&e.dn.to_le_bytes());
            b[16..20].copy_from_slice(&e.work.to_le_bytes());
            b[20..22].copy_from_slice(&e.win.to_le_bytes());
            b[22..24].copy_from_slice(&e.lose.to_le_bytes());
            b[24..26].copy_from_slice(&e.at.to_le_bytes());
            out.write_all(&b)?;
        }
        let crc = out.crc.clone().finalize();
        let mut inner = out.inner;
        inner.write_all(&crc.to_le_bytes())?;
        let file = inner.into_inner().map_err(|e| e.into_error())?;
        file.sync_all()
    }

    /// A table of about `bytes` (as `new`) holding a checkpoint's entries, and what the
    /// checkpoint says it is for; `Err` with what is wrong (naming the file) for a file that
    /// is not a checkpoint of this version, is cut short or damaged (its CRC-32 differs), or
    /// for memory that cannot be had. The caller checks `info` against its search. A smaller
    /// table than the one saved keeps the entries whose searches took the most work.
    pub fn load(
        path: &std::path::Path,
        bytes: u64,
        huge: Option<bool>,
    ) -> std::io::Result<(Self, CheckpointInfo)> {
        use std::io::Read;
        let bad = |what: &str| {
            std::io::Error::new(
                std::io::ErrorKind::InvalidData,
                format!("{}: {what}", path.display()),
            )
        };
        let file = std::fs::File::open(path)?;
        let mut input = Crc32Reader {
            inner: std::io::BufReader::with_capacity(1 << 23, file),
            crc: crc32fast::Hasher::new(),
        };
        let short = |e: std::io::Error| {
            if e.kind() == std::io::ErrorKind::UnexpectedEof {
                bad("cut short: not a whole length-table checkpoint")
            } else {
                e
            }
        };
        let mut magic = [0u8; 8];
        let whole = input.read_exact(&mut magic).is_ok();
        if !whole || &magic != CHECKPOINT_MAGIC {
            return Err(bad("not a length-table checkpoint"));
        }
        let mut word = [0u8; 8];
        input.read_exact(&mut word[..4]).map_err(short)?;
        let version = u32::from_le_bytes(word[..4].try_into().expect("4 bytes"));
        if version != CHECKPOINT_VERSION {
            return Err(bad(&format!(
                "a length-table checkpoint of version {version}; this build reads version \
                 {CHECKPOINT_VERSION}"
            )));
        }
        input.read_exact(&mut word[..2]).map_err(short)?;
        let mut board = vec![0u8; usize::from(u16::from_le_bytes([word[0], word[1]]))];
        input.read_exact(&mut board).map_err(short)?;
        let board = String::from_utf8(board).map_err(|_| bad("damaged: the board's name"))?;
        input.read_exact(&mut word[..1]).map_err(short)?;
        let prover = word[0];
        let mut next = |input: &mut Crc32Reader<_>| -> std::io::Result<u64> {
            input.read_exact(&mut word).map_err(short)?;
            Ok(u64::from_le_bytes(word))
        };
        let start_key = next(&mut input)?;
        let positions = next(&mut input)?;
        let near_positions = next(&mut input)?;
        let seconds = f64::from_bits(next(&mut input)?);
        let count = next(&mut input)?;
        let mut table = LengthTable::with_huge_pages(bytes, huge)
            .map_err(|e| std::io::Error::other(e.to_string()))?;
        let mut b = [0u8; ENTRY_SAVED];
        for _ in 0..count {
            input.read_exact(&mut b).map_err(short)?;
            let u16_at = |i: usize| u16::from_le_bytes([b[i], b[i + 1]]);
            let u32_at = |i: usize| u32::from_le_bytes(b[i..i + 4].try_into().expect("4 bytes"));
            let e = Entry {
                key: u64::from_le_bytes(b[0..8].try_into().expect("8 bytes")),
                pn: u32_at(8),
                dn: u32_at(12),
                work: u32_at(16),
                win: u16_at(20),
                lose: u16_at(22),
                at: u16_at(24),
                _pad: 0,
            };
            if e.work == 0 {
                return Err(bad("damaged: an entry with no work"));
            }
            table.restore(e);
        }
        let crc = input.crc.clone().finalize();
        let mut saved = [0u8; 4];
        input.inner.read_exact(&mut saved).map_err(short)?;
        if u32::from_le_bytes(saved) != crc {
            return Err(bad("damaged: its CRC-32 does not match its contents"));
        }
        if input.inner.read(&mut saved)? != 0 {
            return Err(bad("damaged: bytes after its end"));
        }
        let info = CheckpointInfo {
            board,
            prover,
            start_key,
            positions,
            near_positions,
            seconds,
        };
        Ok((table, info))
    }
}

/// The slot a new entry takes in `bucket`: an empty one, else the entry whose searches took
/// the least work (`put` and `restore` alike).
fn victim(bucket: &[Entry; WAYS]) -> usize {
    (0..WAYS)
        .min_by_key(|&i| (bucket[i].work > 0, bucket[i].work))
        .expect("a bucket has slots")
}

/// The first bytes of a saved length table (`LengthTable::save`).
pub const CHECKPOINT_MAGIC: &[u8; 8] = b"CWLENTAB";
/// The version of that format this build writes and reads.
pub const CHECKPOINT_VERSION: u32 = 1;
/// Bytes one saved entry takes.
const ENTRY_SAVED: usize = 26;

/// What a saved length table is for and how far its search went: the board and rules
/// (`"4x4 classic"`), the prover (0 for a, 1 for b), the start position's key (the keys'
/// hashing, so a table saved by a build that hashed differently is not read as this one's),
/// and the positions and seconds its searches have taken so far.
#[derive(Clone, Debug, PartialEq)]
pub struct CheckpointInfo {
    pub board: String,
    pub prover: u8,
    pub start_key: u64,
    pub positions: u64,
    pub near_positions: u64,
    pub seconds: f64,
}

/// A writer that keeps a CRC-32 of what passes through it.
struct Crc32Writer<W> {
    inner: W,
    crc: crc32fast::Hasher,
}

impl<W: std::io::Write> std::io::Write for Crc32Writer<W> {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        let n = self.inner.write(buf)?;
        self.crc.update(&buf[..n]);
        Ok(n)
    }
    fn flush(&mut self) -> std::io::Result<()> {
        self.inner.flush()
    }
}

/// A reader that keeps a CRC-32 of what passes through it.
struct Crc32Reader<R> {
    inner: R,
    crc: crc32fast::Hasher,
}

impl<R: std::io::Read> std::io::Read for Crc32Reader<R> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = self.inner.read(buf)?;
        self.crc.update(&buf[..n]);
        Ok(n)
    }
}

/// A child of an expanded node.
struct Child<B> {
    pos: Position<B>,
    key: u64,
    pn: u32,
    dn: u32,
}

/// What the table (or the rules alone) settle about a position at a bound.
enum Known {
    Win,
    Refuted,
    Open(u32, u32),
}

/// A log of `exact_length`'s searches: (prover, bound, answer or None if stopped, positions).
pub type OnBound<'f> = dyn FnMut(usize, i64, Option<bool>, u64) + 'f;

/// The depth-bounded proof-number searcher for one prover (`winner`): it borrows a table so
/// that the searches of one `exact_length` run at different bounds share what they settled.
pub struct LengthSearch<'a, B> {
    geo: &'a Geometry<B>,
    cfg: &'a Config,
    sym: &'a Symmetries,
    table: &'a mut LengthTable,
    control: &'a Control,
    deadline: Option<Instant>,
    /// The player whose win is asked about.
    winner: usize,
    /// Positions expanded so far.
    pub positions: u64,
    /// Positions the check's walks (`check_win`, `check_refutation`) have visited, apart
    /// from the positions searched: the visits are reported to the control by 1,024
    /// (`Control::add_walked`), the search's positions by 1,024 as `done`.
    pub walked: u64,
    /// Positions the direct search near the bound (`wins_near`) went through.
    pub near_positions: u64,
    /// The prover's positions with at most this many plies left are searched directly
    /// (`NEAR`; 1 leaves all but the last ply to the table).
    pub near: i64,
    /// Set when the deadline passed or the control was cancelled.
    pub stopped: bool,
    /// Called after each search of `exact_length`'s gallop and descent with the prover,
    /// the bound, the answer (None: stopped) and the positions so far (for a caller's log).
    pub on_bound: Option<&'a mut OnBound<'a>>,
}

impl<'a, B: Bits> LengthSearch<'a, B> {
    pub fn new(
        geo: &'a Geometry<B>,
        cfg: &'a Config,
        sym: &'a Symmetries,
        table: &'a mut LengthTable,
        control: &'a Control,
        deadline: Option<Instant>,
    ) -> Self {
        LengthSearch {
            geo,
            cfg,
            sym,
            table,
            control,
            deadline,
            winner: 0,
            positions: 0,
            walked: 0,
            near_positions: 0,
            near: NEAR,
            stopped: false,
            on_bound: None,
        }
    }

    /// `wins_within` at the root of `exact_length`, reported to `on_bound`.
    fn bound(&mut self, pos: &Position<B>, d: i64) -> Option<bool> {
        let found = self.wins_within(pos, d);
        let (w, n) = (self.winner, self.positions);
        if let Some(f) = self.on_bound.as_mut() {
            f(w, d, found, n);
        }
        found
    }

    /// Makes `player` the prover of the searches that follow.
    pub fn prove_for(&mut self, player: usize) {
        self.winner = player;
    }

    /// The table key: the symmetric key and the prover (the two players' questions differ).
    fn key(&self, pos: &Position<B>) -> u64 {
        self.key_from(&self.sym.hashes(pos), pos)
    }

    /// `key` from the hashes of `pos`'s images (`Symmetries::hashes`).
    fn key_from(&self, h: &[u64; 8], pos: &Position<B>) -> u64 {
        self.sym.key_from(h, pos) ^ mix(0x1e57_0000 | self.winner as u64)
    }

    fn child(&self, pos: &Position<B>, m: usize) -> Position<B> {
        let mut child = *pos;
        play_unchecked(self.geo, self.cfg.rules, 2, &mut child, m, &mut ());
        child
    }

    /// The moves of the player to move that burst: the only moves that can capture, and so
    /// the only ones that can win at once. An opening drop never bursts (RULES.md §2); any
    /// other orb bursts its cell when one more orb takes it over capacity (RULES.md §1).
    fn bursting(&self, pos: &Position<B>) -> B {
        let p = pos.to_move as usize;
        if pos.moved & (1 << p) == 0 && self.cfg.rules.opening == Opening::Drop3 {
            return B::ZERO;
        }
        let m = legal_mask(self.geo, self.cfg.rules, pos) & pos.own[p];
        // Every cell of `m` one orb fuller (a count at rest is at most 3, so 3 bits hold it).
        let [c0, c1, c2] = pos.c;
        let carry0 = c0 & m;
        let carry1 = c1 & carry0;
        self.geo.over_capacity(&[c0 ^ m, c1 ^ carry0, c2 ^ carry1]) & m
    }

    /// Whether the player to move wins with one move (only a bursting move can).
    fn wins_at_once(&self, pos: &Position<B>) -> bool {
        let mut found = false;
        self.bursting(pos).for_each(|m| {
            if !found && self.child(pos, m).winner() == Some(pos.to_move as usize) {
                found = true;
            }
        });
        found
    }

    /// Whether the player to move wins within `d` plies (`d` odd): a move after which every
    /// reply leaves it a win within `d - 2`. Searched directly, without the table: this near
    /// the bound a search of plain moves is many times faster than the table's bookkeeping
    /// (measured in docs/solver.md). False if the search stopped (`self.stopped`).
    fn wins_near(&mut self, pos: &Position<B>, d: i64) -> bool {
        if d <= 1 {
            return self.wins_at_once(pos);
        }
        self.near_positions += 1;
        if self.near_positions & 4095 == 0 {
            self.check_stop();
        }
        if self.stopped {
            return false;
        }
        let me = pos.to_move as usize;
        for m in self.ordered(pos) {
            let child = self.child(pos, m);
            if let Some(w) = child.winner() {
                if w == me {
                    return true;
                }
                continue;
            }
            let mut held = false;
            for r in self.ordered(&child) {
                let gc = self.child(&child, r);
                held = match gc.winner() {
                    Some(w) => w != me,
                    None => !self.wins_near(&gc, d - 2),
                };
                if held || self.stopped {
                    break;
                }
            }
            if self.stopped {
                return false;
            }
            if !held {
                return true;
            }
        }
        false
    }

    /// The legal moves of `pos`, those that burst first (captures decide most lines).
    fn ordered(&self, pos: &Position<B>) -> impl Iterator<Item = usize> {
        let all = legal_mask(self.geo, self.cfg.rules, pos);
        let first = self.bursting(pos);
        cells(first).chain(cells(all & !first))
    }

    fn moves(&self, pos: &Position<B>) -> Vec<usize> {
        let mut moves = Vec::new();
        legal_mask(self.geo, self.cfg.rules, pos).for_each(|m| moves.push(m));
        moves
    }

    /// `d` rounded down to the parity of the prover's wins from `pos` (see the module notes);
    /// negative when no win fits.
    fn norm(&self, pos: &Position<B>, d: i64) -> i64 {
        let wins_on_odd = pos.to_move as usize == self.winner;
        if (d % 2 == 1) == wins_on_odd {
            d
        } else {
            d - 1
        }
    }

    /// What the rules settle about `pos` within `d` plies (`d` normalised): a finished game,
    /// or a bound too short for any move of the prover.
    fn by_rules(&self, pos: &Position<B>, d: i64) -> Option<bool> {
        match pos.winner() {
            Some(w) => Some(w == self.winner),
            None if d < 1 => Some(false),
            None => None,
        }
    }

    /// What is known of `pos` (key `key`) within `d` plies (`d` normalised, at least 1).
    fn known(&self, pos: &Position<B>, key: u64, d: i64) -> Known {
        let d16 = d as u16;
        if let Some(e) = self.table.get(key) {
            if e.win <= d16 {
                return Known::Win;
            }
            if d16 < e.lose {
                return Known::Refuted;
            }
            if e.at == d16 && e.pn != 0 && e.dn != 0 {
                return Known::Open(e.pn, e.dn);
            }
        }
        let n = legal_mask(self.geo, self.cfg.rules, pos).count().max(1);
        if pos.to_move as usize == self.winner {
            // With three plies or fewer left, the prover wins only at once (found when the
            // node is expanded) or by a move after which every reply loses at once: rarely
            // so, and quickly refuted. A quarter of its
            // moves as the refutation's estimate sends the search there first (on 5 x 5
            // colorwars, a fifth to a third fewer positions; measured in docs/solver.md).
            Known::Open(1, if d <= 3 { (n / 4).max(1) } else { n })
        } else {
            Known::Open(n, 1)
        }
    }

    fn look(&self, pos: Position<B>, key: u64, d: i64) -> Child<B> {
        let d = self.norm(&pos, d);
        let (pn, dn) = match self.by_rules(&pos, d) {
            Some(true) => (0, INF),
            Some(false) => (INF, 0),
            // One ply left and no move that bursts: no win (see `mid`).
            None if d == 1 && !self.bursting(&pos).any() => (INF, 0),
            None => match self.known(&pos, key, d) {
                Known::Win => (0, INF),
                Known::Refuted => (INF, 0),
                Known::Open(pn, dn) => (pn, dn),
            },
        };
        Child { pos, key, pn, dn }
    }

    /// Whether the prover wins from `pos` within `d` plies: Some(true) proven, Some(false)
    /// refuted, None if the search stopped first.
    pub fn wins_within(&mut self, pos: &Position<B>, d: i64) -> Option<bool> {
        let d = self.norm(pos, d.min(i64::from(MAX_BOUND)));
        if let Some(v) = self.by_rules(pos, d) {
            return Some(v);
        }
        let key = self.key(pos);
        match self.known(pos, key, d) {
            Known::Win => return Some(true),
            Known::Refuted => return Some(false),
            Known::Open(..) => {}
        }
        let (pn, _) = self.mid(pos, key, d, INF, INF);
        (!self.stopped).then_some(pn == 0)
    }

    fn poll(&mut self) {
        self.positions += 1;
        if self.positions & 1023 == 0 {
            self.control.add_done(1024);
            self.check_stop();
        }
    }

    /// Sets `stopped` if the control was cancelled or the deadline passed.
    fn check_stop(&mut self) {
        if self.control.cancelled() || self.deadline.is_some_and(|t| Instant::now() >= t) {
            self.stopped = true;
        }
    }

    /// Expands `pos` (not over, `d` normalised and at least 1) and searches below it until its
    /// proof number reaches `th_pn` or its disproof number `th_dn` (or the search stops).
    fn mid(&mut self, pos: &Position<B>, key: u64, d: i64, th_pn: u32, th_dn: u32) -> (u32, u32) {
        self.poll();
        if self.stopped {
            return (1, 1);
        }
        let start = self.positions;
        let mover = pos.to_move as usize;
        let ours = mover == self.winner;
        if ours && d < 3 {
            // One ply left: the prover wins at once or not at all, and only a move that
            // bursts can win.
            if self.wins_at_once(pos) {
                self.table.put(key, 1, 0, INF, 1);
                return (0, INF);
            }
            self.table.put(key, d as u16, INF, 0, 1);
            return (INF, 0);
        }
        if ours && d <= self.near {
            let wins = self.wins_near(pos, d);
            if self.stopped {
                return (1, 1);
            }
            if wins {
                self.table.put(key, d as u16, 0, INF, 1);
                return (0, INF);
            }
            self.table.put(key, d as u16, INF, 0, 1);
            return (INF, 0);
        }
        // Expand. A move that ends the game settles the node: the prover's move wins it (in
        // one ply, so within any bound), the opponent's refutes it for every bound.
        let mut expanded: Vec<(u32, u64, Position<B>)> = Vec::with_capacity(32);
        let mut ends = false;
        // The children's keys come from this node's images' hashes, updated for the cells the
        // move changed (hashing every cell of every child took a fifth of the time).
        let hashes = self.sym.hashes(pos);
        legal_mask(self.geo, self.cfg.rules, pos).for_each(|m| {
            if ends {
                return;
            }
            let child = self.child(pos, m);
            if child.winner().is_some() {
                ends = true;
                return;
            }
            let ckey = self.key_from(&self.sym.child_hashes(&hashes, pos, &child), &child);
            debug_assert_eq!(ckey, self.key(&child));
            // Mirror-image moves lead to one child: counting it once keeps the sums honest.
            if expanded.iter().any(|e| e.1 == ckey) {
                return;
            }
            // The children's buckets are fetched from memory together, before any is read.
            self.table.prefetch(ckey);
            // The moves that leave the mover the most orbs first (ties go to them).
            expanded.push((u32::MAX - child.orbs(mover), ckey, child));
        });
        if ends {
            if ours {
                self.table.put(key, 1, 0, INF, 1);
                return (0, INF);
            }
            self.table.put_never(key);
            return (INF, 0);
        }
        expanded.sort_by_key(|c| c.0);
        let mut children: Vec<Child<B>> = expanded
            .into_iter()
            .map(|(_, ckey, child)| self.look(child, ckey, d - 1))
            .collect();
        let (mut pn, mut dn);
        loop {
            // (index of the most promising child, its number, the runner-up's number): the
            // least pn at the prover's turns, the least dn at the opponent's.
            let (mut best, mut best_n, mut second) = (0usize, INF, INF);
            let mut sum: u32 = 0;
            for (i, c) in children.iter().enumerate() {
                let (n, other) = if ours { (c.pn, c.dn) } else { (c.dn, c.pn) };
                sum = if other == INF || sum == INF {
                    INF
                } else {
                    sum.saturating_add(other).min(FINITE)
                };
                if n < best_n {
                    second = best_n;
                    best_n = n;
                    best = i;
                } else if n < second {
                    second = n;
                }
            }
            (pn, dn) = if ours { (best_n, sum) } else { (sum, best_n) };
            if pn == 0 {
                dn = INF;
            }
            if dn == 0 {
                pn = INF;
            }
            if pn >= th_pn || dn >= th_dn || self.stopped {
                break;
            }
            let c = &children[best];
            // ε is a half here (a quarter in `pns.rs`): measured best for these searches.
            let grown = if second >= FINITE {
                INF
            } else {
                second.saturating_add(1 + second / 2)
            };
            // The chosen child's thresholds: its own number up to the runner-up's (grown by
            // ε), the summed number up to what the parent's threshold leaves for it.
            let (c_th_pn, c_th_dn) = if ours {
                let rest = if th_dn == INF {
                    INF
                } else {
                    (th_dn - dn).saturating_add(c.dn).min(FINITE)
                };
                (th_pn.min(grown), rest)
            } else {
                let rest = if th_pn == INF {
                    INF
                } else {
                    (th_pn - pn).saturating_add(c.pn).min(FINITE)
                };
                (rest, th_dn.min(grown))
            };
            let (cpos, ckey) = (c.pos, c.key);
            let cd = self.norm(&cpos, d - 1);
            let (cpn, cdn) = self.mid(&cpos, ckey, cd, c_th_pn, c_th_dn);
            if self.stopped {
                break;
            }
            let c = &mut children[best];
            (c.pn, c.dn) = (cpn, cdn);
        }
        if !self.stopped {
            let work = u32::try_from(self.positions - start + 1).unwrap_or(u32::MAX);
            self.table.put(key, d as u16, pn, dn, work);
        }
        (pn, dn)
    }

    /// The principal line from `pos`, whose exact length is `plies` (a win within `plies`
    /// proven, within `plies - 1` refuted): at the prover's turns a move after which it still
    /// wins within the plies left (the fastest), at the opponent's a move after which it does
    /// not lose sooner (the longest defence). Each such move leaves an exact length one less,
    /// so the line ends in the prover's win after exactly `plies` plies. None if stopped.
    pub fn line(&mut self, pos: &Position<B>, plies: u32) -> Option<Vec<usize>> {
        let mut line = Vec::new();
        let mut cur = *pos;
        let mut d = i64::from(plies);
        while cur.winner().is_none() && d > 0 {
            let ours = cur.to_move as usize == self.winner;
            // The prover wants a child won within d - 1; the opponent one not won within d - 2.
            let (want, bound) = if ours { (true, d - 1) } else { (false, d - 2) };
            let (m, child) = self.find(&cur, bound, want)?;
            line.push(m);
            cur = child;
            d -= 1;
        }
        (cur.winner() == Some(self.winner) && line.len() == plies as usize).then_some(line)
    }

    /// What the rules or the table alone settle about `pos` within `d` plies (no search).
    fn settled(&self, pos: &Position<B>, d: i64) -> Option<bool> {
        let d = self.norm(pos, d);
        self.by_rules(pos, d)
            .or_else(|| match self.known(pos, self.key(pos), d) {
                Known::Win => Some(true),
                Known::Refuted => Some(false),
                Known::Open(..) => None,
            })
    }

    /// A move of `pos` after which the prover's win within `d` plies is `want` (proven for
    /// true, refuted for false), with its position: first among the children the table
    /// settles, then by a search of each child in turn. `Err(())` if the search stopped,
    /// `Ok(None)` if there is none.
    fn find_move(
        &mut self,
        pos: &Position<B>,
        d: i64,
        want: bool,
    ) -> core::result::Result<Option<(usize, Position<B>)>, ()> {
        let moves = self.moves(pos);
        for &m in &moves {
            let child = self.child(pos, m);
            if self.settled(&child, d) == Some(want) {
                return Ok(Some((m, child)));
            }
        }
        for m in moves {
            let child = self.child(pos, m);
            match self.wins_within(&child, d) {
                None => return Err(()),
                Some(v) if v == want => return Ok(Some((m, child))),
                Some(_) => {}
            }
        }
        Ok(None)
    }

    /// `find_move` for the line: None if stopped or there is no such move.
    fn find(&mut self, pos: &Position<B>, d: i64, want: bool) -> Option<(usize, Position<B>)> {
        self.find_move(pos, d, want).ok().flatten()
    }

    /// Checks a win within `d` plies by walking its proof on real positions (exact hashes,
    /// no symmetry): every move of the opponent, at the prover's turns a move the table (or a
    /// search) says wins within the plies left, down to the end of every game, which must be
    /// the prover's win within `d` plies. Returns the distinct positions walked; None if some
    /// line fails or the search stopped.
    pub fn check_win(&mut self, pos: &Position<B>, d: i64) -> Option<u64> {
        let mut done = std::collections::HashMap::new();
        self.walk(pos, d, true, &mut done)
            .then_some(done.len() as u64)
            .filter(|_| !self.stopped)
    }

    /// Checks a refutation of a win within `d` plies the same way: every move of the prover,
    /// at the opponent's turns a move the table (or a search) says holds out, until the bound
    /// runs out or the opponent wins.
    pub fn check_refutation(&mut self, pos: &Position<B>, d: i64) -> Option<u64> {
        let mut done = std::collections::HashMap::new();
        self.walk(pos, d, false, &mut done)
            .then_some(done.len() as u64)
            .filter(|_| !self.stopped)
    }

    /// One node of `check_win` (`win`) or `check_refutation`; `done` maps the positions
    /// checked to the bound they were checked at (a win within d is one within more, a
    /// refutation within d one within less).
    fn walk(
        &mut self,
        pos: &Position<B>,
        d: i64,
        win: bool,
        done: &mut std::collections::HashMap<u64, i64>,
    ) -> bool {
        // A visit, not a position searched (the searches of `find_move` count as such).
        self.walked += 1;
        if self.walked & 1023 == 0 {
            self.control.add_walked(1024);
            self.check_stop();
        }
        if self.stopped {
            return false;
        }
        // The rules alone: a finished game, or no plies left (the prover wins only by a move).
        match pos.winner() {
            Some(w) => return (w == self.winner) == win,
            None if d < 1 => return !win,
            None => {}
        }
        let exact = zobrist(pos, 2);
        if let Some(&at) = done.get(&exact) {
            if (win && at <= d) || (!win && at >= d) {
                return true;
            }
        }
        let ours = pos.to_move as usize == self.winner;
        let ok = if ours == win {
            // The side that must find a move: the prover for a win, the opponent for a
            // refutation.
            match self.find_move(pos, d - 1, win) {
                Ok(Some((_, child))) => self.walk(&child, d - 1, win, done),
                _ => false,
            }
        } else {
            self.moves(pos).into_iter().all(|m| {
                let child = self.child(pos, m);
                self.walk(&child, d - 1, win, done)
            })
        };
        if ok {
            done.insert(exact, d);
        }
        ok
    }
}

/// The exact length of a two-player position and how it was established.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Length {
    pub winner: usize,
    /// The length under perfect play: the least bound within which `winner` wins.
    pub plies: u32,
    /// A principal line: `winner`'s fastest win against the longest defence; it ends in the
    /// win after exactly `plies` plies.
    pub line: Vec<usize>,
    /// A win within `plies` was proven by a search.
    pub proven: bool,
    /// A win within `plies - 1` was refuted by a search (or by the rules: no move fits).
    pub refuted: bool,
    /// With `check`: the positions of the walked proof and of the walked refutation.
    pub checked: Option<(u64, u64)>,
}

/// What `exact_length` found: the length (None if the search stopped or nothing was proven
/// within `max_plies`), the bounds established so far (the game lasts at least `at_least`
/// plies: every shorter bound is refuted for the winner, or for both players while the
/// winner is unknown; a win within `at_most` is proven; both are the length once found), the
/// winner once known, positions expanded and whether it stopped.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LengthOutcome {
    pub length: Option<Length>,
    pub winner: Option<usize>,
    pub at_least: u32,
    pub at_most: Option<u32>,
    pub positions: u64,
    pub stopped: bool,
}

fn pos_cells<B: Bits>(s: &LengthSearch<'_, B>) -> usize {
    s.geo.cells
}

/// The bounds to gallop through from `first`: doubling, each rounded to `parity` (the
/// parity of the player's wins), up to `max`.
fn gallop_next(d: i64, odd: bool, max: i64) -> i64 {
    let next = (d * 2).max(d + 2).min(max);
    if (next % 2 == 1) == odd {
        next
    } else {
        next - 1
    }
}

/// Finds the exact length of `pos` (two players) with `table`: the least `L` within which
/// the winner wins, with a win within `L` proven and one within `L - 1` refuted, both by
/// search. `winner`: the winner if known; otherwise both players are tried at each bound and
/// the first proven wins. Bounds start at `start` (None: twice the cells) and gallop
/// (doubling) until a win is proven, then descend two plies at a time to the first refuted:
/// the answer does not depend on `start`, only the work (least when it is the length).
/// With `check`, both sides are walked on real positions (`check_win`, `check_refutation`).
/// `deadline` and `control` stop it; it runs on a thread of its own (`LENGTH_STACK`).
#[allow(clippy::too_many_arguments)]
pub fn exact_length<B: Bits>(
    geo: &Geometry<B>,
    cfg: &Config,
    pos: &Position<B>,
    winner: Option<usize>,
    max_plies: u32,
    start: Option<u32>,
    table: &mut LengthTable,
    control: &Control,
    deadline: Option<Instant>,
    check: bool,
) -> Result<LengthOutcome> {
    std::thread::scope(|scope| {
        let run = std::thread::Builder::new()
            .stack_size(LENGTH_STACK)
            .spawn_scoped(scope, || {
                let sym = Symmetries::new(cfg.width, cfg.height);
                let mut s = LengthSearch::new(geo, cfg, &sym, table, control, deadline);
                let mut out = search_length(&mut s, pos, winner, max_plies, start, check);
                out.positions = s.positions;
                out.stopped = s.stopped;
                out
            })
            .map_err(|e| {
                Error::OutOfMemory(format!(
                    "a thread with the length search's {} MiB stack ({e})",
                    LENGTH_STACK >> 20
                ))
            })?;
        Ok(run
            .join()
            .unwrap_or_else(|panic| std::panic::resume_unwind(panic)))
    })
}

/// `exact_length` with a searcher of the caller's (its table, deadline and `on_bound`); it
/// runs on the caller's thread, which needs a stack of `LENGTH_STACK`. `positions` and
/// `stopped` are left to the caller (the searcher's).
pub fn search_length<B: Bits>(
    s: &mut LengthSearch<'_, B>,
    pos: &Position<B>,
    winner: Option<usize>,
    max_plies: u32,
    start: Option<u32>,
    check: bool,
) -> LengthOutcome {
    let mut out = LengthOutcome {
        length: None,
        winner: None,
        at_least: 0,
        at_most: None,
        positions: 0,
        stopped: false,
    };
    if let Some(w) = pos.winner() {
        out.winner = Some(w);
        out.at_most = Some(0);
        out.length = Some(Length {
            winner: w,
            plies: 0,
            line: Vec::new(),
            proven: true,
            refuted: true,
            checked: check.then_some((1, 0)),
        });
        return out;
    }
    let max = i64::from(max_plies.clamp(1, MAX_BOUND));
    let mover = pos.to_move as usize;
    let players: Vec<usize> = match winner {
        Some(w) => vec![w],
        None => vec![mover, 1 - mover],
    };
    // Per player: the greatest bound refuted (below its first possible win: nothing).
    let mut refuted: Vec<i64> = players
        .iter()
        .map(|&p| if p == mover { -1 } else { 0 })
        .collect();
    // Refutations cost far more than proofs (every move of the winner must fail; 4x5
    // colorwars: a win within 32 proven in 120 thousand positions, within 26 refuted in 7.5
    // million), so the search starts above the length of most games (twice the cells) and
    // gallops up from there until a win is proven, then descends.
    // A `start` (a length an earlier run bracketed) saves the gallop and descent to it.
    let first = start.map_or(2 * pos_cells(s) as i64, i64::from);
    let mut d: i64 = first.max(2).min(max);
    let (w, mut lo, mut hi) = 'gallop: loop {
        for (i, &p) in players.iter().enumerate() {
            s.prove_for(p);
            let b = s.norm(pos, d);
            if b <= refuted[i] {
                continue;
            }
            match s.bound(pos, b) {
                None => return out,
                Some(true) => break 'gallop (p, refuted[i], b),
                Some(false) => refuted[i] = b,
            }
        }
        out.at_least = (refuted.iter().copied().min().unwrap_or(0) + 1) as u32;
        if d >= max {
            return out; // no win within max_plies
        }
        d = gallop_next(d, false, max).max(d + 1);
    };
    s.prove_for(w);
    out.winner = Some(w);
    out.at_most = Some(hi as u32);
    out.at_least = (lo + 1) as u32;
    // Descend from the proven `hi` towards the refuted `lo` (both of the winner's parity)
    // two plies at a time: every bound tried above the length is a cheap proof, and only
    // the last, the length minus one, is a refutation (bisecting would refute bounds below
    // it too).
    while hi - lo > 2 {
        let mid = hi - 2;
        match s.bound(pos, mid) {
            None => return out,
            Some(true) => hi = mid,
            Some(false) => lo = mid,
        }
        out.at_most = Some(hi as u32);
        out.at_least = (lo + 1) as u32;
    }
    let plies = hi as u32;
    let Some(line) = s.line(pos, plies) else {
        return out;
    };
    let checked = if check {
        let Some(won) = s.check_win(pos, hi) else {
            return out;
        };
        let Some(held) = s.check_refutation(pos, hi - 1) else {
            return out;
        };
        Some((won, held))
    } else {
        None
    };
    out.at_least = plies;
    out.length = Some(Length {
        winner: w,
        plies,
        line,
        proven: true,
        // `lo` is a bound a search refuted, or below the first possible win (-1 or 0).
        refuted: lo == hi - 2,
        checked,
    });
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::game_rng;
    use crate::rules::Rules;
    use crate::search::solve;
    use rand::RngExt;

    fn length(cfg: &Config, pos: &Position<u64>, winner: Option<usize>) -> LengthOutcome {
        let geo = Geometry::<u64>::new(cfg.width, cfg.height);
        let mut table = LengthTable::new(1 << 22).unwrap();
        let control = Control::new();
        exact_length(
            &geo, cfg, pos, winner, 400, None, &mut table, &control, None, true,
        )
        .unwrap()
    }

    fn replays_to(cfg: &Config, pos: &Position<u64>, line: &[usize], winner: usize) {
        let geo = Geometry::<u64>::new(cfg.width, cfg.height);
        let mut p = *pos;
        for &m in line {
            assert!(p.winner().is_none(), "the line goes on after the game ends");
            assert!(legal_mask(&geo, cfg.rules, &p).has(m));
            play_unchecked(&geo, cfg.rules, 2, &mut p, m, &mut ());
        }
        assert_eq!(p.winner(), Some(winner));
    }

    fn agrees(cfg: &Config, pos: &Position<u64>, what: &str) {
        let geo = Geometry::<u64>::new(cfg.width, cfg.height);
        let ab = solve(&geo, cfg, pos, 400, &Control::new())
            .unwrap()
            .unwrap();
        for winner in [None, Some(ab.winner)] {
            let out = length(cfg, pos, winner);
            let l = out.length.unwrap_or_else(|| panic!("{what}: no length"));
            assert_eq!((l.winner, l.plies), (ab.winner, ab.plies), "{what}");
            assert!(l.proven && l.refuted, "{what}");
            assert_eq!(l.line.len(), l.plies as usize, "{what}");
            let (won, held) = l.checked.unwrap();
            assert!(won > 0 && (held > 0 || l.plies <= 1), "{what}");
            replays_to(cfg, pos, &l.line, ab.winner);
            assert!(!out.stopped);
        }
    }

    #[test]
    fn length_agrees_with_alpha_beta_on_small_boards() {
        for rules in [Rules::CLASSIC, Rules::COLORWARS] {
            for (w, h) in [(2, 2), (2, 3), (3, 2), (2, 4), (4, 2), (3, 3)] {
                let cfg = Config::new(w, h, 2, rules, 0).unwrap();
                agrees(&cfg, &Position::start(&cfg), &format!("{w}x{h} {rules:?}"));
            }
        }
        for (w, h) in [(3, 4), (4, 3), (4, 4)] {
            let cfg = Config::new(w, h, 2, Rules::COLORWARS, 0).unwrap();
            agrees(&cfg, &Position::start(&cfg), &format!("{w}x{h} colorwars"));
        }
    }

    #[test]
    fn the_length_does_not_depend_on_where_the_bounds_start() {
        // 4x3 colorwars (b in exactly 14 plies) and 3x3 classic (a in 13): every start, below,
        // at and above the length, each player's parity, finds the same length, verified
        // from both sides; starting at the length searches less than the default start.
        for (w, h, rules, winner, plies) in [
            (4, 3, Rules::COLORWARS, 1, 14),
            (3, 3, Rules::CLASSIC, 0, 13),
        ] {
            let cfg = Config::new(w, h, 2, rules, 0).unwrap();
            let geo = Geometry::<u64>::new(w as usize, h as usize);
            let pos = Position::<u64>::start(&cfg);
            let mut work = Vec::new();
            for start in [
                None,
                Some(1),
                Some(2),
                Some(7),
                Some(plies),
                Some(plies + 1),
                Some(60),
            ] {
                let mut table = LengthTable::new(1 << 22).unwrap();
                let control = Control::new();
                let out = exact_length(
                    &geo,
                    &cfg,
                    &pos,
                    Some(winner),
                    400,
                    start,
                    &mut table,
                    &control,
                    None,
                    true,
                )
                .unwrap();
                let l = out.length.unwrap();
                assert_eq!(
                    (l.winner, l.plies),
                    (winner, plies),
                    "{w}x{h} from {start:?}"
                );
                assert!(l.proven && l.refuted && l.checked.is_some());
                replays_to(&cfg, &pos, &l.line, winner);
                work.push((start, out.positions));
            }
            let at = work.iter().find(|(s, _)| *s == Some(plies)).unwrap().1;
            assert!(at < work[0].1, "{w}x{h}: {work:?}");
        }
    }

    #[test]
    fn a_bound_of_one_ply_finds_no_length_and_does_not_panic() {
        // 3x3 colorwars lasts 10 plies: with max_plies 1 (below the least start, 2) nothing
        // is proven, and every start is taken.
        let cfg = Config::new(3, 3, 2, Rules::COLORWARS, 0).unwrap();
        let geo = Geometry::<u64>::new(3, 3);
        let pos = Position::<u64>::start(&cfg);
        for start in [None, Some(1), Some(5)] {
            let mut table = LengthTable::new(1 << 20).unwrap();
            let control = Control::new();
            let out = exact_length(
                &geo, &cfg, &pos, None, 1, start, &mut table, &control, None, false,
            )
            .unwrap();
            assert!(out.length.is_none() && out.at_most.is_none() && !out.stopped);
        }
    }

    #[test]
    fn length_agrees_with_alpha_beta_along_random_games() {
        let mut rng = game_rng(19, 0);
        for rules in [Rules::CLASSIC, Rules::COLORWARS] {
            for (w, h) in [(2, 3), (3, 3), (2, 4), (3, 4)] {
                if rules == Rules::CLASSIC && (w, h) == (3, 4) {
                    continue; // alpha-beta takes seconds there
                }
                let cfg = Config::new(w, h, 2, rules, 0).unwrap();
                let geo = Geometry::<u64>::new(w as usize, h as usize);
                let mut pos = Position::<u64>::start(&cfg);
                while pos.winner().is_none() {
                    agrees(&cfg, &pos, &format!("{w}x{h} {rules:?} ply {}", pos.ply));
                    let legal = legal_mask(&geo, cfg.rules, &pos);
                    let m = legal.nth(rng.random_range(0..legal.count()));
                    play_unchecked(&geo, cfg.rules, 2, &mut pos, m, &mut ());
                }
            }
        }
    }

    #[test]
    fn the_direct_search_near_the_bound_answers_as_the_table_does() {
        // `wins_near` searches the prover's last plies without the table: every answer must
        // be the table's. Positions along random games of small boards of all four rule sets,
        // both provers, every bound to 11, with the direct search off (1), over the last 3
        // plies, at `NEAR` and over the whole bound.
        let mut rng = game_rng(23, 0);
        let mut wins = 0;
        let mut refuted = 0;
        for rules in ["colorwars", "classic", "drop3+subtract", "none+empty"] {
            let rules = Rules::parse(rules).unwrap();
            for (w, h) in [(3, 3), (2, 5), (3, 4)] {
                let cfg = Config::new(w, h, 2, rules, 0).unwrap();
                let geo = Geometry::<u64>::new(w as usize, h as usize);
                let sym = Symmetries::new(w as usize, h as usize);
                let control = Control::new();
                let mut pos = Position::<u64>::start(&cfg);
                while pos.winner().is_none() {
                    for winner in 0..2 {
                        for d in 0..=11 {
                            let answers = [1, 3, NEAR, 11].map(|near| {
                                let mut table = LengthTable::new(1 << 18).unwrap();
                                let mut s =
                                    LengthSearch::new(&geo, &cfg, &sym, &mut table, &control, None);
                                s.near = near;
                                s.prove_for(winner);
                                s.wins_within(&pos, d).unwrap()
                            });
                            let what = format!("{w}x{h} {rules:?} ply {} {winner} {d}", pos.ply);
                            assert!(answers.iter().all(|&a| a == answers[0]), "{what}");
                            if answers[0] {
                                wins += 1;
                            } else {
                                refuted += 1;
                            }
                        }
                    }
                    let legal = legal_mask(&geo, cfg.rules, &pos);
                    let m = legal.nth(rng.random_range(0..legal.count()));
                    play_unchecked(&geo, cfg.rules, 2, &mut pos, m, &mut ());
                }
            }
        }
        // Both answers are asked about often enough for the comparison to mean something.
        assert!(
            wins > 100 && refuted > 100,
            "{wins} wins, {refuted} refuted"
        );
    }

    #[test]
    fn the_direct_search_stops_when_cancelled() {
        // A direct search over a whole bound on a board with many moves stops on Ctrl-C
        // (the control) as the table's search does, and reports no answer.
        let cfg = Config::new(6, 6, 2, Rules::CLASSIC, 0).unwrap();
        let geo = Geometry::<u64>::new(6, 6);
        let sym = Symmetries::new(6, 6);
        let mut table = LengthTable::new(1 << 18).unwrap();
        let control = Control::new();
        control.cancel();
        let mut s = LengthSearch::new(&geo, &cfg, &sym, &mut table, &control, None);
        s.near = 21;
        s.prove_for(1);
        let pos = Position::<u64>::start(&cfg);
        assert_eq!(s.wins_within(&pos, 21), None);
        assert!(s.stopped && s.near_positions <= 4096);
    }

    #[test]
    fn bounds_are_monotone_and_sharp() {
        // 3x3 colorwars: b wins in exactly 10 plies; within every bound from 10 on, within
        // none below, asked in any order of the same table.
        let cfg = Config::new(3, 3, 2, Rules::COLORWARS, 0).unwrap();
        let geo = Geometry::<u64>::new(3, 3);
        let sym = Symmetries::new(3, 3);
        let mut table = LengthTable::new(1 << 20).unwrap();
        let control = Control::new();
        let pos = Position::<u64>::start(&cfg);
        let mut s = LengthSearch::new(&geo, &cfg, &sym, &mut table, &control, None);
        s.prove_for(1);
        for d in [30, 4, 10, 9, 11, 8, 0, 12, 2] {
            assert_eq!(s.wins_within(&pos, d), Some(d >= 10), "within {d}");
        }
        s.prove_for(0);
        for d in [1, 9, 31] {
            assert_eq!(s.wins_within(&pos, d), Some(false), "a within {d}");
        }
    }

    #[test]
    fn the_check_counts_its_walk_apart_from_the_positions_searched() {
        // 4x4 colorwars: b wins in exactly 20 plies. Walking the refutation visits tens of
        // thousands of positions; they are the check's (`walked`, reported to the control by
        // 1,024), not positions searched, which grow only by what the check's own searches
        // expand (they used to grow by every visit).
        let cfg = Config::new(4, 4, 2, Rules::COLORWARS, 0).unwrap();
        let geo = Geometry::<u64>::new(4, 4);
        let sym = Symmetries::new(4, 4);
        let mut table = LengthTable::new(1 << 24).unwrap();
        let control = Control::new();
        let pos = Position::<u64>::start(&cfg);
        let mut s = LengthSearch::new(&geo, &cfg, &sym, &mut table, &control, None);
        s.prove_for(1);
        assert_eq!(s.wins_within(&pos, 20), Some(true));
        assert_eq!(s.wins_within(&pos, 19), Some(false));
        let (searched, reported) = (s.positions, control.done());
        let won = s.check_win(&pos, 20).unwrap();
        let held = s.check_refutation(&pos, 19).unwrap();
        let grew = s.positions - searched;
        assert!(s.walked >= won + held && s.walked > 10_000);
        assert!(
            grew < s.walked / 4,
            "searched {grew} more while walking {}",
            s.walked
        );
        assert_eq!(control.walked(), s.walked / 1024 * 1024);
        assert!(control.done() - reported <= grew + 1024);
    }

    #[test]
    fn a_tiny_table_still_finds_the_length() {
        let cfg = Config::new(3, 3, 2, Rules::CLASSIC, 0).unwrap();
        let geo = Geometry::<u64>::new(3, 3);
        let mut table = LengthTable::new(1).unwrap();
        assert_eq!(table.capacity(), 4);
        let control = Control::new();
        let pos = Position::<u64>::start(&cfg);
        let out = exact_length(
            &geo, &cfg, &pos, None, 100, None, &mut table, &control, None, false,
        )
        .unwrap();
        let l = out.length.unwrap();
        assert_eq!((l.winner, l.plies), (0, 13));
        replays_to(&cfg, &pos, &l.line, 0);
    }

    #[test]
    fn a_stopped_search_finds_no_length() {
        let cfg = Config::new(5, 5, 2, Rules::COLORWARS, 0).unwrap();
        let geo = Geometry::<u64>::new(5, 5);
        let mut table = LengthTable::new(1 << 20).unwrap();
        let pos = Position::<u64>::start(&cfg);
        let control = Control::new();
        control.cancel();
        let out = exact_length(
            &geo, &cfg, &pos, None, 100, None, &mut table, &control, None, true,
        )
        .unwrap();
        assert!(out.stopped && out.length.is_none());
        let past = Some(Instant::now());
        let control = Control::new();
        let out = exact_length(
            &geo,
            &cfg,
            &pos,
            Some(1),
            100,
            None,
            &mut table,
            &control,
            past,
            true,
        )
        .unwrap();
        assert!(out.stopped && out.length.is_none());
    }

    #[test]
    fn a_saved_table_resumes_the_search_and_a_damaged_one_is_refused() {
        let cfg = Config::new(4, 4, 2, Rules::COLORWARS, 0).unwrap();
        let geo = Geometry::<u64>::new(4, 4);
        let sym = Symmetries::new(4, 4);
        let pos = Position::<u64>::start(&cfg);
        let control = Control::new();
        let ask = |table: &mut LengthTable, bound: i64| {
            let mut s = LengthSearch::new(&geo, &cfg, &sym, table, &control, None);
            s.prove_for(1);
            let found = s.wins_within(&pos, bound);
            (found, s.positions)
        };
        let mut table = LengthTable::new(1 << 22).unwrap();
        let (within, fresh) = ask(&mut table, 16);
        let dir = std::env::temp_dir().join(format!("cw-length-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("4x4.table");
        let info = CheckpointInfo {
            board: "4x4 colorwars".into(),
            prover: 1,
            start_key: sym.key(&pos),
            positions: fresh,
            near_positions: 0,
            seconds: 0.5,
        };
        table.save(&path, &info).unwrap();
        let leftovers = |dir: &std::path::Path| {
            std::fs::read_dir(dir)
                .unwrap()
                .filter(|e| {
                    e.as_ref()
                        .unwrap()
                        .path()
                        .to_string_lossy()
                        .ends_with(".tmp")
                })
                .count()
        };
        assert_eq!(leftovers(&dir), 0);
        // A save that fails (here the rename, over a folder) leaves no temporary file.
        let folder = dir.join("taken.table");
        std::fs::create_dir_all(folder.join("inside")).unwrap();
        assert!(table.save(&folder, &info).is_err());
        assert_eq!(leftovers(&dir), 0);
        // The same table back, entry for entry, and what it says it is for.
        let (mut back, said) = LengthTable::load(&path, 1 << 22, None).unwrap();
        assert_eq!(said, info);
        assert_eq!(back.filled(), table.filled());
        assert!(back.buckets == table.buckets);
        // Resumed, the question is answered the same from what was settled.
        let (again, resumed) = ask(&mut back, 16);
        assert_eq!(again, within);
        assert!(
            resumed * 10 < fresh,
            "{resumed} positions resumed, {fresh} fresh"
        );
        // A smaller table keeps what it can and still answers the same.
        let (mut small, _) = LengthTable::load(&path, 1 << 12, None).unwrap();
        assert!(small.filled() <= small.capacity());
        assert_eq!(ask(&mut small, 16).0, within);
        // Damaged, cut short, not a checkpoint, another version: each refused, by name.
        let bytes = std::fs::read(&path).unwrap();
        let refused = |data: &[u8], what: &str| {
            std::fs::write(&path, data).unwrap();
            let err = LengthTable::load(&path, 1 << 22, None)
                .err()
                .expect("refused");
            let text = err.to_string();
            assert!(text.contains(what) && text.contains("4x4.table"), "{text}");
        };
        let mut flipped = bytes.clone();
        flipped[bytes.len() / 2] ^= 0x10;
        refused(&flipped, "damaged");
        refused(&bytes[..bytes.len() - 3], "cut short");
        refused(
            b"PK\x03\x04 something else",
            "not a length-table checkpoint",
        );
        let mut newer = bytes.clone();
        newer[8] = 2;
        refused(&newer, "version 2");
        let mut longer = bytes.clone();
        longer.push(0);
        refused(&longer, "after its end");
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn a_finished_game_has_length_zero() {
        let cfg = Config::new(2, 2, 2, Rules::COLORWARS, 0).unwrap();
        let geo = Geometry::<u64>::new(2, 2);
        let mut pos = Position::<u64>::start(&cfg);
        let line = solve(&geo, &cfg, &pos, 100, &Control::new())
            .unwrap()
            .unwrap()
            .line;
        for m in line {
            play_unchecked(&geo, cfg.rules, 2, &mut pos, m, &mut ());
        }
        let l = length(&cfg, &pos, None).length.unwrap();
        assert_eq!((l.plies, l.line.len()), (0, 0));
        assert_eq!(Some(l.winner), pos.winner());
    }
}
