//! Transformations of random variables needed by the moldable-application model (Hansen
//! et al.): time scaled by a speedup, and the product of two independent variables.
//!
//! # The rounding rule (both operations)
//! A transformed impulse lands at a real position `y` that is usually not a tick. Its mass `m`
//! is **split between the two neighbouring ticks** `floor(y)` and `floor(y) + 1`, in
//! proportions `1 - frac(y)` and `frac(y)` (linear interpolation; an impulse that lands on a
//! tick stays whole). Read as a coupling, the discrete result is
//! `Y' = floor(Y) + Bernoulli(frac(Y))`, so
//!
//! * **mass is conserved** exactly (up to floating-point rounding);
//! * **the mean is exact**: `E[Y' | Y] = Y`, hence `E[Y'] = E[Y]`;
//! * **the variance grows by at most 1/4 tick²** (`Var[Y' | Y] = frac (1 - frac) <= 1/4`);
//! * **every value moves by less than one tick**, `|Y' - Y| < 1`, so the CDF is sandwiched:
//!   `P(Y <= t) <= P(Y' <= t) <= P(Y < t + 1)` for every tick `t`. Equivalently, every
//!   quantile moves by less than one tick. This is the error bound of both operations; the
//!   tests check it against the exact distribution of `Y` (a list of real impulses).
//!
//! The error of discretising the *inputs* (a gamma or a beta on the grid) is the caller's and
//! adds to this bound.

use crate::error::PmfError;
use crate::pmf::{Pmf, Tick};
use crate::prec::MAX_SPAN;

/// Largest magnitude of a real tick position accepted before conversion to `i64`: the
/// tick range's end.
const MAX_TICK_F64: f64 = crate::MAX_TICK as f64;

/// Checks that `factor` is a finite, strictly positive number.
fn check_factor(factor: f64) -> Result<(), PmfError> {
    if factor.is_finite() && factor > 0.0 {
        Ok(())
    } else {
        Err(PmfError::InvalidScale(factor))
    }
}

/// The dense output range `[lo, hi]` in ticks for real positions in `[ymin, ymax]`.
fn output_range(ymin: f64, ymax: f64) -> Result<(Tick, usize), PmfError> {
    for y in [ymin, ymax] {
        if !y.is_finite() || y.abs() > MAX_TICK_F64 {
            return Err(PmfError::TimeOutOfRange(y));
        }
    }
    // One spare tick on each side: the corner products are computed in a different order
    // from the impulses' and may round the other way.
    let lo = ymin.floor() as Tick - 1;
    let hi = ymax.floor() as Tick + 2;
    let span = (hi - lo + 1) as u64;
    if span > MAX_SPAN {
        return Err(PmfError::TooWide {
            span,
            limit: MAX_SPAN,
        });
    }
    Ok((lo, span as usize))
}

/// Adds mass `m` at real position `y` to `out` (dense from tick `lo`), split between
/// `floor(y)` and `floor(y) + 1` so that the mean is exact (module docs).
#[inline]
fn deposit(out: &mut [f64], lo: Tick, y: f64, m: f64) {
    // floor(y) by truncation and correction: `f64::floor` is a libm call on baseline x86-64
    // (no SSE4.1), and this is the inner loop of `product`. |y| < 2^52 is checked upstream.
    let mut fl = y as Tick;
    if (fl as f64) > y {
        fl -= 1;
    }
    let frac = y - fl as f64;
    let k = (fl - lo) as usize;
    out[k] += m * (1.0 - frac);
    if frac > 0.0 {
        out[k + 1] += m * frac;
    }
}

/// The distribution of `X * factor` on the tick grid, for `factor > 0`.
///
/// With `factor = 1 / S(k)` this is the parallel execution time of Hansen et al. §II-C1: the
/// time axis of the serial distribution scaled by `1 / S(k)`; with `factor = c` it stretches
/// time by `c`. Impulses are split between neighbouring ticks (module docs): mass is
/// conserved, `E[X factor]` is exact and every quantile moves by less than one tick.
///
/// Errors: [`PmfError::InvalidScale`] when `factor` is not finite and positive;
/// [`PmfError::TimeOutOfRange`] or [`PmfError::TooWide`] when the result would not fit.
///
/// ```
/// use pmf::{Pmf, transform::scale_time};
/// // Speedup 4: 10 -> 2.5 (split 1/2, 1/2 between 2 and 3), 20 -> 5.
/// let t = Pmf::new(10, vec![0.5, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.5]).unwrap();
/// let p = scale_time(&t, 1.0 / 4.0).unwrap();
/// assert_eq!(p.masses(), &[0.25, 0.25, 0.0, 0.5]);
/// assert!((p.mean() - t.mean() / 4.0).abs() < 1e-12);
/// ```
pub fn scale_time(p: &Pmf, factor: f64) -> Result<Pmf, PmfError> {
    check_factor(factor)?;
    let ymin = p.min() as f64 * factor;
    let ymax = p.max() as f64 * factor;
    let (lo, len) = output_range(ymin, ymax)?;
    let mut out = vec![0.0; len];
    for (t, m) in p.iter() {
        deposit(&mut out, lo, t as f64 * factor, m);
    }
    Ok(Pmf::trimmed(lo, out))
}

/// The distribution of `X * Y * scale` for independent `X` (`a`) and `Y` (`b`), on the tick
/// grid.
///
/// `scale` says what a tick of `b` is worth: a slowdown held on a grid of `r` ticks per unit
/// (tick `t` meaning slowdown `t / r`) is multiplied with an execution time by
/// `product(time, slowdown, 1.0 / r)`, which is Hansen et al. eq. (1) with the result in the
/// ticks of `a`. Each of the `|a| |b|` products is split between neighbouring ticks (module
/// docs): mass is conserved, the mean is exactly `E[X] E[Y] scale`, and every quantile moves
/// by less than one tick. Cost O(impulses(a) × impulses(b)).
///
/// Errors: [`PmfError::InvalidScale`] when `scale` is not finite and positive;
/// [`PmfError::TimeOutOfRange`] or [`PmfError::TooWide`] when the result would not fit.
///
/// ```
/// use pmf::{Pmf, transform::product};
/// // Time 10 or 20 (1/2 each) times slowdown 1.0 or 1.5 (tick 2 or 3 at 2 ticks per unit).
/// let t = Pmf::from_pairs([(10, 0.5), (20, 0.5)]).unwrap().pmf;
/// let s = Pmf::from_pairs([(2, 0.5), (3, 0.5)]).unwrap().pmf;
/// let x = product(&t, &s, 0.5).unwrap();
/// assert_eq!(x.iter().collect::<Vec<_>>(), vec![(10, 0.25), (15, 0.25), (20, 0.25), (30, 0.25)]);
/// ```
pub fn product(a: &Pmf, b: &Pmf, scale: f64) -> Result<Pmf, PmfError> {
    check_factor(scale)?;
    let corners = [
        a.min() as f64 * b.min() as f64,
        a.min() as f64 * b.max() as f64,
        a.max() as f64 * b.min() as f64,
        a.max() as f64 * b.max() as f64,
    ];
    let ymin = corners.iter().fold(f64::INFINITY, |m, &c| m.min(c)) * scale;
    let ymax = corners.iter().fold(f64::NEG_INFINITY, |m, &c| m.max(c)) * scale;
    let (lo, len) = output_range(ymin, ymax)?;
    let mut out = vec![0.0; len];
    let bs: Vec<(f64, f64)> = b.iter().map(|(t, m)| (t as f64 * scale, m)).collect();
    for (ta, ma) in a.iter() {
        let x = ta as f64;
        for &(y, mb) in &bs {
            // `y` overflows to infinity only where every tick of `a` is 0 (else a corner would
            // be out of range): the product is then 0, not `0 * inf`, a NaN. (`0 * y` for a
            // finite `y` is a zero of either sign, deposited as 0.)
            let xy = if x == 0.0 { 0.0 } else { x * y };
            deposit(&mut out, lo, xy, ma * mb);
        }
    }
    Ok(Pmf::trimmed(lo, out))
}
