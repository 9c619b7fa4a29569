//! The evaluation against a plain reference: every term of [`breakdown`] and the score of
//! [`evaluate`] must equal what a straightforward, unoptimised reading of the evaluation's rules
//! gives (sets of cells, a flood fill for the one-hive rule, one piece at a time), over random
//! games of all eight game types with random weights, and over the bench positions and the
//! positions one and two moves after them.

mod common;

use proptest::prelude::*;
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use std::collections::HashSet;
use waggle::core::{Bug, Cell, Color, Game, GameType, MoveList, Piece};
use waggle::eval::{EvalWeights, MAX_EVAL, Term, breakdown, evaluate, final_score};
use waggle::notation::{game_string, parse_game_string};

/// The reference value of every term, `[term][colour]`.
type Terms = [[i32; 2]; Term::ALL.len()];

fn lerp(opening: i32, endgame: i32, phase: i32) -> i32 {
    (opening * (256 - phase) + endgame * phase) / 256
}

fn occupied(game: &Game, cell: Cell) -> bool {
    game.board().top(cell).is_some()
}

/// Whether emptying `cell` would leave the other occupied cells in more than one group.
fn splits_hive(game: &Game, cell: Cell) -> bool {
    let board = game.board();
    let rest: HashSet<Cell> = Piece::all()
        .filter_map(|p| board.position(p))
        .filter(|&c| c != cell)
        .collect();
    !common::is_connected(&rest)
}

/// The top pieces on the cells around `cell`.
fn around(game: &Game, cell: Cell) -> Vec<Piece> {
    cell.neighbours()
        .iter()
        .filter_map(|&n| game.board().top(n))
        .collect()
}

fn is_top(game: &Game, p: Piece) -> bool {
    game.board().is_top(p)
}

/// On the board, on top of its cell and alone in it.
fn is_ground(game: &Game, p: Piece) -> bool {
    is_top(game, p)
        && game
            .board()
            .position(p)
            .is_some_and(|c| game.board().height(c) == 1)
}

fn is_pinned(game: &Game, p: Piece) -> bool {
    is_ground(game, p)
        && game
            .board()
            .position(p)
            .is_some_and(|c| splits_hive(game, c))
}

/// Directions in which a ground piece at `cell` can slide out, and occupied neighbours.
fn slides_and_climbs(game: &Game, cell: Cell) -> (u32, u32) {
    let n = cell.neighbours();
    let occ = |k: usize| occupied(game, n[k % 6]);
    let slides = (0..6)
        .filter(|&k| !occ(k) && occ(k + 5) != occ(k + 1))
        .count() as u32;
    let climbs = (0..6).filter(|&k| occ(k)).count() as u32;
    (slides, climbs)
}

/// Whether a free top piece can leave its cell, and in how many directions.
fn mobility(game: &Game, p: Piece) -> (bool, u32) {
    if !is_ground(game, p) {
        return (true, 6);
    }
    let Some(cell) = game.board().position(p) else {
        return (false, 0);
    };
    let (s, c) = slides_and_climbs(game, cell);
    match p.bug() {
        Bug::Queen | Bug::Spider | Bug::Ant | Bug::Pillbug => (s > 0, s),
        Bug::Beetle => (true, s + c),
        Bug::Grasshopper | Bug::Ladybug => (true, c),
        Bug::Mosquito => {
            let bugs: Vec<Bug> = around(game, cell).iter().map(|q| q.bug()).collect();
            let has = |b: Bug| bugs.contains(&b);
            if has(Bug::Beetle) {
                (true, s + c)
            } else if has(Bug::Grasshopper) || has(Bug::Ladybug) {
                (true, c.max(s))
            } else if [Bug::Ant, Bug::Spider, Bug::Queen, Bug::Pillbug]
                .into_iter()
                .any(has)
            {
                (s > 0, s)
            } else {
                (false, 0)
            }
        }
    }
}

fn queen_of(color: Color) -> Piece {
    Piece::new(color, Bug::Queen, 1).expect("every colour has a queen")
}

fn reference(game: &Game, w: &EvalWeights) -> Terms {
    let board = game.board();
    let gt = game.game_type();
    let total = Piece::all().filter(|p| gt.has(p.bug())).count() as i32;
    let placed = Piece::all().filter(|&p| board.is_on_board(p)).count() as i32;
    let ph = placed * 256 / total;
    let mut t: Terms = [[0; 2]; Term::ALL.len()];
    let mut add = |term: Term, color: Color, v: i32| t[term as usize][color as usize] += v;

    let movable = |p: Piece| {
        is_top(game, p)
            && !is_pinned(game, p)
            && board.is_on_board(queen_of(p.color()))
            && mobility(game, p).0
    };
    for p in Piece::all().filter(|&p| board.is_on_board(p)) {
        let (b, c) = (p.bug() as usize, p.color());
        if !is_top(game, p) {
            add(Term::Immobile, c, -w.covered[b]);
        } else if is_pinned(game, p) {
            add(Term::Immobile, c, -w.pinned[b]);
        }
        if movable(p) {
            add(
                Term::Mobility,
                c,
                lerp(w.movable_opening[b], w.movable_endgame[b], ph),
            );
            add(Term::Reach, c, w.reach[b] * mobility(game, p).1 as i32);
        }
    }

    for color in [Color::White, Color::Black] {
        let hand: i32 = Piece::all()
            .filter(|&p| p.color() == color && gt.has(p.bug()) && !board.is_on_board(p))
            .map(|p| {
                let b = p.bug() as usize;
                lerp(w.in_hand_opening[b], w.in_hand_endgame[b], ph)
            })
            .sum();
        add(Term::InHand, color, hand);

        let own = queen_of(color);
        if let Some(q) = board.position(own) {
            let near = around(game, q);
            let count = near.len().min(5);
            let enemies = near.iter().filter(|p| p.color() != color).count() as i32;
            let stuck = near.iter().filter(|&&p| !movable(p)).count() as i32;
            add(
                Term::QueenPressure,
                color,
                -(w.queen_ring[count] + enemies * w.queen_enemy + stuck * w.queen_stuck),
            );
            if !is_top(game, own) {
                add(Term::QueenSafety, color, -w.queen_covered);
            } else if movable(own) {
                add(Term::QueenSafety, color, w.queen_mobile);
            }
        }

        let enemy_queen = board.position(queen_of(color.opponent()));
        let mine = |p: &Piece| p.color() == color;
        if let Some(eq) = enemy_queen {
            for p in Piece::all().filter(mine).filter(|&p| is_top(game, p)) {
                let climber =
                    p.bug() == Bug::Beetle || (p.bug() == Bug::Mosquito && !is_ground(game, p));
                let Some(at) = board.position(p) else {
                    continue;
                };
                if climber && at == eq {
                    add(Term::BeetleAttack, color, w.beetle_on_queen);
                } else if climber && at.direction_to(eq).is_some() {
                    add(Term::BeetleAttack, color, w.beetle_near_queen);
                }
            }
        }

        // Ground Pillbugs, and ground Mosquitoes next to a ground Pillbug of either colour.
        let pillbug = |p: &Piece| p.bug() == Bug::Pillbug && is_ground(game, *p);
        for p in Piece::all().filter(mine).filter(|&p| is_ground(game, p)) {
            let Some(at) = board.position(p) else {
                continue;
            };
            let user = p.bug() == Bug::Pillbug
                || (p.bug() == Bug::Mosquito && around(game, at).iter().any(pillbug));
            if !user {
                continue;
            }
            let free_cell = at.neighbours().iter().any(|&n| !occupied(game, n));
            if around(game, at).contains(&own)
                && is_ground(game, own)
                && !is_pinned(game, own)
                && free_cell
            {
                add(Term::Pillbug, color, w.pillbug_defense);
            }
            if enemy_queen.is_some_and(|eq| at.direction_to(eq).is_some()) {
                add(Term::Pillbug, color, w.pillbug_attack);
            }
        }
    }
    add(Term::Tempo, game.side_to_move(), w.tempo);
    t
}

/// Checks `evaluate` and `breakdown` against the reference at the current position.
fn check(game: &Game, w: &EvalWeights) {
    let expect = reference(game, w);
    let b = breakdown(game, w);
    let at = || game_string(game);
    for (i, tv) in b.terms.iter().enumerate() {
        assert_eq!(tv.term, Term::ALL[i]);
        assert_eq!(
            [tv.white, tv.black],
            expect[i],
            "{} in {}",
            tv.term.name(),
            at()
        );
    }
    let me = game.side_to_move() as usize;
    let sum: i32 = expect.iter().map(|v| v[me] - v[1 - me]).sum();
    let score = final_score(game).unwrap_or(sum.clamp(-MAX_EVAL, MAX_EVAL));
    assert_eq!(evaluate(game, w), score, "{}", at());
    assert_eq!(b.total, score, "{}", at());
}

/// Random weights in a range wide enough that any two terms that got mixed up would differ.
fn random_weights(rng: &mut StdRng) -> EvalWeights {
    let mut r8 = || std::array::from_fn(|_| rng.gen_range(-300..300));
    let mut w = EvalWeights {
        movable_opening: r8(),
        movable_endgame: r8(),
        reach: r8(),
        pinned: r8(),
        covered: r8(),
        in_hand_opening: r8(),
        in_hand_endgame: r8(),
        ..EvalWeights::default()
    };
    w.queen_ring = std::array::from_fn(|_| rng.gen_range(-300..300));
    for v in [
        &mut w.queen_enemy,
        &mut w.queen_stuck,
        &mut w.queen_mobile,
        &mut w.queen_covered,
        &mut w.beetle_on_queen,
        &mut w.beetle_near_queen,
        &mut w.pillbug_defense,
        &mut w.pillbug_attack,
        &mut w.tempo,
    ] {
        *v = rng.gen_range(-300..300);
    }
    w
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(96))]

    #[test]
    fn random_games_match_the_reference(kind in 0usize..8, seed in any::<u64>(), plies in 20usize..120) {
        let mut rng = StdRng::seed_from_u64(seed);
        let weights = [EvalWeights::default(), random_weights(&mut rng)];
        let mut game = Game::new(GameType::all()[kind]);
        let mut list = MoveList::new();
        for _ in 0..plies {
            for w in &weights {
                check(&game, w);
            }
            if game.state().is_over() {
                break;
            }
            game.generate_moves(&mut list);
            let m = list[rng.gen_range(0..list.len())];
            game.play_unchecked(m);
        }
    }
}

#[test]
fn bench_positions_and_their_successors_match_the_reference() {
    let text = include_str!("../engine-tests/bench/positions.txt");
    let w = EvalWeights::default();
    let mut list = MoveList::new();
    let mut replies = MoveList::new();
    let mut checked = 0;
    for line in text
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
    {
        let mut game = parse_game_string(line, true).expect("bench position loads");
        check(&game, &w);
        game.generate_moves(&mut list);
        for &m in list.iter() {
            game.play_unchecked(m);
            check(&game, &w);
            // A sample of the replies keeps the test fast.
            game.generate_moves(&mut replies);
            for &r in replies.iter().step_by(7) {
                game.play_unchecked(r);
                check(&game, &w);
                game.undo();
                checked += 1;
            }
            game.undo();
        }
    }
    assert!(checked > 1000, "only {checked} positions checked");
}
