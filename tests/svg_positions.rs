//! `waggle svg`: the picture of each of the 40 perft positions has one hexagon per occupied
//! cell, placed as the cells lie, each showing its top piece and stack height.

use std::collections::{BTreeMap, BTreeSet};
use waggle::core::{Cell, Piece};
use waggle::notation::parse_game_string;
use waggle::svg::render;

const POSITIONS: &str = include_str!("../engine-tests/data/perft-positions.tsv");

/// The value of attribute `name` in an element's text.
fn attribute<'a>(element: &'a str, name: &str) -> &'a str {
    let start = element
        .find(&format!(" {name}=\""))
        .unwrap_or_else(|| panic!("no {name} in {element}"))
        + name.len()
        + 3;
    let len = element[start..].find('"').unwrap();
    &element[start..start + len]
}

/// The cell groups of a picture: (q, r) -> (top piece, height, polygons in the group).
fn cells_drawn(svg: &str) -> BTreeMap<(i32, i32), (String, u32, usize)> {
    let mut out = BTreeMap::new();
    for part in svg.split("<g class=\"cell\"").skip(1) {
        let group = &part[..part.find("</g>").unwrap()];
        let open = &group[..group.find('>').unwrap()];
        let q: i32 = attribute(open, "data-q").parse().unwrap();
        let r: i32 = attribute(open, "data-r").parse().unwrap();
        let top = attribute(open, "data-top").to_string();
        let height: u32 = attribute(open, "data-height").parse().unwrap();
        let polygons = group.matches("<polygon").count();
        assert!(out.insert((q, r), (top, height, polygons)).is_none());
    }
    out
}

#[test]
fn every_perft_position_is_drawn_with_one_hexagon_per_occupied_cell() {
    let games: BTreeSet<&str> = POSITIONS
        .lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
        .map(|l| l.split('\t').next().unwrap())
        .collect();
    assert_eq!(games.len(), 40);
    let mut stacks = 0;
    for text in games {
        let game = parse_game_string(text, true).unwrap();
        let board = game.board();
        let occupied: BTreeSet<Cell> = Piece::all().filter_map(|p| board.position(p)).collect();
        let svg = render(&game);
        assert!(svg.starts_with("<svg ") && svg.trim_end().ends_with("</svg>"));
        let drawn = cells_drawn(&svg);
        assert_eq!(drawn.len(), occupied.len(), "{text}");
        // Place the drawing on the board through one cell, then check every other one.
        let anchor = *occupied.first().unwrap();
        let anchor_top = board.top(anchor).unwrap().to_string();
        let (&(q0, r0), _) = drawn
            .iter()
            .find(|(_, (top, _, _))| *top == anchor_top)
            .unwrap();
        for &cell in &occupied {
            let (dq, dr) = cell.relative_to(anchor);
            let (top, height, polygons) = drawn
                .get(&(q0 + dq, r0 + dr))
                .unwrap_or_else(|| panic!("{text}: no hexagon at {cell:?}"));
            assert_eq!(*top, board.top(cell).unwrap().to_string(), "{text}");
            assert_eq!(*height, board.height(cell), "{text}");
            assert_eq!(*polygons, 1, "{text}: one hexagon per cell");
            stacks += usize::from(*height > 1);
        }
        // Outside the cells: only the last move's outline and its starting cell.
        let outside = svg.matches("<polygon").count() - occupied.len();
        assert!(outside <= 2, "{text}");
        assert!(svg.contains("class=\"last-move\""), "{text}");
    }
    assert!(stacks > 0, "the positions have stacks");
}

#[test]
fn the_svg_command_writes_a_file() {
    let dir = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join("svg-command");
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("x.svg");
    let status = std::process::Command::new(env!("CARGO_BIN_EXE_waggle"))
        .args(["svg", "--game", "Base;InProgress;Black[1];wS1", "--out"])
        .arg(&path)
        .status()
        .unwrap();
    assert!(status.success());
    let svg = std::fs::read_to_string(&path).unwrap();
    assert_eq!(cells_drawn(&svg).len(), 1);
    assert!(svg.contains("data-top=\"wS1\""));
}
