//! Kaplan-Meier estimator (Gao, Robert, Vivien, RR-9373, eq. (4), section 5.2):
//! the toy example of its figure 1 and table, the mean and variance convention, the tick-grid
//! conversion, and the property that without censoring it is the empirical distribution.

use pmf::kaplan_meier::{KaplanMeier, Sample};
use pmf::{BinValue, PmfError, from_samples};
use proptest::prelude::*;

use crate::check::{assert_pmf_eq, check_pmf};

const EPS: f64 = 1e-12;

/// Figure 1: two processors, at time 20 tasks have run 4 (running), 5 (done), 15 (running)
/// and 16 (done).
fn toy() -> KaplanMeier {
    KaplanMeier::new(&[
        Sample::censored(4.0),
        Sample::completed(5.0),
        Sample::censored(15.0),
        Sample::completed(16.0),
    ])
    .expect("valid samples")
}

#[test]
fn toy_example_matches_the_papers_table() {
    let km = toy();
    // The table of section 5.2: w_i, d_i, r_i, prod (1 - d_j / r_j).
    assert_eq!(km.times(), &[4.0, 5.0, 15.0, 16.0]);
    assert_eq!(km.deaths(), &[0, 1, 0, 1]);
    assert_eq!(km.at_risk(), &[4, 3, 2, 1]);
    let expected = [1.0, 2.0 / 3.0, 2.0 / 3.0, 0.0];
    for (s, e) in km.survival_at_times().iter().zip(expected) {
        assert!((s - e).abs() < EPS, "S = {s}, table says {e}");
    }
    assert_eq!(km.sample_count(), 4);
    assert_eq!(km.completed_count(), 2);
}

#[test]
fn toy_example_survival_is_a_right_continuous_step_function() {
    let km = toy();
    assert_eq!(km.survival(0.0), 1.0);
    assert_eq!(km.survival(4.999), 1.0);
    assert!((km.survival(5.0) - 2.0 / 3.0).abs() < EPS);
    assert!((km.survival(15.9) - 2.0 / 3.0).abs() < EPS);
    assert_eq!(km.survival(16.0), 0.0);
    assert_eq!(km.survival(1e9), 0.0);
    assert!((km.cdf(5.0) - 1.0 / 3.0).abs() < EPS);
    assert!(km.survival(f64::NAN).is_nan());
    // "the probability that the execution time exceeds 5 seconds is 50% [empirical], while it
    // is 66.6% for the Kaplan-Meier estimator".
    let empirical =
        KaplanMeier::new(&[Sample::completed(5.0), Sample::completed(16.0)]).expect("valid");
    assert!((empirical.survival(5.0) - 0.5).abs() < EPS);
}

#[test]
fn toy_example_mean_and_variance() {
    let km = toy();
    // Masses: 1/3 at 5, 2/3 at 16, no remainder. mu = 5/3 + 32/3 = 37/3.
    let masses: Vec<(f64, f64)> = km.completions().collect();
    assert_eq!(masses.len(), 2);
    assert!((masses[0].1 - 1.0 / 3.0).abs() < EPS && (masses[1].1 - 2.0 / 3.0).abs() < EPS);
    assert!((km.mean() - 37.0 / 3.0).abs() < EPS);
    // E[X^2] = 25/3 + 512/3 = 179; var = 179 - (37/3)^2 = (1611 - 1369) / 9 = 242 / 9.
    assert!((km.variance() - 242.0 / 9.0).abs() < 1e-9);
    assert_eq!(km.remainder(), 0.0);
}

#[test]
fn remainder_is_placed_at_the_largest_observation() {
    // Completed 2, censored 3 and 10: S(2) = 2/3, S stays 2/3; remainder 2/3 at w_k = 10.
    let km = KaplanMeier::new(&[
        Sample::completed(2.0),
        Sample::censored(3.0),
        Sample::censored(10.0),
    ])
    .expect("valid");
    assert!((km.remainder() - 2.0 / 3.0).abs() < EPS);
    assert_eq!(km.last_time(), 10.0);
    // mu = 1/3 * 2 + 2/3 * 10 = 22/3; E[X^2] = 4/3 + 200/3 = 68; var = 68 - 484/9 = 128/9.
    assert!((km.mean() - 22.0 / 3.0).abs() < EPS);
    assert!((km.variance() - 128.0 / 9.0).abs() < 1e-9);
    let p = km.to_pmf(1.0).expect("valid");
    check_pmf(&p);
    assert!((p.mass_at(2) - 1.0 / 3.0).abs() < EPS);
    assert!((p.mass_at(10) - 2.0 / 3.0).abs() < EPS);
}

#[test]
fn ties_put_deaths_before_censoring() {
    // A task censored at 5 is at risk at 5: r = 3, d = 1 at w = 5.
    let km = KaplanMeier::new(&[
        Sample::censored(5.0),
        Sample::completed(5.0),
        Sample::completed(7.0),
    ])
    .expect("valid");
    assert_eq!(km.times(), &[5.0, 7.0]);
    assert_eq!(km.at_risk(), &[3, 1]);
    assert!((km.survival(5.0) - 2.0 / 3.0).abs() < EPS);
    assert_eq!(km.survival(7.0), 0.0);
}

#[test]
fn all_censored_samples_leave_the_whole_mass_as_remainder() {
    let km = KaplanMeier::new(&[Sample::censored(1.5), Sample::censored(0.5)]).expect("valid");
    assert_eq!(km.survival(100.0), 1.0);
    assert_eq!(km.completions().count(), 0);
    assert_eq!(km.mean(), 1.5);
    assert_eq!(km.variance(), 0.0);
    let p = km.to_pmf(2.0).expect("valid");
    assert_eq!((p.min(), p.max()), (3, 3));
}

#[test]
fn tick_conversion_rounds_up_and_merges_bins() {
    // Completions at 0.21, 0.29 (both to tick 3 at 10 ticks per unit) and 1.0 (tick 10).
    let km = KaplanMeier::new(&[
        Sample::completed(0.21),
        Sample::completed(0.29),
        Sample::completed(1.0),
    ])
    .expect("valid");
    let p = km.to_pmf(10.0).expect("valid");
    check_pmf(&p);
    assert!((p.mass_at(3) - 2.0 / 3.0).abs() < EPS);
    assert!((p.mass_at(10) - 1.0 / 3.0).abs() < EPS);
}

#[test]
fn invalid_inputs_are_typed_errors() {
    assert_eq!(KaplanMeier::new(&[]), Err(PmfError::Empty));
    assert!(matches!(
        KaplanMeier::new(&[Sample::completed(1.0), Sample::censored(f64::NAN)]),
        Err(PmfError::InvalidSampleTime { index: 1, .. })
    ));
    assert!(matches!(
        KaplanMeier::new(&[Sample::completed(-1.0)]),
        Err(PmfError::InvalidSampleTime { index: 0, .. })
    ));
    assert!(matches!(
        KaplanMeier::new(&[Sample::completed(f64::INFINITY)]),
        Err(PmfError::InvalidSampleTime { .. })
    ));
    let km = toy();
    for r in [0.0, -1.0, f64::NAN, f64::INFINITY] {
        assert!(
            matches!(km.to_pmf(r), Err(PmfError::InvalidResolution(_))),
            "{r}"
        );
    }
    let huge = KaplanMeier::new(&[Sample::completed(1e300)]).expect("valid");
    assert!(matches!(huge.to_pmf(1.0), Err(PmfError::TimeOutOfRange(_))));
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    /// End of section 5.2: without censoring, Kaplan-Meier is the empirical distribution.
    #[test]
    fn without_censoring_kaplan_meier_is_the_empirical_distribution(
        samples in prop::collection::vec(0.01f64..50.0, 1..60),
        probe in 0.0f64..60.0,
    ) {
        let obs: Vec<Sample> = samples.iter().map(|&t| Sample::completed(t)).collect();
        let km = KaplanMeier::new(&obs).expect("valid samples");
        let n = samples.len() as f64;
        for t in samples.iter().copied().chain([probe, 0.0, 100.0]) {
            let empirical = samples.iter().filter(|&&x| x > t).count() as f64 / n;
            prop_assert!((km.survival(t) - empirical).abs() < 1e-9,
                "S({}) = {} but the empirical survival is {}", t, km.survival(t), empirical);
        }
        let mean = samples.iter().sum::<f64>() / n;
        let var = samples.iter().map(|x| (x - mean) * (x - mean)).sum::<f64>() / n;
        prop_assert!((km.mean() - mean).abs() < 1e-9 * mean.max(1.0), "mean {} vs {}", km.mean(), mean);
        prop_assert!((km.variance() - var).abs() < 1e-9 * var.max(1.0), "variance {} vs {}", km.variance(), var);
        prop_assert_eq!(km.remainder(), 0.0);
        // On the tick grid it is the histogram of the same samples (upper bin edges).
        let p = km.to_pmf(1.0).expect("fits");
        check_pmf(&p);
        assert_pmf_eq(&p, &from_samples(&samples, 1, BinValue::Upper).expect("fits"), 1e-9);
    }

    /// With censoring: S is non-increasing in [0, 1], the masses sum to 1 - remainder, and
    /// the estimate only drops at completion times.
    #[test]
    fn survival_is_a_valid_non_increasing_step_function(
        samples in prop::collection::vec((0.0f64..20.0, any::<bool>()), 1..60),
    ) {
        let obs: Vec<Sample> = samples.iter().map(|&(time, censored)| Sample { time, censored }).collect();
        let km = KaplanMeier::new(&obs).expect("valid samples");
        let mut prev = 1.0;
        for (&w, &s) in km.times().iter().zip(km.survival_at_times()) {
            prop_assert!((0.0..=1.0).contains(&s), "S({}) = {}", w, s);
            prop_assert!(s <= prev + 1e-15, "S rose from {} to {} at {}", prev, s, w);
            prev = s;
        }
        let total: f64 = km.completions().map(|(_, p)| p).sum();
        prop_assert!((total + km.remainder() - 1.0).abs() < 1e-9, "masses {} + remainder {}", total, km.remainder());
        let all_censored = obs.iter().all(|s| s.censored);
        prop_assert_eq!(all_censored, km.completions().count() == 0);
        check_pmf(&km.to_pmf(4.0).expect("fits"));
    }
}
