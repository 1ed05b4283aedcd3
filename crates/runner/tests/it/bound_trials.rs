//! Simulated trials as the figures run them: on the default PET at several rates, the
//! bracket never crosses, its schedule is feasible, and PAM (the paper's headline setting, on
//! the same trial and luck) stays at or below the upper side. (Here rather than in `bound`,
//! which does not depend on the runner; its schedules are checked by `bound::check_schedule`,
//! which `bound`'s own tests check against an independent checker.)

use bound::{BracketOptions, bracket, check_schedule, instance_from};
use runner::{ExperimentConfig, Prepared, TrialSource};

#[test]
fn brackets_of_simulated_trials_hold() {
    for rate in [9_000.0, 19_000.0, 34_000.0] {
        let mut config = ExperimentConfig::paper_default();
        config.workload.rate = Some(rate);
        let p = Prepared::new(config, None, TrialSource::Generated, Some(1), None).unwrap();
        let tasks = p.trial_tasks(0);
        let luck = p.trial_luck(0, tasks.len());
        let counted = p.config.system.counting().range(tasks.len());
        let inst = instance_from(&p.pet, &tasks, &luck, counted).unwrap();
        let b = bracket(&inst, &BracketOptions::default()).unwrap();
        assert!(b.lower_on_time <= b.upper_on_time, "{rate}: {b:?}");
        assert_eq!(
            check_schedule(&inst, &b.lower.schedule).ok(),
            Some(b.lower_on_time)
        );
        let (_, metrics) = p.run_trial(0).unwrap();
        assert!(
            metrics.on_time <= b.upper_on_time,
            "{rate}: PAM {} above {}",
            metrics.on_time,
            b.upper_on_time
        );
        // The clairvoyant schedule is far ahead of PAM here (docs/bound.md).
        assert!(
            b.lower_on_time >= metrics.on_time,
            "{rate}: PAM {} above the schedule {}",
            metrics.on_time,
            b.lower_on_time
        );
    }
}
