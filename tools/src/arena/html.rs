//! `report.html`: a self-contained page (no scripts, no external files) with hand-written SVG
//! charts of a match: the first engine's Elo against the field with its 95% band over the
//! games played, the LLR track against the SPRT's bounds, results by game type and by
//! opening, and a round robin's crosstable; then the text report.
//!
//! The page is well-formed XML (every element closed, text escaped), so that it can be
//! checked with an XML parser. Each chart is the only `<svg>` of its `<section>`.

use super::Mode;
use super::record::GameRecord;
use super::report::{Sprt, Tally};
use crate::stats::{Wdl, estimate, trinomial_outcomes};
use std::collections::BTreeMap;
use std::fmt::Write as _;

/// Width of every chart, in SVG units.
const WIDTH: f64 = 860.0;
/// Colours of wins, draws and losses.
const WIN: &str = "#3c9a4a";
const DRAW: &str = "#a0a4a8";
const LOSS: &str = "#d2453a";
/// Openings shown one by one; a longer list is cut (and says so).
const MAX_OPENINGS: usize = 60;

/// What the page shows.
pub struct HtmlReport<'a> {
    /// The page title.
    pub title: &'a str,
    /// Engine names in schedule order.
    pub engines: &'a [String],
    /// Gauntlet or round robin.
    pub mode: Mode,
    /// The games, in the order they were counted.
    pub records: &'a [GameRecord],
    /// The SPRT, when one runs.
    pub sprt: Option<&'a Sprt>,
    /// The text report, shown at the end.
    pub text: &'a str,
}

/// Escapes text for XML content and attribute values.
pub fn escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

/// The first engine's half-points in `r` (2 a win, 1 a draw, 0 a loss), or `None` when it
/// did not play the game.
fn first_half_points(r: &GameRecord, first: &str) -> Option<u8> {
    if r.white == first {
        Some(r.white_half_points())
    } else if r.black == first {
        Some(2 - r.white_half_points())
    } else {
        None
    }
}

/// One point of the tracks: games counted, Elo estimate and band, LLR.
struct Point {
    games: usize,
    elo: Option<(f64, f64, f64)>,
    llr: f64,
}

fn tracks(r: &HtmlReport<'_>) -> Vec<Point> {
    let mut tally = Tally::new(r.engines.to_vec(), r.mode);
    let mut out = Vec::with_capacity(r.records.len());
    for rec in r.records {
        tally.add(rec);
        let e = estimate(&trinomial_outcomes(&tally.first_vs_field()));
        out.push(Point {
            games: tally.games,
            elo: e.map(|e| (e.elo, e.lower, e.upper)),
            llr: r.sprt.map_or(0.0, |s| tally.sprt_llr(s)),
        });
    }
    out
}

/// A value rounded up to a "nice" step (1, 2 or 5 times a power of ten).
fn nice_step(range: f64, ticks: f64) -> f64 {
    let raw = (range / ticks).max(1e-9);
    let pow = 10f64.powf(raw.log10().floor());
    let m = raw / pow;
    let nice = if m <= 1.0 {
        1.0
    } else if m <= 2.0 {
        2.0
    } else if m <= 5.0 {
        5.0
    } else {
        10.0
    };
    nice * pow
}

/// A line chart frame: maps data to the plot area and draws the axes with ticks.
struct Frame {
    x0: f64,
    x1: f64,
    y0: f64,
    y1: f64,
    height: f64,
    left: f64,
    right: f64,
    top: f64,
    bottom: f64,
}

impl Frame {
    fn new(x1: f64, y0: f64, y1: f64) -> Frame {
        Frame {
            x0: 0.0,
            x1: x1.max(1.0),
            y0,
            y1: if y1 > y0 { y1 } else { y0 + 1.0 },
            height: 300.0,
            left: 60.0,
            right: 20.0,
            top: 15.0,
            bottom: 40.0,
        }
    }

    fn x(&self, v: f64) -> f64 {
        self.left + (v - self.x0) / (self.x1 - self.x0) * (WIDTH - self.left - self.right)
    }

    fn y(&self, v: f64) -> f64 {
        let v = v.clamp(self.y0, self.y1);
        self.height - self.bottom - (v - self.y0) / (self.y1 - self.y0) * self.plot_height()
    }

    fn plot_height(&self) -> f64 {
        self.height - self.top - self.bottom
    }

    fn open(&self, out: &mut String, label: &str) {
        let _ = write!(
            out,
            r#"<svg xmlns="http://www.w3.org/2000/svg" width="{WIDTH}" height="{h}" viewBox="0 0 {WIDTH} {h}" role="img" aria-label="{label}">"#,
            h = self.height,
            label = escape(label)
        );
        // Grid and ticks.
        let ystep = nice_step(self.y1 - self.y0, 6.0);
        let mut v = (self.y0 / ystep).ceil() * ystep;
        while v <= self.y1 + 1e-9 {
            let y = self.y(v);
            let _ = write!(
                out,
                r##"<line x1="{l}" y1="{y:.1}" x2="{r}" y2="{y:.1}" stroke="#e4e4e4"/><text x="{t}" y="{ty:.1}" text-anchor="end" class="tick">{v}</text>"##,
                l = self.left,
                r = WIDTH - self.right,
                t = self.left - 6.0,
                ty = y + 4.0,
                v = fmt_tick(v)
            );
            v += ystep;
        }
        let xstep = nice_step(self.x1 - self.x0, 8.0).max(1.0);
        let mut v = 0.0;
        while v <= self.x1 + 1e-9 {
            let x = self.x(v);
            let _ = write!(
                out,
                r#"<text x="{x:.1}" y="{y}" text-anchor="middle" class="tick">{v}</text>"#,
                y = self.height - self.bottom + 16.0,
                v = fmt_tick(v)
            );
            v += xstep;
        }
        let _ = write!(
            out,
            r##"<rect x="{l}" y="{t}" width="{w}" height="{h}" fill="none" stroke="#888"/><text x="{cx}" y="{by}" text-anchor="middle" class="axis">games played</text>"##,
            l = self.left,
            t = self.top,
            w = WIDTH - self.left - self.right,
            h = self.plot_height(),
            cx = (self.left + WIDTH - self.right) / 2.0,
            by = self.height - 6.0
        );
    }

    /// A horizontal line at `v` with a label.
    fn hline(&self, out: &mut String, v: f64, colour: &str, label: &str) {
        let y = self.y(v);
        let _ = write!(
            out,
            r#"<line x1="{l}" y1="{y:.1}" x2="{r}" y2="{y:.1}" stroke="{colour}" stroke-dasharray="6 4"/><text x="{tx}" y="{ty:.1}" text-anchor="end" class="tick" fill="{colour}">{label}</text>"#,
            l = self.left,
            r = WIDTH - self.right,
            tx = WIDTH - self.right - 4.0,
            ty = y - 4.0,
            label = escape(label)
        );
    }
}

fn fmt_tick(v: f64) -> String {
    if (v - v.round()).abs() < 1e-9 {
        format!("{}", v.round() as i64)
    } else {
        format!("{v:.2}")
    }
}

fn polyline(points: &[(f64, f64)], colour: &str) -> String {
    let mut s = String::from(r#"<polyline fill="none" stroke=""#);
    s.push_str(colour);
    s.push_str(r#"" stroke-width="2" points=""#);
    for (i, (x, y)) in points.iter().enumerate() {
        if i > 0 {
            s.push(' ');
        }
        let _ = write!(s, "{x:.1},{y:.1}");
    }
    s.push_str(r#""/>"#);
    s
}

/// The Elo chart: estimate and 95% band after every game.
fn elo_chart(points: &[Point], first: &str) -> String {
    let finite: Vec<f64> = points
        .iter()
        .filter_map(|p| p.elo)
        .flat_map(|(e, l, u)| [e, l, u])
        .filter(|v| v.is_finite())
        .collect();
    let reach = finite.iter().fold(100.0f64, |m, v| m.max(v.abs()));
    let reach = (reach.min(800.0) / 50.0).ceil() * 50.0;
    let f = Frame::new(points.len() as f64, -reach, reach);
    let mut out = String::new();
    f.open(&mut out, &format!("Elo of {first} against the field"));
    let with: Vec<(f64, (f64, f64, f64))> = points
        .iter()
        .filter_map(|p| p.elo.map(|e| (p.games as f64, e)))
        .collect();
    if !with.is_empty() {
        let mut band = String::new();
        for &(g, (_, _, u)) in &with {
            let _ = write!(band, "{:.1},{:.1} ", f.x(g), f.y(u));
        }
        for &(g, (_, l, _)) in with.iter().rev() {
            let _ = write!(band, "{:.1},{:.1} ", f.x(g), f.y(l));
        }
        let _ = write!(
            out,
            r##"<polygon points="{}" fill="#4a7bd0" fill-opacity="0.22" stroke="none"/>"##,
            band.trim_end()
        );
        let line: Vec<(f64, f64)> = with
            .iter()
            .map(|&(g, (e, _, _))| (f.x(g), f.y(e)))
            .collect();
        out.push_str(&polyline(&line, "#1f4fa8"));
    }
    f.hline(&mut out, 0.0, "#555", "0");
    out.push_str("</svg>");
    out
}

/// The LLR chart: the log-likelihood ratio after every game, between its two bounds.
fn llr_chart(points: &[Point], sprt: &Sprt) -> String {
    let (lo, hi) = (sprt.params.lower_bound(), sprt.params.upper_bound());
    let min = points.iter().map(|p| p.llr).fold(lo, f64::min);
    let max = points.iter().map(|p| p.llr).fold(hi, f64::max);
    let f = Frame::new(points.len() as f64, min - 0.5, max + 0.5);
    let mut out = String::new();
    f.open(&mut out, "LLR against the SPRT bounds");
    f.hline(&mut out, hi, WIN, &format!("accept H1 ({hi:.2})"));
    f.hline(&mut out, lo, LOSS, &format!("accept H0 ({lo:.2})"));
    let line: Vec<(f64, f64)> = std::iter::once((f.x(0.0), f.y(0.0)))
        .chain(points.iter().map(|p| (f.x(p.games as f64), f.y(p.llr))))
        .collect();
    out.push_str(&polyline(&line, "#1f4fa8"));
    out.push_str("</svg>");
    out
}

/// Horizontal stacked bars of wins, draws and losses, one row per label.
fn wdl_bars(rows: &[(String, Wdl)], label: &str) -> String {
    let row_h = 22.0;
    let (left, right, top) = (230.0, 90.0, 28.0);
    let height = top + row_h * rows.len().max(1) as f64 + 10.0;
    let mut out = format!(
        r#"<svg xmlns="http://www.w3.org/2000/svg" width="{WIDTH}" height="{height}" viewBox="0 0 {WIDTH} {height}" role="img" aria-label="{}">"#,
        escape(label)
    );
    // Legend.
    for (i, (name, colour)) in [("wins", WIN), ("draws", DRAW), ("losses", LOSS)]
        .iter()
        .enumerate()
    {
        let x = left + i as f64 * 90.0;
        let _ = write!(
            out,
            r#"<rect x="{x}" y="6" width="12" height="12" fill="{colour}"/><text x="{tx}" y="16" class="tick">{name}</text>"#,
            tx = x + 16.0
        );
    }
    let span = WIDTH - left - right;
    for (i, (name, w)) in rows.iter().enumerate() {
        let y = top + i as f64 * row_h;
        let _ = write!(
            out,
            r#"<text x="{tx}" y="{ty:.1}" text-anchor="end" class="label">{}</text>"#,
            escape(name),
            tx = left - 8.0,
            ty = y + row_h * 0.65
        );
        let games = w.games().max(1) as f64;
        let mut x = left;
        for (count, colour) in [(w.wins, WIN), (w.draws, DRAW), (w.losses, LOSS)] {
            let width = span * count as f64 / games;
            if count > 0 {
                let _ = write!(
                    out,
                    r#"<rect x="{x:.1}" y="{y:.1}" width="{width:.1}" height="{h:.1}" fill="{colour}"><title>{count}</title></rect>"#,
                    h = row_h - 4.0
                );
            }
            x += width;
        }
        let score = w
            .score()
            .map_or(String::new(), |s| format!("{:.0}%", s * 100.0));
        let _ = write!(
            out,
            r#"<text x="{tx}" y="{ty:.1}" class="label">+{} ={} -{} {score}</text>"#,
            w.wins,
            w.draws,
            w.losses,
            tx = left + span + 6.0,
            ty = y + row_h * 0.65
        );
    }
    out.push_str("</svg>");
    out
}

/// The crosstable as a grid: the row engine's score against the column engine, coloured
/// from red (0%) through grey to green (100%).
fn crosstable_chart(tally: &Tally) -> String {
    let n = tally.engines.len();
    let cell = 84.0;
    let (left, top) = (170.0, 40.0);
    let width = left + cell * n as f64 + 10.0;
    let height = top + cell * 0.5 * n as f64 + 10.0;
    let mut out = format!(
        r#"<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" viewBox="0 0 {width} {height}" role="img" aria-label="crosstable">"#
    );
    for (j, name) in tally.engines.iter().enumerate() {
        let _ = write!(
            out,
            r#"<text x="{x:.1}" y="{y}" text-anchor="middle" class="label">{}</text>"#,
            escape(name),
            x = left + cell * (j as f64 + 0.5),
            y = top - 10.0
        );
    }
    for (i, name) in tally.engines.iter().enumerate() {
        let y = top + cell * 0.5 * i as f64;
        let _ = write!(
            out,
            r#"<text x="{tx}" y="{ty:.1}" text-anchor="end" class="label">{}</text>"#,
            escape(name),
            tx = left - 8.0,
            ty = y + cell * 0.32
        );
        for j in 0..n {
            let x = left + cell * j as f64;
            let (fill, text) = if i == j {
                ("#f0f0f0".to_string(), "-".to_string())
            } else {
                let key = (i.min(j), i.max(j));
                match tally.pairings.get(&key) {
                    Some(st) => {
                        let w = if i == key.0 { st.wdl } else { st.wdl.flipped() };
                        let s = w.score().unwrap_or(0.5);
                        (score_colour(s), format!("{:.1}/{}", w.points(), w.games()))
                    }
                    None => ("#ffffff".to_string(), String::new()),
                }
            };
            let _ = write!(
                out,
                r##"<rect x="{x:.1}" y="{y:.1}" width="{cell}" height="{h}" fill="{fill}" stroke="#fff"/><text x="{tx:.1}" y="{ty:.1}" text-anchor="middle" class="label">{text}</text>"##,
                h = cell * 0.5,
                tx = x + cell / 2.0,
                ty = y + cell * 0.32
            );
        }
    }
    out.push_str("</svg>");
    out
}

/// Red at 0, light grey at 0.5, green at 1.
fn score_colour(s: f64) -> String {
    let s = s.clamp(0.0, 1.0);
    let mix = |a: f64, b: f64, t: f64| (a + (b - a) * t).round() as u8;
    let (r, g, b) = if s < 0.5 {
        let t = s * 2.0;
        (
            mix(210.0, 230.0, t),
            mix(69.0, 230.0, t),
            mix(58.0, 230.0, t),
        )
    } else {
        let t = (s - 0.5) * 2.0;
        (
            mix(230.0, 60.0, t),
            mix(230.0, 154.0, t),
            mix(230.0, 74.0, t),
        )
    };
    format!("#{r:02x}{g:02x}{b:02x}")
}

fn section(out: &mut String, id: &str, title: &str, note: &str, chart: &str) {
    let _ = writeln!(
        out,
        "<section id=\"{id}\"><h2>{}</h2>{}{chart}</section>",
        escape(title),
        if note.is_empty() {
            String::new()
        } else {
            format!("<p>{}</p>", escape(note))
        }
    );
}

/// The game type of a record (the GameString's first field).
fn game_type_of(r: &GameRecord) -> String {
    r.game_string
        .split(';')
        .next()
        .unwrap_or("")
        .trim()
        .to_string()
}

/// The whole page.
pub fn render(r: &HtmlReport<'_>) -> String {
    let first = r.engines.first().map_or("", String::as_str);
    let points = tracks(r);
    let mut tally = Tally::new(r.engines.to_vec(), r.mode);
    for rec in r.records {
        tally.add(rec);
    }
    let mut out = String::new();
    let _ = write!(
        out,
        "<!DOCTYPE html>\n<html xmlns=\"http://www.w3.org/1999/xhtml\" lang=\"en\">\n<head><meta charset=\"utf-8\"/><title>{}</title>\n<style>\n{}\n</style></head>\n<body>\n<h1>{}</h1>\n<p>{} games, {}; engines: {}.</p>\n",
        escape(r.title),
        STYLE,
        escape(r.title),
        r.records.len(),
        r.mode,
        escape(&r.engines.join(", "))
    );
    section(
        &mut out,
        "elo",
        &format!("Elo of {first} against the field"),
        "Estimate after each game with its 95% interval (shaded); values beyond the axis are \
         drawn at its edge.",
        &elo_chart(&points, first),
    );
    if let Some(sprt) = r.sprt {
        let p = &sprt.params;
        section(
            &mut out,
            "llr",
            "SPRT log-likelihood ratio",
            &format!(
                "{} model, elo0={} elo1={} alpha={} beta={}: the test stops when the track \
                 leaves the band between the bounds.",
                sprt.model.name(),
                p.elo0,
                p.elo1,
                p.alpha,
                p.beta
            ),
            &llr_chart(&points, sprt),
        );
    }
    let mut by_type: BTreeMap<String, Wdl> = BTreeMap::new();
    let mut by_opening: BTreeMap<usize, (String, Wdl)> = BTreeMap::new();
    for rec in r.records {
        let Some(hp) = first_half_points(rec, first) else {
            continue;
        };
        by_type
            .entry(game_type_of(rec))
            .or_default()
            .add_half_points(hp);
        by_opening
            .entry(rec.opening)
            .or_insert_with(|| (game_type_of(rec), Wdl::default()))
            .1
            .add_half_points(hp);
    }
    let rows: Vec<(String, Wdl)> = by_type.into_iter().collect();
    section(
        &mut out,
        "game-types",
        "Results by game type",
        &format!("Wins, draws and losses of {first}."),
        &wdl_bars(&rows, "results by game type"),
    );
    let total_openings = by_opening.len();
    let rows: Vec<(String, Wdl)> = by_opening
        .into_iter()
        .take(MAX_OPENINGS)
        .map(|(i, (t, w))| (format!("opening {i} ({t})"), w))
        .collect();
    let note = if total_openings > MAX_OPENINGS {
        format!(
            "Wins, draws and losses of {first}; the first {MAX_OPENINGS} of {total_openings} openings."
        )
    } else {
        format!("Wins, draws and losses of {first}.")
    };
    section(
        &mut out,
        "openings",
        "Results by opening",
        &note,
        &wdl_bars(&rows, "results by opening"),
    );
    if r.mode == Mode::RoundRobin {
        section(
            &mut out,
            "crosstable",
            "Crosstable",
            "Points of the row engine against the column engine / games.",
            &crosstable_chart(&tally),
        );
    }
    let _ = write!(
        out,
        "<h2>Report</h2>\n<pre>{}</pre>\n</body>\n</html>\n",
        escape(r.text)
    );
    out
}

const STYLE: &str = "body { font-family: sans-serif; margin: 1.5em; color: #222; }
section { margin-bottom: 2em; }
h2 { font-size: 1.15em; margin-bottom: 0.3em; }
svg text.tick { font-size: 11px; fill: #555; }
svg text.axis { font-size: 12px; fill: #333; }
svg text.label { font-size: 12px; fill: #222; }
pre { background: #f6f6f6; padding: 0.8em; overflow-x: auto; }";

#[cfg(test)]
mod tests {
    use super::*;
    use waggle::core::GameState;

    #[test]
    fn text_is_escaped_and_steps_are_nice() {
        assert_eq!(escape("a<b & \"c\""), "a&lt;b &amp; &quot;c&quot;");
        assert_eq!(nice_step(600.0, 6.0), 100.0);
        assert_eq!(nice_step(7.0, 6.0), 2.0);
        assert_eq!(score_colour(0.0), "#d2453a");
        assert_eq!(score_colour(1.0), "#3c9a4a");
    }

    #[test]
    fn pages_have_one_chart_per_section() {
        let engines = vec!["a".to_string(), "b<&>".to_string()];
        let records: Vec<GameRecord> = (0..6)
            .map(|id| GameRecord {
                id,
                pair: id / 2,
                opening: id / 2,
                white: engines[id % 2].clone(),
                black: engines[1 - id % 2].clone(),
                result: [GameState::WhiteWins, GameState::Draw, GameState::BlackWins][id % 3],
                plies: 10,
                termination: "queen-surrounded".into(),
                reason: String::new(),
                game_string: "Base+M;WhiteWins;Black[5]".into(),
            })
            .collect();
        let page = render(&HtmlReport {
            title: "test",
            engines: &engines,
            mode: Mode::RoundRobin,
            records: &records,
            sprt: None,
            text: "x < y",
        });
        assert_eq!(page.matches("<section").count(), 4, "{page}");
        assert_eq!(page.matches("<svg").count(), 4);
        assert!(page.contains("b&lt;&amp;&gt;"));
        assert!(page.contains("x &lt; y"));
        assert!(page.contains("Base+M"));
    }
}
