//! What a run returns: summary metrics, one row per flow, and the sampled time series.

use serde::Serialize;

/// Summary metrics over [warmup, duration]; the conservation counts (`sent`, `delivered`, `dropped`,
/// `in_flight`) cover the whole run and satisfy `sent = delivered + dropped + in_flight`.
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct Summary {
    pub name: String,
    pub seed: u64,
    pub flows: u64,
    pub duration_s: f64,
    pub warmup_s: f64,
    pub utilization: f64,
    pub throughput_bps: f64,
    pub goodput_bps: f64,
    pub arrivals: u64,
    pub departures: u64,
    pub drops_overflow: u64,
    pub drops_early: u64,
    pub drops_forced: u64,
    pub drops: u64,
    pub marks: u64,
    pub loss_rate: f64,
    pub mark_rate: f64,
    pub queue_mean_pkts: f64,
    pub queue_p50_pkts: f64,
    pub queue_p90_pkts: f64,
    pub queue_p99_pkts: f64,
    pub queue_max_pkts: f64,
    pub delay_mean_s: f64,
    pub delay_std_s: f64,
    pub delay_p50_s: f64,
    pub delay_p90_s: f64,
    pub delay_p99_s: f64,
    pub jain_index: f64,
    pub timeouts: u64,
    pub fast_retransmits: u64,
    pub retransmits: u64,
    pub sent: u64,
    pub delivered: u64,
    pub dropped: u64,
    pub in_flight: u64,
    pub events: u64,
}

/// One flow over the measurement window (counters from the sender cover the whole run).
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct FlowResult {
    pub flow: u32,
    pub rtt_s: f64,
    pub start_s: f64,
    pub goodput_bps: f64,
    pub throughput_bps: f64,
    pub sent: u64,
    pub retransmits: u64,
    pub timeouts: u64,
    pub fast_recoveries: u64,
    pub ecn_reductions: u64,
    pub drops: u64,
    pub marks: u64,
    pub final_cwnd: f64,
    pub srtt_s: f64,
}

/// One open-loop source over the measurement window (`sent` covers the whole run).
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct UdpResult {
    pub source: u32,
    pub sent: u64,
    pub delivered: u64,
    pub drops: u64,
    /// drops / (delivered + drops) in the window.
    pub loss_rate: f64,
}

/// Sampled time series: queue length, and per-flow cwnd when asked for.
#[derive(Clone, Debug, Default, Serialize, PartialEq)]
pub struct Series {
    pub time_s: Vec<f64>,
    pub queue_pkts: Vec<f64>,
    /// `cwnd[i]` is flow i's congestion window (segments) at each sample.
    pub cwnd: Vec<Vec<f64>>,
}

impl Series {
    pub fn new(flows_with_cwnd: usize) -> Self {
        Series { cwnd: vec![Vec::new(); flows_with_cwnd], ..Default::default() }
    }
}

/// Everything a run produces.
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct Results {
    pub summary: Summary,
    pub flows: Vec<FlowResult>,
    pub udp: Vec<UdpResult>,
    pub series: Series,
}
