//! What a run returns: summary metrics, one row per port, per group and per flow started at a fixed time,
//! flow-completion-time statistics by size bucket, and the sampled time series.
//!
//! Values that do not exist (the RTT of a flow that never got a sample, the FCT of a flow that did not
//! finish) are `None` (JSON `null`), never NaN.

pub use crate::tcp::sender::SenderStats;
use serde::Serialize;
use std::collections::BTreeMap;

/// Summary metrics over [warmup, duration]. The port metrics (utilization to delay percentiles) are those
/// of the first link (the dumbbell's bottleneck); every port has its row in `Results::ports`. The
/// conservation counts (`sent`, `delivered`, `dropped`, `in_flight`) cover the whole run and every packet
/// (data, queued ACKs, datagrams) and satisfy `sent = delivered + dropped + in_flight`.
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct Summary {
    pub name: String,
    pub seed: u64,
    pub flows: u64,
    /// The end of the measurement window: the scenario's duration, or where an interrupted run stopped.
    pub duration_s: f64,
    pub warmup_s: f64,
    /// The run was stopped early (`Simulation::finish_now`): the statistics cover `[warmup_s, duration_s]`.
    pub partial: bool,
    pub utilization: f64,
    pub throughput_bps: f64,
    pub goodput_bps: f64,
    pub arrivals: u64,
    pub departures: u64,
    pub drops_overflow: u64,
    pub drops_early: u64,
    pub drops_forced: u64,
    pub drops: u64,
    pub marks: u64,
    pub loss_rate: f64,
    pub mark_rate: f64,
    pub queue_mean_pkts: f64,
    pub queue_p50_pkts: f64,
    pub queue_p90_pkts: f64,
    pub queue_p99_pkts: f64,
    pub queue_max_pkts: f64,
    pub delay_mean_s: f64,
    pub delay_std_s: f64,
    pub delay_p50_s: f64,
    pub delay_p90_s: f64,
    pub delay_p99_s: f64,
    /// Jain's index over the flows' rows; `None` when the run has none (only arrivals or incast).
    pub jain_index: Option<f64>,
    pub timeouts: u64,
    pub fast_retransmits: u64,
    pub retransmits: u64,
    /// Retransmission timeouts inside the measurement window (`timeouts` counts the whole run), and the
    /// same split by cause (`tcp::sender::TimeoutCause`): the first unacknowledged segment's retransmission
    /// went unanswered; in fast recovery with it never retransmitted; outside recovery (too few duplicate
    /// ACKs); anything else.
    pub window_timeouts: u64,
    pub window_timeouts_lost_retransmission: u64,
    pub window_timeouts_during_recovery: u64,
    pub window_timeouts_insufficient_dupacks: u64,
    pub window_timeouts_other: u64,
    pub sent: u64,
    pub delivered: u64,
    pub dropped: u64,
    pub in_flight: u64,
    pub events: u64,
    pub ports: u64,
    pub groups: u64,
    /// Flows started (fixed and arriving) over the whole run, and finite flows completed.
    pub flows_started: u64,
    pub flows_completed: u64,
    /// Most flow slots in use at once (memory grows with this, not with time).
    pub peak_flow_slots: u64,
}

/// One flow started at a fixed time, over the measurement window (counters from the sender cover the whole
/// run).
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct FlowResult {
    pub flow: u32,
    pub group: u32,
    pub rtt_s: f64,
    pub start_s: f64,
    pub goodput_bps: f64,
    pub throughput_bps: f64,
    /// `sent`, `retransmits`, `timeouts`, `fast_recoveries`, `ecn_reductions`.
    #[serde(flatten)]
    pub tcp: SenderStats,
    pub drops: u64,
    pub marks: u64,
    pub final_cwnd: f64,
    pub srtt_s: Option<f64>,
    /// Finite flows: payload bytes, and the completion time if it completed.
    pub size_bytes: Option<u64>,
    pub fct_s: Option<f64>,
    /// Leaf-spine flows only: the sending and receiving hosts, the spine ECMP chose (absent within one
    /// leaf) and the route's links.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub src: Option<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub dst: Option<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub spine: Option<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub route: Option<Vec<String>>,
}

/// One port (a queue and its link) over the measurement window.
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct PortResult {
    pub port: u32,
    pub name: String,
    pub discipline: String,
    pub rate_bps: f64,
    pub delay_s: f64,
    pub utilization: f64,
    pub throughput_bps: f64,
    pub arrivals: u64,
    pub departures: u64,
    pub drops: u64,
    /// Drops of packets already dequeued (CoDel-like), included in `drops`.
    pub drops_at_dequeue: u64,
    pub marks: u64,
    pub loss_rate: f64,
    pub mark_rate: f64,
    pub drop_reasons: BTreeMap<String, u64>,
    pub mark_reasons: BTreeMap<String, u64>,
    pub queue_mean_pkts: f64,
    pub queue_p50_pkts: f64,
    pub queue_p99_pkts: f64,
    pub queue_max_pkts: f64,
    pub delay_mean_s: f64,
    pub delay_p50_s: f64,
    pub delay_p99_s: f64,
    /// The discipline's own end-of-run state (an adapted limit or probability), by name; empty for most.
    pub queue_state: BTreeMap<String, f64>,
    /// The shared buffer the port draws from (`None` without one), its size, and the bytes its ports held
    /// as arrivals at any of them found them over the window (the buffer's, the same on each of its
    /// ports). Its refusals are the port's `shared-buffer` drops.
    pub shared_buffer: Option<String>,
    pub shared_buffer_bytes: Option<u64>,
    pub shared_buffer_occupancy_mean_bytes: Option<f64>,
    pub shared_buffer_occupancy_max_bytes: Option<u64>,
}

/// One flow group over the measurement window; sender counters cover the whole run and every flow of the
/// group, finished ones included.
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct GroupResult {
    pub group: u32,
    pub name: String,
    pub congestion_control: String,
    pub route: Vec<String>,
    pub ack_route: Vec<String>,
    pub flows_started: u64,
    pub flows_completed: u64,
    pub goodput_bps: f64,
    pub throughput_bps: f64,
    /// `sent`, `retransmits`, `timeouts`, `fast_recoveries`, `ecn_reductions`.
    #[serde(flatten)]
    pub tcp: SenderStats,
    pub drops: u64,
    pub ack_drops: u64,
    pub marks: u64,
    /// Jain's index over the group's fixed flows' goodputs (`None` without fixed flows).
    pub jain_index: Option<f64>,
    /// Over the flows counted in the FCT statistics (started after the warm-up, finished before the end).
    pub fct_count: u64,
    pub fct_mean_s: Option<f64>,
    pub fct_p99_s: Option<f64>,
    /// Incast groups: the rounds whose request and last response fell in the window, and their request
    /// completion times (`None` for other groups, or without such a round).
    pub incast_rounds: Option<u64>,
    pub rct_mean_s: Option<f64>,
    pub rct_p50_s: Option<f64>,
    pub rct_p99_s: Option<f64>,
    pub rct_max_s: Option<f64>,
    /// The bytes of those rounds over the time they took (request gaps excluded), bits/s.
    pub incast_goodput_bps: Option<f64>,
}

/// FCT statistics of one group's flows in one size bucket `(size_lo, size_hi]` bytes.
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct FctResult {
    pub group: u32,
    pub size_lo: u64,
    /// `None` for the last, open bucket.
    pub size_hi: Option<u64>,
    pub count: u64,
    pub mean_s: f64,
    pub std_s: f64,
    pub p50_s: f64,
    pub p90_s: f64,
    pub p99_s: f64,
    pub slowdown_mean: f64,
}

/// One finished flow (up to `monitor.fct_records` of them).
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct FctRecordResult {
    pub group: u32,
    pub size_bytes: u64,
    pub start_s: f64,
    pub fct_s: f64,
    pub rtt_s: f64,
}

/// One open-loop source over the measurement window (`sent` covers the whole run).
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct UdpResult {
    pub source: u32,
    pub sent: u64,
    pub delivered: u64,
    pub drops: u64,
    /// drops / (delivered + drops) in the window.
    pub loss_rate: f64,
}

/// Sampled time series: queue length of the first port (and of every port when there are several), and
/// per-flow cwnd when asked for.
#[derive(Clone, Debug, Default, Serialize, PartialEq)]
pub struct Series {
    pub time_s: Vec<f64>,
    pub queue_pkts: Vec<f64>,
    /// `port_queue[p]`: port p's queue at each sample (empty for a single port).
    pub port_queue: Vec<Vec<f64>>,
    /// `cwnd[i]` is flow i's congestion window (segments) at each sample.
    pub cwnd: Vec<Vec<f64>>,
}

impl Series {
    pub fn new(ports: usize, flows_with_cwnd: usize) -> Self {
        let ports = if ports > 1 { ports } else { 0 };
        Series {
            port_queue: vec![Vec::new(); ports],
            cwnd: vec![Vec::new(); flows_with_cwnd],
            ..Default::default()
        }
    }
}

/// Everything a run produces.
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct Results {
    pub summary: Summary,
    pub flows: Vec<FlowResult>,
    pub ports: Vec<PortResult>,
    pub groups: Vec<GroupResult>,
    pub fct: Vec<FctResult>,
    pub fct_records: Vec<FctRecordResult>,
    pub udp: Vec<UdpResult>,
    pub series: Series,
}

/// The paths of every NaN or infinite number in `value` (`flows[3].srtt_s`): serde_json writes them as
/// `null` without a word, so tests ask this instead. Results must have none.
pub fn non_finite_fields<T: Serialize + ?Sized>(value: &T) -> Vec<String> {
    let mut walker = finite::Walker::default();
    // The walker never fails: every value is visited.
    let _ = value.serialize(&mut walker);
    walker.found
}

/// A serializer that only looks at floats, for [`non_finite_fields`].
mod finite {
    use serde::ser::{self, Serialize};
    use std::fmt;

    #[derive(Default)]
    pub struct Walker {
        path: Vec<String>,
        counters: Vec<usize>,
        pub found: Vec<String>,
    }

    #[derive(Debug)]
    pub struct Never;
    impl fmt::Display for Never {
        fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
            f.write_str("never")
        }
    }
    impl std::error::Error for Never {}
    impl ser::Error for Never {
        fn custom<T: fmt::Display>(_: T) -> Self {
            Never
        }
    }

    impl Walker {
        fn float(&mut self, v: f64) {
            if !v.is_finite() {
                let path = self.path.concat();
                self.found.push(path.strip_prefix('.').unwrap_or(&path).to_string());
            }
        }
        fn at<T: Serialize + ?Sized>(&mut self, segment: String, v: &T) -> Result<(), Never> {
            self.path.push(segment);
            let r = v.serialize(&mut *self);
            self.path.pop();
            r
        }
    }

    macro_rules! ignore {
        ($($name:ident: $t:ty),*) => {
            $(fn $name(self, _: $t) -> Result<(), Never> { Ok(()) })*
        };
    }

    impl ser::Serializer for &mut Walker {
        type Ok = ();
        type Error = Never;
        type SerializeSeq = Self;
        type SerializeTuple = Self;
        type SerializeTupleStruct = Self;
        type SerializeTupleVariant = Self;
        type SerializeMap = Self;
        type SerializeStruct = Self;
        type SerializeStructVariant = Self;

        ignore!(serialize_bool: bool, serialize_i8: i8, serialize_i16: i16, serialize_i32: i32,
            serialize_i64: i64, serialize_u8: u8, serialize_u16: u16, serialize_u32: u32, serialize_u64: u64,
            serialize_char: char, serialize_str: &str, serialize_bytes: &[u8]);

        fn serialize_f32(self, v: f32) -> Result<(), Never> {
            self.float(v as f64);
            Ok(())
        }
        fn serialize_f64(self, v: f64) -> Result<(), Never> {
            self.float(v);
            Ok(())
        }
        fn serialize_none(self) -> Result<(), Never> {
            Ok(())
        }
        fn serialize_some<T: Serialize + ?Sized>(self, v: &T) -> Result<(), Never> {
            v.serialize(self)
        }
        fn serialize_unit(self) -> Result<(), Never> {
            Ok(())
        }
        fn serialize_unit_struct(self, _: &'static str) -> Result<(), Never> {
            Ok(())
        }
        fn serialize_unit_variant(self, _: &'static str, _: u32, _: &'static str) -> Result<(), Never> {
            Ok(())
        }
        fn serialize_newtype_struct<T: Serialize + ?Sized>(
            self,
            _: &'static str,
            v: &T,
        ) -> Result<(), Never> {
            v.serialize(self)
        }
        fn serialize_newtype_variant<T: Serialize + ?Sized>(
            self,
            _: &'static str,
            _: u32,
            variant: &'static str,
            v: &T,
        ) -> Result<(), Never> {
            self.at(format!(".{variant}"), v)
        }
        fn serialize_seq(self, _: Option<usize>) -> Result<Self, Never> {
            self.path.push(String::new());
            self.counters.push(0);
            Ok(self)
        }
        fn serialize_tuple(self, _: usize) -> Result<Self, Never> {
            self.serialize_seq(None)
        }
        fn serialize_tuple_struct(self, _: &'static str, _: usize) -> Result<Self, Never> {
            self.serialize_seq(None)
        }
        fn serialize_tuple_variant(
            self,
            _: &'static str,
            _: u32,
            _: &'static str,
            _: usize,
        ) -> Result<Self, Never> {
            self.serialize_seq(None)
        }
        fn serialize_map(self, _: Option<usize>) -> Result<Self, Never> {
            self.path.push(String::new());
            Ok(self)
        }
        fn serialize_struct(self, _: &'static str, _: usize) -> Result<Self, Never> {
            Ok(self)
        }
        fn serialize_struct_variant(
            self,
            _: &'static str,
            _: u32,
            _: &'static str,
            _: usize,
        ) -> Result<Self, Never> {
            Ok(self)
        }
    }

    /// Lists: the path's last segment is the element's index, `counters` the next index of each open list.
    impl Walker {
        fn element<T: Serialize + ?Sized>(&mut self, v: &T) -> Result<(), Never> {
            let i = self.counters.last_mut().expect("pushed by serialize_seq");
            *self.path.last_mut().expect("pushed by serialize_seq") = format!("[{i}]");
            *i += 1;
            v.serialize(&mut *self)
        }
        fn end_seq(&mut self) -> Result<(), Never> {
            self.path.pop();
            self.counters.pop();
            Ok(())
        }
    }

    macro_rules! seq_like {
        ($($tr:ident :: $method:ident),*) => {$(
            impl ser::$tr for &mut Walker {
                type Ok = ();
                type Error = Never;
                fn $method<T: Serialize + ?Sized>(&mut self, v: &T) -> Result<(), Never> {
                    self.element(v)
                }
                fn end(self) -> Result<(), Never> {
                    self.end_seq()
                }
            }
        )*};
    }
    seq_like!(
        SerializeSeq::serialize_element,
        SerializeTuple::serialize_element,
        SerializeTupleStruct::serialize_field,
        SerializeTupleVariant::serialize_field
    );

    impl ser::SerializeMap for &mut Walker {
        type Ok = ();
        type Error = Never;
        fn serialize_key<T: Serialize + ?Sized>(&mut self, key: &T) -> Result<(), Never> {
            let key = match serde_json::to_value(key) {
                Ok(serde_json::Value::String(k)) => k,
                Ok(k) => k.to_string(),
                Err(_) => "?".into(),
            };
            *self.path.last_mut().expect("pushed by serialize_map") = format!(".{key}");
            Ok(())
        }
        fn serialize_value<T: Serialize + ?Sized>(&mut self, v: &T) -> Result<(), Never> {
            v.serialize(&mut **self)
        }
        fn end(self) -> Result<(), Never> {
            self.path.pop();
            Ok(())
        }
    }

    macro_rules! struct_like {
        ($($tr:ident),*) => {$(
            impl ser::$tr for &mut Walker {
                type Ok = ();
                type Error = Never;
                fn serialize_field<T: Serialize + ?Sized>(&mut self, key: &'static str, v: &T) -> Result<(), Never> {
                    self.at(format!(".{key}"), v)
                }
                fn end(self) -> Result<(), Never> {
                    Ok(())
                }
            }
        )*};
    }
    struct_like!(SerializeStruct, SerializeStructVariant);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Serialize)]
    struct Row {
        a: f64,
        b: Option<f64>,
        c: Vec<f64>,
        d: BTreeMap<String, f64>,
    }

    #[test]
    fn non_finite_numbers_are_found_by_path() {
        let d = BTreeMap::from([("x".to_string(), 1.0), ("y".to_string(), f64::INFINITY)]);
        let rows = vec![
            Row { a: 1.0, b: None, c: vec![1.0], d: BTreeMap::new() },
            Row { a: f64::NAN, b: Some(f64::NAN), c: vec![0.0, f64::NEG_INFINITY], d },
        ];
        assert_eq!(non_finite_fields(&rows), ["[1].a", "[1].b", "[1].c[1]", "[1].d.y"]);
        assert!(non_finite_fields(&rows[0]).is_empty());
    }
}
