//! Perft for the `perft` extension command: like `core::perft::perft`, but it gives up as
//! soon as the stop flag (SIGINT) is raised, so a person can cancel a deep count.

use crate::core::{Game, MoveList};
use std::sync::atomic::{AtomicBool, Ordering};

/// The number of move sequences of exactly `depth` plies from `game`, or `None` when `stop` was
/// raised before the count finished. `game` is left as it was.
pub(crate) fn perft(game: &mut Game, depth: u32, stop: &AtomicBool) -> Option<u64> {
    let mut lists: Vec<MoveList> = (0..depth.max(1)).map(|_| MoveList::new()).collect();
    count(game, depth, &mut lists, stop)
}

fn count(game: &mut Game, depth: u32, lists: &mut [MoveList], stop: &AtomicBool) -> Option<u64> {
    if depth == 0 {
        return Some(1);
    }
    let (list, rest) = lists.split_first_mut()?;
    game.generate_moves(list);
    if depth == 1 {
        return Some(list.len() as u64);
    }
    if stop.load(Ordering::Relaxed) {
        return None;
    }
    let mut total = 0;
    for &m in list.iter() {
        game.play_unchecked(m);
        let n = count(game, depth - 1, rest, stop);
        game.undo();
        total += n?;
    }
    Some(total)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::GameType;

    #[test]
    fn matches_the_core_perft_and_stops_when_asked() {
        let mut g = Game::new(GameType::MLP);
        let go = AtomicBool::new(false);
        for d in 0..=3 {
            assert_eq!(
                perft(&mut g, d, &go),
                Some(crate::core::perft::perft(&mut g.clone(), d))
            );
        }
        let stop = AtomicBool::new(true);
        assert_eq!(perft(&mut g, 3, &stop), None);
        // Depth 1 is a single move generation: nothing to cancel.
        assert_eq!(
            perft(&mut g, 1, &stop),
            Some(crate::core::perft::perft(&mut g.clone(), 1))
        );
        assert_eq!(g.ply(), 0);
    }
}
