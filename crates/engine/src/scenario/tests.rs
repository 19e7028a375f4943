use super::*;
use crate::scenario::flows::{ns3_profile, MAX_FLOWS};
use serde_json::{json, Value};

const BASE: &str = r#"{"duration": "10s", "bottleneck": {"rate": "10Mbps", "delay": "10ms",
    "queue": {"discipline": "droptail", "limit": 50}}, "flows": {"count": 3, "rtt": "100ms"}}"#;

fn with(patch: Value) -> Result<Config, ScenarioError> {
    let mut v: Value = serde_json::from_str(BASE).unwrap();
    merge(&mut v, &patch);
    config_from_json(&v.to_string())
}

fn merge(a: &mut Value, b: &Value) {
    match (a, b) {
        (Value::Object(a), Value::Object(b)) => {
            for (k, v) in b {
                if v.is_null() {
                    a.remove(k);
                } else {
                    merge(a.entry(k.clone()).or_insert(Value::Null), v);
                }
            }
        }
        (a, b) => *a = b.clone(),
    }
}

fn field_of(patch: Value) -> String {
    with(patch).unwrap_err().field
}

#[test]
fn minimal_scenario_resolves_with_defaults() {
    let c = with(json!({})).unwrap();
    let g = &c.groups[0];
    assert_eq!(g.flows.len(), 3);
    assert_eq!(g.flows[0].access_delay, from_secs(0.04));
    assert_eq!(g.tcp.packet_size, 1000);
    assert_eq!(g.tcp.payload, 960);
    assert!(g.tcp.sack);
    assert_eq!(g.route(), [0]);
    assert!(g.ack_route.is_empty());
    assert_eq!(c.network.links[0].name, "bottleneck");
    assert_eq!(c.network.links[0].queue.name(), "droptail");
    assert_eq!(g.cc.name(), "newreno");
}

#[test]
fn errors_name_the_field() {
    let e = with(json!({"bottleneck": {"rate": "-5Mbps"}})).unwrap_err();
    assert_eq!(e.field, "bottleneck.rate");
    assert!(e.message.contains("in ["), "{e}");
    assert_eq!(field_of(json!({"bottleneck": {"queue": {"limit": 0}}})), "bottleneck.queue.limit");
    let e = with(json!({"bottleneck": {"queue": {"discipline": "nonesuch"}}})).unwrap_err();
    assert!(e.to_string().contains("nonesuch") && e.to_string().contains("red"), "{e}");
    let e = with(json!({"tcp": {"colour": "blue"}})).unwrap_err();
    assert!(e.to_string().contains("colour"), "{e}");
    let e = with(json!({"bottleneck": {"rate": "fast"}})).unwrap_err();
    assert_eq!(e.field, "bottleneck.rate");
    assert!(e.message.contains("100Mbps"), "{e}");
    assert_eq!(field_of(json!({"flows": {"rtt": ["100ms", "200ms"]}})), "flows.rtt");
    assert_eq!(field_of(json!({"flows": {"rtt": "10ms"}})), "flows.rtt");
    assert_eq!(field_of(json!({"warmup": "20s"})), "warmup");
    let e =
        with(json!({"bottleneck": {"queue": {"discipline": "red", "limit": 50, "ecn": true}}})).unwrap_err();
    assert_eq!(e.field, "bottleneck.queue.ecn");
    assert_eq!(
        field_of(json!({"bottleneck": {"queue": {"discipline": "red", "limit": 50, "max_p": 2}}})),
        "bottleneck.queue.max_p"
    );
    assert_eq!(field_of(json!({"flows": {"count": 0}})), "flows.count");
    assert_eq!(field_of(json!({"flows": {"count": MAX_FLOWS + 1}})), "flows.count");
    let e = with(json!({"flows": {"rtt": {"uniform": ["1s", "2s"], "junk": 1}}})).unwrap_err();
    assert_eq!(e.to_string(), "flows.rtt.junk: unknown field \"junk\" (valid: uniform)");
    assert_eq!(field_of(json!({"tcp": {"congestion_control": "vegas"}})), "tcp.congestion_control");
    assert_eq!(
        field_of(json!({"tcp": {"congestion_control": {"kind": "aimd", "decrease": 1.5}}})),
        "tcp.congestion_control.decrease"
    );
    assert_eq!(
        field_of(json!({"tcp": {"congestion_control": {"kind": "aimd", "speed": 1}}})),
        "tcp.congestion_control.speed"
    );
}

#[test]
fn messages_name_no_rust_types() {
    let e = with(json!({"bottleneck": 3})).unwrap_err();
    assert_eq!((e.field.as_str(), e.message.as_str()), ("bottleneck", "expected a table, got 3"));
    let e = with(json!({"monitor": "yes"})).unwrap_err();
    assert_eq!(e.to_string(), "monitor: expected a table, got \"yes\"");
    // Inside a queue table (an internally tagged form): the parameter, in words, never `u64` or `f64`.
    let q = |table: Value| with(json!({"bottleneck": {"queue": table}})).unwrap_err().to_string();
    assert_eq!(
        q(json!({"discipline": "droptail", "limit": -1})),
        "bottleneck.queue.limit: expected a whole number >= 0, got -1"
    );
    assert_eq!(
        q(json!({"discipline": "droptail", "limit": "abc"})),
        "bottleneck.queue.limit: expected a whole number >= 0, got \"abc\""
    );
    assert_eq!(
        q(json!({"discipline": "droptail", "limit": 1e2})),
        "bottleneck.queue.limit: expected a whole number >= 0, got 100.0"
    );
    assert_eq!(
        q(json!({"discipline": "red", "limit": 5, "max_p": "abc"})),
        "bottleneck.queue.max_p: expected a number, got \"abc\""
    );
    assert_eq!(
        q(json!({"discipline": "red", "limit": 5, "gentle": []})),
        "bottleneck.queue.gentle: expected true or false, got an empty list"
    );
    assert_eq!(
        q(json!({"discipline": "odt", "first_step": "sideways"})),
        "bottleneck.queue.first_step: expected \"up\" or \"down\", got \"sideways\""
    );
    assert_eq!(
        with(json!({"seed": 18446744073709551616.0})).unwrap_err().to_string(),
        "seed: expected a whole number >= 0, got 1.8446744073709552e+19"
    );
    // A name of the wrong type lists the names.
    let e = with(json!({"udp": [{"pattern": 3, "rate": "1Mbps"}]})).unwrap_err();
    assert_eq!(e.to_string(), "udp[0].pattern: expected \"poisson\" or \"cbr\", got 3");
    let e = with(json!({"tcp": {"ecn_response": 3}})).unwrap_err();
    assert_eq!(e.to_string(), "tcp.ecn_response: expected \"once-per-rtt\" or \"per-signal\", got 3");
    // A missing field is named itself.
    let e = with(json!({"udp": [{"rate": "1Mbps"}]})).unwrap_err();
    assert_eq!(e.to_string(), "udp[0].pattern: required");
    assert_eq!(with(json!({"duration": null})).unwrap_err().to_string(), "duration: required");
    // Long numbers are shortened.
    let e = with(json!({"tcp": {"max_rto": 1e308}})).unwrap_err().to_string();
    assert!(e.starts_with("tcp.max_rto: must be in [min_rto, 1d] (got ") && e.len() < 80, "{e}");
    for bad in
        [json!({"flows": {"count": 3.5}}), json!({"tcp": {"sack": "yes"}}), json!({"flows": {"rtt": [true]}})]
    {
        let e = with(bad).unwrap_err().to_string();
        for rust in ["u64", "f64", "u32", "struct", "enum", "sequence", "map", "tuple"] {
            assert!(!e.contains(rust), "{e}");
        }
    }
}

/// The Python layer sends TOML's `nan` and `inf` as text, and the error names the field.
#[test]
fn non_finite_values_name_the_field() {
    let msg = |patch: Value| with(patch).unwrap_err().to_string();
    assert_eq!(
        msg(json!({"bottleneck": {"rate": "nan"}})),
        "bottleneck.rate: expected a rate such as \"100Mbps\", got nan"
    );
    assert_eq!(msg(json!({"duration": "-inf"})), "duration: expected a duration such as \"100ms\", got -inf");
    assert_eq!(
        msg(json!({"bottleneck": {"queue": {"discipline": "droptail", "limit": "inf"}}})),
        "bottleneck.queue.limit: expected a whole number >= 0, got inf"
    );
    assert_eq!(
        msg(json!({"tcp": {"congestion_control": {"kind": "aimd", "increase": "nan"}}})),
        "tcp.congestion_control.increase: expected a number, got nan"
    );
    assert_eq!(
        msg(json!({"flows": {"rtt": {"uniform": ["nan", "1s"]}}})),
        "flows.rtt.uniform[0]: expected a duration such as \"100ms\", got nan"
    );
    assert_eq!(
        msg(json!({"duration": "1979-05-27T07:32:00"})),
        "duration: expected a duration such as \"100ms\", got \"1979-05-27T07:32:00\""
    );
}

#[test]
fn a_uniform_form_has_exactly_two_bounds() {
    let e = with(json!({"flows": {"rtt": {"uniform": ["40ms", "80ms", "abc", {"a": 1}, []]}}})).unwrap_err();
    assert_eq!(e.field, "flows.rtt.uniform");
    assert_eq!(e.message, "expected a list of 2 values, got a list of 5 values");
    let e = with(json!({"flows": {"start": {"uniform": ["0s"]}}})).unwrap_err();
    assert_eq!(e.field, "flows.start.uniform");
    assert!(with(json!({"flows": {"access_rate": {"uniform": ["1Mbps", "2Mbps"]}}})).is_ok());
}

#[test]
fn a_pareto_size_without_its_mean_names_the_mean() {
    let e =
        with(json!({"flows": {"count": null, "size": {"shape": 1.2}, "arrival": {"rate": 10}}})).unwrap_err();
    assert_eq!(e.field, "flows.size.pareto", "{e}");
}

#[test]
fn sizes_reach_petabytes() {
    let c = with(json!({"limits": {"memory": "1PB"}})).unwrap();
    assert_eq!(c.limits.memory_bytes, 1e15);
    assert!(with(json!({"limits": {"memory": "2TB"}})).is_ok());
}

#[test]
fn uniform_rtts_are_seeded() {
    let u = json!({"flows": {"rtt": {"uniform": ["120ms", "280ms"]}}});
    let a = with(u.clone()).unwrap();
    let b = with(u).unwrap();
    let c = with(json!({"seed": 2, "flows": {"rtt": {"uniform": ["120ms", "280ms"]}}})).unwrap();
    assert_eq!(a.groups[0].flows, b.groups[0].flows);
    assert_ne!(a.groups[0].flows, c.groups[0].flows);
    assert!(a.groups[0].flows.iter().all(|f| f.rtt >= from_secs(0.12) && f.rtt <= from_secs(0.28)));
}

fn two_groups() -> Value {
    json!({"flows": [
        {"name": "reno", "count": 2, "rtt": "100ms"},
        {"name": "gentle", "count": 3, "rtt": {"uniform": ["60ms", "80ms"]},
         "tcp": {"congestion_control": {"kind": "aimd", "increase": 0.9, "decrease": 0.675}, "delayed_ack": true}}
    ]})
}

#[test]
fn groups_override_the_tcp_defaults_and_draw_from_their_own_streams() {
    let c = with(two_groups()).unwrap();
    assert_eq!(c.groups.len(), 2);
    assert_eq!((c.groups[0].name.as_str(), c.groups[1].name.as_str()), ("reno", "gentle"));
    assert!(!c.groups[0].tcp.delayed_ack && c.groups[1].tcp.delayed_ack);
    assert_eq!(c.groups[1].cc.name(), "aimd");
    assert_eq!(c.fixed_flows().count(), 5);
    // The first group's draws do not depend on the second's existence.
    let solo = with(json!({"flows": [{"count": 3, "rtt": {"uniform": ["60ms", "80ms"]}}]})).unwrap();
    let mut other = two_groups();
    other["flows"][1]["count"] = json!(30);
    assert_eq!(with(other).unwrap().groups[1].flows[..3], with(two_groups()).unwrap().groups[1].flows[..]);
    assert_ne!(solo.groups[0].flows, c.groups[1].flows, "group 1 has its own stream");
    let mut bad = two_groups();
    bad["flows"][1]["tcp"]["ack_size"] = json!(0);
    assert_eq!(with(bad).unwrap_err().field, "flows[1].tcp.ack_size");
    let mut dup = two_groups();
    dup["flows"][1]["name"] = json!("reno");
    assert!(with(dup).unwrap_err().message.contains("reno"));
}

fn links(extra: Value) -> Result<Config, ScenarioError> {
    let mut v = json!({"duration": "10s",
        "links": [
            {"name": "a", "rate": "10Mbps", "delay": "5ms", "queue": {"discipline": "droptail", "limit": 20}},
            {"name": "b", "rate": "5Mbps", "delay": "10ms", "queue": {"discipline": "red", "limit": 40}},
            {"name": "back", "rate": "10Mbps", "delay": "15ms", "queue": {"discipline": "droptail", "limit": 20}}],
        "flows": [{"count": 1, "rtt": "100ms", "route": ["a", "b"]}]});
    merge(&mut v, &extra);
    config_from_json(&v.to_string())
}

#[test]
fn routes_name_links_and_set_the_access_delay() {
    let c = links(json!({})).unwrap();
    let g = &c.groups[0];
    assert_eq!(g.route(), [0, 1]);
    // rtt/2 - (5 + 10) ms
    assert_eq!(g.flows[0].access_delay, from_secs(0.035));
    let c =
        links(json!({"flows": [{"count": 1, "rtt": "100ms", "route": ["a", "b"], "ack_route": ["back"]}]}))
            .unwrap();
    // (100 - 15 - 15) / 2 ms: the access link is crossed both ways.
    assert_eq!(c.groups[0].flows[0].access_delay, from_secs(0.035));
    assert_eq!(c.groups[0].ack_route, vec![2]);
    let e = links(json!({"flows": [{"count": 1, "rtt": "100ms", "route": ["a", "z"]}]})).unwrap_err();
    assert_eq!(e.field, "flows[0].route[1]");
    assert!(e.message.contains("\"z\"") && e.message.contains("a, b, back"), "{e}");
    let e = links(json!({"flows": [{"count": 1, "rtt": "100ms"}]})).unwrap_err();
    assert_eq!(e.field, "flows[0].route");
    let e = links(json!({"flows": [{"count": 1, "rtt": "20ms", "route": ["a", "b"]}]})).unwrap_err();
    assert_eq!(e.field, "flows[0].rtt");
    let e = links(json!({"links": [{"name": "a", "rate": "1Mbps", "queue": {"discipline": "red", "limit": 5, "weight": 0}}],
        "flows": [{"count": 1, "rtt": "100ms"}]}))
    .unwrap_err();
    assert_eq!(e.field, "links[0].queue.weight");
    let e = links(json!({"bottleneck": {"rate": "1Mbps", "queue": {"discipline": "droptail", "limit": 5}}}))
        .unwrap_err();
    assert!(e.message.contains("exactly one network"), "{e}");
    // Two networks: the second is named, not a table the scenario does not have.
    let e = with(json!({"parking_lot": {"hops": 2, "rate": "1Mbps",
        "queue": {"discipline": "droptail", "limit": 5}}}))
    .unwrap_err();
    assert_eq!(e.field, "parking_lot");
    assert!(e.message.contains("give [bottleneck] or [parking_lot], not both"), "{e}");
}

#[test]
fn parking_lot_cross_traffic_takes_no_route() {
    let e = config_from_json(
        &json!({"duration": "1s",
            "parking_lot": {"hops": 3, "rate": "10Mbps", "delay": "5ms",
                "queue": {"discipline": "droptail", "limit": 20},
                "cross": {"count": 2, "rtt": "50ms", "route": ["hop1"]}},
            "flows": {"count": 1, "rtt": "100ms"}})
        .to_string(),
    )
    .unwrap_err();
    assert_eq!(e.field, "parking_lot.cross.route");
}

#[test]
fn parking_lot_expands_to_hops_and_cross_groups() {
    let v = json!({"duration": "10s",
        "parking_lot": {"hops": 3, "rate": "10Mbps", "delay": ["2ms", "4ms", "6ms"],
                        "queue": {"discipline": "droptail", "limit": 30},
                        "cross": {"count": 2, "rtt": "40ms"}},
        "flows": {"count": 4, "rtt": "100ms"}});
    let c = config_from_json(&v.to_string()).unwrap();
    let names: Vec<&str> = c.network.links.iter().map(|l| l.name.as_str()).collect();
    assert_eq!(names, ["hop1", "hop2", "hop3"]);
    assert_eq!(c.groups[0].route(), [0, 1, 2]);
    assert_eq!(c.groups[0].flows[0].access_delay, from_secs(0.05 - 0.012));
    let cross: Vec<(&str, &[usize])> = c.groups[1..].iter().map(|g| (g.name.as_str(), g.route())).collect();
    assert_eq!(cross, [("cross1", &[0][..]), ("cross2", &[1][..]), ("cross3", &[2][..])]);
    let mut bad = v.clone();
    bad["parking_lot"]["delay"] = json!(["2ms"]);
    assert_eq!(config_from_json(&bad.to_string()).unwrap_err().field, "parking_lot.delay");
    let mut bad = v;
    bad["parking_lot"]["hops"] = json!(0);
    assert_eq!(config_from_json(&bad.to_string()).unwrap_err().field, "parking_lot.hops");
}

#[test]
fn finite_flows_and_arrivals() {
    let c = with(json!({"flows": [{"count": 2, "rtt": "100ms", "size": "30KB"},
        {"name": "web", "rtt": "100ms", "size": {"pareto": "50KB", "shape": 1.5}, "arrival": {"load": 0.4}}]}))
    .unwrap();
    assert_eq!(c.groups[0].flows[0].size, Some(30_000));
    let a = c.groups[1].arrival.as_ref().unwrap();
    // λ = ρ C / (8 E[wire bytes]) with E[wire] = 50 KB / 960 × 1000.
    let expect = 0.4 * 10e6 / (8.0 * 50e3 / 960.0 * 1000.0);
    assert!((a.rate - expect).abs() < 1e-9 * expect, "{}", a.rate);
    assert!(c.groups[1].flows.is_empty());
    let arrival = |a: Value| json!({"flows": [{"rtt": "100ms", "size": "10KB", "arrival": a}]});
    assert_eq!(field_of(arrival(json!({"load": 1.0}))), "flows[0].arrival.load");
    assert_eq!(field_of(arrival(json!({"rate": 5, "load": 0.5}))), "flows[0].arrival.rate");
    assert_eq!(field_of(arrival(json!({}))), "flows[0].arrival.rate");
    assert_eq!(field_of(arrival(json!({"rate": 5, "stop": "-1s"}))), "flows[0].arrival.stop");
    assert_eq!(field_of(json!({"flows": [{"rtt": "100ms", "arrival": {"rate": 5}}]})), "flows[0].size");
    assert_eq!(
        field_of(json!({"flows": [{"count": 2, "rtt": "100ms", "size": "1KB", "arrival": {"rate": 5}}]})),
        "flows[0].count"
    );
    assert_eq!(
        field_of(json!({"flows": [{"rtt": ["100ms"], "size": "1KB", "arrival": {"rate": 5}}]})),
        "flows[0].rtt"
    );
    assert_eq!(
        field_of(json!({"flows": {"count": 2, "rtt": "100ms", "size": {"pareto": "1KB", "shape": 0.9}}})),
        "flows.size.shape"
    );
}

#[test]
fn monitor_limits() {
    assert_eq!(field_of(json!({"monitor": {"fct_buckets": ["10KB", "5KB"]}})), "monitor.fct_buckets[1]");
    assert_eq!(field_of(json!({"monitor": {"cwnd": true}})), "monitor.cwnd");
    let e = with(json!({"duration": "1000s", "flows": {"count": 100000}, "monitor": {"sample_interval": "1ms", "cwnd": true}}))
        .unwrap_err();
    assert_eq!(e.field, "monitor.sample_interval");
}

#[test]
fn red_defaults_are_ns2() {
    let c = with(json!({"bottleneck": {"queue": {"discipline": "red", "limit": 50}}})).unwrap();
    match &c.network.links[0].queue {
        crate::queue::QueueSpec::Red(p) => {
            assert_eq!((p.min_th, p.max_th, p.max_p, p.weight), (5.0, 15.0, 0.1, 0.002));
            assert!(p.gentle && p.wait && !p.ecn);
            assert_eq!(p.mean_pktsize, None);
        }
        q => panic!("not RED: {q:?}"),
    }
}

#[test]
fn pacing_forms_and_errors() {
    use crate::tcp::Pacing;
    let pacing = |v: Value| with(json!({"tcp": {"pacing": v}})).map(|c| c.groups[0].tcp.pacing);
    assert_eq!(with(json!({})).unwrap().groups[0].tcp.pacing, Pacing::Off);
    assert_eq!(pacing(json!(false)).unwrap(), Pacing::Off);
    assert_eq!(pacing(json!(true)).unwrap(), Pacing::Rtt, "true is the paper's paced TCP");
    assert_eq!(pacing(json!("off")).unwrap(), Pacing::Off);
    assert_eq!(pacing(json!("rtt")).unwrap(), Pacing::Rtt);
    assert_eq!(pacing(json!("linux")).unwrap(), Pacing::Linux);
    assert_eq!(pacing(json!("cwnd")).unwrap(), Pacing::Cwnd);
    for bad in [json!("yes"), json!(1), json!({"ratio": 2})] {
        let e = with(json!({"tcp": {"pacing": bad}})).unwrap_err();
        assert_eq!(e.field, "tcp.pacing");
        assert!(e.message.contains("\"linux\""), "{e}");
    }
    assert_eq!(field_of(json!({"flows": {"tcp": {"pacing": "fq"}}})), "flows.tcp.pacing");
    let c = with(json!({"tcp": {"pacing": "linux"}})).unwrap();
    assert_eq!(c.to_json()["groups"][0]["tcp"]["pacing"], "linux");
}

#[test]
fn recovery_forms_and_errors() {
    use crate::tcp::Recovery;
    let c = with(json!({})).unwrap();
    assert_eq!(c.groups[0].tcp.recovery, Recovery::NewReno);
    assert_eq!(c.to_json()["groups"][0]["tcp"]["recovery"], "newreno");
    // A group's table over [tcp]; SACK stays as written (the Reno sender ignores it).
    let c = with(json!({"tcp": {"recovery": "reno"}, "flows": {"tcp": {"recovery": "newreno"}}})).unwrap();
    assert_eq!(c.groups[0].tcp.recovery, Recovery::NewReno);
    let c = with(json!({"tcp": {"recovery": "reno"}})).unwrap();
    assert_eq!((c.groups[0].tcp.recovery, c.groups[0].tcp.sack), (Recovery::Reno, true));
    assert_eq!(c.to_json()["groups"][0]["tcp"]["recovery"], Recovery::Reno.name());
    for bad in [json!("tahoe"), json!("NewReno"), json!(1)] {
        let e = with(json!({"tcp": {"recovery": bad}})).unwrap_err();
        assert_eq!(e.field, "tcp.recovery");
        assert!(e.message.contains("\"newreno\"") && e.message.contains("\"reno\""), "{e}");
    }
    assert_eq!(field_of(json!({"flows": {"tcp": {"recovery": "sack"}}})), "flows.tcp.recovery");
}

/// Uniform bounds are checked as written, so a scenario's validity never depends on the seed.
#[test]
fn uniform_bounds_are_checked_whatever_the_seed() {
    let e = with(json!({"flows": {"access_rate": {"uniform": ["-1Mbps", "1Gbps"]}}})).unwrap_err();
    assert_eq!(e.to_string(), "flows.access_rate.uniform[0]: must be in [1 kbps, 10 Tbps] (got -1000000)");
    for seed in 0..50 {
        let e = with(json!({"seed": seed, "flows": {"start": {"uniform": ["-0.05s", "1s"]}}})).unwrap_err();
        assert_eq!(e.to_string(), "flows.start.uniform[0]: must be in [0, duration] (got -0.05)");
        let e = with(json!({"seed": seed, "flows": {"start": {"uniform": ["0s", "2s"]}, "stop": {"uniform": ["1s", "3s"]}}}))
            .unwrap_err();
        assert_eq!(e.field, "flows.stop", "seed {seed}: {e}");
    }
    assert_eq!(field_of(json!({"flows": {"rtt": {"uniform": ["100ms", "200s"]}}})), "flows.rtt.uniform[1]");
    assert_eq!(field_of(json!({"flows": {"rtt": ["100ms", "100ms", "1ms"]}})), "flows.rtt[2]");
    let e = with(json!({"flows": {"rtt": {"uniform": ["100ms"]}}})).unwrap_err();
    assert_eq!(e.to_string(), "flows.rtt.uniform: expected a list of 2 values, got a list of 1 value");
    let arrival = json!({"flows": [{"rtt": {"uniform": ["100ms", "1s"], "x": 1}, "size": "1KB", "arrival": {"rate": 1}}]});
    assert_eq!(field_of(arrival), "flows[0].rtt.x");
    let e = with(json!({"parking_lot": {"hops": 2, "rate": {"uniform": [1, 2]}, "queue": {"discipline": "droptail", "limit": 5}},
        "bottleneck": null}))
    .unwrap_err();
    assert_eq!(e.to_string(), "parking_lot.rate: expected one value, or a list with one value per hop");
}

/// Times fit the clock (`u64` picoseconds, 213.5 days) with room to spare, and the measurement window is
/// at least a microsecond.
#[test]
fn times_fit_the_clock_and_the_window_is_not_empty() {
    let e = with(json!({"duration": "2e7s"})).unwrap_err();
    assert_eq!(e.field, "duration");
    assert!(e.message.contains("180 days"), "{e}");
    assert_eq!(field_of(json!({"duration": "1.9e7s"})), "duration");
    assert!(with(json!({"duration": "1.5e7s", "flows": {"count": 1}, "limits": {"events": 1e12}})).is_ok());
    let e = with(json!({"duration": "1.0000000000001s", "warmup": "1s"})).unwrap_err();
    assert_eq!(e.field, "warmup");
    assert!(e.message.contains("at least 1 us"), "{e}");
    assert_eq!(field_of(json!({"duration": "1.0000001s", "warmup": "1s"})), "warmup");
    assert!(with(json!({"duration": "1.000001s", "warmup": "1s"})).is_ok());
    assert_eq!(field_of(json!({"duration": "100ns"})), "duration");
}

/// What a run would cost is checked before anything is allocated; `[limits]` lets it run anyway.
#[test]
fn resource_estimates_refuse_and_limits_override() {
    let udp = json!({"flows": null, "duration": "1s", "udp": [{"pattern": "cbr", "rate": "10Tbps", "packet_size": "20B"}]});
    let e = with(udp.clone()).unwrap_err();
    assert_eq!(e.field, "udp[0].rate");
    assert!(e.message.contains("about 6.2e10 events") && e.message.contains("limits.events = 6.3e10"), "{e}");
    let mut ok = udp;
    ok["limits"] = json!({"events": 1e11});
    assert!(with(ok).is_ok());
    let e = with(json!({"duration": "10s", "flows": {"count": 100000},
        "monitor": {"sample_interval": "1ms", "cwnd": true}}))
    .unwrap_err();
    assert_eq!(e.field, "monitor.sample_interval");
    assert!(e.message.contains("32 GB") && e.message.contains("limits.memory = \"33GB\""), "{e}");
    let c = with(json!({"duration": "10s", "flows": {"count": 100000},
        "monitor": {"sample_interval": "1ms", "cwnd": true}, "limits": {"memory": "40GB"}}))
    .unwrap();
    assert_eq!(c.limits.memory_bytes, 40e9);
    let e = with(json!({"duration": "0.01s", "flows": {"count": 1000000}, "limits": {"memory": "1GB"}}))
        .unwrap_err();
    assert_eq!(e.field, "flows.count");
    assert!(e.message.starts_with("1,000,000 flows need about 2.2 GB of memory"), "{e}");
    // A buffer as large as allowed costs only what can arrive at it.
    let c = with(json!({"duration": "100s", "bottleneck": {"rate": "10Gbps", "queue": {"discipline": "droptail", "limit": 1e9 as u64}}}))
        .unwrap();
    assert!(c.estimate.memory_bytes() < 1e8 + super::estimate::PROCESS_BYTES, "{:?}", c.estimate);
    assert_eq!(field_of(json!({"limits": {"memory": "nan"}})), "limits.memory");
    assert_eq!(field_of(json!({"limits": {"events": 0}})), "limits.events");
    assert_eq!(field_of(json!({"limits": {"time": 1}})), "limits.time");
}

/// `min_th = 0` is allowed (documented): the early-drop probability rises from an empty queue.
#[test]
fn red_min_th_zero_is_allowed() {
    assert!(with(json!({"bottleneck": {"queue": {"discipline": "red", "limit": 50, "min_th": 0}}})).is_ok());
    assert_eq!(
        field_of(json!({"bottleneck": {"queue": {"discipline": "red", "limit": 50, "min_th": -1}}})),
        "bottleneck.queue.min_th"
    );
}

/// A table given as a list of its fields in order is not a table.
#[test]
fn tables_are_tables() {
    let e =
        with(json!({"bottleneck": ["10Mbps", "5ms", {"discipline": "droptail", "limit": 5}]})).unwrap_err();
    assert_eq!(e.to_string(), "bottleneck: expected a table, got a list of 3 values");
    let e = with(json!({"udp": [["poisson", "1Mbps"]]})).unwrap_err();
    assert_eq!(e.to_string(), "udp[0]: expected a table, got a list of 2 values");
    let e = with(json!({"flows": {"rtt": {"uniform": {"a": "1s", "b": "2s"}}}})).unwrap_err();
    assert_eq!(e.to_string(), "flows.rtt.uniform: expected a list of 2 values, got a table");
}

/// `tcp.profile = "ns3"` gives every ns-3 switch its ns-3 value, as the same table written out switch by
/// switch does; a switch the table sets keeps its value; a group's own table may leave the profile.
#[test]
fn the_ns3_profile_is_the_switches_written_out() {
    let tcp_of = |tcp: Value| with(json!({ "tcp": tcp })).unwrap().to_json()["groups"][0]["tcp"].clone();
    let written_out: serde_json::Map<String, Value> =
        ns3_profile().into_iter().map(|(k, v)| (k.to_string(), v)).collect();
    assert_eq!(tcp_of(json!({"profile": "ns3"})), tcp_of(Value::Object(written_out)));
    assert_ne!(tcp_of(json!({"profile": "ns3"})), tcp_of(json!({})));
    assert_eq!(tcp_of(json!({"profile": "rfc"})), tcp_of(json!({})));
    let own = tcp_of(json!({"profile": "ns3", "partial_ack": "pipe", "handshake": false}));
    assert_eq!((own["partial_ack"].as_str(), own["handshake"].as_bool()), (Some("pipe"), Some(false)));
    assert_eq!(own["recovery_exit"], "grow");
    let groups = with(json!({"tcp": {"profile": "ns3"}, "flows": [
        {"name": "a", "count": 1, "rtt": "100ms"},
        {"name": "b", "count": 1, "rtt": "100ms", "tcp": {"partial_ack": "pipe"}}]}))
    .unwrap()
    .to_json();
    assert_eq!(groups["groups"][0]["tcp"]["partial_ack"], "send-one");
    assert_eq!(groups["groups"][1]["tcp"]["partial_ack"], "pipe");
    assert_eq!(groups["groups"][1]["tcp"]["recovery_exit"], "grow");
    assert_eq!(field_of(json!({"tcp": {"profile": "ns-3"}})), "tcp.profile");
}

#[test]
fn bbr_needs_sack_recovery() {
    let bbr = |tcp: Value| with(json!({"tcp": tcp}));
    assert!(bbr(json!({"congestion_control": "bbr", "sack": true})).is_ok());
    let e = bbr(json!({"congestion_control": "bbr", "sack": false})).unwrap_err();
    assert_eq!(e.field, "tcp.sack");
    assert!(e.message.contains("delivery-rate samples"), "{}", e.message);
    let e = bbr(json!({"congestion_control": "bbr", "sack": true, "recovery": "reno"})).unwrap_err();
    assert_eq!(e.field, "tcp.recovery");
    let e = with(json!({"tcp": {"congestion_control": {"kind": "bbr", "aggregation": "fast"}}})).unwrap_err();
    assert_eq!(e.field, "tcp.congestion_control.aggregation");
}
