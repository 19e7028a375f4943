//! The loop's own bookkeeping, seen from inside: a sender's timer is one pending event however often it
//! is re-armed, finished flows give their slots back to later arrivals, and the contents of ACKs crossing
//! a queued link wait in order for their packet.

use super::Simulation;
use crate::config_from_json;
use crate::time::PS_PER_SEC;

fn sim(text: &str) -> Simulation {
    Simulation::new(config_from_json(text).unwrap()).unwrap()
}

#[test]
fn a_re_armed_timer_stays_one_event() {
    // One flow, lossless: its retransmission timer is re-armed by every ACK. Pending events stay a small
    // constant (the flow's timer, its access and receiver events, the port, sampling), never growing with
    // the ACKs.
    let mut s = sim(r#"{"seed": 1, "duration": "20s",
        "bottleneck": {"rate": "10Mbps", "delay": "10ms", "queue": {"discipline": "droptail", "limit": 1000}},
        "flows": {"count": 1, "rtt": "40ms"}, "tcp": {"max_window": 20}}"#);
    let mut most = 0;
    for k in 1..=40 {
        s.run_until(k * PS_PER_SEC / 2);
        most = most.max(s.pending_events());
        let f = &s.flows[0];
        assert!(f.wake.is_armed(), "the timer is armed while data is outstanding (step {k})");
    }
    assert!(most <= 8, "{most} events pending for one flow and one port");
    assert!(s.flows[0].sender.stats.timeouts == 0);
}

#[test]
fn finished_arrivals_give_their_slots_back() {
    // Poisson arrivals of short flows at 30 % load: thousands of flows pass through a few dozen slots.
    let mut s = sim(r#"{"seed": 3, "duration": "30s",
        "bottleneck": {"rate": "20Mbps", "delay": "5ms", "queue": {"discipline": "droptail", "limit": 50}},
        "flows": {"rtt": "40ms", "size": "20KB", "arrival": {"load": 0.3}}}"#);
    let mut most = 0;
    for k in 1..=60 {
        s.run_until(k * PS_PER_SEC / 2);
        most = most.max(s.flow_slots());
        let in_use = s.flows.iter().filter(|f| !f.freed).count();
        assert_eq!(in_use + s.free.len(), s.flows.len(), "every slot is in use or free (step {k})");
        assert!(s.free.iter().all(|&f| s.flows[f as usize].freed && s.flows[f as usize].in_network == 0));
    }
    let started = s.groups[0].built;
    assert!(started > 1000, "{started} flows arrived");
    assert!((most as u64) * 10 < started, "{most} slots for {started} flows");
}

#[test]
fn queued_acks_find_their_contents_in_order() {
    // Two-way traffic: each direction's ACKs queue behind the other's data, with drops on both links.
    let mut s = sim(r#"{"seed": 4, "duration": "10s",
        "links": [{"name": "east", "rate": "5Mbps", "delay": "10ms", "queue": {"discipline": "droptail", "limit": 15}},
                  {"name": "west", "rate": "5Mbps", "delay": "10ms", "queue": {"discipline": "droptail", "limit": 15}}],
        "flows": [{"name": "e", "count": 5, "rtt": "80ms", "route": ["east"], "ack_route": ["west"]},
                  {"name": "w", "count": 5, "rtt": "80ms", "route": ["west"], "ack_route": ["east"]}]}"#);
    for k in 1..=20 {
        s.run_until(k * PS_PER_SEC / 2);
        for f in &s.flows {
            let path = f.ack_path.as_ref().expect("a queued ACK route");
            let c = f.counts();
            // Contents wait for every ACK packet still on its way; a dropped one's are skipped when a later
            // ACK arrives, so at most the dropped ones' wait beside them.
            let on_the_way = c.acks_sent - c.acks_delivered - c.acks_dropped;
            let pending = path.pending.len() as u64;
            assert!(pending >= on_the_way && pending <= on_the_way + c.acks_dropped, "step {k}");
            // Serials are consecutive and in order: ACKs on a FIFO path arrive in the order they left.
            assert!(path
                .pending
                .iter()
                .zip(path.pending.iter().skip(1))
                .all(|(a, b)| b.0 == a.0.wrapping_add(1)));
        }
    }
    let dropped: u64 = s.flows.iter().map(|f| f.counts().acks_dropped).sum();
    assert!(dropped > 0, "some ACKs were dropped, so pairing skipped contents");
}

#[test]
fn a_flow_stays_small() {
    // At 10^6 flows every byte of a flow's state is a megabyte (docs/benchmarks.md, "At scale"): 712 bytes
    // with CUBIC's state boxed, so a controller is 48 bytes.
    assert!(std::mem::size_of::<super::Flow>() <= 712, "{} bytes", std::mem::size_of::<super::Flow>());
    assert!(std::mem::size_of::<crate::tcp::cc::AnyCc>() <= 48);
}
