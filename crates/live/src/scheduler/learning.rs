//! Learning the PET online in the live scheduler ([`Scheduler::learn_online`]): the
//! system's one learning path ([`System::set_estimator`], the simulator's too) at the
//! scheduler's cadence, and the observed execution times kept for a dispatcher's own
//! estimator ([`Scheduler::drain_samples`]).

use learn::Estimator;

use super::{LiveError, Scheduler};
#[cfg(doc)]
use system::{SchedulerConfig, System};

/// An execution time observed on a machine: what an online estimator of the PET learns from
/// ([`Scheduler::drain_samples`]).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Sample {
    /// The task's type.
    pub task_type: usize,
    /// The machine it ran on.
    pub machine: usize,
    /// How long it ran, seconds.
    pub seconds: f64,
    /// True when it was stopped before it ended (dropped or failed): its execution time is
    /// at least `seconds` (right-censored).
    pub censored: bool,
}

/// How the scheduler learns its PET online ([`Scheduler::learn_online`]).
#[derive(Debug, Clone, PartialEq)]
pub struct LearnConfig {
    /// The estimator's options ([`learn::Options`]: censoring, the censored tail, the prior's
    /// weight, a window, the per-cell cadence of its estimates).
    pub options: learn::Options,
    /// The PET decided on takes the estimator's changed cells after every this many
    /// observations (>= 1; 1: before the next mapping event that can read them).
    pub refresh_every: usize,
    /// Learn from no prior: the times of the PET decided on are forgotten, every cell starts
    /// as one tick (a cell not yet observed is tried) weighing [`learn::Options::prior_weight`]
    /// (0, as [`LearnConfig::from_nothing`] sets it: its observations alone from the first
    /// one; the `learn` crate docs, step 7). `false`: the PET decided on is the prior.
    pub no_prior: bool,
    /// Which machines are of one kind: a label per machine, machines with equal labels
    /// learning as copies ([`learn::Estimator::with_machine_types`]). `None`: the machines
    /// whose columns of the PET decided on are equal (a PET given per machine type).
    pub machine_types: Option<Vec<usize>>,
}

impl Default for LearnConfig {
    /// The estimator's defaults (Kaplan-Meier, the prior's tail, a prior weighing 10
    /// observations), the PET refreshed after every observation.
    fn default() -> Self {
        LearnConfig {
            options: learn::Options::default(),
            refresh_every: 1,
            no_prior: false,
            machine_types: None,
        }
    }
}

impl LearnConfig {
    /// Learning from no prior ([`LearnConfig::no_prior`]) with the estimator's other
    /// defaults: a scheduler that knows the task types and the machines and no time.
    pub fn from_nothing() -> Self {
        LearnConfig {
            options: learn::Options {
                prior_weight: 0.0,
                ..learn::Options::default()
            },
            no_prior: true,
            ..LearnConfig::default()
        }
    }
}

impl Scheduler {
    /// Keeps every observed execution time (completions, and right-censored ones of tasks
    /// stopped while executing) for [`Scheduler::drain_samples`]; off by default.
    pub fn record_samples(&mut self, on: bool) {
        self.hooks.samples = on.then(Vec::new);
    }

    /// The execution times observed since the last call (with [`Scheduler::record_samples`]).
    pub fn drain_samples(&mut self) -> Vec<Sample> {
        self.hooks
            .samples
            .as_mut()
            .map(std::mem::take)
            .unwrap_or_default()
    }

    /// Learns the PET online from the executions the scheduler is told of or decides
    /// ([`learn::Estimator`], its prior the PET decided on now,
    /// [`system::estimator_from_prior`] as the simulator's): a completion is an exact
    /// observation of the time it ran, an executing task stopped (dropped, killed at its
    /// deadline, failed) after running `e` seconds is right-censored at `e`, and a task
    /// dropped before it started is not observed. Times are the [`Sample`]s'
    /// (seconds, observed by the estimator in ticks of [`SchedulerConfig::resolution`]).
    /// After every [`LearnConfig::refresh_every`] observations, the cells whose estimate
    /// changed replace the PET's: the simulator's learned belief, through the same path
    /// ([`System::set_estimator`], the simulator's cadence being 1), the completion-time PMFs
    /// that read a changed cell recomputed when next read. With [`learn::Options::optimism`] the PET takes the estimator's
    /// optimistic reading of its cells at once. Calling it again starts afresh from the
    /// current PET.
    ///
    /// Errors: options out of range ([`learn::Options::validate`]), a `refresh_every` of 0.
    pub fn learn_online(&mut self, config: LearnConfig) -> Result<(), LiveError> {
        if config.refresh_every == 0 {
            return Err(LiveError::Config(
                "refresh_every must be at least 1 observation".into(),
            ));
        }
        let pet = self.sys.pet();
        let (types, machines) = (pet.n_types(), pet.n_machines());
        let config_error = |e: learn::LearnError| LiveError::Config(e.to_string());
        let mut estimator = if config.no_prior {
            let none = pmf::Pmf::point(1);
            Estimator::with_prior(types, machines, |_, _| none.clone(), config.options)
        } else {
            system::estimator_from_prior(pet, config.options)
        }
        .map_err(config_error)?;
        let kinds = match config.machine_types {
            Some(kinds) => Some(kinds),
            // The times are forgotten; the machine types the PET's columns say are kept.
            None if config.no_prior => Some((0..machines).map(|m| pet.canonical(m)).collect()),
            None => None,
        };
        if let Some(kinds) = kinds {
            if kinds.len() != machines {
                return Err(LiveError::Config(format!(
                    "machine_types: {} labels for {machines} machines",
                    kinds.len()
                )));
            }
            estimator = estimator.with_machine_types(&kinds).map_err(config_error)?;
        }
        // Explored cells may be read optimistically from the start (`learn::Options::optimism`).
        for t in 0..types {
            for m in 0..machines {
                let p = estimator.pmf(t, m);
                if self.sys.pet().pmf(t, m) != p {
                    self.sys
                        .set_pmf(t, m, p.clone())
                        .map_err(|e| LiveError::Config(e.to_string()))?;
                }
            }
        }
        self.sys
            .set_estimator(Some(Box::new(estimator)), config.refresh_every);
        Ok(())
    }

    /// Stops learning; the PET stays as it is.
    pub fn stop_learning(&mut self) {
        self.sys.set_estimator(None, 1);
    }

    /// The online estimator ([`Scheduler::learn_online`]), if learning.
    pub fn estimator(&self) -> Option<&Estimator> {
        self.sys.estimator()
    }
}
