//! The TCP sender's state machine for one flow: bulk (always has data while active) or finite (`size`
//! segments, then done).
//!
//! Congestion control is a [`CongestionControl`] whose hooks get the sender's clock, its RTT estimator and
//! the data in flight; the sender never names a variant. With pacing (the controller's `pacing_gap`, or
//! `tcp.pacing`: `"rtt"`, the usable window spread evenly over the smoothed RTT, `gap = srtt / min(cwnd,
//! W_max)`, Enachescu et al. §2.6; or `"linux"`, Linux's `sk_pacing_rate`, see [`Pacing`]), every
//! transmission, new or retransmitted (after a timeout too), waits for the previous one plus the gap in
//! force when that one left; before the first RTT sample nothing is paced. A controller whose
//! `window_limited` is false (Poisson injection, §2.3) sends one packet at every pacing epoch whatever the
//! window: `cwnd` and W_max then set its rate only. Each packet carries the controller's `tag`.
//!
//! Loss detection and recovery:
//! - **Fast retransmit** on `dupack_threshold` duplicate ACKs, or (with SACK) when the first unacknowledged
//!   segment `IsLost` (RFC 6675 §4: `dupack_threshold` segments SACKed above it). With SACK a duplicate ACK
//!   is one that SACKs data not SACKed before, even if it also moves the cumulative ACK (RFC 6675 §2, §5;
//!   ns-3's `scoreboardUpdated`): an ACK for a spurious retransmission is not one. Without SACK it is an
//!   ACK that acknowledges nothing new (RFC 5681). Entering recovery sets
//!   `ssthresh` from the controller (RFC 5681 eq. 4) and the recovery point to the highest segment sent.
//!   Recovery is entered only if the cumulative ACK lies beyond the previous recovery point (RFC 6582 §3.2).
//! - **With SACK** (RFC 6675 §5 step 4): the first unacknowledged segment is retransmitted at once, whatever the
//!   pipe; then `cwnd = ssthresh`, and while `pipe < cwnd`, send `NextSeg`: first the lowest lost,
//!   not yet retransmitted segment, else new data, else (window-limited) the lowest unSACKed segment not yet
//!   retransmitted (rule 3). Partial ACKs keep recovery going; a full ACK ends it with `cwnd = ssthresh`.
//! - **Without SACK** (RFC 6582 NewReno): retransmit the first segment, `cwnd = ssthresh + dupthresh`, inflate by
//!   one per further duplicate ACK; a partial ACK retransmits the next hole and deflates by the amount acked
//!   minus one; a full ACK sets `cwnd = min(ssthresh, FlightSize + 1)` (step 6 option 1), or `ssthresh`
//!   with `tcp.full_ack = "ssthresh"` (option 2; see [`FullAck`]).
//! - **Classic Reno** (`tcp.recovery = "reno"`, RFC 5681 §3.2, ns-2's `Agent/TCP/Reno`; see [`Recovery`]):
//!   entered and inflated as NewReno without SACK, but the first ACK of new data, partial or full, ends
//!   recovery with `cwnd = ssthresh` and retransmits nothing; the recovery point is then forgotten, so the
//!   next hole of the window is repaired by a new fast retransmit (three more duplicate ACKs, another
//!   halving) or by the timeout. SACK blocks are ignored: the sender behaves as with `tcp.sack = false`
//!   (`tcp.full_ack`, `tcp.partial_ack` and `tcp.recovery_timer` do not apply).
//! - **Timeout** (RFC 6298, RFC 5681): `ssthresh` from the controller, `cwnd` = the loss window, every
//!   unSACKed outstanding segment is marked lost and resent in order under `pipe < cwnd` (SACK information is
//!   kept, as ns-3 does), the timer backs off.
//! - **Limited transmit** (RFC 3042, on by default as in ns-3 and Linux): the first and second duplicate ACKs
//!   each let one new segment out beyond `cwnd`.
//! - **ECN** (RFC 3168 §6.1.2): an ACK that acknowledges new data and carries ECE, in the open state,
//!   sets `ssthresh` from the controller and `cwnd = ssthresh`, and starts a CWR period: the window neither
//!   grows nor shrinks again until an ACK covers data sent after the reduction (the cumulative ACK passes
//!   the highest segment sent then, as ns-3's `CA_CWR` and Linux do). CWR is set on the next new data
//!   packet. Retransmissions are Not-ECT (§6.1.5). With `tcp.ecn_response = "per-signal"` every such ACK
//!   reduces, in the CWR period too (the receiver then echoes each mark once; see [`EcnResponse`]).
//!
//! **Handshake** (`tcp.handshake`, RFC 9293 §3.5, off by default): the sender opens with a SYN of
//! `header_size` bytes on the data route and sends its initial window when the receiver's SYN-ACK (an ACK
//! of `ack_size`) arrives; the third segment, the sender's bare ACK, is not modelled. The SYN is timed by
//! the retransmission timer (the initial RTO, doubled at each loss, as ns-3's `ConnTimeout`); a lost one
//! is resent without a congestion signal (counted in `sent` and `retransmits`, not in `timeouts`), and
//! the SYN-ACK gives the first RTT sample unless the SYN was resent (Karn). Without it the first data
//! segment leaves at the flow's start, as if a handshake had crossed an empty path; with it a flow that
//! starts while a buffer is full probes it with one small packet, not a whole initial window.
//!
//! RTT samples (RFC 6298 §3, Karn) come from every ACK that acknowledges new data, measured from the send
//! time of the oldest segment it acknowledges, and none when that segment was ever retransmitted: ns-3's
//! `RttHistory` without timestamps. (Timing the newest would count the wait behind a repaired hole, up to
//! a backed-off RTO, as path delay, and lock a flow out behind an ever longer timer.)

use super::cc::{AckSeen, AnyCc, CcContext, CongestionControl, EcnMode, Signal, Window};
use super::rate::RateSampler;
use super::rtt::RttEstimator;
use super::scoreboard::Scoreboard;
use super::{
    BackoffEnd, CaIncrease, EcnResponse, EcnStates, FullAck, InFlight, Pacing, PartialAck, Recovery,
    RecoveryExit, RecoveryTimer, TcpConfig,
};
use crate::packet::{Ack, Ecn, Packet};
use crate::time::{from_secs, Time, NEVER};
use crate::timer::Deadline;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Phase {
    Open,
    /// After an ECN-triggered reduction, until data sent after it is acknowledged.
    Cwr,
    FastRecovery,
    TimeoutRecovery,
}

/// Per-flow counters over the whole run. `timeouts` counts every expiry of the retransmission timer with
/// data outstanding; the four `timeouts_*` counters split it by [`TimeoutCause`].
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize)]
pub struct SenderStats {
    pub sent: u64,
    pub retransmits: u64,
    pub timeouts: u64,
    pub fast_recoveries: u64,
    pub ecn_reductions: u64,
    pub timeouts_lost_retransmission: u64,
    pub timeouts_during_recovery: u64,
    pub timeouts_insufficient_dupacks: u64,
    pub timeouts_other: u64,
}

/// Why the retransmission timer expired, read from the sender's state as it fires (the same rule is
/// applied to ns-3's sockets in `validate`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TimeoutCause {
    /// The first unacknowledged segment had been retransmitted, and that retransmission went unanswered.
    LostRetransmission,
    /// In fast recovery, with the first unacknowledged segment never retransmitted: a hole that recovery
    /// did not repair (too few SACKed segments above it to mark it lost, no room in the window).
    DuringRecovery,
    /// Outside recovery: the loss did not bring `dupack_threshold` duplicate ACKs (a small window, or
    /// losses at its tail).
    InsufficientDupacks,
    /// Anything else (in timeout recovery with the first segment never retransmitted).
    Other,
}

impl SenderStats {
    pub fn add(&mut self, o: &SenderStats) {
        self.sent += o.sent;
        self.retransmits += o.retransmits;
        self.timeouts += o.timeouts;
        self.fast_recoveries += o.fast_recoveries;
        self.ecn_reductions += o.ecn_reductions;
        self.timeouts_lost_retransmission += o.timeouts_lost_retransmission;
        self.timeouts_during_recovery += o.timeouts_during_recovery;
        self.timeouts_insufficient_dupacks += o.timeouts_insufficient_dupacks;
        self.timeouts_other += o.timeouts_other;
    }

    /// The counters accumulated since `earlier` (a snapshot of the same counters).
    pub fn since(&self, earlier: &SenderStats) -> SenderStats {
        SenderStats {
            sent: self.sent - earlier.sent,
            retransmits: self.retransmits - earlier.retransmits,
            timeouts: self.timeouts - earlier.timeouts,
            fast_recoveries: self.fast_recoveries - earlier.fast_recoveries,
            ecn_reductions: self.ecn_reductions - earlier.ecn_reductions,
            timeouts_lost_retransmission: self.timeouts_lost_retransmission
                - earlier.timeouts_lost_retransmission,
            timeouts_during_recovery: self.timeouts_during_recovery - earlier.timeouts_during_recovery,
            timeouts_insufficient_dupacks: self.timeouts_insufficient_dupacks
                - earlier.timeouts_insufficient_dupacks,
            timeouts_other: self.timeouts_other - earlier.timeouts_other,
        }
    }

    fn count_timeout(&mut self, cause: TimeoutCause) {
        self.timeouts += 1;
        *match cause {
            TimeoutCause::LostRetransmission => &mut self.timeouts_lost_retransmission,
            TimeoutCause::DuringRecovery => &mut self.timeouts_during_recovery,
            TimeoutCause::InsufficientDupacks => &mut self.timeouts_insufficient_dupacks,
            TimeoutCause::Other => &mut self.timeouts_other,
        } += 1;
    }
}

/// What `NextSeg` resends when nothing is marked lost and no new data may go out.
#[derive(Clone, Copy)]
enum Rescue {
    /// Rule 3, when the window limits: the lowest segment neither SACKed nor resent.
    LowestUnsent,
    /// ns-3's `DoRetransmit` on a partial ACK (`tcp.partial_ack = "send-one"`): the first unacknowledged
    /// segment again.
    Head,
    /// None: outside recovery (a CWR period under `tcp.ecn_states = "any"`), as ns-3's `NextSeg` there.
    Never,
}

pub struct Sender<C = AnyCc> {
    pub flow: u32,
    cc: C,
    win: Window,
    snd_una: u32,
    snd_nxt: u32,
    /// Segments to send in all (`u32::MAX`: a bulk flow).
    size: u32,
    /// State of each outstanding segment `snd_una + i`.
    sb: Scoreboard,
    dupacks: u32,
    phase: Phase,
    recover: Option<u32>,
    ecn_recover: u32,
    cwr_pending: bool,
    /// Retransmissions are ECN-capable too ([`EcnMode::PerPacket`]).
    ect_retransmits: bool,
    /// The controller's `on_ack_seen` does something, its `pacing_gap` may return a gap, its `tag` may
    /// write something (each read once from the controller, so that a `Sender<AnyCc>` whose controller
    /// has none of these hooks skips them at one branch each).
    sees_acks: bool,
    paces: bool,
    tags: bool,
    /// Any of those, or a controller that sets the window: the ACK path reads the hooks at run time.
    hooked: bool,
    /// Delivery-rate samples, for a controller that sets the window itself (`CONTROLS_WINDOW`).
    rate: Option<Box<RateSampler>>,
    /// Entering fast recovery: the first segment goes out now, outside the pipe rule (RFC 6675 step 4.3).
    head_retransmit_pending: bool,
    /// In fast recovery, a partial ACK has restarted the timer (`tcp.recovery_timer`).
    partial_ack_seen: bool,
    /// `tcp.partial_ack = "send-one"`: a partial ACK's segment goes out now, outside the pipe rule.
    partial_ack_send_pending: bool,
    /// `tcp.handshake`: waiting for the SYN-ACK since the last SYN left at this time (`NEVER`: not
    /// waiting; no `Option`, which would pad it to 16 bytes).
    syn_sent_at: Time,
    /// A SYN was resent (Karn: the SYN-ACK gives no RTT sample).
    syn_resent: bool,
    rtt: RttEstimator,
    /// The retransmission timer (RFC 6298).
    pub rto: Deadline,
    /// When paced, the next transmission's earliest time.
    pub pace: Deadline,
    active: bool,
    /// No new data from this time on (`NEVER`: runs to the end).
    stop_at: Time,
    pub stats: SenderStats,
}

/// What a rate sample needs from before an ACK: the pipe, the segments marked lost, the fast recoveries.
#[derive(Clone, Copy)]
struct RateBefore {
    pipe: u32,
    lost: u32,
    recoveries: u64,
}

/// The hooks' view of a sender (built from its fields, so the controller can be borrowed mutably beside it).
fn context<'a>(
    rtt: &'a RttEstimator,
    sb: &Scoreboard,
    flight: u32,
    now: Time,
    cfg: &TcpConfig,
) -> CcContext<'a> {
    let pipe = sb.pipe();
    let in_flight = match cfg.ssthresh_from {
        InFlight::FlightSize => flight,
        InFlight::Pipe => pipe,
    };
    let whole_bytes = (cfg.ca_increase == CaIncrease::WholeBytes).then_some(cfg.payload);
    CcContext {
        now,
        rtt,
        flight,
        pipe,
        in_flight,
        max_window: cfg.max_window,
        whole_bytes,
        smss: cfg.payload,
    }
}

impl<C: CongestionControl> Sender<C> {
    /// Drop the per-segment state (scoreboard, delivery-rate records) once the run is over; the counters,
    /// window and RTT estimate stay for the results.
    pub fn release_buffers(&mut self) {
        self.sb = Scoreboard::default();
        self.rate = None;
    }

    pub fn new(flow: u32, cc: C, cfg: &TcpConfig) -> Self {
        let ect_retransmits = cfg.ecn && cc.ecn_mode() == EcnMode::PerPacket;
        let sees_acks = C::SEES_ACKS && cc.sees_acks();
        let (paces, tags) = (C::PACES && cc.paces(), C::TAGS && cc.tags());
        let mut sb = Scoreboard::default();
        let rate = (C::CONTROLS_WINDOW && cc.controls_window()).then(|| {
            sb.track_delivery();
            Box::default()
        });
        let hooked = sees_acks || paces || tags || rate.is_some();
        Sender {
            flow,
            hooked,
            cc,
            win: Window { cwnd: cfg.initial_window, ssthresh: f64::INFINITY },
            snd_una: 0,
            snd_nxt: 0,
            size: u32::MAX,
            sb,
            dupacks: 0,
            phase: Phase::Open,
            recover: None,
            ecn_recover: 0,
            cwr_pending: false,
            ect_retransmits,
            sees_acks,
            paces,
            tags,
            rate,
            head_retransmit_pending: false,
            partial_ack_seen: false,
            partial_ack_send_pending: false,
            syn_sent_at: NEVER,
            syn_resent: false,
            rtt: RttEstimator::new(&cfg.rto),
            rto: Deadline::default(),
            pace: Deadline::default(),
            active: false,
            stop_at: NEVER,
            stats: SenderStats::default(),
        }
    }

    /// A finite flow of `segments` segments (at least one).
    pub fn with_size(mut self, segments: u32) -> Self {
        self.size = segments.max(1);
        self
    }

    pub fn cwnd(&self) -> f64 {
        self.win.cwnd
    }
    pub fn ssthresh(&self) -> f64 {
        self.win.ssthresh
    }
    pub fn snd_una(&self) -> u32 {
        self.snd_una
    }
    pub fn snd_nxt(&self) -> u32 {
        self.snd_nxt
    }
    pub fn srtt(&self) -> Option<f64> {
        self.rtt.srtt()
    }
    pub fn controller(&self) -> &C {
        &self.cc
    }
    /// The congestion state as the event trace names it (slow start and congestion avoidance are the
    /// open phase below and above `ssthresh`).
    pub fn cc_state(&self) -> crate::trace::CcState {
        use crate::trace::CcState;
        match self.phase {
            Phase::Open if self.win.cwnd < self.win.ssthresh => CcState::SlowStart,
            Phase::Open => CcState::CongestionAvoidance,
            Phase::Cwr => CcState::Cwr,
            Phase::FastRecovery => CcState::FastRecovery,
            Phase::TimeoutRecovery => CcState::RtoRecovery,
        }
    }
    /// A finite flow whose every segment is acknowledged.
    pub fn is_complete(&self) -> bool {
        self.size != u32::MAX && self.snd_una >= self.size
    }
    fn flight(&self) -> u32 {
        self.snd_nxt - self.snd_una
    }

    /// The earliest of the sender's timers (RTO, pacing), on its clock.
    pub fn next_deadline(&self) -> Time {
        self.rto.deadline().min(self.pace.deadline())
    }

    /// Start sending: the initial window goes out at once (unless paced), or with `tcp.handshake` a SYN,
    /// and the initial window when the SYN-ACK arrives.
    pub fn start(&mut self, now: Time, cfg: &TcpConfig, out: &mut Vec<Packet>) {
        self.active = true;
        if cfg.handshake {
            self.send_syn(now, false, cfg, out);
        } else {
            self.transmit::<true>(now, cfg, out);
        }
    }

    /// A finished flow's connection carries `segments` more (the next response of a persistent connection):
    /// they go out as the window allows, which carries over from the data before (no restart after idle,
    /// as Linux with `tcp_slow_start_after_idle = 0`).
    pub fn send_more(&mut self, segments: u32, now: Time, cfg: &TcpConfig, out: &mut Vec<Packet>) {
        debug_assert!(self.has_room_for(u64::from(segments)));
        self.size += segments.max(1);
        self.transmit::<true>(now, cfg, out);
    }

    /// Whether a finished connection can carry `segments` more within its sequence space.
    pub fn has_room_for(&self, segments: u64) -> bool {
        u64::from(self.size) + segments.max(1) < u64::from(u32::MAX - 1)
    }

    /// A SYN has left and its SYN-ACK has not come back.
    fn awaits_syn_ack(&self) -> bool {
        self.syn_sent_at != NEVER
    }

    /// The SYN (first or resent), timed by the retransmission timer like a segment.
    fn send_syn(&mut self, now: Time, resent: bool, cfg: &TcpConfig, out: &mut Vec<Packet>) {
        (self.syn_sent_at, self.syn_resent) = (now, resent);
        self.stats.sent += 1;
        self.stats.retransmits += resent as u64;
        self.rto.arm(now + self.rtt.rto(&cfg.rto));
        let size = cfg.packet_size - cfg.payload;
        out.push(Packet { flow: self.flow, size, syn: true, retransmit: resent, ..Packet::default() });
    }

    /// The SYN-ACK: a sample of the path's RTT unless the SYN was resent (Karn), then the initial window.
    /// Without a sample the resent SYN's backoff times the initial window under Karn's rule (RFC 6298
    /// §5.7 even raises it to 3 s); under `rto_backoff = "new-ack"` the SYN-ACK, which acknowledges the
    /// SYN, clears it as any new ACK does: ns-3 3.44 recomputes its RTO from the estimator, without the
    /// connection timeout's backoff, when it sends the handshake's final ACK.
    fn on_syn_ack<const HOOKS: bool>(&mut self, now: Time, cfg: &TcpConfig, out: &mut Vec<Packet>) {
        if !self.awaits_syn_ack() {
            return;
        }
        let (sent_at, resent) = (std::mem::replace(&mut self.syn_sent_at, NEVER), self.syn_resent);
        if !resent {
            self.rtt.sample(now - sent_at, &cfg.rto);
            self.rtt.set_last_rtt(now - sent_at);
        } else if cfg.backoff_end == BackoffEnd::NewAck {
            self.rtt.clear_backoff();
        }
        self.rto.cancel();
        self.transmit::<HOOKS>(now, cfg, out);
    }

    /// From `at` on, send no new data; outstanding data is still recovered.
    pub fn stop_at(&mut self, at: Time) {
        self.stop_at = at;
    }

    pub fn on_ack(&mut self, ack: &Ack, now: Time, cfg: &TcpConfig, out: &mut Vec<Packet>) {
        if self.hooked {
            self.handle_ack::<true>(ack, now, cfg, out)
        } else {
            self.handle_ack::<false>(ack, now, cfg, out)
        }
    }

    /// [`Sender::on_ack`], compiled twice: with `HOOKS` false for a sender whose controller uses none of
    /// its hooks (the window, pacing, tag and ACK hooks' branches compiled out), true for the others. Out
    /// of line, with the loss detection and the scoreboard's `ack` and `sack` inlined into it: 0.9 % fewer
    /// instructions on the reference benchmark than one copy inlined into the event loop (docs/benchmarks.md).
    #[inline(never)]
    fn handle_ack<const HOOKS: bool>(
        &mut self,
        ack: &Ack,
        now: Time,
        cfg: &TcpConfig,
        out: &mut Vec<Packet>,
    ) {
        let dupacks_before = self.dupacks;
        if ack.syn || self.awaits_syn_ack() {
            // The SYN-ACK opens the connection; a second one (to a resent SYN) is ignored.
            if ack.syn {
                self.on_syn_ack::<HOOKS>(now, cfg, out);
            }
            return;
        }
        if ack.ack > self.snd_nxt || ack.ack < self.snd_una {
            return; // outside the window: stale or invalid
        }
        let sacked_before = self.sb.sacked();
        // What a rate sample needs from before the ACK: the pipe and the segments marked lost.
        let before = self.controls_window::<HOOKS>().then(|| RateBefore {
            pipe: self.sb.pipe(),
            lost: self.sb.lost(),
            recoveries: self.stats.fast_recoveries,
        });
        let sack = cfg.sack_in_use();
        if sack {
            self.apply_sack(ack);
        }
        // RFC 6675 §2: with SACK, a duplicate ACK is one that SACKs data not SACKed before, whether or not
        // it also moves the cumulative ACK; RFC 5681's definition (no new data acknowledged) without.
        let duplicate = if sack { self.sb.sacked() > sacked_before } else { ack.ack == self.snd_una };
        let newly_acked = ack.ack - self.snd_una;
        if newly_acked > 0 {
            if self.controls_window::<HOOKS>() {
                // The sample BBR's minimum-RTT filter reads (ns-3's `m_lastRtt`); no other controller does.
                if let Some(sent_at) = self.sb.newest_covered_sent(newly_acked as usize) {
                    self.rtt.set_last_rtt(now - sent_at);
                }
            }
            if let Some(sent_at) = self.sb.ack(newly_acked as usize) {
                self.rtt.sample(now - sent_at, &cfg.rto);
            } else if cfg.backoff_end == BackoffEnd::NewAck {
                self.rtt.clear_backoff();
            }
            self.snd_una = ack.ack;
            // RFC 6675 §5: a cumulative ACK resets DupAcks; one that also SACKs new data counts as the first.
            self.dupacks = u32::from(duplicate);
            self.on_new_ack::<HOOKS>(newly_acked, now, cfg);
            // A partial ACK (still in fast recovery) restarts the timer only the first time under
            // `"first-partial-ack"`.
            let partial = self.phase == Phase::FastRecovery;
            let restart =
                !(partial && self.partial_ack_seen && cfg.recovery_timer == RecoveryTimer::FirstPartialAck);
            self.partial_ack_seen |= partial;
            if self.flight() > 0 {
                if restart {
                    self.rto.arm(now + self.rtt.rto(&cfg.rto));
                }
            } else {
                self.rto.cancel();
                if self.is_complete() {
                    self.pace.cancel();
                }
            }
        } else if self.flight() > 0 && duplicate {
            self.dupacks += 1;
            if self.phase == Phase::FastRecovery && !sack && !self.controls_window::<HOOKS>() {
                self.win.cwnd += 1.0;
            }
        }
        let may_reduce = || match (cfg.ecn_response, cfg.ecn_states) {
            (EcnResponse::OncePerRtt, EcnStates::Open) => self.phase == Phase::Open,
            (EcnResponse::OncePerRtt, EcnStates::Any) => self.phase != Phase::Cwr,
            (EcnResponse::PerSignal, EcnStates::Open) => matches!(self.phase, Phase::Open | Phase::Cwr),
            (EcnResponse::PerSignal, EcnStates::Any) => true,
        };
        if cfg.ecn && ack.ece && newly_acked > 0 && may_reduce() {
            if matches!(self.phase, Phase::FastRecovery | Phase::TimeoutRecovery) {
                // `EcnStates::Any`: the recovery ends; no new one starts before the highest segment sent
                // is acknowledged (ns-3's `m_recover` moves to `m_highTxMark`).
                self.recover = Some(self.snd_nxt);
            }
            self.congestion_signal(Signal::Ecn, now, cfg);
            if !self.controls_window::<HOOKS>() {
                self.win.cwnd = self.win.ssthresh;
            }
            self.phase = Phase::Cwr;
            self.stats.ecn_reductions += 1;
        }
        // Linux's `tp->delivered`: with SACK what the ACK newly acknowledged or SACKed; without, a
        // duplicate ACK delivered one segment, and the cumulative ACK after them what they did not
        // (`tcp_remove_reno_sacks`: at least one).
        let delivered = || {
            if sack {
                (newly_acked + self.sb.sacked()).saturating_sub(sacked_before)
            } else if duplicate {
                1
            } else if newly_acked > 0 {
                newly_acked.saturating_sub(dupacks_before).max(1)
            } else {
                0
            }
        };
        let rate_ack = before.map(|b| (delivered(), b));
        if HOOKS && C::SEES_ACKS && self.sees_acks {
            let seen = AckSeen {
                delivered: delivered(),
                ece: ack.ece,
                snd_una: self.snd_una,
                snd_nxt: self.snd_nxt,
            };
            self.cc.on_ack_seen(&seen);
        }
        self.detect_loss(now, cfg);
        if let Some((delivered, before)) = rate_ack {
            self.take_rate_sample(delivered, before, now, cfg);
        }
        self.transmit::<HOOKS>(now, cfg, out);
    }

    /// Whether the controller sets the window itself (`CONTROLS_WINDOW`, decided when the flow began);
    /// false at compile time where `HOOKS` is (see [`Sender::handle_ack`]).
    #[inline(always)]
    fn controls_window<const HOOKS: bool>(&self) -> bool {
        HOOKS && C::CONTROLS_WINDOW && self.rate.is_some()
    }

    /// After an ACK that delivered `delivered` segments, for a controller that sets the window itself: if
    /// the ACK began fast recovery, the controller's window for it (ns-3's `CongestionStateSet
    /// (CA_RECOVERY)`); then the rate sample and the controller's `control` (`GenerateSample`,
    /// `CongControl`).
    #[cold]
    fn take_rate_sample(&mut self, delivered: u32, before: RateBefore, now: Time, cfg: &TcpConfig) {
        if self.stats.fast_recoveries != before.recoveries {
            let ctx = context(&self.rtt, &self.sb, self.flight(), now, cfg);
            self.cc.on_recovery_start(&mut self.win, delivered, &ctx);
        }
        let Some(rate) = self.rate.as_mut() else { return };
        let lost = self.sb.lost().abs_diff(before.lost);
        let mut rs =
            rate.on_ack(now, self.sb.delivered_ordinals(), delivered, lost, before.pipe, self.rtt.srtt());
        self.sb.clear_delivered();
        rs.rtt = self.sb.take_ack_rtt_sent().map(|sent| now - sent);
        let total = rate.delivered();
        let ctx = context(&self.rtt, &self.sb, self.flight(), now, cfg);
        self.cc.control(&mut self.win, &rs, total, &ctx);
    }

    fn grow(&mut self, newly_acked: u32, now: Time, cfg: &TcpConfig) {
        let ctx = context(&self.rtt, &self.sb, self.snd_nxt - self.snd_una, now, cfg);
        self.cc.on_ack(&mut self.win, newly_acked, &ctx);
    }

    fn on_new_ack<const HOOKS: bool>(&mut self, newly_acked: u32, now: Time, cfg: &TcpConfig) {
        let recover = self.recover.unwrap_or(0);
        match self.phase {
            Phase::Open => self.grow(newly_acked, now, cfg),
            Phase::Cwr if self.snd_una > self.ecn_recover => {
                self.phase = Phase::Open;
                self.grow(newly_acked, now, cfg);
            }
            Phase::Cwr => {}
            Phase::FastRecovery if cfg.recovery == Recovery::Reno => {
                // RFC 5681 §3.2 step 6: the first ACK of new data, partial or full, ends recovery and
                // deflates the window; a hole left behind waits for three more duplicate ACKs (no recovery
                // point holds them back now, as ns-2's Reno after a fast retransmit) or for the timer.
                self.phase = Phase::Open;
                self.win.cwnd = self.win.ssthresh;
                self.recover = None;
                self.recovery_end(now, cfg);
                self.grow_at_recovery_exit(newly_acked, now, cfg);
            }
            Phase::FastRecovery if self.snd_una >= recover => {
                self.phase = Phase::Open;
                self.win.cwnd = match cfg.full_ack {
                    FullAck::Flight if !cfg.sack => self.win.ssthresh.min(self.flight().max(1) as f64 + 1.0),
                    _ => self.win.ssthresh,
                };
                self.recovery_end(now, cfg);
                self.grow_at_recovery_exit(newly_acked, now, cfg);
            }
            Phase::FastRecovery => {
                if !cfg.sack {
                    // RFC 6582 §3.2 step 5: retransmit the next hole, deflate.
                    self.sb.mark_lost(0);
                    if !self.controls_window::<HOOKS>() {
                        self.win.cwnd = (self.win.cwnd - newly_acked as f64 + 1.0).max(1.0);
                    }
                } else if cfg.partial_ack == PartialAck::SendOne && !self.sb.resent(0) {
                    self.partial_ack_send_pending = true;
                }
            }
            Phase::TimeoutRecovery => {
                let grows = match cfg.recovery_exit {
                    RecoveryExit::Grow if self.snd_una >= recover => self.snd_una - recover,
                    _ => newly_acked,
                };
                self.grow(grows, now, cfg);
                if self.snd_una >= recover {
                    self.phase = Phase::Open;
                    self.recovery_end(now, cfg);
                }
            }
        }
    }

    /// `tcp.ecn_states = "any"` in a CWR period: duplicate ACKs start no fast recovery; what SACK marks
    /// lost goes out by the pipe, as in recovery, without a reduction.
    fn cwr_repairs_by_pipe(&self, cfg: &TcpConfig) -> bool {
        self.phase == Phase::Cwr && cfg.ecn_states == EcnStates::Any
    }

    /// `tcp.recovery_exit = "grow"`: the ACK that ended fast recovery grows the deflated window too.
    fn grow_at_recovery_exit(&mut self, newly_acked: u32, now: Time, cfg: &TcpConfig) {
        if cfg.recovery_exit == RecoveryExit::Grow {
            self.grow(newly_acked, now, cfg);
        }
    }

    fn recovery_end(&mut self, now: Time, cfg: &TcpConfig) {
        let ctx = context(&self.rtt, &self.sb, self.snd_nxt - self.snd_una, now, cfg);
        self.cc.on_recovery_end(&mut self.win, &ctx);
    }

    /// Mark what `ack`'s SACK blocks cover. Inlined into [`Sender::handle_ack`] (1.4 % fewer instructions on
    /// the reference benchmark than a call).
    #[inline(always)]
    fn apply_sack(&mut self, ack: &Ack) {
        for &(start, end) in ack.sack_blocks() {
            let lo = start.max(self.snd_una);
            let hi = end.min(self.snd_nxt);
            if lo < hi {
                self.sb.sack((lo - self.snd_una) as usize, (hi - self.snd_una) as usize);
            }
        }
    }

    /// A loss, ECN or timeout signal: `ssthresh` from the controller, given the data in flight measured as
    /// `cfg.ssthresh_from` says.
    fn congestion_signal(&mut self, signal: Signal, now: Time, cfg: &TcpConfig) {
        let ctx = context(&self.rtt, &self.sb, self.flight(), now, cfg);
        self.win.ssthresh = self.cc.on_congestion(&self.win, signal, &ctx);
        self.ecn_recover = self.snd_nxt;
        self.cwr_pending = cfg.ecn;
    }

    /// After an ACK: mark what SACK says is lost, or enter fast recovery (RFC 6675 §5, RFC 6582).
    /// Inlined into [`Sender::handle_ack`].
    #[inline(always)]
    fn detect_loss(&mut self, now: Time, cfg: &TcpConfig) {
        if self.flight() == 0 {
            return;
        }
        let sack = cfg.sack_in_use();
        if matches!(self.phase, Phase::FastRecovery | Phase::TimeoutRecovery) || self.cwr_repairs_by_pipe(cfg)
        {
            if sack {
                self.sb.mark_lost_by_sack(cfg.dupack_threshold);
            }
            return;
        }
        let beyond_recover = self.recover.is_none_or(|r| self.snd_una >= r);
        // IsLost(snd_una): the first segment is unSACKed (else it would be acked), so all SACKed are above.
        let sack_says_lost = sack && self.sb.sacked() >= cfg.dupack_threshold;
        if !(beyond_recover && (self.dupacks >= cfg.dupack_threshold || sack_says_lost)) {
            return;
        }
        self.phase = Phase::FastRecovery;
        self.partial_ack_seen = false;
        self.recover = Some(self.snd_nxt);
        self.stats.fast_recoveries += 1;
        if sack {
            // `InFlight::Pipe` is measured as ns-3 3.44 measures it: once this ACK's SACK blocks have
            // marked the holes lost (`TcpTxBuffer::Update`), the first segment among them (`EnterRecovery`).
            self.sb.mark_lost(0);
            self.sb.mark_lost_by_sack(cfg.dupack_threshold);
            self.congestion_signal(Signal::Loss, now, cfg);
            self.head_retransmit_pending = true;
            self.win.cwnd = self.win.ssthresh;
        } else {
            self.congestion_signal(Signal::Loss, now, cfg);
            self.sb.mark_lost(0);
            self.win.cwnd = self.win.ssthresh + cfg.dupack_threshold as f64;
        }
    }

    /// Hold a retransmission timeout that is due at `now` until `until`, when the previous timeout's
    /// retransmission of the same segment leaves the sender's host (its access link). Linux's
    /// `tcp_retransmit_skb` does not resend a segment while any earlier copy is still in the host's queue
    /// (`skb_still_in_host_queue`); ns-3 resends regardless. The engine holds only behind the timer's own
    /// copy, so ns-3's behaviour is kept wherever the timer outlasts the host's queueing (every RTO of
    /// realistic size), and a timer shorter than it (a maximum RTO of microseconds behind a slow access
    /// link) cannot queue copy after copy without bound.
    pub fn hold_timeout(&mut self, now: Time, until: Time) {
        if until > now && self.rto.deadline() <= now && !self.awaits_syn_ack() && self.flight() > 0 {
            self.rto.arm(until);
        }
    }

    /// A timer is due at `now` (the caller checked `now >= next_deadline()`): the retransmission timer
    /// first, else the pacing timer.
    pub fn on_timer(&mut self, now: Time, cfg: &TcpConfig, out: &mut Vec<Packet>) {
        if self.rto.deadline() <= now {
            self.on_timeout(now, cfg, out);
        } else if self.pace.deadline() <= now {
            self.pace.cancel();
            self.transmit::<true>(now, cfg, out);
        }
    }

    /// The retransmission timer expired at `now`.
    pub fn on_timeout(&mut self, now: Time, cfg: &TcpConfig, out: &mut Vec<Packet>) {
        self.rto.cancel();
        if self.awaits_syn_ack() {
            // A lost SYN (or SYN-ACK): resend it with the timer backed off (RFC 6298 §5.5; ns-3's
            // `ConnTimeout` doubles likewise). Not a congestion signal: nothing was in flight.
            self.rtt.back_off();
            return self.send_syn(now, true, cfg, out);
        }
        if self.flight() == 0 {
            return;
        }
        let cause = if self.sb.ever_resent(0) {
            TimeoutCause::LostRetransmission
        } else {
            match self.phase {
                Phase::FastRecovery => TimeoutCause::DuringRecovery,
                Phase::Open | Phase::Cwr => TimeoutCause::InsufficientDupacks,
                Phase::TimeoutRecovery => TimeoutCause::Other,
            }
        };
        self.stats.count_timeout(cause);
        self.congestion_signal(Signal::Timeout, now, cfg);
        let ctx = context(&self.rtt, &self.sb, self.flight(), now, cfg);
        self.win.cwnd = self.cc.loss_window(&self.win, &ctx);
        self.phase = Phase::TimeoutRecovery;
        self.recover = Some(self.snd_nxt);
        self.dupacks = 0;
        self.sb.mark_all_lost();
        if self.controls_window::<true>() {
            self.sb.forget_send_times(); // ns-3 clears the history `m_lastRtt` is read from
        }
        self.rtt.back_off();
        self.transmit::<true>(now, cfg, out);
    }

    /// New data may go out with at most `cap` segments in flight before it.
    fn may_send_new(&self, now: Time, cap: u32) -> bool {
        self.active && now < self.stop_at && self.flight() < cap && self.snd_nxt < self.size
    }

    /// The gap between paced transmissions, if pacing applies now: the controller's, else `tcp.pacing`'s.
    fn pacing_gap<const HOOKS: bool>(&mut self, now: Time, cfg: &TcpConfig) -> Option<Time> {
        if HOOKS && self.paces {
            let ctx = context(&self.rtt, &self.sb, self.flight(), now, cfg);
            if let Some(gap) = self.cc.pacing_gap(&self.win, &ctx) {
                return Some(gap);
            }
        }
        let srtt = self.rtt.srtt()?;
        // The window the sender can use: cwnd may grow past W_max, the packets in flight cannot.
        let usable = self.win.cwnd.min(cfg.max_window as f64).max(1.0);
        let per_rtt = match cfg.pacing {
            Pacing::Off => return None,
            Pacing::Rtt => usable,
            Pacing::Cwnd => self.win.cwnd.max(1.0),
            Pacing::Linux => {
                let ratio = if self.win.cwnd < self.win.ssthresh / 2.0 {
                    Pacing::LINUX_SS_RATIO
                } else {
                    Pacing::LINUX_CA_RATIO
                };
                ratio * usable.max(self.flight() as f64)
            }
        };
        Some(from_secs(srtt / per_rtt).max(1))
    }

    /// What the window, pacing and recovery allow out now (`HOOKS` as in [`Sender::handle_ack`]; the
    /// callers other than an ACK's say true, which reads the hooks at run time and suits every sender).
    fn transmit<const HOOKS: bool>(&mut self, now: Time, cfg: &TcpConfig, out: &mut Vec<Packet>) {
        if self.controls_window::<HOOKS>()
            && self.phase == Phase::Open
            && self.sb.pipe() == 0
            && !self.pace.is_armed()
            && self.may_send_new(now, cfg.max_window)
        {
            self.tx_start(now, cfg);
        }
        // Paced: at most one packet now, the next one a gap later.
        let gap = if cfg.pacing != Pacing::Off || (HOOKS && self.paces) {
            self.pacing_gap::<HOOKS>(now, cfg)
        } else {
            None
        };
        if gap.is_some() && self.pace.is_armed() {
            return;
        }
        let before = out.len();
        // For rate samples: whether the first packet now starts a sending flight (nothing in flight).
        let idle = self.controls_window::<HOOKS>() && self.sb.pipe() == 0;
        let quota = if gap.is_some() { before + 1 } else { usize::MAX };
        // A controller that injects at its pacing epochs whatever is in flight (§2.3's Poisson model).
        let unlimited = gap.is_some() && HOOKS && self.paces && !self.cc.window_limited();
        let (cwnd, cap) = if unlimited {
            (u32::MAX, u32::MAX)
        } else {
            (self.win.cwnd.max(1.0) as u32, cfg.max_window) // truncation = floor for positive values
        };
        let pipe_mode = self.phase == Phase::TimeoutRecovery
            || (cfg.sack_in_use() && (self.phase == Phase::FastRecovery || self.cwr_repairs_by_pipe(cfg)));
        if pipe_mode {
            if std::mem::take(&mut self.head_retransmit_pending) && self.sb.next_lost() == Some(0) {
                self.emit::<HOOKS>(self.snd_una, true, now, cfg, out);
            }
            if std::mem::take(&mut self.partial_ack_send_pending) {
                self.send_next_seg::<HOOKS>(Rescue::Head, now, cap, cfg, out);
            }
            let rescue = if self.phase == Phase::Cwr { Rescue::Never } else { Rescue::LowestUnsent };
            let mut pipe = self.sb.pipe();
            while pipe < cwnd && out.len() < quota && self.send_next_seg::<HOOKS>(rescue, now, cap, cfg, out)
            {
                pipe += 1;
            }
        } else {
            // Open, CWR, or NewReno fast recovery: the one marked hole goes out at once, then new data by
            // flight, with up to two extra segments on the first duplicate ACKs (limited transmit).
            while out.len() < quota {
                let Some(i) = self.sb.next_lost() else { break };
                self.emit::<HOOKS>(self.snd_una + i as u32, true, now, cfg, out);
            }
            let limited = matches!(self.phase, Phase::Open | Phase::Cwr) && cfg.limited_transmit;
            let window = cwnd.saturating_add(if limited { self.dupacks.min(2) } else { 0 });
            while self.flight() < window && self.may_send_new(now, cap) && out.len() < quota {
                self.emit::<HOOKS>(self.snd_nxt, false, now, cfg, out);
            }
        }
        if let Some(gap) = gap {
            if out.len() > before {
                self.pace.arm(now + gap);
            }
        }
        if self.controls_window::<HOOKS>() {
            self.record_transmissions(idle, now, &out[before..]);
            self.check_app_limited(now, cwnd);
        }
    }

    /// About to send with nothing in flight: the controller's restart after idle (`CA_EVENT_TX_START`).
    #[cold]
    fn tx_start(&mut self, now: Time, cfg: &TcpConfig) {
        let app_limited = self.rate.as_ref().is_some_and(|r| r.app_limited());
        let ctx = context(&self.rtt, &self.sb, self.flight(), now, cfg);
        self.cc.on_tx_start(&mut self.win, app_limited, &ctx);
    }

    /// Each packet just sent gets its delivery-rate record (ns-3's `SkbSent`), and its scoreboard entry
    /// the record's ordinal; `idle`: nothing was in flight before the first.
    #[cold]
    fn record_transmissions(&mut self, idle: bool, now: Time, sent: &[Packet]) {
        let Some(rate) = self.rate.as_mut() else { return };
        for (k, p) in sent.iter().enumerate() {
            let tx = rate.on_send(now, k == 0 && idle);
            self.sb.set_tx((p.seq - self.snd_una) as usize, tx);
        }
    }

    /// ns-3's `CalculateAppLimited`: no new data to send, room in the window, every lost segment resent.
    #[cold]
    fn check_app_limited(&mut self, now: Time, cwnd: u32) {
        let no_data = !self.active || now >= self.stop_at || self.snd_nxt >= self.size;
        let in_flight = self.sb.pipe();
        if no_data && in_flight < cwnd && self.sb.lost_all_resent() {
            if let Some(rate) = self.rate.as_mut() {
                rate.mark_app_limited(in_flight);
            }
        }
    }

    /// RFC 6675 `NextSeg`: the lowest segment marked lost and not yet resent (rule 1), else new data (rule
    /// 2), else the `rescue` segment, marked lost so that it counts once in the pipe. False if none goes out.
    /// Inlined: it is the body of the pipe loop (callgrind on the reference benchmark: +0.4 % when called).
    #[inline(always)]
    fn send_next_seg<const HOOKS: bool>(
        &mut self,
        rescue: Rescue,
        now: Time,
        cap: u32,
        cfg: &TcpConfig,
        out: &mut Vec<Packet>,
    ) -> bool {
        if let Some(i) = self.sb.next_lost() {
            self.emit::<HOOKS>(self.snd_una + i as u32, true, now, cfg, out);
        } else if self.may_send_new(now, cap) {
            self.emit::<HOOKS>(self.snd_nxt, false, now, cfg, out);
        } else {
            let rescued = match rescue {
                Rescue::LowestUnsent => self.sb.first_unsacked_unsent(),
                Rescue::Head => Some(0),
                Rescue::Never => None,
            };
            let Some(i) = rescued else { return false };
            self.sb.mark_lost(i);
            self.emit::<HOOKS>(self.snd_una + i as u32, true, now, cfg, out);
        }
        true
    }

    /// One segment out. Inlined into `transmit`'s loops: a call per packet sent cost 1 % of the reference
    /// benchmark's instructions.
    #[inline(always)]
    fn emit<const HOOKS: bool>(
        &mut self,
        seq: u32,
        retransmit: bool,
        now: Time,
        cfg: &TcpConfig,
        out: &mut Vec<Packet>,
    ) {
        let ect = cfg.ecn && (!retransmit || self.ect_retransmits);
        let cwr = ect && self.cwr_pending;
        if retransmit {
            self.sb.retransmitted((seq - self.snd_una) as usize, now);
            self.stats.retransmits += 1;
        } else {
            self.sb.push(now);
            self.snd_nxt += 1;
            self.cwr_pending &= !cwr;
        }
        self.stats.sent += 1;
        self.rto.arm_if_idle(|| now + self.rtt.rto(&cfg.rto));
        let tag = if HOOKS && self.tags {
            let ctx = context(&self.rtt, &self.sb, self.flight(), now, cfg);
            self.cc.tag(&self.win, &ctx)
        } else {
            0.0
        };
        out.push(Packet {
            flow: self.flow,
            seq,
            size: cfg.packet_size,
            ecn: if ect { Ecn::Ect } else { Ecn::NotEct },
            cwr,
            retransmit,
            tag,
            ..Packet::default()
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tcp::cc::NewReno;
    use crate::time::from_secs;

    fn cfg(sack: bool, ecn: bool) -> TcpConfig {
        TcpConfig { sack, ecn, limited_transmit: false, ..TcpConfig::default() }
    }

    fn ack(n: u32, sack: &[(u32, u32)]) -> Ack {
        let mut a = Ack { ack: n, ..Default::default() };
        for (i, &b) in sack.iter().enumerate() {
            a.sack[i] = b;
        }
        a.sack_len = sack.len() as u8;
        a
    }

    /// A NewReno sender started at time 0, with the packets it sent.
    fn started(c: &TcpConfig) -> (Sender<NewReno>, Vec<Packet>) {
        started_with(c, NewReno)
    }

    fn started_with<C: CongestionControl>(c: &TcpConfig, cc: C) -> (Sender<C>, Vec<Packet>) {
        let mut s = Sender::new(0, cc, c);
        let mut out = Vec::new();
        s.start(0, c, &mut out);
        (s, out)
    }

    /// The ACK path compiled without the hooks (`HOOKS` false, taken by every sender whose controller has
    /// none) sends what the one that reads them at run time sends, packet for packet, through random
    /// losses, SACK recoveries and timeouts.
    #[test]
    fn the_ack_path_without_hooks_sends_what_the_one_with_them_sends() {
        use crate::tcp::cc::CcSpec;
        use crate::tcp::receiver::Receiver;
        for kind in ["newreno", "cubic", "aimd"] {
            for sack in [false, true] {
                let c = TcpConfig { sack, ..TcpConfig::default() };
                let spec = CcSpec::parse(&serde_json::json!(kind), "cc").unwrap();
                let new = || Sender::new(0, spec.instantiate(crate::rng::Rng::new(1, 1)), &c);
                let (mut plain, mut read) = (new(), new());
                assert!(!plain.hooked, "{kind} has no hooks");
                read.hooked = true;
                let (mut out, mut out_read) = (Vec::new(), Vec::new());
                plain.start(0, &c, &mut out);
                read.start(0, &c, &mut out_read);
                let (mut receiver, mut rng) = (Receiver::new(), crate::rng::Rng::new(9, 9));
                let (mut now, mut sent) = (0, 0);
                for step in 0..3_000 {
                    assert_eq!(out, out_read, "{kind}, sack {sack}: step {step}");
                    sent += out.len();
                    now += from_secs(0.001);
                    let mut acks = Vec::new();
                    for pkt in out.drain(..) {
                        if rng.uniform() >= 0.04 {
                            acks.extend(receiver.on_data(&pkt, now, &c).ack);
                        }
                    }
                    out_read.clear();
                    if acks.is_empty() && plain.next_deadline() <= now + from_secs(5.0) {
                        now = now.max(plain.next_deadline());
                        plain.on_timer(now, &c, &mut out);
                        read.on_timer(now, &c, &mut out_read);
                    }
                    for a in &acks {
                        plain.on_ack(a, now, &c, &mut out);
                        read.on_ack(a, now, &c, &mut out_read);
                    }
                    assert_eq!((plain.cwnd(), plain.snd_una()), (read.cwnd(), read.snd_una()));
                }
                let st = &plain.stats;
                assert!(
                    sent > 10_000 && st.fast_recoveries > 20 && st.timeouts > 2,
                    "{kind}, sack {sack}: {sent} sent, {} fast recoveries, {} timeouts",
                    st.fast_recoveries,
                    st.timeouts
                );
            }
        }
    }

    fn bbr() -> crate::tcp::cc::bbr::Bbr {
        use crate::tcp::cc::{bbr::Bbr, Controller};
        let spec = serde_json::from_value(serde_json::json!({})).unwrap();
        Bbr::from_spec(&spec, "tcp.congestion_control", crate::rng::Rng::new(1, 1)).unwrap()
    }

    /// A sender of segments 0..=9 whose segment 0 is lost: the ACKs SACKing 1..=3 bring it into fast
    /// recovery. Returned with the packets it sent.
    fn in_fast_recovery(c: &TcpConfig) -> (Sender<NewReno>, Vec<Packet>) {
        let (mut s, mut out) = started(c);
        for k in 2..=4 {
            s.on_ack(&ack(0, &[(1, k)]), from_secs(0.1) + k as u64, c, &mut out);
        }
        (s, out)
    }

    fn seqs(out: &mut Vec<Packet>) -> Vec<(u32, bool)> {
        out.drain(..).map(|p| (p.seq, p.retransmit)).collect()
    }

    #[test]
    fn initial_window_then_slow_start() {
        let c = cfg(true, false);
        let (mut s, mut out) = started(&c);
        assert_eq!(seqs(&mut out), (0..10).map(|q| (q, false)).collect::<Vec<_>>());
        assert_eq!(s.rto.deadline(), from_secs(1.0));
        s.on_ack(&ack(1, &[]), from_secs(0.1), &c, &mut out);
        // cwnd 11, flight 9 -> two new segments
        assert_eq!(seqs(&mut out), vec![(10, false), (11, false)]);
        assert_eq!(s.cwnd(), 11.0);
        // RTO from the first sample: 0.1 + 4 * 0.05 = 0.3
        assert_eq!(s.rto.deadline(), from_secs(0.1) + from_secs(0.3));
    }

    #[test]
    fn handshake_syn_then_initial_window_with_a_sample() {
        let c = TcpConfig { handshake: true, ..cfg(true, false) };
        let (mut s, mut out) = started(&c);
        let syn = std::mem::take(&mut out);
        assert_eq!(syn.len(), 1);
        assert!(syn[0].syn && !syn[0].retransmit);
        assert_eq!(syn[0].size, 40, "header_size bytes");
        assert_eq!(s.rto.deadline(), from_secs(1.0), "timed by the initial RTO");
        // A stray data ACK before the SYN-ACK is ignored.
        s.on_ack(&ack(0, &[]), from_secs(0.05), &c, &mut out);
        assert!(out.is_empty());
        s.on_ack(&Ack { syn: true, ..Ack::default() }, from_secs(0.1), &c, &mut out);
        assert_eq!(seqs(&mut out), (0..10).map(|q| (q, false)).collect::<Vec<_>>());
        assert_eq!(s.srtt(), Some(0.1), "the handshake's sample");
        assert_eq!(s.rto.deadline(), from_secs(0.1) + from_secs(0.3));
        // A second SYN-ACK changes nothing.
        s.on_ack(&Ack { syn: true, ..Ack::default() }, from_secs(0.11), &c, &mut out);
        assert!(out.is_empty());
        assert_eq!(s.snd_nxt(), 10);
        assert_eq!((s.stats.sent, s.stats.timeouts, s.stats.retransmits), (11, 0, 0));
    }

    #[test]
    fn handshake_lost_syn_is_resent_with_backoff_and_no_sample() {
        let c = TcpConfig { handshake: true, ..cfg(true, false) };
        let (mut s, mut out) = started(&c);
        out.clear();
        s.on_timer(from_secs(1.0), &c, &mut out);
        assert!(out[0].syn && out[0].retransmit);
        assert_eq!(s.rto.deadline(), from_secs(3.0), "doubled: 1 s + 2 s");
        out.clear();
        s.on_timer(from_secs(3.0), &c, &mut out);
        assert_eq!(s.rto.deadline(), from_secs(7.0));
        out.clear();
        s.on_ack(&Ack { syn: true, ..Ack::default() }, from_secs(3.1), &c, &mut out);
        assert_eq!(out.len(), 10);
        assert_eq!(s.srtt(), None, "Karn: no sample from a resent SYN");
        assert_eq!(s.ssthresh(), f64::INFINITY, "a lost SYN is no congestion signal");
        assert_eq!((s.stats.sent, s.stats.timeouts, s.stats.retransmits), (13, 0, 2), "resent SYNs count");
    }

    #[test]
    fn handshake_after_a_resent_syn_the_backoff_ends_by_the_backoff_rule() {
        // The initial window after a resent SYN, lost whole: Karn keeps the SYN's backoff (2 s), ns-3's
        // "new-ack" rule drops it at the SYN-ACK (1 s, the initial RTO).
        for (backoff_end, rto) in [(BackoffEnd::ValidSample, 2.0), (BackoffEnd::NewAck, 1.0)] {
            let c = TcpConfig { handshake: true, backoff_end, ..cfg(true, false) };
            let (mut s, mut out) = started(&c);
            s.on_timer(from_secs(1.0), &c, &mut out);
            out.clear();
            s.on_ack(&Ack { syn: true, ..Ack::default() }, from_secs(1.1), &c, &mut out);
            assert_eq!(out.len(), 10);
            assert_eq!(s.rto.deadline(), from_secs(1.1) + from_secs(rto), "{backoff_end:?}");
        }
    }

    #[test]
    fn newreno_fast_retransmit_partial_and_full_ack() {
        let c = cfg(false, false);
        let (mut s, mut out) = started(&c);
        out.clear();
        // Segments 0 and 5 lost: dupacks for 1..=4 arrive as ack(0).
        for k in 0..3 {
            s.on_ack(&ack(0, &[]), from_secs(0.1) + k, &c, &mut out);
        }
        // Third dupack: ssthresh = 10/2 = 5, retransmit 0, cwnd = 5 + 3 = 8 < flight 10: nothing new.
        assert_eq!(seqs(&mut out), vec![(0, true)]);
        assert_eq!((s.ssthresh(), s.cwnd()), (5.0, 8.0));
        assert_eq!(s.stats.fast_recoveries, 1);
        for k in 0..4 {
            s.on_ack(&ack(0, &[]), from_secs(0.11) + k, &c, &mut out);
        }
        // Inflation: cwnd 12 > flight 10: segments 10 and 11.
        assert_eq!(seqs(&mut out), vec![(10, false), (11, false)]);
        // Partial ACK up to 5 (the next hole): retransmit 5, deflate cwnd = 12 - 5 + 1 = 8.
        s.on_ack(&ack(5, &[]), from_secs(0.2), &c, &mut out);
        assert_eq!(seqs(&mut out)[0], (5, true));
        assert_eq!(s.cwnd(), 8.0);
        // Full ACK beyond the recovery point (10) with segment 12 outstanding: cwnd = min(ssthresh 5, 1 + 1)
        // = 2, so one new segment leaves, not four (RFC 6582 §3.2 step 6, option 1).
        s.on_ack(&ack(12, &[]), from_secs(0.3), &c, &mut out);
        assert_eq!(s.cwnd(), 2.0);
        assert_eq!(seqs(&mut out), vec![(13, false)]);
    }

    #[test]
    fn newreno_full_ack_to_ssthresh_releases_the_whole_window() {
        let mut c = cfg(false, false);
        c.full_ack = FullAck::Ssthresh;
        let (mut s, mut out) = started(&c);
        for k in 0..3 {
            s.on_ack(&ack(0, &[]), from_secs(0.1) + k, &c, &mut out);
        }
        out.clear();
        s.on_ack(&ack(10, &[]), from_secs(0.2), &c, &mut out);
        assert_eq!(s.cwnd(), 5.0);
        assert_eq!(out.len(), 5, "option (2): the whole of ssthresh at once");
    }

    /// The ACKs of a window of ten segments, 0..=9, whose 0 and 5 are lost, each with the SACK blocks the
    /// receiver sends (which only a SACK sender under `"newreno"` reads): eight duplicate ACKs of 0 (1..=4,
    /// 6..=9 arrive), the partial ACK of 5 when the retransmission of 0 arrives, three duplicate ACKs of
    /// 5 as the segments 10..=12 sent in recovery arrive.
    fn two_losses_acks() -> (Vec<Ack>, Ack, Vec<Ack>) {
        let mut first = (2..=5).map(|k| ack(0, &[(1, k)])).collect::<Vec<_>>();
        first.extend((7..=10).map(|k| ack(0, &[(6, k), (1, 5)])));
        let more = (11..=13).map(|k| ack(5, &[(6, k)])).collect();
        (first, ack(5, &[(6, 10)]), more)
    }

    /// `tcp.recovery = "reno"`: the partial ACK of 5 ends recovery (cwnd = ssthresh = 5, nothing resent,
    /// nothing sent with 8 in flight); the three duplicate ACKs of 5 that segments 10..=12 bring start a
    /// second fast retransmit, a second halving (8 in flight: ssthresh 4), and its ACK ends that one too.
    /// With `sack = true` the blocks are ignored: the same packets, the same windows.
    #[test]
    fn reno_leaves_recovery_at_a_partial_ack_and_fast_retransmits_again() {
        for sack in [false, true] {
            let c = TcpConfig { recovery: Recovery::Reno, ..cfg(sack, false) };
            let (mut s, mut out) = started(&c);
            out.clear();
            let (first, partial, more) = two_losses_acks();
            for (i, a) in first.iter().enumerate() {
                s.on_ack(a, from_secs(0.1) + i as u64, &c, &mut out);
                if i == 2 {
                    // The third: ssthresh = 10 / 2, segment 0 resent, cwnd = 5 + 3.
                    assert_eq!(seqs(&mut out), vec![(0, true)]);
                    assert_eq!((s.ssthresh(), s.cwnd()), (5.0, 8.0));
                }
            }
            // Five more inflate cwnd to 13: segments 10..=12.
            assert_eq!(seqs(&mut out), vec![(10, false), (11, false), (12, false)]);
            assert_eq!(s.cwnd(), 13.0);
            s.on_ack(&partial, from_secs(0.2), &c, &mut out);
            assert_eq!(seqs(&mut out), vec![], "sack {sack}: no retransmission of 5, 8 in flight > cwnd");
            assert_eq!((s.ssthresh(), s.cwnd(), s.snd_una(), s.snd_nxt()), (5.0, 5.0, 5, 13));
            assert_eq!(s.cc_state(), crate::trace::CcState::CongestionAvoidance, "recovery is over");
            for (i, a) in more.iter().enumerate() {
                s.on_ack(a, from_secs(0.3) + i as u64, &c, &mut out);
            }
            // The third duplicate ACK of 5: a second fast retransmit, ssthresh = 8 / 2, cwnd = 4 + 3.
            assert_eq!(seqs(&mut out), vec![(5, true)]);
            assert_eq!((s.ssthresh(), s.cwnd()), (4.0, 7.0));
            s.on_ack(&ack(13, &[]), from_secs(0.4), &c, &mut out);
            assert_eq!(seqs(&mut out), vec![(13, false), (14, false), (15, false), (16, false)]);
            assert_eq!((s.ssthresh(), s.cwnd()), (4.0, 4.0));
            let st = s.stats;
            assert_eq!((st.fast_recoveries, st.timeouts, st.retransmits, st.sent), (2, 0, 2, 19));
        }
    }

    /// The same window under `"newreno"` (without SACK): one recovery repairs both holes, the partial ACK
    /// resending 5 (cwnd 13 − 5 + 1 = 9, so segment 13 too) and the full ACK of 13 ending it with cwnd =
    /// min(ssthresh 5, 4 in flight + 1); one halving.
    #[test]
    fn newreno_repairs_both_losses_of_the_window_in_one_recovery() {
        let c = cfg(false, false);
        let (mut s, mut out) = started(&c);
        out.clear();
        let (first, partial, more) = two_losses_acks();
        for (i, a) in first.iter().enumerate() {
            s.on_ack(a, from_secs(0.1) + i as u64, &c, &mut out);
        }
        assert_eq!(seqs(&mut out), vec![(0, true), (10, false), (11, false), (12, false)]);
        s.on_ack(&partial, from_secs(0.2), &c, &mut out);
        assert_eq!(seqs(&mut out), vec![(5, true), (13, false)]);
        assert_eq!((s.ssthresh(), s.cwnd()), (5.0, 9.0));
        assert_eq!(s.cc_state(), crate::trace::CcState::FastRecovery);
        for (i, a) in more.iter().enumerate() {
            s.on_ack(a, from_secs(0.3) + i as u64, &c, &mut out);
        }
        // Still in recovery: each duplicate ACK inflates the window by one, a new segment each.
        assert_eq!(seqs(&mut out), vec![(14, false), (15, false), (16, false)]);
        s.on_ack(&ack(13, &[]), from_secs(0.4), &c, &mut out);
        assert_eq!(seqs(&mut out), vec![(17, false)]);
        assert_eq!((s.ssthresh(), s.cwnd()), (5.0, 5.0));
        let st = s.stats;
        assert_eq!((st.fast_recoveries, st.timeouts, st.retransmits, st.sent), (1, 0, 2, 20));
    }

    /// A window of six, 0..=5, with 0 and 4 lost: four duplicate ACKs of 0 (1..=3, 5), the fourth
    /// sending segment 6. Under `"reno"` the partial ACK of 4 ends recovery with cwnd = ssthresh = 3 and
    /// 3 in flight; segment 6 brings a single duplicate ACK, too few, and the hole at 4 waits for the
    /// timer (1 s after that partial ACK, which restarted it; no RTT sample since segment 0 was resent).
    /// Under `"newreno"` the partial ACK resends 4 and the recovery ends without a timeout.
    #[test]
    fn reno_recovers_a_second_loss_by_timeout_when_too_few_duplicate_acks_come() {
        for recovery in [Recovery::Reno, Recovery::NewReno] {
            let c = TcpConfig { recovery, initial_window: 6.0, ..cfg(false, false) };
            let (mut s, mut out) = started(&c);
            out.clear();
            for (i, k) in [2, 3, 4].into_iter().enumerate() {
                s.on_ack(&ack(0, &[(1, k)]), from_secs(0.1) + i as u64, &c, &mut out);
            }
            assert_eq!((s.ssthresh(), s.cwnd()), (3.0, 6.0));
            s.on_ack(&ack(0, &[(5, 6), (1, 4)]), from_secs(0.11), &c, &mut out);
            assert_eq!(seqs(&mut out), vec![(0, true), (6, false)]);
            let at = from_secs(0.2);
            s.on_ack(&ack(4, &[(5, 6)]), at, &c, &mut out);
            s.on_ack(&ack(4, &[(5, 7)]), from_secs(0.3), &c, &mut out);
            if recovery == Recovery::NewReno {
                // Partial ACK: 4 resent, cwnd 7 - 4 + 1 = 4, segment 7; the duplicate ACK inflates: 8.
                assert_eq!(seqs(&mut out), vec![(4, true), (7, false), (8, false)]);
                s.on_ack(&ack(7, &[]), from_secs(0.4), &c, &mut out);
                // Full ACK: cwnd = min(ssthresh 3, 2 in flight + 1).
                assert_eq!((s.ssthresh(), s.cwnd()), (3.0, 3.0));
                assert_eq!(seqs(&mut out), vec![(9, false)]);
                assert_eq!((s.stats.fast_recoveries, s.stats.timeouts), (1, 0));
                continue;
            }
            assert_eq!(seqs(&mut out), vec![], "3 in flight = cwnd, one duplicate ACK only");
            assert_eq!((s.ssthresh(), s.cwnd(), s.snd_una(), s.snd_nxt()), (3.0, 3.0, 4, 7));
            assert_eq!(s.next_deadline(), at + from_secs(1.0));
            s.on_timer(s.next_deadline(), &c, &mut out);
            // Timeout: ssthresh = max(3 in flight / 2, 2), cwnd = 1, segment 4 resent.
            assert_eq!(seqs(&mut out), vec![(4, true)]);
            assert_eq!((s.ssthresh(), s.cwnd()), (2.0, 1.0));
            assert_eq!((s.stats.fast_recoveries, s.stats.timeouts, s.stats.retransmits), (1, 1, 2));
        }
    }

    /// `tcp.recovery_timer`: with holes at 0, 2 and 4, the partial ACKs of 2 and 4 both restart the timer
    /// under `"every-ack"` (RFC 6298 §5.3); under `"first-partial-ack"` (RFC 6582's Impatient variant, ns-3)
    /// only the first does, and the next recovery restarts on its first partial ACK again.
    #[test]
    fn recovery_timer_restarts_on_every_or_only_the_first_partial_ack() {
        for (timer, second) in [(RecoveryTimer::EveryAck, 0.3), (RecoveryTimer::FirstPartialAck, 0.2)] {
            let c = TcpConfig { recovery_timer: timer, ..cfg(true, false) };
            let (mut s, mut out) = started(&c);
            // A valid RTT sample of 100 ms first, so the RTO is the 200 ms minimum.
            s.on_ack(&ack(1, &[]), from_secs(0.1), &c, &mut out);
            // Of segments 1..=10 in flight, 1, 3 and 5 are lost; 2, 4 and 6..=8 SACKed.
            s.on_ack(&ack(1, &[(2, 3)]), from_secs(0.11), &c, &mut out);
            s.on_ack(&ack(1, &[(4, 5), (2, 3)]), from_secs(0.111), &c, &mut out);
            s.on_ack(&ack(1, &[(6, 9), (4, 5), (2, 3)]), from_secs(0.112), &c, &mut out);
            assert_eq!(s.stats.fast_recoveries, 1);
            let rto = s.rtt.rto(&c.rto);
            // First partial ACK (up to the hole at 3): both restart.
            s.on_ack(&ack(3, &[(6, 9), (4, 5)]), from_secs(0.2), &c, &mut out);
            assert_eq!(s.rto.deadline(), from_secs(0.2) + rto);
            // Second partial ACK (up to the hole at 5).
            s.on_ack(&ack(5, &[(6, 9)]), from_secs(0.3), &c, &mut out);
            assert_eq!(s.rto.deadline(), from_secs(second) + rto, "{timer:?}");
        }
    }

    /// `tcp.ecn_states`: an ECE on a partial ACK in fast recovery (segment 0 of 0..=9 lost) is ignored under
    /// `"open"` (RFC 3168) and ends the recovery in CWR under `"any"` (ns-3), ssthresh from the 6 segments
    /// in flight. In a CWR period entered from the open state, SACKs above a hole at segment 1 start fast
    /// recovery under `"open"`; under `"any"` they do not, and the hole goes out once the pipe is below cwnd.
    #[test]
    fn ecn_states_any_reacts_in_recovery_and_repairs_by_pipe_in_cwr() {
        use crate::trace::CcState;
        for states in [EcnStates::Open, EcnStates::Any] {
            let c = TcpConfig { ecn_states: states, ..cfg(true, true) };
            let (mut s, mut out) = in_fast_recovery(&c);
            assert_eq!(s.cc_state(), CcState::FastRecovery);
            let mut partial = ack(4, &[]);
            partial.ece = true;
            s.on_ack(&partial, from_secs(0.2), &c, &mut out);
            let (state, reductions, ssthresh) = match states {
                EcnStates::Open => (CcState::FastRecovery, 0, 5.0),
                EcnStates::Any => (CcState::Cwr, 1, 3.0),
            };
            assert_eq!((s.cc_state(), s.stats.ecn_reductions, s.ssthresh()), (state, reductions, ssthresh));

            let mut s = Sender::new(0, NewReno, &c);
            s.start(0, &c, &mut out);
            out.clear();
            let mut first = ack(1, &[]);
            first.ece = true;
            s.on_ack(&first, from_secs(0.1), &c, &mut out);
            assert_eq!((s.cc_state(), s.cwnd()), (CcState::Cwr, 4.5));
            for k in 3..=8 {
                s.on_ack(&ack(1, &[(2, k)]), from_secs(0.1) + k as u64, &c, &mut out);
            }
            let resent = seqs(&mut out).contains(&(1, true));
            match states {
                EcnStates::Open => assert_eq!((s.stats.fast_recoveries, resent), (1, true)),
                EcnStates::Any => {
                    assert_eq!((s.stats.fast_recoveries, s.cc_state(), resent), (0, CcState::Cwr, true));
                    assert_eq!(s.ssthresh(), 4.5, "no further reduction");
                }
            }
        }
    }

    /// `tcp.ssthresh_from`: segment 0 of 0..=9 lost, 1..=3 SACKed. On the third duplicate ACK FlightSize is
    /// 10, so `"flight"` gives ssthresh 5; ns-3's pipe is measured once that ACK has marked segment 0 lost:
    /// 10 − 3 SACKed − 1 lost = 6, ssthresh 3 (the pipe before the marking, 7, would give 3.5).
    #[test]
    fn ssthresh_from_pipe_counts_the_hole_this_ack_marks_lost() {
        for (from, ssthresh) in [(InFlight::FlightSize, 5.0), (InFlight::Pipe, 3.0)] {
            let c = TcpConfig { ssthresh_from: from, ..cfg(true, false) };
            let (s, _) = in_fast_recovery(&c);
            assert_eq!(
                (s.stats.fast_recoveries, s.ssthresh(), s.cwnd()),
                (1, ssthresh, ssthresh),
                "{from:?}"
            );
        }
    }

    /// `tcp.recovery_exit`: segment 0 of 0..=9 lost, 1..=3 SACKed: fast recovery with ssthresh 5. The ACK
    /// that ends it (up to 10) sets cwnd = 5 under `"deflate"`, and adds one congestion-avoidance step
    /// (1/5) under `"grow"` (ns-3). After a timeout (recovery point 10) an ACK inside timeout recovery
    /// grows cwnd from 1 to 2 under both; the ACK up to 10 that ends it grows it to 3 under `"deflate"`, and
    /// under `"grow"` only for segments beyond the recovery point, none here.
    #[test]
    fn recovery_exit_grows_the_deflated_window_under_grow() {
        for (mode, fast_exit, timeout_exit) in
            [(RecoveryExit::Deflate, 5.0, 3.0), (RecoveryExit::Grow, 5.2, 2.0)]
        {
            let c = TcpConfig { recovery_exit: mode, ..cfg(true, false) };
            let (mut s, mut out) = in_fast_recovery(&c);
            assert_eq!((s.stats.fast_recoveries, s.ssthresh()), (1, 5.0));
            s.on_ack(&ack(10, &[]), from_secs(0.2), &c, &mut out);
            assert!((s.cwnd() - fast_exit).abs() < 1e-9, "{mode:?}: cwnd {}", s.cwnd());

            let mut s = Sender::new(0, NewReno, &c);
            s.start(0, &c, &mut out);
            s.on_timer(s.next_deadline(), &c, &mut out);
            assert_eq!((s.stats.timeouts, s.cwnd()), (1, 1.0));
            s.on_ack(&ack(1, &[]), from_secs(1.5), &c, &mut out);
            assert_eq!(s.cwnd(), 2.0, "{mode:?}: an ACK inside timeout recovery grows it");
            s.on_ack(&ack(10, &[]), from_secs(1.6), &c, &mut out);
            assert_eq!(s.cwnd(), timeout_exit, "{mode:?}");
        }
    }

    /// `tcp.partial_ack`: of segments 0..=9, 0 is lost and 1..=3 SACKed: fast recovery with cwnd 5 and
    /// the head resent. Its ACK (up to 4) is partial and leaves a pipe of 6: under `"pipe"` nothing goes
    /// out; under `"send-one"` (ns-3) one segment does, new data since no hole is marked lost. With 5 lost
    /// too and 6..=8 SACKed, 5 is resent before the partial ACK reaches it, which then adds nothing.
    #[test]
    fn partial_ack_sends_one_segment_outside_the_pipe_under_send_one() {
        let partial_ack = |mode, five_lost: bool| {
            let c = TcpConfig { partial_ack: mode, ..cfg(true, false) };
            let (mut s, mut out) = in_fast_recovery(&c);
            assert_eq!((s.stats.fast_recoveries, s.cwnd()), (1, 5.0));
            if five_lost {
                s.on_ack(&ack(0, &[(6, 9), (1, 4)]), from_secs(0.11), &c, &mut out);
            }
            out.clear();
            let partial = if five_lost { ack(5, &[(6, 9)]) } else { ack(4, &[]) };
            s.on_ack(&partial, from_secs(0.2), &c, &mut out);
            seqs(&mut out)
        };
        assert_eq!(partial_ack(PartialAck::Pipe, false), vec![]);
        assert_eq!(partial_ack(PartialAck::SendOne, false), vec![(10, false)]);
        assert_eq!(partial_ack(PartialAck::SendOne, true), partial_ack(PartialAck::Pipe, true));
    }

    #[test]
    fn sack_recovery_retransmits_only_the_holes() {
        let c = cfg(true, false);
        let (mut s, mut out) = started(&c);
        out.clear();
        // 0 and 2 lost; 1, 3, 4, 5 SACKed.
        s.on_ack(&ack(0, &[(1, 2)]), 100, &c, &mut out);
        s.on_ack(&ack(0, &[(3, 4), (1, 2)]), 101, &c, &mut out);
        assert!(out.is_empty());
        s.on_ack(&ack(0, &[(3, 5), (1, 2)]), 102, &c, &mut out);
        // Three SACKed above 0 and 2 (IsLost): recovery, cwnd = ssthresh = 5, and the first segment goes out
        // at once (RFC 6675 step 4.3) although pipe = 10 - 3 SACKed - 2 lost + 1 retransmitted = 6 > 5.
        assert_eq!(s.cwnd(), 5.0);
        assert_eq!(seqs(&mut out), vec![(0, true)]);
        s.on_ack(&ack(0, &[(3, 6), (1, 2)]), 103, &c, &mut out);
        assert!(out.is_empty(), "pipe 5 = cwnd: {out:?}");
        s.on_ack(&ack(0, &[(3, 7), (1, 2)]), 104, &c, &mut out);
        // pipe 4 < 5: NextSeg rule 1 sends the next hole.
        assert_eq!(seqs(&mut out), vec![(2, true)]);
    }

    #[test]
    fn with_sack_only_new_sack_information_makes_a_duplicate_ack() {
        // RFC 6675 §2: ACKs that repeat the cumulative point and SACK nothing new (as a spurious
        // retransmission's do) are not duplicate ACKs, so three of them trigger nothing.
        let c = TcpConfig { limited_transmit: true, ..cfg(true, false) };
        let (mut s, mut out) = started(&c);
        out.clear();
        s.on_ack(&ack(0, &[(1, 2)]), 100, &c, &mut out);
        assert_eq!(seqs(&mut out), vec![(10, false)], "the first duplicate: one segment by limited transmit");
        for t in 101..104 {
            s.on_ack(&ack(0, &[(1, 2)]), t, &c, &mut out);
        }
        assert!(out.is_empty() && s.stats.fast_recoveries == 0, "{out:?}");
        // An ACK that moves the cumulative point and SACKs new data counts as the first (RFC 6675 §5).
        s.on_ack(&ack(1, &[(3, 4)]), 105, &c, &mut out);
        assert_eq!(s.dupacks, 1);
        s.on_ack(&ack(1, &[(3, 5)]), 106, &c, &mut out);
        s.on_ack(&ack(1, &[(3, 6)]), 107, &c, &mut out);
        assert_eq!(s.stats.fast_recoveries, 1, "the third: fast retransmit of segment 1");
    }

    #[test]
    fn without_sack_every_ack_that_acknowledges_nothing_new_is_a_duplicate() {
        let c = cfg(false, false);
        let (mut s, mut out) = started(&c);
        out.clear();
        for t in 100..103 {
            s.on_ack(&ack(0, &[]), t, &c, &mut out);
        }
        assert_eq!(s.stats.fast_recoveries, 1);
        assert_eq!(seqs(&mut out), vec![(0, true)]);
    }

    #[test]
    fn timeout_backs_off_and_resends_from_the_first_hole() {
        let c = cfg(true, false);
        let (mut s, mut out) = started(&c);
        out.clear();
        s.on_timeout(from_secs(1.0), &c, &mut out);
        assert_eq!(seqs(&mut out), vec![(0, true)]);
        assert_eq!((s.cwnd(), s.ssthresh()), (1.0, 5.0));
        // The timer backed off to 2 s and was re-armed by the retransmission.
        assert_eq!(s.rtt.rto(&c.rto), from_secs(2.0));
        assert_eq!(s.rto.deadline(), from_secs(3.0));
        // Karn: the ACK of a retransmitted segment gives no sample; slow start resends 1 and 2.
        s.on_ack(&ack(1, &[]), from_secs(1.5), &c, &mut out);
        assert_eq!(seqs(&mut out), vec![(1, true), (2, true)]);
        assert_eq!(s.rtt.rto(&c.rto), from_secs(2.0));
    }

    #[test]
    fn each_timeout_is_counted_under_its_cause() {
        let c = cfg(true, false);
        let causes = |s: &Sender<NewReno>| {
            let t = &s.stats;
            [
                t.timeouts_insufficient_dupacks,
                t.timeouts_during_recovery,
                t.timeouts_lost_retransmission,
                t.timeouts_other,
            ]
        };
        // Nothing comes back: outside recovery, too few duplicate ACKs.
        let (mut s, mut out) = started(&c);
        s.on_timeout(from_secs(1.0), &c, &mut out);
        assert_eq!(causes(&s), [1, 0, 0, 0]);
        // The retransmission of segment 0 is lost too.
        s.on_timeout(from_secs(3.0), &c, &mut out);
        assert_eq!(causes(&s), [1, 0, 1, 0]);
        assert_eq!(s.stats.timeouts, 2);

        // Fast recovery for segment 0; its retransmission arrives, the partial ACK leaves segment 5 first,
        // with too few segments SACKed above it to call it lost, and nothing more comes back.
        let mut s = Sender::new(0, NewReno, &c);
        s.start(0, &c, &mut out);
        for (i, k) in (2..=4).enumerate() {
            s.on_ack(&ack(0, &[(1, k)]), 100 + i as Time, &c, &mut out);
        }
        s.on_ack(&ack(0, &[(1, 5)]), 103, &c, &mut out);
        s.on_ack(&ack(5, &[(6, 7)]), 200, &c, &mut out);
        assert!(!s.sb.ever_resent(0));
        s.on_timeout(from_secs(2.0), &c, &mut out);
        assert_eq!(causes(&s), [0, 1, 0, 0]);
    }

    #[test]
    fn no_rtt_sample_when_the_oldest_acknowledged_segment_was_retransmitted() {
        // Segment 0 lost, 1..=9 SACKed: the ACK that fills the hole after 5 s acknowledges segments sent
        // at 0 and never resent, but the wait is the hole's, not the path's (RFC 6298 §3, Karn).
        let c = cfg(true, false);
        let (mut s, mut out) = started(&c);
        for k in 2..=4 {
            s.on_ack(&ack(0, &[(1, k)]), from_secs(0.1), &c, &mut out);
        }
        assert_eq!(s.stats.fast_recoveries, 1);
        s.on_ack(&ack(10, &[]), from_secs(5.0), &c, &mut out);
        assert_eq!(s.srtt(), None, "a sample of 5 s would lock the flow behind a backed-off timer");
    }

    #[test]
    fn rtt_sample_from_the_oldest_acknowledged_segment() {
        // As ns-3's RttHistory and the timestamp option with a cumulative ACK (RFC 7323 §4.3).
        let c = cfg(true, false);
        let (mut s, mut out) = started(&c);
        s.on_ack(&ack(1, &[]), from_secs(0.1), &c, &mut out); // sample 0.1; 10 and 11 leave at 0.1
        s.on_ack(&ack(12, &[]), from_secs(0.3), &c, &mut out); // oldest (1) left at 0: sample 0.3
        assert!((s.srtt().unwrap() - (0.875 * 0.1 + 0.125 * 0.3)).abs() < 1e-9);
    }

    #[test]
    fn last_rtt_from_the_newest_acknowledged_segment() {
        // ns-3's `m_lastRtt` (what BBR's minimum-RTT filter reads): the same ACK as above times its newest
        // segment, 11, sent at 0.1: 0.2 s, while the timer's sample is the oldest's 0.3 s.
        let c = cfg(true, false);
        let (mut s, mut out) = started_with(&c, bbr());
        s.on_ack(&ack(1, &[]), from_secs(0.1), &c, &mut out);
        assert_eq!(s.rtt.last_rtt(), Some(from_secs(0.1)));
        s.on_ack(&ack(12, &[]), from_secs(0.3), &c, &mut out);
        assert_eq!(s.rtt.last_rtt(), Some(from_secs(0.3) - from_secs(0.1)));
    }

    #[test]
    fn last_rtt_after_a_repaired_hole_times_the_newest_segment_and_keeps_its_value_otherwise() {
        // Segment 0 lost, 1..=3 SACKed: the ACK that fills the hole covers 0..=9, and its newest segment,
        // 9, sent at 0 and never resent, gives BBR its RTT whatever became of segment 0 (ns-3).
        let c = cfg(true, false);
        let (mut s, mut out) = started_with(&c, bbr());
        assert_eq!(s.rtt.last_rtt(), None, "no ACK yet");
        for k in 2..=4 {
            s.on_ack(&ack(0, &[(1, k)]), from_secs(0.1), &c, &mut out);
        }
        s.on_ack(&ack(10, &[]), from_secs(0.5), &c, &mut out);
        assert_eq!(s.rtt.last_rtt(), Some(from_secs(0.5)), "segment 9 left at 0");
        // An ACK whose newest segment was resent leaves the value as it was.
        let resent = s.snd_una;
        s.emit::<true>(resent, true, from_secs(0.6), &c, &mut out);
        s.on_ack(&ack(resent + 1, &[]), from_secs(0.7), &c, &mut out);
        assert_eq!(s.rtt.last_rtt(), Some(from_secs(0.5)));
    }

    #[test]
    fn no_last_rtt_from_segments_sent_before_a_timeout() {
        // ns-3 clears its RTT history at a timeout: segments 1..=9, sent before it at 0 and never resent,
        // give BBR no 2 s sample when the resent segment 0 is acknowledged with them.
        let c = cfg(true, false);
        let (mut s, mut out) = started_with(&c, bbr());
        s.on_ack(&ack(0, &[(1, 10)]), from_secs(0.1), &c, &mut out);
        let before = s.rtt.last_rtt();
        s.on_timeout(from_secs(1.0), &c, &mut out);
        s.on_ack(&ack(10, &[]), from_secs(2.0), &c, &mut out);
        assert_eq!(s.rtt.last_rtt(), before);
    }

    #[test]
    fn ns3_backoff_ends_at_any_new_ack() {
        let mut c = cfg(true, false);
        c.backoff_end = BackoffEnd::NewAck;
        let (mut s, mut out) = started(&c);
        s.on_timeout(from_secs(1.0), &c, &mut out);
        assert_eq!(s.rtt.rto(&c.rto), from_secs(2.0));
        // The ACK of the retransmission gives no sample, but the backoff is gone: back to the initial 1 s.
        s.on_ack(&ack(1, &[]), from_secs(1.5), &c, &mut out);
        assert_eq!(s.rtt.rto(&c.rto), from_secs(1.0));
    }

    #[test]
    fn ecn_echo_reduces_once_per_window_and_sets_cwr() {
        let c = cfg(true, true);
        let (mut s, mut out) = started(&c);
        assert!(out.iter().all(|p| p.ecn == Ecn::Ect));
        out.clear();
        let mut a = ack(1, &[]);
        a.ece = true;
        s.on_ack(&a, 100, &c, &mut out);
        // 9 segments out once this ACK is processed -> ssthresh 4.5, cwnd 4.5: nothing sent yet.
        assert_eq!((s.cwnd(), s.ssthresh()), (4.5, 4.5));
        assert!(out.is_empty());
        assert_eq!(s.stats.ecn_reductions, 1);
        a.ack = 2;
        s.on_ack(&a, 101, &c, &mut out);
        assert_eq!(s.stats.ecn_reductions, 1, "one reduction per window");
        for n in 3..=10 {
            s.on_ack(&ack(n, &[]), 102 + n as u64, &c, &mut out);
        }
        let first_new = out.iter().find(|p| !p.retransmit).unwrap();
        assert!(first_new.cwr);
        assert_eq!(out.iter().filter(|p| p.cwr).count(), 1);
    }

    #[test]
    fn per_signal_ecn_response_reduces_on_every_ece_ack() {
        let mut c = cfg(true, true);
        c.ecn_response = EcnResponse::PerSignal;
        let (mut s, mut out) = started(&c);
        out.clear();
        let mut a = ack(1, &[]);
        a.ece = true;
        s.on_ack(&a, 100, &c, &mut out);
        assert_eq!((s.cwnd(), s.ssthresh()), (4.5, 4.5), "9 in flight, halved");
        // The next ECE-carrying ACK, inside the CWR period, reduces again: 8 in flight -> 4.
        a.ack = 2;
        s.on_ack(&a, 101, &c, &mut out);
        assert_eq!((s.cwnd(), s.ssthresh()), (4.0, 4.0));
        assert_eq!(s.stats.ecn_reductions, 2);
        // An ACK without ECE does not.
        s.on_ack(&ack(3, &[]), 102, &c, &mut out);
        assert_eq!(s.stats.ecn_reductions, 2);
        assert_eq!(s.cwnd(), 4.0, "no growth in the CWR period");
    }

    #[test]
    fn max_window_caps_packets_in_flight() {
        let mut c = cfg(true, false);
        c.max_window = 4;
        let (mut s, mut out) = started(&c);
        assert_eq!(out.len(), 4);
        out.clear();
        s.on_ack(&ack(2, &[]), 10, &c, &mut out);
        assert_eq!(seqs(&mut out), vec![(4, false), (5, false)]);
    }

    /// A controller that records every hook call, paces at a fixed gap and tags packets with its cwnd.
    #[derive(Default)]
    struct Recorder {
        calls: std::cell::RefCell<Vec<String>>,
        gap: Option<Time>,
    }

    impl CongestionControl for Recorder {
        const PACES: bool = true;
        const TAGS: bool = true;
        fn on_ack(&mut self, w: &mut Window, acked: u32, ctx: &CcContext) {
            self.calls.get_mut().push(format!("ack {acked} at {} srtt {:?}", ctx.now, ctx.rtt.srtt()));
            w.cwnd += 1.0;
        }
        fn on_congestion(&mut self, _w: &Window, signal: Signal, ctx: &CcContext) -> f64 {
            self.calls.get_mut().push(format!("{signal:?} flight {} pipe {}", ctx.flight, ctx.pipe));
            3.0
        }
        fn loss_window(&mut self, _w: &Window, _ctx: &CcContext) -> f64 {
            self.calls.get_mut().push("loss window".into());
            2.0
        }
        fn on_recovery_end(&mut self, w: &mut Window, _ctx: &CcContext) {
            self.calls.get_mut().push(format!("recovery end cwnd {}", w.cwnd));
        }
        fn pacing_gap(&mut self, _w: &Window, _ctx: &CcContext) -> Option<Time> {
            self.gap
        }
        fn tag(&self, w: &Window, _ctx: &CcContext) -> f32 {
            w.cwnd as f32
        }
    }

    #[test]
    fn hooks_receive_time_rtt_flight_and_the_signal_kind() {
        let c = cfg(true, true);
        let mut s = Sender::new(0, Recorder::default(), &c);
        let mut out = Vec::new();
        s.start(0, &c, &mut out);
        assert!(out.iter().all(|p| p.tag == 10.0), "tags carry the window");
        out.clear();
        s.on_ack(&ack(1, &[]), from_secs(0.1), &c, &mut out);
        let mut a = ack(2, &[]);
        a.ece = true;
        s.on_ack(&a, from_secs(0.11), &c, &mut out);
        assert_eq!(s.cwnd(), 3.0, "ECN: cwnd = the controller's ssthresh");
        // Three SACKed above 2: fast retransmit, then a full ACK ends recovery.
        s.on_ack(&ack(2, &[(3, 6)]), from_secs(0.12), &c, &mut out);
        let recover = s.snd_nxt();
        s.on_ack(&ack(recover, &[]), from_secs(0.2), &c, &mut out);
        s.on_timeout(from_secs(2.0), &c, &mut out);
        assert_eq!(s.cwnd(), 2.0, "timeout: the controller's loss window");
        let calls = s.controller().calls.borrow().clone();
        assert_eq!(calls[0], format!("ack 1 at {} srtt Some(0.1)", from_secs(0.1)));
        // The ECE-carrying ACK acknowledges new data: growth first, then the reduction (RFC 3168 §6.1.2).
        assert!(calls[1].starts_with(&format!("ack 1 at {}", from_secs(0.11))), "{calls:?}");
        assert_eq!(calls[2], "Ecn flight 10 pipe 10");
        assert!(calls[3].starts_with("Loss flight"), "{calls:?}");
        assert_eq!(calls[4], "recovery end cwnd 3");
        assert!(calls[5].starts_with("Timeout") && calls[6] == "loss window", "{calls:?}");
    }

    #[test]
    fn pacing_spreads_the_window_by_the_gap() {
        let c = cfg(true, false);
        let mut s = Sender::new(0, Recorder { gap: Some(1_000), ..Default::default() }, &c);
        let mut out = Vec::new();
        s.start(0, &c, &mut out);
        assert_eq!(out.len(), 1, "one packet, then the pacing timer");
        assert_eq!(s.next_deadline(), 1_000);
        let mut t = 0;
        while out.len() < 10 {
            t = s.next_deadline();
            s.on_timer(t, &c, &mut out);
        }
        assert_eq!(t, 9_000, "ten packets 1,000 ps apart");
        s.on_timer(s.next_deadline(), &c, &mut out);
        assert_eq!(out.len(), 10, "the window is full: nothing more");
        assert_eq!(s.pace.deadline(), NEVER);
    }

    #[test]
    fn tcp_pacing_uses_srtt_over_cwnd() {
        let mut c = cfg(true, false);
        c.pacing = Pacing::Rtt;
        let (mut s, mut out) = started(&c);
        assert_eq!(out.len(), 10, "no RTT sample yet: the initial window goes out at once");
        out.clear();
        s.on_ack(&ack(1, &[]), from_secs(0.1), &c, &mut out);
        // srtt 100 ms, cwnd 11: one packet now, the next 100/11 ms later.
        assert_eq!(out.len(), 1);
        assert_eq!(s.pace.deadline(), from_secs(0.1) + from_secs(0.1 / 11.0));
    }

    #[test]
    fn rtt_pacing_spreads_the_usable_window_not_a_cwnd_beyond_w_max() {
        let mut c = cfg(true, false);
        c.pacing = Pacing::Rtt;
        c.max_window = 8;
        let (mut s, mut out) = started(&c);
        assert_eq!(out.len(), 8, "unpaced before the first sample, capped at W_max");
        out.clear();
        s.on_ack(&ack(1, &[]), from_secs(0.1), &c, &mut out);
        // cwnd 11 but only 8 may be in flight: 8 packets per 100 ms, 12.5 ms apart.
        assert_eq!(s.cwnd(), 11.0);
        assert_eq!(out.len(), 1);
        assert_eq!(s.pace.deadline(), from_secs(0.1) + from_secs(0.0125));
        s.win.cwnd = 3.5;
        assert_eq!(s.pacing_gap::<true>(from_secs(0.1), &c), Some(from_secs(0.1 / 3.5)));
    }

    #[test]
    fn cwnd_pacing_spreads_the_whole_cwnd_even_beyond_w_max() {
        let mut c = cfg(true, false);
        c.pacing = Pacing::Cwnd;
        c.max_window = 8;
        let (mut s, mut out) = started(&c);
        out.clear();
        s.on_ack(&ack(1, &[]), from_secs(0.1), &c, &mut out);
        // cwnd 11 > W_max 8: one packet every 100/11 ms, the 8 in flight sent faster than one per 12.5 ms.
        assert_eq!(s.cwnd(), 11.0);
        assert_eq!(s.pacing_gap::<true>(from_secs(0.1), &c), Some(from_secs(0.1 / 11.0)));
    }

    #[test]
    fn linux_pacing_ratio_200_percent_in_slow_start_120_after() {
        let mut c = cfg(true, false);
        c.pacing = Pacing::Linux;
        let (mut s, mut out) = started(&c);
        assert_eq!(out.len(), 10, "no RTT sample yet: unpaced");
        out.clear();
        s.on_ack(&ack(1, &[]), from_secs(0.1), &c, &mut out);
        // cwnd 11 < ssthresh/2 = inf: rate 2 · max(11, 9 in flight) / 100 ms, a gap of 0.1/22 s.
        assert_eq!(out.len(), 1);
        assert_eq!(s.pace.deadline(), from_secs(0.1) + from_secs(0.1 / 22.0));
        let now = from_secs(0.1);
        // cwnd 20 >= ssthresh/2 = 15: congestion avoidance, 1.2 · 20 per RTT.
        s.win = Window { cwnd: 20.0, ssthresh: 30.0 };
        assert_eq!(s.pacing_gap::<true>(now, &c), Some(from_secs(0.1 / 24.0)));
        // cwnd 14 < 15: slow start's 200 %.
        s.win = Window { cwnd: 14.0, ssthresh: 30.0 };
        assert_eq!(s.pacing_gap::<true>(now, &c), Some(from_secs(0.1 / 28.0)));
        // Fewer in the window than in flight (10 after this ACK's new packet): max(cwnd, packets out).
        s.win = Window { cwnd: 4.0, ssthresh: 6.0 };
        assert_eq!(s.flight(), 10);
        assert_eq!(s.pacing_gap::<true>(now, &c), Some(from_secs(0.1 / 12.0)));
    }

    #[test]
    fn a_timeout_retransmission_waits_for_the_pacing_gap() {
        let c = cfg(true, false);
        let mut s = Sender::new(0, Recorder { gap: Some(from_secs(2.0)), ..Default::default() }, &c);
        let mut out = Vec::new();
        s.start(0, &c, &mut out);
        assert_eq!(seqs(&mut out), vec![(0, false)]);
        // The RTO (1 s) expires before the next pacing epoch (2 s): the retransmission waits for it.
        assert_eq!(s.next_deadline(), from_secs(1.0));
        s.on_timer(from_secs(1.0), &c, &mut out);
        assert!(out.is_empty());
        assert_eq!(s.stats.timeouts, 1);
        s.on_timer(s.next_deadline(), &c, &mut out);
        assert_eq!(seqs(&mut out), vec![(0, true)]);
        assert_eq!(s.pace.deadline(), from_secs(4.0));
    }

    #[test]
    fn poisson_injection_ignores_the_window_unless_told_not_to() {
        use crate::rng::Rng;
        use crate::tcp::cc::{poisson, Controller, Poisson};
        for limited in [false, true] {
            let spec = poisson::Spec { window_limited: limited, ..Default::default() };
            let cc = Poisson::from_spec(&spec, "c", Rng::new(9, 9)).unwrap();
            let mut c = cfg(true, false);
            c.rto.min = from_secs(50.0); // no timeout while no ACK comes back
            let mut s = Sender::new(0, cc, &c);
            let mut out = Vec::new();
            s.start(0, &c, &mut out);
            assert_eq!(out.len(), 10, "no RTT sample yet: the initial window at once");
            out.clear();
            s.on_ack(&ack(1, &[]), from_secs(0.1), &c, &mut out);
            assert_eq!((out.len(), s.cwnd()), (1, 11.0));
            // No more ACKs: each epoch sends one packet past the window, or nothing once it is full.
            let mut times = vec![from_secs(0.1)];
            while s.pace.is_armed() && times.len() < 2001 {
                let t = s.next_deadline();
                s.on_timer(t, &c, &mut out);
                if out.len() == times.len() + 1 {
                    times.push(t);
                }
            }
            if limited {
                assert_eq!(s.flight(), 11, "window-limited: stops at cwnd");
                continue;
            }
            assert_eq!(s.flight(), 2010, "every epoch sends, whatever is in flight");
            let gaps: Vec<f64> = times.windows(2).map(|p| crate::time::to_secs(p[1] - p[0])).collect();
            let mean = gaps.iter().sum::<f64>() / gaps.len() as f64;
            // 2,000 exponential gaps of mean 0.1/11 s: the sample mean is within 3 standard errors (6.7 %).
            assert!((mean / (0.1 / 11.0) - 1.0).abs() < 0.067, "{mean}");
        }
    }

    #[test]
    fn finite_flow_sends_its_size_and_completes() {
        let c = cfg(true, false);
        let mut s = Sender::new(0, NewReno, &c).with_size(4);
        let mut out = Vec::new();
        s.start(0, &c, &mut out);
        assert_eq!(seqs(&mut out), (0..4).map(|q| (q, false)).collect::<Vec<_>>());
        assert!(!s.is_complete());
        s.on_ack(&ack(4, &[]), from_secs(0.1), &c, &mut out);
        assert!(s.is_complete() && out.is_empty());
        assert_eq!(s.next_deadline(), NEVER, "no timer once everything is acknowledged");
    }
}
