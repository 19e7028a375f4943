//! A switch's shared buffer: the egress ports of one switch draw their packets' bytes from one pool, and an
//! arrival is admitted to its port's discipline only if the pool allows it (Choudhury & Hahne, "Dynamic
//! queue length thresholds for shared-memory packet switches", IEEE/ACM ToN 6(2), 1998).
//!
//! - **Dynamic Threshold** (`admission = "dynamic"`): port *i* may hold up to `T = α_i · (B − Q)` bytes, B
//!   the pool and Q the bytes all its ports hold; an arrival is admitted while the port holds less than T
//!   (C&H's rule: cells are blocked once the queue reaches the threshold) and the pool has room for it. A
//!   port alone settles at `α·B/(1 + α)`; n congested ports at `α·B/(1 + n·α)` each, leaving `B/(1 + n·α)`
//!   free for a port that becomes active.
//! - **Static** (`admission = "static"`): each port holds at most `port_limit` bytes, the pool at most B.
//!
//! Occupancy counts the bytes waiting in each port's discipline (not the packet being serialized, as a
//! discipline's `limit`). An arrival the pool refuses is dropped before its discipline sees it, reason
//! `shared-buffer`; one it admits is the discipline's (which may still mark it, or drop it by its own limit).

use crate::network::Port;
use crate::queue::{QueueDisc, Reason};

/// An arrival its port's shared buffer refused.
pub const SHARED_BUFFER: Reason = Reason("shared-buffer");
use crate::packet::Packet;

/// The admission rule of a pool.
#[derive(Clone, Debug, PartialEq)]
pub enum Admission {
    /// Choudhury & Hahne's Dynamic Threshold with each port's α (in the pool's port order).
    Dynamic { alpha: Vec<f64> },
    /// A fixed limit per port, bytes.
    Static { port_limit: u64 },
}

/// A shared buffer, resolved.
#[derive(Clone, Debug, PartialEq)]
pub struct SharedBufferConfig {
    pub name: String,
    /// Its ports (indices into the network's links).
    pub ports: Vec<usize>,
    /// B, bytes.
    pub size: u64,
    pub admission: Admission,
}

/// A pool while the run goes: the occupancy it has seen at arrivals.
#[derive(Clone, Debug, Default)]
pub struct PoolStats {
    /// Arrivals at its ports, and the sum and largest of the pool's occupancy each found (bytes).
    pub arrivals: u64,
    pub occupancy_sum: f64,
    pub occupancy_max: u64,
    pub refused: u64,
}

impl PoolStats {
    pub fn mean_occupancy(&self) -> Option<f64> {
        (self.arrivals > 0).then(|| self.occupancy_sum / self.arrivals as f64)
    }
}

impl SharedBufferConfig {
    /// The bytes its ports hold now.
    pub fn occupancy(&self, ports: &[Port]) -> u64 {
        self.ports.iter().map(|&p| ports[p].queue.bytes()).sum()
    }

    /// May `pkt` join port `ports[self.ports[k]]`, with the pool holding `used` bytes?
    pub fn admits(&self, k: usize, pkt: &Packet, used: u64, ports: &[Port]) -> bool {
        let size = u64::from(pkt.size);
        if used + size > self.size {
            return false;
        }
        let held = ports[self.ports[k]].queue.bytes();
        match &self.admission {
            Admission::Dynamic { alpha } => (held as f64) < alpha[k] * (self.size - used) as f64,
            Admission::Static { port_limit } => held + size <= *port_limit,
        }
    }
}
