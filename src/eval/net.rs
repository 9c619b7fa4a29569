//! [`Net`]: a small network that corrects the linear evaluation.
//!
//! The linear evaluation adds its terms; it cannot say that pressure on one's own queen matters
//! more when the enemy queen is safe, or that mobility counts for less late in the game. The
//! network sees the terms of both sides as inputs ([`NET_INPUTS`]: each [`Term`](super::Term)
//! but the tempo, for the side to move and for the opponent, then the game phase) and adds its
//! output to the linear score. It has one hidden layer of clipped rectified units; in the
//! integers of its weights,
//!
//! ```text
//! h[j] = clamp(b1[j] + sum_i w1[j][i] * x[i], 0, NET_ONE)
//! correction = (sum_j w2[j] * h[j]) / NET_ONE
//! ```
//!
//! with `x` in evaluation units (the phase from 0 to 256) and `w2` in evaluation units, so that
//! a hidden unit at full strength adds `w2[j]`. The evaluation computes this in `f32` (`w1` and
//! `b1` divided by `NET_ONE`, so the hidden units lie between 0 and 1), always in the same
//! order so that scores are the same on every run, and truncates the correction toward zero.
//! `f32` lets the compiler vectorise the hidden layer with baseline x86-64 instructions, which
//! have no packed 32-bit integer multiply. The weights are fitted by `waggle tune-net`
//! (`crate::learn::net`) and stored in a weights file as three lines, `net_w1` (row after row,
//! one row of [`NET_INPUTS`] values per hidden unit), `net_b1` and `net_w2`.

use super::WeightsError;
use super::weights::value_line;

/// Number of inputs: eight terms for each side, and the phase.
pub const NET_INPUTS: usize = 17;

/// A hidden unit's full strength (its clamp): 2^16.
pub const NET_ONE: i64 = 1 << 16;

/// Most hidden units a weights file may give (a bound on the cost of one evaluation).
pub const NET_MAX_HIDDEN: usize = 64;

/// Output lanes summed separately, so that the sum over the hidden units vectorises and still
/// has a fixed order.
const LANES: usize = 8;

/// The network's integer weights (see the module documentation), and the same in `f32` laid
/// out for the evaluation.
#[derive(Clone, Debug)]
pub struct Net {
    /// Input weights, `NET_INPUTS` per hidden unit.
    w1: Vec<i32>,
    /// Hidden biases.
    b1: Vec<i32>,
    /// Output weights.
    w2: Vec<i32>,
    /// `w1 / NET_ONE`, input after input (`hidden` values per input).
    w1_by_input: Vec<f32>,
    /// `b1 / NET_ONE`.
    b1_f32: Vec<f32>,
    /// `w2`, padded with zeros to a multiple of [`LANES`].
    w2_f32: Vec<f32>,
}

impl PartialEq for Net {
    fn eq(&self, other: &Net) -> bool {
        (&self.w1, &self.b1, &self.w2) == (&other.w1, &other.b1, &other.w2)
    }
}

impl Eq for Net {}

impl Net {
    /// The names of the network's lines in a weights file.
    pub const LINES: [&'static str; 3] = ["net_w1", "net_b1", "net_w2"];

    /// A network from its weights; `None` unless `b1` and `w2` have one value per hidden unit,
    /// `w1` [`NET_INPUTS`] per hidden unit, and there are 1 to [`NET_MAX_HIDDEN`] units.
    pub fn new(w1: Vec<i32>, b1: Vec<i32>, w2: Vec<i32>) -> Option<Net> {
        let h = b1.len();
        if h == 0 || h > NET_MAX_HIDDEN || w2.len() != h || w1.len() != h * NET_INPUTS {
            return None;
        }
        let one = NET_ONE as f32;
        let w1_by_input = (0..NET_INPUTS)
            .flat_map(|i| (0..h).map(move |j| (i, j)))
            .map(|(i, j)| w1[j * NET_INPUTS + i] as f32 / one)
            .collect();
        let b1_f32 = b1.iter().map(|&b| b as f32 / one).collect();
        let mut w2_f32: Vec<f32> = w2.iter().map(|&w| w as f32).collect();
        w2_f32.resize(h.next_multiple_of(LANES), 0.0);
        Some(Net {
            w1,
            b1,
            w2,
            w1_by_input,
            b1_f32,
            w2_f32,
        })
    }

    /// Number of hidden units.
    pub fn hidden(&self) -> usize {
        self.b1.len()
    }

    /// The correction for inputs `x`, in evaluation units.
    #[inline]
    pub fn forward(&self, x: &[i32; NET_INPUTS]) -> i32 {
        let h = self.b1_f32.len();
        let mut pre = [0f32; NET_MAX_HIDDEN];
        let pre = &mut pre[..h.next_multiple_of(LANES)];
        pre[..h].copy_from_slice(&self.b1_f32);
        for (&xi, w) in x.iter().zip(self.w1_by_input.chunks_exact(h)) {
            let xi = xi as f32;
            for (p, &w) in pre.iter_mut().zip(w) {
                *p += w * xi;
            }
        }
        let mut lanes = [0f32; LANES];
        for (p, w) in pre.chunks_exact(LANES).zip(self.w2_f32.chunks_exact(LANES)) {
            for k in 0..LANES {
                lanes[k] += w[k] * p[k].clamp(0.0, 1.0);
            }
        }
        lanes.iter().sum::<f32>() as i32
    }

    /// The three lines of a weights file (see the module documentation), each ending in a
    /// line feed.
    pub fn to_text(&self) -> String {
        let [w1, b1, w2] = Net::LINES;
        value_line(w1, &self.w1) + &value_line(b1, &self.b1) + &value_line(w2, &self.w2)
    }

    /// The network of the lines `lines` (by the index of their name in [`Net::LINES`]: line
    /// number and values); `Ok(None)` when none is given.
    pub(super) fn from_lines(
        lines: [Option<(usize, Vec<i32>)>; 3],
    ) -> Result<Option<Net>, WeightsError> {
        match lines {
            [None, None, None] => Ok(None),
            [Some((_, w1)), Some((_, b1)), Some((l, w2))] => Net::new(w1, b1, w2)
                .map(Some)
                .ok_or(WeightsError::NetShape(l)),
            lines => {
                let missing = lines.iter().position(Option::is_none).unwrap_or(0);
                Err(WeightsError::Missing(Net::LINES[missing]))
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn forward_clamps_hidden_units_and_scales_the_output() {
        // Unit 0 reads input 0 at full weight; unit 1 is always at full strength.
        let mut w1 = vec![0; 2 * NET_INPUTS];
        w1[0] = 1 << 8;
        let net = Net::new(w1, vec![0, NET_ONE as i32], vec![100, -7]).expect("consistent");
        assert_eq!(net.hidden(), 2);
        let mut x = [0; NET_INPUTS];
        assert_eq!(net.forward(&x), -7);
        x[0] = 128; // half of full strength
        assert_eq!(net.forward(&x), 50 - 7);
        x[0] = 10_000; // clamped
        assert_eq!(net.forward(&x), 100 - 7);
        x[0] = -10_000; // clamped at 0
        assert_eq!(net.forward(&x), -7);
    }

    #[test]
    fn shapes_are_checked() {
        assert!(Net::new(vec![0; NET_INPUTS], vec![0], vec![0]).is_some());
        assert!(Net::new(vec![0; NET_INPUTS], vec![0], vec![0, 1]).is_none());
        assert!(Net::new(vec![0; NET_INPUTS + 1], vec![0], vec![0]).is_none());
        assert!(Net::new(Vec::new(), Vec::new(), Vec::new()).is_none());
    }
}
