//! The native half of the Python package `prunesim` (`prunesim._prunesim`): a thin layer over
//! the workspace's crates. Experiments and sweeps run through `runner` exactly as
//! `prunesim run` and `prunesim sweep` run them (the same parser, preparation, trials and
//! summary, so the same seed gives the same bits); PMFs, PETs, the live scheduler and the
//! online estimator are the `pmf`, `workload`, `live` and `learn` types behind Python
//! classes. The GIL is released while anything runs. The Python half (`python/prunesim/`)
//! turns the results into column dicts and actions into named tuples.

// PyO3 extracts arguments as owned values (`Vec`, `PathBuf`, `PyRef`), and `map_err` hands
// the error converters their errors by value.
#![allow(clippy::needless_pass_by_value)]

use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use pyo3::create_exception;
use pyo3::exceptions::{PyException, PyIndexError, PyOverflowError};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList, PyMapping, PySequence, PyString, PyTuple};
use runner::{ExperimentConfig, Prepared, RunError, RunOptions, Summary, Tracing};
use serde::Serialize;

mod compare;
mod live_api;
mod own_heuristic;
mod warn;

create_exception!(
    prunesim,
    PrunesimError,
    PyException,
    "Any error of prunesim; its message names the file, line and field when it has them."
);
create_exception!(
    prunesim,
    ConfigError,
    PrunesimError,
    "An experiment, sweep, PET or scheduler configuration that does not parse or validate."
);
create_exception!(
    prunesim,
    SchedulerError,
    PrunesimError,
    "Misuse of the live scheduler: an unknown task, a time going backwards, a second end..."
);

fn run_error(e: RunError) -> PyErr {
    match e {
        RunError::Config { .. } | RunError::Workload(_) => ConfigError::new_err(e.to_string()),
        _ => PrunesimError::new_err(e.to_string()),
    }
}

fn config_error(e: impl std::fmt::Display) -> PyErr {
    ConfigError::new_err(e.to_string())
}

/// A task type's or a machine's index as Python gives it: any integer. One that no `usize`
/// holds (negative, or beyond 2^64) is kept as its text, so that it is refused as any index
/// out of range is, by an `IndexError` naming the argument and the range
/// ([`Index::below`]), not by an `OverflowError`.
#[derive(Debug, Clone)]
enum Index {
    In(usize),
    Out(String),
}

impl<'a, 'py> FromPyObject<'a, 'py> for Index {
    type Error = PyErr;

    fn extract(obj: pyo3::Borrowed<'a, 'py, PyAny>) -> PyResult<Self> {
        match obj.extract::<usize>() {
            Ok(i) => Ok(Index::In(i)),
            Err(e) if e.is_instance_of::<PyOverflowError>(obj.py()) => {
                Ok(Index::Out(obj.str()?.to_string()))
            }
            Err(e) => Err(e),
        }
    }
}

impl Index {
    /// The index, when it is below `n`; else an `IndexError` naming the argument `what`, its
    /// value and the range, `holder` holding the `n` `things` (e.g. "the PET", "task type":
    /// "task_type -1 out of range: the PET has 12 task types, indexed 0 to 11").
    fn below(&self, what: &str, n: usize, holder: &str, thing: &str) -> PyResult<usize> {
        let text = match self {
            Index::In(i) if *i < n => return Ok(*i),
            Index::In(i) => i.to_string(),
            Index::Out(t) => t.clone(),
        };
        let range = match n {
            0 => format!("{holder} has no {thing}s"),
            1 => format!("{holder} has 1 {thing}, indexed 0"),
            n => format!("{holder} has {n} {thing}s, indexed 0 to {}", n - 1),
        };
        Err(PyIndexError::new_err(format!(
            "{what} {text} out of range: {range}"
        )))
    }
}

/// How deep the dicts and lists of a configuration may nest (a configuration file's tables
/// nest a few levels; the conversion recurses once per level).
const MAX_NESTING: usize = 32;

/// Checks that `obj`'s dicts and lists (any mapping or sequence but strings and bytes) nest
/// at most [`MAX_NESTING`] levels and contain no cycle: the conversion to TOML would
/// recurse without end (a stack overflow, which kills the interpreter).
fn check_nesting(obj: &Bound<'_, PyAny>, what: &str, path: &mut Vec<usize>) -> PyResult<()> {
    let children: Vec<Bound<'_, PyAny>> = if let Ok(d) = obj.cast::<PyDict>() {
        d.values().iter().collect()
    } else if let Ok(l) = obj.cast::<PyList>() {
        l.iter().collect()
    } else if let Ok(t) = obj.cast::<PyTuple>() {
        t.iter().collect()
    } else if obj.is_instance_of::<PyString>() || obj.is_instance_of::<pyo3::types::PyBytes>() {
        return Ok(());
    } else if let Ok(m) = obj.cast::<PyMapping>() {
        m.values()?.iter().collect()
    } else if let Ok(q) = obj.cast::<PySequence>() {
        q.try_iter()?.collect::<PyResult<_>>()?
    } else {
        return Ok(());
    };
    let id = obj.as_ptr() as usize;
    if path.contains(&id) {
        return Err(ConfigError::new_err(format!(
            "{what}: a dict or list contains itself (a cycle)"
        )));
    }
    if path.len() >= MAX_NESTING {
        return Err(ConfigError::new_err(format!(
            "{what}: dicts and lists nested deeper than {MAX_NESTING} levels"
        )));
    }
    path.push(id);
    for c in &children {
        check_nesting(c, what, path)?;
    }
    path.pop();
    Ok(())
}

/// A Python dict (or any mapping of TOML values) as TOML text: the experiment, mapper and
/// pruner tables go through the parser their files go through. Cycles and nesting deeper
/// than [`MAX_NESTING`] are a `ConfigError`.
fn toml_table(obj: &Bound<'_, PyAny>, what: &str) -> PyResult<toml::Table> {
    check_nesting(obj, what, &mut Vec::new())?;
    pythonize::depythonize::<toml::Table>(obj)
        .map_err(|e| ConfigError::new_err(format!("{what}: {e}")))
}

/// A thread whose end is awaited: a run that Ctrl-C left finishing its trials.
trait Ends: Send {
    fn ended(&self) -> bool;
}

impl<T: Send> Ends for std::thread::JoinHandle<T> {
    fn ended(&self) -> bool {
        self.is_finished()
    }
}

/// The runs left by Ctrl-C whose trials still run on their threads ([`interruptible`]).
static LEFT: Mutex<Vec<Box<dyn Ends>>> = Mutex::new(Vec::new());

/// Waits, the GIL released and Ctrl-C heard, until the runs Ctrl-C left have ended: a sweep
/// after an interrupted one then finds its output folder free and its points saved.
fn wait_for_the_left(py: Python<'_>) -> PyResult<()> {
    loop {
        let done = py.detach(|| {
            let until = Instant::now() + Duration::from_millis(50);
            loop {
                let mut left = LEFT
                    .lock()
                    .unwrap_or_else(std::sync::PoisonError::into_inner);
                left.retain(|h| !h.ended());
                if left.is_empty() {
                    return true;
                }
                drop(left);
                if Instant::now() >= until {
                    return false;
                }
                std::thread::sleep(Duration::from_millis(2));
            }
        });
        if done {
            return Ok(());
        }
        py.check_signals()?;
    }
}

/// Runs `work` on a thread of its own while the calling (the interpreter's) thread, the GIL
/// released, looks every 50 ms whether it finished and checks the interpreter's signals: on
/// Ctrl-C (or any signal handler's exception) `stop` is set, so that `work` stops between
/// trials, and the exception is raised at once (the trials running finish on their thread,
/// their results dropped; a sweep waits for them before it starts, [`wait_for_the_left`]).
fn interruptible<T: Send + 'static>(
    py: Python<'_>,
    stop: Arc<AtomicBool>,
    work: impl FnOnce() -> T + Send + 'static,
) -> PyResult<T> {
    let handle = std::thread::Builder::new()
        .name("prunesim-run".into())
        .spawn(work)
        .map_err(|e| PrunesimError::new_err(format!("cannot start the run's thread: {e}")))?;
    loop {
        let finished = py.detach(|| {
            let until = Instant::now() + Duration::from_millis(50);
            while !handle.is_finished() && Instant::now() < until {
                std::thread::sleep(Duration::from_millis(2));
            }
            handle.is_finished()
        });
        if finished {
            break;
        }
        if let Err(e) = py.check_signals() {
            stop.store(true, Ordering::Relaxed);
            LEFT.lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner)
                .push(Box::new(handle));
            return Err(e);
        }
    }
    py.detach(|| handle.join())
        .map_err(|_| PrunesimError::new_err("the run panicked"))
}

/// Rows as columns: a dict of lists, one per field of `T` in declaration order, with the
/// trial of each row in a first column `trial`.
fn columns<'py, 'a, T: Serialize + 'a>(
    py: Python<'py>,
    rows: impl Iterator<Item = (usize, &'a T)>,
) -> PyResult<Bound<'py, PyDict>> {
    let out = PyDict::new(py);
    let trial = PyList::empty(py);
    out.set_item("trial", &trial)?;
    let mut lists: Vec<Bound<'py, PyList>> = Vec::new();
    for (k, row) in rows {
        trial.append(k)?;
        let dict = pythonize::pythonize(py, row)?;
        let dict = dict.cast_into::<PyDict>()?;
        if lists.is_empty() {
            for key in dict.keys() {
                let list = PyList::empty(py);
                out.set_item(key, &list)?;
                lists.push(list);
            }
        }
        for (list, (_, value)) in lists.iter().zip(dict.iter()) {
            list.append(value)?;
        }
    }
    Ok(out)
}

/// Where an experiment comes from.
/// Returns the experiment and how errors name it.
fn experiment(
    kind: &str,
    value: Option<&Bound<'_, PyAny>>,
    seed: Option<u64>,
) -> PyResult<(ExperimentConfig, String)> {
    let text = |v: Option<&Bound<'_, PyAny>>| -> PyResult<String> {
        v.ok_or_else(|| ConfigError::new_err("no experiment given"))?
            .extract::<String>()
    };
    match kind {
        "default" => Ok((
            ExperimentConfig::paper_default(),
            "the built-in experiment".to_owned(),
        )),
        "path" => {
            let path = PathBuf::from(text(value)?);
            let config = ExperimentConfig::load_seeded(&path, seed).map_err(run_error)?;
            Ok((config, path.display().to_string()))
        }
        "toml" => {
            let config =
                ExperimentConfig::from_toml_str_seeded(&text(value)?, "<string>", None, seed)
                    .map_err(run_error)?;
            Ok((config, "<string>".to_owned()))
        }
        "dict" => {
            let value = value.ok_or_else(|| ConfigError::new_err("no experiment given"))?;
            let table = toml_table(value, "<dict>")?;
            let text = toml::to_string(&table).map_err(config_error)?;
            let config = ExperimentConfig::from_toml_str_seeded(&text, "<dict>", None, seed)
                .map_err(run_error)?;
            Ok((config, "<dict>".to_owned()))
        }
        other => Err(ConfigError::new_err(format!(
            "unknown experiment source '{other}'"
        ))),
    }
}

/// Runs an experiment as `prunesim run` does (generated trials, the clairvoyant bracket
/// unless `bound` is false) and returns `(summary, trials, tasks, events)`: the summary
/// document as a dict, every trial's measures as columns, and with `trace` every trial's
/// task and event rows as columns (else `None`).
#[pyfunction]
#[pyo3(signature = (kind, value=None, *, trials=None, seed=None, jobs=0, trace=false, bound=true, budget=None, heuristic=None))]
#[allow(clippy::type_complexity, clippy::too_many_arguments)]
fn run_experiment<'py>(
    py: Python<'py>,
    kind: &str,
    value: Option<&Bound<'py, PyAny>>,
    trials: Option<u64>,
    seed: Option<u64>,
    jobs: usize,
    trace: bool,
    bound: bool,
    budget: Option<u64>,
    heuristic: Option<&Bound<'py, PyAny>>,
) -> PyResult<(
    Bound<'py, PyAny>,
    Bound<'py, PyDict>,
    Option<Bound<'py, PyDict>>,
    Option<Bound<'py, PyDict>>,
)> {
    let experiment = experiment(kind, value, seed);
    let (mut config, what) = warn::warned(py, experiment)?;
    if let Some(s) = seed {
        config.workload.seed = s;
    }
    let trace = trace || config.trace;
    let budget = budget.unwrap_or_else(runner::resources::default_budget);
    let own = heuristic.map(own_heuristic::Own::new).transpose()?;
    let failure = own.as_ref().map(own_heuristic::Own::failure);
    let stop = Arc::new(AtomicBool::new(false));
    let stopped = Arc::clone(&stop);
    let ran = interruptible(py, stop, move || {
        let prep = runner::Preparation {
            trials,
            jobs,
            with_bound: bound,
            report: false,
            budget,
            given: None,
        };
        let prepared = Prepared::generated(config, &prep).map_err(|e| prefixed(&what, e))?;
        let tracing = if trace { Tracing::Memory } else { Tracing::Off };
        if let Some(own) = &own {
            own.check(&prepared)?;
        }
        let make = own.as_ref().map(|own| move || own.make());
        let policies = runner::Policies {
            heuristic: make
                .as_ref()
                .map(|m| m as &(dyn Fn() -> runner::Mapper + Sync)),
            pruner: None,
        };
        let runs = prepared.run(
            RunOptions::default()
                .jobs(jobs)
                .stop_on(&stopped)
                .tracing(tracing)
                .policies(policies),
        )?;
        let (metrics, traces): (Vec<_>, Vec<_>) =
            runs.into_iter().map(|r| (r.metrics, r.trace)).unzip();
        let traces: Option<Vec<_>> = if trace {
            traces.into_iter().collect()
        } else {
            None
        };
        let mut summary = Summary::new(&prepared, &metrics);
        if let Some(own) = &own {
            summary.heuristic = format!("{} (Python)", own.name());
        }
        Ok::<_, RunError>((summary, metrics, traces))
    })?
    .map_err(run_error);
    if let Some(e) = failure.and_then(|f| own_heuristic::first_error(&f)) {
        return Err(e);
    }
    let (summary, metrics, traces) = warn::warned(py, ran)?;
    let summary = pythonize::pythonize(py, &summary)?;
    let table = PyDict::new(py);
    let trial = PyList::empty(py);
    table.set_item("trial", &trial)?;
    for (k, m) in metrics.iter().enumerate() {
        trial.append(k)?;
        for (name, v) in m.scalars() {
            match table.get_item(name)? {
                Some(list) => list.cast_into::<PyList>()?.append(v)?,
                None => table.set_item(name, PyList::new(py, [v])?)?,
            }
        }
    }
    let (tasks, events) = match &traces {
        Some(t) => (
            Some(columns(
                py,
                t.iter()
                    .enumerate()
                    .flat_map(|(k, t)| t.tasks.iter().map(move |r| (k, r))),
            )?),
            Some(columns(
                py,
                t.iter()
                    .enumerate()
                    .flat_map(|(k, t)| t.events.iter().map(move |r| (k, r))),
            )?),
        ),
        None => (None, None),
    };
    Ok((summary, table, tasks, events))
}

/// A preparation error of a named experiment file, with the file named when the error does
/// not name it already.
fn prefixed(what: &str, e: RunError) -> RunError {
    match e {
        RunError::Input(m) => RunError::Input(format!("{what}: {m}")),
        other => other,
    }
}

/// What a sweep run printed, per sweep, collected instead of printed; `stop` set (on Ctrl-C)
/// cancels the run between trials.
#[derive(Default)]
struct Collect {
    texts: Mutex<Vec<(String, String, f64)>>,
    stop: Arc<AtomicBool>,
}

impl runner::sweep::Monitor for Collect {
    fn finished(&self, id: &str, text: &str, seconds: f64) {
        if let Ok(mut v) = self.texts.lock() {
            v.push((id.to_owned(), text.to_owned(), seconds));
        }
    }

    fn cancelled(&self) -> bool {
        self.stop.load(Ordering::Relaxed)
    }
}

/// Runs sweep files as `prunesim sweep` does, writing into `out`; returns each sweep's id and
/// printed table, in the order of the files. Ctrl-C raises `KeyboardInterrupt` at once and
/// stops the sweep between trials: the points finished are saved, and a rerun (which first
/// waits for the trials still running) loads them.
#[pyfunction]
#[pyo3(signature = (paths, out, *, trials=None, jobs=0, fresh=false))]
fn run_sweeps(
    py: Python<'_>,
    paths: Vec<PathBuf>,
    out: PathBuf,
    trials: Option<u64>,
    jobs: usize,
    fresh: bool,
) -> PyResult<Vec<(String, String)>> {
    let stop = Arc::new(AtomicBool::new(false));
    let collect = Collect {
        stop: Arc::clone(&stop),
        ..Collect::default()
    };
    wait_for_the_left(py)?;
    let tables = interruptible(py, stop, move || {
        let sweeps = runner::SweepFile::load_all(&paths)?;
        let options = runner::sweep::Options {
            out,
            jobs,
            trials,
            fresh,
            ..runner::sweep::Options::default()
        };
        runner::sweep::check_inputs(&paths, &sweeps, &options, &[])?;
        runner::sweep::run(&sweeps, &options, &collect)?;
        let texts = collect.texts.into_inner().unwrap_or_default();
        Ok::<_, RunError>(
            sweeps
                .iter()
                .map(|s| {
                    let text = texts
                        .iter()
                        .find(|(id, _, _)| id == s.id())
                        .map(|(_, t, _)| t.clone())
                        .unwrap_or_default();
                    (s.id().to_owned(), text)
                })
                .collect::<Vec<_>>(),
        )
    })?;
    warn::warned(py, tables.map_err(run_error))
}

/// A discrete probability mass function on integer ticks (an execution-time or
/// completion-time distribution).
#[pyclass(module = "prunesim", frozen, skip_from_py_object, name = "Pmf")]
#[derive(Clone)]
struct PyPmf(pmf::Pmf);

#[pymethods]
impl PyPmf {
    /// `Pmf(masses, offset=0)`: masses of ticks `offset, offset + 1, ...`, summing to 1.
    #[new]
    #[pyo3(signature = (masses, offset=0))]
    fn new(masses: Vec<f64>, offset: i64) -> PyResult<Self> {
        pmf::Pmf::new(offset, masses)
            .map(PyPmf)
            .map_err(config_error)
    }

    /// Non-negative weights of any positive total, normalised.
    #[staticmethod]
    #[pyo3(signature = (weights, offset=0))]
    fn from_weights(weights: Vec<f64>, offset: i64) -> PyResult<Self> {
        pmf::Pmf::from_weights(offset, weights)
            .map(PyPmf)
            .map_err(config_error)
    }

    /// All mass on tick `t` (a time: in [0, 2^52], as the constructor's ticks).
    #[staticmethod]
    fn point(t: i64) -> PyResult<Self> {
        pmf::Pmf::new(t, vec![1.0]).map(PyPmf).map_err(config_error)
    }

    /// The histogram of samples (ticks), `bin_width` ticks a bin, each bin standing for its
    /// upper edge.
    #[staticmethod]
    #[pyo3(signature = (samples, bin_width=1))]
    fn from_samples(samples: Vec<f64>, bin_width: i64) -> PyResult<Self> {
        pmf::from_samples(&samples, bin_width, pmf::BinValue::Upper)
            .map(PyPmf)
            .map_err(config_error)
    }

    /// The first tick.
    #[getter]
    fn offset(&self) -> i64 {
        self.0.offset()
    }

    /// The first tick with mass.
    #[getter]
    fn min(&self) -> i64 {
        self.0.min()
    }

    /// The last tick with mass.
    #[getter]
    fn max(&self) -> i64 {
        self.0.max()
    }

    /// The masses of ticks `offset, offset + 1, ...`.
    #[getter]
    fn masses(&self) -> Vec<f64> {
        self.0.masses().to_vec()
    }

    /// `(tick, mass)` for every tick with mass.
    fn items(&self) -> Vec<(i64, f64)> {
        self.0.iter().filter(|&(_, m)| m > 0.0).collect()
    }

    /// The mean.
    fn mean(&self) -> f64 {
        self.0.mean()
    }

    /// The variance.
    fn variance(&self) -> f64 {
        self.0.variance()
    }

    /// The standard deviation.
    fn std(&self) -> f64 {
        self.0.std_dev()
    }

    /// `P(X <= t)`.
    fn cdf(&self, t: f64) -> f64 {
        self.0.cdf(t)
    }

    /// `P(X > t)`.
    fn sf(&self, t: f64) -> f64 {
        self.0.sf(t)
    }

    /// `P(X < d)`: the chance of completing before a deadline tick `d` (paper eq. 1).
    fn prob_before(&self, d: i64) -> f64 {
        self.0.prob_before(d)
    }

    /// The smallest tick whose CDF reaches `u` (in [0, 1]).
    fn quantile(&self, u: f64) -> PyResult<i64> {
        self.0.quantile(u).map_err(config_error)
    }

    /// The distribution of the sum of two independent times.
    fn convolve(&self, other: &PyPmf) -> PyPmf {
        PyPmf(self.0.convolve(&other.0))
    }

    /// Shifted by `dt` ticks.
    fn shift(&self, dt: i64) -> PyPmf {
        PyPmf(self.0.shift(dt))
    }

    fn __len__(&self) -> usize {
        self.0.len()
    }

    fn __eq__(&self, other: &Bound<'_, PyAny>) -> bool {
        other.cast::<PyPmf>().is_ok_and(|o| o.get().0 == self.0)
    }

    fn __repr__(&self) -> String {
        format!(
            "Pmf(ticks {}..={}, mean {:.3})",
            self.0.min(),
            self.0.max(),
            self.0.mean()
        )
    }
}

/// A PET: the execution-time PMF of every (task type, machine) pair.
#[pyclass(module = "prunesim", frozen, skip_from_py_object, name = "Pet")]
#[derive(Clone)]
struct PyPet(workload::Pet);

fn bin_value(name: &str) -> PyResult<pmf::BinValue> {
    match name {
        "upper" => Ok(pmf::BinValue::Upper),
        "centre" | "center" => Ok(pmf::BinValue::Centre),
        "lower" => Ok(pmf::BinValue::Lower),
        other => Err(ConfigError::new_err(format!(
            "bin_value: expected \"upper\", \"centre\" or \"lower\", found \"{other}\""
        ))),
    }
}

#[pymethods]
impl PyPet {
    /// `Pet(pmfs, type_names=None, machine_names=None)`: a matrix of execution-time PMFs,
    /// a row per task type and a column per machine (names default to t0, t1, ... and m0,
    /// m1, ...).
    #[new]
    #[pyo3(signature = (pmfs, type_names=None, machine_names=None))]
    fn new(
        pmfs: Vec<Vec<PyRef<'_, PyPmf>>>,
        type_names: Option<Vec<String>>,
        machine_names: Option<Vec<String>>,
    ) -> PyResult<Self> {
        let rows = pmfs.len();
        let cols = pmfs.first().map_or(0, Vec::len);
        if let Some(r) = pmfs.iter().position(|r| r.len() != cols) {
            return Err(ConfigError::new_err(format!(
                "row {r} of the PET has {} PMFs, row 0 has {cols}",
                pmfs[r].len()
            )));
        }
        let cells: Vec<pmf::Pmf> = pmfs.iter().flatten().map(|p| p.0.clone()).collect();
        let matrix = ndarray::Array2::from_shape_vec((rows, cols), cells).map_err(config_error)?;
        let names = |given: Option<Vec<String>>, n: usize, prefix: &str| {
            given.unwrap_or_else(|| (0..n).map(|i| format!("{prefix}{i}")).collect())
        };
        workload::Pet::new(
            matrix,
            names(type_names, rows, "t"),
            names(machine_names, cols, "m"),
        )
        .map(PyPet)
        .map_err(config_error)
    }

    /// `Pet.unknown(type_names, machine_names)`: a PET that knows no time, one tick in every
    /// cell, for a scheduler that learns from nothing (`learn_online(prior="none")`, the
    /// Dask scheduler's `learn={"prior": "none"}`): only the names and the shape count.
    #[staticmethod]
    fn unknown(type_names: Vec<String>, machine_names: Vec<String>) -> PyResult<Self> {
        let (rows, cols) = (type_names.len(), machine_names.len());
        let matrix = ndarray::Array2::from_elem((rows, cols), pmf::Pmf::point(1));
        workload::Pet::new(matrix, type_names, machine_names)
            .map(PyPet)
            .map_err(config_error)
    }

    /// The generated default PET (12 task types x 8 machines) of `seed`.
    #[staticmethod]
    #[pyo3(signature = (seed=2019))]
    fn default(py: Python<'_>, seed: u64) -> Self {
        py.detach(|| PyPet(workload::Pet::default_pet(seed)))
    }

    /// Reads an `.etc` file.
    #[staticmethod]
    fn read_etc(py: Python<'_>, path: PathBuf) -> PyResult<Self> {
        let pet = py
            .detach(|| workload::io::read_etc(&path))
            .map(|(p, _)| PyPet(p))
            .map_err(config_error);
        warn::warned(py, pet)
    }

    /// Reads a CSV of measured execution times (columns task_type, machine,
    /// execution_time): a histogram per pair, `bin_width` ticks a bin (`None`: automatic,
    /// at most 200 bins over each pair's range), one tick being `tick` units of the file's
    /// times, each bin standing for its `bin_value` edge.
    #[staticmethod]
    #[pyo3(signature = (path, *, bin_width=None, tick=1.0, bin_value="upper"))]
    fn read_samples(
        py: Python<'_>,
        path: PathBuf,
        bin_width: Option<i64>,
        tick: f64,
        bin_value: &str,
    ) -> PyResult<Self> {
        let options = workload::io::SamplesOptions {
            bin_width: match bin_width {
                None => workload::io::BinWidth::Auto,
                Some(w) if w > 0 => workload::io::BinWidth::Ticks(w),
                Some(w) => {
                    return Err(ConfigError::new_err(format!(
                        "bin_width: expected a positive number of ticks, found {w}"
                    )));
                }
            },
            bin_value: self::bin_value(bin_value)?,
            tick,
        };
        let pet = py
            .detach(|| workload::io::read_samples_csv_options(&path, &options))
            .map(PyPet)
            .map_err(config_error);
        warn::warned(py, pet)
    }

    /// The number of task types (rows).
    #[getter]
    fn task_types(&self) -> usize {
        self.0.n_types()
    }

    /// The number of machines (columns).
    #[getter]
    fn machines(&self) -> usize {
        self.0.n_machines()
    }

    /// The task types' names.
    #[getter]
    fn type_names(&self) -> Vec<String> {
        self.0.type_names().to_vec()
    }

    /// The machines' names.
    #[getter]
    fn machine_names(&self) -> Vec<String> {
        self.0.machine_names().to_vec()
    }

    /// The PMF of `task_type` on `machine`.
    fn pmf(&self, task_type: Index, machine: Index) -> PyResult<PyPmf> {
        let (task_type, machine) = self.cell(&task_type, &machine)?;
        Ok(PyPmf(self.0.pmf(task_type, machine).clone()))
    }

    /// The mean execution times (rows: task types), the ETC matrix.
    fn means(&self) -> Vec<Vec<f64>> {
        (0..self.0.n_types())
            .map(|t| {
                (0..self.0.n_machines())
                    .map(|m| self.0.mean(t, m))
                    .collect()
            })
            .collect()
    }

    /// A copy with the PMF of (`task_type`, `machine`) replaced.
    fn with_pmf(&self, task_type: Index, machine: Index, pmf: &PyPmf) -> PyResult<PyPet> {
        let (task_type, machine) = self.cell(&task_type, &machine)?;
        let mut pet = self.0.clone();
        pet.set_pmf(task_type, machine, pmf.0.clone())
            .map_err(config_error)?;
        Ok(PyPet(pet))
    }

    fn __eq__(&self, other: &Bound<'_, PyAny>) -> bool {
        other.cast::<PyPet>().is_ok_and(|o| o.get().0 == self.0)
    }

    fn __repr__(&self) -> String {
        format!(
            "Pet({} task types x {} machines)",
            self.0.n_types(),
            self.0.n_machines()
        )
    }
}

impl PyPet {
    /// The cell (`task_type`, `machine`), when it is one of the PET's; else an `IndexError`
    /// naming the argument out of range.
    fn cell(&self, task_type: &Index, machine: &Index) -> PyResult<(usize, usize)> {
        Ok((
            task_type.below("task_type", self.0.n_types(), "the PET", "task type")?,
            machine.below("machine", self.0.n_machines(), "the PET", "machine")?,
        ))
    }
}

/// The version of the crates this module was built from.
#[pyfunction]
fn version() -> &'static str {
    env!("CARGO_PKG_VERSION")
}

/// The measures' glossary: name to (unit, definition).
#[pyfunction]
fn metrics() -> Vec<(&'static str, &'static str, &'static str)> {
    runner::METRICS
        .iter()
        .map(|d| (d.name, d.unit.symbol(), d.definition))
        .collect()
}

/// The native part of prunesim (`prunesim._prunesim`).
#[pymodule]
mod _prunesim {
    #[pymodule_export]
    use super::{
        ConfigError, PrunesimError, PyPet, PyPmf, SchedulerError,
        compare::compare_heuristics,
        live_api::{PyEstimator, PyScheduler},
        metrics,
        own_heuristic::MappingEvent,
        run_experiment, run_sweeps, version,
        warn::PrunesimWarning,
    };

    #[pymodule_init]
    fn init(_: &pyo3::Bound<'_, pyo3::types::PyModule>) -> pyo3::PyResult<()> {
        super::warn::install();
        Ok(())
    }
}
