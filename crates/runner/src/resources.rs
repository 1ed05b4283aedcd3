//! Resource limits checked before work starts: an estimate of the memory a run needs against
//! a budget, and a sane number of worker threads. A configuration that would not fit is
//! refused with a message that says what to change, instead of ending in an allocation abort
//! or an out-of-memory kill.
//!
//! # The resource model
//! The estimate is an upper bound on the peak resident memory of a run ([`estimate`]), the
//! sum of:
//! * the process itself ([`BASE_BYTES`]);
//! * the PET, held once for the whole run: per (task type, machine) cell [`BYTES_PER_CELL`]
//!   plus [`BYTES_PER_BIN`] per bin of its PMF (the masses and the execution tables built with
//!   each cell: running sums, truncated sums, non-zero bins). With `machines = N` the N drawn
//!   machines are counted as N copies of the source PET's widest column;
//! * per trial in flight (the worker threads, at most the trials):
//!   * its tasks, [`BYTES_PER_TASK`] each (and [`BYTES_PER_TRACED_TASK`] more when traced);
//!   * its machines, [`BYTES_PER_MACHINE`] each (queues, cached completion-time PMFs);
//!   * one copy of the PET (the truth at the trial's start), and the belief's copies: one
//!     for a fixed belief, [`LEARNED_PET_COPIES`] for a learned one (the prior, the belief the
//!     policies read, the estimator's priors and cells); a `flat` prior is counted at the
//!     width of the truth's longest time in every cell, an `etc` prior at
//!     [`BYTES_PER_ETC_BYTE`] per byte of its file;
//!   * a `samples` prior's draws, [`BYTES_PER_SAMPLE`] per draw of one cell;
//!   * each `[[drift]]` entry's PET: the PET with its bins multiplied by the product of the
//!     scales up to that entry (scales above 1, largest first: a bound for any order), and
//!     two more of the largest while the schedule is built;
//!   * the clairvoyant bracket: [`BYTES_PER_BRACKET_PAIR`] per (counted task, machine) pair
//!     and [`BYTES_PER_BRACKET_TICK`] per tick of the trial's span (the time-indexed bound,
//!     at most [`BRACKET_MAX_TICKS`] ticks);
//! * per trial of the run, its measures ([`BYTES_PER_TRIAL`]);
//! * with a report, the traced tasks of every trial read back ([`BYTES_PER_REPORTED_TASK`]).
//!
//! Each constant is a measured cost (peak RSS of `prunesim run` under `/usr/bin/time -v`) with
//! headroom; `docs/reliability.md` ("The memory model") lists the measurements and
//! `crates/prunesim/tests/memory.rs` checks the estimate against the measured peak of every
//! run shape at CI sizes.

use std::fmt;

use workload::Pet;

use crate::belief::{BeliefSource, PriorKind};
use crate::error::RunError;
use crate::experiment::ExperimentConfig;

/// The process before any PET or trial: the binary, the allocator, the thread pool
/// (measured: 9 MiB).
pub const BASE_BYTES: u64 = 32 << 20;

/// Memory per cell of a copy of the PET besides its bins: the cell's tables' headers and
/// allocations, its segments, expected time and variance.
pub const BYTES_PER_CELL: u64 = 512;

/// Memory per bin of a cell of a copy of the PET: the mass (8 bytes), the running sum (8),
/// the truncated sum (8) and the non-zero index (4), with the allocator's rounding (measured:
/// 69 KiB per machine of the default PET, 5.9 KiB per cell).
pub const BYTES_PER_BIN: u64 = 32;

/// Memory per task of a trial in flight: the generated task, its tick-grid spec, its luck
/// draw, its record, the engine's per-task arrays, the batch queue and the measures
/// (measured: 240 bytes).
pub const BYTES_PER_TASK: u64 = 400;

/// Memory per task of a traced trial in flight beyond [`BYTES_PER_TASK`]: the tracer's
/// per-task state (the rows are streamed to their files; measured: 40 bytes).
pub const BYTES_PER_TRACED_TASK: u64 = 128;

/// Memory per traced task of the run while the report reads the traces back and builds its
/// page (measured: 160 bytes).
pub const BYTES_PER_REPORTED_TASK: u64 = 512;

/// Memory per machine of a trial in flight besides its PET column: the queue, the cached
/// completion-time PMFs of its (bounded) queue and their tail tables.
pub const BYTES_PER_MACHINE: u64 = 4 * 1024;

/// Copies of the PET a learned belief holds per trial in flight: the prior, the belief the
/// policies read, and the estimator's priors and cells (measured: 2.8).
pub const LEARNED_PET_COPIES: u64 = 4;

/// Memory per draw of a `samples` prior while one cell's histogram is built: the draw, its
/// bin and the weighted pairs sorted into a PMF (measured: 64 bytes).
pub const BYTES_PER_SAMPLE: u64 = 96;

/// Memory of an `etc` prior per byte of its file: a bin takes at least two bytes of text
/// (`0 ` or `1 `) and [`BYTES_PER_BIN`] in memory.
pub const BYTES_PER_ETC_BYTE: u64 = BYTES_PER_BIN / 2;

/// Memory per (counted task, machine) pair of the clairvoyant bracket of a trial: the
/// realised execution times, the LP's columns and cuts, the search's tables (measured: 300
/// bytes at 600 counted tasks on 1,024 to 4,096 machines; the generic LP beyond 64 machines
/// grows faster than linearly in the counted tasks).
pub const BYTES_PER_BRACKET_PAIR: u64 = 1024;

/// Memory per tick of a trial's span of the bracket's time-indexed bound (a value and a
/// choice per tick).
pub const BYTES_PER_BRACKET_TICK: u64 = 16;

/// The time-indexed bound is skipped beyond its cell limit ([`bound::LagrangianOptions`]),
/// which is at least its span in ticks: at most this many ticks are held.
pub const BRACKET_MAX_TICKS: u64 = 20_000_000;

/// Memory per trial of the run: its measures, kept until the summary is written.
pub const BYTES_PER_TRIAL: u64 = 4 * 1024;

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

/// This process's peak resident memory so far in bytes (`VmHWM` of Linux
/// `/proc/self/status`), if readable.
pub fn peak_memory() -> Option<u64> {
    let text = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = text.lines().find(|l| l.starts_with("VmHWM:"))?;
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

/// What a run is estimated to need, part by part, in bytes ([the model](self)).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Footprint {
    /// The PET (every PMF of every task type on every machine, with its tables), one copy.
    pub pet: u64,
    /// Tasks per trial (at most: the arrivals before the horizon may be fewer).
    pub tasks_per_trial: u64,
    /// One trial in flight: its tasks, its machines, its copies of the PET, its drift, its
    /// prior's draws and its bracket.
    pub per_trial: u64,
    /// Of `per_trial`, the clairvoyant bracket.
    pub bracket: u64,
    /// Of `per_trial`, the `[[drift]]` entries' PETs.
    pub drift: u64,
    /// Trials in flight at once (the worker threads, at most the trials).
    pub in_flight: u64,
    /// What the whole run keeps besides the trials in flight: the process, the PET, every
    /// trial's measures and the report.
    pub held: u64,
    /// The total.
    pub total: u64,
}

impl fmt::Display for Footprint {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "about {} (the PET {}, and {} trial(s) in flight of {} each: {} tasks",
            bytes(self.total),
            bytes(self.pet),
            self.in_flight,
            bytes(self.per_trial),
            self.tasks_per_trial
        )?;
        if self.bracket > 0 {
            write!(f, ", the clairvoyant bracket {}", bytes(self.bracket))?;
        }
        if self.drift > 0 {
            write!(f, ", the drifted PETs {}", bytes(self.drift))?;
        }
        write!(f, ")")
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

/// A count or a product of them as bytes, saturating (a float beyond `u64` is `u64::MAX`).
fn saturate(x: f64) -> u64 {
    if x.is_finite() && x < u64::MAX as f64 {
        x.max(0.0) as u64
    } else {
        u64::MAX
    }
}

/// The bytes of one cell of a PET copy with `bins` bins.
fn cell_bytes(bins: u64) -> u64 {
    bins.saturating_mul(BYTES_PER_BIN)
        .saturating_add(BYTES_PER_CELL)
}

/// What a run is: the experiment and how it is run.
#[derive(Debug, Clone, Copy)]
pub struct RunShape<'a> {
    /// The experiment (its `[workload]`, `[system]`, `[belief]`, `[[drift]]` and `trace`).
    pub config: &'a ExperimentConfig,
    /// The source PET, before any `machines = N` draw (so that the estimate is made before
    /// the drawn PET is built).
    pub source_pet: &'a Pet,
    /// Tasks per trial when known (trials read from files); else from the rate.
    pub tasks: Option<u64>,
    /// Trials of the run.
    pub trials: u64,
    /// Worker threads.
    pub threads: usize,
    /// Whether the clairvoyant bracket is computed.
    pub with_bound: bool,
    /// Whether the run's report is built from its traces afterwards.
    pub report: bool,
}

/// Estimates the peak memory of a run of `shape` ([the model](self)).
///
/// One function because it is the sum of the memory model's terms, one after the other in
/// the order of the table in docs/reliability.md.
pub fn estimate(shape: &RunShape<'_>) -> Footprint {
    let config = shape.config;
    let workload = &config.workload;
    let source = shape.source_pet;
    let types = source.n_types() as u64;
    let machines = workload
        .machines
        .map_or(source.n_machines() as u64, |m| m as u64);
    // The bins of each column of the source PET; drawn machines counted as the widest.
    let pmfs = source.pmfs();
    let column_bins: Vec<u64> = (0..source.n_machines())
        .map(|m| {
            (0..source.n_types())
                .map(|t| pmfs[[t, m]].len() as u64)
                .sum()
        })
        .collect();
    let bins = match workload.machines {
        None => column_bins.iter().sum::<u64>(),
        Some(n) => column_bins
            .iter()
            .copied()
            .max()
            .unwrap_or(0)
            .saturating_mul(n as u64),
    };
    let cells = types.saturating_mul(machines);
    let pet = bins
        .saturating_mul(BYTES_PER_BIN)
        .saturating_add(cells.saturating_mul(BYTES_PER_CELL));
    let longest = pmfs
        .iter()
        .map(|p| p.max().max(1) as u64)
        .max()
        .unwrap_or(1);
    // A generated trial keeps the first `tasks` arrivals of `rate` expected ones (their count
    // varies by `count_variance_ratio`: 50% headroom).
    let tasks_per_trial = shape.tasks.unwrap_or_else(|| {
        (workload.tasks as u64).min(saturate((workload.rate * 1.5).ceil()).max(1))
    });
    let per_task = if config.trace {
        BYTES_PER_TASK + BYTES_PER_TRACED_TASK
    } else {
        BYTES_PER_TASK
    };
    // The belief's copies of the PET.
    let mut samples = 0;
    let belief = match &config.belief {
        None => 0,
        Some(b) if b.source == BeliefSource::Oracle => 0,
        Some(b) => {
            let prior = match b.prior.unwrap_or_default() {
                PriorKind::Flat => cells.saturating_mul(cell_bytes(longest)),
                PriorKind::Etc => b
                    .path
                    .as_deref()
                    .and_then(|p| std::fs::metadata(p).ok())
                    .map_or(pet, |m| pet.max(m.len().saturating_mul(BYTES_PER_ETC_BYTE))),
                PriorKind::Samples => {
                    samples = (b.samples.unwrap_or(1) as u64).saturating_mul(BYTES_PER_SAMPLE);
                    pet
                }
                PriorKind::Truth | PriorKind::Scaled => {
                    let s = b.scale.unwrap_or(1.0).max(1.0);
                    saturate(pet as f64 * s)
                }
            };
            if b.source == BeliefSource::Learned {
                prior.saturating_mul(LEARNED_PET_COPIES)
            } else {
                prior
            }
        }
    };
    // The drifted PETs: entry k holds the PET with its bins scaled by the product of the
    // scales up to k; largest scales first bounds any order.
    let mut scales: Vec<f64> = config
        .drift
        .iter()
        .map(|d| d.scale.unwrap_or(1.0).max(1.0))
        .collect();
    scales.sort_by(|a, b| b.total_cmp(a));
    let mut factor = 1.0_f64;
    let mut sum = 0.0_f64;
    for s in &scales {
        factor *= s;
        sum += factor;
    }
    let drift = if scales.is_empty() {
        0
    } else {
        // Two more of the largest while the schedule is built.
        let pet_bins = (bins as f64) * BYTES_PER_BIN as f64;
        let per_cell = (cells as f64) * BYTES_PER_CELL as f64;
        saturate(pet_bins * (sum + 2.0 * factor) + per_cell * (scales.len() as f64 + 2.0))
    };
    let skipped = (config.system.skip_first + config.system.skip_last) as u64;
    let counted = tasks_per_trial.saturating_sub(skipped);
    let bracket = if shape.with_bound {
        let ticks = saturate(workload.horizon / workload.tick)
            .saturating_add(longest.saturating_mul(4))
            .min(BRACKET_MAX_TICKS);
        counted
            .saturating_mul(machines)
            .saturating_mul(BYTES_PER_BRACKET_PAIR)
            .saturating_add(ticks.saturating_mul(BYTES_PER_BRACKET_TICK))
    } else {
        0
    };
    let per_trial = tasks_per_trial
        .saturating_mul(per_task)
        .saturating_add(machines.saturating_mul(BYTES_PER_MACHINE))
        .saturating_add(pet)
        .saturating_add(belief)
        .saturating_add(samples)
        .saturating_add(drift)
        .saturating_add(bracket);
    let in_flight = shape.trials.min(shape.threads.max(1) as u64).max(1);
    let report = if shape.report && config.trace {
        tasks_per_trial
            .saturating_mul(shape.trials)
            .saturating_mul(BYTES_PER_REPORTED_TASK)
    } else {
        0
    };
    let held = BASE_BYTES
        .saturating_add(pet)
        .saturating_add(shape.trials.saturating_mul(BYTES_PER_TRIAL))
        .saturating_add(report);
    Footprint {
        pet,
        tasks_per_trial,
        per_trial,
        bracket,
        drift,
        in_flight,
        held,
        total: held.saturating_add(per_trial.saturating_mul(in_flight)),
    }
}

/// How to raise the budget, for the messages that refuse a run.
pub const RAISE_BUDGET: &str = "--max-memory SIZE (e.g. --max-memory 32GiB)";

/// Refuses a footprint above `budget` bytes, saying what to change.
pub fn check(footprint: &Footprint, budget: u64) -> Result<(), RunError> {
    if footprint.total <= budget {
        return Ok(());
    }
    Err(RunError::Input(format!(
        "this run needs {footprint}, more than the memory budget of {}: use fewer machines, \
         tasks or --jobs, --no-bound (the bracket is per counted task and machine), or raise \
         the budget with {RAISE_BUDGET} (default {:.0}% of this machine's memory)",
        bytes(budget),
        DEFAULT_BUDGET_SHARE * 100.0
    )))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn config(text: &str) -> ExperimentConfig {
        ExperimentConfig::from_toml_str(
            &format!("[workload]\nseed = 1\n{text}\n[mapper]\nname = \"PAM\"\n"),
            "e.toml",
            None,
        )
        .unwrap()
    }

    fn footprint(text: &str, trials: u64, threads: usize, with_bound: bool) -> Footprint {
        let c = config(text);
        let pet = c.workload.source_pet().unwrap();
        estimate(&RunShape {
            config: &c,
            source_pet: &pet,
            tasks: None,
            trials,
            threads,
            with_bound,
            report: false,
        })
    }

    #[test]
    fn the_estimate_grows_with_machines_tasks_and_threads() {
        let small = footprint("rate = 34000\n", 30, 2, true);
        assert_eq!(small.tasks_per_trial, 800);
        assert_eq!(small.in_flight, 2);
        // The default experiment fits in well under 1 GiB.
        assert!(small.total < 1 << 30, "{small}");
        let machines = footprint("rate = 34000\nmachines = 10000000\n", 30, 2, true);
        assert!(machines.total > 100 << 30, "{machines}");
        // 10^5 machines: one trial without the bracket needs more than 8 GiB (measured: two
        // copies of a 7 GiB PET).
        let many = footprint("rate = 34000\nmachines = 100000\n", 1, 1, false);
        assert!(many.total > 12 << 30, "{many}");
        // tasks = 1e9 at a rate of 1e15: a billion tasks per trial.
        let tasks = footprint("rate = 1e15\ntasks = 1000000000\n", 1, 1, false);
        assert_eq!(tasks.tasks_per_trial, 1_000_000_000);
        assert!(check(&tasks, 8 << 30).is_err());
        // The rate caps the tasks a trial can have.
        let few = footprint("rate = 100\ntasks = 1000000\n", 1, 1, false);
        assert_eq!(few.tasks_per_trial, 150);
        // One trial in flight when there is one trial, whatever the threads.
        assert_eq!(footprint("rate = 34000\n", 1, 64, true).in_flight, 1);
    }

    #[test]
    fn samples_and_chained_drifts_are_counted() {
        let plain = footprint("rate = 34000\n", 1, 1, false);
        let samples = footprint(
            "rate = 34000\n[belief]\nsource = \"fixed\"\nprior = \"samples\"\nsamples = 1000000\n",
            1,
            1,
            false,
        );
        // The most draws a cell may have (10^6), 96 bytes each.
        assert!(
            samples.total >= plain.total + 1_000_000 * 96,
            "{samples} vs {plain}"
        );
        let drift: String = (1..=20)
            .map(|i| format!("[[drift]]\nat = {i}.0\nscale = 2.0\n"))
            .collect();
        let drifted = footprint(&format!("rate = 34000\n{drift}"), 1, 1, false);
        // 2^21 times the PET's bins, at least.
        assert!(
            drifted.drift > plain.pet.saturating_mul(1 << 20),
            "{drifted}"
        );
        assert!(check(&drifted, 8 << 30).is_err());
        let message = check(&drifted, 1 << 30).unwrap_err().to_string();
        assert!(message.contains("drifted PETs"), "{message}");
        assert!(message.contains("--max-memory"), "{message}");
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
