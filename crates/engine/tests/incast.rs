//! Incast: `count` senders answer each request together through one switch port. The classic goodput
//! collapse as the senders grow (the synchronized responses overflow a shallow buffer and wait out the
//! minimum RTO), and its cures: a deeper buffer, or DCTCP through step marking on persistent connections.

mod common;

use bufferlab_engine::results::{GroupResult, Results};
use bufferlab_engine::run_json;
use bufferlab_engine::time::PS_PER_SEC;
use bufferlab_engine::{config_from_json, Simulation};
use common::assert_conserved;

/// Run `scenario` in half-second steps, checking conservation after each.
fn run_conserving(scenario: &str, what: &str) -> Results {
    let mut sim = Simulation::new(config_from_json(scenario).unwrap()).unwrap();
    for k in 1..=20 {
        sim.run_until(k * PS_PER_SEC / 2);
        assert_conserved(&sim, &format!("{what} at step {k}"));
    }
    sim.finish()
}

/// `senders` servers answer 32 KB each per request through a 1 Gb/s port with `queue`, RTT 100 us, 200 ms
/// minimum RTO, 1500-byte packets.
fn scenario(senders: u32, queue: &str, tcp: &str, rounds: u32) -> String {
    format!(
        r#"{{"seed": 1, "duration": "10s", "warmup": "0s",
            "bottleneck": {{"rate": "1Gbps", "delay": "10us", "queue": {queue}}},
            "flows": {{"count": {senders}, "size": "32KB", "rtt": "100us", "access_rate": "1Gbps",
                       "incast": {{"rounds": {rounds}}}}},
            "tcp": {{"packet_size": "1500B", "min_rto": "200ms"{tcp}}}}}"#
    )
}

const SHALLOW: &str = r#"{"discipline": "droptail", "limit": 64}"#;
const DEEP: &str = r#"{"discipline": "droptail", "limit": 1000}"#;
const STEP: &str = r#"{"discipline": "step", "threshold": 20, "limit": 64}"#;
const DCTCP: &str = r#", "congestion_control": "dctcp", "ecn": true"#;

fn incast(r: &Results) -> &GroupResult {
    &r.groups[0]
}

#[test]
fn goodput_collapses_as_senders_grow_behind_a_shallow_buffer() {
    let few = run_json(&scenario(2, SHALLOW, "", 20)).unwrap();
    let many = run_json(&scenario(32, SHALLOW, "", 20)).unwrap();
    let (few, many) = (incast(&few), incast(&many));
    eprintln!(
        "2 senders: RCT p50 {:.4} s, {:.3e} b/s; 32 senders: RCT p50 {:.4} s, {:.3e} b/s, {} timeouts",
        few.rct_p50_s.unwrap(),
        few.incast_goodput_bps.unwrap(),
        many.rct_p50_s.unwrap(),
        many.incast_goodput_bps.unwrap(),
        many.tcp.timeouts
    );
    // 64 KB at 1 Gb/s takes about 0.6 ms and fits the buffer; 1 MB about 8.4 ms, but it overflows the
    // buffer and the losses cost a 200 ms timeout.
    assert!(few.rct_max_s.unwrap() < 0.005, "{:?}", few.rct_max_s);
    assert!(many.rct_p50_s.unwrap() > 0.2, "{:?}", many.rct_p50_s);
    assert!(few.incast_goodput_bps.unwrap() > 5.0 * many.incast_goodput_bps.unwrap());
    assert_eq!((few.incast_rounds, many.incast_rounds), (Some(20), Some(20)));
    assert_eq!((few.flows_started, many.flows_started), (40, 640));
}

#[test]
fn a_deep_buffer_or_dctcp_cures_it() {
    for (what, queue, tcp) in [("deep buffer", DEEP, ""), ("dctcp", STEP, DCTCP)] {
        let r = run_json(&scenario(32, queue, tcp, 40)).unwrap();
        let g = incast(&r);
        eprintln!("{what}: RCT p50 {:.4} s, max {:.4} s", g.rct_p50_s.unwrap(), g.rct_max_s.unwrap());
        // 1 MB per request at 1 Gb/s: about 8.4 ms of transmission.
        assert!(g.rct_p50_s.unwrap() < 0.012, "{what}: {:?}", g.rct_p50_s);
        assert!(g.incast_goodput_bps.unwrap() > 0.5e9 || what == "dctcp", "{what}");
    }
    // DCTCP's cure needs the connection's state: new connections start every response from the initial
    // window (32 x 10 packets into 64 slots) and lose it.
    let new =
        scenario(32, STEP, DCTCP, 10).replace(r#""rounds": 10"#, r#""rounds": 10, "connections": "new""#);
    let r = run_json(&new).unwrap();
    assert!(incast(&r).rct_p50_s.unwrap() > 0.2, "{:?}", incast(&r).rct_p50_s);
}

#[test]
fn incast_rounds_conserve_packets_and_reuse_connections() {
    let r = run_conserving(&scenario(16, SHALLOW, "", 30), "incast");
    let g = incast(&r);
    assert_eq!(g.flows_started, 16 * 30);
    assert_eq!(g.flows_completed, 16 * 30);
    assert_eq!(g.incast_rounds, Some(30));
    assert!(r.flows.is_empty(), "incast senders have no fixed-flow rows");
    // Every response's FCT is counted; the round's completion time is its slowest response's.
    assert_eq!(g.fct_count, 16 * 30);
    assert!(g.rct_mean_s.unwrap() >= g.fct_mean_s.unwrap());
    let new =
        scenario(16, SHALLOW, "", 30).replace(r#""rounds": 30"#, r#""rounds": 30, "connections": "new""#);
    let r = run_conserving(&new, "incast, new connections");
    assert_eq!(incast(&r).flows_completed, 16 * 30);
}

#[test]
fn incast_needs_sizes_and_rounds_and_takes_no_start() {
    let field = |s: String| run_json(&s).unwrap_err().field;
    let base = scenario(4, SHALLOW, "", 5);
    assert_eq!(field(base.replace(r#""size": "32KB", "#, "")), "flows.size");
    assert_eq!(field(base.replace(r#""rounds": 5"#, r#""rounds": 0"#)), "flows.incast.rounds");
    assert_eq!(field(base.replace(r#""rounds": 5"#, r#""rounds": 5, "gap": "-1s""#)), "flows.incast.gap");
    assert_eq!(field(base.replace(r#""access_rate""#, r#""start": "0s", "access_rate""#)), "flows.start");
    assert_eq!(
        field(base.replace(r#""rounds": 5"#, r#""rounds": 5, "connections": "udp""#)),
        "flows.incast.connections"
    );
    // Groups without incast have no round statistics.
    let plain = run_json(&base.replace(r#""incast": {"rounds": 5}"#, r#""start": "0s""#)).unwrap();
    assert_eq!(plain.groups[0].incast_rounds, None);
}
