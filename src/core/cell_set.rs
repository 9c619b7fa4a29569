//! A set of cells as a bit set over the whole grid.

use super::hex::{CELLS, Cell};

/// A set of cells: one bit per cell of the grid (128 bytes), cheap to clear and to query.
#[derive(Clone, Copy)]
pub struct CellSet([u64; CELLS / 64]);

impl Default for CellSet {
    fn default() -> Self {
        CellSet::new()
    }
}

impl CellSet {
    /// The empty set.
    #[inline(always)]
    pub const fn new() -> CellSet {
        CellSet([0; CELLS / 64])
    }

    /// Whether `c` is in the set.
    #[inline(always)]
    pub fn contains(&self, c: Cell) -> bool {
        self.0[c.index() / 64] >> (c.index() % 64) & 1 != 0
    }

    /// Adds `c`; returns whether it was new.
    #[inline(always)]
    pub fn insert(&mut self, c: Cell) -> bool {
        let (w, b) = (c.index() / 64, c.index() % 64);
        let was = self.0[w] >> b & 1;
        self.0[w] |= 1 << b;
        was == 0
    }
}
