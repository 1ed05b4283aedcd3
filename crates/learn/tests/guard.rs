//! The prior guard ([`Options::prior_guard`]), learning from no prior, the machine types a
//! user names ([`Estimator::with_machine_types`]), and convergence from any prior when most
//! executions are censored.

use learn::{Estimator, GUARD_OBSERVATIONS, LearnError, Options};
use pmf::Pmf;

/// The Kolmogorov-Smirnov distance between two PMFs on the tick grid.
fn ks(a: &Pmf, b: &Pmf) -> f64 {
    (a.min().min(b.min())..=a.max().max(b.max()))
        .map(|t| (a.cdf_tick(t) - b.cdf_tick(t)).abs())
        .fold(0.0, f64::max)
}

/// The `k`-th point of a low-discrepancy sequence in (0, 1) (the fractional parts of
/// `k * step`): deterministic draws spread evenly.
fn draw(k: usize, step: f64) -> f64 {
    ((k as f64 + 0.5) * step).fract()
}

/// The no-information prior: one tick (`prior = "none"`).
fn none() -> Pmf {
    Pmf::point(1)
}

#[test]
fn a_prior_most_cells_contradict_is_dropped_for_the_whole_machine() {
    // Machine 0 believed to take 100 ticks for each of 4 types; it takes 10. Machine 1's
    // prior is never contradicted.
    let prior = vec![Pmf::point(100); 8];
    let mut est = Estimator::new(4, 2, prior, Options::default()).unwrap();
    for t in 0..3 {
        for _ in 0..GUARD_OBSERVATIONS {
            est.observe(t, 0, 10.0, false).unwrap();
        }
    }
    assert!(est.dropped_prior(0));
    assert!(!est.dropped_prior(1));
    // The observed cells read their observations alone; the one never run reads one tick
    // (tried before it is believed slow), where the prior still said 100.
    assert_eq!(est.pmf(0, 0), &Pmf::point(10));
    assert_eq!(est.pmf(3, 0), &Pmf::point(1));
    assert_eq!(est.pmf(3, 1), &Pmf::point(100));
    // Without the guard the prior keeps its weight in every cell.
    let o = Options {
        prior_guard: false,
        ..Options::default()
    };
    let mut kept = Estimator::new(4, 2, vec![Pmf::point(100); 8], o).unwrap();
    for t in 0..3 {
        for _ in 0..GUARD_OBSERVATIONS {
            kept.observe(t, 0, 10.0, false).unwrap();
        }
    }
    assert!(!kept.dropped_prior(0));
    assert_eq!(kept.pmf(3, 0), &Pmf::point(100));
}

#[test]
fn one_contradicted_cell_of_many_does_not_drop_the_prior() {
    let mut est = Estimator::new(3, 1, vec![Pmf::point(100); 3], Options::default()).unwrap();
    for _ in 0..20 {
        est.observe(0, 0, 10.0, false).unwrap();
        est.observe(1, 0, 100.0, false).unwrap();
    }
    assert!(!est.dropped_prior(0));
    assert_eq!(est.pmf(2, 0), &Pmf::point(100));
}

#[test]
fn a_correct_prior_is_kept_under_heavy_censoring() {
    // Three types drawn from their priors, 70% of the executions dropped at a time spread
    // over the prior's range: the guard never drops it.
    let prior: Vec<Pmf> = (0..3)
        .map(|t| Pmf::new(10 * (t + 1), vec![0.1; 10]).unwrap())
        .collect();
    let mut est = Estimator::new(3, 1, prior.clone(), Options::default()).unwrap();
    for k in 0..2000 {
        for (t, p) in prior.iter().enumerate() {
            let x = p.quantile(draw(k, 0.618_033_988_7)).unwrap() as f64;
            let c = p.max() as f64 * draw(k, 0.414_213_562_4);
            let dropped = draw(k, 0.732_050_807_6) < 0.7;
            let (time, censored) = if dropped && c < x {
                (c, true)
            } else {
                (x, false)
            };
            est.observe(t, 0, time, censored).unwrap();
        }
        assert!(!est.dropped_prior(0), "dropped after {k} rounds");
    }
}

/// A bimodal truth: most executions near 20 ticks, one in five near 100.
fn truth() -> Pmf {
    let mut w = vec![0.0; 111];
    for (t, m) in [(18, 0.2), (20, 0.4), (22, 0.2), (95, 0.1), (105, 0.1)] {
        w[t - 1] = m;
    }
    Pmf::new(1, w).unwrap()
}

/// Feeds `n` executions of `truth` to cells (0, 0) and (1, 0), four in five of them
/// dropped at a time spread over 0..60 ticks (so nearly every slow one is censored), and
/// returns the distance of cell (0, 0) to the truth after each count in `at`.
fn distances(mut est: Estimator, at: &[usize]) -> Vec<f64> {
    let truth = truth();
    let mut out = Vec::new();
    for k in 0..*at.last().unwrap() {
        let x = truth.quantile(draw(k, 0.618_033_988_7)).unwrap() as f64;
        let c = 60.0 * draw(k, 0.414_213_562_4);
        let dropped = draw(k, 0.732_050_807_6) < 0.8;
        let (time, censored) = if dropped && c < x {
            (c, true)
        } else {
            (x, false)
        };
        for t in 0..2 {
            est.observe(t, 0, time, censored).unwrap();
        }
        if at.contains(&(k + 1)) {
            out.push(ks(est.pmf(0, 0), &truth));
        }
    }
    out
}

#[test]
fn the_belief_converges_to_the_truth_from_any_prior_when_most_runs_are_censored() {
    let at = [20, 200, 2000];
    let flat = Pmf::new(1, vec![1.0 / 400.0; 400]).unwrap();
    let priors = [
        ("flat, weighing 10", flat, Options::default()),
        ("wrong (300 ticks)", Pmf::point(300), Options::default()),
        ("too fast (5 ticks)", Pmf::point(5), Options::default()),
        (
            "none",
            none(),
            Options {
                prior_weight: 0.0,
                ..Options::default()
            },
        ),
        ("the truth", truth(), Options::default()),
    ];
    for (name, prior, options) in priors {
        let est = Estimator::new(2, 1, vec![prior; 2], options).unwrap();
        let d = distances(est, &at);
        assert!(
            d[2] < 0.03 && d[2] <= d[1] + 1e-9 && d[1] <= d[0] + 1e-9,
            "{name}: distances {d:?} after {at:?} observations"
        );
    }
    // Without the guard the flat prior weighing 10 keeps the belief away for longer.
    let flat = Pmf::new(1, vec![1.0 / 400.0; 400]).unwrap();
    let o = Options {
        prior_guard: false,
        ..Options::default()
    };
    let d = distances(Estimator::new(2, 1, vec![flat; 2], o).unwrap(), &at);
    assert!(d[0] > 0.2, "{d:?}");
}

#[test]
fn machines_named_alike_learn_as_one_from_the_first_observation() {
    let o = Options {
        prior_weight: 0.0,
        ..Options::default()
    };
    let est = Estimator::new(1, 3, vec![none(); 3], o).unwrap();
    let mut est = est.with_machine_types(&[7, 3, 7]).unwrap();
    assert_eq!(est.copies(0), &[0, 2]);
    assert_eq!(est.copies(1), &[1]);
    est.observe(0, 2, 12.0, false).unwrap();
    assert_eq!(est.pmf(0, 0), &Pmf::point(12));
    assert_eq!(est.pmf(0, 1), &Pmf::point(1));
    assert_eq!(
        Estimator::new(1, 3, vec![none(); 3], o)
            .unwrap()
            .with_machine_types(&[0, 1])
            .unwrap_err(),
        LearnError::PriorShape {
            types: 1,
            machines: 3,
            found: 2
        }
    );
}

#[test]
fn a_prior_wrong_only_by_one_factor_for_the_machine_is_kept() {
    // Machines told apart by their priors (10, 20, 30, 40 ticks on machine 0; 12, 24, 36,
    // 48 on machine 1), so the machine factor from the evidence is estimated.
    let two_machines = || {
        let prior = [10, 12, 20, 24, 30, 36, 40, 48].map(Pmf::point).to_vec();
        Estimator::new(4, 2, prior, Options::default()).unwrap()
    };
    // Machine 0 runs every type in half its prior's time: the prior is too slow by one
    // factor, right in shape; the cells learn it, the guard keeps the prior.
    let mut est = two_machines();
    for _ in 0..40 {
        for (t, x) in [5.0, 10.0, 15.0].into_iter().enumerate() {
            est.observe(t, 0, x, false).unwrap();
        }
    }
    assert!(!est.dropped_prior(0));
    assert_eq!(est.pmf(3, 0), &Pmf::point(40));
    // Times no one factor explains (the prior's order of the types reversed): dropped.
    let mut est = two_machines();
    for _ in 0..40 {
        for (t, x) in [40.0, 30.0, 10.0].into_iter().enumerate() {
            est.observe(t, 0, x, false).unwrap();
        }
    }
    assert!(est.dropped_prior(0));
    assert_eq!(est.pmf(3, 0), &Pmf::point(1));
}
