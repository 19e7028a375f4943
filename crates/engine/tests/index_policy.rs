//! The index policy in whole simulations (Avrachenkov et al. 2013, note §3.2): two users through a
//! 1,500 kb/s bottleneck with 576-byte packets (the note's inference from Table 1: base RTT 40 ms, BDP
//! ≈ 13 packets), a 13-packet buffer, Whittle-index senders (α = 1, β = 0.99, N = 30, normalised reward).

mod common;

use bufferlab_engine::{config_from_json, run_json, Results, Simulation};
use common::assert_conserved;

// bufferlab.models.whittle.index_table(30, 1.0, 0.99, gamma), rounded to 6 decimals.
const NU_0_0: &str = "[0.693147, 0.50168, 0.395038, 0.326624, 0.278843, 0.243513, 0.216291, 0.194654, 0.177031, 0.162394, 0.150037, 0.139463, 0.130311, 0.122309, 0.115253, 0.108984, 0.103376, 0.098329, 0.093763, 0.089612, 0.085821, 0.082346, 0.079148, 0.076196, 0.073461, 0.070922, 0.068556, 0.066348, 0.064282, 0.062344]";
const NU_0_5: &str = "[0.693147, 0.50168, 0.348298, 0.33532, 0.240776, 0.246952, 0.185299, 0.194377, 0.150244, 0.159878, 0.126108, 0.135442, 0.108499, 0.117225, 0.095104, 0.103131, 0.084583, 0.091915, 0.07611, 0.082788, 0.069145, 0.075223, 0.063323, 0.068858, 0.058387, 0.063419, 0.054532, 0.058713, 0.05454, 0.054629]";
const NU_0_9: &str = "[0.693147, 0.408313, 0.292812, 0.230103, 0.190785, 0.179209, 0.179251, 0.179386, 0.179658, 0.201843, 0.098252, 0.090968, 0.090369, 0.090386, 0.09042, 0.090485, 0.09058, 0.090718, 0.096379, 0.11122, 0.076909, 0.076953, 0.077002, 0.077055, 0.077155, 0.077263, 0.077378, 0.077542, 0.077718, 0.077903]";

fn scenario(queue: &str, user1: (f64, &str), rtt1: &str) -> String {
    let cc =
        |g: f64, t: &str| format!(r#"{{"kind": "whittle", "gamma": {g}, "max_window": 30, "index": {t}}}"#);
    format!(
        r#"{{"seed": 1, "duration": "300s", "warmup": "20s",
            "bottleneck": {{"rate": "1500kbps", "delay": "10ms", "queue": {queue}}},
            "tcp": {{"packet_size": "576B", "initial_window": 1}},
            "flows": [{{"name": "user1", "count": 1, "rtt": "{rtt1}", "access_rate": "10Mbps", "start": "0s",
                        "tcp": {{"congestion_control": {c1}}}}},
                      {{"name": "user2", "count": 1, "rtt": "40ms", "access_rate": "10Mbps", "start": "0.1s",
                        "tcp": {{"congestion_control": {c2}}}}}]}}"#,
        c1 = cc(user1.0, user1.1),
        c2 = cc(0.5, NU_0_5)
    )
}

const DROPTAIL: &str = r#"{"discipline": "droptail", "limit": 13}"#;
const INDEX: &str = r#"{"discipline": "index", "limit": 13}"#;

fn share(r: &Results) -> f64 {
    r.groups[0].goodput_bps / (r.groups[0].goodput_bps + r.groups[1].goodput_bps)
}

#[test]
fn conserves_packets_and_drops_by_index() {
    let mut sim =
        Simulation::new(config_from_json(&scenario(INDEX, (0.0, NU_0_0), "40ms")).unwrap()).unwrap();
    for k in 1..=30 {
        sim.run_until(k * 10_000_000_000_000);
        assert_conserved(&sim, &format!("at step {k}"));
    }
    let r = sim.finish();
    let port = &r.ports[0];
    assert_eq!(port.discipline, "index");
    assert_eq!(port.drop_reasons.keys().collect::<Vec<_>>(), ["index"]);
    assert_eq!(port.drops, r.flows.iter().map(|f| f.drops).sum::<u64>());
    assert_eq!(r.groups[0].congestion_control, "whittle");
}

#[test]
fn fairer_than_droptail_between_decrease_factors() {
    // Scenario 2 (user 1 restarts from one segment, γ = 0) and 3 (user 1 barely reduces, γ = 0.9): under
    // DropTail the γ = 1/2 user (S2) or the γ = 0.9 user (S3) takes most of the link; dropping the
    // smallest index evens the shares out and keeps the link at least as busy (Table 1: Jain +22 % and
    // +24 % over DropTail).
    for (user1, low_share) in [((0.0, NU_0_0), true), ((0.9, NU_0_9), false)] {
        let dt = run_json(&scenario(DROPTAIL, user1, "40ms")).unwrap();
        let ix = run_json(&scenario(INDEX, user1, "40ms")).unwrap();
        let (j_dt, j_ix) = (dt.summary.jain_index.unwrap(), ix.summary.jain_index.unwrap());
        assert!(j_ix > j_dt + 0.05, "γ1 = {}: Jain {j_ix} against DropTail {j_dt}", user1.0);
        assert!(ix.summary.utilization >= dt.summary.utilization - 0.005, "γ1 = {}", user1.0);
        // The disadvantaged user's share moves towards 1/2.
        let (s_dt, s_ix) = (share(&dt), share(&ix));
        if low_share {
            assert!(s_dt < 0.4 && s_ix > s_dt + 0.05, "user 1 share {s_dt} -> {s_ix}");
        } else {
            assert!(s_dt > 0.6 && s_ix < s_dt - 0.05, "user 1 share {s_dt} -> {s_ix}");
        }
    }
}

#[test]
fn fairer_than_droptail_between_rtts() {
    // Scenario 4: user 1 twice the base RTT, both γ = 1/2.
    let dt = run_json(&scenario(DROPTAIL, (0.5, NU_0_5), "80ms")).unwrap();
    let ix = run_json(&scenario(INDEX, (0.5, NU_0_5), "80ms")).unwrap();
    assert!(
        ix.summary.jain_index.unwrap() > dt.summary.jain_index.unwrap() + 0.1,
        "{} vs {}",
        ix.summary.jain_index.unwrap(),
        dt.summary.jain_index.unwrap()
    );
}

#[test]
fn bad_controller_settings_name_the_field() {
    let field = |text: String| config_from_json(&text).unwrap_err();
    let s = scenario(INDEX, (0.0, NU_0_0), "40ms");
    let e = field(s.replacen(r#""max_window": 30"#, r#""max_window": 31"#, 1));
    assert_eq!(e.field, "flows[0].tcp.congestion_control.index");
    let e = field(s.replacen(NU_0_0, r#""whittle""#, 1));
    assert_eq!(e.field, "flows[0].tcp.congestion_control.index");
    assert!(e.message.contains("Python"), "{e}");
    let e = field(s.replacen(r#""gamma": 0"#, r#""gamma": 1"#, 1));
    assert_eq!(e.field, "flows[0].tcp.congestion_control.gamma");
    let e = field(s.replace(r#""limit": 13"#, r#""limit": 13, "colour": 1"#));
    assert_eq!(e.field, "bottleneck.queue.colour");
    // The resolved scenario carries the table.
    let json = config_from_json(&s).unwrap().to_json();
    assert_eq!(json["groups"][0]["congestion_control"]["index"][1], 0.50168);
    assert_eq!(json["groups"][1]["congestion_control"]["gamma"], 0.5);
}
