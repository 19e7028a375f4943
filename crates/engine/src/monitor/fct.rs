//! Flow completion times, streamed: per size bucket, the count, mean and standard deviation, percentiles
//! (log-linear histogram of picoseconds) and the mean slowdown (FCT over the flow's ideal FCT: its base RTT
//! plus its bytes at the bottleneck rate, a common normalisation since pFabric). A bounded number of
//! finished flows is also kept one by one.
//!
//! A flow counts if it started at or after the warm-up and completed before the end: its FCT runs from its
//! start (first transmission) to the ACK of its last segment at the sender.

use super::{LogHistogram, Moments};
use crate::time::{to_secs, Time};

#[derive(Clone, Debug, Default)]
pub struct Bucket {
    pub fct: Moments,
    pub hist: LogHistogram,
    pub slowdown: Moments,
}

/// One finished flow.
#[derive(Clone, Debug, PartialEq)]
pub struct FctRecord {
    pub group: u32,
    pub size_bytes: u64,
    pub start: Time,
    pub fct: Time,
    pub rtt: Time,
}

pub struct FctStats {
    /// Upper edges (inclusive) of the size buckets; a last bucket takes larger flows.
    pub edges: Vec<u64>,
    /// `buckets[group][b]`.
    pub buckets: Vec<Vec<Bucket>>,
    pub records: Vec<FctRecord>,
    pub max_records: usize,
    /// Finished flows not recorded one by one (past `max_records`).
    pub unrecorded: u64,
}

impl FctStats {
    pub fn new(edges: Vec<u64>, groups: usize, max_records: usize) -> Self {
        let per_group = vec![Bucket::default(); edges.len() + 1];
        FctStats { edges, buckets: vec![per_group; groups], records: Vec::new(), max_records, unrecorded: 0 }
    }

    /// The bucket of a flow of `size` bytes.
    pub fn bucket_of(&self, size: u64) -> usize {
        self.edges.partition_point(|&e| e < size)
    }

    /// A flow of `group` finished: `size` payload bytes, started at `start`, took `fct`; `ideal` is its
    /// base RTT plus its serialization at the bottleneck.
    pub fn add(&mut self, group: usize, size: u64, start: Time, fct: Time, rtt: Time, ideal: Time) {
        let b = self.bucket_of(size);
        let bucket = &mut self.buckets[group][b];
        bucket.fct.add(to_secs(fct));
        bucket.hist.add(fct);
        bucket.slowdown.add(fct as f64 / ideal.max(1) as f64);
        if self.records.len() < self.max_records {
            self.records.push(FctRecord { group: group as u32, size_bytes: size, start, fct, rtt });
        } else {
            self.unrecorded += 1;
        }
    }

    /// The bounds `(lo, hi]` of bucket `b`, bytes (`hi` = `u64::MAX` for the last).
    pub fn bounds(&self, b: usize) -> (u64, u64) {
        let lo = if b == 0 { 0 } else { self.edges[b - 1] };
        (lo, self.edges.get(b).copied().unwrap_or(u64::MAX))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn flows_fall_in_their_size_bucket_and_records_are_capped() {
        let mut s = FctStats::new(vec![10_000, 100_000], 2, 2);
        assert_eq!(s.bucket_of(10_000), 0);
        assert_eq!(s.bucket_of(10_001), 1);
        assert_eq!(s.bucket_of(5_000_000), 2);
        s.add(1, 50_000, 0, 2_000, 1_000, 1_000);
        s.add(1, 60_000, 0, 4_000, 1_000, 1_000);
        s.add(0, 1, 0, 10, 10, 10);
        assert_eq!(s.buckets[1][1].fct.count(), 2);
        assert!((s.buckets[1][1].slowdown.mean() - 3.0).abs() < 1e-12);
        assert_eq!(s.records.len(), 2);
        assert_eq!(s.unrecorded, 1);
        assert_eq!(s.bounds(2), (100_000, u64::MAX));
    }
}
