//! The TCP sender's state machine for one bulk flow (always has data to send while active).
//!
//! Loss detection and recovery:
//! - **Fast retransmit** on `dupack_threshold` duplicate ACKs, or (with SACK) when the first unacknowledged
//!   segment `IsLost` (RFC 6675 §4: `dupack_threshold` segments SACKed above it). Entering recovery sets
//!   `ssthresh` from the controller (RFC 5681 eq. 4) and the recovery point to the highest segment sent.
//!   Recovery is entered only if the cumulative ACK lies beyond the previous recovery point (RFC 6582 §3.2).
//! - **With SACK** (RFC 6675): `cwnd = ssthresh`; while `pipe < cwnd`, send `NextSeg`: first the lowest lost,
//!   not yet retransmitted segment, else new data, else (window-limited) the lowest unSACKed segment not yet
//!   retransmitted (rule 3). Partial ACKs keep recovery going; a full ACK ends it with `cwnd = ssthresh`.
//! - **Without SACK** (RFC 6582 NewReno): retransmit the first segment, `cwnd = ssthresh + dupthresh`, inflate by
//!   one per further duplicate ACK; a partial ACK retransmits the next hole and deflates by the amount acked
//!   minus one; a full ACK sets `cwnd = ssthresh`.
//! - **Timeout** (RFC 6298, RFC 5681): `ssthresh` from the controller, `cwnd` = the loss window, every
//!   unSACKed outstanding segment is marked lost and resent in order under `pipe < cwnd` (SACK information is
//!   kept, as ns-3 does), the timer backs off.
//! - **ECN** (RFC 3168 §6.1.2): on an ACK with ECE, at most once per window of data, `ssthresh` from the
//!   controller and `cwnd = ssthresh`; CWR is set on the next new data packet. Retransmissions are Not-ECT
//!   (§6.1.5).
//!
//! RTT samples come from every ACK that acknowledges new data whose newest acknowledged segment was never
//! retransmitted (Karn), as with the timestamp option.

use super::cc::{AnyCc, CongestionControl, Window};
use super::rtt::RttEstimator;
use super::scoreboard::Scoreboard;
use super::TcpConfig;
use crate::packet::{Ack, Ecn, Packet};
use crate::time::{Time, NEVER};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Phase {
    Open,
    FastRecovery,
    TimeoutRecovery,
}

/// Per-flow counters.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SenderStats {
    pub sent: u64,
    pub retransmits: u64,
    pub timeouts: u64,
    pub fast_recoveries: u64,
    pub ecn_reductions: u64,
}

pub struct Sender {
    pub flow: u32,
    cc: AnyCc,
    win: Window,
    snd_una: u32,
    snd_nxt: u32,
    /// State of each outstanding segment `snd_una + i`.
    sb: Scoreboard,
    dupacks: u32,
    phase: Phase,
    recover: Option<u32>,
    ecn_recover: u32,
    cwr_pending: bool,
    rtt: RttEstimator,
    /// When the retransmission timer expires (`NEVER` if unarmed).
    pub rto_deadline: Time,
    /// When the scheduled timer event fires (`NEVER` if none is scheduled).
    pub rto_event_at: Time,
    active: bool,
    pub stats: SenderStats,
}

impl Sender {
    pub fn new(flow: u32, cc: AnyCc, cfg: &TcpConfig) -> Self {
        Sender {
            flow,
            cc,
            win: Window { cwnd: cfg.initial_window, ssthresh: f64::INFINITY },
            snd_una: 0,
            snd_nxt: 0,
            sb: Scoreboard::default(),
            dupacks: 0,
            phase: Phase::Open,
            recover: None,
            ecn_recover: 0,
            cwr_pending: false,
            rtt: RttEstimator::new(&cfg.rto),
            rto_deadline: NEVER,
            rto_event_at: NEVER,
            active: false,
            stats: SenderStats::default(),
        }
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
    fn flight(&self) -> u32 {
        self.snd_nxt - self.snd_una
    }
    /// Start sending (the initial window goes out at once).
    pub fn start(&mut self, now: Time, cfg: &TcpConfig, out: &mut Vec<Packet>) {
        self.active = true;
        self.transmit(now, cfg, out);
    }

    /// Stop sending new data; outstanding data is still recovered.
    pub fn stop(&mut self) {
        self.active = false;
    }

    pub fn on_ack(&mut self, ack: &Ack, now: Time, cfg: &TcpConfig, out: &mut Vec<Packet>) {
        if ack.ack > self.snd_nxt || ack.ack < self.snd_una {
            return; // outside the window: stale or invalid
        }
        if cfg.sack {
            self.apply_sack(ack);
        }
        let newly_acked = ack.ack - self.snd_una;
        if newly_acked > 0 {
            let (sent_at, retransmitted) = self.sb.ack(newly_acked as usize);
            if !retransmitted {
                self.rtt.sample(now - sent_at, &cfg.rto);
            }
            self.snd_una = ack.ack;
            self.dupacks = 0;
            self.on_new_ack(newly_acked, cfg);
            self.rto_deadline = if self.flight() > 0 { now + self.rtt.rto(&cfg.rto) } else { NEVER };
        } else if self.flight() > 0 {
            self.dupacks += 1;
            if self.phase == Phase::FastRecovery && !cfg.sack {
                self.win.cwnd += 1.0;
            }
        }
        if cfg.ecn && ack.ece && self.phase == Phase::Open && self.snd_una >= self.ecn_recover {
            self.congestion_signal(cfg);
            self.win.cwnd = self.win.ssthresh;
            self.stats.ecn_reductions += 1;
        }
        self.detect_loss(cfg);
        self.transmit(now, cfg, out);
    }

    fn on_new_ack(&mut self, newly_acked: u32, cfg: &TcpConfig) {
        let recover = self.recover.unwrap_or(0);
        match self.phase {
            Phase::Open => self.cc.on_ack(&mut self.win, newly_acked),
            Phase::FastRecovery if self.snd_una >= recover => {
                self.phase = Phase::Open;
                self.win.cwnd = self.win.ssthresh;
            }
            Phase::FastRecovery => {
                if !cfg.sack {
                    // RFC 6582 §3.2 step 5: retransmit the next hole, deflate.
                    self.sb.mark_lost(0);
                    self.win.cwnd = (self.win.cwnd - newly_acked as f64 + 1.0).max(1.0);
                }
            }
            Phase::TimeoutRecovery => {
                self.cc.on_ack(&mut self.win, newly_acked);
                if self.snd_una >= recover {
                    self.phase = Phase::Open;
                }
            }
        }
    }

    fn apply_sack(&mut self, ack: &Ack) {
        for &(start, end) in ack.sack_blocks() {
            let lo = start.max(self.snd_una);
            let hi = end.min(self.snd_nxt);
            if lo < hi {
                self.sb.sack((lo - self.snd_una) as usize, (hi - self.snd_una) as usize);
            }
        }
    }

    fn congestion_signal(&mut self, cfg: &TcpConfig) {
        self.win.ssthresh = self.cc.ssthresh_after_congestion(&self.win, self.flight());
        self.ecn_recover = self.snd_nxt;
        self.cwr_pending = cfg.ecn;
    }

    fn detect_loss(&mut self, cfg: &TcpConfig) {
        if self.flight() == 0 {
            return;
        }
        if self.phase != Phase::Open {
            if cfg.sack {
                self.sb.mark_lost_by_sack(cfg.dupack_threshold);
            }
            return;
        }
        let beyond_recover = self.recover.is_none_or(|r| self.snd_una >= r);
        // IsLost(snd_una): the first segment is unSACKed (else it would be acked), so all SACKed are above.
        let sack_says_lost = cfg.sack && self.sb.sacked() >= cfg.dupack_threshold;
        if !(beyond_recover && (self.dupacks >= cfg.dupack_threshold || sack_says_lost)) {
            return;
        }
        self.phase = Phase::FastRecovery;
        self.recover = Some(self.snd_nxt);
        self.stats.fast_recoveries += 1;
        self.congestion_signal(cfg);
        self.sb.mark_lost(0);
        if cfg.sack {
            self.win.cwnd = self.win.ssthresh;
            self.sb.mark_lost_by_sack(cfg.dupack_threshold);
        } else {
            self.win.cwnd = self.win.ssthresh + cfg.dupack_threshold as f64;
        }
    }

    /// The retransmission timer fired at `now` (the caller checked `now >= rto_deadline`).
    pub fn on_timeout(&mut self, now: Time, cfg: &TcpConfig, out: &mut Vec<Packet>) {
        self.rto_deadline = NEVER;
        if self.flight() == 0 {
            return;
        }
        self.stats.timeouts += 1;
        self.congestion_signal(cfg);
        self.win.cwnd = self.cc.loss_window();
        self.phase = Phase::TimeoutRecovery;
        self.recover = Some(self.snd_nxt);
        self.dupacks = 0;
        self.sb.mark_all_lost();
        self.rtt.back_off();
        self.transmit(now, cfg, out);
    }

    fn may_send_new(&self, cfg: &TcpConfig) -> bool {
        self.active && self.flight() < cfg.max_window
    }

    fn transmit(&mut self, now: Time, cfg: &TcpConfig, out: &mut Vec<Packet>) {
        let cwnd = self.win.cwnd.max(1.0).floor() as u32;
        let pipe_mode =
            self.phase == Phase::TimeoutRecovery || (cfg.sack && self.phase == Phase::FastRecovery);
        if pipe_mode {
            let mut pipe = self.sb.pipe();
            while pipe < cwnd {
                if let Some(i) = self.sb.next_lost() {
                    self.emit(self.snd_una + i as u32, true, now, cfg, out);
                } else if self.may_send_new(cfg) {
                    self.emit(self.snd_nxt, false, now, cfg, out);
                } else if let Some(i) = self.sb.first_unsacked_unsent() {
                    // Rule 3: window-limited; resend the lowest unSACKed segment once.
                    self.sb.mark_lost(i);
                    self.emit(self.snd_una + i as u32, true, now, cfg, out);
                } else {
                    break;
                }
                pipe += 1;
            }
        } else {
            // Open, or NewReno fast recovery: the one marked hole goes out at once, then new data by flight.
            while let Some(i) = self.sb.next_lost() {
                self.emit(self.snd_una + i as u32, true, now, cfg, out);
            }
            while self.flight() < cwnd && self.may_send_new(cfg) {
                self.emit(self.snd_nxt, false, now, cfg, out);
            }
        }
    }

    fn emit(&mut self, seq: u32, retransmit: bool, now: Time, cfg: &TcpConfig, out: &mut Vec<Packet>) {
        let ect = cfg.ecn && !retransmit;
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
        if self.rto_deadline == NEVER {
            self.rto_deadline = now + self.rtt.rto(&cfg.rto);
        }
        out.push(Packet {
            flow: self.flow,
            seq,
            size: cfg.packet_size,
            ecn: if ect { Ecn::Ect } else { Ecn::NotEct },
            cwr,
            retransmit,
            tag: 0.0,
            enqueued_at: 0,
        });
    }
}
