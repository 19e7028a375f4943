//! Queue disciplines behind one trait, each owning its settings.
//!
//! As in ns-3's traffic-control layer, a discipline only decides; every drop and mark goes through
//! [`QueueEffects`] with a named [`Reason`], so reasons are counted in one place for all disciplines and drops
//! after dequeue (CoDel-like) are told apart from drops before enqueue. A discipline may drop or mark packets
//! already queued (Global Notifier, the index policy), change its own limit, ask for a timer (BLUE, ARED,
//! ODT/OB) through [`QueueDisc::next_timer`], and be told how many flows are active through it.
//!
//! Each discipline's file holds its scenario table (`Spec`, declared with `params!`: parameters, defaults,
//! ranges), the checks the ranges cannot make and its construction from a [`QueueContext`] (link rate,
//! packet size, configured flow count, its own random stream), so the topology never names a discipline. Adding one is a new file implementing [`Discipline`]
//! and one line in the `registry!` list below.

pub mod ared;
pub mod blue;
pub mod codel;
pub mod droptail;
pub mod eun_wang;
pub mod fq_codel;
pub mod global_notifier;
pub mod index_policy;
pub mod ob;
pub mod odt;
pub mod optimizer;
pub mod pie;
pub mod red;
pub mod step;

use crate::packet::{Ecn, Packet};
use crate::rng::Rng;
use crate::spec::params::{Params, Rule};
use crate::spec::registry::registry;
use crate::spec::{check, err, ScenarioError};
use crate::time::Time;
use crate::units::Bytes;
use serde::de::DeserializeOwned;
use std::collections::{BTreeMap, VecDeque};

pub use ared::Ared;
pub use blue::Blue;
pub use codel::CoDel;
pub use droptail::DropTail;
pub use eun_wang::EunWang;
pub use fq_codel::FqCoDel;
pub use global_notifier::GlobalNotifier;
pub use index_policy::IndexQueue;
pub use ob::Ob;
pub use odt::Odt;
pub use pie::Pie;
pub use red::Red;
pub use step::Step;

/// Why a packet was dropped or marked: an open set of names, counted per name in the results.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Reason(pub &'static str);

/// The reasons the built-in disciplines use.
pub mod reason {
    use super::Reason;
    /// The buffer was full.
    pub const OVERFLOW: Reason = Reason("overflow");
    /// An AQM's probabilistic (early) decision.
    pub const EARLY: Reason = Reason("early");
    /// An AQM's forced drop (RED above max_th, or 2·max_th in gentle mode).
    pub const FORCED: Reason = Reason("forced");
}

/// Where a drop happened.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Stage {
    /// The arriving packet (or one already queued, pushed out by it) was refused.
    BeforeEnqueue,
    /// A packet taken from the head for service was discarded instead (CoDel, PIE's dequeue drops).
    AfterDequeue,
}

/// What a discipline did besides queueing: drops and CE marks with their reasons. The caller drains it.
#[derive(Default)]
pub struct QueueEffects {
    pub drops: Vec<(Packet, Reason, Stage)>,
    /// Flows whose packets were CE-marked, one entry per mark.
    pub marks: Vec<(u32, Reason)>,
    /// The segment number of each entry of `marks` (for the event trace).
    pub mark_seqs: Vec<u32>,
}

impl QueueEffects {
    /// Drop before enqueue (the arriving packet, or a queued one it displaces).
    pub fn drop(&mut self, pkt: Packet, reason: Reason) {
        self.drops.push((pkt, reason, Stage::BeforeEnqueue));
    }

    /// Drop a packet just dequeued for service.
    pub fn drop_after_dequeue(&mut self, pkt: Packet, reason: Reason) {
        self.drops.push((pkt, reason, Stage::AfterDequeue));
    }

    /// Set CE on an ECN-capable packet; returns false (and leaves it alone) if it is Not-ECT.
    pub fn mark(&mut self, pkt: &mut Packet, reason: Reason) -> bool {
        match pkt.ecn {
            Ecn::NotEct => false,
            Ecn::Ect => {
                pkt.ecn = Ecn::Ce;
                self.marks.push((pkt.flow, reason));
                self.mark_seqs.push(pkt.seq);
                true
            }
            Ecn::Ce => true,
        }
    }
}

/// The buffer of a discipline: packets waiting, in arrival order, with their byte count.
#[derive(Default)]
pub struct Fifo {
    pkts: VecDeque<Packet>,
    bytes: u64,
}

impl Fifo {
    pub fn push(&mut self, pkt: Packet) {
        self.bytes += pkt.size as u64;
        self.pkts.push_back(pkt);
    }
    pub fn pop(&mut self) -> Option<Packet> {
        let p = self.pkts.pop_front()?;
        self.bytes -= p.size as u64;
        Some(p)
    }
    pub fn pop_back(&mut self) -> Option<Packet> {
        let p = self.pkts.pop_back()?;
        self.bytes -= p.size as u64;
        Some(p)
    }
    /// Remove the packet at `index` (0 = head).
    pub fn remove(&mut self, index: usize) -> Option<Packet> {
        let p = self.pkts.remove(index)?;
        self.bytes -= p.size as u64;
        Some(p)
    }
    pub fn len(&self) -> usize {
        self.pkts.len()
    }
    pub fn is_empty(&self) -> bool {
        self.pkts.is_empty()
    }
    pub fn bytes(&self) -> u64 {
        self.bytes
    }
    pub fn iter_mut(&mut self) -> impl Iterator<Item = &mut Packet> {
        self.pkts.iter_mut()
    }

    /// Queue `pkt` (stamped with its enqueue time) if it fits `limit`, else drop it as an overflow.
    pub fn admit(&mut self, mut pkt: Packet, limit: Limit, now: Time, fx: &mut QueueEffects) {
        if limit.admits(self, &pkt) {
            pkt.enqueued_at = now;
            self.push(pkt);
        } else {
            fx.drop(pkt, reason::OVERFLOW);
        }
    }
}

/// A buffer limit, in packets or bytes (packets waiting, not counting the one being serialized).
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Limit {
    Packets(u64),
    Bytes(u64),
}

impl Limit {
    /// Would `pkt` fit in `fifo`?
    pub fn admits(&self, fifo: &Fifo, pkt: &Packet) -> bool {
        match *self {
            Limit::Packets(n) => (fifo.len() as u64) < n,
            Limit::Bytes(b) => fifo.bytes() + pkt.size as u64 <= b,
        }
    }
}

/// A queue discipline: the buffer and its admission/marking policy.
pub trait QueueDisc {
    /// A packet arrives; the discipline queues it, or drops/marks through `fx`.
    fn enqueue(&mut self, pkt: Packet, now: Time, fx: &mut QueueEffects);
    /// The link asks for the next packet; `None` means the link goes idle.
    fn dequeue(&mut self, now: Time, fx: &mut QueueEffects) -> Option<Packet>;
    /// Packets waiting.
    fn len(&self) -> usize;
    /// Bytes waiting.
    fn bytes(&self) -> u64;
    fn is_empty(&self) -> bool {
        self.len() == 0
    }
    /// The most the buffer may ever hold (its physical limit), for the scenario's memory estimate; `None`
    /// when it has no fixed bound.
    fn capacity(&self) -> Option<Limit> {
        None
    }
    /// When the discipline's own timer should next fire, if it has one.
    fn next_timer(&self) -> Option<Time> {
        None
    }
    /// Whether `next_timer` may ever return a time; read once, when the port is built, so that a port
    /// whose discipline has no timer does not ask at every packet. A discipline that overrides
    /// `next_timer` overrides this too.
    fn has_timer(&self) -> bool {
        false
    }
    /// The period of the discipline's own timer when it fires at a fixed rate while the port has traffic
    /// (BLUE's interval mode, ARED's timer, PIE's `t_update`, ODT/OB's sampling period), for the scenario's
    /// events estimate, with the parameter that sets it; `None` when it has none.
    fn timer_period(&self) -> Option<(Time, &'static str)> {
        None
    }
    /// The timer fired.
    fn on_timer(&mut self, _now: Time, _fx: &mut QueueEffects) {}
    /// The number of flows active through this port changed (a flow started, stopped or finished).
    fn on_active_flows(&mut self, _active: u32) {}
    /// The discipline's own state at the end of the run (an adapted limit or probability), by name; shown
    /// in the port's results as `queue_state`.
    fn report(&self, _out: &mut BTreeMap<String, f64>) {}
}

/// What a discipline is built from.
pub struct QueueContext<'a> {
    /// The scenario field of its table, for errors (`bottleneck.queue`, `links[2].queue`).
    pub field: &'a str,
    /// The output link's rate, bits/s.
    pub link_rate_bps: f64,
    /// The data packet size of the flows crossing it (the largest, if groups differ), bytes.
    pub packet_size: u32,
    /// TCP flows whose route crosses the port (the configured N; arrival-driven groups count their mean
    /// number in the system, rounded up).
    pub flows: u32,
    /// Whether some sender crossing the port sends ECN-capable packets.
    pub ecn_senders: bool,
    /// The port's own random stream.
    pub rng: Rng,
}

impl QueueContext<'_> {
    /// The field name of one parameter.
    pub fn field(&self, param: &str) -> String {
        format!("{}.{param}", self.field)
    }

    /// A size in bytes a table may leave to the port (`mtu`, `quantum`): the value given (its declared
    /// range already checked), or else the port's packet size, which must then be at least `low` too.
    pub fn bytes_or_packet_size(
        &self,
        param: &str,
        given: Option<Bytes>,
        low: f64,
    ) -> Result<f64, ScenarioError> {
        match given {
            Some(b) => Ok(b.0),
            None if (self.packet_size as f64) < low => err(
                &self.field(param),
                format!(
                    "the default, the port's packet size ({} B), is below {low} B: give {param}",
                    self.packet_size
                ),
            ),
            None => Ok(self.packet_size as f64),
        }
    }

    /// An `ecn = true` parameter needs ECN-capable senders through the port.
    pub fn check_ecn(&self, ecn: bool) -> Result<(), ScenarioError> {
        if ecn && !self.ecn_senders {
            return err(&self.field("ecn"), "needs tcp.ecn = true (senders must send ECT packets)");
        }
        Ok(())
    }
}

/// A discipline built from its scenario table.
pub trait Discipline: QueueDisc + Sized {
    /// Its parameters as a scenario writes them (with `deny_unknown_fields` and defaults).
    type Spec: Params + DeserializeOwned + Clone + std::fmt::Debug;
    /// Build from a table whose declared ranges [`Params::check`] has already checked.
    fn build(spec: &Self::Spec, ctx: QueueContext) -> Result<Self, ScenarioError>;

    /// Check the table's declared ranges (errors name `ctx.field.<param>`), then [`Discipline::build`].
    fn from_spec(spec: &Self::Spec, ctx: QueueContext) -> Result<Self, ScenarioError> {
        spec.check(ctx.field)?;
        Self::build(spec, ctx)
    }
}

/// `len`, `bytes` and `capacity` of a discipline whose packets wait in one [`Fifo`] under one [`Limit`]:
/// `fifo_occupancy!(fifo, limit)` or `fifo_occupancy!(q.fifo, q.limit)` (paths of fields of `self`).
macro_rules! fifo_occupancy {
    ($($fifo:ident).+, $($limit:ident).+) => {
        fn len(&self) -> usize {
            self.$($fifo).+.len()
        }
        fn bytes(&self) -> u64 {
            self.$($fifo).+.bytes()
        }
        fn capacity(&self) -> Option<Limit> {
            Some(self.$($limit).+)
        }
    };
}
pub(crate) use fifo_occupancy;

/// A table's `limit`: packets waiting.
pub const LIMIT: Rule =
    Rule::closed(1.0, (1u64 << 40) as f64).unit("packets").and_context("not with limit_bytes");
/// A table's `limit_bytes`: bytes waiting.
pub const LIMIT_BYTES: Rule =
    Rule::closed(1.0, 1e15).and_context(">= one packet (tcp.packet_size); not with limit");

/// The buffer limit of a scenario table, `limit` or `limit_bytes`, or `default` when neither is given.
pub fn resolve_limit_or(
    limit: Option<u64>,
    limit_bytes: Option<Bytes>,
    default: Limit,
    ctx: &QueueContext,
) -> Result<Limit, ScenarioError> {
    match (limit, limit_bytes) {
        (None, None) => Ok(default),
        _ => resolve_limit(limit, limit_bytes, ctx),
    }
}

/// The buffer limit of a scenario table: `limit` (packets) or `limit_bytes`, exactly one (their ranges
/// declared by [`LIMIT`] and [`LIMIT_BYTES`] and already checked; a byte limit must hold one packet).
pub fn resolve_limit(
    limit: Option<u64>,
    limit_bytes: Option<Bytes>,
    ctx: &QueueContext,
) -> Result<Limit, ScenarioError> {
    match (limit, limit_bytes) {
        (Some(_), Some(_)) => {
            err(&ctx.field("limit"), "give either limit (packets) or limit_bytes, not both")
        }
        (Some(n), None) => Ok(Limit::Packets(n)),
        (None, Some(b)) => {
            let ok = b.0 >= ctx.packet_size as f64;
            check(&ctx.field("limit_bytes"), ok, ">= one packet (tcp.packet_size)", b.0)?;
            Ok(Limit::Bytes(b.0 as u64))
        }
        (None, None) => err(&ctx.field("limit"), "required: packets waiting, >= 1 (or limit_bytes)"),
    }
}

registry! {
    /// A discipline's table from a scenario, parsed but not yet built.
    spec QueueSpec: Discipline, any AnyQueue, names DISCIPLINES, tag "discipline",
    describe describe_disciplines, each each_queue, build build_queue, fold fold_queues;
    Droptail, "droptail" => DropTail,
    Red, "red" => Red,
    Ared, "ared" => Ared,
    EunWang, "eun-wang" => EunWang,
    Blue, "blue" => Blue,
    Odt, "odt" => Odt,
    Ob, "ob" => Ob,
    GlobalNotifier, "global-notifier" => GlobalNotifier,
    Index, "index" => IndexQueue,
    Codel, "codel" => CoDel,
    FqCodel, "fq-codel" => FqCoDel,
    Pie, "pie" => Pie,
    Step, "step" => Step,
}

impl QueueSpec {
    /// Parse a queue table (`{ discipline = "red", ... }`) at scenario field `field`.
    pub fn parse(value: &serde_json::Value, field: &str) -> Result<QueueSpec, ScenarioError> {
        let Some(table) = value.as_object() else {
            return err(field, "expected a table such as { discipline = \"droptail\", limit = 100 }");
        };
        let mut rest = table.clone();
        let name = match rest.remove("discipline") {
            Some(serde_json::Value::String(s)) => s,
            _ => {
                return err(
                    &format!("{field}.discipline"),
                    format!("required: one of {}", DISCIPLINES.join(", ")),
                )
            }
        };
        QueueSpec::from_table(&name, serde_json::Value::Object(rest), field).unwrap_or_else(|| {
            err(
                &format!("{field}.discipline"),
                format!("unknown discipline {name:?}: expected one of {}", DISCIPLINES.join(", ")),
            )
        })
    }

    /// Check the parameters (their declared ranges, then against the port) and build the discipline.
    pub fn build(&self, ctx: QueueContext) -> Result<AnyQueue, ScenarioError> {
        Ok(build_queue!(self, s, T => T::from_spec(s, ctx)?))
    }
}

/// The dispatch of `enqueue` and `dequeue` is inlined where a port takes a packet in or out: on the
/// reference benchmark 2.5 % fewer instructions than a call (docs/benchmarks.md).
impl QueueDisc for AnyQueue {
    #[inline(always)]
    fn enqueue(&mut self, pkt: Packet, now: Time, fx: &mut QueueEffects) {
        each_queue!(self, q => q.enqueue(pkt, now, fx))
    }
    #[inline(always)]
    fn dequeue(&mut self, now: Time, fx: &mut QueueEffects) -> Option<Packet> {
        each_queue!(self, q => q.dequeue(now, fx))
    }
    fn len(&self) -> usize {
        each_queue!(self, q => q.len())
    }
    fn bytes(&self) -> u64 {
        each_queue!(self, q => q.bytes())
    }
    fn capacity(&self) -> Option<Limit> {
        each_queue!(self, q => q.capacity())
    }
    fn next_timer(&self) -> Option<Time> {
        each_queue!(self, q => q.next_timer())
    }
    fn has_timer(&self) -> bool {
        each_queue!(self, q => q.has_timer())
    }
    fn timer_period(&self) -> Option<(Time, &'static str)> {
        each_queue!(self, q => q.timer_period())
    }
    fn on_timer(&mut self, now: Time, fx: &mut QueueEffects) {
        each_queue!(self, q => q.on_timer(now, fx))
    }
    fn on_active_flows(&mut self, active: u32) {
        each_queue!(self, q => q.on_active_flows(active))
    }
    fn report(&self, out: &mut BTreeMap<String, f64>) {
        each_queue!(self, q => q.report(out))
    }
}

#[cfg(test)]
pub(crate) fn test_packet(flow: u32, seq: u32, size: u32) -> Packet {
    Packet { flow, seq, size, ..Packet::default() }
}

/// Discipline `D` built from a whole scenario table (`discipline` included) at field `q`, as the
/// registry builds it (declared ranges checked first).
#[cfg(test)]
pub(crate) fn test_build<D: Discipline>(table: serde_json::Value) -> Result<D, ScenarioError> {
    let mut rest = table;
    if let Some(t) = rest.as_object_mut() {
        t.remove("discipline");
    }
    let spec: D::Spec = crate::spec::from_value(rest, "q")?;
    D::from_spec(&spec, test_context("q"))
}

#[cfg(test)]
pub(crate) fn test_context(field: &str) -> QueueContext<'_> {
    QueueContext {
        field,
        link_rate_bps: 8e6,
        packet_size: 1000,
        flows: 1,
        ecn_senders: true,
        rng: Rng::new(1, 1),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn errors_inside_a_queue_table_name_the_parameter() {
        let v = serde_json::json!({"discipline": "red", "limit": 50, "max_p": "high"});
        let e = QueueSpec::parse(&v, "links[1].queue").unwrap_err();
        assert_eq!(e.field, "links[1].queue.max_p");
        let v = serde_json::json!({"discipline": "droptail", "limit": -1});
        assert_eq!(QueueSpec::parse(&v, "bottleneck.queue").unwrap_err().field, "bottleneck.queue.limit");
        let v = serde_json::json!({"discipline": "droptail", "limit": 5, "colour": 1});
        let e = QueueSpec::parse(&v, "q").unwrap_err();
        assert!(e.to_string().contains("colour"), "{e}");
        let v = serde_json::json!({"discipline": "nonesuch"});
        let e = QueueSpec::parse(&v, "q").unwrap_err();
        assert_eq!(e.field, "q.discipline");
        assert!(e.message.contains("droptail, red"), "{e}");
        let v = serde_json::json!({"limit": 5});
        assert_eq!(QueueSpec::parse(&v, "q").unwrap_err().field, "q.discipline");
    }

    #[test]
    fn every_discipline_that_asks_for_a_timer_says_it_has_one() {
        // A port reads `has_timer` once and skips `next_timer` without it: every discipline, given traffic
        // with its defaults (and a small limit), must not ask for a timer it did not declare.
        let timed = [("ared", "timer"), ("blue", "interval")]
            .map(|(d, u)| serde_json::json!({"discipline": d, "update": u}));
        let tables = DISCIPLINES.iter().map(|d| serde_json::json!({"discipline": d})).chain(timed);
        for mut table in tables {
            let name = table["discipline"].as_str().unwrap().to_owned();
            table["limit"] = 20.into();
            if name == "step" {
                table["threshold"] = 5.into();
            }
            let spec = QueueSpec::parse(&table, "q").unwrap();
            let mut q = spec.build(test_context("q")).unwrap();
            let mut fx = QueueEffects::default();
            for i in 0..200u32 {
                let now = i as Time * 1_000_000_000;
                q.enqueue(test_packet(i % 3, i, 1000), now, &mut fx);
                if i % 2 == 0 {
                    q.dequeue(now, &mut fx);
                }
                if let Some(t) = q.next_timer() {
                    assert!(q.has_timer(), "{name} asked for a timer at {t} without has_timer");
                    q.on_timer(t.max(now), &mut fx);
                }
            }
            assert!(q.has_timer() || q.timer_period().is_none(), "{name}: a timer period without has_timer");
        }
    }

    #[test]
    fn limits_are_checked_against_the_port() {
        let ctx = test_context("q");
        let zero = QueueSpec::parse(&serde_json::json!({"discipline": "droptail", "limit": 0}), "q").unwrap();
        assert_eq!(zero.build(test_context("q")).err().unwrap().field, "q.limit");
        assert_eq!(resolve_limit(None, Some(Bytes(10.0)), &ctx).unwrap_err().field, "q.limit_bytes");
        assert_eq!(resolve_limit(None, None, &ctx).unwrap_err().field, "q.limit");
        assert_eq!(resolve_limit(Some(3), Some(Bytes(3000.0)), &ctx).unwrap_err().field, "q.limit");
        assert_eq!(resolve_limit(None, Some(Bytes(3000.0)), &ctx).unwrap(), Limit::Bytes(3000));
    }
}
