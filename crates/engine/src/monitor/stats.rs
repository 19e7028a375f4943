//! A port's and the flows' measurements over the window [warmup, duration].

use super::{LogHistogram, Moments, TimeWeightedCounts};
use crate::queue::{reason, Reason, Stage};
use crate::time::{exact_f64, exact_secs, to_secs, Time};

/// Counts by reason name, in order of first appearance (a handful of names per port).
#[derive(Clone, Debug, Default)]
pub struct ReasonCounts(pub Vec<(&'static str, u64)>);

impl ReasonCounts {
    pub fn add(&mut self, r: Reason) {
        match self.0.iter_mut().find(|(n, _)| *n == r.0) {
            Some((_, c)) => *c += 1,
            None => self.0.push((r.0, 1)),
        }
    }
    pub fn get(&self, r: Reason) -> u64 {
        self.0.iter().find(|(n, _)| *n == r.0).map_or(0, |&(_, c)| c)
    }
    pub fn total(&self) -> u64 {
        self.0.iter().map(|&(_, c)| c).sum()
    }
}

/// A port's statistics, streamed.
#[derive(Default)]
pub struct PortStats {
    pub measuring: bool,
    pub arrivals: u64,
    pub departures: u64,
    /// Packets the port held when the window began (waiting or in service): they may be dropped or
    /// marked inside it too, so rates count them with the arrivals.
    pub held_at_start: u64,
    /// Time the link spent transmitting inside the window, picoseconds: a packet whose serialization
    /// straddles the warm-up or the end counts for its part inside.
    pub busy: Time,
    /// When the current (or last) transmission ends.
    tx_end: Time,
    pub drop_reasons: ReasonCounts,
    pub mark_reasons: ReasonCounts,
    /// Drops of packets already dequeued for service (CoDel-like), also counted in `drop_reasons`.
    pub drops_at_dequeue: u64,
    pub marks: u64,
    /// Queue length (packets waiting), time-weighted.
    queue_area: f64,
    queue_levels: TimeWeightedCounts,
    queue_len: usize,
    queue_since: Time,
    /// Queueing delay of each packet that entered service, picoseconds.
    pub delay: Moments,
    delay_hist: LogHistogram,
}

impl PortStats {
    pub fn begin(&mut self, now: Time, held: u64) {
        self.measuring = true;
        self.held_at_start = held;
        self.queue_since = now;
        // The rest of a transmission under way.
        self.busy = self.tx_end.saturating_sub(now);
    }

    /// A packet arrived at the port.
    #[inline(always)]
    pub fn on_arrival(&mut self) {
        if self.measuring {
            self.arrivals += 1;
        }
    }

    /// A packet left the port (its transmission ended).
    #[inline(always)]
    pub fn on_departure(&mut self) {
        if self.measuring {
            self.departures += 1;
        }
    }

    /// The link transmits from `now` until `end`.
    pub fn on_transmit(&mut self, now: Time, end: Time) {
        self.tx_end = end;
        if self.measuring {
            self.busy += end - now;
        }
    }

    pub fn on_drop(&mut self, reason: Reason, stage: Stage) {
        if self.measuring {
            self.drop_reasons.add(reason);
            if stage == Stage::AfterDequeue {
                self.drops_at_dequeue += 1;
            }
        }
    }

    pub fn on_mark(&mut self, reason: Reason) {
        if self.measuring {
            self.marks += 1;
            self.mark_reasons.add(reason);
        }
    }

    pub fn drops_overflow(&self) -> u64 {
        self.drop_reasons.get(reason::OVERFLOW)
    }
    pub fn drops_early(&self) -> u64 {
        self.drop_reasons.get(reason::EARLY)
    }
    pub fn drops_forced(&self) -> u64 {
        self.drop_reasons.get(reason::FORCED)
    }

    /// The queue now holds `len` packets.
    pub fn queue_changed(&mut self, now: Time, len: usize) {
        if self.measuring && len != self.queue_len {
            self.close_interval(now);
        }
        self.queue_len = len;
    }

    #[inline(always)]
    fn close_interval(&mut self, now: Time) {
        let dt = now - self.queue_since;
        self.queue_area += exact_f64(self.queue_len as u64) * exact_f64(dt);
        self.queue_levels.add(self.queue_len, dt);
        self.queue_since = now;
    }

    pub fn on_service_start(&mut self, waited: Time) {
        if self.measuring {
            self.delay.add(exact_secs(waited));
            self.delay_hist.add(waited);
        }
    }

    /// Close the time-weighted statistics at the end of the run.
    pub fn finish(&mut self, end: Time) {
        if self.measuring {
            self.close_interval(end);
            // A transmission under way counts up to the end only.
            self.busy -= self.tx_end.saturating_sub(end).min(self.busy);
        }
    }

    pub fn drops(&self) -> u64 {
        self.drop_reasons.total()
    }

    /// Packets that could be dropped or marked in the window: its arrivals and what was held at its start
    /// (at least 1), the denominator of the loss and mark rates, so both stay in [0, 1].
    pub fn exposed(&self) -> u64 {
        (self.arrivals + self.held_at_start).max(1)
    }

    pub fn queue_mean(&self, window: Time) -> f64 {
        if window == 0 {
            0.0
        } else {
            self.queue_area / window as f64
        }
    }

    pub fn queue_quantile(&self, q: f64) -> f64 {
        self.queue_levels.quantile(q)
    }

    pub fn queue_max(&self) -> usize {
        self.queue_levels.max()
    }

    pub fn delay_quantile(&self, q: f64) -> f64 {
        to_secs(self.delay_hist.quantile(q).round() as Time)
    }
}

/// One flow's counters in the measurement window.
#[derive(Clone, Copy, Debug, Default)]
pub struct FlowStats {
    /// ACKs dropped on a queued ACK route.
    pub ack_drops: u64,
    /// Payload bytes that became in-order at the receiver.
    pub goodput_bytes: u64,
    /// Payload bytes of every data packet that reached the receiver, retransmissions included.
    pub throughput_bytes: u64,
    pub drops: u64,
    pub marks: u64,
}

impl FlowStats {
    pub fn add(&mut self, o: &FlowStats) {
        self.ack_drops += o.ack_drops;
        self.goodput_bytes += o.goodput_bytes;
        self.throughput_bytes += o.throughput_bytes;
        self.drops += o.drops;
        self.marks += o.marks;
    }
}
