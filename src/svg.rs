//! A picture of a position: the hive as an SVG image, for sharing a position or putting it in
//! a report (`waggle svg --game <GameString>`).
//!
//! Every occupied cell is one hexagon (pointy-top, East to the right as in UHP's directions)
//! filled in its top piece's colour, with the piece's name (`wA1`'s `A1`) in a colour per
//! bug; a stack shows its height in a badge and lists its pieces, from the bottom up, in the
//! hexagon's tooltip. The last move's destination is outlined in orange; a moved piece's
//! starting cell is dashed and joined to it by an arrow. Under the hive: the GameString's
//! type, state and turn, and the last move.
//!
//! Each cell's group carries `data-` attributes (axial coordinates, top piece, height) so
//! that tools and tests can read the picture back. Only the public API of [`crate::core`]
//! and [`crate::notation`] is used.

use crate::core::{Bug, Cell, Color, Game, Piece};
use crate::notation::{format_move, turn_string};
use std::collections::BTreeSet;
use std::fmt::Write as _;

/// Circumradius of a hexagon, in SVG units.
const SIZE: f64 = 34.0;
/// Margin around the hive.
const MARGIN: f64 = 24.0;
/// Height of the caption under the hive.
const CAPTION: f64 = 46.0;

/// The colour of a bug's letter.
fn bug_colour(bug: Bug) -> &'static str {
    match bug {
        Bug::Queen => "#c99a06",
        Bug::Spider => "#8b4a1c",
        Bug::Beetle => "#7a3fa0",
        Bug::Grasshopper => "#2f8f3a",
        Bug::Ant => "#1f6fc4",
        Bug::Mosquito => "#6b7280",
        Bug::Ladybug => "#d03030",
        Bug::Pillbug => "#12908e",
    }
}

/// The piece's name without its colour letter (`A1`, `Q`).
fn short_name(p: Piece) -> String {
    let full = p.to_string();
    full[1..].to_string()
}

/// Escapes text for XML.
fn escape(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

/// Pixel centre of axial `(q, r)` (pointy-top hexagons, y down).
fn centre(q: i32, r: i32) -> (f64, f64) {
    let s3 = 3f64.sqrt();
    (
        SIZE * s3 * (q as f64 + r as f64 / 2.0),
        SIZE * 1.5 * r as f64,
    )
}

/// The hexagon's corner points around `(x, y)`, `scale` of the full size.
fn hexagon(x: f64, y: f64, scale: f64) -> String {
    let mut s = String::new();
    for k in 0..6 {
        let a = (60.0 * k as f64 - 90.0).to_radians();
        let _ = write!(
            s,
            "{:.1},{:.1} ",
            x + SIZE * scale * a.cos(),
            y + SIZE * scale * a.sin()
        );
    }
    s.trim_end().to_string()
}

/// The occupied cells of `game`'s board, each once.
pub fn occupied_cells(game: &Game) -> BTreeSet<Cell> {
    let board = game.board();
    Piece::all().filter_map(|p| board.position(p)).collect()
}

/// The SVG picture of `game`'s position.
pub fn render(game: &Game) -> String {
    let board = game.board();
    let cells = occupied_cells(game);
    // The last move, and where a moved piece came from.
    let last = game.last_move().filter(|m| !m.is_pass());
    let mut before = game.clone();
    let last_text = if last.is_some() {
        before.undo();
        let m = last.unwrap_or_else(|| unreachable!());
        Some(format_move(&before, m))
    } else {
        None
    };
    let from = last.and_then(|m| m.piece().and_then(|p| before.board().position(p)));
    let to = last.map(|m| m.to());
    // Coordinates relative to one cell of the hive (exact for any two cells of one hive).
    let origin = cells
        .iter()
        .next()
        .copied()
        .or(from)
        .unwrap_or(Cell::ORIGIN);
    let mut drawn: Vec<Cell> = cells.iter().copied().collect();
    if let Some(f) = from
        && !cells.contains(&f)
    {
        drawn.push(f);
    }
    let points: Vec<(f64, f64)> = drawn
        .iter()
        .map(|c| {
            let (q, r) = c.relative_to(origin);
            centre(q, r)
        })
        .collect();
    let (mut min_x, mut max_x, mut min_y, mut max_y) = (0.0f64, 0.0f64, 0.0f64, 0.0f64);
    for &(x, y) in &points {
        min_x = min_x.min(x);
        max_x = max_x.max(x);
        min_y = min_y.min(y);
        max_y = max_y.max(y);
    }
    let (min_x, min_y) = (min_x - SIZE - MARGIN, min_y - SIZE - MARGIN);
    let width = (max_x + SIZE + MARGIN - min_x).max(320.0);
    let height = max_y + SIZE + MARGIN - min_y + CAPTION;
    let pos = |c: Cell| {
        let (q, r) = c.relative_to(origin);
        let (x, y) = centre(q, r);
        (x - min_x, y - min_y)
    };
    let mut out = String::new();
    let _ = write!(
        out,
        r#"<svg xmlns="http://www.w3.org/2000/svg" width="{width:.0}" height="{height:.0}" viewBox="0 0 {width:.0} {height:.0}" font-family="sans-serif">"#
    );
    out.push_str(r##"<rect width="100%" height="100%" fill="#fbfaf6"/>"##);
    // The starting cell of a moved piece, when it is empty now.
    if let Some(f) = from
        && !cells.contains(&f)
    {
        let (x, y) = pos(f);
        let _ = write!(
            out,
            r##"<polygon class="from" points="{}" fill="none" stroke="#e07b00" stroke-width="2" stroke-dasharray="5 4"/>"##,
            hexagon(x, y, 0.94)
        );
    }
    for &cell in &cells {
        let Some(top) = board.top(cell) else {
            continue;
        };
        let stack = board.stack(cell);
        let height = board.height(cell);
        let (x, y) = pos(cell);
        let (q, r) = cell.relative_to(origin);
        let (fill, edge, plate, small) = match top.color() {
            Color::White => ("#f3efe2", "#6b6458", "#ffffff", "#6b6458"),
            Color::Black => ("#2d2b28", "#000000", "#46423d", "#d8d4cc"),
        };
        let names: Vec<String> = stack.iter().map(|p| p.to_string()).collect();
        let _ = write!(
            out,
            r#"<g class="cell" data-q="{q}" data-r="{r}" data-top="{top}" data-height="{height}"><title>{}</title>"#,
            escape(&names.join(" < "))
        );
        let _ = write!(
            out,
            r#"<polygon points="{}" fill="{fill}" stroke="{edge}" stroke-width="1.5"/>"#,
            hexagon(x, y, 0.96)
        );
        let _ = write!(
            out,
            r#"<circle cx="{x:.1}" cy="{y:.1}" r="{:.1}" fill="{plate}"/>"#,
            SIZE * 0.58
        );
        let _ = write!(
            out,
            r#"<text x="{x:.1}" y="{:.1}" text-anchor="middle" font-size="19" font-weight="bold" fill="{}">{}</text>"#,
            y + 7.0,
            bug_colour(top.bug()),
            short_name(top)
        );
        if height > 1 {
            // The stack: a badge with its height, and the pieces below in small letters.
            let (bx, by) = (x + SIZE * 0.55, y - SIZE * 0.55);
            let _ = write!(
                out,
                r##"<circle cx="{bx:.1}" cy="{by:.1}" r="9" fill="#e07b00"/><text x="{bx:.1}" y="{:.1}" text-anchor="middle" font-size="12" font-weight="bold" fill="#ffffff">{height}</text>"##,
                by + 4.0
            );
            let below: Vec<String> = stack[..stack.len() - 1]
                .iter()
                .rev()
                .map(|p| p.to_string())
                .collect();
            let _ = write!(
                out,
                r#"<text x="{x:.1}" y="{:.1}" text-anchor="middle" font-size="9" fill="{small}">{}</text>"#,
                y + SIZE * 0.72,
                below.join(" ")
            );
        }
        out.push_str("</g>");
    }
    if let Some(t) = to {
        let (x, y) = pos(t);
        if let Some(f) = from {
            let (fx, fy) = pos(f);
            let _ = write!(
                out,
                r##"<line class="last-move-path" x1="{fx:.1}" y1="{fy:.1}" x2="{x:.1}" y2="{y:.1}" stroke="#e07b00" stroke-width="3" stroke-opacity="0.7" stroke-dasharray="2 5" stroke-linecap="round"/>"##
            );
        }
        let _ = write!(
            out,
            r##"<polygon class="last-move" points="{}" fill="none" stroke="#e07b00" stroke-width="4"/>"##,
            hexagon(x, y, 0.9)
        );
    }
    let mut caption = format!(
        "{} · {} · {}",
        game.game_type(),
        game.state().name(),
        turn_string(game)
    );
    if let Some(t) = &last_text {
        let _ = write!(caption, " · last move {t}");
    }
    let _ = write!(
        out,
        r##"<text x="{:.1}" y="{:.1}" text-anchor="middle" font-size="14" fill="#333333">{}</text>"##,
        width / 2.0,
        height - CAPTION / 2.0 + 5.0,
        escape(&caption)
    );
    if cells.is_empty() {
        let _ = write!(
            out,
            r##"<text x="{:.1}" y="{:.1}" text-anchor="middle" font-size="14" fill="#888888">no piece on the board</text>"##,
            width / 2.0,
            (height - CAPTION) / 2.0
        );
    }
    out.push_str("</svg>\n");
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::notation::parse_game_string;

    #[test]
    fn a_small_hive_is_drawn_with_its_stack_and_last_move() {
        // White's beetle climbs onto its pillbug, under which nothing else lies.
        let g = parse_game_string(
            "Base+MP;InProgress;Black[6];wP;bP wP\\;wM \\wP;bM bP\\;wB1 \\wM;bB1 bM\\;\
             wQ /wB1;bQ /bP;wB1 wQ\\;bB1 bM;wB1 wP",
            true,
        )
        .unwrap();
        let svg = render(&g);
        assert!(svg.contains(r#"data-top="wB1" data-height="2""#), "{svg}");
        assert!(svg.contains("wP &lt; wB1"), "{svg}");
        assert!(svg.contains(r#"class="last-move""#));
        assert!(svg.contains(r#"class="from""#));
        assert!(svg.contains("last move wB1 wP"), "{svg}");
        let empty = render(&parse_game_string("Base;NotStarted;White[1]", true).unwrap());
        assert!(empty.contains("no piece on the board"));
    }
}
