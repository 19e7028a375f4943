//! Flows locked out of a tiny DropTail buffer for a whole run, and what fixed them (issue "Fidelity v2"):
//! an RTT sample timed across a repaired hole (srtt grew with every backed-off RTO), and NewReno's full ACK
//! releasing an ssthresh computed from a FlightSize swollen by a long recovery.

use bufferlab_engine::results::Results;
use bufferlab_engine::run_json;

/// Seven SACK flows, 40 ms RTT, through 5 Mb/s with a 7-packet buffer (about 30 % of the BDP).
fn tiny_seven(seed: u64, overhead: &str) -> Results {
    run_json(&format!(
        r#"{{"seed": {seed}, "duration": "120s", "warmup": "20s",
            "bottleneck": {{"rate": "5Mbps", "delay": "1ms", "queue": {{"discipline": "droptail", "limit": 7}}}},
            "flows": {{"count": 7, "rtt": "40ms", "access_rate": "50Mbps", "start": {{"uniform": ["0s", "1s"]}}}},
            "tcp": {{"packet_size": "1042B", "header_size": "42B", "min_rto": "1s", "sack": true,
                     "ssthresh_from": "pipe", "rto_backoff": "new-ack", "overhead": "{overhead}"}}}}"#
    ))
    .unwrap()
}

#[test]
fn no_flow_is_locked_out_of_the_seven_flow_tiny_buffer() {
    // Seed 11 used to leave one flow with no goodput at all (8 timeouts, srtt 7.3 s).
    for seed in [3, 11] {
        let r = tiny_seven(seed, "0s");
        for f in &r.flows {
            assert!(f.goodput_bps > 0.4e6, "seed {seed} flow {}: {} b/s", f.flow, f.goodput_bps);
            assert!(f.srtt_s.unwrap() < 0.1, "seed {seed} flow {}: srtt {:?}", f.flow, f.srtt_s);
        }
    }
}

#[test]
fn overhead_is_reproducible_and_changes_the_timing() {
    let a = tiny_seven(3, "1ms");
    let b = tiny_seven(3, "1ms");
    assert_eq!(a.summary.delivered, b.summary.delivered);
    assert_eq!(a.flows, b.flows);
    let none = tiny_seven(3, "0s");
    assert_ne!(a.summary.delivered, none.summary.delivered);
    assert_eq!(a.summary.sent, a.summary.delivered + a.summary.dropped + a.summary.in_flight);
}

/// Two NewReno flows without SACK, 1.5 Mb/s, 40 ms RTT, 576-byte packets, a 13-packet buffer.
fn two_newreno(seed: u64, full_ack: &str) -> Results {
    run_json(&format!(
        r#"{{"seed": {seed}, "duration": "330s", "warmup": "30s",
            "bottleneck": {{"rate": "1500kbps", "delay": "5ms", "queue": {{"discipline": "droptail", "limit": 13}}}},
            "flows": {{"count": 2, "rtt": "40ms", "access_rate": "10Mbps", "start": {{"uniform": ["0s", "1s"]}}}},
            "tcp": {{"packet_size": "576B", "header_size": "40B", "sack": false, "full_ack": "{full_ack}"}}}}"#
    ))
    .unwrap()
}

#[test]
fn newreno_without_sack_shares_a_thirteen_packet_buffer() {
    for seed in 1..=5 {
        let r = two_newreno(seed, "flight");
        let share: Vec<f64> = r.flows.iter().map(|f| f.goodput_bps / r.summary.goodput_bps).collect();
        assert!(share.iter().all(|&s| s > 0.4), "seed {seed}: shares {share:?}");
    }
    // Option (2) of RFC 6582 §3.2 step 6 reproduces the lockout: one flow starved for the whole run.
    let r = two_newreno(1, "ssthresh");
    let least = r.flows.iter().map(|f| f.goodput_bps).fold(f64::MAX, f64::min);
    assert!(least < 0.01 * r.summary.goodput_bps, "{least}");
}

#[test]
fn overhead_holds_each_packet_at_its_sender() {
    // One window-limited flow (20 packets, 100 ms): packets held up to 20 ms each, in order, stretch the
    // round trip by the mean hold (10 ms) and a little more for the order kept.
    let run = |overhead: &str| {
        run_json(&format!(
            r#"{{"seed": 3, "duration": "20s", "warmup": "2s",
                "bottleneck": {{"rate": "100Mbps", "delay": "5ms", "queue": {{"discipline": "droptail", "limit": 100}}}},
                "flows": {{"count": 1, "rtt": "100ms"}}, "tcp": {{"max_window": 20, "overhead": "{overhead}"}}}}"#
        ))
        .unwrap()
    };
    let plain = run("0s").flows[0].srtt_s.unwrap();
    let held = run("20ms").flows[0].srtt_s.unwrap();
    assert!((plain - 0.1001).abs() < 1e-3, "{plain}");
    assert!(held - plain > 0.010 && held - plain < 0.016, "{plain} {held}");
}
