//! Truth and belief: the oracle belief is today's simulator; fixed, learned and drifting
//! configurations run deterministically and change what they should.

use runner::{ExperimentConfig, Prepared, TrialMetrics, TrialSource};

fn run(extra: &str, mapper: &str) -> Vec<TrialMetrics> {
    let text = format!(
        "name = \"t\"\n[workload]\nrate = 34000\nseed = 7\ntasks = 400\ntrials = 3\n[mapper]\nname = \"{mapper}\"\n{extra}"
    );
    let config = ExperimentConfig::from_toml_str(&text, "inline.toml", None).unwrap();
    let p = Prepared::new(config, None, TrialSource::Generated, None, None).unwrap();
    crate::common::metrics_of(&p, 2)
}

#[test]
fn an_oracle_or_fixed_truth_belief_is_the_simulator_without_one() {
    for mapper in ["PAM", "MM", "MCT"] {
        let plain = run("", mapper);
        assert_eq!(
            plain,
            run("[belief]\nsource = \"oracle\"\n", mapper),
            "{mapper}"
        );
        assert_eq!(
            plain,
            run("[belief]\nsource = \"fixed\"\n", mapper),
            "{mapper}"
        );
        // A drift that changes nothing changes nothing.
        let still = "[[drift]]\nat_task = 200\nmachine = 5\nscale = 1.0\n";
        assert_eq!(plain, run(still, mapper), "{mapper}");
    }
}

#[test]
fn a_learned_belief_from_the_truth_runs_deterministically_and_learns() {
    let learned = "[belief]\nsource = \"learned\"\nprior = \"scaled\"\nscale = 0.5\n";
    let a = run(learned, "PAM");
    assert_eq!(a, run(learned, "PAM"), "the same seed, the same results");
    let fixed = run(
        "[belief]\nsource = \"fixed\"\nprior = \"scaled\"\nscale = 0.5\n",
        "PAM",
    );
    assert_ne!(a, fixed, "learning changes the belief");
    for m in &a {
        assert_eq!(m.outcomes.iter().sum::<usize>(), m.counted);
    }
}

#[test]
fn a_learned_flat_prior_never_stalls_pam() {
    // Under a flat prior every chance is below PAM's defer threshold: it defers every task.
    // Without exploration nothing runs and nothing is learned: 0% on time. By default an
    // idle machine tries a waiting task of a cell it has observed fewer than 10 times, so
    // tasks run and the belief learns; with optimism as well, explored cells are read
    // optimistically and every policy tries them.
    let flat = "[belief]\nsource = \"learned\"\nprior = \"flat\"\nprior_weight = 0.0\n";
    let stalled = run(&format!("{flat}explore = 0\n"), "PAM");
    assert!(stalled.iter().all(|m| m.robustness == 0.0), "the stall");
    let explored = run(flat, "PAM");
    assert_eq!(
        explored,
        run(&format!("{flat}explore = 10\n"), "PAM"),
        "the default"
    );
    let optimistic = run(&format!("{flat}optimism = true\n"), "PAM");
    for m in explored.iter().chain(&optimistic) {
        assert!(m.robustness > 5.0, "{}", m.robustness);
        assert_eq!(m.outcomes.iter().sum::<usize>(), m.counted);
    }
    assert_ne!(explored, optimistic, "optimism changes what is tried");
}

#[test]
fn the_prior_check_never_stalls_a_flat_prior_and_keeps_the_truth() {
    // With the prior check a flat prior still runs (exploration) and its cells learn from
    // their own observations once they reject it; a prior the observations agree with
    // (the truth, on this short trial) is kept as it is.
    let flat = "[belief]\nsource = \"learned\"\nprior = \"flat\"\nprior_weight = 0.0\n";
    let checked = run(&format!("{flat}prior_check = true\n"), "PAM");
    assert_eq!(
        checked,
        run(&format!("{flat}prior_check = true\n"), "PAM"),
        "deterministic"
    );
    for m in &checked {
        assert!(m.robustness > 5.0, "{}", m.robustness);
        assert_eq!(m.outcomes.iter().sum::<usize>(), m.counted);
    }
    assert_ne!(checked, run(flat, "PAM"), "the flat tail is rejected");
    let truth = run(
        "[belief]\nsource = \"learned\"\nprior_check = true\n",
        "PAM",
    );
    let mean = |v: &[TrialMetrics]| v.iter().map(|m| m.robustness).sum::<f64>() / v.len() as f64;
    let oracle = run("", "PAM");
    assert!(
        mean(&truth) > mean(&oracle) - 3.0,
        "{} vs {}",
        mean(&truth),
        mean(&oracle)
    );
}

#[test]
fn exploring_leaves_a_belief_from_the_truth_close_to_the_oracle() {
    // A belief that starts at the truth explores only where an idle machine meets a
    // waiting task of an under-observed cell: it costs little against the oracle, and
    // switching it off or on changes nothing else (outcomes are counted once either way).
    let learned = "[belief]\nsource = \"learned\"\n";
    let oracle = run("", "PAM");
    let explored = run(learned, "PAM");
    let mean = |v: &[TrialMetrics]| v.iter().map(|m| m.robustness).sum::<f64>() / v.len() as f64;
    assert!(
        mean(&explored) > mean(&oracle) - 3.0,
        "{} vs {}",
        mean(&explored),
        mean(&oracle)
    );
    for m in &explored {
        assert_eq!(m.outcomes.iter().sum::<usize>(), m.counted);
    }
}

#[test]
fn a_drift_changes_the_truth_from_its_task_on() {
    let plain = run("[system]\nwindows = 2\n", "PAM");
    let slow = run(
        "[system]\nwindows = 2\n[[drift]]\nat_task = 200\nmachine = 5\nscale = 3.0\n",
        "PAM",
    );
    for (p, s) in plain.iter().zip(&slow) {
        assert_eq!(p.windows.len(), 2);
        assert_ne!(
            p.windows[1], s.windows[1],
            "the second half runs on another truth"
        );
    }
}

#[test]
fn window_measures_split_the_trial_into_equal_parts() {
    let m = run(
        "[system]\nwindows = 4\nskip_first = 0\nskip_last = 0\n",
        "PAM",
    );
    for t in &m {
        assert_eq!(t.windows.len(), 4);
        let mean = t.windows.iter().sum::<f64>() / 4.0;
        // 400 tasks in 4 parts of 100: their mean is the robustness over all of them.
        assert!(
            (mean - t.robustness).abs() < 1e-9,
            "{mean} vs {}",
            t.robustness
        );
        assert_eq!(t.scalar("window_04"), Some(t.windows[3]));
        assert_eq!(t.scalar("window_05"), None);
    }
}

#[test]
fn belief_and_drift_errors_name_the_key() {
    for (extra, key) in [
        (
            "[belief]\nsource = \"oracle\"\nscale = 2.0\n",
            "belief.scale",
        ),
        ("[belief]\nsoruce = \"learned\"\n", "soruce"),
        (
            "[belief]\nsource = \"fixed\"\nprior_check = true\n",
            "belief.prior_check",
        ),
        ("[[drift]]\nat = 5.0\nmachine = 3\n", "drift[0]"),
        ("[system]\nwindows = 11\n", "system.windows"),
    ] {
        let text = format!("[workload]\nrate = 34000\nseed = 1\n[mapper]\nname = \"PAM\"\n{extra}");
        let e = ExperimentConfig::from_toml_str(&text, "x.toml", None)
            .unwrap_err()
            .to_string();
        assert!(e.contains(key), "{extra}: {e}");
    }
    let text = "[workload]\nrate = 34000\nseed = 1\n[mapper]\nname = \"PAM\"\n[[drift]]\nat = 5.0\nmachine = 9\nscale = 2.0\n";
    let config = ExperimentConfig::from_toml_str(text, "x.toml", None).unwrap();
    let e = Prepared::new(config, None, TrialSource::Generated, Some(1), None).unwrap_err();
    assert!(e.to_string().contains("drift[0].machine"), "{e}");
}

/// What a belief or a drift would build is bounded before it is built (an allocation abort
/// killed the process, and the Python interpreter with it): a `samples` prior of 10^9 draws
/// per cell, twenty drifts doubling every time (each within the limit, their product not).
#[test]
fn beliefs_and_drifts_too_large_to_build_are_errors() {
    let base = "[workload]\nrate = 34000\nseed = 1\ntasks = 250\n[mapper]\nname = \"PAM\"\n";
    let text =
        format!("{base}[belief]\nsource = \"fixed\"\nprior = \"samples\"\nsamples = 1000000000\n");
    let e = ExperimentConfig::from_toml_str(&text, "x.toml", None)
        .unwrap_err()
        .to_string();
    assert!(e.contains("belief.samples"), "{e}");
    let drifts: String = (0..20)
        .map(|i| format!("[[drift]]\nat_task = {i}\nscale = 2.0\n"))
        .collect();
    let config = ExperimentConfig::from_toml_str(&format!("{base}{drifts}"), "x.toml", None)
        .expect("each entry is valid");
    let e = Prepared::new(config, None, TrialSource::Generated, Some(1), None).unwrap_err();
    assert!(
        e.to_string()
            .contains("drift: the PETs of the drift schedule"),
        "{e}"
    );
    // A few doublings are fine.
    let drifts: String = (0..3)
        .map(|i| format!("[[drift]]\nat_task = {i}\nscale = 2.0\n"))
        .collect();
    let config =
        ExperimentConfig::from_toml_str(&format!("{base}{drifts}"), "x.toml", None).unwrap();
    let p = Prepared::new(config, None, TrialSource::Generated, Some(1), None).unwrap();
    p.run_trial(0).unwrap();
}
