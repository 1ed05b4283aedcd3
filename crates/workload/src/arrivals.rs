//! Arrival trials: tasks with arrival times and deadlines (thesis 3.4.2, paper VI-B,
//! JPDC-2016 7.2).

use std::cmp::Ordering;
use std::collections::BinaryHeap;

use rand::Rng;
use rand_chacha::ChaCha12Rng;
use rand_distr::{Distribution, Exp1, Normal};
use serde::{Deserialize, Serialize};

use crate::error::WorkloadError;
use crate::pet::Pet;
use crate::rng::{Purpose, stream, substream};

/// The paper's horizon: a rate label R means R tasks over 88,200 time units (24.5 hours in
/// seconds).
pub const PAPER_HORIZON: f64 = 88_200.0;

/// The number of tasks of every trial of the thesis' experiments.
pub const PAPER_TASKS: usize = 800;

/// One task: its type (a row of the PET), arrival time and deadline, in real time units.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct Task {
    /// The task type: a row of the PET.
    pub task_type: usize,
    /// When the task arrives.
    pub arrival: f64,
    /// Its hard deadline `delta` (thesis eq. 3.7 for generated tasks).
    pub deadline: f64,
}

/// A workload trial: tasks sorted by arrival time. A task's index is its id.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Trial {
    /// The tasks, sorted by arrival (ties keep their input order).
    pub tasks: Vec<Task>,
}

impl Trial {
    /// A trial of the given tasks, sorted by arrival time with a stable sort (tasks arriving
    /// at the same time keep their order).
    pub fn new(mut tasks: Vec<Task>) -> Trial {
        tasks.sort_by(|a, b| a.arrival.total_cmp(&b.arrival));
        Trial { tasks }
    }

    /// The time between the first and the last arrival (0 with fewer than two tasks).
    pub fn span(&self) -> f64 {
        match (self.tasks.first(), self.tasks.last()) {
            (Some(a), Some(b)) => b.arrival - a.arrival,
            _ => 0.0,
        }
    }

    /// Number of tasks.
    pub fn len(&self) -> usize {
        self.tasks.len()
    }

    /// True when the trial has no task.
    pub fn is_empty(&self) -> bool {
        self.tasks.is_empty()
    }

    /// Number of tasks of each task type, for `n_types` types (types beyond are not counted).
    pub fn type_counts(&self, n_types: usize) -> Vec<usize> {
        let mut c = vec![0; n_types];
        for t in &self.tasks {
            if let Some(x) = c.get_mut(t.task_type) {
                *x += 1;
            }
        }
        c
    }
}

/// The bursty pattern's parameters (JPDC-2016 7.2). Each task type alternates, starting with a
/// baseline interval, between baseline intervals whose length is uniform in
/// `baseline_duration` and whose rate is the type's mean rate times a factor uniform in
/// `baseline_factor`, and burst intervals likewise from `burst_duration` and `burst_factor`.
/// Every range is `[low, high]`.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct BurstParams {
    /// Length of a baseline interval, time units (default [180, 300]).
    pub baseline_duration: [f64; 2],
    /// Rate multiplier during a baseline interval (default [0.5, 0.75]).
    pub baseline_factor: [f64; 2],
    /// Length of a burst interval, time units (default [30, 90]).
    pub burst_duration: [f64; 2],
    /// Rate multiplier during a burst interval (default [1.25, 1.5]).
    pub burst_factor: [f64; 2],
}

impl Default for BurstParams {
    fn default() -> Self {
        BurstParams {
            baseline_duration: [180.0, 300.0],
            baseline_factor: [0.5, 0.75],
            burst_duration: [30.0, 90.0],
            burst_factor: [1.25, 1.5],
        }
    }
}

impl BurstParams {
    /// The long-run average of the rate multiplier: time-weighted mean of the two kinds of
    /// interval. With the JPDC-2016 defaults it is (0.625 * 240 + 1.375 * 60) / 300 = 0.775:
    /// as in JPDC-2016, the bursty pattern multiplies the mean rate, so it brings fewer tasks
    /// per unit of time than the constant one at the same rate label.
    pub fn mean_factor(&self) -> f64 {
        let mid = |r: [f64; 2]| (r[0] + r[1]) / 2.0;
        let (db, dr) = (mid(self.baseline_duration), mid(self.burst_duration));
        (mid(self.baseline_factor) * db + mid(self.burst_factor) * dr) / (db + dr)
    }

    /// Checks the ranges: finite, `low <= high`, durations positive, factors non-negative.
    pub fn validate(&self) -> Result<(), WorkloadError> {
        let check = |field: &'static str, r: [f64; 2], positive: bool| {
            let ok = r[0].is_finite()
                && r[1].is_finite()
                && r[0] <= r[1]
                && if positive { r[0] > 0.0 } else { r[0] >= 0.0 };
            if ok {
                Ok(())
            } else {
                Err(WorkloadError::InvalidSpec {
                    field,
                    expected: if positive {
                        "a range [low, high] of finite numbers with 0 < low <= high"
                    } else {
                        "a range [low, high] of finite numbers with 0 <= low <= high"
                    },
                    found: format!("{r:?}"),
                })
            }
        };
        check("burst.baseline_duration", self.baseline_duration, true)?;
        check("burst.baseline_factor", self.baseline_factor, false)?;
        check("burst.burst_duration", self.burst_duration, true)?;
        check("burst.burst_factor", self.burst_factor, false)
    }
}

/// How arrivals are spread in time.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Pattern {
    /// A Poisson process per task type at the type's mean rate (thesis 3.4.2).
    Constant,
    /// Baseline and burst intervals per task type (JPDC-2016 7.2).
    Bursty(BurstParams),
}

impl Pattern {
    /// The long-run factor of the pattern on the rate: 1 for constant arrivals,
    /// [`BurstParams::mean_factor`] for bursty ones (the tasks that arrive over the horizon
    /// are the rate label times this factor, on average).
    pub fn mean_factor(&self) -> f64 {
        match self {
            Pattern::Constant => 1.0,
            Pattern::Bursty(b) => b.mean_factor(),
        }
    }
}

/// What a trial looks like: the rate label, the horizon, the number of tasks kept, the
/// pattern and the deadline slack.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ArrivalSpec {
    /// The rate label R (the paper's "19k", "34k"): R tasks arrive over `horizon`.
    pub rate: f64,
    /// The time over which `rate` tasks arrive (88,200 in the paper).
    pub horizon: f64,
    /// Keep only the first `tasks` arrivals (800 in every thesis experiment).
    pub tasks: usize,
    /// Constant or bursty arrivals.
    pub pattern: Pattern,
    /// The slack coefficient beta of eq. (3.7) (1 in the paper).
    pub beta: f64,
    /// The expected count of each task type is Gaussian with mean `rate / types` and variance
    /// `count_variance_ratio` times the mean (0.1: "the variance is 10% of the mean").
    pub count_variance_ratio: f64,
}

impl ArrivalSpec {
    /// The paper's setting for a rate label: 88,200 time units, 800 tasks, constant pattern,
    /// beta = 1, count variance 10% of the mean.
    pub fn paper(rate: f64) -> ArrivalSpec {
        ArrivalSpec {
            rate,
            horizon: PAPER_HORIZON,
            tasks: PAPER_TASKS,
            pattern: Pattern::Constant,
            beta: 1.0,
            count_variance_ratio: 0.1,
        }
    }

    /// Checks every field: rate and horizon finite and positive, at least one task, beta and
    /// the variance ratio finite and non-negative, burst ranges valid, and burst durations
    /// long enough that at most [`MAX_BURST_INTERVALS`] intervals fit in the horizon.
    pub fn validate(&self) -> Result<(), WorkloadError> {
        let err = |field, expected, found: String| {
            Err(WorkloadError::InvalidSpec {
                field,
                expected,
                found,
            })
        };
        if !(self.rate.is_finite() && self.rate > 0.0) {
            return err("rate", "a finite positive number", self.rate.to_string());
        }
        if !(self.horizon.is_finite() && self.horizon > 0.0) {
            return err(
                "horizon",
                "a finite positive number",
                self.horizon.to_string(),
            );
        }
        if self.tasks == 0 {
            return err("tasks", "at least 1", "0".into());
        }
        if !(self.beta.is_finite() && self.beta >= 0.0) {
            return err("beta", "a finite number >= 0", self.beta.to_string());
        }
        if !(self.count_variance_ratio.is_finite() && self.count_variance_ratio >= 0.0) {
            return err(
                "count_variance_ratio",
                "a finite number >= 0",
                self.count_variance_ratio.to_string(),
            );
        }
        if let Pattern::Bursty(b) = &self.pattern {
            b.validate()?;
            self.check_interval_count(b)?;
        }
        Ok(())
    }

    /// Bounds the number of baseline and burst intervals a type may go through before the
    /// horizon (at most [`MAX_BURST_INTERVALS`] of the shortest kind). Without it, durations
    /// tiny against the horizon made generation loop for hours, or forever once
    /// `start + duration == start` (found by `fuzz/`, target `workload_toml`).
    fn check_interval_count(&self, b: &BurstParams) -> Result<(), WorkloadError> {
        for (field, r) in [
            ("burst.baseline_duration", b.baseline_duration),
            ("burst.burst_duration", b.burst_duration),
        ] {
            if self.horizon / r[0] > MAX_BURST_INTERVALS {
                return Err(WorkloadError::InvalidSpec {
                    field,
                    expected: "durations of at least horizon / 1,000,000 (at most a million intervals over the horizon)",
                    found: format!("{r:?} with horizon {}", self.horizon),
                });
            }
        }
        Ok(())
    }
}

/// The most baseline (or burst) intervals of the shortest duration that fit in the horizon;
/// see [`ArrivalSpec::validate`]. The JPDC-2016 setting has about 500.
pub const MAX_BURST_INTERVALS: f64 = 1e6;

/// The arrival process of one task type: yields its arrival times in increasing order,
/// stopping at the horizon.
struct TypeArrivals {
    rng: ChaCha12Rng,
    /// The type's mean rate, tasks per time unit.
    rate: f64,
    horizon: f64,
    /// Time of the last arrival (or the start of the current interval).
    now: f64,
    burst: Option<BurstState>,
}

struct BurstState {
    params: BurstParams,
    /// End of the current interval.
    end: f64,
    /// Rate multiplier of the current interval.
    factor: f64,
    /// Whether the current interval is a burst.
    in_burst: bool,
}

/// A uniform draw in `[r[0], r[1]]` (`r[0]` when the range is a point).
fn uniform(rng: &mut ChaCha12Rng, r: [f64; 2]) -> f64 {
    if r[1] > r[0] {
        rng.random_range(r[0]..=r[1])
    } else {
        r[0]
    }
}

impl BurstState {
    /// Starts the next interval at `start`: a burst after a baseline, a baseline after a
    /// burst. Draws the duration, then the factor.
    fn next_interval(&mut self, rng: &mut ChaCha12Rng, start: f64) {
        self.in_burst = !self.in_burst;
        let (d, f) = if self.in_burst {
            (self.params.burst_duration, self.params.burst_factor)
        } else {
            (self.params.baseline_duration, self.params.baseline_factor)
        };
        self.end = start + uniform(rng, d);
        self.factor = uniform(rng, f);
    }
}

impl TypeArrivals {
    fn new(mut rng: ChaCha12Rng, rate: f64, horizon: f64, pattern: &Pattern) -> Self {
        let burst = match pattern {
            Pattern::Constant => None,
            Pattern::Bursty(params) => {
                // `next_interval` flips the kind: starting "in a burst" makes the first
                // interval a baseline one.
                let mut s = BurstState {
                    params: *params,
                    end: 0.0,
                    factor: 0.0,
                    in_burst: true,
                };
                s.next_interval(&mut rng, 0.0);
                Some(s)
            }
        };
        TypeArrivals {
            rng,
            rate,
            horizon,
            now: 0.0,
            burst,
        }
    }

    /// An exponential gap of rate `rate`.
    fn gap(&mut self, rate: f64) -> f64 {
        let e: f64 = Exp1.sample(&mut self.rng);
        e / rate
    }
}

impl Iterator for TypeArrivals {
    type Item = f64;

    fn next(&mut self) -> Option<f64> {
        if self.rate.is_nan() || self.rate <= 0.0 || self.now >= self.horizon {
            return None;
        }
        match &self.burst {
            None => {
                let t = self.now + self.gap(self.rate);
                self.now = t;
                (t < self.horizon).then_some(t)
            }
            Some(_) => loop {
                // A piecewise-constant rate: draw a gap at the current interval's rate; if it
                // ends past the interval, restart from the interval's end at the next rate
                // (exact by memorylessness of the exponential).
                let (end, factor) = match &self.burst {
                    Some(b) => (b.end, b.factor),
                    None => return None,
                };
                let rate = self.rate * factor;
                let t = if rate > 0.0 {
                    self.now + self.gap(rate)
                } else {
                    f64::INFINITY
                };
                if t < end {
                    self.now = t;
                    return (t < self.horizon).then_some(t);
                }
                self.now = end;
                if end >= self.horizon {
                    return None;
                }
                let mut state = self.burst.take()?;
                state.next_interval(&mut self.rng, end);
                self.burst = Some(state);
            },
        }
    }
}

/// An arrival waiting in the merge heap, ordered so that the heap pops the earliest arrival,
/// and among equal arrivals the lowest task type.
struct Next {
    arrival: f64,
    task_type: usize,
}

impl PartialEq for Next {
    fn eq(&self, other: &Self) -> bool {
        self.cmp(other) == Ordering::Equal
    }
}
impl Eq for Next {}
impl PartialOrd for Next {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}
impl Ord for Next {
    fn cmp(&self, other: &Self) -> Ordering {
        // Reversed: BinaryHeap is a max-heap.
        other
            .arrival
            .total_cmp(&self.arrival)
            .then(other.task_type.cmp(&self.task_type))
    }
}

/// The expected number of tasks of each task type over the horizon: Gaussian with mean
/// `rate / types` and variance `count_variance_ratio * mean`, floored at 0 (thesis 3.4.2,
/// JPDC-2016 7.2). Drawn from the trial's arrival stream, types in order.
pub fn type_counts(n_types: usize, spec: &ArrivalSpec, seed: u64, trial: u64) -> Vec<f64> {
    let mut rng = stream(seed, trial, Purpose::Arrivals);
    let mean = spec.rate / n_types as f64;
    let sd = (spec.count_variance_ratio * mean).sqrt();
    match Normal::new(mean, sd) {
        Ok(normal) => (0..n_types)
            .map(|_| normal.sample(&mut rng).max(0.0))
            .collect(),
        Err(_) => vec![0.0; n_types],
    }
}

/// Generates trial `trial` of a sweep with master seed `seed` (thesis 3.4.2, paper VI-B,
/// JPDC-2016 7.2).
///
/// 1. The expected count `n_i` of each task type is drawn by [`type_counts`]; the type's mean
///    rate is `n_i / horizon`.
/// 2. Each type's arrivals are a Poisson process at that rate ([`Pattern::Constant`]), or at
///    that rate times the factor of the current baseline or burst interval
///    ([`Pattern::Bursty`]); arrivals stop at the horizon. Type `i` draws from its own
///    [`substream`]`(seed, trial, Purpose::Arrivals, i)`.
/// 3. The types' arrivals are merged in time order and the first `spec.tasks` kept (fewer if
///    the horizon ends first). Only the draws needed are made.
/// 4. Deadlines follow eq. (3.7): `arrival + pet.avg_type(i) + beta * pet.avg_all()`,
///    evaluated in that order.
///
/// The result depends only on `(pet, spec, seed, trial)`. An invalid spec (see
/// [`ArrivalSpec::validate`]) gives an empty trial; [`try_generate_trial`] reports it instead.
pub fn generate_trial(pet: &Pet, spec: &ArrivalSpec, seed: u64, trial: u64) -> Trial {
    if spec.validate().is_err() {
        return Trial::default();
    }
    let n_types = pet.n_types();
    let counts = type_counts(n_types, spec, seed, trial);
    let mut sources: Vec<TypeArrivals> = counts
        .iter()
        .enumerate()
        .map(|(i, &n)| {
            TypeArrivals::new(
                substream(seed, trial, Purpose::Arrivals, i as u64),
                n / spec.horizon,
                spec.horizon,
                &spec.pattern,
            )
        })
        .collect();
    let mut heap = BinaryHeap::with_capacity(n_types);
    for (task_type, src) in sources.iter_mut().enumerate() {
        if let Some(arrival) = src.next() {
            heap.push(Next { arrival, task_type });
        }
    }
    // `tasks` may be huge ("all arrivals up to the horizon"): do not trust it for capacity.
    let mut tasks = Vec::with_capacity(spec.tasks.min(1 << 16));
    while tasks.len() < spec.tasks {
        let Some(Next { arrival, task_type }) = heap.pop() else {
            break;
        };
        tasks.push(Task {
            task_type,
            arrival,
            deadline: arrival + pet.avg_type(task_type) + spec.beta * pet.avg_all(),
        });
        if let Some(arrival) = sources[task_type].next() {
            heap.push(Next { arrival, task_type });
        }
    }
    Trial { tasks }
}

/// As [`generate_trial`], returning an error for an invalid spec.
pub fn try_generate_trial(
    pet: &Pet,
    spec: &ArrivalSpec,
    seed: u64,
    trial: u64,
) -> Result<Trial, WorkloadError> {
    spec.validate()?;
    Ok(generate_trial(pet, spec, seed, trial))
}
