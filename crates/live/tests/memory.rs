//! The scheduler's memory is bounded by the tasks in the system, not by those it has seen:
//! the tasks that ended are forgotten, their outcomes kept as counts. (The soak of 10^7
//! tasks with its peak memory is `examples/soak.rs`, `docs/reliability.md`.)

use std::cmp::Reverse;
use std::collections::BinaryHeap;

use live::{Action, Fate, LiveError, Outcome, Scheduler, SchedulerConfig};
use ndarray::Array2;
use pmf::Pmf;
use workload::Pet;

/// Two task types on two machines, 2 and 3 ticks.
fn pet() -> Pet {
    let pmfs = Array2::from_shape_fn((2, 2), |(t, _)| Pmf::point(2 + t as i64));
    Pet::new(
        pmfs,
        vec!["a".into(), "b".into()],
        vec!["x".into(), "y".into()],
    )
    .unwrap()
}

/// 10^5 tasks, one a tick, more than the two machines can run (some are dropped): the
/// tasks held never exceed three times those in the system (at least 64), and the counts
/// add up.
#[test]
fn the_tasks_held_stay_bounded_by_those_in_the_system() {
    let n = 100_000;
    let mut s = Scheduler::new(pet(), SchedulerConfig::default()).unwrap();
    let mut ends: BinaryHeap<Reverse<(usize, usize)>> = BinaryHeap::new();
    let (mut most_open, mut most_held, mut completed, mut drops) = (0, 0, 0, 0);
    let mut out = Vec::new();
    // The submissions, then ticks until every started task ended.
    for i in 0..n + 20 {
        while let Some(&Reverse((at, t))) = ends.peek() {
            if at > i {
                break;
            }
            ends.pop();
            if s.completed(t, at as f64).is_ok() {
                completed += 1;
            }
        }
        if i < n {
            let t = s.submit(i as f64, i % 2, i as f64 + 6.0).unwrap();
            assert_eq!(t, i);
        }
        out.clear();
        s.decide_into(i as f64, &mut out).unwrap();
        for a in &out {
            match *a {
                Action::Start { task, .. } => {
                    s.started(task, i as f64).unwrap();
                    ends.push(Reverse((i + 2 + task % 2, task)));
                }
                Action::Drop { .. } => drops += 1,
                _ => {}
            }
        }
        let c = s.counts();
        let open = c.submitted - c.ended();
        most_open = most_open.max(open);
        most_held = most_held.max(s.held());
        assert!(
            s.held() <= 3 * most_open.max(64),
            "{} held at task {i}, at most {most_open} in the system",
            s.held()
        );
    }
    assert!(ends.is_empty());
    let last = n as f64 + 20.0;
    drops += s
        .close(last)
        .unwrap()
        .iter()
        .filter(|a| matches!(a, Action::Drop { .. }))
        .count();
    let c = s.counts();
    assert_eq!((c.submitted, c.ended(), c.failed), (n, n, 0), "{c:?}");
    assert_eq!(c.ended(), completed + drops);
    assert!(c.of(Outcome::OnTime) > n / 3, "{c:?}");
    assert!(drops > 0, "the machines are oversubscribed");
    assert!(most_held < 500, "held at most {most_held}");
    // Once a later decision forgot it, an ended task is `Forgotten`, and a second end is
    // still refused.
    s.decide(last).unwrap();
    assert_eq!(s.fate(0), Ok(Fate::Forgotten));
    assert_eq!(s.record(0), None);
    assert_eq!(
        s.completed(0, last),
        Err(LiveError::AlreadyEnded { task: 0 })
    );
    assert_eq!(s.started(0, last), Err(LiveError::AlreadyEnded { task: 0 }));
    assert_eq!(s.fate(n), Err(LiveError::UnknownTask(n)));
}

/// With `keep_records`, every record is kept (what the replay test compares, and what the
/// tasks held then count).
#[test]
fn keep_records_keeps_every_record() {
    let mut s = Scheduler::new(pet(), SchedulerConfig::default()).unwrap();
    s.keep_records(true);
    for i in 0..1_000u32 {
        let now = f64::from(i * 10);
        s.submit(now, 0, now + 6.0).unwrap();
        for a in s.decide(now).unwrap() {
            if let Action::Start { task, .. } = a {
                s.started(task, now).unwrap();
                s.completed(task, now + 2.0).unwrap();
            }
        }
    }
    s.decide(10_000.0).unwrap();
    assert_eq!(s.held(), 1_000);
    assert_eq!(s.fate(0), Ok(Fate::Ended(Outcome::OnTime)));
    assert_eq!(s.counts().of(Outcome::OnTime), 1_000);
}
