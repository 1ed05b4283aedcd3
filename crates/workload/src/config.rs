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
//! rate = 34000          # the rate label R: R tasks arrive over `horizon`
//! tasks = 800           # keep the first `tasks` arrivals
//! trials = 30
//! beta = 1.0            # slack coefficient of eq. (3.7)
//! seed = 42             # master seed of the trials (required)
//! pet_seed = 42         # seed of the generated PET (default: `seed`)
//! horizon = 88200       # time units over which R tasks arrive
//! count_variance_ratio = 0.1  # variance of each type's count, as a fraction of its mean
//! # machines = 1024   # optional: that many machines drawn from the PET's (absent: the PET as is)
//! tick = 1.0            # one tick in the unit of the measured times of a samples CSV and of
//!                       # workload CSV files: a time x of those files is x / tick ticks
//! ```
//! Every field but `rate` and `seed` has the default shown; `machines` has none. Unknown
//! fields are errors.
//!
//! `tick` lets times measured in seconds (or any unit) keep their resolution: with
//! `tick = 0.001` a samples CSV in seconds becomes a PET on a millisecond grid, and the
//! arrivals and deadlines of the workload CSV files given to `prunesim run --workload` are read
//! on the same grid. Everything else in the configuration (`horizon`, drift times, ...) and
//! the paper's `.etc` and `.dat` files are in ticks. A samples PET without `bin_width` (or with
//! `bin_width = "auto"`) chooses each pair's width from its samples
//! ([`io::BinWidth::Auto`]: at most [`pmf::AUTO_BINS`] bins over the pair's range, one tick
//! when the range is at most that many ticks); an explicit `bin_width` is that width for every
//! pair, as given. No experiment of `experiments/` reads a samples CSV without a width, so the
//! automatic width changes none of their PETs; `tick = 1` is not serialised, so manifests and
//! PET hashes of configurations without `tick` are unchanged.
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

use std::path::{Path, PathBuf};

use pmf::{BinValue, Tick};
use serde::{Deserialize, Serialize};

use crate::arrivals::{
    ArrivalSpec, BurstParams, PAPER_HORIZON, PAPER_TASKS, Pattern, Trial, generate_trial,
};
use crate::error::WorkloadError;
use crate::family::{CellFamily, Consistency, Modes, PetFamily};
use crate::io::{self, BinWidth};
use crate::pet::Pet;

/// Where the PET comes from.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(try_from = "toml::Value", into = "toml::Value")]
pub enum PetSource {
    /// [`Pet::default_pet`] with the configuration's `pet_seed`.
    Default,
    /// The default PET made homogeneous on one of its machines ([`Pet::homogeneous`]).
    Homogeneous {
        /// The machine copied.
        machine: usize,
    },
    /// An `.etc` file ([`io::read_etc`]).
    Etc(PathBuf),
    /// Gamma PMFs generated by the thesis procedure ([`Pet::from_means`]) around a matrix of
    /// mean execution times (task types x machines), e.g. an ETC matrix from a paper.
    Means {
        /// Mean execution time per (task type, machine), rows = task types.
        means: Vec<Vec<f64>>,
        /// Histogram bin width, time units (default 2).
        bin_width: Tick,
        /// Names of the task types (default t0, t1, ...).
        type_names: Option<Vec<String>>,
        /// Names of the machines (default m0, m1, ...).
        machine_names: Option<Vec<String>>,
    },
    /// A PET generated from a few parameters ([`PetFamily::generate`] with the
    /// configuration's `pet_seed`; see [`crate::family`]).
    Family(PetFamily),
    /// A CSV of measured execution times ([`io::read_samples_csv_with`]).
    Samples {
        /// The CSV file.
        path: PathBuf,
        /// The histogram's bin width: automatic per pair, or a number of ticks.
        bin_width: BinWidth,
        /// The tick that stands for a bin `[k w, (k+1) w)`: its upper edge (the default, the
        /// thesis' reading), its centre or its lower edge.
        bin_value: BinValue,
    },
}

/// Every key of the inline-table forms of `pet` (`{ homogeneous = M }`, `{ etc = PATH }`,
/// `{ samples = PATH, bin_width = W, bin_value = ... }`, `{ means = [[...]], bin_width = W,
/// type_names = [...], machine_names = [...] }`, `{ family = ..., ... }` with
/// `FAMILY_KEYS`): the parser accepts no other.
pub const PET_KEYS: [&str; 22] = [
    "homogeneous",
    "etc",
    "samples",
    "bin_width",
    "bin_value",
    "means",
    "type_names",
    "machine_names",
    "family",
    "types",
    "machine_types",
    "copies",
    "mean",
    "task_cv",
    "machine_cv",
    "consistency",
    "sigma",
    "alpha",
    "fast_share",
    "slow_ratio",
    "modes",
    "cap",
];

/// The keys of the generated form `{ family = ..., ... }` ([`PetFamily`]).
pub(crate) const FAMILY_KEYS: [&str; 15] = [
    "family",
    "types",
    "machine_types",
    "copies",
    "mean",
    "task_cv",
    "machine_cv",
    "consistency",
    "sigma",
    "alpha",
    "fast_share",
    "slow_ratio",
    "modes",
    "cap",
    "bin_width",
];

const PET_FORMS: &str = "\"default\", \"homogeneous\", { homogeneous = MACHINE }, { etc = \"path.etc\" }, { samples = \"path.csv\", bin_width = WIDTH | \"auto\", bin_value = \"upper\" | \"centre\" | \"lower\" }, { means = [[...]], ... } or { family = \"gamma\" | \"lognormal\" | \"pareto\" | \"bimodal\", ... }";

impl TryFrom<toml::Value> for PetSource {
    type Error = String;

    fn try_from(v: toml::Value) -> Result<Self, String> {
        let bad = || format!("expected {PET_FORMS}");
        match v {
            toml::Value::String(s) => match s.as_str() {
                "default" => Ok(PetSource::Default),
                "homogeneous" => Ok(PetSource::Homogeneous { machine: 0 }),
                _ => Err(format!(
                    "unknown PET \"{}\": {}",
                    crate::error::quote(&s),
                    bad()
                )),
            },
            toml::Value::Table(t) => {
                let mut keys: Vec<&str> = t.keys().map(String::as_str).collect();
                keys.sort_unstable();
                if let Some(k) = keys.iter().find(|k| !PET_KEYS.contains(k)) {
                    return Err(format!("unknown key '{k}' in pet: {}", bad()));
                }
                match keys.as_slice() {
                    ["homogeneous"] => match t.get("homogeneous").and_then(toml::Value::as_integer)
                    {
                        Some(m) if m >= 0 => Ok(PetSource::Homogeneous {
                            machine: usize::try_from(m).map_err(|e| e.to_string())?,
                        }),
                        _ => Err(
                            "pet.homogeneous: expected a machine index (an integer >= 0)".into(),
                        ),
                    },
                    ["etc"] => match t.get("etc").and_then(toml::Value::as_str) {
                        Some(p) => Ok(PetSource::Etc(PathBuf::from(p))),
                        None => Err("pet.etc: expected a path (a string)".into()),
                    },
                    ["samples"]
                    | ["bin_width", "samples"]
                    | ["bin_value", "samples"]
                    | ["bin_value", "bin_width", "samples"] => {
                        let path = t
                            .get("samples")
                            .and_then(toml::Value::as_str)
                            .ok_or("pet.samples: expected a path (a string)")?;
                        let bin_width = match t.get("bin_width") {
                            None => BinWidth::Auto,
                            Some(toml::Value::String(a)) if a == "auto" => BinWidth::Auto,
                            Some(v) => BinWidth::Ticks(
                                v.as_integer().filter(|&w| w > 0).ok_or(
                                    "pet.bin_width: expected a positive integer number of ticks or \"auto\"",
                                )?,
                            ),
                        };
                        let bin_value = match t.get("bin_value").map(|v| v.as_str()) {
                            None => BinValue::Upper,
                            Some(Some("upper")) => BinValue::Upper,
                            Some(Some("centre" | "center")) => BinValue::Centre,
                            Some(Some("lower")) => BinValue::Lower,
                            Some(_) => {
                                return Err(
                                    "pet.bin_value: expected \"upper\", \"centre\" or \"lower\""
                                        .into(),
                                );
                            }
                        };
                        Ok(PetSource::Samples {
                            path: PathBuf::from(path),
                            bin_width,
                            bin_value,
                        })
                    }
                    keys if keys.contains(&"means") => means_source(&t),
                    keys if keys.contains(&"family") => family_source(&t),
                    keys if keys
                        .iter()
                        .any(|k| FAMILY_KEYS.contains(k) && *k != "bin_width") =>
                    {
                        Err(format!(
                            "pet: keys {keys:?} of a generated PET without 'family' (\"gamma\", \"lognormal\", \"pareto\" or \"bimodal\")"
                        ))
                    }
                    _ => Err(format!("unknown keys {keys:?} in pet: {}", bad())),
                }
            }
            _ => Err(bad()),
        }
    }
}

/// Parses `{ means = [[...]], bin_width = 2, type_names = [...], machine_names = [...] }`.
fn means_source(t: &toml::Table) -> Result<PetSource, String> {
    for k in t.keys() {
        if !["means", "bin_width", "type_names", "machine_names"].contains(&k.as_str()) {
            return Err(format!(
                "pet: unknown key '{k}' beside 'means' (expected bin_width, type_names, machine_names)"
            ));
        }
    }
    let rows = t
        .get("means")
        .and_then(toml::Value::as_array)
        .ok_or("pet.means: expected an array of rows (one per task type) of mean times")?;
    let mut means = Vec::with_capacity(rows.len());
    for (i, row) in rows.iter().enumerate() {
        let row = row
            .as_array()
            .ok_or_else(|| format!("pet.means[{i}]: expected an array of numbers"))?;
        let mut r = Vec::with_capacity(row.len());
        for (j, v) in row.iter().enumerate() {
            let x = v
                .as_float()
                .or_else(|| v.as_integer().map(|i| i as f64))
                .ok_or_else(|| format!("pet.means[{i}][{j}]: expected a number"))?;
            r.push(x);
        }
        means.push(r);
    }
    let bin_width = match t.get("bin_width") {
        None => 2,
        Some(v) => v
            .as_integer()
            .filter(|&w| w > 0)
            .ok_or("pet.bin_width: expected a positive integer number of time units")?,
    };
    let names = |key: &str| -> Result<Option<Vec<String>>, String> {
        match t.get(key) {
            None => Ok(None),
            Some(v) => v
                .as_array()
                .and_then(|a| {
                    a.iter()
                        .map(|x| x.as_str().map(str::to_owned))
                        .collect::<Option<Vec<_>>>()
                })
                .map(Some)
                .ok_or_else(|| format!("pet.{key}: expected an array of strings")),
        }
    };
    Ok(PetSource::Means {
        means,
        bin_width,
        type_names: names("type_names")?,
        machine_names: names("machine_names")?,
    })
}

/// Parses `{ family = "...", types = ..., ... }` (see [`crate::family`]); one function because
/// it reads the table's keys in a flat list, each error naming its key.
fn family_source(t: &toml::Table) -> Result<PetSource, String> {
    use crate::family::family_defaults as d;
    for k in t.keys() {
        if !FAMILY_KEYS.contains(&k.as_str()) {
            return Err(format!(
                "pet: unknown key '{k}' beside 'family' (expected {})",
                FAMILY_KEYS[1..].join(", ")
            ));
        }
    }
    let number = |key: &str, default: f64| -> Result<f64, String> {
        match t.get(key) {
            None => Ok(default),
            Some(v) => v
                .as_float()
                .or_else(|| v.as_integer().map(|i| i as f64))
                .ok_or_else(|| format!("pet.{key}: expected a number")),
        }
    };
    let count = |key: &str, default: usize| -> Result<usize, String> {
        match t.get(key) {
            None => Ok(default),
            Some(v) => v
                .as_integer()
                .and_then(|i| usize::try_from(i).ok())
                .ok_or_else(|| format!("pet.{key}: expected an integer >= 0")),
        }
    };
    let word = |key: &str| -> Result<Option<&str>, String> {
        match t.get(key) {
            None => Ok(None),
            Some(v) => v
                .as_str()
                .map(Some)
                .ok_or_else(|| format!("pet.{key}: expected a string")),
        }
    };
    let family_name = word("family")?.unwrap_or_default();
    let only = |key: &str, applies: &str| -> Result<(), String> {
        if t.contains_key(key) {
            Err(format!(
                "pet.{key}: applies to {applies} only, not to family = \"{}\"",
                crate::error::quote(family_name)
            ))
        } else {
            Ok(())
        }
    };
    let family = match family_name {
        "gamma" => {
            only(
                "sigma",
                "family = \"lognormal\" or \"bimodal\" with lognormal modes",
            )?;
            CellFamily::Gamma
        }
        "lognormal" => CellFamily::Lognormal {
            sigma: number("sigma", d::SIGMA)?,
        },
        "pareto" => {
            only(
                "sigma",
                "family = \"lognormal\" or \"bimodal\" with lognormal modes",
            )?;
            CellFamily::Pareto {
                alpha: number("alpha", d::ALPHA)?,
            }
        }
        "bimodal" => {
            let modes = match word("modes")? {
                None | Some("gamma") => {
                    only(
                        "sigma",
                        "family = \"lognormal\" or \"bimodal\" with modes = \"lognormal\"",
                    )?;
                    Modes::Gamma
                }
                Some("lognormal") => Modes::Lognormal {
                    sigma: number("sigma", d::SIGMA)?,
                },
                Some(m) => {
                    return Err(format!(
                        "pet.modes: expected \"gamma\" or \"lognormal\", found \"{}\"",
                        crate::error::quote(m)
                    ));
                }
            };
            CellFamily::Bimodal {
                fast_share: number("fast_share", d::FAST_SHARE)?,
                slow_ratio: number("slow_ratio", d::SLOW_RATIO)?,
                modes,
            }
        }
        other => {
            return Err(format!(
                "pet.family: expected \"gamma\", \"lognormal\", \"pareto\" or \"bimodal\", found \"{}\"",
                crate::error::quote(other)
            ));
        }
    };
    if !matches!(family, CellFamily::Pareto { .. }) {
        only("alpha", "family = \"pareto\"")?;
    }
    if !matches!(family, CellFamily::Bimodal { .. }) {
        for key in ["fast_share", "slow_ratio", "modes"] {
            only(key, "family = \"bimodal\"")?;
        }
    }
    let consistency = match word("consistency")? {
        None | Some("inconsistent") => Consistency::Inconsistent,
        Some("consistent") => Consistency::Consistent,
        Some("partially") => Consistency::Partially,
        Some(c) => {
            return Err(format!(
                "pet.consistency: expected \"inconsistent\", \"consistent\" or \"partially\", found \"{}\"",
                crate::error::quote(c)
            ));
        }
    };
    let bin_width = match t.get("bin_width") {
        None => d::BIN_WIDTH,
        Some(v) => v
            .as_integer()
            .filter(|&w| w > 0)
            .ok_or("pet.bin_width: expected a positive integer number of ticks")?,
    };
    let f = PetFamily {
        family,
        types: count("types", d::TYPES)?,
        machine_types: count("machine_types", d::MACHINE_TYPES)?,
        copies: count("copies", d::COPIES)?,
        mean: number("mean", d::MEAN)?,
        task_cv: number("task_cv", d::TASK_CV)?,
        machine_cv: number("machine_cv", d::MACHINE_CV)?,
        consistency,
        bin_width,
        cap: number("cap", d::CAP)?,
    };
    f.validate().map_err(|e| e.to_string())?;
    Ok(PetSource::Family(f))
}

impl From<PetSource> for toml::Value {
    fn from(p: PetSource) -> toml::Value {
        let table = |pairs: Vec<(&str, toml::Value)>| {
            toml::Value::Table(pairs.into_iter().map(|(k, v)| (k.to_owned(), v)).collect())
        };
        let path = |p: PathBuf| toml::Value::String(p.to_string_lossy().into_owned());
        match p {
            PetSource::Default => toml::Value::String("default".into()),
            PetSource::Homogeneous { machine: 0 } => toml::Value::String("homogeneous".into()),
            PetSource::Homogeneous { machine } => table(vec![(
                "homogeneous",
                toml::Value::Integer(i64::try_from(machine).unwrap_or(i64::MAX)),
            )]),
            PetSource::Etc(p) => table(vec![("etc", path(p))]),
            PetSource::Means {
                means,
                bin_width,
                type_names,
                machine_names,
            } => {
                let mut pairs = vec![
                    (
                        "means",
                        toml::Value::Array(
                            means
                                .into_iter()
                                .map(|r| {
                                    toml::Value::Array(
                                        r.into_iter().map(toml::Value::Float).collect(),
                                    )
                                })
                                .collect(),
                        ),
                    ),
                    ("bin_width", toml::Value::Integer(bin_width)),
                ];
                let strings = |v: Vec<String>| {
                    toml::Value::Array(v.into_iter().map(toml::Value::String).collect())
                };
                if let Some(n) = type_names {
                    pairs.push(("type_names", strings(n)));
                }
                if let Some(n) = machine_names {
                    pairs.push(("machine_names", strings(n)));
                }
                table(pairs)
            }
            PetSource::Family(f) => {
                let int = |n: usize| toml::Value::Integer(i64::try_from(n).unwrap_or(i64::MAX));
                let mut pairs = vec![
                    ("family", toml::Value::String(f.family.name().into())),
                    ("types", int(f.types)),
                    ("machine_types", int(f.machine_types)),
                    ("copies", int(f.copies)),
                    ("mean", toml::Value::Float(f.mean)),
                    ("task_cv", toml::Value::Float(f.task_cv)),
                    ("machine_cv", toml::Value::Float(f.machine_cv)),
                    (
                        "consistency",
                        toml::Value::String(f.consistency.name().into()),
                    ),
                ];
                match f.family {
                    CellFamily::Gamma => {}
                    CellFamily::Lognormal { sigma } => {
                        pairs.push(("sigma", toml::Value::Float(sigma)));
                    }
                    CellFamily::Pareto { alpha } => {
                        pairs.push(("alpha", toml::Value::Float(alpha)));
                    }
                    CellFamily::Bimodal {
                        fast_share,
                        slow_ratio,
                        modes,
                    } => {
                        pairs.push(("fast_share", toml::Value::Float(fast_share)));
                        pairs.push(("slow_ratio", toml::Value::Float(slow_ratio)));
                        match modes {
                            Modes::Gamma => {
                                pairs.push(("modes", toml::Value::String("gamma".into())));
                            }
                            Modes::Lognormal { sigma } => {
                                pairs.push(("modes", toml::Value::String("lognormal".into())));
                                pairs.push(("sigma", toml::Value::Float(sigma)));
                            }
                        }
                    }
                }
                pairs.push(("cap", toml::Value::Float(f.cap)));
                pairs.push(("bin_width", toml::Value::Integer(f.bin_width)));
                table(pairs)
            }
            PetSource::Samples {
                path: p,
                bin_width,
                bin_value,
            } => {
                let mut pairs = vec![("samples", path(p))];
                if let BinWidth::Ticks(w) = bin_width {
                    pairs.push(("bin_width", toml::Value::Integer(w)));
                }
                let word = match bin_value {
                    BinValue::Upper => None,
                    BinValue::Centre => Some("centre"),
                    BinValue::Lower => Some("lower"),
                };
                if let Some(w) = word {
                    pairs.push(("bin_value", toml::Value::String(w.into())));
                }
                table(pairs)
            }
        }
    }
}

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
    /// Parameters of the bursty pattern (JPDC-2016 defaults).
    #[serde(default)]
    pub burst: BurstParams,
    /// The rate label R: R tasks arrive over `horizon` time units.
    pub rate: f64,
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
    /// The time over which `rate` tasks arrive.
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
    /// workload CSV files (default 1: their times are ticks); see the module docs.
    #[serde(default = "default_tick", skip_serializing_if = "is_default_tick")]
    pub tick: f64,
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
        let config = file.workload;
        config.validate_named(name)?;
        Ok(config)
    }

    /// Reads a TOML file with a `[workload]` table, validates it, and resolves the PET's
    /// relative paths against the file's folder.
    pub fn load(path: impl AsRef<Path>) -> Result<WorkloadConfig, WorkloadError> {
        let path = path.as_ref();
        let text = io::read_text(path)?;
        let mut config = Self::from_toml_str(&text, &io::display_name(path))?;
        if let Some(dir) = path.parent() {
            match &mut config.pet {
                PetSource::Etc(p) | PetSource::Samples { path: p, .. } if p.is_relative() => {
                    *p = dir.join(&*p);
                }
                _ => {}
            }
        }
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
                "a positive, finite length of one tick in the unit of the measured times",
                self.tick.to_string(),
            );
        }
        match self.arrival_spec().validate() {
            Ok(()) => Ok(()),
            Err(WorkloadError::InvalidSpec {
                field,
                expected,
                found,
            }) => invalid(field, expected, found),
            Err(e) => Err(e),
        }
    }

    /// The arrival specification of the trials.
    pub fn arrival_spec(&self) -> ArrivalSpec {
        ArrivalSpec {
            rate: self.rate,
            horizon: self.horizon,
            tasks: self.tasks,
            pattern: match self.pattern {
                PatternName::Constant => Pattern::Constant,
                PatternName::Bursty => Pattern::Bursty(self.burst),
            },
            beta: self.beta,
            count_variance_ratio: self.count_variance_ratio,
        }
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

    /// Trial `k` (0-based) of the sweep: [`generate_trial`] with this configuration's seed.
    pub fn trial(&self, pet: &Pet, k: u64) -> Trial {
        generate_trial(pet, &self.arrival_spec(), self.seed, k)
    }

    /// All `trials` trials, in order.
    pub fn generate(&self, pet: &Pet) -> Vec<Trial> {
        (0..self.trials).map(|k| self.trial(pet, k)).collect()
    }
}
