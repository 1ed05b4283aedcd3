//! `prunesim.compare`: heuristics compared on the same trials ([`runner::comparison`]), as
//! `prunesim run --heuristic A,B,C` compares them.

use std::sync::Arc;
use std::sync::atomic::AtomicBool;

use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList};
use runner::{Prepared, RunError, RunOptions, Summary};

use crate::own_heuristic::{self, Own};
use crate::{ConfigError, experiment, interruptible, prefixed, run_error, warn};

/// A heuristic to compare: a name, or a Python callable ([`Own`], run with the experiment's
/// `[mapper]` pruner).
enum Compared {
    Named(String),
    Own(Own),
}

impl Compared {
    fn read(h: &Bound<'_, PyAny>) -> PyResult<Compared> {
        if let Ok(name) = h.extract::<String>() {
            return Ok(Compared::Named(name));
        }
        if h.is_callable() {
            return Own::new(h).map(Compared::Own);
        }
        Err(ConfigError::new_err(
            "heuristics: each is a name (see prunesim list) or a Python callable (a heuristic of your own)",
        ))
    }

    /// Its row's name: the name given, or the callable's with " (Python)".
    fn name(&self) -> String {
        match self {
            Compared::Named(n) => n.clone(),
            Compared::Own(o) => format!("{} (Python)", o.name()),
        }
    }
}

/// Runs an experiment once per heuristic of `heuristics` (names, or Python callables as
/// `run(heuristic=...)` takes them) on the same trials (the same seed: common random
/// numbers) and returns `(columns, best, optimum)`: a row per heuristic
/// ([`runner::comparison`]: robustness and its interval, the paired difference to the best
/// and its interval, the worst type's share), the best one's name, and the clairvoyant
/// bracket (computed with the first heuristic when `bound`; else `None`).
#[pyfunction]
#[pyo3(signature = (kind, value, heuristics, *, trials=None, seed=None, jobs=0, bound=true, budget=None))]
#[allow(clippy::too_many_arguments, clippy::type_complexity)]
pub(crate) fn compare_heuristics<'py>(
    py: Python<'py>,
    kind: &str,
    value: Option<&Bound<'py, PyAny>>,
    heuristics: Vec<Bound<'py, PyAny>>,
    trials: Option<u64>,
    seed: Option<u64>,
    jobs: usize,
    bound: bool,
    budget: Option<u64>,
) -> PyResult<(Bound<'py, PyDict>, String, Option<Bound<'py, PyAny>>)> {
    if heuristics.is_empty() {
        return Err(ConfigError::new_err(
            "heuristics: give at least one name (see prunesim list)",
        ));
    }
    let heuristics = heuristics
        .iter()
        .map(Compared::read)
        .collect::<PyResult<Vec<_>>>()?;
    for (i, h) in heuristics.iter().enumerate() {
        if heuristics[..i].iter().any(|o| o.name() == h.name()) {
            return Err(ConfigError::new_err(format!(
                "heuristics: {} is given twice",
                h.name()
            )));
        }
    }
    let experiment = experiment(kind, value, seed);
    let (mut config, what) = warn::warned(py, experiment)?;
    if let Some(s) = seed {
        config.workload.seed = s;
    }
    // Every heuristic checked before any runs.
    let configs = heuristics
        .iter()
        .map(|h| {
            let mut c = config.clone();
            if let Compared::Named(name) = h {
                c.mapper.name.clone_from(name);
            }
            c.validate()
                .map_err(|e| ConfigError::new_err(format!("heuristic {}: {e}", h.name())))?;
            Ok(c)
        })
        .collect::<PyResult<Vec<_>>>()?;
    let budget = budget.unwrap_or_else(runner::resources::default_budget);
    let failures: Vec<_> = heuristics
        .iter()
        .filter_map(|h| match h {
            Compared::Own(o) => Some(o.failure()),
            Compared::Named(_) => None,
        })
        .collect();
    let stop = Arc::new(AtomicBool::new(false));
    let stopped = Arc::clone(&stop);
    let ran = interruptible(py, stop, move || {
        let mut runs = Vec::new();
        let mut optimum = None;
        for (i, (h, c)) in heuristics.iter().zip(configs).enumerate() {
            let prep = runner::Preparation {
                trials,
                jobs,
                // The bracket depends on the trials alone: computed with the first.
                with_bound: bound && i == 0,
                report: false,
                budget,
                given: None,
            };
            let prepared = Prepared::generated(c, &prep).map_err(|e| prefixed(&what, e))?;
            let own = match h {
                Compared::Own(o) => {
                    o.check(&prepared)?;
                    Some(o)
                }
                Compared::Named(_) => None,
            };
            let make = own.map(|o| move || o.make());
            let policies = runner::Policies {
                heuristic: make
                    .as_ref()
                    .map(|m| m as &(dyn Fn() -> runner::Mapper + Sync)),
                pruner: None,
            };
            let metrics: Vec<_> = prepared
                .run(
                    RunOptions::default()
                        .jobs(jobs)
                        .stop_on(&stopped)
                        .policies(policies),
                )?
                .into_iter()
                .map(|r| r.metrics)
                .collect();
            if i == 0 {
                optimum = Summary::new(&prepared, &metrics).optimum;
            }
            runs.push((h.name(), metrics));
        }
        Ok::<_, RunError>((runner::comparison::Comparison::new(&runs), optimum))
    })?
    .map_err(run_error);
    if let Some(e) = failures.iter().find_map(own_heuristic::first_error) {
        return Err(e);
    }
    let (comparison, optimum) = warn::warned(py, ran)?;
    let table = columns(py, &comparison)?;
    let optimum = optimum.map(|o| pythonize::pythonize(py, &o)).transpose()?;
    Ok((table, comparison.best_name().to_owned(), optimum))
}

/// The comparison as columns: a row per heuristic.
fn columns<'py>(
    py: Python<'py>,
    comparison: &runner::comparison::Comparison,
) -> PyResult<Bound<'py, PyDict>> {
    let table = PyDict::new(py);
    let column = |name: &str, values: Vec<Option<f64>>| -> PyResult<()> {
        table.set_item(name, PyList::new(py, values)?)
    };
    let rows = &comparison.rows;
    table.set_item(
        "heuristic",
        PyList::new(py, rows.iter().map(|r| r.heuristic.as_str()))?,
    )?;
    column(
        "robustness_mean",
        rows.iter().map(|r| Some(r.robustness.mean)).collect(),
    )?;
    column(
        "robustness_ci95_low",
        rows.iter().map(|r| r.robustness.ci95_low).collect(),
    )?;
    column(
        "robustness_ci95_high",
        rows.iter().map(|r| r.robustness.ci95_high).collect(),
    )?;
    let difference = |f: fn(&runner::Estimate) -> Option<f64>| -> Vec<Option<f64>> {
        rows.iter()
            .map(|r| r.difference_to_best.as_ref().map_or(Some(0.0), f))
            .collect()
    };
    column("difference_to_best_mean", difference(|e| Some(e.mean)))?;
    column(
        "difference_to_best_ci95_low",
        rows.iter()
            .map(|r| r.difference_to_best.as_ref().and_then(|e| e.ci95_low))
            .collect(),
    )?;
    column(
        "difference_to_best_ci95_high",
        rows.iter()
            .map(|r| r.difference_to_best.as_ref().and_then(|e| e.ci95_high))
            .collect(),
    )?;
    column(
        "worst_type_on_time_mean",
        rows.iter()
            .map(|r| Some(r.worst_type_on_time.mean))
            .collect(),
    )?;
    table.set_item(
        "trials",
        PyList::new(py, rows.iter().map(|r| r.robustness.n))?,
    )?;
    Ok(table)
}
