//! Fitting a [`Net`] (the evaluation's network correction) to self-play data.
//!
//! The model predicts the result of a position for the side to move as
//! `sigmoid(K * (linear + net(x)))`, where `linear` is the linear evaluation of the weights the
//! network is fitted for and `x` the network's inputs in that position (see [`Net`]); the loss
//! is the mean squared difference from the target of [`super::texel`] (the game's result
//! blended with the search's score by `lambda`). `K` is fitted to the linear evaluation alone,
//! and the network starts with zero output weights, so that training starts from the linear
//! evaluation exactly. Training is minibatch Adam in floating point over inputs scaled by their
//! spread, in a fixed order from a seed; with a held-out set it keeps the weights of the epoch
//! with the lowest held-out loss. The fitted network is then rounded to the integers the
//! evaluation uses, and its losses are reported for the rounded network.

use super::texel::{TuneError, fit_k_to, kept_before_split, read_positions, sigmoid, targets};
use crate::core::GameType;
use crate::eval::{EvalWeights, NET_INPUTS, NET_MAX_HIDDEN, NET_ONE, Net, evaluate, net_inputs};
use rand::rngs::StdRng;
use rand::seq::SliceRandom;
use rand::{Rng, SeedableRng};

/// Positions as network inputs, with the linear evaluation, result and search score.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct NetData {
    inputs: Vec<[i32; NET_INPUTS]>,
    linear: Vec<f64>,
    results: Vec<f64>,
    scores: Vec<f64>,
}

impl NetData {
    /// Reads data lines (see [`super::data`]) of the game types for which `keep` holds, as
    /// seen by the weights `w` (without their network, if they have one); blank lines are
    /// ignored and finished games left out.
    pub fn from_text_where(
        text: &str,
        w: &EvalWeights,
        keep: impl Fn(GameType) -> bool,
    ) -> Result<NetData, TuneError> {
        let w = EvalWeights {
            net: None,
            ..w.clone()
        };
        let mut d = NetData::default();
        read_positions(text, keep, |game, s| {
            if !game.state().is_over() {
                d.inputs.push(net_inputs(game, &w));
                d.linear.push(f64::from(evaluate(game, &w)));
                d.results.push(s.result.value());
                d.scores.push(f64::from(s.score));
            }
        })?;
        if d.inputs.is_empty() {
            return Err(TuneError::Empty);
        }
        Ok(d)
    }

    /// Number of positions.
    pub fn len(&self) -> usize {
        self.inputs.len()
    }

    /// No positions.
    pub fn is_empty(&self) -> bool {
        self.inputs.is_empty()
    }

    /// Moves the last `fraction` of the positions into a new set (see
    /// [`Dataset::split_off`](super::texel::Dataset::split_off)).
    pub fn split_off(&mut self, fraction: f64) -> NetData {
        let keep = kept_before_split(self.len(), fraction);
        NetData {
            inputs: self.inputs.split_off(keep),
            linear: self.linear.split_off(keep),
            results: self.results.split_off(keep),
            scores: self.scores.split_off(keep),
        }
    }

    fn targets(&self, k: f64, lambda: f64) -> Vec<f64> {
        targets(&self.results, &self.scores, k, lambda)
    }

    /// The mean squared error of `net` (or of the linear evaluation alone) against `targets`.
    fn loss(&self, net: Option<&Net>, targets: &[f64], k: f64) -> f64 {
        let mut sum = 0.0;
        for ((x, &lin), &t) in self.inputs.iter().zip(&self.linear).zip(targets) {
            let e = lin + net.map_or(0.0, |n| f64::from(n.forward(x)));
            let p = sigmoid(k * e);
            sum += (p - t) * (p - t);
        }
        sum / self.len().max(1) as f64
    }
}

/// How to fit a network.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct NetOptions {
    /// Hidden units, 1 to [`NET_MAX_HIDDEN`] (a number outside is brought within).
    pub hidden: usize,
    /// Passes over the data.
    pub epochs: u32,
    /// Share of the search's score in the target (see [`super::texel::TuneOptions::lambda`]).
    pub lambda: f64,
    /// Adam's step size.
    pub learning_rate: f64,
    /// Positions per step.
    pub batch: usize,
    /// Seed of the starting weights and of the order of the positions.
    pub seed: u64,
}

/// What one epoch of [`train`] did.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct NetEpoch {
    /// The epoch, from 1.
    pub epoch: u32,
    /// The training loss of the rounded network after it.
    pub loss: f64,
    /// Its held-out loss, when there is a held-out set.
    pub held_out: Option<f64>,
}

/// The outcome of [`train`].
#[derive(Clone, Debug, PartialEq)]
pub struct NetResult {
    /// The fitted network, rounded.
    pub net: Net,
    /// The scale fitted to the linear evaluation.
    pub k: f64,
    /// The training loss of the linear evaluation alone, and with the network.
    pub loss: (f64, f64),
    /// The same on the held-out set, when there is one.
    pub held_out: Option<(f64, f64)>,
    /// The epoch whose weights were kept.
    pub best_epoch: u32,
}

/// The network in floating point over scaled inputs `x[i] / scale[i]`: hidden unit `j` is
/// `clamp(b1[j] + sum_i w1[j][i] * x[i] / scale[i], 0, 1)`, the output `OUT * sum_j w2[j] *
/// h[j]` in evaluation units.
struct FloatNet {
    w1: Vec<f64>,
    b1: Vec<f64>,
    w2: Vec<f64>,
}

/// The output scale of [`FloatNet`], so that its weights are all of order one.
const OUT: f64 = 100.0;

impl FloatNet {
    /// Rounds to the integer network of [`Net`] for inputs scaled by `scale`.
    fn round(&self, scale: &[f64; NET_INPUTS]) -> Net {
        let one = NET_ONE as f64;
        let w1 = self
            .w1
            .chunks_exact(NET_INPUTS)
            .flat_map(|row| {
                row.iter()
                    .zip(scale)
                    .map(move |(w, s)| (w / s * one).round() as i32)
            })
            .collect();
        let b1 = self.b1.iter().map(|b| (b * one).round() as i32).collect();
        let w2 = self.w2.iter().map(|w| (w * OUT).round() as i32).collect();
        Net::new(w1, b1, w2).expect("shapes match by construction")
    }
}

/// Adam's state for one parameter vector.
struct Adam {
    m: Vec<f64>,
    v: Vec<f64>,
}

impl Adam {
    fn new(n: usize) -> Adam {
        Adam {
            m: vec![0.0; n],
            v: vec![0.0; n],
        }
    }

    fn step(&mut self, params: &mut [f64], grads: &[f64], lr: f64, t: i32) {
        const B1: f64 = 0.9;
        const B2: f64 = 0.999;
        let (c1, c2) = (1.0 - B1.powi(t), 1.0 - B2.powi(t));
        for (((p, &g), m), v) in params
            .iter_mut()
            .zip(grads)
            .zip(&mut self.m)
            .zip(&mut self.v)
        {
            *m = B1 * *m + (1.0 - B1) * g;
            *v = B2 * *v + (1.0 - B2) * g * g;
            *p -= lr * (*m / c1) / ((*v / c2).sqrt() + 1e-8);
        }
    }
}

/// Fits a network with `options` to `data`, with early stopping on `held_out` if given,
/// reporting each epoch to `progress`.
pub fn train(
    data: &NetData,
    held_out: Option<&NetData>,
    options: NetOptions,
    progress: &mut dyn FnMut(NetEpoch),
) -> Result<NetResult, TuneError> {
    if data.is_empty() {
        return Err(TuneError::Empty);
    }
    let held_out = held_out.filter(|h| !h.is_empty());
    let k = fit_k_to(&data.linear, &data.results);
    let targets = data.targets(k, options.lambda);
    let held_targets = held_out.map(|h| h.targets(k, options.lambda));
    let hidden = options.hidden.clamp(1, NET_MAX_HIDDEN);
    // Each input's root mean square, so that scaled inputs are of order one.
    let scale: [f64; NET_INPUTS] = std::array::from_fn(|i| {
        let s: f64 = data.inputs.iter().map(|x| f64::from(x[i]).powi(2)).sum();
        (s / data.len() as f64).sqrt().max(1.0)
    });
    let mut rng = StdRng::seed_from_u64(options.seed);
    let spread = 1.0 / (NET_INPUTS as f64).sqrt();
    let mut net = FloatNet {
        w1: (0..hidden * NET_INPUTS)
            .map(|_| rng.gen_range(-spread..spread))
            .collect(),
        b1: vec![0.5; hidden],
        w2: vec![0.0; hidden],
    };
    let (mut a1, mut ab, mut a2) = (
        Adam::new(net.w1.len()),
        Adam::new(hidden),
        Adam::new(hidden),
    );
    let loss_of = |n: &Net| data.loss(Some(n), &targets, k);
    let held_loss_of = |n: &Net| {
        held_out
            .zip(held_targets.as_ref())
            .map(|(h, t)| h.loss(Some(n), t, k))
    };
    let linear_loss = data.loss(None, &targets, k);
    let held_linear = held_out
        .zip(held_targets.as_ref())
        .map(|(h, t)| h.loss(None, t, k));
    let mut best = (net.round(&scale), held_linear.unwrap_or(linear_loss), 0);
    let mut order: Vec<usize> = (0..data.len()).collect();
    let (mut g1, mut gb, mut g2) = (
        vec![0.0; net.w1.len()],
        vec![0.0; hidden],
        vec![0.0; hidden],
    );
    let (mut pre, mut h) = (vec![0.0; hidden], vec![0.0; hidden]);
    let mut step = 0;
    for epoch in 1..=options.epochs {
        order.shuffle(&mut rng);
        for batch in order.chunks(options.batch.max(1)) {
            g1.fill(0.0);
            gb.fill(0.0);
            g2.fill(0.0);
            for &n in batch {
                let x: [f64; NET_INPUTS] =
                    std::array::from_fn(|i| f64::from(data.inputs[n][i]) / scale[i]);
                let mut out = 0.0;
                for j in 0..hidden {
                    let row = &net.w1[j * NET_INPUTS..(j + 1) * NET_INPUTS];
                    pre[j] = net.b1[j] + row.iter().zip(&x).map(|(w, x)| w * x).sum::<f64>();
                    h[j] = pre[j].clamp(0.0, 1.0);
                    out += OUT * net.w2[j] * h[j];
                }
                let p = sigmoid(k * (data.linear[n] + out));
                // d loss / d out.
                let d = 2.0 * (p - targets[n]) * p * (1.0 - p) * k / batch.len() as f64;
                for j in 0..hidden {
                    g2[j] += d * OUT * h[j];
                    if pre[j] > 0.0 && pre[j] < 1.0 {
                        let dp = d * OUT * net.w2[j];
                        gb[j] += dp;
                        for (g, x) in g1[j * NET_INPUTS..(j + 1) * NET_INPUTS].iter_mut().zip(&x) {
                            *g += dp * x;
                        }
                    }
                }
            }
            step += 1;
            a1.step(&mut net.w1, &g1, options.learning_rate, step);
            ab.step(&mut net.b1, &gb, options.learning_rate, step);
            a2.step(&mut net.w2, &g2, options.learning_rate, step);
        }
        let rounded = net.round(&scale);
        let report = NetEpoch {
            epoch,
            loss: loss_of(&rounded),
            held_out: held_loss_of(&rounded),
        };
        progress(report);
        let judged = report.held_out.unwrap_or(report.loss);
        if judged < best.1 {
            best = (rounded, judged, epoch);
        }
    }
    let (net, _, best_epoch) = best;
    Ok(NetResult {
        loss: (linear_loss, loss_of(&net)),
        held_out: held_linear.zip(held_loss_of(&net)),
        net,
        k,
        best_epoch,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::Game;
    use crate::eval::Term;
    use crate::learn::data::{Outcome, Sample};

    /// Data in which the side to move wins exactly when its pieces can leave their cells in
    /// more directions than the opponent's: a sharp rule the linear evaluation (whose weights
    /// are fixed) predicts poorly, which the network must learn to lower the loss.
    fn games() -> String {
        let mut lines = Vec::new();
        let mut seed = 0x2545_f491_4f6c_dd1d_u64;
        let w = EvalWeights::default();
        for _ in 0..40 {
            let mut g = Game::new(GameType::BASE);
            for _ in 0..30 {
                if g.state().is_over() {
                    break;
                }
                let moves = g.legal_moves();
                seed ^= seed << 13;
                seed ^= seed >> 7;
                seed ^= seed << 17;
                g.play_unchecked(moves[(seed % moves.len() as u64) as usize]);
                if g.state().is_over() {
                    break;
                }
                let x = net_inputs(&g, &w);
                let result = if x[Term::Reach as usize] > x[8 + Term::Reach as usize] {
                    Outcome::Win
                } else {
                    Outcome::Loss
                };
                let s = Sample {
                    game: crate::notation::game_string(&g),
                    score: 0,
                    result,
                };
                lines.push(s.to_line());
            }
        }
        lines.join("\n")
    }

    #[test]
    fn training_lowers_the_loss_and_is_reproducible() {
        let text = games();
        let w = EvalWeights::default();
        let mut data = NetData::from_text_where(&text, &w, |_| true).expect("valid data");
        let held = data.split_off(0.2);
        assert!(
            data.len() > 300 && held.len() > 50,
            "{} {}",
            data.len(),
            held.len()
        );
        let options = NetOptions {
            hidden: 8,
            epochs: 30,
            lambda: 0.0,
            learning_rate: 0.01,
            batch: 32,
            seed: 7,
        };
        let mut epochs = 0;
        let r = train(&data, Some(&held), options, &mut |_| epochs += 1).expect("trains");
        assert_eq!(epochs, 30);
        assert!(r.loss.1 < r.loss.0 * 0.9, "{:?}", r.loss);
        let (before, after) = r.held_out.expect("held-out set");
        assert!(after < before, "{before} {after}");
        let again = train(&data, Some(&held), options, &mut |_| {}).expect("trains");
        assert_eq!(again.net, r.net);
        assert!(NetData::from_text_where("", &w, |_| true).is_err());
    }
}
