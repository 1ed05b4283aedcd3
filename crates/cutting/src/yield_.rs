//! The yield of a fixed cutting threshold (section 4.1): eq. (1) for a discrete distribution
//! (and, through it, for the empirical and Kaplan-Meier estimates of section 5), eq. (2) for a
//! continuous one, and Theorem 2 for the bimodal exponential of eq. (3).
//!
//! The yield is the expected number of successful tasks per unit of budget (one budget unit
//! pays one VM for one time unit): `P(X <= tau) / E[min(X, tau)]`, since a task either
//! completes at `X <= tau` or is interrupted (its work lost) at `tau`. Integrating by parts,
//! the denominator of eq. (2), `int_0^tau x f(x) dx + tau (1 - F(tau))`, is
//! `int_0^tau S(x) dx`, which is how it is computed here.

use serde::{Deserialize, Serialize};

use crate::distributions::Distribution;
use crate::error::CuttingError;

/// Eq. (1): the yield of threshold `tau` for a discrete distribution given as
/// `(time, probability)` points, in any order.
///
/// The probabilities may sum to less than 1: the missing mass is taken to lie beyond every
/// point (never completed by a threshold `<= max time`). This is the Kaplan-Meier rewrite of
/// eq. (1) in section 5.2, where the remainder `S(w_k)` of a censored estimate is interrupted
/// at `tau` like any other long task. Returns 0 when `tau` is below the smallest time.
///
/// Errors: a non-finite or negative time or probability, probabilities summing above 1
/// (beyond rounding), or a `tau` that is NaN or negative.
pub fn discrete(points: &[(f64, f64)], tau: f64) -> Result<f64, CuttingError> {
    if tau.is_nan() || tau < 0.0 {
        return Err(CuttingError::InvalidArgument(format!(
            "threshold must be non-negative, got {tau}"
        )));
    }
    let mut total = 0.0;
    for (i, &(w, p)) in points.iter().enumerate() {
        if !(w.is_finite() && w >= 0.0 && p.is_finite() && p >= 0.0) {
            return Err(CuttingError::InvalidArgument(format!(
                "point #{i} = ({w}, {p}): times and probabilities must be finite and non-negative"
            )));
        }
        total += p;
    }
    if total > 1.0 + 1e-9 {
        return Err(CuttingError::InvalidArgument(format!(
            "probabilities sum to {total} > 1"
        )));
    }
    let (mut f, mut a) = (0.0, 0.0);
    for &(w, p) in points {
        if w <= tau {
            f += p;
            a += p * w;
        }
    }
    if f <= 0.0 {
        return Ok(0.0);
    }
    if tau.is_infinite() {
        // Never interrupting: the yield is 1 / mean when all the mass is given; a remainder
        // beyond every point would run forever.
        return Ok(if f < 1.0 - 1e-9 { 0.0 } else { f / a });
    }
    Ok(f / (a + (1.0 - f).max(0.0) * tau))
}

/// `int_0^y S(u) du` for a continuous distribution, by composite Simpson on the substitution
/// `u = y s^3` (smooth even where the density is infinite at 0, as for gamma(1/3) or a
/// Weibull of shape below 1).
pub(crate) fn integral_survival(dist: &Distribution, y: f64) -> f64 {
    if y <= 0.0 {
        return 0.0;
    }
    const PANELS: usize = 2000;
    let h = 1.0 / PANELS as f64;
    let g = |s: f64| 3.0 * y * s * s * dist.survival(y * s * s * s);
    let mut sum = g(0.0) + g(1.0);
    for i in 1..PANELS {
        let s = i as f64 * h;
        sum += if i % 2 == 1 { 4.0 } else { 2.0 } * g(s);
    }
    sum * h / 3.0
}

/// Eq. (2): the yield of threshold `tau` when execution times are `delta + X`, `X` following
/// `dist` (`delta` is the constant of eq. (3) and section 7.1):
/// `Y(tau) = F(tau) / int_0^tau S(x) dx`. `tau = +inf` (never interrupt) gives
/// `1 / (delta + E[X])`.
///
/// Errors: an invalid distribution, a negative or NaN `delta` or `tau`.
pub fn continuous(dist: &Distribution, delta: f64, tau: f64) -> Result<f64, CuttingError> {
    dist.validate()?;
    check_delta(delta)?;
    if tau.is_nan() || tau < 0.0 {
        return Err(CuttingError::InvalidArgument(format!(
            "threshold must be non-negative, got {tau}"
        )));
    }
    if tau.is_infinite() {
        return Ok(1.0 / (delta + dist.mean()));
    }
    if tau <= delta {
        return Ok(0.0);
    }
    let y = tau - delta;
    Ok(dist.cdf(y) / (delta + integral_survival(dist, y)))
}

pub(crate) fn check_delta(delta: f64) -> Result<(), CuttingError> {
    if delta.is_finite() && delta >= 0.0 {
        Ok(())
    } else {
        Err(CuttingError::InvalidArgument(format!(
            "delta must be finite and non-negative, got {delta}"
        )))
    }
}

/// The bimodal exponential of eq. (3): with probability `p` an `Exp(lambda)`, otherwise an
/// `Exp(mu)`, plus the constant `delta`; `mu >= lambda`.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct BimodalExp {
    /// Weight of the first mode.
    pub p: f64,
    /// Rate of the first (slower) mode.
    pub lambda: f64,
    /// Rate of the second (faster) mode, `mu >= lambda`.
    pub mu: f64,
    /// The constant added to every execution time.
    pub delta: f64,
}

/// What Theorem 2 says for a [`BimodalExp`].
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Theorem2 {
    /// The optimal threshold: `+inf` means never interrupt; 0 means interrupt as soon as
    /// possible (the supremum, approached as the threshold goes to 0, when `delta = 0`). For a
    /// single mode with `delta = 0` every threshold is optimal and `+inf` is returned.
    pub threshold: f64,
    /// The optimal yield (a supremum in the `delta = 0`, two-mode case).
    pub yield_: f64,
}

impl BimodalExp {
    /// Checks `0 <= p <= 1`, `0 < lambda <= mu` (finite), `delta >= 0` (finite).
    pub fn validate(&self) -> Result<(), CuttingError> {
        let ok = (0.0..=1.0).contains(&self.p)
            && self.lambda.is_finite()
            && self.mu.is_finite()
            && 0.0 < self.lambda
            && self.lambda <= self.mu
            && self.delta.is_finite()
            && self.delta >= 0.0;
        if ok {
            Ok(())
        } else {
            Err(CuttingError::InvalidDistribution {
                distribution: "bimodal exponential",
                reason: format!("need 0 <= p <= 1, 0 < lambda <= mu, delta >= 0, got {self:?}"),
            })
        }
    }

    /// Eq. (2) in closed form for eq. (3): with `l = tau - delta`,
    /// `F = 1 - p e^{-lambda l} - (1-p) e^{-mu l}` and
    /// `int_0^tau S = delta + p (1 - e^{-lambda l}) / lambda + (1-p) (1 - e^{-mu l}) / mu`.
    pub fn yield_at(&self, tau: f64) -> Result<f64, CuttingError> {
        self.validate()?;
        if tau.is_nan() || tau < 0.0 {
            return Err(CuttingError::InvalidArgument(format!(
                "threshold must be non-negative, got {tau}"
            )));
        }
        let (p, la, mu, d) = (self.p, self.lambda, self.mu, self.delta);
        if tau.is_infinite() {
            return Ok(1.0 / (d + p / la + (1.0 - p) / mu));
        }
        let l = tau - d;
        if l <= 0.0 {
            return Ok(0.0);
        }
        let (el, em) = ((-la * l).exp(), (-mu * l).exp());
        // 1 - e^{-x} computed as -expm1(-x) for accuracy at small thresholds.
        let (cl, cm) = (-(-la * l).exp_m1(), -(-mu * l).exp_m1());
        let f = 1.0 - p * el - (1.0 - p) * em;
        Ok(f / (d + p * cl / la + (1.0 - p) * cm / mu))
    }

    /// The left-hand side of Theorem 2's equation in `l = tau - delta`; its unique positive
    /// root is the optimal `l` when the condition of the finite case holds.
    pub fn theorem2_equation(&self, l: f64) -> f64 {
        let (p, la, mu, d) = (self.p, self.lambda, self.mu, self.delta);
        p * (1.0 - p) * (mu - la) / (la * mu)
            * (-la * (1.0 - (-mu * l).exp()) + mu * (-mu * l).exp() * ((la * l).exp() - 1.0))
            + d * (la * p + mu * (1.0 - p) * (-(mu - la) * l).exp())
    }

    /// Theorem 2: the optimal cutting threshold and yield. The finite case solves the
    /// theorem's equation by bracketing (doubling) then bisection to machine precision.
    pub fn theorem2(&self) -> Result<Theorem2, CuttingError> {
        self.validate()?;
        let (p, la, mu, d) = (self.p, self.lambda, self.mu, self.delta);
        let two_modes = la != mu && p > 0.0 && p < 1.0;
        if d == 0.0 {
            return Ok(if two_modes {
                Theorem2 {
                    threshold: 0.0,
                    yield_: p * la + (1.0 - p) * mu,
                }
            } else {
                // A single exponential: the yield is its rate whatever the threshold.
                Theorem2 {
                    threshold: f64::INFINITY,
                    yield_: if p == 0.0 { mu } else { la },
                }
            });
        }
        if d * la * p - p * (1.0 - p) * (mu - la) / mu >= 0.0 {
            return Ok(Theorem2 {
                threshold: f64::INFINITY,
                yield_: 1.0 / (d + p / la + (1.0 - p) / mu),
            });
        }
        // g(0) = delta (lambda p + mu (1 - p)) > 0 and g(+inf) < 0 in this case.
        let mut hi = 1.0 / mu;
        let mut guard = 0;
        while self.theorem2_equation(hi) > 0.0 {
            hi *= 2.0;
            guard += 1;
            if guard > 2000 || !hi.is_finite() {
                return Err(CuttingError::InvalidArgument(
                    "Theorem 2: could not bracket the root".into(),
                ));
            }
        }
        let mut lo = 0.0;
        for _ in 0..200 {
            let mid = 0.5 * (lo + hi);
            if mid <= lo || mid >= hi {
                break;
            }
            if self.theorem2_equation(mid) > 0.0 {
                lo = mid;
            } else {
                hi = mid;
            }
        }
        let tau = d + 0.5 * (lo + hi);
        Ok(Theorem2 {
            threshold: tau,
            yield_: self.yield_at(tau)?,
        })
    }
}
