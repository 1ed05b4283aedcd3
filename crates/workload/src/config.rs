//! The TOML description of a workload.
//!
//! ```toml
//! [workload]
//! pet = "default"       # "default" | "homogeneous" | { homogeneous = 3 }
//!                       # | { etc = "path.etc" } | { samples = "path.csv", bin_width = 2 }
//!                       #   (samples: bin_width = W ticks | "auto" (the default: per pair,
//!                       #   at most 200 bins over its range, see io::csv_files);
//!                       #   bin_value = "upper" (default) | "centre" | "lower")
//!                       # | { means = [[...]], bin_width = 2, type_names = [...], machine_names = [...] }
//!                       # | { family = "gamma" | "lognormal" | "pareto" | "bimodal", ... }
//!                       #   (a generated PET, next paragraph)
//! pattern = "constant"  # or "bursty"; bursty intervals in an optional [workload.burst] table
//! rate = 34000          # the rate label R: R tasks arrive over `horizon`; or instead
//! # load = 1.5          #   the offered load: 1.5 x the machines' capacity
//! # arrival_rate = 0.4  #   tasks per time unit
//! tasks = 800           # keep the first `tasks` arrivals
//! trials = 30
//! beta = 1.0            # slack coefficient of eq. (3.7)
//! seed = 42             # master seed of the trials (required)
//! pet_seed = 42         # seed of the generated PET (default: `seed`)
//! horizon = 88200       # time units over which R tasks arrive
//! # unit = "ms"         # the name of the time unit (default: "time units")
//! count_variance_ratio = 0.1  # variance of each type's count, as a fraction of its mean
//! # machines = 1024   # optional: that many machines drawn from the PET's (absent: the PET as is)
//! tick = 1.0            # one tick in the unit of the measured times of a samples CSV and of
//!                       # workload CSV files: a time x of those files is x / tick ticks;
//!                       # "auto": chosen from the samples CSV (io::auto_tick)
//! ```
//! Every field but the rate and `seed` has the default shown; `machines` and `unit` have none.
//! Exactly one of `rate`, `load` and `arrival_rate` is given. Unknown fields are errors.
//!
//! # Time units, ticks and the load
//! Times are in *time units*: the unit of the measured times of a samples CSV and a workload
//! CSV, which `unit` names (a label printed with every time; nothing is converted by it).
//! `tick` is the length of one tick, the grid of the PMFs, in time units: a time `x` becomes
//! `x / tick` ticks. `tick` lets times measured in seconds keep their resolution: with
//! `unit = "s"` and `tick = 0.001` a samples CSV in seconds becomes a PET on a millisecond
//! grid, and the arrivals and deadlines of the workload CSV files given to `prunesim run
//! --workload` are read on the same grid. `horizon`, the burst durations and `arrival_rate`
//! are in time units too, so the tick never changes the load: it changes only the grid's
//! resolution. The other tables' times (drift, staging, ...), a generated PET's times and the
//! paper's `.etc` and `.dat` files are in ticks; with the default `tick = 1` ticks and time
//! units are one, and every experiment reads as written, bit for bit.
//!
//! The rate is given one of three ways: `rate`, the paper's label (R tasks over `horizon`
//! time units, 34k over 88,200 in the paper); `arrival_rate`, tasks per time unit; or `load`,
//! the offered load: tasks arrive at `load` times the machines' capacity ([`crate::capacity`]:
//! the most tasks per time unit they complete with the types in equal shares, each task
//! taking its mean time, deadlines ignored). `load = 1` offers as much as the machines can
//! do at best; on the paper's PET its 34k is an offered load of about 3.3 and its 19k of
//! about 1.8. `arrival_rate` and `load` are averages over a bursty pattern's intervals;
//! `rate` is the label before the pattern's factor ([`BurstParams::mean_factor`]), as in
//! JPDC-2016.
//!
//! A samples PET without `bin_width` (or with `bin_width = "auto"`) chooses each pair's
//! width from its samples ([`io::BinWidth::Auto`]: at most [`pmf::AUTO_BINS`] bins over the
//! pair's range, one tick when the range is at most that many ticks); an explicit
//! `bin_width` is that width for every pair, as given. No experiment of `experiments/` reads
//! a samples CSV without a width, so the automatic width changes none of their PETs;
//! `tick = 1` is not serialised, so manifests and PET hashes of configurations without
//! `tick` are unchanged. `prunesim run --tick auto` chooses the tick from a samples CSV
//! ([`io::auto_tick`]).
//!
//! A generated PET ([`crate::family`]) takes these keys, each with the default shown:
//! ```toml
//! pet = { family = "lognormal",   # "gamma" | "lognormal" | "pareto" | "bimodal" (required)
//!         types = 12,             # task types
//!         machine_types = 8,      # distinct machine types
//!         copies = 1,             # identical columns per machine type (A.1, A.2, ...)
//!         mean = 100.0,           # mean of the task means (ticks)
//!         task_cv = 0.5,          # CVB: coefficient of variation of the task means
//!         machine_cv = 0.5,       # CVB: of a task's cell means (0: homogeneous)
//!         consistency = "inconsistent",  # | "consistent" | "partially"
//!         sigma = 0.5,            # lognormal, and bimodal with modes = "lognormal": log-sd
//!         cap = 20.0,             # samples clipped at cap x the cell mean
//!         bin_width = 2 }         # histogram bin width (ticks)
//! # pareto:  alpha = 2.5 (tail index > 1)
//! # bimodal: fast_share = 0.8, slow_ratio = 5.0, modes = "gamma" | "lognormal"
//! ```
//! A key of another family (`alpha` with `"gamma"`, ...) is an error naming it; the PET is
//! drawn from `pet_seed`.
//!
//! `"homogeneous"` is the default PET with every machine a copy of machine 0 (thesis 5.4);
//! `{ homogeneous = k }` copies machine `k`. Relative paths are resolved against the
//! configuration file's folder by [`WorkloadConfig::load`], and against the current folder by
//! [`WorkloadConfig::from_toml_str`].
//!
//! `machines = N` (N >= 1) builds a system of N machines from the PET above: each machine is a
//! copy of one of the PET's machines (a column of its matrix), drawn uniformly with
//! replacement by [`Pet::draw_machines`] from the stream `(pet_seed, 0, Purpose::Machines)`
//! (see [`crate::rng`]). The draw depends only on `pet_seed` (default `seed`), never on the
//! trial, so every trial of an experiment runs on the same machines; the task types are
//! unchanged. Deadlines (eq. 3.7) use the resulting PET's averages. The 12-type x 1,024-machine
//! PET of the scale study (`experiments/scale.toml`) is `machines = 1024` on the default PET.
//! Absent, the configuration serialises exactly as before the option existed.

use std::path::Path;

use serde::{Deserialize, Serialize};

use crate::arrivals::{
    ArrivalSpec, BurstParams, PAPER_HORIZON, PAPER_TASKS, Pattern, Trial, generate_trial,
};
use crate::error::WorkloadError;
use crate::io::{self, BinWidth};
use crate::pet::Pet;
pub use crate::pet_source::{PET_KEYS, PetSource};

/// The arrival pattern, as named in the TOML.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum PatternName {
    /// [`Pattern::Constant`].
    #[default]
    Constant,
    /// [`Pattern::Bursty`] with the `burst` table's parameters.
    Bursty,
}

fn default_tasks() -> usize {
    PAPER_TASKS
}
fn default_trials() -> u64 {
    30
}
fn default_beta() -> f64 {
    1.0
}
fn default_horizon() -> f64 {
    PAPER_HORIZON
}
fn default_count_variance_ratio() -> f64 {
    0.1
}

/// The `[workload]` table: which PET, and how the trials' arrivals are generated (see the
/// module docs for the fields and defaults). Embed it in a larger configuration as a field, or
/// read a file with a `[workload]` table by [`WorkloadConfig::load`].
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct WorkloadConfig {
    /// Where the PET comes from.
    #[serde(default = "default_pet")]
    pub pet: PetSource,
    /// The arrival pattern.
    #[serde(default)]
    pub pattern: PatternName,
    /// Parameters of the bursty pattern (JPDC-2016 defaults; not written out at the
    /// defaults, which reading fills in again).
    #[serde(default, skip_serializing_if = "is_default_burst")]
    pub burst: BurstParams,
    /// The rate label R: R tasks arrive over `horizon` time units. One of `rate`, `load` and
    /// `arrival_rate` is given.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rate: Option<f64>,
    /// The offered load: tasks arrive at `load` times the machines' capacity
    /// ([`crate::capacity`]: the most tasks per time unit they complete, the types in equal
    /// shares, on mean times), on average over the pattern's intervals.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub load: Option<f64>,
    /// Tasks per time unit, on average over the pattern's intervals.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub arrival_rate: Option<f64>,
    /// The name of the time unit (`"ms"`, `"s"`, ...): the unit of the times of a samples
    /// CSV and a workload CSV, of `horizon`, the burst durations and `arrival_rate`, and of
    /// every time printed. A label: no time is converted by it (`tick` is in this unit).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub unit: Option<String>,
    /// The number of tasks of each trial (the first arrivals).
    #[serde(default = "default_tasks")]
    pub tasks: usize,
    /// The number of trials.
    #[serde(default = "default_trials")]
    pub trials: u64,
    /// The slack coefficient beta of eq. (3.7).
    #[serde(default = "default_beta")]
    pub beta: f64,
    /// The master seed: trial `k` uses streams `(seed, k, purpose)`.
    pub seed: u64,
    /// The seed of the generated PET (`"default"`, `"homogeneous"`, `{ means = ... }`,
    /// `{ family = ... }`); `seed` when absent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pet_seed: Option<u64>,
    /// The time over which `rate` tasks arrive, in time units (`horizon / tick` ticks).
    #[serde(default = "default_horizon")]
    pub horizon: f64,
    /// Variance of each task type's count as a fraction of its mean (thesis 3.4.2: 0.1).
    #[serde(default = "default_count_variance_ratio")]
    pub count_variance_ratio: f64,
    /// That many machines, each drawn uniformly with replacement from the PET's machines
    /// ([`Pet::draw_machines`] with `pet_seed`); absent = the PET as is.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub machines: Option<usize>,
    /// The length of one tick in the unit of the measured times of a samples CSV PET and of
    /// workload CSV files (default 1: their times are ticks); see the module docs. `"auto"`
    /// in the TOML reads as NaN until [`WorkloadConfig::resolve_tick`] chooses it.
    #[serde(
        default = "default_tick",
        skip_serializing_if = "is_default_tick",
        deserialize_with = "tick_or_auto"
    )]
    pub tick: f64,
}

/// Reads `tick`: a number, or `"auto"` (NaN until [`WorkloadConfig::resolve_tick`]).
fn tick_or_auto<'de, D: serde::Deserializer<'de>>(d: D) -> Result<f64, D::Error> {
    #[derive(Deserialize)]
    #[serde(untagged)]
    enum Tick {
        Number(f64),
        Integer(i64),
        Word(String),
    }
    match Tick::deserialize(d)? {
        // NaN stands for "auto" until resolved: a NaN written as a number is not one.
        Tick::Number(x) if x.is_nan() => Err(serde::de::Error::custom(
            "tick: expected a positive length or \"auto\", found nan",
        )),
        Tick::Number(x) => Ok(x),
        Tick::Integer(i) => Ok(i as f64),
        Tick::Word(w) if w.eq_ignore_ascii_case("auto") => Ok(f64::NAN),
        Tick::Word(w) => Err(serde::de::Error::custom(format!(
            "tick: expected a positive length or \"auto\", found \"{}\"",
            crate::error::quote(&w)
        ))),
    }
}

fn is_default_burst(burst: &BurstParams) -> bool {
    *burst == BurstParams::default()
}

fn default_tick() -> f64 {
    1.0
}

fn is_default_tick(tick: &f64) -> bool {
    *tick == 1.0
}

fn default_pet() -> PetSource {
    PetSource::Default
}

/// A TOML document holding a `[workload]` table.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct WorkloadFile {
    workload: WorkloadConfig,
}

impl WorkloadConfig {
    /// Parses a TOML document with a `[workload]` table and validates it; `name` is used in
    /// error messages.
    pub fn from_toml_str(text: &str, name: &str) -> Result<WorkloadConfig, WorkloadError> {
        let file: WorkloadFile = toml::from_str(text).map_err(|e| WorkloadError::Toml {
            file: name.to_owned(),
            line: crate::toml_line::error_line(text, &e).unwrap_or(0),
            message: e.message().to_owned(),
        })?;
        let mut config = file.workload;
        config.resolve_tick()?;
        config.validate_named(name)?;
        Ok(config)
    }

    /// True while `tick = "auto"` waits for [`WorkloadConfig::resolve_tick`].
    pub fn tick_is_auto(&self) -> bool {
        self.tick.is_nan()
    }

    /// Chooses `tick = "auto"` from the PET's samples CSV ([`io::auto_tick`]: a hundredth of
    /// its shortest cell mean, rounded down to 1, 2 or 5 times a power of ten) and returns
    /// the choice; a tick given as a length stays (`None`). Call it once the PET's path is
    /// final (the experiment loaders do, after resolving relative paths).
    ///
    /// Errors: `"auto"` with a PET whose times are ticks already (not a samples CSV), an
    /// unreadable or malformed file.
    pub fn resolve_tick(&mut self) -> Result<Option<io::AutoTick>, WorkloadError> {
        if !self.tick_is_auto() {
            return Ok(None);
        }
        let PetSource::Samples { path, .. } = &self.pet else {
            return Err(WorkloadError::InvalidConfig {
                file: String::new(),
                field: "workload.tick".into(),
                expected: "a length: \"auto\" chooses the tick from a samples CSV's times, and this PET's times are ticks already".into(),
                found: "\"auto\"".into(),
            });
        };
        let chosen = io::read_auto_tick(path)?;
        self.tick = chosen.tick;
        Ok(Some(chosen))
    }

    /// Reads a TOML file with a `[workload]` table, validates it, and resolves the PET's
    /// relative paths against the file's folder.
    pub fn load(path: impl AsRef<Path>) -> Result<WorkloadConfig, WorkloadError> {
        let path = path.as_ref();
        let text = io::read_text(path)?;
        let name = io::display_name(path);
        let file: WorkloadFile = toml::from_str(&text).map_err(|e| WorkloadError::Toml {
            file: name.clone(),
            line: crate::toml_line::error_line(&text, &e).unwrap_or(0),
            message: e.message().to_owned(),
        })?;
        let mut config = file.workload;
        if let Some(dir) = path.parent() {
            match &mut config.pet {
                PetSource::Etc(p) | PetSource::Samples { path: p, .. } if p.is_relative() => {
                    *p = dir.join(&*p);
                }
                _ => {}
            }
        }
        config.resolve_tick()?;
        config.validate_named(&name)?;
        Ok(config)
    }

    /// Checks every value: rate and horizon finite and positive, tasks and trials at least 1,
    /// beta and the variance ratio finite and non-negative, burst ranges valid.
    pub fn validate(&self) -> Result<(), WorkloadError> {
        self.validate_named("")
    }

    fn validate_named(&self, name: &str) -> Result<(), WorkloadError> {
        let invalid = |field: &str, expected: &str, found: String| {
            Err(WorkloadError::InvalidConfig {
                file: name.to_owned(),
                field: format!("workload.{field}"),
                expected: expected.to_owned(),
                found,
            })
        };
        if self.trials == 0 {
            return invalid("trials", "at least 1", "0".into());
        }
        if self.machines == Some(0) {
            return invalid(
                "machines",
                "at least 1 (or no `machines` to use the PET as is)",
                "0".into(),
            );
        }
        if let PetSource::Family(f) = &self.pet {
            f.validate().map_err(|e| match e {
                WorkloadError::InvalidConfig {
                    field,
                    expected,
                    found,
                    ..
                } => WorkloadError::InvalidConfig {
                    file: name.to_owned(),
                    field,
                    expected,
                    found,
                },
                e => e,
            })?;
        }
        if let PetSource::Samples {
            bin_width: BinWidth::Ticks(w),
            ..
        } = self.pet
        {
            if w <= 0 {
                return invalid("pet.bin_width", "a positive integer", w.to_string());
            }
        }
        if !(self.tick.is_finite() && self.tick > 0.0) {
            return invalid(
                "tick",
                "a positive, finite length of one tick in the unit of the measured times (\"auto\" is chosen by resolve_tick before)",
                self.tick.to_string(),
            );
        }
        let given: Vec<&str> = [
            ("rate", self.rate),
            ("load", self.load),
            ("arrival_rate", self.arrival_rate),
        ]
        .iter()
        .filter(|(_, v)| v.is_some())
        .map(|(k, _)| *k)
        .collect();
        if given.len() != 1 {
            return invalid(
                "rate",
                "exactly one of `rate` (tasks per horizon), `load` (the offered load, 1 = the machines' capacity) and `arrival_rate` (tasks per time unit)",
                if given.is_empty() {
                    "none of them".into()
                } else {
                    given.join(" and ")
                },
            );
        }
        for (key, v) in [("load", self.load), ("arrival_rate", self.arrival_rate)] {
            if let Some(v) = v {
                if !(v.is_finite() && v > 0.0) {
                    return invalid(key, "a finite number > 0", v.to_string());
                }
            }
        }
        if let Some(u) = &self.unit {
            if u.is_empty() || u.chars().count() > 16 || u.chars().any(char::is_control) {
                return invalid(
                    "unit",
                    "the name of the time unit, 1 to 16 printable characters (\"ms\", \"s\", ...)",
                    crate::error::quote(u),
                );
            }
        }
        // The rate's own checks; a load's rate needs the PET and is checked when resolved.
        let rate = self
            .rate
            .or(self.arrival_rate.map(|a| a * self.horizon))
            .unwrap_or(1.0);
        match self.spec_with_rate(rate).validate() {
            Ok(()) => Ok(()),
            Err(WorkloadError::InvalidSpec {
                field,
                expected,
                found,
            }) => invalid(field, expected, found),
            Err(e) => Err(e),
        }
    }

    /// The arrival specification of the trials on `pet`, on the tick grid: the rate label
    /// ([`Self::rate_label`]), the horizon and the burst durations divided by `tick`.
    ///
    /// Errors: a `load` on a PET whose capacity is not defined ([`crate::capacity`]), or a
    /// resolved rate that is not a finite number > 0.
    pub fn arrival_spec(&self, pet: &Pet) -> Result<ArrivalSpec, WorkloadError> {
        let spec = self.spec_with_rate(self.rate_label(pet)?);
        spec.validate().map_err(|e| match e {
            WorkloadError::InvalidSpec {
                field,
                expected,
                found,
            } => WorkloadError::InvalidConfig {
                file: String::new(),
                field: format!("workload.{field}"),
                expected: expected.into(),
                found,
            },
            e => e,
        })?;
        Ok(spec)
    }

    /// The specification with rate label `rate`, the times of the configuration (time units)
    /// turned into ticks, not validated. With `tick = 1` every time is as written, bit for
    /// bit.
    pub fn spec_with_rate(&self, rate: f64) -> ArrivalSpec {
        let ticks = |x: f64| x / self.tick;
        let pattern = match self.pattern {
            PatternName::Constant => Pattern::Constant,
            PatternName::Bursty => {
                let mut b = self.burst;
                b.baseline_duration = b.baseline_duration.map(ticks);
                b.burst_duration = b.burst_duration.map(ticks);
                Pattern::Bursty(b)
            }
        };
        ArrivalSpec {
            rate,
            horizon: ticks(self.horizon),
            tasks: self.tasks,
            pattern,
            beta: self.beta,
            count_variance_ratio: self.count_variance_ratio,
        }
    }

    /// The long-run factor of the pattern on the rate (1 for constant arrivals,
    /// [`BurstParams::mean_factor`] for bursty ones).
    fn pattern_factor(&self) -> f64 {
        match self.pattern {
            PatternName::Constant => 1.0,
            PatternName::Bursty => self.burst.mean_factor(),
        }
    }

    /// The rate label R of the trials on `pet` (R tasks over `horizon`, before the pattern's
    /// factor): `rate` as given; `arrival_rate x horizon / factor`; or, for a `load`,
    /// `load x capacity x horizon / factor`, the capacity ([`crate::capacity`]) in tasks per
    /// time unit. The factor is the pattern's long-run factor (1 for constant arrivals), so
    /// `load` and `arrival_rate` are the rates that arrive on average.
    pub fn rate_label(&self, pet: &Pet) -> Result<f64, WorkloadError> {
        self.rate_label_for(|| crate::capacity(pet))
    }

    /// [`Self::rate_label`] with the machines' capacity in tasks per tick from `capacity`,
    /// called only for a `load` (a memory estimate passes a bound on it, before the PET is
    /// built).
    pub fn rate_label_for(
        &self,
        capacity: impl FnOnce() -> Result<f64, WorkloadError>,
    ) -> Result<f64, WorkloadError> {
        let factor = self.pattern_factor();
        let (key, given, rate) = match (self.rate, self.load, self.arrival_rate) {
            (Some(r), _, _) => return Ok(r),
            (None, _, Some(a)) => ("arrival_rate", a, a * self.horizon / factor),
            (None, Some(l), None) => (
                "load",
                l,
                l * capacity()? / self.tick * self.horizon / factor,
            ),
            (None, None, None) => {
                return Err(WorkloadError::InvalidConfig {
                    file: String::new(),
                    field: "workload.rate".into(),
                    expected: "one of `rate`, `load` and `arrival_rate`".into(),
                    found: "none of them".into(),
                });
            }
        };
        if rate.is_finite() && rate > 0.0 {
            Ok(rate)
        } else {
            Err(WorkloadError::InvalidConfig {
                file: String::new(),
                field: format!("workload.{key}"),
                expected: format!(
                    "a value whose tasks over the horizon ({} {}) are a finite number > 0",
                    self.horizon,
                    self.units_name()
                ),
                found: format!("{given:e}, giving {rate:e} tasks"),
            })
        }
    }

    /// The tasks that arrive per time unit on average: the rate label over the horizon, times
    /// the pattern's long-run factor.
    pub fn arrivals_per_unit(&self, pet: &Pet) -> Result<f64, WorkloadError> {
        Ok(self.rate_label(pet)? * self.pattern_factor() / self.horizon)
    }

    /// The offered load: the tasks arriving per time unit over the machines' capacity
    /// ([`crate::capacity`], in tasks per time unit). 1 is as many tasks as the machines
    /// complete at best on mean times, deadlines ignored.
    pub fn offered_load(&self, pet: &Pet) -> Result<f64, WorkloadError> {
        Ok(self.arrivals_per_unit(pet)? / (crate::capacity(pet)? / self.tick))
    }

    /// The time unit's name for one of it: `unit`, or "time unit".
    pub fn unit_name(&self) -> &str {
        self.unit.as_deref().unwrap_or("time unit")
    }

    /// The time unit's name after a number: `unit`, or "time units".
    pub fn units_name(&self) -> &str {
        self.unit.as_deref().unwrap_or("time units")
    }

    /// The seed of a generated PET.
    pub fn pet_seed(&self) -> u64 {
        self.pet_seed.unwrap_or(self.seed)
    }

    /// Builds (or reads) the PET, then draws `machines` machines from it when given
    /// ([`Pet::draw_machines`] with [`pet_seed`](Self::pet_seed)). Errors: an unreadable or
    /// malformed file, a homogeneous machine out of range, `machines = 0`.
    pub fn pet(&self) -> Result<Pet, WorkloadError> {
        self.pet_from(self.source_pet()?)
    }

    /// The PET of this configuration built from its source PET ([`Self::source_pet`]): the
    /// `machines` draw, if any. A caller that checks the size of the drawn PET first (it is
    /// `machines` times the source's columns) builds the source once and passes it here.
    pub fn pet_from(&self, pet: Pet) -> Result<Pet, WorkloadError> {
        match self.machines {
            None => Ok(pet),
            Some(0) => Err(WorkloadError::InvalidConfig {
                file: String::new(),
                field: "workload.machines".into(),
                expected: "at least 1 (or no `machines` to use the PET as is)".into(),
                found: "0".into(),
            }),
            Some(n) => Ok(pet.draw_machines(n, self.pet_seed())),
        }
    }

    /// The PET of the `pet` field, before any `machines` draw.
    pub fn source_pet(&self) -> Result<Pet, WorkloadError> {
        match &self.pet {
            PetSource::Default => Ok(Pet::default_pet(self.pet_seed())),
            PetSource::Homogeneous { machine } => {
                let pet = Pet::default_pet(self.pet_seed());
                if *machine >= pet.n_machines() {
                    return Err(WorkloadError::InvalidConfig {
                        file: String::new(),
                        field: "workload.pet.homogeneous".into(),
                        expected: format!("a machine index below {}", pet.n_machines()),
                        found: machine.to_string(),
                    });
                }
                Ok(pet.homogeneous(*machine))
            }
            PetSource::Etc(path) => io::read_etc(path).map(|(pet, _)| pet),
            PetSource::Family(f) => f.generate(self.pet_seed()),
            PetSource::Samples {
                path,
                bin_width,
                bin_value,
            } => io::read_samples_csv_options(
                path,
                &io::SamplesOptions {
                    bin_width: *bin_width,
                    bin_value: *bin_value,
                    tick: self.tick,
                },
            ),
            PetSource::Means {
                means,
                bin_width,
                type_names,
                machine_names,
            } => {
                let invalid = |found: String, expected: &str| WorkloadError::InvalidConfig {
                    file: "<config>".into(),
                    field: "workload.pet.means".into(),
                    expected: expected.into(),
                    found,
                };
                let cols = means.first().map_or(0, Vec::len);
                if means.is_empty() || cols == 0 || means.iter().any(|r| r.len() != cols) {
                    return Err(invalid(
                        format!(
                            "{} rows of lengths {:?}",
                            means.len(),
                            means.iter().map(Vec::len).collect::<Vec<_>>()
                        ),
                        "a non-empty rectangular matrix (rows = task types, columns = machines)",
                    ));
                }
                let flat: Vec<f64> = means.iter().flatten().copied().collect();
                let matrix = ndarray::Array2::from_shape_vec((means.len(), cols), flat)
                    .map_err(|e| invalid(e.to_string(), "a rectangular matrix"))?;
                let pet = Pet::from_means(&matrix, *bin_width, self.pet_seed())?;
                let tn = type_names
                    .clone()
                    .unwrap_or_else(|| pet.type_names().to_vec());
                let mn = machine_names
                    .clone()
                    .unwrap_or_else(|| pet.machine_names().to_vec());
                if tn.len() != pet.n_types() || mn.len() != pet.n_machines() {
                    return Err(invalid(
                        format!("{} type names and {} machine names", tn.len(), mn.len()),
                        "one name per row and one per column",
                    ));
                }
                Pet::new(pet.pmfs().map(|p| p.as_pmf().clone()), tn, mn)
            }
        }
    }

    /// Trial `k` (0-based) of the sweep: [`generate_trial`] with this configuration's seed
    /// and [`Self::arrival_spec`] (a caller generating many trials resolves the spec once).
    pub fn trial(&self, pet: &Pet, k: u64) -> Result<Trial, WorkloadError> {
        Ok(generate_trial(pet, &self.arrival_spec(pet)?, self.seed, k))
    }

    /// All `trials` trials, in order.
    pub fn generate(&self, pet: &Pet) -> Result<Vec<Trial>, WorkloadError> {
        let spec = self.arrival_spec(pet)?;
        Ok((0..self.trials)
            .map(|k| generate_trial(pet, &spec, self.seed, k))
            .collect())
    }
}
