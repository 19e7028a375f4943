//! Eun & Wang's N^α-scaled marking in whole simulations (note §2.2, §2.9, §3.2, §3.4): conservation, marks
//! as the congestion signal, the queue held near the scaled thresholds as N grows, the ns-2 reading's
//! forced drops, a live N, and the multi-hop topology of Figs. 7-8 (a per-hop queue list in
//! `[parking_lot]`).

mod common;

use bufferlab_engine::queue::eun_wang::{auto_limit, scale};
use bufferlab_engine::{config_from_json, Results, Simulation};
use common::assert_conserved;

fn sim(text: &str) -> Simulation {
    Simulation::new(config_from_json(text).unwrap()).unwrap()
}

/// The dumbbell of §3.2: N flows, link N × 100 kb/s, 500 B packets, RTTs U[120, 280] ms, ECN senders.
fn dumbbell(n: u32, queue: &str, duration: u32) -> String {
    format!(
        r#"{{"seed": 3, "duration": "{duration}s", "warmup": "{w}s",
            "bottleneck": {{"rate": "{rate}kbps", "delay": "10ms", "queue": {queue}}},
            "flows": {{"count": {n}, "rtt": {{"uniform": ["120ms", "280ms"]}}, "start": {{"uniform": ["0s", "2s"]}}}},
            "tcp": {{"ecn": true, "packet_size": "500B"}}}}"#,
        w = duration / 4,
        rate = n * 100,
    )
}

/// Run, checking conservation every simulated second.
fn run(text: &str, seconds: u64, what: &str) -> Results {
    let mut s = sim(text);
    for k in 1..=seconds {
        s.run_until(k * 1_000_000_000_000);
        assert_conserved(&s, &format!("{what} at {k} s"));
    }
    let r = s.finish();
    assert_eq!(r.summary.sent, r.summary.delivered + r.summary.dropped + r.summary.in_flight, "{what}");
    r
}

#[test]
fn marks_hold_the_queue_near_the_n_alpha_thresholds_as_n_grows() {
    // RED1, α = 0.2, ε = 0.1, instantaneous queue, pure marking (defaults).
    let mut per_scale = Vec::new();
    let mut delays = Vec::new();
    for n in [25u32, 100, 400] {
        let what = format!("N = {n}");
        let r = run(&dumbbell(n, r#"{"discipline": "eun-wang"}"#, 40), 40, &what);
        let p = &r.ports[0];
        let s = scale(n, 0.2);
        // Marks are the congestion signal: losses are overflows (and early drops of the senders' Not-ECT
        // retransmissions), never forced, and far rarer than marks.
        assert!(p.marks > 0 && p.mark_rate > 0.02, "{what}: {p:?}");
        assert!(
            p.drop_reasons.keys().all(|k| k == "overflow" || k == "early"),
            "{what}: {:?}",
            p.drop_reasons
        );
        assert!(p.loss_rate < 0.01 && p.mark_rate > 10.0 * p.loss_rate, "{what}: {p:?}");
        assert!(p.queue_max_pkts <= auto_limit(n, 0.2, 0.1, 12.0) as f64, "{what}");
        // The mean queue sits between the thresholds 2 N^α and 10 N^α ...
        assert!(p.queue_mean_pkts > 1.0 * s && p.queue_mean_pkts < 10.0 * s, "{what}: {}", p.queue_mean_pkts);
        assert!(p.utilization > 0.75, "{what}: {}", p.utilization);
        per_scale.push(p.queue_mean_pkts / s);
        delays.push(p.delay_mean_s);
    }
    // ... and scales like N^α: the queue in units of N^α stays put while N grows 16-fold ...
    let (lo, hi) = per_scale.iter().fold((f64::MAX, 0f64), |(a, b), &x| (a.min(x), b.max(x)));
    assert!(hi / lo < 1.3, "mean queue / N^alpha: {per_scale:?}");
    // ... so the queueing delay, Θ(N^(α−1)), falls sharply (claim 3).
    assert!(delays[0] > 2.0 * delays[1] && delays[1] > 2.0 * delays[2], "delays {delays:?}");
}

#[test]
fn the_ns2_reading_drops_above_max_th_where_the_model_marks() {
    let marking = run(&dumbbell(100, r#"{"discipline": "eun-wang", "profile": "red2"}"#, 30), 30, "marking");
    let ns2 = run(
        &dumbbell(
            100,
            r#"{"discipline": "eun-wang", "profile": "red2", "mode": "ns2-red", "gentle": false}"#,
            30,
        ),
        30,
        "ns2-red",
    );
    assert_eq!(marking.ports[0].drop_reasons.get("forced"), None);
    let forced = ns2.ports[0].drop_reasons.get("forced").copied().unwrap_or(0);
    assert!(forced > 0 && ns2.ports[0].marks > 0, "{:?}", ns2.ports[0]);
    assert!(ns2.ports[0].loss_rate > marking.ports[0].loss_rate);
    // Forced drops at 11 N^α = 27.6 keep the queue below the 48-packet buffer.
    assert!(ns2.ports[0].queue_max_pkts <= 29.0, "{}", ns2.ports[0].queue_max_pkts);
}

#[test]
fn every_profile_and_the_averaged_queue_run_and_conserve() {
    for queue in [
        r#"{"discipline": "eun-wang", "profile": "exp"}"#,
        r#"{"discipline": "eun-wang", "profile": "red1", "weight": 0.002}"#,
        r#"{"discipline": "eun-wang", "profile": "exp", "mode": "ns2-red"}"#,
        r#"{"discipline": "eun-wang", "alpha": 0.3, "flows": 50, "limit": 200}"#,
    ] {
        let r = run(&dumbbell(50, queue, 20), 20, queue);
        assert!(r.ports[0].marks > 0 && r.ports[0].utilization > 0.7, "{queue}: {:?}", r.ports[0]);
    }
}

#[test]
fn a_live_n_follows_the_flows_through_the_port() {
    // 40 flows throughout and 160 that stop at 10 s: the port sees N = 200, then 40. A live N rescales
    // the thresholds and the automatic buffer (B(200) = 59, B(40) = 36); a configured N keeps N = 200.
    let text = |flows: &str| {
        format!(
            r#"{{"seed": 5, "duration": "20s", "warmup": "2s",
            "bottleneck": {{"rate": "20Mbps", "delay": "10ms",
                           "queue": {{"discipline": "eun-wang", "flows": "{flows}"}}}},
            "flows": [{{"count": 40, "rtt": {{"uniform": ["120ms", "280ms"]}}}},
                      {{"count": 160, "rtt": {{"uniform": ["120ms", "280ms"]}}, "stop": "10s"}}],
            "tcp": {{"ecn": true, "packet_size": "500B"}}, "monitor": {{"sample_interval": "2ms"}}}}"#
        )
    };
    let mut late_mean = Vec::new();
    for flows in ["live", "configured"] {
        let mut s = sim(&text(flows));
        s.run_until(5_000_000_000_000);
        assert_eq!(s.active_flows(0), 200);
        assert_conserved(&s, flows);
        s.run_until(20_000_000_000_000);
        assert_eq!(s.active_flows(0), 40);
        assert_conserved(&s, flows);
        let r = s.finish();
        assert!(r.ports[0].marks > 0);
        let late: Vec<f64> = (r.series.time_s.iter().zip(&r.series.queue_pkts))
            .filter(|(t, _)| **t >= 12.0)
            .map(|(_, q)| *q)
            .collect();
        let max = late.iter().fold(0f64, |a, &b| a.max(b));
        // Marked packets still join the queue: it overshoots max_th (20.9 at 40 flows, 28.9 at 200) for
        // about an RTT before the marks take effect.
        assert!(max <= if flows == "live" { 40.0 } else { 59.0 }, "{flows}: {max}");
        late_mean.push(late.iter().sum::<f64>() / late.len() as f64);
    }
    // Thresholds at 40 flows (2·40^0.2 = 4.2, 10·40^0.2 = 20.9) rather than 200 (5.8, 28.9).
    assert!(
        late_mean[0] < 0.9 * late_mean[1],
        "mean queue after the stop, live vs configured: {late_mean:?}"
    );
}

/// Figs. 7-8 at N = 50: router 1 (N × 100 kb/s, DropTail of N packets) and router 2 (2N × 100 kb/s,
/// the scaled AQM); group 1 crosses both, group 2 (the cross traffic) router 2 only.
const MULTIHOP: &str = r#"{"seed": 8, "duration": "30s", "warmup": "5s",
    "parking_lot": {"hops": 2, "rate": ["5Mbps", "10Mbps"], "delay": "5ms",
                    "queue": [{"discipline": "droptail", "limit": 50}, {"discipline": "eun-wang"}]},
    "flows": [{"name": "group1", "count": 50, "rtt": {"uniform": ["110ms", "190ms"]}, "start": {"uniform": ["0s", "2s"]}},
              {"name": "group2", "count": 50, "rtt": {"uniform": ["60ms", "140ms"]}, "route": ["hop2"],
               "start": {"uniform": ["0s", "2s"]}}],
    "tcp": {"ecn": true, "packet_size": "500B"}}"#;

#[test]
fn multihop_parking_lot_with_the_aqm_at_router_two() {
    let r = run(MULTIHOP, 30, "multihop");
    assert_eq!(r.ports[0].discipline, "droptail");
    assert_eq!(r.ports[1].discipline, "eun-wang");
    assert_eq!(r.ports[0].marks, 0);
    assert!(r.ports[1].marks > 0 && r.ports[1].utilization > 0.8, "{:?}", r.ports[1]);
    // Router 2 scales with the 2N = 100 flows crossing it (the default "configured" N).
    assert!(r.ports[1].queue_max_pkts <= auto_limit(100, 0.2, 0.1, 12.0) as f64);
    assert!(r.groups.iter().all(|g| g.goodput_bps > 0.0));
}

#[test]
fn a_per_hop_queue_list_is_checked_and_named() {
    let e = config_from_json(&MULTIHOP.replace(r#", {"discipline": "eun-wang"}"#, "")).unwrap_err();
    assert_eq!(e.field, "parking_lot.queue");
    assert!(e.message.contains("one table per hop"), "{e}");
    let e = config_from_json(
        &MULTIHOP.replace(r#"{"discipline": "eun-wang"}"#, r#"{"discipline": "eun-wang", "alpha": 2}"#),
    )
    .unwrap_err();
    assert_eq!(e.field, "parking_lot.queue[1].alpha");
    let no_ecn = MULTIHOP.replace(r#""tcp": {"ecn": true, "#, r#""tcp": {"ecn": false, "#);
    assert_eq!(config_from_json(&no_ecn).unwrap_err().field, "parking_lot.queue[1].ecn");
}
