//! Whole simulations through CoDel (RFC 8289), FQ-CoDel (RFC 8290) and PIE (RFC 8033): conservation, and each
//! mechanism's effect (a standing queue delay near its target where DropTail with the same large buffer fills
//! it; FQ-CoDel's isolation of flows).

mod common;

use bufferlab_engine::results::PortResult;
use bufferlab_engine::run_json;
use common::run_conserving;

/// A dumbbell with `flows` NewReno flows, RTTs uniform in [20, 200] ms, 1000-byte packets, ECN-capable
/// senders.
fn scenario(queue: &str, rate: &str, flows: u32, duration: &str, warmup: &str) -> String {
    format!(
        r#"{{"seed": 1, "duration": "{duration}", "warmup": "{warmup}",
            "bottleneck": {{"rate": "{rate}", "delay": "1ms", "queue": {queue}}},
            "flows": {{"count": {flows}, "rtt": {{"uniform": ["20ms", "200ms"]}}, "start": {{"uniform": ["0s", "1s"]}}}},
            "tcp": {{"packet_size": "1000B", "ecn": true}}}}"#
    )
}

fn bottleneck(queue: &str) -> PortResult {
    run_json(&scenario(queue, "20Mbps", 20, "40s", "10s")).unwrap().ports.remove(0)
}

pub fn conserved(queue: &str) {
    run_conserving(&scenario(queue, "10Mbps", 20, "20s", "5s"), 40, queue);
}

#[test]
fn codel_conserves_packets() {
    conserved(r#"{"discipline": "codel", "limit": 1000}"#);
    conserved(r#"{"discipline": "codel", "limit": 1000, "ecn": true}"#);
}

#[test]
fn codel_holds_the_standing_queue_near_its_target() {
    let droptail = bottleneck(r#"{"discipline": "droptail", "limit": 1000}"#);
    let codel = bottleneck(r#"{"discipline": "codel", "limit": 1000}"#);
    let ecn = bottleneck(r#"{"discipline": "codel", "limit": 1000, "ecn": true}"#);
    eprintln!(
        "droptail {:.4} s, codel {:.4} s (p50 {:.4}), codel+ecn {:.4} s; utilization {:.3} {:.3}",
        droptail.delay_mean_s,
        codel.delay_mean_s,
        codel.delay_p50_s,
        ecn.delay_mean_s,
        codel.utilization,
        ecn.utilization
    );
    // The 1000-packet buffer holds 400 ms at 20 Mb/s; DropTail fills much of it.
    assert!(droptail.delay_mean_s > 0.1, "{}", droptail.delay_mean_s);
    // CoDel: drops at dequeue only, and a standing delay of a few targets (5 ms).
    assert!(codel.delay_mean_s > 0.002 && codel.delay_mean_s < 0.025, "{}", codel.delay_mean_s);
    assert_eq!(codel.drops, codel.drops_at_dequeue);
    assert!(codel.drop_reasons["codel"] > 0 && !codel.drop_reasons.contains_key("overflow"));
    assert!(codel.utilization > 0.9, "{}", codel.utilization);
    // With ECN the signals are marks.
    assert!(ecn.delay_mean_s < 0.025 && ecn.marks > 100, "{} {}", ecn.delay_mean_s, ecn.marks);
    assert!(ecn.drops < codel.drops / 10, "{} {}", ecn.drops, codel.drops);
}

#[test]
fn pie_conserves_packets() {
    conserved(r#"{"discipline": "pie", "limit": 1000}"#);
    conserved(r#"{"discipline": "pie", "limit": 1000, "ecn": true, "derandomize": true}"#);
    conserved(r#"{"discipline": "pie", "limit": 1000, "delay": "rate"}"#);
}

#[test]
fn pie_holds_the_queue_delay_near_its_target() {
    let droptail = bottleneck(r#"{"discipline": "droptail", "limit": 1000}"#);
    let pie = bottleneck(r#"{"discipline": "pie", "limit": 1000}"#);
    let rate = bottleneck(r#"{"discipline": "pie", "limit": 1000, "delay": "rate"}"#);
    let ecn = bottleneck(r#"{"discipline": "pie", "limit": 1000, "ecn": true, "derandomize": true}"#);
    eprintln!(
        "droptail {:.4} s, pie {:.4} s (p50 {:.4}), pie rate {:.4} s, pie+ecn {:.4} s; utilization {:.3} {:.3} {:.3}",
        droptail.delay_mean_s,
        pie.delay_mean_s,
        pie.delay_p50_s,
        rate.delay_mean_s,
        ecn.delay_mean_s,
        pie.utilization,
        rate.utilization,
        ecn.utilization
    );
    assert!(droptail.delay_mean_s > 0.1, "{}", droptail.delay_mean_s);
    // PIE: early drops at enqueue, the mean delay within a few ms of its 15 ms target.
    for (name, q) in [("timestamp", &pie), ("rate", &rate), ("ecn", &ecn)] {
        assert!((q.delay_mean_s - 0.015).abs() < 0.008, "{name}: {}", q.delay_mean_s);
        assert!(q.utilization > 0.9, "{name}: {}", q.utilization);
        assert!(q.queue_state["drop_prob"] > 0.0, "{name}");
    }
    assert!(pie.drop_reasons["pie"] > 0 && pie.drops_at_dequeue == 0);
    assert!(!pie.drop_reasons.contains_key("overflow"));
    assert!(ecn.marks > 100 && ecn.drops < pie.drops / 10, "{} {} {}", ecn.marks, ecn.drops, pie.drops);
}

#[test]
fn fq_codel_conserves_packets() {
    // ECN-capable senders: CoDel marks by default; with ecn = false it drops; a small limit makes the
    // fattest queues lose batches.
    conserved(r#"{"discipline": "fq-codel"}"#);
    conserved(r#"{"discipline": "fq-codel", "ecn": false, "hash": "flow"}"#);
    conserved(r#"{"discipline": "fq-codel", "limit": 40, "drop_batch": 8}"#);
}

/// Ten 20 ms and ten 200 ms NewReno flows and a 2 Mb/s constant-rate UDP stream through a 50 Mb/s bottleneck.
fn mixed(queue: &str) -> bufferlab_engine::results::Results {
    run_json(&format!(
        r#"{{"seed": 1, "duration": "30s", "warmup": "10s",
            "bottleneck": {{"rate": "50Mbps", "delay": "5ms", "queue": {queue}}},
            "flows": [{{"name": "short", "count": 10, "rtt": "20ms", "start": {{"uniform": ["0s", "2s"]}}}},
                      {{"name": "long", "count": 10, "rtt": "200ms", "start": {{"uniform": ["0s", "2s"]}}}}],
            "udp": [{{"pattern": "cbr", "rate": "2Mbps", "packet_size": "1000B"}}],
            "tcp": {{"packet_size": "1000B"}}}}"#
    ))
    .unwrap()
}

#[test]
fn fq_codel_isolates_flows() {
    let fifo = mixed(r#"{"discipline": "droptail", "limit": 1250}"#);
    let fq = mixed(r#"{"discipline": "fq-codel"}"#);
    let (f, q) = (&fifo.ports[0], &fq.ports[0]);
    eprintln!(
        "droptail: delay {:.4} s, Jain {:.3}, long/short {:.3}, UDP loss {:.4}; fq-codel: {:.4} s, {:.3}, {:.3}, {:.4}",
        f.delay_mean_s,
        fifo.summary.jain_index.unwrap(),
        fifo.groups[1].goodput_bps / fifo.groups[0].goodput_bps,
        fifo.udp[0].loss_rate,
        q.delay_mean_s,
        fq.summary.jain_index.unwrap(),
        fq.groups[1].goodput_bps / fq.groups[0].goodput_bps,
        fq.udp[0].loss_rate
    );
    // The UDP stream, below its fair share, has its own queue: no loss.
    assert!(fifo.udp[0].drops > 0);
    assert_eq!(fq.udp[0].drops, 0);
    // Per-flow queues with CoDel: a short standing delay, the long-RTT flows' share restored in part, and
    // every drop CoDel's (nothing near the 10240-packet limit).
    assert!(q.delay_mean_s < 0.01 && f.delay_mean_s > 0.1, "{} {}", q.delay_mean_s, f.delay_mean_s);
    assert!(fq.summary.jain_index.unwrap() > fifo.summary.jain_index.unwrap() + 0.1);
    assert!(fq.groups[1].goodput_bps / fq.groups[0].goodput_bps > 0.5);
    assert!(q.drop_reasons["codel"] > 0 && q.drops == q.drops_at_dequeue);
    assert!(q.utilization > 0.97, "{}", q.utilization);
    // One queue per TCP flow and the UDP source (no collision with this seed), all used.
    assert_eq!(q.queue_state["queues_used"], 21.0);
}
