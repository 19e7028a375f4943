//! Traffic that is not a long-lived TCP flow's own logic: open-loop sources and finite-flow sizes.

pub mod sizes;
pub mod udp;

pub use sizes::SizeDist;
pub use udp::{ArrivalPattern, UdpSource};
