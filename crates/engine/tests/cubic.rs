//! CUBIC (RFC 9438) in whole simulations: conservation, a full bottleneck, the cubic sawtooth (concave up to
//! W_max, reached about K seconds after the reduction), and CUBIC beside NewReno.

mod common;

use bufferlab_engine::{config_from_json, run_json, Simulation};
use common::assert_conserved;

fn one_flow(cc: &str) -> String {
    format!(
        r#"{{"seed": 3, "duration": "60s", "warmup": "10s",
            "bottleneck": {{"rate": "20Mbps", "delay": "5ms", "queue": {{"discipline": "droptail", "limit": 100}}}},
            "tcp": {{"congestion_control": {cc}}},
            "flows": {{"count": 1, "rtt": "100ms"}},
            "monitor": {{"sample_interval": "10ms", "cwnd": true}}}}"#
    )
}

#[test]
fn one_flow_follows_the_cubic_curve() {
    // Without fast convergence W_max is the window at each loss (§4.7). After a reduction from P to T the
    // window climbs W(t) = C(t − K)³ + P with K = cbrt((P − T)/C): concave, flattening at P about K s later.
    let r = run_json(&one_flow(r#"{"kind": "cubic", "fast_convergence": false}"#)).unwrap();
    assert_eq!(r.summary.sent, r.summary.delivered + r.summary.dropped + r.summary.in_flight);
    eprintln!("utilization {:.4}", r.summary.utilization);
    assert!(r.summary.utilization > 0.95, "{}", r.summary.utilization);
    let mut cycles = 0;
    let (t, w) = (&r.series.time_s, &r.series.cwnd[0]);
    let at = |s: f64| w[t.iter().position(|&x| x >= s).unwrap()];
    // Reductions after the warm-up: (sample index, peak before, trough after, the stage's start).
    let mut cuts = Vec::new();
    let mut i = 1;
    while i < w.len() {
        if w[i] < 0.9 * w[i - 1] && t[i] > 10.0 {
            let (peak, trough) = (w[i - 1], w[i]);
            // The stage starts when recovery ends: the last sample still at the trough.
            let mut j = i;
            while j + 1 < w.len() && w[j + 1] == trough {
                j += 1;
            }
            cuts.push((i, peak, trough, t[j]));
            i = j + 1;
        } else {
            i += 1;
        }
    }
    for pair in cuts.windows(2) {
        let ((_, peak, trough, epoch), (next, next_peak, _, _)) = (pair[0], pair[1]);
        let k = ((peak - trough) / 0.4).cbrt();
        let (half, cut_at) = (at(epoch + k / 2.0), t[next]);
        eprintln!(
            "P {peak:.1} T {trough:.1} K {k:.2} s: W(K/2) {half:.1}, next loss {:.2} s later at {next_peak:.1}",
            cut_at - epoch
        );
        // W(K/2) = P − C(K/2)³ (the target runs one RTT ahead of t: a few segments).
        let curve = peak - 0.4 * (k / 2.0).powi(3);
        assert!((half - curve).abs() < 5.0, "W(K/2) {half} against {curve}");
        // Concave: 7/8 of the climb in the first half.
        assert!(half - trough > 3.0 * (next_peak - half), "concave: {trough} {half} {next_peak}");
        // Back at the same W_max (the buffer overflows at the same window) about K s later; the curve is
        // within 2 segments of W_max from K − 1.7 s on.
        assert!((next_peak - peak).abs() < 3.0, "peaks {peak} {next_peak}");
        assert!(
            cut_at - epoch > k - 2.0 && cut_at - epoch < k + 1.5,
            "loss {} s after, K {k}",
            cut_at - epoch
        );
        cycles += 1;
    }
    assert!(cycles >= 3, "{cycles} sawtooth cycles");
}

#[test]
fn fills_the_bottleneck_and_is_deterministic() {
    let s = r#"{"seed": 5, "duration": "30s", "warmup": "5s",
        "bottleneck": {"rate": "100Mbps", "delay": "5ms", "queue": {"discipline": "droptail", "limit": 200}},
        "tcp": {"congestion_control": "cubic"},
        "flows": {"count": 4, "rtt": {"uniform": ["40ms", "120ms"]}, "start": {"uniform": ["0s", "1s"]}}}"#;
    let mut sim = Simulation::new(config_from_json(s).unwrap()).unwrap();
    for k in 1..=30 {
        sim.run_until(k * 1_000_000_000_000);
        assert_conserved(&sim, &format!("at {k} s"));
    }
    let r = sim.finish();
    assert_eq!(r.groups[0].congestion_control, "cubic");
    eprintln!("utilization {:.4}", r.summary.utilization);
    assert!(r.summary.utilization > 0.95, "{}", r.summary.utilization);
    assert!(r.summary.dropped > 0 && r.groups[0].tcp.fast_recoveries > 0);
    assert_eq!(run_json(s).unwrap(), r);
}

#[test]
fn cubic_beside_newreno() {
    let s = r#"{"seed": 7, "duration": "40s", "warmup": "10s",
        "bottleneck": {"rate": "100Mbps", "delay": "5ms", "queue": {"discipline": "droptail", "limit": 400}},
        "flows": [{"name": "cubic", "count": 5, "rtt": "100ms", "start": {"uniform": ["0s", "1s"]},
                   "tcp": {"congestion_control": "cubic"}},
                  {"name": "newreno", "count": 5, "rtt": "100ms", "start": {"uniform": ["0s", "1s"]}}]}"#;
    let r = run_json(s).unwrap();
    assert_eq!(r.summary.sent, r.summary.delivered + r.summary.dropped + r.summary.in_flight);
    eprintln!("utilization {:.4}", r.summary.utilization);
    assert!(r.summary.utilization > 0.95, "{}", r.summary.utilization);
    let (cubic, reno) = (r.groups[0].goodput_bps, r.groups[1].goodput_bps);
    eprintln!("cubic {:.1} Mb/s, newreno {:.1} Mb/s", cubic / 1e6, reno / 1e6);
    assert!(cubic > 10e6 && reno > 10e6, "cubic {cubic}, newreno {reno}");
    // At this bandwidth-delay product CUBIC's growth beats Reno's.
    assert!(cubic > reno, "cubic {cubic}, newreno {reno}");
}

#[test]
fn bad_parameters_name_the_field() {
    let field = |cc: &str| config_from_json(&one_flow(cc)).unwrap_err().field;
    assert_eq!(field(r#"{"kind": "cubic", "beta": 1.2}"#), "tcp.congestion_control.beta");
    assert_eq!(field(r#"{"kind": "cubic", "c": -1}"#), "tcp.congestion_control.c");
    assert_eq!(field(r#"{"kind": "cubic", "hystart": true}"#), "tcp.congestion_control.hystart");
    let c = config_from_json(&one_flow(r#""cubic""#)).unwrap().to_json();
    let cc = &c["groups"][0]["congestion_control"];
    assert_eq!(
        (cc["kind"].as_str(), cc["c"].as_f64(), cc["beta"].as_f64()),
        (Some("cubic"), Some(0.4), Some(0.7))
    );
    assert_eq!((cc["fast_convergence"].as_bool(), cc["reno_friendly"].as_bool()), (Some(true), Some(true)));
    assert_eq!(cc["reduce_from"], "in-flight");
}
