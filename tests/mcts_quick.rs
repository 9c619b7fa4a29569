mod common;
use common::read_rows;
use std::sync::atomic::AtomicBool;
use waggle::core::Game;
use waggle::notation::{format_move, parse_game_string, parse_move};
use waggle::search::Limits;
use waggle::search::mcts::{MctsParams, search};

fn simple_eval(g: &Game) -> i32 {
    let me = g.side_to_move();
    (g.queen_pressure(me.opponent()) as i32 - g.queen_pressure(me) as i32) * 100
}

#[test]
fn puzzles() {
    let stop = AtomicBool::new(false);
    let mut ok = 0;
    let mut total = 0;
    for file in [
        "mzinga/PuzzleCandidate_IsOneBestMoveToForceWinPuzzleTest.csv",
        "mzinga/GameAI_BlockWinningMoveIsBestMoveTest.csv",
    ] {
        for row in read_rows(file) {
            let game = parse_game_string(&row.fields[0], false).unwrap();
            let want = parse_move(&game, &row.fields[2]).unwrap();
            let t = std::time::Instant::now();
            let got = search(
                &game,
                &Limits {
                    depth: Some(20),
                    time: None,
                },
                &stop,
                1,
                64,
                MctsParams::default(),
                &simple_eval,
                &mut |_| {},
            );
            total += 1;
            if got == want {
                ok += 1;
            } else {
                println!("MISS");
            }
            println!(
                "{} depth {} want {} got {} {:?}",
                file.len(),
                row.fields[1],
                row.fields[2],
                format_move(&game, got),
                t.elapsed()
            );
        }
    }
    println!("{ok}/{total}");
}
