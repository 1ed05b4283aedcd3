//! The live API's contract: misuse is a typed error, never a panic; every task ends once.

use live::{Action, Fate, LiveError, Outcome, Scheduler, SchedulerConfig};
use ndarray::Array2;
use pmf::{DropModel, Pmf};
use proptest::prelude::*;
use workload::Pet;

/// Two task types on two machines: type 0 takes 2 ticks anywhere, type 1 takes 4 or 6
/// ticks with equal chance.
fn pet() -> Pet {
    let pmfs = Array2::from_shape_fn((2, 2), |(t, _)| {
        if t == 0 {
            Pmf::point(2)
        } else {
            Pmf::new(4, vec![0.5, 0.0, 0.5]).unwrap()
        }
    });
    Pet::new(
        pmfs,
        vec!["a".into(), "b".into()],
        vec!["x".into(), "y".into()],
    )
    .unwrap()
}

fn scheduler(h: &str) -> Scheduler {
    let config = SchedulerConfig {
        heuristic: live::HeuristicConfig::named(h),
        queue_size: 2,
        ..SchedulerConfig::default()
    };
    Scheduler::new(pet(), config).unwrap()
}

fn starts(actions: &[Action]) -> Vec<(usize, usize)> {
    actions
        .iter()
        .filter_map(|a| match *a {
            Action::Start { task, machine } => Some((task, machine)),
            _ => None,
        })
        .collect()
}

#[test]
fn a_task_is_assigned_started_and_completed_on_time() {
    let mut s = scheduler("MM");
    let t = s.submit(0.0, 0, 10.0).unwrap();
    let actions = s.decide(0.0).unwrap();
    assert_eq!(
        actions,
        vec![
            Action::Assign {
                task: t,
                machine: 0
            },
            Action::Start {
                task: t,
                machine: 0
            }
        ]
    );
    s.started(t, 0.0).unwrap();
    assert_eq!(s.fate(t), Ok(Fate::Open));
    s.completed(t, 2.0).unwrap();
    assert_eq!(s.fate(t), Ok(Fate::Reported));
    assert_eq!(s.decide(2.0).unwrap(), vec![]);
    assert_eq!(s.fate(t), Ok(Fate::Ended(Outcome::OnTime)));
    let r = s.record(t).unwrap();
    assert_eq!((r.machine, r.start, r.end), (Some(0), Some(0), 2));
}

#[test]
fn a_completion_at_the_deadline_is_not_on_time() {
    let mut s = scheduler("MM");
    let t = s.submit(0.0, 0, 2.5).unwrap();
    s.decide(0.0).unwrap();
    // 2.5 s is tick 2 and the deadline's tick is 3, but the wall clock decides.
    s.completed(t, 2.5).unwrap();
    s.decide(2.5).unwrap();
    assert_eq!(s.fate(t), Ok(Fate::Ended(Outcome::ExpiredExecuting)));
}

#[test]
fn an_executing_task_past_its_deadline_is_dropped_at_the_wakeup() {
    // Its chance is 1/2: without deferring it is mapped and started.
    let config = SchedulerConfig {
        heuristic: live::HeuristicConfig::named("MM"),
        pruner: live::PrunerConfig {
            defer_threshold: None,
            ..live::PrunerConfig::default()
        },
        ..SchedulerConfig::default()
    };
    let mut s = Scheduler::new(pet(), config).unwrap();
    let t = s.submit(0.0, 1, 5.0).unwrap();
    s.decide(0.0).unwrap();
    assert_eq!(s.next_wakeup(), Some(5.0));
    assert_eq!(
        s.decide(5.0).unwrap(),
        vec![Action::Drop {
            task: t,
            machine: Some(0),
            executing: true,
            reason: Outcome::ExpiredExecuting
        }]
    );
    assert_eq!(s.next_wakeup(), None);
    // Its process was killed: a late completion report is an error.
    assert_eq!(
        s.completed(t, 6.0),
        Err(LiveError::AlreadyEnded { task: t })
    );
}

#[test]
fn misuse_is_a_typed_error() {
    let mut s = scheduler("PAM");
    assert_eq!(s.completed(7, 0.0), Err(LiveError::UnknownTask(7)));
    assert_eq!(s.started(7, 0.0), Err(LiveError::UnknownTask(7)));
    assert_eq!(s.fate(7), Err(LiveError::UnknownTask(7)));
    assert_eq!(
        s.submit(0.0, 2, 1.0),
        Err(LiveError::UnknownTaskType {
            task_type: 2,
            types: 2
        })
    );
    assert!(matches!(
        s.submit(f64::NAN, 0, 1.0),
        Err(LiveError::NotFinite { what: "now", .. })
    ));
    assert!(matches!(
        s.submit(0.0, 0, f64::INFINITY),
        Err(LiveError::NotFinite {
            what: "deadline",
            ..
        })
    ));
    // Three tasks on two machines with queues of 2: the third waits in a queue.
    let a = s.submit(1.0, 0, 20.0).unwrap();
    let b = s.submit(1.0, 0, 20.0).unwrap();
    let c = s.submit(1.0, 0, 20.0).unwrap();
    let started = starts(&s.decide(1.0).unwrap());
    assert_eq!(started.len(), 2);
    let waiting = [a, b, c]
        .into_iter()
        .find(|t| started.iter().all(|&(s, _)| s != *t))
        .unwrap();
    // Completion before start.
    assert_eq!(
        s.completed(waiting, 2.0),
        Err(LiveError::NotStarted { task: waiting })
    );
    assert_eq!(
        s.failed(waiting, 2.0),
        Err(LiveError::NotStarted { task: waiting })
    );
    // Time going backwards.
    assert_eq!(
        s.decide(0.5),
        Err(LiveError::TimeWentBackwards {
            at: 0.5,
            latest: 1.0
        })
    );
    let (first, _) = started[0];
    s.completed(first, 3.0).unwrap();
    assert_eq!(
        s.completed(first, 3.0),
        Err(LiveError::AlreadyEnded { task: first })
    );
    assert!(matches!(
        s.decide(2.0),
        Err(LiveError::TimeWentBackwards { .. })
    ));
    s.decide(3.0).unwrap();
    // A PET of another shape.
    let small = Pet::new(
        Array2::from_shape_fn((1, 2), |_| Pmf::point(1)),
        vec!["a".into()],
        vec!["x".into(), "y".into()],
    )
    .unwrap();
    assert!(matches!(s.set_pet(small), Err(LiveError::Config(_))));
}

/// Every notification is checked against the clock, `started` too: a start before a time
/// already seen is refused, and so is an end before the reported start (it was accepted,
/// counted on time and observed as a 0 s execution).
#[test]
fn a_start_or_an_end_before_a_time_already_seen_is_refused() {
    let mut s = scheduler("MM");
    s.record_samples(true);
    let t = s.submit(0.0, 0, 100.0).unwrap();
    let u = s.submit(0.0, 0, 100.0).unwrap();
    assert_eq!(starts(&s.decide(0.0).unwrap()).len(), 2);
    s.decide(1.0).unwrap();
    assert_eq!(
        s.started(t, 0.5),
        Err(LiveError::TimeWentBackwards {
            at: 0.5,
            latest: 1.0
        })
    );
    assert!(matches!(
        s.started(t, f64::NAN),
        Err(LiveError::NotFinite { what: "at", .. })
    ));
    s.started(t, 50.0).unwrap();
    // The end before the start: refused, the task still executing.
    assert_eq!(
        s.completed(t, 10.0),
        Err(LiveError::TimeWentBackwards {
            at: 10.0,
            latest: 50.0
        })
    );
    assert_eq!(
        s.failed(t, 49.0),
        Err(LiveError::TimeWentBackwards {
            at: 49.0,
            latest: 50.0
        })
    );
    // Another task's start before the clock too.
    assert!(matches!(
        s.started(u, 20.0),
        Err(LiveError::TimeWentBackwards { .. })
    ));
    assert_eq!(s.fate(t), Ok(Fate::Open));
    s.completed(t, 60.0).unwrap();
    s.decide(60.0).unwrap();
    assert_eq!(s.fate(t), Ok(Fate::Ended(Outcome::OnTime)));
    let samples = s.drain_samples();
    assert_eq!(samples.len(), 1, "{samples:?}");
    assert_eq!(samples[0].seconds, 10.0);
}

#[test]
fn bad_configurations_are_errors() {
    let bad = [
        SchedulerConfig {
            resolution: 0.0,
            ..SchedulerConfig::default()
        },
        SchedulerConfig {
            queue_size: 0,
            ..SchedulerConfig::default()
        },
        SchedulerConfig {
            pct_epsilon: 1.5,
            ..SchedulerConfig::default()
        },
        SchedulerConfig {
            heuristic: live::HeuristicConfig::named("nope"),
            ..SchedulerConfig::default()
        },
    ];
    for c in bad {
        assert!(matches!(
            Scheduler::new(pet(), c),
            Err(LiveError::Config(_))
        ));
    }
}

#[test]
fn a_failure_frees_the_machine_and_is_reported() {
    let mut s = scheduler("MM");
    s.record_samples(true);
    let a = s.submit(0.0, 0, 10.0).unwrap();
    let b = s.submit(0.0, 0, 10.0).unwrap();
    let c = s.submit(0.0, 0, 10.0).unwrap();
    let started = starts(&s.decide(0.0).unwrap());
    let (t, m) = started[0];
    s.failed(t, 1.0).unwrap();
    let next = starts(&s.decide(1.0).unwrap());
    assert_eq!(s.fate(t), Ok(Fate::Failed));
    assert_eq!(next.len(), 1, "the freed machine starts the waiting task");
    assert_eq!(next[0].1, m);
    assert!([a, b, c].contains(&next[0].0));
    let samples = s.drain_samples();
    assert_eq!(samples.len(), 1);
    assert!(samples[0].censored);
    assert_eq!(samples[0].seconds, 1.0);
}

#[test]
fn a_new_pet_is_used_at_the_next_decision() {
    let mut s = scheduler("MM");
    // On the new PET machine 1 is faster for type 0: MM sends the task there.
    let faster = Pet::new(
        Array2::from_shape_fn((2, 2), |(_, m)| Pmf::point(if m == 1 { 1 } else { 9 })),
        vec!["a".into(), "b".into()],
        vec!["x".into(), "y".into()],
    )
    .unwrap();
    s.set_pet(faster).unwrap();
    s.submit(0.0, 0, 30.0).unwrap();
    assert_eq!(starts(&s.decide(0.0).unwrap()), vec![(0, 1)]);
}

/// One call of the API with arbitrary arguments.
#[derive(Debug, Clone)]
enum Call {
    Submit(f64, usize, f64),
    Started(usize, f64),
    Completed(usize, f64),
    Failed(usize, f64),
    Decide(f64),
}

fn call() -> impl Strategy<Value = Call> {
    let time = prop_oneof![0.0f64..50.0, Just(f64::NAN), Just(-1.0), Just(1e300)];
    prop_oneof![
        (time.clone(), 0usize..3, 0.0f64..60.0).prop_map(|(a, b, c)| Call::Submit(a, b, c)),
        (0usize..12, time.clone()).prop_map(|(a, b)| Call::Started(a, b)),
        (0usize..12, time.clone()).prop_map(|(a, b)| Call::Completed(a, b)),
        (0usize..12, time.clone()).prop_map(|(a, b)| Call::Failed(a, b)),
        time.prop_map(Call::Decide),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    /// Whatever the calls, none panics; no task is dropped twice; after closing, every
    /// task has ended, had its end reported, or is in a machine queue.
    #[test]
    fn arbitrary_calls_never_panic(calls in prop::collection::vec(call(), 1..60),
                                   h in prop::sample::select(vec!["MM", "PAM", "MOC", "MCT"]),
                                   model in prop::sample::select(vec![DropModel::None, DropModel::Pending, DropModel::All])) {
        let config = SchedulerConfig {
            heuristic: live::HeuristicConfig::named(h),
            queue_size: 2,
            drop_model: model,
            ..SchedulerConfig::default()
        };
        let mut s = Scheduler::new(pet(), config).unwrap();
        let mut dropped = std::collections::HashSet::new();
        for c in calls {
            let actions = match c {
                Call::Submit(a, b, d) => { let _ = s.submit(a, b, d); vec![] }
                Call::Started(t, a) => { let _ = s.started(t, a); vec![] }
                Call::Completed(t, a) => { let _ = s.completed(t, a); vec![] }
                Call::Failed(t, a) => { let _ = s.failed(t, a); vec![] }
                Call::Decide(a) => s.decide(a).unwrap_or_default(),
            };
            for a in actions {
                if let Action::Drop { task, .. } = a {
                    prop_assert!(dropped.insert(task), "task {} dropped twice", task);
                }
            }
        }
        let _ = s.close(1e301);
        for t in 0..s.tasks() {
            let f = s.fate(t).unwrap();
            prop_assert!(matches!(f, Fate::Ended(_) | Fate::Failed | Fate::Reported)
                || (0..s.machines()).any(|m| s.queue(m).contains(&t)),
                "task {} is nowhere: {:?}", t, f);
        }
    }
}

#[test]
fn a_deadline_at_or_before_its_arrival_or_beyond_the_tick_range_is_refused_naming_it() {
    let mut s = scheduler("PAM");
    let max = pmf::MAX_TICK as f64 * s.resolution();
    for (now, deadline) in [(10.0, 10.0), (10.0, -5.0), (10.0, 9.999)] {
        let e = s.submit(now, 0, deadline).unwrap_err();
        assert_eq!(
            e,
            LiveError::DeadlineNotAfterArrival {
                deadline,
                arrival: now
            }
        );
        let text = e.to_string();
        assert!(
            text.contains(&format!("deadline {deadline} s")) && text.contains(&format!("{now} s")),
            "{text}"
        );
    }
    for deadline in [1e308, f64::MAX, max * 1.001] {
        let e = s.submit(10.0, 0, deadline).unwrap_err();
        assert!(
            matches!(e, LiveError::OutOfRange { what: "deadline", max: m, .. } if m == max),
            "{e:?}"
        );
        assert!(e.to_string().contains(&format!("{max} s")), "{e}");
    }
    assert!(matches!(
        s.submit(-1e300, 0, 1.0),
        Err(LiveError::OutOfRange { what: "now", .. })
    ));
    assert_eq!(s.tasks(), 0, "nothing was submitted");
    assert!(s.decide(10.0).unwrap().is_empty());
    // Due just after its arrival (within the same tick), or at the range's end: accepted.
    let soon = s.submit(10.0, 0, 10.25).unwrap();
    let late = s.submit(10.0, 0, max).unwrap();
    assert_eq!((soon, late, s.tasks()), (0, 1, 2));
    let started = starts(&s.decide(10.0).unwrap());
    assert!(started.iter().any(|&(t, _)| t == late), "{started:?}");
}
