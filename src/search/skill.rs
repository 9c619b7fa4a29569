//! Playing levels (`SkillLevel`): weaker play that still looks like play.
//!
//! Below full strength the engine searches shallower (a depth cap by level), ranks several
//! moves with the multi-line search and picks one of those within a margin of the best at
//! random, from a generator seeded by the `RandomSeed` option, the position and the level (so a
//! game played again with the same seed and commands gets the same moves). It always takes a
//! win in one when there is one, and from [`SAFE_LEVEL`] up it never picks a move that lets
//! the opponent win at once while another move does not. These searches run on one thread
//! from cleared tables, so that the choice depends on nothing else (with a time limit too
//! short for the capped depth, the clock decides how deep it gets).

use super::{Engine, Limits, SearchInfo};
use crate::core::{Game, Move};
use crate::eval::{self, WIN_THRESHOLD};
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use std::sync::atomic::AtomicBool;

/// Full strength: the top level and the default.
pub const MAX_SKILL_LEVEL: u32 = 10;
/// The lowest level.
pub const MIN_SKILL_LEVEL: u32 = 1;
/// From this level up, a move that lets the opponent win at once is never chosen when another
/// move does not.
pub const SAFE_LEVEL: u32 = 4;

/// What a level below full strength does.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct LevelPlan {
    /// Deepest iteration.
    depth: u32,
    /// Moves ranked.
    lines: usize,
    /// Moves scoring at most this much below the best are candidates (evaluation units).
    margin: i32,
}

/// The plan of `level` (from [`MIN_SKILL_LEVEL`] to `MAX_SKILL_LEVEL - 1`).
fn plan(level: u32) -> LevelPlan {
    let level = level.clamp(MIN_SKILL_LEVEL, MAX_SKILL_LEVEL - 1);
    const DEPTH: [u32; 9] = [1, 1, 2, 2, 3, 3, 4, 5, 6];
    LevelPlan {
        depth: DEPTH[(level - 1) as usize],
        lines: (7 - level as usize / 2).max(3),
        margin: (MAX_SKILL_LEVEL - level) as i32 * 25,
    }
}

/// The result of `m` for the side that plays it when the game ends at once: `Some(true)` for a
/// win, `Some(false)` for a loss or a draw, `None` when the game goes on.
fn ends_with(game: &mut Game, m: Move) -> Option<bool> {
    game.play_unchecked(m);
    // From the view of the side to move now, the opponent of the mover.
    let result = eval::final_score(game).map(|s| s < 0);
    game.undo();
    result
}

/// Whether the opponent has a move that wins at once after `m`.
fn allows_win_in_one(game: &mut Game, m: Move) -> bool {
    game.play_unchecked(m);
    let lost = eval::final_score(game).is_none()
        && game
            .legal_moves()
            .iter()
            .any(|&r| ends_with(game, r) == Some(true));
    game.undo();
    lost
}

/// The generator of one choice: the seed, the position and the level.
fn rng(seed: u64, game: &Game, level: u32) -> StdRng {
    let mut x = seed ^ game.hash().rotate_left(17) ^ u64::from(level).wrapping_mul(0x9e37_79b9);
    // SplitMix64's finaliser, so that nearby seeds give unrelated streams.
    x = (x ^ (x >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    x = (x ^ (x >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    StdRng::seed_from_u64(x ^ (x >> 31))
}

impl Engine {
    /// The move of `SkillLevel` `level` (below full strength) for `game`, within `limits`.
    /// Reports are those of the capped search, ranks up to the `MultiPV` option.
    pub(super) fn weakened(
        &mut self,
        game: &Game,
        limits: &Limits,
        level: u32,
        stop: &AtomicBool,
        report: &mut dyn FnMut(&SearchInfo),
    ) -> Move {
        let mut scratch = game.clone();
        let legal = scratch.legal_moves();
        if let Some(&win) = legal
            .iter()
            .find(|&&m| ends_with(&mut scratch, m) == Some(true))
        {
            report(&SearchInfo {
                depth: 1,
                rank: 1,
                score: eval::WIN - 1,
                pv: vec![win],
                nodes: legal.len() as u64,
                visit_share: None,
            });
            return win;
        }
        let plan = plan(level);
        let capped = Limits {
            depth: Some(limits.depth.map_or(plan.depth, |d| d.min(plan.depth))),
            time: limits.time,
        };
        self.clear();
        let shown = self.options.multi_pv;
        let mut ranked: Vec<SearchInfo> = Vec::new();
        let best = self.alpha_beta(game, &capped, 1, plan.lines, stop, &mut |info| {
            if info.rank == 1 {
                ranked.clear();
            }
            ranked.push(info.clone());
            if info.rank <= shown {
                report(info);
            }
        });
        let top = ranked.first().map_or(-eval::WIN, |i| i.score);
        let mut candidates: Vec<Move> = ranked
            .iter()
            .filter(|i| i.score >= top - plan.margin || i.score >= WIN_THRESHOLD)
            .filter_map(|i| i.pv.first().copied())
            .collect();
        if level >= SAFE_LEVEL {
            candidates.retain(|&m| !allows_win_in_one(&mut scratch, m));
            if candidates.is_empty()
                && let Some(&safe) = legal.iter().find(|&&m| !allows_win_in_one(&mut scratch, m))
            {
                candidates.push(safe);
            }
        }
        if candidates.is_empty() {
            return best;
        }
        candidates[rng(self.options.seed, game, level).gen_range(0..candidates.len())]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn levels_search_deeper_and_choose_more_narrowly_as_they_rise() {
        for level in MIN_SKILL_LEVEL..MAX_SKILL_LEVEL - 1 {
            let (a, b) = (plan(level), plan(level + 1));
            assert!(a.depth <= b.depth && a.margin > b.margin && a.lines >= b.lines);
        }
    }
}
