//! A timer cancelled lazily: at most one live heap event per timer however often it is re-armed.
//!
//! Re-arming to a later deadline (the RTO restarted on every ACK) schedules nothing; when the pending
//! event fires early it is re-scheduled for the deadline. Re-arming earlier schedules a new event and
//! the old one is recognised as stale when it fires.

use crate::sim::Time;

/// `NEVER` stands for "no deadline" and "no event pending": two plain times make the timer 16 bytes,
/// so that an endpoint keeps both its timers in one cache line with its per-segment counters.
const NEVER: Time = Time::MAX;

#[derive(Clone, Debug)]
pub struct LazyTimer {
    deadline: Time,
    pending: Time,
}

impl Default for LazyTimer {
    fn default() -> Self {
        LazyTimer { deadline: NEVER, pending: NEVER }
    }
}

impl LazyTimer {
    /// Arms the timer for `at`; returns a time to schedule an event at, if one is needed.
    #[must_use]
    pub fn arm(&mut self, at: Time) -> Option<Time> {
        debug_assert!(at < NEVER);
        self.deadline = at;
        if self.pending <= at {
            None
        } else {
            self.pending = at;
            Some(at)
        }
    }

    pub fn cancel(&mut self) {
        self.deadline = NEVER;
    }

    pub fn is_armed(&self) -> bool {
        self.deadline != NEVER
    }

    #[cfg(test)]
    pub fn deadline(&self) -> Option<Time> {
        self.is_armed().then_some(self.deadline)
    }

    /// Handles this timer's event firing at `now`. Returns `Fire` when the deadline has come,
    /// `Reschedule(t)` when an event must be scheduled for a later deadline, `Ignore` otherwise.
    pub fn on_event(&mut self, now: Time) -> TimerOutcome {
        if self.pending != now {
            return TimerOutcome::Ignore; // superseded by an earlier re-arm
        }
        self.pending = NEVER;
        if self.deadline <= now {
            self.deadline = NEVER;
            TimerOutcome::Fire
        } else if self.deadline == NEVER {
            TimerOutcome::Ignore
        } else {
            self.pending = self.deadline;
            TimerOutcome::Reschedule(self.deadline)
        }
    }
}

#[derive(Debug, PartialEq, Eq)]
pub enum TimerOutcome {
    Fire,
    Reschedule(Time),
    Ignore,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn later_rearm_reuses_the_pending_event() {
        let mut t = LazyTimer::default();
        assert_eq!(t.arm(10), Some(10));
        assert_eq!(t.arm(30), None);
        assert_eq!(t.on_event(10), TimerOutcome::Reschedule(30));
        assert_eq!(t.on_event(30), TimerOutcome::Fire);
        assert!(!t.is_armed());
    }

    #[test]
    fn earlier_rearm_makes_the_old_event_stale() {
        let mut t = LazyTimer::default();
        assert_eq!(t.arm(30), Some(30));
        assert_eq!(t.arm(10), Some(10));
        assert_eq!(t.on_event(10), TimerOutcome::Fire);
        assert_eq!(t.on_event(30), TimerOutcome::Ignore);
    }

    #[test]
    fn cancelled_timer_does_not_fire() {
        let mut t = LazyTimer::default();
        assert_eq!(t.arm(5), Some(5));
        t.cancel();
        assert_eq!(t.on_event(5), TimerOutcome::Ignore);
        assert_eq!(t.arm(7), Some(7));
    }
}
