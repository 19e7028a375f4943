//! Enachescu et al. 2005 ("Routers with very small buffers") in whole simulations: paced TCP (§2.6, and
//! Linux's pacing rate) keeps its gaps and spreads its window over the RTT at the bottleneck; Poisson
//! injection (§2.3) conserves packets, is deterministic, and drops no more than the M/D/1/B queue of
//! Theorem 1's virtual system (Lemmas 1–2).

mod common;

use bufferlab_engine::time::{from_secs, to_secs, Time};
use bufferlab_engine::{config_from_json, run_json, Simulation};
use common::assert_conserved;

fn sim(text: &str) -> Simulation {
    Simulation::new(config_from_json(text).unwrap()).unwrap()
}

/// Arrival times at each port, read by running the simulation `step` at a time until `until`: an arrival
/// is dated at the end of the step in which its port's arrival count rose (so within `step` after it
/// happened); a rise of k records the time k times.
fn arrival_times(s: &mut Simulation, ports: usize, step: Time, until: Time) -> Vec<Vec<Time>> {
    let mut times = vec![Vec::new(); ports];
    let mut seen = vec![0; ports];
    let mut t = 0;
    while t < until {
        t += step;
        s.run_until(t);
        for p in 0..ports {
            let arrivals = s.port_conservation(p).sent; // a port's `sent`: the packets that arrived at it
            for _ in seen[p]..arrivals {
                times[p].push(t);
            }
            seen[p] = arrivals;
        }
    }
    times
}

/// Six single-flow groups, each entering its own 1 Gb/s link ("in0".."in5") before a shared 10 Mb/s
/// bottleneck with a 5-packet DropTail buffer: a flow's packet times are its first port's arrivals.
fn six_paced_flows(pacing: &str) -> String {
    let ins: Vec<String> = (0..6)
        .map(|i| {
            format!(r#"{{"name": "in{i}", "rate": "1Gbps", "delay": "1ms", "queue": {{"discipline": "droptail", "limit": 1000}}}}"#)
        })
        .collect();
    let groups: Vec<String> = (0..6)
        .map(|i| format!(r#"{{"name": "f{i}", "count": 1, "rtt": "100ms", "route": ["in{i}", "bottleneck"], "start": "{}s"}}"#, 0.1 * i as f64))
        .collect();
    format!(
        r#"{{"seed": 1, "duration": "20s", "warmup": "2s",
            "links": [{}, {{"name": "bottleneck", "rate": "10Mbps", "delay": "5ms", "queue": {{"discipline": "droptail", "limit": 5}}}}],
            "flows": [{}],
            "tcp": {{"pacing": {pacing}, "max_window": 40}}}}"#,
        ins.join(", "),
        groups.join(", ")
    )
}

#[test]
fn paced_senders_never_emit_two_packets_closer_than_the_pacing_gap() {
    // "rtt": gap = srtt / min(cwnd, W_max) >= base RTT / W_max = 2.5 ms (every RTT sample exceeds the
    // propagation RTT, so srtt does too). "linux": gap = srtt / (ratio · max(cwnd, in flight)) with
    // ratio <= 2 and at most W_max in flight: >= 1.25 ms. This holds through losses, fast recovery and
    // timeouts (checked below to happen). Flow i starts at 0.1·i s; its initial window, unpaced (no RTT
    // sample yet), reaches its port 44 ms later (the access delay), the first paced packet 145 ms later.
    let step = from_secs(50e-6);
    for (pacing, bound) in [(r#""rtt""#, 0.1 / 40.0), ("true", 0.1 / 40.0), (r#""linux""#, 0.1 / 80.0)] {
        let mut s = sim(&six_paced_flows(pacing));
        let times = arrival_times(&mut s, 6, step, from_secs(20.0));
        assert_conserved(&s, "paced flows");
        let mut closest = f64::INFINITY;
        for (i, flow) in times.iter().enumerate() {
            let first_rtt = from_secs(0.1 * i as f64 + 0.1);
            let late: Vec<Time> = flow.iter().copied().filter(|&t| t > first_rtt).collect();
            assert!(late.len() > 2500, "{pacing}: {} packets", late.len());
            for pair in late.windows(2) {
                // Each time is late by less than one step.
                closest = closest.min(to_secs(pair[1] - pair[0]) + to_secs(step));
            }
        }
        assert!(closest >= bound, "{pacing}: two packets {closest} s apart, gap at least {bound} s");
        let r = s.finish();
        let g = &r.groups;
        assert!(r.ports[6].drops > 50, "{pacing}: the bottleneck drops");
        assert!(g.iter().map(|g| g.tcp.fast_recoveries).sum::<u64>() > 20, "{pacing}: {g:?}");
        assert!(g.iter().map(|g| g.tcp.timeouts).sum::<u64>() > 0, "{pacing}: {g:?}");
    }
}

#[test]
fn a_paced_flow_is_evenly_spread_over_the_rtt_at_the_bottleneck() {
    // One flow, W_max = 20, no loss: its cwnd grows far beyond 20, but the paced window is the 20 packets
    // it may have in flight, one every srtt/20 (about 5 ms). Unpaced, the ACK clock sends each window as
    // a burst at the bottleneck's rate (0.8 ms apart), then nothing for the rest of the RTT.
    let one = |pacing: &str| {
        format!(
            r#"{{"duration": "20s", "warmup": "2s",
                "bottleneck": {{"rate": "10Mbps", "delay": "5ms", "queue": {{"discipline": "droptail", "limit": 100}}}},
                "flows": {{"count": 1, "rtt": "100ms"}}, "tcp": {{"pacing": {pacing}, "max_window": 20}}}}"#
        )
    };
    let step = from_secs(10e-6);
    let gaps = |pacing: &str| {
        let mut s = sim(&one(pacing));
        let times = arrival_times(&mut s, 1, step, from_secs(20.0));
        let late: Vec<Time> = times[0].iter().copied().filter(|&t| t > from_secs(5.0)).collect();
        let gaps: Vec<f64> = late.windows(2).map(|p| to_secs(p[1] - p[0])).collect();
        let r = s.finish();
        assert_eq!(r.summary.drops, 0);
        assert!(r.flows[0].final_cwnd > 100.0, "cwnd grows past W_max: {}", r.flows[0].final_cwnd);
        (gaps, r.flows[0].srtt_s.unwrap())
    };
    let (paced, srtt) = gaps(r#""rtt""#);
    let mean = paced.iter().sum::<f64>() / paced.len() as f64;
    // Arrival times are read to within one 10 µs step: 0.2 % of the gap.
    assert!((mean / (srtt / 20.0) - 1.0).abs() < 0.005, "mean gap {mean}, srtt/20 = {}", srtt / 20.0);
    let (lo, hi) = paced.iter().fold((f64::INFINITY, 0.0f64), |(lo, hi), &g| (lo.min(g), hi.max(g)));
    assert!(lo > 0.99 * mean && hi < 1.01 * mean, "paced gaps in [{lo}, {hi}], mean {mean}");
    // Every RTT-long window holds 20 packets, give or take the one at its edge.
    let times: Vec<f64> = paced
        .iter()
        .scan(0.0, |t, g| {
            *t += g;
            Some(*t)
        })
        .collect();
    let last = times[times.len() - 1];
    for (i, &t) in times.iter().enumerate().take_while(|&(_, &t)| t + srtt <= last) {
        let n = times[i..].iter().take_while(|&&u| u < t + srtt).count();
        assert!((19..=21).contains(&n), "{n} packets in the RTT after {t}");
    }
    let (unpaced, _) = gaps("false");
    let (lo, hi) = unpaced.iter().fold((f64::INFINITY, 0.0f64), |(lo, hi), &g| (lo.min(g), hi.max(g)));
    assert!(hi / lo > 50.0, "unpaced: bursts and silences, gaps in [{lo}, {hi}]");
}

fn poisson_flows(seed: u64, limit: u32, duration: &str) -> String {
    // 20 flows, W_max = 10 packets, base RTT 100 ms through 20 Mb/s (2,500 packets/s): peak load
    // rho = 20 · 10 / (0.1 · 2500) = 0.8.
    format!(
        r#"{{"seed": {seed}, "duration": "{duration}", "warmup": "10s",
            "bottleneck": {{"rate": "20Mbps", "delay": "5ms", "queue": {{"discipline": "droptail", "limit": {limit}}}}},
            "flows": {{"count": 20, "rtt": "100ms", "access_rate": "10Gbps", "start": {{"uniform": ["0s", "1s"]}}}},
            "tcp": {{"congestion_control": "poisson", "max_window": 10}}}}"#
    )
}

#[test]
fn poisson_injection_conserves_packets_and_is_deterministic() {
    let text = poisson_flows(3, 4, "20s");
    let mut s = sim(&text);
    for k in 1..=40 {
        s.run_until(k * from_secs(0.5));
        assert_conserved(&s, &format!("at step {k}"));
    }
    let r = s.finish();
    assert_eq!(r.groups[0].congestion_control, "poisson");
    assert!(r.summary.drops > 0 && r.summary.retransmits > 0);
    assert_eq!(run_json(&text).unwrap(), r);
    assert_ne!(run_json(&poisson_flows(4, 4, "20s")).unwrap().summary, r.summary);
}

#[test]
fn poisson_injection_drops_no_more_than_theorem_1s_virtual_md1b_queue() {
    // Lemma 1: the real system drops no more than the virtual one, where every flow injects Poisson
    // traffic at W_max/RTT: an M/D/1/B queue at load rho = 0.8 (K = limit + 1 places, the packet in
    // service included). Its loss (the note's exact M/D/1/K table, §2.5): 3.53e-2 at K = 5, 3.64e-3 at
    // K = 10; its drops per second are rho·C times that. Measured: about 18 and 4.4 drops/s against
    // 70.6 and 7.3.
    for (limit, md1k) in [(4, 3.53e-2), (9, 3.64e-3)] {
        let r = run_json(&poisson_flows(1, limit, "60s")).unwrap();
        let s = &r.summary;
        let virtual_drops = 0.8 * 2500.0 * md1k;
        let drops = s.drops as f64 / 50.0;
        assert!(drops < virtual_drops, "limit {limit}: {drops} drops/s, virtual {virtual_drops}");
        assert!(s.loss_rate < md1k, "limit {limit}: loss {} above the virtual {md1k}", s.loss_rate);
        assert!(s.drops > 50, "limit {limit}: losses happen ({})", s.drops);
    }
}
