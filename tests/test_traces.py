"""`[trace]`: the event trace as a DataFrame and Parquet, the pcap read by tshark against the engine's own
counters, and the HTML report opened in headless Chromium.

tshark and Chromium come from Debian's packages (scripts/test.sh installs them); where they cannot be
installed the tests that need them are skipped with the reason.
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from pathlib import Path
from typing import List

import numpy as np
import pandas as pd
import pytest

import bufferlab
from bufferlab.cli import main

#: A lossy RED/ECN dumbbell: 12 ECN flows, 4 without ECN, a Poisson UDP stream; early and forced drops,
#: CE marks, timeouts and fast retransmits. The buffer (300) never overflows, so every marked packet
#: leaves the port; the sources stop at 6 s, so the queue has drained by the end; the UDP source starts
#: after the measurement window opens at 0, so the window's counts are the whole run's.
LOSSY = """
name = "red-ecn-lossy"
seed = 5
duration = "8s"
[bottleneck]
rate = "10Mbps"
delay = "5ms"
queue = { discipline = "red", limit = 300, min_th = 5, max_th = 15, ecn = true }
[[flows]]
count = 12
rtt = { uniform = ["40ms", "120ms"] }
stop = "6s"
tcp = { ecn = true, delayed_ack = true }
[[flows]]
name = "plain"
count = 4
rtt = "60ms"
stop = "6s"
[[udp]]
pattern = "poisson"
rate = "1Mbps"
start = "10ms"
stop = "6s"
"""


@pytest.fixture()
def lossy(tmp_path: Path) -> Path:
    path = tmp_path / "lossy.toml"
    path.write_text(LOSSY)
    return path


def _tshark_count(pcap: Path, display_filter: str) -> int:
    proc = subprocess.run(["tshark", "-n", "-r", str(pcap), "-Y", display_filter, "-T", "fields",
                           "-e", "frame.number"], capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    return len(proc.stdout.split())


needs_tshark = pytest.mark.skipif(
    shutil.which("tshark") is None,
    reason="tshark is not installed (scripts/test.sh installs Debian's tshark; it could not here)")


def test_tracing_changes_no_result(lossy: Path, tmp_path: Path) -> None:
    plain = bufferlab.run(lossy)
    traced = bufferlab.run(lossy, trace={"events": True, "pcap": str(tmp_path / "x.pcap")})
    assert plain.summary == traced.summary
    pd.testing.assert_frame_equal(plain.flows, traced.flows)
    pd.testing.assert_frame_equal(plain.ports, traced.ports)
    assert plain.events.empty and not plain.trace
    assert len(traced.events) == traced.trace["events"] > 10_000


def test_event_trace_frame_and_parquet(lossy: Path, tmp_path: Path) -> None:
    out = tmp_path / "out"
    assert main(["run", str(lossy), "--set", "trace.events=true", "--out", str(out), "--quiet"]) == 0
    ev = pd.read_parquet(out / "events.parquet")
    assert list(ev.columns) == bufferlab.traces.COLUMNS
    results = json.loads((out / "results.json").read_text())
    s = results["summary"]
    kinds = ev["kind"].astype(str)
    assert (kinds == "drop").sum() == s["drops"] and (kinds == "mark").sum() == s["marks"]
    assert (kinds == "dequeue").sum() == s["departures"]
    assert (kinds == "timeout").sum() == s["timeouts"]
    assert ((kinds == "send") & ev["retransmit"]).sum() == s["retransmits"]
    drops = ev[kinds == "drop"]
    assert set(drops["reason"]) == {"early", "forced"}
    assert drops["port"].eq("bottleneck").all()
    states = set(ev.loc[kinds == "state", "state"])
    assert {"slow-start", "congestion-avoidance", "fast-recovery", "rto-recovery", "cwr"} <= states
    acks = ev[kinds == "ack"]
    assert acks["cwnd"].notna().all() and (acks["cwnd"] >= 1).all()
    assert results["trace"]["events"] == len(ev) and results["trace"]["events_over_cap"] == 0


def test_event_trace_filters(lossy: Path) -> None:
    r = bufferlab.run(lossy, trace={"events": True, "flows": ["2-3"], "kinds": ["ack", "state"],
                                    "start": "1s", "stop": "3s"})
    assert set(r.events["flow"]) == {2, 3}
    assert set(r.events["kind"].astype(str)) == {"ack", "state"}
    assert r.events["time_s"].between(1.0, 3.0).all()


def test_bad_trace_fields_are_named(lossy: Path, capsys) -> None:
    assert main(["run", str(lossy), "--set", 'trace.kinds=["sends"]', "--set", "trace.events=true"]) == 2
    assert "trace.kinds[0]" in capsys.readouterr().err
    assert main(["run", str(lossy), "--pcap", "x.pcap", "--set", 'trace.port="nowhere"']) == 2
    assert "trace.port: no link named" in capsys.readouterr().err
    with pytest.raises(bufferlab.BufferLabError, match="^trace: expected a table"):
        bufferlab.run(lossy, trace=["events"])  # type: ignore[arg-type]
    assert main(["run", str(lossy), "--report"]) == 2
    assert "--report: only with --out" in capsys.readouterr().err


@needs_tshark
@pytest.mark.slow
def test_pcap_counts_equal_the_engines(lossy: Path, tmp_path: Path) -> None:
    """Egress (what the bottleneck transmits): every packet and every CE mark. Ingress (what arrives,
    drops included): every packet and, by Wireshark's own TCP analysis, every retransmission."""
    egress = tmp_path / "egress.pcap"
    assert main(["run", str(lossy), "--pcap", str(egress), "--quiet"]) == 0
    r = bufferlab.run(lossy, trace={"pcap": str(tmp_path / "ingress.pcap"), "side": "ingress"})
    port = r.ports.iloc[0]
    assert r.summary["drops"] > 100 and r.summary["marks"] > 100 and r.summary["timeouts"] > 0

    data = "tcp.len > 0 || udp"
    assert _tshark_count(egress, data) == port["departures"]
    assert _tshark_count(egress, "ip.dsfield.ecn == 3") == r.summary["marks"]
    ingress = tmp_path / "ingress.pcap"
    assert _tshark_count(ingress, data) == port["arrivals"]
    assert _tshark_count(ingress, "ip.dsfield.ecn == 3") == 0, "nothing is marked before the bottleneck"
    retransmissions = "tcp.analysis.retransmission || tcp.analysis.out_of_order"
    assert _tshark_count(ingress, retransmissions) == r.flows["retransmits"].sum() == r.summary["retransmits"]
    for pcap in (egress, ingress):
        bad = ("_ws.malformed || _ws.expert.severity == error || ip.checksum.status == 0 || "
               "tcp.checksum.status == 0 || udp.checksum.status == 0")
        proc = subprocess.run(["tshark", "-n", "-r", str(pcap), "-o", "ip.check_checksum:TRUE",
                               "-o", "tcp.check_checksum:TRUE", "-o", "udp.check_checksum:TRUE",
                               "-Y", bad], capture_output=True, text=True, timeout=300)
        assert proc.returncode == 0 and proc.stdout == "", proc.stdout[:500] + proc.stderr
        stats = subprocess.run(["tshark", "-n", "-r", str(pcap), "-q", "-z", "io,stat,0"],
                               capture_output=True, text=True, timeout=300)
        assert stats.returncode == 0 and "Frames" in stats.stdout
    assert _tshark_count(egress, "tcp.analysis.duplicate_ack") > 0
    assert _tshark_count(egress, "tcp.options.sack_le") > 0
    assert _tshark_count(egress, "tcp.analysis.ack_rtt") > 1000
    assert _tshark_count(egress, "tcp.flags.ece == 1") > 0 and _tshark_count(egress, "tcp.flags.cwr == 1") > 0


def _chromium() -> str:
    for name in ("chromium", "chromium-browser", "google-chrome"):
        if shutil.which(name):
            return name
    pytest.skip("Chromium is not installed (scripts/test.sh installs Debian's chromium; it could not here)")
    return ""


def _open_in_chromium(page: Path, shot: Path) -> List[str]:
    """Open ``page`` headless, screenshot it into ``shot``; the page's console messages."""
    proc = subprocess.run([_chromium(), "--headless", "--disable-gpu", "--no-sandbox", "--no-first-run",
                           "--disable-dev-shm-usage", "--enable-logging=stderr", "--v=0",
                           f"--user-data-dir={shot.parent / 'chromium-profile'}",
                           f"--screenshot={shot}", "--window-size=1100,4200", page.resolve().as_uri()],
                          capture_output=True, text=True, timeout=180)
    assert shot.exists(), proc.stderr[-2000:]
    return [line for line in proc.stderr.splitlines() if re.search(r"CONSOLE|Uncaught|Failed to load", line)]


@pytest.mark.slow
def test_report_renders_in_chromium(lossy: Path, tmp_path: Path) -> None:
    out = tmp_path / "run"
    assert main(["run", str(lossy), "--out", str(out), "--report", "--quiet"]) == 0
    page = out / "report.html"
    text = page.read_text()
    assert "http://" not in text and "https://" not in text, "self-contained"
    assert text.count("data:image/png;base64,") == 5
    assert "not recorded" not in text and "need the event trace" not in text
    for stem in ("queue", "delay", "cwnd", "goodput_rtt", "drops_marks"):
        assert (out / f"{stem}.png").stat().st_size > 1000 and (out / f"{stem}.svg").exists()

    # A page that logs an error is caught: the console check is not vacuous.
    control = tmp_path / "control.html"
    control.write_text("<html><body><script>console.error('control-message')</script></body></html>")
    assert any("control-message" in m for m in _open_in_chromium(control, tmp_path / "control.png"))

    shot = tmp_path / "report.png"
    assert _open_in_chromium(page, shot) == []
    import matplotlib.image

    img = matplotlib.image.imread(str(shot))[..., :3]
    ink = (img < 0.9).any(axis=2)
    assert ink.mean() > 0.01, "the page has content beyond text"
    # The figures' coloured lines, dots and bars are on screen (text and frames are grey), among them
    # matplotlib's default blue (queue, delay and window lines).
    coloured = ((img.max(axis=2) - img.min(axis=2)) > 0.3).sum()
    blue = (np.abs(img - np.array([31, 119, 180]) / 255).max(axis=2) < 0.08).sum()
    assert coloured > 10_000 and blue > 2000, (coloured, blue)


@pytest.mark.slow
def test_report_command_on_a_results_directory(lossy: Path, tmp_path: Path, capsys) -> None:
    out = tmp_path / "plain"
    assert main(["run", str(lossy), "--out", str(out), "--quiet"]) == 0
    assert main(["report", str(out)]) == 0
    text = (out / "report.html").read_text()
    assert "add [trace] with events = true" in text, "says how to record drop and mark times"
    assert "set monitor.sample_interval" in text
    assert main(["run", str(lossy), "--out", str(out), "--force", "--quiet"]) == 0, "a report is a run's file"
    assert main(["report", str(tmp_path / "missing")]) == 2
    assert "holds no results.json" in capsys.readouterr().err
    figures = tmp_path / "figs"
    assert main(["run", str(lossy), "--plot", str(figures), "--quiet"]) == 0
    assert sorted(p.name for p in figures.iterdir()) == sorted(
        f"{s}.{e}" for s in ("queue", "delay", "cwnd", "goodput_rtt", "drops_marks") for e in ("png", "svg"))


@pytest.mark.parametrize("text,message", [
    ('{"summary": {"utilization": NaN}, "ports": [], "flows": []}',
     "cannot read {f}: NaN is not a JSON number (an undefined value is written as null)"),
    ('{"summary": {"utilization": -Infinity}}', "cannot read {f}: -Infinity is not a JSON number"),
    ('{"summary": {"utilization": 1e999}}', "cannot read {f}: 1e999 is beyond the range of a float"),
    ("[1, 2]", "{f}: expected a JSON object (a run's results), got list"),
    ('{"ports": 5}', "{f}: ports must be a list, got int"),
    ('{"flows": [1]}', "{f}: flows must be a list of objects (one per row)"),
])
def test_report_refuses_a_results_file_run_does_not_write(text: str, message: str, tmp_path: Path,
                                                          capsys) -> None:
    """results.json is strict JSON (undefined values are null): a non-finite number or a part of the wrong
    kind is one line naming the file, exit 2, and no report."""
    (tmp_path / "results.json").write_text(text)
    assert main(["report", str(tmp_path)]) == 2
    err = capsys.readouterr().err.splitlines()
    expected = f"bufferlab: error: report: {message.format(f=tmp_path / 'results.json')}"
    assert len(err) == 1 and err[0].startswith(expected), err
    assert not (tmp_path / "report.html").exists()


HANDSHAKE = """
name = "handshake"
duration = "2s"
[bottleneck]
rate = "10Mbps"
delay = "5ms"
queue = { discipline = "droptail", limit = 100 }
[flows]
count = 4
rtt = "40ms"
start = { uniform = ["0s", "0.5s"] }
[tcp]
handshake = true
"""


@needs_tshark
@pytest.mark.slow
def test_the_handshake_in_the_event_trace_and_the_pcap(tmp_path: Path) -> None:
    """With `tcp.handshake` every flow's first packet is a SYN, answered by a SYN-ACK; Wireshark reads
    both as a connection's opening (seq 0, then data from 1), with nothing malformed."""
    path = tmp_path / "handshake.toml"
    path.write_text(HANDSHAKE)
    pcap = tmp_path / "hs.pcap"
    r = bufferlab.run(path, trace={"events": True, "kinds": ["send", "ack"], "pcap": str(pcap)})
    ev = r.events
    syn = ev[(ev["kind"] == "send") & (ev["packet"] == "syn")]
    assert sorted(syn["flow"]) == [0, 1, 2, 3]
    first = ev[ev["kind"] == "send"].groupby("flow")["packet"].first()
    assert (first == "syn").all()
    assert (ev[(ev["kind"] == "ack") & (ev["packet"] == "syn-ack")].groupby("flow").size() == 1).all()
    assert _tshark_count(pcap, "tcp.flags.syn == 1 && tcp.flags.ack == 0") == 4
    assert _tshark_count(pcap, "tcp.flags.syn == 1 && tcp.flags.ack == 1") == 4
    assert _tshark_count(pcap, "tcp.len > 0 && tcp.seq == 1") == 4, "data starts after the SYN"
    bad = "_ws.malformed || _ws.expert.severity == error || tcp.checksum.status == 0"
    proc = subprocess.run(["tshark", "-n", "-r", str(pcap), "-o", "tcp.check_checksum:TRUE", "-Y", bad],
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0 and proc.stdout == "", proc.stdout[:500] + proc.stderr


@needs_tshark
def test_a_queued_syn_ack_is_captured_as_one(tmp_path: Path) -> None:
    """On an ACK route of its own, the SYN-ACK crosses a port: its pcap shows SYN+ACK, not a SYN."""
    path = tmp_path / "queued.toml"
    path.write_text("""
duration = "1s"
[[links]]
name = "fwd"
rate = "10Mbps"
delay = "5ms"
queue = { discipline = "droptail", limit = 100 }
[[links]]
name = "back"
rate = "10Mbps"
delay = "5ms"
queue = { discipline = "droptail", limit = 100 }
[[flows]]
count = 3
rtt = "40ms"
route = ["fwd"]
ack_route = ["back"]
[tcp]
handshake = true
""")
    pcap = tmp_path / "back.pcap"
    r = bufferlab.run(path, trace={"events": True, "kinds": ["dequeue"], "pcap": str(pcap), "port": "back"})
    assert _tshark_count(pcap, "tcp.flags.syn == 1 && tcp.flags.ack == 1") == 3
    assert _tshark_count(pcap, "tcp.flags.syn == 1 && tcp.flags.ack == 0") == 0
    ev = r.events
    back = ev[(ev["kind"] == "dequeue") & (ev["port"] == "back")]
    assert (back["packet"] == "syn-ack").sum() == 3
    fwd = ev[(ev["kind"] == "dequeue") & (ev["port"] == "fwd")]
    assert (fwd["packet"] == "syn").sum() == 3


def test_a_pcap_path_that_is_not_a_file_is_refused(lossy: Path, tmp_path: Path, capsys) -> None:
    with pytest.raises(bufferlab.BufferLabError, match=r"^trace\.pcap: .* is a directory"):
        bufferlab.run(lossy, trace={"pcap": str(tmp_path)})
    out = tmp_path / "out"
    assert main(["run", str(lossy), "--pcap", str(tmp_path), "--out", str(out)]) == 2
    assert "--pcap: " in capsys.readouterr().err and not out.exists()
    assert main(["run", str(lossy), "--set", f'trace.pcap="{tmp_path}"', "--out", str(out)]) == 2
    assert "trace.pcap: " in capsys.readouterr().err and not out.exists()
    if Path("/dev/full").exists():  # a device: the finished trace would replace it
        with pytest.raises(bufferlab.BufferLabError, match=r"^trace\.pcap: /dev/full is not a regular file"):
            bufferlab.run(lossy, trace={"pcap": "/dev/full"})
    assert main(["run", str(lossy), "--pcap", "", "--out", str(out)]) == 2
    assert "--pcap: empty path" in capsys.readouterr().err and not out.exists()


@pytest.mark.slow
def test_a_pcap_lost_during_the_run_is_an_error_and_nothing_is_written(lossy: Path, tmp_path: Path) -> None:
    """Writes that fail mid-run (here a file-size limit of 64 KB, as a full disk would) exit 1 naming the
    pcap's source, with neither the pcap nor --out left behind."""
    import resource
    import signal
    import sys

    def small_files() -> None:
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
        resource.setrlimit(resource.RLIMIT_FSIZE, (64 * 1024, 64 * 1024))

    pcap, out = tmp_path / "x.pcap", tmp_path / "out"
    command = [sys.executable, "-m", "bufferlab", "run", str(lossy), "--quiet", "--pcap", str(pcap), "--out",
               str(out)]
    proc = subprocess.run(command, capture_output=True, text=True, preexec_fn=small_files, timeout=300)
    assert proc.returncode == 1, proc.stderr
    assert proc.stderr.count("\n") == 1 and "--pcap: cannot write" in proc.stderr, proc.stderr
    assert not out.exists() and not pcap.exists() and not Path(f"{pcap}.part").exists()
    script = ("import sys, bufferlab\nfrom bufferlab.errors import OutputError\n"
              "try:\n    bufferlab.run(sys.argv[1], trace={'pcap': sys.argv[2]}, progress=False)\n"
              "except OutputError as exc:\n    print(exc)\n")
    proc = subprocess.run([sys.executable, "-c", script, str(lossy), str(pcap)], capture_output=True,
                          text=True, preexec_fn=small_files, timeout=300)
    assert proc.stdout.startswith("trace.pcap: cannot write"), proc.stdout + proc.stderr
    assert not pcap.exists() and not Path(f"{pcap}.part").exists()
