//! The transposition table: a fixed-size, lock-free hash table shared by all search threads.
//!
//! Each entry is two `AtomicU64`: the packed data and the key xor-ed with that data. A reader
//! accepts an entry only when `key_word ^ data == key`, so an entry torn by two threads writing
//! at once reads as a miss instead of as wrong data (the classic "lockless hashing" trick).
//! Entries are grouped four to a 64-byte bucket (one cache line); a position may live in any
//! entry of its bucket. Replacement prefers, in order: the same position, an empty entry, and
//! otherwise the entry with the lowest `depth - 4 * age`, where age counts the searches since
//! the entry was written.
//!
//! The key is the Zobrist hash of the position, which does not include the frozen piece (nor
//! the turn number): a stored move must be checked against the generated moves before use.

use crate::core::{Cell, Move, Piece};
use std::alloc::{Layout, alloc_zeroed};
use std::sync::atomic::{AtomicU64, Ordering};

/// Entries per bucket.
const WAYS: usize = 4;

/// How a stored score relates to the true score of the position.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Bound {
    /// The true score is at most the stored one (every move failed low).
    Upper = 1,
    /// The true score is at least the stored one (a move failed high).
    Lower = 2,
    /// The stored score is exact.
    Exact = 3,
}

/// What the table holds for a position.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Entry {
    /// Best or refuting move found, if any.
    pub mv: Option<Move>,
    /// Score, relative to the position (win scores count plies from this position).
    pub score: i32,
    /// Remaining depth the score was searched to.
    pub depth: u8,
    /// How `score` bounds the true score.
    pub bound: Bound,
}

#[repr(C, align(64))]
struct Bucket([AtomicU64; 2 * WAYS]);

/// The shared table.
pub struct TranspositionTable {
    buckets: Buckets,
    /// Current search generation (six bits), for replacement by age.
    generation: u64,
}

const MOVE_NONE: u64 = 0x7fff;
const PASS_PIECE: u64 = 31;

fn pack_move(m: Option<Move>) -> u64 {
    match m {
        None => MOVE_NONE,
        Some(m) => {
            let piece = m.piece().map_or(PASS_PIECE, |p| p.id() as u64);
            piece | (m.to().index() as u64) << 5
        }
    }
}

fn unpack_move(bits: u64) -> Option<Move> {
    if bits == MOVE_NONE {
        return None;
    }
    let piece = bits & 31;
    if piece == PASS_PIECE {
        return Some(Move::PASS);
    }
    let p = Piece::from_id(piece as usize)?;
    let c = Cell::from_index((bits >> 5) as usize & 1023)?;
    Some(Move::new(p, c))
}

/// Data word: move (15 bits), score (32), depth (8), bound (2), generation (6).
fn pack(mv: Option<Move>, score: i32, depth: u8, bound: Bound, generation: u64) -> u64 {
    pack_move(mv)
        | (score as u32 as u64) << 15
        | (depth as u64) << 47
        | (bound as u64) << 55
        | (generation & 63) << 57
}

fn unpack(data: u64) -> Option<Entry> {
    let bound = match (data >> 55) & 3 {
        1 => Bound::Upper,
        2 => Bound::Lower,
        3 => Bound::Exact,
        _ => return None,
    };
    Some(Entry {
        mv: unpack_move(data & 0x7fff),
        score: (data >> 15) as u32 as i32,
        depth: (data >> 47) as u8,
        bound,
    })
}

impl TranspositionTable {
    /// A zeroed table of about `mb` MiB (at least one bucket). The memory comes from the
    /// allocator already zeroed, so even a large table is cheap to create.
    pub fn new(mb: usize) -> TranspositionTable {
        let bytes = mb.max(1).saturating_mul(1 << 20);
        let count = (bytes / size_of::<Bucket>()).max(1);
        TranspositionTable {
            buckets: Buckets::new(count),
            generation: 0,
        }
    }

    /// Size in bytes.
    pub fn size_bytes(&self) -> usize {
        self.buckets.len * size_of::<Bucket>()
    }

    /// Empties the table, keeping its memory (zeroing in place is much cheaper than mapping
    /// fresh pages again, above all when several threads then touch them at once).
    pub fn clear(&mut self) {
        self.buckets.zero();
        self.generation = 0;
    }

    /// Starts a new search: entries written before age relative to the new ones.
    pub fn new_search(&mut self) {
        self.generation = (self.generation + 1) & 63;
    }

    #[inline(always)]
    fn bucket(&self, key: u64) -> &Bucket {
        let buckets = self.buckets.as_slice();
        &buckets[((key as u128 * buckets.len() as u128) >> 64) as usize]
    }

    /// Starts loading the bucket of `key` into the cache, so that a probe soon after does not
    /// wait for memory.
    #[inline(always)]
    pub fn prefetch(&self, key: u64) {
        prefetch(self.bucket(key));
    }

    /// The entry stored for `key`, if any.
    #[inline]
    pub fn probe(&self, key: u64) -> Option<Entry> {
        let b = self.bucket(key);
        for w in 0..WAYS {
            let k = b.0[2 * w].load(Ordering::Relaxed);
            let d = b.0[2 * w + 1].load(Ordering::Relaxed);
            if k ^ d == key {
                return unpack(d);
            }
        }
        None
    }

    /// Stores a result for `key`. A move of `None` keeps the move already stored for the same
    /// position.
    #[inline]
    pub fn store(&self, key: u64, mv: Option<Move>, score: i32, depth: u8, bound: Bound) {
        let b = self.bucket(key);
        let mut victim = 0;
        let mut victim_value = i32::MAX;
        for w in 0..WAYS {
            let k = b.0[2 * w].load(Ordering::Relaxed);
            let d = b.0[2 * w + 1].load(Ordering::Relaxed);
            if k ^ d == key {
                let old = unpack(d);
                // Keep a deeper result of this search unless the new one is exact.
                if let Some(old) = old
                    && (d >> 57) & 63 == self.generation
                    && old.depth > depth.saturating_add(2)
                    && bound != Bound::Exact
                {
                    return;
                }
                let mv = mv.or(old.and_then(|e| e.mv));
                self.write(b, w, key, pack(mv, score, depth, bound, self.generation));
                return;
            }
            let value = if (d >> 55) & 3 == 0 {
                i32::MIN
            } else {
                let age = (self.generation.wrapping_sub(d >> 57) & 63) as i32;
                ((d >> 47) & 255) as i32 - 4 * age
            };
            if value < victim_value {
                victim_value = value;
                victim = w;
            }
        }
        self.write(
            b,
            victim,
            key,
            pack(mv, score, depth, bound, self.generation),
        );
    }

    #[inline(always)]
    fn write(&self, b: &Bucket, w: usize, key: u64, data: u64) {
        b.0[2 * w].store(key ^ data, Ordering::Relaxed);
        b.0[2 * w + 1].store(data, Ordering::Relaxed);
    }

    /// Permille of the first thousand buckets' entries written in the current search (UCI's
    /// "hashfull").
    pub fn hashfull(&self) -> usize {
        let buckets = self.buckets.as_slice();
        let n = buckets.len().min(250);
        let mut used = 0;
        for b in &buckets[..n] {
            for w in 0..WAYS {
                let d = b.0[2 * w + 1].load(Ordering::Relaxed);
                if (d >> 55) & 3 != 0 && (d >> 57) & 63 == self.generation {
                    used += 1;
                }
            }
        }
        used * 1000 / (n * WAYS)
    }
}

/// A zero-filled, 64-byte aligned array of buckets.
///
/// The standard allocator only zeroes a large block for free (fresh pages from the operating
/// system, via `calloc`) when the alignment is at most 16 bytes; with 64 it fills the block
/// by hand, which takes tens of milliseconds for a table of 64 MiB. So the block is allocated
/// with 16-byte alignment and one bucket to spare, and the buckets start at the first 64-byte
/// boundary inside it.
struct Buckets {
    raw: *mut u8,
    layout: Layout,
    first: *const Bucket,
    len: usize,
}

// SAFETY: the buffer is owned exclusively by this value and only ever accessed through shared
// references to atomics.
unsafe impl Send for Buckets {}
// SAFETY: as above; every access goes through `AtomicU64`.
unsafe impl Sync for Buckets {}

impl Buckets {
    /// `len` buckets, or as many as memory allows (halving the request until it succeeds).
    fn new(len: usize) -> Buckets {
        let mut len = len.max(1);
        loop {
            let layout = len
                .checked_add(1)
                .and_then(|n| n.checked_mul(size_of::<Bucket>()))
                .and_then(|size| Layout::from_size_align(size, 16).ok());
            if let Some(layout) = layout {
                // SAFETY: `layout` has a non-zero size; a null result is handled below.
                let raw = unsafe { alloc_zeroed(layout) };
                if !raw.is_null() {
                    // SAFETY: `raw` is a fresh zeroed block of `len + 1` buckets with `layout`.
                    return unsafe { Buckets::from_raw(raw, layout, len) };
                }
                if len == 1 {
                    std::alloc::handle_alloc_error(layout);
                }
            }
            len = (len / 2).max(1);
        }
    }

    /// Takes ownership of a block allocated with `layout`.
    ///
    /// # Safety
    /// `raw` must come from the global allocator with `layout`, hold `len + 1` buckets' worth of
    /// zeroed bytes and not be owned by anything else.
    unsafe fn from_raw(raw: *mut u8, layout: Layout, len: usize) -> Buckets {
        let offset = raw.align_offset(align_of::<Bucket>());
        // SAFETY: `offset < 64` and the block holds `len + 1` buckets, so `len` aligned buckets
        // fit after `raw + offset`.
        let first = unsafe { raw.add(offset) } as *const Bucket;
        Buckets {
            raw,
            layout,
            first,
            len,
        }
    }

    /// Sets every bucket to zero.
    fn zero(&mut self) {
        // SAFETY: `first` points to `len` buckets inside the live allocation, and `&mut self`
        // means no other reference to them exists; zero bytes are valid buckets.
        unsafe { std::ptr::write_bytes(self.first as *mut Bucket, 0, self.len) }
    }

    #[inline(always)]
    fn as_slice(&self) -> &[Bucket] {
        // SAFETY: `first` is aligned and points to `len` zero-initialised buckets inside the
        // live allocation (all-zero bytes are valid `AtomicU64`s); the slice borrows `self`.
        unsafe { std::slice::from_raw_parts(self.first, self.len) }
    }
}

impl Drop for Buckets {
    fn drop(&mut self) {
        // SAFETY: `raw` was allocated with `layout` by the global allocator and is freed once.
        unsafe { std::alloc::dealloc(self.raw, self.layout) }
    }
}

/// Asks the processor to start loading the cache line of `value` (a hint; nothing is read).
#[inline(always)]
pub fn prefetch<T>(value: &T) {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: a prefetch never faults and reads nothing the program sees; the pointer comes
    // from a live reference anyway.
    unsafe {
        use std::arch::x86_64::{_MM_HINT_T0, _mm_prefetch};
        _mm_prefetch::<_MM_HINT_T0>((value as *const T).cast::<i8>());
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = value;
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::Cell;

    fn mv(id: usize, cell: usize) -> Move {
        Move::new(Piece::from_id(id).unwrap(), Cell::from_index(cell).unwrap())
    }

    #[test]
    fn packing_round_trips() {
        for (m, s, d, b) in [
            (Some(mv(27, 1023)), -crate::eval::WIN + 7, 0u8, Bound::Upper),
            (Some(Move::PASS), 123, 255, Bound::Exact),
            (None, i32::MIN + 1, 17, Bound::Lower),
            (Some(mv(0, 0)), crate::eval::WIN, 3, Bound::Exact),
        ] {
            let e = unpack(pack(m, s, d, b, 63)).unwrap();
            assert_eq!(
                e,
                Entry {
                    mv: m,
                    score: s,
                    depth: d,
                    bound: b
                }
            );
        }
    }

    #[test]
    fn store_probe_and_replace() {
        let mut tt = TranspositionTable::new(1);
        assert_eq!(tt.size_bytes(), 1 << 20);
        assert_eq!(tt.probe(12345), None);
        tt.store(12345, Some(mv(3, 40)), 77, 5, Bound::Exact);
        let e = tt.probe(12345).unwrap();
        assert_eq!((e.mv, e.score, e.depth), (Some(mv(3, 40)), 77, 5));
        // A shallower bound of the same search does not replace a much deeper entry.
        tt.store(12345, Some(mv(4, 41)), 10, 1, Bound::Lower);
        assert_eq!(tt.probe(12345).unwrap().depth, 5);
        // Without a move, the stored move is kept.
        tt.store(12345, None, -5, 6, Bound::Upper);
        let e = tt.probe(12345).unwrap();
        assert_eq!(
            (e.mv, e.score, e.bound),
            (Some(mv(3, 40)), -5, Bound::Upper)
        );
        // Fill one bucket beyond its ways: every key of a new search can still be stored, and
        // the newest one is found.
        tt.new_search();
        let n = tt.buckets.len as u128;
        let same_bucket: Vec<u64> = (1u64..)
            .map(|i| i.wrapping_mul(0x9E37_79B9_7F4A_7C15))
            .filter(|&k| (k as u128 * n) >> 64 == (12345u128 * n) >> 64)
            .take(6)
            .collect();
        for (i, &k) in same_bucket.iter().enumerate() {
            tt.store(k, None, i as i32, 1, Bound::Exact);
            assert_eq!(tt.probe(k).unwrap().score, i as i32);
        }
        tt.clear();
        assert!(same_bucket.iter().all(|&k| tt.probe(k).is_none()));
        assert_eq!(tt.probe(12345), None);
    }
}
