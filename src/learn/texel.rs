//! Texel tuning: fitting [`EvalWeights`] to game results by logistic regression.
//!
//! The model predicts the result of a position for the side to move as
//! `sigmoid(K * eval)`, and the loss is the mean squared difference from a target: the game's
//! result (1, 0.5, 0), or a blend `(1 - lambda) * result + lambda * sigmoid(K * score)` with
//! the search's score of the position ([`TuneOptions::lambda`]). The evaluation is linear in every weight: each position is turned once into a feature
//! vector `f` with `eval = sum(w[i] * f[i])` (the evaluation with only weight `i` set, see
//! [`features`]; the only difference from [`evaluate`] is its rounding of the values blended
//! by game phase, a few units at most). [`tune`] first fits `K` to the starting weights, then
//! changes one integer weight at a time by steps of 1 while the loss falls (coordinate
//! descent), pass after pass, with `K` fixed. With a held-out set the descent stops at the
//! first pass that does not lower the held-out loss, and the weights of the best pass are kept
//! (early stopping: the fit to the training set alone always improves, the play does not).

use super::data::{DataError, Sample};
use crate::core::{Game, GameType};
use crate::eval::{EvalWeights, evaluate};
use crate::notation::{NotationError, parse_game_string};
use std::fmt;

/// Why a data set could not be read or tuned on.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum TuneError {
    /// A data line is malformed (1-based line number).
    Line(usize, DataError),
    /// A data line's GameString does not load (1-based line number).
    Game(usize, NotationError),
    /// No position to tune on.
    Empty,
}

impl fmt::Display for TuneError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            TuneError::Line(l, e) => write!(f, "line {l}: {e}"),
            TuneError::Game(l, e) => write!(f, "line {l}: bad GameString: {e}"),
            TuneError::Empty => write!(f, "no position to tune on"),
        }
    }
}

impl std::error::Error for TuneError {}

/// The feature vector of a position that is not over: entry `i` is the evaluation for the
/// side to move with weight `i` of [`EvalWeights::to_vec`] set to 1 and every other to 0
/// (computed exactly: with the weight at 256, divided by 256).
pub fn features(game: &Game) -> Vec<f64> {
    let count = EvalWeights::default().to_vec().len();
    let mut unit = vec![0; count];
    (0..count)
        .map(|i| {
            unit[i] = 256;
            let w = EvalWeights::from_slice(&unit).expect("one value per weight");
            unit[i] = 0;
            f64::from(evaluate(game, &w)) / 256.0
        })
        .collect()
}

/// Positions as feature vectors with their results.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Dataset {
    /// The feature vectors, one after another.
    features: Vec<f64>,
    /// The results for the side to move.
    results: Vec<f64>,
    /// The search's scores for the side to move.
    scores: Vec<f64>,
    /// Positions left out because the game was over.
    skipped: usize,
}

impl Dataset {
    /// The positions of `samples`; finished games are left out.
    pub fn from_samples<'a>(samples: impl IntoIterator<Item = &'a Sample>) -> Dataset {
        let mut d = Dataset::default();
        for s in samples {
            if let Ok(game) = parse_game_string(&s.game, true) {
                d.push(&game, s.result.value(), s.score);
            }
        }
        d
    }

    /// Reads data lines (see [`super::data`]); blank lines are ignored and finished games
    /// left out.
    pub fn from_text(text: &str) -> Result<Dataset, TuneError> {
        Dataset::from_text_where(text, |_| true)
    }

    /// [`Dataset::from_text`] keeping only the positions of the game types for which `keep`
    /// holds.
    pub fn from_text_where(
        text: &str,
        keep: impl Fn(GameType) -> bool,
    ) -> Result<Dataset, TuneError> {
        let mut d = Dataset::default();
        read_positions(text, keep, |game, s| {
            d.push(game, s.result.value(), s.score)
        })?;
        Ok(d)
    }

    fn push(&mut self, game: &Game, result: f64, score: i32) {
        if game.state().is_over() {
            self.skipped += 1;
            return;
        }
        self.features.extend(features(game));
        self.results.push(result);
        self.scores.push(f64::from(score));
    }

    /// Moves the last `fraction` of the positions (at least one when there are two or more,
    /// and never all) into a new data set, to be held out of the fit. Data files are written
    /// in game order, so the two sets share at most one game.
    pub fn split_off(&mut self, fraction: f64) -> Dataset {
        let n = self.len();
        let keep = kept_before_split(n, fraction);
        let width = self.features.len() / n.max(1);
        Dataset {
            features: self.features.split_off(keep * width),
            results: self.results.split_off(keep),
            scores: self.scores.split_off(keep),
            skipped: 0,
        }
    }

    fn targets(&self, k: f64, lambda: f64) -> Vec<f64> {
        targets(&self.results, &self.scores, k, lambda)
    }

    /// Number of positions.
    pub fn len(&self) -> usize {
        self.results.len()
    }

    /// No positions.
    pub fn is_empty(&self) -> bool {
        self.results.is_empty()
    }

    /// Positions left out because their game was over.
    pub fn skipped(&self) -> usize {
        self.skipped
    }

    /// The linear evaluation of every position with weights `w`.
    fn evals(&self, w: &[i32]) -> Vec<f64> {
        self.features
            .chunks_exact(w.len())
            .map(|f| f.iter().zip(w).map(|(x, &w)| x * f64::from(w)).sum())
            .collect()
    }

    /// The mean squared error of `sigmoid(k * (evals + step * feature i))` against
    /// `targets` (`step` 0 for the evaluations as they are).
    fn loss(&self, evals: &[f64], targets: &[f64], k: f64, i: usize, step: f64) -> f64 {
        let n = evals.len();
        let width = self.features.len() / n.max(1);
        let mut sum = 0.0;
        for (j, (&e, &t)) in evals.iter().zip(targets).enumerate() {
            let p = sigmoid(k * (e + step * self.features[j * width + i]));
            sum += (t - p) * (t - p);
        }
        sum / n as f64
    }

    /// The mean squared error of the predictions of weights `w` with scale `k` against the
    /// results.
    pub fn mean_error(&self, w: &EvalWeights, k: f64) -> f64 {
        self.loss(&self.evals(&w.to_vec()), &self.results, k, 0, 0.0)
    }
}

/// How many of `n` positions stay when the last `fraction` of them is held out: at least one
/// is held out when there are two or more and `fraction` is above 0, and never all.
pub(crate) fn kept_before_split(n: usize, fraction: f64) -> usize {
    let wanted = (n as f64 * fraction.clamp(0.0, 1.0)).round() as usize;
    n - wanted.clamp(usize::from(fraction > 0.0 && n > 1), n.saturating_sub(1))
}

/// Calls `f` with every position of the data lines `text` (see [`super::data`]) whose game
/// type `keep` accepts, finished games included; blank lines are ignored.
pub(crate) fn read_positions(
    text: &str,
    keep: impl Fn(GameType) -> bool,
    mut f: impl FnMut(&Game, &Sample),
) -> Result<(), TuneError> {
    for (i, line) in text.lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        let s = Sample::parse_line(line).map_err(|e| TuneError::Line(i + 1, e))?;
        let game = parse_game_string(&s.game, true).map_err(|e| TuneError::Game(i + 1, e))?;
        if keep(game.game_type()) {
            f(&game, &s);
        }
    }
    Ok(())
}

/// The targets of positions with these results and search scores:
/// `(1 - lambda) * result + lambda * sigmoid(k * score)`.
pub(crate) fn targets(results: &[f64], scores: &[f64], k: f64, lambda: f64) -> Vec<f64> {
    results
        .iter()
        .zip(scores)
        .map(|(&r, &s)| (1.0 - lambda) * r + lambda * sigmoid(k * s))
        .collect()
}

pub(crate) fn sigmoid(x: f64) -> f64 {
    1.0 / (1.0 + (-x).exp())
}

/// The `K` that fits the data best with weights `w` (golden-section search of `ln K` between
/// 10^-5 and 1).
pub fn fit_k(data: &Dataset, w: &EvalWeights) -> f64 {
    fit_k_to(&data.evals(&w.to_vec()), &data.results)
}

/// The `K` for which `sigmoid(K * evals)` fits `results` best (see [`fit_k`]).
pub(crate) fn fit_k_to(evals: &[f64], results: &[f64]) -> f64 {
    let loss = |ln_k: f64| {
        let k = ln_k.exp();
        let sum: f64 = evals
            .iter()
            .zip(results)
            .map(|(&e, &r)| (r - sigmoid(k * e)).powi(2))
            .sum();
        sum / evals.len().max(1) as f64
    };
    let (mut lo, mut hi) = ((1e-5f64).ln(), 0.0f64);
    let g = (5f64.sqrt() - 1.0) / 2.0;
    let (mut a, mut b) = (hi - g * (hi - lo), lo + g * (hi - lo));
    let (mut fa, mut fb) = (loss(a), loss(b));
    for _ in 0..60 {
        if fa < fb {
            hi = b;
            (b, fb) = (a, fa);
            a = hi - g * (hi - lo);
            fa = loss(a);
        } else {
            lo = a;
            (a, fa) = (b, fb);
            b = lo + g * (hi - lo);
            fb = loss(b);
        }
    }
    ((lo + hi) / 2.0).exp()
}

/// What one pass of [`tune`] did.
#[derive(Clone, Debug, PartialEq)]
pub struct TunePass {
    /// The pass, from 1.
    pub pass: u32,
    /// The loss after it.
    pub loss: f64,
    /// The held-out loss after it, when there is a held-out set.
    pub held_out: Option<f64>,
    /// Weights changed in it.
    pub changed: usize,
}

/// The outcome of [`tune`].
#[derive(Clone, Debug, PartialEq)]
pub struct TuneResult {
    /// The fitted weights.
    pub weights: EvalWeights,
    /// The scale fitted to the starting weights.
    pub k: f64,
    /// The loss of the starting weights.
    pub initial_loss: f64,
    /// The loss of the fitted weights.
    pub final_loss: f64,
    /// The held-out loss of the starting and of the fitted weights, when there is a held-out
    /// set.
    pub held_out: Option<(f64, f64)>,
    /// Passes made.
    pub passes: u32,
}

/// How [`tune`] fits.
#[derive(Clone, Debug, PartialEq)]
pub struct TuneOptions {
    /// Most passes of coordinate descent.
    pub max_passes: u32,
    /// Share of the search's score in the target, from 0 (the game's result only) to 1 (the
    /// score only, squashed by the same `sigmoid(K * x)`).
    pub lambda: f64,
    /// The weights that may change, by index of [`EvalWeights::to_vec`] (`None`: all); the
    /// others keep their starting values.
    pub free: Option<Vec<bool>>,
}

/// Fits the weights, from `start`, to the targets of `data` (see [`TuneOptions`]): `K`
/// first (to the results, with the starting weights), then at most `max_passes` passes of
/// coordinate descent over the free weights, stopping early when a pass changes nothing or,
/// with a `held_out` set, when a pass does not lower its loss (the weights of the best pass
/// are returned). `progress` receives every pass.
pub fn tune(
    data: &Dataset,
    held_out: Option<&Dataset>,
    start: &EvalWeights,
    options: TuneOptions,
    progress: &mut dyn FnMut(&TunePass),
) -> Result<TuneResult, TuneError> {
    if data.is_empty() {
        return Err(TuneError::Empty);
    }
    let held_out = held_out.filter(|h| !h.is_empty());
    let k = fit_k(data, start);
    let targets = data.targets(k, options.lambda);
    let mut w = start.to_vec();
    let mut evals = data.evals(&w);
    let initial_loss = data.loss(&evals, &targets, k, 0, 0.0);
    let mut best = initial_loss;
    // The held-out targets, and the held-out loss of weights.
    let check = held_out.map(|h| (h, h.targets(k, options.lambda)));
    let check_loss = |w: &[i32]| {
        check
            .as_ref()
            .map(|(h, t)| h.loss(&h.evals(w), t, k, 0, 0.0))
    };
    let initial_held_out = check_loss(&w);
    let mut best_held_out = initial_held_out.map(|l| (l, w.clone(), best));
    let mut passes = 0;
    while passes < options.max_passes {
        passes += 1;
        let mut changed = 0;
        for i in 0..w.len() {
            if options
                .free
                .as_ref()
                .is_some_and(|f| !f.get(i).copied().unwrap_or(false))
            {
                continue;
            }
            let mut moved = false;
            for step in [1.0, -1.0] {
                loop {
                    let trial = data.loss(&evals, &targets, k, i, step);
                    if trial >= best - 1e-12 {
                        break;
                    }
                    best = trial;
                    w[i] += step as i32;
                    let width = w.len();
                    for (j, e) in evals.iter_mut().enumerate() {
                        *e += step * data.features[j * width + i];
                    }
                    moved = true;
                }
                if moved {
                    break;
                }
            }
            changed += moved as usize;
        }
        let pass_held_out = check_loss(&w);
        progress(&TunePass {
            pass: passes,
            loss: best,
            held_out: pass_held_out,
            changed,
        });
        if changed == 0 {
            break;
        }
        if let (Some(l), Some((best_l, best_w, best_loss))) = (pass_held_out, &mut best_held_out) {
            if l >= *best_l {
                break;
            }
            (*best_l, *best_w, *best_loss) = (l, w.clone(), best);
        }
    }
    let mut final_loss = best;
    let mut held_out_losses = None;
    if let (Some(first), Some((l, best_w, best_loss))) = (initial_held_out, best_held_out) {
        (w, final_loss, held_out_losses) = (best_w, best_loss, Some((first, l)));
    }
    Ok(TuneResult {
        weights: EvalWeights::from_slice(&w).expect("one value per weight"),
        k,
        initial_loss,
        final_loss,
        held_out: held_out_losses,
        passes,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::GameType;

    /// Positions of pseudo-random games of Base+MLP.
    fn positions(count: usize) -> Vec<Game> {
        let mut out = Vec::new();
        let mut seed = 0x2545_f491_4f6c_dd1d_u64;
        while out.len() < count {
            let mut g = Game::new(GameType::MLP);
            for _ in 0..60 {
                if g.state().is_over() {
                    break;
                }
                out.push(g.clone());
                let moves = g.legal_moves();
                seed = seed
                    .wrapping_mul(6364136223846793005)
                    .wrapping_add(1442695040888963407);
                g.play_unchecked(moves[(seed >> 33) as usize % moves.len()]);
            }
        }
        out.truncate(count);
        out
    }

    #[test]
    fn the_linear_model_is_the_evaluation() {
        let w = EvalWeights::default();
        let values = w.to_vec();
        for g in positions(300) {
            let linear: f64 = features(&g)
                .iter()
                .zip(&values)
                .map(|(f, &v)| f * f64::from(v))
                .sum();
            let exact = f64::from(evaluate(&g, &w));
            // Only the rounding of the phase-blended values differs.
            assert!((linear - exact).abs() <= 32.0, "{linear} vs {exact}");
        }
    }

    #[test]
    fn tuning_moves_the_weight_that_decides_the_results() {
        // The results follow an evaluation whose bonus for having the move is ten times
        // today's: the tuner, starting from today's weights, must raise it and fit better.
        let start = EvalWeights::default();
        let data = results_valuing_the_move_tenfold(&start);
        let mut passes = Vec::new();
        let r = tune(&data, None, &start, options(4, 0.0), &mut |p| {
            passes.push(p.clone())
        })
        .expect("data");
        assert!(r.weights.tempo > start.tempo, "{:?}", r.weights);
        assert!(r.final_loss < r.initial_loss, "{r:?}");
        assert_eq!(passes.len() as u32, r.passes);
        assert!(passes.windows(2).all(|p| p[1].loss <= p[0].loss));
        assert!(passes.iter().all(|p| p.held_out.is_none()) && r.held_out.is_none());
        assert_eq!(
            tune(
                &Dataset::default(),
                None,
                &start,
                options(1, 0.0),
                &mut |_| {}
            ),
            Err(TuneError::Empty)
        );
    }

    #[test]
    fn weights_that_are_not_free_keep_their_values() {
        // The same data as above, but only the Queen's danger may move: the move's bonus, which
        // decides the results, stays, and every other weight but the free ones too.
        let start = EvalWeights::default();
        let data = results_valuing_the_move_tenfold(&start);
        let ring = start.queen_ring.len();
        let mut free = vec![false; start.to_vec().len()];
        free[..ring].fill(true);
        let all = tune(&data, None, &start, options(2, 0.0), &mut |_| {}).expect("data");
        let some = TuneOptions {
            free: Some(free),
            ..options(2, 0.0)
        };
        let r = tune(&data, None, &start, some, &mut |_| {}).expect("data");
        assert!(all.weights.tempo > start.tempo, "{:?}", all.weights);
        assert_eq!(r.weights.tempo, start.tempo);
        assert_eq!(r.weights.to_vec()[ring..], start.to_vec()[ring..]);
        assert!(r.final_loss <= r.initial_loss);
    }

    /// The results of 400 positions as an evaluation would have them whose bonus for having
    /// the move is ten times `start`'s.
    fn results_valuing_the_move_tenfold(start: &EvalWeights) -> Dataset {
        let truth = EvalWeights {
            tempo: start.tempo * 10,
            ..start.clone()
        };
        let mut data = Dataset::default();
        for g in positions(400) {
            let e = evaluate(&g, &truth);
            data.push(&g, if e > 0 { 1.0 } else { 0.0 }, 0);
        }
        data
    }

    fn options(max_passes: u32, lambda: f64) -> TuneOptions {
        TuneOptions {
            max_passes,
            lambda,
            free: None,
        }
    }

    /// Every position drawn, with search scores from an evaluation that values the move
    /// ten times more than today's.
    fn drawn_with_scores(games: &[Game], truth: &EvalWeights) -> Dataset {
        let mut data = Dataset::default();
        for g in games {
            data.push(g, 0.5, evaluate(g, truth));
        }
        data
    }

    #[test]
    fn lambda_fits_the_search_scores() {
        let start = EvalWeights::default();
        let truth = EvalWeights {
            tempo: start.tempo * 10,
            ..start.clone()
        };
        let data = drawn_with_scores(&positions(400), &truth);
        // With the results alone (all draws) the move's bonus has nothing to follow; with the
        // scores it must rise.
        let scores = tune(&data, None, &start, options(4, 1.0), &mut |_| {}).expect("data");
        assert!(scores.weights.tempo > start.tempo, "{:?}", scores.weights);
        let results = tune(&data, None, &start, options(4, 0.0), &mut |_| {}).expect("data");
        assert!(
            results.weights.tempo <= start.tempo,
            "{:?}",
            results.weights
        );
    }

    #[test]
    fn a_held_out_set_stops_the_fit_when_it_stops_helping() {
        let start = EvalWeights::default();
        let more = EvalWeights {
            tempo: start.tempo * 10,
            ..start.clone()
        };
        let less = EvalWeights {
            tempo: -start.tempo * 10,
            ..start.clone()
        };
        let games = positions(600);
        let mut train = drawn_with_scores(&games, &more);
        let held = train.split_off(0.5);
        assert_eq!((train.len(), held.len()), (300, 300));
        // Held-out scores that agree with the training scores: the fit goes on.
        let r = tune(&train, Some(&held), &start, options(3, 1.0), &mut |_| {}).expect("data");
        let (first, last) = r.held_out.expect("held-out losses");
        assert!(last < first && r.weights.tempo > start.tempo, "{r:?}");
        // Held-out scores that disagree: the first pass makes them worse, so the starting
        // weights come back after it.
        let contrary = drawn_with_scores(&games[300..], &less);
        let mut passes = Vec::new();
        let r = tune(&train, Some(&contrary), &start, options(5, 1.0), &mut |p| {
            passes.push(p.clone())
        })
        .expect("data");
        assert_eq!(r.passes, 1, "{passes:?}");
        assert_eq!(r.weights, start);
        assert_eq!(r.final_loss, r.initial_loss);
        let (first, last) = r.held_out.expect("held-out losses");
        assert_eq!(first, last);
        assert!(passes[0].held_out.expect("held-out loss") > first);
    }
}
