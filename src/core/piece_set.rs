//! Sets of pieces: one bit per piece id, iterated lowest id first.

use super::piece::{Bug, Color, PIECE_COUNT, PIECES_PER_COLOR, Piece};
use std::ops::{BitAnd, BitAndAssign, BitOr, BitOrAssign, BitXor, Not, Sub};

/// A set of the 28 pieces, as a bit mask by piece id. Cheap to copy and to combine with the
/// usual set operators (`&`, `|`, `^`, `-` for difference, `!` for the complement among the 28
/// pieces); iterating it yields the pieces in id order (white before black, then by bug).
#[derive(Clone, Copy, Default, PartialEq, Eq, Hash)]
pub struct PieceSet(u32);

/// The bits that stand for pieces.
const ALL_BITS: u32 = (1 << PIECE_COUNT) - 1;

impl PieceSet {
    /// No piece.
    pub const EMPTY: PieceSet = PieceSet(0);
    /// Every piece of both colours.
    pub const ALL: PieceSet = PieceSet(ALL_BITS);

    /// The set whose bit `id` is bit `id` of `bits` (bits above the piece ids are dropped).
    #[inline(always)]
    pub const fn from_bits(bits: u32) -> PieceSet {
        PieceSet(bits & ALL_BITS)
    }

    /// The mask by piece id.
    #[inline(always)]
    pub const fn bits(self) -> u32 {
        self.0
    }

    /// The set holding only `piece`.
    #[inline(always)]
    pub const fn single(piece: Piece) -> PieceSet {
        PieceSet(1 << piece.id())
    }

    /// Every piece of `color`.
    #[inline(always)]
    pub const fn of_color(color: Color) -> PieceSet {
        PieceSet(((1 << PIECES_PER_COLOR) - 1) << (color as usize * PIECES_PER_COLOR))
    }

    /// Every copy of `bug` of `color`.
    #[inline(always)]
    pub const fn of(color: Color, bug: Bug) -> PieceSet {
        PieceSet(
            ((1u32 << bug.count()) - 1)
                << (color as usize * PIECES_PER_COLOR + bug.first_index() as usize),
        )
    }

    /// Whether `piece` is in the set.
    #[inline(always)]
    pub const fn contains(self, piece: Piece) -> bool {
        self.0 >> piece.id() & 1 != 0
    }

    /// Whether the set is empty.
    #[inline(always)]
    pub const fn is_empty(self) -> bool {
        self.0 == 0
    }

    /// Number of pieces in the set.
    #[inline(always)]
    pub const fn len(self) -> usize {
        self.0.count_ones() as usize
    }

    /// The piece with the lowest id, if any.
    #[inline(always)]
    pub const fn first(self) -> Option<Piece> {
        if self.0 == 0 {
            None
        } else {
            Some(Piece::from_set_bit(self.0.trailing_zeros() as usize))
        }
    }

    /// Adds `piece`.
    #[inline(always)]
    pub fn insert(&mut self, piece: Piece) {
        self.0 |= 1 << piece.id();
    }

    /// Removes `piece`.
    #[inline(always)]
    pub fn remove(&mut self, piece: Piece) {
        self.0 &= !(1 << piece.id());
    }

    /// The pieces in id order.
    #[inline(always)]
    pub fn iter(self) -> PieceSetIter {
        PieceSetIter(self.0)
    }
}

/// The pieces of a [`PieceSet`], lowest id first.
#[derive(Clone, Copy)]
pub struct PieceSetIter(u32);

impl Iterator for PieceSetIter {
    type Item = Piece;

    #[inline(always)]
    fn next(&mut self) -> Option<Piece> {
        if self.0 == 0 {
            return None;
        }
        let id = self.0.trailing_zeros() as usize;
        self.0 &= self.0 - 1;
        Some(Piece::from_set_bit(id))
    }

    #[inline(always)]
    fn size_hint(&self) -> (usize, Option<usize>) {
        let n = self.0.count_ones() as usize;
        (n, Some(n))
    }
}

impl ExactSizeIterator for PieceSetIter {}

impl IntoIterator for PieceSet {
    type Item = Piece;
    type IntoIter = PieceSetIter;

    #[inline(always)]
    fn into_iter(self) -> PieceSetIter {
        self.iter()
    }
}

impl FromIterator<Piece> for PieceSet {
    fn from_iter<I: IntoIterator<Item = Piece>>(iter: I) -> PieceSet {
        let mut set = PieceSet::EMPTY;
        for p in iter {
            set.insert(p);
        }
        set
    }
}

impl BitAnd for PieceSet {
    type Output = PieceSet;
    #[inline(always)]
    fn bitand(self, rhs: PieceSet) -> PieceSet {
        PieceSet(self.0 & rhs.0)
    }
}

impl BitOr for PieceSet {
    type Output = PieceSet;
    #[inline(always)]
    fn bitor(self, rhs: PieceSet) -> PieceSet {
        PieceSet(self.0 | rhs.0)
    }
}

impl BitXor for PieceSet {
    type Output = PieceSet;
    #[inline(always)]
    fn bitxor(self, rhs: PieceSet) -> PieceSet {
        PieceSet(self.0 ^ rhs.0)
    }
}

impl Sub for PieceSet {
    type Output = PieceSet;
    /// The pieces of `self` that are not in `rhs`.
    #[inline(always)]
    fn sub(self, rhs: PieceSet) -> PieceSet {
        PieceSet(self.0 & !rhs.0)
    }
}

impl Not for PieceSet {
    type Output = PieceSet;
    /// The other pieces of the 28.
    #[inline(always)]
    fn not(self) -> PieceSet {
        PieceSet(!self.0 & ALL_BITS)
    }
}

impl BitAndAssign for PieceSet {
    #[inline(always)]
    fn bitand_assign(&mut self, rhs: PieceSet) {
        self.0 &= rhs.0;
    }
}

impl BitOrAssign for PieceSet {
    #[inline(always)]
    fn bitor_assign(&mut self, rhs: PieceSet) {
        self.0 |= rhs.0;
    }
}

impl std::fmt::Debug for PieceSet {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_set().entries(self.iter()).finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn iterates_in_id_order_and_combines_as_sets() {
        let white = PieceSet::of_color(Color::White);
        let black = PieceSet::of_color(Color::Black);
        assert_eq!(white | black, PieceSet::ALL);
        assert_eq!(!white, black);
        assert_eq!(white.len(), PIECES_PER_COLOR);
        let ids: Vec<usize> = black.iter().map(Piece::id).collect();
        assert_eq!(ids, (PIECES_PER_COLOR..PIECE_COUNT).collect::<Vec<_>>());
        let ants = PieceSet::of(Color::Black, Bug::Ant);
        assert_eq!(ants.len(), 3);
        assert!(
            ants.iter()
                .all(|p| p.bug() == Bug::Ant && p.color() == Color::Black)
        );
        assert_eq!(black - ants, black ^ ants);
        let q = Piece::queen(Color::White);
        let mut s = PieceSet::single(q);
        assert!(s.contains(q) && s.first() == Some(q));
        s.remove(q);
        assert!(s.is_empty() && s.first().is_none());
        assert_eq!(PieceSet::from_bits(u32::MAX), PieceSet::ALL);
        assert_eq!(white.iter().collect::<PieceSet>(), white);
    }
}
