//! Perft: the number of distinct move sequences of a given length, for checking move generation
//! against other engines and for measuring its speed.

use super::game::Game;
use super::move_list::MoveList;
use super::movegen::MoveGen;
use super::mv::Move;
use rayon::prelude::*;

/// Counts the move sequences of exactly `depth` plies from `game` (a forced pass counts as a
/// move, a finished game has none). The last ply is counted, not played.
pub fn perft(game: &mut Game, depth: u32) -> u64 {
    let mut lists: Vec<MoveList> = (0..depth.max(1)).map(|_| MoveList::new()).collect();
    perft_inner(game, depth, &mut MoveGen::new(), &mut lists)
}

fn perft_inner(
    game: &mut Game,
    depth: u32,
    generator: &mut MoveGen,
    lists: &mut [MoveList],
) -> u64 {
    if depth == 0 {
        return 1;
    }
    if depth == 1 {
        return generator.count(game) as u64;
    }
    let Some((list, rest)) = lists.split_first_mut() else {
        return 0;
    };
    generator.generate(game, list);
    let mut total = 0;
    for &m in list.iter() {
        game.play_unchecked(m);
        total += perft_inner(game, depth - 1, generator, rest);
        game.undo();
    }
    total
}

/// The per-root-move counts of [`perft`] at `depth` >= 1, in generation order, split over
/// `threads` threads (1 = this thread only).
pub fn perft_divide(game: &Game, depth: u32, threads: usize) -> Vec<(Move, u64)> {
    let moves = game.legal_moves();
    let count = |m: &Move| {
        let mut g = game.clone();
        g.play_unchecked(*m);
        (*m, perft(&mut g, depth.saturating_sub(1)))
    };
    if threads <= 1 {
        moves.iter().map(count).collect()
    } else {
        match rayon::ThreadPoolBuilder::new().num_threads(threads).build() {
            Ok(pool) => pool.install(|| moves.par_iter().map(count).collect()),
            Err(_) => moves.iter().map(count).collect(),
        }
    }
}
