// htsim twin of BufferLab's benchmarks/htsim/twin.json: N long-lived TCP (htsim's TcpSrc/TcpSink,
// NewReno without SACK) flows through one drop-tail bottleneck.  Built against htsim's sim/libhtsim.a
// by build.sh.  Prints one JSON line at the end; the wall time covers the event loop only.
//
// Defaults: 1000 flows starting uniformly in [0, 1] s (std::mt19937_64, seed 1), 1 Gb/s bottleneck
// with a 1000 x 1500-byte queue, base RTT 100 ms (50 ms forward pipe after the queue, 50 ms reverse
// pipe for the ACKs), 1500-byte packets, 10 s simulated.
//
// Options: -flows N  -seconds S  -seed K  -qpkts Q  -rtt_ms R  -rate_mbps M
//          -quiet            silence htsim's one stdout line per retransmission timeout during the loop
//          -htsim_ssthresh   keep htsim's initial ssthresh of 100 MSS (default: set it to 2^32-1,
//                            "arbitrarily high" as RFC 5681 and BufferLab)
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <random>
#include <vector>

#include "config.h"
#include "eventlist.h"
#include "network.h"
#include "pipe.h"
#include "queue.h"
#include "tcp.h"

// htsim's FIFO Queue, counting the packets that finish serialization (departures).
class CountingQueue : public Queue {
public:
    CountingQueue(linkspeed_bps rate, mem_b maxsize, EventList& ev)
        : Queue(rate, maxsize, ev, NULL), departures(0) {}
    uint64_t departures;
protected:
    void completeService() override {
        departures++;
        Queue::completeService();
    }
};

int main(int argc, char** argv) {
    int flows = 1000;
    double seconds = 10.0;
    unsigned long seed = 1;
    int qpkts = 1000;
    double rtt_ms = 100.0;
    double rate_mbps = 1000.0;
    bool htsim_ssthresh = false;
    bool quiet = false;
    const int pkt = 1500;

    for (int i = 1; i < argc; i++) {
        auto need = [&](const char* name) {
            if (i + 1 >= argc) { fprintf(stderr, "%s needs a value\n", name); exit(2); }
            return argv[++i];
        };
        if (!strcmp(argv[i], "-flows")) flows = atoi(need("-flows"));
        else if (!strcmp(argv[i], "-seconds")) seconds = atof(need("-seconds"));
        else if (!strcmp(argv[i], "-seed")) seed = strtoul(need("-seed"), NULL, 10);
        else if (!strcmp(argv[i], "-qpkts")) qpkts = atoi(need("-qpkts"));
        else if (!strcmp(argv[i], "-rtt_ms")) rtt_ms = atof(need("-rtt_ms"));
        else if (!strcmp(argv[i], "-rate_mbps")) rate_mbps = atof(need("-rate_mbps"));
        else if (!strcmp(argv[i], "-htsim_ssthresh")) htsim_ssthresh = true;
        else if (!strcmp(argv[i], "-quiet")) quiet = true;
        else { fprintf(stderr, "unknown option %s\n", argv[i]); return 2; }
    }

    Packet::set_packet_size(pkt);  // must come before anything reads it (TcpSrc's _mss, memFromPkt)
    EventList& ev = EventList::getTheEventList();
    ev.setEndtime(timeFromSec(seconds));

    // Data path: bottleneck queue, then the forward propagation; ACK path: the reverse propagation.
    CountingQueue bottleneck(speedFromMbps(rate_mbps), memFromPkt(qpkts), ev);
    bottleneck.setName("bottleneck");
    Pipe fwd(timeFromMs(rtt_ms / 2.0), ev);
    Pipe rev(timeFromMs(rtt_ms / 2.0), ev);

    // htsim checks every source's retransmission timer from one periodic scanner (10 ms, as its
    // own TCP examples).
    TcpRtxTimerScanner scanner(timeFromMs(10), ev);

    std::mt19937_64 rng(seed);
    std::uniform_real_distribution<double> start_s(0.0, 1.0);

    std::vector<TcpSrc*> srcs;
    std::vector<TcpSink*> sinks;
    srcs.reserve(flows);
    sinks.reserve(flows);
    for (int f = 0; f < flows; f++) {
        TcpSrc* src = new TcpSrc(NULL, NULL, ev);
        TcpSink* snk = new TcpSink();
        if (!htsim_ssthresh) src->set_ssthresh(0xffffffffu);
        scanner.registerTcp(*src);

        Route* out = new Route();
        out->push_back(&bottleneck);
        out->push_back(&fwd);
        out->push_back(snk);
        Route* back = new Route();
        back->push_back(&rev);
        back->push_back(src);

        src->connect(*out, *back, *snk, timeFromSec(start_s(rng)));
        srcs.push_back(src);
        sinks.push_back(snk);
    }

    uint64_t events = 0;
    if (quiet) std::cout.setstate(std::ios::badbit);  // htsim's TcpSrc prints each timeout to cout
    auto t0 = std::chrono::steady_clock::now();
    while (ev.doNextEvent()) events++;
    auto t1 = std::chrono::steady_clock::now();
    double wall = std::chrono::duration<double>(t1 - t0).count();
    std::cout.clear();

    uint64_t sink_bytes = 0, sent_bytes = 0;
    for (auto s : sinks) sink_bytes += s->_packets;
    for (auto s : srcs) sent_bytes += s->_packets_sent;
    double sim_s = timeAsSec(EventList::now());
    uint64_t pkts = bottleneck.departures;
    double util = (double)pkts * pkt * 8.0 / (rate_mbps * 1e6 * seconds);
    fflush(stdout);
    std::cout.flush();
    printf("{\"program\": \"htsim-twin\", \"sim_s\": %.6f, \"wall_s\": %.4f, \"bottleneck_packets\": %llu, "
           "\"s_per_million_packets\": %.4f, \"events\": %llu, \"events_per_s\": %.0f, "
           "\"utilization\": %.4f, \"drops\": %d, \"sent_data_packets\": %llu, \"sink_bytes\": %llu, "
           "\"flows\": %d, \"initial_ssthresh\": \"%s\", \"quiet\": %s}\n",
           sim_s, wall, (unsigned long long)pkts, wall / (pkts / 1e6), (unsigned long long)events,
           events / wall, util, bottleneck.num_drops(), (unsigned long long)(sent_bytes / pkt),
           (unsigned long long)sink_bytes, flows, htsim_ssthresh ? "100 MSS (htsim)" : "2^32-1 B", quiet ? "true" : "false");
    return 0;
}
