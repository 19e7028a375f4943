//! Tracing: per-flow and per-port event records and a pcap packet trace of one port, set up only when
//! the scenario has a `[trace]` table (`docs/traces.md`).
//!
//! The simulation holds an `Option<Box<Tracer>>`: with no `[trace]` table every hook is one untaken
//! branch, so runs without tracing do exactly what they did before. Tracing never changes what the
//! simulation does, only what is written down. Event records are kept as columns in a chunk the caller
//! drains ([`Tracer::take_events`]; the Python binding after every step of a run), up to `max_events` in
//! all, so memory stays bounded however long the run; the pcap is streamed to its file.

pub mod pcap;
mod spec;

use crate::packet::{Ecn, Kind, Packet};
use crate::queue::{Reason, Stage};
use crate::time::Time;
pub use pcap::{PcapSink, TcpShape};
pub use spec::{PcapConfig, TraceConfig, TraceTable};

/// What an event record is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u8)]
pub enum EventKind {
    /// A sender put a packet on its access link (`retransmit` tells a retransmission).
    Send = 0,
    /// A port queued an arriving packet.
    Enqueue = 1,
    /// A port dropped a packet (`reason`; `at_dequeue` for drops of a packet taken from the head).
    Drop = 2,
    /// A port set CE on a packet (`reason`).
    Mark = 3,
    /// A port took a packet from its queue into service (`delay_s`: its wait).
    Dequeue = 4,
    /// A sender processed an ACK (`seq`: the cumulative ACK; `cwnd`, `ssthresh` after it).
    Ack = 5,
    /// A sender's retransmission timer expired.
    Timeout = 6,
    /// A sender's congestion state changed (`state`: the new one).
    State = 7,
}

/// The names of [`EventKind`]s, by code.
pub const KIND_NAMES: [&str; 8] = ["send", "enqueue", "drop", "mark", "dequeue", "ack", "timeout", "state"];

/// A sender's congestion state, as the trace names it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u8)]
pub enum CcState {
    None = 0,
    SlowStart = 1,
    CongestionAvoidance = 2,
    FastRecovery = 3,
    /// After a retransmission timeout, until the data outstanding then is acknowledged.
    RtoRecovery = 4,
    /// After an ECN reduction, until data sent after it is acknowledged (RFC 3168's CWR period).
    Cwr = 5,
}

/// The names of [`CcState`]s, by code (0: none).
pub const STATE_NAMES: [&str; 6] =
    ["", "slow-start", "congestion-avoidance", "fast-recovery", "rto-recovery", "cwr"];

/// The names of packet kinds, by code.
pub const PACKET_NAMES: [&str; 5] = ["data", "ack", "datagram", "syn", "syn-ack"];

fn packet_code(pkt: &Packet) -> u8 {
    match pkt.kind {
        Kind::Data if pkt.syn => 3,
        Kind::Ack if pkt.syn => 4,
        Kind::Data => 0,
        Kind::Ack => 1,
        Kind::Datagram => 2,
    }
}

fn ecn_code(ecn: Ecn) -> u8 {
    match ecn {
        Ecn::NotEct => 0,
        Ecn::Ect => 1,
        Ecn::Ce => 2,
    }
}

/// Event records as columns (one entry per record in each).
#[derive(Default, Debug, Clone, PartialEq)]
pub struct EventColumns {
    /// Picoseconds.
    pub time: Vec<u64>,
    pub kind: Vec<u8>,
    /// TCP flow slot, or UDP source for datagrams.
    pub flow: Vec<u32>,
    /// Flow group (-1: a UDP source).
    pub group: Vec<i32>,
    /// Port index (-1: a sender's event).
    pub port: Vec<i32>,
    /// Index into [`PACKET_NAMES`].
    pub packet: Vec<u8>,
    /// Segment number (data), cumulative ACK (ack events), ACK or datagram serial number (queued ACKs,
    /// datagrams).
    pub seq: Vec<u32>,
    pub retransmit: Vec<bool>,
    /// 0 Not-ECT, 1 ECT(0), 2 CE.
    pub ecn: Vec<u8>,
    /// CWR on a data packet, ECE on an ACK.
    pub ecn_flag: Vec<bool>,
    /// Index into [`EventColumns::reasons`] (0: none).
    pub reason: Vec<u16>,
    pub at_dequeue: Vec<bool>,
    /// Packets waiting at the port after the event (`u32::MAX`: not a port event).
    pub queue: Vec<u32>,
    /// Queueing delay of a dequeued packet, seconds (NaN otherwise).
    pub delay_s: Vec<f64>,
    /// The sender's window after the event, segments (NaN for port events).
    pub cwnd: Vec<f64>,
    pub ssthresh: Vec<f64>,
    /// Index into [`STATE_NAMES`].
    pub state: Vec<u8>,
    /// Reason names by code; entry 0 is "".
    pub reasons: Vec<&'static str>,
}

impl EventColumns {
    pub fn len(&self) -> usize {
        self.time.len()
    }
    pub fn is_empty(&self) -> bool {
        self.time.is_empty()
    }
}

/// A port event's packet, where and what.
#[derive(Clone, Copy)]
pub struct PortEvent<'a> {
    pub port: usize,
    pub pkt: &'a Packet,
    pub group: i32,
    pub queue: usize,
}

/// A sender event's flow and window.
#[derive(Clone, Copy)]
pub struct SenderView {
    pub flow: u32,
    pub group: u32,
    pub cwnd: f64,
    pub ssthresh: f64,
    pub state: CcState,
}

/// What was traced, at the end of a run.
#[derive(Clone, Debug, Default, PartialEq, serde::Serialize)]
pub struct TraceReport {
    /// Event records kept.
    pub events: u64,
    /// Event records left out because `max_events` was reached.
    pub events_over_cap: u64,
    /// The pcap file written, if any.
    pub pcap: Option<String>,
    pub pcap_packets: u64,
    pub pcap_bytes: u64,
    /// Packets left out because `max_packets` or `max_bytes` was reached.
    pub pcap_over_cap: u64,
    /// Why the pcap could not be written, if it could not.
    pub pcap_error: Option<String>,
}

/// The tracer of one run: its filters, the current chunk of event records, the pcap sink.
pub struct Tracer {
    pub cfg: TraceConfig,
    cols: EventColumns,
    kept: u64,
    over_cap: u64,
    /// Each flow slot's last traced congestion state and the timeouts seen so far.
    last_state: Vec<(CcState, u64)>,
    pub pcap: Option<PcapSink>,
}

impl Tracer {
    /// A tracer for `cfg`; opens the pcap file (an error names `trace.pcap`).
    pub fn new(cfg: TraceConfig) -> Result<Self, crate::spec::ScenarioError> {
        let pcap = match &cfg.pcap {
            Some(p) => Some(PcapSink::create(p)?),
            None => None,
        };
        let cols = EventColumns { reasons: vec![""], ..EventColumns::default() };
        Ok(Tracer { cfg, cols, kept: 0, over_cap: 0, last_state: Vec::new(), pcap })
    }

    /// Whether `flow` at time `t` passes the flow and time filters.
    #[inline]
    pub fn wants(&self, flow: u32, t: Time) -> bool {
        self.cfg.in_window(t) && self.cfg.flow_ok(flow)
    }

    /// Whether any sender event (send, ack, timeout, state) is recorded.
    #[inline]
    pub fn records_senders(&self) -> bool {
        const SENDER: u16 = 1 << EventKind::Send as u8
            | 1 << EventKind::Ack as u8
            | 1 << EventKind::Timeout as u8
            | 1 << EventKind::State as u8;
        self.cfg.events && self.cfg.kinds & SENDER != 0
    }

    /// Whether events of `kind` are recorded at all.
    #[inline]
    pub fn records(&self, kind: EventKind) -> bool {
        self.cfg.events && self.cfg.kinds & (1 << kind as u8) != 0
    }

    fn reason_code(&mut self, r: Reason) -> u16 {
        match self.cols.reasons.iter().position(|&n| n == r.0) {
            Some(i) => i as u16,
            None => {
                self.cols.reasons.push(r.0);
                (self.cols.reasons.len() - 1) as u16
            }
        }
    }

    /// Room for one more record (counts those over the cap).
    fn room(&mut self) -> bool {
        if self.kept < self.cfg.max_events {
            self.kept += 1;
            true
        } else {
            self.over_cap += 1;
            false
        }
    }

    #[allow(clippy::too_many_arguments)]
    fn push(
        &mut self,
        t: Time,
        kind: EventKind,
        flow: u32,
        group: i32,
        port: i32,
        pkt: Option<&Packet>,
        reason: u16,
        at_dequeue: bool,
        queue: u32,
        delay_s: f64,
        view: Option<&SenderView>,
    ) {
        let c = &mut self.cols;
        c.time.push(t);
        c.kind.push(kind as u8);
        c.flow.push(flow);
        c.group.push(group);
        c.port.push(port);
        c.packet.push(pkt.map_or(0, packet_code));
        c.seq.push(pkt.map_or(0, |p| p.seq));
        c.retransmit.push(pkt.is_some_and(|p| p.retransmit));
        c.ecn.push(pkt.map_or(0, |p| ecn_code(p.ecn)));
        c.ecn_flag.push(pkt.is_some_and(|p| p.cwr));
        c.reason.push(reason);
        c.at_dequeue.push(at_dequeue);
        c.queue.push(queue);
        c.delay_s.push(delay_s);
        c.cwnd.push(view.map_or(f64::NAN, |v| v.cwnd));
        c.ssthresh.push(view.map_or(f64::NAN, |v| v.ssthresh));
        c.state.push(view.map_or(0, |v| v.state as u8));
    }

    /// A port event (enqueue, drop, mark, dequeue) of `e.pkt` at `t`.
    pub fn port_event(&mut self, t: Time, kind: EventKind, e: PortEvent, reason: Option<(Reason, Stage)>) {
        if !self.records(kind) || !self.cfg.port_ok(e.port) || !self.cfg.in_window(t) {
            return;
        }
        let pkt = e.pkt;
        let flow_ok = match pkt.kind {
            Kind::Datagram => self.cfg.flows.is_none(),
            _ => self.cfg.flow_ok(pkt.flow),
        };
        if !flow_ok || !self.room() {
            return;
        }
        let (code, at_dequeue) = match reason {
            Some((r, stage)) => (self.reason_code(r), stage == Stage::AfterDequeue),
            None => (0, false),
        };
        let delay = if kind == EventKind::Dequeue {
            crate::time::to_secs(t.saturating_sub(pkt.enqueued_at))
        } else {
            f64::NAN
        };
        let queue = e.queue.min(u32::MAX as usize - 1) as u32;
        self.push(t, kind, pkt.flow, e.group, e.port as i32, Some(pkt), code, at_dequeue, queue, delay, None);
    }

    /// A sender event (send, ack, timeout) at the sender's time `t`; `pkt` is the packet sent, or for an
    /// ACK one carrying the cumulative ACK in `seq` and ECE in `cwr`.
    pub fn sender_event(&mut self, t: Time, kind: EventKind, v: &SenderView, pkt: Option<&Packet>) {
        if !self.records(kind) || !self.wants(v.flow, t) || !self.room() {
            return;
        }
        self.push(t, kind, v.flow, v.group as i32, -1, pkt, 0, false, u32::MAX, f64::NAN, Some(v));
    }

    /// Record a state event if the flow's congestion state changed since its last traced one.
    pub fn state_change(&mut self, t: Time, v: &SenderView) {
        let slot = self.slot(v.flow as usize);
        if slot.0 == v.state {
            return;
        }
        slot.0 = v.state;
        self.sender_event(t, EventKind::State, v, None);
    }

    fn slot(&mut self, f: usize) -> &mut (CcState, u64) {
        if self.last_state.len() <= f {
            self.last_state.resize(f + 1, (CcState::None, 0));
        }
        &mut self.last_state[f]
    }

    /// Timeouts of flow `f` already traced.
    pub fn timeouts_seen(&mut self, f: usize) -> u64 {
        self.slot(f).1
    }

    pub fn set_timeouts_seen(&mut self, f: usize, n: u64) {
        self.slot(f).1 = n;
    }

    /// A slot starts a new flow: its state is unknown again.
    pub fn reset_flow(&mut self, flow: u32) {
        if let Some(s) = self.last_state.get_mut(flow as usize) {
            *s = (CcState::None, 0);
        }
    }

    /// The records gathered since the last call (the reason table comes with every chunk).
    pub fn take_events(&mut self) -> EventColumns {
        let reasons = self.cols.reasons.clone();
        std::mem::replace(&mut self.cols, EventColumns { reasons, ..EventColumns::default() })
    }

    /// Close the pcap (writing every capture due by `end`) and say what was traced.
    pub fn finish(&mut self, end: Time) -> TraceReport {
        let mut report =
            TraceReport { events: self.kept, events_over_cap: self.over_cap, ..Default::default() };
        if let Some(sink) = self.pcap.as_mut() {
            sink.finish(end);
            report.pcap = Some(sink.path().to_string());
            report.pcap_packets = sink.packets;
            report.pcap_bytes = sink.bytes;
            report.pcap_over_cap = sink.over_cap;
            report.pcap_error = sink.error.clone();
        }
        report
    }
}
