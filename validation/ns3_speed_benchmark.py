"""ns-3 on the issue-2 speed benchmark: 1,000 flows, 1 Gb/s, 100 ms RTT, 1,000-packet DropTail, 1,000 B, 10 s.

Usage: PYTHONPATH=python python validation/ns3_speed_benchmark.py 10s  (writes ns3_speed_benchmark_<dur>.json)
"""

import json
import resource
import sys
import time

from bufferlab.validation.ns3sim import run_ns3

dur = sys.argv[1]
sc = {
    "name": "speed-benchmark",
    "seed": 1,
    "duration": dur,
    "warmup": "0s",
    "bottleneck": {"rate": "1Gbps", "delay": "5ms", "queue": {"discipline": "droptail", "limit": 1000}},
    "flows": {"count": 1000, "rtt": "100ms", "start": {"uniform": ["0s", "1s"]}},
    "tcp": {"packet_size": "1000B"},
}
t = time.time()
r = run_ns3(sc)
r.pop("flows")
r.pop("ns3_config")
r["total_s"] = time.time() - t
r["peak_rss_mb"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
json.dump(r, open(f"ns3_speed_benchmark_{dur}.json", "w"), indent=1)
print(json.dumps(r, indent=1))
