//! Progress of a running match: a live line redrawn in place (with `indicatif`) when standard
//! error is a terminal, or one plain line per finished game otherwise, so that logs stay
//! greppable. Both show games done, the first engine's +W =D -L against the field, its score,
//! Elo with the half-width of the 95% interval, the LLR of an SPRT, games per minute and the
//! estimated time left.

use super::report::{Sprt, Tally};
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use std::io::Write;
use std::time::{Duration, Instant};

/// Where progress goes.
pub enum Progress<'a> {
    /// A live line on the terminal.
    Live(ProgressBar),
    /// Plain lines to a writer.
    Plain(&'a mut dyn Write),
}

/// Games per minute after `done` games in `elapsed`, and the time the other `total - done`
/// will take at that rate (`None` before the first game).
pub fn rate_and_eta(done: usize, total: usize, elapsed: Duration) -> (f64, Option<Duration>) {
    let minutes = elapsed.as_secs_f64() / 60.0;
    if done == 0 || minutes <= 0.0 {
        return (0.0, None);
    }
    let rate = done as f64 / minutes;
    let left = total.saturating_sub(done) as f64 / rate * 60.0;
    (rate, Duration::try_from_secs_f64(left).ok())
}

/// `1h02m03s`, `2m03s` or `3s`.
pub fn fmt_duration(d: Duration) -> String {
    let s = d.as_secs();
    let (h, m, s) = (s / 3600, s / 60 % 60, s % 60);
    if h > 0 {
        format!("{h}h{m:02}m{s:02}s")
    } else if m > 0 {
        format!("{m}m{s:02}s")
    } else {
        format!("{s}s")
    }
}

/// Games per minute and the time left, as shown after a game.
pub fn speed(done: usize, total: usize, elapsed: Duration) -> String {
    match rate_and_eta(done, total, elapsed) {
        (rate, Some(eta)) => format!("{rate:.1} games/min, ETA {}", fmt_duration(eta)),
        _ => "-- games/min".to_string(),
    }
}

impl<'a> Progress<'a> {
    /// A live line over `total` games, drawn on standard error.
    pub fn live(total: usize) -> Progress<'a> {
        let bar = ProgressBar::with_draw_target(Some(total as u64), ProgressDrawTarget::stderr());
        let style = ProgressStyle::with_template("[{elapsed_precise}] {bar:24} {pos}/{len} {msg}")
            .unwrap_or_else(|_| ProgressStyle::default_bar())
            .progress_chars("=> ");
        bar.set_style(style);
        bar.enable_steady_tick(Duration::from_millis(500));
        Progress::Live(bar)
    }

    /// A line of text (above the live line, which stays at the bottom).
    pub fn println(&mut self, text: &str) {
        match self {
            Progress::Live(bar) => bar.println(text),
            Progress::Plain(w) => {
                let _ = writeln!(w, "{text}");
            }
        }
    }

    /// After a game of pairing `key`: the plain line names the pairing; the live line shows
    /// the first engine against the field. `before` games were counted before this run
    /// started (resumed), so they do not count in its speed.
    pub fn game(
        &mut self,
        tally: &Tally,
        key: (usize, usize),
        (total, before): (usize, usize),
        sprt: Option<&Sprt>,
        started: Instant,
    ) {
        let speed = speed(
            tally.games.saturating_sub(before),
            total.saturating_sub(before),
            started.elapsed(),
        );
        match self {
            Progress::Live(bar) => {
                bar.set_position(tally.games as u64);
                bar.set_message(format!("{} | {speed}", tally.summary(sprt)));
            }
            Progress::Plain(w) => {
                let _ = writeln!(w, "{} | {speed}", tally.progress_line(key, total, sprt));
            }
        }
    }

    /// Clears the live line at the end.
    pub fn finish(&mut self) {
        if let Progress::Live(bar) = self {
            bar.finish_and_clear();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rates_and_times_left() {
        let (rate, eta) = rate_and_eta(10, 40, Duration::from_secs(60));
        assert_eq!(rate, 10.0);
        assert_eq!(eta, Some(Duration::from_secs(180)));
        assert_eq!(rate_and_eta(0, 40, Duration::from_secs(5)).1, None);
        assert_eq!(fmt_duration(Duration::from_secs(3723)), "1h02m03s");
        assert_eq!(fmt_duration(Duration::from_secs(123)), "2m03s");
        assert_eq!(fmt_duration(Duration::from_secs(7)), "7s");
        assert_eq!(
            speed(10, 40, Duration::from_secs(60)),
            "10.0 games/min, ETA 3m00s"
        );
    }
}
