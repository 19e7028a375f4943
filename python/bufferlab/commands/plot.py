"""`bufferlab plot DIR --x KEY --y METRIC`: a sweep's metric, mean and 95 % band over seeds
(:mod:`bufferlab.sweeps.plot`)."""

from __future__ import annotations

import argparse
from typing import Any, List


def register(sub: Any) -> None:
    """Add the ``plot`` sub-command to the main ``bufferlab`` parser."""
    p = sub.add_parser(
        "plot", help="plot a sweep: a metric's mean and 95%% confidence band over seeds",
        description="Plot a sweep's metric against a swept key: the mean over seeds with its 95 % Student-t "
        "confidence band, one line per --hue value, one panel per --col value; PNG and SVG.")
    p.add_argument("dir", metavar="DIR", help="a sweep's directory")
    p.add_argument("--x", required=True, metavar="KEY", help="the swept key on the x axis")
    p.add_argument("--y", required=True, metavar="METRIC",
                   help="a numeric column: utilization, loss_rate, delay_mean_s, group.NAME.goodput_bps ...")
    p.add_argument("--hue", metavar="KEY", help="one line per value of this swept key")
    p.add_argument("--col", metavar="KEY", help="one panel per value of this swept key")
    p.add_argument("--where", action="append", default=[], metavar="KEY=VALUE",
                   help="keep only the rows with this value of a swept key (repeatable)")
    p.add_argument("--logx", choices=("auto", "yes", "no"), default="auto",
                   help="log x axis: auto (when the key was swept with a log range), yes, no")
    p.add_argument("--out", metavar="DIR", help="where the figures go (default DIR/plots)")
    p.set_defaults(func=_plot)


def _plot(args: argparse.Namespace) -> int:
    from bufferlab.sweeps.plot import plot_sweep  # noqa: PLC0415

    where: List[str] = list(args.where)
    logx = None if args.logx == "auto" else args.logx == "yes"
    paths = plot_sweep(args.dir, x=args.x, y=args.y, hue=args.hue, col=args.col, where=where, logx=logx,
                       out=args.out)
    print("wrote " + ", ".join(str(p) for p in paths))
    return 0
