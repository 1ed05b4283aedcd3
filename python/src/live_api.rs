//! The live scheduler (`live::Scheduler`) and the online estimator (`learn::Estimator`)
//! behind the Python classes `prunesim.Scheduler` and `prunesim.Estimator`.

use std::sync::Mutex;

use pyo3::prelude::*;
use pyo3::types::PyDict;

use crate::{
    ConfigError, Index, PrunesimError, PyPet, PyPmf, SchedulerError, check_nesting, config_error,
    toml_table,
};

fn live_error(e: live::LiveError) -> PyErr {
    match e {
        live::LiveError::Config(_) => ConfigError::new_err(e.to_string()),
        _ => SchedulerError::new_err(e.to_string()),
    }
}

/// An action as a tuple: `(kind, task, machine, executing, reason)`.
type ActionTuple = (
    &'static str,
    usize,
    Option<usize>,
    bool,
    Option<&'static str>,
);

fn action(a: live::Action) -> ActionTuple {
    match a {
        live::Action::Assign { task, machine } => ("assign", task, Some(machine), false, None),
        live::Action::Start { task, machine } => ("start", task, Some(machine), false, None),
        live::Action::Drop {
            task,
            machine,
            executing,
            reason,
        } => ("drop", task, machine, executing, Some(reason.name())),
        live::Action::Defer { task } => ("defer", task, None, false, None),
    }
}

/// The live scheduler a dispatcher owns (`live::Scheduler`, docs/live.md). The Python class
/// `prunesim.Scheduler` wraps its actions in named tuples.
#[pyclass(module = "prunesim", subclass, name = "_Scheduler")]
pub(crate) struct PyScheduler(Mutex<live::Scheduler>);

impl PyScheduler {
    fn with<R>(&self, f: impl FnOnce(&mut live::Scheduler) -> R) -> PyResult<R> {
        let mut s = self
            .0
            .lock()
            .map_err(|_| SchedulerError::new_err("the scheduler was poisoned by a panic"))?;
        Ok(f(&mut s))
    }
}

#[pymethods]
impl PyScheduler {
    #[new]
    #[pyo3(signature = (pet, *, heuristic=None, pruner=None, queue_size=6, drop_model="all", pct_epsilon=0.0, resolution=1.0))]
    fn new(
        py: Python<'_>,
        pet: &PyPet,
        heuristic: Option<&Bound<'_, PyAny>>,
        pruner: Option<&Bound<'_, PyAny>>,
        queue_size: usize,
        drop_model: &str,
        pct_epsilon: f64,
        resolution: f64,
    ) -> PyResult<Self> {
        // The settings as one dict, read by serde into the live scheduler's own spec
        // (`live::SchedulerSpec`), as a dispatcher's TOML or JSON file would be.
        let settings = PyDict::new(py);
        if let Some(h) = heuristic {
            settings.set_item("heuristic", h)?;
        }
        if let Some(p) = pruner {
            settings.set_item("pruner", p)?;
        }
        settings.set_item("queue_size", queue_size)?;
        settings.set_item("drop_model", drop_model)?;
        settings.set_item("pct_epsilon", pct_epsilon)?;
        settings.set_item("resolution", resolution)?;
        check_nesting(settings.as_any(), "scheduler settings", &mut Vec::new())?;
        let spec: live::SchedulerSpec = pythonize::depythonize(settings.as_any()).map_err(|e| {
            // Name the setting at fault: the first that does not read alone.
            let key = settings.iter().find_map(|(k, v)| {
                let alone = PyDict::new(py);
                alone.set_item(&k, v).ok()?;
                pythonize::depythonize::<live::SchedulerSpec>(alone.as_any())
                    .is_err()
                    .then(|| k.to_string())
            });
            ConfigError::new_err(match key {
                Some(key) => format!("{key}: {e}"),
                None => format!("scheduler settings: {e}"),
            })
        })?;
        let config = spec
            .resolve()
            .map_err(|e| ConfigError::new_err(e.to_string()))?;
        live::Scheduler::new(pet.0.clone(), config)
            .map(|s| PyScheduler(Mutex::new(s)))
            .map_err(live_error)
    }

    /// A task of type `task_type` arrives at `now`, due at `deadline` (seconds); its id.
    /// A task type outside the PET is an `IndexError`.
    fn submit(&self, now: f64, task_type: Index, deadline: f64) -> PyResult<usize> {
        self.with(|s| {
            let types = s.pet().n_types();
            let task_type = task_type.below("task_type", types, "the PET", "task type")?;
            s.submit(now, task_type, deadline).map_err(live_error)
        })?
    }

    /// Task `task`, which a start action started, actually started at `at` (seconds).
    fn started(&self, task: usize, at: f64) -> PyResult<()> {
        self.with(|s| s.started(task, at))?.map_err(live_error)
    }

    /// Task `task` completed at `at` (seconds); applied at the next `decide`.
    fn completed(&self, task: usize, at: f64) -> PyResult<()> {
        self.with(|s| s.completed(task, at))?.map_err(live_error)
    }

    /// Task `task` failed at `at` (seconds); applied at the next `decide`.
    fn failed(&self, task: usize, at: f64) -> PyResult<()> {
        self.with(|s| s.failed(task, at))?.map_err(live_error)
    }

    /// Learns the PET online from the ends it is told about (`live::Scheduler::learn_online`):
    /// a completion is an exact observation, an executing task stopped by a drop, its
    /// deadline or a failure is censored at the time it ran, a task dropped before it
    /// started is not observed. The PET decided on takes the estimator's changed cells after
    /// every `refresh_every` observations. `options` as the `Estimator`'s (`censoring`,
    /// `tail`, `prior_weight`, `window`, `cadence`, `prior_guard`, ...). `prior`: `"pet"`
    /// (the current PET is the prior) or `"none"` (its times forgotten: every cell one tick
    /// until observed, then its observations alone; `prior_weight` 0 unless given).
    /// `machine_types`: a label per machine, machines with equal labels learning as copies
    /// (default: those whose columns of the PET are equal).
    #[pyo3(signature = (refresh_every=1, prior="pet", machine_types=None, **options))]
    fn learn_online(
        &self,
        refresh_every: usize,
        prior: &str,
        machine_types: Option<Vec<Bound<'_, PyAny>>>,
        options: Option<&Bound<'_, PyDict>>,
    ) -> PyResult<()> {
        let no_prior = match prior {
            "pet" => false,
            "none" => true,
            other => {
                return Err(ConfigError::new_err(format!(
                    "prior: expected \"pet\" or \"none\", found {other:?}"
                )));
            }
        };
        let mut table = match options {
            None => toml::map::Map::new(),
            Some(o) => toml_table(o.as_any(), "options")?,
        };
        if no_prior && !table.contains_key("prior_weight") {
            table.insert("prior_weight".into(), toml::Value::Float(0.0));
        }
        let options: learn::Options = toml::Value::Table(table)
            .try_into()
            .map_err(|e| ConfigError::new_err(format!("estimator options: {e}")))?;
        // Labels of any kind, equal ones naming one machine type.
        let machine_types = match machine_types {
            None => None,
            Some(labels) => {
                let mut seen: Vec<Bound<'_, PyAny>> = Vec::new();
                let mut kinds = Vec::with_capacity(labels.len());
                for label in labels {
                    let mut found = None;
                    for (k, s) in seen.iter().enumerate() {
                        if s.eq(&label)? {
                            found = Some(k);
                            break;
                        }
                    }
                    kinds.push(found.unwrap_or_else(|| {
                        seen.push(label);
                        seen.len() - 1
                    }));
                }
                Some(kinds)
            }
        };
        let config = live::LearnConfig {
            options,
            refresh_every,
            no_prior,
            machine_types,
        };
        self.with(|s| s.learn_online(config))?.map_err(live_error)
    }

    /// Stops learning; the PET stays as learned.
    fn stop_learning(&self) -> PyResult<()> {
        self.with(|s| s.stop_learning())
    }

    /// True while the scheduler learns its PET online.
    #[getter]
    fn learning(&self) -> PyResult<bool> {
        self.with(|s| s.estimator().is_some())
    }

    /// What to do at `now` (seconds), as `(kind, task, machine, executing, reason)` tuples.
    fn _decide(&self, py: Python<'_>, now: f64) -> PyResult<Vec<ActionTuple>> {
        py.detach(|| self.with(|s| s.decide(now)))?
            .map(|v| v.into_iter().map(action).collect())
            .map_err(live_error)
    }

    /// The dispatcher stops at `now`: the batch queue's tasks end unmapped.
    fn _close(&self, py: Python<'_>, now: f64) -> PyResult<Vec<ActionTuple>> {
        py.detach(|| self.with(|s| s.close(now)))?
            .map(|v| v.into_iter().map(action).collect())
            .map_err(live_error)
    }

    /// The earliest deadline (seconds) of an executing task the drop model drops: call
    /// `decide` then. `None` when there is none.
    fn next_wakeup(&self) -> PyResult<Option<f64>> {
        self.with(|s| s.next_wakeup())
    }

    /// Replaces the PET (same shape) the scheduler decides on.
    fn set_pet(&self, pet: &PyPet) -> PyResult<()> {
        self.with(|s| s.set_pet(pet.0.clone()))?.map_err(live_error)
    }

    /// The PET the scheduler decides on.
    #[getter]
    fn pet(&self) -> PyResult<PyPet> {
        self.with(|s| PyPet(s.pet().clone()))
    }

    /// Keep every observed execution time for `drain_samples` (off by default).
    fn record_samples(&self, on: bool) -> PyResult<()> {
        self.with(|s| s.record_samples(on))
    }

    /// The execution times observed since the last call, as `(task_type, machine, seconds,
    /// censored)` tuples.
    fn _drain_samples(&self) -> PyResult<Vec<(usize, usize, f64, bool)>> {
        self.with(|s| {
            s.drain_samples()
                .into_iter()
                .map(|x| (x.task_type, x.machine, x.seconds, x.censored))
                .collect()
        })
    }

    /// How task `task` stands: "open", "reported", "failed", its outcome ("on_time",
    /// "late", "pruned_pending", ...), or "forgotten" (it ended and its record is no longer
    /// held: see `keep_records`).
    fn fate(&self, task: usize) -> PyResult<&'static str> {
        let fate = self.with(|s| s.fate(task))?.map_err(live_error)?;
        Ok(match fate {
            live::Fate::Open => "open",
            live::Fate::Reported => "reported",
            live::Fate::Failed => "failed",
            live::Fate::Forgotten => "forgotten",
            live::Fate::Ended(o) => o.name(),
        })
    }

    /// Keep every task's record, so `fate` tells each task's outcome for ever (off by
    /// default: the tasks that ended are forgotten at a later decision, their outcomes kept
    /// as counts, and memory is bounded by the tasks in the system).
    fn keep_records(&self, on: bool) -> PyResult<()> {
        self.with(|s| s.keep_records(on))
    }

    /// How many tasks were submitted and how they ended: a dict with "submitted",
    /// "failed", and the count of each outcome ("on_time", "late", ...).
    fn counts<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let c = self.with(|s| s.counts())?;
        let d = PyDict::new(py);
        d.set_item("submitted", c.submitted)?;
        d.set_item("failed", c.failed)?;
        for o in live::Outcome::ALL {
            d.set_item(o.name(), c.of(o))?;
        }
        Ok(d)
    }

    /// Seconds per tick.
    #[getter]
    fn resolution(&self) -> PyResult<f64> {
        self.with(|s| s.resolution())
    }

    /// The number of machines.
    #[getter]
    fn machines(&self) -> PyResult<usize> {
        self.with(|s| s.machines())
    }

    /// The number of tasks submitted.
    #[getter]
    fn tasks(&self) -> PyResult<usize> {
        self.with(|s| s.tasks())
    }

    /// The tasks in the batch queue.
    fn batch(&self) -> PyResult<Vec<usize>> {
        self.with(|s| s.batch())
    }

    /// The tasks in machine `machine`'s queue, the executing one first.
    fn queue(&self, machine: Index) -> PyResult<Vec<usize>> {
        self.with(|s| {
            let machine = machine.below("machine", s.machines(), "the scheduler", "machine")?;
            Ok(s.queue(machine))
        })?
    }

    /// Mapping events so far.
    #[getter]
    fn mapping_events(&self) -> PyResult<u64> {
        self.with(|s| s.mapping_events())
    }

    /// The pruner's oversubscription level (paper eq. 8) after the last mapping event.
    #[getter]
    fn level(&self) -> PyResult<Option<f64>> {
        self.with(|s| s.level())
    }
}

/// The online estimator of a PET (`learn::Estimator`): Kaplan-Meier per (task type,
/// machine) over observed execution times, right-censored ones included, blended with a
/// prior PET.
#[pyclass(module = "prunesim", name = "Estimator")]
pub(crate) struct PyEstimator(Mutex<learn::Estimator>);

impl PyEstimator {
    /// `f` of the estimator and the cell (`task_type`, `machine`), which must be one of its
    /// cells (an `IndexError` names the argument out of range otherwise).
    fn cell<R>(
        &self,
        task_type: &Index,
        machine: &Index,
        f: impl FnOnce(&mut learn::Estimator, usize, usize) -> PyResult<R>,
    ) -> PyResult<R> {
        let mut e = self
            .0
            .lock()
            .map_err(|_| PrunesimError::new_err("the estimator was poisoned by a panic"))?;
        let t = task_type.below("task_type", e.types(), "the estimator", "task type")?;
        let m = machine.below("machine", e.machines(), "the estimator", "machine")?;
        f(&mut e, t, m)
    }
}

#[pymethods]
impl PyEstimator {
    /// `Estimator(prior, **options)`: `prior` a `Pet`; options as the `[belief]` table's
    /// (`censoring`, `tail`, `prior_weight`, `window`, `cadence`, `cadence_share`,
    /// `machine_scale`, `scale_by_evidence`, `machine_window`, `explore`, `optimism`,
    /// `pool_copies`, `pool_by_evidence`, `prior_check`).
    #[new]
    #[pyo3(signature = (prior, **options))]
    fn new(prior: &PyPet, options: Option<&Bound<'_, PyDict>>) -> PyResult<Self> {
        let options: learn::Options = match options {
            None => learn::Options::default(),
            Some(o) => toml::Value::Table(toml_table(o.as_any(), "options")?)
                .try_into()
                .map_err(|e| ConfigError::new_err(format!("estimator options: {e}")))?,
        };
        live::system::estimator_from_prior(&prior.0, options)
            .map(|e| PyEstimator(Mutex::new(e)))
            .map_err(config_error)
    }

    /// An execution of `task_type` on `machine` took `time` ticks (`censored`: it was
    /// stopped then, its time is at least that); returns the cell's current PMF.
    #[pyo3(signature = (task_type, machine, time, censored=false))]
    fn observe(
        &self,
        task_type: Index,
        machine: Index,
        time: f64,
        censored: bool,
    ) -> PyResult<PyPmf> {
        self.cell(&task_type, &machine, |e, t, m| {
            e.observe(t, m, time, censored).map_err(config_error)?;
            Ok(PyPmf(e.pmf(t, m).clone()))
        })
    }

    /// The current PMF of (`task_type`, `machine`).
    fn pmf(&self, task_type: Index, machine: Index) -> PyResult<PyPmf> {
        self.cell(&task_type, &machine, |e, t, m| {
            Ok(PyPmf(e.pmf(t, m).clone()))
        })
    }

    /// Observations of (`task_type`, `machine`) so far.
    fn observations(&self, task_type: Index, machine: Index) -> PyResult<usize> {
        self.cell(&task_type, &machine, |e, t, m| Ok(e.observations(t, m)))
    }

    /// The current estimate of every cell as a PET with `names`'s type and machine names.
    fn pet(&self, names: &PyPet) -> PyResult<PyPet> {
        let e = self
            .0
            .lock()
            .map_err(|_| PrunesimError::new_err("the estimator was poisoned by a panic"))?;
        let mut pet = names.0.clone();
        if (pet.n_types(), pet.n_machines()) != (e.types(), e.machines()) {
            return Err(ConfigError::new_err(format!(
                "the PET is {} x {}, the estimator's {} x {}",
                pet.n_types(),
                pet.n_machines(),
                e.types(),
                e.machines()
            )));
        }
        for t in 0..e.types() {
            for m in 0..e.machines() {
                pet.set_pmf(t, m, e.pmf(t, m).clone())
                    .map_err(config_error)?;
            }
        }
        Ok(PyPet(pet))
    }
}
