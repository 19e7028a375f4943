//! The resolved scenario as JSON: every default filled in, every per-flow value drawn, SI units (seconds,
//! bits/s, bytes). This is what other tools consume (the Python package, the ns-3 translator) instead of
//! keeping their own copies of the defaults and the unit grammar.

use super::estimate::Part;
use super::{Config, GroupConfig, SizeDist};
use crate::network::shared_buffer::Admission;
use crate::time::{to_secs, Time, NEVER};
use serde_json::{json, Value};

fn secs_or_null(t: Time) -> Value {
    if t == NEVER {
        Value::Null
    } else {
        json!(to_secs(t))
    }
}

fn size_json(d: &SizeDist) -> Value {
    match d {
        SizeDist::Constant(b) => json!({"constant": b}),
        SizeDist::Exponential { mean } => json!({"exponential": mean}),
        SizeDist::Pareto { mean, shape } => json!({"pareto": mean, "shape": shape}),
        SizeDist::Empirical(points) => json!({"cdf": points}),
    }
}

fn group_json(g: &GroupConfig, link_names: &[String], per_flow: bool) -> Value {
    let t = &g.tcp;
    let names = |r: &[usize]| r.iter().map(|&p| link_names[p].clone()).collect::<Vec<_>>();
    let mut out = json!({
        "name": g.name,
        "route": if g.per_flow_routes { Vec::new() } else { names(g.route()) },
        "ack_route": names(&g.ack_route),
        "congestion_control": g.cc.to_json(),
        "tcp": {
            "packet_size": t.packet_size,
            "header_size": t.packet_size - t.payload,
            "payload": t.payload,
            "ack_size": g.ack_size,
            "initial_window": t.initial_window,
            "max_window": if t.max_window == u32::MAX { Value::Null } else { json!(t.max_window) },
            "min_rto": to_secs(t.rto.min),
            "initial_rto": to_secs(t.rto.initial),
            "max_rto": to_secs(t.rto.max),
            "clock_granularity": to_secs(t.rto.granularity),
            "delayed_ack": t.delayed_ack,
            "delayed_ack_timeout": to_secs(t.delayed_ack_timeout),
            "sack": t.sack,
            "ecn": t.ecn,
            "ecn_response": t.ecn_response,
            "ecn_states": t.ecn_states,
            "ca_increase": t.ca_increase,
            "dupack_threshold": t.dupack_threshold,
            "limited_transmit": t.limited_transmit,
            "ssthresh_from": t.ssthresh_from,
            "rto_backoff": t.backoff_end,
            "full_ack": t.full_ack,
            "overhead": to_secs(t.overhead),
            "handshake": t.handshake,
            "recovery_timer": t.recovery_timer,
            "partial_ack": t.partial_ack,
            "recovery_exit": t.recovery_exit,
            "recovery": t.recovery,
            "pacing": t.pacing.name(),
        },
        "size": g.size.as_ref().map(size_json),
        "incast": g.incast.as_ref().map(|i| json!({
            "rounds": i.rounds,
            "connections": i.connections,
            "gap": to_secs(i.gap),
            "start": to_secs(i.start),
        })),
        "arrival": g.arrival.as_ref().map(|a| json!({
            "rate": a.rate,
            "start": to_secs(a.start),
            "stop": secs_or_null(a.stop),
            "rtt": [a.rtt.0, a.rtt.1],
            "access_rate": [a.access_rate.0, a.access_rate.1],
        })),
    });
    if per_flow {
        let flows = g
            .flows
            .iter()
            .map(|f| {
                let mut flow = json!({
                    "rtt": to_secs(f.rtt),
                    "access_rate": f.access_rate,
                    "access_delay": to_secs(f.access_delay),
                    "start": to_secs(f.start),
                    "stop": secs_or_null(f.stop),
                    "size": f.size,
                });
                if let Some(e) = f.endpoints {
                    flow["src"] = json!(e.src);
                    flow["dst"] = json!(e.dst);
                    flow["spine"] = json!(e.spine);
                    flow["route"] = json!(names(g.route_of(f)));
                }
                flow
            })
            .collect::<Vec<_>>();
        out["flows"] = Value::Array(flows);
    } else {
        out["flow_count"] = json!(g.flows.len());
    }
    out
}

impl Config {
    /// The resolved scenario (see the module doc).
    pub fn to_json(&self) -> Value {
        self.export(true)
    }

    /// The resolved scenario without every flow's draws: each group gives its `flow_count` instead of its
    /// `flows` (for checking a scenario or reading its estimate without a value per flow).
    pub fn to_json_without_flows(&self) -> Value {
        self.export(false)
    }

    fn export(&self, per_flow: bool) -> Value {
        let names: Vec<String> = self.network.links.iter().map(|l| l.name.clone()).collect();
        let mut out = json!({
            "name": self.name,
            "seed": self.seed,
            "duration": to_secs(self.duration),
            "warmup": to_secs(self.warmup),
            "links": self.network.links.iter().map(|l| json!({
                "name": l.name,
                "rate": l.rate,
                "delay": l.delay_s,
                "queue": l.queue.to_json(),
            })).collect::<Vec<_>>(),
            "groups": self.groups.iter().map(|g| group_json(g, &names, per_flow)).collect::<Vec<_>>(),
            "udp": self.udp.iter().map(|u| json!({
                "pattern": u.pattern,
                "rate": u.rate_bps,
                "packet_size": u.packet_size,
                "start": to_secs(u.start),
                "stop": secs_or_null(u.stop),
                "route": u.route.iter().map(|&p| names[p].clone()).collect::<Vec<_>>(),
            })).collect::<Vec<_>>(),
            "monitor": {
                "sample_interval": self.sample_interval.map(to_secs),
                "cwnd": self.sample_cwnd,
                "fct_buckets": self.fct_buckets,
                "fct_records": self.fct_records,
            },
            "limits": {"memory": self.limits.memory_bytes, "events": self.limits.events},
            "estimate": {
                "memory_bytes": self.estimate.memory_bytes(),
                "events": self.estimate.events(),
                "memory_terms": terms(&self.estimate.memory),
                "events_terms": terms(&self.estimate.events),
            },
        });
        if let Some(t) = &self.trace {
            out["trace"] = trace_json(t, &names);
        }
        if !self.shared_buffers.is_empty() {
            out["shared_buffers"] = self
                .shared_buffers
                .iter()
                .map(|b| {
                    let mut table = json!({
                        "name": b.name,
                        "ports": b.ports.iter().map(|&p| names[p].clone()).collect::<Vec<_>>(),
                        "size": b.size,
                    });
                    match &b.admission {
                        Admission::Dynamic { alpha } => {
                            table["admission"] = json!("dynamic");
                            table["alpha"] = json!(alpha);
                        }
                        Admission::Static { port_limit } => {
                            table["admission"] = json!("static");
                            table["port_limit"] = json!(port_limit);
                        }
                    }
                    table
                })
                .collect();
        }
        out
    }
}

/// An estimate's terms: the field that drives each, what it counts and how many, its amount (bytes or
/// events).
fn terms(parts: &[Part]) -> Value {
    parts
        .iter()
        .map(|p| json!({"field": p.field, "what": p.what, "count": p.count, "amount": p.amount}))
        .collect()
}

/// `[trace]` resolved: filters as ranges and link names, times in seconds.
fn trace_json(t: &crate::trace::TraceConfig, names: &[String]) -> Value {
    let kinds: Vec<&str> = crate::trace::KIND_NAMES
        .iter()
        .enumerate()
        .filter(|(k, _)| t.kinds & (1 << k) != 0)
        .map(|(_, n)| *n)
        .collect();
    json!({
        "events": t.events,
        "kinds": kinds,
        "flows": t.flows.as_ref().map(|r| r.iter().map(|&(a, b)| json!([a, b])).collect::<Vec<_>>()),
        "ports": names.iter().enumerate().filter(|(p, _)| t.ports[*p]).map(|(_, n)| n.clone()).collect::<Vec<_>>(),
        "start": to_secs(t.start),
        "stop": to_secs(t.stop),
        "max_events": t.max_events,
        "pcap": t.pcap.as_ref().map(|p| json!({
            "file": p.path,
            "port": names[p.port].clone(),
            "snaplen": p.snaplen,
            "max_packets": p.max_packets,
            "max_bytes": p.max_bytes,
            "side": if p.ingress { "ingress" } else { "egress" },
        })),
    })
}
