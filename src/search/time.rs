//! Time control: when to stop deepening and when to abandon the search.
//!
//! With a time limit `T` the search must answer within `T`. A safety margin (25 ms, or a quarter
//! of `T` for very short limits) is kept for unwinding the search, printing the reply and the
//! scheduling noise of a busy machine; the hard deadline is `T` minus that margin and is checked
//! by every search thread every [`CHECK_INTERVAL`] nodes. No new iteration starts after half the
//! time up to the hard deadline has gone (the search parameter `soft_percent`): an iteration of
//! the next depth typically costs several times the previous one, so it would most likely be
//! cut short. Starting iterations up to the hard deadline (100%), whose first root moves may
//! still finish, scored +3 Elo [-22, +29] against 50% in 509 games at 0.1 s per move.

use super::Limits;
use std::time::{Duration, Instant};

/// Nodes between two looks at the clock in each search thread (a node takes well under a
/// microsecond, so the deadline is overrun by far less than a millisecond).
pub const CHECK_INTERVAL: u64 = 1024;

/// The default of the search parameter `soft_percent`: no iteration starts after half the
/// usable time.
pub const SOFT_PERCENT: u32 = 50;

/// Longest safety margin kept between the hard deadline and the time limit.
pub const MAX_MARGIN: Duration = Duration::from_millis(25);

/// Deadlines of one search.
#[derive(Clone, Copy, Debug)]
pub struct TimeManager {
    start: Instant,
    /// No iteration starts after this.
    soft: Option<Instant>,
    /// The search stops here.
    hard: Option<Instant>,
}

impl TimeManager {
    /// Deadlines for `limits`, counted from `start`. Without a time limit there are none.
    pub fn new(limits: &Limits, start: Instant) -> TimeManager {
        TimeManager::with_soft_percent(limits, start, SOFT_PERCENT)
    }

    /// Deadlines for `limits` with no iteration starting after `soft_percent`% of the time up
    /// to the hard deadline.
    pub fn with_soft_percent(limits: &Limits, start: Instant, soft_percent: u32) -> TimeManager {
        let (soft, hard) = match limits.time {
            Some(t) => {
                let margin = MAX_MARGIN.min(t / 4);
                let usable = t.saturating_sub(margin);
                let soft = usable.mul_f64(f64::from(soft_percent.min(100)) / 100.0);
                (Some(start + soft), Some(start + usable))
            }
            None => (None, None),
        };
        TimeManager { start, soft, hard }
    }

    /// Time since the search started.
    pub fn elapsed(&self) -> Duration {
        self.start.elapsed()
    }

    /// Whether the hard deadline has passed.
    #[inline]
    pub fn hard_expired(&self) -> bool {
        self.hard.is_some_and(|h| Instant::now() >= h)
    }

    /// Whether a new iteration may start now.
    pub fn may_start_iteration(&self) -> bool {
        self.soft.is_none_or(|s| Instant::now() < s)
    }

    /// Whether there is a time limit at all.
    pub fn is_timed(&self) -> bool {
        self.hard.is_some()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn deadlines_keep_a_margin() {
        let start = Instant::now();
        let tm = TimeManager::new(
            &Limits {
                depth: None,
                time: Some(Duration::from_millis(1000)),
            },
            start,
        );
        assert_eq!(tm.hard, Some(start + Duration::from_millis(975)));
        assert_eq!(
            tm.soft,
            Some(start + Duration::from_millis(487) + Duration::from_micros(500))
        );
        let short = TimeManager::new(
            &Limits {
                depth: None,
                time: Some(Duration::from_millis(40)),
            },
            start,
        );
        assert_eq!(short.hard, Some(start + Duration::from_millis(30)));
        let none = TimeManager::new(&Limits::default(), start);
        assert!(!none.hard_expired() && none.may_start_iteration() && !none.is_timed());
    }
}
