//! Mzinga's move lists: moves that must be legal, and moves that each break a named rule.

mod common;

use common::read_rows;
use waggle::core::RuleError;
use waggle::notation::{NotationError, parse_game_string, parse_move};

#[test]
fn listed_moves_are_legal() {
    let mut checked = 0;
    for bug in [
        "Beetle",
        "Grasshopper",
        "Ladybug",
        "Mosquito",
        "Pillbug",
        "QueenBee",
        "SoldierAnt",
        "Spider",
    ] {
        for row in read_rows(&format!("mzinga/Board_ValidMovesFor{bug}Test.csv")) {
            let game = parse_game_string(&row.fields[0], true).expect("game string");
            for text in row.fields[1].split(';') {
                let m = parse_move(&game, text).expect("move parses");
                let mut g = game.clone();
                assert!(
                    g.play(m).is_ok(),
                    "{text} should be legal in {}",
                    row.fields[0]
                );
                checked += 1;
            }
        }
    }
    assert!(checked >= 30, "only {checked} moves checked");
}

/// Which error a Mzinga comment line names.
fn rule_matches(group: &str, err: &Result<(), RuleError>, parse: &Option<NotationError>) -> bool {
    use RuleError::*;
    if let Some(p) = parse {
        // Mzinga reads `-bQ` as the ground cell west of bQ: naming an occupied cell with a side
        // mark is the "already exists at that position" rule, caught while parsing.
        return group.contains("already exists at that position")
            && matches!(p, NotationError::SideOfOccupied(_));
    }
    let e = match err {
        Ok(()) => return false,
        Err(e) => *e,
    };
    match group {
        g if g.contains("game is over") => e == GameOver,
        g if g.contains("not that player's turn") => matches!(e, NotYourTurn(_)),
        g if g.contains("not enabled") => matches!(e, PieceNotEnabled(_)),
        g if g.contains("Queen Bee on your first turn") => e == QueenOnFirstTurn,
        g if g.contains("on or before your fourth turn") => e == QueenByFourthTurn,
        g if g.contains("until you've played your Queen Bee") => matches!(e, QueenNotPlaced(_)),
        g if g.contains("pieces in order") => matches!(e, OutOfOrder(_)),
        g if g.contains("already exists at that position") => {
            matches!(e, DestinationOccupied(_))
        }
        g if g.contains("another piece on top") => matches!(e, Covered(_)),
        g if g.contains("break the hive") => matches!(e, BreaksHive(_)),
        g if g.contains("pass, the game is over") => e == GameOver,
        g if g.contains("pass when you have valid moves") => e == PassWithMoves,
        _ => panic!("unknown rule group '{group}' (parse error {parse:?})"),
    }
}

#[test]
fn forbidden_moves_name_the_broken_rule() {
    let rows = read_rows("mzinga/Board_InvalidMovesByRuleTest.csv");
    assert!(rows.len() >= 20);
    for row in rows {
        // The listed state field may be a finished game: replaying must reach it.
        let mut game = parse_game_string(&row.fields[0], true).expect("game string");
        let before = waggle::notation::game_string(&game);
        let (result, parse) = match parse_move(&game, &row.fields[1]) {
            Ok(m) => (game.play(m), None),
            Err(e) => (Ok(()), Some(e)),
        };
        assert!(
            rule_matches(&row.group, &result, &parse),
            "'{}' in {}: expected '{}', got {result:?}",
            row.fields[1],
            row.fields[0],
            row.group
        );
        assert_eq!(waggle::notation::game_string(&game), before);
    }
}
