//! BufferLab's engine: a deterministic packet-level simulator of TCP flows through router buffers.
//!
//! Data flows one way: a scenario (JSON text, see `docs/scenario.md`) → [`scenario::Config`] → a
//! [`sim::Simulation`] → [`results::Results`]. See `docs/architecture.md` for the module map.

pub mod deque;
pub mod events;
pub mod monitor;
pub mod network;
pub mod packet;
pub mod queue;
pub mod results;
pub mod rng;
pub mod scenario;
pub mod sim;
pub mod spec;
pub mod tcp;
pub mod time;
pub mod timer;
pub mod trace;
pub mod traffic;
pub mod units;

pub use results::Results;
pub use scenario::{config_from_json, Config, ScenarioError};
pub use sim::Simulation;

/// Parse, validate and run a scenario given as JSON text.
pub fn run_json(text: &str) -> Result<Results, ScenarioError> {
    Ok(Simulation::new(config_from_json(text)?)?.finish())
}
