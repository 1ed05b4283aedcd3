//! Fairness across task types: the PAMF-R variant, the fairness keys of a `[pruner]` table,
//! and the worst type's on-time rate.

use pruner::{FairnessMode, PrunerConfig, ReliefScope};
use runner::{ExperimentConfig, Prepared, Summary, TrialSource};

const BASE: &str = "[workload]\nrate = 34000\nseed = 2019\n";

fn resolved(mapper: &str, pruner: &str) -> Result<PrunerConfig, String> {
    let text = format!("{BASE}[mapper]\nname = \"{mapper}\"\n{pruner}");
    let cfg =
        ExperimentConfig::from_toml_str(&text, "inline.toml", None).map_err(|e| e.to_string())?;
    let (h, p) = cfg.resolved()?;
    assert_eq!(h.name, "PAM");
    Ok(p)
}

#[test]
fn pamf_is_the_papers_and_pamf_r_the_relative_mode() {
    let paper = PrunerConfig::default();
    assert_eq!(
        resolved("PAMF", "").unwrap(),
        PrunerConfig {
            fairness: 0.05,
            ..paper.clone()
        }
    );
    let r = resolved("PAMF-R", "").unwrap();
    assert_eq!(
        r,
        PrunerConfig {
            fairness: 0.03,
            fairness_mode: FairnessMode::Relative,
            fairness_relief: ReliefScope::Defer,
            ..paper
        }
    );
    // The table's keys win over the name's defaults, and may start from nothing.
    let r = resolved(
        "PAMF-R",
        "[pruner]\npreset = \"paper\"\nfairness = 0.05\nfairness_relief = \"both\"\nfairness_cap = 0.3\n",
    )
    .unwrap();
    assert_eq!(
        (r.fairness, r.fairness_relief, r.fairness_cap),
        (0.05, ReliefScope::Both, 0.3)
    );
    // PAMF takes any mode from the table; PAMF-R is the relative one.
    let r = resolved(
        "PAMF",
        "[pruner]\npreset = \"paper\"\nfairness_mode = \"lagging\"\n",
    )
    .unwrap();
    assert_eq!((r.fairness, r.fairness_mode), (0.05, FairnessMode::Lagging));
    let e = resolved(
        "PAMF-R",
        "[pruner]\npreset = \"paper\"\nfairness_mode = \"literal\"\n",
    )
    .unwrap_err();
    assert!(e.contains("is fairness_mode = \"relative\""), "{e}");
    // A fairness key without fairness, and a suffix on the variant, mean nothing.
    let e = resolved("PAM", "[pruner]\npreset = \"paper\"\nfairness_cap = 0.3\n").unwrap_err();
    assert!(e.contains("'fairness_cap' has no effect"), "{e}");
    let e = resolved("PAMF-R-D", "").unwrap_err();
    assert!(e.contains("apply to base heuristics"), "{e}");
}

#[test]
fn the_worst_type_is_the_lowest_on_time_rate_of_a_type_with_counted_tasks() {
    use model::Outcome;
    use runner::metrics::Pricing;
    use runner::{Counting, TaskRecord, TrialMetrics, TrialRecord};
    let task = |outcome| TaskRecord {
        outcome,
        machine: None,
        start: None,
        end: 0,
        deferrals: 0,
    };
    // Type 0: 1 of 2 on time; type 1: 2 of 2; type 2: none counted.
    let record = TrialRecord {
        tasks: vec![
            task(Outcome::OnTime),
            task(Outcome::Unmapped),
            task(Outcome::OnTime),
            task(Outcome::OnTime),
        ],
        busy: vec![0],
        wasted: vec![0],
        mapping_events: 0,
        engaged_events: 0,
        span: 0,
        pct_recomputations: 0,
    };
    let m = TrialMetrics::new(
        &record,
        &[0, 0, 1, 1],
        3,
        Counting {
            skip_first: 0,
            skip_last: 0,
        },
        &Pricing {
            per_hour: &[0.0],
            hour: 3600.0,
        },
    );
    assert_eq!(m.worst_type_on_time, 50.0);
    assert_eq!(m.scalar("worst_type_on_time"), Some(50.0));
    // Fractions 0.5 and 1: variance 0.0625, times 100.
    assert_eq!(m.type_variance, 6.25);
}

#[test]
fn pamf_r_keeps_most_of_pams_robustness_and_most_of_pamfs_fairness() {
    // 34k on the default PET, 6 trials (deterministic): the literal PAMF gives up a third of
    // PAM's robustness; PAMF-R keeps at least 85% of it with a variance across types below
    // 60% of PAM's.
    let run = |name: &str| {
        let text = format!("{BASE}[mapper]\nname = \"{name}\"\n");
        let cfg = ExperimentConfig::from_toml_str(&text, "inline.toml", None).unwrap();
        let p = Prepared::new(cfg, None, TrialSource::Generated, Some(6), None).unwrap();
        let s = Summary::new(&p, &crate::common::metrics_of(&p, 0));
        (
            s.metrics["robustness"].mean,
            s.metrics["type_variance"].mean,
            s.metrics["worst_type_on_time"].mean,
        )
    };
    let (pam, pamf, pamf_r) = (run("PAM"), run("PAMF"), run("PAMF-R"));
    assert!(pamf.0 < 0.8 * pam.0, "PAMF {pamf:?}, PAM {pam:?}");
    assert!(pamf_r.0 >= 0.85 * pam.0, "PAMF-R {pamf_r:?}, PAM {pam:?}");
    assert!(pamf_r.1 <= 0.6 * pam.1, "PAMF-R {pamf_r:?}, PAM {pam:?}");
    assert!(pamf_r.2 > pam.2, "PAMF-R {pamf_r:?}, PAM {pam:?}");
}
