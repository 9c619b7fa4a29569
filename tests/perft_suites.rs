//! Perft against data produced by other engines: start positions of all eight game types
//! (Mzinga's suite) and mid-game positions agreed by two independent engines.

mod common;

use common::read_rows;
use waggle::core::perft::perft;
use waggle::notation::parse_game_string;

const START_FILES: [&str; 8] = [
    "Base", "BaseM", "BaseL", "BaseP", "BaseML", "BaseMP", "BaseLP", "BaseMLP",
];

/// Checks every row of the data files `files` whose depth is in `depths`; returns how many.
fn check(files: &[String], depths: std::ops::RangeInclusive<u32>) -> usize {
    let mut checked = 0;
    for file in files {
        for row in read_rows(file) {
            let depth: u32 = row.fields[1].parse().expect("depth");
            if !depths.contains(&depth) {
                continue;
            }
            let expected: u64 = row.fields[2].parse().expect("count");
            let mut game = parse_game_string(&row.fields[0], true).expect("game string");
            assert_eq!(
                perft(&mut game, depth),
                expected,
                "{} depth {depth}",
                row.fields[0]
            );
            checked += 1;
        }
    }
    checked
}

fn check_start_positions(depths: std::ops::RangeInclusive<u32>) -> usize {
    let files: Vec<String> = START_FILES
        .iter()
        .map(|name| format!("mzinga/Board_{name}_PerftTest.csv"))
        .collect();
    check(&files, depths)
}

fn check_positions(depths: std::ops::RangeInclusive<u32>) -> usize {
    check(&["perft-positions.tsv".to_string()], depths)
}

#[test]
fn start_positions_through_depth_5() {
    assert_eq!(check_start_positions(0..=5), 8 * 6);
}

#[test]
#[ignore = "slow: run with --release -- --ignored"]
fn start_positions_depth_6_and_7() {
    assert_eq!(check_start_positions(6..=7), 8 * 2);
}

#[test]
fn midgame_positions_through_depth_3() {
    assert_eq!(check_positions(1..=3), 40 * 3);
}

#[test]
#[ignore = "slow: run with --release -- --ignored"]
fn midgame_positions_depth_4() {
    assert_eq!(check_positions(4..=4), 40);
}
