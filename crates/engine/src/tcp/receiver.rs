//! The TCP receiver: cumulative ACKs, SACK blocks, delayed ACKs and ECN-Echo.
//!
//! - SACK (RFC 2018 §4): up to `MAX_SACK_BLOCKS` (four) blocks; the first holds the segment that triggered
//!   the ACK, the others are the most recently changed of the remaining blocks.
//! - Delayed ACK (RFC 5681 §4.2, RFC 1122): an ACK for at least every second segment, or when the
//!   delayed-ACK timer expires; an immediate ACK for out-of-order segments and for segments that fill a hole.
//! - ECN (RFC 3168 §6.1.3): a CE mark sets ECE on every ACK until a data packet with CWR arrives; with
//!   `tcp.ecn_response = "per-signal"`, only on the next ACK (each mark echoed once).
//! - DCTCP's echo (RFC 8257 §3.2, [`EcnMode::PerPacket`]): ECE is the CE state of the last ECN-capable
//!   packet received; when a packet's CE state differs from it while a delayed ACK is owed, the owed ACK goes
//!   out first, at once, with the old state (for the data before the packet), and the delayed-ACK count
//!   starts again from the packet, as ns-3 3.44 does (`TcpDctcp::CeState0to1` sends it through
//!   `SendEmptyPacket`, which cancels the delayed ACK). Linux (`dctcp_ece_ack_update`) acknowledges the
//!   packet itself at once as well.

use super::cc::EcnMode;
use super::{EcnResponse, TcpConfig};
use crate::packet::{Ack, Ecn, Packet, MAX_SACK_BLOCKS};
use crate::time::Time;
use crate::timer::Timer;

/// A block of segments received above the cumulative point, `[start, end)`, and when it last changed.
#[derive(Clone, Copy, Debug)]
struct Block {
    start: u32,
    end: u32,
    changed: u64,
}

#[derive(Default)]
pub struct Receiver {
    rcv_nxt: u32,
    /// Out-of-order blocks, sorted by start, disjoint and non-adjacent.
    blocks: Vec<Block>,
    changes: u64,
    ece: bool,
    /// ECE follows each packet's CE state (RFC 8257 §3.2) rather than latching until CWR.
    per_packet_echo: bool,
    /// Segments received since the last ACK went out.
    unacked: u32,
    /// The delayed-ACK timer, on the receiver's clock.
    pub delack: Timer,
}

/// What the receiver did with a data packet.
pub struct Delivery {
    /// Segments that became in-order (goodput).
    pub new_in_order: u32,
    /// The ACK to send now, if any.
    pub ack: Option<Ack>,
    /// An ACK to send before `ack`: the owed delayed ACK, sent at once when DCTCP's CE state changes (no
    /// SACK blocks: nothing was out of order while an ACK was delayed).
    pub owed_ack: Option<OwedAck>,
}

/// The cumulative ACK and ECE of an owed delayed ACK (see [`Delivery::owed_ack`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct OwedAck {
    pub ack: u32,
    pub ece: bool,
}

impl OwedAck {
    pub fn to_ack(self) -> Ack {
        Ack { ack: self.ack, ece: self.ece, ..Default::default() }
    }
}

impl Receiver {
    pub fn new() -> Self {
        Receiver::default()
    }

    /// The receiver of a flow whose ECN runs as `mode`.
    pub fn with_ecn_mode(mode: EcnMode) -> Self {
        Receiver { per_packet_echo: mode == EcnMode::PerPacket, ..Receiver::default() }
    }

    pub fn rcv_nxt(&self) -> u32 {
        self.rcv_nxt
    }

    pub fn on_data(&mut self, pkt: &Packet, now: Time, cfg: &TcpConfig) -> Delivery {
        let mut owed_ack = None;
        if self.per_packet_echo {
            owed_ack = self.echo_ce_state(pkt);
        } else {
            if pkt.cwr {
                self.ece = false;
            }
            if pkt.ecn == Ecn::Ce {
                self.ece = true;
            }
        }
        let had_holes = !self.blocks.is_empty();
        let before = self.rcv_nxt;
        let mut first_block = None;
        if pkt.seq == self.rcv_nxt {
            self.rcv_nxt += 1;
            if let Some(b) = self.blocks.first() {
                if b.start == self.rcv_nxt {
                    self.rcv_nxt = b.end;
                    self.blocks.remove(0);
                }
            }
        } else if pkt.seq > self.rcv_nxt {
            first_block = Some(self.insert(pkt.seq));
        }
        let new_in_order = self.rcv_nxt - before;
        let in_order_only = pkt.seq == before && !had_holes;
        self.unacked += 1;
        let ack_now = !cfg.delayed_ack || !in_order_only || self.unacked >= 2;
        if ack_now {
            Delivery { new_in_order, ack: Some(self.make_ack(first_block, cfg)), owed_ack }
        } else {
            self.delack.arm_if_idle(|| now + cfg.delayed_ack_timeout);
            Delivery { new_in_order, ack: None, owed_ack }
        }
    }

    /// RFC 8257 §3.2: ECE follows the CE state of ECN-capable packets; a change while an ACK is delayed
    /// owes that ACK, with the old state, at once.
    #[inline(never)]
    fn echo_ce_state(&mut self, pkt: &Packet) -> Option<OwedAck> {
        let ce = pkt.ecn == Ecn::Ce;
        if pkt.ecn == Ecn::NotEct || ce == self.ece {
            return None;
        }
        debug_assert!(
            self.unacked == 0 || self.blocks.is_empty(),
            "an ACK is delayed only for in-order data"
        );
        let owed = (self.unacked > 0).then_some(OwedAck { ack: self.rcv_nxt, ece: self.ece });
        if owed.is_some() {
            self.unacked = 0;
            self.delack.cancel();
        }
        self.ece = ce;
        owed
    }

    /// The delayed-ACK timer fired: the pending ACK, if one is still owed.
    pub fn on_delack_timer(&mut self, cfg: &TcpConfig) -> Option<Ack> {
        self.delack.cancel();
        (self.unacked > 0).then(|| self.make_ack(None, cfg))
    }

    /// Record `seq` above `rcv_nxt`; returns the index of its block.
    fn insert(&mut self, seq: u32) -> usize {
        self.changes += 1;
        let stamp = self.changes;
        let i = self.blocks.partition_point(|b| b.end < seq);
        if i < self.blocks.len() && self.blocks[i].start <= seq && seq < self.blocks[i].end {
            self.blocks[i].changed = stamp; // duplicate
            return i;
        }
        if i < self.blocks.len() && self.blocks[i].end == seq {
            self.blocks[i].end += 1;
            self.blocks[i].changed = stamp;
            if i + 1 < self.blocks.len() && self.blocks[i + 1].start == seq + 1 {
                self.blocks[i].end = self.blocks[i + 1].end;
                self.blocks.remove(i + 1);
            }
            return i;
        }
        if i < self.blocks.len() && self.blocks[i].start == seq + 1 {
            self.blocks[i].start = seq;
            self.blocks[i].changed = stamp;
            return i;
        }
        self.blocks.insert(i, Block { start: seq, end: seq + 1, changed: stamp });
        i
    }

    /// Drop the out-of-order blocks once the run is over.
    pub fn release_buffers(&mut self) {
        self.blocks = Vec::new();
    }

    /// The ACK of everything received so far; the delayed-ACK count starts again.
    fn make_ack(&mut self, first_block: Option<usize>, cfg: &TcpConfig) -> Ack {
        self.unacked = 0;
        self.delack.cancel();
        let ack = self.ack_with(first_block, cfg);
        if cfg.ecn_response == EcnResponse::PerSignal && !self.per_packet_echo {
            self.ece = false;
        }
        ack
    }

    /// An ACK of the receiver's current state (the block `first_block` first), changing nothing.
    fn ack_with(&self, first_block: Option<usize>, cfg: &TcpConfig) -> Ack {
        let mut ack = Ack { ack: self.rcv_nxt, ece: self.ece, ..Default::default() };
        if cfg.sack_in_use() && !self.blocks.is_empty() {
            let mut chosen = [usize::MAX; MAX_SACK_BLOCKS];
            let first = usize::from(first_block.is_some());
            if let Some(i) = first_block {
                chosen[0] = i;
            }
            // The others by most recent change (stamps are distinct, so the ranking does not depend on the
            // order of the pass), in one pass: insertion into the (short) ranked tail, whose stamps sit
            // beside it. From the highest block down, since the newest blocks are usually the highest: a
            // block older than a full tail's last then costs one compare.
            let mut changes = [0u64; MAX_SACK_BLOCKS];
            let mut n = first;
            // The stamp a block must beat: the ranked tail's last once it is full (stamps start at 1).
            let mut floor = 0;
            for (i, block) in self.blocks.iter().enumerate().rev() {
                let changed = block.changed;
                if changed <= floor || Some(i) == first_block {
                    continue;
                }
                // It goes in: into free room, or (a full tail's last being older) at least one place up.
                let mut at = n;
                while at > first && changes[at - 1] < changed {
                    at -= 1;
                }
                // Shift the tail by hand: at most three entries, where `copy_within` calls memmove.
                for k in (at + 1..=n.min(MAX_SACK_BLOCKS - 1)).rev() {
                    chosen[k] = chosen[k - 1];
                    changes[k] = changes[k - 1];
                }
                chosen[at] = i;
                changes[at] = changed;
                n = (n + 1).min(MAX_SACK_BLOCKS);
                if n == MAX_SACK_BLOCKS {
                    floor = changes[n - 1];
                }
            }
            for (k, &i) in chosen[..n].iter().enumerate() {
                ack.sack[k] = (self.blocks[i].start, self.blocks[i].end);
            }
            ack.sack_len = n as u8;
        }
        ack
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tcp::RtoBounds;

    fn cfg(delayed: bool) -> TcpConfig {
        TcpConfig {
            initial_window: 1.0,
            rto: RtoBounds { initial: 1, min: 1, max: 1, granularity: 1 },
            ecn: true,
            delayed_ack: delayed,
            delayed_ack_timeout: 100,
            ..TcpConfig::default()
        }
    }

    fn data(seq: u32) -> Packet {
        Packet { seq, size: 1000, ecn: Ecn::Ect, ..Packet::default() }
    }

    #[test]
    fn sack_blocks_most_recent_first_and_hole_fill() {
        let c = cfg(false);
        let mut r = Receiver::new();
        r.on_data(&data(0), 0, &c);
        r.on_data(&data(2), 0, &c);
        r.on_data(&data(3), 0, &c);
        let a = r.on_data(&data(6), 0, &c).ack.unwrap();
        assert_eq!(a.ack, 1);
        assert_eq!(a.sack_blocks(), &[(6, 7), (2, 4)]);
        let a = r.on_data(&data(4), 0, &c).ack.unwrap();
        assert_eq!(a.sack_blocks(), &[(2, 5), (6, 7)]);
        let d = r.on_data(&data(1), 0, &c);
        assert_eq!(d.new_in_order, 4);
        let a = d.ack.unwrap();
        assert_eq!(a.ack, 5);
        assert_eq!(a.sack_blocks(), &[(6, 7)]);
        let d = r.on_data(&data(5), 0, &c);
        assert_eq!(d.ack.unwrap().ack, 7);
        assert_eq!(d.new_in_order, 2);
    }

    #[test]
    fn sack_blocks_match_a_ranking_by_sort_under_random_arrivals() {
        // RFC 2018 §4 by brute force: the block holding the segment that triggered the ACK, then the others
        // by most recent change, at most four.
        let c = cfg(false);
        let mut r = Receiver::new();
        let mut rng = crate::rng::Rng::new(3, 4);
        for step in 0..20_000 {
            let before = r.rcv_nxt();
            let seq = (before + (rng.next_u64() % 80) as u32).saturating_sub((rng.next_u64() % 4) as u32);
            let Some(ack) = r.on_data(&data(seq), 0, &c).ack else { continue };
            let first =
                (seq > before).then(|| r.blocks.iter().position(|b| b.start <= seq && seq < b.end).unwrap());
            let mut rest: Vec<usize> = (0..r.blocks.len()).filter(|&i| Some(i) != first).collect();
            rest.sort_by_key(|&i| std::cmp::Reverse(r.blocks[i].changed));
            let want: Vec<(u32, u32)> = first
                .into_iter()
                .chain(rest)
                .take(MAX_SACK_BLOCKS)
                .map(|i| (r.blocks[i].start, r.blocks[i].end))
                .collect();
            assert_eq!(ack.sack_blocks(), &want[..], "step {step}");
        }
        assert!(r.blocks.len() > MAX_SACK_BLOCKS, "the ranking was exercised with many blocks");
    }

    #[test]
    fn delayed_ack_every_second_segment_or_timer() {
        let c = cfg(true);
        let mut r = Receiver::new();
        assert!(r.on_data(&data(0), 10, &c).ack.is_none());
        assert_eq!(r.delack.deadline(), 110);
        assert_eq!(r.on_data(&data(1), 20, &c).ack.unwrap().ack, 2);
        assert!(!r.delack.is_armed());
        assert!(r.on_data(&data(2), 30, &c).ack.is_none());
        assert_eq!(r.on_delack_timer(&c).unwrap().ack, 3);
        assert!(r.on_delack_timer(&c).is_none());
        // out of order: immediate
        assert!(r.on_data(&data(5), 40, &c).ack.is_some());
    }

    #[test]
    fn ece_until_cwr() {
        let c = cfg(false);
        let mut r = Receiver::new();
        let mut p = data(0);
        p.ecn = Ecn::Ce;
        assert!(r.on_data(&p, 0, &c).ack.unwrap().ece);
        assert!(r.on_data(&data(1), 0, &c).ack.unwrap().ece);
        let mut p = data(2);
        p.cwr = true;
        assert!(!r.on_data(&p, 0, &c).ack.unwrap().ece);
    }

    #[test]
    fn per_signal_echoes_each_mark_once() {
        let mut c = cfg(true);
        c.ecn_response = EcnResponse::PerSignal;
        let mut r = Receiver::new();
        let mut ce = data(0);
        ce.ecn = Ecn::Ce;
        assert!(r.on_data(&ce, 0, &c).ack.is_none(), "delayed");
        // The ACK covering the marked segment echoes it; the next does not.
        assert!(r.on_data(&data(1), 0, &c).ack.unwrap().ece);
        assert!(r.on_data(&data(2), 0, &c).ack.is_none());
        assert!(!r.on_data(&data(3), 0, &c).ack.unwrap().ece);
    }

    /// RFC 8257 §3.2's two-state machine with delayed ACKs: ECE follows the CE state; a change while an ACK is
    /// owed sends the owed ACK first with the old state, and the delayed-ACK count starts again (ns-3 3.44).
    #[test]
    fn per_packet_echo_follows_the_ce_state() {
        let c = cfg(true);
        let mut r = Receiver::with_ecn_mode(EcnMode::PerPacket);
        let packet = |seq, ce: bool| Packet { ecn: if ce { Ecn::Ce } else { Ecn::Ect }, ..data(seq) };
        let d = r.on_data(&packet(0, false), 0, &c);
        assert!(d.ack.is_none() && d.owed_ack.is_none(), "delayed");
        // CE arrives with an ACK owed for segment 0: that ACK at once, without ECE and without SACK blocks;
        // segment 1 then waits as the first of a new pair.
        let d = r.on_data(&packet(1, true), 0, &c);
        let owed = d.owed_ack.unwrap().to_ack();
        assert_eq!((owed.ack, owed.ece, owed.sack_len), (1, false, 0));
        assert!(d.ack.is_none() && r.delack.is_armed());
        // Still CE: the pair is complete, acknowledged with ECE.
        let d = r.on_data(&packet(2, true), 0, &c);
        assert!(d.owed_ack.is_none());
        assert_eq!(d.ack.map(|a| (a.ack, a.ece)), Some((3, true)));
        // No ACK owed: a change sends nothing extra and the packet waits.
        let d = r.on_data(&packet(3, false), 0, &c);
        assert!(d.owed_ack.is_none() && d.ack.is_none());
        // A change with segment 3 owed: its ACK without ECE, then segment 4 waits with the new state.
        let d = r.on_data(&packet(4, true), 0, &c);
        assert_eq!(d.owed_ack.map(|a| (a.ack, a.ece)), Some((4, false)));
        assert!(d.ack.is_none());
        assert_eq!(r.on_delack_timer(&c).map(|a| (a.ack, a.ece)), Some((5, true)));
        // CWR does not clear the state; Not-ECT packets leave it alone.
        let d = r.on_data(&Packet { cwr: true, ..packet(5, true) }, 0, &c);
        assert!(d.owed_ack.is_none());
        let d = r.on_data(&Packet { ecn: Ecn::NotEct, ..data(6) }, 0, &c);
        assert!(d.owed_ack.is_none() && d.ack.unwrap().ece);
    }
}
