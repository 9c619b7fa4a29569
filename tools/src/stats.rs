//! Match statistics: the Elo difference a score implies, its 95% confidence interval, the
//! likelihood of superiority, and the sequential probability ratio test (SPRT).
//!
//! All Elo figures use the logistic model: a player `d` Elo stronger is expected to score
//! `1 / (1 + 10^(-d/400))` per game.
//!
//! The SPRT is the generalised SPRT (GSPRT) of the multinomial outcome model. Outcomes `x_i`
//! (scores per game) were seen `n_i` times, `N` in all, `p_i = n_i / N`. For an expected
//! score `s`, the most likely outcome distribution with mean `s` is
//! `q_i(s) = p_i / (1 + l (x_i - s))`, where `l` solves `sum_i p_i (x_i - s) / (1 + l (x_i - s)) = 0`
//! (found by bisection; the left side decreases in `l`). The log-likelihood ratio of H1 (score
//! `s1`, from `elo1`) against H0 (`s0`, from `elo0`) is
//!
//! ```text
//! LLR = sum_i n_i ln(q_i(s1) / q_i(s0))
//! ```
//!
//! In the pentanomial model an outcome is a game pair (the same opening played with both
//! colours), scored 0, 1/4, 1/2, 3/4 or 1 per game; in the trinomial model it is a single
//! game, scored 0, 1/2 or 1. Pairs absorb the opening's bias, so the pentanomial model is the
//! default. An outcome class never seen is counted as 0.001 (regularisation: the constrained
//! distributions need some mass on both sides of `s`). The test stops when the LLR leaves
//! `[ln(beta/(1-alpha)), ln((1-beta)/alpha)]`: above, H1 (`elo >= elo1`) is accepted; below,
//! H0 (`elo <= elo0`). For large samples this agrees with the usual normal approximation
//! `N (s1 - s0)(2m - s0 - s1) / (2 v)` (mean `m`, variance `v`), but unlike it, it stays sound
//! for small or one-sided samples: a won pair adds about `ln(s1/s0)`, as in the classical SPRT.

use std::fmt;

/// The two-sided 95% quantile of the standard normal distribution.
pub const Z95: f64 = 1.959_963_984_540_054;

/// Count given to an outcome class never seen, in the SPRT.
const REGULARISATION: f64 = 1e-3;

/// Wins, draws and losses from one player's point of view.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Wdl {
    /// Games won.
    pub wins: u64,
    /// Games drawn.
    pub draws: u64,
    /// Games lost.
    pub losses: u64,
}

impl Wdl {
    /// Counts from the given numbers.
    pub const fn new(wins: u64, draws: u64, losses: u64) -> Wdl {
        Wdl {
            wins,
            draws,
            losses,
        }
    }

    /// Games played.
    pub const fn games(&self) -> u64 {
        self.wins + self.draws + self.losses
    }

    /// Points: a win is 1, a draw 1/2.
    pub fn points(&self) -> f64 {
        self.wins as f64 + self.draws as f64 / 2.0
    }

    /// The mean score per game, `None` before any game.
    pub fn score(&self) -> Option<f64> {
        let n = self.games();
        (n > 0).then(|| self.points() / n as f64)
    }

    /// The same counts from the opponent's point of view.
    pub const fn flipped(&self) -> Wdl {
        Wdl::new(self.losses, self.draws, self.wins)
    }

    /// Adds one game scored 1, 1/2 or 0 (given as 2, 1 or 0 half-points).
    pub fn add_half_points(&mut self, half_points: u8) {
        match half_points {
            2 => self.wins += 1,
            1 => self.draws += 1,
            _ => self.losses += 1,
        }
    }

    /// Adds other counts to these.
    pub fn merge(&mut self, other: &Wdl) {
        self.wins += other.wins;
        self.draws += other.draws;
        self.losses += other.losses;
    }
}

/// Game pairs classified by the points of one player over the two games: index `k` counts the
/// pairs where it scored `k/2` points (0 = lost both, 1 = a loss and a draw, 2 = two draws or a
/// win and a loss, 3 = a win and a draw, 4 = won both).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Pentanomial(pub [u64; 5]);

impl Pentanomial {
    /// Number of pairs.
    pub fn pairs(&self) -> u64 {
        self.0.iter().sum()
    }

    /// Adds a pair worth `half_points` (0..=4) half-points.
    pub fn add(&mut self, half_points: u8) {
        self.0[usize::from(half_points.min(4))] += 1;
    }

    /// The outcome distribution as (score per game, count) for [`llr`] and [`estimate`].
    pub fn outcomes(&self) -> [(f64, f64); 5] {
        std::array::from_fn(|k| (k as f64 / 4.0, self.0[k] as f64))
    }

    /// The same pairs from the opponent's point of view.
    pub fn flipped(&self) -> Pentanomial {
        let mut c = self.0;
        c.reverse();
        Pentanomial(c)
    }
}

/// The trinomial outcome distribution of `wdl` as (score, count), for [`llr`] and [`estimate`].
pub fn trinomial_outcomes(wdl: &Wdl) -> [(f64, f64); 3] {
    [
        (0.0, wdl.losses as f64),
        (0.5, wdl.draws as f64),
        (1.0, wdl.wins as f64),
    ]
}

/// The expected score per game of a player `elo` points stronger than its opponent.
pub fn expected_score(elo: f64) -> f64 {
    1.0 / (1.0 + 10f64.powf(-elo / 400.0))
}

/// The Elo difference that makes `score` the expected score; infinite at 0 and 1.
pub fn elo_from_score(score: f64) -> f64 {
    if score <= 0.0 {
        f64::NEG_INFINITY
    } else if score >= 1.0 {
        f64::INFINITY
    } else {
        // Adding 0 turns the -0 of an even score into 0.
        -400.0 * (1.0 / score - 1.0).log10() + 0.0
    }
}

/// An Elo difference with its 95% confidence interval.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct EloEstimate {
    /// The point estimate.
    pub elo: f64,
    /// Lower end of the 95% interval.
    pub lower: f64,
    /// Upper end of the 95% interval.
    pub upper: f64,
}

impl EloEstimate {
    /// Half the width of the interval (infinite when an end is).
    pub fn margin(&self) -> f64 {
        (self.upper - self.lower) / 2.0
    }
}

/// Mean and (population) variance of a weighted sample; `None` when the weights sum to zero.
fn mean_and_variance(outcomes: &[(f64, f64)]) -> Option<(f64, f64, f64)> {
    let n: f64 = outcomes.iter().map(|&(_, c)| c).sum();
    if n <= 0.0 {
        return None;
    }
    let mean = outcomes.iter().map(|&(x, c)| x * c).sum::<f64>() / n;
    let var = outcomes
        .iter()
        .map(|&(x, c)| c * (x - mean) * (x - mean))
        .sum::<f64>()
        / n;
    Some((n, mean, var))
}

/// The Elo difference and its 95% interval from an outcome distribution given as (score per
/// game, count): the normal approximation of the mean score, mapped through
/// [`elo_from_score`]. `None` without outcomes. Use [`trinomial_outcomes`] for single games
/// and [`Pentanomial::outcomes`] for game pairs.
pub fn estimate(outcomes: &[(f64, f64)]) -> Option<EloEstimate> {
    let (n, mean, var) = mean_and_variance(outcomes)?;
    let se = (var / n).sqrt();
    Some(EloEstimate {
        elo: elo_from_score(mean),
        lower: elo_from_score(mean - Z95 * se),
        upper: elo_from_score(mean + Z95 * se),
    })
}

/// Likelihood of superiority: the probability that the player with `wdl` is the stronger,
/// from wins and losses only (draws carry no information on it): `Phi((W-L)/sqrt(W+L))`.
/// One half when there are no decisive games.
pub fn los(wdl: &Wdl) -> f64 {
    let decisive = (wdl.wins + wdl.losses) as f64;
    if decisive == 0.0 {
        return 0.5;
    }
    let z = (wdl.wins as f64 - wdl.losses as f64) / decisive.sqrt();
    0.5 * (1.0 + erf(z / std::f64::consts::SQRT_2))
}

/// The error function, accurate to about 1e-14: its Maclaurin series below 3 and a continued
/// fraction for the complement above.
pub fn erf(x: f64) -> f64 {
    if x.is_nan() {
        return f64::NAN;
    }
    let a = x.abs();
    let value = if a < 3.0 {
        // erf(a) = 2/sqrt(pi) * sum_n (-1)^n a^(2n+1) / (n! (2n+1))
        let mut term = a;
        let mut sum = a;
        let mut n = 0.0;
        while term.abs() > 1e-17 * sum.abs() {
            n += 1.0;
            term *= -a * a / n;
            sum += term / (2.0 * n + 1.0);
        }
        sum * std::f64::consts::FRAC_2_SQRT_PI
    } else {
        // erfc(a) = exp(-a^2)/sqrt(pi) * 1/(a + (1/2)/(a + 1/(a + (3/2)/(a + 2/(a + ...)))))
        let mut f = a;
        for k in (1..60).rev() {
            f = a + (k as f64 / 2.0) / f;
        }
        1.0 - (-a * a).exp() / (std::f64::consts::PI.sqrt() * f)
    };
    if x < 0.0 { -value } else { value }
}

/// Parameters of a sequential probability ratio test.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SprtParams {
    /// The Elo difference of the null hypothesis.
    pub elo0: f64,
    /// The Elo difference of the alternative hypothesis.
    pub elo1: f64,
    /// Probability of accepting H1 when H0 holds.
    pub alpha: f64,
    /// Probability of accepting H0 when H1 holds.
    pub beta: f64,
}

/// Why an SPRT specification could not be read.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SprtParseError(pub String);

impl fmt::Display for SprtParseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "bad SPRT specification: {}", self.0)
    }
}

impl std::error::Error for SprtParseError {}

impl SprtParams {
    /// Parses `elo0=0,elo1=10,alpha=0.05,beta=0.05`; every key is optional (those are the
    /// defaults) and they may come in any order.
    pub fn parse(s: &str) -> Result<SprtParams, SprtParseError> {
        let mut p = SprtParams {
            elo0: 0.0,
            elo1: 10.0,
            alpha: 0.05,
            beta: 0.05,
        };
        for part in s.split(',').map(str::trim).filter(|t| !t.is_empty()) {
            let (key, value) = part
                .split_once('=')
                .ok_or_else(|| SprtParseError(format!("'{part}' is not key=value")))?;
            let v: f64 = value
                .trim()
                .parse()
                .map_err(|_| SprtParseError(format!("'{value}' is not a number")))?;
            match key.trim().to_ascii_lowercase().as_str() {
                "elo0" => p.elo0 = v,
                "elo1" => p.elo1 = v,
                "alpha" => p.alpha = v,
                "beta" => p.beta = v,
                other => return Err(SprtParseError(format!("unknown key '{other}'"))),
            }
        }
        if p.elo1.is_nan() || p.elo0.is_nan() || p.elo1 <= p.elo0 {
            return Err(SprtParseError("elo1 must be greater than elo0".into()));
        }
        for (name, v) in [("alpha", p.alpha), ("beta", p.beta)] {
            if v.is_nan() || v <= 0.0 || v >= 0.5 {
                return Err(SprtParseError(format!("{name} must lie in (0, 0.5)")));
            }
        }
        Ok(p)
    }

    /// The LLR below which H0 is accepted: `ln(beta / (1 - alpha))`.
    pub fn lower_bound(&self) -> f64 {
        (self.beta / (1.0 - self.alpha)).ln()
    }

    /// The LLR above which H1 is accepted: `ln((1 - beta) / alpha)`.
    pub fn upper_bound(&self) -> f64 {
        ((1.0 - self.beta) / self.alpha).ln()
    }

    /// What the test says at log-likelihood ratio `llr`.
    pub fn decide(&self, llr: f64) -> SprtDecision {
        if llr >= self.upper_bound() {
            SprtDecision::AcceptH1
        } else if llr <= self.lower_bound() {
            SprtDecision::AcceptH0
        } else {
            SprtDecision::Continue
        }
    }
}

impl fmt::Display for SprtParams {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "elo0={} elo1={} alpha={} beta={}",
            self.elo0, self.elo1, self.alpha, self.beta
        )
    }
}

/// The outcome of an SPRT so far.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SprtDecision {
    /// The upper bound was crossed: the Elo difference is at least `elo1`.
    AcceptH1,
    /// The lower bound was crossed: the Elo difference is at most `elo0`.
    AcceptH0,
    /// Neither bound was crossed.
    Continue,
}

/// The `l` of the most likely distribution with mean `mu` (see the module documentation), for
/// outcomes given as (score, probability); `None` unless outcomes lie on both sides of `mu`.
fn constrained_lambda(p: &[(f64, f64)], mu: f64) -> Option<f64> {
    let present = || p.iter().filter(|&&(_, q)| q > 0.0).map(|&(x, _)| x - mu);
    let dmax = present().fold(f64::NEG_INFINITY, f64::max);
    let dmin = present().fold(f64::INFINITY, f64::min);
    if !(dmax > 0.0 && dmin < 0.0) {
        return None;
    }
    // Every 1 + l d stays positive for l in (-1/dmax, -1/dmin); the sum falls from +inf to
    // -inf across that interval.
    let f = |l: f64| {
        p.iter()
            .map(|&(x, q)| q * (x - mu) / (1.0 + l * (x - mu)))
            .sum::<f64>()
    };
    let (mut lo, mut hi) = (-1.0 / dmax, -1.0 / dmin);
    for _ in 0..200 {
        let mid = 0.5 * (lo + hi);
        if mid <= lo || mid >= hi {
            break;
        }
        if f(mid) > 0.0 {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    Some(0.5 * (lo + hi))
}

/// The generalised log-likelihood ratio of H1 against H0 for an outcome distribution given as
/// (score per game, count), as described in the module documentation; 0 without outcomes.
pub fn llr(outcomes: &[(f64, f64)], params: &SprtParams) -> f64 {
    if outcomes.iter().all(|&(_, c)| c <= 0.0) {
        return 0.0;
    }
    let counts: Vec<(f64, f64)> = outcomes
        .iter()
        .map(|&(x, c)| (x, c.max(REGULARISATION)))
        .collect();
    let n: f64 = counts.iter().map(|&(_, c)| c).sum();
    let p: Vec<(f64, f64)> = counts.iter().map(|&(x, c)| (x, c / n)).collect();
    let s0 = expected_score(params.elo0);
    let s1 = expected_score(params.elo1);
    let (Some(l0), Some(l1)) = (constrained_lambda(&p, s0), constrained_lambda(&p, s1)) else {
        return 0.0;
    };
    counts
        .iter()
        .map(|&(x, c)| c * ((1.0 + l0 * (x - s0)).ln() - (1.0 + l1 * (x - s1)).ln()))
        .sum()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: f64, b: f64, tol: f64) -> bool {
        (a - b).abs() <= tol
    }

    #[test]
    fn expected_score_and_elo_are_inverse() {
        // 10^(-100/400) = 0.5623413251903491, 1/(1+that) = 0.6400649998028851.
        assert!(close(expected_score(100.0), 0.640_064_999_802_885_1, 1e-12));
        assert!(close(elo_from_score(0.640_064_999_802_885_1), 100.0, 1e-9));
        assert_eq!(expected_score(0.0), 0.5);
        assert_eq!(elo_from_score(1.0), f64::INFINITY);
        assert_eq!(elo_from_score(0.0), f64::NEG_INFINITY);
    }

    // The expected values below were computed separately with this Python script (standard
    // formulas, nothing shared with the code under test):
    //   import math; Z = 1.959963984540054
    //   def elo(s): return -400 * math.log10(1 / s - 1)
    //   def est(outs):  # outs = [(score per game, count)]
    //       n = sum(c for x, c in outs); m = sum(x * c for x, c in outs) / n
    //       v = sum(c * (x - m) ** 2 for x, c in outs) / n; se = math.sqrt(v / n)
    //       return elo(m), elo(m - Z * se), elo(m + Z * se)
    //   def llr(counts, xs, e0, e1, eps=1e-3):  # GSPRT, counts per outcome score xs
    //       c = [max(x, eps) for x in counts]; n = sum(c); p = [w / n for w in c]
    //       def lam(mu):  # bisection for sum p*d/(1+l*d) = 0, d = x - mu
    //           d = [x - mu for x in xs]; lo, hi = -1 / max(d), -1 / min(d)
    //           f = lambda b: sum(pi * di / (1 + b * di) for pi, di in zip(p, d))
    //           for _ in range(200):
    //               mid = (lo + hi) / 2
    //               if f(mid) > 0: lo = mid
    //               else: hi = mid
    //           return (lo + hi) / 2, d
    //       s0, s1 = (1 / (1 + 10 ** (-e / 400)) for e in (e0, e1))
    //       (b0, d0), (b1, d1) = lam(s0), lam(s1)
    //       return sum(w * (math.log(1 + b0 * a) - math.log(1 + b1 * b))
    //                  for w, a, b in zip(c, d0, d1))

    #[test]
    fn elo_and_interval_for_a_known_trinomial_result() {
        // W=60 D=20 L=20, N=100: score 0.7, Elo = -400 log10(1/0.7 - 1) = 147.19;
        // per-game variance (60*0.3^2 + 20*0.2^2 + 20*0.7^2)/100 = 0.16, standard error
        // sqrt(0.16/100) = 0.04, score interval 0.7 -/+ 1.96*0.04 = [0.62160, 0.77840].
        // Python: (147.19071411783776, 86.22501520030423, 218.2517776410748).
        let e = estimate(&trinomial_outcomes(&Wdl::new(60, 20, 20))).unwrap();
        assert!(close(e.elo, 147.190_714_117_837_76, 1e-9), "{e:?}");
        assert!(close(e.lower, 86.225_015_200_304_23, 1e-9), "{e:?}");
        assert!(close(e.upper, 218.251_777_641_074_8, 1e-9), "{e:?}");
    }

    #[test]
    fn an_even_result_is_zero_elo_with_a_symmetric_interval() {
        // W=L=10, D=0: score 0.5, variance 0.25, se 0.5/sqrt(20) = 0.1118034, score interval
        // [0.28087, 0.71913]. Python: (0, -163.3213672128286, 163.32136721282853).
        let e = estimate(&trinomial_outcomes(&Wdl::new(10, 0, 10))).unwrap();
        assert!(close(e.elo, 0.0, 1e-12));
        assert!(close(e.lower, -163.321_367_212_828_6, 1e-9), "{e:?}");
        assert!(close(e.upper, 163.321_367_212_828_53, 1e-9), "{e:?}");
        assert!(estimate(&trinomial_outcomes(&Wdl::default())).is_none());
    }

    #[test]
    fn pentanomial_interval() {
        // Pairs [LL, LD, DD/WL, WD, WW] = [2, 5, 10, 8, 5]: 30 pairs scored 0, .25, .5, .75, 1
        // per game. Mean (1.25 + 5 + 6 + 5)/30 = 0.575, variance 2.39375/30 = 0.0797917.
        // Python: (52.51156585572754, -18.138863833158332, 127.82431436121212).
        let p = Pentanomial([2, 5, 10, 8, 5]);
        let e = estimate(&p.outcomes()).unwrap();
        assert!(close(e.elo, 52.511_565_855_727_54, 1e-9), "{e:?}");
        assert!(close(e.lower, -18.138_863_833_158_332, 1e-9), "{e:?}");
        assert!(close(e.upper, 127.824_314_361_212_12, 1e-9), "{e:?}");
        assert_eq!(p.flipped().0, [5, 8, 10, 5, 2]);
    }

    #[test]
    fn erf_and_los_match_reference_values() {
        // math.erf in Python: erf(0.5) = 0.5204998778130465, erf(1) = 0.8427007929497149,
        // erf(2.5) = 0.999593047982555, erf(3.5) = 0.9999992569016276.
        for (x, v) in [
            (0.5, 0.520_499_877_813_046_5),
            (1.0, 0.842_700_792_949_714_9),
            (2.5, 0.999_593_047_982_555),
            (3.5, 0.999_999_256_901_627_6),
            (-1.0, -0.842_700_792_949_714_9),
        ] {
            assert!(close(erf(x), v, 1e-13), "erf({x}) = {}", erf(x));
        }
        // W=30 L=20: z = 10/sqrt(50) = 1.4142136, LOS = Phi(z)
        // (Python: 0.5*(1+math.erf(10/math.sqrt(50)/math.sqrt(2))) = 0.9213503964748574).
        assert!(close(
            los(&Wdl::new(30, 7, 20)),
            0.921_350_396_474_857_4,
            1e-12
        ));
        assert!(close(
            los(&Wdl::new(20, 7, 30)),
            1.0 - 0.921_350_396_474_857_4,
            1e-12
        ));
        assert_eq!(los(&Wdl::new(0, 5, 0)), 0.5);
    }

    #[test]
    fn sprt_bounds_and_parse() {
        let p = SprtParams::parse("elo0=0,elo1=10,alpha=0.05,beta=0.05").unwrap();
        // ln(0.05/0.95) = -2.9444389791664403
        assert!(close(p.lower_bound(), -2.944_438_979_166_440_3, 1e-12));
        assert!(close(p.upper_bound(), 2.944_438_979_166_440_3, 1e-12));
        assert_eq!(SprtParams::parse(" beta=0.1 , elo1=5").unwrap().elo1, 5.0);
        assert!(SprtParams::parse("elo0=5,elo1=0").is_err());
        assert!(SprtParams::parse("alpha=0.7").is_err());
        assert!(SprtParams::parse("gamma=1").is_err());
        assert!(SprtParams::parse("elo1").is_err());
    }

    #[test]
    fn sprt_llr_for_known_cases() {
        let p = SprtParams::parse("elo0=0,elo1=10,alpha=0.05,beta=0.05").unwrap();
        // Pentanomial [10, 40, 100, 45, 15] (210 pairs, mean score 0.5178571):
        // Python llr([10, 40, 100, 45, 15], [0, .25, .5, .75, 1], 0, 10) = 0.5878033970061558,
        // no decision yet (the normal approximation gives 0.58855 here).
        let v = llr(&Pentanomial([10, 40, 100, 45, 15]).outcomes(), &p);
        assert!(close(v, 0.587_803_397_006_155_8, 1e-9), "LLR {v}");
        assert_eq!(p.decide(v), SprtDecision::Continue);
        // Trinomial W=1200 D=600 L=1000: Python llr([1000, 600, 1200], [0, .5, 1], 0, 10)
        // = 5.852325142768998, above the upper bound 2.944.
        let v = llr(&trinomial_outcomes(&Wdl::new(1200, 600, 1000)), &p);
        assert!(close(v, 5.852_325_142_768_998, 1e-9), "LLR {v}");
        assert_eq!(p.decide(v), SprtDecision::AcceptH1);
        // The mirror result: Python -8.798799152302006, below the lower bound.
        let v = llr(&trinomial_outcomes(&Wdl::new(1000, 600, 1200)), &p);
        assert!(close(v, -8.798_799_152_302_006, 1e-9), "LLR {v}");
        assert_eq!(p.decide(v), SprtDecision::AcceptH0);
        assert_eq!(llr(&Pentanomial::default().outcomes(), &p), 0.0);
    }

    #[test]
    fn one_sided_samples_are_regularised_and_weigh_like_the_classical_sprt() {
        let p = SprtParams::parse("elo0=0,elo1=10").unwrap();
        // Only won pairs: every other class counts 0.001. Each pair adds about
        // ln(s1/s0) = ln(0.51439/0.5) = 0.02837, so 20 pairs are far from a decision
        // (Python: 0.5674190961773042) and 120 cross the upper bound (3.4042351118859626).
        let v = llr(&Pentanomial([0, 0, 0, 0, 20]).outcomes(), &p);
        assert!(close(v, 0.567_419_096_177_304_2, 1e-9), "LLR {v}");
        let v = llr(&Pentanomial([0, 0, 0, 0, 120]).outcomes(), &p);
        assert!(close(v, 3.404_235_111_885_962_6, 1e-9), "LLR {v}");
        assert_eq!(p.decide(v), SprtDecision::AcceptH1);
        // Only lost pairs: Python gives -3.211670619260071 for 110.
        let v = llr(&Pentanomial([110, 0, 0, 0, 0]).outcomes(), &p);
        assert!(close(v, -3.211_670_619_260_071, 1e-9), "LLR {v}");
        assert_eq!(p.decide(v), SprtDecision::AcceptH0);
    }
}
