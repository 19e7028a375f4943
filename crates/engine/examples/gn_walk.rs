//! The cost of Global Notifier's buffer walk at its worst case: a full buffer and a firing on every
//! arrival, so each arrival walks the whole buffer (`docs/benchmarks.md`). Usage:
//! `cargo run --release -p bufferlab-engine --example gn_walk [BUFFER ...]`.

use bufferlab_engine::packet::{Ecn, Packet};
use bufferlab_engine::queue::global_notifier::{GlobalNotifier, NotEct};
use bufferlab_engine::queue::red::{AboveMax, CountRule, Ramp, RedTest};
use bufferlab_engine::queue::{Limit, QueueDisc, QueueEffects};
use bufferlab_engine::rng::Rng;
use std::time::Instant;

fn main() {
    let sizes: Vec<usize> = std::env::args().skip(1).filter_map(|a| a.parse().ok()).collect();
    let sizes = if sizes.is_empty() { vec![100, 1000, 10_000] } else { sizes };
    for b in sizes {
        // avg = q (w = 1) and p_b = 1 from max_th = 2 up: with `wait`, every arrival fires.
        let test = RedTest {
            min_th: 1.0,
            max_th: 2.0,
            max_p: 1.0,
            weight: 1.0,
            wait: true,
            above_max: AboveMax::Gentle,
            ramp: Ramp::Linear,
            forced_th: f64::INFINITY,
            count: CountRule::SinceDecision,
            ptc: 1e5,
        };
        let mut gn = GlobalNotifier::new(test, Limit::Packets(b as u64 + 1), NotEct::Pass, Rng::new(1, 1));
        let mut fx = QueueEffects::default();
        let mut seq = 0u32;
        let mut arrive = |gn: &mut GlobalNotifier, fx: &mut QueueEffects| {
            seq += 1;
            gn.enqueue(
                Packet { flow: seq % 200, seq, size: 1000, ecn: Ecn::Ect, ..Packet::default() },
                0,
                fx,
            );
            fx.marks.clear();
        };
        for _ in 0..b {
            arrive(&mut gn, &mut fx);
        }
        // Steady state: one departure, one arrival that fires and walks the b packets queued.
        let n = (20_000_000 / b).max(1000);
        let t0 = Instant::now();
        for _ in 0..n {
            gn.dequeue(0, &mut fx);
            arrive(&mut gn, &mut fx);
        }
        let per = t0.elapsed().as_secs_f64() / n as f64;
        assert_eq!(gn.len(), b);
        println!(
            "buffer {b:>6}: {:>9.1} ns per arrival ({:.2} ns per queued packet walked)",
            per * 1e9,
            per * 1e9 / b as f64
        );
    }
}
