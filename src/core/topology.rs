//! The shape of the hive: what the six-bit neighbour masks of a cell say (slides out, runs of
//! neighbours, direction counts) and which pieces hold the hive together (the one-hive rule).
//!
//! A neighbour mask has bit `k` set when the neighbour in direction `k` (see
//! [`Direction`](super::Direction)) is occupied; [`Board::occupied_neighbours`] gives it for any
//! cell. Everything here is a table lookup or one pass per position.

use super::board::Board;
use super::piece_set::PieceSet;

/// Directions (as six bits) in which a ground piece can slide out of a cell whose occupied
/// neighbours are `occ`: the target is empty and exactly one of the two cells beside the step
/// is occupied (both: it does not fit through; neither: it would leave the hive).
#[inline(always)]
pub const fn slide_out_mask(occ: u32) -> u32 {
    let left = ((occ << 1) | (occ >> 5)) & 63; // bit k = neighbour k - 1 occupied
    let right = ((occ >> 1) | (occ << 5)) & 63; // bit k = neighbour k + 1 occupied
    !occ & (left ^ right) & 63
}

/// [`slide_out_mask`] of every six-bit occupancy.
const SLIDE_OUT: [u8; 64] = {
    let mut t = [0u8; 64];
    let mut m = 0;
    while m < 64 {
        t[m] = slide_out_mask(m as u32) as u8;
        m += 1;
    }
    t
};

/// [`slide_out_mask`] by table lookup (the form for hot loops).
#[inline(always)]
pub const fn slides_out(occ: u32) -> u32 {
    SLIDE_OUT[occ as usize & 63] as u32
}

/// Number of set bits of each six-bit mask (a table: the default x86-64 target has no popcount
/// instruction, and the software one costs more than the lookup).
const DIRECTION_COUNT: [u8; 64] = {
    let mut t = [0u8; 64];
    let mut m = 0;
    while m < 64 {
        t[m] = (m as u32).count_ones() as u8;
        m += 1;
    }
    t
};

/// The number of directions set in the six-bit mask `mask`.
#[inline(always)]
pub const fn direction_count(mask: u32) -> u32 {
    DIRECTION_COUNT[mask as usize & 63] as u32
}

/// The directions set in a six-bit mask, lowest first.
#[inline(always)]
pub fn directions(mut mask: u32) -> impl Iterator<Item = usize> {
    std::iter::from_fn(move || {
        if mask == 0 {
            return None;
        }
        let k = mask.trailing_zeros() as usize;
        mask &= mask - 1;
        Some(k)
    })
}

/// Number of separate runs of occupied cells around a cell, by the six-bit occupancy of its
/// neighbours.
const RUNS: [u8; 64] = {
    let mut t = [0u8; 64];
    let mut m = 0;
    while m < 64 {
        let mut runs = 0;
        let mut k = 0;
        while k < 6 {
            if m >> k & 1 == 1 && m >> ((k + 5) % 6) & 1 == 0 {
                runs += 1;
            }
            k += 1;
        }
        t[m] = runs;
        m += 1;
    }
    t
};

/// Number of separate runs of occupied cells around a cell whose occupied neighbours are `occ`:
/// with at most one, the neighbours stay connected to each other around the cell, so lifting
/// its piece cannot split the hive.
#[inline(always)]
pub const fn neighbour_runs(occ: u32) -> u32 {
    RUNS[occ as usize & 63] as u32
}

/// The top pieces whose cell holds the hive together: emptying it would split the hive (the
/// articulation points of the graph of occupied cells). [`Game::pinned`](super::Game::pinned)
/// caches it per position.
///
/// A cell with at most one run of occupied neighbours never splits the hive. With two or more
/// runs it does unless the gaps between them open onto different empty regions, which needs a
/// hole: an empty region enclosed by the hive (the board counts them, see [`Board::holes`]).
/// Without a hole the cells with two runs are the answer; with one, a depth-first pass over
/// the neighbour masks finds it.
pub fn pinned(board: &Board) -> PieceSet {
    let mut split = 0u32;
    let mut tops = 0u32;
    for p in board.pieces() {
        let at = board.cell_of(p);
        if board.top_id(at) as usize != p.id() {
            continue;
        }
        tops |= 1 << p.id();
        split |= ((neighbour_runs(board.occupied_neighbours(at)) > 1) as u32) << p.id();
    }
    if split == 0 || board.holes() == 0 {
        return PieceSet::from_bits(split);
    }
    // Tables of 32 entries, indexed by ids masked to five bits, need no bounds checks.
    let mut adj = [0u32; 32];
    for p in PieceSet::from_bits(tops) {
        adj[p.id() & 31] = board.tops_around(board.cell_of(p)).bits();
    }
    PieceSet::from_bits(articulation_points(&adj, tops))
}

/// The articulation points of the graph on the nodes of `nodes` (a non-empty mask is
/// connected) with neighbour masks `adj`: an iterative Tarjan pass.
fn articulation_points(adj: &[u32; 32], nodes: u32) -> u32 {
    if nodes == 0 {
        return 0;
    }
    let root = nodes.trailing_zeros() as usize & 31;
    // Discovery times and low points; only entries of discovered nodes are read.
    let mut disc = [0u8; 32];
    let mut low = [0u8; 32];
    // The depth-first path: each node with the neighbours it has still to try.
    let mut path_node = [0u8; 32];
    let mut path_rest = [0u32; 32];
    let mut len = 1;
    path_node[0] = root as u8;
    path_rest[0] = adj[root];
    let mut visited = 1u32 << root;
    let mut time = 1u8;
    disc[root] = 1;
    low[root] = 1;
    let mut pinned = 0u32;
    let mut root_children = 0;
    while len > 0 {
        let top = (len - 1) & 31;
        let v = path_node[top] as usize & 31;
        let fresh = path_rest[top] & !visited;
        if fresh != 0 {
            let u = fresh.trailing_zeros() as usize & 31;
            path_rest[top] = fresh & (fresh - 1);
            visited |= 1 << u;
            time += 1;
            disc[u] = time;
            // Visited neighbours other than the parent are ancestors (back edges).
            let mut lowest = time;
            let mut back = adj[u] & visited & !(1 << v);
            while back != 0 {
                lowest = lowest.min(disc[back.trailing_zeros() as usize & 31]);
                back &= back - 1;
            }
            low[u] = lowest;
            path_node[len & 31] = u as u8;
            path_rest[len & 31] = adj[u] & !visited;
            len += 1;
        } else {
            len -= 1;
            if len > 0 {
                let p = path_node[(len - 1) & 31] as usize & 31;
                low[p] = low[p].min(low[v]);
                if len == 1 {
                    root_children += 1;
                } else if low[v] >= disc[p] {
                    pinned |= 1 << p;
                }
            }
        }
    }
    if root_children > 1 {
        pinned |= 1 << root;
    }
    pinned
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::hex::{CELLS, Cell};
    use crate::core::piece::Piece;

    #[test]
    fn slide_out_mask_matches_the_slide_rule() {
        for occ in 0u32..64 {
            let m = slide_out_mask(occ);
            for k in 0..6 {
                let expect = occ & (1 << k) == 0
                    && ((occ >> ((k + 5) % 6)) & 1) != ((occ >> ((k + 1) % 6)) & 1);
                assert_eq!(m >> k & 1 == 1, expect, "occ={occ:06b} k={k}");
            }
        }
    }

    /// Hives grown cell by cell at random (a tiny linear congruential generator keeps the
    /// test free of dependencies), including rings around one and two empty cells.
    fn random_hives() -> Vec<Vec<Cell>> {
        let mut state = 0x9E37_79B9_u64;
        let mut next = |n: usize| {
            state = state
                .wrapping_mul(6_364_136_223_846_793_005)
                .wrapping_add(1);
            (state >> 33) as usize % n
        };
        let mut hives = Vec::new();
        for size in 1..=crate::core::piece::PIECE_COUNT {
            for _ in 0..200 {
                let mut cells = vec![Cell::ORIGIN];
                while cells.len() < size {
                    let c = cells[next(cells.len())].neighbours()[next(6)];
                    if !cells.contains(&c) {
                        cells.push(c);
                    }
                }
                hives.push(cells);
            }
        }
        let ring = |centre: Cell| centre.neighbours().to_vec();
        hives.push(ring(Cell::ORIGIN));
        let mut with_tail = ring(Cell::ORIGIN);
        with_tail.push(Cell::from_axial(2, 0));
        hives.push(with_tail);
        // Two empty cells, (0,0) and (1,0), inside a ring of eight.
        let mut two = ring(Cell::ORIGIN);
        two.retain(|&c| c != Cell::from_axial(1, 0));
        two.extend([(2, 0), (2, -1), (1, 1)].map(|(q, r)| Cell::from_axial(q, r)));
        hives.push(two);
        hives
    }

    /// The holes of a board found by brute force: components of empty cells other than the
    /// one around a far-away cell.
    fn holes_by_flood(board: &Board) -> i32 {
        let mut seen = vec![false; CELLS];
        let mut components = 0;
        let far = Cell::from_axial(16, 16);
        for start in std::iter::once(far).chain((0..CELLS).filter_map(Cell::from_index)) {
            if seen[start.index()] || board.is_occupied(start) {
                continue;
            }
            components += 1;
            seen[start.index()] = true;
            let mut stack = vec![start];
            while let Some(c) = stack.pop() {
                for &x in c.neighbours() {
                    if !seen[x.index()] && !board.is_occupied(x) {
                        seen[x.index()] = true;
                        stack.push(x);
                    }
                }
            }
        }
        components - 1
    }

    /// Whether `cells` form one group of neighbours (plain flood fill).
    fn connected(cells: &[Cell]) -> bool {
        let mut seen = vec![cells[0]];
        let mut todo = vec![cells[0]];
        while let Some(c) = todo.pop() {
            for x in c.neighbours() {
                if cells.contains(x) && !seen.contains(x) {
                    seen.push(*x);
                    todo.push(*x);
                }
            }
        }
        seen.len() == cells.len()
    }

    #[test]
    fn pinned_mask_and_holes_agree_with_flood_fills() {
        for cells in random_hives() {
            let mut board = Board::new();
            for (id, &c) in cells.iter().enumerate() {
                board.push(Piece::from_id(id).unwrap(), c);
            }
            assert_eq!(board.holes(), holes_by_flood(&board), "{cells:?}");
            let pinned = pinned(&board);
            for (id, &c) in cells.iter().enumerate() {
                let piece = Piece::from_id(id).unwrap();
                if neighbour_runs(board.occupied_neighbours(c)) < 2 {
                    assert!(!pinned.contains(piece), "{cells:?}");
                    continue;
                }
                let rest: Vec<Cell> = cells.iter().copied().filter(|&x| x != c).collect();
                assert_eq!(
                    pinned.contains(piece),
                    !connected(&rest),
                    "{cells:?} at {c:?}"
                );
            }
        }
    }

    #[test]
    fn run_counts() {
        assert_eq!(neighbour_runs(0), 0);
        assert_eq!(neighbour_runs(0b111111), 0);
        assert_eq!(neighbour_runs(0b000111), 1);
        assert_eq!(neighbour_runs(0b100001), 1);
        assert_eq!(neighbour_runs(0b010101), 3);
    }
}
