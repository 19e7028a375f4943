//! Global Notifier in whole simulations (Tsioliaridou & Tsaoussidis, note §2.1): conservation, no early
//! drops, and the notification reaches more flows sooner than RED's.

use bufferlab_engine::{config_from_json, run_json, Simulation};

fn scenario(queue: &str, duration: &str) -> String {
    format!(
        r#"{{"seed": 2, "duration": "{duration}",
            "bottleneck": {{"rate": "20Mbps", "delay": "5ms", "queue": {queue}}},
            "tcp": {{"ecn": true}},
            "flows": [{{"name": "reno", "count": 100, "rtt": {{"uniform": ["40ms", "120ms"]}}, "start": {{"uniform": ["0s", "1s"]}}}},
                      {{"name": "gentle", "count": 100, "rtt": {{"uniform": ["40ms", "120ms"]}}, "start": {{"uniform": ["0s", "1s"]}},
                        "tcp": {{"congestion_control": {{"kind": "aimd", "increase": 0.9, "decrease": 0.675, "reduce_from": "cwnd"}}}}}}]}}"#
    )
}

const GN: &str = r#"{"discipline": "global-notifier", "limit": 200, "min_th": 40, "max_th": 60}"#;
const RED_ECN: &str = r#"{"discipline": "red", "limit": 200, "min_th": 40, "max_th": 60, "ecn": true}"#;

#[test]
fn conserves_packets_and_never_drops_early() {
    let mut sim = Simulation::new(config_from_json(&scenario(GN, "20s")).unwrap()).unwrap();
    for k in 1..=40 {
        sim.run_until(k * 500_000_000_000);
        let (sent, delivered, dropped, in_flight) = sim.conservation();
        assert_eq!(sent, delivered + dropped + in_flight, "at step {k}");
    }
    let r = sim.finish();
    let port = &r.ports[0];
    assert_eq!(port.discipline, "global-notifier");
    assert!(port.mark_reasons["notify"] > 0);
    assert!(!port.drop_reasons.contains_key("early"), "{:?}", port.drop_reasons);
    assert_eq!(port.marks, r.flows.iter().map(|f| f.marks).sum::<u64>());
    assert!(r.summary.utilization > 0.9, "{}", r.summary.utilization);
}

#[test]
fn notifies_more_flows_sooner_than_red() {
    // The same RED average and probability: RED/ECN marks the arrival, GN the arrival and the buffer. After
    // 3 s (flows start within the first second) GN has reached more of the 200 flows, with several times
    // the marks.
    let notified = |queue: &str| {
        let r = run_json(&scenario(queue, "3s")).unwrap();
        (r.flows.iter().filter(|f| f.marks > 0).count(), r.summary.marks)
    };
    let (gn_flows, gn_marks) = notified(GN);
    let (red_flows, red_marks) = notified(RED_ECN);
    assert!(gn_flows > red_flows + red_flows / 10, "GN {gn_flows} flows, RED {red_flows}");
    assert!(gn_marks > 2 * red_marks, "GN {gn_marks} marks, RED {red_marks}");
}
