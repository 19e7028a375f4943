//! A port: the queue in front of a link, the link's transmitter, the pipe of its propagation delay towards
//! the next port, the discipline's timer, and the port's statistics.
//!
//! `limit`s count packets waiting, not the one being serialized. Serialization times of the common packet
//! size are precomputed (the hot path divides only for other sizes).

use super::Pipe;
use crate::events::{Event, EventQueue};
use crate::monitor::PortStats;
use crate::packet::Packet;
use crate::queue::{AnyQueue, QueueDisc, QueueEffects};
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
    /// Packets on the link heading for another port.
    pub out: Pipe,
    /// The discipline's own timer (periodic AQMs).
    pub timer: Timer,
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
            queue,
            rate,
            delay,
            in_service: None,
            out: Pipe::default(),
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
