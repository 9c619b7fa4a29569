//! The alpha-beta search (principal variation search with the transposition table, aspiration
//! windows, move ordering, killers, history, mate-distance pruning and the parallel root split)
//! returns exactly the score of a plain minimax over the same evaluation, at depths 1 to 3, on
//! random positions of every game type, and at depth 4 on the positions small enough for it
//! (only from depth 4 do transpositions, and so table cutoffs, occur inside the tree).
//! Late-move reductions and quiescence are switched off (`SearchParams::exact`): they change
//! the value by design.

use rand::rngs::StdRng;
use rand::seq::SliceRandom;
use rand::{Rng, SeedableRng};
use std::sync::atomic::AtomicBool;
use waggle::core::perft::perft;
use waggle::core::{Game, GameType, Move, Piece};
use waggle::eval::{EvalWeights, WIN, evaluate, final_score};
use waggle::notation::game_string;
use waggle::search::{Engine, EngineOptions, Limits, SearchParams};

/// Negamax without any pruning, scoring like the search: a finished game is a win or loss
/// counted in plies from the root (or a draw), a repeated position below the root a draw.
fn minimax(game: &mut Game, depth: u32, ply: i32, w: &EvalWeights) -> i32 {
    if let Some(s) = final_score(game) {
        return s.signum() * (WIN - ply);
    }
    if ply > 0 && game.is_repetition() {
        return 0;
    }
    if depth == 0 {
        return evaluate(game, w);
    }
    let moves = game.legal_moves();
    let mut best = i32::MIN;
    for &m in moves.iter() {
        game.play_unchecked(m);
        best = best.max(-minimax(game, depth - 1, ply + 1, w));
        game.undo();
    }
    best
}

/// Random positions: every game type in turn, `plies` random plies (half of them next to the
/// enemy queen when possible), not finished, and small
/// enough (`perft(depth) <= max_nodes`) that a minimax to `depth` stays quick.
fn random_positions(
    count: usize,
    seed: u64,
    plies: std::ops::RangeInclusive<u32>,
    depth: u32,
    max_nodes: u64,
) -> Vec<Game> {
    let mut rng = StdRng::seed_from_u64(seed);
    let types = GameType::all();
    let mut out = Vec::new();
    while out.len() < count {
        let mut game = Game::new(types[out.len() % types.len()]);
        let n = rng.gen_range(plies.clone());
        for _ in 0..n {
            let moves = game.legal_moves();
            // Half the time, a move next to the enemy queen if there is one, so that some
            // positions are decided within a few plies.
            let enemy_queen = game
                .board()
                .position(Piece::queen(game.side_to_move().opponent()));
            let attacks: Vec<Move> = moves
                .iter()
                .copied()
                .filter(|m| enemy_queen.is_some_and(|q| q.neighbours().contains(&m.to())))
                .collect();
            let pool = if !attacks.is_empty() && rng.gen_bool(0.5) {
                &attacks[..]
            } else {
                moves.as_slice()
            };
            let Some(&m) = pool.choose(&mut rng) else {
                break;
            };
            game.play_unchecked(m);
        }
        if game.state().is_over() || perft(&mut game.clone(), depth) > max_nodes {
            continue;
        }
        out.push(game);
    }
    out
}

fn search_score(game: &Game, depth: u32, threads: usize, params: SearchParams) -> i32 {
    let mut engine = Engine::new(EngineOptions {
        threads,
        hash_mb: 4,
        ..EngineOptions::default()
    });
    engine.set_params(params);
    let stop = AtomicBool::new(false);
    let mut score = None;
    let limits = Limits {
        depth: Some(depth),
        time: None,
    };
    engine.search(game, &limits, &stop, &mut |info| {
        if info.depth == depth {
            score = Some(info.score);
        }
    });
    score.expect("the last iteration is reported")
}

fn check(positions: &[Game], depths: std::ops::RangeInclusive<u32>) -> usize {
    let weights = SearchParams::exact().weights;
    let mut decided = 0;
    for (i, game) in positions.iter().enumerate() {
        for depth in depths.clone() {
            let expected = minimax(
                &mut game.clone(),
                depth,
                0,
                weights.for_type(game.game_type()),
            );
            if expected.abs() > WIN / 2 {
                decided += 1;
            }
            let threads = 1 + i % 2;
            let got = search_score(game, depth, threads, SearchParams::exact());
            assert_eq!(
                got,
                expected,
                "depth {depth}, {threads} thread(s): {}",
                game_string(game)
            );
        }
    }
    decided
}

#[test]
fn alpha_beta_equals_minimax_at_depths_one_to_three() {
    let positions = random_positions(56, 0x5EED, 2..=40, 3, 400_000);
    let decided = check(&positions, 1..=3);
    // The positions include decided ones, so win and loss scores are compared too.
    assert!(
        decided > 0,
        "no position with a win or loss within three plies"
    );
}

#[test]
fn alpha_beta_equals_minimax_at_depth_four_in_openings() {
    let positions = random_positions(24, 0xF00D, 4..=9, 4, 300_000);
    check(&positions, 4..=4);
}

/// Quiescence evasions never claim a win or a loss that is not there: at depth 1 the search
/// sees three plies of a threatened queen's line (a move, the evasions, the win in one), and
/// each win or loss it reports is checked by a plain minimax to the distance it claims. The
/// evasions that are tried first (by the queen, by the pieces that free a cell next to it, or
/// next to the enemy queen) are not all a side has, so a loss may be claimed only after every
/// move was tried.
#[test]
fn quiescence_evasions_claim_only_real_wins_and_losses() {
    let positions = random_positions(2000, 0xE7A5, 12..=40, 3, 400_000);
    let weights = SearchParams::exact().weights;
    let mut params = SearchParams::default();
    params
        .set("quiescence_evasions", "true")
        .expect("a known parameter");
    let (mut claims, mut through_evasions) = (0, 0);
    for game in &positions {
        let got = search_score(game, 1, 1, params.clone());
        if got.abs() < WIN / 2 {
            continue;
        }
        claims += 1;
        let distance = (WIN - got.abs()) as u32;
        assert!(distance <= 3, "{got} at depth 1: {}", game_string(game));
        if distance == 3 {
            through_evasions += 1;
        }
        let exact = minimax(
            &mut game.clone(),
            distance,
            0,
            weights.for_type(game.game_type()),
        );
        assert!(
            exact.signum() == got.signum() && exact.abs() > WIN / 2,
            "claimed {got}, minimax to {distance} plies {exact}: {}",
            game_string(game)
        );
    }
    assert!(
        claims >= 40 && through_evasions >= 8,
        "only {claims} decided positions, {through_evasions} of them through evasions"
    );
}
