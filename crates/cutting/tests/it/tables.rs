//! Tables 4 and 5: transcription, the ratio estimator, CSV, and a small reproduction.

use cutting::tables::{RatioEstimate, ratio_of_means, render};
use cutting::{GaoTable, TableRun, paper_values, reproduce, write_csv};

#[test]
fn paper_values_are_complete_and_spot_checked() {
    for t in [GaoTable::Table4, GaoTable::Table5] {
        let v = paper_values(t);
        assert_eq!(v.len(), 14 * 6);
        assert!(v.iter().all(|x| (0.2..=1.0).contains(&x.value)));
    }
    let find = |t, d: &str, s: &str| {
        paper_values(t)
            .into_iter()
            .find(|v| v.distribution == d && v.strategy == s)
            .unwrap()
            .value
    };
    assert_eq!(
        find(GaoTable::Table4, "weibull(0.411,0.324)", "NeverInterrupt"),
        0.2296
    );
    assert_eq!(
        find(GaoTable::Table5, "lnorm(1,0.5)", "PerSurvival (10%)"),
        0.3620
    );
    // Section 7.2.4's claims on its own tables.
    let t5 = paper_values(GaoTable::Table5);
    assert!(
        t5.iter()
            .filter(|v| v.strategy.starts_with("Auto"))
            .all(|v| v.value >= 0.77)
    );
    assert!(
        t5.iter()
            .filter(|v| v.distribution == "lnorm(1,0.5)" && v.strategy.contains("10%"))
            .all(|v| v.value < 0.40)
    );
    assert!(
        paper_values(GaoTable::Table4)
            .iter()
            .filter(|v| v.strategy != "NeverInterrupt")
            .all(|v| v.value >= 0.91)
    );
}

#[test]
fn ratio_of_means_by_hand() {
    // s = (8, 10), o = (10, 10): R = 18 / 20 = 0.9; z = (-1, 1), var = 2, se = sqrt(2 / 2) / 10.
    let r = ratio_of_means(&[8, 10], &[10, 10]);
    assert!((r.ratio - 0.9).abs() < 1e-15);
    assert!((r.high - r.ratio - 1.96 * 0.1).abs() < 1e-12);
    assert!((r.ratio - r.low - 1.96 * 0.1).abs() < 1e-12);
    let same = ratio_of_means(&[5, 7], &[5, 7]);
    assert_eq!(
        same,
        RatioEstimate {
            ratio: 1.0,
            low: 1.0,
            high: 1.0
        }
    );
    assert!(ratio_of_means(&[], &[]).ratio.is_nan());
    assert!(ratio_of_means(&[1], &[0]).ratio.is_nan());
}

#[test]
fn a_small_table5_reproduces_the_papers_shape() {
    let rows = reproduce(GaoTable::Table5, 30, 11).unwrap();
    assert_eq!(rows.len(), 14 * 6);
    assert!(rows.iter().all(|r| r.paper.is_some() && r.n == 30));
    let get = |d: &str, s: &str| {
        rows.iter()
            .find(|r| r.distribution == d && r.strategy == s)
            .unwrap()
            .ratio
    };
    // Never interrupting is optimal for the uniform; the one-shot strategies cut far too early.
    assert_eq!(get("unif(0,2)", "NeverInterrupt"), 1.0);
    assert!(get("lnorm(1,0.5)", "Survival (10%)") < 0.5);
    assert!(get("weibull(0.411,0.324)", "NeverInterrupt") < 0.45);
    let mut csv = Vec::new();
    write_csv(&rows, &mut csv).unwrap();
    let text = String::from_utf8(csv).unwrap();
    assert!(text.starts_with(
        "distribution,strategy,ratio,ci95_low,ci95_high,n,mean_completed,oracle_mean_completed,oracle_threshold,paper\n"
    ));
    assert_eq!(text.lines().count(), 1 + rows.len());
    assert!(render(&rows).contains("weibull(0.411,0.324)"));
    // Same seed, same numbers.
    assert_eq!(rows, reproduce(GaoTable::Table5, 30, 11).unwrap());
}

#[test]
fn table_names_parse() {
    assert_eq!("gao-table4".parse::<GaoTable>().unwrap(), GaoTable::Table4);
    assert_eq!(
        "gao-table5".parse::<GaoTable>().unwrap().name(),
        "gao-table5"
    );
    assert!("table6".parse::<GaoTable>().is_err());
}

#[test]
fn rows_from_instances_run_in_any_order_equal_a_sequential_run() {
    let run = TableRun::as_run(GaoTable::Table5).unwrap();
    let n = run.distributions().len();
    // Instances in reverse order, collected by index.
    let mut completed = vec![Vec::new(); n];
    for d in (0..n).rev() {
        let mut by_instance: Vec<(u64, Vec<u64>)> = (0..8u64)
            .rev()
            .map(|i| (i, run.completed(d, 11, i).unwrap()))
            .collect();
        by_instance.sort_by_key(|(i, _)| *i);
        completed[d] = by_instance.into_iter().map(|(_, c)| c).collect();
    }
    assert_eq!(
        run.rows(&completed),
        reproduce(GaoTable::Table5, 8, 11).unwrap()
    );
    assert!(run.completed(n, 11, 0).is_err());
}
