//! Global Notifier (GN): Tsioliaridou & Tsaoussidis, "On the properties of system-wide responsive
//! behavior" (paper note §2.1; the paper's §3.1 and Fig. 1).
//!
//! GN computes RED's average queue and RED's marking probability (the same [`RedCore`] as `red`: the EWMA
//! with the ns-2 idle-time correction, `count`, eq. (3) `p_b = max_p·(avg−min_th)/(max_th−min_th)` and
//! eq. (4) `p_a = p_b/(2−count·p_b)`, ns-2's `wait` rule). What changes is what a firing of the random
//! test does: GN never drops early; it queues the arrival and sets CE on it **and on every ECN-capable
//! packet in the buffer not yet marked**, so that many flows hear of the congestion at once. Marks are
//! counted under the reason `notify`, once per packet (a packet already CE is not marked again).
//!
//! On each arrival, with `q` the packets waiting before it (note §2.1, pseudo-code):
//! - RED's test decides (`avg ≥ min_th` and `q > 1` as in ns-2; the first arrival above `min_th` only sets
//!   `count ← 1`);
//! - a **forced** drop when `avg ≥ 2·max_th` (the paper's rule, ns-2's gentle forced drop); nothing is
//!   marked; `forced_drop = false` removes these drops;
//! - an **overflow** drop when the packet does not fit the buffer (the paper's other discard; it resets
//!   `count` like a decision, as ns-2 does);
//! - otherwise the packet is queued, and a firing marks it and the buffer.
//!
//! Choices the paper leaves open, each a parameter (default: our reading of the paper, note §2.1):
//! - `p_b` between `max_th` and `2·max_th` (only eq. (3) is given): `gentle = true` (default, ns-2's gentle
//!   `max_p + (1−max_p)·(avg−max_th)/max_th`, which matches the "discard above 2·max_th" rule) or `false`
//!   (eq. (3) extended linearly, capped at 1);
//! - Not-ECT packets (the paper assumes every flow ECN-capable): `not_ect = "pass"` (default: GN never
//!   drops early; a Not-ECT arrival is queued unmarked and Not-ECT packets in the buffer are left alone,
//!   as ns-2 marks only ECT packets) or `"drop"` (a Not-ECT arrival that fires the test is dropped early,
//!   as RED would; the buffer is still marked);
//! - `count`: `"since-mark"` (default, RED's: arrivals since the last mark or drop; the paper's "since
//!   the queue was idle" reads as a slip, note §2.1) or `"since-idle"` (the paper's words taken literally).
//!
//! Thresholds: the paper uses `min_th ≈ 2/3·max_th` and gives no absolute values; the defaults are 10 and
//! 15 packets. The buffer walk costs O(queue length) per firing, with no per-flow state.
//!
//! Per firing, GN counts the packets it marks (the arrival and the queued ones not yet CE) and the distinct
//! flows among them, for the paper's "notifies up to 45% of flows simultaneously" (§1). The port's
//! `queue_state` reports, over the run: `notify_events` (firings), `notify_packets_mean`/`_max` (packets
//! marked per firing) and `notify_flows_mean`/`_max` (distinct flows marked per firing; divided by the
//! number of flows, the share of the flows one firing notifies). Counting sorts the firing's flow
//! numbers: no per-flow state either.

use super::red::{AboveMax, CountRule, Ramp, RedCore, RedDecision, RedTest};
use super::{
    fifo_occupancy, reason, resolve_limit, Discipline, Fifo, Limit, QueueContext, QueueDisc, QueueEffects,
    Reason, LIMIT, LIMIT_BYTES,
};
use crate::packet::{Ecn, Packet};
use crate::spec::params::{name_params, params};
use crate::spec::{err, ScenarioError};
use crate::time::Time;
use crate::units::Bytes;
use serde::Deserialize;
use std::collections::BTreeMap;

/// The reason GN's marks are counted under.
pub const NOTIFY: Reason = Reason("notify");

/// What GN does with a Not-ECT arrival that fires the test.
#[derive(Deserialize, serde::Serialize, Debug, Clone, Copy, PartialEq, Eq)]
#[serde(rename_all = "kebab-case")]
pub enum NotEct {
    /// Queue it unmarked (GN never drops early).
    Pass,
    /// Drop it early, as RED would.
    Drop,
}

/// What RED's `count` counts (`count` in the scenario table).
#[derive(Deserialize, serde::Serialize, Debug, Clone, Copy, PartialEq, Eq)]
#[serde(rename_all = "kebab-case")]
pub enum Count {
    SinceMark,
    SinceIdle,
}

params! {
    /// Global Notifier (Tsioliaridou & Tsaoussidis §3.1): RED's average and test (ns-2's idle correction,
    /// eq. (4) with `wait`); a firing marks the arrival and every queued ECT packet not yet CE (reason
    /// `notify`). The paper's thresholds are relative (min_th ≈ 2/3 max_th), so the defaults are ours.
    pub struct Spec {
        /// Packets waiting (required, or `limit_bytes`).
        limit: Option<u64> = None, LIMIT;
        /// Bytes waiting, instead of `limit`.
        limit_bytes: Option<Bytes> = None, LIMIT_BYTES;
        /// RED's `min_th`.
        min_th: f64 = 10.0, Rule::closed(0.0, 1e9).unit("packets");
        /// RED's `max_th`.
        max_th: f64 = 15.0, Rule::above_field("min_th").unit("packets");
        /// RED's `max_p`.
        max_p: f64 = 0.1, Rule::left_open(0.0, 1.0);
        /// RED's `weight`.
        weight: f64 = 0.002, Rule::left_open(0.0, 1.0);
        /// p_b between max_th and 2·max_th: ns-2's gentle line, or (false) eq. (3) extended linearly, the
        /// paper giving only eq. (3).
        gentle: bool = true;
        /// RED's `wait`.
        wait: bool = true;
        /// Drop arrivals when the average reaches 2·max_th (the paper's rule), or (false) only on overflow.
        forced_drop: bool = true;
        /// A Not-ECT arrival that fires the test: "pass" (queued unmarked: GN never drops early; needs
        /// tcp.ecn for a group crossing the port) or "drop" (dropped early, as RED would).
        not_ect: NotEct = NotEct::Pass, Rule::names(&["pass", "drop"]);
        /// RED's count: "since-mark" (arrivals since the last mark or drop) or "since-idle" (the paper's
        /// words, read as a slip).
        count: Count = Count::SinceMark, Rule::names(&["since-mark", "since-idle"]);
        /// As `red`'s; default: the packet size of the flows crossing the port.
        mean_pktsize: Option<Bytes> = None, Rule::closed(1.0, 65535.0).default_is("the packet size");
    }
}

name_params!(NotEct, Count);

/// What the firings marked, over the run (see the module's notes).
#[derive(Default, Debug, Clone, PartialEq)]
pub struct NotifyStats {
    pub events: u64,
    pub packets_sum: u64,
    pub packets_max: u64,
    pub flows_sum: u64,
    pub flows_max: u64,
}

impl NotifyStats {
    fn add(&mut self, packets: u64, flows: u64) {
        self.events += 1;
        self.packets_sum += packets;
        self.packets_max = self.packets_max.max(packets);
        self.flows_sum += flows;
        self.flows_max = self.flows_max.max(flows);
    }

    fn report(&self, out: &mut BTreeMap<String, f64>) {
        let n = self.events.max(1) as f64;
        out.insert("notify_events".into(), self.events as f64);
        out.insert("notify_packets_mean".into(), self.packets_sum as f64 / n);
        out.insert("notify_packets_max".into(), self.packets_max as f64);
        out.insert("notify_flows_mean".into(), self.flows_sum as f64 / n);
        out.insert("notify_flows_max".into(), self.flows_max as f64);
    }
}

pub struct GlobalNotifier {
    red: RedCore,
    fifo: Fifo,
    limit: Limit,
    not_ect: NotEct,
    stats: NotifyStats,
    /// The flow numbers one firing marked (reused between firings).
    scratch: Vec<u32>,
}

impl GlobalNotifier {
    pub fn new(test: RedTest, limit: Limit, not_ect: NotEct, rng: crate::rng::Rng) -> Self {
        GlobalNotifier {
            red: RedCore::new(test, rng),
            fifo: Fifo::default(),
            limit,
            not_ect,
            stats: NotifyStats::default(),
            scratch: Vec::new(),
        }
    }

    /// What the firings so far marked.
    pub fn notify_stats(&self) -> &NotifyStats {
        &self.stats
    }

    /// Count one firing: the marks `fx` gained since it held `before` of them.
    fn count_firing(&mut self, fx: &QueueEffects, before: usize) {
        self.scratch.clear();
        self.scratch.extend(fx.marks[before..].iter().map(|m| m.0));
        let packets = self.scratch.len() as u64;
        self.scratch.sort_unstable();
        self.scratch.dedup();
        self.stats.add(packets, self.scratch.len() as u64);
    }

    /// The current average queue, packets.
    pub fn average(&self) -> f64 {
        self.red.average()
    }

    /// Set CE on every ECN-capable packet in the buffer not yet marked.
    fn notify_buffer(&mut self, fx: &mut QueueEffects) {
        for p in self.fifo.iter_mut() {
            if p.ecn == Ecn::Ect {
                fx.mark(p, NOTIFY);
            }
        }
    }
}

impl Discipline for GlobalNotifier {
    type Spec = Spec;
    fn build(s: &Spec, ctx: QueueContext) -> Result<Self, ScenarioError> {
        let limit = resolve_limit(s.limit, s.limit_bytes, &ctx)?;
        let mean = s.mean_pktsize.map_or(ctx.packet_size as f64, |m| m.0);
        if s.not_ect == NotEct::Pass && !ctx.ecn_senders {
            return err(
                &ctx.field("not_ect"),
                "global-notifier only marks ECN-capable packets: needs tcp.ecn = true for a group crossing \
                 the port (or not_ect = \"drop\")",
            );
        }
        let test = RedTest {
            min_th: s.min_th,
            max_th: s.max_th,
            max_p: s.max_p,
            weight: s.weight,
            wait: s.wait,
            above_max: if s.gentle { AboveMax::Gentle } else { AboveMax::Linear },
            ramp: Ramp::Linear,
            forced_th: if s.forced_drop { 2.0 * s.max_th } else { f64::INFINITY },
            count: match s.count {
                Count::SinceMark => CountRule::SinceDecision,
                Count::SinceIdle => CountRule::SinceIdle,
            },
            ptc: ctx.link_rate_bps / (8.0 * mean.trunc()),
        };
        Ok(GlobalNotifier::new(test, limit, s.not_ect, ctx.rng))
    }
}

impl QueueDisc for GlobalNotifier {
    fn enqueue(&mut self, mut pkt: Packet, now: Time, fx: &mut QueueEffects) {
        let decision = self.red.decide(now, self.fifo.len());
        if decision == RedDecision::Forced {
            return fx.drop(pkt, reason::FORCED);
        }
        if !self.limit.admits(&self.fifo, &pkt) {
            self.red.reset_count();
            return fx.drop(pkt, reason::OVERFLOW);
        }
        if decision == RedDecision::Early {
            let before = fx.marks.len();
            if pkt.ecn == Ecn::NotEct && self.not_ect == NotEct::Drop {
                self.notify_buffer(fx);
                self.count_firing(fx, before);
                return fx.drop(pkt, reason::EARLY);
            }
            fx.mark(&mut pkt, NOTIFY);
            self.notify_buffer(fx);
            self.count_firing(fx, before);
        }
        pkt.enqueued_at = now;
        self.fifo.push(pkt);
    }

    fn dequeue(&mut self, now: Time, _fx: &mut QueueEffects) -> Option<Packet> {
        let p = self.fifo.pop();
        if p.is_none() {
            self.red.on_empty(now);
        }
        p
    }

    fifo_occupancy!(fifo, limit);
    fn report(&self, out: &mut BTreeMap<String, f64>) {
        self.stats.report(out);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::queue::red::{Red, RedParams};
    use crate::queue::{test_context, test_packet, Stage};
    use crate::rng::Rng;

    fn pkt(flow: u32, seq: u32, ecn: Ecn) -> Packet {
        Packet { ecn, ..test_packet(flow, seq, 1000) }
    }

    /// `avg = q` (w = 1) and `p_b = 1` from max_th = 1.5 up (gentle, max_p = 1), no forced drops: with the
    /// `wait` rule the first arrival above min_th sets count = 1, and every later one fires
    /// (count·p_b ≥ 1 gives p_a = 1/(2 − count) = 1 at count 1, and 1 from count 2).
    fn always_firing() -> GlobalNotifier {
        let test = RedTest {
            min_th: 1.0,
            max_th: 1.5,
            max_p: 1.0,
            weight: 1.0,
            wait: true,
            above_max: AboveMax::Gentle,
            ramp: Ramp::Linear,
            forced_th: f64::INFINITY,
            count: CountRule::SinceDecision,
            ptc: 1000.0,
        };
        GlobalNotifier::new(test, Limit::Packets(100), NotEct::Pass, Rng::new(1, 1))
    }

    #[test]
    fn a_firing_marks_the_arrival_and_every_unmarked_ect_packet_once() {
        let mut gn = always_firing();
        let ecns = [Ecn::Ect, Ecn::Ce, Ecn::Ect, Ecn::NotEct, Ecn::Ce, Ecn::Ect];
        for (i, &e) in ecns.iter().enumerate() {
            gn.fifo.push(pkt(i as u32, 0, e));
        }
        let mut fx = QueueEffects::default();
        // q = 6: the first arrival above min_th only sets count = 1.
        gn.enqueue(pkt(6, 0, Ecn::Ect), 0, &mut fx);
        assert!(fx.marks.is_empty() && fx.drops.is_empty());
        // The next fires: the arrival (flow 7) and the ECT packets of flows 0, 2, 5 and 6; flows 1 and 4
        // are CE already, flow 3 is Not-ECT.
        gn.enqueue(pkt(7, 0, Ecn::Ect), 0, &mut fx);
        let mut flows: Vec<u32> = fx.marks.iter().map(|m| m.0).collect();
        flows.sort();
        assert_eq!(flows, vec![0, 2, 5, 6, 7]);
        assert!(fx.marks.iter().all(|m| m.1 == NOTIFY));
        let states: Vec<Ecn> = gn.fifo.iter_mut().map(|p| p.ecn).collect();
        let mut expect = vec![Ecn::Ce; 8];
        expect[3] = Ecn::NotEct;
        assert_eq!(states, expect);
        assert!(fx.drops.is_empty(), "GN never drops early");
        // Fires again at once: only the new arrival is marked, nothing is counted twice.
        fx.marks.clear();
        gn.enqueue(pkt(8, 0, Ecn::Ect), 0, &mut fx);
        assert_eq!(fx.marks, vec![(8, NOTIFY)]);
        assert_eq!(gn.len(), 9);
    }

    #[test]
    fn each_firing_counts_its_marked_packets_and_distinct_flows() {
        let mut gn = always_firing();
        let queued =
            [(0, 0, Ecn::Ect), (0, 1, Ecn::Ect), (1, 0, Ecn::Ect), (2, 0, Ecn::Ce), (3, 0, Ecn::NotEct)];
        for &(f, s, e) in &queued {
            gn.fifo.push(pkt(f, s, e));
        }
        let mut fx = QueueEffects::default();
        // The first arrival above min_th only sets count = 1: no firing, nothing counted.
        gn.enqueue(pkt(1, 1, Ecn::Ect), 0, &mut fx);
        assert_eq!(gn.notify_stats().events, 0);
        // The next fires: the arrival (flow 4) and the ECT packets of flows 0, 0, 1, 1 are marked: five
        // packets of three distinct flows (flow 2 is CE already, flow 3 Not-ECT).
        gn.enqueue(pkt(4, 0, Ecn::Ect), 0, &mut fx);
        let st = gn.notify_stats().clone();
        assert_eq!((st.events, st.packets_max, st.flows_max), (1, 5, 3));
        assert_eq!(fx.marks.len() as u64, st.packets_sum);
        // It fires again at once: only the arrival is new, one packet of one flow.
        gn.enqueue(pkt(4, 1, Ecn::Ect), 0, &mut fx);
        let mut out = BTreeMap::new();
        gn.report(&mut out);
        assert_eq!(out["notify_events"], 2.0);
        assert_eq!((out["notify_packets_mean"], out["notify_packets_max"]), (3.0, 5.0));
        assert_eq!((out["notify_flows_mean"], out["notify_flows_max"]), (2.0, 3.0));
        assert_eq!(fx.marks.len() as u64, gn.notify_stats().packets_sum);
        // A Not-ECT arrival dropped early still notifies the buffer: a firing with its marks counted.
        let mut gn = always_firing();
        gn.not_ect = NotEct::Drop;
        let mut fx = QueueEffects::default();
        for s in 0..3 {
            gn.enqueue(pkt(s, 0, Ecn::Ect), 0, &mut fx);
        }
        gn.enqueue(pkt(9, 0, Ecn::NotEct), 0, &mut fx);
        let st = gn.notify_stats();
        assert_eq!((st.events, st.packets_sum, st.flows_max), (1, 3, 3));
        assert_eq!(fx.drops.len(), 1);
    }

    #[test]
    fn a_run_without_firings_reports_zeros() {
        let gn = always_firing();
        let mut out = BTreeMap::new();
        gn.report(&mut out);
        assert!(out.values().all(|&v| v == 0.0), "{out:?}");
        assert_eq!(out.len(), 5);
    }

    #[test]
    fn not_ect_arrivals_pass_or_drop() {
        let mut gn = always_firing();
        let mut fx = QueueEffects::default();
        for s in 0..3 {
            gn.enqueue(pkt(0, s, Ecn::Ect), 0, &mut fx);
        }
        // Fires on a Not-ECT arrival: it is queued unmarked, the buffer is marked.
        gn.enqueue(pkt(1, 0, Ecn::NotEct), 0, &mut fx);
        assert_eq!(fx.marks.len(), 3);
        assert_eq!(gn.len(), 4);
        let mut gn = always_firing();
        gn.not_ect = NotEct::Drop;
        let mut fx = QueueEffects::default();
        for s in 0..3 {
            gn.enqueue(pkt(0, s, Ecn::Ect), 0, &mut fx);
        }
        gn.enqueue(pkt(1, 0, Ecn::NotEct), 0, &mut fx);
        assert_eq!(fx.marks.len(), 3, "the buffer is still notified");
        assert_eq!(fx.drops, vec![(pkt(1, 0, Ecn::NotEct), reason::EARLY, Stage::BeforeEnqueue)]);
        assert_eq!(gn.len(), 3);
    }

    #[test]
    fn forced_drop_at_twice_max_th_and_overflow() {
        // w = 1, max_p tiny: the wait rule never fires below 2·max_th = 8.
        let test = RedTest {
            min_th: 2.0,
            max_th: 4.0,
            max_p: 1e-9,
            weight: 1.0,
            wait: true,
            above_max: AboveMax::Linear,
            ramp: Ramp::Linear,
            forced_th: 8.0,
            count: CountRule::SinceDecision,
            ptc: 1000.0,
        };
        let mut gn = GlobalNotifier::new(test.clone(), Limit::Packets(100), NotEct::Pass, Rng::new(1, 1));
        let mut fx = QueueEffects::default();
        for s in 0..8 {
            gn.enqueue(pkt(0, s, Ecn::Ect), 0, &mut fx);
        }
        assert!(fx.drops.is_empty() && fx.marks.is_empty());
        // The 9th arrival sees q = 8 = 2·max_th.
        gn.enqueue(pkt(0, 8, Ecn::Ect), 0, &mut fx);
        assert_eq!(fx.drops, vec![(pkt(0, 8, Ecn::Ect), reason::FORCED, Stage::BeforeEnqueue)]);
        assert!(fx.marks.is_empty(), "a forced drop marks nothing");
        // Without forced drops, only the buffer limit discards.
        let test = RedTest { forced_th: f64::INFINITY, ..test };
        let mut gn = GlobalNotifier::new(test, Limit::Packets(10), NotEct::Pass, Rng::new(1, 1));
        let mut fx = QueueEffects::default();
        for s in 0..11 {
            gn.enqueue(pkt(0, s, Ecn::Ect), 0, &mut fx);
        }
        assert_eq!(fx.drops, vec![(pkt(0, 10, Ecn::Ect), reason::OVERFLOW, Stage::BeforeEnqueue)]);
    }

    #[test]
    fn fires_exactly_where_red_with_ecn_marks() {
        // The same parameters and random stream: RED/ECN marks the arrival where GN fires.
        let params = RedParams {
            min_th: 3.0,
            max_th: 9.0,
            max_p: 0.2,
            weight: 0.2,
            gentle: true,
            wait: true,
            ecn: true,
            hard_drop: true,
            mean_pktsize: 1000,
            link_rate_bps: 8e6,
            limit: Limit::Packets(1000),
            mark_p: None,
        };
        let mut red = Red::new(params.clone(), Rng::new(7, 3));
        let mut gn = GlobalNotifier::new(params.test(), params.limit, NotEct::Pass, Rng::new(7, 3));
        let (mut fr, mut fg) = (QueueEffects::default(), QueueEffects::default());
        let mut fired = 0;
        for s in 0..20_000u32 {
            let now = s as u64 * 1_000_000;
            red.enqueue(pkt(s % 7, s, Ecn::Ect), now, &mut fr);
            gn.enqueue(pkt(s % 7, s, Ecn::Ect), now, &mut fg);
            let red_marked = fr.marks.drain(..).any(|m| m.0 == s % 7);
            let gn_marked_arrival = !fg.marks.is_empty();
            assert_eq!(red_marked, gn_marked_arrival, "arrival {s}");
            fired += gn_marked_arrival as u32;
            fg.marks.clear();
            // Serve one packet every other arrival, then drain to idle every 1,000 arrivals.
            if s % 2 == 0 || red.len() > 12 {
                red.dequeue(now, &mut fr);
                gn.dequeue(now, &mut fg);
            }
            if s % 1000 == 999 {
                while red.dequeue(now, &mut fr).is_some() {}
                while gn.dequeue(now, &mut fg).is_some() {}
            }
            assert_eq!(red.average(), gn.average());
        }
        assert!(fired > 100, "{fired}");
    }

    #[test]
    fn count_since_idle_fires_on_every_arrival_once_count_p_b_reaches_2() {
        // p_b = avg/100 = 0.5 with the queue held at 50 (w = 1, linear). RED's count restarts at each
        // firing, so the next arrival has count·p_b = 0.5 < 1 and never fires; counted since the queue
        // was idle, count·p_b ≥ 2 from the 4th arrival on and every arrival fires.
        let run = |count: CountRule| {
            let test = RedTest {
                min_th: 0.0,
                max_th: 100.0,
                max_p: 1.0,
                weight: 1.0,
                wait: true,
                above_max: AboveMax::Linear,
                ramp: Ramp::Linear,
                forced_th: f64::INFINITY,
                count,
                ptc: 1000.0,
            };
            let mut gn = GlobalNotifier::new(test, Limit::Packets(100), NotEct::Pass, Rng::new(5, 1));
            for s in 0..50 {
                gn.fifo.push(pkt(1000, s, Ecn::NotEct));
            }
            let mut fx = QueueEffects::default();
            let mut fired = Vec::new();
            for s in 0..200u32 {
                gn.enqueue(pkt(s, 0, Ecn::Ect), 0, &mut fx);
                fired.push(fx.marks.iter().any(|m| m.0 == s));
                fx.marks.clear();
                gn.dequeue(0, &mut fx);
            }
            fired
        };
        let since_idle = run(CountRule::SinceIdle);
        assert!(since_idle[3..].iter().all(|&f| f));
        let since_mark = run(CountRule::SinceDecision);
        assert!(since_mark.windows(2).all(|w| !(w[0] && w[1])), "never two firings in a row");
        assert!(since_mark.iter().filter(|&&f| f).count() > 20);
    }

    #[test]
    fn bad_parameters_name_the_field() {
        let build = |s: Spec, ecn: bool| {
            let mut ctx = test_context("bottleneck.queue");
            ctx.ecn_senders = ecn;
            GlobalNotifier::from_spec(&s, ctx).err().map(|e| e.field)
        };
        let base = Spec { limit: Some(100), ..Spec::default() };
        assert_eq!(build(base.clone(), true), None);
        let f = |s| Some(format!("bottleneck.queue.{s}"));
        assert_eq!(build(Spec { max_th: 10.0, ..base.clone() }, true), f("max_th"));
        assert_eq!(build(Spec { min_th: -1.0, ..base.clone() }, true), f("min_th"));
        assert_eq!(build(Spec { max_p: 0.0, ..base.clone() }, true), f("max_p"));
        assert_eq!(build(Spec { weight: 1.5, ..base.clone() }, true), f("weight"));
        assert_eq!(build(Spec { mean_pktsize: Some(Bytes(0.0)), ..base.clone() }, true), f("mean_pktsize"));
        assert_eq!(build(Spec { limit: None, ..base.clone() }, true), f("limit"));
        assert_eq!(build(base.clone(), false), f("not_ect"));
        assert_eq!(build(Spec { not_ect: NotEct::Drop, ..base }, false), None);
    }
}
