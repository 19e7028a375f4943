//! BBR v1 (Cardwell et al., ACM Queue 2016; draft-cardwell-iccrg-bbr-congestion-control-00), as ns-3
//! 3.44's `TcpBbr` runs it.
//!
//! - **Model**: the bottleneck bandwidth is a windowed maximum (Kathleen Nichols' three-sample filter, ns-3's
//!   `WindowedFilter`) of delivery-rate samples ([`crate::tcp::rate`]) over `bw_window` packet-timed
//!   rounds; app-limited samples enter only if they raise it. The propagation delay is the minimum RTT
//!   sample, renewed when `min_rtt_window` passes without a lower one; a sample times the *newest* segment
//!   a cumulative ACK covers, unless it was retransmitted or sent before a timeout (ns-3's `m_lastRtt`:
//!   [`crate::tcp::rtt::RttEstimator::last_rtt`]), not the oldest as the retransmission timer does.
//! - **States**: STARTUP (pacing and window gain `high_gain`) until the bandwidth grows by less than 25 %
//!   in three rounds; DRAIN (pacing gain 1/`high_gain`) until the data in flight falls to one BDP;
//!   PROBE_BW cycling pacing gains 5/4, 3/4, 1 ×6 (one phase per minimum RTT; 5/4 lasts until a loss or
//!   the flight reaches 5/4 BDP, 3/4 ends early once the flight is one BDP), window gain 2, starting at a
//!   random phase other than 3/4; PROBE_RTT (window 4 segments for `probe_rtt_duration` and a round) when
//!   the minimum RTT expires.
//! - **Control**: pacing rate = gain × bandwidth × 0.99, raised only until the pipe is filled; window =
//!   gain × BDP + 3 segments (+ 2 in the 5/4 phase) + the ACK-aggregation allowance, approached by the
//!   segments each ACK delivers, never below 4 segments. In fast recovery the window is set to the data in
//!   flight plus what the ACK delivered, reduced by newly lost segments, and packet conservation holds for
//!   the first round. Every transmission is paced except the initial window.
//!
//! Where ns-3 departs from Linux and the draft, the engine follows ns-3 by default and names the
//! difference:
//! - `recovery_exit`: ns-3 sets `cwnd = ssthresh` when fast recovery ends (its socket does so for every
//!   controller; BBR's `ssthresh` is the BDP estimate at the end of STARTUP, or unbounded before);
//!   `"restore"` gives the window before recovery back, as Linux's `bbr_set_cwnd`.
//! - `aggregation`: ns-3 measures the ACK epoch in whole seconds (`uint32_t epochProp`, so the expected
//!   delivery is almost always 0) and restarts it every 4,096 bytes; `"linux"` uses the exact elapsed
//!   time and restarts every 2^20 segments (`bbr_ack_epoch_acked_reset_thresh`); `"off"` adds nothing.
//! - `idle_restart`: sending with nothing in flight outside loss recovery (`CA_EVENT_TX_START`) restarts
//!   BBR (pacing at the estimate in PROBE_BW, an overdue PROBE_RTT ended, the ACK epoch restarted, no
//!   PROBE_RTT until a delivery) when `TcpBbr::m_appLimited` is set, which in ns-3 3.44 only PROBE_RTT sets
//!   and nothing clears (`"ns-3"`), or while the rate sampler marks the connection application-limited, as
//!   Linux's `tp->app_limited` (`"linux"`); `"off"` never. ns-3 sends the first retransmission after a
//!   timeout outside `SendPendingData`, so a timeout's own restart is not one.
//! - `rtt_sample`: the minimum-RTT filter reads ns-3's `m_lastRtt`, kept from ACK to ACK (`"ns-3"`), or
//!   Linux's per-ACK `rs->rtt_us`, which times newly SACKed segments first and skips an ACK of
//!   retransmitted data (`"linux"`; [`RttSample`]).
//!
//! Also as ns-3 (fixed): rate samples shorter than the smallest smoothed RTT are invalid; the first
//! PROBE_BW phase is drawn from 6 of the 8 (ns-3's `GetValue(0, 6)` truncated); PROBE_RTT does not mark
//! the sender app-limited for rate samples; before an RTT sample the pacing rate is the initial window per millisecond × `high_gain` (the minimum
//! RTT rounded down to whole milliseconds once there is one). ECN-Echo sets nothing (BBR v1 ignores it).

use super::{AckSeen, CcContext, CongestionControl, Controller, Signal, Window};
use crate::rng::Rng;
use crate::spec::params::{name_params, params};
use crate::spec::ScenarioError;
use crate::tcp::rate::RateSample;
use crate::time::{from_secs, to_secs, Time};
use serde::Deserialize;

/// The window when fast recovery ends.
#[derive(Deserialize, serde::Serialize, Debug, Clone, Copy, PartialEq, Eq, Default)]
#[serde(rename_all = "kebab-case")]
pub enum RecoveryExit {
    /// `cwnd = ssthresh` (ns-3 3.44's socket).
    #[default]
    Ssthresh,
    /// The larger of the window and the one saved before recovery (Linux).
    Restore,
}

/// How the ACK-aggregation allowance is measured.
#[derive(Deserialize, serde::Serialize, Debug, Clone, Copy, PartialEq, Eq, Default)]
#[serde(rename_all = "kebab-case")]
pub enum Aggregation {
    /// ns-3 3.44: the epoch's elapsed time in whole seconds, restarted every 4,096 bytes.
    #[default]
    #[serde(rename = "ns-3")]
    Ns3,
    /// Linux 4.19+: the exact elapsed time, restarted every 2^20 segments.
    Linux,
    /// No allowance.
    Off,
}

/// When a send with nothing in flight restarts BBR after idle (`CA_EVENT_TX_START`).
#[derive(Deserialize, serde::Serialize, Debug, Clone, Copy, PartialEq, Eq, Default)]
#[serde(rename_all = "kebab-case")]
pub enum IdleRestart {
    /// ns-3 3.44: once the flow has been in PROBE_RTT (`TcpBbr::m_appLimited`, which only
    /// `HandleProbeRTT` sets and nothing clears).
    #[default]
    #[serde(rename = "ns-3")]
    Ns3,
    /// Linux: while the rate sampler marks the connection application-limited (`tp->app_limited`).
    Linux,
    /// Never.
    Off,
}

/// Which RTT sample the minimum-RTT filter reads.
#[derive(Deserialize, serde::Serialize, Debug, Clone, Copy, PartialEq, Eq, Default)]
#[serde(rename_all = "kebab-case")]
pub enum RttSample {
    /// ns-3 3.44's `m_lastRtt`: the newest segment the latest cumulative ACK covered (never retransmitted,
    /// nor sent before a timeout, whose history ns-3 clears), kept from ACK to ACK; a sample as low as
    /// the minimum renews it.
    #[default]
    #[serde(rename = "ns-3")]
    Ns3,
    /// Linux's `rs->rtt_us` (`ca_rtt_us`): the newest segment this ACK newly SACKed, else the newest it
    /// cumulatively acknowledged that was not SACKed before (none if any it acknowledged was retransmitted);
    /// only the ACK that carries it; only a lower sample renews the minimum. Linux's exception for delayed
    /// ACKs at expiry (`is_ack_delayed`) is not modelled.
    Linux,
}

name_params!(RecoveryExit, Aggregation, IdleRestart, RttSample);

params! {
    /// BBR v1 (Cardwell et al. 2016; ns-3's `TcpBbr`): paces at its estimate of the bottleneck bandwidth
    /// and keeps about two BDPs in flight, probing for more bandwidth and a lower RTT in cycles.
    pub struct Spec {
        /// STARTUP's pacing and window gain (2/ln 2; ns-3's `HighGain`).
        high_gain: f64 = 2.89, Rule::left_open(1.0, 10.0);
        /// The bandwidth filter's length, rounds (ns-3's `BwWindowLength`).
        bw_window: u32 = 10, Rule::closed(1.0, 1000.0);
        /// The minimum-RTT filter's length, seconds (ns-3's `RttWindowLength`).
        min_rtt_window: f64 = 10.0, Rule::left_open(0.0, 3600.0);
        /// Time spent in PROBE_RTT, seconds (ns-3's `ProbeRttDuration`).
        probe_rtt_duration: f64 = 0.2, Rule::closed(0.0, 60.0);
        /// The ACK-aggregation filter's length, rounds (ns-3's `ExtraAckedRttWindowLength`).
        extra_acked_window: u32 = 5, Rule::closed(1.0, 31.0);
        /// The ACK-aggregation allowance: `"ns-3"` (3.44's arithmetic), `"linux"` or `"off"`.
        aggregation: Aggregation = Aggregation::Ns3, Rule::names(&["ns-3", "linux", "off"]);
        /// The window when fast recovery ends: `"ssthresh"` (ns-3) or `"restore"` (Linux).
        recovery_exit: RecoveryExit = RecoveryExit::Ssthresh, Rule::names(&["ssthresh", "restore"]);
        /// When sending with nothing in flight restarts BBR after idle: `"ns-3"` (once the flow has been
        /// in PROBE_RTT), `"linux"` (while application-limited) or `"off"`.
        idle_restart: IdleRestart = IdleRestart::Ns3, Rule::names(&["ns-3", "linux", "off"]);
        /// The minimum-RTT filter's sample: `"ns-3"` (the newest segment the latest cumulative ACK covered,
        /// kept from ACK to ACK) or `"linux"` (the newest segment each ACK delivers, SACKed ones first).
        rtt_sample: RttSample = RttSample::Ns3, Rule::names(&["ns-3", "linux"]);
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    Startup,
    Drain,
    ProbeBw,
    ProbeRtt,
}

const PACING_GAIN_CYCLE: [f64; 8] = [5.0 / 4.0, 3.0 / 4.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0];
const PACING_MARGIN: f64 = 0.01;
const MIN_PIPE_CWND: f64 = 4.0;
const SEND_QUANTUM: f64 = 1.0;

/// ns-3's `WindowedFilter<DataRate, MaxFilter, uint32_t, uint32_t>`: the best, second and third best
/// samples of a window counted in rounds. `zero` is the value the filter was created with: a sample
/// replaces everything while the best is still that value.
#[derive(Clone, Copy, Debug)]
struct MaxFilter {
    window: u32,
    zero: f64,
    samples: [(f64, u32); 3],
}

impl MaxFilter {
    fn new(window: u32, zero: f64) -> Self {
        MaxFilter { window, zero, samples: [(zero, 0); 3] }
    }
    /// `MaxFilter`'s comparison: false when either side is 0.
    fn ge(a: f64, b: f64) -> bool {
        a != 0.0 && b != 0.0 && a >= b
    }
    fn best(&self) -> f64 {
        self.samples[0].0
    }
    fn update(&mut self, v: f64, t: u32) {
        let s = &mut self.samples;
        if s[0].0 == self.zero || Self::ge(v, s[0].0) || t.wrapping_sub(s[2].1) > self.window {
            *s = [(v, t); 3];
            return;
        }
        if Self::ge(v, s[1].0) {
            s[1] = (v, t);
            s[2] = s[1];
        } else if Self::ge(v, s[2].0) {
            s[2] = (v, t);
        }
        if t.wrapping_sub(s[0].1) > self.window {
            s[0] = s[1];
            s[1] = s[2];
            s[2] = (v, t);
            if t.wrapping_sub(s[0].1) > self.window {
                s[0] = s[1];
                s[1] = s[2];
            }
            return;
        }
        if s[1].0 == s[0].0 && t.wrapping_sub(s[1].1) > self.window >> 2 {
            s[1] = (v, t);
            s[2] = (v, t);
            return;
        }
        if s[2].0 == s[1].0 && t.wrapping_sub(s[2].1) > self.window >> 1 {
            s[2] = (v, t);
        }
    }
}

/// The controller: its state boxed, so that it does not widen every flow's [`super::AnyCc`].
#[derive(Clone, Debug)]
pub struct Bbr(Box<BbrState>);

impl std::ops::Deref for Bbr {
    type Target = BbrState;
    fn deref(&self) -> &BbrState {
        &self.0
    }
}

impl std::ops::DerefMut for Bbr {
    fn deref_mut(&mut self) -> &mut BbrState {
        &mut self.0
    }
}

#[derive(Clone, Debug)]
pub struct BbrState {
    high_gain: f64,
    min_rtt_window: Time,
    probe_rtt_duration: Time,
    extra_acked_window: u32,
    aggregation: Aggregation,
    recovery_exit: RecoveryExit,
    idle_restart_rule: IdleRestart,
    rtt_sample: RttSample,
    rng: Rng,

    initialized: bool,
    initial_cwnd: f64,
    mode: Mode,
    bw: MaxFilter,
    bw_window: u32,
    /// The pacing rate, segments per second (`None` before initialization).
    pacing_rate: f64,
    pacing_gain: f64,
    cwnd_gain: f64,
    has_seen_rtt: bool,
    pipe_filled: bool,
    round_count: u32,
    round_start: bool,
    next_round_delivered: u64,
    probe_rtt_done: Option<Time>,
    probe_rtt_round_done: bool,
    packet_conservation: bool,
    prior_cwnd: f64,
    target_cwnd: f64,
    full_bw: f64,
    full_bw_count: u32,
    /// BBR's RTprop estimate (`None`: no sample yet) and when it was taken.
    min_rtt: Option<Time>,
    min_rtt_stamp: Time,
    min_rtt_expired: bool,
    cycle_stamp: Time,
    cycle_index: usize,
    idle_restart: bool,
    /// The flow has been in PROBE_RTT (ns-3's `m_appLimited` is set).
    probe_rtt_seen: bool,
    /// Segments delivered so far (the rate sampler's count).
    delivered: u64,
    extra_acked: [f64; 2],
    extra_acked_rounds: u32,
    extra_acked_index: usize,
    ack_epoch_time: Time,
    ack_epoch_acked: f64,
    /// In fast recovery (ns-3's `CA_RECOVERY`).
    in_recovery: bool,
    /// The highest segment sent, as the last ACK saw it (pacing starts beyond the initial window).
    high_tx: u32,
    /// The window BBR last set (what `"restore"` compares with at the end of recovery).
    last_cwnd: f64,
}

impl Controller for Bbr {
    type Spec = Spec;
    fn from_spec(s: &Spec, _field: &str, rng: Rng) -> Result<Self, ScenarioError> {
        Ok(Bbr(Box::new(BbrState {
            high_gain: s.high_gain,
            min_rtt_window: from_secs(s.min_rtt_window),
            probe_rtt_duration: from_secs(s.probe_rtt_duration),
            extra_acked_window: s.extra_acked_window,
            aggregation: s.aggregation,
            recovery_exit: s.recovery_exit,
            idle_restart_rule: s.idle_restart,
            rtt_sample: s.rtt_sample,
            rng,
            initialized: false,
            initial_cwnd: 0.0,
            mode: Mode::Startup,
            bw: MaxFilter::new(s.bw_window, 0.0),
            bw_window: s.bw_window,
            pacing_rate: 0.0,
            pacing_gain: 0.0,
            cwnd_gain: 0.0,
            has_seen_rtt: false,
            pipe_filled: false,
            round_count: 0,
            round_start: false,
            next_round_delivered: 0,
            probe_rtt_done: None,
            probe_rtt_round_done: false,
            packet_conservation: false,
            prior_cwnd: 0.0,
            target_cwnd: 0.0,
            full_bw: 0.0,
            full_bw_count: 0,
            min_rtt: None,
            min_rtt_stamp: 0,
            min_rtt_expired: false,
            cycle_stamp: 0,
            cycle_index: 0,
            idle_restart: false,
            probe_rtt_seen: false,
            delivered: 0,
            extra_acked: [0.0; 2],
            extra_acked_rounds: 0,
            extra_acked_index: 0,
            ack_epoch_time: 0,
            ack_epoch_acked: 0.0,
            in_recovery: false,
            high_tx: 0,
            last_cwnd: 0.0,
        })))
    }
}

impl BbrState {
    pub fn mode(&self) -> Mode {
        self.mode
    }
    /// The bottleneck bandwidth estimate, segments per second.
    pub fn bandwidth(&self) -> f64 {
        self.bw.best()
    }
    /// The pacing rate, segments per second.
    pub fn pacing_rate(&self) -> f64 {
        self.pacing_rate
    }
    pub fn min_rtt(&self) -> Option<Time> {
        self.min_rtt
    }
    pub fn pacing_gain(&self) -> f64 {
        self.pacing_gain
    }

    /// ns-3's `CongestionStateSet(CA_OPEN)` the first time: the connection is established. The minimum
    /// RTT starts from the smoothed RTT, the pacing rate from `min_srtt` (ns-3's `tcb->m_minRtt`, the
    /// smallest smoothed RTT so far).
    fn initialize(&mut self, w: &Window, ctx: &CcContext, min_srtt: Option<Time>) {
        self.initialized = true;
        self.min_rtt = ctx.rtt.srtt().map(from_secs);
        self.min_rtt_stamp = ctx.now;
        self.prior_cwnd = w.cwnd;
        self.target_cwnd = w.cwnd;
        self.initial_cwnd = w.cwnd;
        self.enter_startup();
        self.init_pacing_rate(w, min_srtt);
        self.ack_epoch_time = ctx.now;
    }

    /// ns-3's `InitPacingRate`: the window per minimum RTT (whole milliseconds, at least 1) × the gain,
    /// which also starts the bandwidth filter.
    fn init_pacing_rate(&mut self, w: &Window, min_srtt: Option<Time>) {
        let rtt_ms = match min_srtt {
            Some(m) => {
                self.has_seen_rtt = true;
                (m / 1_000_000).max(1)
            }
            None => 1,
        };
        let nominal = w.cwnd / (rtt_ms as f64 * 1e-3);
        self.pacing_rate = self.pacing_gain * nominal;
        self.bw = MaxFilter::new(self.bw_window, nominal);
    }

    fn enter_startup(&mut self) {
        self.mode = Mode::Startup;
        self.pacing_gain = self.high_gain;
        self.cwnd_gain = self.high_gain;
    }

    fn set_pacing_rate(&mut self, w: &Window, gain: f64, min_srtt: Option<Time>) {
        let rate = gain * self.bw.best() * (1.0 - PACING_MARGIN);
        if !self.has_seen_rtt && min_srtt.is_some() {
            self.init_pacing_rate(w, min_srtt);
        }
        if self.pipe_filled || rate > self.pacing_rate {
            self.pacing_rate = rate;
        }
    }

    /// The window for `gain` × the estimated BDP, in segments (ns-3's `InFlight`).
    fn in_flight(&self, gain: f64) -> f64 {
        let Some(min_rtt) = self.min_rtt else { return self.initial_cwnd };
        let bdp = self.bw.best() * to_secs(min_rtt);
        let quanta = 3.0 * SEND_QUANTUM;
        if self.mode == Mode::ProbeBw && self.cycle_index == 0 {
            gain * bdp + quanta + 2.0
        } else {
            gain * bdp + quanta
        }
    }

    fn advance_cycle_phase(&mut self, now: Time) {
        self.cycle_stamp = now;
        self.cycle_index = (self.cycle_index + 1) % PACING_GAIN_CYCLE.len();
        self.pacing_gain = PACING_GAIN_CYCLE[self.cycle_index];
    }

    fn is_next_cycle_phase(&self, rs: &RateSample, now: Time) -> bool {
        let full_length = self.min_rtt.is_some_and(|m| now - self.cycle_stamp > m);
        if self.pacing_gain == 1.0 {
            full_length
        } else if self.pacing_gain > 1.0 {
            full_length && (rs.lost > 0 || f64::from(rs.prior_in_flight) >= self.in_flight(self.pacing_gain))
        } else {
            full_length || f64::from(rs.prior_in_flight) <= self.in_flight(1.0)
        }
    }

    fn check_full_pipe(&mut self, rs: &RateSample) {
        if self.pipe_filled || !self.round_start || rs.is_app_limited {
            return;
        }
        if self.bw.best() >= self.full_bw * 1.25 {
            self.full_bw = self.bw.best();
            self.full_bw_count = 0;
            return;
        }
        self.full_bw_count += 1;
        if self.full_bw_count >= 3 {
            self.pipe_filled = true;
        }
    }

    fn enter_probe_bw(&mut self, now: Time) {
        self.mode = Mode::ProbeBw;
        self.pacing_gain = 1.0;
        self.cwnd_gain = 2.0;
        // ns-3: `GAIN_CYCLE_LENGTH - 1 - (int) m_uv->GetValue(0, 6)`.
        let draw = (self.rng.uniform() * 6.0) as usize;
        self.cycle_index = PACING_GAIN_CYCLE.len() - 1 - draw.min(5);
        self.advance_cycle_phase(now);
    }

    fn check_drain(&mut self, w: &mut Window, ctx: &CcContext) {
        if self.mode == Mode::Startup && self.pipe_filled {
            self.mode = Mode::Drain;
            self.pacing_gain = 1.0 / self.high_gain;
            self.cwnd_gain = self.high_gain;
            w.ssthresh = self.in_flight(1.0);
        }
        if self.mode == Mode::Drain && f64::from(ctx.pipe) <= self.in_flight(1.0) {
            self.enter_probe_bw(ctx.now);
        }
    }

    fn update_min_rtt(&mut self, rs: &RateSample, ctx: &CcContext) {
        self.min_rtt_expired = ctx.now > self.min_rtt_stamp.saturating_add(self.min_rtt_window);
        let (sample, renews_equal) = match self.rtt_sample {
            RttSample::Ns3 => (ctx.rtt.last_rtt(), true),
            RttSample::Linux => (rs.rtt, false),
        };
        if let Some(last) = sample.filter(|&r| r > 0) {
            let lower = self.min_rtt.is_none_or(|m| last < m || (renews_equal && last == m));
            if lower || self.min_rtt_expired {
                self.min_rtt = Some(last);
                self.min_rtt_stamp = ctx.now;
            }
        }
    }

    fn save_cwnd(&mut self, w: &Window) {
        if !self.in_recovery && self.mode != Mode::ProbeRtt {
            self.prior_cwnd = w.cwnd;
        } else {
            self.prior_cwnd = self.prior_cwnd.max(w.cwnd);
        }
    }

    fn exit_probe_rtt(&mut self, now: Time) {
        if self.pipe_filled {
            self.enter_probe_bw(now);
        } else {
            self.enter_startup();
        }
    }

    fn check_probe_rtt(&mut self, w: &mut Window, rs: &RateSample, ctx: &CcContext) {
        if self.mode != Mode::ProbeRtt && self.min_rtt_expired && !self.idle_restart {
            self.mode = Mode::ProbeRtt;
            self.pacing_gain = 1.0;
            self.cwnd_gain = 1.0;
            self.save_cwnd(w);
            self.probe_rtt_done = None;
        }
        if self.mode == Mode::ProbeRtt {
            self.probe_rtt_seen = true;
            match self.probe_rtt_done {
                None if f64::from(ctx.pipe) <= MIN_PIPE_CWND => {
                    self.probe_rtt_done = Some(ctx.now + self.probe_rtt_duration);
                    self.probe_rtt_round_done = false;
                    self.next_round_delivered = self.delivered;
                }
                None => {}
                Some(done) => {
                    self.probe_rtt_round_done |= self.round_start;
                    if self.probe_rtt_round_done && ctx.now > done {
                        self.min_rtt_stamp = ctx.now;
                        w.cwnd = w.cwnd.max(self.prior_cwnd);
                        self.exit_probe_rtt(ctx.now);
                    }
                }
            }
        }
        if rs.delivered.is_some_and(|d| d > 0) {
            self.idle_restart = false;
        }
    }

    fn aggregation_cwnd(&self) -> f64 {
        if self.aggregation == Aggregation::Off || !self.pipe_filled {
            return 0.0;
        }
        let max_aggr = self.bw.best() * 0.1;
        self.extra_acked[0].max(self.extra_acked[1]).min(max_aggr)
    }

    fn update_ack_aggregation(&mut self, w: &Window, rs: &RateSample, ctx: &CcContext) {
        if self.aggregation == Aggregation::Off || rs.acked_sacked == 0 || rs.delivered.is_none() {
            return;
        }
        if self.round_start {
            self.extra_acked_rounds = (self.extra_acked_rounds + 1).min(31);
            if self.extra_acked_rounds >= self.extra_acked_window {
                self.extra_acked_rounds = 0;
                self.extra_acked_index ^= 1;
                self.extra_acked[self.extra_acked_index] = 0.0;
            }
        }
        let elapsed = to_secs(ctx.now - self.ack_epoch_time);
        let (elapsed, reset_at) = match self.aggregation {
            Aggregation::Ns3 => (elapsed.trunc(), 4096.0 / f64::from(ctx.smss.max(1))),
            _ => (elapsed, f64::from(1u32 << 20)),
        };
        let mut expected = (self.bw.best() * elapsed).floor();
        let acked = f64::from(rs.acked_sacked);
        if self.ack_epoch_acked <= expected || self.ack_epoch_acked + acked >= reset_at {
            self.ack_epoch_acked = 0.0;
            self.ack_epoch_time = ctx.now;
            expected = 0.0;
        }
        self.ack_epoch_acked += acked;
        let extra = (self.ack_epoch_acked - expected).max(0.0).min(w.cwnd);
        let slot = &mut self.extra_acked[self.extra_acked_index];
        *slot = slot.max(extra);
    }

    fn set_cwnd(&mut self, w: &mut Window, rs: &RateSample, ctx: &CcContext) {
        if rs.acked_sacked > 0 {
            let mut conserving = false;
            if self.in_recovery {
                if rs.lost > 0 {
                    w.cwnd = (w.cwnd - f64::from(rs.lost)).max(1.0);
                }
                if self.packet_conservation {
                    w.cwnd = w.cwnd.max(f64::from(ctx.pipe + rs.acked_sacked));
                    conserving = true;
                }
            }
            if !conserving {
                self.target_cwnd = self.in_flight(self.cwnd_gain) + self.aggregation_cwnd();
                let acked = f64::from(rs.acked_sacked);
                if self.pipe_filled {
                    w.cwnd = (w.cwnd + acked).min(self.target_cwnd);
                } else if w.cwnd < self.target_cwnd || (self.delivered as f64) < self.initial_cwnd {
                    w.cwnd += acked;
                }
                w.cwnd = w.cwnd.max(MIN_PIPE_CWND);
            }
        }
        if self.mode == Mode::ProbeRtt {
            w.cwnd = w.cwnd.min(MIN_PIPE_CWND);
        }
    }
}

impl CongestionControl for Bbr {
    const PACES: bool = true;
    const SEES_ACKS: bool = true;
    const CONTROLS_WINDOW: bool = true;

    /// The window is set in `control`, on every ACK.
    fn on_ack(&mut self, _w: &mut Window, _acked: u32, _ctx: &CcContext) {}

    /// ns-3's `GetSsThresh` (which saves the window and leaves `ssthresh`) and `CongestionStateSet`.
    fn on_congestion(&mut self, w: &Window, signal: Signal, _ctx: &CcContext) -> f64 {
        self.save_cwnd(w);
        match signal {
            Signal::Loss => self.in_recovery = true,
            Signal::Timeout => {
                self.in_recovery = false;
                self.round_start = true;
            }
            Signal::Ecn => {}
        }
        w.ssthresh
    }

    fn on_recovery_start(&mut self, w: &mut Window, acked_sacked: u32, ctx: &CcContext) {
        w.cwnd = f64::from(ctx.pipe + acked_sacked.max(1));
        self.packet_conservation = true;
        self.save_cwnd(w);
    }

    fn on_recovery_end(&mut self, w: &mut Window, _ctx: &CcContext) {
        if self.in_recovery {
            self.in_recovery = false;
            self.packet_conservation = false;
            if self.recovery_exit == RecoveryExit::Restore {
                w.cwnd = self.last_cwnd.max(self.prior_cwnd);
            } else if !w.cwnd.is_finite() {
                // Before DRAIN has set `ssthresh` ns-3's window becomes 4 GB here, bounded only by its
                // send buffer; the window BBR last set stands in for it.
                w.cwnd = self.last_cwnd;
            }
        }
    }

    fn pacing_gap(&mut self, w: &Window, ctx: &CcContext) -> Option<Time> {
        if !self.initialized {
            // Before any ACK: the smoothed RTT is the handshake's sample or none, its own minimum.
            self.initialize(w, ctx, ctx.rtt.srtt().map(from_secs));
        }
        // ns-3 paces nothing until the highest segment sent lies beyond the initial window.
        if f64::from(self.high_tx) <= self.initial_cwnd || self.pacing_rate <= 0.0 {
            return None;
        }
        Some(from_secs(1.0 / self.pacing_rate).max(1))
    }

    fn on_ack_seen(&mut self, ack: &AckSeen) {
        self.high_tx = ack.snd_nxt;
    }

    /// ns-3's and Linux's `CwndEvent(CA_EVENT_TX_START)`: restarting after idle, BBR paces at the estimated
    /// bandwidth in PROBE_BW, ends a PROBE_RTT that has served its time, and restarts the ACK-aggregation
    /// epoch; `idle_restart` keeps PROBE_RTT from starting until something is delivered.
    fn on_tx_start(&mut self, w: &mut Window, app_limited: bool, ctx: &CcContext) {
        let s = &mut *self.0;
        let restart = match s.idle_restart_rule {
            IdleRestart::Ns3 => s.probe_rtt_seen,
            IdleRestart::Linux => app_limited,
            IdleRestart::Off => false,
        };
        if !restart || !s.initialized {
            return;
        }
        s.idle_restart = true;
        s.ack_epoch_time = ctx.now;
        s.ack_epoch_acked = 0.0;
        match s.mode {
            Mode::ProbeBw => s.set_pacing_rate(w, 1.0, None),
            Mode::ProbeRtt if s.probe_rtt_round_done && s.probe_rtt_done.is_some_and(|d| ctx.now > d) => {
                s.min_rtt_stamp = ctx.now;
                w.cwnd = w.cwnd.max(s.prior_cwnd);
                s.exit_probe_rtt(ctx.now);
            }
            _ => {}
        }
    }

    fn control(&mut self, w: &mut Window, rs: &RateSample, delivered: u64, ctx: &CcContext) {
        let s = &mut *self.0;
        if !s.initialized {
            s.initialize(w, ctx, rs.min_srtt);
        }
        s.delivered = delivered;
        // UpdateModelAndState.
        if rs.delivered.is_some() && rs.interval > 0 {
            if rs.prior_delivered >= s.next_round_delivered {
                s.next_round_delivered = s.delivered;
                s.round_count += 1;
                s.round_start = true;
                s.packet_conservation = false;
            } else {
                s.round_start = false;
            }
            if rs.delivery_rate >= s.bw.best() || !rs.is_app_limited {
                s.bw.update(rs.delivery_rate, s.round_count);
            }
        }
        s.update_ack_aggregation(w, rs, ctx);
        if s.mode == Mode::ProbeBw && s.is_next_cycle_phase(rs, ctx.now) {
            s.advance_cycle_phase(ctx.now);
        }
        s.check_full_pipe(rs);
        s.check_drain(w, ctx);
        s.update_min_rtt(rs, ctx);
        s.check_probe_rtt(w, rs, ctx);
        // UpdateControlParameters.
        s.set_pacing_rate(w, s.pacing_gain, rs.min_srtt);
        s.set_cwnd(w, rs, ctx);
        s.last_cwnd = w.cwnd;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tcp::cc::test_context;
    use crate::tcp::rtt::{RtoBounds, RttEstimator};

    fn bbr(seed: u64) -> Bbr {
        let spec: Spec = serde_json::from_value(serde_json::json!({})).unwrap();
        Bbr::from_spec(&spec, "tcp.congestion_control", Rng::new(seed, 1)).unwrap()
    }

    #[test]
    fn the_max_filter_keeps_the_best_of_its_window_in_rounds() {
        let mut f = MaxFilter::new(10, 7.0);
        f.update(3.0, 1);
        assert_eq!(f.best(), 3.0, "the creation value gives way to the first sample");
        f.update(5.0, 2);
        f.update(4.0, 3);
        assert_eq!(f.samples[1].0, 5.0, "a lower sample within a quarter window is not kept");
        f.update(4.0, 5);
        assert_eq!((f.best(), f.samples[1].0), (5.0, 4.0));
        f.update(2.0, 12);
        assert_eq!(f.best(), 5.0, "round 2 is 10 rounds back: still in the window");
        f.update(2.0, 13);
        assert_eq!(f.best(), 4.0, "5 (round 2) left the window; 4 (round 5) is the best within it");
        f.update(1.0, 30);
        assert_eq!(f.best(), 1.0, "everything expired");
    }

    #[test]
    fn probe_bw_never_starts_in_the_draining_phase() {
        for seed in 0..200 {
            let mut b = bbr(seed);
            b.0.enter_probe_bw(0);
            assert!(![1, 2].contains(&b.cycle_index), "seed {seed}: phase {}", b.cycle_index);
            assert_eq!(b.pacing_gain, PACING_GAIN_CYCLE[b.cycle_index]);
        }
    }

    /// A steady 1,000 segments/s with a 40 ms RTT: STARTUP ends after three rounds without 25 % growth,
    /// DRAIN sets `ssthresh` to one BDP (+3 segments) and gives way to PROBE_BW once the pipe is below it.
    #[test]
    fn startup_drain_probe_bw_on_a_steady_bandwidth() {
        let mut b = bbr(1);
        let mut est = RttEstimator::default();
        let mut w = Window { cwnd: 10.0, ssthresh: f64::INFINITY };
        let rtt = from_secs(0.04);
        est.sample(rtt, &RtoBounds { initial: rtt, min: 0, max: u64::MAX, granularity: 0 });
        let mut delivered = 0u64;
        let mut now = 0;
        for round in 0..12u64 {
            now += rtt;
            delivered += 40;
            let rs = RateSample {
                delivery_rate: 1000.0,
                interval: rtt,
                delivered: Some(40),
                prior_delivered: delivered - 40,
                acked_sacked: 40,
                prior_in_flight: 80,
                ..RateSample::default()
            };
            let pipe = if round < 6 { 80 } else { 30 };
            let ctx = CcContext { now, pipe, ..test_context(&est, pipe) };
            b.control(&mut w, &rs, delivered, &ctx);
            if round == 3 {
                assert_eq!(b.mode(), Mode::Drain, "three rounds at the same bandwidth after the first");
                assert!((w.ssthresh - (40.0 + 3.0)).abs() < 1e-9, "{}", w.ssthresh);
            }
        }
        assert_eq!(b.mode(), Mode::ProbeBw);
        assert!((b.bandwidth() - 1000.0).abs() < 1e-9);
        assert!((b.pacing_rate() - b.pacing_gain() * 990.0).abs() < 1e-6);
        // Two BDPs, three quanta, and the ACK-aggregation allowance: under ns-3's arithmetic the epoch
        // restarts at every ACK of more than 4,096 bytes, so the allowance is one ACK's 40 segments.
        let target = 2.0 * 40.0 + 3.0 + 40.0 + if b.cycle_index == 0 { 2.0 } else { 0.0 };
        assert!((b.target_cwnd - target).abs() < 1e-6, "{}", b.target_cwnd);
        assert!(w.cwnd <= b.target_cwnd && w.cwnd >= MIN_PIPE_CWND, "{}", w.cwnd);
    }

    /// The minimum-RTT filter's input: ns-3's `m_lastRtt` persists and an equal sample renews the minimum;
    /// Linux reads only the ACK's own sample and only a lower one renews it.
    #[test]
    fn the_min_rtt_filter_reads_the_chosen_sample() {
        for (rule, renewed_by_equal, lowered_by_stale) in
            [(RttSample::Ns3, true, true), (RttSample::Linux, false, false)]
        {
            let mut b = bbr(5);
            b.rtt_sample = rule;
            b.min_rtt = Some(from_secs(0.05));
            let mut est = RttEstimator::default();
            // The ACK's own sample equals the minimum; ns-3's kept sample is the same here.
            est.set_last_rtt(from_secs(0.05));
            let rs = RateSample { rtt: Some(from_secs(0.05)), ..RateSample::default() };
            b.update_min_rtt(&rs, &CcContext { now: from_secs(1.0), ..test_context(&est, 10) });
            assert_eq!(b.min_rtt_stamp == from_secs(1.0), renewed_by_equal, "{rule:?}");
            // A lower sample kept from an earlier ACK; this ACK times nothing.
            est.set_last_rtt(from_secs(0.04));
            let none = RateSample::default();
            b.update_min_rtt(&none, &CcContext { now: from_secs(2.0), ..test_context(&est, 10) });
            assert_eq!(b.min_rtt == Some(from_secs(0.04)), lowered_by_stale, "{rule:?}");
            // An expired minimum takes the next sample, however high.
            let high = RateSample { rtt: Some(from_secs(0.3)), ..RateSample::default() };
            est.set_last_rtt(from_secs(0.3));
            b.update_min_rtt(&high, &CcContext { now: from_secs(20.0), ..test_context(&est, 10) });
            assert_eq!(b.min_rtt, Some(from_secs(0.3)), "{rule:?}");
        }
    }

    /// `CA_EVENT_TX_START` in PROBE_BW: the pacing rate drops to the bandwidth estimate (gain 1) and PROBE_RTT
    /// is held off, under ns-3's rule only once the flow has been in PROBE_RTT, under Linux's only while
    /// application-limited, never with `"off"`.
    #[test]
    fn a_restart_after_idle_paces_at_the_estimate() {
        for (rule, seen, app_limited, restarts) in [
            (IdleRestart::Ns3, false, true, false),
            (IdleRestart::Ns3, true, false, true),
            (IdleRestart::Linux, true, false, false),
            (IdleRestart::Linux, false, true, true),
            (IdleRestart::Off, true, true, false),
        ] {
            let mut b = bbr(3);
            let est = RttEstimator::default();
            let mut w = Window { cwnd: 10.0, ssthresh: f64::INFINITY };
            b.idle_restart_rule = rule;
            b.initialized = true;
            b.pipe_filled = true;
            b.bw = MaxFilter::new(10, 1000.0);
            b.enter_probe_bw(0);
            b.pacing_gain = 1.25;
            b.pacing_rate = 1.25 * 990.0;
            b.probe_rtt_seen = seen;
            let ctx = CcContext { now: from_secs(5.0), ..test_context(&est, 0) };
            b.on_tx_start(&mut w, app_limited, &ctx);
            let expected = if restarts { 990.0 } else { 1.25 * 990.0 };
            assert!((b.pacing_rate() - expected).abs() < 1e-9, "{rule:?}: {}", b.pacing_rate());
            assert_eq!(b.idle_restart, restarts, "{rule:?}");
            assert_eq!(b.ack_epoch_time == from_secs(5.0), restarts, "{rule:?}");
        }
    }
}
