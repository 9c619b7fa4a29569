//! Playing levels (`SkillLevel`): weaker play that still looks like play.
//!
//! Below full strength the engine searches less (a node budget by level, counted after a
//! first iteration that always completes; the lowest level searches one ply), ranks several
//! moves with the multi-line search and picks one of those within a margin of the best at
//! random, from a generator seeded by the `RandomSeed` option, the position and the level (so a
//! game played again with the same seed and commands gets the same moves). It always takes a
//! win in one when there is one, and from [`SAFE_LEVEL`] up it never picks a move that loses
//! at once (letting the opponent win, or surrounding its own queen) while another move does
//! not. These searches run on one thread from cleared tables, so that the choice depends on
//! nothing else (with a time or depth limit that ends the search before the budget is spent,
//! the limit decides how far it gets). The budgets and margins were calibrated with the arena
//! so that each level is 100 to 250 Elo above the one below (see the README).

use super::{Engine, Limits, SearchInfo, Shape};
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
    /// Nodes searched after the first iteration (0: one ply only).
    nodes: u64,
    /// Moves ranked.
    lines: usize,
    /// Moves scoring at most this much below the best are candidates (evaluation units).
    margin: i32,
}

/// The plans of levels 1 to `MAX_SKILL_LEVEL - 1`. The node budgets roughly double from level
/// to level (a ply of search is worth several steps at the bottom, where one ply is a few
/// hundred nodes); the arena calibration in the README measured each step.
const PLANS: [LevelPlan; 9] = [
    plan_of(0, 3, 150),
    plan_of(1_000, 3, 130),
    plan_of(3_000, 3, 100),
    plan_of(6_000, 3, 80),
    plan_of(14_000, 3, 60),
    plan_of(30_000, 3, 45),
    plan_of(70_000, 3, 30),
    plan_of(150_000, 3, 20),
    plan_of(400_000, 2, 10),
];

/// A plan from its fields (keeps the table above one line a level).
const fn plan_of(nodes: u64, lines: usize, margin: i32) -> LevelPlan {
    LevelPlan {
        nodes,
        lines,
        margin,
    }
}

/// The plan of `level` (from [`MIN_SKILL_LEVEL`] to `MAX_SKILL_LEVEL - 1`).
fn plan(level: u32) -> LevelPlan {
    let level = level.clamp(MIN_SKILL_LEVEL, MAX_SKILL_LEVEL - 1);
    PLANS[(level - MIN_SKILL_LEVEL) as usize]
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

/// Whether `m` loses at once: it ends the game in the opponent's favour, or the opponent has
/// a move that wins at once after it.
fn loses_within_one(game: &mut Game, m: Move) -> bool {
    game.play_unchecked(m);
    // From the view of the side to move now, the opponent of the mover.
    let lost = match eval::final_score(game) {
        Some(s) => s > 0,
        None => game
            .legal_moves()
            .iter()
            .any(|&r| ends_with(game, r) == Some(true)),
    };
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
        // Without a budget the level searches one ply.
        let capped = Limits {
            depth: if plan.nodes == 0 {
                Some(1)
            } else {
                limits.depth
            },
            time: limits.time,
        };
        let shape = Shape {
            threads: 1,
            lines: plan.lines,
            node_budget: Some(plan.nodes),
        };
        self.clear();
        let shown = self.options.multi_pv;
        let mut ranked: Vec<SearchInfo> = Vec::new();
        let best = self.alpha_beta(game, &capped, shape, stop, &mut |info| {
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
            candidates.retain(|&m| !loses_within_one(&mut scratch, m));
            if candidates.is_empty()
                && let Some(&safe) = legal.iter().find(|&&m| !loses_within_one(&mut scratch, m))
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
    fn levels_search_more_and_choose_more_narrowly_as_they_rise() {
        for level in MIN_SKILL_LEVEL..MAX_SKILL_LEVEL - 1 {
            let (a, b) = (plan(level), plan(level + 1));
            assert!(a.nodes < b.nodes && a.margin > b.margin && a.lines >= b.lines);
        }
    }
}
