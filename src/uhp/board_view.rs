//! The `board` extension: a text diagram of the hive for people analysing by hand.
//!
//! Cells are drawn on a hex grid in "doubled" coordinates: a row per axial `r` (north at the
//! top), neighbours in a row six characters apart and each row shifted by half a cell, so the
//! six UHP directions look as they read (`wS1-` is to the right, `wS1/` up and to the right).
//! Each occupied cell shows its top piece, with `+` when other pieces lie beneath; a `.` is an
//! empty cell around the hive.

use crate::core::{Cell, Color, Game, Piece};

/// Characters per half cell: a cell is two half cells wide.
const HALF: usize = 3;

/// The diagram, one line per element (no line is empty).
pub(crate) fn render(game: &Game) -> Vec<String> {
    let mut lines = vec![header(game)];
    let board = game.board();
    let mut cells: Vec<Cell> = Piece::all().filter_map(|p| board.position(p)).collect();
    cells.sort();
    cells.dedup();
    match cells.first() {
        None => lines.push("  (the board is empty)".to_string()),
        Some(&origin) => {
            let (oq, or) = origin.relative_to(Cell::ORIGIN);
            // Doubled coordinates (x = 2q + r, row = r) relative to `origin`; correct for any
            // cells of one hive, however far it has drifted on the wrapping grid.
            let spots: Vec<(i32, i32)> = cells
                .iter()
                .map(|c| {
                    let (q, r) = c.relative_to(origin);
                    (2 * q + r, r)
                })
                .collect();
            let xmin = spots.iter().map(|s| s.0).min().unwrap_or(0) - 2;
            let xmax = spots.iter().map(|s| s.0).max().unwrap_or(0) + 2;
            let rmin = spots.iter().map(|s| s.1).min().unwrap_or(0) - 1;
            let rmax = spots.iter().map(|s| s.1).max().unwrap_or(0) + 1;
            lines.push("  ('+' marks a stack, '.' an empty cell)".to_string());
            let mut stacks = Vec::new();
            for r in rmin..=rmax {
                let mut row = String::from("  ");
                for x in (xmin..=xmax).filter(|x| (x - r).rem_euclid(2) == 0) {
                    let cell = Cell::from_axial(oq + (x - r) / 2, or + r);
                    let column = 2 + HALF * (x - xmin) as usize;
                    let token = match board.top(cell) {
                        Some(top) if board.height(cell) > 1 => {
                            stacks.push(cell);
                            format!("{top}+")
                        }
                        Some(top) => top.to_string(),
                        None => " .".to_string(),
                    };
                    while row.len() < column {
                        row.push(' ');
                    }
                    row.push_str(&token);
                }
                lines.push(row.trim_end().to_string());
            }
            for cell in stacks {
                let names: Vec<String> = board.stack(cell).iter().map(Piece::to_string).collect();
                lines.push(format!("Stack (bottom to top): {}", names.join(" ")));
            }
        }
    }
    for color in [Color::White, Color::Black] {
        let hand: Vec<String> = Piece::all()
            .filter(|&p| p.color() == color && game.is_enabled(p) && !board.is_on_board(p))
            .map(|p| p.to_string())
            .collect();
        let hand = if hand.is_empty() {
            "(none)".to_string()
        } else {
            hand.join(" ")
        };
        lines.push(format!("{} in hand: {hand}", color.name()));
    }
    lines
}

fn header(game: &Game) -> String {
    let state = game.state();
    if state.is_over() {
        format!(
            "{} {}: game over after {} moves",
            game.game_type(),
            state.name(),
            game.ply()
        )
    } else {
        format!(
            "{} {}: {} to move, turn {}",
            game.game_type(),
            state.name(),
            game.side_to_move().name(),
            game.turn_number()
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::notation::parse_game_string;

    #[test]
    fn draws_directions_stacks_and_hands() {
        // wS1 in the middle, bS1 east, wQ west, bQ north-east of bS1, then wB1 onto... the
        // beetle lands next to wQ (south-west of wS1) and climbs onto wS1.
        let g = parse_game_string(
            "Base;InProgress;White[1];wS1;bS1 wS1-;wQ -wS1;bQ bS1/;wB1 /wS1;bA1 bQ-;wB1 wS1",
            true,
        )
        .unwrap();
        let lines = render(&g);
        let text = lines.join("\n");
        assert!(lines.iter().all(|l| !l.trim().is_empty()), "{text}");
        assert_eq!(lines[0], "Base InProgress: Black to move, turn 4", "{text}");
        // Row of bQ and bA1 above the row of wQ, wB1+ and bS1; bQ sits half a cell right of
        // bS1, and wB1 is drawn where wS1 was, with the stack listed below.
        let row_top = lines.iter().position(|l| l.contains("bQ")).unwrap();
        let row_mid = lines.iter().position(|l| l.contains("wB1+")).unwrap();
        assert_eq!(row_mid, row_top + 1, "{text}");
        let col = |row: usize, name: &str| lines[row].find(name).unwrap();
        assert_eq!(col(row_top, "bQ"), col(row_mid, "bS1") + HALF, "{text}");
        assert_eq!(col(row_top, "bA1"), col(row_top, "bQ") + 2 * HALF, "{text}");
        assert_eq!(
            col(row_mid, "wB1+"),
            col(row_mid, "wQ") + 2 * HALF,
            "{text}"
        );
        assert!(text.contains("Stack (bottom to top): wS1 wB1"), "{text}");
        assert!(
            text.contains("White in hand: wS2 wB2 wG1 wG2 wG3 wA1 wA2 wA3"),
            "{text}"
        );
        assert!(text.contains("Black in hand: bS2 bB1 bB2"), "{text}");
        assert!(!text.contains("wM"), "{text}");
    }

    #[test]
    fn empty_board() {
        let g = Game::new(crate::core::GameType::MLP);
        let lines = render(&g);
        assert_eq!(lines[0], "Base+MLP NotStarted: White to move, turn 1");
        assert_eq!(lines[1], "  (the board is empty)");
        assert!(lines[2].ends_with("wL wP"));
    }
}
