//! One lazy timer for every component: RTO, pacing, delayed ACK and queue timers.
//!
//! A timer holds a deadline that may move freely without touching the event queue, and remembers when its
//! pending event fires. Moving the deadline later costs nothing: the pending event finds it early and
//! re-arms itself. Moving it earlier schedules one new event; the superseded one is recognised as stale
//! when it fires. So a component costs at most a few pending events, whatever its timer churn.
//!
//! A component may run on a clock shifted from the simulation's (a receiver processes a packet when it
//! leaves the last queue, its clock reading `now + shift`): deadlines are on the component's clock and
//! events on the simulation's.

use crate::time::{Time, NEVER};

/// A deadline alone, for a component whose owner keeps the event (a sender's RTO and pacing deadlines
/// share its flow's [`Timer`]): 8 bytes, where a [`Timer`] is 16.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Deadline(Time);

impl Default for Deadline {
    fn default() -> Self {
        Deadline(NEVER)
    }
}

impl Deadline {
    /// The deadline on the component's clock (`NEVER` if unarmed).
    pub fn deadline(&self) -> Time {
        self.0
    }

    pub fn is_armed(&self) -> bool {
        self.0 != NEVER
    }

    /// Set the deadline (component clock).
    pub fn arm(&mut self, at: Time) {
        self.0 = at;
    }

    /// Arm at the time `at` gives, only if not armed already (`at` is not evaluated otherwise: a sender
    /// computes its timeout at every segment it emits, and the timer is usually armed).
    pub fn arm_if_idle(&mut self, at: impl FnOnce() -> Time) {
        if self.0 == NEVER {
            self.0 = at();
        }
    }

    pub fn cancel(&mut self) {
        self.0 = NEVER;
    }
}

/// A deadline and the simulation time of its pending event.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Timer {
    deadline: Deadline,
    event_at: Time,
}

impl Default for Timer {
    fn default() -> Self {
        Timer { deadline: Deadline::default(), event_at: NEVER }
    }
}

/// What a timer event found when it fired.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Fired {
    /// Not this timer's current event (superseded by an earlier one): nothing to do.
    Stale,
    /// The deadline moved later or was cancelled; reschedule the event at the given simulation time, if any.
    Early(Option<Time>),
    /// The deadline is due: run the component's timeout.
    Due,
}

impl std::ops::Deref for Timer {
    type Target = Deadline;
    fn deref(&self) -> &Deadline {
        &self.deadline
    }
}

impl std::ops::DerefMut for Timer {
    fn deref_mut(&mut self) -> &mut Deadline {
        &mut self.deadline
    }
}

impl Timer {
    /// The simulation time at which a new event is needed, if the pending one (if any) comes too late.
    /// The caller schedules it. `shift` is the component clock's lead over the simulation's.
    pub fn needs_event(&mut self, shift: Time) -> Option<Time> {
        if !self.deadline.is_armed() {
            return None;
        }
        let at = self.deadline.0.saturating_sub(shift);
        if at < self.event_at {
            self.event_at = at;
            Some(at)
        } else {
            None
        }
    }

    /// A timer event fired at simulation time `now`.
    pub fn fire(&mut self, now: Time, shift: Time) -> Fired {
        if now != self.event_at {
            return Fired::Stale;
        }
        self.event_at = NEVER;
        if !self.deadline.is_armed() {
            return Fired::Early(None);
        }
        if now + shift < self.deadline.0 {
            self.event_at = self.deadline.0 - shift;
            return Fired::Early(Some(self.event_at));
        }
        Fired::Due
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn later_deadlines_reuse_the_pending_event_and_earlier_ones_supersede_it() {
        let mut t = Timer::default();
        assert_eq!(t.needs_event(0), None);
        t.arm(100);
        assert_eq!(t.needs_event(0), Some(100));
        t.arm(150);
        assert_eq!(t.needs_event(0), None, "the event at 100 will re-arm itself");
        assert_eq!(t.fire(100, 0), Fired::Early(Some(150)));
        t.arm(120);
        assert_eq!(t.needs_event(0), Some(120));
        assert_eq!(t.fire(120, 0), Fired::Due);
        assert_eq!(t.fire(150, 0), Fired::Stale);
    }

    #[test]
    fn shifted_clock_and_cancel() {
        let mut t = Timer::default();
        t.arm(1_000);
        assert_eq!(t.needs_event(300), Some(700));
        t.cancel();
        assert_eq!(t.fire(700, 300), Fired::Early(None));
        t.arm_if_idle(|| 900);
        t.arm_if_idle(|| 2_000);
        assert_eq!(t.deadline(), 900);
        assert_eq!(t.needs_event(300), Some(600));
        assert_eq!(t.fire(600, 300), Fired::Due);
    }
}
