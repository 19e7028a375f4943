//! The index policy's sender: Avrachenkov, Ayesta, Doncel & Jacko (2013), the modified ns-3 NewReno of
//! their Sec. 7 (paper note §2.1, §2.9, §3.2).
//!
//! - **Growth**: Reno's ([`super::reno_growth`]: slow start, then `cwnd += 1/cwnd` per ACK), the window
//!   never above `N` = `max_window` (eq. (1): `W ← min{W + 1/W, W_max}`). `N` is the controller's own
//!   parameter, the model's largest state; `tcp.max_window` (the receiver's window, a cap on packets in
//!   flight) is separate and may be left unset.
//! - **Decrease** on every congestion signal (loss, ECN, timeout): `ssthresh = max(⌊γ·cwnd⌋, 1)` (eq. (2);
//!   γ = 1/2 is NewReno, γ = 0 restarts from one segment). The sender sets `cwnd = ssthresh` after fast
//!   recovery or an ECN reduction, and the loss window after a timeout; ECN reduces at most once per RTT
//!   by default (`tcp.ecn_response`), as the model assumes.
//! - **Tag**: every packet carries `ν(n)`, the Whittle index of the current window
//!   `n = min(max(⌊cwnd⌋, 1), N)`, read from `index`, one value per window 1..N (`index[n − 1]`), as an
//!   `f32`. The router (`index` discipline) drops the smallest.
//!
//! The table is given explicitly: the engine does not solve the model. The Python package fills it in from
//! `bufferlab.models.whittle` when a scenario writes `index = "whittle"` with `alpha`, `beta` and
//! `reward` (see `docs/scenario.md`). `⌊·⌋` treats values within 1e-9 below an integer as that integer, as
//! the model does (so γ = 1/3 takes 3 to 1).

use super::{reno_growth, CcContext, CongestionControl, Controller, Signal, Window};
use crate::rng::Rng;
use crate::spec::params::{params, Kind, ParamValue};
use crate::spec::{check, err, ScenarioError};
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use std::sync::Arc;

/// `⌊x⌋` for values that should be integers up to rounding (`bufferlab.models.whittle._FLOOR_EPS`).
const FLOOR_EPS: f64 = 1e-9;

/// Most windows a table may hold.
pub const MAX_N: u32 = 1 << 20;

/// The index values of windows 1..N, shared by the flows of a group.
#[derive(Clone, Debug, PartialEq)]
pub struct IndexTable(pub Arc<[f64]>);

impl Default for IndexTable {
    fn default() -> Self {
        IndexTable(Arc::from(Vec::new()))
    }
}

impl Serialize for IndexTable {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        self.0.serialize(s)
    }
}

impl<'de> Deserialize<'de> for IndexTable {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct Table;
        impl<'de> serde::de::Visitor<'de> for Table {
            type Value = IndexTable;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("a list of index values, one per window 1..N")
            }
            fn visit_seq<A: serde::de::SeqAccess<'de>>(self, mut seq: A) -> Result<IndexTable, A::Error> {
                let mut v = Vec::with_capacity(seq.size_hint().unwrap_or(0).min(MAX_N as usize));
                while let Some(x) = seq.next_element::<f64>()? {
                    v.push(x);
                }
                Ok(IndexTable(Arc::from(v)))
            }
            fn visit_str<E: serde::de::Error>(self, s: &str) -> Result<IndexTable, E> {
                Err(E::custom(format!(
                    "expected a list of index values, one per window 1..N (got {s:?}: index = \"whittle\" \
                     with alpha, beta and reward is computed by the Python package, bufferlab.run and \
                     bufferlab.resolve)"
                )))
            }
        }
        d.deserialize_any(Table)
    }
}

impl ParamValue for IndexTable {
    const KIND: Kind = Kind::Table;
}

params! {
    /// The index policy's sender (Avrachenkov, Ayesta, Doncel & Jacko 2013, Sec. 4.1 eqs. (1)–(2), Sec. 7):
    /// NewReno growth capped at N, `ssthresh = max(⌊γ·cwnd⌋, 1)`, each packet tagged with ν(window).
    pub struct Spec {
        /// The decrease factor γ of eq. (2): on every congestion signal `ssthresh = max(⌊γ·cwnd⌋, 1)`, from
        /// cwnd (NewReno's is max(in flight / 2, 2)); 0 restarts from one segment.
        gamma: f64 = 0.5, Rule::right_open(0.0, 1.0);
        /// N, the largest window (eq. (1)); not `tcp.max_window`. When given with `index`, it must equal the
        /// index's length.
        max_window: Option<u32> = None,
            Rule::closed(1.0, MAX_N as f64).unit("segments").default_is("the index's length");
        /// ν(1), …, ν(N): the Whittle index of each window (`"whittle"` with `alpha`, `beta` and `reward`
        /// through the Python package, `bufferlab.models.whittle`).
        index: IndexTable = IndexTable::default(),
            Rule::context("one finite value per window 1..N, at most 2^20").default_is("required");
    }
}

#[derive(Clone, Debug)]
pub struct Whittle {
    gamma: f64,
    /// N, as a window.
    n_max: f64,
    index: IndexTable,
}

impl Whittle {
    /// The window whose index a packet carries: `min(max(⌊cwnd⌋, 1), N)`.
    pub fn state(&self, cwnd: f64) -> usize {
        ((cwnd + FLOOR_EPS).floor().clamp(1.0, self.n_max)) as usize
    }
}

impl Controller for Whittle {
    type Spec = Spec;
    /// `gamma` and `max_window` are declared (and checked by the registry); the index is checked here,
    /// against `max_window`.
    fn from_spec(s: &Spec, field: &str, _: Rng) -> Result<Self, ScenarioError> {
        let f = |p: &str| format!("{field}.{p}");
        let table = &s.index.0;
        if table.is_empty() {
            return err(
                &f("index"),
                "required: the index of each window 1..N (index = \"whittle\" through the Python package)",
            );
        }
        if let Some(n) = s.max_window {
            check(
                &f("index"),
                table.len() == n as usize,
                &format!("a list of max_window = {n} values, one per window 1..N"),
                format!("{} values", table.len()),
            )?;
        }
        check(&f("index"), table.len() <= MAX_N as usize, "at most 2^20 values", table.len())?;
        if let Some(i) = table.iter().position(|x| !(x.is_finite() && x.abs() <= f32::MAX as f64)) {
            return err(&f("index"), format!("must be finite numbers (value {} is {})", i + 1, table[i]));
        }
        Ok(Whittle { gamma: s.gamma, n_max: table.len() as f64, index: s.index.clone() })
    }
}

impl CongestionControl for Whittle {
    const TAGS: bool = true;

    fn on_ack(&mut self, w: &mut Window, acked: u32, ctx: &CcContext) {
        reno_growth(w, acked, 1.0, ctx.whole_bytes);
        w.cwnd = w.cwnd.min(self.n_max);
    }

    fn on_congestion(&mut self, w: &Window, _signal: Signal, _ctx: &CcContext) -> f64 {
        (self.gamma * w.cwnd + FLOOR_EPS).floor().max(1.0)
    }

    fn tag(&self, w: &Window, _ctx: &CcContext) -> f32 {
        self.index.0[self.state(w.cwnd) - 1] as f32
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tcp::cc::{test_context, CcSpec};
    use crate::tcp::rtt::RttEstimator;

    /// A table whose values tell the windows apart: ν(n) = 1/n.
    fn spec(gamma: f64, n: u32) -> Spec {
        let table: Vec<f64> = (1..=n).map(|k| 1.0 / k as f64).collect();
        Spec { gamma, max_window: Some(n), index: IndexTable(table.into()) }
    }

    #[test]
    fn tags_are_the_table_entry_of_the_current_window() {
        let cc = Whittle::from_spec(&spec(0.5, 8), "c", Rng::new(1, 1)).unwrap();
        let est = RttEstimator::default();
        let ctx = test_context(&est, 3);
        for (cwnd, n) in
            [(0.5, 1), (1.0, 1), (1.99, 1), (2.0, 2), (3.0 - 1e-12, 3), (5.7, 5), (8.0, 8), (40.0, 8)]
        {
            let w = Window { cwnd, ssthresh: 4.0 };
            assert_eq!(cc.tag(&w, &ctx), (1.0 / n as f64) as f32, "cwnd {cwnd}");
        }
    }

    #[test]
    fn gamma_decrease_is_exact() {
        let est = RttEstimator::default();
        let ctx = test_context(&est, 20);
        let cut = |gamma: f64, cwnd: f64| {
            let mut cc = Whittle::from_spec(&spec(gamma, 30), "c", Rng::new(1, 1)).unwrap();
            cc.on_congestion(&Window { cwnd, ssthresh: 100.0 }, Signal::Loss, &ctx)
        };
        assert_eq!(cut(0.5, 13.0), 6.0);
        assert_eq!(cut(0.5, 13.7), 6.0);
        assert_eq!(cut(0.5, 14.0), 7.0);
        assert_eq!(cut(0.0, 25.0), 1.0, "γ = 0 restarts from one segment");
        assert_eq!(cut(0.5, 1.0), 1.0, "never below one segment");
        assert_eq!(cut(1.0 / 3.0, 3.0), 1.0, "⌊(1/3)·3⌋ = 1 despite rounding");
        assert_eq!(cut(0.9, 10.0), 9.0);
        assert_eq!(cut(0.95, 20.0), 19.0);
        // The same for ECN and timeouts.
        let mut cc = Whittle::from_spec(&spec(0.75, 30), "c", Rng::new(1, 1)).unwrap();
        let w = Window { cwnd: 10.0, ssthresh: 100.0 };
        assert_eq!(cc.on_congestion(&w, Signal::Ecn, &ctx), 7.0);
        assert_eq!(cc.on_congestion(&w, Signal::Timeout, &ctx), 7.0);
    }

    #[test]
    fn growth_is_reno_capped_at_n() {
        let mut cc = Whittle::from_spec(&spec(0.5, 6), "c", Rng::new(1, 1)).unwrap();
        let est = RttEstimator::default();
        let ctx = test_context(&est, 3);
        let mut w = Window { cwnd: 4.0, ssthresh: 5.0 };
        cc.on_ack(&mut w, 1, &ctx);
        assert_eq!(w.cwnd, 5.0, "slow start");
        cc.on_ack(&mut w, 1, &ctx);
        assert_eq!(w.cwnd, 5.2, "congestion avoidance: +1/cwnd");
        for _ in 0..20 {
            cc.on_ack(&mut w, 1, &ctx);
        }
        assert_eq!(w.cwnd, 6.0, "capped at N");
    }

    #[test]
    fn bad_parameters_name_the_field() {
        let field =
            |s: Spec| CcSpec::Whittle(s).build("flows[1].tcp.congestion_control", Rng::new(1, 1)).err();
        let f = |p: &str| Some(format!("flows[1].tcp.congestion_control.{p}"));
        assert_eq!(field(spec(1.0, 4)).map(|e| e.field), f("gamma"));
        assert_eq!(field(spec(-0.1, 4)).map(|e| e.field), f("gamma"));
        let e = field(Spec { max_window: Some(5), ..spec(0.5, 4) }).unwrap();
        assert_eq!(e.field, "flows[1].tcp.congestion_control.index");
        assert!(e.message.contains("max_window = 5") && e.message.contains("4 values"), "{e}");
        assert_eq!(field(Spec { max_window: Some(0), ..spec(0.5, 4) }).map(|e| e.field), f("max_window"));
        assert_eq!(field(Spec::default()).map(|e| e.field), f("index"));
        let nan = Spec { index: IndexTable(vec![1.0, f64::NAN].into()), max_window: None, gamma: 0.5 };
        assert_eq!(field(nan).map(|e| e.field), f("index"));
        // Without max_window, N is the table's length.
        let cc = Whittle::from_spec(&Spec { max_window: None, ..spec(0.5, 7) }, "c", Rng::new(1, 1)).unwrap();
        assert_eq!(cc.state(100.0), 7);
    }
}
