//! A timer cancelled lazily: at most one live heap event per timer however often it is re-armed.
//!
//! Re-arming to a later deadline (the RTO restarted on every ACK) schedules nothing; when the pending
//! event fires early it is re-scheduled for the deadline. Re-arming earlier schedules a new event and
//! the old one is recognised as stale when it fires.

use crate::sim::Time;

#[derive(Clone, Debug, Default)]
pub struct LazyTimer {
    deadline: Option<Time>,
    pending: Option<Time>,
}

impl LazyTimer {
    /// Arms the timer for `at`; returns a time to schedule an event at, if one is needed.
    #[must_use]
    pub fn arm(&mut self, at: Time) -> Option<Time> {
        self.deadline = Some(at);
        match self.pending {
            Some(p) if p <= at => None,
            _ => {
                self.pending = Some(at);
                Some(at)
            }
        }
    }

    pub fn cancel(&mut self) {
        self.deadline = None;
    }

    pub fn is_armed(&self) -> bool {
        self.deadline.is_some()
    }

    /// Handles this timer's event firing at `now`. Returns `Fire` when the deadline has come,
    /// `Reschedule(t)` when an event must be scheduled for a later deadline, `Ignore` otherwise.
    pub fn on_event(&mut self, now: Time) -> TimerOutcome {
        if self.pending != Some(now) {
            return TimerOutcome::Ignore; // superseded by an earlier re-arm
        }
        self.pending = None;
        match self.deadline {
            Some(d) if d <= now => {
                self.deadline = None;
                TimerOutcome::Fire
            }
            Some(d) => {
                self.pending = Some(d);
                TimerOutcome::Reschedule(d)
            }
            None => TimerOutcome::Ignore,
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
