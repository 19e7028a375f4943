//! The dumbbell simulation: senders → access links → bottleneck queue and link → receivers → ACK path.
//!
//! Paths that never queue cost no events beyond their delay:
//! - an access link is FIFO with a known rate, so a packet's arrival time at the router is computed when it
//!   is sent (`max(now, link free) + serialization + delay`) and the packet waits in the flow's
//!   in-order pipe for one `ArriveAtRouter` event;
//! - the path from the bottleneck to the receiver is a pure delay `d_b`, so a receiver processes a packet
//!   when it leaves the bottleneck, with its clock read as `now + d_b`;
//! - ACKs return over an uncongested path with the same propagation delays plus the ACK's serialization on
//!   the bottleneck and access links: a constant delay per flow. So the sender handles an ACK as soon as
//!   the receiver sends it, on its own clock read as `now + ack_delay`. Its only other inputs are its
//!   timers, which it checks against that clock first (a retransmission timeout due before the ACK fires
//!   before it), so it sees exactly the sequence of ACKs and timeouts it would see on arrival. The packets
//!   it sends leave at the sender's time, which is never earlier than the simulation's.
//!
//! So a data packet costs two events: its arrival at the router and the end of its serialization. The
//! access pipe is FIFO, so only its head has an event pending, which keeps the event heap as small as the
//! number of flows rather than the number of packets in flight. (A sampled cwnd is the sender's state on
//! its own clock, up to one ACK delay ahead of the sample time.)

use crate::events::{Event, EventQueue};
use crate::monitor::{jain_index, BottleneckStats, FlowStats};
use crate::packet::{Ack, Ecn, Packet};
use crate::queue::{AnyQueue, DropTail, QueueDisc, QueueEffects, Red};
use crate::results::{FlowResult, Results, Series, Summary, UdpResult};
use crate::rng::{stream, Rng};
use crate::scenario::{CcKind, Config, QueueConfig};
use crate::tcp::cc::{AnyCc, NewReno};
use crate::tcp::receiver::Receiver;
use crate::tcp::sender::Sender;
use crate::time::{serialization, to_secs, Time, NEVER};
use crate::traffic::UdpSource;
use std::collections::VecDeque;

struct Flow {
    sender: Sender,
    receiver: Receiver,
    /// Packets on the access link with their arrival times at the router, in order; only the head has an
    /// event in the queue.
    to_router: VecDeque<(Time, Packet)>,
    access_free_at: Time,
    access_serialization: Time,
    access_delay: Time,
    /// From the bottleneck's end of serialization to the ACK's arrival at the sender.
    ack_delay: Time,
    stats: FlowStats,
}

/// A running dumbbell experiment.
pub struct Simulation {
    cfg: Config,
    now: Time,
    events: EventQueue,
    flows: Vec<Flow>,
    /// Open-loop sources; their packets carry flow ids after the TCP flows'.
    udp: Vec<UdpSource>,
    queue: AnyQueue,
    fx: QueueEffects,
    in_service: Option<Packet>,
    /// Serialization time of a full-size data packet on the bottleneck (the common case, precomputed).
    data_serialization: Time,
    queue_timer_at: Time,
    out: Vec<Packet>,
    stats: BottleneckStats,
    series: Series,
    // Whole-run conservation counters.
    delivered: u64,
    dropped: u64,
    after_end: u64,
}

impl Simulation {
    pub fn new(cfg: Config) -> Self {
        let queue = match &cfg.queue {
            QueueConfig::DropTail { limit } => AnyQueue::DropTail(DropTail::new(*limit)),
            QueueConfig::Red(p) => {
                AnyQueue::Red(Box::new(Red::new(p.clone(), Rng::new(cfg.seed, stream::QUEUE))))
            }
        };
        let ack_on_bottleneck = serialization(cfg.ack_size, cfg.bottleneck_rate);
        let mut events = EventQueue::default();
        let flows = cfg
            .flows
            .iter()
            .enumerate()
            .map(|(i, f)| {
                let cc = match cfg.cc {
                    CcKind::Newreno => AnyCc::NewReno(NewReno),
                };
                events.schedule(f.start, Event::FlowStart(i as u32));
                let mut sender = Sender::new(i as u32, cc, &cfg.tcp);
                sender.stop_at(f.stop);
                Flow {
                    sender,
                    receiver: Receiver::new(),
                    to_router: VecDeque::new(),
                    access_free_at: 0,
                    access_serialization: serialization(cfg.tcp.packet_size, f.access_rate),
                    access_delay: f.access_delay,
                    ack_delay: 2 * cfg.bottleneck_delay
                        + f.access_delay
                        + ack_on_bottleneck
                        + serialization(cfg.ack_size, f.access_rate),
                    stats: FlowStats::default(),
                }
            })
            .collect();
        let udp = cfg
            .udp
            .iter()
            .enumerate()
            .map(|(i, u)| {
                events.schedule(u.start, Event::UdpSend(i as u32));
                let rng = Rng::new(cfg.seed, stream::UDP + i as u64);
                UdpSource::new(u.pattern, u.rate_bps, u.packet_size, u.start, u.stop, rng)
            })
            .collect();
        events.schedule(cfg.warmup, Event::WarmupEnd);
        if cfg.sample_interval.is_some() {
            events.schedule(0, Event::Sample);
        }
        let series = Series::new(if cfg.sample_cwnd { cfg.flows.len() } else { 0 });
        let data_serialization = serialization(cfg.tcp.packet_size, cfg.bottleneck_rate);
        let mut sim = Simulation {
            cfg,
            now: 0,
            events,
            flows,
            udp,
            queue,
            fx: QueueEffects::default(),
            in_service: None,
            data_serialization,
            queue_timer_at: NEVER,
            out: Vec::new(),
            stats: BottleneckStats::default(),
            series,
            delivered: 0,
            dropped: 0,
            after_end: 0,
        };
        sim.sync_queue_timer();
        sim
    }

    pub fn config(&self) -> &Config {
        &self.cfg
    }

    /// Current simulated time.
    pub fn now(&self) -> Time {
        self.now
    }

    /// Events executed so far.
    pub fn events_executed(&self) -> u64 {
        self.events.executed()
    }

    /// Events waiting in the queue (a few per flow: pipe heads and timers).
    pub fn pending_events(&self) -> usize {
        self.events.len()
    }

    /// Run every event due at or before `until` (capped at the scenario's duration).
    pub fn run_until(&mut self, until: Time) {
        let until = until.min(self.cfg.duration);
        while let Some((t, ev)) = self.events.pop_until(until) {
            self.now = t;
            self.dispatch(ev);
        }
        self.now = self.now.max(until);
    }

    /// Run to the end and collect the results.
    pub fn run(self) -> Results {
        self.finish()
    }

    fn dispatch(&mut self, ev: Event) {
        match ev {
            Event::ArriveAtRouter(f) => self.arrive_at_router(f as usize),
            Event::LinkTxDone => self.link_tx_done(),
            Event::RetransmitTimer(f) => self.retransmit_timer(f as usize),
            Event::DelayedAckTimer(f) => self.delayed_ack_timer(f as usize),
            Event::FlowStart(f) => {
                self.flows[f as usize].sender.start(self.now, &self.cfg.tcp, &mut self.out);
                self.send_out(f as usize, self.now);
            }
            Event::QueueTimer => {
                if self.now == self.queue_timer_at {
                    self.queue_timer_at = NEVER;
                    self.queue.on_timer(self.now, &mut self.fx);
                    self.apply_queue_effects();
                    self.sync_queue_timer();
                }
            }
            Event::UdpSend(i) => self.udp_send(i as usize),
            Event::Sample => self.sample(),
            Event::WarmupEnd => {
                self.stats.begin(self.now);
                self.stats.queue_changed(self.now, self.queue.len());
                for f in &mut self.flows {
                    f.stats = FlowStats::default();
                }
                for u in &mut self.udp {
                    (u.delivered, u.drops) = (0, 0);
                }
            }
        }
    }

    /// Put the packets the sender emitted at its time `at` on its access link, and keep its timer scheduled.
    fn send_out(&mut self, f: usize, at: Time) {
        let flow = &mut self.flows[f];
        for pkt in self.out.drain(..) {
            let done = at.max(flow.access_free_at) + flow.access_serialization;
            flow.access_free_at = done;
            let arrival = done + flow.access_delay;
            if flow.to_router.is_empty() {
                self.events.schedule(arrival, Event::ArriveAtRouter(f as u32));
            }
            flow.to_router.push_back((arrival, pkt));
        }
        let s = &mut flow.sender;
        if s.rto_deadline != NEVER && s.rto_deadline < s.rto_event_at {
            s.rto_event_at = s.rto_deadline;
            self.events.schedule(s.rto_deadline, Event::RetransmitTimer(f as u32));
        }
    }

    fn retransmit_timer(&mut self, f: usize) {
        let s = &mut self.flows[f].sender;
        if self.now != s.rto_event_at {
            return; // superseded by an earlier one
        }
        s.rto_event_at = NEVER;
        if s.rto_deadline == NEVER {
            return;
        }
        if self.now < s.rto_deadline {
            s.rto_event_at = s.rto_deadline;
            self.events.schedule(s.rto_deadline, Event::RetransmitTimer(f as u32));
            return;
        }
        s.on_timeout(self.now, &self.cfg.tcp, &mut self.out);
        self.send_out(f, self.now);
    }

    /// The receiver's clock is `now + bottleneck_delay`; its timer events run on the bottleneck's clock.
    fn delayed_ack_timer(&mut self, f: usize) {
        let d_b = self.cfg.bottleneck_delay;
        let r = &mut self.flows[f].receiver;
        if self.now != r.delack_event_at {
            return;
        }
        r.delack_event_at = NEVER;
        if r.delack_deadline == NEVER {
            return;
        }
        if self.now + d_b < r.delack_deadline {
            r.delack_event_at = r.delack_deadline - d_b;
            self.events.schedule(r.delack_event_at, Event::DelayedAckTimer(f as u32));
            return;
        }
        if let Some(ack) = r.on_delack_timer(&self.cfg.tcp) {
            self.send_ack(f, ack);
        }
    }

    /// The receiver sends `ack` now; the sender handles it at its arrival time, on its own clock.
    fn send_ack(&mut self, f: usize, ack: Ack) {
        let at = self.now + self.flows[f].ack_delay;
        // Timeouts due before the ACK arrives come first, as they would on the sender's clock.
        loop {
            let deadline = self.flows[f].sender.rto_deadline;
            if deadline > at {
                break;
            }
            self.flows[f].sender.on_timeout(deadline, &self.cfg.tcp, &mut self.out);
            self.send_out(f, deadline);
        }
        self.flows[f].sender.on_ack(&ack, at, &self.cfg.tcp, &mut self.out);
        self.send_out(f, at);
    }

    fn udp_send(&mut self, i: usize) {
        let src = &mut self.udp[i];
        src.sent += 1;
        let pkt = Packet {
            flow: (self.flows.len() + i) as u32,
            seq: src.sent as u32,
            size: src.packet_size,
            ecn: Ecn::NotEct,
            cwr: false,
            retransmit: false,
            tag: 0.0,
            enqueued_at: 0,
        };
        let next = src.next_after(self.now);
        if next != NEVER {
            self.events.schedule(next, Event::UdpSend(i as u32));
        }
        self.enqueue_at_router(pkt);
    }

    fn arrive_at_router(&mut self, f: usize) {
        let flow = &mut self.flows[f];
        let (_, pkt) = flow.to_router.pop_front().expect("a packet per ArriveAtRouter event");
        if let Some(&(next, _)) = flow.to_router.front() {
            self.events.schedule(next, Event::ArriveAtRouter(f as u32));
        }
        self.enqueue_at_router(pkt);
    }

    fn enqueue_at_router(&mut self, pkt: Packet) {
        if self.stats.measuring {
            self.stats.arrivals += 1;
        }
        self.queue.enqueue(pkt, self.now, &mut self.fx);
        self.apply_queue_effects();
        if self.in_service.is_none() {
            self.start_service();
        }
        self.stats.queue_changed(self.now, self.queue.len());
        self.sync_queue_timer();
    }

    fn start_service(&mut self) {
        if let Some(pkt) = self.queue.dequeue(self.now, &mut self.fx) {
            self.stats.on_service_start(self.now - pkt.enqueued_at);
            let tx_time = if pkt.size == self.cfg.tcp.packet_size {
                self.data_serialization
            } else {
                serialization(pkt.size, self.cfg.bottleneck_rate)
            };
            self.events.schedule(self.now + tx_time, Event::LinkTxDone);
            self.in_service = Some(pkt);
        }
        self.apply_queue_effects();
    }

    fn link_tx_done(&mut self) {
        let pkt = self.in_service.take().expect("a packet in service");
        if self.stats.measuring {
            self.stats.departures += 1;
            self.stats.departed_bytes += pkt.size as u64;
        }
        self.deliver(pkt);
        self.start_service();
        self.stats.queue_changed(self.now, self.queue.len());
        self.sync_queue_timer();
    }

    /// The packet reaches its receiver `bottleneck_delay` after leaving the bottleneck.
    fn deliver(&mut self, pkt: Packet) {
        let at_receiver = self.now + self.cfg.bottleneck_delay;
        if at_receiver > self.cfg.duration {
            self.after_end += 1;
            return;
        }
        self.delivered += 1;
        let f = pkt.flow as usize;
        if f >= self.flows.len() {
            if self.stats.measuring && at_receiver >= self.cfg.warmup {
                self.udp[f - self.flows.len()].delivered += 1;
            }
            return;
        }
        let payload = self.cfg.tcp.payload as u64;
        let flow = &mut self.flows[f];
        let d = flow.receiver.on_data(&pkt, at_receiver, &self.cfg.tcp);
        if self.stats.measuring && at_receiver >= self.cfg.warmup {
            flow.stats.goodput_bytes += d.new_in_order as u64 * payload;
            flow.stats.throughput_bytes += payload;
        }
        let r = &mut flow.receiver;
        if r.delack_deadline != NEVER && r.delack_event_at == NEVER {
            r.delack_event_at = r.delack_deadline - self.cfg.bottleneck_delay;
            self.events.schedule(r.delack_event_at, Event::DelayedAckTimer(f as u32));
        }
        if let Some(ack) = d.ack {
            self.send_ack(f, ack);
        }
    }

    fn apply_queue_effects(&mut self) {
        for (pkt, reason) in self.fx.drops.drain(..) {
            self.dropped += 1;
            self.stats.on_drop(reason);
            if self.stats.measuring {
                match self.flows.get_mut(pkt.flow as usize) {
                    Some(flow) => flow.stats.drops += 1,
                    None => self.udp[pkt.flow as usize - self.flows.len()].drops += 1,
                }
            }
        }
        for f in self.fx.marks.drain(..) {
            if self.stats.measuring {
                self.stats.marks += 1;
                if let Some(flow) = self.flows.get_mut(f as usize) {
                    flow.stats.marks += 1;
                }
            }
        }
    }

    fn sync_queue_timer(&mut self) {
        if let Some(t) = self.queue.next_timer() {
            if t < self.queue_timer_at {
                self.queue_timer_at = t.max(self.now);
                self.events.schedule(self.queue_timer_at, Event::QueueTimer);
            }
        }
    }

    fn sample(&mut self) {
        self.series.time_s.push(to_secs(self.now));
        self.series.queue_pkts.push(self.queue.len() as f64);
        if self.cfg.sample_cwnd {
            for (i, f) in self.flows.iter().enumerate() {
                self.series.cwnd[i].push(f.sender.cwnd());
            }
        }
        if let Some(dt) = self.cfg.sample_interval {
            self.events.schedule(self.now + dt, Event::Sample);
        }
    }

    /// Packets sent, delivered, dropped and still in the network (access links, queue, link, last hop).
    pub fn conservation(&self) -> (u64, u64, u64, u64) {
        let sent = self.flows.iter().map(|f| f.sender.stats.sent).sum::<u64>()
            + self.udp.iter().map(|u| u.sent).sum::<u64>();
        let on_access: u64 = self.flows.iter().map(|f| f.to_router.len() as u64).sum();
        let in_flight =
            on_access + self.queue.len() as u64 + self.in_service.is_some() as u64 + self.after_end;
        (sent, self.delivered, self.dropped, in_flight)
    }

    /// Close the statistics and collect the results (runs the rest of the scenario first).
    pub fn finish(mut self) -> Results {
        self.run_until(self.cfg.duration);
        let end = self.cfg.duration;
        self.stats.finish(end);
        let window = end - self.cfg.warmup;
        let secs = to_secs(window);
        let st = &self.stats;
        let flows: Vec<FlowResult> = self
            .flows
            .iter()
            .zip(&self.cfg.flows)
            .enumerate()
            .map(|(i, (f, fc))| FlowResult {
                flow: i as u32,
                rtt_s: to_secs(fc.rtt),
                start_s: to_secs(fc.start),
                goodput_bps: f.stats.goodput_bytes as f64 * 8.0 / secs,
                throughput_bps: f.stats.throughput_bytes as f64 * 8.0 / secs,
                sent: f.sender.stats.sent,
                retransmits: f.sender.stats.retransmits,
                timeouts: f.sender.stats.timeouts,
                fast_recoveries: f.sender.stats.fast_recoveries,
                ecn_reductions: f.sender.stats.ecn_reductions,
                drops: f.stats.drops,
                marks: f.stats.marks,
                final_cwnd: f.sender.cwnd(),
                srtt_s: f.sender.srtt().unwrap_or(f64::NAN),
            })
            .collect();
        let goodputs: Vec<f64> = flows.iter().map(|f| f.goodput_bps).collect();
        let (sent, delivered, dropped, in_flight) = self.conservation();
        let arrivals = st.arrivals.max(1) as f64;
        let summary = Summary {
            name: self.cfg.name.clone(),
            seed: self.cfg.seed,
            flows: self.flows.len() as u64,
            duration_s: to_secs(end),
            warmup_s: to_secs(self.cfg.warmup),
            utilization: st.departed_bytes as f64 * 8.0 / (self.cfg.bottleneck_rate * secs),
            throughput_bps: st.departed_bytes as f64 * 8.0 / secs,
            goodput_bps: goodputs.iter().sum(),
            arrivals: st.arrivals,
            departures: st.departures,
            drops_overflow: st.drops_overflow,
            drops_early: st.drops_early,
            drops_forced: st.drops_forced,
            drops: st.drops(),
            marks: st.marks,
            loss_rate: st.drops() as f64 / arrivals,
            mark_rate: st.marks as f64 / arrivals,
            queue_mean_pkts: st.queue_mean(window),
            queue_p50_pkts: st.queue_quantile(0.5),
            queue_p90_pkts: st.queue_quantile(0.9),
            queue_p99_pkts: st.queue_quantile(0.99),
            queue_max_pkts: st.queue_max() as f64,
            delay_mean_s: st.delay.mean(),
            delay_std_s: st.delay.std(),
            delay_p50_s: st.delay_quantile(0.5),
            delay_p90_s: st.delay_quantile(0.9),
            delay_p99_s: st.delay_quantile(0.99),
            jain_index: jain_index(&goodputs),
            timeouts: flows.iter().map(|f| f.timeouts).sum(),
            fast_retransmits: flows.iter().map(|f| f.fast_recoveries).sum(),
            retransmits: flows.iter().map(|f| f.retransmits).sum(),
            sent,
            delivered,
            dropped,
            in_flight,
            events: self.events.executed(),
        };
        let udp = self
            .udp
            .iter()
            .enumerate()
            .map(|(i, u)| UdpResult {
                source: i as u32,
                sent: u.sent,
                delivered: u.delivered,
                drops: u.drops,
                loss_rate: u.drops as f64 / (u.delivered + u.drops).max(1) as f64,
            })
            .collect();
        Results { summary, flows, udp, series: self.series }
    }
}
