//! Host-shaped sessions with the built binary over real pipes: MzingaViewer (with SIGINT to
//! cancel), hivegame.com's web bot (fresh process, stdin closed at once), and start-up latency.

mod common;
mod uhp_support;

use std::thread;
use std::time::{Duration, Instant};
use uhp_support::{Engine, PROMPT, is_legal};

/// Reads the unprompted info reply, as every host does first.
fn expect_greeting(engine: &Engine) -> Instant {
    let (lines, at) = engine.reply(PROMPT);
    assert_eq!(
        lines,
        [
            format!("id waggle {}", env!("CARGO_PKG_VERSION")),
            "Mosquito;Ladybug;Pillbug".to_string(),
            "ok".to_string()
        ]
    );
    at
}

/// `validmoves` as MzingaViewer sends it after every change; the moves of the reply.
fn valid_moves(engine: &mut Engine) -> Vec<String> {
    let reply = engine.ask("validmoves");
    assert_eq!(reply.len(), 1, "validmoves: {reply:?}");
    assert!(!reply[0].starts_with("err"), "validmoves: {reply:?}");
    reply[0].split(';').map(str::to_string).collect()
}

/// The GameString reply of a game-changing command.
fn game_string(engine: &mut Engine, command: &str) -> String {
    let reply = engine.ask(command);
    assert_eq!(reply.len(), 1, "{command}: {reply:?}");
    assert!(reply[0].starts_with("Base"), "{command}: {reply:?}");
    reply[0].clone()
}

/// Sends a long `bestmove`/`perft`, interrupts it with SIGINT after `after` and returns the
/// reply lines (without `ok`) and how long after the signal the `ok` came.
fn interrupt_after(engine: &mut Engine, command: &str, after: Duration) -> (Vec<String>, Duration) {
    engine.send(command);
    thread::sleep(after);
    let signalled = Instant::now();
    engine.interrupt();
    let (mut lines, ok_at) = engine.reply(PROMPT);
    lines.pop();
    (lines, ok_at.saturating_duration_since(signalled))
}

#[test]
fn mzinga_viewer_session() {
    let mut engine = Engine::spawn();
    expect_greeting(&engine);
    // The Options dialog reads every option and writes them back unchanged.
    let options = engine.ask("options");
    assert!(options.len() >= 5, "{options:?}");
    for line in &options {
        let fields: Vec<&str> = line.split(';').collect();
        assert!(fields.len() >= 4, "{line}");
        let back = engine.ask(&format!("options set {} {}", fields[0], fields[2]));
        assert_eq!(back, std::slice::from_ref(line));
    }
    assert_eq!(
        engine.ask("options set ReportIntermediateBestMoves True"),
        ["ReportIntermediateBestMoves;bool;True;False"]
    );

    let mut game = game_string(&mut engine, "newgame Base+MLP");
    let mut history = vec![game.clone()];
    let mut moves = valid_moves(&mut engine);
    for i in 0..8 {
        // Human moves: pick a valid move, play it, then validmoves as the viewer does.
        let m = moves[(i * 7) % moves.len()].clone();
        assert!(is_legal(&game, &m), "{game} {m}");
        game = game_string(&mut engine, &format!("play {m}"));
        history.push(game.clone());
        moves = valid_moves(&mut engine);
    }
    // The engine's turn at the viewer's default depth: every line is a provisional move
    // (first field) and the last one is the answer.
    let reply = engine.ask("bestmove depth 2");
    assert!(!reply.is_empty());
    for line in &reply {
        let m = line.split(';').next().unwrap_or("");
        assert!(is_legal(&game, m), "{game}: '{line}'");
    }
    let last = reply.last().cloned().unwrap_or_default();
    assert!(
        !last.contains(';'),
        "the final line is the move alone: {last}"
    );

    // A long search cancelled with SIGINT answers with a legal move within 500 ms.
    let (reply, latency) = interrupt_after(
        &mut engine,
        "bestmove time 00:00:30",
        Duration::from_millis(300),
    );
    let chosen = reply.last().cloned().unwrap_or_default();
    assert!(is_legal(&game, &chosen), "{game}: {reply:?}");
    assert!(
        latency < Duration::from_millis(500),
        "answered {latency:?} after SIGINT"
    );

    // The engine keeps answering: play the move, then the viewer's human-vs-engine undo.
    let after = game_string(&mut engine, &format!("play {chosen}"));
    assert_ne!(after, game);
    valid_moves(&mut engine);
    let moves_of = |gs: &str| {
        gs.split(';')
            .skip(3)
            .map(str::to_string)
            .collect::<Vec<_>>()
    };
    let (before, now) = (moves_of(&game), moves_of(&after));
    assert_eq!(now.len(), before.len() + 1, "{after}");
    assert_eq!(now[..before.len()], before[..], "{after} extends {game}");
    let undone = game_string(&mut engine, "undo 2");
    assert_eq!(undone, history[history.len() - 2]);
    valid_moves(&mut engine);
    engine.send("exit");
    assert_eq!(engine.reply(PROMPT).0, ["ok"]);
    let (status, _) = engine
        .wait_exit(Duration::from_secs(3))
        .expect("the engine did not exit within 3 s of 'exit'");
    assert!(status.success(), "{status}");
}

#[test]
fn sigint_stops_a_perft_and_is_harmless_while_idle() {
    let mut engine = Engine::spawn();
    expect_greeting(&engine);
    // SIGINT while idle: nothing happens, the engine still answers.
    engine.interrupt();
    thread::sleep(Duration::from_millis(100));
    game_string(
        &mut engine,
        "newgame Base+MLP;InProgress;;wS1;bG1 -wS1;wQ wS1/;bQ -bG1;wA1 wQ\\;bA1 \\bQ",
    );
    engine.interrupt();
    thread::sleep(Duration::from_millis(100));
    let before = valid_moves(&mut engine);
    // perft 12 would run for days; SIGINT cuts it short and keeps the finished depths.
    let (lines, latency) = interrupt_after(&mut engine, "perft 12", Duration::from_millis(500));
    assert!(
        latency < Duration::from_millis(500),
        "answered {latency:?} after SIGINT"
    );
    assert!(lines.len() < 12, "{lines:?}");
    for (i, line) in lines.iter().enumerate() {
        assert!(line.starts_with(&format!("{} ", i + 1)), "{line}");
    }
    // The position is untouched and the engine keeps working.
    assert_eq!(valid_moves(&mut engine), before);
    engine.close_stdin();
    let (status, _) = engine
        .wait_exit(Duration::from_secs(5))
        .expect("no exit at end of input");
    assert!(status.success(), "{status}");
}

/// GameStrings as hivegame.com's bot client sends them: the turn field emptied.
fn web_positions() -> Vec<String> {
    let mut out = vec!["Base+MLP;InProgress;;wS1;bG1 -wS1".to_string()];
    let positions = common::perft_positions();
    let mut seen_types = Vec::new();
    for gs in &positions {
        let fields: Vec<&str> = gs.split(';').collect();
        if fields.len() < 4 || seen_types.contains(&fields[0]) {
            continue;
        }
        seen_types.push(fields[0]);
        let mut emptied = fields.clone();
        emptied[2] = "";
        out.push(emptied.join(";"));
    }
    assert_eq!(out.len(), 9, "one position per game type plus the issue's");
    out
}

#[test]
fn web_bot_sessions() {
    for gs in web_positions() {
        let mut engine = Engine::spawn();
        // Both lines at once without waiting, then stdin closed, exactly like the bot client.
        engine.write(format!("newgame {gs}\nbestmove depth 2\n").as_bytes());
        engine.close_stdin();
        let mut oks = 0;
        let mut answer = None;
        let mut lines = Vec::new();
        while let Some((line, at)) = engine.line(PROMPT) {
            lines.push(line.clone());
            if oks == 2 && answer.is_none() {
                answer = Some((line.clone(), at));
            }
            if line == "ok" {
                oks += 1;
            }
        }
        assert_eq!(oks, 3, "{gs}: {lines:?}");
        let (m, answered) = answer.unwrap_or_else(|| panic!("{gs}: no answer in {lines:?}"));
        let loaded = &lines[3];
        assert!(is_legal(loaded, &m), "{gs}: '{m}' is not legal");
        let (status, exited) = engine
            .wait_exit(Duration::from_secs(10))
            .unwrap_or_else(|| panic!("{gs}: the engine did not exit"));
        assert!(status.success(), "{gs}: {status}");
        let lag = exited.saturating_duration_since(answered);
        assert!(
            lag < Duration::from_secs(1),
            "{gs}: exited {lag:?} after answering"
        );
    }
}

#[test]
fn info_is_printed_within_50_ms_of_launch() {
    // Best of five launches, so that a busy shared machine does not make the test flaky; the
    // median is printed for the record.
    let mut times: Vec<Duration> = (0..5)
        .map(|_| {
            let mut engine = Engine::spawn();
            let at = expect_greeting(&engine);
            engine.close_stdin();
            let _ = engine.wait_exit(Duration::from_secs(5));
            at.saturating_duration_since(engine.started)
        })
        .collect();
    times.sort();
    eprintln!("launch to info: best {:?}, median {:?}", times[0], times[2]);
    assert!(
        times[0] < Duration::from_millis(50),
        "info took {times:?} after launch"
    );
}

#[test]
fn end_of_input_exits_promptly_with_status_zero() {
    let mut engine = Engine::spawn();
    expect_greeting(&engine);
    game_string(&mut engine, "newgame Base");
    let closed = Instant::now();
    engine.close_stdin();
    let (status, exited) = engine
        .wait_exit(Duration::from_secs(5))
        .expect("no exit at end of input");
    assert!(status.success(), "{status}");
    let lag = exited.saturating_duration_since(closed);
    assert!(
        lag < Duration::from_secs(1),
        "exited {lag:?} after end of input"
    );
}
