//! Invariants over random games of all eight game types.

mod common;

use proptest::prelude::*;
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use std::collections::HashSet;
use waggle::core::{
    Board, Bug, Cell, Color, Direction, Game, GameState, GameType, Move, MoveGen, MoveList, Piece,
};
use waggle::notation::{format_move, game_string, parse_game_string, parse_move};

/// Whether the occupied cells form one connected group (checked by plain flood fill, not by
/// the articulation-point pass the move generator uses).
fn hive_is_connected(game: &Game) -> bool {
    let board = game.board();
    let cells: HashSet<Cell> = waggle::core::Piece::all()
        .filter_map(|p| board.position(p))
        .collect();
    common::is_connected(&cells)
}

/// The number of empty regions the hive encloses, by flood fill over the whole grid: the
/// components of empty cells other than the one that reaches a cell far from the hive.
fn holes_by_flood(game: &Game) -> i32 {
    let board = game.board();
    let Some(origin) = Piece::all().find_map(|p| board.position(p)) else {
        return 0;
    };
    // Half the grid away from a piece, in both axes: as far from the hive as it gets.
    let (q, r) = origin.relative_to(Cell::ORIGIN);
    let far = Cell::from_axial(q + 16, r + 16);
    let mut seen = HashSet::new();
    let mut components = 0;
    let all = (0..waggle::core::CELLS).filter_map(Cell::from_index);
    for start in std::iter::once(far).chain(all) {
        if board.is_occupied(start) || !seen.insert(start) {
            continue;
        }
        components += 1;
        let mut todo = vec![start];
        while let Some(c) = todo.pop() {
            for &n in c.neighbours() {
                if !board.is_occupied(n) && seen.insert(n) {
                    todo.push(n);
                }
            }
        }
    }
    components - 1
}

/// Only Beetles and Mosquitoes ever stand above the ground.
fn stacks_are_plausible(game: &Game) -> bool {
    waggle::core::Piece::all()
        .all(|p| game.board().below(p).is_none() || matches!(p.bug(), Bug::Beetle | Bug::Mosquito))
}

/// Checks every invariant at the current position, then plays a random legal move. Returns
/// false when the game is over.
fn check_and_step(game: &mut Game, rng: &mut StdRng, list: &mut MoveList) -> bool {
    assert_eq!(game.hash(), game.recompute_hash(), "incremental hash");
    assert!(hive_is_connected(game), "hive split: {}", game_string(game));
    assert!(stacks_are_plausible(game), "{}", game_string(game));
    assert_eq!(
        game.board().holes(),
        holes_by_flood(game),
        "holes: {}",
        game_string(game)
    );
    game.generate_moves(list);
    if list.is_empty() {
        assert!(game.state().is_over());
        return false;
    }
    // Distinct (piece, destination) pairs.
    let distinct: HashSet<Move> = list.iter().copied().collect();
    assert_eq!(
        distinct.len(),
        list.len(),
        "duplicate move in {}",
        game_string(game)
    );
    // Pass only when nothing else is legal.
    if list.contains(&Move::PASS) {
        assert_eq!(list.len(), 1, "pass offered with other moves");
    }
    // The moves ending next to a cell (each queen's, and one next to a piece) are those of the
    // full list, in the same order.
    let centres = [Color::White, Color::Black]
        .map(|c| game.board().position(Piece::new(c, Bug::Queen, 1).unwrap()));
    let beside = game
        .board()
        .position(
            list[0]
                .piece()
                .unwrap_or(Piece::new(Color::White, Bug::Ant, 1).unwrap()),
        )
        .map(|c| c.neighbour(Direction::East));
    let full = list.clone();
    for centre in centres.into_iter().chain([beside]).flatten() {
        let expected: Vec<Move> = full
            .iter()
            .copied()
            .filter(|m| !m.is_pass() && m.to().distance(centre) == 1)
            .collect();
        let mut near = MoveList::new();
        MoveGen::new().generate_next_to(game, centre, &mut near);
        assert_eq!(
            near.to_vec(),
            expected,
            "next to {centre:?} in {}",
            game_string(game)
        );
    }
    for &m in list.iter() {
        // Notation round trip: print, parse back, same move.
        let text = format_move(game, m);
        assert_eq!(
            parse_move(game, &text),
            Ok(m),
            "{text} in {}",
            game_string(game)
        );
        // Undo restores everything.
        let before = game.clone();
        game.play_unchecked(m);
        assert!(hive_is_connected(game), "{text} splits the hive");
        game.undo();
        assert!(game.board() == before.board(), "undo of {text}");
        assert_eq!(game.hash(), before.hash());
        assert_eq!(game.board().holes(), before.board().holes());
        assert_eq!(game.frozen(), before.frozen());
        assert_eq!(game.state(), before.state());
        assert_eq!(game.ply(), before.ply());
    }
    let m = list[rng.gen_range(0..list.len())];
    // The checked path agrees with the generator.
    game.play(m).expect("generated move is legal");
    true
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn random_games_keep_every_invariant(kind in 0usize..8, seed in any::<u64>(), plies in 10usize..90) {
        let mut rng = StdRng::seed_from_u64(seed);
        let mut game = Game::new(GameType::all()[kind]);
        let mut list = MoveList::new();
        for _ in 0..plies {
            if !check_and_step(&mut game, &mut rng, &mut list) {
                break;
            }
        }
        // The GameString replays to the same position.
        let text = game_string(&game);
        let replayed = parse_game_string(&text, true).expect("own GameString loads");
        prop_assert!(replayed.board() == game.board());
        prop_assert_eq!(replayed.hash(), game.hash());
        prop_assert_eq!(replayed.state(), game.state());
        prop_assert_eq!(game_string(&replayed), text);
        // Undoing every move returns to the empty board.
        while game.undo().is_some() {}
        prop_assert_eq!(game.hash(), Game::new(GameType::all()[kind]).hash());
        prop_assert!(game.board().pieces().is_empty());
    }
}

#[test]
fn threefold_repetition_is_a_draw_and_can_be_turned_off() {
    // Queens out, then both sides shuffle their queen back and forth.
    let opening = "Base;InProgress;;wG1;bG1 wG1-;wQ -wG1;bQ bG1-;wQ \\wG1;bQ bG1\\";
    let shuffle = ["wQ -wG1", "bQ bG1-", "wQ \\wG1", "bQ bG1\\"];
    for repetition in [true, false] {
        let mut game = parse_game_string(opening, repetition).expect("opening");
        let mut states = Vec::new();
        for text in shuffle.iter().cycle().take(8) {
            if game.state().is_over() {
                break;
            }
            let m = parse_move(&game, text).expect("parses");
            game.play(m).expect("legal");
            states.push(game.state());
        }
        if repetition {
            // The position after the opening's fourth ply recurs after shuffle plies 2 and 6:
            // its third occurrence ends the game, and nothing more can be played.
            assert_eq!(states.len(), 6, "{states:?}");
            assert_eq!(states[5], GameState::Draw);
            assert!(states[..5].iter().all(|s| *s == GameState::InProgress));
            assert!(game.play(Move::PASS).is_err());
        } else {
            assert_eq!(states.len(), 8);
            assert!(states.iter().all(|s| *s == GameState::InProgress));
        }
    }
}

#[test]
fn swapped_copies_hash_equal() {
    let (a, b) = (Cell::ORIGIN, Cell::ORIGIN.neighbour(Direction::East));
    let s1 = Piece::new(Color::White, Bug::Spider, 1).unwrap();
    let s2 = Piece::new(Color::White, Bug::Spider, 2).unwrap();
    let mut x = Board::new();
    x.push(s1, a);
    x.push(s2, b);
    let mut y = Board::new();
    y.push(s2, a);
    y.push(s1, b);
    assert_eq!(x.hash(), y.hash());
    assert!(x != y);
    // Different stacks hash differently: a beetle on top versus underneath.
    let b1 = Piece::new(Color::White, Bug::Beetle, 1).unwrap();
    let q = Piece::new(Color::Black, Bug::Queen, 1).unwrap();
    let mut top = Board::new();
    top.push(q, a);
    top.push(b1, a);
    let mut under = Board::new();
    under.push(b1, a);
    under.push(q, a);
    assert_ne!(top.hash(), under.hash());
}
