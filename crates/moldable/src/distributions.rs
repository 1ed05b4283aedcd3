//! Serial execution-time distributions (Hansen et al. §IV-B): gamma distributions whose
//! means come from the coefficient-of-variation (COV) method of Ali et al. (2000), discretised
//! on the tick grid.
//!
//! # The COV method (Ali, Siegel, Maheswaran, Hensgen, Ali 2000)
//! With a mean task time `mu_task`, a task heterogeneity `V_task` and a machine heterogeneity
//! `V_mach`: draw for each application `q_i ~ Gamma(shape 1/V_task², scale mu_task V_task²)`
//! (mean `mu_task`, COV `V_task`), then for each processor type
//! `e_ij ~ Gamma(shape 1/V_mach², scale q_i V_mach²)` (mean `q_i`, COV `V_mach`). `e_ij` is
//! the mean serial execution time of application `i` on type `j`. The paper does not give
//! the spread of each execution-time distribution; we draw its COV `v_ij` uniformly from
//! `[exec_cov_min, exec_cov_max]` and use `T_ij ~ Gamma(mean e_ij, COV v_ij)`.
//!
//! # Discretisation
//! A real time `x` (in ticks) is rounded to the nearest tick: tick `t` gets
//! `F(t + 1/2) - F(t - 1/2)`, computed with the regularised incomplete gamma function, so the
//! discrete variable is within half a tick of the continuous one. The tails beyond
//! [`TAIL_EPS`] on each side are folded into the end bins.

use pmf::{Pmf, Tick};
use rand::Rng;
use rand_distr::{Distribution, Gamma};
use serde::{Deserialize, Serialize};
use statrs::function::gamma::gamma_lr;

use crate::error::{MoldableError, check};

/// Probability mass folded into each end bin when a continuous distribution is discretised.
pub const TAIL_EPS: f64 = 1e-7;

/// Parameters of the COV method and of the execution-time spread.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct CovParams {
    /// Mean serial execution time over all applications, in ticks.
    pub mean_task: f64,
    /// Task heterogeneity `V_task` (COV of the application means).
    pub v_task: f64,
    /// Machine heterogeneity `V_mach` (COV of one application's means across types).
    pub v_mach: f64,
    /// Smallest COV of an execution-time distribution.
    pub exec_cov_min: f64,
    /// Largest COV of an execution-time distribution.
    pub exec_cov_max: f64,
}

impl CovParams {
    /// Checks every field.
    pub fn validate(&self) -> Result<(), MoldableError> {
        check(
            "mean_task",
            self.mean_task,
            self.mean_task >= 1.0,
            "must be >= 1 tick",
        )?;
        check("v_task", self.v_task, self.v_task > 0.0, "must be > 0")?;
        check("v_mach", self.v_mach, self.v_mach > 0.0, "must be > 0")?;
        check(
            "exec_cov_min",
            self.exec_cov_min,
            self.exec_cov_min > 0.0,
            "must be > 0",
        )?;
        check(
            "exec_cov_max",
            self.exec_cov_max,
            self.exec_cov_max >= self.exec_cov_min,
            "must be >= exec_cov_min",
        )?;
        Ok(())
    }
}

/// A gamma distribution given by its mean and COV: shape `1/cov²`, scale `mean cov²`.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct GammaSpec {
    /// The mean.
    pub mean: f64,
    /// The coefficient of variation (standard deviation / mean).
    pub cov: f64,
}

impl GammaSpec {
    /// The shape parameter `1 / cov²`.
    pub fn shape(&self) -> f64 {
        1.0 / (self.cov * self.cov)
    }

    /// The scale parameter `mean cov²`.
    pub fn scale(&self) -> f64 {
        self.mean * self.cov * self.cov
    }

    /// `P(X <= x)`.
    pub fn cdf(&self, x: f64) -> f64 {
        if x <= 0.0 {
            0.0
        } else {
            gamma_lr(self.shape(), x / self.scale())
        }
    }

    fn validate(&self) -> Result<(), MoldableError> {
        check("mean", self.mean, self.mean > 0.0, "gamma mean must be > 0")?;
        check("cov", self.cov, self.cov > 0.0, "gamma COV must be > 0")?;
        Ok(())
    }
}

/// The gamma distribution of `spec` discretised to the nearest tick (module docs).
///
/// Wide, smooth gammas (shape >= 2, standard deviation >= [`DENSITY_MIN_SD`] ticks) take the
/// fast path of [`gamma_pmf_density`]; the others use exact CDF differences.
pub fn gamma_pmf(spec: GammaSpec) -> Result<Pmf, MoldableError> {
    spec.validate()?;
    let sd = spec.mean * spec.cov;
    let upper = spec.mean + 60.0 * sd + 10.0;
    if upper > pmf::prec::MAX_SPAN as f64 {
        return Err(pmf::PmfError::TooWide {
            span: upper as u64,
            limit: pmf::prec::MAX_SPAN,
        }
        .into());
    }
    if spec.shape() >= 2.0 && sd >= DENSITY_MIN_SD {
        return gamma_pmf_density(spec);
    }
    let lower = (spec.mean - 8.0 * sd).max(0.0).floor() as Tick;
    discretise(|x| spec.cdf(x), lower, upper as Tick)
}

/// Below this standard deviation (in ticks) a gamma is discretised by CDF differences.
pub const DENSITY_MIN_SD: f64 = 20.0;

/// The fast discretisation: the `TAIL_EPS` quantiles are found with the regularised incomplete
/// gamma function (bisection), and between them tick `t` gets a mass proportional to the
/// density at `t` (the midpoint rule for the bin `[t - 1/2, t + 1/2)`), normalised. For a
/// smooth density whose standard deviation spans `sd` ticks, the midpoint rule's relative
/// error per bin is of order `1 / (24 sd²)`; the test suite compares both paths.
pub fn gamma_pmf_density(spec: GammaSpec) -> Result<Pmf, MoldableError> {
    spec.validate()?;
    let (k, theta) = (spec.shape(), spec.scale());
    let sd = spec.mean * spec.cov;
    // Bisection on the CDF for a quantile, in ticks, within [lo, hi].
    let quantile = |u: f64, mut lo: f64, mut hi: f64| {
        for _ in 0..60 {
            let mid = 0.5 * (lo + hi);
            if spec.cdf(mid) < u {
                lo = mid;
            } else {
                hi = mid;
            }
        }
        hi
    };
    let hi_bracket = spec.mean + 60.0 * sd + 10.0;
    let first = quantile(TAIL_EPS, 0.0, spec.mean).round().max(1.0) as Tick;
    let last = quantile(1.0 - TAIL_EPS, spec.mean, hi_bracket).round() as Tick;
    // Relative weights only: subtract the log-density at the mode to avoid underflow.
    let mode = ((k - 1.0) * theta).max(1.0) / theta;
    let ln_peak = (k - 1.0) * mode.ln() - mode;
    let weights: Vec<f64> = (first..=last.max(first))
        .map(|t| {
            let x = t as f64 / theta;
            ((k - 1.0) * x.ln() - x - ln_peak).exp()
        })
        .collect();
    Ok(Pmf::from_weights(first, weights)?)
}

/// Discretises a CDF `F` to the nearest tick between `lo` and `hi` (a bracket of the
/// support): tick `t` gets `F(t + 1/2) - F(t - 1/2)`, tails beyond [`TAIL_EPS`] folded into
/// the end bins.
pub(crate) fn discretise(
    cdf: impl Fn(f64) -> f64,
    lo: Tick,
    hi: Tick,
) -> Result<Pmf, MoldableError> {
    // First tick whose upper half-edge carries more than TAIL_EPS.
    let mut t = lo;
    while t < hi && cdf(t as f64 + 0.5) <= TAIL_EPS {
        t += 1;
    }
    let first = t;
    let mut prev = 0.0;
    let mut masses = Vec::new();
    loop {
        let f = if t >= hi { 1.0 } else { cdf(t as f64 + 0.5) };
        masses.push((f - prev).max(0.0));
        prev = f;
        if 1.0 - f <= TAIL_EPS || t >= hi {
            break;
        }
        t += 1;
    }
    // Fold what is left of the upper tail into the last bin.
    if let Some(last) = masses.last_mut() {
        *last += (1.0 - prev).max(0.0);
    }
    Ok(Pmf::from_weights(first, masses)?)
}

/// The COV method: the mean serial execution time `e_ij` of every application on every
/// processor type, and the COV of each execution-time distribution. Returns
/// `[i][j] -> GammaSpec`.
pub fn cov_method<R: Rng + ?Sized>(
    rng: &mut R,
    n_apps: usize,
    n_types: usize,
    params: &CovParams,
) -> Result<Vec<Vec<GammaSpec>>, MoldableError> {
    params.validate()?;
    let gamma = |mean: f64, cov: f64| {
        let shape = 1.0 / (cov * cov);
        Gamma::new(shape, mean / shape).map_err(|_| MoldableError::InvalidParameter {
            name: "gamma",
            value: mean,
            reason: "gamma parameters out of range",
        })
    };
    let task = gamma(params.mean_task, params.v_task)?;
    let mut out = Vec::with_capacity(n_apps);
    for _ in 0..n_apps {
        let q: f64 = task.sample(rng).max(1.0);
        let mach = gamma(q, params.v_mach)?;
        let mut row = Vec::with_capacity(n_types);
        for _ in 0..n_types {
            let mean: f64 = mach.sample(rng).max(1.0);
            let cov = if params.exec_cov_max > params.exec_cov_min {
                rng.random_range(params.exec_cov_min..params.exec_cov_max)
            } else {
                params.exec_cov_min
            };
            row.push(GammaSpec { mean, cov });
        }
        out.push(row);
    }
    Ok(out)
}
