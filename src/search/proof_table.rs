//! The proof table of the proof-number search: a fixed number of 4-way buckets allocated up
//! front, replacement that keeps proofs over estimates, and the byte format of saved proofs
//! (what a checkpoint holds).

use crate::error::{Error, Result};

/// Proof or disproof number of a proven node: it cannot be proven the other way.
pub const INF: u32 = u32::MAX;

/// One stored node: its key, proof and disproof numbers, the positions its last search took
/// (what replacement keeps), and whether a proof is sound on any path (see the module notes).
#[derive(Clone, Copy, Debug, Default)]
#[repr(C)]
pub(super) struct Slot {
    pub(super) key: u64,
    pub(super) pn: u32,
    pub(super) dn: u32,
    pub(super) work: u32,
    pub(super) sound: u32,
}

const WAYS: usize = 4;

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
/// proof only when every node of the bucket is proven; proofs are kept over estimates.
pub struct ProofTable {
    buckets: Vec<[Slot; WAYS]>,
    filled: u64,
    /// Per prover: a search with that prover has counted a repetition (or the depth limit)
    /// as "the prover does not win". Until then its disproofs are sound too.
    pub(super) tainted: [bool; 2],
}

impl ProofTable {
    /// Bytes one entry takes.
    pub const ENTRY_BYTES: usize = std::mem::size_of::<Slot>();

    /// A table in about `bytes` of memory (at least one bucket), or `Error::OutOfMemory`.
    pub fn new(bytes: u64) -> Result<Self> {
        let n = (bytes / (Self::ENTRY_BYTES * WAYS) as u64).max(1);
        let oom = || Error::OutOfMemory(format!("a proof table of {bytes} bytes"));
        let n = usize::try_from(n).map_err(|_| oom())?;
        let layout = std::alloc::Layout::array::<[Slot; WAYS]>(n).map_err(|_| oom())?;
        // SAFETY: the layout has a non-zero size (n >= 1, Slot is not zero-sized); the pointer
        // is checked for null; an all-zero Slot is valid (plain integers; work 0 marks an empty
        // slot); the Vec owns exactly n initialised buckets from the global allocator with
        // this layout.
        let buckets = unsafe {
            let ptr = std::alloc::alloc_zeroed(layout).cast::<[Slot; WAYS]>();
            if ptr.is_null() {
                return Err(oom());
            }
            Vec::from_raw_parts(ptr, n, n)
        };
        // Large tables get huge pages (a small search would touch, and so fill, too many).
        if bytes >= 2 << 30 {
            huge_pages(&buckets);
        }
        Ok(ProofTable {
            buckets,
            filled: 0,
            tainted: [false; 2],
        })
    }

    /// How many nodes the table can hold.
    pub fn capacity(&self) -> u64 {
        (self.buckets.len() * WAYS) as u64
    }

    /// How many nodes it holds.
    pub fn filled(&self) -> u64 {
        self.filled
    }

    fn bucket(&self, key: u64) -> usize {
        ((u128::from(key) * self.buckets.len() as u128) >> 64) as usize
    }

    /// Asks the processor to bring `key`'s bucket into the cache (a hint; nothing on other
    /// architectures).
    pub(super) fn prefetch(&self, key: u64) {
        #[cfg(target_arch = "x86_64")]
        {
            let p = self.buckets.as_ptr().wrapping_add(self.bucket(key));
            // SAFETY: prefetching is a hint that never faults, whatever the address; this one
            // is inside the table anyway.
            unsafe {
                core::arch::x86_64::_mm_prefetch(p.cast::<i8>(), core::arch::x86_64::_MM_HINT_T0);
                core::arch::x86_64::_mm_prefetch(
                    p.cast::<i8>().wrapping_add(64),
                    core::arch::x86_64::_MM_HINT_T0,
                );
            }
        }
        #[cfg(not(target_arch = "x86_64"))]
        let _ = key;
    }

    pub(super) fn get(&self, key: u64) -> Option<Slot> {
        self.buckets[self.bucket(key)]
            .iter()
            .find(|s| s.key == key && s.work > 0)
            .copied()
    }

    pub(super) fn put(&mut self, slot: Slot) {
        let b = self.bucket(slot.key);
        let bucket = &mut self.buckets[b];
        if let Some(s) = bucket.iter_mut().find(|s| s.key == slot.key && s.work > 0) {
            // A proof stays a proof (a later search of the node can only confirm it); work adds
            // up over the node's searches.
            if !proven(s) || proven(&slot) {
                let work = s.work.saturating_add(slot.work);
                *s = Slot { work, ..slot };
            }
            return;
        }
        let victim = bucket
            .iter_mut()
            .min_by_key(|s| (s.work > 0, proven(s), s.work))
            .expect("a bucket has slots");
        if victim.work == 0 {
            self.filled += 1;
        } else if proven(victim) && !proven(&slot) {
            return; // never drop a proof for an estimate
        }
        *victim = slot;
    }

    /// The sound proofs held, the ones with at least `min_work` positions of work first.
    pub fn proofs(&self, min_work: u32) -> Vec<Proven> {
        self.buckets
            .iter()
            .flatten()
            .filter(|s| s.work >= min_work.max(1) && proven(s) && s.sound != 0)
            .map(|s| Proven {
                key: s.key,
                work: s.work,
                mover_wins: s.pn == 0,
            })
            .collect()
    }

    /// Stores proofs (from a checkpoint or another process); they count as sound.
    pub fn add_proofs(&mut self, proofs: &[Proven]) {
        for p in proofs {
            let (pn, dn) = if p.mover_wins { (0, INF) } else { (INF, 0) };
            self.put(Slot {
                key: p.key,
                pn,
                dn,
                work: p.work.max(1),
                sound: 1,
            });
        }
    }
}

/// Asks Linux to back the table with transparent huge pages (a hint: nothing happens if the
/// system refuses or has them off).
fn huge_pages<T>(v: &[T]) {
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
