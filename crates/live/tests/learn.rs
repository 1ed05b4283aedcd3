//! Learning the PET online through the live API: completions are exact observations,
//! executions a drop cut short are right-censored at the time they ran, tasks dropped before
//! they started are not observed, and the PET decided on takes the estimate at the cadence.

use live::{Action, LearnConfig, LearnOptions, Scheduler, SchedulerConfig};
use ndarray::Array2;
use pmf::Pmf;
use workload::Pet;

/// One task type on one machine: 2 or 20 ticks (1 s each), half and half.
fn pet() -> Pet {
    Pet::new(
        Array2::from_elem((1, 1), Pmf::new(2, two_or_twenty()).unwrap()),
        vec!["a".into()],
        vec!["x".into()],
    )
    .unwrap()
}

fn two_or_twenty() -> Vec<f64> {
    let mut w = vec![0.0; 19];
    w[0] = 0.5;
    w[18] = 0.5;
    w
}

/// No deferring (every task starts when its machine is free), queues of 2, learning with
/// the prior weighing as one observation.
fn scheduler(refresh_every: usize) -> Scheduler {
    let config = SchedulerConfig {
        pruner: live::PrunerConfig {
            defer_threshold: None,
            ..live::PrunerConfig::default()
        },
        queue_size: 2,
        ..SchedulerConfig::default()
    };
    let mut s = Scheduler::new(pet(), config).unwrap();
    let options = LearnOptions {
        prior_weight: 1.0,
        ..LearnOptions::default()
    };
    s.learn_online(LearnConfig {
        options,
        refresh_every,
        ..LearnConfig::default()
    })
    .unwrap();
    s
}

/// Submits a task of type 0 at time 0 (deadline `deadline`), starts it where the scheduler
/// places it, completes it at `end` and lets the scheduler see it; returns its machine.
fn run_one(s: &mut Scheduler, deadline: f64, end: f64) -> usize {
    let t = s.submit(0.0, 0, deadline).unwrap();
    let m = s
        .decide(0.0)
        .unwrap()
        .iter()
        .find_map(|a| match *a {
            Action::Start { task, machine } if task == t => Some(machine),
            _ => None,
        })
        .unwrap();
    s.started(t, 0.0).unwrap();
    s.completed(t, end).unwrap();
    s.decide(end).unwrap();
    m
}

fn started(actions: &[Action]) -> Vec<usize> {
    actions
        .iter()
        .filter_map(|a| match *a {
            Action::Start { task, .. } => Some(task),
            _ => None,
        })
        .collect()
}

#[test]
fn a_completion_is_an_exact_observation_and_reaches_the_pet() {
    let mut s = scheduler(1);
    let t = s.submit(0.0, 0, 100.0).unwrap();
    assert_eq!(started(&s.decide(0.0).unwrap()), vec![t]);
    s.started(t, 0.0).unwrap();
    s.completed(t, 2.0).unwrap();
    s.decide(2.0).unwrap();
    let est = s.estimator().unwrap();
    assert_eq!(est.observations(0, 0), 1);
    // Kaplan-Meier: all at 2; blended 1:1 with the prior: 0.75 at 2, 0.25 at 20.
    let p = est.pmf(0, 0);
    assert!((p.mass_at(2) - 0.75).abs() < 1e-12);
    assert!((p.mass_at(20) - 0.25).abs() < 1e-12);
    assert_eq!(s.pet().pmf(0, 0), p);
}

#[test]
fn an_executing_task_killed_at_its_deadline_is_censored_and_a_pending_drop_is_not_seen() {
    let mut s = scheduler(1);
    // Due at 6 s: it starts at 0 and is still executing at 6 s, when it is dropped.
    let a = s.submit(0.0, 0, 6.0).unwrap();
    // Behind it, due at 3 s: it expires while pending (never observed).
    let b = s.submit(0.0, 0, 3.0).unwrap();
    assert_eq!(started(&s.decide(0.0).unwrap()), vec![a]);
    s.started(a, 0.0).unwrap();
    let actions = s.decide(6.0).unwrap();
    for t in [a, b] {
        assert!(
            actions
                .iter()
                .any(|x| matches!(*x, Action::Drop { task, .. } if task == t)),
            "{t} dropped: {actions:?}"
        );
    }
    let est = s.estimator().unwrap();
    assert_eq!(est.observations(0, 0), 1);
    // Censored at 6: all mass lies beyond 6, on the prior after 6 (tick 20); blended 1:1
    // with the prior: 0.25 at 2, 0.75 at 20, nothing at 6 (an exact observation would put
    // mass there).
    let p = est.pmf(0, 0);
    assert_eq!(p.mass_at(6), 0.0);
    assert!((p.mass_at(2) - 0.25).abs() < 1e-12);
    assert!((p.mass_at(20) - 0.75).abs() < 1e-12);
    assert_eq!(s.pet().pmf(0, 0), p);
}

#[test]
fn the_pet_changes_after_the_cadence() {
    let mut s = scheduler(2);
    let prior = s.pet().pmf(0, 0).clone();
    let mut now = 0.0;
    for k in 0..2 {
        let t = s.submit(now, 0, now + 100.0).unwrap();
        assert_eq!(started(&s.decide(now).unwrap()), vec![t]);
        s.started(t, now).unwrap();
        now += 2.0;
        s.completed(t, now).unwrap();
        s.decide(now).unwrap();
        let est = s.estimator().unwrap();
        assert_eq!(est.observations(0, 0), k + 1);
        assert_ne!(est.pmf(0, 0), &prior);
        if k == 0 {
            // One observation of two: the PET decided on is still the prior.
            assert_eq!(s.pet().pmf(0, 0), &prior);
        } else {
            assert_eq!(s.pet().pmf(0, 0), est.pmf(0, 0));
        }
    }
}

#[test]
fn learning_keeps_the_samples_recorded_and_rejects_a_zero_cadence() {
    let mut s = scheduler(1);
    s.record_samples(true);
    let t = s.submit(0.0, 0, 100.0).unwrap();
    s.decide(0.0).unwrap();
    s.started(t, 0.0).unwrap();
    s.completed(t, 2.0).unwrap();
    s.decide(2.0).unwrap();
    assert_eq!(s.drain_samples().len(), 1);
    assert!(
        s.learn_online(LearnConfig {
            refresh_every: 0,
            ..LearnConfig::default()
        })
        .is_err()
    );
    s.stop_learning();
    assert!(s.estimator().is_none());
}

#[test]
fn a_machine_factor_that_moves_refreshes_every_cell_of_the_machine_in_the_pet() {
    // Two task types on one machine: 10 and 4 ticks. Only type 0 runs, each time 2x slower.
    let pet = Pet::new(
        Array2::from_shape_vec((2, 1), vec![Pmf::point(10), Pmf::point(4)]).unwrap(),
        vec!["a".into(), "b".into()],
        vec!["x".into()],
    )
    .unwrap();
    let config = SchedulerConfig {
        pruner: live::PrunerConfig {
            defer_threshold: None,
            ..live::PrunerConfig::default()
        },
        ..SchedulerConfig::default()
    };
    let mut s = Scheduler::new(pet, config).unwrap();
    let options = LearnOptions {
        prior_weight: 1.0,
        machine_scale: true,
        ..LearnOptions::default()
    };
    s.learn_online(LearnConfig {
        options,
        refresh_every: 1,
        ..LearnConfig::default()
    })
    .unwrap();
    let mut now = 0.0;
    for _ in 0..12 {
        let t = s.submit(now, 0, now + 1_000.0).unwrap();
        assert_eq!(started(&s.decide(now).unwrap()), vec![t]);
        s.started(t, now).unwrap();
        now += 20.0;
        s.completed(t, now).unwrap();
        s.decide(now).unwrap();
    }
    let est = s.estimator().unwrap();
    assert!((est.scale(0) - 2.0).abs() < 1e-9, "factor {}", est.scale(0));
    // Type 1 never ran, yet its cell follows the machine's factor, in the PET decided on too.
    assert_eq!(est.observations(1, 0), 0);
    assert!((est.pmf(1, 0).mean() - 8.0).abs() < 1e-9);
    assert_eq!(s.pet().pmf(1, 0), est.pmf(1, 0));
}

/// PAM with the paper's pruner on two task types and one machine, every execution 20 ticks:
/// a task whose deadline is nearer than 20 ticks has no chance and is deferred.
fn two_types_always_deferred(explore: usize) -> Scheduler {
    let pet = Pet::new(
        Array2::from_elem((2, 1), Pmf::point(20)),
        vec!["a".into(), "b".into()],
        vec!["x".into()],
    )
    .unwrap();
    let mut s = Scheduler::new(pet, SchedulerConfig::default()).unwrap();
    let options = LearnOptions {
        explore,
        ..LearnOptions::default()
    };
    s.learn_online(LearnConfig {
        options,
        refresh_every: 1,
        ..LearnConfig::default()
    })
    .unwrap();
    s
}

#[test]
fn an_idle_machine_explores_the_least_observed_cell_then_the_latest_deadline() {
    let mut s = two_types_always_deferred(2);
    let a10 = s.submit(0.0, 0, 10.0).unwrap();
    let b15 = s.submit(0.0, 1, 15.0).unwrap();
    let a12 = s.submit(0.0, 0, 12.0).unwrap();
    // Every cell unobserved: the latest deadline.
    assert_eq!(started(&s.decide(0.0).unwrap()), vec![b15]);
    s.started(b15, 0.0).unwrap();
    s.completed(b15, 1.0).unwrap();
    // Cell b holds one observation, a none: a's latest deadline, though b's cell is still
    // explored.
    let b14 = s.submit(1.0, 1, 14.0).unwrap();
    assert_eq!(started(&s.decide(1.0).unwrap()), vec![a12]);
    s.started(a12, 1.0).unwrap();
    s.completed(a12, 2.0).unwrap();
    // Both hold one: the latest deadline again.
    assert_eq!(started(&s.decide(2.0).unwrap()), vec![b14]);
    s.started(b14, 2.0).unwrap();
    s.completed(b14, 3.0).unwrap();
    // b holds 2 = explore: no longer explored; a holds 1.
    let b16 = s.submit(3.0, 1, 16.0).unwrap();
    let _ = b16;
    assert_eq!(started(&s.decide(3.0).unwrap()), vec![a10]);
}

#[test]
fn without_exploration_a_deferred_task_waits_for_its_deadline() {
    let mut s = two_types_always_deferred(0);
    s.submit(0.0, 0, 10.0).unwrap();
    s.submit(0.0, 1, 15.0).unwrap();
    assert!(started(&s.decide(0.0).unwrap()).is_empty());
    assert!(started(&s.decide(5.0).unwrap()).is_empty());
}

#[test]
fn a_completion_on_one_copy_reaches_every_copy() {
    // Two copies of one machine type and one other machine, too slow for the task's
    // deadline: the task runs on a copy, and the copies learn as one.
    let other = Pmf::point(50);
    let pmfs = Array2::from_shape_fn((1, 3), |(_, m)| {
        if m == 1 {
            other.clone()
        } else {
            Pmf::new(2, two_or_twenty()).unwrap()
        }
    });
    let pet = Pet::new(
        pmfs,
        vec!["a".into()],
        vec!["x.1".into(), "y".into(), "x.2".into()],
    )
    .unwrap();
    let config = SchedulerConfig {
        pruner: live::PrunerConfig {
            defer_threshold: None,
            ..live::PrunerConfig::default()
        },
        ..SchedulerConfig::default()
    };
    let mut s = Scheduler::new(pet, config).unwrap();
    s.learn_online(LearnConfig {
        options: LearnOptions {
            prior_weight: 1.0,
            ..LearnOptions::default()
        },
        refresh_every: 1,
        ..LearnConfig::default()
    })
    .unwrap();
    assert_eq!(s.estimator().unwrap().copies(2), &[0, 2]);
    let m = run_one(&mut s, 30.0, 2.0);
    assert_ne!(m, 1, "a copy");
    let est = s.estimator().unwrap();
    // Kaplan-Meier all at 2, blended 1:1 with the prior: 0.75 at 2, on both copies.
    for c in [0, 2] {
        assert_eq!(est.observations(0, c), 1);
        assert!(
            (s.pet().pmf(0, c).mass_at(2) - 0.75).abs() < 1e-12,
            "copy {c}"
        );
    }
    assert_eq!(est.observations(0, 1), 0);
    assert_eq!(s.pet().pmf(0, 1), &other);
}

#[test]
fn the_prior_check_reaches_the_live_scheduler() {
    // The prior says 2 or 20 ticks; every task takes 5. After ten completions the
    // Kaplan-Meier CDF (0 until 5) departs from the prior's (1/2 from 2 to 19) by 1/2, more
    // than the band of ten observations (0.43): the cell learns from them alone, and the
    // PET the policies read is 5 ticks exactly.
    let mut s = Scheduler::new(pet(), SchedulerConfig::default()).unwrap();
    s.learn_online(LearnConfig {
        options: LearnOptions {
            prior_weight: 1.0,
            prior_check: true,
            ..LearnOptions::default()
        },
        refresh_every: 1,
        ..LearnConfig::default()
    })
    .unwrap();
    let mut now = 0.0;
    for _ in 0..10 {
        let t = s.submit(now, 0, now + 100.0).unwrap();
        assert_eq!(started(&s.decide(now).unwrap()), vec![t]);
        s.started(t, now).unwrap();
        now += 5.0;
        s.completed(t, now).unwrap();
    }
    s.decide(now).unwrap();
    let est = s.estimator().unwrap();
    assert!(est.rejects_prior(0, 0));
    assert_eq!(est.pmf(0, 0), &Pmf::point(5));
    assert_eq!(s.pet().pmf(0, 0), &Pmf::point(5));
}

#[test]
fn a_scheduler_given_no_times_tries_every_machine_and_learns_from_its_observations() {
    // Two machines of one kind and a third of another; the PET's times are forgotten.
    let cell = || Pmf::new(2, two_or_twenty()).unwrap();
    let pet = Pet::new(
        Array2::from_shape_fn((1, 3), |(_, m)| if m == 2 { Pmf::point(7) } else { cell() }),
        vec!["a".into()],
        vec!["x".into(), "y".into(), "z".into()],
    )
    .unwrap();
    let mut s = Scheduler::new(pet.clone(), SchedulerConfig::default()).unwrap();
    s.learn_online(LearnConfig::from_nothing()).unwrap();
    // Every cell one tick until observed; the copies the PET's columns say learn as one.
    for m in 0..3 {
        assert_eq!(s.pet().pmf(0, m), &Pmf::point(1));
    }
    assert_eq!(s.estimator().unwrap().copies(1), &[0, 1]);
    let m = run_one(&mut s, 100.0, 4.0);
    // Its observation alone, on the machine and its copies.
    for c in s.estimator().unwrap().copies(m).to_vec() {
        assert_eq!(s.pet().pmf(0, c), &Pmf::point(4));
    }
    // Labels given say otherwise: every machine its own kind.
    let mut s = Scheduler::new(pet, SchedulerConfig::default()).unwrap();
    s.learn_online(LearnConfig {
        machine_types: Some(vec![0, 1, 2]),
        ..LearnConfig::from_nothing()
    })
    .unwrap();
    assert_eq!(s.estimator().unwrap().copies(1), &[1]);
    let e = s
        .learn_online(LearnConfig {
            machine_types: Some(vec![0, 1]),
            ..LearnConfig::from_nothing()
        })
        .unwrap_err();
    assert!(e.to_string().contains("machine_types"), "{e}");
}
