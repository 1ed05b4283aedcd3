//! The summary of a run (`--json`, `summary.json`): what ran, and the mean and 95% interval
//! of every measure over its trials with the measure's definition.

use std::collections::BTreeMap;

use serde::Serialize;
use workload::{Pet, WorkloadConfig};

use crate::belief::{BeliefConfig, DriftConfig};
use crate::experiment::Prepared;
use crate::metrics::{Estimate, TrialMetrics};
use crate::system_config::{DEFAULT_PRICES, SystemConfig, is_zero};
use heuristics::HeuristicConfig;
use pruner::PrunerConfig;

/// Mean and 95% CI of every scalar measure over trials, each interval clamped to its
/// measure's range ([`Estimate::of_metric`]).
pub fn summarise(trials: &[TrialMetrics]) -> BTreeMap<String, Estimate> {
    let mut by_name: BTreeMap<&'static str, Vec<f64>> = BTreeMap::new();
    for t in trials {
        for (name, v) in t.scalars() {
            by_name.entry(name).or_default().push(v);
        }
    }
    by_name
        .into_iter()
        .map(|(k, v)| (k.to_owned(), Estimate::of_metric(k, &v)))
        .collect()
}

/// The PET a run used, described without paths (so a rerun from another folder gives the same
/// summary): its size, its machines by origin and a content hash.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct PetSummary {
    /// Task types.
    pub task_types: usize,
    /// Machines.
    pub machines: usize,
    /// The machines by the PET machine each copies, with how many copies (`machines = N`
    /// draws with replacement; otherwise one of each).
    pub machine_origins: Vec<crate::provenance::MachineOrigin>,
    /// [`crate::provenance::pet_sha256`].
    pub sha256: String,
}

impl PetSummary {
    /// The description of `pet`.
    pub fn of(pet: &Pet) -> Self {
        PetSummary::hashed(pet, crate::provenance::pet_sha256(pet))
    }

    /// The description of `pet` whose hash ([`crate::provenance::pet_sha256`]) is known
    /// already (a run's manifest holds it): the PET is not hashed again.
    pub fn hashed(pet: &Pet, sha256: String) -> Self {
        PetSummary {
            task_types: pet.n_types(),
            machines: pet.n_machines(),
            machine_origins: crate::provenance::machine_counts(pet),
            sha256,
        }
    }
}

/// The summary document (`--json`, `summary.json`): what ran, and every measure with its
/// definition.
#[derive(Debug, Clone, Serialize)]
pub struct Summary {
    /// The experiment's title.
    pub experiment: String,
    /// The heuristic as named (a base name or a variant such as `MM-P`, `PAMF`, `MOCA`).
    pub heuristic: String,
    /// The base heuristic that ran, every parameter with its value.
    pub mapper: HeuristicConfig,
    /// The pruner that ran (the `[pruner]` table and the name resolved).
    pub pruner: PrunerConfig,
    /// The system: queue size, drop model, counting, prices.
    pub system: SystemConfig,
    /// Trials run.
    pub trials: u64,
    /// Master seed (`workload.seed`).
    pub seed: u64,
    /// The seed of the generated PET and of the machines drawn.
    pub pet_seed: u64,
    /// The PET.
    pub pet: PetSummary,
    /// The `[workload]` table as run (rate, tasks asked for, trials run, seed, tick, ...)
    /// but its PET source, which `pet` describes by content (a path differs between a run
    /// and its rerun); `tasks_per_trial` says how many tasks ran.
    pub workload: serde_json::Value,
    /// The tasks simulated per trial (counted or not): fewest and most. With generated
    /// trials, `workload.tasks` unless the horizon ends first.
    pub tasks_per_trial: TaskRange,
    /// What the scheduler believed the PET to be, and whether it learned (`[belief]`);
    /// absent when it knew the PET.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub belief: Option<BeliefConfig>,
    /// The changes of the true PET during a trial (`[[drift]]`); empty when none.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub drift: Vec<DriftConfig>,
    /// The program's version ([`crate::provenance::VERSION`]).
    pub version: &'static str,
    /// The git revision it was built from ([`crate::provenance::GIT_REVISION`]).
    pub git_revision: &'static str,
    /// The PCT epsilon when PCTs were trimmed (approximate results); absent when exact.
    #[serde(skip_serializing_if = "is_zero")]
    pub pct_epsilon: f64,
    /// Mean robustness in % (the headline number).
    pub robustness_mean: f64,
    /// The clairvoyant optimum's bracket, mean over trials (when computed).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub optimum: Option<OptimumBracket>,
    /// Every measure.
    pub metrics: BTreeMap<String, Estimate>,
    /// Every measure's unit and definition ([`crate::metrics::METRICS`]).
    pub metrics_doc: BTreeMap<&'static str, MetricDocEntry>,
}

/// The `[workload]` table of a prepared run with the trials and seeds it ran, without its
/// PET source ([`Summary::workload`]).
fn workload_as_run(prepared: &Prepared) -> serde_json::Value {
    let workload = WorkloadConfig {
        trials: prepared.trials,
        seed: prepared.seed,
        pet_seed: Some(prepared.config.workload.pet_seed()),
        ..prepared.config.workload.clone()
    };
    let mut value = serde_json::to_value(&workload).unwrap_or_default();
    if let Some(table) = value.as_object_mut() {
        table.remove("pet");
    }
    value
}

/// The fewest and the most tasks of a run's trials.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct TaskRange {
    /// The fewest tasks of a trial.
    pub fewest: usize,
    /// The most tasks of a trial.
    pub most: usize,
}

impl TaskRange {
    /// The range of `counts` (0 to 0 without any).
    pub fn of(counts: &[usize]) -> Self {
        TaskRange {
            fewest: counts.iter().copied().min().unwrap_or(0),
            most: counts.iter().copied().max().unwrap_or(0),
        }
    }
}

/// Where the clairvoyant optimum lies, in % of the counted tasks (means over trials of the
/// `optimum_lower` and `optimum_upper` measures).
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct OptimumBracket {
    /// The best feasible schedule found knowing every execution time: achievable.
    pub lower: f64,
    /// No schedule does better.
    pub upper: f64,
}

/// A measure's unit and one-line definition, as the summary JSON gives them.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct MetricDocEntry {
    /// The unit.
    pub unit: &'static str,
    /// The definition.
    pub definition: &'static str,
}

impl Summary {
    /// Builds the summary of a run.
    pub fn new(prepared: &Prepared, trials: &[TrialMetrics]) -> Self {
        Summary::with_pet(prepared, trials, PetSummary::of(&prepared.pet))
    }

    /// [`Summary::new`] with the description of the run's PET given ([`PetSummary::hashed`]).
    pub fn with_pet(prepared: &Prepared, trials: &[TrialMetrics], pet: PetSummary) -> Self {
        let metrics = summarise(trials);
        let metrics_doc = metrics
            .keys()
            .filter_map(|k| crate::metrics::metric_doc(k))
            .map(|d| {
                (
                    d.name,
                    MetricDocEntry {
                        unit: d.unit.symbol(),
                        definition: d.definition,
                    },
                )
            })
            .collect();
        let mut system = prepared.config.system.clone();
        if system.prices.is_none() {
            system.prices = Some(DEFAULT_PRICES.to_vec());
        }
        system.queue_size =
            Some(system.queue_size_for(
                heuristics::is_immediate(&prepared.heuristic.name).unwrap_or(false),
            ));
        Summary {
            experiment: prepared.config.name.clone(),
            heuristic: prepared.config.mapper.name.clone(),
            mapper: prepared
                .heuristic
                .with_defaults(prepared.config.system.drop_model),
            pruner: prepared.pruner.clone(),
            system,
            trials: prepared.trials,
            seed: prepared.seed,
            pet_seed: prepared.config.workload.pet_seed(),
            pet,
            workload: workload_as_run(prepared),
            tasks_per_trial: TaskRange::of(&prepared.tasks_per_trial()),
            belief: prepared.config.belief.clone(),
            drift: prepared.config.drift.clone(),
            version: crate::provenance::VERSION,
            git_revision: crate::provenance::GIT_REVISION,
            pct_epsilon: prepared.config.system.pct_epsilon,
            robustness_mean: metrics.get("robustness").map_or(f64::NAN, |e| e.mean),
            optimum: match (metrics.get("optimum_lower"), metrics.get("optimum_upper")) {
                (Some(l), Some(u)) => Some(OptimumBracket {
                    lower: l.mean,
                    upper: u.mean,
                }),
                _ => None,
            },
            metrics,
            metrics_doc,
        }
    }
}
