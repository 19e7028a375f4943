//! The network forms of a scenario, resolved to one list of links (each a port: queue + link).
//!
//! - `[bottleneck]`: the dumbbell; one link named `bottleneck`, every group's default route.
//! - `[parking_lot]`: `hops` links `hop1`..`hopK` in a chain (rate, delay and queue per hop: one value for all
//!   or a list), groups crossing all hops by default, and with `cross = { ... }` one cross-traffic group per
//!   hop (`cross1`..`crossK`, route `[hopI]`).
//! - `[[links]]`: named links with rate, delay and queue; each group names its `route` (optional when there
//!   is one link).
//! - `[leaf_spine]`: a two-tier Clos fabric expanded into ports (see [`Fabric`]); each flow of a group
//!   takes its own route between two hosts, over a spine chosen by a seeded per-flow hash (ECMP).

use super::{
    check, err, finite_range, from_value, zero_seconds, GroupConfig, PerFlow, Scenario, ScenarioError,
    UdpConfig,
};
pub use crate::network::shared_buffer::{Admission, SharedBufferConfig};
use crate::queue::{AnyQueue, QueueContext, QueueSpec};
use crate::rng::{mix64, stream, Rng};
use crate::time::{from_secs, Time};
use crate::units::{Rate, Seconds};
use serde::Deserialize;

/// One link and the queue in front of it, resolved.
#[derive(Clone, Debug)]
pub struct LinkConfig {
    pub name: String,
    /// Bits per second.
    pub rate: f64,
    /// One-way propagation delay, and the same in seconds as written.
    pub delay: Time,
    pub delay_s: f64,
    pub queue: QueueSpec,
    /// The scenario field the link came from (`bottleneck`, `parking_lot`, `links[2]`), for errors.
    pub field: String,
    /// The scenario field of its queue table.
    pub queue_field: String,
    /// The names of its rate and delay within `field` (`rate`, `delay`; a leaf-spine's `host_rate`, ...).
    pub fields: (&'static str, &'static str),
}

impl LinkConfig {
    pub fn field_rate(&self) -> String {
        format!("{}.{}", self.field, self.fields.0)
    }

    pub fn field_delay(&self) -> String {
        format!("{}.{}", self.field, self.fields.1)
    }
}

/// The links of a scenario; a route is a list of indices into `links`.
#[derive(Clone, Debug)]
pub struct Network {
    pub links: Vec<LinkConfig>,
    /// A `[leaf_spine]`'s shape (`None` for the other forms).
    pub fabric: Option<Fabric>,
}

/// Which form the network was written in, and what it implies for groups.
pub enum Form {
    Dumbbell,
    ParkingLot { cross: Option<serde_json::Value> },
    Links,
    LeafSpine,
}

/// A `[leaf_spine]` fabric: `leaves` leaf switches with `hosts_per_leaf` hosts each, every leaf linked to
/// every one of `spines` spine switches. Hosts are numbered from 0 across leaves (host `i` is on leaf
/// `i / hosts_per_leaf`), leaves and spines from 0. Its ports, in this order: `h{i}-up` (host `i` to its
/// leaf) for every host, `leaf{l}-h{i}` (leaf to host `i`) for every host, `leaf{l}-spine{s}` (leaf-major),
/// `spine{s}-leaf{l}` (spine-major).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Fabric {
    pub leaves: u32,
    pub spines: u32,
    pub hosts_per_leaf: u32,
}

/// The salt of the ECMP hash (so that its values differ from the other uses of [`mix64`]).
pub const ECMP_SALT: u64 = 0xEC3F_0A11_5EED_5A17;

impl Fabric {
    pub fn hosts(&self) -> u32 {
        self.leaves * self.hosts_per_leaf
    }

    pub fn leaf_of(&self, host: u32) -> u32 {
        host / self.hosts_per_leaf
    }

    /// Port `h{host}-up`.
    pub fn up(&self, host: u32) -> usize {
        host as usize
    }

    /// Port `leaf{l}-h{host}`.
    pub fn down(&self, host: u32) -> usize {
        (self.hosts() + host) as usize
    }

    /// Port `leaf{leaf}-spine{spine}`.
    pub fn to_spine(&self, leaf: u32, spine: u32) -> usize {
        (2 * self.hosts() + leaf * self.spines + spine) as usize
    }

    /// Port `spine{spine}-leaf{leaf}`.
    pub fn to_leaf(&self, spine: u32, leaf: u32) -> usize {
        (2 * self.hosts() + self.leaves * self.spines + spine * self.leaves + leaf) as usize
    }

    /// The ports from host `src` to host `dst` (distinct): two within a leaf, four over `spine` otherwise.
    pub fn route(&self, src: u32, dst: u32, spine: u32) -> Vec<usize> {
        let (ls, ld) = (self.leaf_of(src), self.leaf_of(dst));
        if ls == ld {
            vec![self.up(src), self.down(dst)]
        } else {
            vec![self.up(src), self.to_spine(ls, spine), self.to_leaf(spine, ld), self.down(dst)]
        }
    }

    /// ECMP: the spine of flow `flow` of group `group` from `src` to `dst`, a hash of the five values
    /// standing for a switch's hash of the 5-tuple with a seeded salt: `h = mix64(seed ^ ECMP_SALT)`, then
    /// `h = mix64(h ^ x)` for `x` = group, flow, src, dst in turn; the spine is `h mod spines`.
    pub fn ecmp(&self, seed: u64, group: usize, flow: u64, src: u32, dst: u32) -> u32 {
        let mut h = mix64(seed ^ ECMP_SALT);
        for x in [group as u64, flow, u64::from(src), u64::from(dst)] {
            h = mix64(h ^ x);
        }
        (h % u64::from(self.spines)) as u32
    }
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct LeafSpineTable {
    leaves: u64,
    spines: u64,
    hosts_per_leaf: u64,
    host_rate: Rate,
    fabric_rate: Option<Rate>,
    oversubscription: Option<f64>,
    #[serde(default = "one_microsecond")]
    host_delay: Seconds,
    #[serde(default = "one_microsecond")]
    fabric_delay: Seconds,
    queue: serde_json::Value,
    fabric_queue: Option<serde_json::Value>,
}

fn one_microsecond() -> Seconds {
    Seconds(1e-6)
}

/// The links of a `[leaf_spine]` table (see [`Fabric`] for their names and order).
fn leaf_spine(value: &serde_json::Value) -> Result<(Vec<LinkConfig>, Fabric), ScenarioError> {
    let t: LeafSpineTable = from_value(value.clone(), "leaf_spine")?;
    check("leaf_spine.leaves", (1..=256).contains(&t.leaves), "in [1, 256]", t.leaves)?;
    check("leaf_spine.spines", (1..=64).contains(&t.spines), "in [1, 64]", t.spines)?;
    check(
        "leaf_spine.hosts_per_leaf",
        (1..=1024).contains(&t.hosts_per_leaf),
        "in [1, 1024]",
        t.hosts_per_leaf,
    )?;
    let fabric =
        Fabric { leaves: t.leaves as u32, spines: t.spines as u32, hosts_per_leaf: t.hosts_per_leaf as u32 };
    finite_range("leaf_spine.host_rate", t.host_rate.0, 1e3, 1e13, "in [1 kbps, 10 Tbps]")?;
    let fabric_rate = match (t.fabric_rate, t.oversubscription) {
        (Some(_), Some(_)) => {
            return err(
                "leaf_spine.oversubscription",
                "give either leaf_spine.fabric_rate or leaf_spine.oversubscription, not both",
            )
        }
        (None, None) => {
            return err(
                "leaf_spine.fabric_rate",
                "required: leaf_spine.fabric_rate, or leaf_spine.oversubscription (fabric_rate = \
                 hosts_per_leaf x host_rate / (spines x oversubscription))",
            )
        }
        (Some(r), None) => r.0,
        (None, Some(o)) => {
            finite_range("leaf_spine.oversubscription", o, 1.0 / 64.0, 1024.0, "in [1/64, 1024]")?;
            t.hosts_per_leaf as f64 * t.host_rate.0 / (t.spines as f64 * o)
        }
    };
    let fabric_rule = if t.oversubscription.is_some() {
        "in [1 kbps, 10 Tbps] (from leaf_spine.oversubscription)"
    } else {
        "in [1 kbps, 10 Tbps]"
    };
    let rate_field =
        if t.oversubscription.is_some() { "leaf_spine.oversubscription" } else { "leaf_spine.fabric_rate" };
    finite_range(rate_field, fabric_rate, 1e3, 1e13, fabric_rule)?;
    finite_range("leaf_spine.host_delay", t.host_delay.0, 0.0, 100.0, "in [0, 100 s]")?;
    finite_range("leaf_spine.fabric_delay", t.fabric_delay.0, 0.0, 100.0, "in [0, 100 s]")?;
    let queue = QueueSpec::parse(&t.queue, "leaf_spine.queue")?;
    let fabric_queue = match &t.fabric_queue {
        Some(q) => (QueueSpec::parse(q, "leaf_spine.fabric_queue")?, "leaf_spine.fabric_queue"),
        None => (queue.clone(), "leaf_spine.queue"),
    };
    let port = |name: String, host: bool| {
        let (rate, delay) =
            if host { (t.host_rate.0, t.host_delay.0) } else { (fabric_rate, t.fabric_delay.0) };
        let (q, qfield) = if host { (&queue, "leaf_spine.queue") } else { (&fabric_queue.0, fabric_queue.1) };
        LinkConfig {
            name,
            rate,
            delay: from_secs(delay),
            delay_s: delay,
            queue: q.clone(),
            field: "leaf_spine".to_string(),
            queue_field: qfield.to_string(),
            fields: if host { ("host_rate", "host_delay") } else { ("fabric_rate", "fabric_delay") },
        }
    };
    let (hosts, leaves, spines) = (fabric.hosts(), fabric.leaves, fabric.spines);
    let mut links = Vec::with_capacity((2 * hosts + 2 * leaves * spines) as usize);
    links.extend((0..hosts).map(|i| port(format!("h{i}-up"), true)));
    links.extend((0..hosts).map(|i| port(format!("leaf{}-h{i}", fabric.leaf_of(i)), true)));
    for l in 0..leaves {
        links.extend((0..spines).map(|s| port(format!("leaf{l}-spine{s}"), false)));
    }
    for s in 0..spines {
        links.extend((0..leaves).map(|l| port(format!("spine{s}-leaf{l}"), false)));
    }
    Ok((links, fabric))
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Bottleneck {
    rate: Rate,
    #[serde(default = "zero_seconds")]
    delay: Seconds,
    queue: serde_json::Value,
}

/// One value for every hop, or a list with one per hop (read as a [`PerFlow`] form, without `uniform`).
#[derive(Deserialize)]
#[serde(try_from = "PerFlow<T>")]
enum PerHop<T> {
    One(T),
    List(Vec<T>),
}

impl<T> TryFrom<PerFlow<T>> for PerHop<T> {
    type Error = &'static str;
    fn try_from(v: PerFlow<T>) -> Result<Self, Self::Error> {
        match v {
            PerFlow::One(x) => Ok(PerHop::One(x)),
            PerFlow::List(xs) => Ok(PerHop::List(xs)),
            PerFlow::Uniform(_) => Err("expected one value, or a list with one value per hop"),
        }
    }
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct ParkingLot {
    hops: u64,
    rate: PerHop<Rate>,
    #[serde(default = "zero_per_hop")]
    delay: PerHop<Seconds>,
    queue: serde_json::Value,
    cross: Option<serde_json::Value>,
}

fn zero_per_hop() -> PerHop<Seconds> {
    PerHop::One(Seconds(0.0))
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Link {
    name: String,
    rate: Rate,
    #[serde(default = "zero_seconds")]
    delay: Seconds,
    queue: serde_json::Value,
}

fn link(
    field: &str,
    name: String,
    rate: f64,
    delay: f64,
    queue: &serde_json::Value,
    qfield: &str,
) -> Result<LinkConfig, ScenarioError> {
    finite_range(&format!("{field}.rate"), rate, 1e3, 1e13, "in [1 kbps, 10 Tbps]")?;
    finite_range(&format!("{field}.delay"), delay, 0.0, 100.0, "in [0, 100 s]")?;
    Ok(LinkConfig {
        name,
        rate,
        delay: from_secs(delay),
        delay_s: delay,
        queue: QueueSpec::parse(queue, qfield)?,
        field: field.to_string(),
        queue_field: qfield.to_string(),
        fields: ("rate", "delay"),
    })
}

fn per_hop<T: Copy>(v: &PerHop<T>, hops: usize, field: &str) -> Result<Vec<T>, ScenarioError> {
    match v {
        PerHop::One(x) => Ok(vec![*x; hops]),
        PerHop::List(xs) => {
            check(
                field,
                xs.len() == hops,
                "one value, or a list with one value per hop (parking_lot.hops)",
                format!("{} values", xs.len()),
            )?;
            Ok(xs.clone())
        }
    }
}

impl Network {
    pub(crate) fn from_scenario(s: &Scenario) -> Result<(Network, Form), ScenarioError> {
        let given: Vec<&str> = [
            (s.bottleneck.is_some(), "bottleneck"),
            (s.parking_lot.is_some(), "parking_lot"),
            (s.links.is_some(), "links"),
            (s.leaf_spine.is_some(), "leaf_spine"),
        ]
        .into_iter()
        .filter_map(|(g, name)| g.then_some(name))
        .collect();
        match given.as_slice() {
            [] => return err(
                "bottleneck",
                "required: exactly one network, a [bottleneck] table, a [parking_lot] table, [[links]] or a \
                     [leaf_spine] table",
            ),
            [_] => {}
            [first, second, ..] => {
                return err(
                    second,
                    format!("a scenario has exactly one network: give [{first}] or [{second}], not both"),
                )
            }
        }
        if let Some(b) = &s.bottleneck {
            let b: Bottleneck = from_value(b.clone(), "bottleneck")?;
            let l =
                link("bottleneck", "bottleneck".into(), b.rate.0, b.delay.0, &b.queue, "bottleneck.queue")?;
            return Ok((Network { links: vec![l], fabric: None }, Form::Dumbbell));
        }
        if let Some(p) = &s.parking_lot {
            let p: ParkingLot = from_value(p.clone(), "parking_lot")?;
            check("parking_lot.hops", (1..=64).contains(&p.hops), "in [1, 64]", p.hops)?;
            let hops = p.hops as usize;
            let rates = per_hop(&p.rate, hops, "parking_lot.rate")?;
            let delays = per_hop(&p.delay, hops, "parking_lot.delay")?;
            // One queue table for every hop, or a list with one per hop.
            let queues: Vec<(&serde_json::Value, String)> = match &p.queue {
                serde_json::Value::Array(list) => {
                    check(
                        "parking_lot.queue",
                        list.len() == hops,
                        "one table, or a list with one table per hop (parking_lot.hops)",
                        format!("{} tables", list.len()),
                    )?;
                    list.iter().enumerate().map(|(h, q)| (q, format!("parking_lot.queue[{h}]"))).collect()
                }
                one => vec![(one, "parking_lot.queue".to_string()); hops],
            };
            let links = (0..hops)
                .map(|h| {
                    let (queue, qfield) = &queues[h];
                    link("parking_lot", format!("hop{}", h + 1), rates[h].0, delays[h].0, queue, qfield)
                })
                .collect::<Result<Vec<_>, _>>()?;
            return Ok((Network { links, fabric: None }, Form::ParkingLot { cross: p.cross }));
        }
        if let Some(v) = &s.leaf_spine {
            let (links, fabric) = leaf_spine(v)?;
            return Ok((Network { links, fabric: Some(fabric) }, Form::LeafSpine));
        }
        let list: Vec<Link> = from_value(s.links.clone().unwrap_or_default(), "links")?;
        check(
            "links",
            (1..=10_000).contains(&list.len()),
            "a list of 1 to 10,000 [[links]] tables",
            list.len(),
        )?;
        let mut links = Vec::with_capacity(list.len());
        for (i, l) in list.into_iter().enumerate() {
            let field = format!("links[{i}]");
            check(&format!("{field}.name"), !l.name.is_empty(), "a non-empty name", "\"\"")?;
            if links.iter().any(|k: &LinkConfig| k.name == l.name) {
                return err(&format!("{field}.name"), format!("duplicate link name {:?}", l.name));
            }
            let qfield = format!("{field}.queue");
            links.push(link(&field, l.name, l.rate.0, l.delay.0, &l.queue, &qfield)?);
        }
        Ok((Network { links, fabric: None }, Form::Links))
    }

    /// Port indices of a route given by link names.
    pub fn route(&self, names: &[String], field: &str) -> Result<Vec<usize>, ScenarioError> {
        check(field, (1..=255).contains(&names.len()), "a list of 1 to 255 link names", names.len())?;
        let mut out = Vec::with_capacity(names.len());
        for (i, n) in names.iter().enumerate() {
            match self.links.iter().position(|l| &l.name == n) {
                Some(p) if out.contains(&p) => {
                    return err(&format!("{field}[{i}]"), format!("link {n:?} appears twice in the route"))
                }
                Some(p) => out.push(p),
                None => {
                    let known: Vec<&str> = self.links.iter().map(|l| l.name.as_str()).collect();
                    return err(
                        &format!("{field}[{i}]"),
                        format!("no link named {n:?} (links: {})", known.join(", ")),
                    );
                }
            }
        }
        Ok(out)
    }

    /// What port `p`'s discipline is built from, given what crosses it ([`Network::crossings`]).
    pub fn queue_context<'a>(
        &'a self,
        p: usize,
        crossing: &[Crossing],
        groups: &[GroupConfig],
        udp: &[UdpConfig],
        seed: u64,
    ) -> QueueContext<'a> {
        let packet_size =
            crossing.iter().map(|c| groups[c.group].tcp.packet_size).max().unwrap_or_else(|| {
                udp.iter().filter(|u| u.route.contains(&p)).map(|u| u.packet_size).max().unwrap_or(1000)
            });
        QueueContext {
            field: &self.links[p].queue_field,
            link_rate_bps: self.links[p].rate,
            packet_size,
            flows: crossing.iter().map(|c| c.flows).sum(),
            ecn_senders: crossing.iter().any(|c| groups[c.group].tcp.ecn),
            rng: Rng::new(seed, port_stream(p)),
        }
    }

    /// Check and build every port's discipline.
    pub(crate) fn build_queues(
        &mut self,
        groups: &[GroupConfig],
        udp: &[UdpConfig],
        seed: u64,
    ) -> Result<Vec<AnyQueue>, ScenarioError> {
        let crossings = self.crossings(groups);
        (0..self.links.len())
            .map(|p| self.links[p].queue.build(self.queue_context(p, &crossings[p], groups, udp, seed)))
            .collect()
    }

    /// Each port's groups whose data crosses it, in group order, with their flows through it (a group
    /// whose flows share one route crosses each port of it with all its flows, none for an arrival group).
    pub fn crossings(&self, groups: &[GroupConfig]) -> Vec<Vec<Crossing>> {
        let mut out: Vec<Vec<Crossing>> = vec![Vec::new(); self.links.len()];
        for (g, grp) in groups.iter().enumerate() {
            if !grp.per_flow_routes {
                let c = Crossing {
                    group: g,
                    flows: grp.flows.len() as u32,
                    access_rate: grp.flows.iter().map(|f| f.access_rate).sum(),
                    longest_rtt: grp.flows.iter().map(|f| f.rtt).max(),
                };
                for &p in grp.route() {
                    out[p].push(c.clone());
                }
                continue;
            }
            let mut per_route =
                vec![Crossing { group: g, flows: 0, access_rate: 0.0, longest_rtt: None }; grp.routes.len()];
            for f in &grp.flows {
                let c = &mut per_route[f.route as usize];
                c.flows += 1;
                c.access_rate += f.access_rate;
                c.longest_rtt = c.longest_rtt.max(Some(f.rtt));
            }
            for (r, c) in grp.routes.iter().zip(per_route) {
                for &p in r {
                    match out[p].last_mut() {
                        Some(last) if last.group == g => {
                            last.flows += c.flows;
                            last.access_rate += c.access_rate;
                            last.longest_rtt = last.longest_rtt.max(c.longest_rtt);
                        }
                        _ => out[p].push(c.clone()),
                    }
                }
            }
        }
        out
    }
}

/// A group's data through a port (see [`Network::crossings`]).
#[derive(Clone, Debug)]
pub struct Crossing {
    pub group: usize,
    /// Its fixed flows through the port, the sum of their access rates and the longest of their RTTs.
    pub flows: u32,
    pub access_rate: f64,
    pub longest_rtt: Option<Time>,
}

/// The random stream of port `p`'s discipline (port 0 keeps the single-bottleneck stream).
pub fn port_stream(p: usize) -> u64 {
    stream::QUEUE + ((p as u64) << 20)
}

/// `[[shared_buffers]]`: a switch's egress ports drawing from one pool of bytes.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct SharedBufferTable {
    name: String,
    ports: Vec<String>,
    size: crate::units::Bytes,
    #[serde(default)]
    admission: AdmissionName,
    /// Dynamic Threshold's α: one value for every port or one per port.
    alpha: Option<PerFlow<f64>>,
    port_limit: Option<crate::units::Bytes>,
}

#[derive(Deserialize, Default, Clone, Copy, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
enum AdmissionName {
    #[default]
    Dynamic,
    Static,
}

/// The shared buffers of a scenario, checked against its links (each port in at most one).
pub(crate) fn resolve_shared_buffers(
    value: Option<&serde_json::Value>,
    net: &Network,
) -> Result<Vec<SharedBufferConfig>, ScenarioError> {
    let Some(value) = value else { return Ok(Vec::new()) };
    let tables: Vec<serde_json::Value> = match value {
        serde_json::Value::Array(items) => items.clone(),
        _ => return err("shared_buffers", "expected a list of tables ([[shared_buffers]])"),
    };
    let mut out: Vec<SharedBufferConfig> = Vec::with_capacity(tables.len());
    for (i, t) in tables.into_iter().enumerate() {
        let f = format!("shared_buffers[{i}]");
        let field = |n: &str| format!("{f}.{n}");
        let t: SharedBufferTable = from_value(t, &f)?;
        check(
            &field("name"),
            !t.name.is_empty() && t.name.len() <= 100,
            "1 to 100 characters",
            t.name.len(),
        )?;
        if out.iter().any(|b| b.name == t.name) {
            return err(&field("name"), format!("two shared buffers are named {:?}", t.name));
        }
        let ports = net.route(&t.ports, &field("ports"))?;
        for (k, &p) in ports.iter().enumerate() {
            if let Some(other) = out.iter().find(|b| b.ports.contains(&p)) {
                return err(
                    &format!("{f}.ports[{k}]"),
                    format!("link {:?} is already in shared buffer {:?}", net.links[p].name, other.name),
                );
            }
        }
        finite_range(&field("size"), t.size.0, 64.0, 1e15, "in [64 B, 1 PB]")?;
        let size = t.size.0.round() as u64;
        let admission = match t.admission {
            AdmissionName::Dynamic => {
                if t.port_limit.is_some() {
                    return err(&field("port_limit"), "only with admission = \"static\"");
                }
                let alpha = t.alpha.unwrap_or(PerFlow::One(1.0));
                let valid = |f: &str, v: f64| finite_range(f, v, 1.0 / 64.0, 64.0, "in [1/64, 64]");
                let mut no_draws = Rng::new(0, 0);
                let alpha = match alpha {
                    PerFlow::Uniform(_) => {
                        return err(&field("alpha"), "one value for every port, or a list with one per port")
                    }
                    PerFlow::List(values) if values.len() != ports.len() => {
                        let rule = format!("a list with one value per port ({})", ports.len());
                        return err(&field("alpha"), format!("must be {rule} (got {} values)", values.len()));
                    }
                    a => a.expand(&field("alpha"), ports.len(), &mut no_draws, valid)?,
                };
                Admission::Dynamic { alpha }
            }
            AdmissionName::Static => {
                if t.alpha.is_some() {
                    return err(&field("alpha"), "only with admission = \"dynamic\"");
                }
                let Some(limit) = t.port_limit else {
                    return err(&field("port_limit"), "required with admission = \"static\": bytes per port");
                };
                finite_range(&field("port_limit"), limit.0, 64.0, t.size.0, "in [64 B, size]")?;
                Admission::Static { port_limit: limit.0.round() as u64 }
            }
        };
        out.push(SharedBufferConfig { name: t.name, ports, size, admission });
    }
    Ok(out)
}
