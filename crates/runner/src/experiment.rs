//! Experiments: a TOML file (workload, system, mapper, pruner) and its trials run in parallel
//! with results independent of the thread count; the `[system]` table is
//! [`crate::system_config`], the summary over trials [`crate::summary`].
//!
//! ```toml
//! name = "paper headline"  # the title of the outputs (default: the file's name)
//! trace = true          # per-task and per-event traces of every trial (docs/trace.md)
//!
//! [workload]            # see the workload crate: PET source, pattern, rate, tasks, trials, seed
//! rate = 34000
//! seed = 42
//!
//! [system]
//! queue_size = 6        # counting the executing task (default 6 in batch mode); immediate
//!                       # heuristics map into unbounded queues: only "unbounded" is allowed
//! drop_model = "all"    # "none" | "pending" | "all": who is dropped at its deadline; only
//!                       # under "all" may the pruner drop the executing task
//! skip_first = 100      # tasks left out of the measures, by arrival (at least one must count)
//! skip_last = 100
//! prices = [0.0464, 0.0832, 0.085, 0.1, 0.126, 0.19, 0.526, 0.526]  # per machine-hour
//! hour = 3600           # time units per hour
//! pct_epsilon = 0.0     # 0 = exact; > 0 (below 0.1): approximate, see below
//!
//! [mapper]
//! name = "PAM"          # a base heuristic or a variant (PAMF, PUM, MOCA, PAMND, MM-D, MCT-P, ...)
//! # phase1, alpha, epsilon, k: only for the heuristics that use them (`prunesim list`)
//!
//! [pruner]              # optional; see the pruner crate (`pruner::PrunerTable`)
//! preset = "paper"      # optional: "paper" or "thesis"; without it a key left out is off
//! drop_threshold = 0.5
//! defer_threshold = 0.9
//! ```
//!
//! `pct_epsilon` (default 0, exact) trades accuracy for speed: every completion-time PMF
//! (PCT) is trimmed after it is computed, at most `pct_epsilon / 2` of mass cut from each
//! tail ([`pmf::Pmf::trim_tv`]). The `k`-th PCT of a machine queue is then within total
//! variation `k * pct_epsilon` of the exact one, and so is every success probability read
//! from it (see docs/performance.md). Results then differ from the exact ones, and the
//! outputs say so: the summary carries `pct_epsilon` (absent when 0). `prunesim run
//! --pct-epsilon EPS` overrides the file.

use std::path::{Path, PathBuf};

use heuristics::HeuristicConfig;
use model::TaskSpec;
use pruner::{PrunerConfig, PrunerTable};
use rand::Rng;
use serde::{Deserialize, Serialize};
use workload::rng::{Purpose, stream};
use workload::{Pet, PetSource, Staging, StagingConfig, Trial, WorkloadConfig};

use crate::belief::{BeliefConfig, BeliefSource, DriftConfig, PriorKind, drift_schedule};
use crate::engine::{
    Belief, EngineConfig, JpdcOptions, Knowledge, QueueSize, TrialRecord, simulate_inner,
};
use crate::error::RunError;
use crate::metrics::{Pricing, TrialMetrics};
use crate::rollout::{ROLLOUT_STREAM, Rollout, RolloutConfig};
use crate::trace::{TraceSink, Tracer};
use system::variants::resolve;

pub use crate::summary::{
    MetricDocEntry, OptimumBracket, PetSummary, Summary, TaskRange, summarise,
};
use crate::system_config::is_false;
pub use crate::system_config::{DEFAULT_PRICES, DEFAULT_QUEUE_SIZE, MAX_PCT_EPSILON, SystemConfig};

/// An experiment as written in TOML.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ExperimentConfig {
    /// A name for reports.
    #[serde(default = "default_name")]
    pub name: String,
    /// The workload: PET and arrival trials.
    pub workload: WorkloadConfig,
    /// The machines and the measures.
    #[serde(default)]
    pub system: SystemConfig,
    /// The heuristic (a base name or a variant).
    pub mapper: HeuristicConfig,
    /// The pruner table; absent = the paper's pruner for PAM, its variants and the suffixed
    /// names, none for a plain base heuristic ([`crate::variants::resolve`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pruner: Option<PrunerTable>,
    /// Input-data staging (JPDC-2016); absent = data are always ready (the thesis).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub staging: Option<StagingConfig>,
    /// Write a per-task and a per-event trace of every trial ([`crate::trace`],
    /// docs/trace.md): `prunesim run --out DIR` writes them to `DIR/trace/`, a sweep to
    /// `OUT/<id>.trace/<point>-<x>-<series>/`. Tracing changes no result. Only a run that
    /// writes files can trace: [`Prepared::run`] with [`crate::Tracing::Files`];
    /// [`Prepared::run_trial`] refuses such an experiment.
    #[serde(default, skip_serializing_if = "is_false")]
    pub trace: bool,
    /// The PET the policies read ([`crate::belief`]); absent = the truth (the oracle).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub belief: Option<BeliefConfig>,
    /// Changes of the truth during each trial ([`crate::belief`]); none by default.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub drift: Vec<DriftConfig>,
    /// Map each event by the policy whose simulated futures hold the most tasks on time
    /// ([`crate::rollout`]); absent = the heuristic alone.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rollout: Option<RolloutConfig>,
}

fn default_name() -> String {
    "experiment".into()
}

impl ExperimentConfig {
    /// The built-in default experiment: the paper's headline setting (HCW 2019, VII-E):
    /// default PET, rate 34k, 800 tasks, 30 trials, PAM with drop 50%, defer 90%, toggle 1,
    /// lambda 0.9 and the Schmitt trigger.
    pub fn paper_default() -> Self {
        ExperimentConfig {
            name: "paper headline: PAM at 34k".into(),
            workload: WorkloadConfig::from_toml_str(
                "[workload]\nrate = 34000\nseed = 2019\n",
                "built-in",
            )
            .expect("the built-in workload is valid"),
            system: SystemConfig::default(),
            mapper: HeuristicConfig::named("PAM"),
            // PAM without a [pruner] table uses the paper's defaults.
            pruner: None,
            staging: None,
            trace: false,
            belief: None,
            drift: Vec::new(),
            rollout: None,
        }
    }

    /// Parses and validates an experiment; `name` (the file's path) appears in errors, and
    /// relative paths inside resolve against `base`.
    pub fn from_toml_str(text: &str, name: &str, base: Option<&Path>) -> Result<Self, RunError> {
        Self::from_toml_str_seeded(text, name, base, None)
    }

    /// As [`from_toml_str`](Self::from_toml_str), with `seed` as `[workload] seed` when the
    /// file has none (the file's own seed stays). A `[workload]` table without a seed, and no
    /// `seed`, is an error that names the table and the key.
    pub fn from_toml_str_seeded(
        text: &str,
        name: &str,
        base: Option<&Path>,
        seed: Option<u64>,
    ) -> Result<Self, RunError> {
        let config_error = |line: Option<usize>, message: String| RunError::Config {
            file: name.to_string(),
            line,
            message,
        };
        let parse_error = |e: toml::de::Error| {
            config_error(
                workload::toml_line::error_line(text, &e),
                e.message().to_string(),
            )
        };
        let table: toml::Table = toml::from_str(text).map_err(parse_error)?;
        let missing_seed = match table.get("workload") {
            Some(toml::Value::Table(w)) => !w.contains_key("seed"),
            _ => false,
        };
        let mut cfg: ExperimentConfig = match toml::from_str(text) {
            Ok(cfg) => cfg,
            // Every other error (an unknown key, a wrong type) is reported first, with its
            // line; the missing seed is filled or reported once the rest of its table parses.
            Err(e) if missing_seed && e.message().contains("missing field `seed`") => {
                let header = workload_header_line(text);
                let Some(seed) = seed else {
                    return Err(config_error(
                        header,
                        "[workload] seed is missing: give it in the file, or as `prunesim run --seed N` or Python's `seed=N`".into(),
                    ));
                };
                with_seed(text, header, seed).map_err(|(line, m)| config_error(line, m))?
            }
            Err(e) => return Err(parse_error(e)),
        };
        if let Some(base) = base {
            cfg.workload.pet = rebase(&cfg.workload.pet, base);
            if let Some(b) = &mut cfg.belief {
                b.rebase(base);
            }
        }
        // `tick = "auto"`, chosen once the samples' path is final; the configuration keeps
        // the length chosen.
        cfg.workload.resolve_tick().map_err(|e| RunError::Config {
            file: name.to_string(),
            line: None,
            message: e.to_string(),
        })?;
        cfg.validate().map_err(|message| RunError::Config {
            file: name.to_string(),
            line: None,
            message,
        })?;
        Ok(cfg)
    }

    /// Reads an experiment file. Without a `name`, the experiment is named after the file
    /// (`my-study.toml` is `my-study`).
    pub fn load(path: &Path) -> Result<Self, RunError> {
        Self::load_seeded(path, None)
    }

    /// As [`load`](Self::load), with `seed` as `[workload] seed` when the file has none
    /// ([`from_toml_str_seeded`](Self::from_toml_str_seeded)).
    pub fn load_seeded(path: &Path, seed: Option<u64>) -> Result<Self, RunError> {
        let text = workload::io::read_text(path)?;
        let mut cfg =
            Self::from_toml_str_seeded(&text, &path.display().to_string(), path.parent(), seed)?;
        let named = toml::from_str::<toml::Table>(&text).is_ok_and(|t| t.contains_key("name"));
        if !named {
            if let Some(stem) = path.file_stem() {
                cfg.name = stem.to_string_lossy().into_owned();
            }
        }
        Ok(cfg)
    }

    /// Checks every section.
    pub fn validate(&self) -> Result<(), String> {
        if self.name.chars().any(char::is_control) {
            return Err(format!(
                "name: expected a name without control characters (it is printed and drawn), found {:?}",
                self.name
            ));
        }
        self.workload.validate().map_err(|e| e.to_string())?;
        self.system.validate()?;
        if let Some(st) = &self.staging {
            st.validate().map_err(|e| e.to_string())?;
        }
        if let Some(b) = &self.belief {
            b.validate()?;
        }
        for (i, d) in self.drift.iter().enumerate() {
            d.validate(i, usize::MAX, usize::MAX)?;
        }
        let (h, _) = self.resolved()?;
        let mapper = heuristics::build(&h, self.system.drop_model).map_err(|e| e.to_string())?;
        if let Some(r) = &self.rollout {
            if mapper.is_immediate() {
                return Err(format!(
                    "rollout: {} maps immediately into unbounded queues; a rollout switches between batch heuristics",
                    self.mapper.name
                ));
            }
            if self.staging.is_some() || self.system.early_mapping {
                return Err("rollout: not with input-data staging or early mapping events (its futures have neither)".into());
            }
            r.validate(self.system.drop_model)?;
        }
        if mapper.is_immediate() {
            if let Some(QueueSize::Limit(l)) = self.system.queue_size {
                return Err(format!(
                    "system.queue_size = {l} does not apply to {}: immediate-mode heuristics map into unbounded queues (remove it, or write \"unbounded\")",
                    self.mapper.name
                ));
            }
        }
        Ok(())
    }

    /// The base heuristic and the effective pruner after resolving variant names
    /// ([`crate::variants::resolve`]), or why they do not fit together.
    pub fn resolved(&self) -> Result<(HeuristicConfig, PrunerConfig), String> {
        resolve(&self.mapper, self.pruner.as_ref()).map_err(|e| e.to_string())
    }
}

fn rebase(pet: &PetSource, base: &Path) -> PetSource {
    let fix = |p: &PathBuf| {
        if p.is_relative() {
            base.join(p)
        } else {
            p.clone()
        }
    };
    match pet {
        PetSource::Etc(p) => PetSource::Etc(fix(p)),
        PetSource::Samples {
            path,
            bin_width,
            bin_value,
        } => PetSource::Samples {
            path: fix(path),
            bin_width: *bin_width,
            bin_value: *bin_value,
        },
        other => other.clone(),
    }
}

/// The line (from 1) of the `[workload]` table header, when the table is written as one.
fn workload_header_line(text: &str) -> Option<usize> {
    text.lines()
        .position(|l| {
            let l = l.split('#').next().unwrap_or("").trim();
            l.strip_prefix('[')
                .and_then(|l| l.strip_suffix(']'))
                .is_some_and(|name| name.trim() == "workload")
        })
        .map(|i| i + 1)
}

/// Parses `text` with `seed = <seed>` written under the `[workload]` header on line
/// `header`; an error's line is the file's own (the inserted line does not count). An
/// inline or dotted `workload` table gets the seed through the parsed table instead (errors
/// without a line).
fn with_seed(
    text: &str,
    header: Option<usize>,
    seed: u64,
) -> Result<ExperimentConfig, (Option<usize>, String)> {
    // A placeholder (a TOML integer holds no seed beyond 2^63 - 1), replaced once parsed.
    let mut cfg: ExperimentConfig = match header {
        Some(h) => {
            let mut seeded = String::with_capacity(text.len() + 10);
            for (i, line) in text.split_inclusive('\n').enumerate() {
                seeded.push_str(line);
                if i + 1 == h {
                    if !line.ends_with('\n') {
                        seeded.push('\n');
                    }
                    seeded.push_str("seed = 0\n");
                }
            }
            toml::from_str(&seeded).map_err(|e: toml::de::Error| {
                let line = workload::toml_line::error_line(&seeded, &e);
                (
                    line.map(|l| if l > h { l - 1 } else { l }),
                    e.message().to_string(),
                )
            })?
        }
        None => {
            let mut table: toml::Table = toml::from_str(text)
                .map_err(|e: toml::de::Error| (None, e.message().to_string()))?;
            if let Some(toml::Value::Table(w)) = table.get_mut("workload") {
                w.insert("seed".into(), toml::Value::Integer(0));
            }
            table
                .try_into()
                .map_err(|e: toml::de::Error| (None, e.message().to_string()))?
        }
    };
    cfg.workload.seed = seed;
    Ok(cfg)
}

/// Where the trials come from.
#[derive(Debug, Clone)]
pub enum TrialSource {
    /// Generated from the workload configuration: trial `k` from streams `(seed, k, ·)`.
    Generated,
    /// Given trials (e.g. read from `.dat` files); trial `k` is `trials[k]`.
    Given(Vec<Trial>),
}

/// How a run is prepared and checked before its machines are drawn ([`Prepared::checked`]).
#[derive(Debug, Clone, Copy)]
pub struct Preparation {
    /// The trials to run (`None`: the experiment's `workload.trials`, or every given trial).
    pub trials: Option<u64>,
    /// Worker threads the run will use (0 = all cores).
    pub jobs: usize,
    /// Whether the clairvoyant bracket is computed.
    pub with_bound: bool,
    /// Whether the run's HTML report is drawn (its traces kept in memory).
    pub report: bool,
    /// The memory the run may need, in bytes ([`crate::resources::default_budget`]: half of
    /// this machine's).
    pub budget: u64,
    /// The given trials before they are read (`None`: generated trials).
    pub given: Option<GivenTrials>,
}

/// The run [`Prepared::checked`] estimates, on `source_pet`.
fn run_shape<'a>(
    config: &'a ExperimentConfig,
    prep: &Preparation,
    source_pet: &'a Pet,
) -> crate::resources::RunShape<'a> {
    crate::resources::RunShape {
        config,
        source_pet,
        tasks: prep.given.map(|g| g.most_tasks),
        trials: prep
            .trials
            .unwrap_or(prep.given.map_or(config.workload.trials, |g| g.trials)),
        threads: crate::resources::worker_threads(prep.jobs).0,
        with_bound: prep.with_bound,
        report: prep.report,
    }
}

/// Given trials as the memory check sees them before they are read.
#[derive(Debug, Clone, Copy)]
pub struct GivenTrials {
    /// How many there are.
    pub trials: u64,
    /// The most tasks one of them may hold (from the size of its file).
    pub most_tasks: u64,
}

/// Policies of your own to run instead of the configured ones ([`crate::RunOptions::policies`]):
/// each is built afresh for every trial (a policy keeps state within a trial).
///
/// A batch heuristic of your own ("the earliest deadline first, each to the machine where its
/// chance is highest") run beside the built-in PAM on the same trials:
///
/// ```
/// use model::{BatchHeuristic, Decision, View, VirtualQueues};
/// use runner::{ExperimentConfig, Policies, Prepared, RunOptions, TrialSource};
///
/// struct EarliestDeadline;
/// impl BatchHeuristic for EarliestDeadline {
///     fn name(&self) -> &str { "EDF-MSP" }
///     fn map(&mut self, view: &View<'_>) -> Decision {
///         let mut decision = Decision::default();
///         let mut queues = VirtualQueues::from_view(view);
///         let mut batch = view.batch().to_vec();
///         batch.sort_by_key(|&t| (view.task(t).deadline, t));
///         for t in batch {
///             let chance = |m| queues.success(view, m, t);
///             let best = (0..view.machines().len()).filter(|&m| queues.free(m) > 0)
///                 .reduce(|a, b| if chance(b) > chance(a) { b } else { a });
///             if let Some(m) = best {
///                 queues.assign(view, m, t);
///                 decision.assign.push((t, m));
///             }
///         }
///         decision
///     }
/// }
///
/// let mut config = ExperimentConfig::paper_default();
/// config.workload.tasks = 300; // the first and last 100 are not counted (warm-up, drain)
/// let prepared = Prepared::new(config, None, TrialSource::Generated, Some(2), None)?;
/// let mine = || heuristics::Mapper::Batch(Box::new(EarliestDeadline));
/// let policies = Policies { heuristic: Some(&mine), pruner: None };
/// let ours = prepared.run(RunOptions::default().jobs(1).policies(policies).keep_records())?;
/// let pam = prepared.run(RunOptions::default().jobs(1))?;
/// assert_eq!(ours.len(), 2);
/// for (mine, pam) in ours.iter().zip(&pam) {
///     // every task's outcome, machine, start and end
///     assert_eq!(mine.record.as_ref().unwrap().tasks.len(), 300);
///     println!("EDF-MSP {:.1}%, PAM {:.1}%", mine.metrics.robustness, pam.metrics.robustness);
/// }
/// # Ok::<(), runner::RunError>(())
/// ```
#[derive(Clone, Copy, Default)]
pub struct Policies<'a> {
    /// Builds the mapping heuristic (e.g. `Mapper::Batch(Box::new(MyHeuristic::new()))`).
    pub heuristic: Option<&'a (dyn Fn() -> heuristics::Mapper + Sync)>,
    /// Builds the pruner for the given number of task types.
    pub pruner: Option<&'a (dyn Fn(usize) -> Box<dyn model::Pruner> + Sync)>,
}

impl std::fmt::Debug for Policies<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Policies")
            .field("heuristic", &self.heuristic.map(|_| "custom"))
            .field("pruner", &self.pruner.map(|_| "custom"))
            .finish()
    }
}

/// Everything needed to run the trials of an experiment.
#[derive(Debug, Clone)]
pub struct Prepared {
    /// The experiment, with the seed override applied.
    pub config: ExperimentConfig,
    /// The base heuristic that runs, after resolving variant names.
    pub heuristic: HeuristicConfig,
    /// The pruner that runs, after resolving the `[pruner]` table and variant names.
    pub pruner: PrunerConfig,
    /// The PET in use.
    pub pet: Pet,
    /// The trials' source.
    pub source: TrialSource,
    /// The arrivals of generated trials on the PET's tick grid, their rate resolved
    /// ([`workload::WorkloadConfig::arrival_spec`]); `None` with trials given.
    pub arrivals: Option<workload::ArrivalSpec>,
    /// Number of trials to run.
    pub trials: u64,
    /// Master seed (`workload.seed`).
    pub seed: u64,
    /// Also compute the clairvoyant bracket of every trial: the best feasible schedule found
    /// knowing the execution times (a lower bound on the optimum) and an upper bound.
    pub with_bound: bool,
}

impl Prepared {
    /// Whether the heuristic that runs maps in immediate mode (each task as it arrives, into
    /// unbounded queues) rather than in batches.
    pub fn heuristic_is_immediate(&self) -> bool {
        heuristics::is_immediate(&self.heuristic.name).unwrap_or(false)
    }

    /// Fixes the trial count and the seed (overrides from the command line), resolves the
    /// heuristic and the pruner, and builds the PET unless one is given. A `seed` override
    /// means exactly what `workload.seed` in the file means: it seeds the trials and, unless
    /// `workload.pet_seed` is set, the generated PET and the machines drawn.
    ///
    /// Zero work is an error: no trial, no workload file, or a trial whose tasks are all
    /// left out of the measures by `skip_first` and `skip_last`.
    pub fn new(
        mut config: ExperimentConfig,
        pet: Option<Pet>,
        source: TrialSource,
        trials: Option<u64>,
        seed: Option<u64>,
    ) -> Result<Self, RunError> {
        if let Some(s) = seed {
            config.workload.seed = s;
        }
        let (heuristic, pruner) = config.resolved().map_err(RunError::Input)?;
        let pet = match pet {
            Some(p) => p,
            None => config.workload.pet().map_err(RunError::Workload)?,
        };
        let trials = match (&source, trials) {
            (_, Some(t)) => t,
            (TrialSource::Given(v), None) => v.len() as u64,
            (TrialSource::Generated, None) => config.workload.trials,
        };
        if trials == 0 {
            return Err(RunError::Input(match &source {
                TrialSource::Given(v) if v.is_empty() => {
                    "no workload file given: nothing to run".into()
                }
                _ => "0 trials: nothing to run (set --trials or workload.trials to at least 1)"
                    .into(),
            }));
        }
        let skipped = config
            .system
            .skip_first
            .saturating_add(config.system.skip_last);
        let no_counted = |n: usize, what: String| {
            RunError::Input(format!(
                "{what} has {n} tasks, and system.skip_first + system.skip_last = {skipped} leaves none to count"
            ))
        };
        match &source {
            TrialSource::Given(v) => {
                if (v.len() as u64) < trials {
                    return Err(RunError::Input(format!(
                        "{trials} trials requested but only {} workload files given",
                        v.len()
                    )));
                }
                for (k, tr) in v.iter().enumerate() {
                    pet.check_tasks(&tr.tasks).map_err(RunError::Workload)?;
                    if skipped >= tr.tasks.len() {
                        return Err(no_counted(tr.tasks.len(), format!("workload file {k}")));
                    }
                }
            }
            TrialSource::Generated => {
                if skipped >= config.workload.tasks {
                    return Err(no_counted(
                        config.workload.tasks,
                        "each trial (workload.tasks)".into(),
                    ));
                }
            }
        }
        if pet.n_machines() == 0 {
            return Err(RunError::Input("the PET has no machine".into()));
        }
        for (i, d) in config.drift.iter().enumerate() {
            d.validate(i, pet.n_types(), pet.n_machines())
                .map_err(RunError::Input)?;
        }
        crate::belief::check_drift_span(&config.drift, &pet).map_err(RunError::Input)?;
        if let Some(b) = &config.belief {
            // A prior that cannot be built (a file, a scale out of the tick range) fails
            // here rather than in a trial.
            b.prior_pet(&pet, config.workload.seed, 0)
                .map_err(RunError::Input)?;
        }
        let arrivals = match source {
            TrialSource::Generated => Some(config.workload.arrival_spec(&pet)?),
            TrialSource::Given(_) => None,
        };
        if let Some(spec) = &arrivals {
            // The tasks expected over the horizon: too few to count any is an error, not a
            // table of zeros.
            let expected = spec.rate * spec.pattern.mean_factor();
            if expected < (skipped as f64) + 1.0 {
                return Err(RunError::Input(format!(
                    "about {expected:.3e} tasks arrive within the horizon ({} {}), and \
                     system.skip_first + system.skip_last = {skipped} leaves none to count: \
                     raise the rate (or the load) or the horizon",
                    config.workload.horizon,
                    config.workload.units_name()
                )));
            }
        }
        let seed = config.workload.seed;
        Ok(Prepared {
            config,
            heuristic,
            pruner,
            pet,
            source,
            arrivals,
            trials,
            seed,
            with_bound: false,
        })
    }

    /// [`Prepared::new`] as `prunesim run` and the Python package prepare a run: the run's
    /// memory estimated from `config`, its PET `source_pet` (as read or generated, before
    /// `workload.machines` picks its machines) and `prep`, and checked against
    /// `prep.budget` ([`crate::resources::check`]) before the machines are drawn and any
    /// given trial is read (`read_given`, called with the run's PET when `prep.given` says
    /// the trials are given); the clairvoyant bracket computed when `prep.with_bound`.
    pub fn checked(
        config: ExperimentConfig,
        source_pet: Pet,
        prep: &Preparation,
        read_given: impl FnOnce(&Pet) -> Result<Vec<Trial>, RunError>,
    ) -> Result<Self, RunError> {
        let footprint = crate::resources::estimate(&run_shape(&config, prep, &source_pet));
        tracing::info!(%footprint, estimate_bytes = footprint.total, "memory estimate");
        crate::resources::check(&footprint, prep.budget)?;
        let pet = config.workload.pet_from(source_pet)?;
        let source = match prep.given {
            Some(_) => {
                let trials = read_given(&pet)?;
                // Their tasks and deadlines known: checked again on them (the machines drawn,
                // the widest column of the PET counts for each).
                let footprint =
                    crate::resources::estimate_given(&run_shape(&config, prep, &pet), &trials);
                tracing::info!(%footprint, "memory estimate of the trials read");
                crate::resources::check(&footprint, prep.budget)?;
                TrialSource::Given(trials)
            }
            None => TrialSource::Generated,
        };
        let mut prepared = Prepared::new(config, Some(pet), source, prep.trials, None)?;
        prepared.with_bound = prep.with_bound;
        Ok(prepared)
    }

    /// [`Prepared::checked`] for an experiment of generated trials, its PET read or generated
    /// from `config`. What the Python package runs.
    pub fn generated(config: ExperimentConfig, prep: &Preparation) -> Result<Self, RunError> {
        let source_pet = config.workload.source_pet()?;
        Self::checked(config, source_pet, prep, |_| Ok(Vec::new()))
    }

    /// The tasks of trial `k` on the tick grid.
    pub fn trial_tasks(&self, k: u64) -> Vec<TaskSpec> {
        let trial = match (&self.source, &self.arrivals) {
            (TrialSource::Given(v), _) => v[k as usize].clone(),
            (TrialSource::Generated, Some(spec)) => {
                workload::generate_trial(&self.pet, spec, self.seed, k)
            }
            (TrialSource::Generated, None) => workload::Trial::default(),
        };
        trial
            .tasks
            .iter()
            .enumerate()
            .map(|(i, t)| TaskSpec::from_real(i, t))
            .collect()
    }

    /// The number of tasks of each trial (all of them, counted or not), in trial order: with
    /// generated trials `workload.tasks`, or fewer when the horizon ends first.
    pub fn tasks_per_trial(&self) -> Vec<usize> {
        (0..self.trials)
            .map(|k| match (&self.source, &self.arrivals) {
                (TrialSource::Given(v), _) => v[k as usize].tasks.len(),
                (TrialSource::Generated, Some(spec)) => {
                    workload::generate_trial(&self.pet, spec, self.seed, k).len()
                }
                (TrialSource::Generated, None) => 0,
            })
            .collect()
    }

    /// Each task's uniform draw for its actual execution time (common random numbers): stream
    /// `(seed, k, Execution)`, one draw per task in arrival order.
    pub fn trial_luck(&self, k: u64, n: usize) -> Vec<f64> {
        let mut rng = stream(self.seed, k, Purpose::Execution);
        (0..n).map(|_| rng.random::<f64>()).collect()
    }

    /// The staging draws of trial `k` (`None` without a `[staging]` table): streams
    /// `(seed, k, Staging)`.
    pub fn trial_staging(&self, k: u64, n: usize) -> Result<Option<Staging>, RunError> {
        self.config
            .staging
            .as_ref()
            .map(|st| {
                st.draw(self.seed, k, n, self.pet.n_machines())
                    .map_err(RunError::Workload)
            })
            .transpose()
    }

    /// Runs trial `k`, recording its trace into `sink` when given, with `policies` (the
    /// configured heuristic and pruner where a policy is not given): the one trial loop
    /// every run goes through ([`crate::run`]).
    ///
    /// One function because it assembles one trial's inputs in the order the engine takes them
    /// (tasks, luck, staging, policies, drift, belief), runs it, then adds its measures and the
    /// bracket; each step reads the ones before.
    pub(crate) fn run_trial_with<S: TraceSink + 'static>(
        &self,
        k: u64,
        sink: Option<S>,
        policies: Policies<'_>,
        done: &dyn Fn(u64),
    ) -> Result<(TrialRecord, TrialMetrics, Option<S>), RunError> {
        let tasks = self.trial_tasks(k);
        let counted = self.config.system.counting().range(tasks.len());
        let mut tracer = sink.map(|s| Tracer::new(s, tasks.len(), counted));
        let luck = self.trial_luck(k, tasks.len());
        let staging = self.trial_staging(k, tasks.len())?;
        let mut mapper = match policies.heuristic {
            Some(make) => make(),
            None => heuristics::build(&self.heuristic, self.config.system.drop_model)
                .map_err(|e| RunError::Input(e.to_string()))?,
        };
        let mut pruner: Box<dyn model::Pruner> = match policies.pruner {
            Some(make) => make(self.pet.n_types()),
            None => pruner::registry::build(&self.pruner, self.pet.n_types())
                .map_err(|e| RunError::Input(e.to_string()))?,
        };
        tracing::debug!(
            trial = k,
            pruner = pruner.name(),
            heuristic = mapper.name(),
            "trial"
        );
        let arrivals: Vec<pmf::Tick> = tasks.iter().map(|t| t.arrival).collect();
        let drift =
            drift_schedule(&self.config.drift, &self.pet, &arrivals).map_err(RunError::Input)?;
        let prior = match &self.config.belief {
            Some(b) => b
                .prior_pet(&self.pet, self.seed, k)
                .map_err(RunError::Input)?,
            None => None,
        };
        let belief = match (&self.config.belief, &prior) {
            (Some(b), Some(prior)) if b.source == BeliefSource::Learned => {
                let mut estimator = system::estimator_from_prior(prior, b.options())
                    .map_err(|e| RunError::Input(format!("belief: {e}")))?;
                if matches!(b.prior, Some(PriorKind::None | PriorKind::Flat)) {
                    // No times (or none that tell machines apart), but the machine types,
                    // as a user names the kinds of their machines.
                    let kinds: Vec<usize> = (0..self.pet.n_machines())
                        .map(|m| self.pet.canonical(m))
                        .collect();
                    estimator = estimator
                        .with_machine_types(&kinds)
                        .map_err(|e| RunError::Input(format!("belief: {e}")))?;
                }
                Belief::Learned {
                    prior,
                    estimator: Box::new(estimator),
                }
            }
            (_, Some(prior)) => Belief::Fixed(prior),
            (_, None) => Belief::Oracle,
        };
        let mut rollout = match &self.config.rollout {
            Some(r) => {
                if policies.heuristic.is_some() {
                    return Err(RunError::Input(
                        "rollout: a heuristic of one's own (Policies) cannot be simulated in the futures, which build the configured heuristic; run it without [rollout], or list it there by name".into(),
                    ));
                }
                if pruner.fork().is_none() {
                    return Err(RunError::Input(
                        "rollout: the pruner given cannot be copied (model::Pruner::fork), so no future can be simulated".into(),
                    ));
                }
                let rng = stream(self.seed, k, Purpose::Other(ROLLOUT_STREAM));
                Some(
                    Rollout::new(r, &self.heuristic, self.config.system.drop_model, rng)
                        .map_err(RunError::Input)?,
                )
            }
            None => None,
        };
        let record = simulate_inner(
            &self.pet,
            &tasks,
            &luck,
            EngineConfig {
                queue_size: self.config.system.queue_size_for(mapper.is_immediate()),
                drop_model: self.config.system.drop_model,
                pct_epsilon: self.config.system.pct_epsilon,
            },
            JpdcOptions {
                staging: staging.as_ref(),
                early_mapping: self.config.system.early_mapping,
                heuristic_time: self.config.system.heuristic_time,
            },
            Knowledge {
                belief,
                drift: &drift,
            },
            &mut mapper,
            pruner.as_mut(),
            tracer.as_mut().map(|t| t as &mut Tracer<dyn TraceSink>),
            None,
            rollout.as_mut(),
            done,
        );
        if let Some(r) = &rollout {
            tracing::debug!(trial = k, chosen = ?r.chosen(), "rollout");
        }
        let sink = tracer
            .map(Tracer::finish)
            .transpose()
            .map_err(|e| RunError::Io {
                path: std::path::PathBuf::from(format!("the trace of trial {k}")),
                message: e.to_string(),
            })?;
        let types: Vec<usize> = tasks.iter().map(|t| t.task_type).collect();
        let prices = self.config.system.prices_for(self.pet.n_machines());
        let mut metrics = TrialMetrics::new(
            &record,
            &types,
            self.pet.n_types(),
            self.config.system.counting(),
            &Pricing {
                per_hour: &prices,
                hour: self.config.system.hour,
            },
        );
        if self.config.system.windows > 0 {
            metrics.windows = crate::metrics::window_robustness(
                &record,
                0..tasks.len(),
                self.config.system.windows,
            );
        }
        if self.with_bound {
            let counted = self.config.system.counting().range(tasks.len());
            // Under a drift a task's time depends on when it starts: the bracket holds the
            // optimum between the fastest and the slowest truth each task may meet.
            let b = bound::bracket_trial_drifting(
                &self.pet,
                &drift,
                &tasks,
                &luck,
                counted.clone(),
                &bound::BracketOptions::default(),
            )
            .map_err(|e| RunError::Input(format!("clairvoyant bracket of trial {k}: {e}")))?;
            metrics.upper_on_time = Some(b.upper_on_time);
            metrics.lower_on_time = Some(b.lower_on_time);
            // The ceiling reads one PET's means: not computed when the truth drifts.
            if drift.is_empty() {
                let c =
                    bound::capacity_on_means_trial(&self.pet, &tasks, counted).map_err(|e| {
                        RunError::Input(format!("capacity on mean times of trial {k}: {e}"))
                    })?;
                metrics.ceiling = Some(c.share);
            }
        }
        Ok((record, metrics, sink))
    }
}
