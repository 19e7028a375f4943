"""`bufferlab sweep` / `bufferlab.sweep`: the grid grammar, the dataset, failures, resuming after a real
interruption, serial and pool rows identical, `bufferlab plot`, and `bufferlab advise --verify`."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pandas as pd
import pytest

import bufferlab
from bufferlab import batch
from bufferlab.cli import main
from bufferlab.errors import BufferLabError
from bufferlab.sweeps import load, plan
from bufferlab.sweeps.grid import expand_range, make_axis, parse_axis, points, split_items, zip_axes
from bufferlab.sweeps.store import Store
from bufferlab.sweeps.verify import scale_down

#: A tiny dumbbell: 0.5 s simulated at 10 Mb/s (a few milliseconds of engine time per run).
TINY = ['duration="0.5s"', 'warmup="0.1s"', 'bottleneck.rate="10Mbps"', "flows.count=5", "flows.start=0"]
ANY_N = [t for t in TINY if not t.startswith("flows.count")]
LIMIT = "bottleneck.queue.limit"


def bufferlab_cmd() -> list:
    return [sys.executable, "-m", "bufferlab"]


# -- the grammar ---------------------------------------------------------------------------------------

def test_log_range_of_whole_numbers_is_rounded():
    assert expand_range("10..200:log:4", "x") == ([10, 27, 74, 200], True)
    assert expand_range("1..4:log:8", "x") == ([1, 2, 3, 4], True)  # duplicates after rounding dropped


def test_lin_range_of_fractions_and_of_units():
    assert expand_range("0.0..1.0:lin:5", "x") == ([0.0, 0.25, 0.5, 0.75, 1.0], False)
    values, log = expand_range("1ms..100ms:log:3", "x")
    assert log and values == pytest.approx([0.001, 0.01, 0.1], rel=1e-12)
    assert expand_range("1KB..3KB:lin:3", "x") == ([1000, 2000, 3000], False)  # sizes: whole bytes
    assert expand_range("10Mbps..100Mbps:lin:2", "x") == ([10e6, 100e6], False)
    assert expand_range("10ms", "x") is None


@pytest.mark.parametrize("text, message", [
    ("1..10:cubic:3", "the scale must be log or lin"),
    ("1..10:lin:0", "the count must be a whole number in [1, 1,000,000]"),
    ("0..10:log:3", "a log range needs bounds > 0"),
    ("1ms..10Mbps:lin:3", "both bounds must be the same kind (time and rate)"),
    ("1..10:lin:1", "give N >= 2"),
    ("a..10:lin:3", "cannot read 'a' as a number or a quantity"),
])
def test_bad_ranges_name_the_key(text, message):
    with pytest.raises(BufferLabError) as err:
        parse_axis(f"{LIMIT}={text}")
    assert str(err.value).startswith(f"--grid {LIMIT}: ") and message in str(err.value)


def test_values_lists_and_zips():
    assert split_items('1, {uniform = ["1ms", "2ms"]}, "a,b"') == ["1", '{uniform = ["1ms", "2ms"]}', '"a,b"']
    axis = parse_axis("bottleneck.queue.discipline=droptail,red")
    assert axis.values == ["droptail", "red"] and not axis.log
    assert parse_axis("flows.rtt=10ms,{ uniform = [\"10ms\", \"20ms\"] }").values == [
        "10ms", {"uniform": ["10ms", "20ms"]}]
    assert parse_axis(f"{LIMIT}=5,10..40:log:3").values == [5, 10, 20, 40]
    zipped = zip_axes(["flows.count=1,2", f"{LIMIT}=10,20"], group=7)
    grid = make_axis("tcp.ecn", [True, False], group=1)
    assert points([grid, *zipped]) == [
        {"tcp.ecn": True, "flows.count": 1, LIMIT: 10}, {"tcp.ecn": True, "flows.count": 2, LIMIT: 20},
        {"tcp.ecn": False, "flows.count": 1, LIMIT: 10}, {"tcp.ecn": False, "flows.count": 2, LIMIT: 20}]
    with pytest.raises(BufferLabError, match=r"--zip: the zipped keys need as many values each "
                                             r"\(flows.count has 2, "):
        zip_axes(["flows.count=1,2", f"{LIMIT}=10,20,30"], group=1)
    with pytest.raises(BufferLabError, match="grid key seed: reserved .*--seeds"):
        parse_axis("seed=1,2")
    with pytest.raises(BufferLabError, match=f"--grid {LIMIT}: the value 10 is given twice"):
        parse_axis(f"{LIMIT}=10,10")


def test_a_sweep_refuses_traces():
    with pytest.raises(BufferLabError, match=r"^trace: a sweep keeps no traces \(every run would write"):
        plan("droptail", {LIMIT: "10,20"}, overrides=[*TINY, 'trace.pcap="x.pcap"'])
    with pytest.raises(BufferLabError, match=r"^trace.events: a sweep keeps no traces"):
        plan("droptail", {"trace.events": "true,false"}, overrides=TINY)


def test_plan_checks_combinations_with_the_resolver():
    p = plan("droptail", {"flows.count": "5,0"}, seeds=2, overrides=TINY)
    assert len(p.points) == 2 and p.seeds == [1, 2] and len(p.jobs) == 4
    assert p.invalid == {1: "flows.count: must be in [1, 1,000,000] (got 0)"}
    with pytest.raises(BufferLabError, match=r"^every combination is refused; the first: flows.cunt"):
        plan("droptail", {"flows.cunt": "1,2"}, overrides=TINY)
    with pytest.raises(BufferLabError, match=r"flows is a list of tables; name one entry, e.g. flows\[0\]"):
        plan("mixed-groups", {"flows.count": "1,2"})


# -- running -------------------------------------------------------------------------------------------

def test_rows_hold_the_parameters_the_summary_and_groups_exactly(tmp_path):
    df = bufferlab.sweep("droptail", {LIMIT: "10,100", "bottleneck.delay": "5ms,10ms"}, seeds=2,
                         out=tmp_path / "s", overrides=TINY, workers=1, progress=False)
    assert len(df) == 8 and (df["status"] == "ok").all() and df["error"].isna().all()
    assert df.attrs["counts"] == {"ran": 8, "skipped": 0, "failed": 0, "total": 8, "failed_before": 0,
                                  "wall_s": df.attrs["counts"]["wall_s"]}
    assert df[LIMIT].tolist() == [10, 10, 10, 10, 100, 100, 100, 100]
    assert df["bottleneck.delay"].tolist() == [0.005, 0.005, 0.01, 0.01] * 2  # quantities as SI numbers
    assert df["seed"].tolist() == [1, 2] * 4
    for column in ("utilization", "loss_rate", "delay_p99_s", "group.flows.goodput_bps",
                   "port.bottleneck.utilization", "wall_s", "engine_version", "scenario_hash", "run_key"):
        assert column in df
    row = df.iloc[5]  # limit 100, delay 5 ms, seed 2
    direct = bufferlab.run("droptail", overrides=[*TINY, f"{LIMIT}=100", 'bottleneck.delay="5ms"', "seed=2"],
                           progress=False)
    for key, value in direct.summary.items():
        if key != "seed":
            assert row[key] == value, key
    assert row["group.flows.goodput_bps"] == direct.groups.iloc[0]["goodput_bps"]
    assert row["engine_version"] == batch.engine_version()
    on_disk = pd.read_parquet(tmp_path / "s" / "results")
    assert len(on_disk) == 8 and set(on_disk["run_key"]) == set(df["run_key"])
    assert not list((tmp_path / "s" / "runs").iterdir())  # compacted


def test_a_failing_combination_is_a_row_and_the_others_run(tmp_path):
    for validate in (True, False):  # refused up front, or by the engine in the worker
        out = tmp_path / f"v{validate}"
        df = bufferlab.sweep("droptail", {"flows.count": "2,0,3"}, seeds=2, out=out, overrides=ANY_N,
                             workers=2, progress=False, validate=validate)
        assert df["status"].tolist() == ["ok", "ok", "failed", "failed", "ok", "ok"]
        assert df.loc[2, "error"] == "flows.count: must be in [1, 1,000,000] (got 0)"
        assert df.loc[2, "utilization"] != df.loc[2, "utilization"]  # NaN: no figures for a failed run
        assert df.attrs["counts"]["failed"] == 2
    again = bufferlab.sweep("droptail", {"flows.count": "2,0,3"}, seeds=2, out=out, overrides=ANY_N,
                            progress=False, validate=False)
    assert again.attrs["counts"] | {"wall_s": 0} == {"ran": 0, "skipped": 6, "failed": 0, "total": 6,
                                                     "failed_before": 2, "wall_s": 0}
    retried = bufferlab.sweep("droptail", {"flows.count": "2,0,3"}, seeds=2, out=out, overrides=ANY_N,
                              progress=False, validate=False, retry_failed=True)
    assert retried.attrs["counts"]["ran"] == 2 and retried.attrs["counts"]["failed"] == 2
    assert len(pd.read_parquet(out / "results")) == 6


def test_cli_failures_and_bad_input(tmp_path, capsys):
    sets = sum((["--set", s] for s in ANY_N), [])
    assert main(["sweep", "droptail", "--grid", "flows.count=2,0", *sets, "--out", str(tmp_path / "a"),
                 "--quiet", "--workers", "1"]) == 0
    out, err = capsys.readouterr()
    assert "1 ran, 0 skipped as done, 1 failed" in out
    assert "failed x1: flows.count: must be in [1, 1,000,000] (got 0)" in err
    assert main(["sweep", "droptail", "--grid", "flows.count=0", *sets, "--out", str(tmp_path / "b")]) == 2
    err = capsys.readouterr().err.strip()
    assert err == "bufferlab: error: flows.count: must be in [1, 1,000,000] (got 0)"
    assert main(["sweep", "droptail", "--grid", f"{LIMIT}=1..5:lin:x", "--out", str(tmp_path / "c")]) == 2
    assert "the count must be a whole number" in capsys.readouterr().err
    (tmp_path / "d").mkdir()
    (tmp_path / "d" / "notes.txt").write_text("mine")
    assert main(["sweep", "droptail", "--grid", f"{LIMIT}=5", *sets, "--out", str(tmp_path / "d")]) == 2
    assert "holds more than a sweep (notes.txt)" in capsys.readouterr().err


def test_dry_run_runs_nothing(tmp_path, capsys):
    sets = sum((["--set", s] for s in ANY_N), [])
    assert main(["sweep", "droptail", "--grid", "flows.count=0..10:lin:3", "--seeds", "2", *sets,
                 "--out", str(tmp_path / "d"), "--dry-run"]) == 0
    assert capsys.readouterr().out.splitlines() == [
        "flows.count: 3 values (0, 5, 10)",
        "3 combinations x 2 seeds (1..2) = 6 runs; 1 refused (of 3 checked)",
        "  refused: flows.count=0: flows.count: must be in [1, 1,000,000] (got 0)"]
    assert not (tmp_path / "d").exists()


@pytest.mark.slow
def test_runs_are_capped_before_the_combinations_are_enumerated(tmp_path):
    """A grid of 1,001,000 runs (or 1e9) is refused at once from the axes' sizes, naming --grid and the
    count; the audit's 1e9-run dry run took minutes."""
    with pytest.raises(BufferLabError, match=r"^--grid: bottleneck.queue.limit \(1,001 values\) x "
                       r"flows.count, tcp.sack zipped \(2 values\) x 500 seeds = 1,001,000 runs; a sweep "
                       r"may have at most 1,000,000"):
        plan("droptail", {LIMIT: "1..1001:lin:1001"}, zip=[["flows.count=1,2", "tcp.sack=true,false"]],
             seeds=500, validate=False)
    started = time.perf_counter()
    proc = subprocess.run([*bufferlab_cmd(), "sweep", "droptail", "--grid", f"{LIMIT}=1..1000000:lin:1000000",
                           "--grid", "flows.count=1..1000:lin:1000", "--dry-run", "--out", "never-written"],
                          capture_output=True, text=True, timeout=60, cwd=tmp_path)
    assert proc.returncode == 2 and time.perf_counter() - started < 30
    assert proc.stderr.splitlines() == [
        "bufferlab: error: --grid: bottleneck.queue.limit (1,000,000 values) x flows.count (1,000 values) x "
        "1 seed = 1,000,000,000 runs; a sweep may have at most 1,000,000: give fewer values or seeds, or "
        "split it into several sweeps"]
    assert not (tmp_path / "never-written").exists()
    assert len(plan("droptail", {LIMIT: "1..1000:lin:1000"}, seeds=1000, validate=False, jobs=False).points) \
        == 1000


@pytest.mark.slow
def test_a_dry_run_of_a_million_runs_answers_quickly(tmp_path):
    """The most runs a sweep may have, planned and checked for half a second: a few seconds in all (the
    values were compared pairwise, hours for a million)."""
    code = ("import bufferlab.sweeps as s; s.VALIDATE_BUDGET_S = 0.5; from bufferlab.cli import main; "
            f"raise SystemExit(main(['sweep', 'droptail', '--grid', '{LIMIT}=1..1000000:lin:1000000', "
            f"'--dry-run', '--out', {str(tmp_path / 'd')!r}]))")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.splitlines()
    assert lines[0].startswith(f"{LIMIT}: 1000000 values (1, 2, 3,")
    assert lines[1].startswith("1,000,000 combinations x 1 seed (1..1) = 1,000,000 runs; 0 refused (of ")
    assert not (tmp_path / "d").exists()


def test_another_base_scenario_in_the_same_directory_is_refused(tmp_path):
    out = tmp_path / "s"
    bufferlab.sweep("droptail", {LIMIT: [10]}, out=out, overrides=TINY, workers=1, progress=False)
    with pytest.raises(BufferLabError, match=r"holds a sweep with another base scenario \(file and --set\)"):
        bufferlab.sweep("droptail", {LIMIT: [10]}, out=out, overrides=[*TINY, "tcp.ecn=true"], progress=False)
    df = bufferlab.sweep("droptail", {LIMIT: [10]}, out=out, overrides=[*TINY, "tcp.ecn=true"], force=True,
                         workers=1, progress=False)
    assert df.attrs["counts"]["ran"] == 1 and len(pd.read_parquet(out / "results")) == 1


def test_one_sweep_at_a_time_per_directory(tmp_path):
    out = tmp_path / "s"
    holder = Store(out)
    holder.prepare({"scenario_hash": "x"})
    try:
        with pytest.raises(BufferLabError, match="another sweep is running into this directory"):
            bufferlab.sweep("droptail", {LIMIT: [10]}, out=out, overrides=TINY, progress=False)
    finally:
        holder.unlock()


def test_serial_and_pool_rows_are_identical(tmp_path):
    grid = {LIMIT: "5..80:log:3", "tcp.sack": "true,false"}
    serial = bufferlab.sweep("droptail", grid, seeds=2, out=tmp_path / "a", overrides=TINY, workers=1,
                             progress=False)
    pool = bufferlab.sweep("droptail", grid, seeds=2, out=tmp_path / "b", overrides=TINY, workers=2,
                           progress=False)
    assert len(serial) == 12
    pd.testing.assert_frame_equal(serial.drop(columns="wall_s"), pool.drop(columns="wall_s"))


def test_grown_sweep_keeps_one_schema_and_filters_work(tmp_path):
    out = tmp_path / "s"
    bufferlab.sweep("droptail", {LIMIT: "10,20"}, out=out, overrides=TINY, workers=1, progress=False)
    # more seeds and more values of the same key: only the new runs run
    df = bufferlab.sweep("droptail", {LIMIT: "10,20,40"}, seeds=2, out=out, overrides=TINY, workers=1,
                         progress=False)
    assert df.attrs["counts"]["ran"] == 4 and df.attrs["counts"]["skipped"] == 2
    parts = sorted((out / "results").glob("part-*.parquet"))
    assert len(parts) == 2
    import pyarrow.parquet as pq

    assert pq.read_schema(parts[0]).equals(pq.read_schema(parts[1]))
    some = pd.read_parquet(out / "results", filters=[(LIMIT, "==", 40)])
    assert sorted(some["seed"]) == [1, 2]
    assert len(load(out, filters=[("seed", "==", 2)])) == 3


def test_per_flow_tables_and_series(tmp_path):
    out = tmp_path / "s"
    df = bufferlab.sweep("droptail", {LIMIT: "10,50"}, out=out, overrides=TINY, workers=2, progress=False,
                         per_flow=True, series=True)
    flows = load(out, "flows")
    assert len(flows) == 2 * 5 and set(flows["run_key"]) == set(df["run_key"])
    assert {LIMIT, "seed", "flow", "goodput_bps"} <= set(flows.columns)
    series = load(out, "series")
    assert {"run_key", LIMIT, "time_s", "queue_pkts"} <= set(series.columns)
    direct = bufferlab.run("droptail", overrides=[*TINY, f"{LIMIT}=50"], progress=False)
    mine = series[series[LIMIT] == 50]
    assert mine["queue_pkts"].tolist() == direct.queue_series["queue_pkts"].tolist()


# -- interruption --------------------------------------------------------------------------------------

#: About 0.1-0.3 s of engine time per run: a sweep long enough to be interrupted in the middle.
SLOW = ["--set", "duration=60s", "--set", "warmup=1s", "--set", "flows.start=0", "--set", "flows.count=20"]


def _sweep_cmd(out: Path) -> list:
    return [*bufferlab_cmd(), "sweep", "droptail", "--grid", f"{LIMIT}=10..400:log:8", "--seeds", "3", *SLOW,
            "--workers", "2", "--quiet", "--out", str(out)]


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGKILL])
@pytest.mark.slow
def test_resume_after_a_real_interruption_runs_only_the_missing_runs(tmp_path, sig):
    out = tmp_path / "s"
    proc = subprocess.Popen(_sweep_cmd(out), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 120
    while len(Store(out).pending()) < 3:
        assert proc.poll() is None, proc.communicate()
        assert time.monotonic() < deadline, "the sweep never finished a run"
        time.sleep(0.02)
    proc.send_signal(sig)
    stdout, stderr = proc.communicate(timeout=60)
    if sig == signal.SIGINT:
        assert proc.returncode == 130, stderr
        assert "the same command resumes the sweep" in stderr and "Traceback" not in stderr
    else:
        assert proc.returncode == -signal.SIGKILL
    kept = Store(out).done()
    assert 3 <= len(kept) < 24
    again = subprocess.run(_sweep_cmd(out), capture_output=True, text=True, timeout=300)
    assert again.returncode == 0, again.stderr
    assert f"{24 - len(kept)} ran, {len(kept)} skipped as done, 0 failed" in again.stdout
    rows = pd.read_parquet(out / "results")
    assert len(rows) == 24 and rows["run_key"].is_unique and (rows["status"] == "ok").all()


def test_a_write_killed_before_its_rename_is_not_a_finished_run(tmp_path):
    out = tmp_path / "s"
    sets = sum((["--set", s] for s in TINY), [])
    assert main(["sweep", "droptail", "--grid", f"{LIMIT}=10,20", *sets, "--out", str(out), "--quiet"]) == 0
    store = Store(out)
    done = store.done()
    # What a kill between write and rename leaves: a complete record under write_atomic's temporary name.
    (store.runs / ".tmp-abc123.json").write_text("{}")
    assert store.pending() == [] and store.done() == done
    store.prepare(store.definition())
    store.unlock()
    assert not list(store.runs.glob(".tmp-*"))


def test_pool_runs_again_what_a_killed_worker_held(tmp_path):
    marker = tmp_path / "killed-once"
    items = [(str(i), (str(marker), i)) for i in range(6)]
    with batch.Pool(2) as pool:
        got = dict(pool.imap(_die_once, items))
    assert got == {str(i): i * i for i in range(6)}
    assert marker.exists()


def _die_once(arg):
    marker, i = arg
    if i == 3 and not os.path.exists(marker):
        Path(marker).write_text("x")
        os.kill(os.getpid(), signal.SIGKILL)
    return i * i


# -- plot ----------------------------------------------------------------------------------------------

def test_plot_writes_png_and_svg_with_bands(tmp_path, capsys):
    out = tmp_path / "s"
    bufferlab.sweep("droptail", {LIMIT: "5..80:log:3", "tcp.sack": "true,false"}, seeds=3, out=out,
                    overrides=TINY, workers=2, progress=False)
    assert main(["plot", str(out), "--x", LIMIT, "--y", "utilization", "--hue", "tcp.sack"]) == 0
    written = capsys.readouterr().out
    png = out / "plots" / f"utilization-vs-{LIMIT}-by-tcp.sack.png"
    svg = png.with_suffix(".svg")
    assert str(png) in written and png.stat().st_size > 1000
    text = svg.read_text()
    assert f"<!-- utilization vs {LIMIT}: mean over 3 seeds (95 % Student-t CI) -->" in text
    assert "<!-- mean ± 95 % CI, 3 seeds -->" in text and "<!-- tcp.sack = False -->" in text
    assert main(["plot", str(out), "--x", LIMIT, "--y", "utilization"]) == 2
    assert "the sweep also varies tcp.sack (False, True): give --hue tcp.sack" in capsys.readouterr().err
    assert main(["plot", str(out), "--x", LIMIT, "--y", "utilization", "--where", "tcp.sack=true",
                 "--out", str(tmp_path / "figs")]) == 0
    assert (tmp_path / "figs" / f"utilization-vs-{LIMIT}.svg").exists()
    assert main(["plot", str(out), "--x", LIMIT, "--y", "nonsense"]) == 2
    assert "--y nonsense: not a numeric column" in capsys.readouterr().err


def test_an_unreadable_sweep_json_names_what_each_command_offers(tmp_path, capsys):
    """plot has neither another --out nor --force: it says how to make the directory readable again; sweep
    --force does replace a sweep whose sweep.json cannot be read."""
    out = tmp_path / "s"
    out.mkdir()
    (out / "sweep.json").write_text("{damaged")
    assert main(["plot", str(out), "--x", LIMIT, "--y", "utilization"]) == 2
    err = capsys.readouterr().err.splitlines()
    assert len(err) == 1 and err[0].startswith(f"bufferlab: error: DIR {out}: sweep.json cannot be read (")
    assert err[0].endswith("); not a sweep that can be read: run the sweep into this directory again with "
                           "bufferlab sweep ... --force, or give another sweep's directory")
    with pytest.raises(BufferLabError, match=r"^out .*: sweep.json cannot be read .*; not a sweep that"):
        load(out)
    sets = sum((["--set", s] for s in TINY), [])
    assert main(["sweep", "droptail", "--grid", f"{LIMIT}=20", *sets, "--out", str(out), "--quiet"]) == 2
    assert "give another directory or --force" in capsys.readouterr().err
    assert main(["sweep", "droptail", "--grid", f"{LIMIT}=20", *sets, "--out", str(out), "--quiet",
                 "--force"]) == 0
    assert main(["plot", str(out), "--x", LIMIT, "--y", "utilization"]) == 0


def test_mean_ci_is_student_t():
    from bufferlab.sweeps.plot import mean_ci

    ci = mean_ci([1.0, 2.0, 3.0])
    assert ci["mean"] == 2.0 and ci["n"] == 3
    assert ci["half"] == pytest.approx(4.302652729911275 * 1.0 / 3 ** 0.5)
    assert mean_ci([5.0])["half"] != mean_ci([5.0])["half"]  # NaN: no interval from one seed


# -- advise --verify -----------------------------------------------------------------------------------

def test_scale_down_keeps_the_per_flow_bdp():
    s = scale_down(10e9, 5000, 100e6)
    assert s == {"factor": 100.0, "flows": 50, "capacity_bps": 100e6}
    assert scale_down(10e6, 4, 100e6) == {"factor": 1.0, "flows": 4, "capacity_bps": 10e6}
    few = scale_down(10e9, 10, 100e6)  # fewer flows than the factor: one flow, per-flow BDP kept
    assert few["flows"] == 1 and few["capacity_bps"] == 1e9


def test_advise_verify_on_a_tiny_link(capsys):
    assert main(["advise", "--capacity", "1Gbps", "--flows", "400", "--rtt", "20ms", "--verify",
                 "--verify-duration", "1s", "--verify-seeds", "2", "--verify-max-rate", "10Mbps",
                 "--workers", "2", "--json"]) == 0
    adv = json.loads(capsys.readouterr().out)
    ver = adv["verification"]
    assert ver["scaled"]["factor"] == 100.0 and ver["scaled"]["flows"] == 4
    assert ver["scaled"]["capacity_bps"] == 10e6
    rules = {r["rule"] for r in ver["rules"]}
    assert {"bdp", "bdp/sqrt(N)"} <= rules and ver["pick"]["rule"] in rules
    for r in ver["rules"]:
        assert 0.0 < r["simulated"]["utilization"]["mean"] <= 1.0
        assert r["simulated"]["utilization"]["n"] == 2
        assert [a["multiplier"] for a in r["around"]] == [0.5, 1.0, 2.0]


def test_advise_verify_text(capsys):
    assert main(["advise", "--capacity", "10Mbps", "--flows", "4", "--rtt", "20ms", "--verify",
                 "--verify-duration", "1s", "--verify-seeds", "2", "--workers", "1"]) == 0
    text = capsys.readouterr().out
    assert "Verification by simulation: C' = 10 Mb/s, N' = 4 flows; RTT 20 ms" in text
    assert "util sim" in text and "\nPick " in text
    assert main(["advise", "--capacity", "10Mbps", "--flows", "4", "--rtt", "20ms", "--verify",
                 "--verify-duration=0s"]) == 2
    err = capsys.readouterr().err.strip()
    assert err == "bufferlab: error: --verify-duration: time must be > 0, got '0s'"


def test_advise_verify_names_its_own_options(tmp_path, capsys):
    """--verify-out is named as --verify-out, and a run beyond the engine's limits asks for what advise can
    change (a shorter --verify-duration, with the longest that fits), not for [limits]."""
    advise = ["advise", "--capacity", "10Mbps", "--flows", "5", "--rtt", "50ms", "--verify"]
    a_file = tmp_path / "a-file"
    a_file.write_text("x")
    (tmp_path / "other").mkdir()
    (tmp_path / "other" / "notes.txt").write_text("x")
    for out, message in (("/proc/x", "--verify-out /proc/x: cannot write: No such file or directory"),
                         (str(a_file), f"--verify-out {a_file}: exists and is not a directory"),
                         (str(tmp_path / "other"), f"--verify-out {tmp_path / 'other'}: holds more than a "
                                                   "sweep (notes.txt)")):
        assert main([*advise, "--verify-out", out]) == 2
        err = capsys.readouterr().err.splitlines()
        assert len(err) == 1 and err[0].startswith(f"bufferlab: error: {message}"), err
    assert main([*advise, "--verify-duration", "1e7s"]) == 2
    err = capsys.readouterr().err.splitlines()
    assert len(err) == 1 and "limits.events =" not in err[0], err
    assert err[0].startswith("bufferlab: error: --verify-duration 1e+07 s: each simulated run is beyond the "
                             "engine's limits (bottleneck: up to 833 packets/s for 10,000,000 s is about "
                             "2.5e10 events (limit 1.0e10")
    assert err[0].endswith("advise --verify cannot set [limits]: give a shorter --verify-duration (at most "
                           "about 3.9e+06 s) or a lower --verify-max-rate (fewer flows and packets per "
                           "second are simulated)")


def test_advise_verify_memory_beyond_the_limits_asks_for_a_lower_max_rate(monkeypatch):
    from bufferlab import simulate
    from bufferlab.models.advisor import advise
    from bufferlab.sweeps.verify import verify_advice

    def refuse(spec, overrides=(), per_flow=True):
        raise BufferLabError('flows.count: 1,000,000 flows need about 2.0 GB of memory (limit 1.0 GB); set '
                             'limits.memory = "2.1GB" to run anyway')

    monkeypatch.setattr(simulate, "resolve", refuse)
    with pytest.raises(BufferLabError, match=r"^--verify-max-rate 100 Mb/s: each simulated run is beyond the "
                       r"engine's limits \(1,000,000 flows need about 2.0 GB of memory \(limit 1.0 GB\)\); "
                       r"advise --verify cannot set \[limits\]: give a lower --verify-max-rate"):
        verify_advice(advise(10e6, 5, 0.05, 0.95, 1500))


def test_set_indexes_a_list_of_groups():
    r = bufferlab.resolve("mixed-groups", overrides=["flows[1].count=3"])
    assert [len(g["flows"]) for g in r["groups"]] == [20, 3]
    with pytest.raises(BufferLabError,
                       match=r"^--set flows\[5\].count=3: flows has no entry \[5\] \(2 entries\)$"):
        bufferlab.resolve("mixed-groups", overrides=["flows[5].count=3"])
    with pytest.raises(BufferLabError,
                       match=r"^--set flows.count=3: flows is a list of tables; name one entry"):
        bufferlab.resolve("mixed-groups", overrides=["flows.count=3"])
    with pytest.raises(BufferLabError, match=r"^--set flows\[0\].rtt=0.1: flows is a table \(\[flows\]\), "
                       r"not a list of tables \(\[\[flows\]\]\); name its field as flows.rtt$"):
        bufferlab.resolve("droptail", overrides=["flows[0].rtt=0.1"])
    with pytest.raises(BufferLabError, match=r"^--grid flows\[0\]: flows is a table .*; name its field as "
                       r"flows.KEY$"):
        plan("droptail", {"flows[0]": ["{count = 2}"]}, overrides=TINY)


def test_cli_zip_and_a_plot_along_zipped_keys(tmp_path, capsys):
    out = tmp_path / "z"
    sets = sum((["--set", s] for s in ANY_N), [])
    assert main(["sweep", "droptail", "--zip", "flows.count=2,5", f"{LIMIT}=20,50",
                 "--grid", "tcp.sack=true,false", *sets, "--out", str(out), "--workers", "1"]) == 0
    assert "sweep: 4 points x 1 seed = 4 runs; 4 to run on serial (1 worker)" in capsys.readouterr().out
    rows = pd.read_parquet(out / "results")
    assert sorted(zip(rows["flows.count"], rows[LIMIT], rows["tcp.sack"])) == [
        (2, 20, False), (2, 20, True), (5, 50, False), (5, 50, True)]
    # flows.count is zipped with the x key: one value at each x, so only tcp.sack needs choosing
    assert main(["plot", str(out), "--x", LIMIT, "--y", "goodput_bps", "--where", "tcp.sack=false"]) == 0
    assert (out / "plots" / f"goodput_bps-vs-{LIMIT}.png").exists()


def test_a_failed_write_stops_the_sweep_with_status_1_and_keeps_what_finished(tmp_path, capsys, monkeypatch):
    out = tmp_path / "s"
    real = Store.write_run
    written = []

    def full_disk(self, record):
        if len(written) == 2:
            raise OSError(28, "No space left on device")
        written.append(record["run_key"])
        real(self, record)

    monkeypatch.setattr(Store, "write_run", full_disk)
    sets = sum((["--set", s] for s in TINY), [])
    assert main(["sweep", "droptail", "--grid", f"{LIMIT}=10,20,30,40", *sets, "--out", str(out),
                 "--workers", "1", "--quiet"]) == 1
    err = capsys.readouterr().err
    assert f"bufferlab: error: --out {out}: cannot write run " in err
    assert "No space left on device; every run finished before it is kept" in err
    assert sorted(pd.read_parquet(out / "results")["run_key"]) == sorted(written)


def test_load_reads_finished_runs_not_compacted_yet_with_filters(tmp_path):
    from bufferlab.sweeps import run_job

    out = tmp_path / "s"
    p = plan("droptail", {LIMIT: "10,20"}, seeds=2, overrides=TINY)
    store = Store(out)
    store.prepare({"scenario_hash": "test", "per_flow": True})
    for job in p.jobs:  # as a sweep killed before its compaction leaves them
        store.write_run(run_job({**job, "scenario": {**p.specs[job["point"]], "seed": job["seed"]},
                                 "per_flow": True}))
    store.unlock()
    assert len(store.pending()) == 4 and not (out / "results").exists()
    rows = load(out, filters=[("seed", "==", 2)])
    assert sorted(rows[LIMIT]) == [10, 20] and (rows["seed"] == 2).all()
    flows = load(out, "flows", filters=[(LIMIT, "==", 20)])
    assert len(flows) == 2 * 5 and (flows[LIMIT] == 20).all()
