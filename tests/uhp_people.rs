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

/// Closes the engine's input and checks that it exits with status 0 within 5 s.
fn expect_clean_exit(engine: &mut Engine) {
    engine.close_stdin();
    let (status, _) = engine
        .wait_exit(Duration::from_secs(5))
        .expect("no exit at end of input");
    assert!(status.success(), "{status}");
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
    expect_clean_exit(&mut engine);
}

/// Sends `commands` round and round, `rounds` in all, each after a pause of 0 to 4 ms (long
/// enough for a pondering engine to be searching again), and returns every reply (without its
/// `ok`).
fn replies(engine: &mut Engine, commands: &[String], rounds: usize) -> Vec<Vec<String>> {
    (0..rounds)
        .map(|i| {
            thread::sleep(Duration::from_micros((i as u64 * 1_237) % 4_000));
            let command = &commands[i % commands.len()];
            engine.send(command);
            let (mut lines, _) = engine.reply(PROMPT);
            assert_eq!(lines.pop().as_deref(), Some("ok"), "{command}");
            assert!(
                !lines.iter().any(|l| l.starts_with("err")),
                "{command}: {lines:?}"
            );
            lines
        })
        .collect()
}

/// Pondering changes no reply: the same commands, sent while the engine would be pondering,
/// get the same answers in every `PonderDuringIdle` mode. (How quickly they come is measured
/// with `uhp-latency`, not here: timings on a shared machine are no test.)
#[test]
fn pondering_changes_no_reply() {
    let mut answers = Vec::new();
    for ponder in ["Disabled", "SingleThreaded", "MultiThreaded"] {
        let option = format!("PonderDuringIdle={ponder}");
        let (mut engine, _) = engine_with_game(&["--option", &option]);
        let before = engine.ask("validmoves");
        let first_move = before[0].split(';').next().unwrap_or_default().to_string();
        // Commands that read the game, change it (a new position to ponder) and take it back.
        let commands: Vec<String> = [
            "validmoves",
            "board",
            &format!("play {first_move}"),
            "validmoves",
            "undo",
            "options get MultiPV",
            "eval",
            "info",
        ]
        .iter()
        .map(|c| c.to_string())
        .collect();
        // Forty times round, so that every play is taken back.
        let replies = replies(&mut engine, &commands, 40 * commands.len());
        // Every play was taken back: the game is where it started.
        assert_eq!(engine.ask("validmoves"), before);
        expect_clean_exit(&mut engine);
        answers.push((ponder, replies));
    }
    let (_, idle) = &answers[0];
    for (ponder, replies) in &answers[1..] {
        for (i, (got, want)) in replies.iter().zip(idle).enumerate() {
            assert_eq!(got, want, "{ponder}, command {i}");
        }
    }
}

#[test]
fn a_pondering_engine_prints_nothing_unprompted_and_ignores_sigint() {
    let (mut engine, _) = engine_with_game(&["--option", "PonderDuringIdle=SingleThreaded"]);
    thread::sleep(Duration::from_millis(300));
    engine.interrupt();
    thread::sleep(Duration::from_millis(300));
    let unprompted = engine.line(Duration::from_millis(100));
    assert!(unprompted.is_none(), "printed unprompted: {unprompted:?}");
    // Still pondering the same game, still answering.
    let moves = engine.ask("validmoves");
    assert_eq!(moves.len(), 1, "{moves:?}");
    assert!(!moves[0].starts_with("err"), "{moves:?}");
    let reply = engine.ask("bestmove depth 3");
    assert_eq!(reply.len(), 1, "{reply:?}");
    expect_clean_exit(&mut engine);
}
