//! Global Notifier in whole simulations (Tsioliaridou & Tsaoussidis, note §2.1): conservation, no early
//! drops, and the notification reaches more flows sooner than RED's.

mod common;

use bufferlab_engine::{config_from_json, run_json, Simulation};
use common::assert_conserved;

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
        assert_conserved(&sim, &format!("at step {k}"));
    }
    let r = sim.finish();
    let port = &r.ports[0];
    assert_eq!(port.discipline, "global-notifier");
    assert!(port.mark_reasons["notify"] > 0);
    assert!(!port.drop_reasons.contains_key("early"), "{:?}", port.drop_reasons);
    assert_eq!(port.marks, r.flows.iter().map(|f| f.marks).sum::<u64>());
    assert!(r.summary.utilization > 0.9, "{}", r.summary.utilization);
    // The per-firing counts: every notify mark belongs to one firing, and a firing marks several flows.
    let st = &port.queue_state;
    let events = st["notify_events"];
    assert!(events > 0.0);
    let marked = (st["notify_packets_mean"] * events).round() as u64;
    assert_eq!(marked, port.mark_reasons["notify"]);
    assert!(st["notify_flows_max"] >= 2.0 && st["notify_flows_max"] <= 200.0, "{st:?}");
    assert!(st["notify_flows_mean"] <= st["notify_packets_mean"]);
    assert!(st["notify_flows_max"] <= st["notify_packets_max"]);
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

#[test]
fn per_signal_ecn_response_reduces_on_every_mark() {
    // Under GN a flow often has several packets marked by one firing: once per RTT it reduces once, per
    // signal once per marked packet. Its window is smaller, so it also sees fewer marks in all.
    let once = run_json(&scenario(GN, "10s")).unwrap();
    let per = run_json(
        &scenario(GN, "10s").replace(r#""ecn": true"#, r#""ecn": true, "ecn_response": "per-signal""#),
    )
    .unwrap();
    let reductions =
        |r: &bufferlab_engine::Results| r.flows.iter().map(|f| f.tcp.ecn_reductions).sum::<u64>();
    let marks = |r: &bufferlab_engine::Results| r.flows.iter().map(|f| f.marks).sum::<u64>();
    assert!(reductions(&once) < marks(&once) / 2, "{} reductions, {} marks", reductions(&once), marks(&once));
    assert!(reductions(&per) > 2 * reductions(&once), "{} against {}", reductions(&per), reductions(&once));
    assert_eq!(per.summary.sent, per.summary.delivered + per.summary.dropped + per.summary.in_flight);
}

#[test]
fn bad_settings_name_the_field() {
    let field = |text: String| config_from_json(&text).unwrap_err().field;
    let s = scenario(GN, "10s");
    assert_eq!(
        field(s.replace(r#""ecn": true"#, r#""ecn": true, "ecn_response": "often""#)),
        "tcp.ecn_response"
    );
    assert_eq!(field(s.replace(r#""ecn": true"#, r#""ecn": false"#)), "bottleneck.queue.not_ect");
    assert_eq!(field(s.replace(r#""min_th": 40"#, r#""min_th": 70"#)), "bottleneck.queue.max_th");
    assert_eq!(
        field(s.replace(r#""max_th": 60"#, r#""max_th": 60, "not_ect": "mark""#)),
        "bottleneck.queue.not_ect"
    );
    assert_eq!(
        field(s.replace(r#""max_th": 60"#, r#""max_th": 60, "count": "always""#)),
        "bottleneck.queue.count"
    );
    assert_eq!(
        field(s.replace(r#""reduce_from": "cwnd""#, r#""reduce_from": "cwnd", "ns2_halving": 1"#)),
        "flows[1].tcp.congestion_control.ns2_halving"
    );
    // The resolved scenario records the settings.
    let c = config_from_json(
        &s.replace(r#""reduce_from": "cwnd""#, r#""reduce_from": "cwnd", "ns2_halving": true"#),
    )
    .unwrap();
    let json = c.to_json();
    assert_eq!(json["groups"][1]["tcp"]["ecn_response"], "once-per-rtt");
    assert_eq!(json["groups"][1]["congestion_control"]["ns2_halving"], true);
    assert_eq!(json["links"][0]["queue"]["not_ect"], "pass");
    assert_eq!(json["links"][0]["queue"]["forced_drop"], true);
}
