//! Whole simulations of DCTCP (RFC 8257) through step marking: conservation, the queue held near K where
//! NewReno through DropTail fills the buffer, and RED with `min_th = max_th = K`, `weight = 1` as the same
//! marking as the `step` discipline.

mod common;

use bufferlab_engine::run_json;
use common::run_conserving;

/// `flows` DCTCP flows (1500-byte packets, delayed ACKs as `delayed_ack`) through a 1 Gb/s port with
/// `queue`, RTT 200 us, access links at 10 Gb/s.
fn scenario(queue: &str, cc: &str, flows: u32, delayed_ack: bool, duration: &str) -> String {
    format!(
        r#"{{"seed": 3, "duration": "{duration}", "warmup": "0.2s",
            "bottleneck": {{"rate": "1Gbps", "delay": "20us", "queue": {queue}}},
            "flows": {{"count": {flows}, "rtt": "200us", "access_rate": "10Gbps",
                       "start": {{"uniform": ["0s", "5ms"]}}}},
            "tcp": {{"congestion_control": {cc}, "ecn": true, "packet_size": "1500B",
                     "delayed_ack": {delayed_ack}, "delayed_ack_timeout": "1ms",
                     "min_rto": "10ms", "initial_rto": "10ms"}}}}"#
    )
}

const STEP: &str = r#"{"discipline": "step", "threshold": 20, "limit": 300}"#;

#[test]
fn dctcp_conserves_packets_through_step_marking() {
    for delayed_ack in [false, true] {
        let what = format!("dctcp delayed_ack={delayed_ack}");
        let r = run_conserving(&scenario(STEP, r#""dctcp""#, 8, delayed_ack, "2s"), 4, &what);
        assert_eq!(r.summary.drops, 0, "{what}: marks alone hold the queue");
        assert!(r.summary.marks > 1000, "{what}");
    }
}

#[test]
fn dctcp_holds_the_queue_near_k_where_newreno_fills_the_buffer() {
    let port =
        |queue: &str, cc: &str| run_json(&scenario(queue, cc, 8, true, "1.5s")).unwrap().ports.remove(0);
    let dctcp = port(STEP, r#""dctcp""#);
    let newreno = port(r#"{"discipline": "droptail", "limit": 300}"#, r#""newreno""#);
    eprintln!(
        "dctcp: queue {:.1} pkts, utilization {:.4}, marks {}; newreno/droptail: queue {:.1}, drops {}",
        dctcp.queue_mean_pkts, dctcp.utilization, dctcp.marks, newreno.queue_mean_pkts, newreno.drops
    );
    assert!(dctcp.utilization > 0.99, "{}", dctcp.utilization);
    assert!(dctcp.queue_mean_pkts > 10.0 && dctcp.queue_mean_pkts < 30.0, "{}", dctcp.queue_mean_pkts);
    assert_eq!(dctcp.drops, 0);
    assert!(newreno.queue_mean_pkts > 150.0, "{}", newreno.queue_mean_pkts);
    // NewReno through the same step marking (RFC 3168: halve once per window) keeps less in the queue
    // and a smaller share of the link busy at this small K than DCTCP's proportional cuts.
    let reno_step = port(STEP, r#""newreno""#);
    assert!(reno_step.queue_mean_pkts < dctcp.queue_mean_pkts, "{}", reno_step.queue_mean_pkts);
}

/// ns-3's spelling of DCTCP's marking (RED, `MinTh = MaxTh = K`, `QW = 1`, no gentle region, no hard drops)
/// gives the same run as `step` with K = 20, flow by flow.
#[test]
fn red_with_equal_thresholds_and_weight_one_is_step_marking() {
    let red = r#"{"discipline": "red", "limit": 300, "min_th": 20, "max_th": 20, "weight": 1,
                  "gentle": false, "ecn": true, "hard_drop": false}"#;
    for delayed_ack in [false, true] {
        let a = run_json(&scenario(STEP, r#""dctcp""#, 8, delayed_ack, "1s")).unwrap();
        let b = run_json(&scenario(red, r#""dctcp""#, 8, delayed_ack, "1s")).unwrap();
        assert_eq!(serde_json::to_value(&a.flows).unwrap(), serde_json::to_value(&b.flows).unwrap());
        let (p, q) = (&a.ports[0], &b.ports[0]);
        assert!(p.marks > 1000);
        assert_eq!((p.arrivals, p.drops, p.marks), (q.arrivals, q.drops, q.marks));
        assert_eq!((p.queue_mean_pkts, p.delay_mean_s), (q.queue_mean_pkts, q.delay_mean_s));
        assert_eq!(p.mark_reasons["threshold"], q.mark_reasons["forced"]);
    }
    // With hard drops (the default), RED's forced decisions drop instead.
    let hard = red.replace(r#", "hard_drop": false"#, "");
    let r = run_json(&scenario(&hard, r#""dctcp""#, 8, false, "1s")).unwrap();
    assert!(r.ports[0].drop_reasons["forced"] > 0 && r.ports[0].marks == 0);
}

#[test]
fn dctcp_needs_ecn_and_once_per_window_reductions() {
    let no_ecn = scenario(STEP, r#""dctcp""#, 2, false, "1s").replace(r#""ecn": true"#, r#""ecn": false"#);
    let e = run_json(&no_ecn).unwrap_err();
    assert_eq!(e.field, "tcp.ecn", "{e}");
    let per_signal = scenario(STEP, r#""dctcp""#, 2, false, "1s")
        .replace(r#""ecn": true"#, r#""ecn": true, "ecn_response": "per-signal""#);
    let e = run_json(&per_signal).unwrap_err();
    assert_eq!(e.field, "tcp.ecn_response", "{e}");
    assert!(e.message.contains("once-per-rtt"), "{e}");
}
