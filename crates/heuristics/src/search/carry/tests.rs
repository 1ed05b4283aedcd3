//! The carried answers against the reference loop over many events ([`super::Carry`]).

use super::*;
use crate::plan::{Phase1, Phase2, Plan};
use model::{Machine, Oracle, TaskSpec};
use proptest::prelude::*;
use workload::Pet;

/// One step of a live system: `(kind, a, b)`, read by [`drive`].
type Step = (u8, usize, i64);

/// A live system on `machines` machines (queue limit 3, PET columns drawn from the
/// default PET by `seed`) driven by `steps`: submissions, completions, failures (a
/// pending task dropped), the clock moving, and decisions. At each decision the search,
/// whose [`Kept`] (carried class answers included) lives through the whole sequence,
/// and [`crate::reference::run`] decide on the same view; the first difference is the
/// error. Returns the number of decisions compared.
fn drive(
    machines: usize,
    seed: u64,
    steps: &[Step],
    plan: Plan,
    defer: Option<f64>,
) -> Result<usize, String> {
    let pet = Pet::default_pet(1).draw_machines(machines, seed);
    let types = pet.n_types();
    let thresholds = defer.map(|q| vec![q; types]);
    let mut tasks: Vec<TaskSpec> = Vec::new();
    let mut ms: Vec<Machine> = (0..machines).map(|m| Machine::new(m, Some(3))).collect();
    let mut batch: Vec<TaskId> = Vec::new();
    let new_task = |tasks: &mut Vec<TaskSpec>, ty: usize, deadline: Tick| {
        tasks.push(TaskSpec {
            id: tasks.len(),
            task_type: ty % types,
            arrival: 0,
            deadline,
        });
        tasks.len() - 1
    };
    // Most machines start busy, a few idle.
    for (m, mc) in ms.iter_mut().enumerate() {
        let depth = (m * 7 + seed as usize) % 4;
        for k in 0..depth {
            let t = new_task(&mut tasks, m + k, 200 + 40 * (m % 5) as Tick);
            if k == 0 {
                mc.start(0, t, 1_000);
            } else {
                mc.push(t);
            }
        }
    }
    let mut oracle = Oracle::new(machines);
    let mut kept = Kept::default();
    let (mut now, mut compared) = (0, 0);
    for &(kind, a, b) in steps {
        let m = a % machines;
        match kind % 5 {
            0 => {
                // A few tasks of few classes, so that classes repeat across events.
                for k in 0..(b as usize % 40 + 1) {
                    let t = new_task(&mut tasks, a + k % 2, now + 60 + 40 * (b % 3));
                    batch.push(t);
                }
            }
            1 => {
                if ms[m].finish_running().is_some() {
                    if let Some(t) = ms[m].pop_pending() {
                        ms[m].start(now, t, 1_000);
                    }
                }
            }
            2 => {
                if let Some(&t) = ms[m].pending().front() {
                    ms[m].remove_pending(t);
                }
            }
            3 => now += b.rem_euclid(20),
            _ => {
                oracle.sync(&ms, now);
                let view = View::new(now, &pet, &tasks, &batch, &ms, &oracle, pmf::DropModel::All)
                    .with_defer(thresholds.as_deref());
                let mut got = Decision::default();
                run(
                    &view,
                    plan,
                    &mut VirtualQueues::from_view(&view),
                    &batch,
                    &mut got,
                    &mut kept,
                );
                let mut want = Decision::default();
                crate::reference::run(
                    &view,
                    plan,
                    &mut VirtualQueues::from_view(&view),
                    &batch,
                    &mut want,
                );
                got.deferred.sort_unstable();
                want.deferred.sort_unstable();
                if got != want {
                    return Err(format!(
                        "decision {compared} at tick {now}: {got:?} against {want:?}"
                    ));
                }
                compared += 1;
                for &(t, m) in &got.assign {
                    if ms[m].running().is_none() {
                        ms[m].start(now, t, 1_000);
                    } else {
                        ms[m].push(t);
                    }
                }
                batch.retain(|t| !got.assign.iter().any(|&(a, _)| a == *t));
            }
        }
    }
    Ok(compared)
}

const PAM: Plan = Plan {
    phase1: Phase1::MaxSuccess,
    phase2: Phase2::MinCompletion {
        tie_by_execution: true,
    },
    scope: Phase1Scope::AllMachines,
};

/// MM with deferring on (the two-phase loop of [`run_in`], MinCompletion in phase 1).
const MM: Plan = Plan {
    phase1: Phase1::MinCompletion,
    phase2: Phase2::MinCompletion {
        tie_by_execution: false,
    },
    scope: Phase1Scope::AllMachines,
};

fn steps() -> impl Strategy<Value = Vec<Step>> {
    // Decisions often, so that answers are carried over short and long stretches.
    prop::collection::vec(
        prop_oneof![
            3 => (Just(4u8), 0usize..1, 0i64..1),
            4 => (0u8..4, 0usize..1024, 0i64..120),
        ],
        1..40,
    )
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    /// Over random sequences of submissions, completions, failures, ticks and decisions
    /// on 1 to 1,024 machines, every decision of the search with its answers carried
    /// from event to event is the reference loop's.
    #[test]
    fn carried_searches_decide_as_the_reference_at_every_event(
        machines in prop_oneof![1usize..64, 64usize..320, Just(1024usize)],
        seed in 0u64..1_000,
        steps in steps(),
        defer in prop_oneof![Just(None), Just(Some(0.5)), Just(Some(0.9))],
        free_only in any::<bool>(),
    ) {
        let scope = if free_only { Phase1Scope::FreeMachines } else { Phase1Scope::AllMachines };
        let result = drive(machines, seed, &steps, Plan { scope, ..PAM }, defer);
        prop_assert!(result.is_ok(), "{}", result.unwrap_err());
    }

    /// The same for MinCompletion in phase 1 (its answers carried per task type), with
    /// deferring on (without, [`run_by_type`] runs) and each phase-2 criterion that reads
    /// its machine.
    #[test]
    fn carried_type_answers_decide_as_the_reference_at_every_event(
        machines in prop_oneof![1usize..64, 64usize..320, Just(1024usize)],
        seed in 0u64..1_000,
        steps in steps(),
        defer in prop_oneof![Just(Some(0.0)), Just(Some(0.5)), Just(Some(0.9))],
        free_only in any::<bool>(),
        phase2 in prop_oneof![
            Just(MM.phase2),
            Just(Phase2::SoonestDeadline),
            Just(Phase2::MaxUrgency),
        ],
    ) {
        let scope = if free_only { Phase1Scope::FreeMachines } else { Phase1Scope::AllMachines };
        let result = drive(machines, seed, &steps, Plan { scope, phase2, ..MM }, defer);
        prop_assert!(result.is_ok(), "{}", result.unwrap_err());
    }
}

/// The comparison of MinCompletion's carried answers can fail: with a wrong key
/// ([`WRONG_KEY`]) some decision differs from the reference's.
#[test]
fn a_wrong_key_makes_the_type_comparison_fail() {
    let mut steps: Vec<Step> = vec![(0, 0, 30), (0, 1, 31), (4, 0, 0)];
    for k in 0..30 {
        steps.extend([(1, 7 * k + 3, 0), (0, k, 30 + k as i64), (4, 0, 0)]);
    }
    let run_all = |wrong: bool| {
        WRONG_KEY.with(|w| w.set(wrong));
        let out: Vec<Result<usize, String>> = (0..4)
            .flat_map(|seed| {
                [Some(0.9), Some(0.0)].map(|defer| drive(256, seed, &steps, MM, defer))
            })
            .collect();
        WRONG_KEY.with(|w| w.set(false));
        out
    };
    CARRIED_TYPES.with(|c| c.set(0));
    let right = run_all(false);
    assert!(right.iter().all(Result::is_ok), "{right:?}");
    let carried = CARRIED_TYPES.with(std::cell::Cell::get);
    assert!(carried > 100, "{carried} answers carried");
    let wrong = run_all(true);
    assert!(
        wrong.iter().any(Result::is_err),
        "no mismatch with a wrong key: {wrong:?}"
    );
}

/// The comparison above can fail: with a deliberately wrong key (no machine ever logged
/// as changed, [`WRONG_KEY`]) the carried answers miss the machines that changed, and
/// some decision differs from the reference's.
#[test]
fn a_wrong_key_makes_the_comparison_fail() {
    // Completions then decisions: each completion makes a machine better than the one a
    // kept answer chose.
    let mut steps: Vec<Step> = vec![(0, 0, 30), (0, 1, 31), (4, 0, 0)];
    for k in 0..30 {
        steps.extend([(1, 7 * k + 3, 0), (0, k, 30 + k as i64), (4, 0, 0)]);
    }
    let run_all = |wrong: bool| {
        WRONG_KEY.with(|w| w.set(wrong));
        FORGET_ASSIGNED.with(|w| w.set(false));
        let out: Vec<Result<usize, String>> = (0..4)
            .flat_map(|seed| [Some(0.9), None].map(|defer| drive(256, seed, &steps, PAM, defer)))
            .collect();
        WRONG_KEY.with(|w| w.set(false));
        out
    };
    for c in [&CARRIED, &CARRIED_IN_EVENT, &CARRIED_PAST_TOP] {
        c.with(|c| c.set(0));
    }
    let right = run_all(false);
    assert!(right.iter().all(Result::is_ok), "{right:?}");
    let carried = CARRIED.with(std::cell::Cell::get);
    assert!(carried > 100, "{carried} answers carried");
    // Answers found again after a provisional assignment, and with a machine of the
    // kept choice changed (from the machines listed below it), were compared too.
    let in_event = CARRIED_IN_EVENT.with(std::cell::Cell::get);
    assert!(in_event > 10, "{in_event} answers carried within an event");
    let past_top = CARRIED_PAST_TOP.with(std::cell::Cell::get);
    assert!(
        past_top > 10,
        "{past_top} answers carried past a changed choice"
    );
    let wrong = run_all(true);
    assert!(
        wrong.iter().any(Result::is_err),
        "no mismatch with a wrong key: {wrong:?}"
    );
}

/// Within an event, the machines provisionally assigned a task are in `D`: left out
/// ([`FORGET_ASSIGNED`]), the answers carried through an event's assignments miss them,
/// and some decision differs from the reference's.
#[test]
fn forgetting_the_assigned_machines_makes_the_comparison_fail() {
    // Many waiting tasks of one class, several idle machines: each decision assigns
    // several tasks, each to the machine the class's answer chose.
    let mut steps: Vec<Step> = vec![(0, 0, 39), (0, 2, 39), (4, 0, 0)];
    for k in 0..20 {
        steps.extend([
            (1, 5 * k + 1, 0),
            (1, 5 * k + 2, 0),
            (0, 2 * k, 39),
            (4, 0, 0),
        ]);
    }
    let run_all = || -> Vec<Result<usize, String>> {
        (0..4)
            .flat_map(|seed| [Some(0.5), None].map(|defer| drive(256, seed, &steps, PAM, defer)))
            .collect()
    };
    let right = run_all();
    assert!(right.iter().all(Result::is_ok), "{right:?}");
    FORGET_ASSIGNED.with(|w| w.set(true));
    let wrong = run_all();
    FORGET_ASSIGNED.with(|w| w.set(false));
    assert!(
        wrong.iter().any(Result::is_err),
        "no mismatch with the assigned machines left out: {wrong:?}"
    );
}
