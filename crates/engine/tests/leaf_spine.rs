//! `[leaf_spine]`: the fabric's ports, per-flow routes over the spine the documented ECMP hash picks,
//! conservation at every port, determinism, and errors naming their fields.

mod common;

use bufferlab_engine::time::PS_PER_SEC;
use bufferlab_engine::{config_from_json, Config, Simulation};
use common::assert_conserved;
use serde_json::{json, Value};

/// SplitMix64's finalizer, written out here so that the test does not take the engine's word for it.
fn splitmix_finalizer(mut z: u64) -> u64 {
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// The spine `docs/scenario.md` documents: `h = mix64(seed ^ 0xEC3F0A115EED5A17)`, then `h = mix64(h ^ x)`
/// for group, flow, src, dst; `h mod spines`.
fn documented_spine(seed: u64, group: u64, flow: u64, src: u64, dst: u64, spines: u64) -> u64 {
    let mut h = splitmix_finalizer(seed ^ 0xEC3F_0A11_5EED_5A17);
    for x in [group, flow, src, dst] {
        h = splitmix_finalizer(h ^ x);
    }
    h % spines
}

fn fabric(leaves: u32, spines: u32, hosts: u32) -> Value {
    json!({
        "leaves": leaves, "spines": spines, "hosts_per_leaf": hosts,
        "host_rate": "10Gbps", "fabric_rate": "20Gbps",
        "queue": {"discipline": "droptail", "limit": 100},
    })
}

fn scenario(seed: u64, flows: Value) -> Value {
    json!({
        "seed": seed, "duration": "20ms", "warmup": "5ms",
        "leaf_spine": fabric(3, 4, 4),
        "flows": flows,
        "tcp": {"packet_size": "1500B", "min_rto": "1ms", "initial_rto": "1ms"},
    })
}

fn resolve(v: &Value) -> Config {
    config_from_json(&v.to_string()).unwrap()
}

fn error(v: &Value) -> (String, String) {
    let e = config_from_json(&v.to_string()).unwrap_err();
    (e.field, e.message)
}

fn names(cfg: &Config) -> Vec<&str> {
    cfg.network.links.iter().map(|l| l.name.as_str()).collect()
}

#[test]
fn the_fabric_expands_into_named_ports_in_order() {
    let cfg = resolve(&scenario(1, json!({"count": 1, "src": 0, "dst": 5})));
    let n = names(&cfg);
    // 12 hosts: 12 up, 12 down, 3 x 4 leaf-to-spine, 4 x 3 spine-to-leaf.
    assert_eq!(n.len(), 48);
    assert_eq!(&n[..2], ["h0-up", "h1-up"]);
    assert_eq!(n[12], "leaf0-h0");
    assert_eq!(n[23], "leaf2-h11");
    assert_eq!(&n[24..26], ["leaf0-spine0", "leaf0-spine1"]);
    assert_eq!(&n[36..38], ["spine0-leaf0", "spine0-leaf1"]);
    assert_eq!(cfg.network.links[0].rate, 10e9);
    assert_eq!(cfg.network.links[24].rate, 20e9);
    // 10 Gb/s x 4 hosts / (4 spines x 2) = 5 Gb/s.
    let mut v = scenario(1, json!({"count": 1, "src": 0, "dst": 5}));
    v["leaf_spine"].as_object_mut().unwrap().remove("fabric_rate");
    v["leaf_spine"]["oversubscription"] = json!(2);
    assert_eq!(resolve(&v).network.links[24].rate, 5e9);
}

#[test]
fn each_flow_takes_the_spine_the_documented_hash_picks() {
    let spines = 4;
    for seed in [1, 2, 99] {
        let v = scenario(
            seed,
            json!([{"count": 6, "src": [0, 1, 2], "dst": 7},
                                     {"count": 40, "pattern": "random"}]),
        );
        let cfg = resolve(&v);
        let n = names(&cfg);
        for (g, grp) in cfg.groups.iter().enumerate() {
            for (k, f) in grp.flows.iter().enumerate() {
                let e = f.endpoints.unwrap();
                let (ls, ld) = (e.src / 4, e.dst / 4);
                let route: Vec<&str> = grp.route_of(f).iter().map(|&p| n[p]).collect();
                if ls == ld {
                    assert_eq!(e.spine, None);
                    assert_eq!(route, [format!("h{}-up", e.src), format!("leaf{ld}-h{}", e.dst)]);
                    continue;
                }
                let s = documented_spine(seed, g as u64, k as u64, e.src.into(), e.dst.into(), spines);
                assert_eq!(e.spine, Some(s as u32), "seed {seed} group {g} flow {k}");
                let want = [
                    format!("h{}-up", e.src),
                    format!("leaf{ls}-spine{s}"),
                    format!("spine{s}-leaf{ld}"),
                    format!("leaf{ld}-h{}", e.dst),
                ];
                assert_eq!(route, want);
                // The path's propagation both ways: 4 links of 1 us.
                assert_eq!(f.rtt, 8 * PS_PER_SEC / 1_000_000);
                assert_eq!(f.access_delay, 0);
            }
        }
        // src list and single dst: flow k from src[k mod 3] to host 7.
        let pairs: Vec<(u32, u32)> = cfg.groups[0]
            .flows
            .iter()
            .map(|f| (f.endpoints.unwrap().src, f.endpoints.unwrap().dst))
            .collect();
        assert_eq!(pairs, [(0, 7), (1, 7), (2, 7), (0, 7), (1, 7), (2, 7)]);
    }
}

#[test]
fn many_flows_spread_uniformly_over_the_spines() {
    let spines = 8u32;
    let mut v = scenario(7, json!({"count": 8000, "pattern": "random", "size": "10KB"}));
    v["leaf_spine"] = fabric(16, spines, 16);
    let cfg = resolve(&v);
    let mut counts = vec![0f64; spines as usize];
    for f in &cfg.groups[0].flows {
        if let Some(s) = f.endpoints.unwrap().spine {
            counts[s as usize] += 1.0;
        }
    }
    let total: f64 = counts.iter().sum();
    assert!(total > 7000.0, "{total} flows between leaves");
    let expected = total / spines as f64;
    let chi2: f64 = counts.iter().map(|c| (c - expected).powi(2) / expected).sum();
    // 7 degrees of freedom: P(chi2 > 24.32) = 0.001.
    assert!(chi2 < 24.32, "chi-square {chi2} over {counts:?}");
}

#[test]
fn a_permutation_sends_every_host_to_another_leaf_once() {
    for seed in 1..20 {
        let cfg = resolve(&scenario(seed, json!({"count": 12, "pattern": "permutation"})));
        let mut dsts: Vec<u32> = Vec::new();
        for (k, f) in cfg.groups[0].flows.iter().enumerate() {
            let e = f.endpoints.unwrap();
            assert_eq!(e.src, k as u32);
            assert_ne!(e.src / 4, e.dst / 4, "seed {seed}: host {} sent within its leaf", e.src);
            dsts.push(e.dst);
        }
        dsts.sort_unstable();
        assert_eq!(dsts, (0..12).collect::<Vec<_>>(), "seed {seed}: not a permutation");
    }
}

#[test]
fn the_seed_changes_the_spines_and_repeats_the_run() {
    let spines = |seed| -> Vec<Option<u32>> {
        let cfg = resolve(&scenario(seed, json!({"count": 24, "pattern": "permutation"})));
        cfg.groups[0].flows.iter().map(|f| f.endpoints.unwrap().spine).collect()
    };
    assert_ne!(spines(1), spines(2));
    let run = |seed| {
        Simulation::new(resolve(&scenario(seed, json!({"count": 12, "pattern": "permutation"}))))
            .unwrap()
            .finish()
    };
    let (a, b) = (run(3), run(3));
    assert_eq!(a, b);
    assert!(a.summary.delivered > 1000);
}

#[test]
fn packets_are_conserved_at_every_port_and_follow_their_routes() {
    let v = scenario(
        5,
        json!([{"name": "long", "count": 12, "pattern": "permutation"},
                              {"name": "finite", "count": 30, "pattern": "random", "size": "100KB"},
                              {"name": "incast", "count": 8, "src": [0, 1, 2, 3, 4, 5, 6, 7], "dst": 11,
                               "size": "20KB", "incast": {"rounds": 20}}]),
    );
    let cfg = resolve(&v);
    // The ports some flow's route crosses.
    let mut used = vec![false; cfg.network.links.len()];
    for grp in &cfg.groups {
        for f in &grp.flows {
            for &p in grp.route_of(f) {
                used[p] = true;
            }
        }
    }
    let mut sim = Simulation::new(cfg).unwrap();
    for k in 1..=20 {
        sim.run_until(k * PS_PER_SEC / 1000);
        assert_conserved(&sim, &format!("at {k} ms"));
    }
    // Over the whole run, a port saw packets exactly if some flow's route crosses it.
    for (p, on_route) in used.iter().enumerate() {
        let arrivals = sim.port_conservation(p).sent;
        assert_eq!(arrivals > 0, *on_route, "port {p}: {arrivals} arrivals, on a route: {on_route}");
    }
    let r = sim.finish();
    let s = &r.summary;
    assert_eq!(s.sent, s.delivered + s.dropped + s.in_flight);
    for f in &r.flows {
        let route = f.route.as_ref().unwrap();
        match f.spine {
            Some(s) => assert!(route[1].ends_with(&format!("spine{s}")), "{route:?}"),
            None => assert_eq!(route.len(), 2),
        }
    }
    assert!(r.groups.iter().all(|g| g.route.is_empty()));
    assert!(r.groups[2].incast_rounds.is_some());
}

#[test]
fn flows_within_a_leaf_never_touch_a_spine() {
    // Hosts 0-3 on leaf 0, 4-7 on leaf 1: every pair within one leaf.
    let v = scenario(
        1,
        json!([{"count": 4, "src": [0, 1, 2, 3], "dst": [1, 2, 3, 0]},
                              {"count": 4, "src": [4, 5, 6, 7], "dst": [7, 4, 5, 6], "size": "200KB"}]),
    );
    let cfg = resolve(&v);
    let fabric_ports: Vec<usize> =
        (0..cfg.network.links.len()).filter(|&p| cfg.network.links[p].name.contains("spine")).collect();
    assert_eq!(fabric_ports.len(), 24);
    let r = Simulation::new(cfg).unwrap().finish();
    assert!(r.summary.delivered > 1000);
    for p in fabric_ports {
        assert_eq!(r.ports[p].arrivals, 0, "{}", r.ports[p].name);
    }
    assert!(r.flows.iter().all(|f| f.spine.is_none() && f.route.as_ref().unwrap().len() == 2));
}

#[test]
fn errors_name_their_fields() {
    let base = || scenario(1, json!({"count": 4, "pattern": "random"}));
    type Mutation = Box<dyn Fn(&mut Value)>;
    let cases: Vec<(Mutation, &str, &str)> = vec![
        (Box::new(|v| v["leaf_spine"]["leaves"] = json!(0)), "leaf_spine.leaves", "in [1, 256]"),
        (Box::new(|v| v["leaf_spine"]["spines"] = json!(65)), "leaf_spine.spines", "in [1, 64]"),
        (Box::new(|v| v["leaf_spine"]["hosts_per_leaf"] = json!(2000)), "leaf_spine.hosts_per_leaf", "1024"),
        (
            Box::new(|v| v["leaf_spine"]["oversubscription"] = json!(2)),
            "leaf_spine.oversubscription",
            "fabric_rate",
        ),
        (
            Box::new(|v| {
                v["leaf_spine"].as_object_mut().unwrap().remove("fabric_rate");
            }),
            "leaf_spine.fabric_rate",
            "oversubscription",
        ),
        (Box::new(|v| v["flows"] = json!({"count": 1, "src": 12, "dst": 0})), "flows.src", "[0, 11]"),
        (Box::new(|v| v["flows"] = json!({"count": 1, "src": 0, "dst": [1, 40]})), "flows.dst[1]", "[0, 11]"),
        (Box::new(|v| v["flows"] = json!({"count": 1, "src": 3, "dst": 3})), "flows.dst", "itself"),
        (Box::new(|v| v["flows"] = json!({"count": 1, "src": 3})), "flows.dst", "required"),
        (Box::new(|v| v["flows"]["src"] = json!(1)), "flows.src", "not both"),
        (Box::new(|v| v["flows"]["route"] = json!(["h0-up"])), "flows.route", "leaf_spine"),
        (Box::new(|v| v["flows"]["pattern"] = json!("ring")), "flows.pattern", "permutation"),
        (Box::new(|v| v["flows"]["rtt"] = json!("5us")), "flows.rtt", "propagation"),
        (
            Box::new(|v| v["bottleneck"] = json!({"rate": "1Gbps", "queue": {"discipline": "droptail"}})),
            "leaf_spine",
            "bottleneck",
        ),
    ];
    for (mutate, field, words) in cases {
        let mut v = base();
        mutate(&mut v);
        let (f, message) = error(&v);
        assert_eq!(f, field, "{message}");
        assert!(message.contains(words), "{field}: {message}");
    }
    // The hosts' fields belong to a leaf-spine.
    let v = json!({"duration": "1s", "bottleneck": {"rate": "1Gbps", "queue": {"discipline": "droptail"}},
                   "flows": {"count": 1, "rtt": "10ms", "pattern": "random"}});
    assert_eq!(error(&v).0, "flows.pattern");
    // A permutation needs another leaf.
    let mut v = base();
    v["leaf_spine"]["leaves"] = json!(1);
    v["flows"]["pattern"] = json!("permutation");
    assert_eq!(error(&v).0, "flows.pattern");
}

#[test]
fn the_largest_fabric_is_refused_by_its_memory_estimate() {
    let mut v = scenario(1, json!({"count": 1, "src": 0, "dst": 1}));
    v["leaf_spine"] = fabric(256, 64, 1024);
    let (field, message) = error(&v);
    assert_eq!(field, "leaf_spine.hosts_per_leaf", "{message}");
    assert!(message.contains("leaf-spine ports") && message.contains("limits.memory"), "{message}");
}
