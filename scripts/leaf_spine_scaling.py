"""The leaf-spine scaling figure (docs/benchmarks.md, "Leaf-spine"). Never run by the tests.

    cargo build --release -p bufferlab-engine --bins
    python scripts/leaf_spine_scaling.py [--hosts 16,32,64,128,256] [--repeat 3] [--out docs/figures]

For each number of hosts: a fabric of ``hosts / 8`` leaves of 8 hosts, 4 spines, 10 Gb/s host links and 2:1
oversubscription (10 Gb/s fabric links), 1 us per link, 100-packet DropTail ports, 8 long NewReno flows per
host between hosts drawn at random (``pattern = "random"``), 1,000-byte packets, 5 ms simulated. Runs the
engine alone (``target/release/bufferlab-bench``), best of ``--repeat``, and plots wall time per simulated
second and per packet (per packet sent, and per packet-hop: a packet's departure from one port) against the
hosts, into ``leaf-spine-scaling.png`` and ``.svg``; prints the numbers as JSON lines.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import tempfile
from pathlib import Path
from typing import Any, Dict, List

ROOT = Path(__file__).resolve().parent.parent
BENCH = ROOT / "target" / "release" / "bufferlab-bench"
HOSTS_PER_LEAF = 8
FLOWS_PER_HOST = 8
DURATION_S = 0.005


def scenario(hosts: int) -> Dict[str, Any]:
    """The fabric of ``hosts`` hosts described in the module's doc."""
    return {
        "duration": f"{DURATION_S}s",
        "leaf_spine": {"leaves": hosts // HOSTS_PER_LEAF, "spines": 4, "hosts_per_leaf": HOSTS_PER_LEAF,
                       "host_rate": "10Gbps", "oversubscription": 2,
                       "queue": {"discipline": "droptail", "limit": 100}},
        "flows": {"count": FLOWS_PER_HOST * hosts, "pattern": "random", "start": {"uniform": ["0s", "1ms"]}},
        "tcp": {"packet_size": 1000, "min_rto": "1ms", "initial_rto": "1ms"},
    }


def measure(hosts: int, repeat: int) -> Dict[str, Any]:
    """The best of ``repeat`` runs of ``bufferlab-bench`` on the fabric of ``hosts`` hosts."""
    with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as f:
        json.dump(scenario(hosts), f)
    try:
        runs = [json.loads(subprocess.run([str(BENCH), f.name], check=True, capture_output=True,
                                          text=True).stdout) for _ in range(repeat)]
    finally:
        Path(f.name).unlink()
    best = min(runs, key=lambda r: r["wall_s"])
    wall = best["wall_s"]
    return {"hosts": hosts, "flows": FLOWS_PER_HOST * hosts, "wall_s": wall, "events": best["events"],
            "sent": best["sent"], "port_departures": best["port_departures"],
            "wall_per_simulated_s": wall / DURATION_S, "us_per_packet": 1e6 * wall / best["sent"],
            "us_per_hop": 1e6 * wall / best["port_departures"]}


def plot(rows: List[Dict[str, Any]], out: Path) -> None:
    """Two panels against the hosts: wall seconds per simulated second, microseconds per packet and hop."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    hosts = [r["hosts"] for r in rows]
    fig, (left, right) = plt.subplots(1, 2, figsize=(10, 4))
    left.plot(hosts, [r["wall_per_simulated_s"] for r in rows], "o-")
    left.set(xscale="log", yscale="log", xlabel="hosts (8 flows each)", ylabel="wall s per simulated s",
             title="leaf-spine: wall time per simulated second")
    right.plot(hosts, [r["us_per_packet"] for r in rows], "o-", label="per packet sent")
    right.plot(hosts, [r["us_per_hop"] for r in rows], "s-", label="per packet-hop (port departure)")
    right.set(xscale="log", xlabel="hosts (8 flows each)", ylabel="wall µs", ylim=(0, None),
              title="wall time per packet")
    right.legend()
    for ax in (left, right):
        ax.xaxis.set_minor_locator(matplotlib.ticker.NullLocator())
        ax.set_xticks(hosts, [str(h) for h in hosts])
        ax.grid(True, alpha=0.3)
    fig.tight_layout()
    out.mkdir(parents=True, exist_ok=True)
    for ext in ("png", "svg"):
        fig.savefig(out / f"leaf-spine-scaling.{ext}", dpi=120)
    plt.close(fig)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hosts", default="16,32,64,128,256")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--out", type=Path, default=ROOT / "docs" / "figures")
    args = parser.parse_args()
    if not BENCH.exists():
        raise SystemExit(f"{BENCH} is missing: cargo build --release -p bufferlab-engine --bins")
    rows = []
    for hosts in (int(h) for h in args.hosts.split(",")):
        rows.append(measure(hosts, args.repeat))
        print(json.dumps(rows[-1]), flush=True)
    plot(rows, args.out)


if __name__ == "__main__":
    main()
