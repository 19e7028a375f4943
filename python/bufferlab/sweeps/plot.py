"""``bufferlab plot DIR --x KEY --y METRIC [--hue KEY] [--col KEY]``: a sweep's metric against a swept key.

Each point is the mean over the seeds of the successful runs at that combination, with its 95 % Student-t
confidence interval (mean ± t(0.975, n−1)·s/√n; none for a single seed) drawn as a band (as error bars when
x is text, such as a discipline). Every swept key other than x, hue and col must hold one value at each of
their combinations (a key zipped with x does; ``--where KEY=VALUE`` picks one of another), so no mean mixes
different combinations.
"""

from __future__ import annotations

import math
import re
from pathlib import Path
from typing import Any, Dict, List, Optional, Sequence, Union

import numpy as np
import pandas as pd

from bufferlab.errors import BufferLabError
from bufferlab.simulate import parse_value
from bufferlab.stats import mean_interval
from bufferlab.sweeps.grid import column_value
from bufferlab.sweeps.store import UNREADABLE, Store

__all__ = ["plot_sweep", "mean_ci"]


def mean_ci(values: Sequence[float], level: float = 0.95) -> Dict[str, float]:
    """Mean, sample size and half-width of the Student-t confidence interval
    (:func:`bufferlab.stats.mean_interval` of the finite values; NaN for one value)."""
    iv = mean_interval([v for v in values if v is not None and math.isfinite(v)], level)
    return {"mean": iv.mean, "n": iv.n, "half": iv.half}


def _matches(series: pd.Series, raw: str) -> pd.Series:
    want = column_value(parse_value(raw))
    number = isinstance(want, (int, float)) and not isinstance(want, bool)
    if number and pd.api.types.is_numeric_dtype(series):
        return np.isclose(series.astype(float), float(want), rtol=1e-9, atol=0.0)
    return series.astype(str) == str(want)


def plot_sweep(directory: Union[str, Path], x: str, y: str, hue: Optional[str] = None,
               col: Optional[str] = None, where: Sequence[str] = (), logx: Optional[bool] = None,
               out: Optional[Union[str, Path]] = None) -> List[Path]:
    """Draw ``y`` against ``x`` from the sweep in ``directory``; returns the PNG and SVG paths
    (``<out or DIR/plots>/<y>-vs-<x>[-by-<hue>][-per-<col>].png|svg``)."""
    import matplotlib  # noqa: PLC0415

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt  # noqa: PLC0415

    from bufferlab.plots import save_figure  # noqa: PLC0415

    store = Store(Path(directory), field="DIR")
    definition = store.definition(remedy=UNREADABLE)
    if definition is None:
        raise BufferLabError(f"DIR {directory}: not a sweep directory (no sweep.json)")
    df = store.load()
    swept = [a["key"] for a in definition.get("axes", [])]
    for option, key in (("--x", x), ("--hue", hue), ("--col", col)):
        if key is not None and key not in swept:
            raise BufferLabError(f"{option} {key}: not a swept key of this sweep (swept: "
                                 f"{', '.join(swept) or 'none'})")
    if not len(df):
        raise BufferLabError(f"DIR {directory}: no finished runs yet")
    numeric = [c for c in df.columns
               if c not in swept and c != "seed" and pd.api.types.is_numeric_dtype(df[c])]
    if y not in numeric:
        raise BufferLabError(f"--y {y}: not a numeric column of the results (e.g. "
                             f"{', '.join(c for c in numeric[:12])}, ...)")
    for item in where:
        key, sep, raw = item.partition("=")
        if not sep or key not in swept:
            raise BufferLabError(f"--where {item}: expected KEY=VALUE with a swept key ({', '.join(swept)})")
        df = df[_matches(df[key], raw)]
        if not len(df):
            raise BufferLabError(f"--where {item}: no run has this value")
    failed = int((df["status"] != "ok").sum())
    df = df[df["status"] == "ok"]
    used = [k for k in (x, hue, col) if k]
    for key in swept:
        # a key zipped with x (or hue, col) takes one value at each of their combinations: allowed
        if key not in used and key in df and (df.groupby(used)[key].nunique(dropna=False) > 1).any():
            shown = ", ".join(map(str, sorted(df[key].dropna().unique().tolist(), key=str)[:5]))
            raise BufferLabError(f"the sweep also varies {key} ({shown}): give --hue {key}, --col {key} or "
                                 f"--where {key}=VALUE")
    if not len(df):
        raise BufferLabError(f"DIR {directory}: no successful run to plot ({failed} failed)")
    log_axes = {a["key"] for a in definition.get("axes", []) if a.get("log")}
    text_x = not pd.api.types.is_numeric_dtype(df[x]) or pd.api.types.is_bool_dtype(df[x])
    use_log = (x in log_axes if logx is None else logx) and not text_x
    if use_log and (df[x] <= 0).any():
        raise BufferLabError(f"--logx: {x} has values <= 0")

    cols = sorted(df[col].unique().tolist(), key=_order) if col else [None]
    hues = sorted(df[hue].unique().tolist(), key=_order) if hue else [None]
    xs_text = sorted(df[x].unique().tolist(), key=_order) if text_x else []
    fig, axes = plt.subplots(1, len(cols), figsize=(5.2 * len(cols) + 1.0, 4.0), sharey=True, squeeze=False)
    seeds_seen: List[int] = []
    for ax, cval in zip(axes[0], cols):
        part = df if col is None else df[df[col] == cval]
        for n, hval in enumerate(hues):
            sub = part if hue is None else part[part[hue] == hval]
            if not len(sub):
                continue
            stats_ = [(xv, mean_ci(g[y].tolist())) for xv, g in sub.groupby(x, sort=False)]
            stats_.sort(key=lambda s: _order(s[0]))
            seeds_seen += [s["n"] for _, s in stats_]
            pos = np.array([xs_text.index(v) for v, _ in stats_] if text_x else [v for v, _ in stats_], float)
            mean = np.array([s["mean"] for _, s in stats_])
            half = np.array([s["half"] for _, s in stats_])
            label = f"{hue} = {_label(hval)}" if hue else "mean"
            color = f"C{n % 10}"
            if text_x:
                ax.errorbar(pos + (n - (len(hues) - 1) / 2) * 0.08, mean, yerr=np.nan_to_num(half), fmt="o",
                            color=color, capsize=3, label=label)
            else:
                ax.plot(pos, mean, "o-", color=color, label=label, ms=4)
                ok = np.isfinite(half)
                if ok.any():
                    ax.fill_between(pos[ok], (mean - half)[ok], (mean + half)[ok], color=color, alpha=0.2,
                                    linewidth=0)
        if text_x:
            ax.set_xticks(range(len(xs_text)), [_label(v) for v in xs_text])
        if use_log:
            ax.set_xscale("log")
        ax.set_xlabel(x)
        if col:
            ax.set_title(f"{col} = {_label(cval)}")
        ax.grid(True, alpha=0.3)
    axes[0][0].set_ylabel(y)
    lo, hi = (min(seeds_seen), max(seeds_seen)) if seeds_seen else (0, 0)
    seeds = f"{lo} seed{'s' if lo != 1 else ''}" if lo == hi else f"{lo}–{hi} seeds"
    band = "95 % Student-t CI" if hi > 1 else "one seed: no CI"
    note = f"; {failed} failed run{'s' if failed != 1 else ''} left out" if failed else ""
    fig.suptitle(f"{y} vs {x}: mean over {seeds} ({band}){note}", fontsize=10)
    axes[0][-1].legend(fontsize=8, title=f"mean ± 95 % CI, {seeds}" if hi > 1 else None, title_fontsize=8)
    fig.tight_layout()
    stem = f"{y}-vs-{x}" + (f"-by-{hue}" if hue else "") + (f"-per-{col}" if col else "")
    stem = re.sub(r"[^\w.-]+", "_", stem)
    return save_figure(fig, out if out is not None else Path(directory) / "plots", stem, field="--out")


def _order(v: Any) -> Any:
    return (0, float(v), "") if isinstance(v, (int, float, np.number)) else (1, 0.0, str(v))


def _label(v: Any) -> str:
    return f"{v:g}" if isinstance(v, (float, np.floating)) else str(v)
