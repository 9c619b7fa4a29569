//! Tallies of finished games and the tables printed from them: per pairing W/D/L, score, Elo
//! with its 95% interval and LOS; pentanomial pair counts; SPRT state; for round robins the
//! standings and a crosstable.

use super::Mode;
use super::game::FailureKind;
use super::record::GameRecord;
use crate::stats::{
    EloEstimate, Pentanomial, SprtDecision, SprtParams, Wdl, estimate, llr, los, trinomial_outcomes,
};
use std::collections::{BTreeMap, HashMap};
use std::fmt::Write as _;

/// Which outcomes the SPRT counts.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SprtModel {
    /// Game pairs (same opening, colours swapped), five outcome classes.
    Pentanomial,
    /// Single games: win, draw, loss.
    Trinomial,
}

impl SprtModel {
    /// The name used on the command line.
    pub fn name(self) -> &'static str {
        match self {
            SprtModel::Pentanomial => "pentanomial",
            SprtModel::Trinomial => "trinomial",
        }
    }
}

/// An SPRT set-up: its parameters and model.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Sprt {
    /// Bounds and hypotheses.
    pub params: SprtParams,
    /// Outcome model.
    pub model: SprtModel,
}

/// Results of one pairing, from its first engine's point of view.
#[derive(Clone, Debug, Default)]
pub struct PairingStats {
    /// Single games.
    pub wdl: Wdl,
    /// Completed game pairs.
    pub penta: Pentanomial,
    /// Pairs with one game in: pair number -> the first engine's half-points in it.
    pending: HashMap<usize, u8>,
}

/// Everything needed for the report, updated one game at a time.
#[derive(Clone, Debug)]
pub struct Tally {
    /// Engine names, in schedule order (names met later are appended).
    pub engines: Vec<String>,
    /// Gauntlet or round robin.
    pub mode: Mode,
    /// Per pairing `(i, j)`, `i < j`: results from engine `i`'s view.
    pub pairings: BTreeMap<(usize, usize), PairingStats>,
    /// Games counted.
    pub games: usize,
    /// How games ended: termination category -> games.
    pub terminations: BTreeMap<String, usize>,
    /// Engine failures: (engine, failure kind) -> games lost that way.
    pub failures: BTreeMap<(String, String), usize>,
}

/// An Elo figure with a sign, `+inf`/`-inf` at the ends.
pub fn fmt_elo(x: f64) -> String {
    if x.is_infinite() {
        if x > 0.0 {
            "+inf".into()
        } else {
            "-inf".into()
        }
    } else {
        format!("{x:+.1}")
    }
}

fn fmt_interval(e: &EloEstimate) -> String {
    format!("[{}, {}]", fmt_elo(e.lower), fmt_elo(e.upper))
}

impl Tally {
    /// An empty tally.
    pub fn new(engines: Vec<String>, mode: Mode) -> Tally {
        Tally {
            engines,
            mode,
            pairings: BTreeMap::new(),
            games: 0,
            terminations: BTreeMap::new(),
            failures: BTreeMap::new(),
        }
    }

    fn index(&mut self, name: &str) -> usize {
        match self.engines.iter().position(|n| n == name) {
            Some(i) => i,
            None => {
                self.engines.push(name.to_string());
                self.engines.len() - 1
            }
        }
    }

    /// Counts one game; returns its pairing.
    pub fn add(&mut self, r: &GameRecord) -> (usize, usize) {
        let w = self.index(&r.white);
        let b = self.index(&r.black);
        let key = (w.min(b), w.max(b));
        let first_half_points = if w == key.0 {
            r.white_half_points()
        } else {
            2 - r.white_half_points()
        };
        let stats = self.pairings.entry(key).or_default();
        stats.wdl.add_half_points(first_half_points);
        match stats.pending.remove(&r.pair) {
            Some(other) => stats.penta.add(other + first_half_points),
            None => {
                stats.pending.insert(r.pair, first_half_points);
            }
        }
        self.games += 1;
        *self.terminations.entry(r.termination.clone()).or_default() += 1;
        if FailureKind::ALL.iter().any(|k| k.name() == r.termination) {
            let loser = if r.result == waggle::core::GameState::BlackWins {
                &r.white
            } else {
                &r.black
            };
            *self
                .failures
                .entry((loser.clone(), r.termination.clone()))
                .or_default() += 1;
        }
        key
    }

    /// The LLR of the SPRT between the first two engines, from the first's view.
    pub fn sprt_llr(&self, sprt: &Sprt) -> f64 {
        let Some(stats) = self.pairings.get(&(0, 1)) else {
            return 0.0;
        };
        match sprt.model {
            SprtModel::Pentanomial => llr(&stats.penta.outcomes(), &sprt.params),
            SprtModel::Trinomial => llr(&trinomial_outcomes(&stats.wdl), &sprt.params),
        }
    }

    /// The SPRT's decision so far.
    pub fn sprt_decision(&self, sprt: &Sprt) -> SprtDecision {
        sprt.params.decide(self.sprt_llr(sprt))
    }

    /// One progress line after a game of pairing `key`.
    pub fn progress_line(&self, key: (usize, usize), total: usize, sprt: Option<&Sprt>) -> String {
        let mut s = format!("[{}/{total}]", self.games);
        if let Some(stats) = self.pairings.get(&key) {
            let w = &stats.wdl;
            let _ = write!(
                s,
                " {} vs {}: +{} ={} -{}",
                self.engines[key.0], self.engines[key.1], w.wins, w.draws, w.losses
            );
            if let Some(score) = w.score() {
                let _ = write!(s, " ({:.1}%)", score * 100.0);
            }
            if let Some(e) = estimate(&trinomial_outcomes(w)) {
                let _ = write!(s, " Elo {} {}", fmt_elo(e.elo), fmt_interval(&e));
            }
        }
        if let Some(sprt) = sprt {
            let _ = write!(
                s,
                " | LLR {:.2} ({:.2}, {:.2})",
                self.sprt_llr(sprt),
                sprt.params.lower_bound(),
                sprt.params.upper_bound()
            );
        }
        s
    }

    /// The first engine's results against all the others.
    pub fn first_vs_field(&self) -> Wdl {
        self.results_of(0)
    }

    /// A one-line summary of the first engine against the field: `+W =D -L`, score, Elo
    /// with the half-width of its 95% interval, and the LLR when an SPRT runs.
    pub fn summary(&self, sprt: Option<&Sprt>) -> String {
        let w = self.first_vs_field();
        let mut s = format!("+{} ={} -{}", w.wins, w.draws, w.losses);
        if let Some(score) = w.score() {
            let _ = write!(s, " {:.1}%", score * 100.0);
        }
        if let Some(e) = estimate(&trinomial_outcomes(&w)) {
            let margin = e.margin();
            let margin = if margin.is_finite() {
                format!("{margin:.1}")
            } else {
                "inf".into()
            };
            let _ = write!(s, " Elo {} ±{margin}", fmt_elo(e.elo));
        }
        if let Some(sprt) = sprt {
            let _ = write!(
                s,
                " LLR {:.2} ({:.2}, {:.2})",
                self.sprt_llr(sprt),
                sprt.params.lower_bound(),
                sprt.params.upper_bound()
            );
        }
        s
    }

    /// The final report.
    pub fn report(&self, sprt: Option<&Sprt>) -> String {
        let mut out = String::new();
        let width = self
            .engines
            .iter()
            .map(|n| n.chars().count())
            .max()
            .unwrap_or(6)
            .max(6);
        let _ = writeln!(out, "Results ({}, {} games)", self.mode, self.games);
        let _ = writeln!(
            out,
            "  {:width$}  {:width$}  {:>6} {:>6} {:>6} {:>6}  {:>6}  {:>7}  {:<18}  {:>6}",
            "player", "opponent", "games", "W", "D", "L", "score", "Elo", "95% interval", "LOS"
        );
        for (&(a, b), st) in &self.pairings {
            let w = &st.wdl;
            let Some(e) = estimate(&trinomial_outcomes(w)) else {
                continue;
            };
            let _ = writeln!(
                out,
                "  {:width$}  {:width$}  {:>6} {:>6} {:>6} {:>6}  {:>5.1}%  {:>7}  {:<18}  {:>5.1}%",
                self.engines[a],
                self.engines[b],
                w.games(),
                w.wins,
                w.draws,
                w.losses,
                w.score().unwrap_or(0.0) * 100.0,
                fmt_elo(e.elo),
                fmt_interval(&e),
                los(w) * 100.0
            );
        }
        let _ = writeln!(
            out,
            "Game pairs (same opening, colours swapped), from the player's view:"
        );
        for (&(a, b), st) in &self.pairings {
            let p = &st.penta;
            let _ = write!(
                out,
                "  {} vs {}: {} pairs: LL {} LD {} DD/WL {} WD {} WW {}",
                self.engines[a],
                self.engines[b],
                p.pairs(),
                p.0[0],
                p.0[1],
                p.0[2],
                p.0[3],
                p.0[4]
            );
            match estimate(&p.outcomes()) {
                Some(e) => {
                    let _ = writeln!(out, "; Elo {} {}", fmt_elo(e.elo), fmt_interval(&e));
                }
                None => out.push('\n'),
            }
        }
        if let Some(sprt) = sprt {
            let v = self.sprt_llr(sprt);
            let a = self.engines.first().map_or("", String::as_str);
            let b = self.engines.get(1).map_or("", String::as_str);
            let (e0, e1) = (sprt.params.elo0, sprt.params.elo1);
            let verdict = match sprt.params.decide(v) {
                SprtDecision::AcceptH1 => {
                    format!(
                        "H1 accepted: {a} is stronger than {b} (elo1={e1} rather than elo0={e0})"
                    )
                }
                SprtDecision::AcceptH0 => format!(
                    "H0 accepted: {a} is not stronger than {b} (elo0={e0} rather than elo1={e1})"
                ),
                SprtDecision::Continue => "no bound crossed".to_string(),
            };
            let _ = writeln!(
                out,
                "SPRT ({}, {}): LLR {:.3}, bounds ({:.3}, {:.3}): {verdict}",
                sprt.model.name(),
                sprt.params,
                v,
                sprt.params.lower_bound(),
                sprt.params.upper_bound()
            );
        }
        if self.mode == Mode::RoundRobin && self.engines.len() > 2 {
            self.standings(&mut out, width);
        }
        let ends: Vec<String> = self
            .terminations
            .iter()
            .map(|(k, v)| format!("{k} {v}"))
            .collect();
        let _ = writeln!(out, "Game ends: {}", ends.join(", "));
        if self.failures.is_empty() {
            let _ = writeln!(out, "Engine failures: none");
        } else {
            let list: Vec<String> = self
                .failures
                .iter()
                .map(|((e, k), v)| format!("{e} {k} {v}"))
                .collect();
            let _ = writeln!(out, "Engine failures: {}", list.join(", "));
        }
        out
    }

    /// The results of engine `i` against every opponent, from its view.
    pub fn results_of(&self, i: usize) -> Wdl {
        let mut total = Wdl::default();
        for (&(a, b), st) in &self.pairings {
            if a == i {
                total.merge(&st.wdl);
            } else if b == i {
                total.merge(&st.wdl.flipped());
            }
        }
        total
    }

    fn standings(&self, out: &mut String, width: usize) {
        let mut order: Vec<usize> = (0..self.engines.len()).collect();
        order.sort_by(|&x, &y| {
            let px = self.results_of(x).score().unwrap_or(0.0);
            let py = self.results_of(y).score().unwrap_or(0.0);
            py.total_cmp(&px)
        });
        let _ = writeln!(out, "Standings (against the field)");
        let _ = writeln!(
            out,
            "  {:>4}  {:width$}  {:>6} {:>7}  {:>6}  {:>7}  {:<18}  {:>6}",
            "rank", "engine", "games", "points", "score", "Elo", "95% interval", "LOS"
        );
        for (rank, &i) in order.iter().enumerate() {
            let w = self.results_of(i);
            let Some(e) = estimate(&trinomial_outcomes(&w)) else {
                continue;
            };
            let _ = writeln!(
                out,
                "  {:>4}  {:width$}  {:>6} {:>7.1}  {:>5.1}%  {:>7}  {:<18}  {:>5.1}%",
                rank + 1,
                self.engines[i],
                w.games(),
                w.points(),
                w.score().unwrap_or(0.0) * 100.0,
                fmt_elo(e.elo),
                fmt_interval(&e),
                los(&w) * 100.0
            );
        }
        let _ = writeln!(
            out,
            "Crosstable (points of the row engine against the column engine / games)"
        );
        let cell = 11;
        let _ = write!(out, "  {:width$}", "");
        for &j in &order {
            let _ = write!(out, " {:>cell$}", truncate(&self.engines[j], cell));
        }
        out.push('\n');
        for &i in &order {
            let _ = write!(out, "  {:width$}", self.engines[i]);
            for &j in &order {
                let text = if i == j {
                    "-".to_string()
                } else {
                    let key = (i.min(j), i.max(j));
                    match self.pairings.get(&key) {
                        Some(st) => {
                            let w = if i == key.0 { st.wdl } else { st.wdl.flipped() };
                            format!("{:.1}/{}", w.points(), w.games())
                        }
                        None => "".to_string(),
                    }
                };
                let _ = write!(out, " {text:>cell$}");
            }
            out.push('\n');
        }
    }
}

fn truncate(s: &str, n: usize) -> String {
    s.chars().take(n).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use waggle::core::GameState;

    fn rec(id: usize, white: &str, black: &str, result: GameState, term: &str) -> GameRecord {
        GameRecord {
            id,
            pair: id / 2,
            opening: id / 2,
            white: white.into(),
            black: black.into(),
            result,
            plies: 30,
            termination: term.into(),
            reason: String::new(),
            game_string: String::new(),
        }
    }

    #[test]
    fn tallies_count_pairs_from_the_first_engines_view() {
        let mut t = Tally::new(vec!["a".into(), "b".into()], Mode::Gauntlet);
        // Pair 0: a wins as White, draws as Black -> 3 half-points (WD).
        t.add(&rec(0, "a", "b", GameState::WhiteWins, "queen-surrounded"));
        t.add(&rec(1, "b", "a", GameState::Draw, "max-moves"));
        // Pair 1: b crashes as Black, then b wins as White -> WL (2 half-points).
        t.add(&rec(2, "a", "b", GameState::WhiteWins, "crash"));
        t.add(&rec(3, "b", "a", GameState::WhiteWins, "queen-surrounded"));
        // Pair 2: only one game so far (a loses as White).
        t.add(&rec(4, "a", "b", GameState::BlackWins, "queen-surrounded"));
        let st = &t.pairings[&(0, 1)];
        assert_eq!(st.wdl, Wdl::new(2, 1, 2));
        assert_eq!(st.penta, Pentanomial([0, 0, 1, 1, 0]));
        assert_eq!(t.games, 5);
        assert_eq!(t.failures[&("b".to_string(), "crash".to_string())], 1);
        assert_eq!(t.terminations["queen-surrounded"], 3);
        let report = t.report(None);
        assert!(report.contains("Engine failures: b crash 1"), "{report}");
        assert!(report.contains("LL 0 LD 0 DD/WL 1 WD 1 WW 0"), "{report}");
    }

    #[test]
    fn round_robin_reports_have_standings_and_a_crosstable() {
        let mut t = Tally::new(vec!["a".into(), "b".into(), "c".into()], Mode::RoundRobin);
        t.add(&rec(0, "a", "b", GameState::WhiteWins, "queen-surrounded"));
        t.add(&rec(1, "b", "a", GameState::BlackWins, "queen-surrounded"));
        t.add(&rec(2, "a", "c", GameState::Draw, "repetition"));
        t.add(&rec(3, "c", "a", GameState::Draw, "repetition"));
        t.add(&rec(4, "b", "c", GameState::BlackWins, "queen-surrounded"));
        t.add(&rec(5, "c", "b", GameState::WhiteWins, "queen-surrounded"));
        let report = t.report(None);
        assert!(report.contains("Standings"), "{report}");
        assert!(report.contains("Crosstable"), "{report}");
        // a: 2/2 against b, 1/2 against c -> 3 points of 4; c: 1 + 2 = 3; b: 0.
        assert_eq!(t.results_of(0).points(), 3.0);
        assert_eq!(t.results_of(1).points(), 0.0);
        let crosstable = &report[report.find("Crosstable").unwrap()..];
        let b_row = crosstable
            .lines()
            .find(|l| l.trim_start().starts_with("b "))
            .unwrap();
        let cells: Vec<&str> = b_row.split_whitespace().collect();
        // Columns in standings order: a (3 points), c (3 points), b (0).
        assert_eq!(cells, ["b", "0.0/2", "0.0/2", "-"], "{report}");
    }

    #[test]
    fn summaries_show_the_first_engine_against_the_field() {
        let sprt = Sprt {
            params: SprtParams::parse("elo0=0,elo1=10").unwrap(),
            model: SprtModel::Pentanomial,
        };
        let mut t = Tally::new(vec!["a".into(), "b".into(), "c".into()], Mode::Gauntlet);
        t.add(&rec(0, "a", "b", GameState::WhiteWins, "queen-surrounded"));
        t.add(&rec(1, "b", "a", GameState::WhiteWins, "queen-surrounded"));
        t.add(&rec(2, "a", "c", GameState::Draw, "repetition"));
        let s = t.summary(Some(&sprt));
        assert!(s.starts_with("+1 =1 -1 50.0% Elo +0.0 ±"), "{s}");
        assert!(s.contains(" LLR "), "{s}");
        assert!(s.ends_with("(-2.94, 2.94)"), "{s}");
    }

    #[test]
    fn sprt_uses_the_first_pairing() {
        let sprt = Sprt {
            params: SprtParams::parse("elo0=0,elo1=10").unwrap(),
            model: SprtModel::Pentanomial,
        };
        let mut t = Tally::new(vec!["a".into(), "b".into()], Mode::Gauntlet);
        assert_eq!(t.sprt_decision(&sprt), SprtDecision::Continue);
        // 120 pairs won by `a`: the LLR is 3.40 (see the stats tests), above 2.94.
        for i in 0..240 {
            let (w, b) = if i % 2 == 0 { ("a", "b") } else { ("b", "a") };
            let result = if w == "a" {
                GameState::WhiteWins
            } else {
                GameState::BlackWins
            };
            t.add(&rec(i, w, b, result, "queen-surrounded"));
            if i == 39 {
                // 20 pairs are not enough.
                assert_eq!(t.sprt_decision(&sprt), SprtDecision::Continue);
            }
        }
        assert_eq!(t.sprt_decision(&sprt), SprtDecision::AcceptH1);
        assert!(t.report(Some(&sprt)).contains("H1 accepted"));
    }
}
