//! A switch whose egress ports share one buffer: Dynamic Threshold admission (Choudhury & Hahne 1998) bounds
//! each port at α/(1 + α) of the pool and shares it between congested ports; a static split bounds each
//! port at its limit; step marking runs on top; packets are conserved at every port.

mod common;

use bufferlab_engine::results::{PortResult, Results};
use bufferlab_engine::run_json;
use bufferlab_engine::time::PS_PER_SEC;
use bufferlab_engine::{config_from_json, Simulation};
use common::assert_conserved;

/// Two 100 Mb/s egress ports of one switch, `n1` and `n2` NewReno flows through them (RTT 2 ms, 1000-byte
/// packets), each port's own queue `queue`, and the pool `pool` (a `[[shared_buffers]]` table's fields).
fn scenario(n1: u32, n2: u32, queue: &str, pool: &str, tcp: &str) -> String {
    format!(
        r#"{{"seed": 2, "duration": "4s", "warmup": "1s",
            "links": [{{"name": "to-a", "rate": "100Mbps", "delay": "100us", "queue": {queue}}},
                      {{"name": "to-b", "rate": "100Mbps", "delay": "100us", "queue": {queue}}}],
            "shared_buffers": [{{"name": "tor", "ports": ["to-a", "to-b"], {pool}}}],
            "flows": [{{"name": "a", "count": {n1}, "rtt": "2ms", "route": ["to-a"], "start": {{"uniform": ["0s", "0.1s"]}}}},
                      {{"name": "b", "count": {n2}, "rtt": "2ms", "route": ["to-b"], "start": {{"uniform": ["0s", "0.1s"]}}}}],
            "tcp": {{"packet_size": "1000B"{tcp}}}}}"#
    )
}

const BIG: &str = r#"{"discipline": "droptail", "limit": 10000}"#;

fn conserving(s: &str) -> Results {
    let mut sim = Simulation::new(config_from_json(s).unwrap()).unwrap();
    for k in 1..=8 {
        sim.run_until(k * PS_PER_SEC / 2);
        assert_conserved(&sim, &format!("step {k}"));
    }
    sim.finish()
}

fn max_bytes(p: &PortResult) -> f64 {
    p.queue_max_pkts * 1000.0
}

#[test]
fn dynamic_threshold_bounds_each_port_and_shares_the_pool() {
    // 300 KB, α = 1: a port alone holds below B/2, two congested ports below B/3 each (+ one packet).
    let r = conserving(&scenario(20, 20, BIG, r#""size": "300KB", "alpha": 1"#, ""));
    let (a, b) = (&r.ports[0], &r.ports[1]);
    eprintln!(
        "both busy: max {} / {} B, pool mean {:.0} max {:?} B, refused {:?} {:?}",
        max_bytes(a),
        max_bytes(b),
        a.shared_buffer_occupancy_mean_bytes.unwrap(),
        a.shared_buffer_occupancy_max_bytes,
        a.drop_reasons.get("shared-buffer"),
        b.drop_reasons.get("shared-buffer")
    );
    for p in [a, b] {
        assert!(max_bytes(p) <= 150_000.0, "{}: {}", p.name, max_bytes(p));
        assert!(p.drop_reasons["shared-buffer"] > 0 && !p.drop_reasons.contains_key("overflow"));
        assert_eq!(p.shared_buffer.as_deref(), Some("tor"));
        assert!(p.utilization > 0.9);
    }
    assert!(a.shared_buffer_occupancy_max_bytes.unwrap() <= 300_000);
    // Both ports congested: together they settle near 2B/3 and neither reaches B/2.
    let pool_max = a.shared_buffer_occupancy_max_bytes.unwrap() as f64;
    assert!(pool_max > 150_000.0 && pool_max <= 300_000.0, "{pool_max}");
    // One congested port (the other carries one flow) may take up to α B / (1 + α) = B/2.
    let r = run_json(&scenario(20, 1, BIG, r#""size": "300KB", "alpha": 1"#, "")).unwrap();
    assert!(
        max_bytes(&r.ports[0]) > 110_000.0 && max_bytes(&r.ports[0]) <= 150_000.0,
        "{}",
        max_bytes(&r.ports[0])
    );
    // α per port: the port with α = 1/4 is held to a fifth of what it would hold alone.
    let r = run_json(&scenario(20, 20, BIG, r#""size": "300KB", "alpha": [4, 0.25]"#, "")).unwrap();
    assert!(max_bytes(&r.ports[1]) < 0.25 * 300_000.0, "{}", max_bytes(&r.ports[1]));
    assert!(max_bytes(&r.ports[0]) > max_bytes(&r.ports[1]) * 2.0);
}

#[test]
fn static_split_bounds_each_port_at_its_limit() {
    let r = conserving(&scenario(
        20,
        1,
        BIG,
        r#""size": "300KB", "admission": "static", "port_limit": "50KB""#,
        "",
    ));
    for p in &r.ports {
        assert!(max_bytes(p) <= 50_000.0, "{}: {}", p.name, max_bytes(p));
    }
    assert!(r.ports[0].drop_reasons["shared-buffer"] > 0);
}

#[test]
fn step_marking_on_top_of_dynamic_threshold() {
    let step = r#"{"discipline": "step", "threshold": 20, "limit": 10000}"#;
    let r = conserving(&scenario(
        10,
        10,
        step,
        r#""size": "300KB""#,
        r#", "congestion_control": "dctcp", "ecn": true"#,
    ));
    for p in &r.ports {
        assert!(
            p.marks > 0 && p.queue_mean_pkts < 40.0,
            "{}: {} marks, queue {}",
            p.name,
            p.marks,
            p.queue_mean_pkts
        );
        assert!(p.utilization > 0.95);
    }
}

#[test]
fn shared_buffer_errors_name_the_field() {
    let field = |pool: &str| run_json(&scenario(2, 2, BIG, pool, "")).unwrap_err().field;
    assert_eq!(field(r#""size": "300KB", "alpha": 100"#), "shared_buffers[0].alpha");
    assert_eq!(field(r#""size": "300KB", "alpha": [1, 2, 3]"#), "shared_buffers[0].alpha");
    assert_eq!(field(r#""size": "10B""#), "shared_buffers[0].size");
    assert_eq!(field(r#""size": "300KB", "admission": "static""#), "shared_buffers[0].port_limit");
    assert_eq!(field(r#""size": "300KB", "port_limit": "10KB""#), "shared_buffers[0].port_limit");
    assert_eq!(field(r#""size": "300KB", "admission": "shared""#), "shared_buffers[0].admission");
    let unknown =
        scenario(2, 2, BIG, r#""size": "300KB""#, "").replace(r#"["to-a", "to-b"]"#, r#"["to-a", "to-c"]"#);
    assert_eq!(run_json(&unknown).unwrap_err().field, "shared_buffers[0].ports[1]");
    let twice = scenario(2, 2, BIG, r#""size": "300KB""#, "").replace(
        r#"{"name": "tor", "ports": ["to-a", "to-b"], "size": "300KB"}"#,
        r#"{"name": "tor", "ports": ["to-a"], "size": "300KB"}, {"name": "agg", "ports": ["to-b", "to-a"], "size": "1MB"}"#,
    );
    assert_eq!(run_json(&twice).unwrap_err().field, "shared_buffers[1].ports[1]");
}
