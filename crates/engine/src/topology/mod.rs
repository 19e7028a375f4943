//! Topologies. The dumbbell is the one the papers share: N senders on their own access links, one
//! bottleneck router and link, N receivers, and an uncongested ACK path.

pub mod dumbbell;

pub use dumbbell::Simulation;
