//! Experiments: scenario generation, statistics, CSV, and trials that depend on their index
//! only.

use moldable::experiments::{
    Fig4Row, Purpose, ScenarioParams, ci95, figure4_params, figure4_with, figure5_params,
    figure5_trials_with, generate, quantile, run_trial, run_trials, split_processors, stream,
    summarise_figure4, summarise_figure5, write_csv,
};
use moldable::slowdown::SlowdownCategory;
use moldable::{Heuristic, MoldableError};
use rand::RngCore;

use crate::common::EPS;

#[test]
fn streams_differ_by_every_part_of_the_key() {
    let first = |s, p, t, u| stream(s, p, t, u).next_u64();
    let base = first(1, 2, 3, Purpose::Scenario);
    assert_eq!(base, first(1, 2, 3, Purpose::Scenario));
    for other in [
        first(0, 2, 3, Purpose::Scenario),
        first(1, 0, 3, Purpose::Scenario),
        first(1, 2, 0, Purpose::Scenario),
        first(1, 2, 3, Purpose::PbRandom),
        first(1, 2, 3, Purpose::PbSmart),
    ] {
        assert_ne!(base, other);
    }
}

#[test]
fn processors_come_in_blocks_of_m() {
    for n_types in [1, 2, 4, 8, 16, 32] {
        let counts = split_processors(
            &mut stream(1, 0, n_types as u64, Purpose::Scenario),
            32,
            n_types,
            256,
        )
        .unwrap();
        assert_eq!(counts.len(), n_types);
        assert_eq!(counts.iter().sum::<u32>(), 256);
        assert!(counts.iter().all(|&n| n >= 8 && n % 8 == 0), "{counts:?}");
    }
    let mut rng = stream(1, 0, 0, Purpose::Scenario);
    assert!(matches!(
        split_processors(&mut rng, 32, 4, 250),
        Err(MoldableError::NotBalanced { .. })
    ));
    assert!(split_processors(&mut rng, 4, 8, 32).is_err());
}

#[test]
fn student_t_interval_and_quantiles_by_hand() {
    // [1, 2, 3]: mean 2, s = 1, t(0.975, 2) = 4.302653: half-width 4.302653 / sqrt(3).
    assert!((ci95(&[1.0, 2.0, 3.0]) - 4.302_652_73 / 3f64.sqrt()).abs() < 1e-6);
    assert_eq!(ci95(&[1.0]), 0.0);
    // Type-7 quantiles of [1, 2, 3, 4]: q25 = 1.75, median 2.5.
    assert!((quantile(&[4.0, 1.0, 3.0, 2.0], 0.25) - 1.75).abs() < EPS);
    assert!((quantile(&[4.0, 1.0, 3.0, 2.0], 0.5) - 2.5).abs() < EPS);
    assert_eq!(quantile(&[], 0.5), 0.0);
}

fn tiny() -> ScenarioParams {
    let mut p = ScenarioParams::paper(8, 2, 64, SlowdownCategory::High);
    p.cov.mean_task = 300.0;
    p
}

#[test]
fn a_trial_depends_on_its_index_only() {
    let all = run_trials(&tiny(), 6, 42, 9).unwrap();
    assert_eq!(all.len(), 6);
    assert!(all.iter().enumerate().all(|(i, r)| r.trial == i));
    // Any trial, run alone and in any order, is the same as in the whole run.
    for t in [5, 2, 0] {
        assert_eq!(all[t], run_trial(&tiny(), 42, 9, t).unwrap());
    }
    // Different trials are different scenarios.
    assert_ne!(all[0].goal, all[1].goal);
}

#[test]
fn figure4_rows_have_six_series_per_trial_and_write_as_csv() {
    let mut params = figure4_params();
    params.cov.mean_task = 200.0;
    let rows = figure4_with(&params, 2, 5).unwrap();
    assert_eq!(rows.len(), 12);
    let stats = summarise_figure4(&rows);
    let names: Vec<&str> = stats.iter().map(|s| s.series.as_str()).collect();
    let mut want: Vec<&str> = Heuristic::ALL.iter().map(|h| h.name()).collect();
    want.push("Upper bound");
    assert_eq!(names, want);
    for t in 0..2 {
        let of = |s: &str| -> f64 {
            rows.iter()
                .find(|r: &&Fig4Row| r.trial == t && r.series == s)
                .unwrap()
                .robustness
        };
        for h in Heuristic::ALL {
            assert!(of(h.name()) <= of("Upper bound") + EPS);
        }
    }
    let mut buf = Vec::new();
    write_csv(&rows, &mut buf).unwrap();
    let text = String::from_utf8(buf).unwrap();
    assert!(text.starts_with("trial,series,robustness\n"), "{text}");
    assert_eq!(text.lines().count(), 13);
}

#[test]
fn figure5_summary_counts_every_trial() {
    let small = |n| {
        let mut p = figure5_params(n);
        p.cov.mean_task = 200.0;
        p
    };
    let trials = figure5_trials_with(small, 2, 5).unwrap();
    assert_eq!(trials.len(), 10);
    for t in &trials {
        assert!(t.b_norm >= -EPS && t.b_norm <= 1.0 + EPS, "{t:?}");
    }
    let rows = summarise_figure5(&trials);
    assert_eq!(
        rows.iter().map(|r| r.n_types).collect::<Vec<_>>(),
        [1, 2, 4, 8, 16]
    );
    assert!(rows.iter().all(|r| r.n == 2));
    let mut buf = Vec::new();
    write_csv(&rows, &mut buf).unwrap();
    assert!(
        String::from_utf8(buf)
            .unwrap()
            .starts_with("n_types,n,mean_b_norm,ci95")
    );
}

#[test]
fn generated_scenarios_follow_the_parameters() {
    let p = figure4_params();
    let inst = generate(&p, &mut stream(11, 0, 0, Purpose::Scenario)).unwrap();
    assert_eq!(
        (inst.n_apps(), inst.n_types(), inst.total_processors()),
        (32, 4, 256)
    );
    for a in inst.apps() {
        let d = a.downey;
        assert!((8.0..=128.0).contains(&d.average_parallelism()));
        assert!((0.0..=2.0).contains(&d.sigma()));
    }
    // Delta (eq. (4)) is the average of mu_{i,j,M}.
    let mut s = 0.0;
    for i in 0..32 {
        for j in 0..4 {
            s += inst.mean_execution_time(i, j, 8.0);
        }
    }
    assert!((inst.goal() - s / 128.0).abs() < 1e-9 * s);
    let mut bad = p;
    bad.downey.a_min = 0.5;
    assert!(generate(&bad, &mut stream(11, 0, 0, Purpose::Scenario)).is_err());
}
