//! System slowdown per processor type (Hansen et al. §II-C2 and §IV-C).
//!
//! The availability `a` of a processor type is Beta-distributed on `[0, 1]`; the slowdown is
//! its reciprocal `s = 1 / a` on `[1, inf)`. With `a ~ Beta(alpha, beta)` and `alpha > 1`,
//! `E[s] = (alpha + beta - 1) / (alpha - 1)`, so a type with mean slowdown `g` has
//! `beta = (g - 1)(alpha - 1)`. The paper does not give the Beta parameters; we fix
//! [`BETA_ALPHA`] `= 20` (an availability whose standard deviation is about 0.08 at `g = 1.6`
//! and 0.06 at `g = 1.1`, so the slowdown tail stays short) and derive `beta` from `g`.
//!
//! The overall system slowdown `Gamma` is the processor-weighted average of the types' mean
//! slowdowns. The paper's categories are low (1.1), mixed (1.36) and high (1.6). Per type we
//! draw an excess `g_j - 1` uniformly in `[0.5, 1.5] (Gamma - 1)` (low and high) or
//! alternate between the low and high excesses (mixed), then rescale all excesses so the
//! weighted average is exactly `Gamma`.
//!
//! # Discretisation
//! A slowdown is held on a grid of [`SLOWDOWN_TICKS_PER_UNIT`] ticks per unit (tick `t`
//! means slowdown `t / r`), rounded to the nearest tick like the execution times, and is
//! multiplied with a time by `pmf::transform::product(time, slowdown, 1 / r)` (eq. (1)).

use pmf::{Pmf, Tick};
use rand::Rng;
use serde::{Deserialize, Serialize};
use statrs::function::beta::beta_reg;

use crate::distributions::discretise;
use crate::error::{MoldableError, check};

/// The `alpha` of every availability Beta distribution (module docs).
pub const BETA_ALPHA: f64 = 20.0;

/// Ticks per unit of slowdown: a resolution of 0.01.
pub const SLOWDOWN_TICKS_PER_UNIT: f64 = 100.0;

/// The paper's overall system slowdown categories (§V).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SlowdownCategory {
    /// `Gamma = 1.1`.
    Low,
    /// `Gamma = 1.36`: types alternate between low and high.
    Mixed,
    /// `Gamma = 1.6`.
    High,
}

impl SlowdownCategory {
    /// The overall system slowdown `Gamma` of the category.
    pub fn gamma(self) -> f64 {
        match self {
            SlowdownCategory::Low => 1.1,
            SlowdownCategory::Mixed => 1.36,
            SlowdownCategory::High => 1.6,
        }
    }

    /// The name used in CSV files.
    pub fn name(self) -> &'static str {
        match self {
            SlowdownCategory::Low => "low",
            SlowdownCategory::Mixed => "mixed",
            SlowdownCategory::High => "high",
        }
    }
}

/// The availability distribution `Beta(alpha, beta)` of one processor type.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Availability {
    alpha: f64,
    beta: f64,
}

impl Availability {
    /// Validated constructor: `alpha > 1` (so the mean slowdown is finite), `beta > 0`.
    pub fn new(alpha: f64, beta: f64) -> Result<Self, MoldableError> {
        check(
            "alpha",
            alpha,
            alpha > 1.0,
            "must be > 1 for a finite mean slowdown",
        )?;
        check("beta", beta, beta > 0.0, "must be > 0")?;
        Ok(Availability { alpha, beta })
    }

    /// The Beta distribution with `alpha` and mean slowdown `g > 1`:
    /// `beta = (g - 1)(alpha - 1)`.
    pub fn with_mean_slowdown(alpha: f64, g: f64) -> Result<Self, MoldableError> {
        check("g", g, g > 1.0, "mean slowdown must be > 1")?;
        check(
            "alpha",
            alpha,
            alpha > 1.0,
            "must be > 1 for a finite mean slowdown",
        )?;
        Self::new(alpha, (g - 1.0) * (alpha - 1.0))
    }

    /// `alpha`.
    pub fn alpha(&self) -> f64 {
        self.alpha
    }

    /// `beta`.
    pub fn beta(&self) -> f64 {
        self.beta
    }

    /// `E[1 / a] = (alpha + beta - 1) / (alpha - 1)`, the mean slowdown.
    pub fn mean_slowdown(&self) -> f64 {
        (self.alpha + self.beta - 1.0) / (self.alpha - 1.0)
    }

    /// `P(s <= x) = P(a >= 1 / x) = 1 - I_{1/x}(alpha, beta)` for the slowdown `s = 1 / a`.
    pub fn slowdown_cdf(&self, x: f64) -> f64 {
        if x <= 1.0 {
            0.0
        } else {
            1.0 - beta_reg(self.alpha, self.beta, 1.0 / x)
        }
    }

    /// The slowdown distribution on the grid of [`SLOWDOWN_TICKS_PER_UNIT`] ticks per unit,
    /// each value rounded to the nearest tick.
    pub fn slowdown_pmf(&self) -> Result<Pmf, MoldableError> {
        let r = SLOWDOWN_TICKS_PER_UNIT;
        // Far enough: the availability 1e-12 quantile is well above 1/1000 for alpha > 1
        // unless beta is huge; the loop stops at the TAIL_EPS quantile anyway.
        discretise(
            |t| self.slowdown_cdf(t / r),
            r as Tick,
            (1000.0 * r) as Tick,
        )
    }
}

/// The availability distribution of each processor type for a slowdown category, given the
/// number of processors of each type (the weights of `Gamma`).
pub fn type_availabilities<R: Rng + ?Sized>(
    rng: &mut R,
    counts: &[u32],
    category: SlowdownCategory,
) -> Result<Vec<Availability>, MoldableError> {
    if counts.is_empty() || counts.iter().all(|&c| c == 0) {
        return Err(MoldableError::Inconsistent(
            "no processor type with processors".into(),
        ));
    }
    let target = category.gamma() - 1.0;
    let excess: Vec<f64> = match category {
        SlowdownCategory::Low | SlowdownCategory::High => counts
            .iter()
            .map(|_| rng.random_range(0.5..1.5) * target)
            .collect(),
        SlowdownCategory::Mixed => (0..counts.len())
            .map(|j| {
                if j % 2 == 0 {
                    SlowdownCategory::Low.gamma() - 1.0
                } else {
                    SlowdownCategory::High.gamma() - 1.0
                }
            })
            .collect(),
    };
    let total: f64 = counts.iter().map(|&c| f64::from(c)).sum();
    let weighted: f64 = counts
        .iter()
        .zip(&excess)
        .map(|(&c, e)| f64::from(c) * e)
        .sum::<f64>()
        / total;
    excess
        .iter()
        .map(|e| Availability::with_mean_slowdown(BETA_ALPHA, 1.0 + e * target / weighted))
        .collect()
}
