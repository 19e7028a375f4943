//! Checks shared by the whole-simulation tests.

use bufferlab_engine::results::Results;
use bufferlab_engine::sim::Conservation;
use bufferlab_engine::time::PS_PER_SEC;
use bufferlab_engine::{config_from_json, Simulation};

/// Packet conservation now: over the network (sent = delivered + dropped + in the network), at every port
/// (arrivals = departures + drops + held), and for every group's data and queued ACKs.
pub fn assert_conserved(s: &Simulation, what: &str) {
    let balanced = |c: Conservation, at: String| {
        assert_eq!(c.sent, c.delivered + c.dropped + c.in_network, "{what}: {at}");
    };
    balanced(s.conservation(), "network".into());
    for p in 0..s.config().network.links.len() {
        balanced(s.port_conservation(p), format!("port {p}"));
    }
    for g in 0..s.config().groups.len() {
        let c = s.group_conservation(g);
        balanced(c.data, format!("group {g} data"));
        balanced(c.acks, format!("group {g} ACKs"));
    }
}

/// Run `scenario` (JSON) in half-second steps, checking conservation after each, then check that the queue
/// `what` signalled congestion and kept the link busy (utilization in (0.8, 1]); the results.
#[allow(dead_code)]
pub fn run_conserving(scenario: &str, half_seconds: u64, what: &str) -> Results {
    let mut sim = Simulation::new(config_from_json(scenario).unwrap()).unwrap();
    for k in 1..=half_seconds {
        sim.run_until(k * PS_PER_SEC / 2);
        assert_conserved(&sim, &format!("{what} at step {k}"));
    }
    let r = sim.finish();
    let s = &r.summary;
    assert_eq!(s.sent, s.delivered + s.dropped + s.in_flight);
    assert!(s.drops + s.marks > 0, "{what}: no congestion signal");
    assert!(s.utilization > 0.8 && s.utilization <= 1.0 + 1e-9, "{what}: {}", s.utilization);
    r
}

/// Cases per property test: `PROPTEST_CASES` when set (a long run, `docs/robustness.md`), else `default`
/// (kept small for CI).
#[allow(dead_code)]
pub fn cases(default: u32) -> u32 {
    std::env::var("PROPTEST_CASES").ok().and_then(|v| v.parse().ok()).unwrap_or(default)
}
