//! Property tests of the scenario parser and resolver, and of whole runs (`docs/robustness.md`):
//!
//! - valid scenarios of every network form, mutated 1 to 4 times (a value replaced by a wrong type, an
//!   edge or non-finite value, a unit string, a table or list; a key deleted; an unknown key added)
//!   resolve, or fail with a `ScenarioError` naming a field that is in the input (or whose table is:
//!   a required field that is missing), never a panic;
//! - small valid scenarios run with packets conserved at every step, every port's utilization in
//!   [0, 1], rates and loss within range, no NaN or infinity anywhere in the results, and no more events
//!   than the scenario's estimate.
//!
//! A few dozen cases each in CI; `PROPTEST_CASES=20000 cargo test --release --test fuzz` for a long run.

mod common;

use bufferlab_engine::results::non_finite_fields;
use bufferlab_engine::{config_from_json, time, Simulation};
use common::assert_conserved;
use proptest::prelude::*;
use serde_json::{json, Value};

/// Valid scenarios: every network form, flow groups, arrivals, UDP, several disciplines and controllers.
const BASES: &[&str] = &[
    r#"{"name": "dumbbell", "seed": 3, "duration": "2s", "warmup": "0.5s",
        "bottleneck": {"rate": "10Mbps", "delay": "10ms", "queue": {"discipline": "droptail", "limit": 50}},
        "flows": {"count": 5, "rtt": {"uniform": ["40ms", "80ms"]}, "access_rate": "1Gbps", "start": ["0s", "0.1s", "0.2s", "0.3s", "0.4s"]},
        "tcp": {"packet_size": "1000B", "delayed_ack": true, "congestion_control": "cubic"},
        "monitor": {"sample_interval": "10ms", "cwnd": true}}"#,
    r#"{"duration": "1s", "bottleneck": {"rate": "5Mbps", "delay": "5ms",
        "queue": {"discipline": "red", "limit": 60, "min_th": 5, "max_th": 20, "max_p": 0.1, "ecn": true}},
        "flows": [{"name": "reno", "count": 3, "rtt": "50ms", "tcp": {"ecn": true}},
                  {"name": "gentle", "count": 2, "rtt": "60ms", "stop": "0.8s",
                   "tcp": {"ecn": true, "congestion_control": {"kind": "aimd", "increase": 0.9, "decrease": 0.675}}}]}"#,
    r#"{"seed": 2, "duration": "1s", "warmup": "0.2s",
        "parking_lot": {"hops": 2, "rate": ["10Mbps", "8Mbps"], "delay": "2ms",
                        "queue": [{"discipline": "codel", "limit": 100}, {"discipline": "pie", "target": "15ms"}],
                        "cross": {"count": 2, "rtt": "30ms"}},
        "flows": {"count": 3, "rtt": "60ms"}}"#,
    r#"{"duration": "1s",
        "links": [{"name": "east", "rate": "5Mbps", "delay": "10ms", "queue": {"discipline": "droptail", "limit": 25}},
                  {"name": "west", "rate": "5Mbps", "delay": "10ms", "queue": {"discipline": "blue", "limit": 40}}],
        "flows": [{"name": "e", "count": 2, "rtt": "80ms", "route": ["east"], "ack_route": ["west"]},
                  {"name": "w", "count": 2, "rtt": "80ms", "route": ["west"]}],
        "udp": [{"pattern": "poisson", "rate": "1Mbps", "packet_size": "500B", "route": ["east"], "stop": "0.5s"}]}"#,
    r#"{"duration": "2s", "warmup": "1s",
        "bottleneck": {"rate": "20Mbps", "delay": "5ms", "queue": {"discipline": "odt", "interval": "100ms"}},
        "flows": [{"count": 2, "rtt": "40ms"},
                  {"name": "web", "rtt": {"uniform": ["20ms", "100ms"]}, "size": {"pareto": "40KB", "shape": 1.3},
                   "arrival": {"load": 0.3}}],
        "monitor": {"fct_buckets": ["10KB", "100KB"], "fct_records": 100}}"#,
    r#"{"duration": "1s", "bottleneck": {"rate": "10Mbps", "queue": {"discipline": "eun-wang", "flows": "live"}},
        "flows": {"count": 4, "rtt": "20ms", "size": {"exponential": "20KB"}, "tcp": {"ecn": true, "pacing": "linux"}},
        "udp": [{"pattern": "cbr", "rate": "2Mbps"}], "limits": {"memory": "1GB", "events": 1e8}}"#,
    r#"{"duration": "1s", "bottleneck": {"rate": "10Mbps", "delay": "5ms", "queue": {"discipline": "droptail", "limit": 30}},
        "flows": {"count": 4, "rtt": "40ms"},
        "trace": {"events": true, "kinds": ["drop", "timeout", "state"], "flows": [0, "1-2"], "ports": ["bottleneck"],
                  "start": "0.1s", "stop": "0.9s", "max_events": 1000, "pcap": "fuzz-never-written.pcap",
                  "port": "bottleneck", "side": "ingress", "snaplen": 96, "max_packets": 100, "max_bytes": "1MB"},
        "limits": {"memory": "2GB", "events": "1e9"}}"#,
    r#"{"duration": "1s",
        "links": [{"name": "a", "rate": "10Mbps", "delay": "2ms", "queue": {"discipline": "droptail", "limit": 20}},
                  {"name": "b", "rate": "8Mbps", "delay": "3ms", "queue": {"discipline": "red", "limit": 40}},
                  {"name": "c", "rate": "6Mbps", "delay": "4ms", "queue": {"discipline": "codel", "limit": 60}},
                  {"name": "back", "rate": "10Mbps", "delay": "9ms", "queue": {"discipline": "droptail", "limit": 20}}],
        "flows": [{"name": "long", "count": 2, "rtt": "60ms", "route": ["a", "b", "c"], "ack_route": ["back"]},
                  {"name": "mid", "count": 2, "rtt": "40ms", "route": ["b", "c"]},
                  {"name": "short", "count": 1, "rtt": "30ms", "route": ["c"], "start": "0.2s"}]}"#,
    r#"{"duration": "0.5s",
        "links": [{"name": "p1", "rate": "1Gbps", "delay": "20us", "queue": {"discipline": "step", "threshold": 20, "limit": 500}},
                  {"name": "p2", "rate": "1Gbps", "delay": "20us", "queue": {"discipline": "droptail", "limit": 500}}],
        "shared_buffers": [{"name": "tor", "ports": ["p1", "p2"], "size": "200KB", "alpha": [1, 0.5]}],
        "flows": [{"name": "long", "count": 3, "rtt": "200us", "route": ["p1"]},
                  {"name": "incast", "count": 8, "size": "20KB", "rtt": "200us", "route": ["p2"],
                   "incast": {"rounds": 20, "gap": "1ms", "connections": "persistent"}}],
        "tcp": {"congestion_control": {"kind": "dctcp", "g": 0.0625}, "ecn": true, "delayed_ack": true,
                "min_rto": "10ms", "packet_size": "1500B"}}"#,
    r#"{"duration": "1s", "parking_lot": {"hops": 3, "rate": "10Mbps", "delay": ["1ms", "2ms", "3ms"],
            "queue": {"discipline": "droptail", "limit": 25},
            "cross": {"count": 2, "rtt": {"uniform": ["20ms", "30ms"]}, "start": "0.1s", "tcp": {"delayed_ack": true}}},
        "flows": {"count": 2, "rtt": "50ms"}}"#,
];

/// A replacement value: wrong types, edges, non-finite markers, unit strings, nested forms.
fn wild() -> impl Strategy<Value = Value> {
    let fixed: Vec<Value> = vec![
        json!(-1),
        json!(0),
        json!(1),
        json!(0.5),
        json!(-0.5),
        json!(1e308),
        json!(-1e308),
        json!(1e-300),
        json!(i64::MIN),
        json!(i64::MAX),
        json!(u64::MAX),
        json!(18446744073709551616.0),
        json!(1e10),
        json!("nan"),
        json!("inf"),
        json!("-inf"),
        json!(""),
        json!("abc"),
        json!("10 parsecs"),
        json!("-5Mbps"),
        json!("0bps"),
        json!("1e30bps"),
        json!("10Tbps"),
        json!("0s"),
        json!("2e7s"),
        json!("1e-15s"),
        json!("100ms"),
        json!("20B"),
        json!("64KB"),
        json!("1979-05-27T07:32:00"),
        json!(true),
        json!(false),
        json!(null),
        json!([]),
        json!({}),
        json!([1, 2]),
        json!(["1s", "2s"]),
        json!({"uniform": ["-1s", "1s"]}),
        json!({"uniform": ["1Mbps", "1Gbps"], "junk": 1}),
        json!({"uniform": ["1s"]}),
        json!({"discipline": "red"}),
        json!({"discipline": "pie", "limit": 0}),
        json!({"discipline": "fq-codel", "flows": 0}),
        json!({"discipline": "ared", "limit": 5, "target_delay": "-1s"}),
        json!("droptail"),
        json!("cubic"),
        json!({"kind": "aimd", "decrease": 2}),
        json!({"rate": 1e7}),
        json!({"load": 0.99}),
        json!({"exponential": "1B"}),
        json!({"cdf": [[1000, 0.5], [10, 1.0]]}),
        json!([{"pattern": "cbr", "rate": "10Tbps", "packet_size": "20B"}]),
        nested(150),
    ];
    prop_oneof![
        4 => proptest::sample::select(fixed),
        1 => any::<i64>().prop_map(|x| json!(x)),
        1 => any::<f64>().prop_filter("JSON numbers are finite", |x| x.is_finite()).prop_map(|x| json!(x)),
        1 => (-1e3f64..1e3, proptest::sample::select(vec!["s", "ms", "us", "Mbps", "kbps", "B", "KB", ""]))
            .prop_map(|(x, unit)| json!(format!("{x}{unit}"))),
    ]
}

fn nested(depth: usize) -> Value {
    (0..depth).fold(json!(1), |v, _| json!({ "a": v }))
}

/// One step in a JSON value: a key or an index.
#[derive(Clone, Debug, PartialEq)]
enum Seg {
    Key(String),
    Index(usize),
}

/// Every path in `v` (the root first).
fn paths(v: &Value) -> Vec<Vec<Seg>> {
    let mut out = vec![Vec::new()];
    let mut i = 0;
    while i < out.len() {
        let path = out[i].clone();
        match get(v, &path) {
            Some(Value::Object(m)) => {
                out.extend(m.keys().map(|k| [path.clone(), vec![Seg::Key(k.clone())]].concat()))
            }
            Some(Value::Array(a)) => {
                out.extend((0..a.len()).map(|j| [path.clone(), vec![Seg::Index(j)]].concat()))
            }
            _ => {}
        }
        i += 1;
    }
    out
}

fn get<'a>(v: &'a Value, path: &[Seg]) -> Option<&'a Value> {
    path.iter().try_fold(v, |v, s| match s {
        Seg::Key(k) => v.get(k.as_str()),
        Seg::Index(i) => v.get(*i),
    })
}

fn get_mut<'a>(v: &'a mut Value, path: &[Seg]) -> Option<&'a mut Value> {
    path.iter().try_fold(v, |v, s| match s {
        Seg::Key(k) => v.get_mut(k.as_str()),
        Seg::Index(i) => v.get_mut(*i),
    })
}

/// What a mutation does at the path it picks (an index into the value's paths, modulo their number).
#[derive(Clone, Debug)]
enum Mutation {
    Set(usize, Value),
    Delete(usize),
    AddKey(usize, String, Value),
}

fn mutation() -> impl Strategy<Value = Mutation> {
    let key = proptest::sample::select(vec![
        "junk",
        "rate",
        "limit",
        "uniform",
        "count",
        "é",
        "discipline",
        "kind",
    ]);
    prop_oneof![
        4 => (any::<usize>(), wild()).prop_map(|(i, v)| Mutation::Set(i, v)),
        1 => any::<usize>().prop_map(Mutation::Delete),
        1 => (any::<usize>(), key, wild()).prop_map(|(i, k, v)| Mutation::AddKey(i, k.to_string(), v)),
    ]
}

fn apply(v: &mut Value, m: &Mutation) {
    let all = paths(v);
    if all.len() < 2 {
        return;
    }
    let pick = |i: usize| all[i % all.len()].clone();
    // The root stays a table (a scenario is a TOML file or a dict).
    let below = |i: usize| all[1 + i % (all.len() - 1)].clone();
    match m {
        Mutation::Set(i, new) => {
            if let Some(slot) = get_mut(v, &below(*i)) {
                *slot = new.clone();
            }
        }
        Mutation::Delete(i) => {
            let path = below(*i);
            if let Some((last, parent)) = path.split_last() {
                match (get_mut(v, parent), last) {
                    (Some(Value::Object(m)), Seg::Key(k)) => {
                        m.remove(k);
                    }
                    (Some(Value::Array(a)), Seg::Index(j)) => {
                        a.remove(*j);
                    }
                    _ => {}
                }
            }
        }
        Mutation::AddKey(i, key, new) => {
            if let Some(Value::Object(m)) = get_mut(v, &pick(*i)) {
                m.insert(key.clone(), new.clone());
            }
        }
    }
}

/// An error's field as a path: `flows[1].tcp.ack_size` → flows, 1, tcp, ack_size.
fn parse_field(field: &str) -> Vec<Seg> {
    let mut out = Vec::new();
    for part in field.split('.') {
        let mut pieces = part.split('[');
        let name = pieces.next().unwrap_or_default();
        if !name.is_empty() {
            out.push(Seg::Key(name.to_string()));
        }
        for index in pieces {
            out.push(Seg::Index(index.trim_end_matches(']').parse().unwrap_or(usize::MAX)));
        }
    }
    out
}

proptest! {
    #![proptest_config(ProptestConfig { cases: common::cases(64), ..ProptestConfig::default() })]

    /// Mutated scenarios resolve, or fail naming a field of the input (or a missing one of its tables).
    #[test]
    fn mutated_scenarios_resolve_or_name_a_field(
        base in 0..BASES.len(),
        mutations in proptest::collection::vec(mutation(), 1..=4),
    ) {
        let mut v: Value = serde_json::from_str(BASES[base]).unwrap();
        for m in &mutations {
            apply(&mut v, m);
        }
        match config_from_json(&v.to_string()) {
            Ok(cfg) => {
                prop_assert!(cfg.estimate.memory_bytes().is_finite() && cfg.estimate.events().is_finite());
            }
            Err(e) => {
                prop_assert!(!e.field.is_empty() && !e.message.is_empty(), "{e}");
                let f = &e.field;
                prop_assert!(!f.starts_with(['.', '[']) && !f.ends_with('.') && !f.contains("..") && !f.contains(".["), "{e}");
                let path = parse_field(&e.field);
                let parent = &path[..path.len().saturating_sub(1)];
                prop_assert!(
                    get(&v, &path).is_some() || get(&v, parent).is_some_and(Value::is_object),
                    "{e}: not in {v}"
                );
                for rust in ["u64", "f64", "u32", "struct ", "enum ", "sequence", "tuple", "untagged"] {
                    prop_assert!(!e.message.contains(rust), "{e}");
                }
            }
        }
    }
}

/// Whether the scenario's bottleneck discipline marks only ECN-capable senders' packets (`step`).
fn queue_needs_ecn(s: &Value) -> bool {
    s["bottleneck"]["queue"]["discipline"] == "step"
}

/// A small valid scenario: one bottleneck (a random discipline), a parking lot of two hops with cross
/// traffic, or three `[[links]]` with multi-hop routes and queued ACKs; a few TCP flows, maybe a UDP source,
/// maybe an event trace.
fn small_scenario() -> impl Strategy<Value = Value> {
    let discipline = proptest::sample::select(vec![
        json!({"discipline": "droptail"}),
        json!({"discipline": "red", "min_th": 2, "max_th": 8}),
        json!({"discipline": "codel"}),
        json!({"discipline": "pie"}),
        json!({"discipline": "blue"}),
        json!({"discipline": "index"}),
        json!({"discipline": "ared"}),
        json!({"discipline": "fq-codel"}),
        json!({"discipline": "step", "threshold": 5}),
    ]);
    let cc = proptest::sample::select(vec!["newreno", "cubic", "aimd", "poisson", "dctcp", "bbr"]);
    (
        (1u32..=20, 0u32..=20, discipline, 1u64..=100),
        (1u32..=5, cc, any::<bool>(), proptest::sample::select(vec![64u32, 500, 1000, 1500])),
        (200u32..=2000, 0.0f64..1.0, proptest::option::of((100u32..=5000, 20u32..=1500)), any::<u64>()),
        (0u8..3, any::<bool>()),
    )
        .prop_map(|((mbps, delay_ms, mut queue, limit), (flows, cc, delack, pkt), (dur_ms, warm, udp, seed), (form, trace))| {
            queue["limit"] = json!(limit);
            let duration = dur_ms as f64 / 1000.0;
            let warmup = ((duration - 1e-6) * warm * 1e6).floor() / 1e6;
            let rtt = 2.0 * delay_ms as f64 / 1000.0 + 0.01;
            let mut s = json!({
                "seed": seed, "duration": duration, "warmup": warmup,
                "bottleneck": {"rate": format!("{mbps}Mbps"), "delay": format!("{delay_ms}ms"), "queue": queue},
                "flows": {"count": flows, "rtt": {"uniform": [rtt, rtt * 3.0]}, "start": {"uniform": ["0s", duration / 2.0]}},
                "tcp": {"congestion_control": cc, "delayed_ack": delack, "packet_size": pkt.max(100), "max_window": 1000},
            });
            if cc == "dctcp" || queue_needs_ecn(&s) {
                s["tcp"]["ecn"] = json!(true);
            }
            if let Some((kbps, size)) = udp {
                s["udp"] = json!([{"pattern": "poisson", "rate": format!("{kbps}kbps"), "packet_size": size}]);
            }
            let rate = format!("{mbps}Mbps");
            let hop_delay = format!("{}ms", delay_ms / 2);
            match form {
                1 => {
                    let bottleneck = s.as_object_mut().unwrap().remove("bottleneck").unwrap();
                    s["parking_lot"] = json!({"hops": 2, "rate": rate, "delay": hop_delay, "queue": bottleneck["queue"],
                        "cross": {"count": 1 + flows / 2, "rtt": rtt * 2.0, "tcp": {"delayed_ack": !delack}}});
                }
                2 => {
                    let bottleneck = s.as_object_mut().unwrap().remove("bottleneck").unwrap();
                    let link = |name: &str, q: &Value| json!({"name": name, "rate": rate, "delay": hop_delay, "queue": q});
                    let droptail = json!({"discipline": "droptail", "limit": 50});
                    s["links"] = json!([link("a", &bottleneck["queue"]), link("b", &droptail), link("back", &droptail)]);
                    let flows_table = s.as_object_mut().unwrap().remove("flows").unwrap();
                    let mut other = flows_table.clone();
                    other["route"] = json!(["b"]);
                    let mut long = flows_table;
                    long["route"] = json!(["a", "b"]);
                    long["ack_route"] = json!(["back"]);
                    long["rtt"] = json!({"uniform": [rtt * 2.0, rtt * 4.0]});
                    s["flows"] = json!([long, other]);
                    if seed % 2 == 0 {
                        s["shared_buffers"] = json!([{"name": "sw", "ports": ["a", "b"], "size": "100KB"}]);
                    }
                    if s.get("udp").is_some() {
                        s["udp"][0]["route"] = json!(["a"]);
                    }
                }
                _ => {}
            }
            if trace {
                s["trace"] = json!({"events": true, "kinds": ["drop", "timeout", "state", "mark"], "max_events": 5000});
            }
            s
        })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: common::cases(24), ..ProptestConfig::default() })]

    /// Small valid scenarios run cleanly: conservation at every step, results in range and finite, within
    /// the estimated events.
    #[test]
    fn small_scenarios_run_cleanly(s in small_scenario()) {
        let cfg = config_from_json(&s.to_string()).map_err(|e| TestCaseError::fail(format!("{e}: {s}")))?;
        let estimate = cfg.estimate.events();
        let duration = cfg.duration;
        let mut sim = Simulation::new(cfg).unwrap();
        for k in 1..=8 {
            sim.run_until(duration / 8 * k);
            assert_conserved(&sim, &format!("{s} at step {k}"));
        }
        let r = sim.finish();
        prop_assert_eq!(r.summary.duration_s, time::to_secs(duration));
        prop_assert!(non_finite_fields(&r).is_empty(), "{:?} in {}", non_finite_fields(&r), s);
        for p in &r.ports {
            prop_assert!((0.0..=1.0).contains(&p.utilization), "utilization {} in {}", p.utilization, s);
            prop_assert!((0.0..=1.0).contains(&p.loss_rate) && (0.0..=1.0).contains(&p.mark_rate), "{s}");
            prop_assert!(p.throughput_bps >= 0.0 && p.throughput_bps <= p.rate_bps, "{s}");
        }
        prop_assert!(r.flows.iter().all(|f| f.goodput_bps >= 0.0 && f.srtt_s.is_none_or(|x| x > 0.0)), "{s}");
        prop_assert!(r.udp.iter().all(|u| (0.0..=1.0).contains(&u.loss_rate)), "{s}");
        prop_assert!((r.summary.events as f64) <= estimate, "{} events, estimated {estimate}: {s}", r.summary.events);
    }
}
