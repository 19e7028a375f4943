"""Run a BufferLab scenario in ns-3 (the ``ns3`` package from PyPI, version 3.44): the names the rest of the
package uses, from the modules that hold them.

* ``translate.py``: :func:`translate` (scenario → plain ns-3 configuration, no ns-3 needed), one function per
  translated discipline (``DISCIPLINES``), and what ns-3 cannot check (``NS3_CANNOT_CHECK``,
  ``NS3_CANNOT_CHECK_FEATURES``).
* ``ns3run.py``: :func:`run_ns3` / :func:`run_ns3_isolated` (build the configuration in ns-3, run it,
  gather the results), with the C++ monitor ``monitor.cc`` (package data).
* ``ns3checks.py``: the ns-3 attributes a configuration asks for and the checks that ns-3 installed them.
"""

from __future__ import annotations

import sys

from bufferlab.validation.ns3checks import (
    NS3_PACING_RATIOS,
    PPP_HEADER_BYTES,
    RED_DISCIPLINES,
    check_read_back,
    check_socket_read_back,
    congestion_control_defaults,
    conn_timeout,
    queue_disc_attributes,
    socket_attributes,
)
from bufferlab.validation.ns3run import (
    BIG_DEVICE_QUEUE,
    JITTER_STREAM_BASE,
    TIMEOUT_CAUSES,
    Ns3Unavailable,
    monitor_source,
    ns3_available,
    run_ns3,
    run_ns3_isolated,
)
from bufferlab.validation.translate import (
    DISCIPLINES,
    ENGINE_DEFAULT_LIMITS,
    MAX_FLOWS_PER_GROUP,
    MAX_GROUPS,
    MAX_LINKS,
    NS3_CANNOT_CHECK,
    NS3_CANNOT_CHECK_FEATURES,
    NS3_CONGESTION_CONTROL,
    NS3_CUBIC_CHOICES,
    NS3_QUEUE_DISCS,
    NS3_TCP_IP_HEADER_BYTES,
    ScenarioLike,
    adaptive_red_settings,
    load,
    resolve,
    translate,
)

__all__ = [
    "BIG_DEVICE_QUEUE", "DISCIPLINES", "ENGINE_DEFAULT_LIMITS", "JITTER_STREAM_BASE", "MAX_FLOWS_PER_GROUP",
    "MAX_GROUPS", "MAX_LINKS", "NS3_CANNOT_CHECK", "NS3_CANNOT_CHECK_FEATURES", "NS3_CONGESTION_CONTROL",
    "NS3_CUBIC_CHOICES", "NS3_PACING_RATIOS", "NS3_QUEUE_DISCS", "NS3_TCP_IP_HEADER_BYTES",
    "PPP_HEADER_BYTES", "RED_DISCIPLINES", "TIMEOUT_CAUSES", "Ns3Unavailable", "ScenarioLike",
    "adaptive_red_settings", "check_read_back", "check_socket_read_back", "congestion_control_defaults",
    "conn_timeout", "load", "monitor_source", "ns3_available", "queue_disc_attributes", "resolve", "run_ns3",
    "run_ns3_isolated", "socket_attributes", "translate",
]

if __name__ == "__main__":  # the former entry point of one isolated run: the runner's
    from bufferlab.validation.ns3run import _main

    sys.exit(_main())
