"""The event trace of a run (``[trace] events = true``) as a DataFrame; columns in ``docs/traces.md``.

The engine hands its records over in chunks after every step of a run (:meth:`EventCollector.drain`),
so its own buffer stays small; ``trace.max_events`` caps the total.
"""

from __future__ import annotations

from typing import Any, Dict, List, Optional, Sequence

import numpy as np
import pandas as pd

#: Event kinds, by the engine's code.
KINDS = ["send", "enqueue", "drop", "mark", "dequeue", "ack", "timeout", "state"]
#: Congestion states, by code (0: none).
STATES = ["", "slow-start", "congestion-avoidance", "fast-recovery", "rto-recovery", "cwr"]
PACKETS = ["data", "ack", "datagram", "syn", "syn-ack"]
ECN = ["not-ect", "ect0", "ce"]

#: The columns of an event trace, in order.
COLUMNS = ["time_s", "kind", "flow", "group", "port", "packet", "seq", "retransmit", "ecn", "ecn_flag",
           "reason", "at_dequeue", "queue", "delay_s", "cwnd", "ssthresh", "state"]


def _categorical(codes: np.ndarray, names: Sequence[str]) -> pd.Categorical:
    return pd.Categorical.from_codes(codes.astype(np.int64), categories=list(names))


class EventCollector:
    """Gathers a run's event records chunk by chunk; :meth:`frame` builds the DataFrame."""

    def __init__(self) -> None:
        self.chunks: List[pd.DataFrame] = []

    def drain(self, sim: Any) -> None:
        """Take the records the engine gathered since the last call."""
        got = sim.take_trace()
        if got is None:
            return
        columns, reasons = got
        raw: Dict[str, np.ndarray] = {name: np.frombuffer(data, dtype=dtype) for name, dtype, data in columns}
        if not len(raw["time_s"]):
            return
        self.chunks.append(self._frame(raw, reasons))

    def _frame(self, raw: Dict[str, np.ndarray], reasons: Sequence[str]) -> pd.DataFrame:
        reason = np.array([None, *reasons[1:]], dtype=object)[raw["reason"].astype(np.int64)]
        state = np.array([None, *STATES[1:]], dtype=object)[raw["state"].astype(np.int64)]
        queue = pd.array(raw["queue"].astype(np.int64), dtype="Int64")
        queue[raw["queue"] == np.iinfo(np.uint32).max] = pd.NA
        group = pd.array(raw["group"].astype(np.int64), dtype="Int64")
        group[raw["group"] < 0] = pd.NA
        return pd.DataFrame({
            "time_s": raw["time_s"],
            "kind": raw["kind"].astype(np.int64),
            "flow": raw["flow"].astype(np.int64),
            "group": group,
            "port": raw["port"].astype(np.int64),
            "packet": raw["packet"].astype(np.int64),
            "seq": raw["seq"].astype(np.int64),
            "retransmit": raw["retransmit"].copy(),
            "ecn": raw["ecn"].astype(np.int64),
            "ecn_flag": raw["ecn_flag"].copy(),
            "reason": reason,
            "at_dequeue": raw["at_dequeue"].copy(),
            "queue": queue,
            "delay_s": raw["delay_s"].copy(),
            "cwnd": raw["cwnd"].copy(),
            "ssthresh": raw["ssthresh"].copy(),
            "state": state,
        })

    def frame(self, port_names: Sequence[str]) -> pd.DataFrame:
        """Every record so far, one row each, in the engine's order (see ``docs/traces.md``); ports by
        ``port_names``."""
        if not self.chunks:
            return empty_events()
        df = pd.concat(self.chunks, ignore_index=True) if len(self.chunks) > 1 else self.chunks[0]
        self.chunks = [df]
        out = df.copy()
        out["kind"] = _categorical(df["kind"].to_numpy(), KINDS)
        out["packet"] = _categorical(df["packet"].to_numpy(), PACKETS)
        out["ecn"] = _categorical(df["ecn"].to_numpy(), ECN)
        out["port"] = np.array([None, *port_names], dtype=object)[df["port"].to_numpy() + 1]
        return out


def empty_events() -> pd.DataFrame:
    """An event trace with no rows (and its columns)."""
    return pd.DataFrame({name: [] for name in COLUMNS})


def drop_times(events: pd.DataFrame, kind: str = "drop", port: Optional[str] = None) -> np.ndarray:
    """Times (s) of the ``kind`` events (``"drop"`` or ``"mark"``), at ``port`` if given."""
    if not len(events):
        return np.array([])
    rows = events["kind"] == kind
    if port is not None:
        rows &= events["port"] == port
    return events.loc[rows, "time_s"].to_numpy()
