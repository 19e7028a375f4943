//! Networks, groups and finite flows: conservation at every port and for every group, routes, completion
//! times against a hand count, slot reuse with bounded memory.

mod common;

use bufferlab_engine::{config_from_json, run_json, Simulation};
use common::assert_conserved;

fn sim(text: &str) -> Simulation {
    Simulation::new(config_from_json(text).unwrap()).unwrap()
}

const PARKING_LOT: &str = r#"{"seed": 2, "duration": "20s", "warmup": "2s",
    "parking_lot": {"hops": 3, "rate": "10Mbps", "delay": ["2ms", "5ms", "3ms"],
                    "queue": {"discipline": "droptail", "limit": 30},
                    "cross": {"count": 4, "rtt": {"uniform": ["30ms", "60ms"]}, "start": {"uniform": ["0s", "1s"]}}},
    "flows": {"name": "long", "count": 8, "rtt": {"uniform": ["60ms", "100ms"]}, "start": {"uniform": ["0s", "1s"]}}}"#;

const TWO_WAY: &str = r#"{"seed": 4, "duration": "20s", "warmup": "2s",
    "links": [{"name": "east", "rate": "5Mbps", "delay": "10ms", "queue": {"discipline": "droptail", "limit": 25}},
              {"name": "west", "rate": "5Mbps", "delay": "10ms", "queue": {"discipline": "red", "limit": 60, "min_th": 5, "max_th": 20}}],
    "flows": [{"name": "e", "count": 5, "rtt": "80ms", "route": ["east"], "ack_route": ["west"], "start": {"uniform": ["0s", "1s"]},
               "tcp": {"delayed_ack": true}},
              {"name": "w", "count": 5, "rtt": "80ms", "route": ["west"], "ack_route": ["east"], "start": {"uniform": ["0s", "1s"]}}]}"#;

const SHORT_FLOWS: &str = r#"{"seed": 6, "duration": "30s", "warmup": "5s",
    "bottleneck": {"rate": "20Mbps", "delay": "5ms", "queue": {"discipline": "droptail", "limit": 40}},
    "flows": [{"name": "long", "count": 3, "rtt": "60ms"},
              {"name": "web", "rtt": {"uniform": ["20ms", "100ms"]}, "size": {"pareto": "40KB", "shape": 1.3},
               "arrival": {"load": 0.4}}]}"#;

#[test]
fn conservation_at_every_port_and_for_every_group() {
    for (name, text) in [("parking lot", PARKING_LOT), ("two-way", TWO_WAY), ("short flows", SHORT_FLOWS)] {
        let mut s = sim(text);
        for k in 1..=40 {
            s.run_until(k * 500_000_000_000);
            assert_conserved(&s, &format!("{name} at step {k}"));
        }
        let r = s.finish();
        assert_eq!(r.summary.sent, r.summary.delivered + r.summary.dropped + r.summary.in_flight, "{name}");
        assert!(
            r.ports.iter().all(|p| p.utilization <= 1.0 + 1e-9 && p.utilization > 0.3),
            "{name}: {:?}",
            r.ports
        );
    }
}

#[test]
fn routes_carry_packets_through_their_ports_in_order() {
    // Only the long flows cross all three hops: what leaves hop k enters hop k+1 (or is on the link).
    let text = PARKING_LOT.replace(
        r#""cross": {"count": 4, "rtt": {"uniform": ["30ms", "60ms"]}, "start": {"uniform": ["0s", "1s"]}}"#,
        r#""cross": null"#,
    );
    let text = text.replace(r#","cross": null"#, "");
    let mut s = sim(&text);
    for k in 1..=20 {
        s.run_until(k * 1_000_000_000_000);
        for p in 0..2 {
            // A port's departures are `delivered`, its arrivals `sent`.
            let (up, down) = (s.port_conservation(p), s.port_conservation(p + 1));
            assert_eq!(up.delivered, down.sent + s.link_in_flight(p), "hop {p} -> {} at {k} s", p + 1);
        }
    }
    let r = s.finish();
    // With equal rates the first hop is the bottleneck; the others see at most its departures.
    assert!(r.ports[1].drops == 0 && r.ports[2].drops == 0, "{:?}", r.ports);
    assert_eq!(r.groups.len(), 1);
    assert_eq!(r.groups[0].route, ["hop1", "hop2", "hop3"]);
}

#[test]
fn parking_lot_long_flows_get_less_than_cross_flows() {
    let r = run_json(PARKING_LOT).unwrap();
    let long = &r.groups[0];
    let cross = &r.groups[1];
    assert_eq!((long.name.as_str(), cross.name.as_str()), ("long", "cross1"));
    let per_long = long.goodput_bps / 8.0;
    let per_cross = cross.goodput_bps / 4.0;
    assert!(per_long < per_cross, "long {per_long} vs cross {per_cross}");
    // Each hop is nearly saturated by its long and cross flows.
    assert!(
        r.ports.iter().all(|p| p.utilization > 0.9),
        "{:?}",
        r.ports.iter().map(|p| p.utilization).collect::<Vec<_>>()
    );
}

#[test]
fn two_way_acks_queue_behind_data_and_can_be_lost() {
    let r = run_json(TWO_WAY).unwrap();
    assert_eq!(r.groups[0].ack_route, ["west"]);
    // Both links carry one group's data and the other's ACKs: more arrivals than data packets alone.
    let acks_lost: u64 = r.groups.iter().map(|g| g.ack_drops).sum();
    assert!(acks_lost > 0, "no ACK lost with 25- and 60-packet buffers");
    assert!(r.groups.iter().all(|g| g.goodput_bps > 1e6), "{:?}", r.groups);
    // The same scenario without queued ACKs: ACKs are free and never lost.
    let free = TWO_WAY.replace(r#", "ack_route": ["west"]"#, "").replace(r#", "ack_route": ["east"]"#, "");
    let r2 = run_json(&free).unwrap();
    assert!(r2.groups.iter().all(|g| g.ack_drops == 0));
    assert!(r2.ports[0].arrivals < r.ports[0].arrivals);
}

fn single_finite_flow(segments: u64) -> f64 {
    // 1 Gb/s bottleneck and 10 Gb/s access: serialization is microseconds against a 100 ms RTT, the buffer
    // never overflows, and without delayed ACKs slow start doubles the window every round from IW = 10.
    let text = format!(
        r#"{{"duration": "5s", "bottleneck": {{"rate": "1Gbps", "delay": "10ms", "queue": {{"discipline": "droptail", "limit": 1000}}}},
            "flows": {{"count": 1, "rtt": "100ms", "access_rate": "10Gbps", "size": {}}}}}"#,
        segments * 960
    );
    let r = run_json(&text).unwrap();
    assert_eq!(r.summary.drops, 0);
    assert_eq!(r.summary.flows_completed, 1);
    assert_eq!(r.flows[0].tcp.sent, segments);
    r.flows[0].fct_s.unwrap()
}

#[test]
fn lossless_finite_flow_completes_in_its_slow_start_rounds() {
    // Rounds of 10, 20, 40, 80 segments: 150 segments take 4 RTTs, 151 take 5. Each round adds at most
    // its segments' serialization at the bottleneck (8 us each) and the access and ACK serializations.
    let rtt = 0.1;
    let slack = |segments: f64, rounds: f64| segments * 8e-6 + rounds * (0.8e-6 + 2.0 * 0.32e-6 + 0.032e-6);
    for (segments, rounds) in [(10u64, 1.0), (30, 2.0), (150, 4.0), (151, 5.0), (1, 1.0)] {
        let fct = single_finite_flow(segments);
        let lo = rounds * rtt;
        assert!(
            fct >= lo && fct <= lo + slack(segments as f64, rounds),
            "{segments} segments: {fct} s, {rounds} rounds"
        );
    }
}

#[test]
fn arrival_flows_reuse_slots_and_memory_stays_bounded() {
    // 2,000 s of web flows at 30 % load: thousands of flows, a handful in the system at once.
    let text = r#"{"seed": 3, "duration": "2000s", "warmup": "10s",
        "bottleneck": {"rate": "10Mbps", "delay": "5ms", "queue": {"discipline": "droptail", "limit": 100}},
        "flows": {"name": "web", "rtt": "50ms", "size": {"exponential": "30KB"}, "arrival": {"load": 0.3}},
        "monitor": {"fct_records": 1000}}"#;
    let mut s = sim(text);
    let (mut first_half, mut second_half) = ((0, 0), (0, 0));
    for k in 1..=200 {
        s.run_until(k * 10_000_000_000_000);
        let peak = if k <= 100 { &mut first_half } else { &mut second_half };
        *peak = (peak.0.max(s.flow_slots()), peak.1.max(s.pending_events()));
    }
    let r = s.finish();
    assert!(r.summary.flows_started > 20_000, "{}", r.summary.flows_started);
    assert!(r.summary.flows_completed + 50 > r.summary.flows_started);
    assert_eq!(r.summary.peak_flow_slots as usize, second_half.0.max(first_half.0));
    assert!(first_half.0 < 100, "slots: {first_half:?}");
    assert!(second_half.0 <= first_half.0 + 20, "slots grew: {first_half:?} then {second_half:?}");
    assert!(second_half.1 <= first_half.1 + 40, "events grew: {first_half:?} then {second_half:?}");
    assert_eq!(r.fct_records.len(), 1000, "records are capped");
    let counted: u64 = r.fct.iter().map(|b| b.count).sum();
    assert!(counted > 20_000);
    // Poisson arrivals of exponential sizes offering 30 %: the link carries about that (wire bytes).
    assert!((r.summary.utilization - 0.3).abs() < 0.02, "{}", r.summary.utilization);
    assert!(r.flows.is_empty(), "arrival flows have no per-flow rows");
}

#[test]
fn groups_with_different_controllers_and_settings_share_a_bottleneck() {
    let text = r#"{"seed": 5, "duration": "40s", "warmup": "5s",
        "bottleneck": {"rate": "20Mbps", "delay": "5ms", "queue": {"discipline": "red", "limit": 200, "min_th": 20, "max_th": 60, "ecn": true}},
        "tcp": {"ecn": true},
        "flows": [{"name": "reno", "count": 5, "rtt": "60ms", "start": {"uniform": ["0s", "1s"]}},
                  {"name": "gentle", "count": 5, "rtt": "60ms", "start": {"uniform": ["0s", "1s"]},
                   "tcp": {"congestion_control": {"kind": "aimd", "increase": 0.9, "decrease": 0.675, "reduce_from": "cwnd"}}},
                  {"name": "paced", "count": 5, "rtt": "60ms", "start": {"uniform": ["0s", "1s"]}, "tcp": {"pacing": true, "delayed_ack": true}}]}"#;
    let r = run_json(text).unwrap();
    let names: Vec<&str> = r.groups.iter().map(|g| g.congestion_control.as_str()).collect();
    assert_eq!(names, ["newreno", "aimd", "newreno"]);
    assert!(r.groups.iter().all(|g| g.tcp.ecn_reductions > 0 && g.goodput_bps > 2e6), "{:?}", r.groups);
    assert!(r.summary.utilization > 0.9);
    let rows: Vec<u32> = r.flows.iter().map(|f| f.group).collect();
    assert_eq!(rows, [0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 2, 2, 2, 2, 2]);
    // Same scenario, same results.
    assert_eq!(run_json(text).unwrap(), r);
}

#[test]
fn ports_know_how_many_flows_are_active() {
    // Four flows over both links start at 1, 2, 3, 4 s; two stop at 6 s; a finite one finishes early.
    let text = r#"{"duration": "10s",
        "links": [{"name": "a", "rate": "10Mbps", "delay": "5ms", "queue": {"discipline": "droptail", "limit": 50}},
                  {"name": "b", "rate": "10Mbps", "delay": "5ms", "queue": {"discipline": "droptail", "limit": 50}}],
        "flows": [{"count": 4, "rtt": "60ms", "route": ["a", "b"], "start": ["1s", "2s", "3s", "4s"],
                   "stop": ["6s", "6s", "20s", "20s"]},
                  {"name": "short", "count": 1, "rtt": "60ms", "route": ["b"], "start": "0.5s", "size": "5KB"}]}"#;
    let mut s = sim(text);
    let at = |s: &mut Simulation, t: f64| {
        s.run_until((t * 1e12) as u64);
        (s.active_flows(0), s.active_flows(1))
    };
    assert_eq!(at(&mut s, 0.52), (0, 1));
    assert_eq!(at(&mut s, 0.6), (0, 0), "6 segments within the initial window: done in one RTT");
    assert_eq!(at(&mut s, 1.5), (1, 1));
    assert_eq!(at(&mut s, 4.5), (4, 4));
    assert_eq!(at(&mut s, 7.0), (2, 2));
}
