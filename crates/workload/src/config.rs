//! The TOML description of a workload.
//!
//! ```toml
//! [workload]
//! pet = "default"       # "default" | "homogeneous" | { homogeneous = 3 }
//!                       # | { etc = "path.etc" } | { samples = "path.csv", bin_width = 2 }
//! pattern = "constant"  # or "bursty"; bursty intervals in an optional [workload.burst] table
//! rate = 34000          # the rate label R: R tasks arrive over `horizon`
//! tasks = 800           # keep the first `tasks` arrivals
//! trials = 30
//! beta = 1.0            # slack coefficient of eq. (3.7)
//! seed = 42             # master seed of the trials (required)
//! pet_seed = 42         # seed of the generated PET (default: `seed`)
//! horizon = 88200       # time units over which R tasks arrive
//! count_variance_ratio = 0.1  # variance of each type's count, as a fraction of its mean
//! ```
//! Every field but `rate` and `seed` has the default shown. Unknown fields are errors.
//! `"homogeneous"` is the default PET with every machine a copy of machine 0 (thesis 5.4);
//! `{ homogeneous = k }` copies machine `k`. Relative paths are resolved against the
//! configuration file's folder by [`WorkloadConfig::load`], and against the current folder by
//! [`WorkloadConfig::from_toml_str`].

use std::path::{Path, PathBuf};

use pmf::Tick;
use serde::{Deserialize, Serialize};

use crate::arrivals::{
    ArrivalSpec, BurstParams, PAPER_HORIZON, PAPER_TASKS, Pattern, Trial, generate_trial,
};
use crate::error::WorkloadError;
use crate::io;
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
    /// A CSV of measured execution times ([`io::read_samples_csv`]).
    Samples {
        /// The CSV file.
        path: PathBuf,
        /// The histogram's bin width, time units.
        bin_width: Tick,
    },
}

const PET_FORMS: &str = "\"default\", \"homogeneous\", { homogeneous = MACHINE }, { etc = \"path.etc\" } or { samples = \"path.csv\", bin_width = WIDTH }";

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
                    ["bin_width", "samples"] => {
                        let path = t
                            .get("samples")
                            .and_then(toml::Value::as_str)
                            .ok_or("pet.samples: expected a path (a string)")?;
                        let bin_width = t
                            .get("bin_width")
                            .and_then(toml::Value::as_integer)
                            .filter(|&w| w > 0)
                            .ok_or(
                                "pet.bin_width: expected a positive integer number of time units",
                            )?;
                        Ok(PetSource::Samples {
                            path: PathBuf::from(path),
                            bin_width,
                        })
                    }
                    ["samples"] => Err("pet: { samples = ... } needs bin_width too".into()),
                    _ => Err(format!("unknown keys {keys:?} in pet: {}", bad())),
                }
            }
            _ => Err(bad()),
        }
    }
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
            PetSource::Samples { path: p, bin_width } => table(vec![
                ("samples", path(p)),
                ("bin_width", toml::Value::Integer(bin_width)),
            ]),
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
    /// The seed of the generated PET (`"default"`/`"homogeneous"`); `seed` when absent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pet_seed: Option<u64>,
    /// The time over which `rate` tasks arrive.
    #[serde(default = "default_horizon")]
    pub horizon: f64,
    /// Variance of each task type's count as a fraction of its mean (thesis 3.4.2: 0.1).
    #[serde(default = "default_count_variance_ratio")]
    pub count_variance_ratio: f64,
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

/// The 1-based line of a byte offset.
fn line_of(text: &str, offset: usize) -> usize {
    text.as_bytes()[..offset.min(text.len())]
        .iter()
        .filter(|&&b| b == b'\n')
        .count()
        + 1
}

impl WorkloadConfig {
    /// Parses a TOML document with a `[workload]` table and validates it; `name` is used in
    /// error messages.
    pub fn from_toml_str(text: &str, name: &str) -> Result<WorkloadConfig, WorkloadError> {
        let file: WorkloadFile = toml::from_str(text).map_err(|e| WorkloadError::Toml {
            file: name.to_owned(),
            line: e.span().map_or(0, |s| line_of(text, s.start)),
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
        self.validate_named("<config>")
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
        if let PetSource::Samples { bin_width, .. } = self.pet {
            if bin_width <= 0 {
                return invalid("pet.bin_width", "a positive integer", bin_width.to_string());
            }
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

    /// Builds (or reads) the PET. Errors: an unreadable or malformed file, a homogeneous
    /// machine out of range.
    pub fn pet(&self) -> Result<Pet, WorkloadError> {
        match &self.pet {
            PetSource::Default => Ok(Pet::default_pet(self.pet_seed())),
            PetSource::Homogeneous { machine } => {
                let pet = Pet::default_pet(self.pet_seed());
                if *machine >= pet.n_machines() {
                    return Err(WorkloadError::InvalidConfig {
                        file: "<config>".into(),
                        field: "workload.pet.homogeneous".into(),
                        expected: format!("a machine index below {}", pet.n_machines()),
                        found: machine.to_string(),
                    });
                }
                Ok(pet.homogeneous(*machine))
            }
            PetSource::Etc(path) => io::read_etc(path).map(|(pet, _)| pet),
            PetSource::Samples { path, bin_width } => io::read_samples_csv(path, *bin_width),
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
