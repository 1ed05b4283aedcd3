//! The prior check (`Options::prior_check`) against hand-computed values.

use learn::{Estimator, Options, PRIOR_CHECK_DELTA, contradicts, prior_band};
use pmf::Pmf;
use proptest::prelude::*;

const EPS: f64 = 1e-12;

fn checked(prior_weight: f64) -> Options {
    Options {
        prior_weight,
        prior_check: true,
        ..Options::default()
    }
}

/// Uniform on `1 ..= k`.
fn uniform(k: u32) -> Pmf {
    Pmf::from_weights(1, vec![1.0; k as usize]).unwrap()
}

#[test]
fn the_band_is_the_dkw_half_width_at_95_percent() {
    assert_eq!(PRIOR_CHECK_DELTA, 0.05);
    // sqrt(ln(40) / 20) and sqrt(ln(40) / 8).
    assert!(
        (prior_band(10) - 0.429_469_408_3).abs() < 1e-9,
        "{}",
        prior_band(10)
    );
    assert!(
        (prior_band(4) - 0.679_050_757_9).abs() < 1e-9,
        "{}",
        prior_band(4)
    );
    assert!(prior_band(0).is_infinite());
    assert!(prior_band(1) > 1.0, "one observation rejects nothing");
}

#[test]
fn the_departure_by_hand() {
    let prior = uniform(4);
    // Kaplan-Meier: half of the mass completes at 2, the rest survives 3. The CDFs differ
    // by 1/4 before 2 (0 against 1/4), 0 at 2, 1/4 at 3 (1/2 against 3/4).
    let km = [(2, 0.5)];
    assert!(!contradicts(&prior, &km, 3.0, 4).unwrap(), "1/4 < band(4)");
    assert!(
        contradicts(&prior, &km, 3.0, 40).unwrap(),
        "1/4 > band(40) = 0.215"
    );
    // Everything done by 4 ticks where the prior says exactly 10.
    let point = Pmf::point(10);
    assert!(contradicts(&point, &[(4, 1.0)], 4.0, 10).unwrap());
    assert!(!contradicts(&point, &[(4, 1.0)], 4.0, 1).unwrap());
    // Censored runs only, beyond the prior's every time: the prior is done by 10, the
    // Kaplan-Meier CDF is 0 at 12.
    assert!(contradicts(&point, &[], 12.0, 10).unwrap());
    // Observations as the prior: no departure.
    let same = [(1, 0.25), (2, 0.25), (3, 0.25), (4, 0.25)];
    assert!(!contradicts(&prior, &same, 4.0, 100_000).unwrap());
    assert!(
        !contradicts(&prior, &[], 0.0, 0).unwrap(),
        "nothing observed"
    );
    // Completions sharing a tick are one step: on 2 exactly, as the prior.
    let two = Pmf::point(2);
    assert!(!contradicts(&two, &[(2, 0.5), (2, 0.5)], 2.0, 1000).unwrap());
    assert!(contradicts(&prior, &[(2, 0.25), (2, 0.25)], 3.0, 40).unwrap());
}

#[test]
fn a_rejected_prior_weighs_nothing() {
    // The prior says 5 ticks and weighs 10; ten completions at 10 reject it (CDF 1 against
    // 0 at 5..=9): the cell is the estimate alone. Unchecked it is half and half.
    let mut est = Estimator::new(1, 1, vec![Pmf::point(5)], checked(10.0)).unwrap();
    let mut plain = Estimator::new(
        1,
        1,
        vec![Pmf::point(5)],
        Options {
            prior_weight: 10.0,
            // The guard would drop a prior its one cell contradicts (guard.rs).
            prior_guard: false,
            ..Options::default()
        },
    )
    .unwrap();
    for _ in 0..10 {
        est.observe(0, 0, 10.0, false).unwrap();
        plain.observe(0, 0, 10.0, false).unwrap();
    }
    assert!(est.rejects_prior(0, 0));
    assert_eq!(est.pmf(0, 0), &Pmf::point(10));
    assert!(!plain.rejects_prior(0, 0));
    assert!((plain.pmf(0, 0).mass_at(5) - 0.5).abs() < EPS);
}

#[test]
fn a_prior_the_observations_agree_with_keeps_its_weight_and_its_tail() {
    // Uniform on 1..=4 observed ten times at each time: no departure, the blend as without
    // the check (bit for bit).
    let prior = uniform(4);
    let mut est = Estimator::new(1, 1, vec![prior.clone()], checked(10.0)).unwrap();
    let mut plain = Estimator::new(
        1,
        1,
        vec![prior],
        Options {
            prior_weight: 10.0,
            // The guard would drop a prior its one cell contradicts (guard.rs).
            prior_guard: false,
            ..Options::default()
        },
    )
    .unwrap();
    for _ in 0..10 {
        for t in [1.0, 2.0, 3.0] {
            est.observe(0, 0, t, false).unwrap();
            plain.observe(0, 0, t, false).unwrap();
        }
        // The last one censored at 3: its tail on the prior beyond 3 (tick 4).
        est.observe(0, 0, 3.0, true).unwrap();
        plain.observe(0, 0, 3.0, true).unwrap();
    }
    assert!(!est.rejects_prior(0, 0));
    assert_eq!(est.pmf(0, 0), plain.pmf(0, 0));
    assert!((est.pmf(0, 0).mass_at(4) - 0.25).abs() < EPS);
}

#[test]
fn a_rejected_flat_prior_leaves_the_censored_tail_geometric() {
    // Flat on 1..=100 weighing nothing. Completions at 3, 3, 3 and one run censored at 4:
    // Kaplan-Meier 3/4 at 3, 1/4 beyond 4. The departure at 3 is 3/4 - 3/100 = 0.72 >
    // band(4) = 0.679: rejected, the tail is geometric from tick 5 with mean excess
    // theta = (3 + 3 + 3 + 4) / 3 = 13/3, not the flat prior's 5..=100.
    let mut est = Estimator::new(1, 1, vec![uniform(100)], checked(0.0)).unwrap();
    for (t, c) in [(3.0, false), (3.0, false), (3.0, false), (4.0, true)] {
        est.observe(0, 0, t, c).unwrap();
    }
    assert!(est.rejects_prior(0, 0));
    let p = est.pmf(0, 0);
    assert!((p.mass_at(3) - 0.75).abs() < EPS);
    let q = 3.0 / 13.0;
    assert!((p.mass_at(5) - 0.25 * q).abs() < EPS, "{}", p.mass_at(5));
    assert!((p.mass_at(6) - 0.25 * q * (1.0 - q)).abs() < EPS);
    assert!(p.max() < 100, "{}", p.max());
    // Unchecked, the tail is the flat prior beyond 4: 1/4 over 96 ticks.
    let mut plain = Estimator::new(
        1,
        1,
        vec![uniform(100)],
        Options {
            prior_weight: 0.0,
            ..Options::default()
        },
    )
    .unwrap();
    for (t, c) in [(3.0, false), (3.0, false), (3.0, false), (4.0, true)] {
        plain.observe(0, 0, t, c).unwrap();
    }
    assert!((plain.pmf(0, 0).mass_at(5) - 0.25 / 96.0).abs() < EPS);
    assert_eq!(plain.pmf(0, 0).max(), 100);
}

proptest! {
    /// The check only ever removes the prior's weight: a checked cell is the unchecked
    /// blend when it keeps its prior, and the estimate alone (the unchecked cell with a
    /// prior weighing nothing, where the tail does not reach the prior) when it rejects it.
    #[test]
    fn a_checked_cell_is_the_blend_or_the_estimate_alone(
        obs in prop::collection::vec((1u32..30, any::<bool>()), 1..40),
        k in 2u32..20,
    ) {
        let prior = uniform(k);
        let opts = |w: f64, check: bool| Options { prior_weight: w, prior_check: check, tail: learn::Tail::AtLast, ..Options::default() };
        let mut checked = Estimator::new(1, 1, vec![prior.clone()], opts(10.0, true)).unwrap();
        let mut blended = Estimator::new(1, 1, vec![prior.clone()], opts(10.0, false)).unwrap();
        let mut alone = Estimator::new(1, 1, vec![prior], opts(0.0, false)).unwrap();
        for &(t, c) in &obs {
            for e in [&mut checked, &mut blended, &mut alone] {
                e.observe(0, 0, f64::from(t), c).unwrap();
            }
        }
        let want = if checked.rejects_prior(0, 0) { alone.pmf(0, 0) } else { blended.pmf(0, 0) };
        prop_assert_eq!(checked.pmf(0, 0), want);
    }
}
