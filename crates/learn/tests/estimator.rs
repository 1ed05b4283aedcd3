//! The estimator against hand-computed examples and plain references.

use learn::{Censoring, Estimator, LearnError, Options, Tail};
use pmf::Pmf;
use proptest::prelude::*;

const EPS: f64 = 1e-12;

fn options(prior_weight: f64) -> Options {
    Options {
        prior_weight,
        ..Options::default()
    }
}

/// The empirical PMF of integer completion times, counted by hand.
fn empirical(times: &[u32]) -> Vec<(i64, f64)> {
    let mut counts = std::collections::BTreeMap::new();
    for &t in times {
        *counts.entry(i64::from(t)).or_insert(0usize) += 1;
    }
    counts
        .into_iter()
        .map(|(t, c)| (t, c as f64 / times.len() as f64))
        .collect()
}

#[test]
fn kaplan_meier_on_the_toy_example_of_figure_1() {
    // Censored at 4 and 15, completions at 5 and 16: S(5) = 2/3, S(16) = 0.
    let mut est = Estimator::new(1, 1, vec![Pmf::point(100)], options(0.0)).unwrap();
    for (t, c) in [(4.0, true), (5.0, false), (15.0, true), (16.0, false)] {
        est.observe(0, 0, t, c).unwrap();
    }
    let p = est.pmf(0, 0);
    assert!((p.mass_at(5) - 1.0 / 3.0).abs() < EPS);
    assert!((p.mass_at(16) - 2.0 / 3.0).abs() < EPS);
    assert_eq!(p.iter().filter(|x| x.1 > 0.0).count(), 2);
}

#[test]
fn the_censored_tail_goes_on_the_prior_beyond_the_last_observation() {
    // Completions at 2 and 3, censored at 5 and 5: S(2) = 3/4, S(3) = 1/2, remainder 1/2
    // beyond 5, on the prior conditioned on X > 5: the prior is uniform on 1..=8, so 1/3 of
    // the remainder on each of 6, 7, 8.
    let prior = Pmf::new(1, vec![0.125; 8]).unwrap();
    let mut est = Estimator::new(1, 1, vec![prior], options(0.0)).unwrap();
    for (t, c) in [(2.0, false), (3.0, false), (5.0, true), (5.0, true)] {
        est.observe(0, 0, t, c).unwrap();
    }
    let p = est.pmf(0, 0);
    assert!((p.mass_at(2) - 0.25).abs() < EPS);
    assert!((p.mass_at(3) - 0.25).abs() < EPS);
    for t in 6..=8 {
        assert!((p.mass_at(t) - 0.5 / 3.0).abs() < EPS, "tick {t}");
    }
    assert!((p.mean() - (0.25 * 2.0 + 0.25 * 3.0 + 0.5 * 7.0)).abs() < EPS);
}

#[test]
fn beyond_the_prior_the_censored_tail_is_geometric_with_the_exponential_mean_excess() {
    // Completion at 2, censored at 6: S(2) = 1/2; the prior ends at 3, so the remainder
    // goes on a geometric tail from 7 with mean excess theta = (2 + 6) / 1 = 8.
    let mut est = Estimator::new(1, 1, vec![Pmf::point(3)], options(0.0)).unwrap();
    est.observe(0, 0, 2.0, false).unwrap();
    est.observe(0, 0, 6.0, true).unwrap();
    let p = est.pmf(0, 0);
    assert!((p.mass_at(2) - 0.5).abs() < EPS);
    assert!((p.mass_at(7) - 0.5 / 8.0).abs() < EPS);
    assert!((p.mass_at(8) - 0.5 * (7.0 / 8.0) / 8.0).abs() < EPS);
    assert!(p.min() == 2 && p.max() > 7);
    // Mean excess 8 beyond 6 (cut at 1e-6 of its mass).
    assert!((p.mean() - (0.5 * 2.0 + 0.5 * 14.0)).abs() < 1e-3);
}

#[test]
fn the_section_5_2_convention_puts_the_tail_on_the_last_observation() {
    let o = Options {
        tail: Tail::AtLast,
        ..options(0.0)
    };
    let mut est = Estimator::new(1, 1, vec![Pmf::point(3)], o).unwrap();
    est.observe(0, 0, 2.0, false).unwrap();
    est.observe(0, 0, 6.0, true).unwrap();
    let p = est.pmf(0, 0);
    assert!((p.mass_at(2) - 0.5).abs() < EPS);
    assert!((p.mass_at(6) - 0.5).abs() < EPS);
}

#[test]
fn ignoring_censoring_learns_from_completions_only() {
    let o = Options {
        censoring: Censoring::Ignore,
        ..options(0.0)
    };
    let mut est = Estimator::new(1, 1, vec![Pmf::point(50)], o).unwrap();
    // A censored observation alone changes nothing.
    assert!(!est.observe(0, 0, 30.0, true).unwrap());
    assert_eq!(est.pmf(0, 0), &Pmf::point(50));
    est.observe(0, 0, 4.0, false).unwrap();
    est.observe(0, 0, 30.0, true).unwrap();
    assert_eq!(est.pmf(0, 0), &Pmf::point(4));
    assert_eq!(est.weight(0, 0), 1);
}

#[test]
fn the_prior_weighs_as_its_pseudo_count() {
    let mut est = Estimator::new(1, 1, vec![Pmf::point(10)], options(3.0)).unwrap();
    assert_eq!(est.pmf(0, 0), &Pmf::point(10));
    est.observe(0, 0, 4.0, false).unwrap();
    let p = est.pmf(0, 0);
    assert!((p.mass_at(10) - 0.75).abs() < EPS);
    assert!((p.mass_at(4) - 0.25).abs() < EPS);
}

#[test]
fn a_window_forgets_the_oldest_observations() {
    let o = Options {
        window: Some(2),
        ..options(0.0)
    };
    let mut est = Estimator::new(1, 1, vec![Pmf::point(10)], o).unwrap();
    for t in [1.0, 2.0, 3.0] {
        est.observe(0, 0, t, false).unwrap();
    }
    assert_eq!(est.observations(0, 0), 2);
    let p = est.pmf(0, 0);
    assert_eq!(p.mass_at(1), 0.0);
    assert!((p.mass_at(2) - 0.5).abs() < EPS && (p.mass_at(3) - 0.5).abs() < EPS);
}

#[test]
fn the_cadence_rebuilds_every_kth_observation_of_a_cell() {
    let o = Options {
        cadence: 3,
        ..options(0.0)
    };
    let mut est = Estimator::new(1, 2, vec![Pmf::point(10), Pmf::point(10)], o).unwrap();
    assert!(!est.observe(0, 0, 1.0, false).unwrap());
    assert!(!est.observe(0, 1, 1.0, false).unwrap());
    assert!(!est.observe(0, 0, 2.0, false).unwrap());
    assert_eq!(est.pmf(0, 0), &Pmf::point(10));
    assert!(est.observe(0, 0, 3.0, false).unwrap());
    assert!((est.pmf(0, 0).mean() - 2.0).abs() < EPS);
    assert_eq!(est.pmf(0, 1), &Pmf::point(10));
}

#[test]
fn bad_input_is_an_error_naming_what_is_wrong() {
    assert!(matches!(
        Estimator::new(2, 2, vec![Pmf::point(1)], Options::default()),
        Err(LearnError::PriorShape { found: 1, .. })
    ));
    let mut est = Estimator::new(1, 1, vec![Pmf::point(1)], Options::default()).unwrap();
    assert!(matches!(
        est.observe(1, 0, 1.0, false),
        Err(LearnError::OutOfRange { task_type: 1, .. })
    ));
    for bad in [-1.0, f64::NAN, f64::INFINITY] {
        assert!(matches!(
            est.observe(0, 0, bad, false),
            Err(LearnError::InvalidTime(_))
        ));
    }
    assert!(matches!(
        est.observe(0, 0, 1e300, false),
        Err(LearnError::Pmf(_))
    ));
    assert_eq!(est.observations(0, 0), 1, "kept: the time is valid");
}

proptest! {
    #[test]
    fn without_censoring_the_estimate_is_the_empirical_pmf(
        times in proptest::collection::vec(0u32..200, 1..60),
    ) {
        let mut est = Estimator::new(1, 1, vec![Pmf::point(7)], options(0.0)).unwrap();
        for &t in &times {
            est.observe(0, 0, f64::from(t), false).unwrap();
        }
        let p = est.pmf(0, 0);
        let want = empirical(&times);
        for &(t, m) in &want {
            prop_assert!((p.mass_at(t) - m).abs() < 1e-12, "tick {}: {} vs {}", t, p.mass_at(t), m);
        }
        prop_assert_eq!(p.iter().filter(|x| x.1 > 0.0).count(), want.len());
    }

    #[test]
    fn the_blend_with_the_prior_is_a_proper_pmf(
        obs in proptest::collection::vec((0.0f64..500.0, any::<bool>()), 0..80),
        prior_weight in 0.0f64..50.0,
        prior_len in 1usize..40,
        prior_at in 0i64..300,
        naive in any::<bool>(),
        at_last in any::<bool>(),
        window in proptest::option::of(1usize..20),
    ) {
        let prior = Pmf::from_weights(prior_at, (0..prior_len).map(|i| (i % 3 + 1) as f64).collect()).unwrap();
        let o = Options {
            prior_weight,
            censoring: if naive { Censoring::Ignore } else { Censoring::KaplanMeier },
            tail: if at_last { Tail::AtLast } else { Tail::Prior },
            window,
            cadence: 1,
        };
        let mut est = Estimator::new(1, 1, vec![prior], o).unwrap();
        for &(t, c) in &obs {
            est.observe(0, 0, t, c).unwrap();
            let p = est.pmf(0, 0);
            prop_assert!(p.check_invariants().is_ok(), "{:?}", p.check_invariants());
            let total: f64 = p.masses().iter().sum();
            prop_assert!((total - 1.0).abs() < 1e-9, "total {}", total);
            prop_assert!(p.min() >= 0);
        }
    }

    #[test]
    fn censoring_never_makes_the_estimate_shorter_than_ignoring_it(
        obs in proptest::collection::vec((1u32..300, any::<bool>()), 1..60),
    ) {
        // Kaplan-Meier with the tail beyond the last observation stochastically dominates
        // the completions' empirical PMF: its mean is at least as large.
        prop_assume!(obs.iter().any(|o| !o.1));
        let prior = Pmf::new(1, vec![1.0 / 400.0; 400]).unwrap();
        let mut km = Estimator::new(1, 1, vec![prior.clone()], options(0.0)).unwrap();
        let naive_o = Options { censoring: Censoring::Ignore, ..options(0.0) };
        let mut naive = Estimator::new(1, 1, vec![prior], naive_o).unwrap();
        for &(t, c) in &obs {
            km.observe(0, 0, f64::from(t), c).unwrap();
            naive.observe(0, 0, f64::from(t), c).unwrap();
        }
        prop_assert!(km.pmf(0, 0).mean() >= naive.pmf(0, 0).mean() - 1e-9);
    }
}
