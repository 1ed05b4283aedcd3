//! Copies found from the evidence ([`crate::Options::pool_by_evidence`]): whether two
//! machines' observations of a task type are one distribution, and whether two machines
//! are copies.
//!
//! **Two cells.** Two cells of one task type on machines `a` and `b`, holding `n_a` and
//! `n_b` observations, are compared by the **two-sample Kolmogorov-Smirnov distance**
//! between their Kaplan-Meier CDFs, `D = sup_t |F_a(t) - F_b(t)|`, over the ticks both have
//! observed (up to the smaller of their last observations, beyond which a censored cell's
//! CDF is unknown). Drawn from one distribution, the two empirical CDFs depart by more
//! than `c(delta) sqrt((n_a + n_b) / (n_a n_b))`, `c(delta) = sqrt(ln(2 / delta) / 2)`,
//! with probability at most about `delta` ([`copies_band`]: the two-sample form of the
//! Dvoretzky-Kiefer-Wolfowitz bound, without censoring; censoring widens the Kaplan-Meier
//! estimate's spread, so censored cells are told apart more often, never pooled more
//! often). Cells learned apart are **alike** when both hold at least
//! [`MIN_POOL_OBSERVATIONS`] observations and `D` is within the band at [`JOIN_DELTA`];
//! cells learned together stay alike until `D` is beyond the band at [`LEAVE_DELTA`] (a
//! smaller significance, so that copies found stay found from one comparison to the next).
//!
//! **Two machines.** Machines learned apart are **copies** when at
//! least [`JOIN_TYPES`] task types (all of them, when there are fewer) are compared (both
//! cells holding [`MIN_POOL_OBSERVATIONS`]) and every type compared is alike at
//! [`JOIN_DELTA`]; machines found copies stay copies until a type compared tells them apart
//! at [`LEAVE_DELTA`]. Copies learn every task type together, also the types too rarely
//! run on them to be compared: that is what copies of a machine type gain (a cell run a
//! few times on each of three copies learns from all of them). Machines that are not
//! copies still learn together the cells of a type that are alike.
//!
//! Every [`POOL_EVERY`] observations per machine, the machines are grouped in index order,
//! each joining the first group whose first machine it is a copy of, or starting its own;
//! then, type by type, each cell joins the first group of its type whose first machine is
//! its machine's copy or whose cell it is alike with. A machine of a system of distinct
//! machine types is found a copy of another only when three or more task types run on
//! both and each has the same distribution on both: then the two machines are alike where
//! the evidence reaches, and are learned apart again once it tells them apart.

use pmf::Tick;
use pmf::kaplan_meier::{KaplanMeier, Sample};

use crate::LearnError;
use crate::cell::Steps;
use crate::estimate::tick_of;

/// Two cells learned apart are pooled when their distance is within [`copies_band`] at
/// this significance: copies are told apart at one comparison with probability at most
/// this.
pub const JOIN_DELTA: f64 = 0.05;

/// Two cells learned together are learned apart again when their distance is beyond
/// [`copies_band`] at this significance (smaller than [`JOIN_DELTA`], so that copies found
/// stay together from one comparison to the next).
pub const LEAVE_DELTA: f64 = 0.005;

/// A task type is compared on two machines once each holds this many observations of it.
pub const MIN_POOL_OBSERVATIONS: usize = 30;

/// The copies are found again after every this many observations per machine (so after
/// `POOL_EVERY x machines` observations): the comparisons cost `O(machines x groups x
/// types x times held)`, spread over as many observations.
pub const POOL_EVERY: usize = 10;

/// The largest distance between the Kaplan-Meier CDFs of two cells drawn from one
/// distribution, at significance `delta`: `sqrt(ln(2 / delta) / 2) sqrt((n_a + n_b) /
/// (n_a n_b))`; infinite when either holds nothing.
pub fn copies_band(n_a: usize, n_b: usize, delta: f64) -> f64 {
    if n_a == 0 || n_b == 0 {
        return f64::INFINITY;
    }
    let (a, b) = (n_a as f64, n_b as f64);
    ((2.0 / delta).ln() / 2.0).sqrt() * ((a + b) / (a * b)).sqrt()
}

/// The two-sample distance of two cells' Kaplan-Meier CDFs given as steps (`(tick, F)`
/// from that tick on, ticks increasing) over the ticks up to `limit`: the largest
/// `|F_a - F_b|` at a step of either.
pub(crate) fn distance(a: &[(Tick, f64)], b: &[(Tick, f64)], limit: Tick) -> f64 {
    let (mut i, mut j) = (0, 0);
    let (mut fa, mut fb) = (0.0f64, 0.0f64);
    let mut far = 0.0f64;
    loop {
        let t = match (a.get(i), b.get(j)) {
            (Some(x), Some(y)) => x.0.min(y.0),
            (Some(x), None) => x.0,
            (None, Some(y)) => y.0,
            (None, None) => break,
        };
        if t > limit {
            break;
        }
        while let Some(x) = a.get(i).filter(|x| x.0 == t) {
            fa = x.1;
            i += 1;
        }
        while let Some(y) = b.get(j).filter(|y| y.0 == t) {
            fb = y.1;
            j += 1;
        }
        far = far.max((fa - fb).abs());
    }
    far
}

/// Whether two cells of one task type, their Kaplan-Meier CDFs `a` and `b`, are alike:
/// learned apart (`together` false), when both hold at least [`MIN_POOL_OBSERVATIONS`]
/// observations and their distance is within [`copies_band`] at [`JOIN_DELTA`]; learned
/// together, unless their distance is beyond the band at [`LEAVE_DELTA`].
pub(crate) fn alike(a: &Option<Steps>, b: &Option<Steps>, together: bool) -> bool {
    let (Some(x), Some(y)) = (a, b) else {
        return together;
    };
    if !together && (x.n < MIN_POOL_OBSERVATIONS || y.n < MIN_POOL_OBSERVATIONS) {
        return false;
    }
    let Ok(end) = limit(x.last, y.last) else {
        return false;
    };
    let delta = if together { LEAVE_DELTA } else { JOIN_DELTA };
    distance(&x.steps, &y.steps, end) <= copies_band(x.n, y.n, delta)
}

/// Two machines learned apart are found copies when at least this many task types are
/// compared on them (all of them, when there are fewer) and every one is alike.
pub const JOIN_TYPES: usize = 3;

/// Whether machines `a` and `b` are copies, by their cells' Kaplan-Meier CDFs `cdfs`
/// (type-major, `machines` per type; `together`: found copies at the last comparison):
/// every task type both hold [`MIN_POOL_OBSERVATIONS`] observations of is alike (at
/// [`JOIN_DELTA`], or at [`LEAVE_DELTA`] when `together`), and, to join, at least `join`
/// types are compared.
pub(crate) fn alike_machines(
    cdfs: &[Option<Steps>],
    types: usize,
    machines: usize,
    (a, b): (usize, usize),
    together: bool,
    join: usize,
) -> bool {
    let mut compared = 0;
    for t in 0..types {
        let (Some(x), Some(y)) = (&cdfs[t * machines + a], &cdfs[t * machines + b]) else {
            continue;
        };
        if x.n < MIN_POOL_OBSERVATIONS || y.n < MIN_POOL_OBSERVATIONS {
            continue;
        }
        compared += 1;
        let Ok(end) = limit(x.last, y.last) else {
            return false;
        };
        let delta = if together { LEAVE_DELTA } else { JOIN_DELTA };
        if distance(&x.steps, &y.steps, end) > copies_band(x.n, y.n, delta) {
            return false;
        }
    }
    together || compared >= join
}

/// The tick up to which two cells whose last observations are `a` and `b` are compared.
pub(crate) fn limit(a: f64, b: f64) -> Result<Tick, LearnError> {
    tick_of(a.min(b).ceil())
}

/// The two-sample distance between the Kaplan-Meier CDFs of two samples of execution
/// times (on the tick grid: a completion at `x` on tick `ceil(x)`), over the ticks up to
/// the smaller of their largest times: what [`crate::Options::pool_by_evidence`] compares
/// (from the counts an estimator keeps; this is the plain reference on the samples).
/// `None` when either sample is empty.
///
/// Errors: a time that is not finite and `>= 0`.
pub fn two_sample_distance(a: &[Sample], b: &[Sample]) -> Result<Option<f64>, LearnError> {
    if a.is_empty() || b.is_empty() {
        return Ok(None);
    }
    let (ka, kb) = (KaplanMeier::new(a)?, KaplanMeier::new(b)?);
    let end = limit(ka.last_time(), kb.last_time())?;
    // Every tick where either CDF steps, up to `end`; the CDF at a tick is the mass of the
    // completions on or before it.
    let cdf = |km: &KaplanMeier, t: Tick| -> f64 {
        km.completions()
            .take_while(|&(w, _)| w.ceil() <= t as f64)
            .map(|x| x.1)
            .sum()
    };
    let mut ticks: Vec<Tick> = ka
        .completions()
        .chain(kb.completions())
        .map(|(w, _)| w.ceil() as Tick)
        .filter(|&t| t <= end)
        .collect();
    ticks.sort_unstable();
    ticks.dedup();
    Ok(Some(ticks.into_iter().fold(0.0f64, |far, t| {
        far.max((cdf(&ka, t) - cdf(&kb, t)).abs())
    })))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_band_is_the_two_sample_kolmogorov_smirnov_bound() {
        // delta = 0.05: c = sqrt(ln(40) / 2) = 1.3581; n_a = n_b = 50: sqrt(100 / 2500) = 0.2.
        assert!((copies_band(50, 50, 0.05) - 1.358_102_6 * 0.2).abs() < 1e-6);
        assert!(copies_band(0, 5, 0.05).is_infinite());
    }

    #[test]
    fn the_distance_is_the_largest_gap_between_the_steps_up_to_the_limit() {
        // F_a: 0.5 from 2, 1 from 4; F_b: 0.25 from 3, 1 from 6. Gaps: 0.5 at 2, 0.25 at 3,
        // 0.75 at 4 and 5, 0 from 6.
        let a = [(2, 0.5), (4, 1.0)];
        let b = [(3, 0.25), (6, 1.0)];
        assert!((distance(&a, &b, 10) - 0.75).abs() < 1e-15);
        assert!((distance(&a, &b, 3) - 0.5).abs() < 1e-15);
        assert_eq!(distance(&a, &b, 1), 0.0);
    }

    #[test]
    fn two_samples_with_censoring_by_hand() {
        // a: completions at 1 and 3, censored at 2: S(1) = 2/3, S(3) = 0: F = 1/3 from 1,
        // 1 from 3. b: completions at 2 and 4: F = 1/2 from 2, 1 from 4. Compared up to 3:
        // gaps 1/3 at 1, 1/6 at 2, 1/2 at 3.
        let a = [
            Sample::completed(1.0),
            Sample::censored(2.0),
            Sample::completed(3.0),
        ];
        let b = [Sample::completed(2.0), Sample::completed(4.0)];
        let d = two_sample_distance(&a, &b).unwrap().unwrap();
        assert!((d - 0.5).abs() < 1e-15, "{d}");
        assert_eq!(two_sample_distance(&a, &[]).unwrap(), None);
    }

    proptest::proptest! {
        /// The distance from an estimator's counts is the plain reference's on the samples.
        #[test]
        fn the_distance_from_the_counts_is_the_reference_on_the_samples(
            a in proptest::collection::vec((0u32..40, proptest::bool::weighted(0.3)), 1..60),
            b in proptest::collection::vec((0u32..40, proptest::bool::weighted(0.3)), 1..60),
        ) {
            let samples = |v: &[(u32, bool)]| -> Vec<Sample> {
                v.iter()
                    .map(|&(x, c)| Sample { time: f64::from(x), censored: c })
                    .collect()
            };
            let (sa, sb) = (samples(&a), samples(&b));
            let cell = |s: &[Sample]| {
                let mut c = crate::cell::Cell::new(&pmf::Pmf::point(1));
                for x in s {
                    c.record(x.time, x.censored, None);
                }
                c.cdf(false).unwrap().unwrap()
            };
            let (ca, cb) = (cell(&sa), cell(&sb));
            let fast = distance(&ca.steps, &cb.steps, limit(ca.last, cb.last).unwrap());
            let reference = two_sample_distance(&sa, &sb).unwrap().unwrap();
            proptest::prop_assert!((fast - reference).abs() < 1e-12, "{} {}", fast, reference);
        }
    }
}
