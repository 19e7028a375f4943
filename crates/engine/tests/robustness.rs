//! Results that stay valid at the edges: utilization with a packet straddling the warm-up or the end, flows
//! without an RTT sample, the clock near its range, runs stopped early and sliced by event budgets.

mod common;

use bufferlab_engine::results::non_finite_fields;
use bufferlab_engine::{config_from_json, time, Simulation};
use common::assert_conserved;
use proptest::prelude::*;

fn sim(text: &str) -> Simulation {
    Simulation::new(config_from_json(text).unwrap()).unwrap()
}

/// Validation scenario v03 (`validation/scenarios/v03-10flows-droptail-0.5bdp.toml`) with the overrides
/// `bottleneck.rate`, `tcp.packet_size`, `duration` and `warmup`.
fn v03(rate: &str, packet_size: &str, duration: &str, warmup: &str) -> String {
    format!(
        r#"{{"name": "v03-10flows-droptail-0.5bdp", "seed": 1, "duration": "{duration}", "warmup": "{warmup}",
        "bottleneck": {{"rate": "{rate}", "delay": "5ms", "queue": {{"discipline": "droptail", "limit": 125}}}},
        "flows": {{"count": 10, "rtt": "100ms", "access_rate": "1Gbps", "start": {{"uniform": ["0s", "1s"]}}}},
        "tcp": {{"packet_size": "{packet_size}", "header_size": "40B", "initial_window": 10, "min_rto": "200ms",
                "delayed_ack": false, "sack": true, "ssthresh_from": "pipe", "rto_backoff": "new-ack", "ecn": false}},
        "monitor": {{"sample_interval": "10ms"}}}}"#
    )
}

/// The audit's reproduction: 1,500-byte packets take 12 ms at 1 Mb/s, and one was in service at the
/// warm-up (0.8976 s); counting it whole gave 101.6 %.
#[test]
fn a_packet_straddling_the_warmup_counts_for_its_part_inside() {
    let r = sim(&v03("1Mbps", "1500B", "1.5s", "0.8976")).finish();
    let u = r.summary.utilization;
    assert!(u <= 1.0 && u > 0.99, "{u}");
    assert!(r.summary.throughput_bps <= 1e6, "{}", r.summary.throughput_bps);
    assert!(non_finite_fields(&r).is_empty(), "{:?}", non_finite_fields(&r));
}

proptest! {
    #![proptest_config(ProptestConfig { cases: common::cases(16), ..ProptestConfig::default() })]

    /// Utilization stays in [0, 1] wherever the warm-up falls, and throughput at most the link rate.
    #[test]
    fn utilization_is_a_fraction_for_any_warmup(warmup_us in 1u64..1_499_000, rate_kbps in 200u64..2000) {
        let warmup = format!("{}us", warmup_us);
        let rate = format!("{rate_kbps}kbps");
        let r = sim(&v03(&rate, "1500B", "1.5s", &warmup)).finish();
        for p in &r.ports {
            prop_assert!((0.0..=1.0).contains(&p.utilization), "{} at warm-up {warmup}", p.utilization);
            prop_assert!(p.throughput_bps <= p.rate_bps, "{} at warm-up {warmup}", p.throughput_bps);
        }
    }
}

/// A flow that starts at the end never gets an RTT sample: its `srtt_s` is `None` (JSON `null`), and no
/// result field is NaN.
#[test]
fn flows_without_an_rtt_sample_have_no_srtt() {
    let text = r#"{"duration": "2s", "bottleneck": {"rate": "10Mbps", "delay": "10ms",
        "queue": {"discipline": "droptail", "limit": 50}},
        "flows": {"count": 5, "rtt": "50ms", "start": ["0s", "0s", "0s", "0s", "2s"]}}"#;
    let r = sim(text).finish();
    assert_eq!(r.flows[4].srtt_s, None);
    assert!(r.flows[0].srtt_s.is_some_and(f64::is_finite));
    assert!(non_finite_fields(&r).is_empty(), "{:?}", non_finite_fields(&r));
    let json = serde_json::to_value(&r.flows[4]).unwrap();
    assert!(json["srtt_s"].is_null());
}

/// A run of 1.5e7 s (174 days) with samples every 1e5 s: sample times never wrap, the last is at the
/// end; an arrival process of one flow per million seconds draws gaps beyond the clock's range without
/// overflowing.
#[test]
fn long_runs_keep_time_in_range() {
    let text = r#"{"duration": "1.5e7s", "bottleneck": {"rate": "1Mbps", "queue": {"discipline": "droptail", "limit": 50}},
        "udp": [{"pattern": "cbr", "rate": "1Mbps", "stop": "1s"}],
        "flows": [{"rtt": "10ms", "size": "10KB", "arrival": {"rate": 1e-6}}],
        "monitor": {"sample_interval": "1e5s"}}"#;
    let r = sim(text).finish();
    let t = &r.series.time_s;
    assert_eq!(t.len(), 151);
    assert!(t.windows(2).all(|w| w[1] > w[0]), "sample times go forward");
    assert_eq!(*t.last().unwrap(), 1.5e7);
    assert_eq!(r.summary.duration_s, 1.5e7);
    for seed in 0..200 {
        let text = format!(
            r#"{{"seed": {seed}, "duration": "1.5e7s", "bottleneck": {{"rate": "1Mbps", "queue": {{"discipline": "droptail", "limit": 50}}}},
            "flows": [{{"rtt": "10ms", "size": "10KB", "arrival": {{"rate": 1e-6}}}}]}}"#
        );
        let r = sim(&text).finish();
        assert!(r.summary.flows_started <= 100, "seed {seed}");
    }
}

/// Slicing a run by event budgets changes nothing; a run stopped early reports its window and is marked
/// partial; before the warm-up ends there is nothing to report.
#[test]
fn runs_sliced_by_event_budgets_and_stopped_early() {
    let text = v03("20Mbps", "1000B", "4s", "1s");
    let whole = sim(&text).finish();
    let mut s = sim(&text);
    let mut slices = 0;
    while !s.run_for(time::from_secs(4.0), 97) {
        slices += 1;
        if slices % 50 == 0 {
            assert_conserved(&s, &format!("slice {slices}"));
        }
    }
    assert!(s.done() && slices > 100);
    assert_eq!(s.finish(), whole);

    let mut s = sim(&text);
    s.run_until(time::from_secs(0.5));
    assert!(s.finish_now().is_none(), "stopped during the warm-up");
    let mut s = sim(&text);
    s.run_until(time::from_secs(2.5));
    let r = s.finish_now().unwrap();
    assert!(r.summary.partial);
    assert_eq!((r.summary.warmup_s, r.summary.duration_s), (1.0, 2.5));
    assert_eq!(r.summary.sent, r.summary.delivered + r.summary.dropped + r.summary.in_flight);
    assert!((0.0..=1.0).contains(&r.summary.utilization));
    assert!(non_finite_fields(&r).is_empty());
    assert!(!whole.summary.partial);
}

/// FQ-CoDel drops from the head of the fattest queue, so in a 12 ms window it dropped more packets than
/// arrived in it (14 drops, 10 arrivals: a loss rate of 1.4 as drops / arrivals): rates count the packets held at the warm-up too.
/// Found by `fuzz::small_scenarios_run_cleanly`.
#[test]
fn loss_and_mark_rates_count_what_was_queued_at_the_warmup() {
    let text = r#"{"seed": 9049895166202507608, "duration": 0.596, "warmup": 0.584419,
        "bottleneck": {"rate": "1Mbps", "delay": "15ms", "queue": {"discipline": "fq-codel", "limit": 15}},
        "flows": {"count": 2, "rtt": {"uniform": [0.04, 0.12]}, "start": {"uniform": ["0s", 0.298]}},
        "tcp": {"congestion_control": "cubic", "delayed_ack": false, "max_window": 1000, "packet_size": 500},
        "udp": [{"pattern": "poisson", "rate": "2928kbps", "packet_size": 914}]}"#;
    let r = sim(text).finish();
    let p = &r.ports[0];
    assert!(p.drops > p.arrivals, "{p:?}");
    assert!((0.0..=1.0).contains(&p.loss_rate) && (0.0..=1.0).contains(&p.mark_rate), "{p:?}");
}

/// A retransmission timer far shorter than the host's queueing (the audit's N5: 1 µs RTOs behind a 1 kb/s
/// access link) resends the head once and then waits for that copy to leave the host: one timeout per flow
/// over 50 ms, not one per microsecond, with every packet accounted for.
#[test]
fn timeouts_shorter_than_the_host_queue_do_not_stack_copies() {
    let text = r#"{"duration": "50ms", "bottleneck": {"rate": "10Mbps", "delay": "10ms",
        "queue": {"discipline": "droptail", "limit": 50}},
        "flows": {"count": 10, "rtt": "50ms", "access_rate": "1kbps"},
        "tcp": {"min_rto": "1us", "initial_rto": "1us", "max_rto": "1us"}}"#;
    let mut s = sim(text);
    s.run_until(time::from_secs(0.05));
    assert_conserved(&s, "1 us timers behind a 1 kb/s host");
    let r = s.finish();
    assert_eq!(r.summary.timeouts, 10);
    assert_eq!(r.summary.retransmits, 10);
    assert_eq!(r.summary.sent, 10 * 11, "the initial window and one retransmission per flow");
}

/// Discipline timers count in the events estimate (N6): a BLUE updated every microsecond for 180 days is
/// refused naming `freeze_time`, and so are ARED's timer, PIE's `t_update` and ODT/OB's period.
#[test]
fn discipline_timers_count_in_the_events_estimate() {
    let with = |queue: &str| {
        format!(
            r#"{{"duration": "15552000s", "bottleneck": {{"rate": "1Mbps", "delay": "10ms", "queue": {queue}}},
            "flows": {{"count": 1, "rtt": "50ms"}}}}"#
        )
    };
    let cases = [
        (r#"{"discipline": "blue", "limit": 50, "update": "interval", "freeze_time": "1us"}"#, "freeze_time"),
        (r#"{"discipline": "ared", "limit": 50, "update": "timer", "interval": "1us"}"#, "interval"),
        (r#"{"discipline": "pie", "limit": 50, "t_update": "1us"}"#, "t_update"),
        (r#"{"discipline": "odt", "limit": 50, "interval": "1ms"}"#, "interval"),
        (r#"{"discipline": "ob", "limit": 50, "interval": "1ms"}"#, "interval"),
    ];
    for (queue, param) in cases {
        let e = config_from_json(&with(queue)).unwrap_err();
        assert_eq!(e.field, format!("bottleneck.queue.{param}"), "{queue}: {}", e.message);
        assert!(e.message.contains("discipline timer"), "{}", e.message);
    }
    // Event mode has no timer: the same BLUE is accepted.
    let event_mode = with(r#"{"discipline": "blue", "limit": 50, "update": "event", "freeze_time": "1us"}"#);
    assert!(config_from_json(&event_mode).is_ok());
}
