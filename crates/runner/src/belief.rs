//! Truth and belief: the `[belief]` table (the PET the mapper, the pruner and the oracle
//! read) and the `[[drift]]` entries (changes of the truth, the PET that draws the actual
//! execution times, during a trial).
//!
//! ```toml
//! [belief]
//! source = "learned"        # "oracle" (default: the truth itself, following its drift),
//!                           # "fixed" (the `prior` PET throughout) or "learned" (online,
//!                           # from the `prior`, see the learn crate)
//! prior = "flat"            # the PET of "fixed", the starting point of "learned":
//!                           # "truth" (default), "samples" (a histogram of `samples` draws
//!                           # per cell from the truth, `bin_width` ticks wide, default 1),
//!                           # "scaled" (the truth's times times `scale`), "flat" (uniform
//!                           # on 1 ..= the truth's longest time, every cell), "etc" (the
//!                           # `.etc` file `path`), "permuted" (each machine believed to run
//!                           # as the next machine type: a wrong prior, below), "none"
//!                           # (learned only: no times at all, below)
//! samples = 10
//! bin_width = 1
//! scale = 0.5
//! path = "belief.etc"
//! # learned only (learn::Options):
//! censoring = "kaplan_meier" # or "ignore": the naive estimator, completions only
//! tail = "prior"            # the censored tail on the prior beyond the last observation
//!                           # (geometric beyond the prior), or "at_last" (on it)
//! prior_weight = 10         # the prior weighs as this many observations
//! window = 200              # only the last 200 observations of each cell (forgetting)
//! cadence = 1               # rebuild a cell's PMF after every k-th observation
//! cadence_share = 0.1       # and once the new ones are 10% of those the cell holds
//! machine_scale = true      # one time-scale factor per machine, shared by its cells
//! scale_by_evidence = true  # without it: the factor only while the observations say the
//!                           # machine is slower than its prior (the default)
//! machine_window = 50       # the factor from the machine's last 50 observations
//! explore = 10              # an idle machine tries waiting tasks of its cells with fewer
//!                           # than 10 observations (the default; 0: never)
//! optimism = false          # explored cells are also read optimistically
//! pool_copies = true        # machines with equal priors (copies) learn as one
//! pool_by_evidence = true   # a prior equal on every machine: copies found from the
//!                           # observations (a two-sample test per task type)
//! prior_check = true        # a cell whose observations reject its prior learns from
//!                           # them alone (default false)
//! prior_guard = true        # a machine whose observations contradict its prior in most
//!                           # of its cells drops it: learned as from "none" (the default)
//!
//! [[drift]]                 # from `at` (time units) or the arrival of task `at_task`,
//! at_task = 2500            # the truth of `machine` (or of `task_type`, or both) has its
//! machine = 3               # times multiplied by `scale` and shifted by `shift` ticks
//! scale = 2.0
//! ```
//!
//! `"permuted"` is a wrong prior of the right shape: the machine types (machines that are
//! copies of each other, [`workload::Pet::canonical`]) in the order of their first machine,
//! each machine's column is the truth's column of the next type, the last type taking the
//! first's. Copies move as a block, so the prior is never the truth; a PET whose machines are
//! all copies of one type has nothing to permute, and is an error.
//!
//! `"none"` is no prior at all, for a learned belief only: every cell a point mass on one tick
//! (a cell not yet observed is read as the fastest possible, so a policy tries it) weighing
//! nothing unless `prior_weight` is given (its observations alone from the first one), and
//! the machine types (the truth's copies, [`workload::Pet::canonical`]) told to the
//! estimator ([`learn::Estimator::with_machine_types`]): a user who knows no time still
//! knows which of their machines are of one kind.
//!
//! A key that does not apply to the source or prior chosen is an error naming it. The
//! `samples` prior of trial `k` draws from stream `(seed, k, Belief)`: a belief from a few
//! samples differs from trial to trial, like the history an operator would have.

use std::path::{Path, PathBuf};

use pmf::{BinValue, Pmf, Tick};
use rand::Rng;
use serde::{Deserialize, Serialize};
use workload::Pet;
use workload::rng::{Purpose, stream};

/// A message naming the key at fault (the runner's configuration errors are messages).
struct Message(String);

impl From<workload::WorkloadError> for Message {
    fn from(e: workload::WorkloadError) -> Self {
        Message(format!("belief: {e}"))
    }
}

/// Where the belief comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum BeliefSource {
    /// The truth itself.
    #[default]
    Oracle,
    /// The `prior` PET throughout.
    Fixed,
    /// Learned online from the `prior`.
    Learned,
}

/// The PET of a fixed belief, or the prior of a learned one.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum PriorKind {
    /// The truth (at the trial's start).
    #[default]
    Truth,
    /// A histogram of `samples` draws per cell from the truth.
    Samples,
    /// The truth's times multiplied by `scale`.
    Scaled,
    /// Uniform on `1 ..=` the truth's longest execution time, in every cell.
    Flat,
    /// An `.etc` file.
    Etc,
    /// The truth with each machine's column that of the next machine type (module docs).
    Permuted,
    /// No times at all (module docs).
    None,
}

/// The `[belief]` table (module docs).
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BeliefConfig {
    /// Oracle, fixed or learned.
    #[serde(default)]
    pub source: BeliefSource,
    /// The fixed PET or the learned prior (default `truth`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub prior: Option<PriorKind>,
    /// Draws per cell of the `samples` prior.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub samples: Option<usize>,
    /// The `samples` prior's histogram bin width in ticks (default 1).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bin_width: Option<Tick>,
    /// The `scaled` prior's factor.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub scale: Option<f64>,
    /// The `etc` prior's file.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub path: Option<PathBuf>,
    /// Learned: Kaplan-Meier or ignoring censoring.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub censoring: Option<learn::Censoring>,
    /// Learned: the censored tail's model.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tail: Option<learn::Tail>,
    /// Learned: the prior's pseudo-count.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub prior_weight: Option<f64>,
    /// Learned: the sliding window per cell.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub window: Option<usize>,
    /// Learned: the update cadence.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cadence: Option<usize>,
    /// Learned: rebuild a cell only once the observations since its last rebuild reach this
    /// share of those it holds.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cadence_share: Option<f64>,
    /// Learned: one time-scale factor per machine, shared by its cells.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub machine_scale: Option<bool>,
    /// Learned: the machine factor applied only while the observations say the machine is
    /// slower than its prior.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub scale_by_evidence: Option<bool>,
    /// Learned, with the machine factor: its window (observations per machine).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub machine_window: Option<usize>,
    /// Learned: a cell with fewer observations than this is explored (an idle machine
    /// tries its waiting tasks).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub explore: Option<usize>,
    /// Learned: an explored cell is also read optimistically.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub optimism: Option<bool>,
    /// Learned: machines whose priors are equal in every task type learn as one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pool_copies: Option<bool>,
    /// Learned: with a prior equal on every machine, machines whose observations are one
    /// distribution learn as one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pool_by_evidence: Option<bool>,
    /// Learned: a cell whose observations reject its prior learns from them alone.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub prior_check: Option<bool>,
    /// Learned: a machine whose observations contradict its prior in most of its cells
    /// drops it (learned as from no prior).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub prior_guard: Option<bool>,
}

impl BeliefConfig {
    /// The estimator's options (defaults where not given).
    pub fn options(&self) -> learn::Options {
        let d = learn::Options::default();
        learn::Options {
            censoring: self.censoring.unwrap_or(d.censoring),
            tail: self.tail.unwrap_or(d.tail),
            prior_weight: self
                .prior_weight
                .unwrap_or(if self.prior == Some(PriorKind::None) {
                    0.0
                } else {
                    d.prior_weight
                }),
            window: self.window.or(d.window),
            cadence: self.cadence.unwrap_or(d.cadence),
            cadence_share: self.cadence_share.unwrap_or(d.cadence_share),
            machine_scale: self.machine_scale.unwrap_or(d.machine_scale),
            scale_by_evidence: self.scale_by_evidence.unwrap_or(d.scale_by_evidence),
            machine_window: self.machine_window.unwrap_or(d.machine_window),
            explore: self.explore.unwrap_or(d.explore),
            optimism: self.optimism.unwrap_or(d.optimism),
            pool_copies: self.pool_copies.unwrap_or(d.pool_copies),
            pool_by_evidence: self.pool_by_evidence.unwrap_or(d.pool_by_evidence),
            prior_check: self.prior_check.unwrap_or(d.prior_check),
            prior_guard: self.prior_guard.unwrap_or(d.prior_guard),
        }
    }

    /// Checks that every key given applies and is in range; the message names the key.
    pub fn validate(&self) -> Result<(), String> {
        let prior = self.prior.unwrap_or_default();
        let set = |name: &'static str, is: bool| is.then_some(name);
        if self.source == BeliefSource::Oracle {
            let given = [
                set("prior", self.prior.is_some()),
                set("samples", self.samples.is_some()),
                set("bin_width", self.bin_width.is_some()),
                set("scale", self.scale.is_some()),
                set("path", self.path.is_some()),
            ];
            if let Some(k) = given.into_iter().flatten().next() {
                return Err(format!(
                    "belief.{k} does not apply to source = \"oracle\" (the truth itself): use source = \"fixed\" or \"learned\""
                ));
            }
        }
        self.check_learned_only()?;
        let only = |k: &str, what: &str, is: bool, applies: bool| {
            if is && !applies {
                Err(format!("belief.{k} applies only to prior = \"{what}\""))
            } else {
                Ok(())
            }
        };
        only(
            "samples",
            "samples",
            self.samples.is_some(),
            prior == PriorKind::Samples,
        )?;
        only(
            "bin_width",
            "samples",
            self.bin_width.is_some(),
            prior == PriorKind::Samples,
        )?;
        only(
            "scale",
            "scaled",
            self.scale.is_some(),
            prior == PriorKind::Scaled,
        )?;
        only("path", "etc", self.path.is_some(), prior == PriorKind::Etc)?;
        if self.machine_window.is_some()
            && self.machine_scale != Some(true)
            && self.scale_by_evidence == Some(false)
        {
            return Err(
                "belief.machine_window applies only to the machine factor (machine_scale = true, or scale_by_evidence, on by default)"
                    .into(),
            );
        }
        match prior {
            PriorKind::Samples => match self.samples {
                Some(n) if (1..=MAX_PRIOR_SAMPLES).contains(&n) => {}
                Some(n) => {
                    return Err(format!(
                        "belief.samples: expected 1 to {MAX_PRIOR_SAMPLES} draws per cell, found {n}"
                    ));
                }
                None => {
                    return Err(
                        "belief.samples: prior = \"samples\" needs a number of draws per cell"
                            .into(),
                    );
                }
            },
            PriorKind::Scaled => match self.scale {
                Some(s) if s.is_finite() && s > 0.0 => {}
                Some(s) => return Err(format!("belief.scale: expected a number > 0, found {s}")),
                None => return Err("belief.scale: prior = \"scaled\" needs a factor".into()),
            },
            PriorKind::Etc if self.path.is_none() => {
                return Err("belief.path: prior = \"etc\" needs an .etc file".into());
            }
            _ => {}
        }
        if let Some(w) = self.bin_width {
            if w < 1 {
                return Err(format!(
                    "belief.bin_width: expected at least 1 tick, found {w}"
                ));
            }
        }
        if self.source == BeliefSource::Learned {
            self.options().validate().map_err(|e| match e {
                learn::LearnError::InvalidOption { field, reason } => {
                    format!("belief.{field}: {reason}")
                }
                other => other.to_string(),
            })?;
        }
        Ok(())
    }

    /// Checks that the keys of a learned belief (and the prior `none`) are given only with
    /// `source = "learned"`, and the prior guard only without the machine factor.
    fn check_learned_only(&self) -> Result<(), String> {
        let set = |name: &'static str, is: bool| is.then_some(name);
        if self.source != BeliefSource::Learned {
            let given = [
                set("censoring", self.censoring.is_some()),
                set("tail", self.tail.is_some()),
                set("prior_weight", self.prior_weight.is_some()),
                set("window", self.window.is_some()),
                set("cadence", self.cadence.is_some()),
                set("cadence_share", self.cadence_share.is_some()),
                set("machine_scale", self.machine_scale.is_some()),
                set("scale_by_evidence", self.scale_by_evidence.is_some()),
                set("machine_window", self.machine_window.is_some()),
                set("explore", self.explore.is_some()),
                set("optimism", self.optimism.is_some()),
                set("pool_copies", self.pool_copies.is_some()),
                set("pool_by_evidence", self.pool_by_evidence.is_some()),
                set("prior_check", self.prior_check.is_some()),
                set("prior_guard", self.prior_guard.is_some()),
            ];
            if let Some(k) = given.into_iter().flatten().next() {
                return Err(format!("belief.{k} applies only to source = \"learned\""));
            }
        }
        if self.prior == Some(PriorKind::None) && self.source != BeliefSource::Learned {
            return Err(
                "belief.prior = \"none\" applies only to source = \"learned\" (a fixed belief needs times)"
                    .into(),
            );
        }
        if self.prior_guard == Some(true) && self.machine_scale == Some(true) {
            return Err(
                "belief.prior_guard applies only without machine_scale (the factor rescales what the guard would test)"
                    .into(),
            );
        }
        Ok(())
    }

    /// Relative paths resolved against `base` (the experiment file's folder).
    pub fn rebase(&mut self, base: &Path) {
        if let Some(p) = &self.path {
            if p.is_relative() {
                self.path = Some(base.join(p));
            }
        }
    }

    /// The prior PET of trial `k` against the truth `truth` (`None` for an oracle belief).
    pub fn prior_pet(&self, truth: &Pet, seed: u64, k: u64) -> Result<Option<Pet>, String> {
        if self.source == BeliefSource::Oracle {
            return Ok(None);
        }
        let pet = match self.prior.unwrap_or_default() {
            PriorKind::Truth => truth.clone(),
            PriorKind::Samples => {
                let n = self.samples.unwrap_or(1);
                let width = self.bin_width.unwrap_or(1);
                let mut rng = stream(seed, k, Purpose::Belief);
                truth
                    .map_pmfs(|t, m, p| {
                        let draws: Vec<f64> = (0..n)
                            .map(|_| p.quantile(rng.random::<f64>()).unwrap_or(p.max()) as f64)
                            .collect();
                        pmf::from_samples(&draws, width, BinValue::Upper).map_err(|e| {
                            Message(format!("belief.samples: task type {t}, machine {m}: {e}"))
                        })
                    })
                    .map_err(|m| m.0)?
            }
            PriorKind::Scaled => {
                let s = self.scale.unwrap_or(1.0);
                truth
                    .map_pmfs(|t, m, p| {
                        pmf::transform::scale_time(p, s).map_err(|e| {
                            Message(format!("belief.scale: task type {t}, machine {m}: {e}"))
                        })
                    })
                    .map_err(|m| m.0)?
            }
            PriorKind::Flat => {
                let max = truth
                    .pmfs()
                    .iter()
                    .map(|p| p.max())
                    .max()
                    .unwrap_or(1)
                    .max(1);
                let cells = (truth.n_types() * truth.n_machines()) as u64;
                if (max as u64).saturating_mul(cells) > MAX_DERIVED_TICKS {
                    return Err(format!(
                        "belief.prior = \"flat\": {cells} cells of {max} ticks (the PET's longest \
                         time) exceed {MAX_DERIVED_TICKS} ticks together (PMFs are stored densely)"
                    ));
                }
                let flat = Pmf::from_weights(1, vec![1.0; max as usize])
                    .map_err(|e| format!("belief.prior = \"flat\": {e}"))?;
                truth
                    .map_pmfs(|_, _, _| Ok::<_, Message>(flat.clone()))
                    .map_err(|m| m.0)?
            }
            PriorKind::None => {
                let point = Pmf::point(1);
                truth
                    .map_pmfs(|_, _, _| Ok::<_, Message>(point.clone()))
                    .map_err(|m| m.0)?
            }
            PriorKind::Permuted => {
                let next = next_machine_type(truth).ok_or_else(|| {
                    "belief.prior = \"permuted\": every machine is a copy of one machine type, \
                     so a permutation would change nothing"
                        .to_string()
                })?;
                truth
                    .map_pmfs(|t, m, _| Ok::<_, Message>(truth.pmf(t, next[m]).clone()))
                    .map_err(|m| m.0)?
            }
            PriorKind::Etc => {
                let path = self.path.clone().unwrap_or_default();
                let (pet, _) =
                    workload::io::read_etc(&path).map_err(|e| format!("belief.path: {e}"))?;
                if (pet.n_types(), pet.n_machines()) != (truth.n_types(), truth.n_machines()) {
                    return Err(format!(
                        "belief.path: {} is {} x {}, the truth {} x {}",
                        path.display(),
                        pet.n_types(),
                        pet.n_machines(),
                        truth.n_types(),
                        truth.n_machines()
                    ));
                }
                pet
            }
        };
        Ok(Some(pet))
    }
}

/// Per machine, a machine of the next machine type (`"permuted"`, module docs): the machine
/// types (classes of copies, [`Pet::canonical`]) in the order of their first machine, the
/// last followed by the first. `None` when every machine is a copy of one type.
fn next_machine_type(truth: &Pet) -> Option<Vec<usize>> {
    let machines = truth.n_machines();
    let mut kinds: Vec<usize> = Vec::new();
    let mut kind_of = Vec::with_capacity(machines);
    for m in 0..machines {
        let c = truth.canonical(m);
        let k = match kinds.iter().position(|&x| x == c) {
            Some(k) => k,
            None => {
                kinds.push(c);
                kinds.len() - 1
            }
        };
        kind_of.push(k);
    }
    (kinds.len() >= 2).then(|| {
        kind_of
            .iter()
            .map(|&k| kinds[(k + 1) % kinds.len()])
            .collect()
    })
}

/// The most draws per cell of a `samples` prior (each cell's draws are held at once, 8 bytes
/// each).
pub const MAX_PRIOR_SAMPLES: usize = 1_000_000;

/// The most ticks the PETs a run derives from its PET may span together, each PMF from its
/// first to its last tick (PMFs are stored densely, 8 bytes a tick): a `flat` prior (every
/// cell as wide as the PET's longest time), and the PETs of the drift schedule (one per
/// `[[drift]]` entry, the scales of the entries that apply to a cell multiplying its span).
/// The readers' limit on one PET ([`workload::io::MAX_PET_TICKS`], 2^26 ticks: 512 MiB).
pub const MAX_DERIVED_TICKS: u64 = workload::io::MAX_PET_TICKS;

/// Checks that the PETs of the drift schedule of `entries` on `truth` span together at most
/// [`MAX_DERIVED_TICKS`] ticks, before any is built.
pub fn check_drift_span(entries: &[DriftConfig], truth: &Pet) -> Result<(), String> {
    if entries.is_empty() {
        return Ok(());
    }
    let (types, machines) = (truth.n_types(), truth.n_machines());
    let mut spans: Vec<f64> = truth
        .pmfs()
        .iter()
        .map(|p| (p.max() - p.min()) as f64 + 1.0)
        .collect();
    let mut total = 0.0;
    for d in entries {
        let s = d.scale.unwrap_or(1.0);
        for t in 0..types {
            for m in 0..machines {
                let i = t * machines + m;
                if !(d.task_type.is_some_and(|x| x != t) || d.machine.is_some_and(|x| x != m)) {
                    // Scaling splits each impulse between two neighbouring ticks.
                    spans[i] = (spans[i] * s).ceil() + 1.0;
                }
            }
        }
        total += spans.iter().sum::<f64>();
        if total.is_nan() || total > MAX_DERIVED_TICKS as f64 {
            return Err(format!(
                "drift: the PETs of the drift schedule would span {total:.3e} ticks together \
                 by the end of {} entries (the scales of the entries that apply to a cell \
                 multiply); expected at most {MAX_DERIVED_TICKS} ticks (PMFs are stored densely)",
                entries.len()
            ));
        }
    }
    Ok(())
}

/// One `[[drift]]` entry (module docs).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DriftConfig {
    /// From this time (time units).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub at: Option<f64>,
    /// From the arrival of this task (by arrival order, from 0).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub at_task: Option<usize>,
    /// The machine whose times change (all machines when absent).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub machine: Option<usize>,
    /// The task type whose times change (all types when absent).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub task_type: Option<usize>,
    /// The times are multiplied by this (default 1).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub scale: Option<f64>,
    /// Then shifted by this many ticks (default 0; the result stays >= 0).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub shift: Option<Tick>,
}

impl DriftConfig {
    /// Checks the entry (`i` its index), naming the key that is wrong.
    pub fn validate(&self, i: usize, types: usize, machines: usize) -> Result<(), String> {
        let at = format!("drift[{i}]");
        match (self.at, self.at_task) {
            (Some(_), Some(_)) => return Err(format!("{at}: give `at` or `at_task`, not both")),
            (None, None) => {
                return Err(format!(
                    "{at}: `at` (a time) or `at_task` (a task) is missing"
                ));
            }
            (Some(t), None) if !(t.is_finite() && t >= 0.0) => {
                return Err(format!("{at}.at: expected a time >= 0, found {t}"));
            }
            _ => {}
        }
        if let Some(m) = self.machine.filter(|&m| m >= machines) {
            return Err(format!(
                "{at}.machine: {m} is not a machine of the {machines}-machine PET"
            ));
        }
        if let Some(t) = self.task_type.filter(|&t| t >= types) {
            return Err(format!(
                "{at}.task_type: {t} is not one of the PET's {types} task types"
            ));
        }
        if let Some(s) = self.scale.filter(|s| !(s.is_finite() && *s > 0.0)) {
            return Err(format!("{at}.scale: expected a number > 0, found {s}"));
        }
        if self.scale.is_none() && self.shift.is_none() {
            return Err(format!(
                "{at}: `scale` or `shift` is missing: nothing changes"
            ));
        }
        Ok(())
    }

    /// `pet` with this change applied.
    fn apply(&self, pet: &Pet) -> Result<Pet, String> {
        let mut out = pet.clone();
        for t in 0..pet.n_types() {
            for m in 0..pet.n_machines() {
                if self.task_type.is_some_and(|x| x != t) || self.machine.is_some_and(|x| x != m) {
                    continue;
                }
                let mut p = pet.pmf(t, m).clone();
                if let Some(s) = self.scale {
                    p = pmf::transform::scale_time(&p, s).map_err(|e| format!("drift: {e}"))?;
                }
                if let Some(d) = self.shift {
                    p = p.shift(d.max(-p.min()));
                }
                out.set_pmf(t, m, p).map_err(|e| format!("drift: {e}"))?;
            }
        }
        Ok(out)
    }
}

/// The truth's changes over a trial: for each entry in order of its tick, the PET in effect
/// from that tick (each entry applied on top of the earlier ones). `arrivals` are the
/// trial's arrival ticks (for `at_task`).
pub fn drift_schedule(
    entries: &[DriftConfig],
    truth: &Pet,
    arrivals: &[Tick],
) -> Result<Vec<(Tick, Pet)>, String> {
    check_drift_span(entries, truth)?;
    let mut timed: Vec<(Tick, &DriftConfig)> = entries
        .iter()
        .map(|d| {
            let t = match (d.at, d.at_task) {
                (Some(t), _) => t.ceil() as Tick,
                (None, Some(k)) => arrivals.get(k).copied().unwrap_or(Tick::MAX),
                (None, None) => Tick::MAX,
            };
            (t, d)
        })
        .collect();
    // Stable: entries at the same tick apply in the order written.
    timed.sort_by_key(|x| x.0);
    let mut out: Vec<(Tick, Pet)> = Vec::with_capacity(timed.len());
    let mut current = truth.clone();
    for (t, d) in timed {
        current = d.apply(&current)?;
        out.push((t, current.clone()));
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(text: &str) -> Result<BeliefConfig, String> {
        let b: BeliefConfig = toml::from_str(text).map_err(|e| e.to_string())?;
        b.validate().map(|()| b)
    }

    #[test]
    fn keys_that_do_not_apply_are_errors_naming_them() {
        for (text, key) in [
            ("source = \"oracle\"\nsamples = 3", "belief.samples"),
            ("source = \"oracle\"\nprior = \"flat\"", "belief.prior"),
            ("source = \"fixed\"\nwindow = 3", "belief.window"),
            ("source = \"learned\"\nscale = 2.0", "belief.scale"),
            ("source = \"fixed\"\nprior = \"samples\"", "belief.samples"),
            (
                "source = \"fixed\"\nprior = \"scaled\"\nscale = -1.0",
                "belief.scale",
            ),
            ("source = \"learned\"\ncadence = 0", "belief.cadence"),
            (
                "source = \"learned\"\ncadence_share = 2.0",
                "belief.cadence_share",
            ),
            (
                "source = \"fixed\"\nmachine_scale = true",
                "belief.machine_scale",
            ),
            (
                "source = \"fixed\"\nscale_by_evidence = false",
                "belief.scale_by_evidence",
            ),
            (
                "source = \"learned\"\nscale_by_evidence = false\nmachine_window = 20",
                "belief.machine_window",
            ),
            (
                "source = \"learned\"\nmachine_scale = true\nmachine_window = 0",
                "belief.machine_window",
            ),
            (
                "source = \"learned\"\nprior_weight = -2.0",
                "belief.prior_weight",
            ),
            ("source = \"fixed\"\nprior = \"none\"", "belief.prior"),
            (
                "source = \"learned\"\nmachine_scale = true\nprior_guard = true",
                "belief.prior_guard",
            ),
            (
                "source = \"fixed\"\nprior_guard = false",
                "belief.prior_guard",
            ),
        ] {
            let e = parse(text).unwrap_err();
            assert!(e.contains(key), "{text}: {e}");
        }
        let e = parse("source = \"learned\"\nforget = 3").unwrap_err();
        assert!(e.contains("forget"), "{e}");
        assert!(parse("source = \"learned\"\nprior = \"flat\"\nwindow = 50").is_ok());
    }

    #[test]
    fn no_prior_is_one_tick_in_every_cell_weighing_nothing_unless_told() {
        let truth = Pet::default_pet(1);
        let b = parse("source = \"learned\"\nprior = \"none\"").unwrap();
        let p = b.prior_pet(&truth, 5, 0).unwrap().unwrap();
        assert!(p.pmfs().iter().all(|c| c.as_pmf() == &Pmf::point(1)));
        assert_eq!(b.options().prior_weight, 0.0);
        let b = parse("source = \"learned\"\nprior = \"none\"\nprior_weight = 2.0").unwrap();
        assert_eq!(b.options().prior_weight, 2.0);
        let b = parse("source = \"learned\"\nprior = \"flat\"").unwrap();
        assert_eq!(b.options().prior_weight, 10.0);
    }

    #[test]
    fn a_samples_prior_is_a_histogram_of_draws_from_the_truth_per_trial() {
        let truth = Pet::default_pet(1);
        let b = parse("source = \"fixed\"\nprior = \"samples\"\nsamples = 1").unwrap();
        let p0 = b.prior_pet(&truth, 5, 0).unwrap().unwrap();
        // One draw per cell: a point mass on a tick of the truth's support.
        for t in 0..truth.n_types() {
            for m in 0..truth.n_machines() {
                let p = p0.pmf(t, m);
                assert_eq!(p.min(), p.max());
                assert!(truth.pmf(t, m).mass_at(p.min()) > 0.0);
            }
        }
        assert_eq!(b.prior_pet(&truth, 5, 0).unwrap().unwrap(), p0);
        assert_ne!(b.prior_pet(&truth, 5, 1).unwrap().unwrap(), p0);
    }

    #[test]
    fn a_permuted_prior_moves_each_machine_type_to_the_next_as_a_block() {
        use ndarray::Array2;
        let pet = |ticks: &[Tick]| {
            let names = (0..ticks.len()).map(|m| format!("m{m}")).collect();
            let pmfs = ticks.iter().map(|&k| Pmf::point(k)).collect();
            Pet::new(
                Array2::from_shape_vec((1, ticks.len()), pmfs).unwrap(),
                vec!["t".into()],
                names,
            )
            .unwrap()
        };
        let b = parse("source = \"fixed\"\nprior = \"permuted\"").unwrap();
        let columns = |truth: &Pet| -> Vec<Tick> {
            let p = b.prior_pet(truth, 5, 0).unwrap().unwrap();
            (0..truth.n_machines()).map(|m| p.pmf(0, m).min()).collect()
        };
        // Two copies of a 2-tick type and a 5-tick type: the copies move together.
        assert_eq!(columns(&pet(&[2, 2, 5])), vec![5, 5, 2]);
        assert_eq!(columns(&pet(&[2, 5, 2])), vec![5, 2, 5]);
        // Three types: each believed to run as the next, the last as the first.
        assert_eq!(columns(&pet(&[2, 5, 9])), vec![5, 9, 2]);
        // The default PET's 8 distinct machines: every cell of every column moves.
        let truth = Pet::default_pet(1);
        let p = b.prior_pet(&truth, 5, 0).unwrap().unwrap();
        for m in 0..8 {
            for t in 0..truth.n_types() {
                assert_eq!(p.pmf(t, m), truth.pmf(t, (m + 1) % 8));
            }
        }
        // Copies of one type only: nothing to permute.
        let e = b.prior_pet(&pet(&[3, 3]), 5, 0).unwrap_err();
        assert!(e.contains("belief.prior = \"permuted\""), "{e}");
    }

    #[test]
    fn a_drift_scales_one_machine_from_its_tick() {
        let truth = Pet::default_pet(1);
        let d: DriftConfig = toml::from_str("at_task = 2\nmachine = 3\nscale = 2.0").unwrap();
        d.validate(0, 12, 8).unwrap();
        let s = drift_schedule(&[d], &truth, &[0, 5, 9, 12]).unwrap();
        assert_eq!(s.len(), 1);
        assert_eq!(s[0].0, 9);
        for t in 0..12 {
            assert!((s[0].1.mean(t, 3) - 2.0 * truth.mean(t, 3)).abs() < 1e-9);
            assert_eq!(s[0].1.pmf(t, 2), truth.pmf(t, 2));
        }
        let bad: DriftConfig = toml::from_str("at = 1.0\nmachine = 8\nscale = 2.0").unwrap();
        assert!(
            bad.validate(0, 12, 8)
                .unwrap_err()
                .contains("drift[0].machine")
        );
    }
}
