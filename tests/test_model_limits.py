"""`advise`, `model` and `bench` with huge or degenerate values: a bounded computation or one message naming
the option (exit 2), never a traceback, a MemoryError, a stray warning or `nan` in the output."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from bufferlab.cli import main


def strict_json(text: str) -> dict:
    def refuse(token: str) -> None:
        raise ValueError(f"not JSON: {token}")

    return json.loads(text, parse_constant=refuse)


def error(argv: list, capsys: pytest.CaptureFixture, recwarn: pytest.WarningsRecorder) -> str:
    """Run the CLI in-process; exit 2 with one line and no warning; return the message."""
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 1 and "Traceback" not in err, err
    assert not [w for w in recwarn if issubclass(w.category, RuntimeWarning)]
    return err.strip().removeprefix("bufferlab: error: ")


def output(argv: list, capsys: pytest.CaptureFixture) -> str:
    assert main(argv) == 0
    captured = capsys.readouterr()
    assert not re.search(r"\bnan\b", captured.out, re.IGNORECASE)
    return captured.out


@pytest.mark.parametrize("argv,message", [
    (["advise", "--capacity", "1e308", "--flows", "100", "--rtt", "100ms"],
     "capacity and rtt: the bandwidth-delay product C*RTT is 8.33e+302 packets of 1500 B; the advisor "
     "handles up to 1e+15 packets"),
    (["advise", "--capacity", "10Gbps", "--flows", "100", "--rtt", "100ms", "--packet-size", "1e30B"],
     "--packet-size (bytes) must be an integer in [20, 65535] (the engine's range), got 1e+30"),
    (["model", "queueing", "--rho", "", "--buffer", "10"], "--rho: give at least one number"),
    (["model", "queueing", "--rho", "1e308", "--buffer", "10"],
     "rho: the exact M/D/1/K solution handles loads up to about 90000 (its Poisson table grows with the "
     "load), got 1e+308"),
    (["model", "queueing", "--rho", "0.5", "--buffer", "1e308"],
     "--buffer must be an integer in [1, 2^53], got [1e+308]"),
    (["model", "queueing", "--rho", "0.999999", "--buffer", "100000000"],
     "K: the exact M/D/1/K solution at rho = 0.999999 and K = 100,000,000 needs about"),
    (["model", "queueing", "--rho", "0.5", "--buffer", "10", "--simulate", "--seed", "-1"],
     "--seed must be an integer >= 0, got -1"),
    (["model", "queueing", "--rho", "0.5", "--buffer", "10", "--simulate", "--arrivals", "1000000000"],
     "arrivals and replications: the Monte Carlo would draw 1,000,001,000 arrivals"),
    (["model", "tiny-buffers", "--wmax", "64", "--rho", "0.5", "--simulate", "--seed", "-1"],
     "--seed must be an integer >= 0, got -1"),
    (["model", "tiny-buffers", "--wmax", "64", "--rho", "0.5", "--simulate", "--flows", "1000000000"],
     "flows, w_max and replications: the slotted model would send 64,000,000,000 packets per RTT"),
    (["model", "tiny-buffers", "--wmax", "1e6", "--rho", "0.5", "--simulate"],
     "flows, w_max and replications: the slotted model would send 16,000,000 packets per RTT"),
    (["model", "eun-wang", "--flows", "100", "--capacity-per-flow", "1e308"],
     "per-flow bandwidth-delay product C*T = 2e+307 packets: the default window cap max(8 CT, CT + 2) = "
     "1.6e+308 is above the chain's limit of 1,000,000 window states"),
    (["model", "eun-wang", "--flows", "100", "--capacity-per-flow", "10", "--rtt", "1e9"],
     "per-flow bandwidth-delay product C*T = 1e+10 packets"),
    (["model", "eun-wang", "--flows", "100", "--capacity-per-flow", "10", "--wmax", "1000000000"],
     "w_max must be an integer in [4, 1000000] (> CT + 1 = 3), got 1000000000"),
    (["model", "eun-wang", "--flows", "100", "--capacity-per-flow", "10", "--rounds", "1000000000"],
     "--rounds must be an integer in [2, 1000000], got 1000000000"),
    (["model", "eun-wang", "--flows", "100", "--capacity-per-flow", "10", "--seeds", "1000",
      "--rounds", "1000000"], "--rounds, --seeds and the flow counts: 1,000,000,000 rounds"),
    (["model", "whittle", "--n-max", "1000000000"],
     "--n-max must be an integer in [1, 10000], got 1000000000"),
    (["model", "whittle", "--alpha", "1e308"],
     "alpha (fairness parameter) must be in [0, 100] (from about 50 on the index only shrinks as "
     "1/(alpha - 1), the max-min limit), got 1e+308"),
    (["model", "whittle", "--alpha", "1e8", "--reward", "alpha-fair"],
     "alpha (fairness parameter) must be in [0, 100]"),
    (["model", "whittle", "--n-max", "500", "--verify"],
     "--n-max: the brute force of --verify takes about N^3 work; it is limited to N <= 200 (got 500)"),
    (["bench", "--repeat", "0"], "--repeat: must be >= 1 (got 0)"),
    (["bench", "--repeat", "-1"], "--repeat: must be >= 1 (got -1)"),
    (["bench", "--duration", "1us", "--repeat", "1"],
     "--duration: must be at least 1 s, the benchmark's flows start over the first second (got '1us')"),
    (["bench", "--scale", "10,abc", "--repeat", "1"],
     "--scale: expected comma-separated flow counts >= 1, such as 10,100,1000 (got '10,abc')"),
])
def test_degenerate_values_are_one_message(argv: list, message: str, capsys, recwarn) -> None:
    assert error(argv, capsys, recwarn).startswith(message)


def test_plot_into_an_impossible_place_names_the_option(tmp_path: Path, capsys, recwarn) -> None:
    a_file = tmp_path / "file"
    a_file.write_text("")
    for argv in (["model", "eun-wang", "--flows", "10", "--capacity-per-flow", "10", "--rounds", "50"],
                 ["model", "whittle", "--n-max", "5"],
                 ["model", "queueing", "--rho", "0.5", "--buffer", "5"],
                 ["model", "tiny-buffers", "--wmax", "64", "--rho", "0.5"]):
        for target, reason in ((a_file, "File exists"), (a_file / "sub", "Not a directory")):
            message = error([*argv, "--plot", str(target)], capsys, recwarn)
            assert message == f"--plot: cannot create directory {str(target)!r}: {reason}"


def test_advise_at_a_huge_bdp_is_bounded_and_marks_what_it_skipped(capsys) -> None:
    """The audit's G1: 1 Tb/s x 1 s (83 M packets) ran out of memory; the M/D/1/K and the Eun-Wang chain
    were the cost."""
    adv = strict_json(output(["advise", "--capacity", "1Tbps", "--flows", "1", "--rtt", "1s", "--json"],
                             capsys))
    bdp = next(r for r in adv["rules"] if r["rule"] == "bdp")
    assert bdp["packets"] == 83_333_334
    models = {p["model"]: p for p in bdp["predictions"]}
    assert 0 < models["M/D/1/K"]["utilization"] < 1 and models["M/D/1/K"]["loss"] == 0.0
    ew = next(r for r in adv["rules"] if r["rule"] == "eun-wang")
    chain = next(p for p in ew["predictions"] if p["model"] == "Eun-Wang chain")
    assert chain["utilization"] is None and chain["assumption"].startswith(
        "not computed: the per-flow bandwidth-delay product C*T = 8.33e+07 packets is above 10,000")


def test_advise_never_recommends_a_droptail_limit_the_engine_rejects(capsys) -> None:
    adv = strict_json(output(["advise", "--capacity", "10Gbps", "--flows", "1000000000000", "--rtt", "100ms",
                              "--json"], capsys))
    limits = {r["rule"]: r["droptail_limit"] for r in adv["rules"] if r["packets"] is not None}
    assert min(limits.values()) == 1
    sqrt_n = next(r for r in adv["rules"] if r["rule"] == "bdp/sqrt(N)")
    assert sqrt_n["packets"] == 1 and any("below the engine's smallest queue" in n for n in sqrt_n["notes"])


def test_tiny_buffers_near_rho_1_reports_what_it_could_not_compute(capsys) -> None:
    """The audit's G4: rho = 0.999999999 asked the M/D/1/B solver for 74 GiB."""
    text = output(["model", "tiny-buffers", "--wmax", "64", "--rho", "0.999999999"], capsys)
    assert "exact M/D/1/B loss: n/a" in text
    assert "(M/D/1/B not computed: K: the exact M/D/1/K solution" in text
    data = strict_json(output(["model", "tiny-buffers", "--wmax", "64", "--rho", "0.999999999", "--json"],
                              capsys))
    assert data["theorem1_buffer"] == 9_927_204_355 and data["md1k_loss"] is None
    assert "the limit is 1,000,000" in data["md1k_note"]


def test_queueing_with_a_huge_buffer_at_low_load_is_computed(capsys) -> None:
    data = strict_json(output(["model", "queueing", "--rho", "0.5", "--buffer", "1e9", "--json"], capsys))
    assert data["rows"]["M/D/1/K loss"] == [0.0] and data["rows"]["K"] == [1_000_000_000]


def test_one_replication_has_no_standard_error_not_nan(capsys) -> None:
    argv = ["model", "tiny-buffers", "--wmax", "64", "--rho", "0.5", "--simulate", "--replications", "1"]
    assert "loss 0 +- n/a over 1024 packets" in output(argv, capsys)
    assert strict_json(output([*argv, "--json"], capsys))["slotted"]["loss_stderr"] is None


def test_eun_wang_shows_an_undefined_h_as_a_dash(capsys) -> None:
    argv = ["model", "eun-wang", "--flows", "100", "--capacity-per-flow", "0.001", "--rounds", "200"]
    row = output(argv, capsys).splitlines()[-1].split()
    assert row[0] == "100" and row[6] == "-"
    data = strict_json(output([*argv, "--json"], capsys))
    assert data["rows"][0]["h_mean"] is None
