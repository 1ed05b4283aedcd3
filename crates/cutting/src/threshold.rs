//! Optimal cutting thresholds (sections 4.1 and 5): for a discrete distribution or an estimate
//! (Theorem 1: the best threshold is one of the support points), and for a known continuous
//! distribution (ORACLE).
//!
//! # How the optimum is searched
//! * **Discrete / estimated** ([`optimal_discrete`]): between two support points the numerator
//!   of eq. (1) is constant and the denominator grows, so the maximum is at a support point.
//!   Every completion time is a candidate, evaluated with running sums in one pass (O(k) after
//!   sorting); the first (smallest) maximiser wins. As in the paper the threshold is always
//!   one of the observed completion times: an estimate never proposes "never interrupt", it
//!   proposes cutting at the largest completion time at most.
//! * **Continuous, known** ([`optimal_continuous`]): eq. (2) is evaluated on a geometric grid
//!   of 4,000 thresholds from `1e-10 y_max` to `y_max`, where `S(y_max) < 1e-12`; the integral
//!   `int S` is accumulated interval by interval with Simpson's rule. The best grid point is
//!   then refined by golden-section search on its two neighbouring intervals. If the best value
//!   does not exceed the never-interrupt yield `1 / (delta + E[X])` (the limit as the
//!   threshold grows) by more than [`NEVER_TOLERANCE`] (relative), or is the last grid point,
//!   the answer is `+inf`: never interrupt. (Without the tolerance, quadrature noise of order
//!   1e-9 makes lnorm(1, 0.5) "optimal" at a threshold of 13, with a gain of 1e-8.)

use pmf::kaplan_meier::{KaplanMeier, Sample};
use serde::{Deserialize, Serialize};

use crate::distributions::Distribution;
use crate::error::CuttingError;
use crate::yield_::{check_delta, integral_survival};

/// A finite threshold must beat the never-interrupt yield by this relative margin to be
/// preferred (it is far below any difference a simulation can see).
pub const NEVER_TOLERANCE: f64 = 1e-6;

/// A threshold and its yield. `threshold = +inf` means never interrupt.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Optimum {
    /// The cutting threshold (total execution time after which a task is interrupted).
    pub threshold: f64,
    /// Its yield (tasks per budget unit).
    pub yield_: f64,
}

/// The best threshold among sorted points (time ascending, probabilities summing to <= 1).
/// `None` when there is no point with positive mass.
pub(crate) fn best_on_sorted(points: &[(f64, f64)]) -> Option<Optimum> {
    let (mut f, mut a) = (0.0, 0.0);
    let mut best: Option<Optimum> = None;
    for &(w, p) in points {
        f += p;
        a += p * w;
        if f <= 0.0 {
            continue;
        }
        let y = f / (a + (1.0 - f).max(0.0) * w);
        if best.is_none_or(|b| y > b.yield_) {
            best = Some(Optimum {
                threshold: w,
                yield_: y,
            });
        }
    }
    best
}

/// Theorem 1 / eq. (1): the threshold among the support points that maximises the yield, for
/// `(time, probability)` points in any order (probabilities may sum to less than 1, see
/// [`crate::yield_::discrete`]). `Ok(None)` when no point has positive mass.
///
/// Errors: as [`crate::yield_::discrete`].
pub fn optimal_discrete(points: &[(f64, f64)]) -> Result<Option<Optimum>, CuttingError> {
    // Validates the points (the threshold 0 is always valid).
    crate::yield_::discrete(points, 0.0)?;
    let mut sorted = points.to_vec();
    sorted.sort_by(|x, y| x.0.total_cmp(&y.0));
    Ok(best_on_sorted(&sorted))
}

/// The empirical distribution function of section 5.1 as points: each distinct completion
/// time with its frequency. Returns no point for no sample. Errors on a non-finite or
/// negative time.
pub fn empirical_estimate(completed: &[f64]) -> Result<Vec<(f64, f64)>, CuttingError> {
    if let Some((i, &t)) = completed
        .iter()
        .enumerate()
        .find(|(_, t)| !(t.is_finite() && **t >= 0.0))
    {
        return Err(pmf::PmfError::InvalidSampleTime { index: i, value: t }.into());
    }
    let mut sorted = completed.to_vec();
    sorted.sort_by(f64::total_cmp);
    Ok(empirical_sorted(&sorted))
}

pub(crate) fn empirical_sorted(sorted: &[f64]) -> Vec<(f64, f64)> {
    let p = 1.0 / sorted.len() as f64;
    let mut points: Vec<(f64, f64)> = Vec::new();
    for &t in sorted {
        match points.last_mut() {
            Some(last) if last.0 == t => last.1 += p,
            _ => points.push((t, p)),
        }
    }
    points
}

/// The Kaplan-Meier estimate of section 5.2 as points: each completion time with its mass
/// `S(w_{j-1}) - S(w_j)`; the masses sum to `1 - S(w_k)`.
pub fn survival_estimate(samples: &[Sample]) -> Result<Vec<(f64, f64)>, CuttingError> {
    Ok(KaplanMeier::new(samples)?.completions().collect())
}

/// A Kaplan-Meier estimate (eq. (4)) computed from sorted data in one merge pass, without sorting
/// (the simulation's fast path, checked against [`KaplanMeier`] in the tests).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct KmPoints {
    /// Completion times and masses.
    pub points: Vec<(f64, f64)>,
    /// `S(w_k)`.
    pub remainder: f64,
    /// `w_k`, the largest observation.
    pub last: f64,
}

impl KmPoints {
    /// Eq. (4) from completion times sorted ascending and censored `(time, count)` sorted
    /// ascending by time (deaths before censoring at equal times).
    pub fn from_sorted(deaths: &[f64], censored: &[(f64, usize)]) -> Self {
        let total = deaths.len() + censored.iter().map(|c| c.1).sum::<usize>();
        let mut out = KmPoints {
            points: Vec::new(),
            remainder: 1.0,
            last: 0.0,
        };
        let (mut i, mut j) = (0, 0);
        let mut at_risk = total;
        let mut s = 1.0;
        while i < deaths.len() || j < censored.len() {
            let w = match (deaths.get(i), censored.get(j)) {
                (Some(&a), Some(&(b, _))) => a.min(b),
                (Some(&a), None) => a,
                (None, Some(&(b, _))) => b,
                (None, None) => break,
            };
            let mut d = 0;
            while i < deaths.len() && deaths[i] == w {
                d += 1;
                i += 1;
            }
            let mut c = 0;
            while j < censored.len() && censored[j].0 == w {
                c += censored[j].1;
                j += 1;
            }
            if d > 0 && at_risk > 0 {
                let next = s * (at_risk - d) as f64 / at_risk as f64;
                out.points.push((w, s - next));
                s = next;
            }
            at_risk -= d + c;
            out.last = w;
        }
        out.remainder = s;
        out
    }

    /// Mean and standard deviation of section 5.2 (remainder at `w_k`).
    pub fn mean_sd(&self) -> (f64, f64) {
        let atoms = self
            .points
            .iter()
            .copied()
            .chain(std::iter::once((self.last, self.remainder)));
        let mean: f64 = atoms.clone().map(|(w, p)| p * w).sum();
        let var: f64 = atoms.map(|(w, p)| p * (w - mean) * (w - mean)).sum();
        (mean, var.max(0.0).sqrt())
    }
}

/// ORACLE's threshold: the threshold maximising eq. (2) for execution times `delta + X`,
/// `X ~ dist`, searched as described in the module docs. `threshold = +inf` means never
/// interrupt.
///
/// Errors: an invalid distribution or `delta`.
pub fn optimal_continuous(dist: &Distribution, delta: f64) -> Result<Optimum, CuttingError> {
    dist.validate()?;
    check_delta(delta)?;
    let never = 1.0 / (delta + dist.mean());
    let mut y_max = dist.mean().max(1e-9);
    while dist.survival(y_max) > 1e-12 && y_max < 1e12 {
        y_max *= 2.0;
    }
    const N: usize = 4000;
    let lo = y_max * 1e-10;
    let ratio = (y_max / lo).powf(1.0 / (N - 1) as f64);
    let mut ys = Vec::with_capacity(N);
    let mut y = lo;
    for _ in 0..N {
        ys.push(y);
        y *= ratio;
    }
    let simpson = |a: f64, b: f64, panels: usize| -> f64 {
        let h = (b - a) / panels as f64;
        let mut sum = dist.survival(a) + dist.survival(b);
        for k in 1..panels {
            sum += if k % 2 == 1 { 4.0 } else { 2.0 } * dist.survival(a + k as f64 * h);
        }
        sum * h / 3.0
    };
    let mut integral = Vec::with_capacity(N);
    integral.push(integral_survival(dist, ys[0]));
    for k in 1..N {
        let prev = integral[k - 1];
        integral.push(prev + simpson(ys[k - 1], ys[k], 2));
    }
    let yield_at = |k: usize| dist.cdf(ys[k]) / (delta + integral[k]);
    let (mut best_k, mut best) = (0, f64::NEG_INFINITY);
    for k in 0..N {
        let v = yield_at(k);
        if v > best {
            best = v;
            best_k = k;
        }
    }
    // Relative tolerance: the quadrature error of the grid is about 1e-9; a gain smaller than
    // NEVER_TOLERANCE is numerical noise on a yield that increases towards `never`.
    if best_k == N - 1 || best <= never * (1.0 + NEVER_TOLERANCE) {
        return Ok(Optimum {
            threshold: f64::INFINITY,
            yield_: never,
        });
    }
    // Golden-section refinement on [y_{k-1}, y_{k+1}].
    let (a0, i0) = if best_k == 0 {
        (0.0, 0.0)
    } else {
        (ys[best_k - 1], integral[best_k - 1])
    };
    let b0 = ys[best_k + 1];
    let eval = |y: f64| -> f64 {
        if y <= 0.0 {
            return 0.0;
        }
        let int = if a0 == 0.0 {
            integral_survival(dist, y)
        } else {
            i0 + simpson(a0, y, 32)
        };
        dist.cdf(y) / (delta + int)
    };
    let phi = (5f64.sqrt() - 1.0) / 2.0;
    let (mut a, mut b) = (a0, b0);
    let mut c = b - phi * (b - a);
    let mut d = a + phi * (b - a);
    let (mut fc, mut fd) = (eval(c), eval(d));
    for _ in 0..80 {
        if fc >= fd {
            b = d;
            d = c;
            fd = fc;
            c = b - phi * (b - a);
            fc = eval(c);
        } else {
            a = c;
            c = d;
            fc = fd;
            d = a + phi * (b - a);
            fd = eval(d);
        }
    }
    let (y_best, v) = if fc >= fd { (c, fc) } else { (d, fd) };
    let (y_best, v) = if v >= best {
        (y_best, v)
    } else {
        (ys[best_k], best)
    };
    Ok(Optimum {
        threshold: delta + y_best,
        yield_: v,
    })
}
