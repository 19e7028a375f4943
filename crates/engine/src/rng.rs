//! Seeded random streams: xoshiro256** (Blackman & Vigna 2018), seeded through SplitMix64.
//!
//! Each consumer (start times, RTT draws, each RED queue, ...) gets its own stream derived from the scenario
//! seed and a fixed stream id, so adding a new random consumer never shifts the draws of the others.

/// A xoshiro256** generator.
#[derive(Clone, Debug)]
pub struct Rng {
    s: [u64; 4],
}

fn splitmix64(x: &mut u64) -> u64 {
    *x = x.wrapping_add(0x9E37_79B9_7F4A_7C15);
    mix64(*x)
}

/// SplitMix64's output function: a bijection of `u64` whose every output bit depends on every input bit
/// (a hash of integer keys, e.g. FQ-CoDel's flow classification).
pub fn mix64(mut z: u64) -> u64 {
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// Stream ids: one per random consumer.
pub mod stream {
    pub const RTT: u64 = 1;
    pub const START: u64 = 2;
    pub const STOP: u64 = 3;
    pub const ACCESS_RATE: u64 = 4;
    /// Finite flows' sizes.
    pub const SIZE: u64 = 5;
    /// A group's arrival process (gaps, and each arrival's RTT, access rate and size).
    pub const ARRIVAL: u64 = 6;
    /// A leaf-spine group's hosts (`pattern = "permutation"` or `"random"`).
    pub const ENDPOINTS: u64 = 7;
    pub const QUEUE: u64 = 16;
    /// UDP source i uses `UDP + i`.
    pub const UDP: u64 = 1 << 32;

    /// The congestion controller of the `i`-th flow started in group `g`.
    pub fn controller(g: usize, i: u64) -> u64 {
        (1 << 48) | ((g as u64) << 24) | (i & 0xFF_FFFF)
    }

    /// The send-time jitter (`tcp.overhead`) of the `i`-th flow started in group `g`.
    pub fn overhead(g: usize, i: u64) -> u64 {
        (2 << 48) | ((g as u64) << 24) | (i & 0xFF_FFFF)
    }
}

impl Rng {
    /// The stream `stream` of scenario seed `seed`.
    pub fn new(seed: u64, stream: u64) -> Self {
        let mut x = seed ^ stream.wrapping_mul(0xD1B5_4A32_D192_ED03);
        let s = [splitmix64(&mut x), splitmix64(&mut x), splitmix64(&mut x), splitmix64(&mut x)];
        Rng { s }
    }

    pub fn next_u64(&mut self) -> u64 {
        let result = self.s[1].wrapping_mul(5).rotate_left(7).wrapping_mul(9);
        let t = self.s[1] << 17;
        self.s[2] ^= self.s[0];
        self.s[3] ^= self.s[1];
        self.s[1] ^= self.s[2];
        self.s[0] ^= self.s[3];
        self.s[2] ^= t;
        self.s[3] = self.s[3].rotate_left(45);
        result
    }

    /// Uniform in [0, 1) with 53 random bits.
    pub fn uniform(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 * (1.0 / (1u64 << 53) as f64)
    }

    /// Uniform in [lo, hi).
    pub fn uniform_in(&mut self, lo: f64, hi: f64) -> f64 {
        lo + (hi - lo) * self.uniform()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn streams_are_reproducible_and_distinct() {
        let a: Vec<u64> = (0..4).map(|_| 0).scan(Rng::new(7, 1), |r, _| Some(r.next_u64())).collect();
        let b: Vec<u64> = (0..4).map(|_| 0).scan(Rng::new(7, 1), |r, _| Some(r.next_u64())).collect();
        let c: Vec<u64> = (0..4).map(|_| 0).scan(Rng::new(7, 2), |r, _| Some(r.next_u64())).collect();
        assert_eq!(a, b);
        assert_ne!(a, c);
    }

    #[test]
    fn uniform_mean_is_one_half() {
        let mut r = Rng::new(1, 1);
        let n = 200_000;
        let mean = (0..n).map(|_| r.uniform()).sum::<f64>() / n as f64;
        assert!((mean - 0.5).abs() < 0.005, "{mean}");
    }
}
