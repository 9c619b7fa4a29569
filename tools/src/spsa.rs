//! SPSA: tuning an engine's numeric parameters by self-play.
//!
//! Simultaneous perturbation stochastic approximation moves every parameter at once. At
//! iteration `k` each parameter `i` is pushed by `c_k[i]` up or down (a random sign `s[i]`);
//! the engine with `theta + c_k * s` plays a game pair (one opening, both colours) against the
//! engine with `theta - c_k * s`; with `r` the first engine's wins minus losses over the pair,
//! every parameter moves by `a_k[i] * r * s[i] / c_k[i]`. The gains follow the usual schedule:
//! `c_k = c / k^0.101` and `a_k = a / (A + k)^0.602` with `A` a tenth of the iterations, `c`
//! chosen so that `c_N` is the perturbation given for the last iteration (`c_end`), and `a` so
//! that `a_N / c_N^2` is `r_end` (the learning rate at the end), as in the tuning framework of
//! the chess engine testing tools. The result is a candidate; an SPRT decides whether it lands.
//!
//! The engine gets the values through its command line (`--search NAME=VALUE`, rounded to
//! integers), so every game pair starts both engines afresh.

use crate::arena::game::{GameSettings, Seat, TimeFormat, play_game};
use crate::error::ToolError;
use crate::openings::Opening;
use crate::process::{EngineSpec, UhpProcess};
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use std::io::Write;
use std::path::PathBuf;
use std::sync::atomic::AtomicBool;
use std::sync::{Mutex, mpsc};
use waggle::core::GameState;

/// Exponent of the perturbations' decay.
const GAMMA: f64 = 0.101;
/// Exponent of the steps' decay.
const ALPHA: f64 = 0.602;

/// One tuned parameter.
#[derive(Clone, Debug, PartialEq)]
pub struct SpsaParam {
    /// The engine's name for it (`--search NAME=VALUE`).
    pub name: String,
    /// Its starting value.
    pub start: f64,
    /// The lowest value it may take.
    pub min: f64,
    /// The highest value it may take.
    pub max: f64,
    /// The perturbation at the last iteration.
    pub c_end: f64,
}

impl SpsaParam {
    /// Parses `NAME=START,MIN,MAX,C_END`.
    pub fn parse(s: &str) -> Result<SpsaParam, ToolError> {
        let bad = |why: &str| {
            ToolError::Config(format!(
                "bad parameter '{s}': {why} (expected NAME=START,MIN,MAX,C_END)"
            ))
        };
        let (name, values) = s.split_once('=').ok_or_else(|| bad("no '='"))?;
        let name = name.trim();
        if name.is_empty() || name.contains(char::is_whitespace) {
            return Err(bad("no name"));
        }
        let v: Vec<f64> = values
            .split(',')
            .map(|x| x.trim().parse::<f64>())
            .collect::<Result<_, _>>()
            .map_err(|_| bad("not a number"))?;
        let [start, min, max, c_end] = v[..] else {
            return Err(bad("four numbers are needed"));
        };
        if !v.iter().all(|x| x.is_finite()) || min > max || !(min..=max).contains(&start) {
            return Err(bad("START must lie within MIN..MAX"));
        }
        if c_end <= 0.0 {
            return Err(bad("C_END must be above 0"));
        }
        Ok(SpsaParam {
            name: name.to_string(),
            start,
            min,
            max,
            c_end,
        })
    }
}

/// The state of a tuning run: the parameters' current values and the schedule.
#[derive(Clone, Debug)]
pub struct Spsa {
    /// The parameters.
    pub params: Vec<SpsaParam>,
    /// Their current values.
    pub theta: Vec<f64>,
    /// Planned iterations (game pairs).
    pub iterations: usize,
    /// Learning rate at the last iteration.
    pub r_end: f64,
}

impl Spsa {
    /// A run from the parameters' starting values.
    pub fn new(params: Vec<SpsaParam>, iterations: usize, r_end: f64) -> Spsa {
        Spsa {
            theta: params.iter().map(|p| p.start).collect(),
            params,
            iterations: iterations.max(1),
            r_end,
        }
    }

    fn stability(&self) -> f64 {
        0.1 * self.iterations as f64
    }

    /// The perturbation of parameter `i` at iteration `k` (from 1).
    pub fn c(&self, i: usize, k: usize) -> f64 {
        let n = self.iterations as f64;
        self.params[i].c_end * (n / k as f64).powf(GAMMA)
    }

    /// The step gain of parameter `i` at iteration `k` (from 1).
    pub fn a(&self, i: usize, k: usize) -> f64 {
        let n = self.iterations as f64;
        let big_a = self.stability();
        let a_end = self.r_end * self.params[i].c_end * self.params[i].c_end;
        a_end * ((big_a + n) / (big_a + k as f64)).powf(ALPHA)
    }

    /// The random signs of iteration `k`: the same for a given `seed` and `k`.
    pub fn signs(&self, seed: u64, k: usize) -> Vec<f64> {
        let mut rng = StdRng::seed_from_u64(seed ^ (k as u64).wrapping_mul(0x9e37_79b9_7f4a_7c15));
        (0..self.params.len())
            .map(|_| if rng.r#gen::<bool>() { 1.0 } else { -1.0 })
            .collect()
    }

    /// The values the two engines of iteration `k` play with (`theta + c_k * signs`, then
    /// `theta - c_k * signs`), rounded and kept within each parameter's range.
    pub fn perturbed(&self, k: usize, signs: &[f64]) -> [Vec<i64>; 2] {
        [1.0, -1.0].map(|side| {
            (0..self.params.len())
                .map(|i| {
                    let p = &self.params[i];
                    let v = self.theta[i] + side * self.c(i, k) * signs[i];
                    v.clamp(p.min, p.max).round() as i64
                })
                .collect()
        })
    }

    /// Moves every parameter after iteration `k`, where the first engine scored `result`
    /// (wins minus losses over the pair, -2 to 2) against the second.
    pub fn update(&mut self, k: usize, signs: &[f64], result: f64) {
        for (i, &sign) in signs.iter().enumerate().take(self.params.len()) {
            let step = self.a(i, k) * result * sign / self.c(i, k);
            let p = &self.params[i];
            self.theta[i] = (self.theta[i] + step).clamp(p.min, p.max);
        }
    }

    /// The current values as engine arguments: `--search NAME=VALUE` for each (rounded).
    pub fn arguments(values: &[i64], params: &[SpsaParam]) -> Vec<String> {
        params
            .iter()
            .zip(values)
            .flat_map(|(p, v)| ["--search".to_string(), format!("{}={v}", p.name)])
            .collect()
    }

    /// The header line of the log (TAB-separated): `iteration`, `result`, then the names.
    pub fn log_header(&self) -> String {
        let names: Vec<&str> = self.params.iter().map(|p| p.name.as_str()).collect();
        format!("iteration\tresult\t{}", names.join("\t"))
    }

    /// A log line: the iteration, its result and the values after its update.
    pub fn log_line(&self, k: usize, result: f64) -> String {
        let values: Vec<String> = self.theta.iter().map(|t| format!("{t:.4}")).collect();
        format!("{k}\t{result}\t{}", values.join("\t"))
    }

    /// Takes up a run from its log: the values of its last line, and as many iterations done
    /// as it has lines (their order is that in which pairs finished). The log must name the
    /// same parameters in the same order.
    pub fn resume(&mut self, log: &str) -> Result<usize, ToolError> {
        let mut lines = log.lines().filter(|l| !l.starts_with('#') && !l.is_empty());
        match lines.next() {
            Some(h) if h == self.log_header() => {}
            Some(_) => {
                return Err(ToolError::Config(
                    "the log tunes other parameters (its header differs)".into(),
                ));
            }
            None => return Ok(0),
        }
        let mut done = 0;
        for line in lines {
            let fields: Vec<&str> = line.split('\t').collect();
            let values: Option<Vec<f64>> = fields
                .get(2..)
                .filter(|v| v.len() == self.params.len())
                .and_then(|v| v.iter().map(|x| x.parse().ok()).collect());
            let Some(values) = values else {
                return Err(ToolError::Config(format!("bad log line '{line}'")));
            };
            self.theta = values;
            done += 1;
        }
        Ok(done)
    }
}

/// A tuning run's settings.
pub struct SpsaConfig {
    /// The engine, without the tuned parameters (they are appended to its arguments).
    pub engine: EngineSpec,
    /// The run.
    pub spsa: Spsa,
    /// One opening per iteration (iteration `k` plays `openings[(k - 1) % len]`).
    pub openings: Vec<Opening>,
    /// The games' settings.
    pub settings: GameSettings,
    /// Game pairs played at once.
    pub concurrency: usize,
    /// Seed of the perturbations' signs.
    pub seed: u64,
    /// The log file (`spsa.tsv`); with `resume`, an existing log is taken up.
    pub log_path: PathBuf,
    /// Take up the log instead of starting afresh.
    pub resume: bool,
}

/// The first engine's wins minus losses over a pair.
fn pair_result(results: [GameState; 2]) -> f64 {
    // In the first game the first engine is White, in the second Black.
    let score = |r: GameState, white: bool| match (r, white) {
        (GameState::WhiteWins, true) | (GameState::BlackWins, false) => 1.0,
        (GameState::WhiteWins, false) | (GameState::BlackWins, true) => -1.0,
        _ => 0.0,
    };
    score(results[0], true) + score(results[1], false)
}

/// The engine given `values` of the parameters.
fn engine_with(config: &SpsaConfig, values: &[i64]) -> EngineSpec {
    let mut spec = config.engine.clone();
    spec.args
        .extend(Spsa::arguments(values, &config.spsa.params));
    spec
}

/// Plays the pair of iteration `k`; `None` if a game was abandoned.
fn play_pair(config: &SpsaConfig, values: &[Vec<i64>; 2], k: usize) -> Option<f64> {
    let specs = values.clone().map(|v| engine_with(config, &v));
    let opening = &config.openings[(k - 1) % config.openings.len()];
    let stop = AtomicBool::new(false);
    let mut results = [GameState::Draw; 2];
    for (g, result) in results.iter_mut().enumerate() {
        let (mut p0, mut p1) = (None, None);
        let (w, b) = if g == 0 { (0, 1) } else { (1, 0) };
        let mut seats = [
            Seat {
                spec: &specs[w],
                time_format: TimeFormat::Fractions,
                process: &mut p0,
            },
            Seat {
                spec: &specs[b],
                time_format: TimeFormat::Fractions,
                process: &mut p1,
            },
        ];
        *result = play_game(opening, &mut seats, &config.settings, &stop)?.result;
    }
    Some(pair_result(results))
}

/// Runs the tuning: plays the iterations not yet in the log, `concurrency` pairs at once,
/// appends a line to the log after each update, and reports progress to `progress`. Returns
/// the final values.
pub fn run_spsa(config: &SpsaConfig, progress: &mut dyn Write) -> Result<Vec<f64>, ToolError> {
    let mut spsa = config.spsa.clone();
    // An engine that does not start, or refuses a parameter's name, would lose every game.
    let start: Vec<i64> = spsa.theta.iter().map(|t| t.round() as i64).collect();
    let spec = engine_with(config, &start);
    UhpProcess::start(&spec, config.settings.reply_timeout).map_err(|error| ToolError::Engine {
        name: spec.command_line(),
        error,
    })?;
    let path = &config.log_path;
    let mut done = 0;
    if config.resume && path.exists() {
        let text = std::fs::read_to_string(path).map_err(|e| ToolError::io(path, e))?;
        done = spsa.resume(&text)?;
    } else {
        let header = format!(
            "# waggle arena spsa: {} iterations, r_end {}, engine {}\n{}\n",
            spsa.iterations,
            spsa.r_end,
            config.engine.command_line(),
            spsa.log_header()
        );
        std::fs::write(path, header).map_err(|e| ToolError::io(path, e))?;
    }
    let mut log = std::fs::OpenOptions::new()
        .append(true)
        .open(path)
        .map_err(|e| ToolError::io(path, e))?;
    let total = spsa.iterations;
    // Iterations are handed out in order; updates are applied as pairs finish.
    let next = Mutex::new(done + 1);
    let state = Mutex::new(spsa);
    let (tx, rx) = mpsc::channel::<(usize, Vec<f64>, Option<f64>)>();
    std::thread::scope(|scope| -> Result<(), ToolError> {
        for _ in 0..config.concurrency.max(1) {
            let tx = tx.clone();
            let (next, state) = (&next, &state);
            scope.spawn(move || {
                loop {
                    let k = {
                        let mut n = next.lock().unwrap_or_else(|e| e.into_inner());
                        if *n > total {
                            return;
                        }
                        *n += 1;
                        *n - 1
                    };
                    let (signs, values) = {
                        let s = state.lock().unwrap_or_else(|e| e.into_inner());
                        let signs = s.signs(config.seed, k);
                        let values = s.perturbed(k, &signs);
                        (signs, values)
                    };
                    let result = play_pair(config, &values, k);
                    if tx.send((k, signs, result)).is_err() || result.is_none() {
                        return;
                    }
                }
            });
        }
        drop(tx);
        for (k, signs, result) in rx {
            let Some(result) = result else {
                continue;
            };
            let mut s = state.lock().unwrap_or_else(|e| e.into_inner());
            s.update(k, &signs, result);
            done += 1;
            writeln!(log, "{}", s.log_line(k, result)).map_err(|e| ToolError::io(path, e))?;
            let values: Vec<String> = s
                .params
                .iter()
                .zip(&s.theta)
                .map(|(p, t)| format!("{}={t:.2}", p.name))
                .collect();
            let _ = writeln!(
                progress,
                "[{done}/{total}] iteration {k}: {result:+} | {}",
                values.join(" ")
            );
        }
        Ok(())
    })?;
    let s = state.into_inner().unwrap_or_else(|e| e.into_inner());
    Ok(s.theta)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn two() -> Vec<SpsaParam> {
        vec![
            SpsaParam::parse("lmr_percent=100,50,200,10").unwrap(),
            SpsaParam::parse("rfp_margin=60,0,200,8").unwrap(),
        ]
    }

    #[test]
    fn parameters_parse_and_bad_ones_are_refused() {
        let p = SpsaParam::parse(" lmp_base = 4, 1, 10, 0.5").unwrap();
        assert_eq!(
            p,
            SpsaParam {
                name: "lmp_base".into(),
                start: 4.0,
                min: 1.0,
                max: 10.0,
                c_end: 0.5
            }
        );
        for bad in [
            "lmp_base",
            "=4,1,10,1",
            "lmp_base=4,1,10",
            "lmp_base=4,1,10,1,2",
            "lmp_base=11,1,10,1",
            "lmp_base=4,10,1,1",
            "lmp_base=4,1,10,0",
            "lmp_base=4,1,x,1",
            "lmp_base=4,1,inf,1",
        ] {
            assert!(SpsaParam::parse(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn the_schedule_ends_at_the_given_perturbation_and_rate() {
        let s = Spsa::new(two(), 1000, 0.002);
        for i in 0..2 {
            let c_end = s.params[i].c_end;
            assert!((s.c(i, 1000) - c_end).abs() < 1e-9);
            assert!(s.c(i, 1) > s.c(i, 500) && s.c(i, 500) > c_end);
            let rate = s.a(i, 1000) / (c_end * c_end);
            assert!((rate - 0.002).abs() < 1e-12);
            assert!(s.a(i, 1) > s.a(i, 1000));
        }
    }

    #[test]
    fn a_win_of_the_first_engine_moves_towards_its_values() {
        let mut s = Spsa::new(two(), 100, 0.002);
        let signs = vec![1.0, -1.0];
        let [plus, minus] = s.perturbed(1, &signs);
        assert!(plus[0] > 100 && minus[0] < 100);
        assert!(plus[1] < 60 && minus[1] > 60);
        s.update(1, &signs, 2.0);
        assert!(s.theta[0] > 100.0 && s.theta[1] < 60.0);
        let before = s.theta.clone();
        s.update(2, &signs, 0.0);
        assert_eq!(s.theta, before);
        // Values stay within their range however large the step.
        for k in 3..200 {
            s.update(k, &signs, -2.0);
        }
        assert!(s.theta[0] >= 50.0 && s.theta[1] <= 200.0);
        assert_eq!(
            Spsa::arguments(&[120, 55], &s.params),
            ["--search", "lmr_percent=120", "--search", "rfp_margin=55"]
        );
    }

    #[test]
    fn signs_depend_on_the_seed_and_iteration_only() {
        let s = Spsa::new(two(), 100, 0.002);
        assert_eq!(s.signs(7, 3), s.signs(7, 3));
        let all: Vec<Vec<f64>> = (1..=40).map(|k| s.signs(7, k)).collect();
        assert!(all.iter().any(|v| v[0] > 0.0) && all.iter().any(|v| v[0] < 0.0));
        assert!(all.iter().flatten().all(|&x| x == 1.0 || x == -1.0));
    }

    #[test]
    fn pair_results_count_for_the_first_engine() {
        use GameState::*;
        assert_eq!(pair_result([WhiteWins, BlackWins]), 2.0);
        assert_eq!(pair_result([WhiteWins, WhiteWins]), 0.0);
        assert_eq!(pair_result([BlackWins, Draw]), -1.0);
        assert_eq!(pair_result([Draw, WhiteWins]), -1.0);
    }

    #[test]
    fn a_log_resumes_where_it_stopped() {
        let mut s = Spsa::new(two(), 100, 0.002);
        let mut log = format!("# comment\n{}\n", s.log_header());
        let signs = s.signs(1, 1);
        s.update(1, &signs, 1.0);
        log.push_str(&format!("{}\n", s.log_line(1, 1.0)));
        let mut t = Spsa::new(two(), 100, 0.002);
        assert_eq!(t.resume(&log).unwrap(), 1);
        for (a, b) in t.theta.iter().zip(&s.theta) {
            assert!((a - b).abs() < 1e-3);
        }
        let mut other = Spsa::new(two()[..1].to_vec(), 100, 0.002);
        assert!(other.resume(&log).is_err());
        assert!(
            t.resume(&format!("{}\n1\t0\tx\t1\n", t.log_header()))
                .is_err()
        );
        assert_eq!(Spsa::new(two(), 100, 0.002).resume("").unwrap(), 0);
    }
}
