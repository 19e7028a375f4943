//! What a scenario will cost, estimated before anything is allocated: memory (flow slots, sampled series,
//! queued packets, packets on the links, FCT records) and work (events over the run). A scenario above
//! `[limits]` (default 8 GB and 1e10 events) is refused with an error naming the field that drives the
//! estimate; the user raises the limit to run it anyway.
//!
//! The figures are upper-bound estimates, within about a factor of two of what a run uses when the
//! term that dominates is the flows (measured: `tests/estimate.rs`); the per-flow and per-packet sizes
//! below were measured on the release build.

use super::{check, Config, ScenarioError};
use crate::packet::Packet;
use crate::queue::{AnyQueue, Limit, QueueDisc};
use crate::rng::Rng;
use crate::tcp::cc::CongestionControl;
use crate::time::to_secs;
use crate::units::Bytes;
use serde::Deserialize;

/// Bytes per flow slot over a run: sender, receiver, pipes, event-queue entries and the initial window's
/// packets (measured: the engine's heap peaks at 1.27 KB per flow with 10^6 flows starting over a second,
/// most of them waiting out timeouts; a process running 200,000 flows that start at once through
/// `bufferlab.run` gains 1.42 KB per flow, its row included).
pub const FLOW_BYTES: f64 = 1_500.0;
/// Bytes per row of the flow table once the run ends: the engine's row, the columns handed to Python and
/// the DataFrame built from them (measured through `bufferlab.run`, 200,000 flows: 0.23 KB of rows in the
/// engine, 0.38 KB allocated by Python; `tests/test_scenario_limits.py`).
pub const FLOW_RESULT_BYTES: f64 = 700.0;
/// Bytes every run takes whatever its size: the engine's tables and the result tables Python builds
/// (measured: about 60 KB and 80–150 KB for one flow through one port).
pub const RUN_BYTES: f64 = 256e3;
/// Bytes of the Python process a run lives in: the interpreter with numpy and pandas loaded (measured:
/// 116 MB resident after a first small run on the development machine, 155 MB in a fresh virtual
/// environment with the newest packages). In the estimate so that it is never below a process's peak
/// resident memory; the tests that hold the estimate to a run's own allocations leave it out.
pub const PROCESS_BYTES: f64 = 200e6;
/// Bytes per packet waiting in a queue or a pipe (the packet, which carries its arrival time on a link, in
/// a ring buffer that may be up to twice its length).
pub const PACKET_BYTES: f64 = 2.0 * std::mem::size_of::<Packet>() as f64;
/// Bytes per sampled value until the run's series reach Python (the engine's vector up to twice its
/// length, the bytes handed over, the copy Python keeps).
pub const SAMPLE_BYTES: f64 = 32.0;
/// Bytes per finished flow recorded one by one (`monitor.fct_records`): the engine's record and row, the
/// columns handed to Python and the DataFrame built from them (five numbers each; measured: about 200 B
/// per record in the `short-flows` and `shared-buffer` examples).
pub const RECORD_BYTES: f64 = 250.0;
/// Bytes per port of a `[leaf_spine]` (thousands of them): the engine's port with its statistics and the
/// rows Python builds for it, its `ports` row and its delay quantiles. Measured through `bufferlab.run`:
/// about 36 KB per port on 10,240 ports (4.2 KB in the engine), 75 KB on the 96 ports of the `leaf-spine`
/// example, whose tables' fixed parts weigh more per port; the larger, rounded up, so that the estimate is
/// never below. The other forms' few ports are in [`RUN_BYTES`].
pub const FABRIC_PORT_BYTES: f64 = 80e3;
/// Bytes per event record of `[trace]` kept until the run ends (about 60 B of columns in the engine's
/// chunk, in the Python tables and in the DataFrame built from them, the last two at once while it is
/// assembled).
pub const TRACE_EVENT_BYTES: f64 = 150.0;
/// Events per flow besides the packets its ports serve (start, stop, timers), and per packet of its
/// initial window (sent at once, perhaps dropped).
const FLOW_EVENTS: f64 = 20.0;
const WINDOW_EVENTS: f64 = 5.0;
/// Events per packet a port serves: its departure and the arrival at the next hop; where TCP senders feed
/// it directly, also the packet's access arrival and the ACK's return to its sender (measured: 2.4–2.9 per
/// packet at the first port of the example and validation scenarios, with a busy link).
const FIRST_PORT_EVENTS: f64 = 3.0;
const PORT_EVENTS: f64 = 2.0;

/// `[limits]`: the most a run may use, memory in bytes and events.
#[derive(Deserialize, Debug, Clone, Default)]
#[serde(deny_unknown_fields)]
pub struct LimitsTable {
    pub memory: Option<Bytes>,
    pub events: Option<f64>,
}

/// The limits a scenario runs under.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Limits {
    pub memory_bytes: f64,
    pub events: f64,
}

impl Limits {
    pub const DEFAULT_MEMORY: f64 = 8e9;
    pub const DEFAULT_EVENTS: f64 = 1e10;

    pub(crate) fn resolve(t: &LimitsTable) -> Result<Limits, ScenarioError> {
        let memory_bytes = t.memory.map_or(Self::DEFAULT_MEMORY, |b| b.0);
        let ok = memory_bytes.is_finite() && (1e6..=1e15).contains(&memory_bytes);
        check("limits.memory", ok, "in [1 MB, 1 PB]", memory_bytes)?;
        let events = t.events.unwrap_or(Self::DEFAULT_EVENTS);
        check(
            "limits.events",
            events.is_finite() && (1e3..=1e18).contains(&events),
            "in [1e3, 1e18]",
            events,
        )?;
        Ok(Limits { memory_bytes, events })
    }
}

/// One term of an estimate: the field that drives it, what it counts and how many, and its amount (bytes
/// or events).
#[derive(Clone, Debug, PartialEq)]
pub struct Part {
    pub field: String,
    pub what: String,
    pub count: f64,
    pub amount: f64,
}

/// A scenario's estimated cost.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Estimate {
    pub memory: Vec<Part>,
    pub events: Vec<Part>,
}

impl Estimate {
    pub fn memory_bytes(&self) -> f64 {
        self.memory.iter().map(|p| p.amount).sum()
    }

    pub fn events(&self) -> f64 {
        self.events.iter().map(|p| p.amount).sum()
    }

    /// The estimate of `cfg`, whose ports' disciplines are `queues`.
    pub fn of(cfg: &Config, queues: &[AnyQueue]) -> Estimate {
        let mut e = Estimate::default();
        let secs = to_secs(cfg.duration);
        e.add_memory("duration", "the run's fixed costs".to_string(), 1.0, RUN_BYTES);
        e.add_memory(
            "limits.memory",
            "the Python process (interpreter, numpy, pandas)".to_string(),
            1.0,
            PROCESS_BYTES,
        );
        if cfg.network.fabric.is_some() {
            let ports = cfg.network.links.len() as f64;
            let what = format!("{} leaf-spine ports", count(ports));
            e.add_memory("leaf_spine.hosts_per_leaf", what, ports, FABRIC_PORT_BYTES);
        }
        e.flows(cfg, secs);
        e.ports(cfg, queues, secs);
        e.udp(cfg, secs);
        if let Some(dt) = cfg.sample_interval {
            let samples = (secs / to_secs(dt)).floor() + 1.0;
            let ports = cfg.network.links.len();
            let cwnd = if cfg.sample_cwnd { cfg.fixed_flows().count() } else { 0 };
            let columns = (2 + if ports > 1 { ports } else { 0 } + cwnd) as f64;
            let what = format!(
                "{} samples x {} columns{}",
                count(samples),
                count(columns),
                if cwnd > 0 { " (cwnd of every flow)" } else { "" }
            );
            e.add_memory("monitor.sample_interval", what.clone(), samples * columns, SAMPLE_BYTES);
            e.add_events("monitor.sample_interval", what, samples);
        }
        if let Some(t) = cfg.trace.as_ref().filter(|t| t.events) {
            let n = t.max_events as f64;
            e.add_memory("trace.max_events", format!("{} event records", count(n)), n, TRACE_EVENT_BYTES);
        }
        e
    }

    /// A memory term: `count` items of `each` bytes.
    fn add_memory(&mut self, field: &str, what: String, count: f64, each: f64) {
        self.memory.push(Part { field: field.to_string(), what, count, amount: count * each });
    }

    fn add_events(&mut self, field: &str, what: String, amount: f64) {
        self.events.push(Part { field: field.to_string(), what, count: amount, amount });
    }

    /// Flow slots: fixed flows, and the flows an arrival process keeps in the system at once.
    fn flows(&mut self, cfg: &Config, secs: f64) {
        for g in &cfg.groups {
            let burst = (g.tcp.initial_window - 10.0).max(0.0) * PACKET_BYTES;
            if !g.flows.is_empty() {
                let n = g.flows.len() as f64;
                let field = format!("{}.count", g.field);
                let what = format!("{} flows", count(n));
                // Each fixed flow also has its row in the results.
                self.add_memory(&field, what.clone(), n, FLOW_BYTES + FLOW_RESULT_BYTES + burst);
                let timeouts = secs / to_secs(g.tcp.rto.max);
                let per_flow = FLOW_EVENTS + WINDOW_EVENTS * g.tcp.initial_window + timeouts;
                self.add_events(&field, what, n * per_flow);
                // Senders that are not window-limited (Poisson injection) send at up to W_max / RTT
                // whatever the link serves: three events per packet (access arrival, timer, drop).
                if g.cc.build("", Rng::new(0, 0)).is_ok_and(|c| !c.window_limited()) {
                    let pkt_bits = 8.0 * g.tcp.packet_size as f64;
                    let offered: f64 = g
                        .flows
                        .iter()
                        .map(|f| {
                            let rate =
                                (g.tcp.max_window as f64 / to_secs(f.rtt)).min(f.access_rate / pkt_bits);
                            rate * (secs - to_secs(f.start)).max(0.0)
                        })
                        .sum();
                    let what = format!("{} packets offered without a window limit", count(offered));
                    self.add_events(&format!("{}.tcp.congestion_control", g.field), what, 3.0 * offered);
                }
            }
            if let Some(i) = &g.incast {
                // Every response is a flow: its start and end, and its record.
                let responses = i.rounds as f64 * g.flows.len() as f64;
                let field = format!("{}.incast.rounds", g.field);
                self.add_events(&field, format!("{} responses", count(responses)), responses * FLOW_EVENTS);
                let records = responses.min(cfg.fct_records as f64);
                if records >= 1.0 {
                    let what = format!("{} flow records", count(records));
                    self.add_memory("monitor.fct_records", what, records, RECORD_BYTES);
                }
            }
            let Some(a) = &g.arrival else { continue };
            let field = format!("{}.arrival", g.field);
            let active = (to_secs(a.stop.min(cfg.duration)) - to_secs(a.start)).max(0.0);
            let arrivals = a.rate * active;
            let capacity = g.route().iter().map(|&p| cfg.network.links[p].rate).fold(f64::INFINITY, f64::min);
            let mean_bytes = g.size.as_ref().map_or(0.0, |s| s.mean());
            let mean_packets = (mean_bytes / g.tcp.payload as f64).max(1.0);
            let load = a.rate * mean_packets * g.tcp.packet_size as f64 * 8.0 / capacity;
            // Slow-start rounds of a mean flow at its longest RTT, and the M/G/1-PS backlog ρ/(1−ρ).
            let rounds = (mean_packets / g.tcp.initial_window).max(1.0).log2() + 2.0;
            let waiting = if load < 0.95 { load / (1.0 - load) } else { arrivals };
            let mean = a.rate * a.rtt.1 * rounds + waiting;
            let peak = (3.0 * mean + 10.0).min(arrivals + 1.0);
            let what = format!("about {} flows at once ({}/s arriving)", count(peak), count(a.rate));
            self.add_memory(&field, what, peak, FLOW_BYTES + burst);
            let per_flow = FLOW_EVENTS + WINDOW_EVENTS * g.tcp.initial_window;
            self.add_events(&field, format!("{} arrivals", count(arrivals)), arrivals * per_flow);
            let records = arrivals.min(cfg.fct_records as f64);
            if records >= 1.0 {
                let what = format!("{} flow records", count(records));
                self.add_memory("monitor.fct_records", what, records, RECORD_BYTES);
            }
        }
    }

    /// Each port: the packets its queue and link can hold, and two events per packet it serves (five
    /// where TCP senders feed it directly: their access arrivals and timers).
    fn ports(&mut self, cfg: &Config, queues: &[AnyQueue], secs: f64) {
        let crossings = cfg.network.crossings(&cfg.groups);
        let first_ports: std::collections::HashSet<usize> = cfg
            .groups
            .iter()
            .flat_map(|g| g.routes.iter().filter_map(|r| r.first()).chain(g.ack_route.first()))
            .copied()
            .collect();
        for (p, (link, queue)) in cfg.network.links.iter().zip(queues).enumerate() {
            let through = &crossings[p];
            let crossing = through.iter().map(|c| &cfg.groups[c.group]);
            let acks = cfg.groups.iter().filter(|g| g.ack_route.contains(&p)).map(|g| g.ack_size);
            let udp = cfg.udp.iter().filter(|u| u.route.contains(&p));
            let smallest = crossing
                .clone()
                .map(|g| g.tcp.packet_size)
                .chain(acks)
                .chain(udp.clone().map(|u| u.packet_size))
                .min()
                .unwrap_or(1000)
                .max(1) as f64;
            let tcp_flows: f64 = through.iter().map(|c| c.flows as f64).sum();
            let tcp_in: f64 = through.iter().map(|c| c.access_rate).sum();
            let udp_in: f64 = udp.map(|u| u.rate_bps).sum();
            // ACK-clocked senders offer at most twice what the link serves; open-loop sources their rate.
            let excess = (tcp_in.min(2.0 * link.rate) + udp_in - link.rate).max(0.0);
            let window = crossing.clone().map(|g| g.tcp.initial_window).fold(0.0, f64::max);
            let backlog = tcp_flows * window + excess * secs / (8.0 * smallest);
            let held = match queue.capacity() {
                Some(Limit::Packets(n)) => (n as f64).min(backlog),
                Some(Limit::Bytes(b)) => (b as f64 / smallest).min(backlog),
                None => backlog,
            };
            let what = format!("up to {} packets queued", count(held));
            self.add_memory(&format!("{}.limit", link.queue_field), what, held, PACKET_BYTES);
            // In flight: what the link's delay holds, or what the longest round trip of the TCP flows
            // crossing it holds (a window of data segments on the way out and their ACKs on the way back,
            // in the flows' own pipes and scoreboards), whichever is more.
            let on_link = link.rate * link.delay_s / (8.0 * smallest);
            let longest = through
                .iter()
                .filter_map(|c| c.longest_rtt.map(|rtt| (rtt, &cfg.groups[c.group])))
                .max_by_key(|x| x.0);
            let data = crossing.clone().map(|g| g.tcp.packet_size).min().unwrap_or(1).max(1) as f64;
            let windows = longest.map_or(0.0, |(rtt, _)| link.rate * to_secs(rtt) / (8.0 * data));
            if let Some((_, g)) = longest.filter(|_| windows > on_link && windows >= 1.0) {
                let what = format!("{} packets in flight over {}'s round trips", count(windows), link.name);
                self.add_memory(&format!("{}.rtt", g.field), what, windows, PACKET_BYTES);
            } else if on_link >= 1.0 {
                let what = format!("{} packets in flight on {}", count(on_link), link.name);
                self.add_memory(&link.field_delay(), what, on_link, PACKET_BYTES);
            }
            // Packets served per second: data (and datagrams) at their smallest size, and queued ACKs no
            // more than one per data packet their group's route can carry.
            let data_size = crossing
                .clone()
                .map(|g| g.tcp.packet_size)
                .chain(cfg.udp.iter().filter(|u| u.route.contains(&p)).map(|u| u.packet_size))
                .min();
            let data = data_size.map_or(0.0, |b| link.rate / (8.0 * b.max(1) as f64));
            let acks: f64 = cfg
                .groups
                .iter()
                .filter(|g| g.ack_route.contains(&p))
                .map(|g| {
                    let narrowest =
                        g.route().iter().map(|&q| cfg.network.links[q].rate).fold(f64::INFINITY, f64::min);
                    narrowest / (8.0 * g.tcp.packet_size.max(1) as f64)
                })
                .sum();
            let served = (data + acks).min(link.rate / (8.0 * smallest));
            let first = first_ports.contains(&p);
            let per_packet = if first { FIRST_PORT_EVENTS } else { PORT_EVENTS };
            let what = format!("{}: up to {} packets/s for {} s", link.name, count(served), count(secs));
            self.add_events(&link.field_rate(), what, served * secs * per_packet);
            if let Some((period, param)) = queue.timer_period() {
                let ticks = secs / to_secs(period.max(1));
                let what = format!("{}'s discipline timer: {} firings", link.name, count(ticks));
                self.add_events(&format!("{}.{param}", link.queue_field), what, ticks);
            }
        }
    }

    /// Open-loop sources: one event per datagram sent.
    fn udp(&mut self, cfg: &Config, secs: f64) {
        for (i, u) in cfg.udp.iter().enumerate() {
            let active = (to_secs(u.stop.min(cfg.duration)) - to_secs(u.start)).clamp(0.0, secs);
            let pps = u.rate_bps / (8.0 * u.packet_size as f64);
            let what = format!("{} packets/s of {} B for {} s", count(pps), u.packet_size, count(active));
            self.add_events(&format!("udp[{i}].rate"), what, pps * active);
        }
    }

    /// Refuse a scenario whose estimate exceeds `limits`, naming the field of the largest term.
    pub fn check(&self, limits: &Limits) -> Result<(), ScenarioError> {
        let memory = self.memory_bytes();
        if memory > limits.memory_bytes {
            let top = largest(&self.memory);
            return Err(ScenarioError {
                field: top.field.clone(),
                message: format!(
                    "{} need about {} of memory{} (limit {}); set limits.memory = \"{}\" to run anyway",
                    top.what,
                    bytes(top.amount),
                    others(&self.memory, top, bytes),
                    bytes(limits.memory_bytes),
                    bytes(round_up(memory)).replace(' ', "")
                ),
            });
        }
        let events = self.events();
        if events > limits.events {
            let top = largest(&self.events);
            return Err(ScenarioError {
                field: top.field.clone(),
                message: format!(
                    "{} is about {:.1e} events{} (limit {:.1e}, about {:.0} min at 20 million events/s); set \
                     limits.events = {:.1e} to run anyway",
                    top.what,
                    top.amount,
                    others(&self.events, top, |x| format!("{x:.1e}")),
                    limits.events,
                    (events / 2e7 / 60.0).ceil(),
                    round_up(events)
                ),
            });
        }
        Ok(())
    }
}

fn largest(parts: &[Part]) -> &Part {
    parts.iter().max_by(|a, b| a.amount.total_cmp(&b.amount)).expect("an estimate over a limit has parts")
}

/// The total, when other terms add to the largest.
fn others(parts: &[Part], top: &Part, show: impl Fn(f64) -> String) -> String {
    let total: f64 = parts.iter().map(|p| p.amount).sum();
    if total > 1.05 * top.amount {
        format!(" ({} in all)", show(total))
    } else {
        String::new()
    }
}

/// `x` rounded up to two significant digits.
fn round_up(x: f64) -> f64 {
    let scale = 10f64.powi(x.log10().floor() as i32 - 1);
    (x / scale).ceil() * scale
}

/// `1234567` as `1,234,567`; large or fractional values in a short form.
fn count(x: f64) -> String {
    if x >= 1e9 {
        return format!("{x:.1e}");
    }
    if x < 100.0 && x.fract() != 0.0 {
        return format!("{x:.2}");
    }
    let digits = format!("{:.0}", x);
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i) % 3 == 0 {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// Bytes in decimal units: `29 GB`, `512 MB`.
fn bytes(x: f64) -> String {
    let (scale, unit) = match x {
        x if x >= 1e12 => (1e12, "TB"),
        x if x >= 1e9 => (1e9, "GB"),
        x if x >= 1e6 => (1e6, "MB"),
        x if x >= 1e3 => (1e3, "KB"),
        _ => (1.0, "B"),
    };
    let v = x / scale;
    if v < 10.0 {
        format!("{v:.1} {unit}")
    } else {
        format!("{v:.0} {unit}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_read_well() {
        assert_eq!(count(10_000_000.0), "10,000,000");
        assert_eq!(count(999.0), "999");
        assert_eq!(count(2.5), "2.50");
        assert_eq!(bytes(2.9e10), "29 GB");
        assert_eq!(bytes(5.12e8), "512 MB");
        assert_eq!(round_up(2.91e10), 3.0e10);
        assert_eq!(round_up(6.25e10), 6.3e10);
    }
}
