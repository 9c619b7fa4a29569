//! The UHP server driven in memory: bestmove legality on many positions, the intermediate
//! report format, the stop flag, and reading raw input.

mod common;

use std::io::Cursor;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::thread;
use std::time::{Duration, Instant};
use waggle::notation::{game_string, parse_game_string, parse_move};
use waggle::uhp::{Flow, MAX_LINE_BYTES, Server};

use common::{ask, server};

/// The 40 mid-game positions of every game type in the shared test data.
fn positions() -> Vec<String> {
    let out = common::perft_positions();
    assert_eq!(out.len(), 40);
    out
}

/// Whether `line` is a legal move in `game_text`.
fn legal(game_text: &str, line: &str) -> bool {
    let game = parse_game_string(game_text, true).expect("GameString");
    parse_move(&game, line).is_ok_and(|m| game.legal_moves().contains(&m))
}

#[test]
fn bestmove_is_legal_everywhere_and_reports_follow_the_format() {
    let mut s = server();
    ask(&mut s, "options set ReportIntermediateBestMoves True");
    for gs in positions() {
        let loaded = ask(&mut s, &format!("newgame {gs}"));
        assert_eq!(loaded.len(), 1);
        let loaded = loaded[0].clone();
        for limit in ["depth 1", "time 00:00:00.02"] {
            let reply = ask(&mut s, &format!("bestmove {limit}"));
            let (last, reports) = reply.split_last().expect("a move");
            assert!(legal(&loaded, last), "{loaded}: {last}");
            for report in reports {
                // move;depth;score;pv... with the pv a legal sequence starting with the move.
                let fields: Vec<&str> = report.split(';').collect();
                assert!(fields.len() >= 4, "{report}");
                assert!(fields[1].parse::<u32>().is_ok_and(|d| d >= 1), "{report}");
                assert!(fields[2].parse::<i32>().is_ok(), "{report}");
                assert_eq!(fields[0], fields[3], "{report}");
                let mut game = parse_game_string(&loaded, true).expect("GameString");
                for pv_move in &fields[3..] {
                    let m = parse_move(&game, pv_move).expect("pv move parses");
                    assert!(game.legal_moves().contains(&m), "{report}");
                    game.play_unchecked(m);
                }
            }
            // bestmove does not play its move.
            assert_eq!(s.game().map(game_string).as_deref(), Some(loaded.as_str()));
        }
    }
}

#[test]
fn raising_the_stop_flag_answers_a_long_search_at_once() {
    let stop = Arc::new(AtomicBool::new(false));
    let mut s = Server::new(Vec::new(), Arc::clone(&stop));
    s.handle_line("newgame Base+MLP;InProgress;;wS1;bG1 -wS1;wQ wS1/;bQ -bG1")
        .unwrap();
    let raiser = {
        let stop = Arc::clone(&stop);
        thread::spawn(move || {
            thread::sleep(Duration::from_millis(300));
            stop.store(true, Ordering::SeqCst);
        })
    };
    let start = Instant::now();
    let before = s.output().len();
    s.handle_line("bestmove time 00:00:30").unwrap();
    let took = start.elapsed();
    raiser.join().unwrap();
    assert!(took < Duration::from_secs(5), "took {took:?}");
    let text = String::from_utf8(s.output()[before..].to_vec()).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.last(), Some(&"ok"));
    let gs = game_string(s.game().unwrap());
    assert!(legal(&gs, lines[lines.len() - 2]), "{text}");
}

#[test]
fn a_stop_raised_while_idle_does_not_cut_the_next_command_short() {
    let stop = Arc::new(AtomicBool::new(false));
    let mut s = Server::new(Vec::new(), Arc::clone(&stop));
    ask(&mut s, "newgame Base");
    stop.store(true, Ordering::SeqCst);
    let reply = ask(&mut s, "perft 3");
    assert_eq!(reply.len(), 3, "{reply:?}");
    assert!(reply[2].starts_with("3 1440 "), "{reply:?}");
}

#[test]
fn run_reads_raw_bytes_and_stops_at_exit_or_end_of_input() {
    let mut input = b"newgame Base\r\n\xff\xfeplay\nvalidmoves".to_vec();
    let mut s = server();
    s.run(Cursor::new(input.clone())).unwrap();
    let text = String::from_utf8(s.output().clone()).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    let id = format!("id waggle {}", env!("CARGO_PKG_VERSION"));
    assert_eq!(
        lines[..3],
        [id.as_str(), "Mosquito;Ladybug;Pillbug", "ok"][..]
    );
    assert_eq!(lines[3..5], ["Base;NotStarted;White[1]", "ok"][..]);
    assert!(lines[5].starts_with("err Invalid command '"), "{text}");
    assert_eq!(lines[7..], ["wS1;wB1;wG1;wA1", "ok"][..]);

    // A line longer than the limit is answered with err and skipped whole.
    input = b"newgame Base\nplay ".to_vec();
    input.extend(std::iter::repeat_n(b'x', MAX_LINE_BYTES + 10));
    input.extend(b"\nplay wS1\nexit\nplay wS2 wS1-\n");
    let mut s = server();
    s.run(Cursor::new(input)).unwrap();
    let text = String::from_utf8(s.output().clone()).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    assert!(
        lines[5].starts_with("err The command line is longer than"),
        "{}",
        lines[5]
    );
    assert_eq!(lines[7..], ["Base;InProgress;Black[1];wS1", "ok", "ok"][..]);
}

#[test]
fn handle_line_reports_exit() {
    let mut s = server();
    assert_eq!(s.handle_line("info").unwrap(), Flow::Continue);
    assert_eq!(s.handle_line("  EXIT ").unwrap(), Flow::Exit);
    assert_eq!(s.handle_line("exit now").unwrap(), Flow::Continue);
}

#[test]
fn a_failed_command_changes_nothing() {
    let mut s = server();
    let gs = "Base+MLP;InProgress;White[3];wS1;bG1 -wS1;wQ wS1/;bQ -bG1";
    assert_eq!(ask(&mut s, &format!("newgame {gs}")), [gs]);
    let options = s.option_lines();
    for bad in [
        "newgame Base+MLP;InProgress;;wS1;bG1 -wS1;wQ",
        "newgame Base+Z",
        "play wQ bQ-",
        "play bA1 -bQ",
        "pass",
        "undo 5",
        "undo 0",
        "bestmove depth 0",
        "options set MaxHelperThreads 100",
        "options set ThreefoldRepetitionDraw 2",
        "perft 0",
        "nonsense",
    ] {
        let reply = ask(&mut s, bad);
        assert_eq!(reply.len(), 1, "{bad}: {reply:?}");
        assert!(
            reply[0].starts_with("err ") || reply[0].starts_with("invalidmove "),
            "{bad}: {reply:?}"
        );
        assert_eq!(s.game().map(game_string).as_deref(), Some(gs), "{bad}");
        assert_eq!(s.option_lines(), options, "{bad}");
    }
}

#[test]
fn a_writer_that_fails_is_an_error_not_a_panic() {
    struct Broken;
    impl std::io::Write for Broken {
        fn write(&mut self, _: &[u8]) -> std::io::Result<usize> {
            Err(std::io::ErrorKind::BrokenPipe.into())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }
    let mut s = Server::new(Broken, Arc::new(AtomicBool::new(false)));
    assert!(s.handle_line("info").is_err());
    assert!(s.run(Cursor::new(b"info\n".to_vec())).is_err());
}
