//! uhp-diff over real processes: a correct engine agrees, a broken one is caught.

mod common;

use common::{run, test_engine, waggle_binary};

/// Runs uhp-diff: `sub` (a subcommand or nothing), `-e engine`, `rest` split on white space,
/// and `--game g` for each of `games`; returns the exit code, stdout and stderr.
fn diff(sub: &str, engine: &str, rest: &str, games: &[&str]) -> (i32, String, String) {
    let mut args: Vec<&str> = sub.split_whitespace().collect();
    args.extend(["-e", engine]);
    args.extend(rest.split_whitespace());
    for g in games {
        args.extend(["--game", g]);
    }
    let out = run(env!("CARGO_BIN_EXE_uhp-diff"), &args);
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// The mid-game perft positions, in `engine-tests/data/` of the project root.
const POSITIONS: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../engine-tests/data/perft-positions.tsv"
);

#[test]
fn a_correct_engine_shows_no_difference_on_random_games_of_every_type() {
    let rest = "--games 16 --plies 50 --game-types all";
    let (code, stdout, stderr) = diff("", test_engine(), rest, &[]);
    assert_eq!(code, 0, "{stdout}\n{stderr}");
    assert!(stdout.contains("16 items"), "{stdout}");
    assert!(stdout.contains(" 0 differences"), "{stdout}");
}

#[test]
fn a_fake_engine_with_one_missing_move_is_caught() {
    let engine = format!("{} --mode missing-move", test_engine());
    let (code, stdout, _) = diff("", &engine, "--games 3 --plies 10", &[]);
    assert_eq!(code, 1, "{stdout}");
    // Every position with two or more moves lacks one; each is printed with its GameString.
    let first = stdout.lines().next().unwrap();
    assert!(
        first.starts_with("DIFF game 0 ply 0: missing 1 of waggle's"),
        "{stdout}"
    );
    assert!(stdout.contains("  at Base;NotStarted;White[1]"), "{stdout}");
    assert!(stdout.contains(" 30 differences"), "{stdout}");
}

#[test]
fn perft_counts_agree_through_the_extension_and_through_validmoves() {
    let rest = format!("--positions {POSITIONS} --depth 1 --method extension");
    let (code, stdout, stderr) = diff("perft", test_engine(), &rest, &[]);
    assert_eq!(code, 0, "{stdout}\n{stderr}");
    assert!(stdout.contains("160 items"), "{stdout}");
    assert!(stdout.contains(" 0 differences"), "{stdout}");
    let games = [
        "Base+MLP;InProgress;White[3];wS1;bG1 -wS1;wQ wS1/;bQ /bG1",
        "Base+P",
    ];
    let rest = "--method validmoves --depth 2";
    let (code, stdout, stderr) = diff("perft", test_engine(), rest, &games);
    assert_eq!(code, 0, "{stdout}\n{stderr}");
    assert!(stderr.contains("position 1: depth 2 waggle"), "{stderr}");
}

#[test]
fn perft_through_validmoves_catches_a_missing_move() {
    let engine = format!("{} --mode missing-move", test_engine());
    // The engine's perft extension counts right, so only the walk sees its lists.
    let (code, stdout, stderr) = diff("perft", &engine, "--depth 2", &["Base+M"]);
    assert_eq!(code, 0, "{stdout}");
    assert!(!stderr.contains("counting through validmoves"), "{stderr}");
    let rest = "--method validmoves --depth 2";
    let (code, stdout, _) = diff("perft", &engine, rest, &["Base+M"]);
    assert_eq!(code, 1, "{stdout}");
    assert!(stdout.contains("perft(2) waggle"), "{stdout}");
    assert!(stdout.contains("missing 1 of waggle's"), "{stdout}");
}

#[test]
fn auto_perft_walks_the_protocol_when_the_engine_has_no_perft() {
    let engine = format!("{} --no-perft", test_engine());
    let (code, stdout, stderr) = diff("perft", &engine, "--depth 2", &["Base+L"]);
    assert_eq!(code, 0, "{stdout}\n{stderr}");
    assert!(stderr.contains("counting through validmoves"), "{stderr}");
    let (code, _, stderr) = diff("perft", &engine, "--depth 2 --method extension", &["Base"]);
    assert_eq!(code, 2, "{stderr}");
    assert!(stderr.contains("cannot read its perft reply"), "{stderr}");
}

#[test]
fn an_engine_that_cannot_start_is_an_error() {
    let (code, _, stderr) = diff("", "/nonexistent/engine", "--games 1", &[]);
    assert_eq!(code, 2, "{stderr}");
    assert!(stderr.contains("could not start"), "{stderr}");
}

#[test]
fn waggle_agrees_with_its_own_rules_on_100_random_games() {
    let waggle = waggle_binary();
    let rest = "--games 100 --plies 80 --game-types all";
    let (code, stdout, stderr) = diff("", &waggle.display().to_string(), rest, &[]);
    assert_eq!(code, 0, "{stdout}\n{stderr}");
    assert!(stdout.contains("100 items"), "{stdout}");
    assert!(stdout.contains(" 0 differences"), "{stdout}");
}

#[test]
fn other_spellings_and_shuffled_lists_show_no_difference() {
    let engine = format!("{} --quirky", test_engine());
    let (code, stdout, stderr) = diff("", &engine, "--games 6 --plies 40 --game-types all", &[]);
    assert_eq!(code, 0, "{stdout}\n{stderr}");
    assert!(stdout.contains(" 0 differences"), "{stdout}");
}
