//! Checks shared by the whole-simulation tests.

use bufferlab_engine::results::Results;
use bufferlab_engine::time::PS_PER_SEC;
use bufferlab_engine::{config_from_json, Simulation};

/// Packet conservation now: over the network (sent = delivered + dropped + in flight), at every port
/// (arrivals = departures + drops + held), and for every group's data and queued ACKs.
pub fn assert_conserved(s: &Simulation, what: &str) {
    let (sent, delivered, dropped, in_flight) = s.conservation();
    assert_eq!(sent, delivered + dropped + in_flight, "{what}: network");
    for p in 0..s.config().network.links.len() {
        let (t, held) = s.port_conservation(p);
        assert_eq!(t.arrivals, t.departures + t.drops + held, "{what}: port {p}");
    }
    for g in 0..s.config().groups.len() {
        let c = s.group_conservation(g);
        let (sent, delivered, dropped, in_net) = c.data;
        assert_eq!(sent, delivered + dropped + in_net, "{what}: group {g} data");
        let (sent, delivered, dropped, in_net) = c.acks;
        assert_eq!(sent, delivered + dropped + in_net, "{what}: group {g} ACKs");
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
