//! Move strings are spelled as the reference engine spells them: for 205 positions of all eight
//! game types, waggle's `validmoves` reply is Mzinga's, string for string (as a set: UHP does not
//! fix the order), and every one of Mzinga's strings reads back as the move waggle means by it.

mod common;

use common::{ask, read_rows, server};
use std::collections::BTreeSet;
use waggle::notation::{format_move, game_string, parse_game_string, parse_move};

/// The rows of `engine-tests/data/mzinga-spelling/mzinga-validmoves.tsv`: GameString and
/// Mzinga's `validmoves` reply.
fn rows() -> Vec<(String, String)> {
    read_rows("mzinga-spelling/mzinga-validmoves.tsv")
        .into_iter()
        .map(|row| {
            assert_eq!(
                row.fields.len(),
                2,
                "two TAB-separated fields: {:?}",
                row.fields
            );
            (row.fields[0].clone(), row.fields[1].clone())
        })
        .collect()
}

fn set(reply: &str) -> BTreeSet<&str> {
    reply.split(';').collect()
}

#[test]
fn validmoves_are_spelled_as_mzinga_spells_them() {
    let rows = rows();
    assert_eq!(rows.len(), 205);
    let mut server = server();
    let mut differ = Vec::new();
    for (game, expected) in &rows {
        ask(&mut server, &format!("newgame {game}"));
        let reply = ask(&mut server, "validmoves");
        assert_eq!(reply.len(), 1, "{game}");
        let ours = set(&reply[0]);
        assert_eq!(
            ours.len(),
            reply[0].split(';').count(),
            "{game}: a move string printed twice"
        );
        let theirs = set(expected);
        if ours != theirs {
            differ.push(format!(
                "{game}\n  only waggle: {:?}\n  only Mzinga: {:?}",
                ours.difference(&theirs).collect::<Vec<_>>(),
                theirs.difference(&ours).collect::<Vec<_>>()
            ));
        }
    }
    assert!(
        differ.is_empty(),
        "{} of {} positions differ:\n{}",
        differ.len(),
        rows.len(),
        differ.join("\n")
    );
}

#[test]
fn mzinga_strings_read_back_and_our_game_strings_too() {
    for (text, expected) in rows() {
        let game = parse_game_string(&text, true).expect("GameString");
        let legal = game.legal_moves();
        // Our spelling of the game reads back as the same game.
        let again = parse_game_string(&game_string(&game), true).expect("our GameString");
        assert!(again.moves().eq(game.moves()), "{text}");
        for s in expected.split(';') {
            let m = parse_move(&game, s).unwrap_or_else(|e| panic!("{text}: {s}: {e}"));
            assert!(legal.contains(&m), "{text}: {s}");
            assert_eq!(format_move(&game, m), s, "{text}");
        }
    }
}
