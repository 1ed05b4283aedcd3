//! The standalone pruner (`pruner::standalone`) decides as the simulator's code on the same
//! state: its drops are those of the simulator's pruner walking every queue
//! (`ProbabilisticPruner::select_drops_reference`), and its verdict on a batch task is what
//! PAM's reference loop decides for that task alone (mapped to the same machine, deferred,
//! or waiting for a full machine).

use heuristics::{Phase1Scope, TwoPhase};
use model::View;
use pmf::ExecPmf;
use proptest::prelude::*;
use pruner::standalone::{End, Pruner, Queue, Task, Verdict};
use pruner::{ProbabilisticPruner, PrunerConfig};

use crate::system::{System, system_strategy};

/// Each task type's row of the PET.
fn rows(system: &System) -> Vec<Vec<ExecPmf>> {
    let pet = &system.pet;
    (0..pet.n_types())
        .map(|t| {
            (0..pet.n_machines())
                .map(|m| pet.exec_pmf(t, m).clone())
                .collect()
        })
        .collect()
}

/// The machine queues of a view in the standalone pruner's terms.
fn queues<'a>(view: &View<'_>, rows: &'a [Vec<ExecPmf>]) -> Vec<Queue<'a>> {
    let task = |id: usize| {
        let spec = view.task(id);
        Task {
            task_type: spec.task_type,
            deadline: spec.deadline,
            pet: &rows[spec.task_type],
        }
    };
    view.machines()
        .iter()
        .map(|machine| Queue {
            executing: machine.running().map(|r| (task(r.task), r.start)),
            pending: machine.pending().iter().map(|&t| task(t)).collect(),
            limit: machine.limit(),
        })
        .collect()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    #[test]
    fn the_standalone_pruner_drops_as_the_simulators_pruner(
        system in system_strategy(),
        threshold in 0.0f64..1.0,
        dynamic_weight in prop_oneof![Just(0.0), 0.0f64..0.3],
    ) {
        let config = PrunerConfig { drop_threshold: threshold, dynamic_weight, ..PrunerConfig::default() };
        let types = system.pet.n_types();
        let plain = ProbabilisticPruner::new(config.clone(), types).unwrap();
        let mut standalone = Pruner::new(config, types, system.model).unwrap();
        for _ in 0..2 {
            standalone.ended(0, End::Missed);
        }
        prop_assert!(standalone.mapping_event());
        let rows = rows(&system);
        let view = system.view();
        let queues = queues(&view, &rows);
        let drops = standalone.drops(view.now(), &queues).unwrap();
        let mut got = Vec::new();
        for (machine, d) in view.machines().iter().zip(&drops) {
            let ids: Vec<usize> = machine.tasks().collect();
            let flags = machine.running().map(|_| d.executing).into_iter().chain(d.pending.iter().copied());
            got.extend(ids.iter().zip(flags).filter(|(_, f)| *f).map(|(&t, _)| t));
        }
        let mut want = plain.select_drops_reference(&view);
        got.sort_unstable();
        want.sort_unstable();
        prop_assert_eq!(got, want);
    }

    #[test]
    fn the_standalone_verdict_is_pams_reference_decision(
        system in system_strategy(),
        defer in prop_oneof![Just(None), (0.0f64..1.0).prop_map(Some)],
    ) {
        let config = PrunerConfig { defer_threshold: defer, ..PrunerConfig::default() };
        let types = system.pet.n_types();
        let standalone = Pruner::new(config, types, system.model).unwrap();
        let rows = rows(&system);
        let pam = TwoPhase::pam(Phase1Scope::AllMachines);
        for &t in &system.batch {
            let mut one = system.clone();
            one.batch = vec![t];
            one.defer = defer.map(|q| vec![q; types]);
            let view = one.view();
            let spec = view.task(t);
            let task = Task { task_type: spec.task_type, deadline: spec.deadline, pet: &rows[spec.task_type] };
            let verdict = standalone.verdict(view.now(), &task, &queues(&view, &rows)).unwrap();
            let decision = pam.map_reference(&view);
            match verdict {
                Verdict::Map { machine, .. } => {
                    prop_assert_eq!(&decision.assign, &vec![(t, machine)]);
                }
                Verdict::Defer { .. } => prop_assert!(decision.assign.is_empty()),
                Verdict::Drop => prop_assert!(false, "a batch task before its deadline dropped"),
            }
            // The reference defers at its threshold when it runs at all: while some machine
            // has a free slot.
            let any_room = queues(&view, &rows).iter().any(Queue::has_room);
            let deferred_below = any_room && matches!(verdict, Verdict::Defer { chance, .. }
                if defer.is_some_and(|q| chance <= q));
            prop_assert_eq!(decision.deferred == vec![t], deferred_below);
        }
    }
}
