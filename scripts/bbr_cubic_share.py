#!/usr/bin/env python3
"""BBR's share of a 50 Mb/s, 40 ms bottleneck against one CUBIC flow as the DropTail buffer grows
(the built-in `bbr-vs-cubic` example; Hock et al. 2017, Ware et al. 2019): means over seeds with 95 %
t-intervals, and ns-3's means at the buffers of validation scenarios v51 and v52 when their results exist.

    python3 scripts/bbr_cubic_share.py [--seeds 10] [--out docs/figures/bbr-vs-cubic-share.png]
"""
from __future__ import annotations

import argparse
import json
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
from scipy import stats  # noqa: E402

import bufferlab  # noqa: E402

BDP_PKTS = 50e6 * 0.04 / 8 / 1500
BUFFERS_BDP = (0.25, 0.5, 1.0, 2.0, 4.0, 8.0)
NS3_RESULTS = {0.5: "v51-bbr-vs-cubic-droptail-half-bdp", 4.0: "v52-bbr-vs-cubic-droptail-4bdp"}


def bbr_share(limit: int, seed: int) -> float:
    """BBR's share of the two groups' goodput in one run."""
    r = bufferlab.run("bbr-vs-cubic", overrides=[f"bottleneck.queue.limit={limit}", f"seed={seed}"],
                      progress=False)
    g = r.groups.set_index("name")["goodput_bps"]
    return float(g["bbr"] / (g["bbr"] + g["cubic"]))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seeds", type=int, default=10)
    ap.add_argument("--out", default="docs/figures/bbr-vs-cubic-share.png")
    args = ap.parse_args()
    means, halves = [], []
    for b in BUFFERS_BDP:
        shares = np.array([bbr_share(max(2, round(b * BDP_PKTS)), s) for s in range(1, args.seeds + 1)])
        means.append(shares.mean())
        halves.append(stats.t.ppf(0.975, len(shares) - 1) * shares.std(ddof=1) / np.sqrt(len(shares)))
        print(f"buffer {b:g} BDP: BBR's share {means[-1]:.3f} ± {halves[-1]:.3f} ({args.seeds} seeds)")
    fig, ax = plt.subplots(figsize=(6, 3.6))
    ax.errorbar(BUFFERS_BDP, means, yerr=halves, marker="o", capsize=3,
                label=f"BufferLab ({args.seeds} seeds)")
    for b, name in NS3_RESULTS.items():
        path = Path("docs/validation/bbr/results") / f"{name}.json"
        if path.exists():
            rows = {r["metric"]: r for r in json.loads(path.read_text())["rows"]}
            row = rows["bbr: goodput share"]
            ax.plot([b], [row["ns3"]], "s", color="C1", label="ns-3 (v51, v52)" if b == 0.5 else None)
    ax.axhline(0.5, color="grey", lw=0.6, ls=":")
    ax.set_xscale("log", base=2)
    ax.set_xlabel("buffer (BDPs)")
    ax.set_ylabel("BBR's share of the goodput")
    ax.set_ylim(0, 1)
    ax.set_title("one BBR flow against one CUBIC flow, 50 Mb/s, 40 ms")
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(args.out, dpi=110)
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
