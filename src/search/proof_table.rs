//! The proof table of the proof-number search: a fixed number of 4-way buckets allocated up
//! front, replacement that keeps proofs over estimates, and the byte format of saved proofs
//! (what a checkpoint holds).
//!
//! Threads share one table without locks ("lockless hashing", Hyatt and Mann 2002): a slot is
//! three machine words, the key stored xor-ed with the other two, so a slot read while another
//! thread writes it (a torn read) does not match its key and reads as absent. A lost write only
//! costs the search work; what is read is always a whole entry that some search stored.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering::Relaxed};

use crate::error::{Error, Result};

/// Proof or disproof number of a proven node: it cannot be proven the other way.
pub const INF: u32 = u32::MAX;

/// One stored node: its key, proof and disproof numbers, the positions its last search took
/// (what replacement keeps), and whether a proof is sound on any path (see the module notes).
#[derive(Clone, Copy, Debug, Default)]
pub(super) struct Slot {
    pub(super) key: u64,
    pub(super) pn: u32,
    pub(super) dn: u32,
    pub(super) work: u32,
    pub(super) sound: u32,
}

const WAYS: usize = 4;

/// Tables from this size on ask for transparent huge pages.
pub(super) const HUGE_PAGES_FROM: u64 = 128 << 20;

/// A slot as stored: `check` is the key xor-ed with the two other words; `numbers` holds pn
/// (low half) and dn, `extra` work (low half) and the sound flag.
#[derive(Debug, Default)]
#[repr(C)]
struct Stored {
    check: AtomicU64,
    numbers: AtomicU64,
    extra: AtomicU64,
}

impl Stored {
    /// The slot, if its words agree (a torn or empty slot reads as None).
    #[inline]
    fn load(&self) -> Option<Slot> {
        let numbers = self.numbers.load(Relaxed);
        let extra = self.extra.load(Relaxed);
        let key = self.check.load(Relaxed) ^ numbers ^ extra;
        let s = Slot {
            key,
            pn: numbers as u32,
            dn: (numbers >> 32) as u32,
            work: extra as u32,
            sound: (extra >> 32) as u32,
        };
        (s.work > 0).then_some(s)
    }

    /// The work of whatever the slot holds (0: empty), and whether it is a proof; a torn slot
    /// reads as whatever its words say, which only steers replacement.
    #[inline]
    fn weight(&self) -> (bool, bool, u32) {
        let numbers = self.numbers.load(Relaxed);
        let work = self.extra.load(Relaxed) as u32;
        let (pn, dn) = (numbers as u32, (numbers >> 32) as u32);
        (work > 0, work > 0 && (pn == 0 || dn == 0), work)
    }

    #[inline]
    fn store(&self, s: &Slot) {
        let numbers = u64::from(s.pn) | (u64::from(s.dn) << 32);
        let extra = u64::from(s.work) | (u64::from(s.sound) << 32);
        self.numbers.store(numbers, Relaxed);
        self.extra.store(extra, Relaxed);
        self.check.store(s.key ^ numbers ^ extra, Relaxed);
    }
}

/// A proven node, as saved in a checkpoint: its key, the work its proof took and whether the
/// player to move wins there.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Proven {
    pub key: u64,
    pub work: u32,
    pub mover_wins: bool,
}

/// The proof table: a fixed number of 4-way buckets in the memory given, allocated up front.
/// When a bucket is full the new node replaces the unproven node with the least work, and a
/// proof only when every node of the bucket is proven; proofs are kept over estimates. Threads
/// share it through `&ProofTable` (see the module notes).
pub struct ProofTable {
    buckets: Vec<[Stored; WAYS]>,
    filled: AtomicU64,
    /// Per prover: a search with that prover has counted a repetition (or the depth limit)
    /// as "the prover does not win". Until then its disproofs are sound too.
    tainted: [AtomicBool; 2],
}

impl ProofTable {
    /// Bytes one entry takes.
    pub const ENTRY_BYTES: usize = std::mem::size_of::<Stored>();

    /// A table in about `bytes` of memory (at least one bucket), or `Error::OutOfMemory`.
    pub fn new(bytes: u64) -> Result<Self> {
        Self::with_huge_pages(bytes, bytes >= HUGE_PAGES_FROM)
    }

    /// `new`, with huge pages asked for or not. A search that must answer within a fraction
    /// of a second wants none: the kernel's first touch of each huge page (zeroing and often
    /// compacting 2 MiB) cost a new 256 MiB table's first 4 x 4 proof 0.2 to 0.5 s, against
    /// 0.01 s with small pages.
    pub fn with_huge_pages(bytes: u64, huge: bool) -> Result<Self> {
        let n = (bytes / (Self::ENTRY_BYTES * WAYS) as u64).max(1);
        let oom = || Error::OutOfMemory(format!("a proof table of {bytes} bytes"));
        let n = usize::try_from(n).map_err(|_| oom())?;
        let layout = std::alloc::Layout::array::<[Stored; WAYS]>(n).map_err(|_| oom())?;
        // SAFETY: the layout has a non-zero size (n >= 1, Stored is not zero-sized); the
        // pointer is checked for null; all-zero atomics are valid (an all-zero slot is empty:
        // work 0); the Vec owns exactly n initialised buckets from the global allocator with
        // this layout.
        let buckets = unsafe {
            let ptr = std::alloc::alloc_zeroed(layout).cast::<[Stored; WAYS]>();
            if ptr.is_null() {
                return Err(oom());
            }
            Vec::from_raw_parts(ptr, n, n)
        };
        // Large tables get huge pages (a small search would touch, and so fill, too many):
        // they spare the search most TLB misses, and threads that fault in the table's pages
        // together most of the kernel's work (twice as fast on 5x5 colorwars with two threads).
        if huge {
            huge_pages(&buckets);
        }
        Ok(ProofTable {
            buckets,
            filled: AtomicU64::new(0),
            tainted: [AtomicBool::new(false), AtomicBool::new(false)],
        })
    }

    /// Whether a search with `prover` has counted a repetition as "the prover does not win".
    pub(super) fn tainted(&self, prover: usize) -> bool {
        self.tainted[prover].load(std::sync::atomic::Ordering::SeqCst)
    }

    /// Marks `prover`'s searches as resting on a repetition (before anything resting on it
    /// is stored, so that every thread that reads such an entry also sees the mark).
    pub(super) fn taint(&self, prover: usize) {
        if !self.tainted[prover].load(Relaxed) {
            self.tainted[prover].store(true, std::sync::atomic::Ordering::SeqCst);
        }
    }

    /// How many nodes the table can hold.
    pub fn capacity(&self) -> u64 {
        (self.buckets.len() * WAYS) as u64
    }

    /// How many nodes it holds.
    pub fn filled(&self) -> u64 {
        self.filled.load(Relaxed)
    }

    fn bucket(&self, key: u64) -> usize {
        ((u128::from(key) * self.buckets.len() as u128) >> 64) as usize
    }

    /// Asks the processor to bring `key`'s bucket into the cache (a hint; nothing on other
    /// architectures).
    pub(super) fn prefetch(&self, key: u64) {
        prefetch(self.buckets.as_ptr().wrapping_add(self.bucket(key)));
    }

    #[inline]
    pub(super) fn get(&self, key: u64) -> Option<Slot> {
        self.buckets[self.bucket(key)]
            .iter()
            .find_map(|s| s.load().filter(|s| s.key == key))
    }

    /// Stores a node; true when it took an empty slot (the caller counts those, in batches,
    /// with `count_filled`: one shared counter per store would be fought over by the threads).
    pub(super) fn put(&self, slot: Slot) -> bool {
        let bucket = &self.buckets[self.bucket(slot.key)];
        for stored in bucket {
            if let Some(s) = stored.load().filter(|s| s.key == slot.key) {
                // A proof stays a proof (a later search of the node can only confirm it); work
                // adds up over the node's searches.
                if !proven(&s) || proven(&slot) {
                    let work = s.work.saturating_add(slot.work);
                    stored.store(&Slot { work, ..slot });
                }
                return false;
            }
        }
        let (victim, (used, was_proof, _)) = bucket
            .iter()
            .map(|s| (s, s.weight()))
            .min_by_key(|(_, w)| *w)
            .expect("a bucket has slots");
        if used && was_proof && !proven(&slot) {
            return false; // never drop a proof for an estimate
        }
        victim.store(&slot);
        !used
    }

    /// Counts `n` more slots in use (what `put` reported).
    pub(super) fn count_filled(&self, n: u64) {
        if n > 0 {
            self.filled.fetch_add(n, Relaxed);
        }
    }

    /// The sound proofs held, the ones with at least `min_work` positions of work first.
    pub fn proofs(&self, min_work: u32) -> Vec<Proven> {
        self.buckets
            .iter()
            .flatten()
            .filter_map(Stored::load)
            .filter(|s| s.work >= min_work.max(1) && proven(s) && s.sound != 0)
            .map(|s| Proven {
                key: s.key,
                work: s.work,
                mover_wins: s.pn == 0,
            })
            .collect()
    }

    /// Stores proofs (from a checkpoint or another process); they count as sound.
    pub fn add_proofs(&self, proofs: &[Proven]) {
        for p in proofs {
            let (pn, dn) = if p.mover_wins { (0, INF) } else { (INF, 0) };
            let new = self.put(Slot {
                key: p.key,
                pn,
                dn,
                work: p.work.max(1),
                sound: 1,
            });
            self.count_filled(u64::from(new));
        }
    }
}

/// Asks the processor to bring the two cache lines from `p` on into the cache (a hint that
/// never faults, whatever the address; nothing on other architectures).
pub(super) fn prefetch<T>(p: *const T) {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: prefetching is a hint that never faults, whatever the address.
    unsafe {
        core::arch::x86_64::_mm_prefetch(p.cast::<i8>(), core::arch::x86_64::_MM_HINT_T0);
        core::arch::x86_64::_mm_prefetch(
            p.cast::<i8>().wrapping_add(64),
            core::arch::x86_64::_MM_HINT_T0,
        );
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = p;
}

/// Asks Linux to back the table with transparent huge pages (a hint: nothing happens if the
/// system refuses or has them off).
pub(super) fn huge_pages<T>(v: &[T]) {
    #[cfg(target_os = "linux")]
    {
        const PAGE: usize = 4096;
        let start = v.as_ptr() as usize;
        let end = start + std::mem::size_of_val(v);
        let first = start.div_ceil(PAGE) * PAGE;
        if end > first + PAGE {
            // SAFETY: madvise only advises the kernel about pages of this process's own
            // allocation (whole pages inside `v`); it does not change their contents.
            unsafe {
                libc::madvise(
                    first as *mut libc::c_void,
                    (end - first) / PAGE * PAGE,
                    libc::MADV_HUGEPAGE,
                );
            }
        }
    }
    #[cfg(not(target_os = "linux"))]
    let _ = v;
}

pub(super) fn proven(s: &Slot) -> bool {
    s.work > 0 && (s.pn == 0 || s.dn == 0)
}

/// Bytes of one saved proof: key (u64), work (u32), 1 if the player to move wins (u32), all
/// little-endian.
pub const PROOF_BYTES: usize = 16;

impl Proven {
    /// Packs proofs in the saved format.
    pub fn pack(proofs: &[Proven]) -> Result<Vec<u8>> {
        let mut out = Vec::new();
        out.try_reserve_exact(proofs.len() * PROOF_BYTES)
            .map_err(|_| Error::OutOfMemory("the saved proofs".into()))?;
        for p in proofs {
            out.extend_from_slice(&p.key.to_le_bytes());
            out.extend_from_slice(&p.work.to_le_bytes());
            out.extend_from_slice(&u32::from(p.mover_wins).to_le_bytes());
        }
        Ok(out)
    }

    /// Reads packed proofs; records that `pack` cannot have written (a flag other than 0 or
    /// 1, no work, a torn record) are `Error::InvalidPosition` naming the first of them.
    pub fn unpack(data: &[u8]) -> Result<Vec<Proven>> {
        if data.len() % PROOF_BYTES != 0 {
            return Err(Error::InvalidPosition(format!(
                "saved proofs must be {PROOF_BYTES} bytes each; got {} bytes",
                data.len()
            )));
        }
        let mut proofs: Vec<Proven> = Vec::new();
        proofs
            .try_reserve_exact(data.len() / PROOF_BYTES)
            .map_err(|_| Error::OutOfMemory("the saved proofs".into()))?;
        for (i, b) in data.chunks_exact(PROOF_BYTES).enumerate() {
            let word = |at: usize| u32::from_le_bytes([b[at], b[at + 1], b[at + 2], b[at + 3]]);
            let (work, flag) = (word(8), word(12));
            if work == 0 || flag > 1 {
                return Err(Error::InvalidPosition(format!(
                    "saved proof {i} is not one this program writes (work {work}, flag {flag})"
                )));
            }
            let mut key = [0u8; 8];
            key.copy_from_slice(&b[..8]);
            proofs.push(Proven {
                key: u64::from_le_bytes(key),
                work,
                mover_wins: flag == 1,
            });
        }
        Ok(proofs)
    }
}
