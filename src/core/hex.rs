//! Hexagonal cells on a wrapping 32 x 32 grid.
//!
//! A hive holds at most 28 pieces, so it never spans more than 28 cells in any line; on a torus
//! of 32 x 32 cells two cells of the same hive (or next to it) can therefore never alias. A cell
//! is a small integer, neighbours come from a table, and nothing needs a bounds check.

use std::fmt;

/// Side length of the wrapping grid.
pub const SIDE: usize = 32;
/// Number of cells in the grid.
pub const CELLS: usize = SIDE * SIDE;

/// The six directions, in clockwise order, so that the two cells next to both `a` and
/// `a + d[i]` are `a + d[i - 1]` and `a + d[i + 1]` (indices modulo 6).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Direction {
    /// `(+1, 0)`, written `ref-`.
    East = 0,
    /// `(0, +1)`, written `ref\`.
    SouthEast = 1,
    /// `(-1, +1)`, written `/ref`.
    SouthWest = 2,
    /// `(-1, 0)`, written `-ref`.
    West = 3,
    /// `(0, -1)`, written `\ref`.
    NorthWest = 4,
    /// `(+1, -1)`, written `ref/`.
    NorthEast = 5,
}

impl Direction {
    /// All six directions in clockwise order.
    pub const ALL: [Direction; 6] = [
        Direction::East,
        Direction::SouthEast,
        Direction::SouthWest,
        Direction::West,
        Direction::NorthWest,
        Direction::NorthEast,
    ];

    /// Axial offset `(dq, dr)` of this direction.
    pub const fn offset(self) -> (i32, i32) {
        match self {
            Direction::East => (1, 0),
            Direction::SouthEast => (0, 1),
            Direction::SouthWest => (-1, 1),
            Direction::West => (-1, 0),
            Direction::NorthWest => (0, -1),
            Direction::NorthEast => (1, -1),
        }
    }

    /// The direction pointing the other way.
    pub const fn opposite(self) -> Direction {
        Direction::ALL[(self as usize + 3) % 6]
    }
}

/// A cell of the wrapping grid.
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
pub struct Cell(u16);

impl Cell {
    /// The cell where the first piece of a game is placed.
    pub const ORIGIN: Cell = Cell::from_axial(0, 0);

    /// The cell at axial coordinates `(q, r)`, wrapped onto the grid.
    pub const fn from_axial(q: i32, r: i32) -> Cell {
        let q = (q.rem_euclid(SIDE as i32)) as u16;
        let r = (r.rem_euclid(SIDE as i32)) as u16;
        Cell(r * SIDE as u16 + q)
    }

    /// The cell with index `i` (`0..CELLS`); `None` when out of range.
    pub const fn from_index(i: usize) -> Option<Cell> {
        if i < CELLS {
            Some(Cell(i as u16))
        } else {
            None
        }
    }

    /// Index of the cell in `0..CELLS`, for table lookups.
    #[inline(always)]
    pub const fn index(self) -> usize {
        self.0 as usize
    }

    /// The neighbouring cell in direction `d`.
    #[inline(always)]
    pub fn neighbour(self, d: Direction) -> Cell {
        NEIGHBOURS[self.index()][d as usize]
    }

    /// All six neighbours, in the clockwise order of [`Direction::ALL`].
    #[inline(always)]
    pub fn neighbours(self) -> &'static [Cell; 6] {
        &NEIGHBOURS[self.index()]
    }

    /// The number of steps between two cells of one hive (0 for the same cell, 1 for
    /// neighbours).
    #[inline]
    pub fn distance(self, other: Cell) -> u32 {
        let (dq, dr) = self.relative_to(other);
        dq.unsigned_abs()
            .max(dr.unsigned_abs())
            .max((dq + dr).unsigned_abs())
    }

    /// The direction from `self` to a neighbouring cell, or `None` when not adjacent.
    pub fn direction_to(self, other: Cell) -> Option<Direction> {
        Direction::ALL
            .into_iter()
            .find(|&d| self.neighbour(d) == other)
    }

    /// Axial coordinates of this cell relative to `origin`, unwrapped to the range
    /// `-16..16` in each axis (correct for any two cells of one hive).
    pub fn relative_to(self, origin: Cell) -> (i32, i32) {
        let wrap = |v: i32| (v + SIDE as i32 / 2).rem_euclid(SIDE as i32) - SIDE as i32 / 2;
        let (q, r) = (self.index() % SIDE, self.index() / SIDE);
        let (oq, or) = (origin.index() % SIDE, origin.index() / SIDE);
        (wrap(q as i32 - oq as i32), wrap(r as i32 - or as i32))
    }
}

impl fmt::Debug for Cell {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let (q, r) = self.relative_to(Cell::ORIGIN);
        write!(f, "Cell({q},{r})")
    }
}

const fn build_neighbours() -> [[Cell; 6]; CELLS] {
    let mut table = [[Cell(0); 6]; CELLS];
    let mut i = 0;
    while i < CELLS {
        let q = (i % SIDE) as i32;
        let r = (i / SIDE) as i32;
        let mut d = 0;
        while d < 6 {
            let (dq, dr) = Direction::ALL[d].offset();
            table[i][d] = Cell::from_axial(q + dq, r + dr);
            d += 1;
        }
        i += 1;
    }
    table
}

static NEIGHBOURS: [[Cell; 6]; CELLS] = build_neighbours();

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn neighbours_are_mutual_and_gates_are_common_neighbours() {
        for i in 0..CELLS {
            let a = Cell::from_index(i).unwrap();
            for (k, d) in Direction::ALL.into_iter().enumerate() {
                let b = a.neighbour(d);
                assert_eq!(b.neighbour(d.opposite()), a);
                let c1 = a.neighbour(Direction::ALL[(k + 5) % 6]);
                let c2 = a.neighbour(Direction::ALL[(k + 1) % 6]);
                assert!(b.direction_to(c1).is_some() && b.direction_to(c2).is_some());
            }
        }
    }

    #[test]
    fn relative_coordinates_unwrap() {
        let c = Cell::from_axial(-3, 5);
        assert_eq!(c.relative_to(Cell::ORIGIN), (-3, 5));
        assert_eq!(Cell::ORIGIN.direction_to(c), None);
        assert_eq!(
            Cell::ORIGIN.direction_to(Cell::from_axial(1, -1)),
            Some(Direction::NorthEast)
        );
    }
}
