//! MCTS: solves the win-in-one puzzles and the block-the-win case, returns legal moves from all
//! kinds of positions on one thread and two, reports its progress, and honours the stop flag
//! (raised before or during a search).

mod common;

use common::read_rows;
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use std::sync::atomic::AtomicBool;
use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};
use waggle::core::{Game, GameType, MoveList};
use waggle::eval::WIN_THRESHOLD;
use waggle::notation::{format_move, game_string, parse_game_string, parse_move};
use waggle::search::mcts::visits_for_depth;
use waggle::search::{Algorithm, Engine, EngineOptions, Limits, SearchInfo};

fn engine(threads: usize) -> Engine {
    Engine::new(EngineOptions {
        threads,
        hash_mb: 16,
        algorithm: Algorithm::Mcts,
        ..EngineOptions::default()
    })
}

/// Every puzzle of `file` with depth at most `max_depth`, solved by MCTS with `threads`.
fn solve(file: &str, max_depth: u32, threads: usize) -> usize {
    let stop = AtomicBool::new(false);
    let mut solved = 0;
    for row in read_rows(file) {
        let depth: u32 = row.fields[1].parse().expect("depth");
        if depth > max_depth {
            continue;
        }
        // Mzinga's games ignore threefold repetition, and one of them repeats a position.
        let game = parse_game_string(&row.fields[0], false).expect("game string");
        let want = parse_move(&game, &row.fields[2]).expect("answer");
        let limits = Limits {
            depth: Some(5),
            time: None,
        };
        let got = engine(threads).search(&game, &limits, &stop, &mut |_| {});
        assert_eq!(
            got,
            want,
            "{}: wanted {}, got {}",
            row.fields[0],
            row.fields[2],
            format_move(&game, got)
        );
        solved += 1;
    }
    solved
}

#[test]
fn wins_in_one_are_found() {
    let file = "mzinga/PuzzleCandidate_IsOneBestMoveToForceWinPuzzleTest.csv";
    for threads in [1, 2] {
        assert!(solve(file, 1, threads) >= 5);
    }
}

#[test]
fn the_winning_move_is_blocked() {
    let file = "mzinga/GameAI_BlockWinningMoveIsBestMoveTest.csv";
    for threads in [1, 2] {
        assert_eq!(solve(file, 2, threads), 1);
    }
}

#[test]
fn moves_are_legal_in_200_positions_of_every_game_type() {
    let mut rng = StdRng::seed_from_u64(2026);
    let stop = AtomicBool::new(false);
    let mut list = MoveList::new();
    let mut engines = [engine(1), engine(2)];
    let mut checked = 0;
    while checked < 200 {
        let engine = &mut engines[checked % 2];
        let kind = GameType::all()[checked % 8];
        let mut game = Game::new(kind);
        let plies = rng.gen_range(0..70);
        for _ in 0..plies {
            game.generate_moves(&mut list);
            if list.is_empty() {
                break;
            }
            game.play_unchecked(list[rng.gen_range(0..list.len())]);
        }
        if game.state().is_over() {
            continue;
        }
        let limits = Limits {
            depth: Some(1),
            time: None,
        };
        let mut reports: Vec<SearchInfo> = Vec::new();
        let m = engine.search(&game, &limits, &stop, &mut |i| reports.push(i.clone()));
        let legal = game.legal_moves();
        assert!(
            legal.contains(&m),
            "illegal {m:?} in {}",
            game_string(&game)
        );
        assert!(!reports.is_empty());
        for r in &reports {
            assert!(legal.contains(&r.pv[0]), "reported an illegal move");
            assert!(r.visit_share.is_some_and(|s| (0.0..=1.0).contains(&s)));
            assert!(r.nodes >= visits_for_depth(r.depth) || r.score.abs() >= WIN_THRESHOLD);
        }
        // The last report is the answer, after at least depth 1's iterations (or a proof).
        let last = reports.last().expect("a report");
        assert_eq!(last.pv[0], m);
        assert_eq!(last.depth, 1);
        checked += 1;
    }
}

#[test]
fn a_raised_stop_flag_ends_the_search_at_once() {
    let game =
        parse_game_string("Base+MLP;InProgress;;wG1;bG1 wG1-;wQ -wG1;bQ bG1-", true).expect("game");
    let stop = AtomicBool::new(true);
    // No limits at all: only the flag can end it.
    let m = engine(1).search(&game, &Limits::default(), &stop, &mut |_| {});
    assert!(game.legal_moves().contains(&m));
}

#[test]
fn a_stop_raised_during_the_search_ends_it_soon() {
    let game = parse_game_string(
        "Base+MLP;InProgress;;wS1;bG1 wS1-;wQ \\wS1;bQ bG1-;wA1 /wS1;bA1 bQ\\",
        true,
    )
    .expect("game");
    for threads in [1, 2] {
        let stop = AtomicBool::new(false);
        let mut engine = engine(threads);
        let start = Instant::now();
        let (m, stopped_at) = std::thread::scope(|s| {
            let raiser = s.spawn(|| {
                std::thread::sleep(Duration::from_millis(200));
                stop.store(true, Ordering::SeqCst);
                Instant::now()
            });
            let m = engine.search(&game, &Limits::default(), &stop, &mut |_| {});
            (m, raiser.join().expect("raiser"))
        });
        let answered = Instant::now();
        assert!(game.legal_moves().contains(&m));
        assert!(answered >= stopped_at && answered - start >= Duration::from_millis(200));
        assert!(
            answered - stopped_at < Duration::from_millis(100),
            "{threads} threads answered {:?} after the stop",
            answered - stopped_at
        );
    }
}
