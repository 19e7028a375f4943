"""A run's report: figures (PNG and SVG) and one self-contained HTML page that shows them inline.

``bufferlab run ... --report --out DIR`` writes the page beside the run's data; ``bufferlab report DIR``
draws it again from a results directory; ``bufferlab run ... --plot DIR`` writes the figures only. What a
figure needs and the run did not record (a time series, the event trace) is named on the page, with the
setting that records it.
"""

from __future__ import annotations

import base64
import html
import io
import json
import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Dict, List, Mapping, Optional, Tuple, Union

import numpy as np
import pandas as pd

from bufferlab import jsonout
from bufferlab.errors import BufferLabError
from bufferlab.plots import save_figure

#: Most flows whose window is drawn (picked across the range of RTTs).
MAX_WINDOW_FLOWS = 6
#: Samples of a series when ``--report`` or ``--plot`` sets ``monitor.sample_interval`` itself.
REPORT_SAMPLES = 1000
#: Most flows whose cwnd ``--report`` samples when it sets ``monitor.cwnd`` itself.
MAX_SAMPLED_CWND_FLOWS = 500
#: The event trace ``--report`` records when the scenario has no ``[trace]`` table.
REPORT_TRACE = {"events": True, "kinds": ["drop", "mark", "timeout"], "max_events": 1_000_000}


@dataclass
class Figure:
    """One figure of the report: its file stem, title, caption and, when its data is missing, why."""

    stem: str
    title: str
    caption: str
    missing: Optional[str] = None
    png: bytes = b""
    files: List[Path] = field(default_factory=list)


@dataclass
class RunData:
    """What a report is drawn from: the tables of a run (a ``Results`` or a results directory)."""

    summary: Dict[str, Any]
    scenario: Dict[str, Any]
    ports: pd.DataFrame
    groups: pd.DataFrame
    flows: pd.DataFrame
    queue_series: pd.DataFrame
    cwnd_series: pd.DataFrame
    events: pd.DataFrame
    delay_cdf: pd.DataFrame
    trace: Dict[str, Any]
    #: Whether the scenario had a ``[trace]`` table recording events.
    traced_events: bool

    @classmethod
    def from_results(cls, r: Any) -> RunData:
        trace = r.scenario.get("trace") if isinstance(r.scenario, Mapping) else None
        return cls(summary=r.summary, scenario=r.scenario, ports=r.ports, groups=r.groups, flows=r.flows,
                   queue_series=r.queue_series, cwnd_series=r.cwnd_series, events=r.events,
                   delay_cdf=r.delay_cdf, trace=r.trace,
                   traced_events=isinstance(trace, Mapping) and bool(trace.get("events")))

    @classmethod
    def from_directory(cls, directory: Union[str, Path]) -> RunData:
        """Read a results directory written by ``bufferlab run --out``."""
        d = Path(directory)
        results_file = d / "results.json"
        try:
            data = jsonout.loads(results_file.read_text())
        except FileNotFoundError:
            raise BufferLabError(f"report: {d} holds no results.json; give a directory written by "
                                 "bufferlab run --out") from None
        except (OSError, ValueError) as exc:
            raise BufferLabError(f"report: cannot read {results_file}: {exc}") from None
        _check_results(data, results_file)

        def table(name: str) -> pd.DataFrame:
            path = d / f"{name}.parquet"
            return pd.read_parquet(path) if path.exists() else pd.DataFrame()

        ports = pd.DataFrame(data.get("ports") or [])
        scenario = data.get("scenario") or {}
        trace = scenario.get("trace")
        return cls(summary=data.get("summary") or {}, scenario=scenario, ports=ports,
                   groups=pd.DataFrame(data.get("groups") or []), flows=pd.DataFrame(data.get("flows") or []),
                   queue_series=table("queue_series"), cwnd_series=table("cwnd_series"),
                   events=table("events"), delay_cdf=table("delay_cdf"), trace=data.get("trace") or {},
                   traced_events=isinstance(trace, Mapping) and bool(trace.get("events")))


def _check_results(data: Any, path: Path) -> None:
    """Refuse a ``results.json`` whose parts are not of the kinds ``bufferlab run --out`` writes."""
    if not isinstance(data, Mapping):
        raise BufferLabError(f"report: {path}: expected a JSON object (a run's results), got "
                             f"{type(data).__name__}")
    kinds = {"summary": Mapping, "scenario": Mapping, "trace": Mapping, "ports": list, "groups": list,
             "flows": list}
    for key, kind in kinds.items():
        value = data.get(key)
        if value is not None and not isinstance(value, kind):
            what = "an object" if kind is Mapping else "a list"
            raise BufferLabError(f"report: {path}: {key} must be {what}, got {type(value).__name__}")
        if kind is list and value and not all(isinstance(row, Mapping) for row in value):
            raise BufferLabError(f"report: {path}: {key} must be a list of objects (one per row)")


def prepare_scenario(spec: Dict[str, Any], duration_s: float, flows: Optional[int]) -> Dict[str, Any]:
    """``spec`` with what the report draws from switched on where the scenario leaves it off: a time series
    of about ``REPORT_SAMPLES`` samples, the cwnd of every flow when there are at most
    ``MAX_SAMPLED_CWND_FLOWS`` (``flows``, if known), and an event trace of drops, marks and timeouts."""
    monitor = spec.setdefault("monitor", {})
    if isinstance(monitor, dict) and monitor.get("sample_interval") is None:
        monitor["sample_interval"] = max(duration_s / REPORT_SAMPLES, 1e-6)
        if flows is not None and flows <= MAX_SAMPLED_CWND_FLOWS and "cwnd" not in monitor:
            monitor["cwnd"] = True
    trace = spec.setdefault("trace", {})
    if isinstance(trace, dict) and "events" not in trace:
        trace.update({k: v for k, v in REPORT_TRACE.items() if k not in trace})
    return spec


def _pyplot() -> Any:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def _port_names(run: RunData) -> List[str]:
    return list(run.ports["name"]) if len(run.ports) else ["bottleneck"]


def _queue_column(run: RunData, name: str, p: int) -> Optional[str]:
    qs = run.queue_series
    for col in (f"queue_{name}", "queue_pkts" if p == 0 else None):
        if col and col in qs:
            return col
    return None


def _panels(plt: Any, n: int, height: float = 2.2) -> Tuple[Any, List[Any]]:
    fig, axes = plt.subplots(n, 1, figsize=(9, 1.2 + height * n), sharex=True, squeeze=False)
    return fig, list(axes[:, 0])


def _queue_figure(plt: Any, run: RunData) -> Tuple[Any, Optional[str]]:
    names = _port_names(run)
    if not len(run.queue_series) or "time_s" not in run.queue_series:
        return None, "no queue series was recorded: set monitor.sample_interval (e.g. \"10ms\")"
    fig, axes = _panels(plt, len(names))
    t = run.queue_series["time_s"].to_numpy()
    for p, (ax, name) in enumerate(zip(axes, names)):
        col = _queue_column(run, name, p)
        if col is None:
            ax.text(0.5, 0.5, "no series for this port", ha="center", transform=ax.transAxes)
            continue
        ax.plot(t, run.queue_series[col].to_numpy(), lw=0.8, color="tab:blue")
        ax.set_ylabel("packets")
        ax.set_title(f"{name}: queue length (packets waiting)", fontsize=10)
        ax.grid(alpha=0.3)
    axes[-1].set_xlabel("time (s)")
    return fig, None


def _delay_figure(plt: Any, run: RunData) -> Tuple[Any, Optional[str]]:
    cdf = run.delay_cdf
    fig, ax = plt.subplots(figsize=(9, 4))
    if len(cdf):
        for name, rows in cdf.groupby("port", sort=False):
            ax.plot(rows["delay_s"].to_numpy() * 1e3, rows["q"].to_numpy(), label=str(name))
        ax.set_ylabel("fraction of packets")
        note = None
    elif len(run.ports):
        # Only the percentiles of the results: draw them as points.
        for row in run.ports.itertuples():
            xs = [row.delay_p50_s, row.delay_p99_s]
            ax.plot(np.array(xs, dtype=float) * 1e3, [0.5, 0.99], "o-", label=f"{row.name} (p50, p99)")
        ax.set_ylabel("quantile")
        note = ("only the p50 and p99 of each port are in this directory; a run with --report keeps the "
                "whole distribution")
    else:
        plt.close(fig)
        return None, "no port statistics"
    ax.set_xlabel("queueing delay (ms)")
    ax.set_title("Queueing delay distribution (packets served in the measurement window)", fontsize=10)
    ax.grid(alpha=0.3)
    ax.legend(fontsize=8)
    return fig, note


def _window_flows(run: RunData) -> List[int]:
    """Up to ``MAX_WINDOW_FLOWS`` flows spread over the range of RTTs."""
    cols = [c for c in run.cwnd_series.columns if c.startswith("flow_")]
    ids = [int(c[5:]) for c in cols]
    if len(ids) <= MAX_WINDOW_FLOWS:
        return ids
    if len(run.flows) and "rtt_s" in run.flows:
        order = run.flows.set_index("flow").loc[ids, "rtt_s"].sort_values().index.to_list()
    else:
        order = ids
    picks = np.linspace(0, len(order) - 1, MAX_WINDOW_FLOWS).round().astype(int)
    return [int(order[i]) for i in sorted(set(picks))]


def _cwnd_figure(plt: Any, run: RunData) -> Tuple[Any, Optional[str]]:
    if not len(run.cwnd_series):
        return None, "no window series was recorded: set monitor.sample_interval and monitor.cwnd = true"
    fig, ax = plt.subplots(figsize=(9, 4))
    rtts = run.flows.set_index("flow")["rtt_s"] if "rtt_s" in run.flows else pd.Series(dtype=float)
    t = run.cwnd_series["time_s"].to_numpy()
    for f in _window_flows(run):
        rtt = f", RTT {rtts[f] * 1e3:.0f} ms" if f in rtts.index else ""
        ax.plot(t, run.cwnd_series[f"flow_{f}"].to_numpy(), lw=0.8, label=f"flow {f}{rtt}")
    ax.set_xlabel("time (s)")
    ax.set_ylabel("cwnd (segments)")
    ax.set_title("Congestion windows of selected flows", fontsize=10)
    ax.grid(alpha=0.3)
    ax.legend(fontsize=8, ncol=2)
    return fig, None


def _goodput_figure(plt: Any, run: RunData) -> Tuple[Any, Optional[str]]:
    flows = run.flows
    if not len(flows) or "rtt_s" not in flows:
        return None, "no TCP flows with rows (flows started by arrivals have none)"
    fig, ax = plt.subplots(figsize=(9, 4))
    names = dict(zip(run.groups.get("group", []), run.groups.get("name", [])))
    for g, rows in flows.groupby("group"):
        ax.scatter(rows["rtt_s"] * 1e3, rows["goodput_bps"] / 1e6, s=14, label=str(names.get(g, g)))
    ax.set_xlabel("base RTT (ms)")
    ax.set_ylabel("goodput (Mb/s)")
    ax.set_title("Per-flow goodput against RTT", fontsize=10)
    ax.grid(alpha=0.3)
    ax.legend(fontsize=8)
    return fig, None


def _drops_figure(plt: Any, run: RunData) -> Tuple[Any, Optional[str]]:
    ev = run.events
    if not len(ev) or "kind" not in ev:
        if run.traced_events:
            return None, "the event trace recorded no drop or mark"
        return None, ('drop and mark times need the event trace: add [trace] with events = true (or run with '
                      '--report, which records drops, marks and timeouts)')
    names = _port_names(run)
    fig, axes = _panels(plt, len(names))
    kinds = ev["kind"].astype(str)
    end = float(run.summary.get("duration_s") or ev["time_s"].max() or 1.0)
    bins = np.linspace(0.0, end, 201)
    for ax, name in zip(axes, names):
        here = ev["port"] == name
        for kind, color in (("drop", "tab:red"), ("mark", "tab:orange")):
            times = ev.loc[here & (kinds == kind), "time_s"].to_numpy()
            if len(times):
                ax.hist(times, bins=bins, color=color, alpha=0.7, label=f"{kind}s ({len(times):,})")
        ax.set_ylabel(f"per {bins[1] - bins[0]:.3g} s")
        ax.set_title(f"{name}: drop and CE-mark times", fontsize=10)
        ax.grid(alpha=0.3)
        if ax.get_legend_handles_labels()[0]:
            ax.legend(fontsize=8)
        else:
            ax.text(0.5, 0.5, "no drops or marks traced here", ha="center", transform=ax.transAxes)
    axes[-1].set_xlabel("time (s)")
    note = None
    over = (run.trace or {}).get("events_over_cap") or 0
    if over:
        note = f"the trace reached trace.max_events: {over:,} later events are not shown"
    return fig, note


FIGURES: List[Tuple[str, str, str, Callable[[Any, RunData], Tuple[Any, Optional[str]]]]] = [
    ("queue", "Queue length over time", "Packets waiting at each port, sampled.", _queue_figure),
    ("delay", "Queueing delay", "Distribution of the wait of each packet served, per port.", _delay_figure),
    ("cwnd", "Windows", "cwnd of flows spread over the range of RTTs, sampled.", _cwnd_figure),
    ("goodput_rtt", "Goodput against RTT", "Each dot a flow, coloured by group.", _goodput_figure),
    ("drops_marks", "Drops and marks", "When each port dropped or CE-marked packets over the whole run (the "
     "summary counts the measurement window only), from the event trace.",
     _drops_figure),
]


def draw(run: RunData, directory: Optional[Union[str, Path]] = None,
         field_name: str = "--plot") -> List[Figure]:
    """Draw every figure; with ``directory``, also write each as PNG and SVG there."""
    plt = _pyplot()
    out: List[Figure] = []
    for stem, title, caption, make in FIGURES:
        fig, note = make(plt, run)
        figure = Figure(stem, title, caption, note)
        if fig is not None:
            buf = io.BytesIO()
            figure.files += save_figure(fig, directory, stem, dpi=100, field=field_name, tight=True,
                                        buffer=buf)
            figure.png = buf.getvalue()
        out.append(figure)
    return out


def _cell(v: Any) -> str:
    if v is None or (isinstance(v, float) and not math.isfinite(v)):
        return "-"
    if isinstance(v, float):
        return f"{v:.6g}"
    if isinstance(v, int):
        return f"{v:,}"
    return html.escape(str(v))


def _table(rows: List[Tuple[str, Any]]) -> str:
    body = "".join(f"<tr><th>{html.escape(k)}</th><td>{_cell(v)}</td></tr>" for k, v in rows)
    return f"<table class='kv'>{body}</table>"


def _frame_table(df: pd.DataFrame, columns: List[str]) -> str:
    cols = [c for c in columns if c in df]
    if not len(df) or not cols:
        return ""
    head = "".join(f"<th>{html.escape(c)}</th>" for c in cols)
    body = "".join("<tr>" + "".join(f"<td>{_cell(getattr(r, c))}</td>" for c in cols) + "</tr>"
                   for r in df[cols].itertuples(index=False))
    return f"<table class='grid'><tr>{head}</tr>{body}</table>"


CSS = """body{font-family:sans-serif;max-width:1000px;margin:2em auto;color:#222}
h1{font-size:1.5em}h2{font-size:1.15em;margin-top:1.6em;border-bottom:1px solid #ccc}
table{border-collapse:collapse;font-size:0.85em;margin:0.5em 0}
td,th{border:1px solid #ddd;padding:2px 8px;text-align:right}th{background:#f4f4f4}
table.kv th{text-align:left}figure{margin:1em 0}figcaption{font-size:0.85em;color:#555}
img{max-width:100%;border:1px solid #eee}.missing{color:#a33;font-style:italic}
pre{background:#f7f7f7;padding:0.6em;font-size:0.8em;overflow:auto;max-height:30em}"""

SUMMARY_KEYS = ["utilization", "throughput_bps", "goodput_bps", "arrivals", "departures", "drops",
                "drops_overflow", "drops_early", "drops_forced", "marks", "loss_rate", "mark_rate",
                "queue_mean_pkts", "queue_p99_pkts", "queue_max_pkts", "delay_mean_s", "delay_p50_s",
                "delay_p99_s", "jain_index", "timeouts", "fast_retransmits", "retransmits", "flows",
                "sent", "delivered", "dropped", "in_flight", "events"]


def page(run: RunData, figures: List[Figure]) -> str:
    """The report as one HTML page: figures inline (base64 PNG), nothing fetched from elsewhere."""
    s = run.summary
    title = html.escape(str(s.get("name") or "BufferLab run"))
    parts = [f"<!DOCTYPE html><html lang='en'><head><meta charset='utf-8'><title>{title}</title>",
             f"<style>{CSS}</style></head><body>",
             f"<h1>{title}</h1>",
             f"<p>{_cell(s.get('flows'))} flows with rows, {_cell(s.get('duration_s'))} s simulated "
             f"(statistics from {_cell(s.get('warmup_s'))} s), seed {_cell(s.get('seed'))}.</p>",
             "<h2>Summary (first port)</h2>", _table([(k, s.get(k)) for k in SUMMARY_KEYS if k in s])]
    if len(run.ports) > 1 or len(run.groups) > 1:
        parts += ["<h2>Ports</h2>", _frame_table(run.ports, ["name", "discipline", "rate_bps", "utilization",
                                                              "loss_rate", "mark_rate", "queue_mean_pkts",
                                                              "delay_mean_s"]),
                  "<h2>Groups</h2>", _frame_table(run.groups, ["name", "congestion_control", "flows_started",
                                                               "goodput_bps", "jain_index", "timeouts",
                                                               "fast_recoveries", "ecn_reductions"])]
    for fig in figures:
        parts.append(f"<h2>{html.escape(fig.title)}</h2><figure>")
        if fig.png:
            data = base64.b64encode(fig.png).decode("ascii")
            parts.append(f"<img alt='{html.escape(fig.title)}' src='data:image/png;base64,{data}'>")
        parts.append(f"<figcaption>{html.escape(fig.caption)}</figcaption>")
        if fig.missing:
            parts.append(f"<p class='missing'>{html.escape(fig.missing)}</p>")
        parts.append("</figure>")
    if run.trace:
        parts += ["<h2>Trace</h2>", _table(list(run.trace.items()))]
    scenario = json.dumps(run.scenario, indent=2, default=str, allow_nan=False)
    parts += ["<h2>Scenario</h2>", f"<pre>{html.escape(scenario)}</pre>", "</body></html>"]
    return "\n".join(parts)


def write(run: RunData, directory: Union[str, Path], field_name: str = "--report") -> List[Path]:
    """Write ``report.html``, the figures (PNG and SVG) and ``delay_cdf.parquet`` into ``directory``."""
    figures = draw(run, directory, field_name)
    target = Path(directory)
    path = target / "report.html"
    try:
        path.write_text(page(run, figures), encoding="utf-8")
        written = [path]
        if len(run.delay_cdf) and not (target / "delay_cdf.parquet").exists():
            run.delay_cdf.to_parquet(target / "delay_cdf.parquet", index=False)
            written.append(target / "delay_cdf.parquet")
    except OSError as exc:
        raise BufferLabError(f"{field_name}: cannot write {path}: {exc.strerror or exc}") from None
    return written + [f for fig in figures for f in fig.files]
