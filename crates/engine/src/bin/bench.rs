//! The speed benchmark of `docs/benchmarks.md`: runs a scenario file (JSON) and prints wall seconds per
//! million bottleneck packets and events per second, and the packets sent and served at all ports (the
//! per-packet and per-hop units of a multi-hop network such as a leaf-spine). Usage: `bufferlab-bench SCENARIO.json` (with a zero
//! warm-up, so that the departures counted are all the run's).

use bufferlab_engine::{config_from_json, Simulation};
use std::time::Instant;

fn main() {
    let Some(path) = std::env::args().nth(1) else {
        eprintln!("usage: bufferlab-bench SCENARIO.json");
        std::process::exit(2);
    };
    let text = match std::fs::read_to_string(&path) {
        Ok(t) => t,
        Err(e) => {
            eprintln!("bufferlab-bench: cannot read {path}: {e}");
            std::process::exit(2);
        }
    };
    let sim = match config_from_json(&text).and_then(Simulation::new) {
        Ok(s) => s,
        Err(e) => {
            eprintln!("bufferlab-bench: {e}");
            std::process::exit(2);
        }
    };
    let t0 = Instant::now();
    let r = sim.finish();
    let wall = t0.elapsed().as_secs_f64();
    let s = &r.summary;
    // Packets through the bottleneck: those that finished serialization on it.
    let pkts = s.departures as f64;
    let hops: u64 = r.ports.iter().map(|p| p.departures).sum();
    println!(
        "{{\"wall_s\": {wall:.4}, \"bottleneck_packets\": {}, \"events\": {}, \"s_per_million_packets\": {:.4}, \
         \"events_per_s\": {:.0}, \"utilization\": {:.4}, \"loss_rate\": {:.5}, \"sent\": {}, \
         \"port_departures\": {hops}}}",
        s.departures,
        s.events,
        wall / (pkts / 1e6),
        s.events as f64 / wall,
        s.utilization,
        s.loss_rate,
        s.sent
    );
}
