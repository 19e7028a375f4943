//! The bottleneck's and the flows' measurements over the window [warmup, duration].

use super::{LogHistogram, Moments, TimeWeightedCounts};
use crate::queue::DropReason;
use crate::time::{to_secs, Time};

/// Bottleneck statistics, streamed.
#[derive(Default)]
pub struct BottleneckStats {
    pub measuring: bool,
    pub arrivals: u64,
    pub departures: u64,
    pub departed_bytes: u64,
    pub drops_overflow: u64,
    pub drops_early: u64,
    pub drops_forced: u64,
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

impl BottleneckStats {
    pub fn begin(&mut self, now: Time) {
        self.measuring = true;
        self.queue_since = now;
    }

    pub fn on_drop(&mut self, reason: DropReason) {
        if self.measuring {
            match reason {
                DropReason::Overflow => self.drops_overflow += 1,
                DropReason::Early => self.drops_early += 1,
                DropReason::Forced => self.drops_forced += 1,
            }
        }
    }

    /// The queue now holds `len` packets.
    pub fn queue_changed(&mut self, now: Time, len: usize) {
        if self.measuring && len != self.queue_len {
            self.close_interval(now);
        }
        self.queue_len = len;
    }

    fn close_interval(&mut self, now: Time) {
        let dt = now - self.queue_since;
        self.queue_area += self.queue_len as f64 * dt as f64;
        self.queue_levels.add(self.queue_len, dt);
        self.queue_since = now;
    }

    pub fn on_service_start(&mut self, waited: Time) {
        if self.measuring {
            self.delay.add(to_secs(waited));
            self.delay_hist.add(waited);
        }
    }

    /// Close the time-weighted statistics at the end of the run.
    pub fn finish(&mut self, end: Time) {
        if self.measuring {
            self.close_interval(end);
        }
    }

    pub fn drops(&self) -> u64 {
        self.drops_overflow + self.drops_early + self.drops_forced
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
    /// Payload bytes that became in-order at the receiver.
    pub goodput_bytes: u64,
    /// Payload bytes of every data packet that reached the receiver, retransmissions included.
    pub throughput_bytes: u64,
    pub drops: u64,
    pub marks: u64,
}
