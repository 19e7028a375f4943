//! The simulation: flow groups sending over routes of ports, receivers, ACK paths, open-loop sources.
//!
//! Paths that never queue cost no events beyond their delay:
//! - a sender's access link is FIFO with a known rate, so a packet's arrival at the first port of its route
//!   is computed when it is sent (`max(now, link free) + serialization + delay`) and the packet waits in the
//!   flow's access pipe for one event;
//! - between ports a packet crosses the link's pipe (one event at the next port);
//! - after the last port of its route a data packet reaches its receiver a pure delay later, so the
//!   receiver processes it when it leaves that port, with its clock read as `now + delay`;
//! - ACKs return either over an uncongested path (propagation plus the ACK's serialization on each link
//!   of the route and the access link: a constant delay per flow) or over queued links (`ack_route`), as
//!   packets crossing ports like data. Either way the sender handles an ACK as soon as its arrival time is
//!   known, on its own clock read as that time, after firing any of its timers due before it. Its only
//!   inputs are ACKs (in order, since each path is FIFO) and its timers, so it sees exactly the sequence it
//!   would see on arrival. The packets it sends leave at the sender's time, never earlier than the
//!   simulation's.
//!
//! So a data packet costs two events per queued hop. Only a pipe's head has an event pending, which keeps
//! the event queue as small as the number of flows and ports. (A sampled cwnd is the sender's state on its
//! own clock, up to one ACK delay ahead of the sample time.)
//!
//! Flows started at fixed times keep their slot (and their row in the results); flows that arrive as a
//! Poisson process take a free slot and give it back once finished with no packet left in the network, so
//! memory grows with the flows in the system, not with time.

mod results;
#[cfg(test)]
mod tests;
mod trace;

use crate::events::{Event, EventQueue};
use crate::monitor::{FctStats, FlowStats, RoundStats, Window};
use crate::network::shared_buffer::{PoolStats, SHARED_BUFFER};
use crate::network::{Pipe, Port};
use crate::packet::{sack_option_bytes, Ack, Kind, Packet, MAX_SACK_BLOCKS};
use crate::queue::{QueueDisc, QueueEffects};
use crate::results::{Results, Series};
use crate::rng::{stream, Rng};
use crate::scenario::flows::Connections;
use crate::scenario::{group_stream, Config, FlowConfig, ScenarioError};
use crate::tcp::cc::CongestionControl;
use crate::tcp::receiver::{OwedAck, Receiver};
use crate::tcp::sender::{Sender, SenderStats};
use crate::time::{from_secs, serialization, to_secs, Time, NEVER};
use crate::timer::{Fired, Timer};
use crate::trace::{EventColumns, TraceReport, Tracer};
use crate::traffic::UdpSource;
use results::Parts;
use std::collections::VecDeque;
use trace::observe_sender;

/// ACKs crossing queued links: their contents wait here, in order, while packets numbered by `serial`
/// cross the ports.
#[derive(Default)]
struct AckPath {
    /// From the receiver to the first port of the ACK route.
    pipe: Pipe,
    pipe_refill: u8,
    pending: VecDeque<(u32, Ack)>,
    serial: u32,
    /// The ACK packets' whole-run counts ([`FlowCounts`]), here since only a queued ACK route has them.
    acks_sent: u64,
    acks_delivered: u64,
    acks_dropped: u64,
}

struct Flow {
    group: u32,
    sender: Sender,
    receiver: Receiver,
    /// Packets on the access link with their arrival times at the first port, and the capacity to give the
    /// pipe when it fills again after emptying (see [`Pipe`]).
    access: Pipe,
    access_refill: u8,
    access_free_at: Time,
    /// A data packet's serialization on the access link; other sizes (a SYN) from `access_rate`.
    access_serialization: Time,
    access_rate: f64,
    access_delay: Time,
    /// The segment the last retransmission timeout resent and when that copy leaves the host (the end of its
    /// serialization on the access link; `NEVER`: none). Two fields, not an `Option` of a pair, so that the
    /// sequence number packs beside the other 4-byte fields.
    timer_copy_seq: u32,
    timer_copy_leaves: Time,
    /// `tcp.overhead` and its stream: each packet waits a uniform random time in [0, overhead) before it
    /// starts on the access link (`None`: no wait; boxed, since most flows have none).
    overhead: Option<Box<(Time, Rng)>>,
    /// The receiver's clock lead: the last data link's delay.
    rx_shift: Time,
    /// The first port of its route.
    first_port: u32,
    /// Its route: an index into the simulation's `routes`, and the route's length.
    route: u32,
    hops: u8,
    /// Uncongested ACKs: from the receiver to the sender. Queued ACKs: from the end of serialization at
    /// the last ACK port to the sender.
    ack_delay: Time,
    /// When its last ACK reached the sender (ACKs stay in order when their SACK options differ in size).
    last_ack_at: Time,
    /// How much longer an ACK with 1, 2, ... SACK blocks takes than a bare one on the links it crosses
    /// unqueued after leaving the receiver (the route's links reversed without an ACK route, and the access
    /// link); a queued ACK route serializes the ACK's whole size at its own ports.
    ack_option_delay: [Time; MAX_SACK_BLOCKS],
    ack_path: Option<Box<AckPath>>,
    /// The sender's timers (RTO, pacing) as one event source.
    wake: Timer,
    stats: FlowStats,
    /// Packets of this flow (data and queued ACKs) in pipes and ports.
    in_network: u32,
    /// Data packets delivered and dropped over the whole run (with the ACK path's, [`Flow::counts`]).
    data_delivered: u64,
    data_dropped: u64,
    start: Time,
    rtt: Time,
    /// Its size in bytes (`u64::MAX`: a bulk flow; sizes are at most 1 TB), see [`Flow::size_bytes`].
    size_bytes: u64,
    /// Its completion time (`NEVER`: not complete), see [`Flow::fct`]; no `Option`s, 8 bytes each.
    fct: Time,
    /// Counted in the ports' active flows.
    active: bool,
    /// Started by an arrival process: its slot is reused once it is finished and drained.
    arrived: bool,
    /// Its slot is free (its counters are in its group's `retired`).
    freed: bool,
    /// Its data so far is a later response of a persistent connection (no handshake before it).
    reused: bool,
}

/// A flow's packets over the whole run, for conservation checks: data sent (the sender's count) =
/// delivered + dropped + in the network; ACKs crossing queued links likewise.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct FlowCounts {
    pub data_delivered: u64,
    pub data_dropped: u64,
    pub acks_sent: u64,
    pub acks_delivered: u64,
    pub acks_dropped: u64,
}

impl FlowCounts {
    fn add(&mut self, o: &FlowCounts) {
        self.data_delivered += o.data_delivered;
        self.data_dropped += o.data_dropped;
        self.acks_sent += o.acks_sent;
        self.acks_delivered += o.acks_delivered;
        self.acks_dropped += o.acks_dropped;
    }
}

/// Packets over the whole run, balanced at every instant: `sent = delivered + dropped + in_network`. For a
/// port ([`Simulation::port_conservation`]): its arrivals, departures, drops, and the packets it holds.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Conservation {
    pub sent: u64,
    pub delivered: u64,
    pub dropped: u64,
    pub in_network: u64,
}

/// A group's packets over the whole run: its data, and its ACKs on a queued ACK route.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct GroupConservation {
    pub data: Conservation,
    pub acks: Conservation,
}

/// Hand the pages freed so far back to the system. glibc's allocator keeps freed small blocks for reuse, so
/// without this the buffers released at the end of a run still count in the process's resident memory
/// while the results are built (`malloc_trim`, glibc only; elsewhere nothing).
fn return_freed_memory() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    {
        extern "C" {
            fn malloc_trim(pad: usize) -> i32;
        }
        // SAFETY: malloc_trim only releases memory the allocator holds free; it has no preconditions.
        unsafe {
            malloc_trim(0);
        }
    }
}

impl Flow {
    /// Drop the packets this flow holds on its links and its sender's and receiver's per-segment state, once
    /// the run is over (its counters stay).
    fn release_buffers(&mut self) {
        self.access = Pipe::default();
        if let Some(path) = &mut self.ack_path {
            (path.pipe, path.pending) = Default::default();
        }
        self.sender.release_buffers();
        self.receiver.release_buffers();
    }

    /// Its packets over the whole run.
    fn counts(&self) -> FlowCounts {
        let path = self.ack_path.as_deref();
        FlowCounts {
            data_delivered: self.data_delivered,
            data_dropped: self.data_dropped,
            acks_sent: path.map_or(0, |p| p.acks_sent),
            acks_delivered: path.map_or(0, |p| p.acks_delivered),
            acks_dropped: path.map_or(0, |p| p.acks_dropped),
        }
    }

    /// Its size in bytes, if finite.
    fn size_bytes(&self) -> Option<u64> {
        (self.size_bytes != u64::MAX).then_some(self.size_bytes)
    }

    /// Its completion time, once complete.
    fn fct(&self) -> Option<Time> {
        (self.fct != NEVER).then_some(self.fct)
    }

    /// What `ack`'s SACK option adds to its trip back (see `ack_option_delay`).
    #[inline(always)]
    fn extra_ack_delay(&self, ack: &Ack) -> Time {
        match ack.sack_len {
            0 => 0,
            k => self.ack_option_delay[k as usize - 1],
        }
    }

    /// Put the packets the sender emitted at its time `at` on the access link (each pipe head gets an
    /// event), and keep the sender's timer scheduled.
    #[inline(always)]
    fn launch(&mut self, out: &mut Vec<Packet>, events: &mut EventQueue, hops: u8, f: u32, at: Time) {
        for &pkt in out.iter() {
            let pkt = Packet { hops, ..pkt };
            let ready = match &mut self.overhead {
                None => at,
                Some(o) => at + (o.0 as f64 * o.1.uniform()) as Time,
            };
            let on_link =
                if pkt.syn { serialization(pkt.size, self.access_rate) } else { self.access_serialization };
            let done = ready.max(self.access_free_at) + on_link;
            self.access_free_at = done;
            self.in_network += 1;
            let arrival = done + self.access_delay;
            if self.access.push(arrival, pkt, self.access_refill) {
                events.schedule(arrival, Event::AccessArrive(f));
            }
        }
        out.clear();
        self.wake.arm(self.sender.next_deadline());
        if let Some(t) = self.wake.needs_event(0) {
            events.schedule(t, Event::SenderTimer(f));
        }
    }
}

/// What a group accumulates from its finished (recycled) flows, and its arrival process.
struct GroupState {
    rng: Rng,
    started: u64,
    completed: u64,
    retired: FlowStats,
    retired_sender: SenderStats,
    retired_counts: FlowCounts,
    /// Flows set up so far (numbers each flow's controller stream).
    built: u64,
    /// Data packets and queued ACKs of the retired flows still in the network (none: a slot is freed only
    /// once its flow has none left).
    retired_in_network: u64,
    /// An incast group's rounds.
    incast: Option<Box<IncastRun>>,
}

/// Where an incast group's rounds stand.
#[derive(Default)]
struct IncastRun {
    /// The senders' slots, with persistent connections (empty before the first round).
    senders: Vec<u32>,
    /// Rounds requested so far.
    requested: u64,
    /// Responses of the current round not yet acknowledged.
    pending: u32,
    /// When the current round's request went out, and the bytes its responses carry.
    request_at: Time,
    bytes: u64,
    rounds: RoundStats,
}

/// A running experiment.
pub struct Simulation {
    cfg: Config,
    now: Time,
    events: EventQueue,
    ports: Vec<Port>,
    flows: Vec<Flow>,
    /// Slots of finished arrival flows, ready for reuse.
    free: Vec<u32>,
    fixed: usize,
    groups: Vec<GroupState>,
    /// Open-loop sources; their packets carry the source index.
    udp: Vec<UdpSource>,
    fx: QueueEffects,
    out: Vec<Packet>,
    series: Series,
    fct: FctStats,
    /// `[warmup, duration]`, where statistics count.
    window: Window,
    /// All senders' counters when the warm-up ended (the window's are the totals minus these).
    sender_at_warmup: SenderStats,
    // Whole-run conservation counters.
    acks_sent: u64,
    delivered: u64,
    dropped: u64,
    after_end: u64,
    peak_slots: usize,
    /// Each port's shared buffer and its place in it, and each buffer's statistics.
    pool_of: Vec<Option<(u32, u32)>>,
    pools: Vec<PoolStats>,
    /// `[trace]`: `None` without one, so tracing off is one untaken branch per hook.
    tracer: Option<Box<Tracer>>,
    /// Every group's routes in one table, group `g`'s route `r` at `route_base[g] + r`: a flow's data finds
    /// its ports at `routes[flow.route]`.
    routes: Vec<Box<[usize]>>,
    route_base: Vec<u32>,
}

impl Simulation {
    pub fn new(cfg: Config) -> Result<Self, ScenarioError> {
        let mut ports = Vec::with_capacity(cfg.network.links.len());
        let crossings = cfg.network.crossings(&cfg.groups);
        for (p, link) in cfg.network.links.iter().enumerate() {
            let ctx = cfg.network.queue_context(p, &crossings[p], &cfg.groups, &cfg.udp, cfg.seed);
            let queue = link.queue.build(ctx)?;
            let common = crossings[p].first().map_or(1000, |c| cfg.groups[c.group].tcp.packet_size);
            ports.push(Port::new(queue, link.rate, link.delay, common));
        }
        let mut events = EventQueue::default();
        let fixed = cfg.fixed_flows().count();
        let mut sim = Simulation {
            now: 0,
            events: EventQueue::default(),
            ports,
            flows: Vec::with_capacity(fixed),
            free: Vec::new(),
            fixed,
            groups: (0..cfg.groups.len())
                .map(|g| GroupState {
                    rng: Rng::new(cfg.seed, group_stream(g, stream::ARRIVAL)),
                    started: 0,
                    completed: 0,
                    retired: FlowStats::default(),
                    retired_sender: SenderStats::default(),
                    retired_counts: FlowCounts::default(),
                    built: 0,
                    retired_in_network: 0,
                    incast: cfg.groups[g].incast.as_ref().map(|_| Box::default()),
                })
                .collect(),
            udp: Vec::new(),
            fx: QueueEffects::default(),
            out: Vec::new(),
            series: Series::new(cfg.network.links.len(), if cfg.sample_cwnd { fixed } else { 0 }),
            fct: FctStats::new(cfg.fct_buckets.clone(), cfg.groups.len(), cfg.fct_records),
            window: Window::new(cfg.warmup, cfg.duration),
            sender_at_warmup: SenderStats::default(),
            acks_sent: 0,
            delivered: 0,
            dropped: 0,
            after_end: 0,
            peak_slots: 0,
            pool_of: {
                let mut of = vec![None; cfg.network.links.len()];
                for (b, buffer) in cfg.shared_buffers.iter().enumerate() {
                    for (k, &p) in buffer.ports.iter().enumerate() {
                        of[p] = Some((b as u32, k as u32));
                    }
                }
                of
            },
            pools: vec![PoolStats::default(); cfg.shared_buffers.len()],
            tracer: match &cfg.trace {
                Some(t) => Some(Box::new(Tracer::new(t.clone())?)),
                None => None,
            },
            routes: cfg
                .groups
                .iter()
                .flat_map(|g| g.routes.iter().map(|r| r.clone().into_boxed_slice()))
                .collect(),
            route_base: cfg
                .groups
                .iter()
                .scan(0u32, |base, g| {
                    let here = *base;
                    *base += g.routes.len() as u32;
                    Some(here)
                })
                .collect(),
            cfg,
        };
        let fixed_flows: Vec<(usize, FlowConfig)> =
            sim.cfg.fixed_flows().map(|(g, f)| (g, f.clone())).collect();
        for (i, (g, f)) in fixed_flows.iter().enumerate() {
            events.schedule(f.start, Event::FlowStart(i as u32));
            sim.add_flow(*g, f, false);
        }
        for (i, (_, f)) in fixed_flows.iter().enumerate() {
            if f.stop < sim.cfg.duration {
                events.schedule(f.stop, Event::FlowStop(i as u32));
            }
        }
        drop(fixed_flows);
        // The flows hold their own RTT, start and size from here on; a group's configurations stay only where
        // something reads them later: an incast group's rounds, and leaf-spine endpoints for the rows.
        for grp in sim.cfg.groups.iter_mut() {
            if grp.incast.is_none() && grp.flows.iter().all(|f| f.endpoints.is_none()) {
                grp.flows = Vec::new();
            }
        }
        for (i, u) in sim.cfg.udp.iter().enumerate() {
            events.schedule(u.start, Event::UdpSend(i as u32));
            let rng = Rng::new(sim.cfg.seed, stream::UDP + i as u64);
            sim.udp.push(UdpSource::new(u.pattern, u.rate_bps, u.packet_size, u.start, u.stop, rng));
        }
        for (g, grp) in sim.cfg.groups.iter().enumerate() {
            if let Some(i) = &grp.incast {
                events.schedule(i.start, Event::IncastRound(g as u32));
            }
            if let Some(a) = &grp.arrival {
                let first = a.start.saturating_add(exponential_gap(&mut sim.groups[g].rng, a.rate));
                if first < a.stop {
                    events.schedule(first, Event::Arrival(g as u32));
                }
            }
        }
        events.schedule(sim.cfg.warmup, Event::WarmupEnd);
        if sim.cfg.sample_interval.is_some() {
            events.schedule(0, Event::Sample);
        }
        sim.events = events;
        for p in 0..sim.ports.len() {
            sim.sync_queue_timer(p);
        }
        Ok(sim)
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

    /// Events waiting in the queue (a few per flow and port: pipe heads and timers).
    pub fn pending_events(&self) -> usize {
        self.events.len()
    }

    /// Flow slots allocated (live flows plus free slots).
    pub fn flow_slots(&self) -> usize {
        self.flows.len()
    }

    /// Run every event due at or before `until` (capped at the scenario's duration).
    pub fn run_until(&mut self, until: Time) {
        self.run_for(until, u64::MAX);
    }

    /// Run at most `max_events` of the events due at or before `until` (capped at the scenario's
    /// duration); returns true once `until` is reached, false if the budget ran out first. Small budgets
    /// let a caller stay responsive (the Python binding checks for Ctrl-C between them); the results do
    /// not depend on how a run is sliced.
    pub fn run_for(&mut self, until: Time, max_events: u64) -> bool {
        let until = until.min(self.cfg.duration);
        for _ in 0..max_events {
            match self.events.pop_until(until) {
                Some((t, ev)) => {
                    self.now = t;
                    self.dispatch(ev);
                }
                None => {
                    self.now = self.now.max(until);
                    return true;
                }
            }
        }
        false
    }

    /// Whether the run has reached its duration.
    pub fn done(&self) -> bool {
        self.now >= self.cfg.duration
    }

    /// Inlined into the loop: left to the compiler, whether it is depends on unrelated changes, and out of
    /// line it costs about 2 % more instructions on the reference benchmark (docs/benchmarks.md).
    #[inline(always)]
    fn dispatch(&mut self, ev: Event) {
        match ev {
            Event::AccessArrive(f) => {
                let flow = &mut self.flows[f as usize];
                let (pkt, next) =
                    flow.access.pop(&mut flow.access_refill).expect("a packet per access arrival");
                if let Some(t) = next {
                    self.events.schedule(t, Event::AccessArrive(f));
                }
                let port = flow.first_port as usize;
                self.enqueue(port, pkt);
            }
            Event::TxDone(p) => self.tx_done(p as usize),
            Event::LinkArrive(p) => {
                let port = &mut self.ports[p as usize];
                let (pkt, next) = port.out.pop(&mut port.out_refill).expect("a packet per link arrival");
                if let Some(t) = next {
                    self.events.schedule(t, Event::LinkArrive(p));
                }
                let port = self.route_of(&pkt)[pkt.hop as usize];
                self.enqueue(port, pkt);
            }
            Event::AckArrive(f) => {
                let flow = &mut self.flows[f as usize];
                let path = flow.ack_path.as_mut().expect("a queued ACK path");
                let (pkt, next) = path.pipe.pop(&mut path.pipe_refill).expect("a packet per ACK arrival");
                if let Some(t) = next {
                    self.events.schedule(t, Event::AckArrive(f));
                }
                let port = self.cfg.groups[flow.group as usize].ack_route[0];
                self.enqueue(port, pkt);
            }
            Event::SenderTimer(f) => self.sender_timer(f as usize),
            Event::ReceiverTimer(f) => self.receiver_timer(f as usize),
            Event::FlowStart(f) => self.start_flow(f as usize),
            Event::FlowStop(f) => self.deactivate(f as usize),
            Event::Arrival(g) => self.arrival(g as usize),
            Event::IncastRound(g) => self.incast_round(g as usize),
            Event::QueueTimer(p) => {
                let p = p as usize;
                let fired = self.ports[p].timer.fire(self.now, 0);
                if let Fired::Early(Some(t)) = fired {
                    self.events.schedule(t, Event::QueueTimer(p as u32));
                }
                if fired == Fired::Due {
                    self.ports[p].fire_timer(self.now, &mut self.fx);
                    self.apply_queue_effects(p);
                    self.ports[p].note_queue(self.now);
                    if self.ports[p].in_service.is_none() {
                        self.start_service(p);
                    }
                }
                self.sync_queue_timer(p);
            }
            Event::UdpSend(i) => self.udp_send(i as usize),
            Event::Sample => self.sample(),
            Event::WarmupEnd => self.warmup_end(),
        }
    }

    /// The ports a packet crosses.
    fn route_of(&self, pkt: &Packet) -> &[usize] {
        match pkt.kind {
            Kind::Data => &self.routes[self.flows[pkt.flow as usize].route as usize],
            Kind::Ack => &self.cfg.groups[self.flows[pkt.flow as usize].group as usize].ack_route,
            Kind::Datagram => &self.cfg.udp[pkt.flow as usize].route,
        }
    }

    /// Set up a flow of group `g` in a slot (reusing a free one for arrivals); returns the slot.
    fn add_flow(&mut self, g: usize, fc: &FlowConfig, arrived: bool) -> usize {
        let grp = &self.cfg.groups[g];
        let rng = Rng::new(self.cfg.seed, stream::controller(g, self.groups[g].built));
        self.groups[g].built += 1;
        let cc = grp.cc.instantiate(rng);
        let receiver = Receiver::with_ecn_mode(cc.ecn_mode());
        let slot =
            if arrived { self.free.pop().map(|s| s as usize) } else { None }.unwrap_or(self.flows.len());
        let mut sender = Sender::new(slot as u32, cc, &grp.tcp);
        sender.stop_at(fc.stop);
        let payload = grp.tcp.payload as u64;
        if let Some(bytes) = fc.size {
            sender = sender.with_size(bytes.div_ceil(payload).min(u32::MAX as u64 - 1) as u32);
        }
        let route_index = self.route_base[g] + fc.route;
        let route = &self.routes[route_index as usize];
        let last = *route.last().expect("routes are not empty");
        // An ACK of `size` bytes on the links it crosses unqueued after leaving the receiver: the route's
        // links reversed (without an ACK route, whose own ports serialize it) and the access link.
        let serialized = |size: u32| -> Time {
            let on_links: Time = if grp.ack_route.is_empty() {
                route.iter().map(|&p| serialization(size, self.ports[p].rate)).sum()
            } else {
                0
            };
            on_links + serialization(size, fc.access_rate)
        };
        let propagation: Time = if grp.ack_route.is_empty() {
            route.iter().map(|&p| self.ports[p].delay).sum()
        } else {
            self.ports[*grp.ack_route.last().expect("non-empty")].delay
        };
        let ack_delay = propagation + fc.access_delay + serialized(grp.ack_size);
        let ack_option_delay = std::array::from_fn(|k| {
            serialized(grp.ack_size + sack_option_bytes(k + 1)) - serialized(grp.ack_size)
        });
        let flow = Flow {
            group: g as u32,
            sender,
            receiver,
            access: Pipe::default(),
            access_refill: 0,
            access_free_at: 0,
            access_serialization: serialization(grp.tcp.packet_size, fc.access_rate),
            access_rate: fc.access_rate,
            access_delay: fc.access_delay,
            timer_copy_seq: 0,
            timer_copy_leaves: NEVER,
            overhead: (grp.tcp.overhead > 0).then(|| {
                Box::new((
                    grp.tcp.overhead,
                    Rng::new(self.cfg.seed, stream::overhead(g, self.groups[g].built - 1)),
                ))
            }),
            rx_shift: self.ports[last].delay,
            first_port: route[0] as u32,
            route: route_index,
            hops: route.len() as u8,
            ack_delay,
            last_ack_at: 0,
            ack_option_delay,
            ack_path: (!grp.ack_route.is_empty()).then(Box::default),
            wake: Timer::default(),
            stats: FlowStats::default(),
            in_network: 0,
            data_delivered: 0,
            data_dropped: 0,
            start: fc.start,
            rtt: fc.rtt,
            size_bytes: fc.size.unwrap_or(u64::MAX),
            fct: NEVER,
            active: false,
            arrived,
            freed: false,
            reused: false,
        };
        if slot == self.flows.len() {
            self.flows.push(flow);
        } else {
            self.flows[slot] = flow;
        }
        if self.tracer.is_some() {
            self.observe_flow(slot);
        }
        self.peak_slots = self.peak_slots.max(self.flows.len() - self.free.len());
        slot
    }

    fn start_flow(&mut self, f: usize) {
        self.groups[self.flows[f].group as usize].started += 1;
        let tcp = &self.cfg.groups[self.flows[f].group as usize].tcp;
        self.flows[f].sender.start(self.now, tcp, &mut self.out);
        self.send_out(f, self.now);
        if self.flows[f].sender.is_complete() {
            return;
        }
        self.flows[f].active = true;
        self.change_active(f, 1);
    }

    /// The flow stops counting as active at its ports (stop time reached or finished).
    fn deactivate(&mut self, f: usize) {
        if std::mem::take(&mut self.flows[f].active) {
            self.change_active(f, -1);
        }
    }

    fn change_active(&mut self, f: usize, delta: i32) {
        for &p in self.routes[self.flows[f].route as usize].iter() {
            let port = &mut self.ports[p];
            port.active_flows = port.active_flows.saturating_add_signed(delta);
            port.queue.on_active_flows(port.active_flows);
        }
    }

    /// A group's next Poisson arrival: schedule the one after, draw this flow's RTT, access rate and size.
    fn arrival(&mut self, g: usize) {
        let a = self.cfg.groups[g].arrival.clone().expect("an arrival group");
        let rng = &mut self.groups[g].rng;
        let next = self.now.saturating_add(exponential_gap(rng, a.rate));
        if next < a.stop {
            self.events.schedule(next, Event::Arrival(g as u32));
        }
        let rtt = rng.uniform_in(a.rtt.0, a.rtt.1);
        let access_rate = rng.uniform_in(a.access_rate.0, a.access_rate.1);
        let size = self.cfg.groups[g].size.as_ref().expect("arrival groups have sizes").sample(rng);
        let grp = &self.cfg.groups[g];
        let net = &self.cfg.network;
        let fwd: f64 = grp.route().iter().map(|&p| net.links[p].delay_s).sum();
        let back =
            (!grp.ack_route.is_empty()).then(|| grp.ack_route.iter().map(|&p| net.links[p].delay_s).sum());
        let fc = FlowConfig {
            rtt: from_secs(rtt),
            access_rate,
            access_delay: from_secs(crate::scenario::flows::access_delay(rtt, fwd, back).max(0.0)),
            start: self.now,
            stop: NEVER,
            size: Some(size),
            route: 0,
            endpoints: None,
        };
        let f = self.add_flow(g, &fc, true);
        self.start_flow(f);
    }

    /// An incast group's request: every sender starts a response of a size drawn from the group's `size`,
    /// on its connection (persistent) or a new one.
    #[inline(never)]
    fn incast_round(&mut self, g: usize) {
        let templates = self.cfg.groups[g].flows.clone();
        let persistent =
            self.cfg.groups[g].incast.as_ref().map(|i| i.connections) == Some(Connections::Persistent);
        let mut senders =
            std::mem::take(&mut self.groups[g].incast.as_mut().expect("an incast group").senders);
        let mut bytes = 0;
        for (i, template) in templates.iter().enumerate() {
            let rng = &mut self.groups[g].rng;
            let size = self.cfg.groups[g].size.as_ref().expect("incast groups have sizes").sample(rng);
            bytes += size;
            let payload = u64::from(self.cfg.groups[g].tcp.payload);
            if let Some(&f) = senders.get(i) {
                if self.flows[f as usize].sender.has_room_for(size.div_ceil(payload)) {
                    self.respond_again(f as usize, size);
                    continue;
                }
            }
            // A new connection: every response without persistence, the first with it, or when a
            // connection has used up its sequence space (2^32 segments).
            let fc = FlowConfig { start: self.now, stop: NEVER, size: Some(size), ..template.clone() };
            let f = self.add_flow(g, &fc, !persistent);
            if persistent {
                match senders.get_mut(i) {
                    Some(slot) => *slot = f as u32,
                    None => senders.push(f as u32),
                }
            }
            self.start_flow(f);
        }
        let run = self.groups[g].incast.as_mut().expect("an incast group");
        run.senders = senders;
        run.requested += 1;
        run.pending = templates.len() as u32;
        run.request_at = self.now;
        run.bytes = bytes;
    }

    /// A persistent incast sender's next response of `bytes`, on the connection it already has.
    fn respond_again(&mut self, f: usize, bytes: u64) {
        let flow = &mut self.flows[f];
        let tcp = &self.cfg.groups[flow.group as usize].tcp;
        self.groups[flow.group as usize].started += 1;
        flow.fct = NEVER;
        flow.start = self.now;
        flow.size_bytes = bytes;
        flow.reused = true;
        let segments = bytes.div_ceil(tcp.payload as u64).min(u32::MAX as u64) as u32;
        flow.sender.send_more(segments, self.now, tcp, &mut self.out);
        self.send_out(f, self.now);
        self.flows[f].active = true;
        self.change_active(f, 1);
    }

    /// One response of an incast round was acknowledged at `at`: the round ends with its last, and the next
    /// request follows `gap` later.
    #[inline(never)]
    fn incast_response_done(&mut self, g: usize, at: Time) {
        let Some(run) = self.groups[g].incast.as_mut() else { return };
        run.pending -= 1;
        if run.pending > 0 {
            return;
        }
        if self.window.holds(run.request_at, at) {
            run.rounds.add(run.bytes, at - run.request_at);
        }
        let incast = self.cfg.groups[g].incast.as_ref().expect("an incast group");
        if run.requested < incast.rounds {
            self.events.schedule(at + incast.gap, Event::IncastRound(g as u32));
        }
    }

    /// Put the packets the sender emitted at its time `at` on its access link, and keep its timer scheduled.
    fn send_out(&mut self, f: usize, at: Time) {
        if let Some(tr) = self.tracer.as_deref_mut() {
            observe_sender(tr, &self.flows[f], f, at, &self.out, None);
        }
        let flow = &mut self.flows[f];
        let hops = flow.hops;
        flow.launch(&mut self.out, &mut self.events, hops, f as u32, at);
    }

    fn sender_timer(&mut self, f: usize) {
        match self.flows[f].wake.fire(self.now, 0) {
            Fired::Stale | Fired::Early(None) => {}
            Fired::Early(Some(t)) => self.events.schedule(t, Event::SenderTimer(f as u32)),
            Fired::Due => {
                let tcp = &self.cfg.groups[self.flows[f].group as usize].tcp;
                let flow = &mut self.flows[f];
                // The last timeout's retransmission of the same segment has not left the host yet: this
                // timeout waits for it (Sender::hold_timeout).
                if flow.timer_copy_leaves != NEVER && flow.timer_copy_seq == flow.sender.snd_una() {
                    flow.sender.hold_timeout(self.now, flow.timer_copy_leaves);
                }
                let timeouts = flow.sender.stats.timeouts;
                flow.sender.on_timer(self.now, tcp, &mut self.out);
                let timed_out = flow.sender.stats.timeouts > timeouts;
                self.send_out(f, self.now);
                if timed_out {
                    let flow = &mut self.flows[f];
                    let head = flow.sender.snd_una();
                    let copy = flow.access.last_arrival_of(|p| p.retransmit && !p.syn && p.seq == head);
                    flow.timer_copy_seq = head;
                    flow.timer_copy_leaves = copy.map_or(NEVER, |arrival| arrival - flow.access_delay);
                }
            }
        }
    }

    /// The receiver's clock leads by `rx_shift`; its timer events run on the simulation's clock.
    fn receiver_timer(&mut self, f: usize) {
        let shift = self.flows[f].rx_shift;
        match self.flows[f].receiver.delack.fire(self.now, shift) {
            Fired::Stale | Fired::Early(None) => {}
            Fired::Early(Some(t)) => self.events.schedule(t, Event::ReceiverTimer(f as u32)),
            Fired::Due => {
                let tcp = &self.cfg.groups[self.flows[f].group as usize].tcp;
                if let Some(ack) = self.flows[f].receiver.on_delack_timer(tcp) {
                    self.send_ack(f, ack, self.now + shift);
                }
            }
        }
    }

    /// A DCTCP receiver's owed delayed ACK, sent at once when the CE state changed (rare: out of line).
    #[cold]
    #[inline(never)]
    fn send_owed_ack(&mut self, f: usize, owed: OwedAck, at: Time) {
        self.send_ack(f, owed.to_ack(), at);
    }

    /// The receiver sends `ack` at its time `at`.
    #[inline(always)]
    fn send_ack(&mut self, f: usize, ack: Ack, at: Time) {
        let flow = &mut self.flows[f];
        let Some(path) = flow.ack_path.as_mut() else {
            let arrival = (at + flow.ack_delay + flow.extra_ack_delay(&ack)).max(flow.last_ack_at);
            flow.last_ack_at = arrival;
            if self.tracer.is_some() {
                self.observe_ack_sent(f, &ack, at);
            }
            return self.sender_ack(f, &ack, arrival);
        };
        path.serial = path.serial.wrapping_add(1);
        path.pending.push_back((path.serial, ack));
        let size = self.cfg.groups[flow.group as usize].ack_size + ack.sack_option_bytes();
        let hops = self.cfg.groups[flow.group as usize].ack_route.len() as u8;
        let pkt = Packet {
            flow: f as u32,
            seq: path.serial,
            size,
            syn: ack.syn,
            kind: Kind::Ack,
            hops,
            ..Packet::default()
        };
        flow.in_network += 1;
        path.acks_sent += 1;
        self.acks_sent += 1;
        if path.pipe.push(at, pkt, path.pipe_refill) {
            self.events.schedule(at, Event::AckArrive(f as u32));
        }
    }

    /// The sender handles `ack` at its arrival time `at`, on its own clock.
    fn sender_ack(&mut self, f: usize, ack: &Ack, at: Time) {
        let Simulation { flows, cfg, out, events, tracer, .. } = self;
        let flow = &mut flows[f];
        let grp = &cfg.groups[flow.group as usize];
        let hops = flow.hops;
        // Timers due before the ACK arrives come first, as they would on the sender's clock.
        loop {
            let deadline = flow.sender.next_deadline();
            if deadline > at {
                break;
            }
            flow.sender.on_timer(deadline, &grp.tcp, out);
            if let Some(tr) = tracer.as_deref_mut() {
                observe_sender(tr, flow, f, deadline, out, None);
            }
            flow.launch(out, events, hops, f as u32, deadline);
        }
        flow.sender.on_ack(ack, at, &grp.tcp, out);
        if let Some(tr) = tracer.as_deref_mut() {
            observe_sender(tr, flow, f, at, out, Some(ack));
        }
        flow.launch(out, events, hops, f as u32, at);
        if flow.fct().is_none() && flow.sender.is_complete() {
            self.complete(f, at);
        }
    }

    /// A finite flow's last segment was acknowledged at `at`.
    fn complete(&mut self, f: usize, at: Time) {
        let flow = &mut self.flows[f];
        let fct = at - flow.start;
        flow.fct = fct;
        let g = flow.group as usize;
        self.groups[g].completed += 1;
        if self.window.holds(flow.start, at) {
            let size = flow.size_bytes().unwrap_or(0);
            let route = &self.routes[flow.route as usize];
            let bottleneck = route.iter().map(|&p| self.ports[p].rate).fold(f64::INFINITY, f64::min);
            let wire = size.div_ceil(self.cfg.groups[g].tcp.payload as u64)
                * self.cfg.groups[g].tcp.packet_size as u64;
            // One round trip (two with the handshake's, which a persistent connection's later responses do
            // not wait for) plus the transmission at the bottleneck.
            let trips = if self.cfg.groups[g].tcp.handshake && !flow.reused { 2 } else { 1 };
            let ideal = trips * flow.rtt + from_secs(wire as f64 * 8.0 / bottleneck);
            let rtt = flow.rtt;
            let start = flow.start;
            self.fct.add(g, size, start, fct, rtt, ideal);
        }
        self.deactivate(f);
        self.maybe_free(f);
        self.incast_response_done(g, at);
    }

    /// Give a finished arrival flow's slot back once none of its packets is left in the network.
    #[inline(always)]
    fn maybe_free(&mut self, f: usize) {
        let flow = &self.flows[f];
        if flow.arrived && !flow.freed && flow.fct().is_some() && flow.in_network == 0 {
            self.free_slot(f);
        }
    }

    fn free_slot(&mut self, f: usize) {
        let flow = &self.flows[f];
        let g = &mut self.groups[flow.group as usize];
        g.retired.add(&flow.stats);
        g.retired_counts.add(&flow.counts());
        g.retired_in_network += flow.in_network as u64;
        g.retired_sender.add(&flow.sender.stats);
        self.flows[f].wake.cancel();
        self.flows[f].receiver.delack.cancel();
        self.flows[f].freed = true;
        self.free.push(f as u32);
    }

    fn udp_send(&mut self, i: usize) {
        let src = &mut self.udp[i];
        src.sent += 1;
        let pkt = Packet {
            flow: i as u32,
            seq: src.sent as u32,
            size: src.packet_size,
            kind: Kind::Datagram,
            ..Packet::default()
        };
        let next = src.next_after(self.now);
        if next != NEVER {
            self.events.schedule(next, Event::UdpSend(i as u32));
        }
        let port = self.cfg.udp[i].route[0];
        self.enqueue(port, pkt);
    }

    /// `pkt` reaches port `p` now. Inlined into the event loop's arrivals (0.7 % fewer instructions on the
    /// reference benchmark than a call).
    #[inline(always)]
    fn enqueue(&mut self, p: usize, pkt: Packet) {
        if !self.pools.is_empty() && !self.shared_buffer_admits(p, &pkt) {
            self.ports[p].refuse(pkt, SHARED_BUFFER, &mut self.fx);
            if self.tracer.is_some() {
                self.observe_arrival(p, &pkt, false);
            }
            return self.apply_queue_effects(p);
        }
        let idle = self.ports[p].arrive(pkt, self.now, p, &mut self.fx, &mut self.events);
        if self.tracer.is_some() {
            self.observe_arrival(p, &pkt, idle);
        }
        self.apply_queue_effects(p);
    }

    /// Does port `p`'s shared buffer, if it has one, let `pkt` join it? Counts the occupancy the arrival
    /// found.
    #[inline(never)]
    fn shared_buffer_admits(&mut self, p: usize, pkt: &Packet) -> bool {
        let Some((b, k)) = self.pool_of[p] else { return true };
        let (b, k) = (b as usize, k as usize);
        let buffer = &self.cfg.shared_buffers[b];
        let used = buffer.occupancy(&self.ports);
        let admitted = buffer.admits(k, pkt, used, &self.ports);
        if self.window.is_open() {
            let stats = &mut self.pools[b];
            stats.arrivals += 1;
            stats.occupancy_sum += used as f64;
            stats.occupancy_max = stats.occupancy_max.max(used);
            stats.refused += u64::from(!admitted);
        }
        admitted
    }

    fn start_service(&mut self, p: usize) {
        self.ports[p].start_service(self.now, p, &mut self.fx, &mut self.events);
        self.apply_queue_effects(p);
        if self.tracer.is_some() {
            self.observe_dequeue(p);
        }
    }

    fn tx_done(&mut self, p: usize) {
        let port = &mut self.ports[p];
        let mut pkt = port.depart();
        let arrival = self.now + port.delay;
        if self.tracer.is_some() {
            self.observe_departure(p, &pkt);
        }
        pkt.hop += 1;
        if pkt.hop < pkt.hops {
            let port = &mut self.ports[p];
            if port.out.push(arrival, pkt, port.out_refill) {
                self.events.schedule(arrival, Event::LinkArrive(p as u32));
            }
        } else {
            self.deliver(pkt, arrival);
        }
        self.ports[p].serve_next(self.now, p, &mut self.fx, &mut self.events);
        self.apply_queue_effects(p);
        if self.tracer.is_some() {
            self.observe_dequeue(p);
        }
    }

    /// The packet reaches the end of its route at `at`.
    fn deliver(&mut self, pkt: Packet, at: Time) {
        if at > self.cfg.duration {
            self.after_end += 1;
            return;
        }
        self.delivered += 1;
        let f = pkt.flow as usize;
        match pkt.kind {
            Kind::Datagram => {
                if self.window.counts(at) {
                    self.udp[f].delivered += 1;
                }
            }
            Kind::Ack => {
                let flow = &mut self.flows[f];
                flow.in_network -= 1;
                let arrival = self.now + flow.ack_delay;
                let path = self.flows[f].ack_path.as_mut().expect("a queued ACK path");
                path.acks_delivered += 1;
                let mut ack = None;
                while let Some((serial, a)) = path.pending.pop_front() {
                    if serial == pkt.seq {
                        ack = Some(a);
                        break;
                    }
                }
                if let Some(ack) = ack {
                    let flow = &mut self.flows[f];
                    let arrival = (arrival + flow.extra_ack_delay(&ack)).max(flow.last_ack_at);
                    flow.last_ack_at = arrival;
                    self.sender_ack(f, &ack, arrival);
                }
                self.maybe_free(f);
            }
            Kind::Data if pkt.syn => {
                let flow = &mut self.flows[f];
                flow.in_network -= 1;
                flow.data_delivered += 1;
                self.send_ack(f, Ack { syn: true, ..Ack::default() }, at);
            }
            Kind::Data => {
                let Simulation { flows, cfg, events, window, .. } = self;
                let flow = &mut flows[f];
                let tcp = &cfg.groups[flow.group as usize].tcp;
                let payload = tcp.payload as u64;
                flow.in_network -= 1;
                flow.data_delivered += 1;
                let d = flow.receiver.on_data(&pkt, at, tcp);
                if window.counts(at) {
                    flow.stats.goodput_bytes += d.new_in_order as u64 * payload;
                    flow.stats.throughput_bytes += payload;
                }
                if let Some(t) = flow.receiver.delack.needs_event(flow.rx_shift) {
                    events.schedule(t, Event::ReceiverTimer(f as u32));
                }
                let arrived = flow.arrived;
                if let Some(owed) = d.owed_ack {
                    self.send_owed_ack(f, owed, at);
                }
                if let Some(ack) = d.ack {
                    self.send_ack(f, ack, at);
                }
                if arrived {
                    self.maybe_free(f);
                }
            }
        }
    }

    #[inline(always)]
    fn apply_queue_effects(&mut self, p: usize) {
        if !(self.fx.drops.is_empty() && self.fx.marks.is_empty()) {
            self.count_queue_effects(p);
        }
    }

    fn count_queue_effects(&mut self, p: usize) {
        if self.tracer.is_some() {
            self.observe_signals(p);
        }
        self.fx.mark_seqs.clear();
        let mut drops = std::mem::take(&mut self.fx.drops);
        for (pkt, reason, stage) in drops.drain(..) {
            self.dropped += 1;
            self.ports[p].count_drop(reason, stage);
            let f = pkt.flow as usize;
            match pkt.kind {
                Kind::Datagram => {
                    if self.window.is_open() {
                        self.udp[f].drops += 1;
                    }
                }
                Kind::Data | Kind::Ack => {
                    let flow = &mut self.flows[f];
                    flow.in_network -= 1;
                    if pkt.kind == Kind::Data {
                        flow.data_dropped += 1;
                    } else {
                        flow.ack_path.as_mut().expect("a queued ACK path").acks_dropped += 1;
                    }
                    if self.window.is_open() {
                        if pkt.kind == Kind::Data {
                            flow.stats.drops += 1;
                        } else {
                            flow.stats.ack_drops += 1;
                        }
                    }
                    self.maybe_free(f);
                }
            }
        }
        self.fx.drops = drops;
        for (f, reason) in self.fx.marks.drain(..) {
            self.ports[p].count_mark(reason);
            if self.window.is_open() {
                self.flows[f as usize].stats.marks += 1;
            }
        }
    }

    fn sync_queue_timer(&mut self, p: usize) {
        self.ports[p].sync_timer(self.now, p, &mut self.events);
    }

    fn sample(&mut self) {
        self.series.time_s.push(to_secs(self.now));
        self.series.queue_pkts.push(self.ports[0].queue.len() as f64);
        for (p, q) in self.series.port_queue.iter_mut().enumerate() {
            q.push(self.ports[p].queue.len() as f64);
        }
        if self.cfg.sample_cwnd {
            for (i, f) in self.flows[..self.fixed].iter().enumerate() {
                self.series.cwnd[i].push(f.sender.cwnd());
            }
        }
        if let Some(dt) = self.cfg.sample_interval {
            let next = self.now.saturating_add(dt);
            if next <= self.cfg.duration {
                self.events.schedule(next, Event::Sample);
            }
        }
    }

    /// Packets sent (data, queued ACKs, datagrams), delivered, dropped, and still in the network (pipes,
    /// queues, links, or due at their endpoint after the end).
    pub fn conservation(&self) -> Conservation {
        let sent = self.flows.iter().map(|f| f.sender.stats.sent).sum::<u64>()
            + self.groups.iter().map(|g| g.retired_sender.sent).sum::<u64>()
            + self.acks_sent
            + self.udp.iter().map(|u| u.sent).sum::<u64>();
        // Freed slots' counters are already in their groups' `retired_sender`.
        let sent = sent - self.flows.iter().filter(|f| f.freed).map(|f| f.sender.stats.sent).sum::<u64>();
        let pipes: u64 = self
            .flows
            .iter()
            .map(|f| f.access.len() as u64 + f.ack_path.as_ref().map_or(0, |a| a.pipe.len() as u64))
            .sum();
        let ports: u64 = self
            .ports
            .iter()
            .map(|p| p.queue.len() as u64 + p.in_service.is_some() as u64 + p.out.len() as u64)
            .sum();
        Conservation {
            sent,
            delivered: self.delivered,
            dropped: self.dropped,
            in_network: pipes + ports + self.after_end,
        }
    }

    /// TCP flows active through port `p` now (what its discipline was last told).
    pub fn active_flows(&self, p: usize) -> u32 {
        self.ports[p].active_flows
    }

    /// Port `p`'s whole-run counts: arrivals as `sent`, departures as `delivered`, drops, and the packets
    /// it holds now as `in_network`.
    pub fn port_conservation(&self, p: usize) -> Conservation {
        let port = &self.ports[p];
        Conservation {
            sent: port.totals.arrivals,
            delivered: port.totals.departures,
            dropped: port.totals.drops,
            in_network: port.held(),
        }
    }

    /// Port `p`'s discipline, to read its state while running (an adapted limit, a probability).
    pub fn queue(&self, p: usize) -> &crate::queue::AnyQueue {
        &self.ports[p].queue
    }

    /// Packets in port `p`'s link pipe (towards the next port).
    pub fn link_in_flight(&self, p: usize) -> u64 {
        self.ports[p].out.len() as u64
    }

    /// Group `g`'s whole-run packet counts (see [`GroupConservation`]); delivery counts a packet when it
    /// reaches its endpoint, `in_network` includes those due there after the end.
    pub fn group_conservation(&self, g: usize) -> GroupConservation {
        let state = &self.groups[g];
        let mut counts = state.retired_counts;
        let mut sent = state.retired_sender.sent;
        let mut in_network = state.retired_in_network;
        let mut acks_in_network = 0;
        for f in self.flows.iter().filter(|f| f.group as usize == g && !f.freed) {
            let c = f.counts();
            counts.add(&c);
            sent += f.sender.stats.sent;
            in_network += f.in_network as u64;
            acks_in_network += c.acks_sent - c.acks_delivered - c.acks_dropped;
        }
        GroupConservation {
            data: Conservation {
                sent,
                delivered: counts.data_delivered,
                dropped: counts.data_dropped,
                in_network: in_network - acks_in_network,
            },
            acks: Conservation {
                sent: counts.acks_sent,
                delivered: counts.acks_delivered,
                dropped: counts.acks_dropped,
                in_network: acks_in_network,
            },
        }
    }

    /// Close the statistics and collect the results (runs the rest of the scenario first).
    pub fn finish(mut self) -> Results {
        self.run_until(self.cfg.duration);
        let end = self.cfg.duration;
        self.close(end, false)
    }

    /// The results of a run stopped early (interrupted): statistics over `[warmup, now]`, conservation
    /// counts as they stand, `summary.partial` set. `None` while that window is shorter than a
    /// microsecond (nothing was measured yet).
    pub fn finish_now(self) -> Option<Results> {
        let end = self.now;
        if end < self.cfg.warmup.saturating_add(crate::time::MIN_WINDOW) {
            return None;
        }
        let partial = end < self.cfg.duration;
        Some(self.close(end, partial))
    }

    /// Close the statistics at `end` and collect the results.
    fn close(mut self, end: Time, partial: bool) -> Results {
        if let Some(tr) = self.tracer.as_deref_mut() {
            tr.finish(end);
        }
        for port in &mut self.ports {
            port.stats.finish(end);
        }
        let series = std::mem::take(&mut self.series);
        let conservation = self.conservation();
        // The rows need the flows' counters, not their packets: give the packet buffers back first, so that
        // the rows do not add to the run's peak (a quarter of it with 10^6 flows).
        for f in &mut self.flows {
            f.release_buffers();
        }
        return_freed_memory();
        self.parts().results(end, partial, conservation, series)
    }

    /// What the results are built from.
    fn parts(&self) -> Parts<'_> {
        Parts {
            cfg: &self.cfg,
            ports: &self.ports,
            flows: &self.flows,
            fixed: self.fixed,
            groups: &self.groups,
            udp: &self.udp,
            fct: &self.fct,
            sender_at_warmup: self.sender_at_warmup,
            events: self.events.executed(),
            peak_slots: self.peak_slots,
            pool_of: &self.pool_of,
            pools: &self.pools,
        }
    }

    /// Port `p`'s queueing delay (seconds) at each quantile of `qs`, from its histogram over the window so
    /// far (NaN-free: 0 when no packet was served).
    pub fn delay_quantiles(&self, p: usize, qs: &[f64]) -> Vec<f64> {
        let st = &self.ports[p].stats;
        qs.iter().map(|&q| if st.delay.count() == 0 { 0.0 } else { st.delay_quantile(q) }).collect()
    }

    /// The event records gathered since the last call (`None` without `[trace]`); draining them after
    /// every step keeps the engine's share of a trace's memory to one step's records.
    pub fn take_trace_events(&mut self) -> Option<EventColumns> {
        self.tracer.as_deref_mut().map(Tracer::take_events)
    }

    /// Close the trace where the run is now (writing the pcap's remaining captures and giving the file its
    /// name) and say what was traced; `None` without `[trace]`. The statistics are not affected.
    pub fn end_trace(&mut self) -> Option<TraceReport> {
        let now = self.now;
        self.tracer.as_deref_mut().map(|t| t.finish(now))
    }

    /// The warm-up ends: statistics start (once per run, out of the event loop's way).
    #[cold]
    #[inline(never)]
    fn warmup_end(&mut self) {
        self.window.open();
        self.sender_at_warmup = self.parts().sender_totals();
        for port in &mut self.ports {
            port.begin_measuring(self.now);
        }
        for f in &mut self.flows {
            f.stats = FlowStats::default();
        }
        for g in &mut self.groups {
            g.retired = FlowStats::default();
        }
        for u in &mut self.udp {
            (u.delivered, u.drops) = (0, 0);
        }
    }
}

/// An exponential gap of mean `1/rate` seconds, at least one picosecond.
fn exponential_gap(rng: &mut Rng, rate: f64) -> Time {
    from_secs(-(1.0 - rng.uniform()).ln() / rate).max(1)
}
