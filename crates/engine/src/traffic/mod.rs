//! Open-loop traffic: UDP sources whose packets arrive at the bottleneck router by a fixed law, whatever
//! the network does. They carry the queueing checks (Poisson into DropTail is M/D/1/K) and background load.
//! TCP bulk flows live in [`crate::tcp`].

pub mod udp;

pub use udp::{ArrivalPattern, UdpSource};
