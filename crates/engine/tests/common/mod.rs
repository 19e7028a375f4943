//! Checks shared by the whole-simulation tests.

use bufferlab_engine::Simulation;

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

/// Cases per property test: `PROPTEST_CASES` when set (a long run, `docs/robustness.md`), else `default`
/// (kept small for CI).
#[allow(dead_code)]
pub fn cases(default: u32) -> u32 {
    std::env::var("PROPTEST_CASES").ok().and_then(|v| v.parse().ok()).unwrap_or(default)
}
