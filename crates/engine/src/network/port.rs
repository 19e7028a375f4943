//! A port: the queue in front of a link, the link's transmitter, the pipe of its propagation delay towards
//! the next port, the discipline's timer, and the port's statistics.
//!
//! `limit`s count packets waiting, not the one being serialized. Serialization times of the common packet
//! size are precomputed (the hot path divides only for other sizes).

use super::Pipe;
use crate::monitor::PortStats;
use crate::packet::Packet;
use crate::queue::AnyQueue;
use crate::time::{serialization, Time};
use crate::timer::Timer;

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
            common_size,
            common_serialization: serialization(common_size, rate),
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
