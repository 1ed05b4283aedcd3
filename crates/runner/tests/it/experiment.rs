//! Experiments: determinism across thread counts, configuration errors.

use runner::{ExperimentConfig, Prepared, Summary, TrialSource};

fn small(name: &str) -> ExperimentConfig {
    let text = format!(
        "name = \"t\"\n[workload]\nrate = 34000\nseed = 7\ntasks = 300\ntrials = 4\n[mapper]\nname = \"{name}\"\n"
    );
    ExperimentConfig::from_toml_str(&text, "inline.toml", None).unwrap()
}

#[test]
fn results_are_identical_for_any_thread_count() {
    for h in ["PAM", "MM", "MOC"] {
        let p = Prepared::new(small(h), None, TrialSource::Generated, None, None).unwrap();
        let one = p.run(1, &|| {}).unwrap();
        let two = p.run(2, &|| {}).unwrap();
        let a = serde_json::to_string(&Summary::new(&p, &one)).unwrap();
        let b = serde_json::to_string(&Summary::new(&p, &two)).unwrap();
        assert_eq!(a, b, "{h}: summaries differ between 1 and 2 threads");
        assert_eq!(one, two);
    }
}

#[test]
fn trial_k_is_the_same_whatever_else_runs() {
    let p = Prepared::new(small("PAM"), None, TrialSource::Generated, None, None).unwrap();
    let all = p.run(2, &|| {}).unwrap();
    let (_, third) = p.run_trial(2).unwrap();
    assert_eq!(all[2], third);
}

#[test]
fn config_errors_name_the_file_and_line() {
    let bad = "[workload]\nrate = 34000\nseed = 1\n[mapper]\nname = \"MM\"\nbogus = 3\n";
    let e = ExperimentConfig::from_toml_str(bad, "exp.toml", None)
        .unwrap_err()
        .to_string();
    assert!(e.starts_with("exp.toml:"), "{e}");
    assert!(e.contains("bogus"), "{e}");
    let bad = "[workload]\nrate = 34000\nseed = 1\n[mapper]\nname = \"NOPE\"\n";
    let e = ExperimentConfig::from_toml_str(bad, "exp.toml", None)
        .unwrap_err()
        .to_string();
    assert!(e.contains("unknown heuristic"), "{e}");
    let bad =
        "[workload]\nrate = 34000\nseed = 1\n[mapper]\nname = \"PAM\"\n[pruner]\nlambda = 1.5\n";
    let e = ExperimentConfig::from_toml_str(bad, "exp.toml", None)
        .unwrap_err()
        .to_string();
    assert!(e.contains("lambda"), "{e}");
    let bad =
        "[workload]\nrate = 34000\nseed = 1\n[system]\nqueue_size = 0\n[mapper]\nname = \"PAM\"\n";
    let e = ExperimentConfig::from_toml_str(bad, "exp.toml", None)
        .unwrap_err()
        .to_string();
    assert!(e.contains("queue_size"), "{e}");
}

#[test]
fn the_default_experiment_validates_and_counts_600_tasks() {
    let mut cfg = ExperimentConfig::paper_default();
    cfg.validate().unwrap();
    cfg.workload.trials = 2;
    let p = Prepared::new(cfg, None, TrialSource::Generated, None, None).unwrap();
    let m = p.run(0, &|| {}).unwrap();
    assert_eq!(m.len(), 2);
    for t in &m {
        assert_eq!(t.counted, 600);
        assert_eq!(t.outcomes.iter().sum::<usize>(), 600);
        assert!(t.robustness > 0.0 && t.robustness < 100.0);
    }
}
