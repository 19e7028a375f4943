//! The loop's observer: one call per engine happening (a flow in a slot, an arrival at a port, a packet
//! taken into service, a transmission's end, the drops and marks of a discipline, a sender's step, an ACK
//! sent on the uncongested path), each `observe_*` turning it into the [`Tracer`]'s records (enqueue,
//! dequeue, drop, mark; ACK, timeout, state change, send) and the pcap port's captures. The loop calls them
//! behind one `if self.tracer.is_some()`, so a run without `[trace]` pays one untaken branch per happening,
//! and nothing of the tracer's vocabulary is in the loop's file.

use super::{Flow, Simulation};
use crate::packet::{Ack, Kind, Packet};
use crate::queue::QueueDisc;
use crate::time::{serialization, Time};
use crate::trace::pcap::Capture;
use crate::trace::{EventKind, PortEvent, SenderView, TcpShape, Tracer};

impl Simulation {
    /// The group of a packet's flow (-1: a datagram).
    fn group_of(&self, pkt: &Packet) -> i32 {
        match pkt.kind {
            Kind::Datagram => -1,
            _ => self.flows[pkt.flow as usize].group as i32,
        }
    }

    /// An arrival at port `p` (its pcap capture on the ingress side): an enqueue record unless the
    /// discipline refused it, and a dequeue record if the link was `idle` and took a packet at once.
    #[cold]
    #[inline(never)]
    pub(super) fn observe_arrival(&mut self, p: usize, pkt: &Packet, idle: bool) {
        self.capture_at(p, pkt, true);
        let queue_events = self.tracer.as_deref().is_some_and(|t| {
            (t.records(EventKind::Enqueue) || t.records(EventKind::Dequeue)) && t.cfg.port_ok(p)
        });
        if !queue_events {
            return;
        }
        let served = idle && self.ports[p].in_service.is_some();
        let refused = self.fx.drops.iter().any(|(d, _, stage)| {
            *stage == crate::queue::Stage::BeforeEnqueue
                && (d.flow, d.seq, d.kind, d.retransmit) == (pkt.flow, pkt.seq, pkt.kind, pkt.retransmit)
        });
        if !refused {
            let group = self.group_of(pkt);
            let queue = self.ports[p].queue.len() + served as usize;
            let mut pkt = *pkt;
            pkt.enqueued_at = self.now;
            if let Some(tr) = self.tracer.as_deref_mut() {
                let e = PortEvent { port: p, pkt: &pkt, group, queue };
                tr.port_event(self.now, EventKind::Enqueue, e, None);
            }
        }
        if served {
            self.observe_dequeue(p);
        }
    }

    /// Port `p` ended the transmission of `pkt` (the pcap's egress capture).
    pub(super) fn observe_departure(&mut self, p: usize, pkt: &Packet) {
        self.capture_at(p, pkt, false);
    }

    /// Slot `f` holds a new flow.
    pub(super) fn observe_flow(&mut self, f: usize) {
        if let Some(tr) = self.tracer.as_deref_mut() {
            tr.reset_flow(f as u32);
        }
    }

    /// Port `p` may just have taken a packet into service.
    #[cold]
    #[inline(never)]
    pub(super) fn observe_dequeue(&mut self, p: usize) {
        let Some(pkt) = self.ports[p].in_service else { return };
        let group = self.group_of(&pkt);
        let queue = self.ports[p].queue.len();
        if let Some(tr) = self.tracer.as_deref_mut() {
            tr.port_event(self.now, EventKind::Dequeue, PortEvent { port: p, pkt: &pkt, group, queue }, None);
        }
    }

    /// Drops and marks at port `p`, before they are counted.
    #[cold]
    #[inline(never)]
    pub(super) fn observe_signals(&mut self, p: usize) {
        let Simulation { tracer, fx, flows, ports, now, .. } = self;
        let Some(tr) = tracer.as_deref_mut() else { return };
        let queue = ports[p].queue.len();
        let group = |pkt: &Packet| match pkt.kind {
            Kind::Datagram => -1,
            _ => flows[pkt.flow as usize].group as i32,
        };
        for (pkt, reason, stage) in &fx.drops {
            let e = PortEvent { port: p, pkt, group: group(pkt), queue };
            tr.port_event(*now, EventKind::Drop, e, Some((*reason, *stage)));
        }
        for (&(flow, reason), &seq) in fx.marks.iter().zip(&fx.mark_seqs) {
            let pkt = Packet { flow, seq, ecn: crate::packet::Ecn::Ce, ..Packet::default() };
            let e = PortEvent { port: p, pkt: &pkt, group: group(&pkt), queue };
            tr.port_event(*now, EventKind::Mark, e, Some((reason, crate::queue::Stage::BeforeEnqueue)));
        }
    }

    /// The header geometry of group `g`'s packets in the pcap.
    fn tcp_shape(&self, g: u32) -> TcpShape {
        let grp = &self.cfg.groups[g as usize];
        TcpShape {
            group: g,
            packet_size: grp.tcp.packet_size,
            payload: grp.tcp.payload,
            ack_size: grp.ack_size,
        }
    }

    /// `pkt` arrives at port `p` (`ingress`) or `p` ends its transmission: a pcap capture if `p` is the
    /// pcap's port on that side.
    #[cold]
    #[inline(never)]
    fn capture_at(&mut self, p: usize, pkt: &Packet, ingress: bool) {
        let here = |t: &Tracer| t.pcap.as_ref().is_some_and(|s| s.cfg.port == p && s.cfg.ingress == ingress);
        if self.tracer.as_deref().is_some_and(here) {
            self.capture_packet(pkt);
        }
    }

    /// The pcap port ends the transmission of `pkt` (egress), or `pkt` arrives at it (ingress).
    fn capture_packet(&mut self, pkt: &Packet) {
        let what = match pkt.kind {
            Kind::Datagram => {
                if self.tracer.as_ref().is_some_and(|t| t.cfg.flows.is_some()) {
                    return;
                }
                Capture::Datagram { source: pkt.flow, size: pkt.size, serial: pkt.seq }
            }
            Kind::Data | Kind::Ack => {
                if !self.tracer.as_ref().is_some_and(|t| t.cfg.flow_ok(pkt.flow)) {
                    return;
                }
                let flow = &self.flows[pkt.flow as usize];
                let shape = self.tcp_shape(flow.group);
                if pkt.syn && pkt.kind == Kind::Data {
                    Capture::Syn { flow: pkt.flow, shape }
                } else if pkt.kind == Kind::Data {
                    Capture::Data { flow: pkt.flow, shape, seq: pkt.seq, ecn: pkt.ecn, cwr: pkt.cwr }
                } else {
                    let path = flow.ack_path.as_ref().expect("a queued ACK path");
                    let Some(&(_, ack)) = path.pending.iter().find(|(serial, _)| *serial == pkt.seq) else {
                        return;
                    };
                    Capture::Ack { flow: pkt.flow, shape, ack }
                }
            }
        };
        let now = self.now;
        if let Some(sink) = self.tracer.as_deref_mut().and_then(|t| t.pcap.as_mut()) {
            sink.capture(now, now, what);
        }
    }

    /// An ACK of flow `f` sent at `at` over the uncongested path: captured when it passes the pcap port's
    /// router on its way back (having crossed that link and those after it on the data route).
    #[cold]
    #[inline(never)]
    pub(super) fn observe_ack_sent(&mut self, f: usize, ack: &Ack, at: Time) {
        let Some(tr) = self.tracer.as_deref() else { return };
        let Some(port) = tr.pcap.as_ref().map(|s| s.cfg.port) else { return };
        if !tr.cfg.flow_ok(f as u32) {
            return;
        }
        let g = self.flows[f].group;
        let route = &self.routes[self.flows[f].route as usize];
        let Some(k) = route.iter().position(|&p| p == port) else { return };
        let size = self.cfg.groups[g as usize].ack_size;
        let back: Time =
            route[k..].iter().map(|&p| self.ports[p].delay + serialization(size, self.ports[p].rate)).sum();
        let shape = self.tcp_shape(g);
        let now = self.now;
        if let Some(sink) = self.tracer.as_deref_mut().and_then(|t| t.pcap.as_mut()) {
            sink.capture(now, at + back, Capture::Ack { flow: f as u32, shape, ack: *ack });
        }
    }
}

/// Flow `f`'s sender took a step at its time `at`: the ACK it just processed (if any), a timeout it just
/// took, a change of congestion state, and the packets it emitted (`out`), if the trace records senders.
#[cold]
#[inline(never)]
pub(super) fn observe_sender(
    tr: &mut Tracer,
    flow: &Flow,
    f: usize,
    at: Time,
    out: &[Packet],
    ack: Option<&Ack>,
) {
    if !tr.records_senders() {
        return;
    }
    let s = &flow.sender;
    let view = SenderView {
        flow: f as u32,
        group: flow.group,
        cwnd: s.cwnd(),
        ssthresh: s.ssthresh(),
        state: s.cc_state(),
    };
    if let Some(a) = ack {
        let pkt = Packet {
            flow: f as u32,
            seq: a.ack,
            cwr: a.ece,
            syn: a.syn,
            kind: Kind::Ack,
            ..Packet::default()
        };
        tr.sender_event(at, EventKind::Ack, &view, Some(&pkt));
    }
    if s.stats.timeouts > tr.timeouts_seen(f) {
        tr.set_timeouts_seen(f, s.stats.timeouts);
        tr.sender_event(at, EventKind::Timeout, &view, None);
    }
    tr.state_change(at, &view);
    for pkt in out {
        tr.sender_event(at, EventKind::Send, &view, Some(pkt));
    }
}
