//! How long to wait between attempts at something that failed: the one
//! policy of the execute retries, the proxy's reconnection and the Redis
//! stores' reconnection.

use std::time::Duration;

use backon::{BackoffBuilder, ExponentialBuilder};

/// At most this many steps are taken to find one wait: doubling the
/// smallest first wait (half a millisecond, as [`Backoff::new`] raises
/// `initial` to a millisecond) this many times passes the longest
/// `Duration`, so every later wait is the cap.
const STEPS_TO_THE_CAP: u32 = 128;

/// A retry policy: exponential, capped, jittered and bounded.
///
/// Attempt `n` (from 0) waits a random time between half and all of
/// `min(initial × 2ⁿ, max)`, so replicas or proxies that lost one server
/// together do not all knock at once when it returns. After
/// [`max_attempts`](Self::max_attempts) failed attempts the caller gives up.
///
/// Used by [`RetryPolicy::backoff`](crate::layer::RetryPolicy::backoff)
/// between retries of a tool's execute, by
/// `McpProxy::reconnect` (feature `proxy`) between attempts to reach a
/// server that went away, and by the Redis stores (feature `redis`) between
/// attempts to reach Redis. The waits are drawn by the `backon` crate, in
/// single precision: a bound holds to within a few nanoseconds.
///
/// ```
/// use std::time::Duration;
/// use dsh_kit::Backoff;
///
/// let backoff = Backoff::new(Duration::from_millis(100), Duration::from_secs(5)).max_attempts(20);
/// let third = backoff.delay(2);
/// assert!(third >= Duration::from_millis(200) && third <= Duration::from_millis(400));
/// assert!(backoff.delay(30) <= Duration::from_secs(5));
/// assert_eq!(backoff.delays().count(), 20);
/// assert_eq!(Backoff::never().attempts(), 0);
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Backoff {
    initial: Duration,
    max: Duration,
    attempts: u32,
}

impl Default for Backoff {
    /// From 250 ms up to 30 s between attempts, 120 attempts (about an hour).
    fn default() -> Self {
        Backoff {
            initial: Duration::from_millis(250),
            max: Duration::from_secs(30),
            attempts: 120,
        }
    }
}

impl Backoff {
    /// Waits of `initial` (at least a millisecond), doubling up to `max` (at
    /// least `initial`), with the default number of attempts.
    pub fn new(initial: Duration, max: Duration) -> Self {
        let initial = initial.max(Duration::from_millis(1));
        Backoff {
            initial,
            max: max.max(initial),
            ..Backoff::default()
        }
    }

    /// No attempt at all: what failed stays failed.
    pub fn never() -> Self {
        Backoff::default().max_attempts(0)
    }

    /// Gives up after `attempts` failed attempts in a row.
    pub fn max_attempts(mut self, attempts: u32) -> Self {
        self.attempts = attempts;
        self
    }

    /// How many attempts are made before giving up.
    pub fn attempts(&self) -> u32 {
        self.attempts
    }

    /// The first wait, before jitter.
    pub fn initial(&self) -> Duration {
        self.initial
    }

    /// The longest wait.
    pub fn max(&self) -> Duration {
        self.max
    }

    /// The wait before attempt `attempt` (from 0), drawn afresh on each
    /// call, whatever [`attempts`](Self::attempts) says.
    pub fn delay(&self, attempt: u32) -> Duration {
        let step = usize::try_from(attempt.min(STEPS_TO_THE_CAP)).unwrap_or(usize::MAX);
        self.engine()
            .without_max_times()
            .build()
            .nth(step)
            .map_or(self.max, |delay| delay.min(self.max))
    }

    /// The waits before each attempt in turn, [`attempts`](Self::attempts)
    /// of them: for a loop that sleeps one, tries, and stops when they run
    /// out.
    ///
    /// ```
    /// use std::time::Duration;
    /// use dsh_kit::Backoff;
    ///
    /// let backoff = Backoff::new(Duration::from_millis(10), Duration::from_millis(40)).max_attempts(5);
    /// let waits: Vec<Duration> = backoff.delays().collect();
    /// assert_eq!(waits.len(), 5);
    /// assert!(waits.iter().all(|wait| *wait >= Duration::from_millis(5) && *wait <= Duration::from_millis(40)));
    /// assert_eq!(Backoff::never().delays().next(), None);
    /// ```
    pub fn delays(&self) -> impl Iterator<Item = Duration> + Send + Sync + Unpin + 'static {
        let max = self.max;
        self.engine()
            .with_max_times(usize::try_from(self.attempts).unwrap_or(usize::MAX))
            .build()
            .map(move |delay| delay.min(max))
    }

    /// backon's exponential backoff adds a jitter of up to the whole wait;
    /// from half the first wait and half the cap, that is "half to all".
    fn engine(&self) -> ExponentialBuilder {
        ExponentialBuilder::new()
            .with_jitter()
            .with_factor(2.0)
            .with_min_delay(self.initial / 2)
            .with_max_delay(self.max / 2)
    }
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeSet;

    use super::*;

    /// The wait before attempt `attempt` without jitter, `initial × 2ⁿ`
    /// capped at `max`, written out: the bounds the draws are held to.
    fn ceiling(unjittered_ms: &[u64], max: Duration, attempt: u32) -> Duration {
        usize::try_from(attempt)
            .ok()
            .and_then(|attempt| unjittered_ms.get(attempt))
            .map_or(max, |ms| Duration::from_millis(*ms))
    }

    fn assert_within(delay: Duration, ceiling: Duration, attempt: u32) {
        // The engine computes in single precision.
        let slack = Duration::from_nanos(16);
        assert!(
            delay + slack >= ceiling / 2 && delay <= ceiling + slack,
            "attempt {attempt}: {delay:?} outside {:?}..={ceiling:?}",
            ceiling / 2
        );
    }

    #[test]
    fn waits_grow_exponentially_within_jitter_and_stop_at_the_cap() {
        let max = Duration::from_secs(2);
        let backoff = Backoff::new(Duration::from_millis(100), max);
        for attempt in 0..64 {
            let ceiling = ceiling(&[100, 200, 400, 800, 1600], max, attempt);
            for _ in 0..200 {
                assert_within(backoff.delay(attempt), ceiling, attempt);
            }
        }
        for _ in 0..1000 {
            assert!(backoff.delay(u32::MAX) <= max);
            assert!(backoff.delay(u32::MAX) >= max / 2);
        }
    }

    #[test]
    fn the_waits_in_turn_keep_the_same_bounds() {
        let max = Duration::from_millis(700);
        let backoff = Backoff::new(Duration::from_millis(3), max).max_attempts(40);
        let unjittered = [3, 6, 12, 24, 48, 96, 192, 384];
        for _ in 0..200 {
            for (attempt, delay) in (0..).zip(backoff.delays()) {
                assert_within(delay, ceiling(&unjittered, max, attempt), attempt);
                assert!(delay <= max, "{delay:?} past the cap");
            }
        }
    }

    #[test]
    fn the_waits_are_jittered() {
        let backoff = Backoff::new(Duration::from_secs(1), Duration::from_secs(1));
        let delays: BTreeSet<Duration> = (0..32).map(|_| backoff.delay(0)).collect();
        assert!(delays.len() > 1, "{delays:?}");
        let in_turn: BTreeSet<Duration> = backoff.max_attempts(32).delays().collect();
        assert!(in_turn.len() > 1, "{in_turn:?}");
    }

    #[test]
    fn the_waits_stop_after_the_last_attempt() {
        let backoff = Backoff::new(Duration::from_millis(1), Duration::from_millis(2));
        assert_eq!(backoff.clone().max_attempts(7).delays().count(), 7);
        assert_eq!(backoff.delays().count(), 120);
        assert_eq!(Backoff::never().delays().count(), 0);
        assert_eq!(Backoff::never().attempts(), 0);
    }

    #[test]
    fn a_zero_wait_is_raised_to_a_millisecond() {
        let backoff = Backoff::new(Duration::ZERO, Duration::ZERO);
        assert_eq!(backoff.initial(), Duration::from_millis(1));
        assert!(backoff.delay(0) >= Duration::from_micros(500));
    }

    #[test]
    fn a_cap_below_the_first_wait_is_raised_to_it() {
        let backoff = Backoff::new(Duration::from_secs(4), Duration::from_secs(1));
        assert_eq!(backoff.max(), Duration::from_secs(4));
        assert!(backoff.delay(3) >= Duration::from_secs(2));
        assert!(backoff.delay(3) <= Duration::from_secs(4));
    }
}
