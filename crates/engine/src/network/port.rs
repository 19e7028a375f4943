//! A port: the queue in front of a link, the link's transmitter, the pipe of its propagation delay towards
//! the next port, the discipline's timer, and the port's statistics.
//!
//! `limit`s count packets waiting, not the one being serialized. Serialization times of the common packet
//! size are precomputed (the hot path divides only for other sizes).

use super::Pipe;
use crate::events::{Event, EventQueue};
use crate::monitor::PortStats;
use crate::packet::Packet;
use crate::queue::{AnyQueue, QueueDisc, QueueEffects, Reason, Stage};
use crate::time::{serialization, Time};
use crate::timer::Timer;

/// A port's packets over the whole run: `arrivals = departures + drops + held` at every instant.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct PortTotals {
    pub arrivals: u64,
    pub departures: u64,
    pub drops: u64,
}

pub struct Port {
    pub queue: AnyQueue,
    /// Bits per second.
    pub rate: f64,
    /// The link's propagation delay.
    pub delay: Time,
    pub in_service: Option<Packet>,
    /// Packets on the link heading for another port, and the capacity to refill it with (see [`Pipe`]).
    pub out: Pipe,
    pub out_refill: u8,
    /// The discipline's own timer (periodic AQMs), if it has one ([`QueueDisc::has_timer`]).
    pub timer: Timer,
    timed: bool,
    pub stats: PortStats,
    /// TCP flows active through this port (started, not stopped or finished).
    pub active_flows: u32,
    /// Whole-run packet counts (the statistics cover the measurement window only).
    pub totals: PortTotals,
    common_size: u32,
    common_serialization: Time,
}

impl Port {
    pub fn new(queue: AnyQueue, rate: f64, delay: Time, common_size: u32) -> Self {
        Port {
            timed: queue.has_timer(),
            queue,
            rate,
            delay,
            in_service: None,
            out: Pipe::default(),
            out_refill: 0,
            timer: Timer::default(),
            stats: PortStats::default(),
            active_flows: 0,
            totals: PortTotals::default(),
            common_size,
            common_serialization: serialization(common_size, rate),
        }
    }

    /// Packets the port holds: waiting, and the one being serialized.
    pub fn held(&self) -> u64 {
        self.queue.len() as u64 + self.in_service.is_some() as u64
    }

    /// `pkt` arrives at `now`: counted, offered to the discipline, and taken into service at once if the
    /// link is idle; returns whether it was. The caller applies the effects in `fx`.
    #[inline(always)]
    pub fn arrive(
        &mut self,
        pkt: Packet,
        now: Time,
        p: usize,
        fx: &mut QueueEffects,
        events: &mut EventQueue,
    ) -> bool {
        self.totals.arrivals += 1;
        self.stats.on_arrival();
        self.queue.enqueue(pkt, now, fx);
        let idle = self.in_service.is_none();
        if idle {
            self.start_service(now, p, fx, events);
        }
        self.queue_changed(now, p, events);
        idle
    }

    /// An arrival refused before the discipline saw it (a shared buffer's admission): counted, and dropped
    /// through `fx` for the caller to apply.
    pub fn refuse(&mut self, pkt: Packet, reason: Reason, fx: &mut QueueEffects) {
        self.totals.arrivals += 1;
        self.stats.on_arrival();
        fx.drop(pkt, reason);
    }

    /// The transmission in progress ends: the packet leaves, counted.
    #[inline(always)]
    pub fn depart(&mut self) -> Packet {
        let pkt = self.in_service.take().expect("a packet in service");
        self.totals.departures += 1;
        self.stats.on_departure();
        pkt
    }

    /// After a departure at `now`: the next packet into service, if any (the caller applies the effects
    /// in `fx`).
    #[inline(always)]
    pub fn serve_next(&mut self, now: Time, p: usize, fx: &mut QueueEffects, events: &mut EventQueue) {
        self.start_service(now, p, fx, events);
        self.queue_changed(now, p, events);
    }

    /// The discipline's timer fired at `now` (the caller applies the effects in `fx`, then
    /// [`Port::note_queue`]).
    pub fn fire_timer(&mut self, now: Time, fx: &mut QueueEffects) {
        self.timer.cancel();
        self.queue.on_timer(now, fx);
    }

    /// The measurement window opens at `now` (the warm-up ends).
    pub fn begin_measuring(&mut self, now: Time) {
        self.stats.begin(now, self.held());
        self.note_queue(now);
    }

    /// The queue's length now, for its time-weighted statistics.
    #[inline]
    pub fn note_queue(&mut self, now: Time) {
        self.stats.queue_changed(now, self.queue.len());
    }

    /// The discipline dropped a packet.
    #[inline]
    pub fn count_drop(&mut self, reason: Reason, stage: Stage) {
        self.stats.on_drop(reason, stage);
        self.totals.drops += 1;
    }

    /// The discipline marked a packet.
    #[inline]
    pub fn count_mark(&mut self, reason: Reason) {
        self.stats.on_mark(reason);
    }

    /// The queue may have changed: its statistics and the discipline's timer follow.
    #[inline(always)]
    fn queue_changed(&mut self, now: Time, p: usize, events: &mut EventQueue) {
        self.note_queue(now);
        self.sync_timer(now, p, events);
    }

    /// Take the next packet into service, if any (the caller applies the effects in `fx`).
    #[inline(always)]
    pub fn start_service(&mut self, now: Time, p: usize, fx: &mut QueueEffects, events: &mut EventQueue) {
        if let Some(pkt) = self.queue.dequeue(now, fx) {
            self.stats.on_service_start(now - pkt.enqueued_at);
            let end = now + self.serialization(pkt.size);
            self.stats.on_transmit(now, end);
            events.schedule(end, Event::TxDone(p as u32));
            self.in_service = Some(pkt);
        }
    }

    /// Keep the discipline's timer event scheduled.
    #[inline(always)]
    pub fn sync_timer(&mut self, now: Time, p: usize, events: &mut EventQueue) {
        debug_assert!(self.timed || self.queue.next_timer().is_none(), "a timer without has_timer");
        if !self.timed {
            return;
        }
        let Some(t) = self.queue.next_timer() else { return };
        self.timer.arm(t.max(now));
        if let Some(at) = self.timer.needs_event(0) {
            events.schedule(at, Event::QueueTimer(p as u32));
        }
    }

    /// How long `size` bytes take on the link.
    pub fn serialization(&self, size: u32) -> Time {
        if size == self.common_size {
            self.common_serialization
        } else {
            serialization(size, self.rate)
        }
    }
}
