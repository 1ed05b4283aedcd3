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
//!   * its tasks, [`BYTES_PER_TASK`] each (and [`BYTES_PER_TRACED_TASK`] more when traced).
//!     A generated trial's tasks are bounded from its type counts: the trials' own draws
//!     (thesis 3.4.2: Gaussian, variance `count_variance_ratio` times the mean, up to
//!     [`COUNT_DRAW_TRIALS`] trials; beyond, [`POISSON_SIGMAS`] standard deviations above
//!     each type's mean), times the largest factor of a bursty pattern, and the Poisson
//!     count of arrivals around that mean at [`POISSON_SIGMAS`] ([`poisson_bound`]); at
//!     most `tasks`;
//!   * its machines, [`BYTES_PER_MACHINE`] each (the queue's state);
//!   * the completion-time PMFs (PCTs) of the machine queues, [`BYTES_PER_QUEUE_BIN`] per
//!     bin ([`queue_bins`]), and the oracle's spare buffers (up to [`QUEUE_SPARE_BYTES`]).
//!     The `k`-th PCT of a queue (the executing task's the first) spans about `k` times
//!     the PMFs' width (the mean width of the widest column of the PET, times the drift's
//!     and the belief's scale): a queue of `d` tasks holds `width * d (d + 1) / 2` bins,
//!     quadratic in its length. Under `drop_model = "none"` every task of the trial may
//!     be queued at once, in queues as deep as `system.queue_size` (the trial's tasks
//!     with an immediate heuristic's unbounded queues); otherwise no PCT reaches beyond the
//!     latest deadline in its queue, so none spans more than the longest slack (eq. 3.7, or
//!     the given trials' longest) plus the width, and the tasks queued at once are those
//!     that arrived within that slack (a Poisson bound over the horizon's windows);
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

use workload::{Pet, Trial};

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

/// Memory per bin of the completion-time PMFs (PCTs) kept for a machine queue
/// ([`queue_bins`]): the PCTs at the tick (8 bytes a bin), the same queue's PCTs of an
/// earlier tick kept as bounds, the tail's CDF, the PCTs a policy computes on them (the
/// virtual queues, the pruner's walk) and the buffers kept for reuse (measured: 2.2 copies
/// of 8 bytes at 8 machines with queues 50 to 300 deep under `drop_model = "none"`).
pub const BYTES_PER_QUEUE_BIN: u64 = 32;

/// The buffers of PCTs the oracle of a trial keeps for reuse: 64 of at most 512 KiB
/// (`model::Oracle`), counted up to the size of the queues' PCTs.
pub const QUEUE_SPARE_BYTES: u64 = 64 << 19;

/// A generated trial's count of tasks is bounded by the Poisson tail at this many standard
/// deviations (`λ + z √λ + z²`, `z` = this): exceeded with a probability below 10^-8.
pub const POISSON_SIGMAS: f64 = 6.0;

/// Trials whose type counts are drawn for the bound on the tasks of a trial (the draws the
/// trials make, per type one normal draw); beyond, the bound is taken from the count's
/// distribution ([`POISSON_SIGMAS`] standard deviations of every type's count).
pub const COUNT_DRAW_TRIALS: u64 = 100_000;

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
    /// Of `per_trial`, the completion-time PMFs of the machine queues ([`queue_bins`]).
    pub queues: u64,
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
        if self.queues >= 1 << 20 {
            write!(
                f,
                ", the machine queues' completion-time PMFs {}",
                bytes(self.queues)
            )?;
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

/// Estimates the peak memory of a run of `shape` ([the model](self)). With given trials
/// (`shape.tasks`), before they are read, their deadlines are taken as a generated trial's
/// (eq. 3.7 on the PET): [`estimate_given`] is the bound once they are read.
pub fn estimate(shape: &RunShape<'_>) -> Footprint {
    estimate_with(shape, None)
}

/// [`estimate`] of a run of the given `trials` (read from files): their most tasks and
/// their longest time from an arrival to its deadline in place of the file-size bound and
/// eq. (3.7).
pub fn estimate_given(shape: &RunShape<'_>, trials: &[Trial]) -> Footprint {
    let most = trials
        .iter()
        .map(|t| t.tasks.len() as u64)
        .max()
        .unwrap_or(0);
    let slack = trials
        .iter()
        .flat_map(|t| &t.tasks)
        .map(|t| saturate((t.deadline - t.arrival).ceil()).saturating_add(2))
        .max()
        .unwrap_or(0);
    estimate_with(
        &RunShape {
            tasks: Some(most),
            ..*shape
        },
        Some(slack),
    )
}

/// [`estimate`], with `slack` (ticks from an arrival to its deadline, at most) for given
/// trials.
///
/// One function because it is the sum of the memory model's terms, one after the other in
/// the order of the table in docs/reliability.md.
fn estimate_with(shape: &RunShape<'_>, given_slack: Option<u64>) -> Footprint {
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
    // A generated trial keeps the first `tasks` of its arrivals, whose count is bounded from
    // its trials' type counts.
    let arrivals = shape
        .tasks
        .is_none()
        .then(|| expected_arrivals(workload, source, shape.trials));
    let tasks_per_trial = shape.tasks.unwrap_or_else(|| {
        (workload.tasks as u64).min(poisson_bound(arrivals.unwrap_or(0.0), POISSON_SIGMAS))
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
                // One tick per cell.
                PriorKind::None => cells.saturating_mul(cell_bytes(1)),
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
                // Each machine's column is another's: at most the widest column on every one.
                PriorKind::Permuted => column_bins
                    .iter()
                    .copied()
                    .max()
                    .unwrap_or(0)
                    .saturating_mul(machines)
                    .saturating_mul(BYTES_PER_BIN)
                    .saturating_add(cells.saturating_mul(BYTES_PER_CELL))
                    .max(pet),
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
    // The machine queues' PCTs: the PMFs of a queue as wide, on average, as those of the
    // widest column, widened by the drift and the belief's scale.
    let widest = column_bins
        .iter()
        .map(|&b| b.div_ceil(types.max(1)))
        .max()
        .unwrap_or(1);
    let mut width = saturate(widest as f64 * factor.max(belief_scale(config)));
    if config
        .belief
        .as_ref()
        .is_some_and(|b| b.source != BeliefSource::Oracle && b.prior == Some(PriorKind::Flat))
    {
        width = width.max(longest.saturating_add(1));
    }
    let slack = given_slack.unwrap_or_else(|| eq_3_7_slack(source, workload));
    let queues = queue_term(
        config,
        &QueueShape {
            machines,
            tasks: tasks_per_trial,
            width,
            slack,
            arrivals,
        },
    );
    let per_trial = tasks_per_trial
        .saturating_mul(per_task)
        .saturating_add(machines.saturating_mul(BYTES_PER_MACHINE))
        .saturating_add(queues)
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
        queues,
        in_flight,
        held,
        total: held.saturating_add(per_trial.saturating_mul(in_flight)),
    }
}

/// The scale by which the belief's PMFs may be wider than the truth's: a `truth` or
/// `scaled` prior's scale (at least 1).
fn belief_scale(config: &ExperimentConfig) -> f64 {
    match &config.belief {
        Some(b)
            if b.source != BeliefSource::Oracle
                && matches!(
                    b.prior.unwrap_or_default(),
                    PriorKind::Truth | PriorKind::Scaled
                ) =>
        {
            b.scale.unwrap_or(1.0).max(1.0)
        }
        _ => 1.0,
    }
}

/// The longest time from a generated task's arrival to its deadline, in ticks (eq. 3.7:
/// `avg_i + beta * avg_all`, and 2 ticks for the rounding of both up to the grid). With
/// `machines = N` the drawn machines' means are not known yet: `(1 + beta)` times the
/// largest mean of a cell bounds them.
fn eq_3_7_slack(source: &Pet, workload: &workload::WorkloadConfig) -> u64 {
    let slack = if workload.machines.is_some() {
        let largest = source.etc().iter().copied().fold(0.0, f64::max);
        (1.0 + workload.beta) * largest
    } else {
        (0..source.n_types())
            .map(|i| source.slack(i, workload.beta))
            .fold(0.0, f64::max)
    };
    saturate(slack.ceil()).saturating_add(2)
}

/// The expected arrivals of a generated trial over its horizon, the most of any of trials
/// `0..trials`: the sum of its type counts (thesis 3.4.2, [`workload::type_counts`], drawn
/// as the trials draw them, up to [`COUNT_DRAW_TRIALS`] trials; beyond, [`POISSON_SIGMAS`]
/// standard deviations above every type's mean), times the largest rate factor of a bursty
/// pattern.
///
/// The rate is resolved on `source`, the PET before `workload.machines` draws its machines:
/// for a `load` on drawn machines, on a bound of their capacity (every machine as fast as the
/// source's fastest column for the mix), so that the estimate never falls short.
pub fn expected_arrivals(
    workload: &workload::WorkloadConfig,
    source: &workload::Pet,
    trials: u64,
) -> f64 {
    let capacity = || match workload.machines {
        None => workload::capacity(source),
        Some(n) => {
            let etc = source.etc();
            let types = source.n_types().max(1) as f64;
            let fastest = (0..source.n_machines())
                .map(|j| types / etc.column(j).sum())
                .filter(|c| c.is_finite())
                .fold(0.0, f64::max);
            Ok(n as f64 * fastest)
        }
    };
    let Ok(rate) = workload.rate_label_for(capacity) else {
        return workload.tasks as f64;
    };
    let spec = workload.spec_with_rate(rate);
    let types = source.n_types().max(1);
    let counts = if trials <= COUNT_DRAW_TRIALS {
        (0..trials.max(1))
            .map(|k| {
                workload::type_counts(types, &spec, workload.seed, k)
                    .iter()
                    .sum::<f64>()
            })
            .fold(0.0, f64::max)
    } else {
        let mean = rate / types as f64;
        let sd = (workload.count_variance_ratio * mean).sqrt();
        types as f64 * (mean + POISSON_SIGMAS * sd)
    };
    let factor = match spec.pattern {
        workload::Pattern::Constant => 1.0,
        workload::Pattern::Bursty(b) => b.baseline_factor[1].max(b.burst_factor[1]),
    };
    counts * factor
}

/// A bound on a Poisson count of mean `mean`, exceeded with a probability below
/// `exp(-z^2 / 2)`: `mean + z sqrt(mean) + z^2` (Bernstein's inequality).
pub fn poisson_bound(mean: f64, z: f64) -> u64 {
    let mean = mean.max(0.0);
    saturate((mean + z * mean.sqrt() + z * z).ceil())
}

/// What the machine queues of a trial may hold at once ([`queue_term`]).
struct QueueShape {
    machines: u64,
    /// Tasks of the trial, at most.
    tasks: u64,
    /// The widest execution-time PMF the policies read, in bins.
    width: u64,
    /// The longest time from an arrival to its deadline, in ticks.
    slack: u64,
    /// A generated trial's expected arrivals over its horizon ([`expected_arrivals`]).
    arrivals: Option<f64>,
}

/// The bytes of the machine queues' PCTs of one trial in flight: [`queue_bins`] of the
/// queues' limit and dropping model at [`BYTES_PER_QUEUE_BIN`], and the spare buffers.
///
/// Under `drop_model = "none"` nothing leaves a queue before it runs: every task of the
/// trial may be queued at once, and the `k`-th PCT of a queue spans `k` PMFs. Otherwise a
/// queued task has not reached its deadline (late ones leave at each mapping event, the
/// only time tasks join queues), so the PCTs lie within `slack + width` ticks of the
/// tick, and the tasks queued at once are those that arrived within `slack` ticks (a
/// Poisson count, bounded over the horizon's windows), and one executing per machine.
fn queue_term(config: &ExperimentConfig, q: &QueueShape) -> u64 {
    let immediate = config
        .resolved()
        .ok()
        .and_then(|(h, _)| heuristics::is_immediate(&h.name))
        .unwrap_or(true);
    let limit = config
        .system
        .queue_size_for(immediate)
        .limit()
        .filter(|_| !immediate);
    let (in_system, cap) = if config.system.drop_model == pmf::DropModel::None {
        (q.tasks, None)
    } else {
        let alive = q.arrivals.map_or(q.tasks, |n| {
            let window = q.slack.max(1) as f64;
            let windows = (config.workload.horizon / window).ceil().max(1.0);
            // A window of `slack` ticks anywhere lies within two of the horizon's fixed
            // windows; the most of any of them at the union's level.
            let z = POISSON_SIGMAS + (2.0 * windows.ln()).sqrt();
            poisson_bound(n * window / config.workload.horizon, z).saturating_mul(2)
        });
        (
            q.tasks.min(alive.saturating_add(q.machines)),
            Some(q.slack.saturating_add(q.width)),
        )
    };
    let depth = limit.map_or(in_system, |l| l as u64);
    let bins = queue_bins(q.machines, depth, in_system, q.width, cap);
    let pcts = bins.saturating_mul(BYTES_PER_QUEUE_BIN);
    pcts.saturating_add(pcts.min(QUEUE_SPARE_BYTES))
}

/// The most bins the completion-time PMFs of `machines` queues of at most `depth` tasks
/// each hold, when at most `in_system` tasks are queued at once, every execution-time PMF
/// spans at most `width` bins and no PCT more than `cap` (`None`: unbounded): the `k`-th
/// PCT of a queue (the executing task's the first) spans at most `min(k * width, cap)`
/// bins, so a full queue of `d` holds `f(d) = sum over k <= d of min(k * width, cap)`;
/// `f` grows faster than linearly, so the most is in as few queues, as full as they may be:
/// `min(machines, ceil(in_system / d)) * f(d)`, `d = min(depth, in_system)`.
pub fn queue_bins(machines: u64, depth: u64, in_system: u64, width: u64, cap: Option<u64>) -> u64 {
    let d = u128::from(depth.min(in_system));
    if d == 0 {
        return 0;
    }
    let w = u128::from(width.max(1));
    let full = |k: u128| w * k * (k + 1) / 2;
    let per_queue = match cap.map(u128::from) {
        Some(c) if c / w < d => {
            let k0 = c / w;
            full(k0) + (d - k0) * c
        }
        _ => full(d),
    };
    let queues = u128::from(machines).min(u128::from(in_system).div_ceil(d));
    u64::try_from(per_queue.saturating_mul(queues)).unwrap_or(u64::MAX)
}

/// How to raise the budget, for the messages that refuse a run.
pub const RAISE_BUDGET: &str = "--max-memory SIZE (e.g. --max-memory 32GiB)";

/// Refuses a footprint above `budget` bytes, saying what to change.
pub fn check(footprint: &Footprint, budget: u64) -> Result<(), RunError> {
    if footprint.total <= budget {
        return Ok(());
    }
    let queues = if footprint.queues > footprint.per_trial / 2 {
        " a shorter system.queue_size or a drop_model other than \"none\" (a queue's \
         completion-time PMFs grow with its length times its PMFs' width),"
    } else {
        ""
    };
    Err(RunError::Input(format!(
        "this run needs {footprint}, more than the memory budget of {}: use fewer machines, \
         tasks or --jobs,{queues} --no-bound (the bracket is per counted task and machine), \
         or raise the budget with {RAISE_BUDGET} (default {:.0}% of this machine's memory)",
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
        // The rate caps the tasks a trial can have (the Poisson bound of about 100).
        let few = footprint("rate = 100\ntasks = 1000000\n", 1, 1, false);
        assert!((100..250).contains(&few.tasks_per_trial), "{few}");
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
    fn the_queues_pcts_are_counted_by_hand() {
        // 8 queues of 300, 1,000 tasks, PMFs of 100 bins, nothing dropped: the k-th PCT of
        // a queue spans 100 k bins, a full queue 100 * 300 * 301 / 2 = 4,515,000, and the
        // 1,000 tasks fill at most ceil(1000 / 300) = 4 queues.
        assert_eq!(queue_bins(8, 300, 1000, 100, None), 4 * 4_515_000);
        // PCTs of at most 250 bins: 100, 200, then 250 for the other 298 slots.
        assert_eq!(
            queue_bins(8, 300, 1000, 100, Some(250)),
            4 * (300 + 298 * 250)
        );
        // Fewer tasks than one queue holds: one queue of them.
        assert_eq!(queue_bins(8, 300, 10, 100, None), 100 * 10 * 11 / 2);
        // More queues than machines: every machine full.
        assert_eq!(queue_bins(2, 3, 1000, 10, None), 2 * 60);
        assert_eq!(queue_bins(8, 0, 1000, 10, None), 0);
        // Saturates instead of overflowing.
        assert_eq!(
            queue_bins(1 << 40, 1 << 40, 1 << 62, 1 << 30, None),
            u64::MAX
        );
    }

    #[test]
    fn a_deep_queue_without_drops_is_counted_in_the_estimate() {
        // Queues of 300 on the default PET (8 machines), 5,000 tasks, nothing dropped: every
        // machine's queue full, at the mean width of the widest column.
        let deep = footprint(
            "rate = 200000\ntasks = 5000\n[system]\nqueue_size = 300\ndrop_model = \"none\"",
            1,
            1,
            false,
        );
        let c = config("rate = 200000\ntasks = 5000\n");
        let pet = c.workload.source_pet().unwrap();
        let width = (0..pet.n_machines())
            .map(|m| {
                (0..pet.n_types())
                    .map(|t| pet.pmf(t, m).len() as u64)
                    .sum::<u64>()
                    .div_ceil(pet.n_types() as u64)
            })
            .max()
            .unwrap();
        let bins = 8 * width * 300 * 301 / 2;
        let pcts = bins * BYTES_PER_QUEUE_BIN;
        assert_eq!(deep.queues, pcts + QUEUE_SPARE_BYTES);
        assert!(deep.total > 1 << 30, "{deep}");
        // The same queues when late tasks are dropped: the PCTs end at the latest deadline.
        let dropped = footprint(
            "rate = 200000\ntasks = 5000\n[system]\nqueue_size = 300\ndrop_model = \"all\"",
            1,
            1,
            false,
        );
        assert!(dropped.queues < deep.queues / 4, "{dropped} vs {deep}");
        // The default run: queues of 6, a few MiB.
        let plain = footprint("rate = 34000\n", 1, 1, false);
        assert!(plain.queues < 4 << 20, "{plain}");
        // Refused naming the queue's length and the dropping model.
        let message = check(&deep, 1 << 30).unwrap_err().to_string();
        assert!(message.contains("queue_size"), "{message}");
    }

    #[test]
    fn the_tasks_of_a_trial_are_bounded_from_their_counts() {
        // No variance: 100 expected arrivals, a Poisson count bounded at
        // 100 + 6 * 10 + 36 = 196.
        let few = footprint(
            "rate = 100\ntasks = 1000000\ncount_variance_ratio = 0\n",
            1,
            1,
            false,
        );
        assert_eq!(few.tasks_per_trial, 196);
        assert_eq!(poisson_bound(100.0, 6.0), 196);
        assert_eq!(poisson_bound(0.0, 6.0), 36);
        // A huge variance: the trials' own type counts bound them, well beyond 1.5 x rate.
        let text = "rate = 34000\ntasks = 100000000\ncount_variance_ratio = 1e8\n";
        let wide = footprint(text, 3, 1, false);
        let c = config(text);
        let pet = c.workload.source_pet().unwrap();
        let most = (0..3)
            .map(|k| c.workload.trial(&pet, k).unwrap().len())
            .max()
            .unwrap() as u64;
        assert!(most > 1_000_000, "{most}");
        assert!(wide.tasks_per_trial >= most, "{wide} vs {most}");
        assert!(wide.tasks_per_trial < most * 2, "{wide} vs {most}");
        // Beyond the trials drawn, the distribution's bound: above the drawn one.
        let c = config(text);
        let drawn = expected_arrivals(&c.workload, &pet, 3);
        let tail = expected_arrivals(&c.workload, &pet, COUNT_DRAW_TRIALS + 1);
        assert!(tail > drawn, "{tail} vs {drawn}");
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
