//! Fixed-width bit sets, one bit per cell in row-major order.
//!
//! The whole cascade is computed with whole-board bit operations (see `cascade.rs`), so the
//! board's storage type is a parameter: a plain `u64` for boards of up to 64 cells (8 × 8,
//! 5 × 5, ...), and `Wide<N>` (N words) for larger ones, up to 32 × 32.

use core::fmt::Debug;
use core::hash::Hash;
use core::ops::{BitAnd, BitAndAssign, BitOr, BitOrAssign, BitXor, Not};

/// A set of cells as a fixed-width bit set.
pub trait Bits:
    Copy
    + Eq
    + Hash
    + Debug
    + Send
    + Sync
    + 'static
    + BitAnd<Output = Self>
    + BitOr<Output = Self>
    + BitXor<Output = Self>
    + Not<Output = Self>
    + BitAndAssign
    + BitOrAssign
{
    /// How many cells the type can hold.
    const CAPACITY: usize;
    const ZERO: Self;

    /// The set `{i}`. `i < CAPACITY`.
    fn bit(i: usize) -> Self;
    /// Shift towards higher cell indices (bits pushed past the top are lost).
    fn shl(self, n: usize) -> Self;
    /// Shift towards lower cell indices.
    fn shr(self, n: usize) -> Self;
    fn is_zero(self) -> bool;
    fn count(self) -> u32;
    fn has(self, i: usize) -> bool;
    /// The index of the `n`-th lowest set bit (`n < self.count()`).
    fn nth(self, n: u32) -> usize;
    /// Calls `f` with each set index, lowest first.
    fn for_each(self, f: impl FnMut(usize));
    /// Byte `j` of the set: cells `8j .. 8j + 8` as bits (`j < CAPACITY / 8`).
    fn byte(self, j: usize) -> u8;
    /// Picks one element: `choose(count)` returns a rank below `count` and this returns the
    /// element of that rank, or `None` for an empty set (`choose` is then not called).
    #[inline]
    fn pick(self, choose: impl FnOnce(u32) -> u32) -> Option<usize> {
        let n = self.count();
        (n > 0).then(|| self.nth(choose(n)))
    }

    #[inline]
    fn any(self) -> bool {
        !self.is_zero()
    }
}

/// `SELECT_IN_BYTE[r << 8 | b]`: the position of the `r`-th lowest set bit of byte `b`.
const SELECT_IN_BYTE: [u8; 2048] = {
    let mut t = [0u8; 2048];
    let mut b = 0;
    while b < 256 {
        let mut r = 0;
        let mut bit = 0;
        while bit < 8 {
            if b & (1 << bit) != 0 {
                t[(r << 8) | b] = bit as u8;
                r += 1;
            }
            bit += 1;
        }
        b += 1;
    }
    t
};

/// Byte `i` of the result: the set bits of `w` in bytes `0..=i` (so the top byte is the
/// popcount). Plain SWAR arithmetic: no popcount instruction needed.
#[inline(always)]
fn byte_sums(w: u64) -> u64 {
    let mut s = w - ((w >> 1) & 0x5555_5555_5555_5555);
    s = (s & 0x3333_3333_3333_3333) + ((s >> 2) & 0x3333_3333_3333_3333);
    ((s + (s >> 4)) & 0x0f0f_0f0f_0f0f_0f0f).wrapping_mul(0x0101_0101_0101_0101)
}

/// The index of the `n`-th lowest set bit of a word (`n < w.count_ones()`), given its
/// `byte_sums`.
///
/// Branch-free broadword selection (S. Vigna, "Broadword implementation of rank/select
/// queries", 2008): the byte-wise prefix counts locate the byte, a table finishes inside it.
#[inline(always)]
fn select_in(w: u64, sums: u64, n: u32) -> u32 {
    const L8: u64 = 0x0101_0101_0101_0101;
    const H8: u64 = 0x8080_8080_8080_8080;
    // High bit of byte i set where n >= sums[i]: the wanted bit lies beyond that byte (the
    // sums are at most 64, so the subtraction never borrows across bytes).
    let beyond = ((u64::from(n).wrapping_mul(L8) | H8) - sums) & H8;
    let place = (((beyond >> 7).wrapping_mul(L8)) >> 53) & !7;
    let rank = u64::from(n) - (((sums << 8) >> place) & 0xff);
    place as u32 + u32::from(SELECT_IN_BYTE[(((w >> place) & 0xff) | (rank << 8)) as usize])
}

#[inline]
fn select64(w: u64, n: u32) -> u32 {
    select_in(w, byte_sums(w), n)
}

impl Bits for u64 {
    const CAPACITY: usize = 64;
    const ZERO: Self = 0;

    #[inline(always)]
    fn bit(i: usize) -> Self {
        1u64 << i
    }
    #[inline(always)]
    fn shl(self, n: usize) -> Self {
        self << n
    }
    #[inline(always)]
    fn shr(self, n: usize) -> Self {
        self >> n
    }
    #[inline(always)]
    fn is_zero(self) -> bool {
        self == 0
    }
    #[inline(always)]
    fn count(self) -> u32 {
        self.count_ones()
    }
    #[inline(always)]
    fn has(self, i: usize) -> bool {
        (self >> i) & 1 == 1
    }
    #[inline]
    fn nth(self, n: u32) -> usize {
        select64(self, n) as usize
    }
    #[inline(always)]
    fn byte(self, j: usize) -> u8 {
        (self >> (8 * j)) as u8
    }
    #[inline(always)]
    fn pick(self, choose: impl FnOnce(u32) -> u32) -> Option<usize> {
        // One SWAR pass gives both the count and the select table.
        let sums = byte_sums(self);
        let n = (sums >> 56) as u32;
        (n > 0).then(|| select_in(self, sums, choose(n)) as usize)
    }
    #[inline]
    fn for_each(self, mut f: impl FnMut(usize)) {
        let mut w = self;
        while w != 0 {
            f(w.trailing_zeros() as usize);
            w &= w - 1;
        }
    }
}

/// A bit set of `64 * N` cells; word 0 holds cells 0..64.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub struct Wide<const N: usize>(pub [u64; N]);

macro_rules! wide_op {
    ($tr:ident, $f:ident, $op:tt) => {
        impl<const N: usize> $tr for Wide<N> {
            type Output = Self;
            #[inline(always)]
            fn $f(self, o: Self) -> Self {
                Wide(core::array::from_fn(|k| self.0[k] $op o.0[k]))
            }
        }
    };
}
wide_op!(BitAnd, bitand, &);
wide_op!(BitOr, bitor, |);
wide_op!(BitXor, bitxor, ^);

impl<const N: usize> Not for Wide<N> {
    type Output = Self;
    #[inline(always)]
    fn not(self) -> Self {
        Wide(self.0.map(|w| !w))
    }
}
impl<const N: usize> BitAndAssign for Wide<N> {
    #[inline(always)]
    fn bitand_assign(&mut self, o: Self) {
        *self = *self & o;
    }
}
impl<const N: usize> BitOrAssign for Wide<N> {
    #[inline(always)]
    fn bitor_assign(&mut self, o: Self) {
        *self = *self | o;
    }
}

impl<const N: usize> Bits for Wide<N> {
    const CAPACITY: usize = 64 * N;
    const ZERO: Self = Wide([0; N]);

    #[inline]
    fn bit(i: usize) -> Self {
        let mut r = [0; N];
        r[i / 64] = 1 << (i % 64);
        Wide(r)
    }
    #[inline]
    fn shl(self, n: usize) -> Self {
        let (words, bits) = (n / 64, n % 64);
        let mut r = [0u64; N];
        for i in (words..N).rev() {
            let src = i - words;
            let mut w = self.0[src] << bits;
            if bits > 0 && src > 0 {
                w |= self.0[src - 1] >> (64 - bits);
            }
            r[i] = w;
        }
        Wide(r)
    }
    #[inline]
    fn shr(self, n: usize) -> Self {
        let (words, bits) = (n / 64, n % 64);
        let mut r = [0u64; N];
        for (i, out) in r.iter_mut().enumerate().take(N.saturating_sub(words)) {
            let src = i + words;
            let mut w = self.0[src] >> bits;
            if bits > 0 && src + 1 < N {
                w |= self.0[src + 1] << (64 - bits);
            }
            *out = w;
        }
        Wide(r)
    }
    #[inline]
    fn is_zero(self) -> bool {
        self.0.iter().all(|&w| w == 0)
    }
    #[inline]
    fn count(self) -> u32 {
        self.0.iter().map(|w| w.count_ones()).sum()
    }
    #[inline]
    fn has(self, i: usize) -> bool {
        (self.0[i / 64] >> (i % 64)) & 1 == 1
    }
    #[inline(always)]
    fn byte(self, j: usize) -> u8 {
        (self.0[j / 8] >> (8 * (j % 8))) as u8
    }
    #[inline]
    fn nth(self, mut n: u32) -> usize {
        for (k, &w) in self.0.iter().enumerate() {
            let c = w.count_ones();
            if n < c {
                return 64 * k + select64(w, n) as usize;
            }
            n -= c;
        }
        // Callers guarantee n < count(); this is only reached on a broken invariant.
        unreachable!("nth: index beyond the set's size")
    }
    #[inline]
    fn for_each(self, mut f: impl FnMut(usize)) {
        for (k, &w0) in self.0.iter().enumerate() {
            let mut w = w0;
            while w != 0 {
                f(64 * k + w.trailing_zeros() as usize);
                w &= w - 1;
            }
        }
    }
}

/// Runs `$body` with the type `$B` bound to the storage a board of `$cells` cells needs: `u64`
/// up to 64 cells, `Wide<2>` up to 128, `Wide<4>` up to 256, and `Wide<16>` beyond (up to
/// 32 × 32). The one place that knows these thresholds:
/// `with_storage!(cfg.cells(), B => Game::<B>::new(cfg).into())`.
#[macro_export]
macro_rules! with_storage {
    ($cells:expr, $B:ident => $body:expr) => {
        match $cells {
            0..=64 => {
                type $B = u64;
                $body
            }
            65..=128 => {
                type $B = $crate::bits::Wide<2>;
                $body
            }
            129..=256 => {
                type $B = $crate::bits::Wide<4>;
                $body
            }
            _ => {
                type $B = $crate::bits::Wide<16>;
                $body
            }
        }
    };
}

#[cfg(test)]
mod tests {
    use super::*;

    fn indices<B: Bits>(b: B) -> Vec<usize> {
        let mut v = Vec::new();
        b.for_each(|i| v.push(i));
        v
    }

    #[test]
    fn wide_shifts_cross_words() {
        let a = Wide::<4>::bit(63) | Wide::<4>::bit(130);
        assert_eq!(indices(a.shl(1)), vec![64, 131]);
        assert_eq!(indices(a.shl(70)), vec![133, 200]);
        assert_eq!(indices(a.shr(64)), vec![66]);
        assert_eq!(indices(a.shr(3)), vec![60, 127]);
        assert!(a.shl(200).is_zero());
    }

    #[test]
    fn select_agrees_with_clearing_low_bits() {
        // Every rank of many pseudo-random words, plus the extremes.
        let mut x = 0x9e37_79b9_7f4a_7c15u64;
        let mut words = vec![0u64.wrapping_sub(1), 1, 1 << 63, 0x8000_0000_0000_0001];
        for _ in 0..2000 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            words.push(x);
            words.push(x & (x >> 3) & (x >> 5)); // sparse words too
        }
        for &w in &words {
            let mut rest = w;
            for n in 0..w.count_ones() {
                assert_eq!(
                    select64(w, n),
                    rest.trailing_zeros(),
                    "word {w:#x} rank {n}"
                );
                rest &= rest - 1;
            }
        }
    }

    #[test]
    fn nth_agrees_with_iteration() {
        let words = [0x8000_0000_0000_0001u64, 0, 0xf0f0, u64::MAX];
        let w = Wide(words);
        let all = indices(w);
        for (n, &i) in all.iter().enumerate() {
            assert_eq!(w.nth(n as u32), i);
        }
        for &x in &words {
            let all = indices(x);
            for (n, &i) in all.iter().enumerate() {
                assert_eq!(x.nth(n as u32), i);
            }
        }
    }
}
