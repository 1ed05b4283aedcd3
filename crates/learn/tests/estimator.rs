//! The estimator against hand-computed examples and plain references.

use learn::{
    Censoring, Estimator, LearnError, MIN_MACHINE_OBSERVATIONS, MIN_SCALE_EVIDENCE, Options, Tail,
    Update, median_ratio, optimism, optimistic,
};
use pmf::Pmf;
use pmf::kaplan_meier::Sample;
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
    assert!(!est.observe(0, 0, 30.0, true).unwrap().changed());
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
    assert!(!est.observe(0, 0, 1.0, false).unwrap().changed());
    assert!(!est.observe(0, 1, 1.0, false).unwrap().changed());
    assert!(!est.observe(0, 0, 2.0, false).unwrap().changed());
    assert_eq!(est.pmf(0, 0), &Pmf::point(10));
    assert!(est.observe(0, 0, 3.0, false).unwrap().changed());
    assert!((est.pmf(0, 0).mean() - 2.0).abs() < EPS);
    assert_eq!(est.pmf(0, 1), &Pmf::point(10));
}

#[test]
fn a_cadence_share_rebuilds_in_proportion_to_the_observations_held() {
    // Share 0.5: holding n observations, a rebuild needs ceil(n / 2) new ones since the
    // last: at the 1st (1 of 1 needed), 2nd (1 of 1), 4th (2 of 2) and 8th (4 of 4), not at
    // the 7th (3 of ceil(3.5) = 4).
    let o = Options {
        cadence_share: 0.5,
        ..options(0.0)
    };
    let mut est = Estimator::new(1, 1, vec![Pmf::point(100)], o).unwrap();
    let rebuilt: Vec<usize> = (1..=8)
        .filter(|&k| est.observe(0, 0, k as f64, false).unwrap().changed())
        .collect();
    assert_eq!(rebuilt, vec![1, 2, 4, 8]);
    // The estimate is that of the 8 observations: the mean of 1..=8.
    assert!((est.pmf(0, 0).mean() - 4.5).abs() < EPS);
    // Share 0 is every `cadence`-th observation, as without it.
    let mut plain = Estimator::new(1, 1, vec![Pmf::point(100)], options(0.0)).unwrap();
    assert!((1..=8).all(|k| plain.observe(0, 0, f64::from(k), false).unwrap().changed()));
    let bad = Options {
        cadence_share: 1.5,
        ..Options::default()
    };
    assert!(matches!(
        Estimator::new(1, 1, vec![Pmf::point(1)], bad),
        Err(LearnError::InvalidOption {
            field: "cadence_share",
            ..
        })
    ));
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

fn scaled(prior_weight: f64) -> Options {
    Options {
        prior_weight,
        machine_scale: true,
        ..Options::default()
    }
}

fn ratios(xs: &[(f64, bool)]) -> Vec<Sample> {
    xs.iter()
        .map(|&(time, censored)| Sample { time, censored })
        .collect()
}

#[test]
fn the_kaplan_meier_median_of_ratios_by_hand() {
    // Without censoring: the smallest ratio where the empirical CDF reaches 1/2.
    let m = median_ratio(&ratios(&[
        (3.0, false),
        (1.0, false),
        (2.0, false),
        (4.0, false),
    ]));
    assert_eq!(m.unwrap(), Some(2.0));
    // 1, 1, 2 (censored), 2 (censored), 3, 5: S(1) = 4/6; at 3 two are at risk, S(3) =
    // 4/6 x 1/2 = 1/3, so the CDF is 1/3 at 1 and 2/3 at 3: the median is 3. Ignoring
    // the censored ones it would be 1, counting them as completions 2.
    let m = median_ratio(&ratios(&[
        (1.0, false),
        (1.0, false),
        (2.0, true),
        (2.0, true),
        (3.0, false),
        (5.0, false),
    ]));
    assert_eq!(m.unwrap(), Some(3.0));
    // 1, 2 (censored), 3 (censored): S(1) = 2/3 and 2/3 survives the last ratio: the
    // median is at least 3, the largest ratio.
    let m = median_ratio(&ratios(&[(1.0, false), (2.0, true), (3.0, true)]));
    assert_eq!(m.unwrap(), Some(3.0));
    assert_eq!(median_ratio(&[]).unwrap(), None);
}

#[test]
fn the_machine_factor_is_the_ratio_of_observed_to_prior_times() {
    // Two task types on two machines, priors 10 and 20 ticks (medians 10 and 20). Machine
    // 1 runs everything twice as long: 20 and 40. Machine 0 as the prior.
    let prior = vec![
        Pmf::point(10),
        Pmf::point(10),
        Pmf::point(20),
        Pmf::point(20),
    ];
    let mut est = Estimator::new(2, 2, prior, scaled(10.0)).unwrap();
    for k in 0..MIN_MACHINE_OBSERVATIONS - 1 {
        let t = k % 2;
        let x = [20.0, 40.0][t];
        assert_ne!(est.observe(t, 1, x, false).unwrap(), Update::Machine);
        est.observe(t, 0, x / 2.0, false).unwrap();
    }
    assert_eq!(est.scale(1), 1.0, "fewer than the minimum: no factor yet");
    // The tenth ratio: all ten are 2, the median is 2; every cell of machine 1 moves.
    assert_eq!(est.observe(1, 1, 40.0, false).unwrap(), Update::Machine);
    assert_eq!(est.scale(1), 2.0);
    assert_eq!(est.scale(0), 1.0);
    // Type 0 on machine 1: its observations were 20 ticks while the factor was 1, so its
    // base is (10 x point(10) + 5 x point(20)) / 15, stretched by 2: 2/3 at 20, 1/3 at 40.
    let p = est.pmf(0, 1);
    assert!((p.mass_at(20) - 2.0 / 3.0).abs() < EPS, "{p:?}");
    assert!((p.mass_at(40) - 1.0 / 3.0).abs() < EPS, "{p:?}");
    // From now on an observation of 20 counts as 10 on the base: the base learns the
    // prior's shape, the factor the slowdown.
    for _ in 0..5 {
        est.observe(0, 1, 20.0, false).unwrap();
    }
    // Base: the prior at 10 weighing 10, five runs at 20 (factor 1) and five at 10 (20 / 2):
    // 15/20 at 10, 5/20 at 20; stretched by 2.
    let p = est.pmf(0, 1);
    assert!((p.mass_at(20) - 0.75).abs() < EPS, "{p:?}");
    assert!((p.mass_at(40) - 0.25).abs() < EPS, "{p:?}");
    assert_eq!(est.pmf(0, 0), &Pmf::point(10), "machine 0 as the prior");
}

#[test]
fn a_censored_run_counts_as_a_lower_bound_on_the_factor() {
    // One type, one machine, prior point(10). Ten runs: five completed at 10 (ratio 1),
    // five dropped after 30 ticks (ratio > 3). Kaplan-Meier: S(1) = 1/2, so the CDF
    // reaches 1/2 at ratio 1: factor 1. With six dropped of ten the CDF stays at
    // 4/10 < 1/2 through the last completion, so more than half of the mass survives:
    // the factor is the largest ratio, 3 (ignoring censoring it would be 1).
    let mut est = Estimator::new(1, 1, vec![Pmf::point(10)], scaled(1.0)).unwrap();
    for k in 0..10 {
        est.observe(0, 0, if k % 2 == 0 { 10.0 } else { 30.0 }, k % 2 == 1)
            .unwrap();
    }
    assert_eq!(est.scale(0), 1.0);
    let mut est = Estimator::new(1, 1, vec![Pmf::point(10)], scaled(1.0)).unwrap();
    for k in 0..10 {
        est.observe(0, 0, if k < 4 { 10.0 } else { 30.0 }, k >= 4)
            .unwrap();
    }
    assert_eq!(est.scale(0), 3.0);
}

#[test]
fn the_machine_factor_forgets_outside_its_window() {
    // Window 10: ten runs at the prior's 10, then ten at 20. After the second ten every
    // ratio in the window is 2.
    let o = Options {
        machine_window: 10,
        ..scaled(1.0)
    };
    let mut est = Estimator::new(1, 1, vec![Pmf::point(10)], o).unwrap();
    for _ in 0..10 {
        est.observe(0, 0, 10.0, false).unwrap();
    }
    assert_eq!(est.scale(0), 1.0);
    // After the sixth run at 20, six of the ten ratios are 2: the median is 2.
    for k in 0..6 {
        assert_eq!(est.scale(0), 1.0, "run {k}");
        est.observe(0, 0, 20.0, false).unwrap();
    }
    assert_eq!(est.scale(0), 2.0);
}

#[test]
fn the_machine_factor_is_re_estimated_at_the_cadence() {
    // As above with cadence 4: estimated at the 10th run (the minimum), then at the 14th
    // (six ratios 1, four 2: still 1) and the 18th (two 1, eight 2): the factor moves at
    // the eighth run at 20, not the sixth.
    let o = Options {
        machine_window: 10,
        cadence: 4,
        ..scaled(1.0)
    };
    let mut est = Estimator::new(1, 1, vec![Pmf::point(10)], o).unwrap();
    for _ in 0..10 {
        est.observe(0, 0, 10.0, false).unwrap();
    }
    for k in 0..8 {
        assert_eq!(est.scale(0), 1.0, "run {k}");
        est.observe(0, 0, 20.0, false).unwrap();
    }
    assert_eq!(est.scale(0), 2.0);
}

#[test]
fn without_the_machine_factor_nothing_is_scaled() {
    // The guard off: it would drop a prior that every observation contradicts (guard.rs).
    let o = Options {
        prior_guard: false,
        ..options(1.0)
    };
    let mut est = Estimator::new(1, 2, vec![Pmf::point(10); 2], o).unwrap();
    for _ in 0..50 {
        est.observe(0, 1, 40.0, false).unwrap();
    }
    assert_eq!(est.scale(1), 1.0);
    // (1 x 10 + 50 x 40) / 51.
    assert!((est.pmf(0, 1).mass_at(40) - 50.0 / 51.0).abs() < EPS);
}

/// Four task types on two machines whose priors differ (so they tell the machines apart):
/// 10, 20, 30 and 40 ticks on machine 0, 12, 24, 36 and 48 on machine 1; type 3 is never
/// run.
fn two_machines(o: Options) -> Estimator {
    let prior = vec![
        Pmf::point(10),
        Pmf::point(12),
        Pmf::point(20),
        Pmf::point(24),
        Pmf::point(30),
        Pmf::point(36),
        Pmf::point(40),
        Pmf::point(48),
    ];
    Estimator::new(4, 2, prior, o).unwrap()
}

/// Runs `rounds` rounds of the three types on `machine`, type `t` taking `times[t]` ticks.
fn run_rounds(est: &mut Estimator, machine: usize, times: [f64; 3], rounds: usize) {
    for _ in 0..rounds {
        for (t, &x) in times.iter().enumerate() {
            est.observe(t, machine, x, false).unwrap();
        }
    }
}

#[test]
fn the_evidence_applies_the_factor_of_a_machine_slower_than_its_prior() {
    // Machine 0 runs every type twice as long as its prior: every ratio is 2. The factor
    // waits for three types to hold MIN_SCALE_EVIDENCE observations (the evidence), then
    // applies; it is re-estimated before an observation is recorded in its cell.
    let mut est = two_machines(options(10.0));
    run_rounds(&mut est, 0, [20.0, 40.0, 60.0], MIN_SCALE_EVIDENCE);
    assert_eq!(
        est.scale(0),
        1.0,
        "type 2 held 9 observations: no evidence yet"
    );
    assert_eq!(est.observe(0, 0, 20.0, false).unwrap(), Update::Machine);
    assert_eq!(est.scale(0), 2.0);
    assert_eq!(est.scale(1), 1.0, "machine 1 observed nothing");
    // The factor stretches the prior each cell blends with: type 3, never run, reads its
    // prior stretched (point 80 instead of 40); the others blend their observations (all
    // at twice the prior) with the stretched prior: the observed times exactly.
    assert_eq!(est.pmf(3, 0), &Pmf::point(80));
    assert_eq!(est.pmf(1, 0), &Pmf::point(40));
    assert_eq!(est.pmf(3, 1), &Pmf::point(48));
    // Without it, or with the factor off altogether, nothing is scaled.
    for o in [
        Options {
            scale_by_evidence: false,
            ..options(10.0)
        },
        Options {
            explore: 0,
            scale_by_evidence: false,
            machine_scale: false,
            ..options(10.0)
        },
    ] {
        let mut est = two_machines(o);
        run_rounds(&mut est, 0, [20.0, 40.0, 60.0], 40);
        assert_eq!(est.scale(0), 1.0);
    }
}

#[test]
fn the_evidence_leaves_a_faster_machine_and_disagreeing_cells_alone() {
    // Machine 1 twice as fast as its prior: the factor 1/2 is not applied (a pessimistic
    // prior is left to each cell); machine_scale = true applies it.
    let mut est = two_machines(options(10.0));
    run_rounds(&mut est, 1, [6.0, 12.0, 18.0], 40);
    assert_eq!(est.scale(1), 1.0);
    let mut est = two_machines(Options {
        machine_scale: true,
        ..options(10.0)
    });
    run_rounds(&mut est, 1, [6.0, 12.0, 18.0], 40);
    assert_eq!(est.scale(1), 0.5);
    // Machine 0: types 0 and 1 twice as slow, type 2 as its prior. The machine's median
    // ratio is 2, but type 2's own is 1, not nearer 2 than 1: no factor.
    let mut est = two_machines(options(10.0));
    run_rounds(&mut est, 0, [20.0, 40.0, 30.0], 40);
    assert_eq!(est.scale(0), 1.0);
    // Type 2 at 55 and 60 in turn (prior 30): its Kaplan-Meier CDF lies within 1/2 of the
    // prior stretched by 2 (point 60) and 1 away from the prior itself, so it supports the
    // factor (the machine's median ratio, 2), which applies. Point masses as the only
    // evidence would be as far from both.
    let mut est = two_machines(options(10.0));
    for k in 0..40 {
        run_rounds(&mut est, 0, [20.0, 40.0, [55.0, 60.0][k % 2]], 1);
    }
    assert_eq!(est.scale(0), 2.0);
}

#[test]
fn the_evidence_gives_no_factor_when_the_prior_is_equal_on_every_machine() {
    // A prior equal on both machines has no machine to be slower than: the copies are for
    // the evidence to find instead, and no factor is estimated.
    let prior = vec![
        Pmf::point(10),
        Pmf::point(10),
        Pmf::point(20),
        Pmf::point(20),
        Pmf::point(30),
        Pmf::point(30),
    ];
    let mut est = Estimator::new(3, 2, prior, options(10.0)).unwrap();
    run_rounds(&mut est, 0, [20.0, 40.0, 60.0], 40);
    assert_eq!(est.scale(0), 1.0);
}

#[test]
fn when_nothing_completed_the_geometric_tail_has_the_censoring_time_as_mean_excess() {
    // Censored at 8 only, the prior point(5) has nothing beyond: theta = w = 8, so the
    // whole mass lies on a geometric tail from 9, P(9) = 1/8, P(10) = 7/64; its mean is
    // 8 + 8 = 16 (cut where 1e-6 is left): a task that ran 8 is expected to run as long
    // again.
    let mut est = Estimator::new(1, 1, vec![Pmf::point(5)], options(0.0)).unwrap();
    est.observe(0, 0, 8.0, true).unwrap();
    let p = est.pmf(0, 0);
    assert!((p.mass_at(9) - 1.0 / 8.0).abs() < EPS);
    assert!((p.mass_at(10) - 7.0 / 64.0).abs() < EPS);
    assert!((p.mean() - 16.0).abs() < 1e-3, "{}", p.mean());
}

#[test]
fn the_optimistic_reading_by_hand() {
    // Uniform on 1..=4. eps 0.1: 0.1 off tick 4 onto tick 1.
    let p = Pmf::new(1, vec![0.25; 4]).unwrap();
    let o = optimistic(&p, 0.1).unwrap();
    for (t, m) in [(1, 0.35), (2, 0.25), (3, 0.25), (4, 0.15)] {
        assert!((o.mass_at(t) - m).abs() < EPS, "tick {t}: {o:?}");
    }
    // eps 0.5 empties ticks 4 and 3: 3/4 at 1, 1/4 at 2.
    let o = optimistic(&p, 0.5).unwrap();
    assert_eq!((o.min(), o.max()), (1, 2));
    assert!((o.mass_at(1) - 0.75).abs() < EPS && (o.mass_at(2) - 0.25).abs() < EPS);
    // The CDF raised by eps, capped at 1: F(2) = 0.5 + 0.3.
    let o = optimistic(&p, 0.3).unwrap();
    assert!((o.cdf(2.0) - 0.8).abs() < EPS, "{o:?}");
    // eps 1 (and beyond): a point mass on the fastest tick; eps 0: the PMF itself.
    assert_eq!(optimistic(&p, 1.0).unwrap(), Pmf::point(1));
    assert_eq!(optimistic(&p, 2.0).unwrap(), Pmf::point(1));
    assert_eq!(optimistic(&p, 0.0).unwrap(), p);
    // eps = 1 / sqrt(n0 + n + 1) while n < explore, then 0.
    assert_eq!(optimism(0.0, 0, 10), 1.0);
    assert_eq!(optimism(0.0, 3, 10), 0.5);
    assert_eq!(optimism(5.0, 3, 10), 1.0 / 3.0);
    assert!((optimism(10.0, 0, 10) - 1.0 / 11f64.sqrt()).abs() < EPS);
    assert_eq!(optimism(0.0, 10, 10), 0.0);
    assert_eq!(optimism(0.0, 0, 0), 0.0);
}

#[test]
fn an_explored_cell_is_read_optimistically_until_it_holds_explore_observations() {
    let prior = Pmf::new(1, vec![0.25; 4]).unwrap();
    let o = Options {
        explore: 4,
        optimism: true,
        ..options(1.0)
    };
    let mut est = Estimator::new(1, 1, vec![prior.clone()], o).unwrap();
    let mut plain = Estimator::new(1, 1, vec![prior.clone()], options(1.0)).unwrap();
    // Never observed, the prior weighing 1: eps = 1 / sqrt(2) off tick 4 (1/4) and 3
    // (1/4) and 2 (the rest, eps - 1/2), onto 1.
    let eps = 1.0 / 2f64.sqrt();
    let p = est.pmf(0, 0);
    assert_eq!(p.max(), 2);
    assert!((p.mass_at(1) - (0.25 + eps)).abs() < EPS, "{p:?}");
    assert!((p.mass_at(2) - (0.25 - (eps - 0.5))).abs() < EPS, "{p:?}");
    // One completion at 4: the blend is 1/8 on each of 1, 2, 3 and 5/8 on 4; eps = 1 /
    // sqrt(3) < 5/8 comes off 4 only, onto 1.
    assert!(est.observe(0, 0, 4.0, false).unwrap().changed());
    plain.observe(0, 0, 4.0, false).unwrap();
    let eps = 1.0 / 3f64.sqrt();
    let p = est.pmf(0, 0);
    assert!((p.mass_at(1) - (0.125 + eps)).abs() < EPS, "{p:?}");
    assert!((p.mass_at(3) - 0.125).abs() < EPS, "{p:?}");
    assert!((p.mass_at(4) - (0.625 - eps)).abs() < EPS, "{p:?}");
    // From the 4th observation on, the belief itself, bit for bit.
    for _ in 0..3 {
        est.observe(0, 0, 4.0, false).unwrap();
        plain.observe(0, 0, 4.0, false).unwrap();
    }
    assert_eq!(est.pmf(0, 0), plain.pmf(0, 0));
    assert!((est.pmf(0, 0).mass_at(4) - 0.85).abs() < EPS);
    // A prior weighing nothing, never observed: a point mass on its fastest tick.
    let o = Options {
        explore: 1,
        optimism: true,
        ..options(0.0)
    };
    let est = Estimator::new(1, 1, vec![prior.clone()], o).unwrap();
    assert_eq!(est.pmf(0, 0), &Pmf::point(1));
    // Explored without optimism: the belief itself, and the cell explored until it holds
    // `explore` observations.
    let o = Options {
        explore: 2,
        ..options(0.0)
    };
    let mut est = Estimator::new(1, 1, vec![prior.clone()], o).unwrap();
    assert_eq!(est.pmf(0, 0), &prior);
    assert!(est.explores(0, 0));
    est.observe(0, 0, 3.0, false).unwrap();
    assert!(est.explores(0, 0));
    est.observe(0, 0, 3.0, true).unwrap();
    assert!(!est.explores(0, 0), "a censored observation counts");
    assert!(!est.explores(1, 0), "outside the shape: not explored");
    assert_eq!(Options::default().explore, learn::DEFAULT_EXPLORE);
    assert!(!Options::default().optimism);
}

proptest! {
    #[test]
    fn the_median_ratio_scales_with_the_ratios_and_censoring_only_raises_it(
        obs in proptest::collection::vec((1u32..1000, any::<bool>()), 1..60),
        c in 0.1f64..10.0,
        k in 0usize..60,
    ) {
        let r: Vec<Sample> = obs.iter().map(|&(t, cen)| Sample { time: f64::from(t), censored: cen }).collect();
        let m = median_ratio(&r).unwrap().unwrap();
        let lo = r.iter().map(|s| s.time).fold(f64::INFINITY, f64::min);
        let hi = r.iter().map(|s| s.time).fold(0.0, f64::max);
        prop_assert!(lo <= m && m <= hi);
        // Equivariant: ratios times c, median times c.
        let rc: Vec<Sample> = r.iter().map(|s| Sample { time: s.time * c, ..*s }).collect();
        let mc = median_ratio(&rc).unwrap().unwrap();
        prop_assert!((mc - c * m).abs() <= 1e-9 * mc.max(1.0), "{} vs {}", mc, c * m);
        // Censoring one more ratio moves mass to later ratios: the median never falls.
        let mut more = r;
        let j = k % more.len();
        more[j].censored = true;
        prop_assert!(median_ratio(&more).unwrap().unwrap() >= m);
    }

    #[test]
    fn a_uniform_slowdown_is_learned_as_the_machine_factor(
        weights in proptest::collection::vec(1u32..10, 2..12),
        at in 1i64..50,
        slow in 1u32..5,
    ) {
        // Runs at the prior's quantiles of a regular grid, times `slow`: the factor applied
        // is within SCALE_STEP of `slow` and every PMF stays a PMF.
        let prior = Pmf::from_weights(at, weights.iter().map(|&w| f64::from(w)).collect()).unwrap();
        let mut est = Estimator::new(1, 1, vec![prior.clone()], scaled(10.0)).unwrap();
        let n = 49u32;
        for k in 0..n {
            let u = (f64::from(k * 29 % n) + 0.5) / f64::from(n);
            let x = prior.quantile(u).unwrap() * i64::from(slow);
            est.observe(0, 0, x as f64, false).unwrap();
            prop_assert!(est.pmf(0, 0).check_invariants().is_ok());
        }
        let f = est.scale(0);
        let s = f64::from(slow);
        // The ratios x / median sorted: the 25th of 49 is at u = 1/2, the median itself
        // times `slow`; the factor applied is within SCALE_STEP of that estimate.
        prop_assert!((f / s).ln().abs() <= learn::SCALE_STEP.ln_1p() + 1e-12,
            "factor {} for slowdown {}", f, slow);
    }
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
            ..Options::default()
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

#[test]
fn copies_learn_as_one_machine_and_a_prior_equal_everywhere_pools_nothing() {
    // Two task types on three machines; machines 0 and 2 have the same priors (copies),
    // machine 1 others.
    let a = Pmf::new(2, vec![0.5, 0.5]).unwrap();
    let b = Pmf::new(5, vec![0.25, 0.75]).unwrap();
    let prior = vec![
        a.clone(),
        b.clone(),
        a.clone(),
        b.clone(),
        a.clone(),
        b.clone(),
    ];
    let mut pooled = Estimator::new(2, 3, prior.clone(), options(1.0)).unwrap();
    assert_eq!(pooled.copies(0), &[0, 2]);
    assert_eq!(pooled.copies(2), &[0, 2]);
    assert_eq!(pooled.copies(1), &[1]);
    assert!(pooled.copies(3).is_empty(), "outside the shape");
    // One machine fed every observation of the copies: the same PMF, bit for bit.
    let mut one = Estimator::new(2, 1, vec![a.clone(), b.clone()], options(1.0)).unwrap();
    for (i, &(m, x, censored)) in [(2, 4.0, false), (0, 3.0, true), (2, 2.0, false)]
        .iter()
        .enumerate()
    {
        let u = pooled.observe(1, m, x, censored).unwrap();
        one.observe(1, 0, x, censored).unwrap();
        assert_eq!(pooled.observations(1, 0), i + 1);
        assert_eq!(pooled.observations(1, 2), i + 1);
        assert_eq!(pooled.pmf(1, 0), one.pmf(1, 0), "{u:?}");
        assert_eq!(pooled.pmf(1, 2), one.pmf(1, 0));
    }
    assert_eq!(pooled.observations(1, 1), 0);
    assert_eq!(pooled.pmf(1, 1), &a, "machine 1 is not a copy: its prior");
    // Off: each machine learns alone.
    let o = Options {
        pool_copies: false,
        ..options(1.0)
    };
    let mut apart = Estimator::new(2, 3, prior, o).unwrap();
    assert_eq!(apart.copies(0), &[0]);
    apart.observe(1, 2, 4.0, false).unwrap();
    assert_eq!(apart.observations(1, 0), 0);
    assert_eq!(apart.pmf(1, 0), &b, "its prior");
    // A prior equal on every machine tells none apart: nothing is pooled.
    let flat = vec![a; 6];
    let est = Estimator::new(2, 3, flat, options(0.0)).unwrap();
    for m in 0..3 {
        assert_eq!(est.copies(m), &[m]);
    }
}

/// A bimodal execution time (ticks) from a 64-bit linear congruential stream: 4-6 with
/// probability 3/4, else 20-29, times `slow`.
fn bimodal(state: &mut u64, slow: f64) -> f64 {
    *state = state
        .wrapping_mul(6364136223846793005)
        .wrapping_add(1442695040888963407);
    let u = (*state >> 33) as usize;
    let x = if u % 4 < 3 {
        4 + u / 4 % 3
    } else {
        20 + u / 4 % 10
    };
    (x as f64 * slow).round()
}

/// A flat prior on 1..=60 on `machines` machines and `types` types, weighing nothing.
fn flat_estimator(types: usize, machines: usize, pool_by_evidence: bool) -> Estimator {
    let flat = Pmf::new(1, vec![1.0 / 60.0; 60]).unwrap();
    let options = Options {
        prior_weight: 0.0,
        pool_by_evidence,
        ..Options::default()
    };
    Estimator::with_prior(types, machines, |_, _| flat.clone(), options).unwrap()
}

#[test]
fn copies_are_found_from_the_evidence_when_the_prior_tells_no_machines_apart() {
    // Machines 0 and 2 are copies; machine 1 is 3 times slower. Two task types.
    let mut est = flat_estimator(2, 3, true);
    assert_eq!(est.copies(0), [0]);
    let mut rng = 7u64;
    let mut all = false;
    for _ in 0..200 {
        for t in 0..2 {
            for (m, slow) in [(0, 1.0), (1, 3.0), (2, 1.0)] {
                let x = bimodal(&mut rng, slow);
                all |= est.observe(t, m, x, false).unwrap() == Update::All;
            }
        }
    }
    assert!(all, "the copies changed once");
    for t in 0..2 {
        assert_eq!(est.cell_copies(t, 0), [0, 2]);
        assert_eq!(est.cell_copies(t, 2), [0, 2]);
        assert_eq!(est.cell_copies(t, 1), [1]);
        // The prior tells no machines apart: the machines are not copies in every type.
        assert_eq!(est.copies(2), [2]);
        assert_eq!(est.pmf(t, 0), est.pmf(t, 2), "copies read one PMF");
        assert_ne!(est.pmf(t, 0), est.pmf(t, 1));
        assert_eq!(
            est.observations(t, 0),
            400,
            "copies count their observations together"
        );
        assert_eq!(est.observations(t, 1), 200);
    }
    // The pooled PMF is the Kaplan-Meier estimate of both machines' observations: the
    // same as one machine that observed them all.
    let mut one = flat_estimator(1, 1, true);
    let mut rng = 7u64;
    for _ in 0..200 {
        for t in 0..2 {
            for (m, slow) in [(0, 1.0), (1, 3.0), (2, 1.0)] {
                let x = bimodal(&mut rng, slow);
                if t == 0 && m != 1 {
                    one.observe(0, 0, x, false).unwrap();
                }
            }
        }
    }
    assert_eq!(one.pmf(0, 0), est.pmf(0, 0));
}

#[test]
fn a_copy_that_stops_being_one_learns_apart_again() {
    let mut est = flat_estimator(1, 2, true);
    let mut rng = 11u64;
    for _ in 0..100 {
        for m in 0..2 {
            let x = bimodal(&mut rng, 1.0);
            est.observe(0, m, x, false).unwrap();
        }
    }
    assert_eq!(est.cell_copies(0, 1), [0, 1]);
    // Machine 1 slows down four-fold: its observations tell it apart.
    for _ in 0..400 {
        let x = bimodal(&mut rng, 1.0);
        est.observe(0, 0, x, false).unwrap();
        let x = bimodal(&mut rng, 4.0);
        est.observe(0, 1, x, false).unwrap();
    }
    assert_eq!(est.cell_copies(0, 1), [1]);
    assert_ne!(est.pmf(0, 0), est.pmf(0, 1));
}

#[test]
fn distinct_machines_are_never_pooled_and_learn_as_without_the_evidence() {
    // Machines 1.5 to 2 times apart: until copies are found (never, here) every PMF is
    // the one learned without looking for them, bit for bit.
    let mut with = flat_estimator(3, 2, true);
    let mut without = flat_estimator(3, 2, false);
    let mut rng = 3u64;
    for i in 0..600 {
        let (t, m) = (i % 3, i / 3 % 2);
        let x = bimodal(&mut rng, if m == 0 { 1.0 } else { 1.5 + t as f64 * 0.25 });
        let censored = i % 7 == 0;
        assert_eq!(
            with.observe(t, m, x, censored).unwrap(),
            without.observe(t, m, x, censored).unwrap()
        );
        assert_eq!(with.cell_copies(t, m), [m]);
        assert_eq!(with.pmf(t, m), without.pmf(t, m));
    }
}

#[test]
fn priors_that_tell_machines_apart_are_not_second_guessed() {
    // Machine 1's prior differs: the prior says which machines are copies (none here),
    // whatever the observations.
    let options = Options {
        prior_weight: 0.0,
        ..Options::default()
    };
    let mut est = Estimator::with_prior(
        1,
        2,
        |_, m| Pmf::new(1, vec![1.0 / (30.0 + m as f64); 30 + m]).unwrap(),
        options,
    )
    .unwrap();
    let mut rng = 5u64;
    for _ in 0..200 {
        for m in 0..2 {
            let x = bimodal(&mut rng, 1.0);
            assert_ne!(est.observe(0, m, x, false).unwrap(), Update::All);
        }
    }
    assert_eq!(est.cell_copies(0, 1), [1]);
}

#[test]
fn copies_learn_their_rarely_run_types_together_and_other_machines_only_their_alike_cells() {
    // Four task types on three machines: 0 and 1 copies in every type; 2 like them in
    // types 0 and 1 only (three times slower in types 2 and 3). Type 3 runs rarely (5 times
    // per machine): too few to compare.
    let mut est = flat_estimator(4, 3, true);
    let mut rng = 13u64;
    for k in 0..150 {
        for t in 0..4 {
            if t == 3 && k >= 5 {
                continue;
            }
            for m in 0..3 {
                let slow = if m == 2 && t >= 2 { 3.0 } else { 1.0 };
                let x = bimodal(&mut rng, slow);
                est.observe(t, m, x, false).unwrap();
            }
        }
    }
    for t in 0..2 {
        assert_eq!(
            est.cell_copies(t, 2),
            [0, 1, 2],
            "type {t}: alike everywhere"
        );
    }
    assert_eq!(
        est.cell_copies(2, 1),
        [0, 1],
        "machine 2 is told apart in type 2"
    );
    assert_eq!(est.cell_copies(2, 2), [2]);
    assert_eq!(
        est.cell_copies(3, 1),
        [0, 1],
        "copies learn a type too rarely run to compare"
    );
    assert_eq!(est.cell_copies(3, 2), [2]);
    assert_eq!(est.observations(3, 0), 10);
}
