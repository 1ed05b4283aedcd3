//! Arrival trials (thesis 3.4.2, JPDC-2016 7.2): determinism, eq. (3.7), rates and spans.

use workload::{
    ArrivalSpec, BurstParams, Pattern, Pet, WorkloadError, generate_trial, try_generate_trial,
    type_counts,
};

use crate::common::{mean, tol};

fn pet() -> Pet {
    Pet::default_pet(11)
}

#[test]
fn the_same_seed_and_trial_give_the_same_trial() {
    let pet = pet();
    for pattern in [Pattern::Constant, Pattern::Bursty(BurstParams::default())] {
        let spec = ArrivalSpec {
            pattern,
            ..ArrivalSpec::paper(19_000.0)
        };
        let a = generate_trial(&pet, &spec, 42, 3);
        // Trial 3 is the same whether or not other trials were generated before it.
        let _others: Vec<_> = (0..3).map(|k| generate_trial(&pet, &spec, 42, k)).collect();
        let b = generate_trial(&pet, &spec, 42, 3);
        assert_eq!(a, b);
        assert_ne!(a, generate_trial(&pet, &spec, 42, 4));
        assert_ne!(a, generate_trial(&pet, &spec, 43, 3));
    }
}

#[test]
fn trials_are_sorted_and_trimmed_to_the_requested_count() {
    let pet = pet();
    for tasks in [1, 17, 800] {
        let spec = ArrivalSpec {
            tasks,
            ..ArrivalSpec::paper(34_000.0)
        };
        let trial = generate_trial(&pet, &spec, 1, 0);
        assert_eq!(trial.len(), tasks);
        assert!(trial.tasks.windows(2).all(|w| w[0].arrival <= w[1].arrival));
        assert!(
            trial
                .tasks
                .iter()
                .all(|t| t.arrival > 0.0 && t.task_type < 12)
        );
    }
    // The first 17 arrivals are a prefix of the first 800.
    let long = generate_trial(&pet, &ArrivalSpec::paper(34_000.0), 1, 0);
    let short = generate_trial(
        &pet,
        &ArrivalSpec {
            tasks: 17,
            ..ArrivalSpec::paper(34_000.0)
        },
        1,
        0,
    );
    assert_eq!(short.tasks[..], long.tasks[..17]);
}

#[test]
fn deadlines_follow_equation_3_7_exactly() {
    let pet = pet();
    for beta in [0.0, 0.5, 1.0, 2.5] {
        let spec = ArrivalSpec {
            beta,
            ..ArrivalSpec::paper(19_000.0)
        };
        for t in generate_trial(&pet, &spec, 9, 0).tasks {
            assert_eq!(
                t.deadline,
                t.arrival + pet.avg_type(t.task_type) + beta * pet.avg_all(),
                "{t:?}"
            );
        }
    }
}

#[test]
fn generated_trials_hit_the_requested_rate() {
    // With a short horizon and no trimming every arrival is kept: the count of a trial is
    // Poisson given the types' Gaussian counts, mean R, variance R + 0.1 R.
    let pet = pet();
    let rate = 6_000.0;
    let spec = ArrivalSpec {
        horizon: 5_000.0,
        tasks: usize::MAX,
        ..ArrivalSpec::paper(rate)
    };
    let trials = 40;
    let counts: Vec<f64> = (0..trials)
        .map(|k| generate_trial(&pet, &spec, 5, k).len() as f64)
        .collect();
    let m = mean(&counts);
    let se = (1.1 * rate / trials as f64).sqrt();
    eprintln!("mean count {m:.1} for rate {rate} (standard error {se:.1})");
    assert!((m - rate).abs() < tol::SIGMAS * se, "mean count {m}");
    // Every arrival lies inside the horizon.
    let t = generate_trial(&pet, &spec, 5, 0);
    assert!(t.tasks.last().is_some_and(|t| t.arrival < 5_000.0));
}

#[test]
fn type_counts_have_the_documented_mean_and_variance() {
    let spec = ArrivalSpec::paper(34_000.0);
    let mut xs = Vec::new();
    for k in 0..200 {
        xs.extend(type_counts(12, &spec, 8, k));
    }
    let mu = 34_000.0 / 12.0;
    let m = mean(&xs);
    let var = xs.iter().map(|x| (x - m).powi(2)).sum::<f64>() / (xs.len() - 1) as f64;
    let n = xs.len() as f64;
    assert!(
        (m - mu).abs() < tol::SIGMAS * (0.1 * mu / n).sqrt(),
        "mean {m}"
    );
    // The sample variance of n Gaussian draws has relative standard error sqrt(2 / n).
    assert!(
        (var / (0.1 * mu) - 1.0).abs() < tol::SIGMAS * (2.0 / n).sqrt(),
        "variance {var}, expected {}",
        0.1 * mu
    );
}

#[test]
fn spans_of_800_tasks_match_the_papers_trials() {
    // The paper's trials: about 3,800 time units at 19k and 2,100 at 34k (see real_files).
    let pet = pet();
    for (rate, expected) in [(19_000.0, 3_714.0), (34_000.0, 2_075.0)] {
        let spans: Vec<f64> = (0..30)
            .map(|k| generate_trial(&pet, &ArrivalSpec::paper(rate), 77, k).span())
            .collect();
        let m = mean(&spans);
        eprintln!("rate {rate}: mean span {m:.0} over 30 trials (800 R / 88200 = {expected})");
        assert!((m / expected - 1.0).abs() < 0.05, "span {m}");
    }
}

#[test]
fn bursty_arrivals_have_the_mean_factor_and_more_dispersion() {
    let pet = pet();
    let params = BurstParams::default();
    assert!((params.mean_factor() - 0.775).abs() < 1e-12);
    let base = ArrivalSpec {
        horizon: 20_000.0,
        tasks: usize::MAX,
        ..ArrivalSpec::paper(12_000.0)
    };
    let bursty = ArrivalSpec {
        pattern: Pattern::Bursty(params),
        ..base
    };
    let trials = 20;
    let (mut n_const, mut n_burst) = (Vec::new(), Vec::new());
    let (mut d_const, mut d_burst) = (Vec::new(), Vec::new());
    for k in 0..trials {
        for (spec, n, d) in [
            (&base, &mut n_const, &mut d_const),
            (&bursty, &mut n_burst, &mut d_burst),
        ] {
            let t = generate_trial(&pet, spec, 21, k);
            n.push(t.len() as f64);
            // Index of dispersion of the counts of one task type in 60-unit windows: 1 for
            // a Poisson process, larger with bursts.
            let mut w = vec![0.0; (20_000.0 / 60.0) as usize];
            for task in t.tasks.iter().filter(|x| x.task_type == 0) {
                if let Some(c) = w.get_mut((task.arrival / 60.0) as usize) {
                    *c += 1.0;
                }
            }
            let m = mean(&w);
            let var = w.iter().map(|x| (x - m).powi(2)).sum::<f64>() / w.len() as f64;
            d.push(var / m);
        }
    }
    let ratio = mean(&n_burst) / mean(&n_const);
    eprintln!(
        "bursty / constant count ratio {ratio:.3} (expected 0.775); dispersion {:.2} vs {:.2}",
        mean(&d_burst),
        mean(&d_const)
    );
    assert!((ratio - 0.775).abs() < 0.03, "ratio {ratio}");
    assert!((mean(&d_const) - 1.0).abs() < 0.1);
    assert!(mean(&d_burst) > mean(&d_const) + 0.1);
}

#[test]
fn invalid_specs_are_reported_and_give_empty_trials() {
    let pet = pet();
    let bad = [
        ArrivalSpec {
            rate: 0.0,
            ..ArrivalSpec::paper(1.0)
        },
        ArrivalSpec {
            rate: f64::NAN,
            ..ArrivalSpec::paper(1.0)
        },
        ArrivalSpec {
            tasks: 0,
            ..ArrivalSpec::paper(1.0)
        },
        ArrivalSpec {
            beta: -1.0,
            ..ArrivalSpec::paper(1.0)
        },
        ArrivalSpec {
            horizon: f64::INFINITY,
            ..ArrivalSpec::paper(1.0)
        },
        ArrivalSpec {
            pattern: Pattern::Bursty(BurstParams {
                burst_duration: [90.0, 30.0],
                ..BurstParams::default()
            }),
            ..ArrivalSpec::paper(1.0)
        },
    ];
    for spec in bad {
        assert!(generate_trial(&pet, &spec, 1, 0).is_empty());
        match try_generate_trial(&pet, &spec, 1, 0) {
            Err(e @ WorkloadError::InvalidSpec { .. }) => eprintln!("{e}"),
            other => panic!("{spec:?}: {other:?}"),
        }
    }
}

#[test]
fn a_tiny_rate_gives_fewer_tasks_than_asked() {
    let pet = pet();
    let spec = ArrivalSpec::paper(24.0);
    let t = generate_trial(&pet, &spec, 1, 0);
    assert!(t.len() < 100, "{} tasks", t.len());
    assert!(t.tasks.iter().all(|x| x.arrival < spec.horizon));
}
