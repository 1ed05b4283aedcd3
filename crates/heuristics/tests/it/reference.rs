//! The accelerated batch heuristics take exactly the decisions of the plain reference loop
//! ([`heuristics::TwoPhase::map_reference`], [`heuristics::Moc::map_reference`]) on random
//! systems: the same assignments in the same order, the same deferred, discarded and culled
//! tasks; every heuristic of the registry is held to its reference
//! (`every_registered_heuristic_decides_as_its_reference`). The immediate heuristics choose as their plain definitions
//! ([`heuristics::immediate_reference`]), near ties included, and the pruner drops as the
//! plain walk.

use heuristics::{Moc, Phase1Scope, TwoPhase};
use model::{BatchHeuristic, Decision};
use proptest::prelude::*;

use crate::system::{
    System, large_batch_near_ties_strategy, large_batch_strategy, many_machines_strategy,
    many_near_ties_strategy, many_staggered_ties_strategy, near_ties_strategy,
    staggered_ties_strategy, system_strategy,
};

fn sorted(mut v: Vec<usize>) -> Vec<usize> {
    v.sort_unstable();
    v
}

/// Runs the heuristic on one copy of the system and its reference on another (reading PMFs
/// computes them, so the two must not share machines), and compares.
fn same_decisions(
    system: &System,
    mut fast: impl BatchHeuristic,
    reference: impl Fn(&model::View<'_>) -> Decision,
) -> Result<(), TestCaseError> {
    let (a, b) = (system.clone(), system.clone());
    let got = fast.map(&a.view());
    let want = reference(&b.view());
    equal_decisions(got, want, fast.name())
}

/// The same assignments in the same order, and the same deferred, discarded and culled tasks.
fn equal_decisions(got: Decision, want: Decision, name: &str) -> Result<(), TestCaseError> {
    prop_assert_eq!(&got.assign, &want.assign, "{} assignments", name);
    prop_assert_eq!(
        sorted(got.deferred),
        sorted(want.deferred),
        "{} deferred",
        name
    );
    prop_assert_eq!(
        sorted(got.discard),
        sorted(want.discard),
        "{} discarded",
        name
    );
    prop_assert_eq!(sorted(got.drop), sorted(want.drop), "{} culled", name);
    Ok(())
}

/// MOC's shortlist width in the near-tie tests: a width no difference of two chances of the
/// random systems equals (their masses are small integers over their sum), so that moving a
/// chance by 1e-12 does not cross it.
const ODD_EPSILON: f64 = 0.053_713;

/// A system and its twin whose PET differs by 1e-12 relative in some machines' columns (copies
/// that tie exactly in the one tie within rounding in the other) decide the same, by the
/// reference loop and by the accelerated search, which decides as the reference on both:
/// ties are decided by the rule, not by the last bits. Every batch heuristic but MMU, whose
/// key `-1 / (d - E[C])` jumps from `-inf` to `+-1e12` when `E[C]` moves off a deadline by
/// 1e-12 (a discontinuity of the criterion, not a tie): MMU is held to the reference alone.
fn near_ties_decide_as_exact_ties(
    (exact, near): &(System, System),
    scope: Phase1Scope,
    alpha: f64,
    heuristics: &[fn(Phase1Scope) -> TwoPhase],
) -> Result<(), TestCaseError> {
    for h in heuristics {
        let h = h(scope);
        let want = h.map_reference(&exact.clone().view());
        let moved = h.map_reference(&near.clone().view());
        equal_decisions(moved, want, &format!("{} near ties", h.name()))?;
        for system in [exact, near] {
            let r = h.clone();
            same_decisions(system, h.clone(), |v| r.map_reference(v))?;
        }
    }
    let moc = Moc::new(alpha, ODD_EPSILON, scope);
    let want = moc.map_reference(&exact.clone().view());
    let moved = moc.map_reference(&near.clone().view());
    equal_decisions(moved, want, "MOC near ties")?;
    for system in [exact, near] {
        let r = moc.clone();
        same_decisions(system, moc.clone(), |v| r.map_reference(v))?;
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(400))]

    #[test]
    fn every_batch_heuristic_decides_as_the_reference_loop(
        system in system_strategy(),
        free_only in any::<bool>(),
        alpha in 0.0f64..0.6,
    ) {
        let scope = if free_only { Phase1Scope::FreeMachines } else { Phase1Scope::AllMachines };
        for h in [
            TwoPhase::mm(scope),
            TwoPhase::msd(scope),
            TwoPhase::mmu(scope),
            TwoPhase::pam(scope),
            TwoPhase::edf(scope),
            TwoPhase::sjf(scope),
        ] {
            let r = h.clone();
            same_decisions(&system, h, |v| r.map_reference(v))?;
        }
        let moc = Moc::new(alpha, 0.05, scope);
        let r = moc.clone();
        same_decisions(&system, moc, |v| r.map_reference(v))?;
    }
}

/// Every heuristic of the registry, its parameters set to the values given, decides as its
/// reference ([`model::BatchHeuristic::reference_map`] on every view, or
/// [`model::ImmediateHeuristic::reference_choose`] for every task of the batch), each on a
/// copy of the system of its own. A heuristic without a reference, or with a parameter this
/// test does not set, fails it: a new entry of the registry is held to its reference here.
fn every_registered_heuristic_decides_as_its_reference(
    system: &System,
    scope: Phase1Scope,
    (alpha, epsilon, k, depth): (f64, f64, f64, usize),
) -> Result<(), TestCaseError> {
    use heuristics::{HeuristicConfig, Mapper, REGISTRY, build};
    for entry in REGISTRY {
        let mut config = HeuristicConfig::named(entry.name);
        for &key in entry.parameters {
            match key {
                "phase1" => config.set(key, scope),
                "alpha" => config.set(key, alpha),
                "epsilon" => config.set(key, epsilon),
                "k" => config.set(key, k),
                "depth" => config.set(key, depth),
                other => prop_assert!(false, "{}: set {other} in this test", entry.name),
            }
        }
        let built = build(&config, system.model);
        prop_assert!(built.is_ok(), "{}: {:?}", entry.name, built.err());
        match built.unwrap() {
            Mapper::Batch(mut fast) => {
                let (a, b) = (system.clone(), system.clone());
                let want = fast.reference_map(&b.view());
                prop_assert!(want.is_some(), "{} has no reference loop", entry.name);
                let got = fast.map(&a.view());
                equal_decisions(got, want.unwrap_or_default(), entry.name)?;
            }
            Mapper::Immediate(mut fast) => {
                for &t in &system.batch {
                    let (a, b) = (system.clone(), system.clone());
                    let want = fast.reference_choose(&b.view(), t);
                    prop_assert!(want.is_some(), "{} has no definition", entry.name);
                    prop_assert_eq!(
                        Some(fast.choose(&a.view(), t)),
                        want,
                        "{} task {}",
                        entry.name,
                        t
                    );
                }
            }
        }
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    /// Every registered heuristic, with parameters drawn, on random systems.
    #[test]
    fn every_registered_heuristic_decides_as_its_reference_on_random_systems(
        system in system_strategy(),
        free_only in any::<bool>(),
        alpha in 0.0f64..0.6,
        epsilon in prop_oneof![Just(ODD_EPSILON), 0.0f64..0.2],
        k in prop_oneof![Just(1.0), 0.1f64..1.0],
        depth in 1usize..4,
    ) {
        let scope = if free_only { Phase1Scope::FreeMachines } else { Phase1Scope::AllMachines };
        every_registered_heuristic_decides_as_its_reference(
            &system, scope, (alpha, epsilon, k, depth))?;
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(24))]

    /// With 64 machines or more, PAM and MOC index the machines by when their tails can reach
    /// the defer threshold, and from 256 on they narrow further and keep searches.
    #[test]
    fn with_many_machines_the_searches_decide_as_the_reference_loop(
        system in many_machines_strategy(),
        alpha in 0.0f64..0.6,
    ) {
        let scope = Phase1Scope::AllMachines;
        for h in [TwoPhase::pam(scope), TwoPhase::mm(scope), TwoPhase::msd(scope)] {
            let r = h.clone();
            same_decisions(&system, h, |v| r.map_reference(v))?;
        }
        let moc = Moc::new(alpha, 0.05, scope);
        let r = moc.clone();
        same_decisions(&system, moc, |v| r.map_reference(v))?;
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(12))]

    /// With 64 machines or more and a large batch, PAM and MOC share one search per (task
    /// type, deadline) class, as from 256 machines on.
    #[test]
    fn with_a_large_batch_the_class_searches_decide_as_the_reference_loop(
        system in large_batch_strategy(),
        alpha in 0.0f64..0.6,
    ) {
        let scope = Phase1Scope::AllMachines;
        let pam = TwoPhase::pam(scope);
        let r = pam.clone();
        same_decisions(&system, pam, |v| r.map_reference(v))?;
        let moc = Moc::new(alpha, 0.05, scope);
        let r = moc.clone();
        same_decisions(&system, moc, |v| r.map_reference(v))?;
    }
}

/// Every immediate heuristic (FCFS, MET, MCT, KPB, MaxRobust), which pass over machines by
/// bounds from earlier PMFs, chooses as its plain definition
/// ([`heuristics::immediate_reference`]) for every task of the batch, each on a copy of the
/// system of its own (reading PMFs computes them).
fn immediate_choices_are_the_definitions(
    system: &System,
    k: f64,
    epsilon: f64,
) -> Result<(), TestCaseError> {
    use heuristics::immediate_reference as plain;
    use heuristics::{Fcfs, Kpb, MaxRobust, Mct, Met};
    use model::{ImmediateHeuristic, MachineId, TaskId, View};
    let mr = MaxRobust { k, epsilon };
    type Definition<'f> = &'f dyn Fn(&View<'_>, TaskId) -> MachineId;
    let heuristics: [(Box<dyn ImmediateHeuristic>, Definition<'_>); 5] = [
        (Box::new(Fcfs), &|v, _| plain::fcfs(v)),
        (Box::new(Met), &plain::met),
        (Box::new(Mct), &plain::mct),
        (Box::new(Kpb { k }), &|v, t| plain::kpb(v, t, k)),
        (Box::new(mr), &|v, t| plain::max_robust(v, t, mr)),
    ];
    for (mut fast, definition) in heuristics {
        for &t in &system.batch {
            let (a, b) = (system.clone(), system.clone());
            let got = fast.choose(&a.view(), t);
            prop_assert_eq!(got, definition(&b.view(), t), "{} task {}", fast.name(), t);
        }
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    /// The immediate heuristics choose as their plain definitions on random systems.
    #[test]
    fn every_immediate_heuristic_chooses_as_its_definition(
        system in system_strategy(),
        k in prop_oneof![Just(1.0), 0.1f64..1.0],
        epsilon in prop_oneof![0.0f64..0.2, 0.2f64..1.0],
    ) {
        immediate_choices_are_the_definitions(&system, k, epsilon)?;
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    /// ... and where machines tie: copies of machine types, exactly in one system and 1e-12
    /// apart in its twin, or staggered about the decision slack apart (the bounds' slack),
    /// with `k = 1` (every machine a candidate) or a share.
    #[test]
    fn with_near_ties_every_immediate_heuristic_chooses_as_its_definition(
        near in near_ties_strategy(),
        staggered in staggered_ties_strategy(),
        k in prop_oneof![Just(1.0), 0.1f64..1.0],
        epsilon in prop_oneof![Just(0.0), Just(ODD_EPSILON), 0.0f64..0.2],
    ) {
        for system in [&near.0, &near.1, &staggered.0, &staggered.1] {
            immediate_choices_are_the_definitions(system, k, epsilon)?;
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(8))]

    /// ... and on 64-320 machines, copies of a few PET columns (many exact ties).
    #[test]
    fn with_many_machines_every_immediate_heuristic_chooses_as_its_definition(
        system in many_machines_strategy(),
        k in 0.1f64..1.0,
        epsilon in 0.0f64..0.2,
    ) {
        immediate_choices_are_the_definitions(&system, k, epsilon)?;
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    /// The pruner, which skips a machine whose earlier PMFs prove every task above its
    /// threshold and reads the machines' cached PMFs until its first drop, drops exactly what
    /// walking every queue from scratch drops (with and without per-task thresholds).
    #[test]
    fn the_pruner_drops_as_the_plain_walk(
        system in system_strategy(),
        threshold in 0.0f64..1.0,
        dynamic_weight in prop_oneof![Just(0.0), 0.0f64..0.3],
    ) {
        use model::Pruner as _;
        let config = pruner::PrunerConfig {
            drop_threshold: threshold,
            dynamic_weight,
            ..pruner::PrunerConfig::default()
        };
        let types = system.pet.n_types();
        let mut fast = pruner::ProbabilisticPruner::new(config.clone(), types).unwrap();
        let plain = pruner::ProbabilisticPruner::new(config, types).unwrap();
        let (a, b) = (system.clone(), system);
        let mut got = fast.select_drops(&a.view());
        let mut want = plain.select_drops_reference(&b.view());
        got.sort_unstable();
        want.sort_unstable();
        prop_assert_eq!(got, want);
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    /// Any plan (each phase-1 objective with each phase-2 criterion), as a user may write
    /// one, decides as the reference loop.
    #[test]
    fn any_plan_decides_as_the_reference_loop(
        system in system_strategy(),
        success_first in any::<bool>(),
        key in 0usize..5,
        free_only in any::<bool>(),
    ) {
        use heuristics::{Phase1, Phase2, Plan};
        let plan = Plan {
            phase1: if success_first { Phase1::MaxSuccess } else { Phase1::MinCompletion },
            phase2: match key {
                0 => Phase2::MinCompletion { tie_by_execution: false },
                1 => Phase2::MinCompletion { tie_by_execution: true },
                2 => Phase2::SoonestDeadline,
                3 => Phase2::MaxUrgency,
                _ => Phase2::Shortlist { epsilon: 0.1 },
            },
            scope: if free_only { Phase1Scope::FreeMachines } else { Phase1Scope::AllMachines },
        };
        let h = TwoPhase::from_plan("custom", plan);
        let r = h.clone();
        same_decisions(&system, h, |v| r.map_reference(v))?;
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    /// Copies of machine types, exact in one system and 1e-12 apart in its twin: the same
    /// decisions by the reference loop on both, and the accelerated search's decisions are
    /// the reference's on both, for every batch heuristic and any plan.
    #[test]
    fn near_ties_decide_as_exact_ties_and_the_search_as_the_reference(
        systems in near_ties_strategy(),
        free_only in any::<bool>(),
        alpha in 0.0f64..0.6,
        success_first in any::<bool>(),
        key in 0usize..5,
    ) {
        let scope = if free_only { Phase1Scope::FreeMachines } else { Phase1Scope::AllMachines };
        near_ties_decide_as_exact_ties(
            &systems,
            scope,
            alpha,
            &[TwoPhase::mm, TwoPhase::msd, TwoPhase::pam, TwoPhase::edf, TwoPhase::sjf],
        )?;
        use heuristics::{Phase1, Phase2, Plan};
        let plan = Plan {
            phase1: if success_first { Phase1::MaxSuccess } else { Phase1::MinCompletion },
            phase2: match key {
                0 => Phase2::MinCompletion { tie_by_execution: false },
                1 => Phase2::MinCompletion { tie_by_execution: true },
                2 => Phase2::SoonestDeadline,
                3 => Phase2::MaxUrgency,
                _ => Phase2::Shortlist { epsilon: ODD_EPSILON },
            },
            scope,
        };
        for system in [&systems.0, &systems.1] {
            for h in [TwoPhase::from_plan("custom", plan), TwoPhase::mmu(scope)] {
                let r = h.clone();
                same_decisions(system, h, |v| r.map_reference(v))?;
            }
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(16))]

    /// [`near_ties_decide_as_exact_ties_and_the_search_as_the_reference`] with 64-320
    /// machines, where the searches index and narrow the machines, keep searches, and skip
    /// idle copies.
    #[test]
    fn with_many_machines_near_ties_decide_as_exact_ties(
        systems in many_near_ties_strategy(),
        alpha in 0.0f64..0.6,
    ) {
        near_ties_decide_as_exact_ties(
            &systems,
            Phase1Scope::AllMachines,
            alpha,
            &[TwoPhase::pam, TwoPhase::mm, TwoPhase::msd],
        )?;
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(8))]

    /// [`near_ties_decide_as_exact_ties_and_the_search_as_the_reference`] with a large batch,
    /// where MaxSuccess shares one search per (task type, deadline) class.
    #[test]
    fn with_a_large_batch_near_ties_decide_as_exact_ties(
        systems in large_batch_near_ties_strategy(),
        alpha in 0.0f64..0.6,
    ) {
        near_ties_decide_as_exact_ties(&systems, Phase1Scope::AllMachines, alpha, &[TwoPhase::pam])?;
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    /// Copies whose chances and expected completions lie about the decision slack apart, so
    /// that which machines tie with the best moves as machines receive tasks: the search,
    /// which keeps a choice until a machine it rests on changes, decides as the reference
    /// loop, for every batch heuristic and any plan.
    #[test]
    fn with_staggered_ties_the_search_decides_as_the_reference_loop(
        systems in staggered_ties_strategy(),
        free_only in any::<bool>(),
        alpha in 0.0f64..0.6,
        success_first in any::<bool>(),
        key in 0usize..5,
    ) {
        let scope = if free_only { Phase1Scope::FreeMachines } else { Phase1Scope::AllMachines };
        every_heuristic_and_a_plan(&systems.1, scope, alpha, success_first, key)?;
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(16))]

    /// [`with_staggered_ties_the_search_decides_as_the_reference_loop`] with 64-320 machines.
    #[test]
    fn with_many_machines_and_staggered_ties_the_search_decides_as_the_reference_loop(
        systems in many_staggered_ties_strategy(),
        alpha in 0.0f64..0.6,
    ) {
        let scope = Phase1Scope::AllMachines;
        for h in [TwoPhase::pam(scope), TwoPhase::mm(scope), TwoPhase::msd(scope)] {
            let r = h.clone();
            same_decisions(&systems.1, h, |v| r.map_reference(v))?;
        }
        let moc = Moc::new(alpha, ODD_EPSILON, scope);
        let r = moc.clone();
        same_decisions(&systems.1, moc, |v| r.map_reference(v))?;
    }
}

/// Every named batch heuristic and the plan `(success_first, key)` decide as the reference
/// loop on `system`.
fn every_heuristic_and_a_plan(
    system: &System,
    scope: Phase1Scope,
    alpha: f64,
    success_first: bool,
    key: usize,
) -> Result<(), TestCaseError> {
    use heuristics::{Phase1, Phase2, Plan};
    let plan = Plan {
        phase1: if success_first {
            Phase1::MaxSuccess
        } else {
            Phase1::MinCompletion
        },
        phase2: match key {
            0 => Phase2::MinCompletion {
                tie_by_execution: false,
            },
            1 => Phase2::MinCompletion {
                tie_by_execution: true,
            },
            2 => Phase2::SoonestDeadline,
            3 => Phase2::MaxUrgency,
            _ => Phase2::Shortlist {
                epsilon: ODD_EPSILON,
            },
        },
        scope,
    };
    for h in [
        TwoPhase::mm(scope),
        TwoPhase::msd(scope),
        TwoPhase::mmu(scope),
        TwoPhase::pam(scope),
        TwoPhase::edf(scope),
        TwoPhase::sjf(scope),
        TwoPhase::from_plan("custom", plan),
    ] {
        let r = h.clone();
        same_decisions(system, h, |v| r.map_reference(v))?;
    }
    let moc = Moc::new(alpha, ODD_EPSILON, scope);
    let r = moc.clone();
    same_decisions(system, moc, |v| r.map_reference(v))
}
