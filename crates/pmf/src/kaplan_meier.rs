//! Kaplan-Meier estimation from right-censored samples (Gao, Robert, Vivien,
//! cutting thresholds, Inria RR-9373, eq. (4) and section 5.2).
//!
//! A scheduler that has run some tasks knows, for each, either its full execution time (the
//! task completed: a *death* in survival-analysis words) or only a lower bound on it (the task
//! is still running, or was interrupted: the time is *right-censored*). Eq. (4) estimates the
//! survival function `S(t) = P(X > t)` from such data:
//!
//! ```text
//! S(t) = prod_{w_i <= t} (1 - d_i / r_i)
//! ```
//!
//! where `w_1 < ... < w_k` are the distinct observed times (censored or not), `d_i` the number
//! of completions at `w_i` and `r_i` the number of observations `>= w_i` (a task censored at
//! `w_i` is still at risk at `w_i`: deaths come before censoring at equal times).
//!
//! # The implied distribution (section 5.2)
//! `P(X = w_j) = S(w_{j-1}) - S(w_j)` (with `S(w_0) = 1`), which is non-zero only at
//! completion times. When the largest observation is censored, `S(w_k) > 0`: that
//! **remainder** lies somewhere beyond `w_k`, and section 5.2 places it **at `w_k`, the largest
//! observation** (censored or not):
//!
//! ```text
//! mu      = sum_j (S(w_{j-1}) - S(w_j)) w_j   + S(w_k) w_k
//! sigma^2 = sum_j (S(w_{j-1}) - S(w_j)) w_j^2 + S(w_k) w_k^2 - mu^2
//! ```
//!
//! so [`KaplanMeier::mean`] is a lower bound of the true mean whenever the remainder is not
//! zero. [`KaplanMeier::to_pmf`] uses the same convention.
//!
//! Without censoring, the estimator is the empirical distribution function (end of
//! section 5.2).
//!
//! # Example: the toy example of figure 1
//! ```
//! use pmf::kaplan_meier::{KaplanMeier, Sample};
//! let km = KaplanMeier::new(&[
//!     Sample::censored(4.0),
//!     Sample::completed(5.0),
//!     Sample::censored(15.0),
//!     Sample::completed(16.0),
//! ])
//! .unwrap();
//! assert_eq!(km.survival(4.0), 1.0);
//! assert!((km.survival(5.0) - 2.0 / 3.0).abs() < 1e-12);
//! assert!((km.survival(15.0) - 2.0 / 3.0).abs() < 1e-12);
//! assert_eq!(km.survival(16.0), 0.0);
//! ```

use serde::{Deserialize, Serialize};

use crate::error::PmfError;
use crate::pmf::{MAX_TICK, Pmf, Tick};

/// One observed execution time.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Sample {
    /// The time the task ran (complete or not), in the model's time unit.
    pub time: f64,
    /// `true` when the task had not completed at `time` (still running or interrupted):
    /// its execution time is only known to be at least `time`.
    pub censored: bool,
}

impl Sample {
    /// A task that completed after running `time`: a death in eq. (4).
    pub const fn completed(time: f64) -> Self {
        Sample {
            time,
            censored: false,
        }
    }

    /// A task that had run `time` without completing: a right-censored observation.
    pub const fn censored(time: f64) -> Self {
        Sample {
            time,
            censored: true,
        }
    }
}

/// The Kaplan-Meier estimate (eq. (4)) at every distinct observed time.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct KaplanMeier {
    /// The distinct observed times `w_1 < ... < w_k`, censored ones included.
    times: Vec<f64>,
    /// `S(w_i)`, non-increasing.
    survival: Vec<f64>,
    /// `d_i`: completions at `w_i`.
    deaths: Vec<usize>,
    /// `r_i`: observations `>= w_i`.
    at_risk: Vec<usize>,
}

impl KaplanMeier {
    /// Builds the estimator from samples in any order.
    ///
    /// Errors: no sample ([`PmfError::Empty`]), or a time that is NaN, infinite or negative
    /// ([`PmfError::InvalidSampleTime`]). Samples that are all censored are valid: the survival
    /// is then 1 everywhere and the whole mass is the remainder.
    pub fn new(samples: &[Sample]) -> Result<Self, PmfError> {
        if samples.is_empty() {
            return Err(PmfError::Empty);
        }
        for (index, s) in samples.iter().enumerate() {
            if !s.time.is_finite() || s.time < 0.0 {
                return Err(PmfError::InvalidSampleTime {
                    index,
                    value: s.time,
                });
            }
        }
        let mut sorted: Vec<Sample> = samples.to_vec();
        // Equal times: completions first (a task censored at w_i is at risk at w_i).
        sorted.sort_by(|a, b| a.time.total_cmp(&b.time).then(a.censored.cmp(&b.censored)));
        let n = sorted.len();
        let mut times = Vec::new();
        let mut survival = Vec::new();
        let mut deaths = Vec::new();
        let mut at_risk = Vec::new();
        let mut s = 1.0;
        let mut i = 0;
        while i < n {
            let w = sorted[i].time;
            let r = n - i;
            let mut d = 0;
            let mut j = i;
            while j < n && sorted[j].time == w {
                if !sorted[j].censored {
                    d += 1;
                }
                j += 1;
            }
            if d > 0 {
                // r - d exactly zero when every remaining task died here: S is exactly 0.
                s *= (r - d) as f64 / r as f64;
            }
            times.push(w);
            survival.push(s);
            deaths.push(d);
            at_risk.push(r);
            i = j;
        }
        Ok(KaplanMeier {
            times,
            survival,
            deaths,
            at_risk,
        })
    }

    /// The distinct observed times `w_1 < ... < w_k` (censored ones included).
    pub fn times(&self) -> &[f64] {
        &self.times
    }

    /// `S(w_i)` at each of [`KaplanMeier::times`] (the last column of the paper's table).
    pub fn survival_at_times(&self) -> &[f64] {
        &self.survival
    }

    /// `d_i`: the number of completions at each of [`KaplanMeier::times`].
    pub fn deaths(&self) -> &[usize] {
        &self.deaths
    }

    /// `r_i`: the number of observations `>= w_i` at each of [`KaplanMeier::times`].
    pub fn at_risk(&self) -> &[usize] {
        &self.at_risk
    }

    /// The number of samples the estimate was built from.
    pub fn sample_count(&self) -> usize {
        self.at_risk.first().copied().unwrap_or(0)
    }

    /// The number of completed (uncensored) samples.
    pub fn completed_count(&self) -> usize {
        self.deaths.iter().sum()
    }

    /// `w_k`, the largest observation (where the remainder mass is placed).
    pub fn last_time(&self) -> f64 {
        self.times.last().copied().unwrap_or(0.0)
    }

    /// `S(w_k)`: the probability mass that survives every observation (zero when the largest
    /// observation is a completion).
    pub fn remainder(&self) -> f64 {
        self.survival.last().copied().unwrap_or(1.0)
    }

    /// Eq. (4): `S(t) = P(X > t)`, a right-continuous step function; 1 before the first
    /// observation, `S(w_k)` after the last. NaN gives NaN.
    pub fn survival(&self, t: f64) -> f64 {
        if t.is_nan() {
            return f64::NAN;
        }
        let k = self.times.partition_point(|&w| w <= t);
        if k == 0 { 1.0 } else { self.survival[k - 1] }
    }

    /// `F(t) = 1 - S(t) = P(X <= t)`.
    pub fn cdf(&self, t: f64) -> f64 {
        1.0 - self.survival(t)
    }

    /// The completion times with their masses `S(w_{j-1}) - S(w_j)` (section 5.2), in
    /// increasing order. They sum to `1 - remainder()`.
    pub fn completions(&self) -> impl Iterator<Item = (f64, f64)> + '_ {
        let mut prev = 1.0;
        self.times
            .iter()
            .zip(&self.survival)
            .zip(&self.deaths)
            .filter_map(move |((&w, &s), &d)| {
                let mass = prev - s;
                prev = s;
                (d > 0).then_some((w, mass))
            })
    }

    /// Every atom of the implied distribution: the completions, then the remainder at `w_k`
    /// (merged with the last completion when that is also `w_k`; omitted when zero).
    fn atoms(&self) -> Vec<(f64, f64)> {
        let mut atoms: Vec<(f64, f64)> = self.completions().collect();
        let rem = self.remainder();
        if rem > 0.0 {
            let wk = self.last_time();
            match atoms.last_mut() {
                Some(last) if last.0 == wk => last.1 += rem,
                _ => atoms.push((wk, rem)),
            }
        }
        atoms
    }

    /// The mean of section 5.2, the remainder placed at the largest observation `w_k`.
    pub fn mean(&self) -> f64 {
        self.atoms().iter().map(|&(w, p)| p * w).sum()
    }

    /// The variance of section 5.2 (same convention as [`KaplanMeier::mean`]), computed
    /// around the mean for accuracy; never negative.
    pub fn variance(&self) -> f64 {
        let atoms = self.atoms();
        let mu: f64 = atoms.iter().map(|&(w, p)| p * w).sum();
        atoms
            .iter()
            .map(|&(w, p)| p * (w - mu) * (w - mu))
            .sum::<f64>()
            .max(0.0)
    }

    /// The standard deviation, `sqrt(variance())`.
    pub fn std_dev(&self) -> f64 {
        self.variance().sqrt()
    }

    /// The implied distribution as a [`Pmf`] on the tick grid, with `ticks_per_unit` ticks per
    /// time unit. A time `w` maps to tick `ceil(w * ticks_per_unit)`, the upper edge of its bin
    /// as in [`crate::histogram::BinValue::Upper`] (an execution time is never
    /// underestimated); masses landing on the same tick add up; the remainder goes to the tick
    /// of `w_k` (section 5.2).
    ///
    /// Errors: a resolution that is not finite and positive
    /// ([`PmfError::InvalidResolution`]), a time that does not fit in the tick range
    /// ([`PmfError::TimeOutOfRange`]), or a support wider than the dense-array limit.
    pub fn to_pmf(&self, ticks_per_unit: f64) -> Result<Pmf, PmfError> {
        if !ticks_per_unit.is_finite() || ticks_per_unit <= 0.0 {
            return Err(PmfError::InvalidResolution(ticks_per_unit));
        }
        let mut pairs: Vec<(Tick, f64)> = Vec::new();
        for (w, p) in self.atoms() {
            let x = (w * ticks_per_unit).ceil();
            if !x.is_finite() || x > MAX_TICK as f64 {
                return Err(PmfError::TimeOutOfRange(w));
            }
            pairs.push((x as Tick, p));
        }
        Pmf::from_weighted_pairs(pairs)
    }
}
