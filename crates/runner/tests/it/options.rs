//! Every option means what it says: one regression test per option that was once silently
//! ignored or changed other settings.

use runner::{ExperimentConfig, Prepared, Summary, TrialSource};

fn experiment(text: &str) -> ExperimentConfig {
    ExperimentConfig::from_toml_str(text, "inline.toml", None).unwrap()
}

fn summary(config: ExperimentConfig, trials: u64) -> Summary {
    let p = Prepared::new(config, None, TrialSource::Generated, Some(trials), None).unwrap();
    let t = crate::common::metrics_of(&p, 0);
    Summary::new(&p, &t)
}

#[test]
fn the_executing_task_runs_to_completion_unless_every_task_may_be_dropped() {
    // PAM at 34k with the paper's pruner: under `all` it drops executing tasks.
    let base = "[workload]\nrate = 34000\nseed = 2019\n[mapper]\nname = \"PAM\"\n";
    let all = summary(experiment(base), 3);
    assert!(all.metrics["n_pruned_executing"].mean > 0.0);
    for model in ["pending", "none"] {
        let text = format!("{base}[system]\ndrop_model = \"{model}\"\n");
        let s = summary(experiment(&text), 3);
        assert_eq!(s.metrics["n_pruned_executing"].mean, 0.0, "{model}");
        assert_eq!(s.metrics["n_expired_executing"].mean, 0.0, "{model}");
    }
}

#[test]
fn intervals_are_clamped_to_the_range_and_absent_for_one_value() {
    use runner::Estimate;
    // Mean 2, sample sd 3.46: the t interval is [-6.6, 10.6]; robustness cannot be negative.
    let e = Estimate::of_metric("robustness", &[0.0, 0.0, 6.0]);
    assert_eq!(e.ci95_low, Some(0.0));
    assert!(
        (e.ci95_high.unwrap() - (2.0 + 4.302_652_729_911_275 * 12f64.sqrt() / 3f64.sqrt())).abs()
            < 1e-9
    );
    let e = Estimate::of_metric("robustness", &[100.0, 100.0, 94.0]);
    assert_eq!(e.ci95_high, Some(100.0));
    let one = Estimate::of_metric("robustness", &[42.0]);
    assert_eq!(
        (one.mean, one.ci95_low, one.ci95_high, one.std_dev),
        (42.0, None, None, None)
    );
    // An unknown name is unbounded.
    assert!(
        Estimate::of_metric("no such", &[0.0, 0.0, 6.0])
            .ci95_low
            .unwrap()
            < 0.0
    );
}

#[test]
fn cost_counts_the_tasks_that_robustness_counts() {
    use model::Outcome;
    use runner::metrics::Pricing;
    use runner::{Counting, TaskRecord, TrialMetrics, TrialRecord};
    // Four tasks on machine 0 (price 3600 per hour of 3600 units: 1 per unit); the first and
    // the last are not counted. Busy time: 10, 20, 30, 40 units.
    let task = |start: i64, end: i64, outcome| TaskRecord {
        outcome,
        machine: Some(0),
        start: Some(start),
        end,
        deferrals: 0,
    };
    let record = TrialRecord {
        tasks: vec![
            task(0, 10, Outcome::OnTime),
            task(10, 30, Outcome::OnTime),
            task(30, 60, Outcome::PrunedExecuting),
            task(60, 100, Outcome::OnTime),
        ],
        busy: vec![100],
        wasted: vec![30],
        mapping_events: 4,
        engaged_events: 0,
        span: 100,
        pct_recomputations: 0,
    };
    let m = TrialMetrics::new(
        &record,
        &[0, 0, 0, 0],
        1,
        Counting {
            skip_first: 1,
            skip_last: 1,
        },
        &Pricing {
            per_hour: &[3600.0],
            hour: 3600.0,
        },
    );
    // The counted tasks 1 and 2 ran 20 + 30 units; robustness 50%.
    assert_eq!(m.cost, 50.0);
    assert_eq!(m.robustness, 50.0);
    assert_eq!(m.cost_per_robustness, 1.0);
    // Busy time stays the machines' total.
    assert_eq!(m.scalar("busy"), Some(100.0));
}

#[test]
fn zero_work_is_an_error() {
    let base = "[workload]\nrate = 34000\nseed = 1\ntasks = 200\n[mapper]\nname = \"MM\"\n";
    let cfg = experiment(base);
    let e = Prepared::new(cfg.clone(), None, TrialSource::Generated, Some(0), None).unwrap_err();
    assert!(e.to_string().contains("0 trials"), "{e}");
    // 100 + 100 of 200 tasks leaves none to count.
    let e = Prepared::new(cfg, None, TrialSource::Generated, Some(1), None).unwrap_err();
    assert!(e.to_string().contains("leaves none to count"), "{e}");
    let e = Prepared::new(
        experiment(base),
        None,
        TrialSource::Given(Vec::new()),
        None,
        None,
    )
    .unwrap_err();
    assert!(e.to_string().contains("no workload file"), "{e}");
}

#[test]
fn suffixes_that_mean_nothing_are_errors() {
    let base = "[workload]\nrate = 34000\nseed = 1\n";
    let bad = [
        (
            "MM-D",
            "[pruner]\ndrop_threshold = 0.5\n",
            "turns deferring off",
        ),
        (
            "MM-Drop",
            "[pruner]\ndefer_threshold = 0.5\n",
            "turns dropping off",
        ),
        ("PAMF-D", "", "apply to base heuristics"),
    ];
    for (name, table, says) in bad {
        let text = format!("{base}[mapper]\nname = \"{name}\"\n{table}");
        let e = ExperimentConfig::from_toml_str(&text, "x.toml", None).unwrap_err();
        assert!(e.to_string().contains(says), "{name}: {e}");
    }
    // A toggle sweep may set "never" with -Drop and -P: the baseline point of the sweep.
    let text = format!(
        "{base}[mapper]\nname = \"MM-P\"\n[pruner]\npreset = \"thesis\"\ntoggle = \"never\"\n"
    );
    let (h, p) = experiment(&text).resolved().unwrap();
    assert_eq!(
        (h.name.as_str(), p.toggle.level(), p.defer_threshold),
        ("MM", None, Some(0.75))
    );
}

#[test]
fn the_glossary_in_the_docs_is_the_one_the_program_prints() {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../docs/metrics.md");
    let docs = std::fs::read_to_string(path).unwrap();
    assert!(
        docs == runner::metrics::glossary_markdown(),
        "docs/metrics.md is out of date: regenerate it with `prunesim metrics --markdown > docs/metrics.md`"
    );
    // Every measure a trial has is documented.
    let base = "[workload]\nrate = 34000\nseed = 1\ntasks = 300\n[mapper]\nname = \"MM\"\n";
    let mut p = Prepared::new(
        experiment(base),
        None,
        TrialSource::Generated,
        Some(1),
        None,
    )
    .unwrap();
    p.with_bound = true;
    let (_, m) = p.run_trial(0).unwrap();
    for (name, _) in m.scalars() {
        assert!(
            runner::metric_doc(name).is_some(),
            "{name} has no entry in METRICS"
        );
    }
}
