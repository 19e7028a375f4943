"""`bufferlab report DIR`: the HTML report (figures inline) of a results directory written by
`bufferlab run --out DIR`."""

from __future__ import annotations

import argparse

from bufferlab import report


def handle(args: argparse.Namespace) -> int:
    run = report.RunData.from_directory(args.dir)
    written = report.write(run, args.dir, "report")
    print("wrote " + ", ".join(str(p) for p in written))
    return 0


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("report", help="write report.html and figures for a results directory",
                       description="Draw the report of a run written by `bufferlab run --out DIR` into DIR: "
                       "report.html (self-contained, figures inline) and the figures as PNG and SVG.")
    p.add_argument("dir", help="a results directory (results.json and the run's Parquet files)")
    p.set_defaults(func=handle)
