//! The simulation study of Hansen et al. §IV-§V: random scenarios, figs. 4 and 5.
//!
//! # Settings (the paper's where it gives them, ours otherwise)
//! | quantity | value | source |
//! |---|---|---|
//! | time grid | [`TICKS_PER_TIME_UNIT`] = 10 ticks per time unit | ours |
//! | mean serial time `mu_task` | [`MEAN_TASK_TIME`] = 100 time units (1000 ticks) | ours |
//! | task / machine heterogeneity | `V_task = 0.3`, `V_mach = 0.5` (COV method) | ours, after Ali et al. 2000 |
//! | execution-time COV | uniform in `[0.1, 0.3]` per (application, type) | ours |
//! | Downey `A` | log-uniform in `[8, 128]` | ours (log-uniform after Downey 1998) |
//! | Downey `sigma` | uniform in `[0, 2]` | ours (Downey's range of low and high variance) |
//! | availability | `Beta(20, (g_j - 1) 19)`, `g_j` around `Gamma` | ours, see [`crate::slowdown`] |
//! | `Gamma` | low 1.1, mixed 1.36, high 1.6 | paper §V |
//! | `N_a`, `tau`, `N_p`, trials, `Lambda` | 32, 256, 4 (fig. 4) or 1..16 (fig. 5), 48, 0.01 | paper §V |
//! | `n_j` | `tau / M` blocks of `M = tau / N_a`: one per type, the rest to uniform random types | ours (paper: "varies between types", multiples of `M`) |
//!
//! With `mu_task = 1000` ticks the serial PMFs span a few hundred to a few thousand bins
//! (typically 1300 to 2300) and the slowdown PMFs about 150 (low) to 400 (high) bins at 0.01
//! resolution; `Delta` is a few hundred ticks and the thresholds `Delta S(k)` that matter
//! (`k` near `M` and above) around a thousand, so one tick is under 1 % of the makespan goal
//! and about 0.1 % of the thresholds.
//!
//! # Randomness
//! Every random draw comes from a `ChaCha12Rng` keyed by (master seed, experiment point, trial)
//! with the stream number naming the purpose ([`Purpose`]). A trial is a function of its
//! index, its experiment point and the seed ([`run_trial`]): a caller may run trials in
//! parallel and collect them by index (the sweep engine of `runner` does); [`run_trials`] runs
//! them one after the other.

use std::io::Write;

use pmf::Pmf;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha12Rng;
use serde::{Deserialize, Serialize};
use statrs::distribution::{ContinuousCDF, StudentsT};

use crate::bound::{normalised_gap, upper_bound};
use crate::distributions::{CovParams, cov_method, gamma_pmf};
use crate::error::{MoldableError, check};
use crate::heuristics::Heuristic;
use crate::robustness::{Application, Instance, ProcessorType};
use crate::slowdown::{SlowdownCategory, type_availabilities};
use crate::speedup::Downey;

/// Ticks per time unit of the model.
pub const TICKS_PER_TIME_UNIT: f64 = 10.0;

/// Mean serial execution time over all applications, in time units.
pub const MEAN_TASK_TIME: f64 = 100.0;

/// Why a stream is drawn from: the stream number of the ChaCha generator.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[repr(u64)]
pub enum Purpose {
    /// Generating the scenario (processor counts, slowdowns, applications).
    Scenario = 1,
    /// PB-R's random choices.
    PbRandom = 2,
    /// PB-S's random choices.
    PbSmart = 3,
}

/// The generator for (master seed, experiment point, trial, purpose).
pub fn stream(seed: u64, point: u64, trial: u64, purpose: Purpose) -> ChaCha12Rng {
    let mut key = [0u8; 32];
    key[..8].copy_from_slice(&seed.to_le_bytes());
    key[8..16].copy_from_slice(&point.to_le_bytes());
    key[16..24].copy_from_slice(&trial.to_le_bytes());
    let mut rng = ChaCha12Rng::from_seed(key);
    rng.set_stream(purpose as u64);
    rng
}

/// The distributions of Downey's parameters.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct DowneyParams {
    /// Smallest average parallelism `A`.
    pub a_min: f64,
    /// Largest average parallelism `A` (log-uniform between).
    pub a_max: f64,
    /// Largest `sigma` (uniform in `[0, sigma_max]`).
    pub sigma_max: f64,
}

/// Everything that defines a random scenario.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct ScenarioParams {
    /// `N_a`.
    pub n_apps: usize,
    /// `N_p`.
    pub n_types: usize,
    /// `tau`.
    pub total_procs: u32,
    /// The slowdown category (`Gamma`).
    pub slowdown: SlowdownCategory,
    /// The COV method's parameters (times in ticks).
    pub cov: CovParams,
    /// Downey's parameter distributions.
    pub downey: DowneyParams,
}

impl ScenarioParams {
    /// The settings of the module docs for a batch size, number of types, number of
    /// processors and slowdown category.
    pub fn paper(
        n_apps: usize,
        n_types: usize,
        total_procs: u32,
        slowdown: SlowdownCategory,
    ) -> Self {
        ScenarioParams {
            n_apps,
            n_types,
            total_procs,
            slowdown,
            cov: CovParams {
                mean_task: MEAN_TASK_TIME * TICKS_PER_TIME_UNIT,
                v_task: 0.3,
                v_mach: 0.5,
                exec_cov_min: 0.1,
                exec_cov_max: 0.3,
            },
            downey: DowneyParams {
                a_min: 8.0,
                a_max: 128.0,
                sigma_max: 2.0,
            },
        }
    }
}

/// `n_j`: `tau / M` blocks of `M = tau / N_a` processors, one block per type and each other
/// block to a uniformly random type.
pub fn split_processors<R: Rng + ?Sized>(
    rng: &mut R,
    n_apps: usize,
    n_types: usize,
    total: u32,
) -> Result<Vec<u32>, MoldableError> {
    let not_balanced = MoldableError::NotBalanced {
        total: u64::from(total),
        apps: n_apps,
    };
    if n_apps == 0 || n_types == 0 || total as usize % n_apps != 0 {
        return Err(not_balanced);
    }
    let m = total / n_apps as u32;
    if n_types > n_apps || m == 0 {
        return Err(not_balanced);
    }
    let mut blocks = vec![1u32; n_types];
    for _ in n_types..n_apps {
        blocks[rng.random_range(0..n_types)] += 1;
    }
    Ok(blocks.into_iter().map(|b| b * m).collect())
}

/// Draws a scenario and builds its [`Instance`] (with the makespan goal of eq. (4)).
pub fn generate<R: Rng + ?Sized>(
    params: &ScenarioParams,
    rng: &mut R,
) -> Result<Instance, MoldableError> {
    let d = params.downey;
    check("a_min", d.a_min, d.a_min >= 1.0, "must be >= 1")?;
    check("a_max", d.a_max, d.a_max >= d.a_min, "must be >= a_min")?;
    check("sigma_max", d.sigma_max, d.sigma_max >= 0.0, "must be >= 0")?;
    let counts = split_processors(rng, params.n_apps, params.n_types, params.total_procs)?;
    let avail = type_availabilities(rng, &counts, params.slowdown)?;
    let mut downey = Vec::with_capacity(params.n_apps);
    for _ in 0..params.n_apps {
        let a = if d.a_max > d.a_min {
            rng.random_range(d.a_min.ln()..d.a_max.ln()).exp()
        } else {
            d.a_min
        };
        let sigma = if d.sigma_max > 0.0 {
            rng.random_range(0.0..d.sigma_max)
        } else {
            0.0
        };
        downey.push(Downey::new(a, sigma)?);
    }
    let specs = cov_method(rng, params.n_apps, params.n_types, &params.cov)?;
    let types = counts
        .iter()
        .zip(&avail)
        .map(|(&count, a)| {
            Ok(ProcessorType {
                count,
                slowdown: a.slowdown_pmf()?,
            })
        })
        .collect::<Result<Vec<_>, MoldableError>>()?;
    let apps = downey
        .into_iter()
        .zip(specs)
        .map(|(downey, row)| {
            let serial = row
                .into_iter()
                .map(gamma_pmf)
                .collect::<Result<Vec<Pmf>, _>>()?;
            Ok(Application { downey, serial })
        })
        .collect::<Result<Vec<_>, MoldableError>>()?;
    Instance::new(apps, types)
}

/// The outcome of one trial: each heuristic's robustness, the bound and the goal.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TrialResult {
    /// Trial index.
    pub trial: usize,
    /// `Psi(I)` of each heuristic, in the order of [`Heuristic::ALL`].
    pub robustness: Vec<f64>,
    /// The upper bound `B` of eq. (5).
    pub bound: f64,
    /// The makespan goal `Delta` in time units.
    pub goal: f64,
}

/// Runs one trial of a scenario with every heuristic.
pub fn run_trial(
    params: &ScenarioParams,
    seed: u64,
    point: u64,
    trial: usize,
) -> Result<TrialResult, MoldableError> {
    let t = trial as u64;
    let inst = generate(params, &mut stream(seed, point, t, Purpose::Scenario))?;
    let mut robustness = Vec::with_capacity(Heuristic::ALL.len());
    for h in Heuristic::ALL {
        let purpose = match h {
            Heuristic::PbS => Purpose::PbSmart,
            _ => Purpose::PbRandom,
        };
        let alloc = h.allocate(&inst, &mut stream(seed, point, t, purpose))?;
        robustness.push(inst.robustness(&alloc)?);
    }
    Ok(TrialResult {
        trial,
        robustness,
        bound: upper_bound(&inst),
        goal: inst.goal() / TICKS_PER_TIME_UNIT,
    })
}

/// Runs trials `0..trials` one after the other.
pub fn run_trials(
    params: &ScenarioParams,
    trials: usize,
    seed: u64,
    point: u64,
) -> Result<Vec<TrialResult>, MoldableError> {
    (0..trials)
        .map(|t| run_trial(params, seed, point, t))
        .collect()
}

/// The experiment point of fig. 4 (it keys the random streams).
pub const FIG4_POINT: u64 = 0x0400;
/// The experiment points of fig. 5: `FIG5_POINT + N_p`.
pub const FIG5_POINT: u64 = 0x0500;

/// The scenario of fig. 4: 32 applications, 4 types, high slowdown, 256 processors.
pub fn figure4_params() -> ScenarioParams {
    ScenarioParams::paper(32, 4, 256, SlowdownCategory::High)
}

/// The scenarios of fig. 5: 32 applications, 256 processors, low slowdown, `N_p` types.
pub fn figure5_params(n_types: usize) -> ScenarioParams {
    ScenarioParams::paper(32, n_types, 256, SlowdownCategory::Low)
}

/// The numbers of processor types of fig. 5.
pub const FIGURE5_TYPES: [usize; 5] = [1, 2, 4, 8, 16];

/// One point of fig. 4: a trial and a series (a heuristic or the upper bound).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Fig4Row {
    /// Trial index.
    pub trial: usize,
    /// The heuristic's name, or `Upper bound`.
    pub series: String,
    /// `Psi(I)`, or `B`.
    pub robustness: f64,
}

/// Fig. 4: per trial, the robustness of the five heuristics and the upper bound.
pub fn figure4(trials: usize, seed: u64) -> Result<Vec<Fig4Row>, MoldableError> {
    figure4_with(&figure4_params(), trials, seed)
}

/// [`figure4`] with other scenario parameters (smaller runs, sensitivity studies).
pub fn figure4_with(
    params: &ScenarioParams,
    trials: usize,
    seed: u64,
) -> Result<Vec<Fig4Row>, MoldableError> {
    Ok(figure4_rows(&run_trials(params, trials, seed, FIG4_POINT)?))
}

/// The rows of fig. 4 from its trials: per trial, the five heuristics and the upper bound.
pub fn figure4_rows(results: &[TrialResult]) -> Vec<Fig4Row> {
    let mut rows = Vec::with_capacity(results.len() * 6);
    for r in results {
        for (h, &psi) in Heuristic::ALL.iter().zip(&r.robustness) {
            rows.push(Fig4Row {
                trial: r.trial,
                series: h.name().into(),
                robustness: psi,
            });
        }
        rows.push(Fig4Row {
            trial: r.trial,
            series: "Upper bound".into(),
            robustness: r.bound,
        });
    }
    rows
}

/// One trial of fig. 5.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Fig5Trial {
    /// `N_p`.
    pub n_types: usize,
    /// Trial index.
    pub trial: usize,
    /// `Psi(I)` of RF Duplex.
    pub robustness: f64,
    /// `B`.
    pub bound: f64,
    /// `B_norm = (B - Psi) / B`.
    pub b_norm: f64,
}

/// One point of fig. 5: the mean `B_norm` of RF Duplex for a number of processor types.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Fig5Row {
    /// `N_p`.
    pub n_types: usize,
    /// Number of trials.
    pub n: usize,
    /// Mean `B_norm`.
    pub mean_b_norm: f64,
    /// Half-width of the 95 % confidence interval of the mean (Student t, `n - 1` d.o.f.).
    pub ci95: f64,
    /// Median `B_norm`.
    pub median_b_norm: f64,
    /// Mean upper bound `B`.
    pub mean_bound: f64,
    /// Mean robustness of RF Duplex.
    pub mean_robustness: f64,
}

/// Fig. 5, per trial: RF Duplex's robustness, the bound and `B_norm` for each `N_p`.
pub fn figure5_trials(trials: usize, seed: u64) -> Result<Vec<Fig5Trial>, MoldableError> {
    figure5_trials_with(figure5_params, trials, seed)
}

/// [`figure5_trials`] with other scenario parameters: `params(N_p)` for each number of types.
pub fn figure5_trials_with(
    params: impl Fn(usize) -> ScenarioParams,
    trials: usize,
    seed: u64,
) -> Result<Vec<Fig5Trial>, MoldableError> {
    let mut out = Vec::new();
    for n_types in FIGURE5_TYPES {
        for r in run_trials(&params(n_types), trials, seed, FIG5_POINT + n_types as u64)? {
            out.push(figure5_trial(n_types, &r));
        }
    }
    Ok(out)
}

/// One trial of fig. 5 at `n_types` processor types from its result: RF Duplex's robustness,
/// the bound and `B_norm`.
pub fn figure5_trial(n_types: usize, r: &TrialResult) -> Fig5Trial {
    let duplex = Heuristic::ALL
        .iter()
        .position(|&h| h == Heuristic::RfDuplex)
        .unwrap_or(Heuristic::ALL.len() - 1);
    let psi = r.robustness[duplex];
    Fig5Trial {
        n_types,
        trial: r.trial,
        robustness: psi,
        bound: r.bound,
        b_norm: normalised_gap(r.bound, psi),
    }
}

/// Fig. 5: mean `B_norm` of RF Duplex with its 95 % confidence interval, per `N_p`.
pub fn figure5(trials: usize, seed: u64) -> Result<Vec<Fig5Row>, MoldableError> {
    Ok(summarise_figure5(&figure5_trials(trials, seed)?))
}

/// Summarises per-trial fig. 5 results by number of types.
pub fn summarise_figure5(trials: &[Fig5Trial]) -> Vec<Fig5Row> {
    let mut rows = Vec::new();
    for n_types in FIGURE5_TYPES {
        let b: Vec<f64> = trials
            .iter()
            .filter(|t| t.n_types == n_types)
            .map(|t| t.b_norm)
            .collect();
        if b.is_empty() {
            continue;
        }
        let pick = |f: fn(&Fig5Trial) -> f64| {
            let v: Vec<f64> = trials
                .iter()
                .filter(|t| t.n_types == n_types)
                .map(f)
                .collect();
            mean(&v)
        };
        rows.push(Fig5Row {
            n_types,
            n: b.len(),
            mean_b_norm: mean(&b),
            ci95: ci95(&b),
            median_b_norm: quantile(&b, 0.5),
            mean_bound: pick(|t| t.bound),
            mean_robustness: pick(|t| t.robustness),
        });
    }
    rows
}

/// The arithmetic mean (0 for no data).
pub fn mean(x: &[f64]) -> f64 {
    if x.is_empty() {
        0.0
    } else {
        x.iter().sum::<f64>() / x.len() as f64
    }
}

/// Half-width of the 95 % confidence interval of the mean: `t_{0.975, n-1} s / sqrt(n)`
/// (0 for fewer than two values).
pub fn ci95(x: &[f64]) -> f64 {
    let n = x.len();
    if n < 2 {
        return 0.0;
    }
    let m = mean(x);
    let var = x.iter().map(|v| (v - m).powi(2)).sum::<f64>() / (n - 1) as f64;
    let t = StudentsT::new(0.0, 1.0, (n - 1) as f64)
        .map(|d| d.inverse_cdf(0.975))
        .unwrap_or(f64::NAN);
    t * (var / n as f64).sqrt()
}

/// The `q` quantile by linear interpolation between order statistics (type 7, as in
/// numpy's default and R's); 0 for no data.
pub fn quantile(x: &[f64], q: f64) -> f64 {
    if x.is_empty() {
        return 0.0;
    }
    let mut v = x.to_vec();
    v.sort_by(f64::total_cmp);
    let h = (v.len() - 1) as f64 * q.clamp(0.0, 1.0);
    let (lo, frac) = (h.floor() as usize, h - h.floor());
    if lo + 1 < v.len() {
        v[lo] + frac * (v[lo + 1] - v[lo])
    } else {
        v[lo]
    }
}

/// Box-plot statistics of one series of fig. 4.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct BoxStats {
    /// The series (a heuristic or `Upper bound`).
    pub series: String,
    /// Number of trials.
    pub n: usize,
    /// Smallest value.
    pub min: f64,
    /// 25th percentile.
    pub q25: f64,
    /// Median.
    pub median: f64,
    /// 75th percentile.
    pub q75: f64,
    /// Largest value.
    pub max: f64,
    /// Mean.
    pub mean: f64,
}

/// The box-plot statistics of each series of fig. 4, in the order the series first appear.
pub fn summarise_figure4(rows: &[Fig4Row]) -> Vec<BoxStats> {
    let mut names: Vec<&str> = Vec::new();
    for r in rows {
        if !names.contains(&r.series.as_str()) {
            names.push(&r.series);
        }
    }
    names
        .into_iter()
        .map(|s| {
            let v: Vec<f64> = rows
                .iter()
                .filter(|r| r.series == s)
                .map(|r| r.robustness)
                .collect();
            BoxStats {
                series: s.into(),
                n: v.len(),
                min: quantile(&v, 0.0),
                q25: quantile(&v, 0.25),
                median: quantile(&v, 0.5),
                q75: quantile(&v, 0.75),
                max: quantile(&v, 1.0),
                mean: mean(&v),
            }
        })
        .collect()
}

/// Writes serialisable rows as CSV with a header.
pub fn write_csv<W: Write, T: Serialize>(rows: &[T], out: W) -> Result<(), MoldableError> {
    let mut w = csv::Writer::from_writer(out);
    for r in rows {
        w.serialize(r)?;
    }
    w.flush().map_err(|e| MoldableError::Csv(e.to_string()))?;
    Ok(())
}
