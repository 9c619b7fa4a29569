//! Perft: the number of distinct move sequences of a given length, for checking move generation
//! against other engines and for measuring its speed.

use super::game::Game;
use super::move_list::MoveList;
use super::movegen::MoveGen;
use super::mv::Move;
use rayon::prelude::*;
use std::sync::atomic::{AtomicBool, Ordering};

/// Counts the move sequences of exactly `depth` plies from `game` (a forced pass counts as a
/// move, a finished game has none). The last ply is counted, not played.
pub fn perft(game: &mut Game, depth: u32) -> u64 {
    count(
        game,
        depth,
        &mut MoveGen::new(),
        &mut move_lists(depth),
        None,
    )
}

/// [`perft`] that gives up as soon as `stop` is raised (a person cancelling a deep count):
/// `None` then, else the count. `stop` is read at every position with three or more plies left
/// to count, and once at the end; counts of up to two plies are quick and always finish.
/// `game` is left as it was.
pub fn perft_with_stop(game: &mut Game, depth: u32, stop: &AtomicBool) -> Option<u64> {
    let nodes = count(
        game,
        depth,
        &mut MoveGen::new(),
        &mut move_lists(depth),
        Some(stop),
    );
    // Only a raised flag cuts a count short, and it stays raised.
    (depth < STOP_DEPTH || !stop.load(Ordering::Relaxed)).then_some(nodes)
}

/// The fewest plies left at which the count reads its stop flag. The positions with fewer are
/// nearly all of them, so the flag costs the count nothing there: the plain and the stoppable
/// count share one recursion, and the hot part of it is the same for both.
const STOP_DEPTH: u32 = 3;

/// One move list per ply that is played (the last ply is only counted).
fn move_lists(depth: u32) -> Vec<MoveList> {
    (0..depth.saturating_sub(1))
        .map(|_| MoveList::new())
        .collect()
}

/// The count, or a part of it once `stop` is raised (the caller then drops it).
fn count(
    game: &mut Game,
    depth: u32,
    generator: &mut MoveGen,
    lists: &mut [MoveList],
    stop: Option<&AtomicBool>,
) -> u64 {
    if depth == 0 {
        return 1;
    }
    if depth == 1 {
        return generator.count(game) as u64;
    }
    if depth >= STOP_DEPTH && stop.is_some_and(|s| s.load(Ordering::Relaxed)) {
        return 0;
    }
    let Some((list, rest)) = lists.split_first_mut() else {
        return 0;
    };
    generator.generate(game, list);
    let mut total = 0;
    if depth == 2 {
        // The last ply is counted here rather than in a call per move: most calls are these.
        for &m in list.iter() {
            game.play_unchecked(m);
            total += generator.count(game) as u64;
            game.undo();
        }
        return total;
    }
    for &m in list.iter() {
        game.play_unchecked(m);
        total += count(game, depth - 1, generator, rest, stop);
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::GameType;

    #[test]
    fn the_stoppable_count_is_the_plain_one_and_stops_when_asked() {
        let mut g = Game::new(GameType::MLP);
        let go = AtomicBool::new(false);
        for d in 0..=3 {
            assert_eq!(perft_with_stop(&mut g, d, &go), Some(perft(&mut g, d)));
        }
        let stop = AtomicBool::new(true);
        assert_eq!(perft_with_stop(&mut g, 3, &stop), None);
        // Counts of up to two plies always finish.
        assert_eq!(perft_with_stop(&mut g, 2, &stop), Some(perft(&mut g, 2)));
        assert_eq!(perft_with_stop(&mut g, 1, &stop), Some(perft(&mut g, 1)));
        assert_eq!(perft_with_stop(&mut g, 0, &stop), Some(1));
        assert_eq!(g.ply(), 0);
    }
}
