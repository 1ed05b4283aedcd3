//! The live API (`live::Scheduler`) under arbitrary sequences of calls: the bytes choose a
//! small PET (1-3 task types x 1-3 machines), a heuristic, a queue size, a drop model, a
//! resolution, whether the scheduler learns online, records samples or keeps records, then
//! up to 64 calls of `submit`, `started`, `completed`, `failed`, `decide`, `close`, `fate`,
//! `set_pet` at times that mostly move forward (sometimes back, or not finite) on tasks
//! mostly known (sometimes not).
//!
//! A model of every task's state, built from the actions alone, checks that no call panics
//! and that: every task ends at most once; no action names an unknown task or one that has
//! ended; a start is only on a machine with nothing executing; a notification the model says
//! is legitimate (a start, completion or failure of an executing task at a time not before
//! one already seen) is accepted; the counts agree with the actions and the reports
//! applied; `fate` agrees with the model; the tasks held never exceed those submitted.
#![no_main]

use std::collections::HashSet;

use libfuzzer_sys::arbitrary::{Result, Unstructured};
use libfuzzer_sys::fuzz_target;
use live::{
    Action, DropModel, Fate, HeuristicConfig, LearnConfig, LiveError, Scheduler, SchedulerConfig,
};
use ndarray::Array2;
use pmf::Pmf;
use workload::Pet;

const HEURISTICS: [&str; 12] = [
    "PAM", "MM", "MSD", "MOC", "auto", "EDF", "SJF", "FCFS", "MCT", "KPB", "MR", "MET",
];

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum State {
    /// In the batch queue.
    Waiting,
    /// In a machine queue, not started.
    Queued,
    /// Executing on this machine.
    Executing(usize),
    /// Executing, its end reported (applied at the next decision).
    Reported(usize),
    /// Ended.
    Ended,
}

fn pmf(u: &mut Unstructured<'_>) -> Result<Pmf> {
    let offset = u.int_in_range(0i64..=12)?;
    let n = u.int_in_range(1usize..=4)?;
    let mut w: Vec<f64> = (0..n)
        .map(|_| Ok(f64::from(u.int_in_range(0u8..=4)?)))
        .collect::<Result<_>>()?;
    w[0] += 1.0;
    let last = w.len() - 1;
    w[last] += 1.0;
    Ok(Pmf::from_weights(offset, w).unwrap_or_else(|_| Pmf::point(offset)))
}

fn pet(u: &mut Unstructured<'_>, types: usize, machines: usize) -> Result<Pet> {
    let cells: Vec<Pmf> = (0..types * machines)
        .map(|_| pmf(u))
        .collect::<Result<_>>()?;
    let matrix = Array2::from_shape_vec((types, machines), cells).expect("the shape");
    Ok(Pet::new(
        matrix,
        (0..types).map(|t| format!("t{t}")).collect(),
        (0..machines).map(|m| format!("m{m}")).collect(),
    )
    .expect("a valid PET"))
}

/// A time: mostly the clock moved forward a little, sometimes anything.
fn time(u: &mut Unstructured<'_>, clock: &mut f64) -> Result<f64> {
    Ok(match u.int_in_range(0u8..=9)? {
        0 => [f64::NAN, f64::INFINITY, -1.0, 0.0, 1e300, -1e-300]
            [usize::from(u.arbitrary::<u8>()?) % 6],
        1 => *clock - f64::from(u.int_in_range(1u8..=20)?) / 4.0,
        2 => f64::from_bits(u.arbitrary::<u64>()?),
        _ => {
            *clock += f64::from(u.int_in_range(0u8..=40)?) / 4.0;
            *clock
        }
    })
}

fn run(u: &mut Unstructured<'_>) -> Result<()> {
    let types = u.int_in_range(1usize..=3)?;
    let machines = u.int_in_range(1usize..=3)?;
    let pet0 = pet(u, types, machines)?;
    let config = SchedulerConfig {
        heuristic: HeuristicConfig::named(HEURISTICS[u.choose_index(HEURISTICS.len())?]),
        queue_size: u.int_in_range(1usize..=4)?,
        drop_model: [DropModel::None, DropModel::Pending, DropModel::All][u.choose_index(3)?],
        pct_epsilon: [0.0, 0.01][u.choose_index(2)?],
        resolution: [1.0, 0.5, 0.01, 3.0][u.choose_index(4)?],
        ..SchedulerConfig::default()
    };
    let drop_all = config.drop_model == DropModel::All;
    let mut s = Scheduler::new(pet0, config).expect("a valid configuration");
    if u.arbitrary()? {
        s.learn_online(LearnConfig {
            refresh_every: u.int_in_range(1usize..=3)?,
            ..LearnConfig::default()
        })
        .expect("valid options");
    }
    s.record_samples(u.arbitrary()?);
    s.keep_records(u.arbitrary()?);

    let mut state: Vec<State> = Vec::new();
    let mut busy: Vec<Option<usize>> = vec![None; machines];
    let mut ended = 0usize;
    let mut clock = 0.0f64;
    let mut latest = f64::NEG_INFINITY;
    let mut closed = false;
    let mut dropped: HashSet<usize> = HashSet::new();

    let n_calls = u.int_in_range(1usize..=64)?;
    for _ in 0..n_calls {
        if u.is_empty() {
            break;
        }
        // A task: mostly one submitted, sometimes any id.
        let task = |u: &mut Unstructured<'_>, n: usize| -> Result<usize> {
            Ok(if n > 0 && u.int_in_range(0u8..=7)? > 0 {
                u.choose_index(n)?
            } else {
                usize::from(u.arbitrary::<u8>()?)
            })
        };
        let ok_time = |at: f64, latest: f64| at.is_finite() && at >= latest;
        let mut actions: Option<Vec<Action>> = None;
        match u.int_in_range(0u8..=8)? {
            0 | 1 => {
                let now = time(u, &mut clock)?;
                let ty = if u.int_in_range(0u8..=15)? == 0 {
                    types
                } else {
                    u.choose_index(types)?
                };
                let deadline = if u.int_in_range(0u8..=15)? == 0 {
                    time(u, &mut clock)?
                } else {
                    now + f64::from(u.int_in_range(0u8..=60)?) / 2.0
                };
                let r = s.submit(now, ty, deadline);
                // Times within 2^52 ticks of 0 (`pmf::MAX_TICK`), due after the arrival.
                let in_range = |t: f64| (t / s.resolution()).abs() <= 2f64.powi(52);
                let valid = ok_time(now, latest)
                    && deadline.is_finite()
                    && deadline > now
                    && in_range(now)
                    && in_range(deadline)
                    && ty < types;
                match r {
                    Ok(id) => {
                        assert!(valid, "submit({now}, {ty}, {deadline}) accepted");
                        assert_eq!(id, state.len(), "ids in submission order");
                        state.push(State::Waiting);
                        latest = now;
                    }
                    Err(e) => assert!(!valid, "submit({now}, {ty}, {deadline}): {e}"),
                }
            }
            2 => {
                let t = task(u, state.len())?;
                let at = time(u, &mut clock)?;
                let r = s.started(t, at);
                let executing = matches!(state.get(t), Some(State::Executing(_)));
                if executing && ok_time(at, latest) {
                    assert_eq!(r, Ok(()), "started({t}, {at})");
                }
                if r.is_ok() {
                    latest = at;
                }
                if t >= state.len() {
                    assert_eq!(r, Err(LiveError::UnknownTask(t)));
                }
            }
            3 | 4 => {
                let t = task(u, state.len())?;
                let at = time(u, &mut clock)?;
                let failed = u.arbitrary()?;
                let r = if failed {
                    s.failed(t, at)
                } else {
                    s.completed(t, at)
                };
                let executing = match state.get(t) {
                    Some(&State::Executing(m)) => Some(m),
                    _ => None,
                };
                match r {
                    Ok(()) => {
                        let m = executing.unwrap_or_else(|| {
                            panic!("end of task {t} accepted in {:?}", state.get(t))
                        });
                        assert!(ok_time(at, latest), "end at {at} after {latest} accepted");
                        state[t] = State::Reported(m);
                        latest = at;
                    }
                    Err(e) => {
                        assert!(
                            executing.is_none() || !ok_time(at, latest),
                            "end of executing task {t} at {at} (latest {latest}) refused: {e}"
                        );
                    }
                }
            }
            5 | 6 => {
                let now = time(u, &mut clock)?;
                match s.decide(now) {
                    Ok(a) => {
                        assert!(
                            ok_time(now, latest),
                            "decide({now}) after {latest} accepted"
                        );
                        latest = now;
                        actions = Some(a);
                    }
                    Err(e) => assert!(!ok_time(now, latest), "decide({now}): {e}"),
                }
            }
            7 => {
                let now = time(u, &mut clock)?;
                match s.close(now) {
                    Ok(a) => {
                        latest = now;
                        closed = true;
                        actions = Some(a);
                    }
                    Err(e) => assert!(!ok_time(now, latest), "close({now}): {e}"),
                }
            }
            _ => {
                if u.arbitrary()? {
                    let p = pet(u, types, machines)?;
                    s.set_pet(p).expect("a PET of the same shape");
                } else {
                    let t = task(u, state.len())?;
                    let f = s.fate(t);
                    match state.get(t) {
                        None => assert_eq!(f, Err(LiveError::UnknownTask(t))),
                        Some(State::Ended) => assert!(
                            matches!(f, Ok(Fate::Ended(_) | Fate::Failed | Fate::Forgotten)),
                            "task {t} ended, fate {f:?}"
                        ),
                        Some(State::Reported(_)) => assert_eq!(f, Ok(Fate::Reported)),
                        Some(_) => assert_eq!(f, Ok(Fate::Open), "task {t}"),
                    }
                }
            }
        }
        if let Some(actions) = actions {
            // The reports are applied first: their tasks end, their machines are free.
            for (t, st) in state.iter_mut().enumerate() {
                if let State::Reported(m) = *st {
                    *st = State::Ended;
                    ended += 1;
                    assert_eq!(busy[m], Some(t));
                    busy[m] = None;
                }
            }
            for a in actions {
                let t = match a {
                    Action::Assign { task, .. }
                    | Action::Start { task, .. }
                    | Action::Drop { task, .. }
                    | Action::Defer { task } => task,
                };
                let st = *state
                    .get(t)
                    .unwrap_or_else(|| panic!("{a:?}: unknown task"));
                assert!(st != State::Ended, "{a:?}: task {t} has ended");
                match a {
                    Action::Assign { machine, .. } => {
                        assert!(machine < machines, "{a:?}");
                        assert_eq!(st, State::Waiting, "{a:?}");
                        state[t] = State::Queued;
                    }
                    Action::Defer { .. } => assert_eq!(st, State::Waiting, "{a:?}"),
                    Action::Start { machine, .. } => {
                        assert_eq!(st, State::Queued, "{a:?}");
                        assert_eq!(busy[machine], None, "{a:?}: machine {machine} busy");
                        busy[machine] = Some(t);
                        state[t] = State::Executing(machine);
                    }
                    Action::Drop {
                        executing, machine, ..
                    } => {
                        assert!(dropped.insert(t), "task {t} dropped twice");
                        if executing {
                            assert!(drop_all, "{a:?} under a drop model that keeps it");
                            let m = machine.expect("an executing task has a machine");
                            assert_eq!(st, State::Executing(m), "{a:?}");
                            busy[m] = None;
                        } else {
                            assert!(
                                matches!(st, State::Waiting | State::Queued),
                                "{a:?} in {st:?}"
                            );
                        }
                        state[t] = State::Ended;
                        ended += 1;
                    }
                }
            }
            let c = s.counts();
            assert_eq!(c.submitted, state.len());
            assert_eq!(c.ended(), ended, "{c:?}");
            assert!(s.held() <= state.len());
            if closed {
                assert!(
                    !state.contains(&State::Waiting),
                    "a task waits in the batch queue after close"
                );
                closed = false;
            }
        }
    }
    Ok(())
}

fuzz_target!(|data: &[u8]| {
    let mut u = Unstructured::new(data);
    let _ = run(&mut u);
});
