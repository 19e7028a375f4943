//! A run's [`Results`], built from what the simulation holds where its measurement window closes.

use super::{Conservation, Flow, GroupState};
use crate::monitor::{jain_index, FctStats, FlowStats, LogHistogram, ReasonCounts};
use crate::network::shared_buffer::PoolStats;
use crate::network::Port;
use crate::queue::QueueDisc;
use crate::results::{
    FctRecordResult, FctResult, FlowResult, GroupResult, PortResult, Results, Series, Summary, UdpResult,
};
use crate::scenario::Config;
use crate::tcp::sender::SenderStats;
use crate::time::{to_secs, Time};
use crate::traffic::UdpSource;
use std::collections::BTreeMap;

/// What the results are built from, borrowed from the simulation (not its event queue, pipes or tracer).
pub(super) struct Parts<'a> {
    pub(super) cfg: &'a Config,
    pub(super) ports: &'a [Port],
    /// Flow slots; the first `fixed` hold the flows started at fixed times, in the order of their rows.
    pub(super) flows: &'a [Flow],
    pub(super) fixed: usize,
    pub(super) groups: &'a [GroupState],
    pub(super) udp: &'a [UdpSource],
    pub(super) fct: &'a FctStats,
    /// All senders' counters when the warm-up ended.
    pub(super) sender_at_warmup: SenderStats,
    pub(super) events: u64,
    pub(super) peak_slots: usize,
    /// Each port's shared buffer (index, place) and each buffer's statistics.
    pub(super) pool_of: &'a [Option<(u32, u32)>],
    pub(super) pools: &'a [PoolStats],
}

/// One group's counters: its fixed flows', its arrival flows' (finished ones included), and all its
/// senders'.
#[derive(Clone, Copy, Default)]
struct GroupTotals {
    fixed: FlowStats,
    arrived: FlowStats,
    sender: SenderStats,
}

impl Parts<'_> {
    /// The results over `[warmup, end]` (the ports' statistics closed at `end`), with the whole run's
    /// packet balance `conservation` and the sampled `series`.
    pub(super) fn results(
        &self,
        end: Time,
        partial: bool,
        conservation: Conservation,
        series: Series,
    ) -> Results {
        let window = end - self.cfg.warmup;
        let secs = to_secs(window);
        let flows = self.flow_results(secs);
        let totals = self.group_totals();
        let groups = self.group_results(&flows, &totals, secs);
        let in_window = self.sender_totals().since(&self.sender_at_warmup);
        // Summed as the flows' rows are, so a scenario without arrivals reports the sum of its rows.
        let arrival_goodput: f64 = totals.iter().map(|t| t.arrived.goodput_bytes as f64 * 8.0 / secs).sum();
        let ports = self.port_results(window);
        let goodputs: Vec<f64> = flows.iter().map(|f| f.goodput_bps).collect();
        let p0 = &ports[0];
        let st = &self.ports[0].stats;
        let summary = Summary {
            name: self.cfg.name.clone(),
            seed: self.cfg.seed,
            flows: flows.len() as u64,
            duration_s: to_secs(end),
            warmup_s: to_secs(self.cfg.warmup),
            partial,
            utilization: p0.utilization,
            throughput_bps: p0.throughput_bps,
            goodput_bps: goodputs.iter().sum::<f64>() + arrival_goodput,
            arrivals: st.arrivals,
            departures: st.departures,
            drops_overflow: st.drops_overflow(),
            drops_early: st.drops_early(),
            drops_forced: st.drops_forced(),
            drops: st.drops(),
            marks: st.marks,
            loss_rate: p0.loss_rate,
            mark_rate: p0.mark_rate,
            queue_mean_pkts: p0.queue_mean_pkts,
            queue_p50_pkts: p0.queue_p50_pkts,
            queue_p90_pkts: st.queue_quantile(0.9),
            queue_p99_pkts: p0.queue_p99_pkts,
            queue_max_pkts: p0.queue_max_pkts,
            delay_mean_s: p0.delay_mean_s,
            delay_std_s: st.delay.std(),
            delay_p50_s: p0.delay_p50_s,
            delay_p90_s: st.delay_quantile(0.9),
            delay_p99_s: p0.delay_p99_s,
            jain_index: (!goodputs.is_empty()).then(|| jain_index(&goodputs)),
            timeouts: groups.iter().map(|g| g.tcp.timeouts).sum(),
            fast_retransmits: groups.iter().map(|g| g.tcp.fast_recoveries).sum(),
            retransmits: groups.iter().map(|g| g.tcp.retransmits).sum(),
            window_timeouts: in_window.timeouts,
            window_timeouts_lost_retransmission: in_window.timeouts_lost_retransmission,
            window_timeouts_during_recovery: in_window.timeouts_during_recovery,
            window_timeouts_insufficient_dupacks: in_window.timeouts_insufficient_dupacks,
            window_timeouts_other: in_window.timeouts_other,
            sent: conservation.sent,
            delivered: conservation.delivered,
            dropped: conservation.dropped,
            in_flight: conservation.in_network,
            events: self.events,
            ports: self.ports.len() as u64,
            groups: self.groups.len() as u64,
            flows_started: self.groups.iter().map(|g| g.started).sum(),
            flows_completed: self.groups.iter().map(|g| g.completed).sum(),
            peak_flow_slots: self.peak_slots as u64,
        };
        let (fct, fct_records) = self.fct_results();
        Results { summary, flows, ports, groups, fct, fct_records, udp: self.udp_results(), series }
    }

    /// Every sender's counters, finished flows included.
    pub(super) fn sender_totals(&self) -> SenderStats {
        let mut all = SenderStats::default();
        for t in self.group_totals() {
            all.add(&t.sender);
        }
        all
    }

    fn group_totals(&self) -> Vec<GroupTotals> {
        let mut totals: Vec<GroupTotals> = self
            .groups
            .iter()
            .map(|g| GroupTotals {
                fixed: FlowStats::default(),
                arrived: g.retired,
                sender: g.retired_sender,
            })
            .collect();
        for (i, f) in self.flows.iter().enumerate() {
            if f.freed {
                continue;
            }
            let t = &mut totals[f.group as usize];
            if i < self.fixed {
                t.fixed.add(&f.stats);
            } else {
                t.arrived.add(&f.stats);
            }
            t.sender.add(&f.sender.stats);
        }
        totals
    }

    /// The rows of the flows started at fixed times, over a window of `secs`. Their RTT, start and size are
    /// the flows' own (never changed for a fixed flow); a leaf-spine flow's hosts and route come from its
    /// configuration, which the simulation keeps for groups that have them (the `k`-th fixed flow of its
    /// group is its group's `k`-th configuration: fixed flows are in group order).
    fn flow_results(&self, secs: f64) -> Vec<FlowResult> {
        let mut k = 0;
        let mut group = u32::MAX;
        self.flows[..self.fixed]
            .iter()
            .enumerate()
            .map(|(i, f)| {
                k = if f.group == group { k + 1 } else { 0 };
                group = f.group;
                let g = f.group as usize;
                let fc = self.cfg.groups[g].flows.get(k);
                let endpoints = fc.and_then(|fc| fc.endpoints);
                FlowResult {
                    flow: i as u32,
                    group: f.group,
                    rtt_s: to_secs(f.rtt),
                    start_s: to_secs(f.start),
                    goodput_bps: f.stats.goodput_bytes as f64 * 8.0 / secs,
                    throughput_bps: f.stats.throughput_bytes as f64 * 8.0 / secs,
                    tcp: f.sender.stats,
                    drops: f.stats.drops,
                    marks: f.stats.marks,
                    final_cwnd: f.sender.cwnd(),
                    srtt_s: f.sender.srtt(),
                    size_bytes: f.size_bytes(),
                    fct_s: f.fct().map(to_secs),
                    src: endpoints.map(|e| e.src),
                    dst: endpoints.map(|e| e.dst),
                    spine: endpoints.and_then(|e| e.spine),
                    route: fc.filter(|fc| fc.endpoints.is_some()).map(|fc| {
                        let route = self.cfg.groups[g].route_of(fc);
                        route.iter().map(|&p| self.cfg.network.links[p].name.clone()).collect()
                    }),
                }
            })
            .collect()
    }

    fn port_results(&self, window: Time) -> Vec<PortResult> {
        self.ports
            .iter()
            .zip(&self.cfg.network.links)
            .enumerate()
            .map(|(p, (port, link))| {
                let st = &port.stats;
                let exposed = st.exposed() as f64;
                let reasons = |r: &ReasonCounts| -> BTreeMap<String, u64> {
                    r.0.iter().map(|&(n, c)| (n.to_string(), c)).collect()
                };
                let pool = self.pool_of[p].map(|(b, _)| b as usize);
                PortResult {
                    port: p as u32,
                    name: link.name.clone(),
                    discipline: link.queue.name().to_string(),
                    rate_bps: link.rate,
                    delay_s: link.delay_s,
                    utilization: st.busy as f64 / window as f64,
                    throughput_bps: st.busy as f64 / window as f64 * link.rate,
                    arrivals: st.arrivals,
                    departures: st.departures,
                    drops: st.drops(),
                    drops_at_dequeue: st.drops_at_dequeue,
                    marks: st.marks,
                    loss_rate: st.drops() as f64 / exposed,
                    mark_rate: st.marks as f64 / exposed,
                    drop_reasons: reasons(&st.drop_reasons),
                    mark_reasons: reasons(&st.mark_reasons),
                    queue_mean_pkts: st.queue_mean(window),
                    queue_p50_pkts: st.queue_quantile(0.5),
                    queue_p99_pkts: st.queue_quantile(0.99),
                    queue_max_pkts: st.queue_max() as f64,
                    delay_mean_s: st.delay.mean(),
                    delay_p50_s: st.delay_quantile(0.5),
                    delay_p99_s: st.delay_quantile(0.99),
                    queue_state: {
                        let mut state = BTreeMap::new();
                        port.queue.report(&mut state);
                        state
                    },
                    shared_buffer: pool.map(|b| self.cfg.shared_buffers[b].name.clone()),
                    shared_buffer_bytes: pool.map(|b| self.cfg.shared_buffers[b].size),
                    shared_buffer_occupancy_mean_bytes: pool.and_then(|b| self.pools[b].mean_occupancy()),
                    shared_buffer_occupancy_max_bytes: pool
                        .filter(|&b| self.pools[b].arrivals > 0)
                        .map(|b| self.pools[b].occupancy_max),
                }
            })
            .collect()
    }

    fn group_results(&self, flows: &[FlowResult], totals: &[GroupTotals], secs: f64) -> Vec<GroupResult> {
        let names =
            |r: &[usize]| r.iter().map(|&p| self.cfg.network.links[p].name.clone()).collect::<Vec<_>>();
        self.cfg
            .groups
            .iter()
            .enumerate()
            .map(|(g, grp)| {
                let state = &self.groups[g];
                let t = &totals[g];
                let mut stats = t.fixed;
                stats.add(&t.arrived);
                let goodputs: Vec<f64> =
                    flows.iter().filter(|f| f.group as usize == g).map(|f| f.goodput_bps).collect();
                let buckets = &self.fct.buckets[g];
                let count: u64 = buckets.iter().map(|b| b.fct.count()).sum();
                let mean = (count > 0).then(|| {
                    buckets.iter().map(|b| b.fct.mean() * b.fct.count() as f64).sum::<f64>() / count as f64
                });
                let mut all = LogHistogram::default();
                for b in buckets {
                    all.merge(&b.hist);
                }
                let rounds = state.incast.as_ref().map(|run| &run.rounds);
                let measured = rounds.filter(|r| r.count() > 0);
                GroupResult {
                    group: g as u32,
                    name: grp.name.clone(),
                    congestion_control: grp.cc.name().to_string(),
                    route: if grp.per_flow_routes { Vec::new() } else { names(grp.route()) },
                    ack_route: names(&grp.ack_route),
                    flows_started: state.started,
                    flows_completed: state.completed,
                    goodput_bps: stats.goodput_bytes as f64 * 8.0 / secs,
                    throughput_bps: stats.throughput_bytes as f64 * 8.0 / secs,
                    tcp: t.sender,
                    drops: stats.drops,
                    ack_drops: stats.ack_drops,
                    marks: stats.marks,
                    jain_index: (!goodputs.is_empty()).then(|| jain_index(&goodputs)),
                    fct_count: count,
                    fct_mean_s: mean,
                    fct_p99_s: (count > 0).then(|| to_secs(all.quantile(0.99).round() as Time)),
                    incast_rounds: rounds.map(|r| r.count()),
                    rct_mean_s: measured.map(|r| r.mean_s()),
                    rct_p50_s: measured.map(|r| r.quantile_s(0.5)),
                    rct_p99_s: measured.map(|r| r.quantile_s(0.99)),
                    rct_max_s: measured.map(|r| r.max_s()),
                    incast_goodput_bps: measured.map(|r| r.goodput_bps()),
                }
            })
            .collect()
    }

    fn fct_results(&self) -> (Vec<FctResult>, Vec<FctRecordResult>) {
        let mut out = Vec::new();
        for (g, buckets) in self.fct.buckets.iter().enumerate() {
            for (b, bucket) in buckets.iter().enumerate() {
                if bucket.fct.count() == 0 {
                    continue;
                }
                let (lo, hi) = self.fct.bounds(b);
                let q = |x: f64| to_secs(bucket.hist.quantile(x).round() as Time);
                out.push(FctResult {
                    group: g as u32,
                    size_lo: lo,
                    size_hi: (hi != u64::MAX).then_some(hi),
                    count: bucket.fct.count(),
                    mean_s: bucket.fct.mean(),
                    std_s: bucket.fct.std(),
                    p50_s: q(0.5),
                    p90_s: q(0.9),
                    p99_s: q(0.99),
                    slowdown_mean: bucket.slowdown.mean(),
                });
            }
        }
        let records = self
            .fct
            .records
            .iter()
            .map(|r| FctRecordResult {
                group: r.group,
                size_bytes: r.size_bytes,
                start_s: to_secs(r.start),
                fct_s: to_secs(r.fct),
                rtt_s: to_secs(r.rtt),
            })
            .collect();
        (out, records)
    }

    fn udp_results(&self) -> Vec<UdpResult> {
        self.udp
            .iter()
            .enumerate()
            .map(|(i, u)| UdpResult {
                source: i as u32,
                sent: u.sent,
                delivered: u.delivered,
                drops: u.drops,
                loss_rate: u.drops as f64 / (u.delivered + u.drops).max(1) as f64,
            })
            .collect()
    }
}
