//! The estimation of one cell from its samples (Kaplan-Meier with the censored tail, or the
//! completions' empirical PMF), its blend with the prior, the optimistic reading of an
//! explored cell, and the machine factor's median ratio.

use pmf::kaplan_meier::{KaplanMeier, Sample};
use pmf::{Pmf, PmfError, Tick};

use crate::{Censoring, LearnError, Options, Tail};

/// The most ticks the geometric tail ([`Tail::Prior`]'s fallback) spans.
pub const MAX_TAIL_TICKS: usize = 4096;

/// The mass left beyond the geometric tail's last tick, which is put on that tick.
const TAIL_CUT: f64 = 1e-6;

/// The estimate from `samples` alone (Kaplan-Meier with the tail, or the completions'
/// empirical PMF) with the number of observations it rests on; `None` without any.
pub fn estimate(
    samples: &[Sample],
    prior: &Pmf,
    options: &Options,
) -> Result<Option<(Pmf, usize)>, LearnError> {
    Ok(estimate_checked(samples, prior, options)?.map(|(p, n, _)| (p, n)))
}

/// [`estimate`], with whether the samples reject the prior ([`Options::prior_check`],
/// [`contradicts`]; false without the check): then the censored tail does not read the
/// prior, and the prior weighs nothing in the blend.
pub fn estimate_checked(
    samples: &[Sample],
    prior: &Pmf,
    options: &Options,
) -> Result<Option<(Pmf, usize, bool)>, LearnError> {
    let kept: Vec<Sample>;
    let samples = match options.censoring {
        Censoring::KaplanMeier => samples,
        Censoring::Ignore => {
            kept = samples.iter().copied().filter(|s| !s.censored).collect();
            &kept
        }
    };
    if samples.is_empty() {
        return Ok(None);
    }
    let km = KaplanMeier::new(samples)?;
    let mut pairs: Vec<(Tick, f64)> = Vec::new();
    for (w, p) in km.completions() {
        pairs.push((tick_of(w.ceil())?, p));
    }
    let rejected =
        options.prior_check && contradicts(prior, &pairs, km.last_time(), samples.len())?;
    let rem = km.remainder();
    if rem > 0.0 {
        let prior = (!rejected).then_some(prior);
        push_tail(&mut pairs, rem, km.last_time(), prior, options, || {
            (samples.iter().map(|s| s.time).sum(), km.completed_count())
        })?;
    }
    Ok(Some((
        Pmf::from_weighted_pairs(pairs)?,
        samples.len(),
        rejected,
    )))
}

/// Whether the prior is rejected by `n` observations ([`Options::prior_check`]) whose
/// Kaplan-Meier completions are `completions` (the mass of each completion tick, ticks in
/// non-decreasing order, the masses of a repeated tick summed) and whose largest time is
/// `last`: whether the Kaplan-Meier CDF departs from the prior's CDF by more than
/// [`prior_band`]`(n)` at some tick up to `floor(last)` (or the last completion tick). Both CDFs are steps on the tick grid and the prior's is
/// non-decreasing, so the largest departure is at a completion tick or the tick before it,
/// or at the last tick; those are the ticks compared.
pub fn contradicts(
    prior: &Pmf,
    completions: &[(Tick, f64)],
    last: f64,
    n: usize,
) -> Result<bool, LearnError> {
    if n == 0 {
        return Ok(false);
    }
    Ok(departure(prior, completions, last)? > prior_band(n))
}

/// The largest distance between the Kaplan-Meier CDF whose completions are `completions`
/// (as in [`contradicts`]) and `prior`'s CDF, at the ticks up to `floor(last)` (or the
/// last completion tick): the Kolmogorov-Smirnov distance over the observed range.
pub fn departure(prior: &Pmf, completions: &[(Tick, f64)], last: f64) -> Result<f64, LearnError> {
    let masses = prior.masses();
    let offset = prior.min();
    // The prior's CDF at non-decreasing ticks, by one walk over its masses.
    let (mut next, mut cum) = (0usize, 0.0f64);
    let mut prior_cdf = |t: Tick| -> f64 {
        if t < offset {
            return 0.0;
        }
        let k = (t - offset) as usize;
        while next < masses.len() && next <= k {
            cum += masses[next];
            next += 1;
        }
        if next >= masses.len() {
            1.0
        } else {
            cum.min(1.0)
        }
    };
    let mut f = 0.0;
    let mut far = 0.0f64;
    let mut top = 0;
    let mut i = 0;
    while i < completions.len() {
        // The completions on one tick (base times that share it) as one step of the CDF.
        let t = completions[i].0;
        if t > 0 {
            far = far.max((f - prior_cdf(t - 1)).abs());
        }
        while i < completions.len() && completions[i].0 == t {
            f += completions[i].1;
            i += 1;
        }
        far = far.max((f - prior_cdf(t)).abs());
        top = t;
    }
    let end = tick_of(last.floor())?.max(top);
    far = far.max((f - prior_cdf(end)).abs());
    Ok(far)
}

/// The half-width of the Dvoretzky-Kiefer-Wolfowitz band of the empirical CDF of `n`
/// observations at confidence `1 - PRIOR_CHECK_DELTA` ([`PRIOR_CHECK_DELTA`]):
/// `sqrt(ln(2 / delta) / (2 n))`; infinite for `n = 0`.
pub fn prior_band(n: usize) -> f64 {
    if n == 0 {
        return f64::INFINITY;
    }
    ((2.0 / PRIOR_CHECK_DELTA).ln() / (2.0 * n as f64)).sqrt()
}

/// The prior check's significance ([`Options::prior_check`]): a correct prior is rejected
/// by the observations of a cell, at one check, with probability at most this (without
/// censoring; the band is the Dvoretzky-Kiefer-Wolfowitz inequality's).
pub const PRIOR_CHECK_DELTA: f64 = 0.05;

/// Appends the mass `rem` that survives the last observation `w` (censored) to `pairs`
/// ([`Options::tail`]; on the geometric tail when `prior` is `None`: a prior the cell
/// rejected, [`Options::prior_check`]); `totals` gives the sum of the observed times and the completions,
/// which the geometric tail reads.
pub(crate) fn push_tail(
    pairs: &mut Vec<(Tick, f64)>,
    rem: f64,
    w: f64,
    prior: Option<&Pmf>,
    options: &Options,
    totals: impl FnOnce() -> (f64, usize),
) -> Result<(), LearnError> {
    match options.tail {
        Tail::AtLast => pairs.push((tick_of(w.ceil())?, rem)),
        Tail::Prior => {
            let after = tick_of(w.floor())?;
            if let Some(prior) = prior.filter(|p| p.max() > after) {
                let beyond = prior.condition_after(after);
                pairs.extend(beyond.iter().map(|(t, p)| (t, rem * p)));
            } else {
                let (total, completed) = totals();
                let theta = if completed > 0 {
                    total / completed as f64
                } else {
                    w
                };
                pairs.extend(
                    geometric_tail(after, theta.max(1.0))
                        .into_iter()
                        .map(|(t, p)| (t, rem * p)),
                );
            }
        }
    }
    Ok(())
}

/// The Kaplan-Meier median of `samples`: the smallest time at which the Kaplan-Meier CDF
/// reaches 1/2; the largest time when more than half of the mass survives every time (its
/// last observation is censored: a lower bound on the median); `None` without samples.
/// The machine factor's estimate ([`Options::machine_scale`]) on ratios.
pub fn median_ratio(samples: &[Sample]) -> Result<Option<f64>, LearnError> {
    if samples.is_empty() {
        return Ok(None);
    }
    let km = KaplanMeier::new(samples)?;
    let mut cdf = 0.0;
    for (t, p) in km.completions() {
        cdf += p;
        // The masses of a distribution summing to one, to within rounding.
        if cdf >= 0.5 - 1e-12 {
            return Ok(Some(t));
        }
    }
    Ok(Some(km.last_time()))
}

/// The optimism of a cell holding `n` observations, its prior weighing `n0`
/// ([`Options::prior_weight`]), read optimistically below `explore` observations
/// ([`Options::optimistic_below`]): `1 / sqrt(n0 + n + 1)` while `n < explore`, then 0.
pub fn optimism(n0: f64, n: usize, explore: usize) -> f64 {
    if n < explore {
        1.0 / (n0 + n as f64 + 1.0).sqrt()
    } else {
        0.0
    }
}

/// The most favourable PMF within `eps` of `p` in CDF: `eps` of the mass taken from the
/// slowest end of `p` and put on its fastest tick, so the CDF is `min(1, F(x) + eps)` on
/// `p`'s support (a point mass on `p.min()` from `eps >= 1`); `p` itself when `eps <= 0`.
/// No PMF whose CDF lies within `eps` of `p`'s on `p`'s support has a higher chance of
/// finishing by any tick.
pub fn optimistic(p: &Pmf, eps: f64) -> Result<Pmf, PmfError> {
    if eps.is_nan() || eps <= 0.0 {
        return Ok(p.clone());
    }
    if eps >= 1.0 {
        return Ok(Pmf::point(p.min()));
    }
    let mut masses = p.masses().to_vec();
    let mut take = eps;
    for m in masses.iter_mut().rev() {
        if take <= 0.0 {
            break;
        }
        let t = m.min(take);
        *m -= t;
        take -= t;
    }
    masses[0] += eps - take.max(0.0);
    Pmf::from_weights(p.min(), masses)
}

/// The PMF read for a belief `p` at optimism `eps`: [`optimistic`], `p` itself at 0.
pub(crate) fn read(p: Pmf, eps: f64) -> Result<Pmf, PmfError> {
    if eps > 0.0 {
        optimistic(&p, eps)
    } else {
        Ok(p)
    }
}

/// `p` stretched by `factor` ([`pmf::transform::scale_time`]); `p` itself at factor 1.
pub(crate) fn stretch(p: &Pmf, factor: f64) -> Result<Pmf, PmfError> {
    if factor == 1.0 {
        Ok(p.clone())
    } else {
        pmf::transform::scale_time(p, factor)
    }
}

/// `(n0 prior + n estimate) / (n0 + n)`; the estimate alone when `n0 = 0`.
pub fn blend(prior: &Pmf, n0: f64, estimate: &Pmf, n: usize) -> Result<Pmf, PmfError> {
    let n = n as f64;
    if n0 == 0.0 {
        return Ok(estimate.clone());
    }
    let (a, b) = (n0 / (n0 + n), n / (n0 + n));
    let pairs = prior
        .iter()
        .map(|(t, p)| (t, a * p))
        .chain(estimate.iter().map(|(t, p)| (t, b * p)));
    Pmf::from_weighted_pairs(pairs)
}

/// A geometric distribution on `after + 1, after + 2, ...` with mean excess `theta >= 1`,
/// cut where less than [`TAIL_CUT`] is left or at [`MAX_TAIL_TICKS`] ticks (the rest on
/// the last tick).
pub(crate) fn geometric_tail(after: Tick, theta: f64) -> Vec<(Tick, f64)> {
    let q = (1.0 / theta).clamp(f64::MIN_POSITIVE, 1.0);
    let mut out = Vec::new();
    let mut left = 1.0;
    let mut t = after;
    while out.len() < MAX_TAIL_TICKS && left > TAIL_CUT {
        t = t.saturating_add(1);
        let p = left * q;
        out.push((t, p));
        left -= p;
    }
    if let Some(last) = out.last_mut() {
        last.1 += left.max(0.0);
    }
    out
}

pub(crate) fn tick_of(x: f64) -> Result<Tick, LearnError> {
    if !(x.is_finite() && (0.0..=pmf::MAX_TICK as f64).contains(&x)) {
        return Err(LearnError::Pmf(PmfError::TimeOutOfRange(x)));
    }
    Ok(x as Tick)
}
