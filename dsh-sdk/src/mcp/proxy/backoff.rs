//! How long a proxy waits between attempts to reach a server that went away.

use std::time::Duration;

/// The reconnection policy of an [`McpProxy`](super::McpProxy): exponential,
/// capped, jittered and bounded.
///
/// Attempt `n` (from 0) waits a random time between half and all of
/// `min(initial × 2ⁿ, max)`, so proxies that lost one server together do not
/// all knock at once when it returns. After [`max_attempts`](Self::max_attempts)
/// failed attempts the proxy gives up and its tools stay `unavailable`.
///
/// ```
/// use std::time::Duration;
/// use dsh_kit::mcp::Backoff;
///
/// let backoff = Backoff::new(Duration::from_millis(100), Duration::from_secs(5)).max_attempts(20);
/// let third = backoff.delay(2);
/// assert!(third >= Duration::from_millis(200) && third <= Duration::from_millis(400));
/// assert!(backoff.delay(30) <= Duration::from_secs(5));
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

    /// No reconnection: a server that goes away stays gone.
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

    /// The wait before attempt `attempt` (from 0).
    pub fn delay(&self, attempt: u32) -> Duration {
        let ceiling = self
            .initial
            .checked_mul(1u32.checked_shl(attempt).unwrap_or(u32::MAX))
            .map_or(self.max, |delay| delay.min(self.max));
        let half = ceiling / 2;
        // Random enough to spread proxies apart; `uuid` already draws from a
        // fast per-thread generator.
        let spread = uuid::Uuid::new_v4().as_u128() as u64;
        let nanos = u64::try_from(half.as_nanos()).unwrap_or(u64::MAX);
        half + Duration::from_nanos(spread.checked_rem(nanos + 1).unwrap_or(0))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn waits_grow_exponentially_within_jitter_and_stop_at_the_cap() {
        let backoff = Backoff::new(Duration::from_millis(100), Duration::from_secs(2));
        for attempt in 0..64 {
            let ceiling = Duration::from_millis(100)
                .saturating_mul(2u32.saturating_pow(attempt))
                .min(Duration::from_secs(2));
            for _ in 0..20 {
                let delay = backoff.delay(attempt);
                assert!(
                    delay >= ceiling / 2 && delay <= ceiling,
                    "attempt {attempt}: {delay:?} outside {:?}..={ceiling:?}",
                    ceiling / 2
                );
            }
        }
    }

    #[test]
    fn the_waits_are_jittered() {
        let backoff = Backoff::new(Duration::from_secs(1), Duration::from_secs(1));
        let delays: std::collections::BTreeSet<Duration> =
            (0..32).map(|_| backoff.delay(0)).collect();
        assert!(delays.len() > 1, "{delays:?}");
    }

    #[test]
    fn a_zero_wait_is_raised_to_a_millisecond() {
        let backoff = Backoff::new(Duration::ZERO, Duration::ZERO);
        assert!(backoff.delay(0) >= Duration::from_micros(500));
    }

    #[test]
    fn a_cap_below_the_first_wait_is_raised_to_it() {
        let backoff = Backoff::new(Duration::from_secs(4), Duration::from_secs(1));
        assert!(backoff.delay(3) >= Duration::from_secs(2));
        assert!(backoff.delay(3) <= Duration::from_secs(4));
    }
}
