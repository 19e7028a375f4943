//! Delivery-rate estimation (draft-cheng-iccrg-delivery-rate-estimation-02, Linux's `tcp_rate.c`), as
//! ns-3 3.44's `TcpRateLinux` runs it, for a controller that sets its window from rate samples (BBR).
//!
//! Each transmission records the connection's delivery state (segments delivered so far, when the last
//! of them was delivered, when the current sending flight began, whether the sender was app-limited).
//! An ACK delivers segments (newly acknowledged or newly SACKed); of those, the most recently sent one
//! supplies the sample's start: the rate is the segments delivered since it left over the longer of its
//! send phase and its ACK phase. Counted in segments, so rates are segments per second.
//!
//! As ns-3 (and unlike Linux, which starts every ACK afresh), the sample persists from ACK to ACK: a
//! delivered segment replaces its start only if it was sent with more delivered before it, and a sample
//! that is not recorded (an app-limited one below the last recorded rate) keeps the last recorded rate.
//! A sample whose interval is shorter than the smallest smoothed RTT so far (ns-3's `tcb->m_minRtt`,
//! carried on each sample) is invalid.
//! The segments an ACK delivers are compared one by one in ns-3's order (SACK blocks as listed, then the
//! cumulative ACK): of several sent between the same two ACKs (the same delivered count), the first one
//! handed over starts the sample, which sets its send phase.

use crate::time::Time;
use std::collections::VecDeque;

/// One rate sample, as a controller reads it after each ACK (ns-3's `TcpRateSample`).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct RateSample {
    /// The delivery rate, segments per second (the last recorded one when this sample is not recorded).
    pub delivery_rate: f64,
    /// The sample's start was sent while the sender was app-limited.
    pub is_app_limited: bool,
    /// The sample's interval; 0 when the sample is invalid.
    pub interval: Time,
    /// Segments delivered over the interval; `None` when the sample has no timing information.
    pub delivered: Option<u64>,
    /// The connection's delivered count when the sample's start was sent.
    pub prior_delivered: u64,
    /// Segments this ACK delivered (acknowledged or SACKed for the first time).
    pub acked_sacked: u32,
    /// The change in segments marked lost across this ACK.
    pub lost: u32,
    /// Segments in flight (RFC 6675 pipe) before this ACK.
    pub prior_in_flight: u32,
    /// The smallest smoothed RTT so far (ns-3's `tcb->m_minRtt`), which an interval must reach.
    pub min_srtt: Option<Time>,
    /// This ACK's RTT as Linux times it (`rs->rtt_us`: [`crate::tcp::scoreboard::Scoreboard::take_ack_rtt_sent`]);
    /// set by the sender, `None` on an ACK that times nothing.
    pub rtt: Option<Time>,
}

#[derive(Clone, Copy, Debug)]
struct Sent {
    delivered: u64,
    delivered_time: Time,
    first_sent: Time,
    sent_at: Time,
    app_limited: bool,
}

/// The connection's delivery state and the record of every transmission not yet superseded.
#[derive(Clone, Debug, Default)]
pub struct RateSampler {
    /// Segments delivered so far (ns-3's `m_rate.m_delivered`).
    delivered: u64,
    delivered_time: Time,
    first_sent: Time,
    /// Non-zero while app-limited: the delivered count at which the bubble is gone.
    app_limited: u64,
    /// The last recorded sample's size and interval.
    rate_delivered: u64,
    rate_interval: Time,
    /// The sample in progress (persists across ACKs) and its start.
    sample: RateSample,
    prior_time: Option<Time>,
    send_elapsed: Time,
    ack_elapsed: Time,
    /// Transmissions from ordinal `base` on.
    sent: VecDeque<Sent>,
    base: u32,
}

impl RateSampler {
    /// Segments delivered so far.
    pub fn delivered(&self) -> u64 {
        self.delivered
    }

    /// A transmission at `now`, `idle` if nothing was in flight before it; returns its ordinal, which the
    /// scoreboard keeps on the segment.
    pub fn on_send(&mut self, now: Time, idle: bool) -> u32 {
        if idle {
            // Nothing in flight: the sending flight starts now (ns-3's `isStartOfTransmission`).
            self.first_sent = now;
            self.delivered_time = now;
        }
        self.sent.push_back(Sent {
            delivered: self.delivered,
            delivered_time: self.delivered_time,
            first_sent: self.first_sent,
            sent_at: now,
            app_limited: self.app_limited != 0,
        });
        self.base.wrapping_add(self.sent.len() as u32 - 1)
    }

    /// Whether the connection is marked application-limited (Linux's `tp->app_limited` non-zero).
    pub fn app_limited(&self) -> bool {
        self.app_limited != 0
    }

    /// The sender has nothing to send with room in its window (ns-3's `CalculateAppLimited`): samples
    /// start app-limited until what is in flight now is delivered.
    pub fn mark_app_limited(&mut self, in_flight: u32) {
        self.app_limited = (self.delivered + u64::from(in_flight)).max(1);
    }

    /// An ACK at `now` delivered `acked_sacked` segments, whose transmissions are `delivered_tx` in the
    /// order ns-3 hands them to `SkbDelivered` (see the module's comment); `lost`: the change in segments
    /// marked lost; `prior_in_flight`: the pipe before it.
    pub fn on_ack(
        &mut self,
        now: Time,
        delivered_tx: &[u32],
        acked_sacked: u32,
        lost: u32,
        prior_in_flight: u32,
        srtt: Option<f64>,
    ) -> RateSample {
        if let Some(srtt) = srtt.map(crate::time::from_secs) {
            self.sample.min_srtt = Some(self.sample.min_srtt.map_or(srtt, |m| m.min(srtt)));
        }
        let min_rtt = self.sample.min_srtt.unwrap_or(Time::MAX);
        if acked_sacked > 0 {
            self.delivered += u64::from(acked_sacked);
            self.delivered_time = now;
        }
        // ns-3's `SkbDelivered`, segment by segment: the first one sent with more delivered before it than
        // the sample's start replaces that start (so of several sent between the same two ACKs, the first
        // the ACK hands over).
        let mut newest: Option<u32> = None;
        for &tx in delivered_tx {
            let i = tx.wrapping_sub(self.base) as usize;
            if i >= self.sent.len() {
                continue; // superseded: sent with no more delivered than the sample's start
            }
            if newest.is_none_or(|n| (tx.wrapping_sub(n) as i32) > 0) {
                newest = Some(tx);
            }
            let s = self.sent[i];
            if self.sample.prior_delivered == 0 || s.delivered > self.sample.prior_delivered {
                self.ack_elapsed = now - s.delivered_time;
                self.sample.prior_delivered = s.delivered;
                self.prior_time = Some(s.delivered_time);
                self.sample.is_app_limited = s.app_limited;
                self.send_elapsed = s.sent_at - s.first_sent;
                self.first_sent = s.sent_at;
            }
        }
        // Transmissions up to the newest delivered carry no more delivered than the sample's start now has:
        // none of them can replace it again (unless that start is still 0, as in the first round trip).
        if let Some(tx) = newest.filter(|_| self.sample.prior_delivered > 0) {
            self.sent.drain(..=tx.wrapping_sub(self.base) as usize);
            self.base = tx.wrapping_add(1);
        }
        self.generate(acked_sacked, lost, prior_in_flight, min_rtt)
    }

    /// ns-3's `GenerateSample`.
    fn generate(&mut self, acked_sacked: u32, lost: u32, prior_in_flight: u32, min_rtt: Time) -> RateSample {
        if self.app_limited != 0 && self.delivered > self.app_limited {
            self.app_limited = 0;
        }
        let s = &mut self.sample;
        s.acked_sacked = acked_sacked;
        s.lost = lost;
        s.prior_in_flight = prior_in_flight;
        if self.prior_time.is_none() {
            s.delivered = None;
            s.interval = 0;
            return *s;
        }
        s.interval = self.send_elapsed.max(self.ack_elapsed);
        let delivered = self.delivered - s.prior_delivered;
        s.delivered = Some(delivered);
        if s.interval < min_rtt {
            s.interval = 0;
            self.prior_time = None;
            return *s;
        }
        // Record the last non-app-limited sample, or the highest app-limited one.
        if !s.is_app_limited
            || u128::from(delivered) * u128::from(self.rate_interval)
                >= u128::from(self.rate_delivered) * u128::from(s.interval)
        {
            self.rate_delivered = delivered;
            self.rate_interval = s.interval;
            s.delivery_rate = delivered as f64 / crate::time::to_secs(s.interval);
        }
        *s
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::time::from_secs;

    /// A sender with one segment in flight at a time over a 10 ms path: one segment per 10 ms.
    #[test]
    fn stop_and_wait_delivers_one_segment_per_rtt() {
        let mut r = RateSampler::default();
        let rtt = from_secs(0.01);
        let mut now = 0;
        let mut last = RateSample::default();
        for _ in 0..5 {
            let tx = r.on_send(now, true);
            now += rtt;
            last = r.on_ack(now, &[tx], 1, 0, 1, Some(0.01));
        }
        assert_eq!(last.interval, rtt);
        assert_eq!(last.delivered, Some(1));
        assert!((last.delivery_rate - 100.0).abs() < 1e-9);
    }

    /// A window of 10 sent at once and acknowledged one by one every ms: the ACK phase sets the rate.
    #[test]
    fn a_burst_acknowledged_at_the_bottleneck_rate_measures_that_rate() {
        let mut r = RateSampler::default();
        let ms = from_secs(0.001);
        // A first flight establishes a delivered count and a delivery time.
        let tx: Vec<u32> = (0..10).map(|i| r.on_send(0, i == 0)).collect();
        let mut now = 10 * ms;
        for (k, &t) in tx.iter().enumerate() {
            let s = r.on_ack(now + k as u64 * ms, &[t], 1, 0, 10 - k as u32, Some(0.005));
            if k == 9 {
                assert_eq!(s.delivered, Some(10));
            }
        }
        now += 10 * ms;
        // Segments sent in a burst now carry delivered = 10 and the delivery time of the last ACK.
        let tx: Vec<u32> = (0..10).map(|_| r.on_send(now, false)).collect();
        let start = now + 9 * ms;
        let mut s = RateSample::default();
        for (k, &t) in tx.iter().enumerate() {
            s = r.on_ack(start + (k as u64 + 10) * ms, &[t], 1, 0, 10, Some(0.005));
        }
        // The burst's first ACK (at 39 ms) starts the sample: 20 ms since the last delivery before the
        // burst left (19 ms), and 20 ms since the flight began (0 ms). As in ns-3, later ACKs of the burst
        // (sent with the same delivered count) keep that start and its elapsed times: 10 segments over 20 ms.
        assert_eq!(s.delivered, Some(10));
        assert_eq!(s.interval, 20 * ms);
        assert!((s.delivery_rate - 10.0 / to(s.interval)).abs() < 1e-6);
    }

    fn to(t: Time) -> f64 {
        crate::time::to_secs(t)
    }

    #[test]
    fn an_interval_below_the_minimum_rtt_is_invalid_and_a_stale_segment_starts_nothing() {
        let mut r = RateSampler::default();
        let ms = from_secs(0.001);
        let first = r.on_send(0, true);
        r.on_ack(20 * ms, &[first], 1, 0, 1, Some(0.01));
        let a = r.on_send(20 * ms, true);
        let b = r.on_send(20 * ms, false);
        let s = r.on_ack(21 * ms, &[b], 2, 0, 2, Some(0.01));
        assert_eq!(s.interval, 0, "1 ms is below the 10 ms minimum");
        // `a` was sent with no more delivered than `b`: its record is gone, the sample keeps no start.
        let s = r.on_ack(40 * ms, &[a], 0, 0, 0, Some(0.01));
        assert_eq!((s.interval, s.delivered), (0, None));
        assert_eq!(r.sent.len(), 0, "the records do not outlive what they could start");
    }

    /// ns-3 compares delivered segments one by one: of two sent between the same two ACKs, the first one
    /// handed over starts the sample (its send phase), not the most recently sent.
    #[test]
    fn of_segments_sent_between_the_same_acks_the_first_delivered_starts_the_sample() {
        let ms = from_secs(0.001);
        let run = |order: [usize; 2]| {
            let mut r = RateSampler::default();
            let first = r.on_send(0, true);
            r.on_ack(40 * ms, &[first], 1, 0, 1, Some(0.01));
            // Two segments leave 4 ms apart with no ACK between them: both carry delivered = 1.
            let tx = [r.on_send(40 * ms, false), r.on_send(44 * ms, false)];
            let s = r.on_ack(90 * ms, &[tx[order[0]], tx[order[1]]], 2, 0, 2, Some(0.01));
            (s.interval, r.first_sent)
        };
        // The ACK phase (90 − 40 ms) is the longer either way; the send phase starts the next sample.
        assert_eq!(run([0, 1]), (50 * ms, 40 * ms));
        assert_eq!(run([1, 0]), (50 * ms, 44 * ms));
    }

    #[test]
    fn app_limited_samples_below_the_recorded_rate_keep_it() {
        let mut r = RateSampler::default();
        let ms = from_secs(0.001);
        let t = r.on_send(0, true);
        let fast = r.on_ack(10 * ms, &[t], 1, 0, 1, Some(0.001)).delivery_rate;
        r.mark_app_limited(0);
        let t = r.on_send(10 * ms, true);
        let s = r.on_ack(40 * ms, &[t], 1, 0, 1, Some(0.001));
        assert!(s.is_app_limited);
        assert_eq!(s.delivery_rate, fast, "a slower app-limited sample is not recorded");
        // The bubble is gone once the in-flight count at marking time is delivered.
        let t = r.on_send(40 * ms, true);
        let s = r.on_ack(70 * ms, &[t], 1, 0, 1, Some(0.001));
        assert!(!s.is_app_limited);
        assert!(s.delivery_rate < fast);
    }
}
