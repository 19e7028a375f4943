//! `[trace]`: tracing changes no result; the event records agree with the engine's own counters; the
//! pcap holds what the traced port transmitted; filters, caps and bad tables.

use bufferlab_engine::trace::{EventColumns, KIND_NAMES};
use bufferlab_engine::{config_from_json, run_json, Simulation};

/// A lossy RED/ECN dumbbell (early and forced drops; the buffer never overflows, so every marked packet
/// leaves the port); the flows stop at 6 s so the queue has drained by the end.
fn scenario(trace: &str) -> String {
    format!(
        r#"{{"seed": 5, "duration": "8s",
            "bottleneck": {{"rate": "10Mbps", "delay": "5ms",
                            "queue": {{"discipline": "red", "limit": 300, "min_th": 5, "max_th": 15, "ecn": true}}}},
            "flows": [{{"count": 12, "rtt": {{"uniform": ["40ms", "120ms"]}}, "stop": "6s",
                        "tcp": {{"ecn": true, "delayed_ack": true}}}},
                      {{"name": "plain", "count": 4, "rtt": "60ms", "stop": "6s"}}],
            "udp": [{{"pattern": "poisson", "rate": "1Mbps", "stop": "6s"}}]
            {trace}}}"#
    )
}

fn kind(name: &str) -> u8 {
    KIND_NAMES.iter().position(|k| *k == name).unwrap() as u8
}

fn count(c: &EventColumns, name: &str) -> u64 {
    c.kind.iter().filter(|&&k| k == kind(name)).count() as u64
}

/// Run to the end, draining the records every 0.5 s as the Python binding does.
fn traced(trace: &str) -> (Simulation, EventColumns) {
    let mut sim = Simulation::new(config_from_json(&scenario(trace)).unwrap()).unwrap();
    let mut all = EventColumns::default();
    for k in 1..=16u64 {
        sim.run_until(k * 500_000_000_000);
        let c = sim.take_trace_events().unwrap();
        all.time.extend(c.time);
        all.kind.extend(c.kind);
        all.flow.extend(c.flow);
        all.packet.extend(c.packet);
        all.retransmit.extend(c.retransmit);
        all.ecn.extend(c.ecn);
        all.seq.extend(c.seq);
        all.reason.extend(c.reason);
        all.reasons = c.reasons;
    }
    (sim, all)
}

fn tmp(name: &str) -> String {
    let dir = std::env::temp_dir().join(format!("bufferlab-trace-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir.join(name).to_string_lossy().into_owned()
}

#[test]
fn tracing_changes_no_result() {
    let plain = run_json(&scenario("")).unwrap();
    let pcap = tmp("same.pcap");
    let with = run_json(&scenario(&format!(r#", "trace": {{"events": true, "pcap": "{pcap}"}}"#))).unwrap();
    assert_eq!(plain, with);
    assert!(plain.summary.marks > 100 && plain.summary.drops > 10, "a lossy, marking run");
}

#[test]
fn event_records_match_the_counters() {
    let (sim, ev) = traced(r#", "trace": {"events": true}"#);
    // The port's whole run: arrivals are `sent`, departures `delivered`, the packets it holds `in_network`.
    let totals = sim.port_conservation(0);
    assert_eq!(totals.in_network, 0, "drained by the end");
    let results = sim.finish();
    let port = &results.ports[0];
    // The window starts at 0, so the port's statistics cover the whole run.
    assert_eq!(count(&ev, "drop"), port.drops);
    assert_eq!(count(&ev, "drop"), totals.dropped);
    assert_eq!(count(&ev, "mark"), port.marks);
    assert_eq!(count(&ev, "dequeue"), totals.delivered);
    assert_eq!(count(&ev, "enqueue") + count(&ev, "drop"), totals.sent, "no push-out in RED");
    let sent: u64 = results.flows.iter().map(|f| f.tcp.sent).sum();
    let retransmits: u64 = results.flows.iter().map(|f| f.tcp.retransmits).sum();
    let timeouts: u64 = results.flows.iter().map(|f| f.tcp.timeouts).sum();
    let sends = |rtx: bool| {
        ev.kind.iter().zip(&ev.retransmit).filter(|(&k, &r)| k == kind("send") && r == rtx).count() as u64
    };
    assert_eq!(sends(false) + sends(true), sent);
    assert_eq!(sends(true), retransmits);
    assert_eq!(count(&ev, "timeout"), timeouts);
    assert!(timeouts + results.summary.fast_retransmits > 0);
    let reasons: Vec<&str> = ev.reason.iter().filter(|&&r| r > 0).map(|&r| ev.reasons[r as usize]).collect();
    assert!(reasons.contains(&"early") && reasons.contains(&"forced") && !reasons.contains(&"overflow"));
    // Every mark is of an ECN-capable data packet, never a retransmission (RFC 3168 §6.1.5).
    for i in 0..ev.kind.len() {
        if ev.kind[i] == kind("mark") {
            assert_eq!((ev.packet[i], ev.retransmit[i], ev.ecn[i]), (0, false, 2));
        }
    }
}

#[test]
fn filters_and_cap() {
    let (_, ev) = traced(
        r#", "trace": {"events": true, "flows": [1, "3-4"], "kinds": ["send", "drop"], "start": "1s", "stop": "2s"}"#,
    );
    assert!(!ev.kind.is_empty());
    assert!(ev.flow.iter().all(|f| [1, 3, 4].contains(f)));
    assert!(ev.kind.iter().all(|&k| k == kind("send") || k == kind("drop")));
    assert!(ev.time.iter().all(|&t| (1_000_000_000_000..=2_000_000_000_000).contains(&t)));
    assert!(ev.packet.iter().all(|&p| p != 2), "no datagrams when flows are named");
    let (mut sim, ev) = traced(r#", "trace": {"events": true, "max_events": 1000}"#);
    assert_eq!(ev.kind.len(), 1000);
    let report = sim.end_trace().unwrap();
    assert_eq!(report.events, 1000);
    assert!(report.events_over_cap > 10_000);
}

/// The pcap's records: (timestamp ns, original length, captured bytes).
fn read_pcap(path: &str) -> Vec<(u64, u32, Vec<u8>)> {
    let bytes = std::fs::read(path).unwrap();
    assert_eq!(&bytes[..4], &0xa1b23c4du32.to_le_bytes(), "nanosecond pcap");
    assert_eq!(u32::from_le_bytes(bytes[20..24].try_into().unwrap()), 228, "LINKTYPE_IPV4");
    let mut out = Vec::new();
    let mut i = 24;
    while i < bytes.len() {
        let w = |o: usize| u32::from_le_bytes(bytes[i + o..i + o + 4].try_into().unwrap()) as u64;
        let (ts, caplen, len) = (w(0) * 1_000_000_000 + w(4), w(8) as usize, w(12) as u32);
        out.push((ts, len, bytes[i + 16..i + 16 + caplen].to_vec()));
        i += 16 + caplen;
    }
    out
}

#[test]
fn pcap_holds_the_ports_transmissions() {
    let path = tmp("port.pcap");
    let (sim, _) = traced(&format!(r#", "trace": {{"pcap": "{path}", "snaplen": 64}}"#));
    // The port's departures over the whole run.
    let departures = sim.port_conservation(0).delivered;
    let results = sim.finish();
    let records = read_pcap(&path);
    assert!(!std::path::Path::new(&format!("{path}.part")).exists());
    let data: Vec<_> = records.iter().filter(|r| r.2[9] == 17 || (r.2[9] == 6 && r.1 > 100)).collect();
    assert_eq!(data.len() as u64, departures, "every packet the port transmitted");
    let ce = data.iter().filter(|r| r.2[1] & 3 == 3).count() as u64;
    assert_eq!(ce, results.ports[0].marks, "every CE mark, the queue being drained");
    assert!(records.windows(2).all(|w| w[0].0 <= w[1].0), "in time order");
    assert!(records.iter().all(|r| r.2.len() == 64.min(r.1 as usize)));
    let acks = records.iter().filter(|r| r.2[9] == 6 && r.1 <= 100).count();
    assert!(acks > data.len() / 3, "ACKs pass the port's router on their way back");
}

#[test]
fn bad_trace_tables_name_the_field() {
    for (trace, field) in [
        (r#"{}"#, "trace"),
        (r#"{"events": true, "kinds": ["sent"]}"#, "trace.kinds[0]"),
        (r#"{"events": true, "flows": ["7-3"]}"#, "trace.flows[0]"),
        (r#"{"events": true, "flows": [-1]}"#, "trace.flows[0]"),
        (r#"{"events": true, "ports": ["nowhere"]}"#, "trace.ports[0]"),
        (r#"{"events": true, "stop": "9s"}"#, "trace.stop"),
        (r#"{"events": true, "max_events": 0}"#, "trace.max_events"),
        (r#"{"events": true, "snaplen": 64}"#, "trace.snaplen"),
        (r#"{"pcap": "x.pcap", "port": "hop1"}"#, "trace.port"),
        (r#"{"pcap": "x.pcap", "snaplen": 10}"#, "trace.snaplen"),
        (r#"{"events": true, "colour": 1}"#, "trace.colour"),
    ] {
        let e = config_from_json(&scenario(&format!(r#", "trace": {trace}"#))).unwrap_err();
        assert_eq!(e.field, field, "{trace}: {e}");
    }
    let e = config_from_json(&scenario(r#", "trace": {"events": true, "max_events": 1e10}"#)).unwrap_err();
    assert_eq!(e.field, "trace.max_events", "the cap's memory counts in the estimate: {e}");
}

#[test]
fn an_unfinished_run_leaves_no_pcap() {
    let path = tmp("dropped.pcap");
    let mut sim =
        Simulation::new(config_from_json(&scenario(&format!(r#", "trace": {{"pcap": "{path}"}}"#))).unwrap())
            .unwrap();
    sim.run_until(1_000_000_000_000);
    assert!(std::path::Path::new(&format!("{path}.part")).exists(), "written as it runs");
    drop(sim);
    assert!(!std::path::Path::new(&format!("{path}.part")).exists() && !std::path::Path::new(&path).exists());
    let e = config_from_json(&scenario(r#", "trace": {"pcap": "/nonexistent-dir/x.pcap"}"#))
        .and_then(Simulation::new)
        .err()
        .unwrap();
    assert_eq!(e.field, "trace.pcap", "{e}");
}
