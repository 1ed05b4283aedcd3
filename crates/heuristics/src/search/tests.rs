//! Tests of the accelerated search against its plain definitions (module `search`).

use super::*;
use model::TaskSpec;
use proptest::prelude::*;
use workload::Pet;

/// Runs `infer_deferrals` on tasks `(type, deadline)` with a chance that grows with the
/// deadline, `p = chance(type, deadline)`; returns (deferred set, number of probes).
fn infer(
    specs: &[(usize, i64)],
    threshold: f64,
    chance: fn(usize, i64) -> f64,
) -> (Vec<usize>, usize) {
    let pet = Pet::default_pet(1);
    let tasks: Vec<TaskSpec> = specs
        .iter()
        .enumerate()
        .map(|(id, &(task_type, deadline))| TaskSpec {
            id,
            task_type,
            arrival: 0,
            deadline,
        })
        .collect();
    let batch: Vec<TaskId> = (0..tasks.len()).collect();
    let thresholds = vec![threshold; pet.n_types()];
    let oracle = model::Oracle::new(0);
    let view = View::new(0, &pet, &tasks, &batch, &[], &oracle, pmf::DropModel::All)
        .with_defer(Some(&thresholds));
    let mut probes = 0;
    let mut deferred = Vec::new();
    let mut sc = DeferScratch::default();
    let inferred = infer_deferrals(&view, &batch, &mut sc, |i| {
        probes += 1;
        let p = chance(tasks[i].task_type, tasks[i].deadline);
        if p <= threshold {
            deferred.push(i);
            Verdict::Deferred { p }
        } else {
            Verdict::Chosen {
                m: 0,
                p,
                rests_on: [0; 3],
            }
        }
    });
    // As the loop does: the tasks neither probed nor inferred are evaluated one by one.
    let probed = probes;
    for i in 0..tasks.len() {
        let done = deferred.contains(&i) || inferred.contains(&i);
        if !done && chance(tasks[i].task_type, tasks[i].deadline) <= threshold {
            deferred.push(i);
        }
    }
    deferred.extend_from_slice(inferred);
    deferred.sort_unstable();
    (deferred, probed)
}

fn linear(task_type: usize, deadline: i64) -> f64 {
    // Type 1 is easier: the same deadline gives it a better chance.
    ((deadline as f64 - 100.0) / 100.0 + 0.25 * task_type as f64).clamp(0.0, 1.0)
}

#[test]
fn deferrals_by_type_and_deadline_on_a_hand_example() {
    // Threshold 0.5: type 0 is deferred up to deadline 150, type 1 up to 125.
    let specs = [
        (0, 120),
        (1, 120),
        (0, 150),
        (1, 130),
        (0, 160),
        (1, 110),
        (0, 140),
    ];
    let (deferred, probes) = infer(&specs, 0.5, linear);
    // Type 0: 120, 140 and 150 (p = 0.5, deferred, but at the threshold itself so only
    // by its own probe); type 1: 110, 120.
    assert_eq!(deferred, vec![0, 1, 2, 5, 6]);
    assert!(probes <= specs.len());
}

#[test]
fn a_long_group_takes_logarithmic_probes() {
    // 1,000 tasks of one type, all deferred but the 3 latest.
    let specs: Vec<(usize, i64)> = (0..1000i64).map(|k| (0, 100 + k)).collect();
    fn steep(_: usize, d: i64) -> f64 {
        if d >= 1097 { 0.9 } else { 0.1 }
    }
    let (deferred, probes) = infer(&specs, 0.5, steep);
    assert_eq!(deferred, (0..997).collect::<Vec<_>>());
    assert!(probes <= 12, "{probes} probes");
}

#[test]
fn pet_quantile_cuts_by_hand() {
    // P(E < 10 + k): k = 0 -> 0, 1 -> 0.1, 2 -> 0.1 (zero bin), 3 -> 0.5, 4 -> 1.
    let pet = pmf::ExecPmf::from(pmf::Pmf::new(10, vec![0.1, 0.0, 0.4, 0.5]).unwrap());
    assert_eq!(last_bin_below(&pet, 0.0), 0);
    assert_eq!(last_bin_below(&pet, 0.1), 2);
    assert_eq!(last_bin_below(&pet, 0.45), 2);
    assert_eq!(last_bin_below(&pet, 0.5), 3);
    assert_eq!(last_bin_below(&pet, 1.0), 4);
    assert_eq!(first_bin_reaching(&pet, -1.0), Some(0));
    assert_eq!(first_bin_reaching(&pet, 0.05), Some(1));
    assert_eq!(first_bin_reaching(&pet, 0.5), Some(3));
    assert_eq!(first_bin_reaching(&pet, 0.9), Some(4));
    assert_eq!(first_bin_reaching(&pet, 1.5), None);
}

proptest! {
    /// The bucketed order is the sort of (type, deadline, index), whatever the deadlines.
    #[test]
    fn bucketed_order_equals_the_sort(
        specs in prop::collection::vec((0usize..4, 0i64..40), 0..80),
        sorted_deadlines in any::<bool>(),
    ) {
        let pet = Pet::default_pet(1);
        let mut specs = specs;
        if sorted_deadlines {
            // The common case: deadlines grow with the index.
            specs.iter_mut().enumerate().for_each(|(i, s)| s.1 += 40 * i as i64);
        }
        let tasks: Vec<TaskSpec> = specs
            .iter()
            .enumerate()
            .map(|(id, &(task_type, deadline))| TaskSpec { id, task_type, arrival: 0, deadline })
            .collect();
        // Candidates in a shuffled-looking order: every third task first.
        let cands: Vec<TaskId> = (0..tasks.len()).filter(|i| i % 3 == 0)
            .chain((0..tasks.len()).filter(|i| i % 3 != 0))
            .collect();
        let oracle = model::Oracle::new(0);
        let view = View::new(0, &pet, &tasks, &cands, &[], &oracle, pmf::DropModel::All);
        let mut keyed: Vec<(usize, i64, usize)> = cands
            .iter()
            .enumerate()
            .map(|(i, &t)| (tasks[t].task_type, tasks[t].deadline, i))
            .collect();
        keyed.sort_unstable();
        let expected: Vec<usize> = keyed.into_iter().map(|k| k.2).collect();
        let mut sc = DeferScratch::default();
        by_type_and_deadline(&view, &cands, &mut sc);
        let got: Vec<usize> = sc.by_type.iter().map(|&(_, i)| i).collect();
        prop_assert_eq!(got, expected);
    }
}

proptest! {
    /// Whatever the deadlines, the inferred deferrals are exactly the tasks whose own
    /// chance is at or below the threshold.
    #[test]
    fn inference_equals_evaluating_every_task(
        specs in prop::collection::vec((0usize..3, 50i64..260), 0..60),
        threshold in 0.0f64..1.0,
    ) {
        let (deferred, _) = infer(&specs, threshold, linear);
        let expected: Vec<usize> = specs
            .iter()
            .enumerate()
            .filter(|&(_, &(k, d))| linear(k, d) <= threshold)
            .map(|(i, _)| i)
            .collect();
        prop_assert_eq!(deferred, expected);
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(96))]

    /// With many machines, the indexed phase 1 answers as the full scan (a deferral with
    /// the margin being one answer, whichever machine is best), before and after
    /// provisional assignments, on exact and on earlier (stale) tails, with full and free
    /// machines.
    #[test]
    fn indexed_phase1_equals_the_full_scan(
        seed in 0u64..1_000,
        queues in prop::collection::vec((0usize..12, 0usize..4, 0i64..150), 80),
        limit in 1usize..5,
        cands in prop::collection::vec((0usize..12, 1i64..1_500), 1..40),
        defer in prop_oneof![2 => Just(None), 1 => Just(Some(0.5)), 1 => Just(Some(0.9)), 1 => Just(Some(1e-10))],
        free_scope in any::<bool>(),
        model in prop_oneof![Just(pmf::DropModel::All), Just(pmf::DropModel::Pending)],
        assigns in prop::collection::vec(0usize..80, 0..6),
        narrow in any::<bool>(),
    ) {
        use model::Machine;
        let pet = Pet::default_pet(1).draw_machines(80, seed);
        let mut tasks: Vec<TaskSpec> = Vec::new();
        let mut spec = |task_type: usize, deadline: i64| {
            tasks.push(TaskSpec { id: tasks.len(), task_type, arrival: 0, deadline });
            tasks.len() - 1
        };
        let mut machines: Vec<Machine> = Vec::new();
        let mut plan = Vec::new();
        for (m, &(ty, len, dl)) in queues.iter().enumerate() {
            let mut mc = Machine::new(m, Some(limit));
            if len > 0 || m % 3 != 0 {
                let len = len.max(1);
                let t = spec(ty, 100 + dl * 4);
                mc.start(-(dl % 40), t, 1_000);
                for k in 1..len {
                    let t = spec((ty + k) % 12, 200 + dl * 3 + 90 * k as i64);
                    mc.push(t);
                }
            }
            plan.push(mc);
        }
        let ids: Vec<TaskId> = cands.iter().map(|&(ty, d)| spec(ty, d)).collect();
        // Half the machines computed at 0 and left stale at 20, half computed at 20.
        machines.extend(plan);
        let mut oracle = model::Oracle::new(machines.len());
        oracle.sync(&machines, 0);
        let at_0 = View::new(0, &pet, &tasks, &[], &machines, &oracle, model);
        for m in (0..machines.len()).step_by(2) {
            let _ = at_0.queue(m);
        }
        oracle.sync(&machines, 20);
        let at_20 = View::new(20, &pet, &tasks, &[], &machines, &oracle, model);
        for m in (1..machines.len()).step_by(2) {
            let _ = at_20.queue(m);
        }
        let thresholds = defer.map(|q| vec![q; pet.n_types()]);
        let view = View::new(20, &pet, &tasks, &ids, &machines, &oracle, model).with_defer(thresholds.as_deref());
        let scope = if free_scope { Phase1Scope::FreeMachines } else { Phase1Scope::AllMachines };
        let mut vq = VirtualQueues::from_view(&view);
        let all: Vec<MachineId> = (0..machines.len()).collect();
        let mut indexes = Indexes::new(narrow);
        let mut order = Vec::new();
        // Searches kept before the assignments, from the indexed and the full scan, with
        // the success cache of the event (invalidated per assigned machine, as `run`).
        let mut memos = [Memo::new(ids.len()), Memo::new(ids.len())];
        let mut event_succ = SuccessCache::new(ids.len(), machines.len());
        let mut chosen = Vec::new();
        let mut check = |vq: &VirtualQueues,
                         indexes: &mut Indexes,
                         memos: &mut [Memo; 2],
                         event_succ: &mut SuccessCache,
                         chosen: &mut Vec<MachineId>,
                         first: bool| {
            let mut succ = SuccessCache::new(ids.len(), machines.len());
            for (i, &t) in ids.iter().enumerate() {
                // A best machine below the threshold by the slack is a deferral with the
                // margin, which is what `BelowDefer` says without naming the machine.
                let settle = |b: Best, succ: &mut SuccessCache| match (b, defer) {
                    (Best::Machine { choice, .. }, Some(q))
                        if succ.get(&view, vq, i, t, choice.m) < q - BOUND_SLACK =>
                    {
                        Best::BelowDefer
                    }
                    _ => b,
                };
                let mut kept = (0, f64::NAN);
                let full = max_success(&view, scope, vq, &mut succ, &mut order, &all, (i, t), &mut kept);
                if first && matches!(full, Best::Machine { .. }) {
                    memos[1].keep(i, &order, kept, f64::NEG_INFINITY);
                }
                let full = settle(full, &mut succ);
                let mut cap = f64::NEG_INFINITY;
                let fast = max_success_indexed(
                    &view, scope, vq, event_succ, &mut order, (&all, Some(&mut *indexes)),
                    (i, t), (&mut kept, &mut cap),
                );
                if first && matches!(fast, Best::Machine { .. }) {
                    memos[0].keep(i, &order, kept, cap);
                }
                let fast = settle(fast, event_succ);
                prop_assert_eq!(full, fast, "candidate {}", i);
                if let Best::Machine { choice, .. } = full {
                    chosen.push(choice.m);
                }
                if !first {
                    for memo in memos.iter_mut() {
                        if let Some(b) = memo.reevaluate(&view, scope, vq, event_succ, (i, t)) {
                            prop_assert_eq!(full, settle(b, event_succ), "kept search {}", i);
                        }
                    }
                }
            }
            Ok(())
        };
        check(&vq, &mut indexes, &mut memos, &mut event_succ, &mut chosen, true)?;
        // The indexes built before provisional assignments stay valid after them, and so
        // do the searches kept. Half the assignments go to machines chosen in phase 1.
        let targets: Vec<MachineId> = assigns
            .iter()
            .enumerate()
            .map(|(k, &m)| if k % 2 == 0 && !chosen.is_empty() { chosen[m % chosen.len()] } else { m })
            .collect();
        for &m in &targets {
            if vq.free(m) > 0 {
                vq.assign(&view, m, ids[0]);
                event_succ.invalidate_machine(m);
            }
        }
        check(&vq, &mut indexes, &mut memos, &mut event_succ, &mut Vec::new(), false)?;
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    /// MinCompletion in both phases without deferring (MM, MSD and their variants):
    /// the per-type loop makes the assignments of the per-candidate loop, in the same
    /// order, with the same PCTs handed over, whatever the phase-2 key, scope and
    /// dropping model. Deadlines repeat and types share machines' minima, so ties in
    /// both phases are common.
    #[test]
    fn the_per_type_loop_assigns_as_the_per_candidate_loop(
        queues in prop::collection::vec(
            (0usize..6, 40i64..400, prop::collection::vec((0usize..6, 40i64..600), 0..3)),
            1..6,
        ),
        batch in prop::collection::vec((0usize..6, 0i64..6), 0..24),
        limit in 1usize..4,
        now in 0i64..30,
        key in 0usize..4,
        free_only in any::<bool>(),
        model in prop_oneof![
            Just(pmf::DropModel::None),
            Just(pmf::DropModel::Pending),
            Just(pmf::DropModel::All),
        ],
    ) {
        // Types 2j and 2j + 1 share their PMFs, and so do machines 0 and 1, and 3 and
        // 4: equal expected completions across types and machines.
        let base = Pet::default_pet(3).select_machines(&[0, 0, 1, 2, 2]);
        let pet = Pet::new(
            ndarray::Array2::from_shape_fn((6, 5), |(t, m)| base.pmf(t / 2, m).clone()),
            (0..6).map(|t| format!("t{t}")).collect(),
            (0..5).map(|m| format!("m{m}")).collect(),
        )
        .unwrap();
        let mut tasks = Vec::new();
        let mut machines = Vec::new();
        for (m, (ty, d, pending)) in queues.iter().enumerate() {
            let mut mc = model::Machine::new(m, Some(limit));
            let id = tasks.len();
            tasks.push(TaskSpec { id, task_type: *ty, arrival: 0, deadline: *d });
            mc.start(0, id, 1_000);
            for &(qty, qd) in pending.iter().take(limit) {
                let id = tasks.len();
                tasks.push(TaskSpec { id, task_type: qty, arrival: 0, deadline: qd });
                mc.push(id);
            }
            machines.push(mc);
        }
        let mut cands = Vec::new();
        for &(ty, d) in &batch {
            let id = tasks.len();
            // Few types and few deadlines: ties everywhere.
            tasks.push(TaskSpec { id, task_type: ty, arrival: 0, deadline: 100 + 50 * d });
            cands.push(id);
        }
        let mut oracle = model::Oracle::new(machines.len());
        oracle.sync(&machines, now);
        let oracle_b = oracle.clone();
        let view = View::new(now, &pet, &tasks, &cands, &machines, &oracle, model);
        let view_b = view.with_oracle(&oracle_b);
        let plan = Plan {
            phase1: Phase1::MinCompletion,
            phase2: match key {
                0 => Phase2::MinCompletion { tie_by_execution: false },
                1 => Phase2::MinCompletion { tie_by_execution: true },
                2 => Phase2::SoonestDeadline,
                _ => Phase2::MaxUrgency,
            },
            scope: if free_only { Phase1Scope::FreeMachines } else { Phase1Scope::AllMachines },
        };
        prop_assert!(by_type_applies(&view, plan));
        let (mut a, mut b) = (Decision::default(), Decision::default());
        let mut vq_a = VirtualQueues::from_view_lazy(&view);
        run_in(
            &mut Buffers::default(),
            &view,
            plan,
            &mut vq_a,
            &cands,
            &mut a,
            (&mut ChanceMemo::default(), &mut Carry::default()),
        );
        let mut vq_b = VirtualQueues::from_view_lazy(&view_b);
        run_by_type(&mut Buffers::default(), &view_b, plan, &mut vq_b, &cands, &mut b);
        prop_assert_eq!(&a.assign, &b.assign);
        for &(t, m) in &a.assign {
            prop_assert_eq!(oracle.handed_over(m, t), oracle_b.handed_over(m, t));
        }
        prop_assert_eq!(a, b);
    }
}

/// MaxSuccess on `machines` machines drawn from the default PET's 8 (copies), with the
/// machines in `busy` executing a task from tick 0: runs one event of `plan` over the
/// candidates `(type, deadline)` with the shortcuts of phase 1 on or off.
fn many_machines_event(
    machines: usize,
    seed: u64,
    busy: &[(usize, usize, i64)],
    cands: &[(usize, i64)],
    plan: Plan,
    defer: Option<f64>,
    model: pmf::DropModel,
    plain: bool,
) -> (Decision, Vec<bool>) {
    let pet = Pet::default_pet(1).draw_machines(machines, seed);
    let mut tasks = Vec::new();
    let mut ms: Vec<model::Machine> = (0..machines)
        .map(|m| model::Machine::new(m, Some(3)))
        .collect();
    for &(m, ty, d) in busy {
        let id = tasks.len();
        tasks.push(TaskSpec {
            id,
            task_type: ty,
            arrival: 0,
            deadline: d,
        });
        if ms[m % machines].is_empty() {
            ms[m % machines].start(0, id, 1_000);
        } else {
            ms[m % machines].push(id);
        }
    }
    let ids: Vec<TaskId> = cands
        .iter()
        .map(|&(ty, d)| {
            tasks.push(TaskSpec {
                id: tasks.len(),
                task_type: ty,
                arrival: 0,
                deadline: d,
            });
            tasks.len() - 1
        })
        .collect();
    let mut oracle = model::Oracle::new(ms.len());
    oracle.sync(&ms, 5);
    let thresholds = defer.map(|q| vec![q; pet.n_types()]);
    let view =
        View::new(5, &pet, &tasks, &ids, &ms, &oracle, model).with_defer(thresholds.as_deref());
    PLAIN.with(|p| p.set(plain));
    let mut decision = Decision::default();
    let mut vq = VirtualQueues::from_view(&view);
    run(
        &view,
        plan,
        &mut vq,
        &ids,
        &mut decision,
        &mut Kept::default(),
    );
    PLAIN.with(|p| p.set(false));
    let handed = decision
        .assign
        .iter()
        .map(|&(t, m)| oracle.handed_over(m, t))
        .collect();
    (decision, handed)
}

const PAM: Plan = Plan {
    phase1: Phase1::MaxSuccess,
    phase2: Phase2::MinCompletion {
        tie_by_execution: true,
    },
    scope: Phase1Scope::FreeMachines,
};

/// Candidates of one type and one deadline on thousands of idle copies all choose the
/// first copy of the best machine, and each assignment there sends them back to phase 1.
/// Their class shares one search, and a search skips the idle copies of a machine it has
/// seen: the searches cost O(candidates + machines) reads of the success cache, not
/// O(candidates^2 x machines) (about 10^7 here).
#[test]
fn a_class_on_idle_copies_costs_linear_reads() {
    let cands: Vec<(usize, i64)> = (0..300).map(|k| (k % 2, 400)).collect();
    GETS.with(|g| g.set(0));
    let (fast, _) =
        many_machines_event(2048, 7, &[], &cands, PAM, None, pmf::DropModel::All, false);
    let reads = GETS.with(std::cell::Cell::get);
    assert_eq!(fast.assign.len(), 300);
    assert!(
        reads <= 20 * (300 + 2048),
        "{reads} reads of the success cache"
    );
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    /// With many machines, the class cache and the skipped idle copies leave every
    /// decision and every PCT handed over as they are without them: busy and idle
    /// copies, few types and deadlines (classes), PAM and MOC's shortlist, deferring on
    /// and off, either scope and dropping model.
    #[test]
    fn the_shortcuts_of_phase1_keep_every_decision(
        seed in 0u64..1_000,
        machines in 256usize..320,
        busy in prop::collection::vec((0usize..320, 0usize..12, 20i64..400), 0..200),
        cands in prop::collection::vec((0usize..3, 0i64..4), 1..60),
        defer in prop_oneof![Just(None), Just(Some(0.5)), Just(Some(0.9))],
        shortlist in any::<bool>(),
        free_only in any::<bool>(),
        model in prop_oneof![Just(pmf::DropModel::All), Just(pmf::DropModel::Pending)],
    ) {
        let cands: Vec<(usize, i64)> = cands.iter().map(|&(ty, d)| (ty, 60 + 40 * d)).collect();
        let plan = Plan {
            phase2: if shortlist { Phase2::Shortlist { epsilon: 0.1 } } else { PAM.phase2 },
            scope: if free_only { Phase1Scope::FreeMachines } else { Phase1Scope::AllMachines },
            ..PAM
        };
        let mut fast = many_machines_event(machines, seed, &busy, &cands, plan, defer, model, false);
        let mut plain = many_machines_event(machines, seed, &busy, &cands, plan, defer, model, true);
        // The deferred tasks as a set: the loop by class lists them class by class.
        fast.0.deferred.sort_unstable();
        plain.0.deferred.sort_unstable();
        prop_assert_eq!(fast, plain);
    }
}

proptest! {
    /// Phase 2 over keys in any order, each with its batch position, picks the candidate it
    /// picks over the same keys in batch order: keys on a few values, some a hair apart
    /// (within the slack: they tie).
    #[test]
    fn the_pick_in_any_order_is_the_pick_in_batch_order(
        keys in prop::collection::vec((0u8..4, 0u8..4, any::<bool>()), 1..30),
        shuffle in any::<u64>(),
        by_deadline in any::<bool>(),
    ) {
        let phase2 = if by_deadline { Phase2::SoonestDeadline } else { PAM.phase2 };
        let hair = |x: u8, near: bool| f64::from(x) * 100.0 * if near { 1.0 + 1e-12 } else { 1.0 };
        let in_batch: Vec<(f64, f64)> =
            keys.iter().map(|&(a, b, near)| (hair(a, near), hair(b, !near))).collect();
        // Batch positions in a shuffled order.
        let mut order: Vec<usize> = (0..in_batch.len()).collect();
        order.sort_by_key(|&j| (j as u64 + 1).wrapping_mul(shuffle | 1).rotate_left(17));
        let shuffled: Vec<(f64, f64)> = order.iter().map(|&j| in_batch[j]).collect();
        let want = phase2_pick(phase2, &in_batch);
        let got = phase2_pick_by(phase2, &shuffled, |j| order[j]).map(|j| order[j]);
        prop_assert_eq!(got, want);
    }
}
