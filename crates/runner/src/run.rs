//! Running a prepared experiment: [`Prepared::run`] runs every trial as [`RunOptions`] say
//! (threads, progress, a stop flag, traces to files or to memory, policies of one's own, the
//! trials' records); [`Prepared::trial`] runs one trial so, [`Prepared::run_trial`] one
//! trial as configured and [`Prepared::run_trial_traced`] one into a trace sink of one's own. Every one of them goes through the one trial loop
//! (`Prepared::run_trial_with`), so their results are the same for the same trial.
//!
//! ```
//! use runner::{ExperimentConfig, Prepared, RunOptions, TrialSource};
//!
//! let mut config = ExperimentConfig::paper_default();
//! config.workload.tasks = 300; // the first and last 100 are not counted
//! let prepared = Prepared::new(config, None, TrialSource::Generated, Some(2), None)?;
//! let runs = prepared.run(RunOptions::default().jobs(2))?;
//! assert_eq!(runs.len(), 2);
//! // Any number of threads gives the same results, in trial order.
//! let one = prepared.run(RunOptions::default().jobs(1))?;
//! assert_eq!(runs[1].metrics, one[1].metrics);
//! assert_eq!(runs[1].metrics, prepared.run_trial(1)?.1);
//! # Ok::<(), runner::RunError>(())
//! ```

use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};

use rayon::prelude::*;

use crate::engine::TrialRecord;
use crate::error::RunError;
use crate::experiment::{Policies, Prepared};
use crate::metrics::TrialMetrics;
use crate::trace::{CsvTrace, MemoryTrace, TraceSink};

/// Where a run's per-trial traces go ([`crate::trace`]).
#[derive(Debug, Clone, Copy, Default)]
pub enum Tracing<'a> {
    /// No trace. An experiment with `trace = true` is refused: it asks for files that a run
    /// without them does not write.
    #[default]
    Off,
    /// Trial `k` writes `tasks-<k>.csv` and `events-<k>.csv` into this folder (created if
    /// missing) as it runs ([`CsvTrace`]), each put in place when its trial ends.
    Files(&'a Path),
    /// Every trial's rows kept in memory ([`MemoryTrace`], in [`TrialRun::trace`]).
    Memory,
}

/// How [`Prepared::run`] runs the trials. `RunOptions::default()` runs them on every core,
/// untraced, with the configured heuristic and pruner; the builder methods change one thing
/// each. No option changes a trial's measures: the traces, the records, the threads and the
/// progress only add to what is kept.
#[derive(Clone, Copy)]
pub struct RunOptions<'a> {
    /// Worker threads: 0 = all cores; at most the cores ([`crate::resources::worker_threads`]).
    pub jobs: usize,
    /// Called once per finished trial (a progress bar's tick).
    pub progress: &'a (dyn Fn() + Sync),
    /// Called with 1 each time a task of a trial reaches its outcome, from the thread that
    /// runs the trial (a progress count of tasks; it changes no result).
    pub tasks_done: &'a (dyn Fn(u64) + Sync),
    /// Once set, the run stops between trials with [`RunError::Interrupted`] (a trial that
    /// started runs to its end; a Python caller sets it on Ctrl-C).
    pub stop: Option<&'a AtomicBool>,
    /// Where the traces go.
    pub tracing: Tracing<'a>,
    /// Policies of one's own in place of the configured heuristic or pruner: the same tasks,
    /// luck, system and measures, so they run on equal terms with the built-ins.
    pub policies: Policies<'a>,
    /// Keep each trial's record (every task's outcome, machine, start and end) in
    /// [`TrialRun::record`].
    pub keep_records: bool,
}

impl Default for RunOptions<'_> {
    fn default() -> Self {
        RunOptions {
            jobs: 0,
            progress: &|| {},
            tasks_done: &|_| {},
            stop: None,
            tracing: Tracing::Off,
            policies: Policies::default(),
            keep_records: false,
        }
    }
}

impl std::fmt::Debug for RunOptions<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RunOptions")
            .field("jobs", &self.jobs)
            .field("stop", &self.stop)
            .field("tracing", &self.tracing)
            .field("policies", &self.policies)
            .field("keep_records", &self.keep_records)
            .finish_non_exhaustive()
    }
}

impl<'a> RunOptions<'a> {
    /// `jobs` worker threads (0 = all cores).
    #[must_use]
    pub fn jobs(mut self, jobs: usize) -> Self {
        self.jobs = jobs;
        self
    }

    /// `progress` called once per finished trial.
    #[must_use]
    pub fn progress(mut self, progress: &'a (dyn Fn() + Sync)) -> Self {
        self.progress = progress;
        self
    }

    /// `tasks_done` called with 1 as each task of a trial reaches its outcome.
    #[must_use]
    pub fn tasks_done(mut self, tasks_done: &'a (dyn Fn(u64) + Sync)) -> Self {
        self.tasks_done = tasks_done;
        self
    }

    /// Stop between trials once `stop` is set.
    #[must_use]
    pub fn stop_on(mut self, stop: &'a AtomicBool) -> Self {
        self.stop = Some(stop);
        self
    }

    /// Trace every trial as `tracing` says.
    #[must_use]
    pub fn tracing(mut self, tracing: Tracing<'a>) -> Self {
        self.tracing = tracing;
        self
    }

    /// Run `policies` in place of the configured heuristic or pruner.
    #[must_use]
    pub fn policies(mut self, policies: Policies<'a>) -> Self {
        self.policies = policies;
        self
    }

    /// Keep every trial's record.
    #[must_use]
    pub fn keep_records(mut self) -> Self {
        self.keep_records = true;
        self
    }
}

/// One trial's results: its measures, and its record and trace when asked for.
#[derive(Debug, Clone)]
pub struct TrialRun {
    /// The trial's measures.
    pub metrics: TrialMetrics,
    /// Every task's outcome, machine, start and end ([`RunOptions::keep_records`]).
    pub record: Option<TrialRecord>,
    /// The trial's rows ([`Tracing::Memory`]).
    pub trace: Option<MemoryTrace>,
}

impl Prepared {
    /// Runs every trial as `options` say. Results are in trial order and identical for any
    /// number of threads.
    pub fn run(&self, options: RunOptions<'_>) -> Result<Vec<TrialRun>, RunError> {
        if let Tracing::Files(dir) = options.tracing {
            std::fs::create_dir_all(dir).map_err(|e| RunError::Io {
                path: dir.to_path_buf(),
                message: e.to_string(),
            })?;
            crate::files::clean_temporaries(dir);
        }
        self.each_trial(options.jobs, |k| {
            if options.stop.is_some_and(|s| s.load(Ordering::Relaxed)) {
                return Err(RunError::Interrupted);
            }
            let run = self.trial(k, &options)?;
            (options.progress)();
            Ok(run)
        })
    }

    /// Runs trial `k` as `options` say (their threads, progress and stop flag aside). A trace
    /// into files goes into an existing folder.
    pub fn trial(&self, k: u64, options: &RunOptions<'_>) -> Result<TrialRun, RunError> {
        let (record, metrics, trace) = match options.tracing {
            Tracing::Off => {
                if self.config.trace {
                    return Err(RunError::Input(
                        "trace = true: this run writes no trace (prunesim run --out DIR and prunesim sweep do)".into(),
                    ));
                }
                let (r, m, _) = self.run_trial_with::<MemoryTrace>(
                    k,
                    None,
                    options.policies,
                    options.tasks_done,
                )?;
                (r, m, None)
            }
            Tracing::Memory => {
                let (r, m, sink) = self.run_trial_with(
                    k,
                    Some(MemoryTrace::default()),
                    options.policies,
                    options.tasks_done,
                )?;
                (r, m, sink)
            }
            Tracing::Files(dir) => {
                let sink = CsvTrace::create(dir, k)?;
                let (r, m, sink) =
                    self.run_trial_with(k, Some(sink), options.policies, options.tasks_done)?;
                sink.ok_or_else(|| RunError::Input("the trace's sink was lost".into()))?
                    .commit()?;
                (r, m, None)
            }
        };
        Ok(TrialRun {
            metrics,
            record: options.keep_records.then_some(record),
            trace,
        })
    }

    /// Runs trial `k` as configured: its record and measures. An experiment with
    /// `trace = true` is refused ([`Tracing`]).
    pub fn run_trial(&self, k: u64) -> Result<(TrialRecord, TrialMetrics), RunError> {
        let run = self.trial(k, &RunOptions::default().keep_records())?;
        let record = run
            .record
            .ok_or_else(|| RunError::Input("the trial's record was lost".into()))?;
        Ok((record, run.metrics))
    }

    /// Runs trial `k` recording its trace into a sink of one's own ([`crate::trace`]),
    /// whatever the experiment's `trace` key says; the sink is given back with the results,
    /// which are those of [`Prepared::run_trial`].
    pub fn run_trial_traced<S: TraceSink + 'static>(
        &self,
        k: u64,
        sink: S,
    ) -> Result<(TrialRecord, TrialMetrics, S), RunError> {
        let (record, metrics, sink) =
            self.run_trial_with(k, Some(sink), Policies::default(), &|_| {})?;
        let sink = sink.ok_or_else(|| RunError::Input("the trace's sink was lost".into()))?;
        Ok((record, metrics, sink))
    }

    /// `f` of every trial, on `jobs` threads (0 = all cores; at most the cores,
    /// [`crate::resources::worker_threads`]), collected in trial order: identical for any
    /// `jobs`.
    fn each_trial<T: Send>(
        &self,
        jobs: usize,
        f: impl Fn(u64) -> Result<T, RunError> + Sync + Send,
    ) -> Result<Vec<T>, RunError> {
        let (jobs, _) = crate::resources::worker_threads(jobs);
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(jobs)
            .build()
            .map_err(|e| RunError::Input(e.to_string()))?;
        pool.install(|| (0..self.trials).into_par_iter().map(f).collect())
    }
}
