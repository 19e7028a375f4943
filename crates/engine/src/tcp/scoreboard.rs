//! The sender's scoreboard (RFC 6675 §3): one entry per outstanding segment, with counters kept up to date
//! so that `pipe` and the next segment to retransmit cost O(1) amortized instead of a scan per ACK.
//!
//! Entries are indexed from the first unacknowledged segment. `IsLost` is monotone (a segment with
//! `dupthresh` SACKed segments above it has at least as many above every segment below it), so the lost
//! segments are exactly the unSACKed ones below a frontier that only moves up; [`Scoreboard::mark_lost_by_sack`]
//! advances it incrementally. The SACKed entries are also kept as disjoint ranges, so that an ACK whose SACK
//! blocks repeat what earlier ones said (a block grows by a segment per ACK) touches only what is new.

use crate::time::Time;
use std::collections::VecDeque;

const SACKED: u8 = 1;
const LOST: u8 = 2;
/// Retransmitted since it was last marked lost.
const RETX: u8 = 4;
/// Ever retransmitted (Karn's rule).
const EVER_RETX: u8 = 8;
/// Sent before a retransmission timeout: no ns-3 last RTT from it ([`Scoreboard::forget_send_times`]).
const BEFORE_TIMEOUT: u8 = 16;

/// Packed to 9 bytes (16 if aligned): at 10^6 flows every outstanding segment's entry counts
/// (docs/benchmarks.md, "At scale"), and x86-64 and AArch64 read unaligned fields at full speed.
#[derive(Clone, Copy, Debug)]
#[repr(C, packed)]
struct Segment {
    sent_at: Time,
    flags: u8,
}

/// What a sender that takes delivery-rate samples keeps beside its scoreboard (boxed: most senders don't).
#[derive(Default)]
struct Delivery {
    /// The transmission ordinal of each entry's latest copy, beside `segs`.
    tx: VecDeque<u32>,
    /// The ordinals of the entries delivered (newly SACKed, then cumulatively acknowledged without being
    /// SACKed before) since [`Scoreboard::clear_delivered`], in the order ns-3's `TcpTxBuffer` hands them
    /// to `SkbDelivered`: SACK blocks as the ACK lists them, each in sequence order, then the cumulative ACK.
    order: Vec<u32>,
    /// Since [`Scoreboard::take_ack_rtt_sent`] last read them: the send time of the newest entry newly
    /// SACKed that was never retransmitted, and of the newest cumulatively acknowledged without being
    /// SACKed before, if none of those acknowledged was ever retransmitted (Linux's `last_sackt` and
    /// `last_ackt` without `FLAG_RETRANS_DATA_ACKED`, `tcp_clean_rtx_queue`).
    sack_sent: Option<Time>,
    cum_sent: Option<Time>,
}

impl Delivery {
    fn delivered(&mut self, i: usize) {
        self.order.push(self.tx[i]);
    }
}

#[derive(Default)]
pub struct Scoreboard {
    segs: VecDeque<Segment>,
    sacked: u32,
    /// UnSACKed segments marked lost.
    lost: u32,
    /// UnSACKed segments retransmitted since marked lost.
    retx: u32,
    /// Every entry below this index is SACKed or marked lost (indices fit the window's `u32`).
    frontier: u32,
    /// SACKed entries below `frontier`.
    sacked_below: u32,
    /// Lowest index that may be lost and not yet retransmitted.
    rxt_hint: u32,
    /// Entries ever acknowledged: entry `i` is segment `base + i` of the connection.
    base: u64,
    /// Kept only for a sender that takes delivery-rate samples.
    delivery: Option<Box<Delivery>>,
    /// The SACKed entries as sorted, disjoint, non-adjacent ranges `[start, end)` of segment numbers.
    sacked_ranges: Vec<(u64, u64)>,
}

impl Scoreboard {
    /// Outstanding segments.
    pub fn len(&self) -> usize {
        self.segs.len()
    }
    pub fn is_empty(&self) -> bool {
        self.segs.is_empty()
    }
    pub fn sacked(&self) -> u32 {
        self.sacked
    }

    /// A new segment was sent at `now`.
    pub fn push(&mut self, now: Time) {
        self.segs.push_back(Segment { sent_at: now, flags: 0 });
        if let Some(d) = &mut self.delivery {
            d.tx.push_back(0);
        }
    }

    /// Entry `i`'s latest copy is transmission number `tx` (see `Delivery`; kept only when tracking).
    pub fn set_tx(&mut self, i: usize, tx: u32) {
        if let Some(d) = &mut self.delivery {
            d.tx[i] = tx;
        }
    }

    /// Keep the newest transmission ordinal delivered (a sender that takes delivery-rate samples).
    pub fn track_delivery(&mut self) {
        debug_assert!(self.segs.is_empty(), "tracking starts before the first segment");
        self.delivery = Some(Box::default());
    }

    /// Segments marked lost and not SACKed (retransmitted or not).
    pub fn lost(&self) -> u32 {
        self.lost
    }

    /// Every segment marked lost has been retransmitted since.
    pub fn lost_all_resent(&self) -> bool {
        self.lost == self.retx
    }

    /// The transmission ordinals delivered since [`Scoreboard::clear_delivered`], in ns-3's order (see
    /// `Delivery`); empty when not tracking.
    pub fn delivered_ordinals(&self) -> &[u32] {
        self.delivery.as_ref().map_or(&[], |d| &d.order)
    }

    /// Forget the ordinals [`Scoreboard::delivered_ordinals`] lists (once a rate sample has read them).
    pub fn clear_delivered(&mut self) {
        if let Some(d) = &mut self.delivery {
            d.order.clear();
        }
    }

    /// The send time that times this ACK as Linux does (`ca_rtt_us`, a rate sample's `rtt_us`): the newest
    /// entry it newly SACKed, else the newest it cumulatively acknowledged, neither ever retransmitted
    /// (see `Delivery`); `None` without one, or when not tracking. Clears it for the next ACK.
    pub fn take_ack_rtt_sent(&mut self) -> Option<Time> {
        let d = self.delivery.as_mut()?;
        let (sack, cum) = (d.sack_sent.take(), d.cum_sent.take());
        sack.or(cum)
    }

    /// The send time of entry `n - 1`, the newest a cumulative ACK of `n` entries covers, unless it was
    /// retransmitted or sent before a timeout (ns-3's `m_lastRtt`; read before [`Scoreboard::ack`]).
    pub fn newest_covered_sent(&self, n: usize) -> Option<Time> {
        let s = self.segs[n - 1];
        (s.flags & (EVER_RETX | BEFORE_TIMEOUT) == 0).then_some(s.sent_at)
    }

    /// The first `n` entries were cumulatively acknowledged; returns the send time of the oldest, `None` if
    /// it was ever retransmitted (no RTT sample: Karn). Inlined into the sender's ACK path.
    #[inline(always)]
    pub fn ack(&mut self, n: usize) -> Option<Time> {
        let oldest = self.segs[0];
        let oldest = (oldest.flags & EVER_RETX == 0).then_some(oldest.sent_at);
        if self.delivery.is_some() {
            self.track_ack(n);
        }
        let mut sacked_removed = 0;
        // One `pop_front` per entry: usually one or two, where a `drain` costs more to set up and finish.
        for s in std::iter::from_fn(|| self.segs.pop_front()).take(n) {
            if s.flags & SACKED != 0 {
                sacked_removed += 1;
            } else {
                self.lost -= (s.flags & LOST != 0) as u32;
                self.retx -= (s.flags & RETX != 0) as u32;
            }
        }
        crate::deque::release_slack(&mut self.segs);
        self.sacked -= sacked_removed;
        if n >= self.frontier as usize {
            self.frontier = 0;
            self.sacked_below = 0;
        } else {
            // Everything removed lay below the frontier.
            self.frontier -= n as u32;
            self.sacked_below -= sacked_removed;
        }
        self.rxt_hint = self.rxt_hint.saturating_sub(n as u32);
        self.base += n as u64;
        let gone = self.sacked_ranges.partition_point(|r| r.1 <= self.base);
        self.sacked_ranges.drain(..gone);
        if let Some(first) = self.sacked_ranges.first_mut() {
            first.0 = first.0.max(self.base);
        }
        oldest
    }

    /// For a sender that takes delivery-rate samples: the first `n` entries are about to be cumulatively
    /// acknowledged (see `Delivery`). Out of line, so that the other senders' ACK path stays short.
    #[cold]
    #[inline(never)]
    fn track_ack(&mut self, n: usize) {
        let Some(d) = &mut self.delivery else { return };
        let (mut resent, mut newest) = (false, None);
        for i in 0..n {
            let s = self.segs[i];
            resent |= s.flags & EVER_RETX != 0;
            if s.flags & SACKED == 0 {
                d.delivered(i);
                newest = Some(s.sent_at);
            }
        }
        d.cum_sent = if resent { None } else { newest };
        d.tx.drain(..n);
        crate::deque::release_slack(&mut d.tx);
    }

    /// Entry `i` was just SACKed, for a sender that takes delivery-rate samples (see `Delivery`).
    #[cold]
    #[inline(never)]
    fn track_sack(&mut self, i: usize, flags: u8) {
        let Some(d) = &mut self.delivery else { return };
        d.delivered(i);
        if flags & EVER_RETX == 0 {
            d.sack_sent = d.sack_sent.max(Some(self.segs[i].sent_at));
        }
    }

    /// Mark entries `[lo, hi)` SACKed, touching only those not SACKed already. Inlined into the sender's ACK
    /// path.
    #[inline(always)]
    pub fn sack(&mut self, lo: usize, hi: usize) {
        let (start, end) = (self.base + lo as u64, self.base + hi.min(self.segs.len()) as u64);
        if start >= end {
            return;
        }
        let mut pos = start;
        // The first range ending after `start`. An ACK's first block is usually the highest SACKed data,
        // at or next to the last range: looked at first, before a binary search.
        let ranges = &self.sacked_ranges;
        let n = ranges.len();
        let k0 = if n == 0 || ranges[n - 1].1 <= start {
            n
        } else if n == 1 || ranges[n - 2].1 <= start {
            n - 1
        } else {
            ranges[..n - 2].partition_point(|r| r.1 <= start)
        };
        if ranges.get(k0).is_some_and(|&(s, e)| s <= start && end <= e) {
            return; // nothing new: the usual block, repeated from an earlier ACK
        }
        let mut k = k0;
        while pos < end {
            match self.sacked_ranges.get(k) {
                Some(&(s, e)) if s <= pos => {
                    pos = e;
                    k += 1;
                }
                next => {
                    let gap_end = next.map_or(end, |r| r.0.min(end));
                    for i in (pos - self.base) as usize..(gap_end - self.base) as usize {
                        self.mark_sacked(i);
                    }
                    pos = gap_end;
                }
            }
        }
        // Merge [start, end) with the ranges it overlaps or touches: from the walk's first range (or the one
        // ending at `start`) to the last it passed (or the one starting at `end`), without searching again.
        let ranges = &mut self.sacked_ranges;
        let first = k0 - usize::from(k0 > 0 && ranges[k0 - 1].1 == start);
        let last = k + usize::from(ranges.get(k).is_some_and(|r| r.0 <= end));
        match last - first {
            0 => ranges.insert(first, (start, end)),
            n => {
                ranges[first] = (start.min(ranges[first].0), end.max(ranges[last - 1].1));
                if n > 1 {
                    ranges.drain(first + 1..last);
                }
            }
        }
    }

    fn mark_sacked(&mut self, i: usize) {
        let f = self.segs[i].flags;
        debug_assert!(f & SACKED == 0, "entry {i} outside the SACKed ranges is SACKed");
        self.segs[i].flags |= SACKED;
        self.sacked += 1;
        if self.delivery.is_some() {
            self.track_sack(i, f);
        }
        self.lost -= (f & LOST != 0) as u32;
        self.retx -= (f & RETX != 0) as u32;
        if i < self.frontier as usize {
            self.sacked_below += 1;
        }
    }

    /// Mark entry `i` lost (to be retransmitted), unless it is SACKed.
    pub fn mark_lost(&mut self, i: usize) {
        let f = self.segs[i].flags;
        if f & SACKED != 0 {
            return;
        }
        if f & LOST == 0 {
            self.lost += 1;
        }
        if f & RETX != 0 {
            self.retx -= 1;
        }
        self.segs[i].flags = (f | LOST) & !RETX;
        self.rxt_hint = self.rxt_hint.min(i as u32);
    }

    /// RFC 6675 `IsLost` for every entry: mark lost the unSACKed ones with `dupthresh` SACKed above them.
    pub fn mark_lost_by_sack(&mut self, dupthresh: u32) {
        while (self.frontier as usize) < self.segs.len() {
            let f = self.segs[self.frontier as usize].flags;
            let here = (f & SACKED != 0) as u32;
            if self.sacked - self.sacked_below - here < dupthresh {
                break;
            }
            if here == 1 {
                self.sacked_below += 1;
            } else if f & LOST == 0 {
                self.mark_lost(self.frontier as usize);
            }
            self.frontier += 1;
        }
    }

    /// A retransmission timeout: what is outstanding gives no RTT to [`Scoreboard::newest_covered_sent`]
    /// when acknowledged (ns-3 3.44's `ReTxTimeout` clears the RTT history `m_lastRtt` is read from).
    pub fn forget_send_times(&mut self) {
        for s in self.segs.iter_mut() {
            s.flags |= BEFORE_TIMEOUT;
        }
    }

    /// A retransmission timeout: every unSACKed entry is lost and due for retransmission.
    pub fn mark_all_lost(&mut self) {
        for i in 0..self.segs.len() {
            self.mark_lost(i);
        }
        self.frontier = self.segs.len() as u32;
        self.sacked_below = self.sacked;
        self.rxt_hint = 0;
    }

    /// RFC 6675 `SetPipe`: entries believed in the network.
    pub fn pipe(&self) -> u32 {
        self.segs.len() as u32 - self.sacked - self.lost + self.retx
    }

    /// The lowest entry lost and not yet retransmitted (RFC 6675 `NextSeg` rule 1).
    pub fn next_lost(&mut self) -> Option<usize> {
        if self.lost == self.retx {
            return None;
        }
        let found = (self.rxt_hint as usize..self.segs.len())
            .find(|&i| self.segs[i].flags & (SACKED | LOST | RETX) == LOST);
        self.rxt_hint = found.unwrap_or(self.segs.len()) as u32;
        found
    }

    /// The lowest entry neither SACKed nor retransmitted (`NextSeg` rule 3).
    pub fn first_unsacked_unsent(&self) -> Option<usize> {
        self.segs.iter().position(|s| s.flags & (SACKED | RETX) == 0)
    }

    /// Entry `i` was retransmitted since it was last marked lost.
    pub fn resent(&self, i: usize) -> bool {
        self.segs[i].flags & RETX != 0
    }

    /// Entry `i` was retransmitted at some time (Karn's flag).
    pub fn ever_resent(&self, i: usize) -> bool {
        self.segs[i].flags & EVER_RETX != 0
    }

    /// Entry `i` was retransmitted at `now`.
    pub fn retransmitted(&mut self, i: usize, now: Time) {
        let s = &mut self.segs[i];
        if s.flags & RETX == 0 && s.flags & SACKED == 0 {
            self.retx += 1;
        }
        s.flags |= RETX | EVER_RETX;
        s.sent_at = now;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Reference implementations by full scans.
    fn scan_pipe(sb: &Scoreboard) -> u32 {
        sb.segs
            .iter()
            .map(|s| {
                if s.flags & SACKED != 0 {
                    0
                } else {
                    (s.flags & LOST == 0) as u32 + (s.flags & RETX != 0) as u32
                }
            })
            .sum()
    }

    fn scan_is_lost(sb: &Scoreboard, i: usize, dupthresh: u32) -> bool {
        sb.segs.iter().skip(i + 1).filter(|s| s.flags & SACKED != 0).count() as u32 >= dupthresh
    }

    #[test]
    fn an_ack_is_timed_as_linux_times_it() {
        let mut sb = Scoreboard::default();
        sb.track_delivery();
        for t in 0..6 {
            sb.push(t * 10);
        }
        assert_eq!(sb.take_ack_rtt_sent(), None, "nothing delivered");
        sb.sack(2, 4); // entries 2 and 3, sent at 20 and 30: the newest newly SACKed
        assert_eq!(sb.take_ack_rtt_sent(), Some(30));
        sb.ack(4); // 0 and 1 newly acknowledged (2 and 3 were SACKed before): the newest of them
        assert_eq!(sb.take_ack_rtt_sent(), Some(10));
        sb.retransmitted(0, 100); // entry 4 (first sent at 40) resent
        sb.sack(1, 2); // entry 5, never resent
        sb.ack(1); // entry 4 was resent: no cumulative sample, but the SACK's stands
        assert_eq!(sb.take_ack_rtt_sent(), Some(50));
        assert_eq!(sb.take_ack_rtt_sent(), None, "read once");
    }

    #[test]
    fn counters_match_scans_under_random_operations() {
        let mut rng = crate::rng::Rng::new(9, 9);
        let mut sb = Scoreboard::default();
        for step in 0..20_000u64 {
            let n = sb.len();
            match rng.next_u64() % 7 {
                0 | 1 => sb.push(step),
                2 if n > 0 => {
                    let lo = (rng.next_u64() % n as u64) as usize;
                    let hi = lo + 1 + (rng.next_u64() % 40) as usize;
                    sb.sack(lo, hi);
                }
                3 if n > 0 => {
                    sb.ack(1 + (rng.next_u64() % n.min(3) as u64) as usize);
                }
                4 => sb.mark_lost_by_sack(3),
                5 => {
                    if let Some(i) = sb.next_lost() {
                        sb.retransmitted(i, step);
                    }
                }
                6 if rng.next_u64().is_multiple_of(50) => sb.mark_all_lost(),
                _ => {}
            };
            assert_eq!(sb.pipe(), scan_pipe(&sb), "step {step}");
            sb.mark_lost_by_sack(3);
            for i in 0..sb.len() {
                let s = sb.segs[i].flags;
                if s & SACKED == 0 && scan_is_lost(&sb, i, 3) {
                    assert!(s & LOST != 0, "step {step}: entry {i} should be lost");
                }
            }
            let next = sb.next_lost();
            let want = sb.segs.iter().position(|s| s.flags & (SACKED | LOST | RETX) == LOST);
            assert_eq!(next, want, "step {step}");
            let in_ranges = |i: usize| {
                let seg = sb.base + i as u64;
                sb.sacked_ranges.iter().any(|&(s, e)| s <= seg && seg < e)
            };
            for i in 0..sb.len() {
                assert_eq!(sb.segs[i].flags & SACKED != 0, in_ranges(i), "step {step}: entry {i}");
            }
            assert!(sb.sacked_ranges.windows(2).all(|w| w[0].1 < w[1].0), "step {step}: ranges disjoint");
        }
    }

    #[test]
    fn delivery_tracking_follows_the_entries_and_costs_nothing_when_off() {
        let mut sb = Scoreboard::default();
        sb.track_delivery();
        for i in 0..6 {
            sb.push(i);
            sb.set_tx(i as usize, 100 + i as u32);
        }
        sb.sack(3, 5);
        sb.sack(1, 2);
        assert_eq!(sb.delivered_ordinals(), [103, 104, 101], "blocks in the ACK's order, each ascending");
        sb.clear_delivered();
        assert!(sb.delivered_ordinals().is_empty());
        sb.ack(2);
        assert_eq!(sb.delivered_ordinals(), [100], "entry 1 was SACKed before");
        sb.clear_delivered();
        sb.set_tx(0, 200); // entry 0 is now segment 2, resent
        sb.ack(4); // segments 2..6: 3 and 4 were SACKed before, so 2 and 5 are delivered now
        assert_eq!(sb.delivered_ordinals(), [200, 105]);
        assert_eq!(sb.delivery.as_ref().map(|d| d.tx.len()), Some(sb.len()));

        let mut off = Scoreboard::default();
        off.push(0);
        off.set_tx(0, 7);
        off.ack(1);
        assert!(off.delivered_ordinals().is_empty());
        assert!(off.delivery.is_none());
    }
}
