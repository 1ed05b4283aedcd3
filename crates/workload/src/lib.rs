//! PET matrices and arrival trials: the workload side of probabilistic task pruning.
//!
//! # What is here
//! * [`Pet`]: the matrix of execution-time PMFs, one per (task type, machine), with the ETC
//!   matrix of means and `avg_i`, `avg_all` of the deadline equation. [`Pet::default_pet`]
//!   regenerates the paper's PET by the thesis' procedure (3.4.1: per pair, 500 gamma samples
//!   with the published mean and a shape uniform in [1, 20], histogram with 2-unit bins);
//!   [`Pet::homogeneous`] gives the homogeneous system of thesis 5.4;
//!   [`Pet::select_machines`] builds larger systems from the columns of a PET.
//! * [`family`]: PETs generated from a few parameters ([`PetFamily`]): CVB cell means (Ali et
//!   al. 2000), consistent or not, cells gamma, lognormal, pareto or bimodal, machine types
//!   in identical copies.
//! * [`generate_trial`]: arrival trials (thesis 3.4.2, paper VI-B, JPDC-2016 7.2). A rate label
//!   R (the paper's "19k", "34k") means R tasks over 88,200 time units, trimmed to the first
//!   800 arrivals; constant (Poisson) or bursty patterns; deadlines by eq. (3.7).
//! * [`io`]: the paper's `.etc` and `.dat` files, a CSV of measured execution times turned into
//!   a PET, and a CSV workload; readers report what they had to repair.
//! * [`WorkloadConfig`]: the `[workload]` table of a TOML experiment description.
//!
//! [`io`] and [`WorkloadConfig`] need the default feature `files` (the `csv` and `toml`
//! crates); without it, the PET, the trials and the streams remain.
//! * [`rng`]: one ChaCha12 stream per (seed, trial, purpose).
//!
//! # Time
//! Times are real numbers of time units. A [`Task`] keeps its arrival and deadline as read or
//! generated (`f64`); a simulator converts them to ticks (`ceil` for both, see the `pmf` crate
//! on deadlines). PMF ticks are time units: the `.etc` times are integers already. Times
//! measured in another unit (seconds, milliseconds) are read from a samples CSV or a workload
//! CSV with a tick length ([`WorkloadConfig::tick`], [`io::csv_files`]) and become ticks.
//!
//! # Deadlines (thesis eq. 3.7)
//! `delta_i = arr_i + avg_i + beta * avg_all`, where `avg_i` is the mean execution time of
//! task type `i` over the machines and `avg_all` the mean of the `avg_i`. Both are computed
//! from the PET the trial is generated for ([`Pet::avg_type`], [`Pet::avg_all`]), not from
//! [`PUBLISHED_MEANS`]. On the paper's `classes_2.etc` the two agree exactly (the published
//! means are that file's means, and its `.dat` files' deadlines follow from them: type 0 has
//! slack 175.43 = avg_0 + avg_all); on the default PET they differ by sampling noise and the
//! histogram's upper-edge bins (about +1 time unit); on a homogeneous PET `avg_i` is the kept
//! machine's mean.
//!
//! # Randomness
//! Generation is deterministic: a trial depends only on (PET, spec, seed, trial index), and
//! each task type draws from its own stream, so trial `k` of a sweep is the same whatever else
//! runs. No function reads a clock or a global RNG.
//!
//! # Imperfect files
//! The readers accept what the paper's files contain: CRLF line ends, trailing spaces, masses
//! summing to 0.996-0.999 (renormalised; every block's total is in [`io::EtcReport`] and a
//! `tracing::warn!` summarises), lines out of arrival order (sorted, stably), and a first task
//! line whose leading characters were lost (repaired from its deadline only when the text read
//! is a truncated form of the implied arrival, and always reported: see [`io::dat`]). A task
//! arriving after its deadline, a missing PET block, or a malformed field is an error naming
//! the file, line and field.
//!
//! # Example
//! ```
//! use workload::{ArrivalSpec, Pet, generate_trial};
//! let pet = Pet::default_pet(1);
//! let spec = ArrivalSpec::paper(34_000.0);
//! let trial = generate_trial(&pet, &spec, 42, 0);
//! assert_eq!(trial.tasks.len(), 800);
//! let t = trial.tasks[0];
//! assert_eq!(t.deadline, t.arrival + pet.avg_type(t.task_type) + 1.0 * pet.avg_all());
//! ```

mod arrivals;
#[cfg(feature = "files")]
mod capacity;
#[cfg(feature = "files")]
mod config;
mod error;
pub mod family;
#[cfg(feature = "files")]
pub mod io;
mod pet;
#[cfg(feature = "files")]
mod pet_source;
pub mod rng;
mod staging;
#[cfg(feature = "files")]
pub mod toml_line;

pub use arrivals::{
    ArrivalSpec, BurstParams, MAX_BURST_INTERVALS, PAPER_HORIZON, PAPER_TASKS, Pattern, Task,
    Trial, generate_trial, try_generate_trial, type_counts,
};
#[cfg(feature = "files")]
pub use capacity::capacity;
#[cfg(feature = "files")]
pub use config::{PET_KEYS, PatternName, PetSource, WorkloadConfig};
pub use error::WorkloadError;
pub use family::{CellFamily, Consistency, Modes, PetFamily};
pub use pet::{PAPER_MACHINES, PUBLISHED_MEANS, Pet, defaults};
pub use pmf::{Pmf, Tick};
pub use staging::{Staging, StagingConfig};
