//! The commands and options for people, over real pipes: `analyse` with its time limit and
//! SIGINT.

mod uhp_support;

use std::thread;
use std::time::{Duration, Instant};
use uhp_support::{Engine, PROMPT, is_legal};

/// A Base+MLP middle game with plenty to think about.
const MIDDLE_GAME: &str = "Base+MLP;InProgress;;wS1;bG1 -wS1;wQ wS1/;bQ -bG1;wA1 wQ\\;bA1 \\bQ";

/// Starts an engine, reads its greeting and loads [`MIDDLE_GAME`]; the GameString.
fn engine_with_game(args: &[&str]) -> (Engine, String) {
    let mut engine = Engine::spawn_with(args);
    let (greeting, _) = engine.reply(PROMPT);
    assert_eq!(greeting.last().map(String::as_str), Some("ok"));
    let reply = engine.ask(&format!("newgame {MIDDLE_GAME}"));
    assert_eq!(reply.len(), 1, "{reply:?}");
    let game = reply[0].clone();
    (engine, game)
}

/// Checks an `analyse` reply (without its `ok`): readable lines, then the move alone.
fn check_analysis(game: &str, lines: &[String], ranks: usize) {
    let (answer, reports) = lines.split_last().expect("an answer");
    assert!(is_legal(game, answer), "{game}: {answer}");
    for line in reports {
        assert!(line.starts_with("depth "), "{line}");
        for field in [" line ", " score ", " nodes ", " nps ", " time ", " pv "] {
            assert!(line.contains(field), "{field} missing in {line}");
        }
    }
    if let Some(first) = reports.first() {
        assert!(first.starts_with("depth 1 line 1 "), "{first}");
    }
    assert!(
        reports.len() % ranks == 0,
        "{} report lines for {ranks} ranks",
        reports.len()
    );
}

#[test]
fn analyse_obeys_its_time_limit() {
    let (mut engine, game) = engine_with_game(&[]);
    for (limit, ms) in [("00:00:00.3", 300), ("00:00:01", 1000)] {
        let sent = Instant::now();
        engine.send(&format!("analyse time {limit} lines 2"));
        let (mut lines, ok_at) = engine.reply(PROMPT);
        let took = ok_at.saturating_duration_since(sent);
        assert_eq!(lines.pop().as_deref(), Some("ok"));
        check_analysis(&game, &lines, 2);
        assert!(
            took <= Duration::from_millis(ms + 50),
            "analyse time {limit} answered after {took:?}"
        );
    }
}

#[test]
fn sigint_ends_an_analysis_without_limit() {
    let (mut engine, game) = engine_with_game(&[]);
    engine.send("analyse lines 3");
    thread::sleep(Duration::from_millis(700));
    let signalled = Instant::now();
    engine.interrupt();
    let (mut lines, ok_at) = engine.reply(PROMPT);
    let latency = ok_at.saturating_duration_since(signalled);
    assert_eq!(lines.pop().as_deref(), Some("ok"));
    check_analysis(&game, &lines, 3);
    assert!(
        lines.len() > 3,
        "no completed iteration in 700 ms: {lines:?}"
    );
    assert!(
        latency < Duration::from_millis(50),
        "answered {latency:?} after SIGINT"
    );
    // The engine keeps working, and SIGINT while idle changes nothing.
    engine.interrupt();
    thread::sleep(Duration::from_millis(50));
    let moves = engine.ask("validmoves");
    assert_eq!(moves.len(), 1, "{moves:?}");
    engine.close_stdin();
    let (status, _) = engine
        .wait_exit(Duration::from_secs(5))
        .expect("no exit at end of input");
    assert!(status.success(), "{status}");
}
