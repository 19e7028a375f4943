//! `tcp.handshake`: a SYN / SYN-ACK exchange before the first data segment (RFC 9293 §3.5), as ns-3 does.

use bufferlab_engine::results::Results;
use bufferlab_engine::run_json;

fn run(body: &str, handshake: bool) -> Results {
    let json = format!(r#"{{"seed": 1, {body}, "tcp": {{"handshake": {handshake}, "min_rto": "1s"}}}}"#);
    run_json(&json).unwrap()
}

#[test]
fn a_finite_flow_on_an_empty_path_takes_one_round_trip_longer() {
    let body = r#""duration": "5s", "warmup": "0s",
        "bottleneck": {"rate": "10Mbps", "delay": "10ms", "queue": {"discipline": "droptail", "limit": 100}},
        "flows": {"count": 1, "rtt": "100ms", "access_rate": "1Gbps", "size": "20kB"}"#;
    let (plain, shaken) = (run(body, false), run(body, true));
    let (a, b) = (plain.flows[0].fct_s.unwrap(), shaken.flows[0].fct_s.unwrap());
    // One RTT, plus the SYN's and SYN-ACK's own serialization (40 bytes each: 32 us at 10 Mb/s).
    assert!((b - a - 0.1).abs() < 1e-4, "fct {a} s without, {b} s with the handshake");
    assert_eq!(shaken.flows[0].tcp.sent, plain.flows[0].tcp.sent + 1, "the SYN is sent");
    // The handshake's RTT sample seeds the estimator: the SYN crossed an empty path.
    assert!(shaken.flows[0].srtt_s.unwrap() < 0.11);
}

#[test]
fn lost_syns_are_resent_after_the_initial_rto_without_a_congestion_signal() {
    // Twenty SYNs reach a two-packet buffer at once: most are dropped. At 0.9 s no resend is due yet.
    let body = |duration: &str| {
        format!(
            r#""duration": "{duration}", "warmup": "0s",
            "bottleneck": {{"rate": "10Mbps", "delay": "10ms", "queue": {{"discipline": "droptail", "limit": 2}}}},
            "flows": {{"count": 20, "rtt": "50ms", "access_rate": "100Mbps", "start": "0s"}}"#
        )
    };
    let early = run(&body("0.9s"), true);
    let waiting: Vec<_> = early.flows.iter().filter(|f| f.tcp.sent == 1).collect();
    assert!(waiting.len() >= 15, "{} flows still waiting for a SYN-ACK", waiting.len());
    for f in &waiting {
        assert_eq!((f.tcp.timeouts, f.tcp.retransmits, f.goodput_bps), (0, 0, 0.0));
    }
    let s = &early.summary;
    assert_eq!(s.sent, s.delivered + s.dropped + s.in_flight);
    // By 1.1 s each of them has resent its SYN once (1 s timer).
    let later = run(&body("1.1s"), true);
    for f in waiting {
        let g = &later.flows[f.flow as usize];
        assert!(g.tcp.retransmits >= 1 && g.tcp.timeouts == 0, "flow {}: {:?}", f.flow, g.tcp);
    }
    let s = &later.summary;
    assert_eq!(s.sent, s.delivered + s.dropped + s.in_flight);
}

#[test]
fn the_handshake_is_deterministic_and_conserves_packets_on_a_queued_ack_route() {
    let body = r#""duration": "20s", "warmup": "5s",
        "links": [
            {"name": "fwd", "rate": "10Mbps", "delay": "5ms", "queue": {"discipline": "droptail", "limit": 20}},
            {"name": "back", "rate": "10Mbps", "delay": "5ms", "queue": {"discipline": "droptail", "limit": 20}}],
        "flows": [{"count": 5, "rtt": "40ms", "route": ["fwd"], "ack_route": ["back"],
                   "start": {"uniform": ["0s", "1s"]}},
                  {"count": 5, "rtt": "40ms", "route": ["back"], "ack_route": ["fwd"],
                   "start": {"uniform": ["0s", "1s"]}}]"#;
    let (a, b) = (run(body, true), run(body, true));
    assert_eq!(a.flows, b.flows);
    let s = &a.summary;
    assert_eq!(s.sent, s.delivered + s.dropped + s.in_flight);
    assert!(a.flows.iter().all(|f| f.goodput_bps > 0.0));
    assert_ne!(a.flows, run(body, false).flows);
}
