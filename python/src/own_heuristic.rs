//! A batch heuristic written in Python (`prunesim.run(config, heuristic=f)`): at every
//! mapping event the callable gets a [`MappingEvent`], a snapshot of the batch and of the
//! oracle's answers for it, and returns its decisions; they are checked before they reach the
//! core (a task of the batch at most once, a machine that exists, no more tasks than a
//! machine's free slots), so a mistaken answer is an error naming the event, never a corrupt
//! run.

use std::sync::{Arc, Mutex, PoisonError};

use model::{BatchHeuristic, Decision, TaskId, View, VirtualQueues};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::PyMapping;

/// What a Python heuristic sees at a mapping event: the batch queue's tasks (in the batch's
/// order) with, for each of them and each machine, the chance to meet its deadline and the
/// expected completion time when appended to the machine's queue as it is now (HCW 2019
/// eqs. (1)-(5)); the machines' free slots; the pruner's defer thresholds.
///
/// The chances are those of the queues at the start of the event: a task assigned by the
/// same answer does not move them (a heuristic that wants them updated assigns a few tasks
/// and lets the next event ask again).
#[pyclass(frozen, module = "prunesim", get_all)]
pub(crate) struct MappingEvent {
    /// The event's time, in ticks.
    now: i64,
    /// The batch queue's task ids, in order.
    tasks: Vec<TaskId>,
    /// Each task's type (the PET's row).
    task_type: Vec<usize>,
    /// Each task's arrival, in ticks.
    arrival: Vec<i64>,
    /// Each task's deadline, in ticks (it succeeds when it completes strictly before).
    deadline: Vec<i64>,
    /// Free slots per machine (how many tasks it may take now).
    free: Vec<usize>,
    /// `chance[i][m]`: task `tasks[i]`'s chance to meet its deadline at the end of machine
    /// `m`'s queue.
    chance: Vec<Vec<f64>>,
    /// `completion[i][m]`: its expected completion time there, in ticks.
    completion: Vec<Vec<f64>>,
    /// Each task's defer threshold (`None`: deferring is off): a task whose best chance is at
    /// or below it should wait.
    defer_threshold: Vec<Option<f64>>,
}

#[pymethods]
impl MappingEvent {
    fn __repr__(&self) -> String {
        format!(
            "MappingEvent(now={}, tasks={}, machines={}, free={:?})",
            self.now,
            self.tasks.len(),
            self.free.len(),
            self.free
        )
    }
}

/// The first error of a run's Python heuristic, raised when the run ends.
pub(crate) type Failure = Arc<Mutex<Option<PyErr>>>;

/// The error recorded in `failure`, if any.
pub(crate) fn first_error(failure: &Failure) -> Option<PyErr> {
    failure
        .lock()
        .unwrap_or_else(PoisonError::into_inner)
        .take()
}

/// A Python callable as a [`BatchHeuristic`].
pub(crate) struct PyHeuristic {
    func: Py<PyAny>,
    name: String,
    failure: Failure,
}

impl PyHeuristic {
    /// The heuristic `func`, called `name`; its first error goes to `failure`, and the
    /// events after it map nothing (the run is then discarded by the caller).
    pub(crate) fn new(func: Py<PyAny>, name: String, failure: Failure) -> Self {
        PyHeuristic {
            func,
            name,
            failure,
        }
    }

    fn failed(&self) -> bool {
        self.failure
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .is_some()
    }

    fn fail(&self, e: PyErr) {
        let mut slot = self.failure.lock().unwrap_or_else(PoisonError::into_inner);
        slot.get_or_insert(e);
    }
}

/// The snapshot of `view` a Python heuristic reads.
fn snapshot(view: &View<'_>) -> MappingEvent {
    let queues = VirtualQueues::from_view(view);
    let machines = view.machines().len();
    let batch = view.batch();
    let defer = view.defer();
    let mut event = MappingEvent {
        now: view.now(),
        tasks: batch.to_vec(),
        task_type: Vec::with_capacity(batch.len()),
        arrival: Vec::with_capacity(batch.len()),
        deadline: Vec::with_capacity(batch.len()),
        free: (0..machines).map(|m| queues.free(m)).collect(),
        chance: Vec::with_capacity(batch.len()),
        completion: Vec::with_capacity(batch.len()),
        defer_threshold: Vec::with_capacity(batch.len()),
    };
    for &t in batch {
        let spec = view.task(t);
        event.task_type.push(spec.task_type);
        event.arrival.push(spec.arrival);
        event.deadline.push(spec.deadline);
        event
            .chance
            .push((0..machines).map(|m| queues.success(view, m, t)).collect());
        event.completion.push(
            (0..machines)
                .map(|m| queues.expected_completion(view, m, t))
                .collect(),
        );
        event
            .defer_threshold
            .push(defer.map(|d| d.get(spec.task_type).copied().unwrap_or(0.0)));
    }
    event
}

/// The decision a callable's answer states: a list of `(task, machine)` pairs, or a mapping
/// with any of `assign` (such pairs), `defer` and `discard` (task ids); checked against the
/// event.
fn decision(answer: &Bound<'_, PyAny>, event: &MappingEvent) -> PyResult<Decision> {
    let mut d = Decision::default();
    if answer.is_none() {
        return Ok(d);
    }
    if let Ok(map) = answer.cast::<PyMapping>() {
        for key in map.keys()?.iter() {
            let key: String = key.extract().map_err(|_| {
                PyValueError::new_err("the answer's keys are 'assign', 'defer' and 'discard'")
            })?;
            if !matches!(key.as_str(), "assign" | "defer" | "discard") {
                return Err(PyValueError::new_err(format!(
                    "the answer has the key {key:?}; its keys are 'assign', 'defer' and 'discard'"
                )));
            }
        }
        let get = |k: &str| map.get_item(k).ok().filter(|v| !v.is_none());
        if let Some(a) = get("assign") {
            d.assign = a.extract().map_err(|_| pairs_expected())?;
        }
        for (key, into) in [("defer", &mut d.deferred), ("discard", &mut d.discard)] {
            if let Some(v) = get(key) {
                *into = v.extract().map_err(|_| {
                    PyValueError::new_err(format!("'{key}' must be a list of task ids"))
                })?;
            }
        }
    } else {
        d.assign = answer.extract().map_err(|_| pairs_expected())?;
    }
    check(&d, event)?;
    Ok(d)
}

fn pairs_expected() -> PyErr {
    PyValueError::new_err(
        "a heuristic returns a list of (task, machine) pairs, or a dict with 'assign' (such pairs), 'defer' and 'discard' (task ids)",
    )
}

/// Checks a decision against the event: tasks of the batch, each once; machines that exist,
/// each given at most its free slots.
fn check(d: &Decision, event: &MappingEvent) -> PyResult<()> {
    let mut seen = std::collections::HashSet::new();
    let tasks = d
        .assign
        .iter()
        .map(|&(t, _)| t)
        .chain(d.deferred.iter().copied())
        .chain(d.discard.iter().copied());
    for t in tasks {
        if !event.tasks.contains(&t) {
            return Err(PyValueError::new_err(format!(
                "task {t} is not in the batch queue (its tasks are MappingEvent.tasks)"
            )));
        }
        if !seen.insert(t) {
            return Err(PyValueError::new_err(format!(
                "task {t} is named twice in one answer"
            )));
        }
    }
    let mut taken = vec![0usize; event.free.len()];
    for &(t, m) in &d.assign {
        let Some(n) = taken.get_mut(m) else {
            return Err(PyValueError::new_err(format!(
                "task {t} is assigned to machine {m}, and there are {} machines (0 to {})",
                event.free.len(),
                event.free.len().saturating_sub(1)
            )));
        };
        *n += 1;
        if *n > event.free[m] {
            return Err(PyValueError::new_err(format!(
                "machine {m} is given {n} tasks and has {} free slots (MappingEvent.free)",
                event.free[m]
            )));
        }
    }
    Ok(())
}

impl BatchHeuristic for PyHeuristic {
    fn name(&self) -> &str {
        &self.name
    }

    fn map(&mut self, view: &View<'_>) -> Decision {
        if self.failed() || view.batch().is_empty() {
            return Decision::default();
        }
        let event = snapshot(view);
        let now = event.now;
        let answer = Python::attach(|py| -> PyResult<Decision> {
            let event = Bound::new(py, event)?;
            // An exception of the callable's own is raised as it is, with its traceback.
            let answer = self.func.call1(py, (&event,))?;
            decision(answer.bind(py), event.get()).map_err(|e| {
                PyValueError::new_err(format!(
                    "the heuristic {} at the mapping event at tick {now}: {}",
                    self.name,
                    e.value(py)
                ))
            })
        });
        answer.unwrap_or_else(|e| {
            self.fail(e);
            Decision::default()
        })
    }
}

/// A Python heuristic as a run takes it: it builds a [`PyHeuristic`] for every trial, all
/// of them sharing one [`Failure`].
pub(crate) struct Own {
    func: Py<PyAny>,
    name: String,
    failure: Failure,
}

impl Own {
    /// `func`, which must be callable.
    pub(crate) fn new(func: &Bound<'_, PyAny>) -> PyResult<Own> {
        if !func.is_callable() {
            return Err(pyo3::exceptions::PyTypeError::new_err(
                "heuristic: expected a callable that takes a MappingEvent and returns its decisions",
            ));
        }
        Ok(Own {
            func: func.clone().unbind(),
            name: callable_name(func),
            failure: Failure::default(),
        })
    }

    /// A heuristic for one trial.
    pub(crate) fn make(&self) -> runner::Mapper {
        let func = Python::attach(|py| self.func.clone_ref(py));
        runner::Mapper::Batch(Box::new(PyHeuristic::new(
            func,
            self.name.clone(),
            Arc::clone(&self.failure),
        )))
    }

    /// Its name: the callable's.
    pub(crate) fn name(&self) -> &str {
        &self.name
    }

    /// Where the first error of its trials goes.
    pub(crate) fn failure(&self) -> Failure {
        Arc::clone(&self.failure)
    }

    /// Refuses a run whose `[mapper]` heuristic maps in immediate mode: a Python heuristic
    /// maps batches, into the queues that heuristic's mode sizes.
    pub(crate) fn check(&self, prepared: &runner::Prepared) -> Result<(), runner::RunError> {
        if prepared.heuristic_is_immediate() {
            return Err(runner::RunError::Input(format!(
                "heuristic: a Python heuristic maps batches, and [mapper] names {}, an immediate one: name a batch heuristic (its pruner runs with yours)",
                prepared.heuristic.name
            )));
        }
        Ok(())
    }
}

/// Reads `name` from a callable: its `__name__`, else its type's.
fn callable_name(func: &Bound<'_, PyAny>) -> String {
    func.getattr("__name__")
        .and_then(|n| n.extract::<String>())
        .or_else(|_| func.get_type().name().map(|n| n.to_string()))
        .unwrap_or_else(|_| "python".to_owned())
}
