//! Python bindings: a scenario (JSON text) in, results out. No simulation logic lives here.
//!
//! `Simulation.advance(until_s, max_events=None)` runs with the GIL released in slices of at most
//! [`SLICE`] of wall time, and between slices runs Python's signal handlers, so Ctrl-C raises
//! `KeyboardInterrupt` out of `advance` within a fraction of a second whatever the scenario; the
//! simulation stays consistent, and `finish(partial=True)` then returns what was measured so far.
//! `finish()` returns the summary as JSON text, the per-flow tables column by column (`table`), and the
//! time series as little-endian `f64` bytes (read with `numpy.frombuffer`).

use bufferlab_engine::{config_from_json, time};
use pyo3::create_exception;
use pyo3::exceptions::{PyRuntimeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::PyBytes;
use std::time::{Duration, Instant};

mod heap;
mod table;

#[global_allocator]
static ALLOCATOR: heap::Counting = heap::Counting;

/// The longest the engine runs without checking for signals (Ctrl-C).
const SLICE: Duration = Duration::from_millis(50);
/// Events between two looks at the clock.
const EVENTS_PER_LOOK: u64 = 4096;

create_exception!(
    _engine,
    ScenarioError,
    PyValueError,
    "A scenario field is missing, malformed or out of range."
);

fn f64_bytes<'py>(py: Python<'py>, xs: &[f64]) -> Bound<'py, PyBytes> {
    let bytes: Vec<u8> = xs.iter().flat_map(|x| x.to_le_bytes()).collect();
    PyBytes::new(py, &bytes)
}

/// Little-endian bytes of `xs`, each written by `f`.
fn le_bytes<'py, T: Copy, const N: usize>(
    py: Python<'py>,
    xs: &[T],
    f: impl Fn(T) -> [u8; N],
) -> Bound<'py, PyBytes> {
    let bytes: Vec<u8> = xs.iter().flat_map(|&x| f(x)).collect();
    PyBytes::new(py, &bytes)
}

type Columns<'py> = Vec<(&'static str, &'static str, Bound<'py, PyBytes>)>;

/// A result table for Python: (name, `"<i8"` | `"<f8"` | `"json"`, little-endian bytes or a JSON list).
type Table<'py> = Vec<(String, &'static str, Bound<'py, PyAny>)>;

/// `rows` as a [`Table`] (`table::columns`).
fn table<'py, T: serde::Serialize>(py: Python<'py>, rows: &[T]) -> PyResult<Table<'py>> {
    let cols = table::columns(rows).map_err(|e| PyRuntimeError::new_err(e.to_string()))?;
    Ok(cols
        .into_iter()
        .map(|(name, col)| match col {
            table::Column::Int(v) => (name, "<i8", le_bytes(py, &v, i64::to_le_bytes).into_any()),
            table::Column::Float(v) => (name, "<f8", f64_bytes(py, &v).into_any()),
            table::Column::Json(t) => (name, "json", pyo3::types::PyString::new(py, &t).into_any()),
        })
        .collect())
}

/// A running simulation of one scenario.
#[pyclass(module = "bufferlab._engine")]
struct Simulation {
    inner: Option<bufferlab_engine::Simulation>,
}

impl Simulation {
    fn sim(&mut self) -> PyResult<&mut bufferlab_engine::Simulation> {
        self.inner.as_mut().ok_or_else(|| PyRuntimeError::new_err("the simulation has already finished"))
    }
}

#[pymethods]
impl Simulation {
    /// Validate `scenario_json` and set the simulation up; raises `ScenarioError` naming the bad field.
    #[new]
    fn new(scenario_json: &str) -> PyResult<Self> {
        let sim = config_from_json(scenario_json)
            .and_then(bufferlab_engine::Simulation::new)
            .map_err(|e| ScenarioError::new_err(e.to_string()))?;
        Ok(Simulation { inner: Some(sim) })
    }

    /// Run until simulated time `until_s` (seconds; capped at the duration), or until `max_events` events
    /// have run if given; returns whether `until_s` was reached. The GIL is released while the engine
    /// runs; between slices of at most 50 ms Python's signal handlers run, so Ctrl-C raises
    /// `KeyboardInterrupt` here promptly (the simulation stays usable: `finish(partial=True)`).
    #[pyo3(signature = (until_s, max_events=None))]
    fn advance(&mut self, py: Python<'_>, until_s: f64, max_events: Option<u64>) -> PyResult<bool> {
        let until = time::from_secs(if until_s.is_nan() { 0.0 } else { until_s.max(0.0) });
        let mut budget = max_events.unwrap_or(u64::MAX);
        let sim = self.sim()?;
        loop {
            let (reached, ran) = py.detach(|| {
                let (start, executed) = (Instant::now(), sim.events_executed());
                loop {
                    let ran = sim.events_executed() - executed;
                    let step = EVENTS_PER_LOOK.min(budget - ran);
                    if sim.run_for(until, step) {
                        return (true, sim.events_executed() - executed);
                    }
                    let ran = sim.events_executed() - executed;
                    if ran >= budget || start.elapsed() >= SLICE {
                        return (false, ran);
                    }
                }
            });
            budget -= ran;
            py.check_signals()?;
            if reached || budget == 0 {
                return Ok(reached);
            }
        }
    }

    /// Current simulated time, seconds.
    fn now_s(&mut self) -> PyResult<f64> {
        Ok(time::to_secs(self.sim()?.now()))
    }

    /// The scenario's duration, seconds.
    fn duration_s(&mut self) -> PyResult<f64> {
        Ok(time::to_secs(self.sim()?.config().duration))
    }

    /// Events executed so far.
    fn events(&mut self) -> PyResult<u64> {
        Ok(self.sim()?.events_executed())
    }

    /// What the scenario was estimated to cost when it resolved: (memory in bytes, events).
    fn estimate(&mut self) -> PyResult<(f64, f64)> {
        let e = &self.sim()?.config().estimate;
        Ok((e.memory_bytes(), e.events()))
    }

    /// Run to the end (interruptible, as `advance`) and return (results JSON without series, flows and
    /// flow-completion records as [`Table`]s, time_s, queue_pkts, [queue per port when there are several],
    /// [cwnd per flow]). With `partial=True`, stop where the run is instead: the statistics cover
    /// [warmup, now] and `summary.partial` is true; raises `RuntimeError` if the warm-up has not ended yet
    /// (nothing was measured).
    #[allow(clippy::type_complexity)]
    #[pyo3(signature = (partial=false))]
    fn finish<'py>(
        &mut self,
        py: Python<'py>,
        partial: bool,
    ) -> PyResult<(
        String,
        Table<'py>,
        Table<'py>,
        Bound<'py, PyBytes>,
        Bound<'py, PyBytes>,
        Vec<Bound<'py, PyBytes>>,
        Vec<Bound<'py, PyBytes>>,
    )> {
        if partial {
            let sim = self.sim()?;
            if sim.now() < sim.config().warmup.saturating_add(time::MIN_WINDOW) {
                return Err(PyRuntimeError::new_err(format!(
                    "nothing measured yet: the run stopped at {} s, before the warm-up ended",
                    time::to_secs(sim.now())
                )));
            }
        } else {
            let duration = time::to_secs(self.sim()?.config().duration);
            self.advance(py, duration, None)?;
        }
        let sim = self
            .inner
            .take()
            .ok_or_else(|| PyRuntimeError::new_err("the simulation has already finished"))?;
        let mut results = py.detach(|| sim.finish_now()).expect("the window was checked, or the run is over");
        let series = std::mem::take(&mut results.series);
        let flows = table(py, &std::mem::take(&mut results.flows))?;
        let fct_records = table(py, &std::mem::take(&mut results.fct_records))?;
        let text = serde_json::to_string(&serde_json::json!({
            "summary": results.summary,
            "ports": results.ports,
            "groups": results.groups,
            "fct": results.fct,
            "udp": results.udp,
        }))
        .map_err(|e| PyRuntimeError::new_err(e.to_string()))?;
        let cwnd = series.cwnd.iter().map(|c| f64_bytes(py, c)).collect();
        let ports = series.port_queue.iter().map(|q| f64_bytes(py, q)).collect();
        Ok((
            text,
            flows,
            fct_records,
            f64_bytes(py, &series.time_s),
            f64_bytes(py, &series.queue_pkts),
            ports,
            cwnd,
        ))
    }

    /// The trace's event records gathered since the last call, as a list of (column, numpy dtype,
    /// little-endian bytes) and the reason names by code; `None` without `[trace]`.
    fn take_trace<'py>(&mut self, py: Python<'py>) -> PyResult<Option<(Columns<'py>, Vec<String>)>> {
        let Some(c) = self.sim()?.take_trace_events() else { return Ok(None) };
        let b = |x: bool| [x as u8];
        let cols = vec![
            ("time_s", "<f8", le_bytes(py, &c.time, |t| time::to_secs(t).to_le_bytes())),
            ("kind", "u1", le_bytes(py, &c.kind, |x| [x])),
            ("flow", "<u4", le_bytes(py, &c.flow, u32::to_le_bytes)),
            ("group", "<i4", le_bytes(py, &c.group, i32::to_le_bytes)),
            ("port", "<i4", le_bytes(py, &c.port, i32::to_le_bytes)),
            ("packet", "u1", le_bytes(py, &c.packet, |x| [x])),
            ("seq", "<u4", le_bytes(py, &c.seq, u32::to_le_bytes)),
            ("retransmit", "?", le_bytes(py, &c.retransmit, b)),
            ("ecn", "u1", le_bytes(py, &c.ecn, |x| [x])),
            ("ecn_flag", "?", le_bytes(py, &c.ecn_flag, b)),
            ("reason", "<u2", le_bytes(py, &c.reason, u16::to_le_bytes)),
            ("at_dequeue", "?", le_bytes(py, &c.at_dequeue, b)),
            ("queue", "<u4", le_bytes(py, &c.queue, u32::to_le_bytes)),
            ("delay_s", "<f8", le_bytes(py, &c.delay_s, f64::to_le_bytes)),
            ("cwnd", "<f8", le_bytes(py, &c.cwnd, f64::to_le_bytes)),
            ("ssthresh", "<f8", le_bytes(py, &c.ssthresh, f64::to_le_bytes)),
            ("state", "u1", le_bytes(py, &c.state, |x| [x])),
        ];
        Ok(Some((cols, c.reasons.iter().map(|r| r.to_string()).collect())))
    }

    /// Close the trace where the run is now (the pcap gets its name) and return what was traced as JSON
    /// text; `None` without `[trace]`.
    fn end_trace(&mut self) -> PyResult<Option<String>> {
        Ok(self.sim()?.end_trace().map(|r| serde_json::to_string(&r).expect("plain data")))
    }

    /// The number of ports (links).
    fn ports(&mut self) -> PyResult<usize> {
        Ok(self.sim()?.config().network.links.len())
    }

    /// Queueing delay (seconds) of port `port` at each quantile of `qs`, over the window so far.
    fn delay_quantiles(&mut self, port: usize, qs: Vec<f64>) -> PyResult<Vec<f64>> {
        let sim = self.sim()?;
        if port >= sim.config().network.links.len() {
            return Err(PyValueError::new_err(format!("port: no port {port}")));
        }
        Ok(sim.delay_quantiles(port, &qs))
    }
}

/// Validate a scenario (JSON text) and return it resolved, as JSON text: every default filled in, every
/// per-flow value drawn, SI units (see `scenario::export`); with `per_flow=False`, each group's
/// `flow_count` instead of its `flows`. Raises `ScenarioError` naming the bad field.
#[pyfunction]
#[pyo3(signature = (scenario_json, per_flow=true))]
fn resolve(scenario_json: &str, per_flow: bool) -> PyResult<String> {
    let cfg = config_from_json(scenario_json).map_err(|e| ScenarioError::new_err(e.to_string()))?;
    let resolved = if per_flow { cfg.to_json() } else { cfg.to_json_without_flows() };
    Ok(resolved.to_string())
}

/// The engine's heap: (bytes live now, the most live since the last `reset_heap_peak()`).
#[pyfunction]
fn heap_bytes() -> (usize, usize) {
    (heap::live(), heap::peak())
}

/// Start a new heap peak from what is live now.
#[pyfunction]
fn reset_heap_peak() {
    heap::reset_peak()
}

/// The names a scenario may give: queue disciplines (`discipline = ...`) and congestion controllers
/// (`congestion_control = ...`), in the engine's order.
#[pyfunction]
fn names() -> (Vec<&'static str>, Vec<&'static str>) {
    (bufferlab_engine::queue::DISCIPLINES.to_vec(), bufferlab_engine::tcp::cc::CONTROLLERS.to_vec())
}

/// The parameter reference of every discipline, controller and `[tcp]`, as JSON
/// ([`bufferlab_engine::scenario::reference`]).
#[pyfunction]
fn reference() -> String {
    bufferlab_engine::scenario::reference().to_string()
}

/// Bits per second from a string such as `"100Mbps"` (the scenario grammar); `None` if it does not parse.
#[pyfunction]
fn parse_rate(text: &str) -> Option<f64> {
    bufferlab_engine::units::parse_rate(text)
}

/// Seconds from a string such as `"10ms"` (the scenario grammar); `None` if it does not parse.
#[pyfunction]
fn parse_time(text: &str) -> Option<f64> {
    bufferlab_engine::units::parse_time(text)
}

/// Bytes from a string such as `"1500B"` (the scenario grammar); `None` if it does not parse.
#[pyfunction]
fn parse_size(text: &str) -> Option<f64> {
    bufferlab_engine::units::parse_size(text)
}

/// The `eun-wang` discipline a queue table (JSON text, without `discipline`) builds for `flows` TCP flows,
/// as JSON text: N, N^alpha, thresholds and buffer in packets, and p^N(q) at each of `queues` (for checks
/// against `bufferlab.models.eun_wang`). Raises `ScenarioError` naming a bad parameter.
#[pyfunction]
fn eun_wang_describe(table_json: &str, flows: u32, queues: Vec<f64>) -> PyResult<String> {
    let table: serde_json::Value =
        serde_json::from_str(table_json).map_err(|e| ScenarioError::new_err(format!("queue: {e}")))?;
    let d = bufferlab_engine::queue::eun_wang::describe(&table, flows, &queues)
        .map_err(|e| ScenarioError::new_err(e.to_string()))?;
    Ok(d.to_string())
}

#[pymodule]
fn _engine(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<Simulation>()?;
    m.add_function(wrap_pyfunction!(resolve, m)?)?;
    m.add_function(wrap_pyfunction!(names, m)?)?;
    m.add_function(wrap_pyfunction!(reference, m)?)?;
    m.add_function(wrap_pyfunction!(heap_bytes, m)?)?;
    m.add_function(wrap_pyfunction!(reset_heap_peak, m)?)?;
    m.add_function(wrap_pyfunction!(parse_rate, m)?)?;
    m.add_function(wrap_pyfunction!(parse_time, m)?)?;
    m.add_function(wrap_pyfunction!(parse_size, m)?)?;
    m.add_function(wrap_pyfunction!(eun_wang_describe, m)?)?;
    m.add("ScenarioError", m.py().get_type::<ScenarioError>())?;
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    Ok(())
}
