//! Simulated time: integer picoseconds in a `u64` (about 213 days of range), so arithmetic is exact and
//! runs are bit-identical on every machine.

/// A point in simulated time or a duration, in picoseconds.
pub type Time = u64;

/// Picoseconds per second.
pub const PS_PER_SEC: u64 = 1_000_000_000_000;

/// The longest scenario duration, seconds: 180 days, leaving the clock (`u64` picoseconds, 213.5 days)
/// room for what is scheduled after the end (timers up to `tcp.max_rto`, one day, and link delays).
pub const MAX_DURATION_S: f64 = 180.0 * 86400.0;

/// The shortest measurement window (`duration - warmup`), picoseconds: one microsecond.
pub const MIN_WINDOW: Time = 1_000_000;

/// "Never": a timer that is not armed.
pub const NEVER: Time = u64::MAX;

/// Seconds (finite, non-negative, checked by the scenario) to picoseconds, rounded to nearest (half away
/// from zero; adding one half and truncating avoids a libm call on the hot path).
pub fn from_secs(s: f64) -> Time {
    (s * PS_PER_SEC as f64 + 0.5) as Time
}

/// Picoseconds to seconds.
pub fn to_secs(t: Time) -> f64 {
    t as f64 / PS_PER_SEC as f64
}

/// `x as f64` for `x` below 2^63 (a count, or a time or duration within a run): the same value, by the
/// signed conversion x86-64 does in one instruction (the unsigned one takes six). For the per-packet
/// statistics; a `Time` that may be [`NEVER`] goes through `as f64`.
#[inline(always)]
pub fn exact_f64(x: u64) -> f64 {
    debug_assert!(x <= i64::MAX as u64, "{x} is 2^63 or more");
    x as i64 as f64
}

/// [`to_secs`] for a time or duration within a run (below 2^63 ps), by [`exact_f64`]: the same value.
#[inline(always)]
pub fn exact_secs(t: Time) -> f64 {
    exact_f64(t) / PS_PER_SEC as f64
}

/// Serialization time of `bytes` on a link of `rate_bps` bits/s, rounded up to the next picosecond.
pub fn serialization(bytes: u32, rate_bps: f64) -> Time {
    (bytes as f64 * 8.0 * PS_PER_SEC as f64 / rate_bps).ceil() as Time
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn serialization_is_exact_for_round_rates() {
        assert_eq!(serialization(1000, 1e9), 8_000_000);
        assert_eq!(serialization(1500, 100e6), 120_000_000);
        assert_eq!(serialization(40, 10e9), 32_000);
    }

    #[test]
    fn exact_f64_is_the_unsigned_conversion_below_2_63() {
        for x in [0, 1, 3, 1 << 52, (1 << 53) + 1, 123_456_789_012_345_678, i64::MAX as u64] {
            assert_eq!(exact_f64(x).to_bits(), (x as f64).to_bits(), "{x}");
        }
    }

    #[test]
    fn seconds_round_trip() {
        assert_eq!(from_secs(0.1), 100_000_000_000);
        assert!((to_secs(from_secs(1.234_567)) - 1.234_567).abs() < 1e-12);
    }
}
