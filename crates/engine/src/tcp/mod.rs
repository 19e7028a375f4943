//! TCP: a bulk-data sender and its receiver, with segment-granularity sequence numbers.
//!
//! - [`sender::Sender`]: slow start and congestion avoidance through a [`cc::CongestionControl`], fast
//!   retransmit and NewReno fast recovery (RFC 6582) or, with SACK, RFC 6675 loss recovery (or classic
//!   Reno, RFC 5681 §3.2, with `tcp.recovery = "reno"`); the RFC 6298 timer with Karn's rule and backoff;
//!   ECN (RFC 3168).
//! - [`receiver::Receiver`]: cumulative ACKs, SACK blocks (RFC 2018), delayed ACKs (RFC 5681 §4.2), ECN-Echo.

pub mod cc;
pub mod rate;
pub mod receiver;
pub mod rtt;
pub mod scoreboard;
pub mod sender;

use crate::time::Time;
pub use rtt::RtoBounds;

/// What "data in flight" means when a congestion signal sets `ssthresh` (half of it, for NewReno):
/// `tcp.ssthresh_from`, `"flight"` (the default) or `"pipe"`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Deserialize, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum InFlight {
    /// FlightSize, the data sent and not cumulatively acknowledged: RFC 5681 eq. (4) and RFC 6675 §5 (4.2).
    #[serde(rename = "flight")]
    FlightSize,
    /// RFC 6675's `pipe` (SACKed and lost segments excluded), what ns-3 3.44 halves
    /// (`TcpSocketBase::EnterRecovery`, `ReTxTimeout`), giving a smaller `ssthresh` after losses. On
    /// entering fast recovery it is measured after the ACK's SACK blocks have marked holes lost, the
    /// first unacknowledged segment among them, as ns-3 does (docs/validation/ns3-mapping.md item 4).
    Pipe,
}

/// When the retransmission timer's exponential backoff ends: `tcp.rto_backoff`, `"until-sample"` (the
/// default) or `"new-ack"`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Deserialize, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum BackoffEnd {
    /// At the next valid RTT sample (Karn & Partridge; RFC 6298 §5.5 with Karn's rule, §3).
    #[serde(rename = "until-sample")]
    ValidSample,
    /// At the next ACK of new data, even one for a retransmitted segment (ns-3 3.44's `NewAck`). A flow
    /// whose RTT has grown past the minimum RTO can then time out spuriously forever, since every ACK is
    /// for a retransmission and never refreshes the estimate.
    NewAck,
}

/// Which ACKs restart the retransmission timer during fast recovery (`tcp.recovery_timer`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Deserialize, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum RecoveryTimer {
    /// Every ACK of new data, partial ones included (RFC 6298 §5.3; RFC 6582 §4's "Slow-but-Steady").
    EveryAck,
    /// Only the first partial ACK of a recovery (RFC 6582 §3.2 step 5, §4's "Impatient"; ns-3 3.44's
    /// `m_isFirstPartialAck`, with SACK too): a recovery that repairs many holes, one round trip each,
    /// ends in a timeout once it outlasts the RTO.
    FirstPartialAck,
}

/// What the ACK that ends a recovery does to the window besides ending it (`tcp.recovery_exit`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Deserialize, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum RecoveryExit {
    /// Fast recovery: cwnd = ssthresh and nothing more (RFC 5681 §3.2 step 6, RFC 6582 §3.2 step 3);
    /// timeout recovery: the ACK grows the window like every ACK before it.
    Deflate,
    /// ns-3 3.44's `ProcessAck`: the ACK that ends fast recovery sets cwnd = ssthresh and then grows it as
    /// an ACK in the open state (Linux's `tcp_cong_control` does too); the ACK that ends timeout recovery
    /// grows it only for the segments it acknowledges beyond the recovery point (usually none). Which
    /// packet of a flow's next round its window growth adds, and so which one a full DropTail buffer drops,
    /// depends on it (docs/validation/ns3-mapping.md item 33).
    Grow,
}

/// What a partial ACK sends during SACK-based fast recovery (`tcp.partial_ack`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Deserialize, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum PartialAck {
    /// Nothing of its own: it updates the scoreboard and the pipe, and whatever `pipe < cwnd` allows goes
    /// out (RFC 6675 §5 (B), (C)).
    Pipe,
    /// One segment at once, outside the pipe limit, when the segment it leaves first unacknowledged has not
    /// been retransmitted: the lowest one marked lost and not yet resent, else new data, else that first
    /// segment again. ns-3 3.44's `ProcessAck` does so with SACK too (`DoRetransmit`, "assume the next seq
    /// is lost"), a NewReno step (RFC 6582 §3.2 step 5) on top of RFC 6675; it repairs holes that the
    /// scoreboard does not yet call lost, and recoveries end sooner.
    SendOne,
}

/// The fast recovery algorithm (`tcp.recovery`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Deserialize, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Recovery {
    /// RFC 6582 NewReno without SACK, RFC 6675 with it (the default): recovery lasts until the ACK of
    /// everything sent before it began; partial ACKs repair the further holes of the window.
    NewReno,
    /// Classic Reno, RFC 5681 §3.2 (ns-2's `Agent/TCP/Reno`): the fast retransmit and window inflation are
    /// NewReno's, but the first ACK of new data, partial or full, ends recovery with `cwnd = ssthresh`
    /// and retransmits nothing. A further loss of the same window waits for a new fast retransmit (three
    /// more duplicate ACKs, another halving; allowed at once after a Reno recovery, as ns-2's
    /// `dupack_action` does when the last reduction was a fast retransmit) or for the timeout. SACK
    /// is not used (ns-2's Reno has none): with `tcp.sack = true` the connection does not negotiate it
    /// (RFC 2018 §2), so the receiver sends no blocks and the run is the one with `sack = false`.
    Reno,
}

impl Recovery {
    /// The name scenarios write.
    pub fn name(self) -> &'static str {
        match self {
            Recovery::NewReno => "newreno",
            Recovery::Reno => "reno",
        }
    }
}

/// The window NewReno sets when a full acknowledgment ends fast recovery without SACK (RFC 6582 §3.2
/// step 6, which offers both): `tcp.full_ack`, `"flight"` (the default) or `"ssthresh"`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Deserialize, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum FullAck {
    /// Option (1), the default: `min(ssthresh, max(FlightSize, 1) + 1)`, so the data outstanding after the
    /// recovery, not a possibly far larger `ssthresh`, decides what may leave at once; slow start then
    /// climbs back to `ssthresh`. After a long recovery FlightSize (and with it `ssthresh`, RFC 5681
    /// eq. 4) counts the segments the receiver holds out of order, so option (2) can release hundreds of
    /// segments in one burst.
    Flight,
    /// Option (2): `cwnd = ssthresh` (ns-2's and ns-3's NewReno), with no measure against the burst.
    Ssthresh,
}

/// How congestion avoidance adds its `increase / cwnd` per ACK (`tcp.ca_increase`; RFC 5681 §3.1 eq. 3).
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Deserialize, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum CaIncrease {
    /// In real numbers: one segment per window of ACKs at any window, as Linux's segment counter
    /// (`tcp_cong_avoid_ai`) gives.
    Exact,
    /// In whole bytes, as ns-3's `TcpNewReno` and byte-counting BSD stacks compute eq. 3: `SMSS·SMSS /
    /// cwnd` truncated, at least one byte. Once cwnd exceeds SMSS segments the truncation slows growth
    /// (a window of 490 segments of 960 B adds about half a segment per RTT), so large windows grow and
    /// meet the buffer's overflows less often than small ones.
    WholeBytes,
}

/// How often a sender reduces its window for ECN-Echo (`tcp.ecn_response`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Deserialize, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum EcnResponse {
    /// At most once per window of data (RFC 3168 §6.1.2, ns-2 `TcpAgent::ecn()`): the receiver echoes a
    /// CE mark on every ACK until CWR arrives; the sender reduces once, then not again until data sent
    /// after the reduction is acknowledged.
    OncePerRtt,
    /// Every congestion signal: the receiver sets ECE only on the ACK that covers a CE-marked segment (no
    /// latching until CWR), and the sender reduces on every ACK that carries ECE and acknowledges new data,
    /// outside loss recovery. One reduction per mark (per ACK, with delayed ACKs).
    PerSignal,
}

/// In which congestion states ECN-Echo reduces the window, and what a CWR period allows (`tcp.ecn_states`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Deserialize, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum EcnStates {
    /// The open state only (RFC 3168 §6.1.2; Linux enters CWR from Open or Disorder only); during a CWR
    /// period duplicate ACKs start fast recovery as usual.
    Open,
    /// ns-3 3.44's `TcpSocketBase::ReceivedAck`: an ECE that acknowledges new data reduces the window in
    /// any state but CWR, so fast recovery and timeout recovery end in CWR (the recovery point moves to
    /// the highest segment sent); during CWR duplicate ACKs start no fast recovery, and the holes that
    /// SACK marks lost are resent as RFC 6675's pipe allows, without a further reduction.
    Any,
}

/// The TCP settings of a flow group.
#[derive(Clone, Debug, PartialEq)]
pub struct TcpConfig {
    /// Wire size of a data packet, bytes.
    pub packet_size: u32,
    /// Payload bytes per segment (packet_size minus headers).
    pub payload: u32,
    pub initial_window: f64,
    /// W_max: most segments in flight (the receiver's window), `u32::MAX` if unlimited.
    pub max_window: u32,
    pub rto: RtoBounds,
    pub sack: bool,
    pub ecn: bool,
    pub ecn_response: EcnResponse,
    pub ecn_states: EcnStates,
    pub ca_increase: CaIncrease,
    pub dupack_threshold: u32,
    /// RFC 3042: one new segment on each of the first two duplicate ACKs.
    pub limited_transmit: bool,
    pub ssthresh_from: InFlight,
    pub backoff_end: BackoffEnd,
    /// NewReno without SACK: the window after a full acknowledgment.
    pub full_ack: FullAck,
    /// The most a sender holds each packet before it leaves (ns-2's `overhead_`): a uniform random delay,
    /// the flow's packets kept in order; 0 for none.
    pub overhead: Time,
    /// Open with a SYN and wait for the SYN-ACK before the first data segment (RFC 9293 §3.5).
    pub handshake: bool,
    pub recovery_timer: RecoveryTimer,
    pub partial_ack: PartialAck,
    pub recovery_exit: RecoveryExit,
    /// Fast recovery: NewReno / SACK (the default) or classic Reno (see [`Recovery`]).
    pub recovery: Recovery,
    pub delayed_ack: bool,
    pub delayed_ack_timeout: Time,
    /// How the sender spaces its packets when its controller does not pace (see [`Pacing`]).
    pub pacing: Pacing,
}

/// The defaults of `[tcp]` (`docs/scenario.md`): 1000-byte packets with 40 bytes of headers, an initial
/// window of 10 (RFC 6928), RFC 6298's timer with a 200 ms floor (Linux's, not the RFC's 1 s) and 1 ms
/// clock, SACK, RFC 3042, no delayed ACK, no ECN, and every switch at its RFC value.
impl Default for TcpConfig {
    fn default() -> Self {
        use crate::time::from_secs;
        TcpConfig {
            packet_size: 1000,
            payload: 960,
            initial_window: 10.0,
            max_window: u32::MAX,
            rto: RtoBounds {
                initial: from_secs(1.0),
                min: from_secs(0.2),
                max: from_secs(60.0),
                granularity: from_secs(0.001),
            },
            sack: true,
            ecn: false,
            ecn_response: EcnResponse::OncePerRtt,
            ecn_states: EcnStates::Open,
            ca_increase: CaIncrease::Exact,
            dupack_threshold: 3,
            limited_transmit: true,
            ssthresh_from: InFlight::FlightSize,
            backoff_end: BackoffEnd::ValidSample,
            full_ack: FullAck::Flight,
            overhead: 0,
            handshake: false,
            recovery_timer: RecoveryTimer::EveryAck,
            partial_ack: PartialAck::Pipe,
            recovery_exit: RecoveryExit::Deflate,
            recovery: Recovery::NewReno,
            delayed_ack: false,
            delayed_ack_timeout: from_secs(0.2),
            pacing: Pacing::Off,
        }
    }
}

impl TcpConfig {
    /// Whether the connection uses SACK: `tcp.sack`, except under classic Reno recovery, which has none
    /// (ns-2's `Agent/TCP/Reno`): it is not negotiated, the receiver sends no blocks.
    #[inline(always)]
    pub fn sack_in_use(&self) -> bool {
        self.sack && self.recovery == Recovery::NewReno
    }
}

/// `tcp.pacing`: the gap a sender keeps between transmissions when its controller sets none. Both paced
/// forms use the smoothed RTT, pace retransmissions too, and pace nothing before the first RTT sample.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Pacing {
    /// Unpaced: as fast as the window and the ACK clock allow.
    Off,
    /// Enachescu et al. 2005 §2.6 Paced TCP: the usable window spread evenly over one RTT, one packet every
    /// `srtt / min(cwnd, W_max)` (`tcp.max_window`; the window the sender can actually use, since `cwnd`
    /// may grow past W_max). `pacing = true` means this.
    Rtt,
    /// The whole `cwnd` spread over one RTT, one packet every `srtt / cwnd`, even when `cwnd` has grown
    /// past W_max: the other reading of §2.6 with its footnote 3 (cwnd may exceed W_max while the packets
    /// in flight are capped), under which a sender whose cwnd is above W_max sends its W_max packets at
    /// `cwnd / srtt`, faster than one window per RTT, and then waits for ACKs.
    Cwnd,
    /// Linux's `sk_pacing_rate` (`tcp_update_pacing_rate`, net/ipv4/tcp_input.c): a rate of
    /// `ratio · max(cwnd, packets out) / srtt` segments per second, `ratio` = 2 while
    /// `cwnd < ssthresh / 2` (`net.ipv4.tcp_pacing_ss_ratio` = 200) and 1.2 otherwise
    /// (`tcp_pacing_ca_ratio` = 120); one packet every `1 / rate`. As for `Rtt`, `cwnd` is taken as at
    /// most W_max (Linux does not grow a window the receiver limits).
    Linux,
}

impl Pacing {
    /// Linux's `tcp_pacing_ss_ratio` / 100.
    pub const LINUX_SS_RATIO: f64 = 2.0;
    /// Linux's `tcp_pacing_ca_ratio` / 100.
    pub const LINUX_CA_RATIO: f64 = 1.2;

    /// The name scenarios write.
    pub fn name(self) -> &'static str {
        match self {
            Pacing::Off => "off",
            Pacing::Rtt => "rtt",
            Pacing::Cwnd => "cwnd",
            Pacing::Linux => "linux",
        }
    }
}
