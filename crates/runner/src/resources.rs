//! Resource limits checked before work starts: an estimate of the memory a run needs (the
//! PET, and per trial in flight its tasks, its machines and its clairvoyant bracket) against a
//! budget, and a sane number of worker threads. A configuration that would not fit is refused
//! with a message that says what to change, instead of ending in an allocation abort or an
//! out-of-memory kill.
//!
//! The estimate is an upper bound for the configurations measured (`cargo xtask perf`'s scale
//! points: 8 to 16,384 machines, 800 to 10^5 tasks): each constant below is the measured
//! cost with headroom.

use std::fmt;

use workload::{Pet, WorkloadConfig};

use crate::error::RunError;

/// Memory per task of a trial in flight: the generated task (24 bytes), its tick-grid spec
/// (32), its luck draw (8), its record and the engine's per-task arrays (about 80), the
/// batch queue and the metrics, with headroom.
pub const BYTES_PER_TASK: u64 = 256;

/// Memory per machine of a trial in flight: the queue, the cached completion-time PMFs of
/// its (bounded) queue and their tail tables, with headroom (measured: about 1.4 KiB at
/// 16,384 machines).
pub const BYTES_PER_MACHINE: u64 = 4 * 1024;

/// Memory per (counted task, machine) pair of the clairvoyant bracket of a trial: the
/// realised execution times and the LP's columns.
pub const BYTES_PER_BRACKET_PAIR: u64 = 24;

/// The bracket's time-indexed (Lagrangian) part is capped by its cell limit
/// ([`bound::LagrangianOptions`]): at most this many bytes.
pub const BRACKET_LAGRANGIAN_BYTES: u64 = 20_000_000 * 16;

/// The default memory budget: this share of the machine's physical memory.
pub const DEFAULT_BUDGET_SHARE: f64 = 0.5;

/// The budget when the machine's memory cannot be read.
pub const FALLBACK_BUDGET: u64 = 4 << 30;

/// The default memory budget: [`DEFAULT_BUDGET_SHARE`] of the physical memory
/// (`/proc/meminfo`), or [`FALLBACK_BUDGET`].
pub fn default_budget() -> u64 {
    physical_memory().map_or(FALLBACK_BUDGET, |m| {
        (m as f64 * DEFAULT_BUDGET_SHARE) as u64
    })
}

/// The machine's physical memory in bytes (Linux `/proc/meminfo`), if readable.
pub fn physical_memory() -> Option<u64> {
    let text = std::fs::read_to_string("/proc/meminfo").ok()?;
    let line = text.lines().find(|l| l.starts_with("MemTotal:"))?;
    let kib: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    kib.checked_mul(1024)
}

/// The worker threads a run uses: `requested` (0 = the machine's parallelism) capped at the
/// machine's parallelism, since more threads than cores only add memory (each runs a trial)
/// and start-up time; results are the same for any number. Returns the threads and, when
/// the request was capped, a warning.
pub fn worker_threads(requested: usize) -> (usize, Option<String>) {
    let cores = std::thread::available_parallelism().map_or(1, std::num::NonZero::get);
    if requested == 0 {
        (cores, None)
    } else if requested > cores {
        (
            cores,
            Some(format!(
                "--jobs {requested} exceeds the {cores} cores of this machine: using {cores} (results do not depend on it)"
            )),
        )
    } else {
        (requested, None)
    }
}

/// What a run is estimated to need, part by part, in bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Footprint {
    /// The PET (every PMF of every task type on every machine).
    pub pet: u64,
    /// Tasks per trial (at most: the arrivals before the horizon may be fewer).
    pub tasks_per_trial: u64,
    /// One trial in flight: its tasks, its machines and its bracket.
    pub per_trial: u64,
    /// Trials in flight at once (the worker threads, at most the trials).
    pub in_flight: u64,
    /// The total.
    pub total: u64,
}

impl fmt::Display for Footprint {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "about {} (the PET {}, and {} trial(s) in flight of {} each: {} tasks)",
            bytes(self.total),
            bytes(self.pet),
            self.in_flight,
            bytes(self.per_trial),
            self.tasks_per_trial
        )
    }
}

/// Bytes in binary units, e.g. `1.5 GiB`.
pub fn bytes(b: u64) -> String {
    const UNITS: [&str; 5] = ["B", "KiB", "MiB", "GiB", "TiB"];
    let mut x = b as f64;
    let mut u = 0;
    while x >= 1024.0 && u + 1 < UNITS.len() {
        x /= 1024.0;
        u += 1;
    }
    if u == 0 {
        format!("{b} B")
    } else {
        format!("{x:.1} {}", UNITS[u])
    }
}

/// The bytes of `pet`'s PMFs per (task type, machine) pair, on average.
fn bytes_per_pmf(pet: &Pet) -> u64 {
    let cells = (pet.n_types() * pet.n_machines()).max(1) as u64;
    let masses: u64 = pet.pmfs().iter().map(|p| p.len() as u64).sum();
    // The masses and the PET's derived tables (cumulative sums, built for the PMFs queried),
    // with headroom: measured, a drawn copy of the default PET's column takes about 1.6 KiB
    // per task type.
    (masses * 8 * 3 / 2) / cells + 192
}

/// Estimates the memory of running `trials` trials of `workload` on `threads` worker
/// threads, from the source PET (before any `machines = N` draw, so that the estimate is made
/// before the drawn PET is built), `tasks` per trial when given (trials read from files), the
/// counted share of the tasks and whether the bracket is computed.
pub fn estimate(
    workload: &WorkloadConfig,
    source_pet: &Pet,
    tasks: Option<u64>,
    trials: u64,
    threads: usize,
    skipped: u64,
    with_bound: bool,
) -> Footprint {
    let machines = workload
        .machines
        .map_or(source_pet.n_machines() as u64, |m| m as u64);
    let types = source_pet.n_types() as u64;
    let pet = bytes_per_pmf(source_pet)
        .saturating_mul(types)
        .saturating_mul(machines);
    // A generated trial keeps the first `tasks` arrivals of `rate` expected ones (their count
    // varies by `count_variance_ratio`: 50% headroom).
    let tasks_per_trial = tasks.unwrap_or_else(|| {
        let expected = (workload.rate * 1.5).ceil();
        let expected = if expected.is_finite() && expected < u64::MAX as f64 {
            expected as u64
        } else {
            u64::MAX
        };
        (workload.tasks as u64).min(expected.max(1))
    });
    let counted = tasks_per_trial.saturating_sub(skipped);
    let bracket = if with_bound {
        counted
            .saturating_mul(machines)
            .saturating_mul(BYTES_PER_BRACKET_PAIR)
            .saturating_add(BRACKET_LAGRANGIAN_BYTES)
    } else {
        0
    };
    let per_trial = tasks_per_trial
        .saturating_mul(BYTES_PER_TASK)
        .saturating_add(machines.saturating_mul(BYTES_PER_MACHINE))
        .saturating_add(bracket);
    let in_flight = trials.min(threads.max(1) as u64).max(1);
    Footprint {
        pet,
        tasks_per_trial,
        per_trial,
        in_flight,
        total: pet.saturating_add(per_trial.saturating_mul(in_flight)),
    }
}

/// Refuses a footprint above `budget` bytes, saying what to change.
pub fn check(footprint: &Footprint, budget: u64) -> Result<(), RunError> {
    if footprint.total <= budget {
        return Ok(());
    }
    Err(RunError::Input(format!(
        "this run needs {footprint}, more than the memory budget of {}: use fewer machines, \
         tasks or --jobs, --no-bound (the bracket is per counted task and machine), or a larger \
         --max-memory (default {:.0}% of this machine's memory)",
        bytes(budget),
        DEFAULT_BUDGET_SHARE * 100.0
    )))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn workload(text: &str) -> WorkloadConfig {
        WorkloadConfig::from_toml_str(&format!("[workload]\nseed = 1\n{text}"), "w.toml").unwrap()
    }

    #[test]
    fn the_estimate_grows_with_machines_tasks_and_threads() {
        let pet = Pet::default_pet(1);
        let small = estimate(&workload("rate = 34000\n"), &pet, None, 30, 2, 200, true);
        assert_eq!(small.tasks_per_trial, 800);
        assert_eq!(small.in_flight, 2);
        // The default experiment fits in well under 1 GiB.
        assert!(small.total < 1 << 30, "{small}");
        let machines = estimate(
            &workload("rate = 34000\nmachines = 10000000\n"),
            &pet,
            None,
            30,
            2,
            200,
            true,
        );
        assert!(machines.total > 100 << 30, "{machines}");
        // tasks = 1e9 at a rate of 1e15: a billion tasks per trial.
        let tasks = estimate(
            &workload("rate = 1e15\ntasks = 1000000000\n"),
            &pet,
            None,
            1,
            1,
            200,
            false,
        );
        assert_eq!(tasks.tasks_per_trial, 1_000_000_000);
        assert!(check(&tasks, 8 << 30).is_err());
        // The rate caps the tasks a trial can have.
        let few = estimate(
            &workload("rate = 100\ntasks = 1000000\n"),
            &pet,
            None,
            1,
            1,
            0,
            false,
        );
        assert_eq!(few.tasks_per_trial, 150);
        // One trial in flight when there is one trial, whatever the threads.
        assert_eq!(
            estimate(&workload("rate = 34000\n"), &pet, None, 1, 64, 200, true).in_flight,
            1
        );
    }

    #[test]
    fn threads_beyond_the_cores_are_capped_with_a_warning() {
        let cores = std::thread::available_parallelism().map_or(1, std::num::NonZero::get);
        assert_eq!(worker_threads(0), (cores, None));
        let (t, w) = worker_threads(100_000);
        assert_eq!(t, cores);
        assert!(w.unwrap().contains("--jobs 100000"));
        assert_eq!(worker_threads(1), (1, None));
    }

    #[test]
    fn sizes_read_in_binary_units() {
        assert_eq!(bytes(512), "512 B");
        assert_eq!(bytes(3 << 29), "1.5 GiB");
    }
}
