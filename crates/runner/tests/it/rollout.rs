//! `[rollout]`: a policy-switching rollout decides as its heuristic when it has no other
//! policy, the same on any number of threads, picks the better of two policies, and refuses
//! what its futures cannot hold.

use runner::{ExperimentConfig, Prepared, TrialMetrics, TrialSource};

fn config(mapper: &str, extra: &str) -> Result<ExperimentConfig, runner::RunError> {
    let text = format!(
        "name = \"t\"\n[workload]\nrate = 34000\nseed = 7\ntasks = 300\ntrials = 3\n[system]\nqueue_size = 2\n[mapper]\nname = \"{mapper}\"\n{extra}"
    );
    ExperimentConfig::from_toml_str(&text, "inline.toml", None)
}

fn run(mapper: &str, extra: &str, jobs: usize) -> Vec<TrialMetrics> {
    let p = Prepared::new(
        config(mapper, extra).unwrap(),
        None,
        TrialSource::Generated,
        None,
        None,
    )
    .unwrap();
    crate::common::metrics_of(&p, jobs)
}

fn mean_on_time(m: &[TrialMetrics]) -> f64 {
    m.iter().map(|t| t.robustness).sum::<f64>() / m.len() as f64
}

#[test]
fn a_rollout_with_no_other_policy_is_its_heuristic_bit_for_bit() {
    for mapper in ["auto", "PAM", "MM"] {
        assert_eq!(
            run(mapper, "", 2),
            run(mapper, "[rollout]\npolicies = []\n", 2),
            "{mapper}"
        );
    }
}

#[test]
fn a_rollout_is_the_same_on_any_number_of_threads() {
    let r = "[rollout]\npolicies = [\"MM\", \"PAM\"]\nscenarios = 2\n";
    let one = run("auto", r, 1);
    assert_eq!(one, run("auto", r, 2));
    // And it decides: some event went another way than auto's.
    assert_ne!(one, run("auto", "", 1));
}

#[test]
fn a_rollout_over_a_poor_heuristic_and_a_good_one_does_about_as_well_as_the_good_one() {
    // Earliest deadline first ignores which machine is fast; minimum completion does not.
    let edf = mean_on_time(&run("EDF", "", 2));
    let mm = mean_on_time(&run("MM", "", 2));
    let both = mean_on_time(&run("EDF", "[rollout]\npolicies = [\"MM\"]\n", 2));
    assert!(mm > edf + 5.0, "the test needs a gap: EDF {edf}, MM {mm}");
    assert!(
        both > edf + 0.8 * (mm - edf),
        "EDF {edf}, MM {mm}, rollout {both}"
    );
}

#[test]
fn a_policy_is_a_name_or_a_table_as_the_mapper() {
    let c = config(
        "auto",
        "[rollout]\npolicies = [\"MM-P\", { name = \"auto\", depth = 4 }]\n",
    )
    .unwrap();
    let r = c.rollout.unwrap();
    assert_eq!(r.policies.len(), 2);
    assert!(matches!(&r.policies[1], runner::rollout::Policy::Table(h) if h.name == "auto"));
    // A parameter the heuristic does not take is refused as in [mapper].
    let e = config(
        "auto",
        "[rollout]\npolicies = [{ name = \"MM\", depth = 4 }]\n",
    )
    .unwrap_err()
    .to_string();
    assert!(e.contains("rollout.policies") && e.contains("depth"), "{e}");
}

#[test]
fn what_a_rollout_cannot_simulate_is_refused_naming_the_key() {
    let refused = |mapper: &str, extra: &str, key: &str| {
        let e = config(mapper, extra).unwrap_err().to_string();
        assert!(e.contains(key), "{e}");
    };
    refused("MCT", "[rollout]\n", "rollout: MCT maps immediately");
    refused(
        "auto",
        "[rollout]\npolicies = [\"MET\"]\n",
        "rollout.policies",
    );
    refused(
        "auto",
        "[rollout]\npolicies = [\"nope\"]\n",
        "rollout.policies",
    );
    refused("auto", "[rollout]\nscenarios = 0\n", "rollout.scenarios");
    refused("auto", "[rollout]\nhorizons = 2\n", "horizons");
    let early = "name = \"t\"\n[workload]\nrate = 34000\nseed = 7\n[system]\nearly_mapping = true\n[mapper]\nname = \"auto\"\n[rollout]\n";
    let e = ExperimentConfig::from_toml_str(early, "inline.toml", None)
        .unwrap_err()
        .to_string();
    assert!(e.contains("rollout: not with"), "{e}");
}

#[test]
fn a_heuristic_of_ones_own_under_a_rollout_is_refused() {
    let p = Prepared::new(
        config("auto", "[rollout]\n").unwrap(),
        None,
        TrialSource::Generated,
        Some(1),
        None,
    )
    .unwrap();
    let mine = || {
        heuristics::build(
            &heuristics::HeuristicConfig::named("MM"),
            pmf::DropModel::All,
        )
        .unwrap()
    };
    let policies = runner::Policies {
        heuristic: Some(&mine),
        pruner: None,
    };
    let e = p
        .run(runner::RunOptions::default().jobs(1).policies(policies))
        .unwrap_err()
        .to_string();
    assert!(e.contains("rollout: a heuristic of one's own"), "{e}");
}
