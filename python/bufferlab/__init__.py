"""BufferLab: how big should a router buffer be, and which AQM should run on it?

``bufferlab.run(scenario)`` simulates a scenario with the Rust engine; ``bufferlab.models`` holds the papers'
analytic models (pure numpy/scipy); ``bufferlab.sweep(scenario, grid, out=DIR)`` runs a parameter study. The
engine is imported lazily so the models work without it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from bufferlab.errors import BufferLabError

if TYPE_CHECKING:  # pragma: no cover
    from bufferlab.simulate import Results

__all__ = ["BufferLabError", "Results", "run", "resolve", "load_scenario", "sweep"]
__version__ = "0.1.0"


def __getattr__(name: str) -> Any:
    if name in ("run", "resolve", "Results", "load_scenario"):
        from bufferlab import simulate

        return getattr(simulate, name)
    if name == "sweep":
        from bufferlab.sweeps import sweep

        return sweep
    raise AttributeError(f"module 'bufferlab' has no attribute {name!r}")
