//! The [`Pmf`] type: a discrete distribution on the integer tick grid.

use serde::{Deserialize, Serialize};

use crate::error::PmfError;
use crate::kernel::convolve_into;
use crate::prec::{MASS_EPS, MAX_SPAN, RENORMALISE_TOLERANCE};

/// A point on the time grid. One tick is one time unit of the model unless a caller chooses a
/// finer resolution (see the crate docs).
pub type Tick = i64;

/// The last tick of the tick range `[MIN_TICK, MAX_TICK]` (2^52): every PMF's support lies in
/// the range (see the crate docs, "The tick range").
///
/// Every tick of the range, and the sum or difference of two of them, is an `f64` exactly
/// (|t| <= 2^53), so means and real-time reads are exact on the grid, and sums of a few ticks
/// stay far from `i64`'s limits (2^63).
pub const MAX_TICK: Tick = 1 << 52;

/// The first tick of the tick range: `-MAX_TICK`.
pub const MIN_TICK: Tick = -MAX_TICK;

/// Tick arguments (deadlines, `now`, start ticks, shifts) are clamped to `[-ARG_LIMIT,
/// ARG_LIMIT]` on entry: as every support lies within `MAX_TICK` of 0, a tick beyond it is
/// read as at it and no result changes, while sums and differences of two clamped arguments
/// and a few ticks of the range stay within `i64`.
pub(crate) const ARG_LIMIT: Tick = 1 << 60;

/// `t` clamped to `[-ARG_LIMIT, ARG_LIMIT]` (see [`ARG_LIMIT`]).
#[inline(always)]
pub(crate) fn arg(t: Tick) -> Tick {
    t.clamp(-ARG_LIMIT, ARG_LIMIT)
}

/// A probability mass function on the integer tick grid.
///
/// The support is `[offset, offset + len)`, masses are dense `f64`, finite, non-negative and sum
/// to 1 within [`MASS_EPS`]. The first and last bins always hold non-zero mass (zero bins at
/// either end are trimmed on construction), so `min()` and `max()` are the true extremes.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(try_from = "PmfRepr", into = "PmfRepr")]
pub struct Pmf {
    offset: Tick,
    masses: Vec<f64>,
}

// PMFs are moved around at every mapping event (slots, chains, buffers): keep them small.
#[cfg(target_pointer_width = "64")]
const _: () = assert!(std::mem::size_of::<Pmf>() <= 48);

#[derive(Serialize, Deserialize)]
struct PmfRepr {
    offset: Tick,
    masses: Vec<f64>,
}

impl TryFrom<PmfRepr> for Pmf {
    type Error = PmfError;
    fn try_from(r: PmfRepr) -> Result<Self, Self::Error> {
        Pmf::new(r.offset, r.masses)
    }
}

impl From<Pmf> for PmfRepr {
    fn from(mut p: Pmf) -> Self {
        PmfRepr {
            offset: p.offset,
            masses: std::mem::take(&mut p.masses),
        }
    }
}

/// The result of a checked construction: the PMF, and the total of the input before
/// renormalisation (1.0 when the input was already normalised).
#[derive(Debug, Clone, PartialEq)]
pub struct Normalised {
    /// The normalised PMF.
    pub pmf: Pmf,
    /// The sum of the input masses.
    pub input_total: f64,
}

impl Normalised {
    /// How far the input total was from 1.
    pub fn deviation(&self) -> f64 {
        (self.input_total - 1.0).abs()
    }
}

fn validate(masses: &[f64]) -> Result<f64, PmfError> {
    if masses.is_empty() {
        return Err(PmfError::Empty);
    }
    let mut total = 0.0;
    for (index, &value) in masses.iter().enumerate() {
        if !value.is_finite() {
            return Err(PmfError::NonFinite { index, value });
        }
        if value < 0.0 {
            return Err(PmfError::Negative { index, value });
        }
        total += value;
    }
    if total <= 0.0 {
        return Err(PmfError::ZeroTotal);
    }
    if !total.is_finite() {
        return Err(PmfError::TotalNotFinite);
    }
    Ok(total)
}

impl Pmf {
    /// Builds a PMF from dense masses starting at `offset`: the distribution of a time
    /// measured from 0 (an execution time, or a completion time on a clock that starts at 0).
    ///
    /// Masses must be finite and non-negative; their total must be within
    /// [`RENORMALISE_TOLERANCE`] of 1 and is renormalised to exactly 1 (within rounding).
    /// Every tick that holds mass must lie in `[0, MAX_TICK]`
    /// ([`PmfError::TickOutOfRange`] otherwise; zero bins outside it are trimmed and hold no
    /// time). Negative ticks are reached only by computing: [`Pmf::shift`] by a negative
    /// `dt`, or [`Pmf::point`] at a negative tick, within the tick range.
    /// Use [`Pmf::new_checked`] to learn how far the input was from 1, or
    /// [`Pmf::from_weights`] to normalise arbitrary positive weights.
    pub fn new(offset: Tick, masses: Vec<f64>) -> Result<Self, PmfError> {
        Self::new_checked(offset, masses).map(|n| n.pmf)
    }

    /// As [`Pmf::new`], also reporting the input total.
    pub fn new_checked(offset: Tick, masses: Vec<f64>) -> Result<Normalised, PmfError> {
        let total = validate(&masses)?;
        if (total - 1.0).abs() > RENORMALISE_TOLERANCE {
            return Err(PmfError::NotNormalised {
                total,
                tolerance: RENORMALISE_TOLERANCE,
            });
        }
        check_times(offset, &masses)?;
        let pmf = Self::from_valid_weights(offset, masses, total);
        Ok(Normalised {
            pmf,
            input_total: total,
        })
    }

    /// Builds a PMF from non-negative weights of any positive total, normalising them. The
    /// same times as [`Pmf::new`]: every tick with a weight in `[0, MAX_TICK]`.
    pub fn from_weights(offset: Tick, weights: Vec<f64>) -> Result<Self, PmfError> {
        let total = validate(&weights)?;
        check_times(offset, &weights)?;
        Ok(Self::from_valid_weights(offset, weights, total))
    }

    fn from_valid_weights(offset: Tick, mut masses: Vec<f64>, total: f64) -> Self {
        if (total - 1.0).abs() > f64::EPSILON * 4.0 {
            // Divide rather than multiply by 1/total: a subnormal total has no finite inverse.
            for m in &mut masses {
                *m /= total;
            }
        }
        Self::trimmed(offset, masses)
    }

    /// Builds from masses already known to be valid and normalised (hot paths inside the
    /// crate); trims zero bins at both ends. Checked in debug builds.
    ///
    /// `offset` may lie beyond the tick range (within [`ARG_LIMIT`] and a few ranges'
    /// widths of it): the mass beyond either end of the range is then gathered at that end
    /// (see the crate docs, "The tick range"). Within the range that costs two comparisons.
    #[inline]
    pub(crate) fn trimmed(mut offset: Tick, mut masses: Vec<f64>) -> Self {
        let first = masses.iter().position(|&m| m > 0.0).unwrap_or(0);
        let last = masses.iter().rposition(|&m| m > 0.0).unwrap_or(0);
        if last + 1 < masses.len() {
            masses.truncate(last + 1);
        }
        if first > 0 {
            masses.drain(..first);
            offset += first as Tick;
        }
        if !fits(offset, masses.len()) {
            return Self::saturated(offset, &masses);
        }
        let p = Pmf::plain(offset, masses);
        debug_assert!(p.check_invariants().is_ok(), "{:?}", p.check_invariants());
        p
    }

    /// [`Pmf::trimmed`] of trimmed masses (non-zero end bins) that reach beyond the tick
    /// range: the mass below [`MIN_TICK`] is summed, in bin order, into the bin at
    /// `MIN_TICK`, the mass above [`MAX_TICK`] into the bin at `MAX_TICK`.
    #[cold]
    fn saturated(offset: Tick, masses: &[f64]) -> Self {
        let last = offset + masses.len() as Tick - 1;
        if last <= MIN_TICK {
            return Pmf::point(MIN_TICK);
        }
        if offset >= MAX_TICK {
            return Pmf::point(MAX_TICK);
        }
        // Both ends of the kept bins lie inside the support now.
        let lo = usize::try_from(MIN_TICK - offset).unwrap_or(0);
        let hi = usize::try_from(MAX_TICK - offset)
            .map_or(masses.len() - 1, |h| h.min(masses.len() - 1));
        let mut kept = Vec::with_capacity(hi - lo + 1);
        kept.extend_from_slice(&masses[lo..=hi]);
        kept[0] = masses[..=lo].iter().sum();
        // `lo < hi`: the support reaches into the range past `MIN_TICK`.
        let n = kept.len();
        kept[n - 1] = masses[hi..].iter().sum();
        let p = Pmf::plain(offset + lo as Tick, kept);
        debug_assert!(p.check_invariants().is_ok(), "{:?}", p.check_invariants());
        p
    }

    /// Builds a PMF from `(time, probability)` pairs on any grid (a 2-tick grid stays a
    /// 2-tick grid: the true times are kept, the bins between hold zero). Pairs may come in any
    /// order; repeated times add up. The total must be within [`RENORMALISE_TOLERANCE`] of 1.
    pub fn from_pairs<I>(pairs: I) -> Result<Normalised, PmfError>
    where
        I: IntoIterator<Item = (Tick, f64)>,
    {
        let (offset, masses) = Self::dense_from_pairs(pairs)?;
        Self::new_checked(offset, masses)
    }

    /// As [`Pmf::from_pairs`], normalising weights of any positive total.
    pub fn from_weighted_pairs<I>(pairs: I) -> Result<Self, PmfError>
    where
        I: IntoIterator<Item = (Tick, f64)>,
    {
        let (offset, masses) = Self::dense_from_pairs(pairs)?;
        Self::from_weights(offset, masses)
    }

    fn dense_from_pairs<I>(pairs: I) -> Result<(Tick, Vec<f64>), PmfError>
    where
        I: IntoIterator<Item = (Tick, f64)>,
    {
        let pairs: Vec<(Tick, f64)> = pairs.into_iter().collect();
        if pairs.is_empty() {
            return Err(PmfError::Empty);
        }
        for (index, &(_, value)) in pairs.iter().enumerate() {
            if !value.is_finite() {
                return Err(PmfError::NonFinite { index, value });
            }
            if value < 0.0 {
                return Err(PmfError::Negative { index, value });
            }
        }
        // Only bins with mass decide the support, so zero pairs far away cannot blow it up.
        let (lo, hi) = pairs
            .iter()
            .filter(|p| p.1 > 0.0)
            .fold((Tick::MAX, Tick::MIN), |(lo, hi), &(t, _)| {
                (lo.min(t), hi.max(t))
            });
        if lo > hi {
            return Err(PmfError::ZeroTotal);
        }
        let span = (i128::from(hi) - i128::from(lo) + 1) as u128;
        if span > u128::from(MAX_SPAN) {
            return Err(PmfError::TooWide {
                span: span.min(u128::from(u64::MAX)) as u64,
                limit: MAX_SPAN,
            });
        }
        let mut masses = vec![0.0; span as usize];
        for &(t, m) in &pairs {
            if m > 0.0 {
                masses[(t - lo) as usize] += m;
            }
        }
        Ok((lo, masses))
    }

    /// A point mass (an impulse of probability 1) at `t`, any tick of the tick range (a
    /// machine free at `now`, which may lie before 0). A `t` beyond the range is read as the
    /// range's end: the point mass sits at [`MIN_TICK`] or [`MAX_TICK`].
    pub fn point(t: Tick) -> Self {
        Pmf::plain(t.clamp(MIN_TICK, MAX_TICK), vec![1.0])
    }

    fn plain(offset: Tick, masses: Vec<f64>) -> Self {
        Pmf { offset, masses }
    }

    /// Checks the type's invariants; used by tests and debug assertions.
    pub fn check_invariants(&self) -> Result<(), String> {
        if self.masses.is_empty() {
            return Err("empty".into());
        }
        let mut total = 0.0;
        for (i, &m) in self.masses.iter().enumerate() {
            if !m.is_finite() || m < 0.0 {
                return Err(format!("mass {i} = {m}"));
            }
            total += m;
        }
        if (total - 1.0).abs() > MASS_EPS {
            return Err(format!("total {total}"));
        }
        if self.masses[0] <= 0.0 || *self.masses.last().unwrap_or(&0.0) <= 0.0 {
            return Err("zero bin at an end".into());
        }
        if !fits(self.offset, self.masses.len()) {
            return Err(format!(
                "support [{}, +{}) outside the tick range",
                self.offset,
                self.masses.len()
            ));
        }
        Ok(())
    }

    /// First tick of the support (the smallest possible value).
    pub fn min(&self) -> Tick {
        self.offset
    }

    /// Last tick of the support (the largest possible value).
    pub fn max(&self) -> Tick {
        self.offset + self.masses.len() as Tick - 1
    }

    /// Same as [`Pmf::min`]: the tick of `masses()[0]`.
    pub fn offset(&self) -> Tick {
        self.offset
    }

    /// Number of bins in the support, zero bins between the ends included.
    pub fn len(&self) -> usize {
        self.masses.len()
    }

    /// Never true: a PMF always has at least one bin. Present for API symmetry.
    pub fn is_empty(&self) -> bool {
        self.masses.is_empty()
    }

    /// The masses' buffer, for reuse ([`crate::next_pct_in`]): the PMF is gone.
    pub fn into_masses(self) -> Vec<f64> {
        self.masses
    }

    /// A copy of this PMF in the memory of a buffer from `spare` when it holds one (the
    /// buffers of PMFs no longer needed, [`Pmf::into_masses`]; as [`crate::next_pct_in`]).
    /// Equal to [`Clone::clone`].
    pub fn clone_in(&self, spare: &mut Vec<Vec<f64>>) -> Pmf {
        let mut masses = crate::pct::take_buffer(spare, self.masses.len());
        masses.extend_from_slice(&self.masses);
        Pmf {
            offset: self.offset,
            masses,
        }
    }

    /// The dense masses; `masses()[k]` is the probability of tick `offset() + k`.
    pub fn masses(&self) -> &[f64] {
        &self.masses
    }

    /// Number of bins with non-zero mass (the impulses).
    pub fn impulses(&self) -> usize {
        self.masses.iter().filter(|&&m| m > 0.0).count()
    }

    /// Iterates over `(tick, probability)` for every bin with non-zero mass.
    pub fn iter(&self) -> impl Iterator<Item = (Tick, f64)> + '_ {
        self.masses
            .iter()
            .enumerate()
            .filter(|(_, m)| **m > 0.0)
            .map(move |(k, &m)| (self.offset + k as Tick, m))
    }

    /// The total-variation distance `sup_A |P(A) - Q(A)|` to `other`, half the L1 distance
    /// between the masses: the bound that [`Pmf::trim_tv`] keeps (O(union of the supports)).
    ///
    /// The sum runs over the ticks of both supports in increasing order; the ticks between two
    /// disjoint supports would add zeros, which change no bit of a sum of non-negative terms,
    /// and are skipped. Masses sum to 1 only within rounding, so the half sum is capped at 1.
    pub fn total_variation(&self, other: &Pmf) -> f64 {
        let (a, b) = if self.min() <= other.min() {
            (self, other)
        } else {
            (other, self)
        };
        let diff = |t: Tick| (self.mass_at(t) - other.mass_at(t)).abs();
        let sum: f64 = if b.min() <= a.max() + 1 {
            (a.min()..=a.max().max(b.max())).map(diff).sum()
        } else {
            (a.min()..=a.max()).chain(b.min()..=b.max()).map(diff).sum()
        };
        (sum / 2.0).min(1.0)
    }

    /// P(X = t).
    pub fn mass_at(&self, t: Tick) -> f64 {
        if t < self.offset || t > self.max() {
            return 0.0;
        }
        self.masses[(t - self.offset) as usize]
    }

    /// The same distribution moved by `dt` ticks (X + dt), within the tick range: the mass
    /// moved beyond an end of the range is gathered at that end.
    pub fn shift(&self, dt: Tick) -> Self {
        let mut masses = Vec::with_capacity(self.masses.len());
        masses.extend_from_slice(&self.masses);
        let offset = self.offset + arg(dt);
        if fits(offset, masses.len()) {
            Pmf::plain(offset, masses)
        } else {
            Pmf::saturated(offset, &masses)
        }
    }

    /// Moves this distribution in place by `dt` ticks, as [`Pmf::shift`].
    pub fn shift_in_place(&mut self, dt: Tick) {
        let offset = self.offset + arg(dt);
        if fits(offset, self.masses.len()) {
            self.offset = offset;
        } else {
            let masses = std::mem::take(&mut self.masses);
            *self = Pmf::saturated(offset, &masses);
        }
    }

    /// `E[X]`.
    pub fn mean(&self) -> f64 {
        let mut s = 0.0;
        for (k, &m) in self.masses.iter().enumerate() {
            s += m * k as f64;
        }
        self.offset as f64 + s
    }

    /// `Var[X]` (the population variance of the distribution).
    pub fn variance(&self) -> f64 {
        self.variance_about(self.mean())
    }

    /// [`Pmf::variance`] from this PMF's mean `mean` as [`Pmf::mean`] returned it (kept by
    /// the caller): the same value, one pass instead of two.
    pub fn variance_about(&self, mean: f64) -> f64 {
        let mu = mean - self.offset as f64;
        let mut s = 0.0;
        for (k, &m) in self.masses.iter().enumerate() {
            let d = k as f64 - mu;
            s += m * d * d;
        }
        s.max(0.0)
    }

    /// The standard deviation.
    pub fn std_dev(&self) -> f64 {
        self.variance().sqrt()
    }

    /// The population skewness E[(X - mu)^3] / sigma^3; 0 for a point mass.
    pub fn skewness(&self) -> f64 {
        let mu = self.mean() - self.offset as f64;
        let (mut m2, mut m3) = (0.0, 0.0);
        for (k, &m) in self.masses.iter().enumerate() {
            let d = k as f64 - mu;
            m2 += m * d * d;
            m3 += m * d * d * d;
        }
        if m2 <= 0.0 {
            return 0.0;
        }
        m3 / m2.powf(1.5)
    }

    /// The sample-style skewness of paper eq. (6):
    /// `S = sqrt(N (N - 1)) / (N - 2) * m3 / sigma^3`, where the distribution's own
    /// probability-weighted moments stand for the sample moments and `N` is the number of
    /// observations the PMF summarises. With `N <= 2` the correction is undefined and the
    /// population skewness is returned.
    pub fn sample_skewness(&self, n: usize) -> f64 {
        let g1 = self.skewness();
        if n <= 2 {
            return g1;
        }
        let n = n as f64;
        (n * (n - 1.0)).sqrt() / (n - 2.0) * g1
    }

    /// The bounded skewness `s` of paper section V-B1: eq. (6) with `N` the number of
    /// impulses of the PMF, clamped to [-1, 1] (|S| >= 1 counts as highly skewed).
    pub fn bounded_skewness(&self) -> f64 {
        self.sample_skewness(self.impulses()).clamp(-1.0, 1.0)
    }

    /// P(X <= t) at a tick. The convention used everywhere in this crate: the CDF includes
    /// its argument.
    pub fn cdf_tick(&self, t: Tick) -> f64 {
        if t < self.offset {
            return 0.0;
        }
        if t >= self.max() {
            return 1.0;
        }
        let k = (t - self.offset) as usize;
        let s: f64 = self.masses[..=k].iter().sum();
        s.min(1.0)
    }

    /// P(X <= t) at a real time: the mass of every tick `<= t`, i.e. `cdf_tick(floor(t))`.
    pub fn cdf(&self, t: f64) -> f64 {
        if t.is_nan() {
            return f64::NAN;
        }
        if t < self.offset as f64 {
            return 0.0;
        }
        if t >= self.max() as f64 {
            return 1.0;
        }
        self.cdf_tick(t.floor() as Tick)
    }

    /// P(X > t) at a real time, `1 - cdf(t)`.
    pub fn sf(&self, t: f64) -> f64 {
        if t.is_nan() {
            return f64::NAN;
        }
        if t < self.offset as f64 {
            return 1.0;
        }
        if t >= self.max() as f64 {
            return 0.0;
        }
        let k = (t.floor() as Tick - self.offset) as usize;
        self.masses[k + 1..].iter().sum::<f64>().min(1.0)
    }

    /// P(X < d): the probability of completing strictly before a deadline tick `d`. This is
    /// the success probability of a completion-time PMF (see the crate docs on deadlines).
    #[inline]
    pub fn prob_before(&self, d: Tick) -> f64 {
        if d <= self.offset {
            return 0.0;
        }
        if d > self.max() {
            return 1.0;
        }
        self.cdf_tick(d - 1)
    }

    /// The quantile (inverse CDF): the smallest tick `t` with `P(X <= t) >= u`.
    ///
    /// `u = 0` gives the minimum of the support. Used with one uniform draw per task to draw
    /// execution times with common random numbers.
    pub fn quantile(&self, u: f64) -> Result<Tick, PmfError> {
        if !(0.0..=1.0).contains(&u) {
            return Err(PmfError::InvalidProbability(u));
        }
        let mut acc = 0.0;
        for (k, &m) in self.masses.iter().enumerate() {
            acc += m;
            if acc >= u && m > 0.0 {
                return Ok(self.offset + k as Tick);
            }
        }
        Ok(self.max())
    }

    /// The distribution of X + Y for independent X (self) and Y (paper eq. (2), thesis
    /// eq. (3.1)): plain convolution.
    pub fn convolve(&self, other: &Pmf) -> Pmf {
        let mut out = vec![0.0; self.masses.len() + other.masses.len() - 1];
        convolve_into(&self.masses, &other.masses, &mut out);
        Pmf::trimmed(self.offset + other.offset, out)
    }

    /// The distribution of X conditioned on `X > now` (JPDC-2016 fig. 2): impulses at or
    /// before `now` are removed and the rest renormalised. Used for the task executing at
    /// `now`, which has not completed yet. If no mass lies after `now` (the task has run past
    /// the support of its PMF, possible when the PMF is an estimate), the result is a point
    /// mass at `now + 1`: the task is expected to end at the next tick.
    ///
    /// At `now >= MAX_TICK` that point mass is at [`MAX_TICK`], the end of the tick range.
    pub fn condition_after(&self, now: Tick) -> Pmf {
        if now < self.offset {
            return self.clone();
        }
        if now >= self.max() {
            return Pmf::point(now.saturating_add(1));
        }
        let start = (now - self.offset + 1) as usize;
        let rest = &self.masses[start..];
        let total: f64 = rest.iter().sum();
        if total <= 0.0 {
            return Pmf::point(now + 1);
        }
        let inv = 1.0 / total;
        let mut masses = Vec::with_capacity(rest.len());
        masses.extend(rest.iter().map(|m| m * inv));
        Pmf::trimmed(now + 1, masses)
    }

    /// Gathers all mass at or after `d` into one impulse at `d` (the drop at a deadline of
    /// paper eq. (5), step 2 of JPDC-2016 fig. 4).
    pub fn gather_at(&self, d: Tick) -> Pmf {
        if d > self.max() {
            return self.clone();
        }
        if d <= self.offset {
            return Pmf::point(d);
        }
        let k = (d - self.offset) as usize;
        let mut masses = Vec::with_capacity(k + 1);
        masses.extend_from_slice(&self.masses[..=k]);
        masses[k] = self.masses[k..].iter().sum();
        Pmf::trimmed(self.offset, masses)
    }

    /// max(X, t): moves all mass below `t` up to an impulse at `t` (JPDC-2016 staging: a task
    /// cannot start before its input data is ready at `t`). Unchanged when `t <= min()`.
    pub fn at_least(&self, t: Tick) -> Pmf {
        if t <= self.offset {
            return self.clone();
        }
        if t >= self.max() {
            return Pmf::point(t);
        }
        let k = (t - self.offset) as usize;
        let mut masses = Vec::with_capacity(self.masses.len() - k);
        masses.extend_from_slice(&self.masses[k..]);
        masses[0] = self.masses[..=k].iter().sum();
        Pmf::trimmed(t, masses)
    }

    /// Removes negligible tails: drops leading and trailing bins whose cumulative mass is at
    /// most `eps` on each side, moving the removed mass to the new end bins so that the mean
    /// stays close and the total stays 1. The CDF changes by at most `eps` at any point.
    pub fn trim_tails(&self, eps: f64) -> Pmf {
        if eps <= 0.0 || self.masses.len() <= 2 {
            return self.clone();
        }
        let n = self.masses.len();
        let mut lo = 0;
        let mut acc = 0.0;
        while lo + 1 < n && acc + self.masses[lo] <= eps {
            acc += self.masses[lo];
            lo += 1;
        }
        let lo_mass = acc;
        let mut hi = n - 1;
        acc = 0.0;
        while hi > lo && acc + self.masses[hi] <= eps {
            acc += self.masses[hi];
            hi -= 1;
        }
        let hi_mass = acc;
        if lo == 0 && hi == n - 1 {
            return self.clone();
        }
        let mut masses = self.masses[lo..=hi].to_vec();
        masses[0] += lo_mass;
        let last = masses.len() - 1;
        masses[last] += hi_mass;
        Pmf::trimmed(self.offset + lo as Tick, masses)
    }

    /// Trims a completion-time PMF in place within total-variation distance `eps` (the
    /// simulator's `pct_epsilon`): drops leading and trailing bins whose cumulative mass is at
    /// most `eps / 2` on each side and moves the removed mass onto the new end bins, so the
    /// total stays 1 and `sup_A |P(A) - P'(A)| <= eps` (every success probability and CDF
    /// value moves by at most `eps`). The support only shrinks. Unlike [`Pmf::trim_tails`],
    /// which cuts up to `eps` from *each* side, the budget is split. `eps <= 0` (or NaN) does
    /// nothing and costs one comparison.
    #[inline]
    pub fn trim_tv(&mut self, eps: f64) {
        if eps > 0.0 {
            self.trim_each_tail(0.5 * eps);
        }
    }

    /// [`Pmf::trim_tv`]'s work: at most `half` of mass cut from each end, no allocation.
    fn trim_each_tail(&mut self, half: f64) {
        let n = self.masses.len();
        let m = &self.masses;
        let (mut lo, mut lo_mass) = (0, 0.0);
        while lo + 1 < n && lo_mass + m[lo] <= half {
            lo_mass += m[lo];
            lo += 1;
        }
        let (mut hi, mut hi_mass) = (n - 1, 0.0);
        while hi > lo && hi_mass + m[hi] <= half {
            hi_mass += m[hi];
            hi -= 1;
        }
        if lo == 0 && hi == n - 1 {
            return;
        }
        self.masses.truncate(hi + 1);
        self.masses[hi] += hi_mass;
        self.masses[lo] += lo_mass;
        self.masses.drain(..lo);
        self.offset += lo as Tick;
        debug_assert!(
            self.check_invariants().is_ok(),
            "{:?}",
            self.check_invariants()
        );
    }
}

/// True when the ticks `offset .. offset + len` (`len >= 1`) lie in the tick range.
#[inline(always)]
fn fits(offset: Tick, len: usize) -> bool {
    (MIN_TICK..=MAX_TICK).contains(&offset) && len as u64 <= (MAX_TICK - offset) as u64 + 1
}

/// Checks that every tick of `masses` (dense from `offset`) with mass lies in
/// `[0, MAX_TICK]`: the times of [`Pmf::new`] and the other constructors from data.
fn check_times(offset: Tick, masses: &[f64]) -> Result<(), PmfError> {
    let (Some(first), Some(last)) = (
        masses.iter().position(|&m| m > 0.0),
        masses.iter().rposition(|&m| m > 0.0),
    ) else {
        return Err(PmfError::ZeroTotal);
    };
    for bin in [first, last] {
        let t = i128::from(offset) + bin as i128;
        if !(0..=i128::from(MAX_TICK)).contains(&t) {
            return Err(PmfError::TickOutOfRange {
                bin,
                tick: t.clamp(i128::from(i64::MIN), i128::from(i64::MAX)) as Tick,
            });
        }
    }
    Ok(())
}
