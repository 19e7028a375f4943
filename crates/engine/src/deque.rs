//! Per-flow deques that give memory back. A flow's pipe or scoreboard grows with its window; a deque keeps
//! its largest capacity forever, so without this a run would hold every flow's largest window at once.
//! Shrinking the capacity to twice the length whenever the length falls below a quarter of it keeps the
//! capacity within 4× of the length (or at most [`MIN_CAPACITY`]) at O(1) amortized cost: memory follows the
//! packets in flight now, not the most each flow ever had. A deque that empties after growing past the
//! smallest allocation (4 entries) frees it: with 10⁶ flows most hold a packet or none at any moment, and
//! their initial-window bursts alone would otherwise keep ~0.7 KB each (about 3 % more instructions on the
//! 1,000-flow reference, 23 % less peak memory at 10⁶ flows; docs/benchmarks.md).

use std::collections::VecDeque;

/// Capacities this small are kept whatever the length.
pub const MIN_CAPACITY: usize = 64;

/// The most a freed deque is refilled at, as a power of two (32 entries): enough for the usual burst, and
/// a flow whose pipe once held 64 packets does not take 64 places again for the one it sends next.
const REFILL_MAX_LOG2: u32 = 5;

/// The smallest allocation a deque of small entries makes; an empty deque keeps one this size.
const SMALLEST: usize = 4;

/// After removing from `d`: free it if it emptied after growing, or shrink its capacity to twice its length
/// if the length fell below a quarter of it. When it frees `d`, returns the capacity it had (as a power of
/// two, at most 32 entries), for [`push_back`] to allocate at once when the deque fills again instead of
/// regrowing 4, 8, 16, … (a flow's access pipe empties and refills with every burst: 2 % of the reference
/// benchmark's instructions went to the regrowth).
#[inline(always)]
pub fn release_slack<T>(d: &mut VecDeque<T>) -> Option<u8> {
    let (len, cap) = (d.len(), d.capacity());
    if (len == 0 && cap > SMALLEST) || (cap > MIN_CAPACITY && len < cap / 4) {
        release(d)
    } else {
        None
    }
}

/// [`release_slack`]'s work, out of line: the hot path (nothing to give back) keeps no registers for it.
#[cold]
#[inline(never)]
fn release<T>(d: &mut VecDeque<T>) -> Option<u8> {
    let cap = d.capacity();
    if d.is_empty() {
        *d = VecDeque::new();
        return Some(cap.ilog2().min(REFILL_MAX_LOG2) as u8);
    }
    d.shrink_to((2 * d.len()).max(MIN_CAPACITY));
    None
}

/// Append `value` to `d`; a deque [`release_slack`] freed gets the capacity it returned, `1 << refill`, in
/// one allocation (0: as `VecDeque::push_back` would).
#[inline(always)]
pub fn push_back<T>(d: &mut VecDeque<T>, value: T, refill: u8) {
    if d.len() == d.capacity() {
        grow(d, refill);
    }
    d.push_back(value);
}

/// Make room in a full deque: the remembered capacity if it was freed, else twice as much.
#[cold]
#[inline(never)]
fn grow<T>(d: &mut VecDeque<T>, refill: u8) {
    let cap = d.capacity();
    d.reserve_exact(if cap == 0 { (1 << refill).max(SMALLEST) } else { cap });
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn capacity_follows_the_length() {
        let mut d: VecDeque<u64> = (0..100_000).collect();
        d.drain(..90_000);
        release_slack(&mut d);
        assert!(d.capacity() <= 4 * d.len(), "{} for {}", d.capacity(), d.len());
        while d.len() > 10 {
            d.pop_front();
            release_slack(&mut d);
            assert!(d.capacity() <= (4 * d.len() + 3).max(MIN_CAPACITY), "{} for {}", d.capacity(), d.len());
        }
        assert_eq!(d.iter().copied().collect::<Vec<_>>(), (99_990..100_000).collect::<Vec<_>>());
        d.clear();
        release_slack(&mut d);
        assert_eq!(d.capacity(), 0, "an emptied deque frees its memory");
        let mut small: VecDeque<u64> = VecDeque::new();
        small.push_back(1);
        small.pop_front();
        release_slack(&mut small);
        assert_eq!(small.capacity(), SMALLEST, "the smallest allocation is kept");
    }

    #[test]
    fn a_freed_deque_refills_at_the_capacity_it_had() {
        let (mut d, mut refill) = (VecDeque::new(), 0);
        for i in 0..20u64 {
            push_back(&mut d, i, refill);
        }
        let grown = d.capacity();
        while d.pop_front().is_some() {
            if let Some(c) = release_slack(&mut d) {
                refill = c;
            }
        }
        assert_eq!((d.capacity(), 1usize << refill), (0, grown), "freed, its capacity remembered");
        push_back(&mut d, 7, refill);
        assert_eq!((d.capacity(), d.front()), (grown, Some(&7)), "one allocation at the old capacity");
        let mut big: VecDeque<u64> = (0..1000).collect();
        big.clear();
        assert_eq!(release_slack(&mut big), Some(REFILL_MAX_LOG2 as u8), "a large one refills at the most");
    }
}
