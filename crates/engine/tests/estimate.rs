//! The memory estimate against what a run really uses: 100,000 flows for 0.2 s, the peak resident memory
//! the process gains while it builds, runs and finishes. (Alone in its test binary, so that no other test
//! allocates meanwhile.)

use bufferlab_engine::scenario::estimate::{FLOW_RESULT_BYTES, PROCESS_BYTES};
use bufferlab_engine::{config_from_json, Simulation};

/// A field of `/proc/self/status` in bytes (`VmRSS`, `VmHWM`).
#[cfg(target_os = "linux")]
fn status_bytes(field: &str) -> f64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap();
    let line = status.lines().find(|l| l.starts_with(field)).unwrap();
    let kb: f64 = line.split_whitespace().nth(1).unwrap().parse().unwrap();
    kb * 1024.0
}

#[cfg(target_os = "linux")]
#[test]
fn memory_estimate_is_within_a_factor_of_two_of_the_peak() {
    let text = r#"{"duration": "0.2s", "bottleneck": {"rate": "1Gbps", "delay": "10ms",
        "queue": {"discipline": "droptail", "limit": 1000}},
        "flows": {"count": 100000, "rtt": {"uniform": ["50ms", "150ms"]}, "start": {"uniform": ["0s", "0.2s"]}}}"#;
    let before = status_bytes("VmRSS:");
    let cfg = config_from_json(text).unwrap();
    // The engine's part: without the result rows that Python's tables add once the run ends, nor the
    // Python process itself.
    let estimate = cfg.estimate.memory_bytes() - 100_000.0 * FLOW_RESULT_BYTES - PROCESS_BYTES;
    let results = Simulation::new(cfg).unwrap().finish();
    let peak = status_bytes("VmHWM:");
    let used = peak - before;
    assert_eq!(results.summary.flows, 100_000);
    assert!(
        (0.5..=2.0).contains(&(estimate / used)),
        "estimate {:.0} MB, used {:.0} MB",
        estimate / 1e6,
        used / 1e6
    );
}
