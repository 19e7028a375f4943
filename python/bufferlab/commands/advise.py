"""``bufferlab advise``: the buffer of each sizing rule with the models' predictions, optionally verified by
simulation (:mod:`bufferlab.models.advisor`, :mod:`bufferlab.sweeps.verify`)."""

from __future__ import annotations

import argparse
from typing import Any

from bufferlab.errors import BufferLabError
from bufferlab.jsonout import dumps
from bufferlab.models._checks import check_integer, check_real
from bufferlab.units import parse_rate, parse_size, parse_time


def register(subparsers: Any) -> None:
    """Add the ``advise`` sub-command to the main ``bufferlab`` parser."""
    p = subparsers.add_parser(
        "advise",
        help="buffer size from each sizing rule, with predicted utilization and loss",
        description=(
            "Buffer size from each rule (BDP, BDP/sqrt(N), Enachescu's log rule, Eun-Wang's N^beta) in "
            "packets, bytes and ms, with M/M/1/K, M/D/1/K, TCP fixed-point and (if available) Eun-Wang "
            "model predictions. Units: rates like 10Gbps, times like 100ms, sizes like 1500B or 1.5KB; "
            "plain numbers are bits/s, seconds and bytes."
        ),
    )
    p.add_argument("--capacity", required=True, help="link rate, e.g. 10Gbps")
    p.add_argument("--flows", required=True, help="number of long-lived flows N (>= 1)")
    p.add_argument("--rtt", required=True, help="round-trip time, e.g. 100ms")
    p.add_argument("--target-utilization", default="0.95", help="target utilization in (0, 1) (0.95)")
    p.add_argument("--packet-size", default="1500B", help="packet size (1500B)")
    p.add_argument("--wmax", default="64", help="per-flow window cap in packets, for Enachescu (64)")
    p.add_argument("--alpha", default="0.2", help="Eun-Wang marking exponent, 0 < alpha < 1/2 (0.2)")
    p.add_argument("--epsilon", default="0.1", help="Eun-Wang buffer margin: B = 12 N^(alpha+eps) (0.1)")
    p.add_argument("--json", action="store_true", help="print JSON")
    v = p.add_argument_group("verification by simulation (docs/sweeps.md)")
    v.add_argument("--verify", action="store_true",
                   help="simulate each rule's buffer (and half and twice it) over seeds and compare")
    v.add_argument("--verify-seeds", default="3", help="seeds per buffer (3)")
    v.add_argument("--verify-duration", default="30s", help="simulated time per run (30s; statistics after "
                   "the first fifth)")
    v.add_argument("--verify-max-rate", default="100Mbps",
                   help="faster links are simulated scaled down to this rate, keeping the per-flow BDP")
    v.add_argument("--verify-out", default=None, metavar="DIR", help="keep the sweep there (resumable)")
    v.add_argument("--workers", default=None, help="engine processes (default: one per core)")
    v.add_argument("--dask", default=None, metavar="ADDRESS", help="run on a Dask scheduler, or local")
    p.set_defaults(func=_cli_advise)


def _number(field: str, text: str) -> float:
    try:
        return float(text)
    except (TypeError, ValueError) as exc:
        raise BufferLabError(f"{field}: expected a number, got {text!r}") from exc


def _integer(field: str, text: str, low: int) -> int:
    try:
        v = int(text)
    except (TypeError, ValueError) as exc:
        raise BufferLabError(f"{field}: expected an integer >= {low}, got {text!r}") from exc
    return check_integer(f"{field}:", v, low)


def _cli_advise(args: argparse.Namespace) -> int:
    from bufferlab.models.advisor import advise, format_advice

    capacity = parse_rate(args.capacity, "--capacity")
    flows = _integer("--flows", args.flows, 1)
    rtt = parse_time(args.rtt, "--rtt")
    target = _number("--target-utilization", args.target_utilization)
    check_real("--target-utilization:", target, 0.0, 1.0, low_open=True, high_open=True)
    pkt = check_integer("--packet-size (bytes)", float(parse_size(args.packet_size, "--packet-size")), 20,
                        65535, note="(the engine's range)")
    wmax = _number("--wmax", args.wmax)
    check_real("--wmax:", wmax, 1.0, note="packets")
    alpha = _number("--alpha", args.alpha)
    epsilon = _number("--epsilon", args.epsilon)
    adv = advise(capacity, flows, rtt, target, pkt, w_max=wmax, alpha=alpha, epsilon=epsilon)
    ver = _verify(args, adv) if args.verify else None
    if args.json:
        print(dumps({**adv, "verification": ver} if ver else adv, indent=2))
    else:
        print(format_advice(adv))
        if ver:
            from bufferlab.sweeps.verify import format_verification  # noqa: PLC0415

            print(format_verification(adv, ver))
    return 0


def _verify(args: argparse.Namespace, adv: Any) -> Any:
    from bufferlab.sweeps.verify import verify_advice  # noqa: PLC0415

    workers = None if args.workers is None else _integer("--workers", args.workers, 1)
    return verify_advice(adv, seeds=_integer("--verify-seeds", args.verify_seeds, 1),
                         duration=parse_time(args.verify_duration, "--verify-duration"),
                         max_rate_bps=parse_rate(args.verify_max_rate, "--verify-max-rate"),
                         out=args.verify_out, workers=workers, dask=args.dask,
                         progress=False if args.json else None)
