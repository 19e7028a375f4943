//! Whole simulations of BBR v1 (ns-3's `TcpBbr`): conservation; a queue of about one BDP behind a deep
//! buffer that loss-based TCP fills; PROBE_RTT draining the queue every `min_rtt_window`; the share
//! BBR takes from CUBIC as the buffer shrinks (Hock et al. 2017); determinism.

mod common;

use bufferlab_engine::time::PS_PER_SEC;
use bufferlab_engine::{config_from_json, run_json, Simulation};
use common::assert_conserved;

/// 50 Mb/s, 10 ms one way, RTT 40 ms (BDP 167 packets of 1500 B), DropTail of `limit` packets, and the
/// `groups` (a JSON list of `[[flows]]` tables).
fn scenario(limit: u32, groups: &str, duration: &str, seed: u64) -> String {
    format!(
        r#"{{"seed": {seed}, "duration": "{duration}", "warmup": "5s",
            "bottleneck": {{"rate": "50Mbps", "delay": "10ms",
                            "queue": {{"discipline": "droptail", "limit": {limit}}}}},
            "flows": {groups},
            "tcp": {{"packet_size": "1500B", "header_size": "40B", "sack": true, "delayed_ack": true,
                     "handshake": true, "min_rto": "200ms"}},
            "monitor": {{"sample_interval": "10ms"}}}}"#
    )
}

fn one(cc: &str, count: u32) -> String {
    format!(
        r#"[{{"name": "{cc}", "count": {count}, "rtt": "40ms", "access_rate": "1Gbps",
              "start": {{"uniform": ["0s", "100ms"]}}, "tcp": {{"congestion_control": "{cc}"}}}}]"#
    )
}

fn bbr_and_cubic() -> String {
    r#"[{"name": "bbr", "count": 1, "rtt": "40ms", "access_rate": "1Gbps",
         "start": {"uniform": ["0s", "100ms"]}, "tcp": {"congestion_control": "bbr"}},
        {"name": "cubic", "count": 1, "rtt": "40ms", "access_rate": "1Gbps",
         "start": {"uniform": ["0s", "100ms"]}, "tcp": {"congestion_control": "cubic"}}]"#
        .to_string()
}

const BDP: f64 = 50e6 * 0.04 / 8.0 / 1500.0;

#[test]
fn bbr_conserves_packets_behind_deep_and_shallow_buffers() {
    for limit in [42, 334] {
        let mut sim =
            Simulation::new(config_from_json(&scenario(limit, &one("bbr", 3), "12s", 1)).unwrap()).unwrap();
        for k in 1..=24 {
            sim.run_until(k * PS_PER_SEC / 2);
            assert_conserved(&sim, &format!("bbr limit={limit} at step {k}"));
        }
        let r = sim.finish();
        // Behind a quarter BDP the losses cost retransmission timeouts too (a few per flow-second).
        let busy = if limit == 42 { 0.6 } else { 0.95 };
        assert!(r.summary.utilization > busy, "limit {limit}: {}", r.summary.utilization);
        // A quarter BDP cannot hold BBR's window: it loses packets all along; two BDPs hold it.
        assert!((r.summary.drops > 1000) == (limit == 42), "limit {limit}: {} drops", r.summary.drops);
    }
}

/// Behind ten BDPs of buffer two BBR flows keep about one BDP queued (each paces at a little more than
/// its share, and the window of two BDPs caps what they keep in flight), where CUBIC fills the buffer:
/// the model sets the queue, not the buffer. One BBR flow alone queues less (its pacing rate is the
/// bottleneck's but in the 5/4 phase).
#[test]
fn bbr_queues_about_one_bdp_where_cubic_fills_a_deep_buffer() {
    let port = |cc: &str, n: u32| run_json(&scenario(1670, &one(cc, n), "25s", 2)).unwrap().ports.remove(0);
    let alone = port("bbr", 1);
    assert!(alone.queue_mean_pkts < 0.5 * BDP && alone.utilization > 0.97, "{alone:?}");
    let bbr = port("bbr", 2);
    let cubic = port("cubic", 2);
    eprintln!(
        "bbr: queue {:.0} pkts, utilization {:.4}, drops {}; cubic: queue {:.0}, drops {}",
        bbr.queue_mean_pkts, bbr.utilization, bbr.drops, cubic.queue_mean_pkts, cubic.drops
    );
    assert!(bbr.utilization > 0.97, "{}", bbr.utilization);
    assert!(bbr.queue_mean_pkts > 0.5 * BDP && bbr.queue_mean_pkts < 1.5 * BDP, "{}", bbr.queue_mean_pkts);
    assert_eq!(bbr.drops, 0, "the deep buffer holds BBR's two BDPs after STARTUP");
    assert!(cubic.queue_mean_pkts > 4.0 * BDP, "{}", cubic.queue_mean_pkts);
}

/// Every 10 s (the minimum-RTT filter's window) BBR drains the queue in PROBE_RTT: the queue falls to a
/// few packets near 10 s and 20 s and stays far above that between.
#[test]
fn probe_rtt_drains_the_queue_once_per_min_rtt_window() {
    let r = run_json(&scenario(334, &one("bbr", 2), "25s", 3)).unwrap();
    let s = &r.series;
    let min_in = |a: f64, b: f64| {
        s.time_s
            .iter()
            .zip(&s.queue_pkts)
            .filter(|(t, _)| **t >= a && **t < b)
            .map(|(_, q)| *q)
            .fold(f64::INFINITY, f64::min)
    };
    for probe in [10.0, 20.0] {
        assert!(min_in(probe - 0.5, probe + 1.5) <= 4.0, "no drain near {probe} s");
    }
    for between in [(13.0, 19.0), (3.0, 9.0)] {
        assert!(min_in(between.0, between.1) > 40.0, "drained between probes {between:?}");
    }
}

/// Hock et al. 2017: through a shallow buffer BBR takes most of the link from CUBIC; through a deep one
/// CUBIC fills the buffer and takes the larger share.
#[test]
fn the_buffer_decides_between_bbr_and_cubic() {
    let share = |limit: u32| {
        let r = run_json(&scenario(limit, &bbr_and_cubic(), "40s", 4)).unwrap();
        let g = |name: &str| r.groups.iter().find(|g| g.name == name).unwrap().goodput_bps;
        g("bbr") / (g("bbr") + g("cubic"))
    };
    let shallow = share(84);
    let deep = share(668);
    eprintln!("bbr's share: {shallow:.3} behind half a BDP, {deep:.3} behind four");
    assert!(shallow > 0.75, "{shallow}");
    assert!(deep < 0.5, "{deep}");
}

#[test]
fn bbr_is_deterministic() {
    let sc = scenario(84, &bbr_and_cubic(), "6s", 5);
    let a = run_json(&sc).unwrap();
    let b = run_json(&sc).unwrap();
    assert_eq!(a.flows, b.flows);
    assert_eq!(a.summary.delivered, b.summary.delivered);
}

/// 1,000 flows starting within a second behind 1,000 packets, no window cap: flows lose packets before
/// DRAIN has set `ssthresh`, and the end of their fast recovery must not leave an unbounded window with
/// nothing paced yet (ns-3's 4 GB, bounded there by its send buffer).
#[test]
fn recovery_before_drain_leaves_a_bounded_window() {
    let sc = r#"{"seed": 1, "duration": "2s",
        "bottleneck": {"rate": "1Gbps", "delay": "10ms", "queue": {"discipline": "droptail", "limit": 1000}},
        "flows": {"count": 1000, "rtt": "100ms", "start": {"uniform": ["0s", "1s"]}},
        "tcp": {"packet_size": "1000B", "congestion_control": "bbr", "sack": true}}"#;
    let mut sim = Simulation::new(config_from_json(sc).unwrap()).unwrap();
    for k in 1..=4 {
        sim.run_until(k * PS_PER_SEC / 2);
        assert_conserved(&sim, &format!("step {k}"));
    }
    let r = sim.finish();
    assert!(r.flows.iter().all(|f| f.final_cwnd.is_finite() && f.final_cwnd < 1e6), "an unbounded window");
    assert!(r.summary.utilization > 0.8, "{}", r.summary.utilization);
}
