"""``bufferlab model MODEL ...``: the analytic models from the papers, computed exactly (no simulation
engine): ``queueing`` (:mod:`bufferlab.models.queueing`), ``tiny-buffers``
(:mod:`bufferlab.models.enachescu`), ``eun-wang`` (:mod:`bufferlab.models.eun_wang`) and ``whittle``
(:mod:`bufferlab.models.whittle`)."""

from __future__ import annotations

import argparse
import math
import time
from typing import Any, Callable, Dict

import numpy as np

from bufferlab.errors import BufferLabError, LimitError
from bufferlab.jsonout import dumps
from bufferlab.models import bbr_share, dctcp
from bufferlab.models import eun_wang as ew
from bufferlab.models import whittle as wh
from bufferlab.models._checks import check_int, check_integer, check_range, check_real
from bufferlab.models.enachescu import (
    fixed_point,
    plot_tiny_buffers,
    slotted_loss,
    theorem1_buffer,
    theorem1_effective_utilization,
)
from bufferlab.models.queueing import (
    capacity_from_droptail_limit,
    geometric_tail_bound,
    md1k_loss,
    md1k_mean_queue,
    md1k_simulate,
    mm1k_loss,
    mm1k_mean_queue,
    plot_loss_vs_buffer,
)
from bufferlab.units import format_value

#: ``model eun-wang`` refuses a sweep estimated above this many seconds: about 100 us per round plus 6 ns
#: per window state per round (measured; the figure is an order of magnitude).
CLI_MAX_SECONDS = 120.0


def register(subparsers: Any) -> None:
    """Add the ``model`` sub-command, with one sub-command per model, to the main ``bufferlab`` parser."""
    model = subparsers.add_parser(
        "model",
        help="analytic models from the papers (queueing, tiny buffers, Eun-Wang, Whittle index, DCTCP, "
        "BBR's share)",
        description="Analytic models from the papers, computed exactly (no simulation engine needed).",
    )
    model_sub = model.add_subparsers(dest="model", metavar="MODEL")
    for register_model in (register_queueing, register_tiny_buffers, register_eun_wang, register_whittle,
                           register_dctcp, register_bbr_share):
        register_model(model_sub)


# --------------------------------------------------------------------------------------------------------
# bufferlab model queueing ...


def _csv_floats(name: str) -> Callable[[str], list]:
    def parse(text: str) -> list:
        try:
            return [float(t) for t in text.split(",") if t.strip()]
        except ValueError as exc:
            msg = f"{name}: expected comma-separated numbers, got {text!r}"
            raise argparse.ArgumentTypeError(msg) from exc

    return parse


def register_queueing(model_subparsers: Any) -> None:
    """Add ``bufferlab model queueing``."""
    p = model_subparsers.add_parser(
        "queueing",
        help="M/M/1/K and exact M/D/1/K loss and mean queue, rho^B bound, optional Monte Carlo",
        description=(
            "Loss probability and mean number in system of M/M/1/K and M/D/1/K queues. K is the system "
            "capacity including the packet in service (engine DropTail limit + 1)."
        ),
    )
    p.add_argument("--rho", type=_csv_floats("--rho"), required=True, help="offered load(s), comma-separated")
    g = p.add_mutually_exclusive_group(required=True)
    g.add_argument("--buffer", "-K", type=_csv_floats("--buffer"), help="system capacity K, incl. in service")
    g.add_argument("--limit", type=_csv_floats("--limit"), help="engine DropTail limit; K = limit + 1")
    p.add_argument("--kind", choices=["mm1k", "md1k", "all"], default="all")
    p.add_argument("--simulate", action="store_true", help="add a Monte Carlo of M/D/1/K")
    p.add_argument("--arrivals", type=int, default=20000, help="Monte Carlo arrivals per replication")
    p.add_argument("--replications", type=int, default=200)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--json", action="store_true", help="print JSON instead of a table")
    p.add_argument("--plot", metavar="DIR", help="write loss-vs-K figures (PNG and SVG) into DIR")
    p.set_defaults(func=_queueing)


def _queueing(args: argparse.Namespace) -> int:
    for flag, values in (("--rho", args.rho), ("--buffer", args.buffer), ("--limit", args.limit)):
        if values is not None and not values:
            raise BufferLabError(f"{flag}: give at least one number")
    seed = check_integer("--seed", args.seed, 0)
    rhos = np.asarray(args.rho, dtype=float)
    if args.buffer is not None:
        ks = check_int("--buffer", args.buffer, 1)
    else:
        ks = np.asarray(capacity_from_droptail_limit(check_int("--limit", args.limit, 0))).reshape(-1)
    check_range("--rho", rhos, 0.0, None, low_open=True)
    rr, kk = np.meshgrid(rhos, ks, indexing="ij")
    rows: Dict[str, Any] = {"rho": rr.ravel().tolist(), "K": kk.ravel().astype(int).tolist()}
    with np.errstate(under="ignore"):
        bound = np.where(rr < 1.0, np.power(np.minimum(rr, 0.999999), kk), np.nan)
    rows["rho^K bound"] = [None if np.isnan(b) else float(b) for b in bound.ravel()]
    if args.kind in ("mm1k", "all"):
        rows["M/M/1/K loss"] = np.ravel(mm1k_loss(rr, kk)).tolist()
        rows["M/M/1/K mean"] = np.ravel(mm1k_mean_queue(rr, kk)).tolist()
    if args.kind in ("md1k", "all"):
        rows["M/D/1/K loss"] = np.ravel(md1k_loss(rr, kk)).tolist()
        rows["M/D/1/K mean"] = np.ravel(md1k_mean_queue(rr, kk)).tolist()
    if args.simulate:
        sim = md1k_simulate(rr, kk, arrivals=args.arrivals, replications=args.replications, seed=seed)
        rows["sim loss"] = np.ravel(sim.loss).tolist()
        rows["sim loss se"] = np.ravel(sim.loss_stderr).tolist()
        rows["sim mean"] = np.ravel(sim.mean_queue).tolist()
    if args.json:
        print(dumps({"K_definition": "max packets in system incl. the one in service", "rows": rows}))
    else:
        cols = list(rows)
        print("K = max packets in the system including the one in service (engine DropTail limit + 1)")
        print("  ".join(f"{c:>13}" for c in cols))
        for i in range(len(rows["rho"])):
            cells = []
            for c in cols:
                v = rows[c][i]
                if c == "K":
                    cells.append(f"{v:>13d}")
                elif v is None or not math.isfinite(v):
                    cells.append(f"{'n/a':>13}")
                else:
                    cells.append(f"{v:>13.4g}")
            print("  ".join(cells))
    if args.plot:
        paths = plot_loss_vs_buffer(rhos, int(ks.max()), args.plot)
        for path in paths:
            print(f"wrote {path}")
    return 0


# --------------------------------------------------------------------------------------------------------
# bufferlab model tiny-buffers ...


def register_tiny_buffers(model_subparsers: Any) -> None:
    """Add ``bufferlab model tiny-buffers``."""
    p = model_subparsers.add_parser(
        "tiny-buffers",
        help="Enachescu et al. 2005: Theorem 1 buffer, Sec. IV-A fixed point, App. II Monte Carlo",
        description=(
            "Tiny-buffer theory (Enachescu et al., 2005). Buffers are in packets including the one in "
            "transmission (engine DropTail limit = B - 1)."
        ),
    )
    p.add_argument("--wmax", type=float, required=True, help="window cap W_max in packets (>= 1)")
    p.add_argument("--rho", type=float, required=True, help="peak load N W_max/(C RTT), in (0, 1)")
    p.add_argument("--theta", type=float, default=0.9, help="target effective utilization, in [0, 1) (0.9)")
    p.add_argument("--flows", type=int, default=16, help="flows in the App. II Monte Carlo (16)")
    p.add_argument("--spacing", type=int, default=None, help="App. II spacing S (default ceil(2 ln W_max))")
    p.add_argument("--simulate", action="store_true", help="run the App. II slotted-model Monte Carlo")
    p.add_argument("--replications", type=int, default=100)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--json", action="store_true", help="print JSON")
    p.add_argument("--plot", metavar="DIR", help="write figures (PNG and SVG) into DIR")
    p.set_defaults(func=_tiny_buffers)


def _md1k_or_none(rho: float, buffer: int) -> Any:
    """The exact M/D/1/B loss, or None (with the reason) when it is beyond the solver's limits."""
    try:
        return md1k_loss(rho, buffer), ""
    except LimitError as exc:
        return None, str(exc)


def _tiny_buffers(args: argparse.Namespace) -> int:
    seed = check_integer("--seed", args.seed, 0)
    b = theorem1_buffer(args.wmax, args.rho, args.theta)
    md1k, md1k_note = _md1k_or_none(args.rho, max(b, 1))
    out: Dict[str, Any] = {
        "w_max": args.wmax,
        "rho": args.rho,
        "theta": args.theta,
        "theorem1_buffer": b,
        "theorem1_buffer_real": theorem1_buffer(args.wmax, args.rho, args.theta, integer=False),
        "theorem1_theta_at_buffer": theorem1_effective_utilization(b, args.wmax, args.rho),
        "rho_pow_B": geometric_tail_bound(args.rho, b),
        "mm1k_loss": mm1k_loss(args.rho, max(b, 1)),
        "md1k_loss": md1k,
    }
    if md1k_note:
        out["md1k_note"] = md1k_note
    for regime in ("under", "over"):
        fp = fixed_point(args.wmax, b, regime)
        out[f"fixed_point_{regime}"] = {"utilization": fp.utilization, "loss": fp.loss}
    if args.simulate:
        w = int(round(args.wmax))
        s = args.spacing if args.spacing is not None else max(1, math.ceil(2.0 * math.log(max(w, 2))))
        res = slotted_loss(args.flows, w, s, max(b, 1), load=args.rho, replications=args.replications,
                           seed=seed)
        out["slotted"] = {
            "flows": args.flows,
            "spacing": s,
            "slots_per_rtt": res.slots_per_rtt,
            "loss": float(res.loss[0]),
            "loss_stderr": float(res.loss_stderr[0]),
            "packets": res.packets,
        }
    if args.json:
        print(dumps(out))
    else:
        print("Enachescu et al. 2005, 'Routers with very small buffers'")
        print(f"  W_max = {args.wmax:g} pkts, peak load rho = {args.rho:g}, target theta = {args.theta:g}")
        print(f"  Theorem 1 buffer B = {b} packets (bound {out['theorem1_buffer_real']:.3f})")
        print(f"  effective utilization guaranteed at B: {out['theorem1_theta_at_buffer']:.4f}")
        print(f"  rho^B (M/M/1 tail, Lemma 2 bound): {out['rho_pow_B']:.4g}")
        print(f"  M/M/1/B loss at rho: {out['mm1k_loss']:.4g}   exact M/D/1/B loss: "
              f"{format_value(md1k, '{:.4g}', 'n/a')}")
        if md1k_note:
            print(f"  (M/D/1/B not computed: {md1k_note})")
        names = (("under", "under-provisioned (peak 2)"), ("over", "over-provisioned (peak 1/2)"))
        for regime, name in names:
            fp = out[f"fixed_point_{regime}"]
            print(f"  Sec. IV-A fixed point, {name}: utilization {fp['utilization']:.4f}, "
                  f"loss {fp['loss']:.4g}")
        if args.simulate:
            sl = out["slotted"]
            print(f"  App. II Monte Carlo (N={sl['flows']}, S={sl['spacing']}, M={sl['slots_per_rtt']}): "
                  f"loss {sl['loss']:.4g} +- {format_value(sl['loss_stderr'], '{:.2g}', 'n/a')} over "
                  f"{sl['packets']} packets")
    if args.plot:
        for path in plot_tiny_buffers(args.plot, rho=args.rho, theta=args.theta):
            print(f"wrote {path}")
    return 0


# --------------------------------------------------------------------------------------------------------
# bufferlab model eun-wang ...


def register_eun_wang(model_subparsers: Any) -> argparse.ArgumentParser:
    """Add ``bufferlab model eun-wang`` (Eun & Wang 2008 chain, eq. 1-8) to the ``model`` sub-parsers."""
    parser = model_subparsers.add_parser(
        "eun-wang",
        help="Eun & Wang (2008) doubly-stochastic Markov model of TCP/AQM with N^alpha marking",
        description=(
            "Simulate the RTT-level chain of Eun & Wang (2008) on the window histogram: utilization rho(N), "
            "marking probability, P{sum W >= NCT}, std(sum W)/sqrt(N), h(N), queue and buffer overflow."
        ),
    )
    parser.add_argument("--flows", type=int, nargs="+", required=True, metavar="N",
                        help="number of flows; several values give a sweep (with --plot, a single N sweeps "
                             "decades from 10 up to N)")
    parser.add_argument("--capacity-per-flow", type=float, required=True, metavar="C",
                        help="per-flow capacity C in packets/s (link capacity is N*C)")
    parser.add_argument("--rtt", type=float, default=0.2, metavar="T", help="round-trip time in s (0.2)")
    parser.add_argument("--marking", choices=sorted(ew.MARKINGS), default="red1",
                        help="Table I marking (red1)")
    parser.add_argument("--alpha", type=float, default=0.2, help="marking exponent, 0 < alpha < 1/2 (0.2)")
    parser.add_argument("--epsilon", type=float, default=0.1, help="buffer B = 12 N^(alpha+eps) (0.1)")
    parser.add_argument("--queue", choices=ew.QUEUE_MODELS, default="mm1", help="queue model (mm1)")
    parser.add_argument("--wmax", type=int, default=None, help="window cap (default max(8CT, CT+2))")
    parser.add_argument("--halving", choices=("floor", "ceil"), default="floor")
    parser.add_argument("--rounds", type=int, default=4000, help="RTT rounds per run (4000)")
    parser.add_argument("--burn-in", type=int, default=None, help="rounds discarded (rounds/4)")
    parser.add_argument("--seeds", type=int, default=1, help="seeds, for confidence intervals (1)")
    parser.add_argument("--plot", metavar="DIR", default=None, help="save figures (PNG and SVG) in DIR")
    parser.add_argument("--json", action="store_true", help="print JSON instead of a table")
    parser.set_defaults(func=_eun_wang)
    return parser


def _eun_wang(args: argparse.Namespace) -> int:
    check_real("--capacity-per-flow (packets/s)", args.capacity_per_flow, 0.0, low_open=True)
    check_real("--rtt (s)", args.rtt, 0.0, low_open=True)
    check_integer("--seeds", args.seeds, 1)
    ew._check_alpha(args.alpha)
    for n in args.flows:
        ew._check_flows(n)
    check_integer("--seeds", args.seeds, 1, 1000)
    check_integer("--rounds", args.rounds, 2, ew.MAX_ROUNDS)
    ct = args.capacity_per_flow * args.rtt
    flows = sorted(set(args.flows))
    if args.plot and len(flows) == 1:
        top = flows[0]
        decades = max(2, int(math.log10(max(top, 10))) + 1)
        grid = np.round(np.logspace(1, math.log10(max(top, 10)), decades))
        flows = sorted({int(v) for v in grid} | {top})
    probe = ew.EunWangParams(flows=flows[0], ct=ct, alpha=args.alpha, epsilon=args.epsilon, w_max=args.wmax)
    probe.validate()
    wmax = probe.wmax
    runs = len(flows) * args.seeds * args.rounds
    seconds = runs * (1e-4 + 6e-9 * wmax)
    if seconds > CLI_MAX_SECONDS:
        raise LimitError(f"--rounds, --seeds and the flow counts: {runs:,} rounds of a chain with {wmax:,} "
                         f"window states is about {seconds:.0f} s of work; the limit is about "
                         f"{CLI_MAX_SECONDS:.0f} s")
    rows = ew.sweep(
        flows, ct, args.alpha, args.marking, seeds=args.seeds, rounds=args.rounds, burn_in=args.burn_in,
        epsilon=args.epsilon, queue=args.queue, w_max=args.wmax, halving=args.halving,
    )
    out: Dict[str, Any] = {"paper": ew.PAPER, "rows": rows}
    if len(rows) >= 2:
        ns = [r["flows"] for r in rows]
        rho = [r["utilization_mean"] for r in rows]
        if all(x < 1 for x in rho):
            out["fit"] = ew.fit_log_slope(ns, rho)
    if args.plot:
        out["figures"] = ew.plot_sweep(rows, args.plot)
    if args.json:
        print(dumps(out, indent=2, default=str))
        return 0
    print(f"Eun & Wang (2008) chain: marking={args.marking} alpha={args.alpha} epsilon={args.epsilon} "
          f"CT={ct:g} pkts queue={args.queue} rounds={args.rounds} seeds={args.seeds}")
    header = ("N", "rho(N)", "+-", "E[p(Q)]", "P{S>=NCT}", "std/sqrtN", "h(N)", "B(N)", "P{Q>=B}", "q99",
              "sync")
    print("{:>12} {:>8} {:>7} {:>8} {:>9} {:>10} {:>8} {:>6} {:>9} {:>7} {:>5}".format(*header))
    fmt = "{:>12} {:>8} {:>7} {:>8} {:>9} {:>10} {:>8} {:>6d} {:>9} {:>7} {:>5}"
    for r in rows:
        q99 = r["queue_q99"]
        cells = [format_value(r[key], spec) for key, spec in (
            ("utilization_mean", "{:.4f}"), ("utilization_ci", "{:.4f}"), ("mark_prob_mean", "{:.4f}"),
            ("p_overload_mean", "{:.4f}"), ("std_ratio_mean", "{:.3f}"), ("h_mean", "{:.2f}"))]
        print(fmt.format(
            r["flows"], *cells, r["buffer"], format_value(r["overflow_mean"], "{:.2e}"),
            "inf" if q99 == math.inf else format_value(q99, "{:.0f}"),
            "yes" if r["synchronised"] else "no",
        ))
    if "fit" in out:
        print(f"slope of log(1 - rho) vs log N: {out['fit']['slope']:.3f} (theory: -alpha = {-args.alpha})")
    for path in out.get("figures", []):
        print(f"figure: {path}")
    return 0


# --------------------------------------------------------------------------------------------------------
# bufferlab model whittle ...


def register_whittle(model_subparsers: Any) -> argparse.ArgumentParser:
    """Add ``whittle`` to the ``bufferlab model`` sub-commands and return its parser.

    Prints the Sec. 6.1 index (adaptive greedy) with the Sec. 6.3 myopic bound, the indexability flags and,
    with ``--verify``, the brute-force index; ``--plot DIR`` writes Figure 3 (Sec. 6.3, N capped at 60).
    """
    p = model_subparsers.add_parser(
        "whittle",
        help="Whittle index of an AIMD flow (Avrachenkov et al. 2013)",
        description="Whittle (transmission) index of an AIMD flow by Nino-Mora's adaptive-greedy algorithm "
        "(Avrachenkov, Ayesta, Doncel, Jacko 2013, Sec. 6).",
    )
    p.add_argument("--n-max", type=int, default=50, help="maximum window N (default 50)")
    p.add_argument("--alpha", type=float, default=1.0,
                   help=f"fairness parameter alpha in [0, {wh.MAX_ALPHA:g}] (default 1)")
    p.add_argument("--beta", type=float, default=0.9, help="discount factor in (0, 1) (default 0.9)")
    p.add_argument("--gamma", type=float, default=0.5, help="decrease factor in [0, 1) (default 0.5)")
    p.add_argument("--reward", choices=wh.REWARD_CONVENTIONS, default="normalised",
                   help="reward convention (default normalised: ((1+n)^(1-a)-1)/(1-a))")
    p.add_argument("--verify", action="store_true",
                   help="also compute the index by brute force (policy iteration + bisection) and compare")
    p.add_argument("--plot", metavar="DIR",
                   help="write Figure 3 (PNG and SVG) to DIR, around this instance (N capped at 60)")
    p.add_argument("--json", action="store_true", help="print JSON instead of a table")
    p.set_defaults(func=_whittle)
    return p


def _whittle(args: argparse.Namespace) -> int:
    check_integer("--n-max", args.n_max, 1, wh.MAX_N)
    if args.verify and args.n_max > wh.VERIFY_MAX_N:
        raise LimitError(f"--n-max: the brute force of --verify takes about N^3 work; it is limited to N <= "
                         f"{wh.VERIFY_MAX_N} (got {args.n_max})")
    t0 = time.perf_counter()
    flow = wh.aimd_flow(args.n_max, args.alpha, args.beta, args.gamma, args.reward)
    res = wh.adaptive_greedy(flow)
    elapsed = time.perf_counter() - t0
    out: dict = {
        "model": "whittle",
        "n_max": flow.n_max, "alpha": float(args.alpha), "beta": flow.beta, "gamma": flow.gamma,
        "reward": args.reward,
        "index": [float(x) for x in res.index],
        "myopic_bound": [float(x) for x in wh.myopic_index(flow)],
        "pcl_marginal_work_positive": res.marginal_work_positive,
        "pcl_monotone": res.monotone,
        "pcl_policies_optimal": res.policies_optimal,
        "indexable": res.indexable,
        "threshold": res.threshold,
        "seconds": elapsed,
    }
    brute = None
    if args.verify:
        brute = wh.brute_force_index(flow)
        out["verify"] = {
            "brute_force_index": [float(x) for x in brute.index],
            "max_abs_difference": float(np.max(np.abs(brute.index - res.index))),
            "indexable": brute.indexable,
        }
    if args.plot:
        paths = wh.plot_figure3(args.plot, n_max=min(flow.n_max, 60), alpha=args.alpha, beta=flow.beta,
                             gamma=flow.gamma, reward=args.reward)
        out["plots"] = [str(p) for p in paths]
    if args.json:
        print(dumps(out, indent=2))
        return 0
    print(f"Whittle index, AIMD flow (Avrachenkov et al. 2013): N={flow.n_max} alpha={args.alpha:g} "
          f"beta={flow.beta:g} gamma={flow.gamma:g} reward={args.reward}")
    header = f"{'n':>5} {'index':>14} {'f(n)/n':>12}"
    if brute is not None:
        header += f" {'brute force':>14}"
    print(header)
    my = wh.myopic_index(flow)
    for k in range(flow.n_max):
        line = f"{k + 1:>5} {res.index[k]:>14.8f} {my[k]:>12.6f}"
        if brute is not None:
            line += f" {brute.index[k]:>14.8f}"
        print(line)
    print(f"PCL checks: marginal work positive: {res.marginal_work_positive}; index monotone in algorithm "
          f"order: {res.monotone}; nested policies optimal: {res.policies_optimal}; "
          f"indexable: {res.indexable}")
    print(f"threshold policies optimal (index non-increasing): {res.threshold}")
    if brute is not None:
        print(f"brute force: max |difference| = {out['verify']['max_abs_difference']:.3g}, "
              f"indexable on grid: {brute.indexable}")
    if args.plot:
        print("plots: " + ", ".join(out["plots"]))
    print(f"computed in {elapsed * 1000:.1f} ms")
    return 0


# --------------------------------------------------------------------------------------------------------
# bufferlab model dctcp ...


def register_dctcp(model_subparsers: Any) -> None:
    """Add ``bufferlab model dctcp``."""
    p = model_subparsers.add_parser(
        "dctcp",
        help="DCTCP's steady state (Alizadeh et al. 2010, Sec. 3.3): queue amplitude, Q_max, K guideline",
        description="DCTCP's steady-state analysis (Alizadeh et al., SIGCOMM 2010, Sec. 3.3) for N "
        "synchronized flows: alpha, the window and queue amplitudes, the period, Q_max and Q_min, the lower "
        "bound on K (eq. 13) and the bound on g (eq. 15). The BDP is --bdp packets, or --rate x --rtt in "
        "--packet-size packets.",
    )
    p.add_argument("--flows", type=int, required=True, help="N, synchronized long-lived flows (>= 1)")
    p.add_argument("--k", type=float, required=True, help="the marking threshold K, packets waiting")
    p.add_argument("--bdp", type=float, help="C x RTT in packets (or give --rate and --rtt)")
    p.add_argument("--rate", help="link rate, e.g. 10Gbps")
    p.add_argument("--rtt", help="round-trip time, e.g. 100us")
    p.add_argument("--packet-size", default="1500B", help="packet size for --rate/--rtt (default 1500B)")
    p.add_argument("--json", action="store_true", help="print JSON")
    p.set_defaults(func=_dctcp)


def _dctcp(args: argparse.Namespace) -> int:
    from bufferlab.units import parse_rate, parse_size, parse_time  # noqa: PLC0415

    if args.bdp is not None:
        if args.rate is not None or args.rtt is not None:
            raise BufferLabError("--bdp: give either --bdp or --rate with --rtt, not both")
        bdp = check_real("--bdp", args.bdp, 0.0, 1e12, low_open=True)
    elif args.rate is not None and args.rtt is not None:
        bdp = (parse_rate(args.rate, "--rate") * parse_time(args.rtt, "--rtt")
               / (8.0 * parse_size(args.packet_size, "--packet-size")))
    else:
        raise BufferLabError("--bdp: required (C x RTT in packets), or --rate with --rtt")
    s = dctcp.steady_state(check_integer("--flows", args.flows, 1, 10**7), bdp,
                           check_real("--k", args.k, 0.0, 1e12))
    out = {"model": "dctcp", **s.as_dict(), "k_lower_bound_pkts": dctcp.k_lower_bound(bdp),
           "g_upper_bound": dctcp.g_upper_bound(bdp, s.k_pkts)}
    if args.json:
        print(dumps(out, indent=2))
        return 0
    print(f"DCTCP steady state (Alizadeh et al. 2010, Sec. 3.3): N={s.n_flows} C x RTT={bdp:.6g} packets "
          f"K={s.k_pkts:g}")
    rows = [
        ("W* = (C x RTT + K)/N", s.w_star, "packets"),
        ("alpha, eq. (6)", s.alpha, f"(sqrt(2/W*) = {s.alpha_approx:.4f})"),
        ("window amplitude D, eq. (7)", s.window_amplitude, "packets"),
        ("queue amplitude A = N D, eq. (8)", s.queue_amplitude,
         f"packets (closed form {s.queue_amplitude_approx:.4g})"),
        ("period T_C, eq. (9)", s.period_rtts, "round trips"),
        ("Q_max = K + N, eq. (10)", s.q_max, "packets"),
        ("Q_min = Q_max - A, eq. (12)", s.q_min, "packets" + (" (the queue underflows: throughput is lost)"
                                                             if s.q_min < 0 else "")),
        ("K lower bound C x RTT / 7, eq. (13)", out["k_lower_bound_pkts"], "packets"),
        ("g upper bound, eq. (15)", out["g_upper_bound"], ""),
    ]
    for name, value, unit in rows:
        print(f"  {name:<38} {value:>12.4f} {unit}")
    return 0


# --------------------------------------------------------------------------------------------------------
# bufferlab model bbr-share ...


def register_bbr_share(model_subparsers: Any) -> None:
    """Add ``bufferlab model bbr-share``."""
    p = model_subparsers.add_parser(
        "bbr-share",
        help="BBR's share against loss-based flows by buffer size (Ware et al. 2019, Sec. 5)",
        description="The share of a DropTail bottleneck that N BBR (v1) flows take against Cubic or Reno "
        "flows that keep the queue full (Ware et al., IMC 2019, Sec. 5): the loss-based flows' share p "
        "(eq. 9), the time in ProbeRTT (eq. 11) and BBR's fraction of the link (eq. 10). The queue is "
        "--queue packets or --queue-bdp multiples of the BDP (--rate x --rtt in --packet-size packets).",
    )
    p.add_argument("--bbr-flows", type=int, default=1, help="N, BBR flows (>= 1; default 1)")
    p.add_argument("--queue", type=float, help="the queue's capacity q, packets")
    p.add_argument("--queue-bdp", type=float, help="the queue's capacity as a multiple X of the BDP")
    p.add_argument("--rate", required=True, help="bottleneck rate, e.g. 10Mbps")
    p.add_argument("--rtt", required=True, help="congestion-free round-trip time, e.g. 40ms")
    p.add_argument("--packet-size", default="1500B", help="packet size (default 1500B)")
    p.add_argument("--json", action="store_true", help="print JSON")
    p.set_defaults(func=_bbr_share)


def _bbr_share(args: argparse.Namespace) -> int:
    from bufferlab.units import parse_rate, parse_size, parse_time  # noqa: PLC0415

    rate_pps = parse_rate(args.rate, "--rate") / (8.0 * parse_size(args.packet_size, "--packet-size"))
    rtt = parse_time(args.rtt, "--rtt")
    if (args.queue is None) == (args.queue_bdp is None):
        raise BufferLabError("--queue: give exactly one of --queue (packets) and --queue-bdp (BDPs)")
    if args.queue is not None:
        q = check_real("--queue", args.queue, 0.0, 1e12, low_open=True)
    else:
        q = check_real("--queue-bdp", args.queue_bdp, 0.0, 1e9, low_open=True) * rate_pps * rtt
    n = check_integer("--bbr-flows", args.bbr_flows, 1, 10**6)
    p = bbr_share.loss_based_share(n, q, rate_pps, rtt)
    out = {"model": "bbr-share", "bbr_flows": n, "queue_pkts": q, "bdp_pkts": rate_pps * rtt,
           "queue_bdp": q / (rate_pps * rtt), "loss_based_share": p,
           "probe_rtt_fraction": bbr_share.probe_fraction(q, rate_pps, rtt),
           "bbr_fraction": bbr_share.bbr_fraction(n, q, rate_pps, rtt)}
    if args.json:
        print(dumps(out, indent=2))
        return 0
    print(f"BBR against loss-based flows (Ware et al. 2019, Sec. 5): N={n} q={q:.6g} packets "
          f"(X={out['queue_bdp']:.4g} BDPs of {out['bdp_pkts']:.6g} packets)")
    for name, value in (("loss-based share p, eq. (9)", p),
                        ("time in ProbeRTT, eq. (11) / d", out["probe_rtt_fraction"]),
                        ("BBR's fraction of the link, eq. (10)", out["bbr_fraction"])):
        print(f"  {name:<38} {value:>8.4f}")
    return 0
