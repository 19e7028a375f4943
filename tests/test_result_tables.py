"""The engine hands per-flow tables to Python column by column (``simulate.engine_table``); each must be the
DataFrame pandas builds from the same rows as a list of records, which is how they came before: the same
columns in the same order, the same dtypes, the same values."""
from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any, Dict, List

import numpy as np
import pandas as pd
import pytest

import bufferlab
from bufferlab import simulate

EXAMPLES = sorted(p.stem for p in (Path(bufferlab.__file__).parent / "scenarios").glob("*.toml"))


def records(columns: List[Any]) -> List[Dict[str, Any]]:
    """The table's rows as JSON would carry them: NaN as null, integers as integers."""
    values = {name: json.loads(data) if kind == "json" else np.frombuffer(data, dtype=kind).tolist()
              for name, kind, data in columns}
    rows = len(next(iter(values.values()), []))
    def plain(x: Any) -> Any:
        return None if isinstance(x, float) and math.isnan(x) else x

    return [{name: plain(v[i]) for name, v in values.items()} for i in range(rows)]


@pytest.mark.parametrize("name", EXAMPLES)
def test_columns_make_the_frame_records_make(name: str) -> None:
    from bufferlab import _engine

    spec = simulate.load_scenario(name)
    sim = _engine.Simulation(simulate._to_json(simulate.fill_index_tables(spec)))
    _, flows, fct_records, *_ = sim.finish()
    for table in (flows, fct_records):
        frame = simulate.engine_table(table)
        pd.testing.assert_frame_equal(frame, pd.DataFrame(records(table)))
    assert len(simulate.engine_table(flows)) + len(simulate.engine_table(fct_records)) > 0


def test_typing_follows_pandas_on_nulls_and_mixed_values() -> None:
    table = [("n", "json", "[null, null]"), ("i", "<i8", np.array([1, 2], "<i8").tobytes()),
             ("f", "<f8", np.array([math.nan, 2.5]).tobytes()), ("s", "json", '["a", "b"]')]
    frame = simulate.engine_table(table)
    pd.testing.assert_frame_equal(frame, pd.DataFrame([{"n": None, "i": 1, "f": None, "s": "a"},
                                                       {"n": None, "i": 2, "f": 2.5, "s": "b"}]))
    frame.loc[0, "i"] = 7  # writable, though read from bytes
    assert frame["i"].tolist() == [7, 2]
