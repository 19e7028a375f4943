//! Whole-simulation checks: determinism, conservation, and throughput against closed forms.

mod common;

use bufferlab_engine::{config_from_json, run_json, Simulation};
use common::assert_conserved;

fn scenario(queue: &str, extra_tcp: &str, flows: u32, duration: &str) -> String {
    format!(
        r#"{{"seed": 3, "duration": "{duration}", "warmup": "2s",
            "bottleneck": {{"rate": "10Mbps", "delay": "5ms", "queue": {queue}}},
            "flows": {{"count": {flows}, "rtt": {{"uniform": ["40ms", "120ms"]}}, "start": {{"uniform": ["0s", "1s"]}},
                       "stop": {{"uniform": ["15s", "30s"]}}}},
            "tcp": {{{extra_tcp}}}}}"#
    )
}

const DROPTAIL: &str = r#"{"discipline": "droptail", "limit": 40}"#;
const RED_ECN: &str = r#"{"discipline": "red", "limit": 100, "min_th": 10, "max_th": 30, "ecn": true}"#;
const RED_DROP: &str = r#"{"discipline": "red", "limit": 100, "min_th": 10, "max_th": 30, "gentle": false}"#;

#[test]
fn same_seed_same_results() {
    let s = scenario(RED_DROP, r#""delayed_ack": true"#, 20, "10s");
    assert_eq!(run_json(&s).unwrap(), run_json(&s).unwrap());
    let other = s.replace(r#""seed": 3"#, r#""seed": 4"#);
    assert_ne!(run_json(&s).unwrap().summary, run_json(&other).unwrap().summary);
}

#[test]
fn packets_are_conserved_at_every_step() {
    for (queue, tcp) in [
        (DROPTAIL, r#""sack": true"#),
        (DROPTAIL, r#""sack": false"#),
        (RED_ECN, r#""ecn": true, "delayed_ack": true"#),
        (RED_DROP, r#""sack": false, "delayed_ack": true"#),
        (DROPTAIL, r#""recovery": "reno", "sack": false"#),
        (RED_DROP, r#""recovery": "reno", "delayed_ack": true"#),
    ] {
        let mut sim = Simulation::new(config_from_json(&scenario(queue, tcp, 30, "20s")).unwrap()).unwrap();
        for k in 1..=40 {
            sim.run_until(k * 500_000_000_000);
            assert_conserved(&sim, &format!("{queue} {tcp} at step {k}"));
        }
        let r = sim.finish();
        let s = &r.summary;
        assert_eq!(s.sent, s.delivered + s.dropped + s.in_flight);
        assert!(s.drops + s.marks > 0, "{queue} {tcp}: no congestion signal at all");
        assert!(s.utilization > 0.5 && s.utilization <= 1.0 + 1e-9, "{queue} {tcp}: {}", s.utilization);
    }
}

#[test]
fn single_flow_reaches_the_window_limit_or_the_link_rate() {
    // W_max = 20 segments per 100 ms RTT = 200 packets/s = 1.6 Mb/s of 10 Mb/s (plus serialization in the RTT).
    let limited = r#"{"duration": "30s", "warmup": "5s",
        "bottleneck": {"rate": "10Mbps", "delay": "5ms", "queue": {"discipline": "droptail", "limit": 1000}},
        "flows": {"count": 1, "rtt": "100ms"}, "tcp": {"max_window": 20}}"#;
    let r = run_json(limited).unwrap();
    let rtt = 0.1 + 1000.0 * 8.0 / 1e9 + 1000.0 * 8.0 / 10e6 + 2.0 * 40.0 * 8.0 / 10e6;
    let expect = 20.0 * 1000.0 * 8.0 / rtt / 10e6;
    assert!((r.summary.utilization - expect).abs() / expect < 0.01, "{} vs {expect}", r.summary.utilization);
    assert_eq!(r.summary.drops, 0);
    // Unlimited window, buffer above the BDP (125 packets): the link stays busy once slow start ends.
    let open = limited.replace(r#""max_window": 20"#, r#""sack": true"#);
    let r = run_json(&open).unwrap();
    assert!(r.summary.utilization > 0.99, "{}", r.summary.utilization);
}

#[test]
fn memory_does_not_grow_with_time() {
    // Statistics stream and pipes only hold packets in flight, so the event heap (a few entries per flow:
    // pipe heads, timers, and timer events superseded by an earlier deadline, at most one per backoff
    // level) is as large late in a long run as early on.
    let long = r#"{"seed": 5, "duration": "200s", "warmup": "2s",
        "bottleneck": {"rate": "10Mbps", "delay": "5ms", "queue": {"discipline": "droptail", "limit": 20}},
        "flows": {"count": 10, "rtt": {"uniform": ["40ms", "120ms"]}, "start": {"uniform": ["0s", "1s"]}}}"#;
    let mut sim = Simulation::new(config_from_json(long).unwrap()).unwrap();
    let (mut first_half, mut second_half) = (0, 0);
    for k in 1..=200 {
        sim.run_until(k * 1_000_000_000_000);
        let peak = if k <= 100 { &mut first_half } else { &mut second_half };
        *peak = (*peak).max(sim.pending_events());
    }
    assert!(first_half <= 10 * 12 + 8, "event heap: {first_half}");
    assert!(second_half <= first_half + 10, "event heap grew: {first_half} then {second_half}");
}
