//! The lazy PCT cache of a machine: the bounds its earlier PCTs give on the current ones
//! (`Machine::stale`), and appending to a computed cache (`Machine::append`, and
//! `Machine::append_computed` with the PCTs a heuristic hands over).

use model::TaskSpec;
use pmf::{DropModel, Pmf, Tick};
use proptest::prelude::*;
use proptest::test_runner::TestCaseError;
use workload::Pet;

use crate::common::{pet_of, task};
use crate::queues::{Fleet, Machine};

/// A PET of wide, uneven PMFs so that conditioning moves things.
fn wide_pet(shapes: &[(i64, Vec<f64>)]) -> Pet {
    let pmf = |k: usize| {
        let (off, w) = &shapes[k % shapes.len()];
        Pmf::from_weights(*off, w.clone()).unwrap()
    };
    pet_of(vec![vec![pmf(0), pmf(1)], vec![pmf(2), pmf(3)]])
}

fn shapes() -> impl Strategy<Value = Vec<(i64, Vec<f64>)>> {
    prop::collection::vec(
        (1i64..6, prop::collection::vec(0.0f64..1.0, 2..14)).prop_map(|(o, mut w)| {
            w[0] += 0.01;
            (o, w)
        }),
        4,
    )
}

fn models() -> impl Strategy<Value = DropModel> {
    prop_oneof![
        Just(DropModel::None),
        Just(DropModel::Pending),
        Just(DropModel::All)
    ]
}

/// A machine executing task 0 since tick 0, with `queue` pending (type, deadline) behind it.
fn machine(queue: &[(usize, i64)], exec_deadline: i64) -> (Machine, Vec<TaskSpec>) {
    let mut tasks = vec![task(0, 0, 0, exec_deadline)];
    let mut m = Machine::new(1, None);
    m.start(0, 0, 1_000);
    for (i, &(ty, d)) in queue.iter().enumerate() {
        tasks.push(task(i + 1, ty, 0, d));
        m.push(i + 1);
    }
    (m, tasks)
}

const EPS: f64 = 1e-12;

/// A PET of 2 types x 4 machines from the shapes (type `t` on machine `m`: shape `t + m`).
fn pet_2x4(shapes: &[(i64, Vec<f64>)]) -> Pet {
    let pmf = |k: usize| {
        let (off, w) = &shapes[k % shapes.len()];
        Pmf::from_weights(*off, w.clone()).unwrap()
    };
    pet_of(
        (0..2)
            .map(|t| (0..4).map(|m| pmf(t + m)).collect())
            .collect(),
    )
}

/// Machine `m` of `queues` executing a task of type `m % 2` (deadline `exec_deadlines[m]`)
/// since tick 0, with its queue of (type, deadline) pending behind it; queue limit `limit`.
fn busy_machines(
    queues: &[Vec<(usize, i64)>],
    exec_deadlines: &[i64],
    limit: Option<usize>,
) -> (Vec<Machine>, Vec<TaskSpec>) {
    let mut tasks = Vec::new();
    let mut machines = Vec::new();
    for (m, (queue, &d)) in queues.iter().zip(exec_deadlines).enumerate() {
        let mut mc = Machine::new(m, limit);
        let id = tasks.len();
        tasks.push(task(id, m % 2, 0, d));
        mc.start(0, id, 1_000);
        for &(qty, qd) in queue {
            let id = tasks.len();
            tasks.push(task(id, qty, 0, qd));
            mc.push(id);
        }
        machines.push(mc);
    }
    (machines, tasks)
}

/// Four busy machines' queues and executing tasks' deadlines, the tick `t0` where half of
/// them are computed, the ticks `dt` until the event, and a task type: [`half_stale`]'s input.
type HalfStale = (Vec<Vec<(usize, i64)>>, Vec<i64>, i64, i64, usize);

/// Draws a [`HalfStale`].
fn half_stale_setup() -> impl Strategy<Value = HalfStale> {
    (
        prop::collection::vec(prop::collection::vec((0usize..2, 1i64..120), 0..4), 4),
        prop::collection::vec(8i64..80, 4),
        0i64..6,
        0i64..8,
        0usize..2,
    )
}

/// [`busy_machines`] with every other machine's PCTs computed at `t0` (stale at `now`), the
/// others never computed, all moved to `now`.
fn half_stale(
    queues: &[Vec<(usize, i64)>],
    exec_deadlines: &[i64],
    t0: i64,
    now: i64,
    pet: &Pet,
    model: DropModel,
) -> (Vec<Machine>, Vec<TaskSpec>) {
    let (mut machines, tasks) = busy_machines(queues, exec_deadlines, None);
    for mc in machines.iter_mut().step_by(2) {
        mc.refresh(t0, &tasks, pet, model);
    }
    for mc in &mut machines {
        mc.advance(now);
    }
    (machines, tasks)
}

/// Copies of `machines` with their PCTs computed afresh at `now`: the brute force the bounds
/// of earlier PCTs are checked against.
fn recomputed(
    machines: &[Machine],
    now: Tick,
    tasks: &[TaskSpec],
    pet: &Pet,
    model: DropModel,
) -> Vec<Machine> {
    machines
        .iter()
        .map(|mc| {
            let mut f = mc.clone();
            f.invalidate();
            f.refresh(now, tasks, pet, model);
            f
        })
        .collect()
}

/// Appends tasks of the given (type, deadline) to `tasks`; their ids.
fn add_tasks(tasks: &mut Vec<TaskSpec>, extra: &[(usize, i64)]) -> Vec<usize> {
    extra
        .iter()
        .map(|&(ty, d)| {
            let id = tasks.len();
            tasks.push(task(id, ty, 0, d));
            id
        })
        .collect()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    /// Every bound of `Machine::stale` holds against the PCTs computed at the later tick.
    #[test]
    fn stale_pcts_bound_the_current_ones(
        sh in shapes(),
        queue in prop::collection::vec((0usize..2, 1i64..120), 0..5),
        exec_deadline in 8i64..80,
        t0 in 0i64..6,
        dt in 1i64..8,
        model in models(),
    ) {
        let pet = wide_pet(&sh);
        let (mut m, tasks) = machine(&queue, exec_deadline);
        m.refresh(t0, &tasks, &pet, model);
        let old = m.cache(&tasks, &pet, model).clone();
        let t1 = t0 + dt;
        m.advance(t1);
        let Some(stale) = m.stale(&tasks, &pet, model) else {
            // No bound: the cache carried over exactly, or the bound does not apply.
            return Ok(());
        };
        prop_assert_eq!(stale.cache.slots().len(), old.slots().len());
        prop_assert!(stale.ratio >= 1.0);
        let mut fresh = m.clone();
        fresh.refresh(t1, &tasks, &pet, model);
        let new = fresh.cache(&tasks, &pet, model);
        for (k, (s0, s1)) in old.slots().iter().zip(new.slots()).enumerate() {
            prop_assert!(stale.success_lower(k) <= s1.success() + EPS,
                "slot {}: lower {} > {}", k, stale.success_lower(k), s1.success());
            prop_assert!(s1.success() <= stale.ratio * s0.success() + EPS);
            if stale.monotone {
                prop_assert!(s1.success() <= s0.success() + EPS);
            }
        }
        let f = stale.upper_factor();
        let (tail0, tail1) = (old.tail(), new.tail());
        prop_assert!(tail0.min() <= tail1.min());
        for x in tail0.min() - 2..=tail0.max() + 2 {
            prop_assert!(tail1.at(x) <= f * tail0.at(x) + EPS, "CDF at {}", x);
        }
        prop_assert!(stale.tail_mean_lower() <= tail1.mean() + 1e-9,
            "lower {} > {}", stale.tail_mean_lower(), tail1.mean());
        prop_assert!(tail1.mean() <= stale.tail_mean_upper() + 1e-9);
        // Appending the same task to both keeps the bound: the append query too.
        let probe = pet.exec_pmf(1, 1);
        for d in [t1 + 5, t1 + 40, t1 + 120] {
            let a1 = tail1.append_success(probe, d);
            prop_assert!(a1 <= f * tail0.append_success(probe, d) + EPS);
            prop_assert!(a1 <= f * tail0.append_success_bound(probe, d) + EPS);
        }
    }

    /// The pruner's walk over a machine's cached slots (their PCTs and kept chances, until
    /// the first drop) drops exactly what the walk computing every PCT afresh drops, with a
    /// uniform threshold and with the per-task offset that reads each PCT's skewness.
    #[test]
    fn the_pruners_walk_over_cached_slots_is_the_walk_from_scratch(
        sh in shapes(),
        queue in prop::collection::vec((0usize..2, 1i64..120), 0..6),
        exec_deadline in 8i64..80,
        now in 0i64..10,
        threshold in 0.0f64..1.0,
        dynamic_weight in prop_oneof![Just(0.0), 0.0f64..1.0],
        read_first in any::<bool>(),
        model in models(),
    ) {
        let pet = wide_pet(&sh);
        let (mut m, tasks) = machine(&queue, exec_deadline);
        m.refresh(now, &tasks, &pet, model);
        let slots = m.cache(&tasks, &pet, model).slots();
        if read_first {
            // A chance read before the walk is kept: the walk must read the same value.
            for s in slots {
                let _ = s.success();
            }
        }
        let start = m.running().map(|r| r.start);
        let queued: Vec<pruner::QueuedTask<'_>> = m
            .tasks()
            .enumerate()
            .map(|(i, t)| pruner::QueuedTask {
                task_type: tasks[t].task_type,
                pet: pet.exec_pmf(tasks[t].task_type, m.id()),
                deadline: tasks[t].deadline,
                start: if i == 0 { start } else { None },
            })
            .collect();
        prop_assert_eq!(queued.len(), slots.len());
        let rule = pruner::DropRule { threshold, dynamic_weight, sufferage: &[0.1, -0.1] };
        let cached = pruner::walk_queue_cached(now, &queued, model, rule, Some(slots), 0.0);
        let fresh = pruner::walk_queue(now, &queued, model, rule);
        prop_assert_eq!(cached, fresh);
        for (s, q) in slots.iter().zip(&queued) {
            prop_assert_eq!(s.success().to_bits(), s.pct.prob_before(q.deadline).to_bits());
        }
    }

    /// Appending to a computed cache gives exactly the PCTs of computing the whole queue.
    #[test]
    fn appending_extends_the_cache_bit_for_bit(
        sh in shapes(),
        queue in prop::collection::vec((0usize..2, 1i64..120), 0..5),
        extra in (0usize..2, 1i64..150),
        ready in prop::option::of(0i64..40),
        now in 0i64..15,
        model in models(),
    ) {
        let pet = wide_pet(&sh);
        let (mut m, mut tasks) = machine(&queue, 60);
        let id = tasks.len();
        tasks.push(task(id, extra.0, 0, extra.1));
        let ready: Tick = ready.unwrap_or(Tick::MIN);
        let mut whole = m.clone();
        m.refresh(now, &tasks, &pet, model);
        m.append(id, ready, &tasks, &pet, model);
        prop_assert!(m.is_computed());
        whole.push_staged(id, ready);
        whole.refresh(now, &tasks, &pet, model);
        let (a, b) = (m.cache(&tasks, &pet, model), whole.cache(&tasks, &pet, model));
        prop_assert_eq!(a.slots(), b.slots());
        prop_assert_eq!(a.tail(), b.tail());
    }

    /// The PMFs a batch heuristic's virtual queues hand over to the oracle
    /// (`Oracle::hand_over`) are those the oracle computes when the engine appends, bit for
    /// bit, whatever the PCT epsilon; a tail replaced by `set_tail` (MOC's culling) hands
    /// nothing over.
    #[test]
    fn handed_over_pcts_are_what_appending_computes(
        sh in shapes(),
        queue in prop::collection::vec((0usize..2, 1i64..120), 0..5),
        extra in prop::collection::vec((0usize..2, 1i64..150), 1..3),
        now in 0i64..15,
        model in models(),
        trimmed in any::<bool>(),
    ) {
        let pet = wide_pet(&sh);
        let (m, mut tasks) = machine(&queue, 60);
        let eps = if trimmed { 1e-3 } else { 0.0 };
        let mut m = m.with_pct_epsilon(eps);
        let ids = add_tasks(&mut tasks, &extra);
        m.refresh(now, &tasks, &pet, model);
        // Machine 1 of the view is `m` (its id); machine 0 is idle.
        let mut fleet = Fleet::of(&[Machine::new(0, None).with_pct_epsilon(eps), m.clone()]);
        {
            let view = fleet.view(now, &pet, &tasks, &ids, model);
            let mut vq = model::VirtualQueues::from_view(&view);
            for &id in &ids {
                vq.assign(&view, 1, id);
            }
        }
        for &id in &ids {
            prop_assert!(fleet.oracle.handed_over(1, id));
        }
        // The engine's appends take them (checked against its own convolution in debug
        // builds) and extend the PMFs exactly as appending without them does.
        for &id in &ids {
            fleet.machines[1].push(id);
            fleet.oracle.appended(1, &fleet.machines[1], id, Tick::MIN, &tasks, &pet, model);
            prop_assert!(!fleet.oracle.handed_over(1, id));
        }
        for &id in &ids {
            m.append(id, Tick::MIN, &tasks, &pet, model);
        }
        let a = fleet.oracle.cache(1, &fleet.machines[1], &tasks, &pet, model);
        let b = m.cache(&tasks, &pet, model);
        prop_assert_eq!(a.slots(), b.slots());
        prop_assert_eq!(a.tail(), b.tail());
        // After `set_tail`, the machine's chain no longer starts from its own PMFs.
        let fleet = Fleet::of(&[Machine::new(0, None), m.clone()]);
        let view = fleet.view(now, &pet, &tasks, &ids, model);
        let mut vq = model::VirtualQueues::from_view(&view);
        vq.set_tail(1, None, 5);
        vq.assign(&view, 1, ids[0]);
        prop_assert!(!fleet.oracle.handed_over(1, ids[0]));
    }

    /// The means read without building a tail CDF are the CDF's, bit for bit: a machine
    /// cache's `tail_mean` (and `tail_min`), the executing task's mean of early mapping
    /// (`Oracle::executing_mean`, also when kept from an earlier tick), and the virtual
    /// queues' `tail_mean` after provisional assignments.
    #[test]
    fn means_read_without_the_cdf_are_the_cdfs(
        sh in shapes(),
        queue in prop::collection::vec((0usize..2, 1i64..120), 0..5),
        extra in prop::collection::vec((0usize..2, 1i64..150), 0..3),
        exec_deadline in 8i64..80,
        steps in prop::collection::vec(0i64..6, 1..6),
        model in models(),
    ) {
        let pet = wide_pet(&sh);
        let (mut kept, mut tasks) = machine(&queue, exec_deadline);
        let ids = add_tasks(&mut tasks, &extra);
        let mut now = 0;
        for dt in steps {
            now += dt;
            kept.advance(now);
            let early = kept.executing_mean(&tasks, &pet, model);
            // The same machine built afresh at this tick.
            let (mut fresh, _) = machine(&queue, exec_deadline);
            fresh.advance(now);
            let c = fresh.cache(&tasks, &pet, model);
            let mean = c.tail_mean();
            prop_assert_eq!(mean.to_bits(), c.tail().mean().to_bits());
            // The variance from the kept mean is the two-pass one.
            prop_assert_eq!(
                c.tail_variance().to_bits(),
                c.tail_pct().map_or(0.0, pmf::Pmf::variance).to_bits()
            );
            prop_assert_eq!(c.tail_min(), c.tail().min());
            prop_assert_eq!(
                early.map(f64::to_bits),
                c.slots().first().map(|s| s.pct.mean().to_bits())
            );
            let fleet = Fleet::of(&[Machine::new(0, None), fresh.clone()]);
            let view = fleet.view(now, &pet, &tasks, &ids, model);
            let mut vq = model::VirtualQueues::from_view(&view);
            for &id in &ids {
                vq.assign(&view, 1, id);
                vq.assign(&view, 0, id);
                for m in 0..2 {
                    let lazy = vq.tail_mean(&view, m);
                    prop_assert_eq!(lazy.to_bits(), vq.tail(&view, m).mean().to_bits());
                    prop_assert_eq!(vq.tail_min_lower(m), vq.tail(&view, m).min());
                }
            }
        }
    }

    /// The chain-free bounds on a queue's expected tail (`Machine::chain_mean_bounds`) hold
    /// against the computed PCTs, with staging and under every dropping model, and are exact
    /// but for rounding with one pending task.
    #[test]
    fn chain_free_mean_bounds_hold(
        sh in shapes(),
        queue in prop::collection::vec((0usize..2, 1i64..120, prop::option::of(0i64..40)), 1..4),
        exec_deadline in 8i64..80,
        now in 0i64..15,
        model in models(),
    ) {
        let pet = wide_pet(&sh);
        let mut tasks = vec![task(0, 0, 0, exec_deadline)];
        let mut m = Machine::new(1, None);
        m.start(0, 0, 1_000);
        for (i, &(ty, d, ready)) in queue.iter().enumerate() {
            tasks.push(task(i + 1, ty, 0, d));
            m.push_staged(i + 1, ready.unwrap_or(Tick::MIN));
        }
        m.advance(now);
        let bounds = m.chain_mean_bounds(&tasks, &pet, model);
        prop_assert_eq!(bounds.is_some(), queue.len() == 1);
        let Some((lower, upper)) = bounds else { return Ok(()); };
        let mean = m.cache(&tasks, &pet, model).tail_mean();
        prop_assert!(lower <= mean && mean <= upper, "{} <= {} <= {}", lower, mean, upper);
        prop_assert!((mean - lower) <= 1e-9 * mean.abs().max(1.0), "loose: {} vs {}", lower, mean);
        // A PCT epsilon turns them off.
        let trimmed = m.clone().with_pct_epsilon(1e-3);
        prop_assert!(trimmed.chain_mean_bounds(&tasks, &pet, model).is_none());
    }

    /// `Machine::chain_mean_bounds` keeps the first pending task's expected completion
    /// while the executing PCT it was computed on lies wholly after the tick: at every tick
    /// its bounds are those of the same machine built afresh there, bit for bit (also after
    /// the first pending task changes).
    #[test]
    fn chain_free_mean_bounds_kept_across_ticks_are_the_fresh_ones(
        sh in shapes(),
        first in (0usize..2, 1i64..120, prop::option::of(0i64..40)),
        second in (0usize..2, 1i64..120, prop::option::of(0i64..40)),
        exec_deadline in 8i64..80,
        exec_start in 0i64..10,
        steps in prop::collection::vec(0i64..8, 1..8),
        swap_at in 0usize..8,
        model in models(),
    ) {
        let pet = wide_pet(&sh);
        let mut tasks = vec![task(0, 0, 0, exec_deadline)];
        for (i, &(ty, d, _)) in [first, second].iter().enumerate() {
            tasks.push(task(i + 1, ty, 0, d));
        }
        let ready = |q: (usize, i64, Option<i64>)| q.2.unwrap_or(Tick::MIN);
        let build = |head: usize| {
            let mut m = Machine::new(1, None);
            m.start(exec_start, 0, 1_000);
            m.push_staged(head, ready(if head == 1 { first } else { second }));
            m
        };
        let mut kept = build(1);
        let mut head = 1;
        let mut now = exec_start;
        for (k, dt) in steps.into_iter().enumerate() {
            now += dt;
            if k == swap_at {
                // Another first pending task: what was kept no longer holds.
                kept.pop_pending();
                head = 2;
                kept.push_staged(head, ready(second));
            }
            kept.advance(now);
            let mut fresh = build(head);
            fresh.advance(now);
            let a = kept.chain_mean_bounds(&tasks, &pet, model);
            let b = fresh.chain_mean_bounds(&tasks, &pet, model);
            prop_assert_eq!(
                a.map(|(l, u)| (l.to_bits(), u.to_bits())),
                b.map(|(l, u)| (l.to_bits(), u.to_bits()))
            );
        }
    }

    /// The immediate heuristics that read expected tails (MCT, KPB, FCFS) pass machines
    /// over by the bounds of their earlier PCTs: their choice is still that of computing
    /// every machine's tail, under every dropping model.
    #[test]
    fn expected_tail_choices_read_through_bounds_are_exact(
        sh in shapes(),
        (queues, exec_deadlines, t0, dt, ty) in half_stale_setup(),
        model in models(),
    ) {
        use model::ImmediateHeuristic;
        let pet = pet_2x4(&sh);
        let now = t0 + dt;
        let (machines, mut tasks) = half_stale(&queues, &exec_deadlines, t0, now, &pet, model);
        let t = tasks.len();
        tasks.push(task(t, ty, 0, 200));
        let fleet = Fleet::of(&machines);
        let view = fleet.view(now, &pet, &tasks, &[], model);
        // The brute force: every tail computed afresh, the first minimum.
        let fresh = recomputed(&machines, now, &tasks, &pet, model);
        let ect = |m: usize| fresh[m].cache(&tasks, &pet, model).tail_mean() + pet.mean(ty, m);
        let first_min = |ms: &[usize], f: &dyn Fn(usize) -> f64| {
            let mut best = (ms[0], f(ms[0]));
            for &m in &ms[1..] {
                if f(m) < best.1 {
                    best = (m, f(m));
                }
            }
            best.0
        };
        let all = [0, 1, 2, 3];
        prop_assert_eq!(heuristics::Mct.choose(&view, t), first_min(&all, &ect));
        let tail = |m: usize| fresh[m].cache(&tasks, &pet, model).tail_mean();
        if machines.iter().all(|mc| !mc.is_empty()) {
            prop_assert_eq!(heuristics::Fcfs.choose(&view, t), first_min(&all, &tail));
        }
        // KPB at 50%: the two machines of lowest mean execution time for the type, in
        // that order (ties by index).
        let mut kb = all.to_vec();
        kb.sort_by(|&a, &b| pet.mean(ty, a).total_cmp(&pet.mean(ty, b)).then(a.cmp(&b)));
        kb.truncate(2);
        prop_assert_eq!(heuristics::Kpb { k: 0.5 }.choose(&view, t), first_min(&kb, &ect));
    }

    /// MaxRobust bounds the chances of the machines whose PCTs are not computed by their
    /// earlier PCTs (times their factor) and computes only those the bounds leave open: its
    /// choice is that of MaxRobust on every machine's PCTs computed afresh, under every
    /// dropping model.
    #[test]
    fn max_robust_reads_through_bounds_as_computing_every_chance(
        sh in shapes(),
        (queues, exec_deadlines, t0, dt, ty) in half_stale_setup(),
        slack in 1i64..80,
        epsilon in 0.0f64..0.3,
        all_machines in any::<bool>(),
        model in models(),
    ) {
        use model::ImmediateHeuristic;
        let pet = pet_2x4(&sh);
        let now = t0 + dt;
        let (machines, mut tasks) = half_stale(&queues, &exec_deadlines, t0, now, &pet, model);
        let t = tasks.len();
        tasks.push(task(t, ty, 0, now + slack));
        let fresh = recomputed(&machines, now, &tasks, &pet, model);
        let mr = heuristics::MaxRobust { k: if all_machines { 1.0 } else { 0.5 }, epsilon };
        let (a, b) = (Fleet::of(&machines), Fleet::of(&fresh));
        let got = mr.clone().choose(&a.view(now, &pet, &tasks, &[], model), t);
        let want = mr.clone().choose(&b.view(now, &pet, &tasks, &[], model), t);
        prop_assert_eq!(got, want);
    }

    /// PAM probes a deferred task again at the next event, where its chances kept from the
    /// earlier one (on PCTs now stale) times their factor bound the current ones: its
    /// decisions with that memo are those of a PAM that starts afresh on PCTs computed at the
    /// later tick, under every dropping model.
    #[test]
    fn chances_kept_from_an_earlier_event_decide_as_fresh_ones(
        sh in shapes(),
        queues in prop::collection::vec(prop::collection::vec((0usize..2, 1i64..60), 0..3), 4),
        exec_deadlines in prop::collection::vec(8i64..80, 4),
        batch_specs in prop::collection::vec((0usize..2, 4i64..90), 1..7),
        thresholds in prop::collection::vec(0.05f64..0.95, 2),
        t0 in 0i64..4,
        dt in 1i64..6,
        model in models(),
    ) {
        use model::BatchHeuristic;
        let pet = pet_2x4(&sh);
        let (mut machines, mut tasks) = busy_machines(&queues, &exec_deadlines, Some(4));
        for mc in &mut machines {
            mc.refresh(t0, &tasks, &pet, model);
        }
        let batch = add_tasks(&mut tasks, &batch_specs);
        fn with_defer<'a>(view: model::View<'a>, th: &'a [f64]) -> model::View<'a> {
            view.with_defer(Some(th))
        }
        // The first event fills the memo with chances on the PCTs at t0.
        let mut warm = heuristics::TwoPhase::pam(heuristics::Phase1Scope::AllMachines);
        let fleet = Fleet::of(&machines);
        warm.map(&with_defer(fleet.view(t0, &pet, &tasks, &batch, model), &thresholds));
        let t1 = t0 + dt;
        for mc in &mut machines {
            mc.advance(t1);
        }
        let fresh_machines = recomputed(&machines, t1, &tasks, &pet, model);
        let (a, b) = (Fleet::of(&machines), Fleet::of(&fresh_machines));
        let got = warm.map(&with_defer(a.view(t1, &pet, &tasks, &batch, model), &thresholds));
        let want = heuristics::TwoPhase::pam(heuristics::Phase1Scope::AllMachines)
            .map(&with_defer(b.view(t1, &pet, &tasks, &batch, model), &thresholds));
        prop_assert_eq!(&got.assign, &want.assign);
        prop_assert_eq!(&got.deferred, &want.deferred);
    }

    /// With a PCT epsilon (`Machine::with_pct_epsilon`) slot `k` (the executing task is
    /// slot 1) is within `k * eps` of the exact machine's, after appending to the cache
    /// and at a later tick (a cache carried over included); the bounds of an earlier
    /// trimmed cache hold for the trimmed current values up to `(1 + r) k eps`.
    #[test]
    fn trimmed_pcts_stay_within_k_eps_of_the_exact_ones(
        sh in shapes(),
        queue in prop::collection::vec((0usize..2, 1i64..120), 0..5),
        extra in (0usize..2, 1i64..150),
        exec_deadline in 8i64..80,
        t0 in 0i64..6,
        dt in 1i64..8,
        model in models(),
        eps in prop_oneof![Just(1e-3), Just(1e-2), 0.0f64..0.1],
    ) {
        let pet = wide_pet(&sh);
        let (m, mut tasks) = machine(&queue, exec_deadline);
        let id = tasks.len();
        tasks.push(task(id, extra.0, 0, extra.1));
        let mut approx = m.clone().with_pct_epsilon(eps);
        let mut exact = m;
        approx.refresh(t0, &tasks, &pet, model);
        approx.append(id, Tick::MIN, &tasks, &pet, model);
        exact.push(id);
        let close = |approx: &Machine, exact: &mut Machine, at: Tick| -> Result<(), TestCaseError> {
            exact.refresh(at, &tasks, &pet, model);
            let (a, e) = (approx.cache(&tasks, &pet, model), exact.cache(&tasks, &pet, model));
            for (k, (sa, se)) in a.slots().iter().zip(e.slots()).enumerate() {
                let bound = (k + 1) as f64 * eps + EPS;
                prop_assert!((sa.success() - se.success()).abs() <= bound,
                    "tick {}, slot {}: {} vs exact {}", at, k, sa.success(), se.success());
                let tv = sa.pct.total_variation(&se.pct);
                prop_assert!(tv <= bound, "tick {}, slot {}: TV {} > {}", at, k, tv, bound);
            }
            Ok(())
        };
        close(&approx, &mut exact, t0)?;
        let old = approx.cache(&tasks, &pet, model).clone();
        let t1 = t0 + dt;
        approx.advance(t1);
        let stale = approx.stale(&tasks, &pet, model).map(|st| (st.ratio, st.monotone));
        let mut fresh = approx.clone();
        fresh.refresh(t1, &tasks, &pet, model);
        close(&fresh, &mut exact, t1)?;
        if let Some((r, monotone)) = stale {
            let new = fresh.cache(&tasks, &pet, model);
            for (k, (s0, s1)) in old.slots().iter().zip(new.slots()).enumerate() {
                let ke = (k + 1) as f64 * eps;
                let slack = (1.0 + r) * ke + EPS;
                prop_assert!(1.0 - r * (1.0 - s0.success()) <= s1.success() + slack, "slot {}: lower", k);
                prop_assert!(s1.success() <= r * s0.success() + slack, "slot {}: upper", k);
                if monotone {
                    prop_assert!(s1.success() <= s0.success() + 2.0 * ke + EPS, "slot {}: monotone", k);
                }
            }
        }
    }
}

#[test]
fn a_cache_whose_executing_pct_lies_after_the_tick_carries_over() {
    // Executing since 0 with a PET on 10..=11: nothing can end before tick 10.
    let pet = pet_of(vec![vec![Pmf::new(10, vec![0.5, 0.5]).unwrap()]]);
    let tasks = [task(0, 0, 0, 100), task(1, 0, 0, 100)];
    let mut m = Machine::new(0, None);
    m.start(0, 0, 10);
    m.push(1);
    m.refresh(0, &tasks, &pet, DropModel::All);
    assert_eq!(m.recomputations(), 1);
    let id = m.cache_id().unwrap();
    m.advance(9);
    assert!(
        m.is_computed(),
        "no mass at or before 9: the PCTs stay exact"
    );
    // The same content, the same id: chances kept across events by this id stay valid.
    assert_eq!(m.cache_id(), Some(id));
    m.advance(10);
    assert!(!m.is_computed());
    assert_eq!(m.cache_id(), None);
    let stale = m.stale(&tasks, &pet, DropModel::All).unwrap();
    // Half the executing task's mass (tick 10) is gone: Z(0) = 1, Z(10) = 0.5, r = 2.
    assert!((stale.ratio - 2.0).abs() < 1e-9);
    assert_eq!(
        m.cache(&tasks, &pet, DropModel::All).slots()[0].pct,
        Pmf::point(11)
    );
    assert_eq!(m.recomputations(), 2);
    let recomputed = m.cache_id().unwrap();
    assert_ne!(recomputed, id);
    // Appending to the computed PCTs makes another content.
    m.append(1, Tick::MIN, &tasks, &pet, DropModel::All);
    assert!(m.is_computed());
    assert!(m.cache_id().is_some_and(|a| a != recomputed && a != id));
    // A change of the queue leaves no bound behind.
    m.advance(11);
    m.push(1);
    assert!(m.stale(&tasks, &pet, DropModel::All).is_none());
}

#[test]
fn the_pruner_lower_bound_is_one_minus_r_times_the_failure() {
    // Executing since 0, PET uniform on 1..=4, deadline 100; a pending task behind it.
    let pet = pet_of(vec![vec![Pmf::new(1, vec![0.25; 4]).unwrap()]]);
    let tasks = [task(0, 0, 0, 100), task(1, 0, 0, 5)];
    let mut m = Machine::new(0, None);
    m.start(0, 0, 4);
    m.push(1);
    m.refresh(0, &tasks, &pet, DropModel::None);
    // At 0 the pending task completes at 2..=8; P(< 5) = P(sum of two uniforms on 1..=4 < 5)
    // = 6/16.
    let s0 = m.cache(&tasks, &pet, DropModel::None).slots()[1].success();
    assert!((s0 - 6.0 / 16.0).abs() < 1e-12);
    m.advance(2);
    let stale = m.stale(&tasks, &pet, DropModel::None).unwrap();
    // Z(0) = 1, Z(2) = 0.5: r = 2, lower bound 1 - 2 * 10/16 < 0 (vacuous), upper 2 * 6/16.
    assert!((stale.ratio - 2.0).abs() < 1e-9);
    assert!((stale.success_lower(1) - (1.0 - 2.0 * 10.0 / 16.0)).abs() < 1e-9);
    // Exactly: the executing task ends at 3 or 4, the pending one at 4..=8: P(< 5) = 1/8.
    let exact = m.cache(&tasks, &pet, DropModel::None).slots()[1].success();
    assert!((exact - 1.0 / 8.0).abs() < 1e-12);
    assert!(exact <= s0);
}

#[test]
fn chain_free_mean_bounds_by_hand() {
    // Executing since 0 on {2, 4} (1/2 each), now 0: C0 = {2, 4}. The pending task runs
    // {1, 3} (1/2 each), deadline 5. Under `all` it ends at 2 + {1, 3 -> 5} or 4 + {1, 3} ->
    // 5: {3: 1/4, 5: 3/4}, mean 4.5 = 1/2 (2 + E[min(E, 3)]) + 1/2 (4 + E[min(E, 1)]) =
    // 1/2 * 4 + 1/2 * 5. Under `pending` and `none`: 3 + 2 = 5. Deadline 3: under `all`
    // 1/2 * 3 + 1/2 * 4 (dropped at its start 4) = 3.5; under `pending` 1/2 * 4 + 1/2 * 4 = 4.
    let e0 = Pmf::new(2, vec![0.5, 0.0, 0.5]).unwrap();
    let e1 = Pmf::new(1, vec![0.5, 0.0, 0.5]).unwrap();
    let pet = pet_of(vec![vec![e0.clone(), e0], vec![e1.clone(), e1]]);
    for (d1, model, want) in [
        (5, DropModel::All, 4.5),
        (5, DropModel::Pending, 5.0),
        (5, DropModel::None, 5.0),
        (3, DropModel::All, 3.5),
        (3, DropModel::Pending, 4.0),
    ] {
        let tasks = [task(0, 0, 0, 100), task(1, 1, 0, d1)];
        let mut m = Machine::new(1, Some(2));
        m.start(0, 0, 2);
        m.push(1);
        m.advance(0);
        let (lower, upper) = m.chain_mean_bounds(&tasks, &pet, model).unwrap();
        assert!(
            (lower - want).abs() < 1e-9 && (upper - want).abs() < 1e-9,
            "{model:?} d {d1}"
        );
        assert!((m.cache(&tasks, &pet, model).tail_mean() - want).abs() < 1e-12);
    }
}

#[test]
fn a_stale_tail_bounds_the_mean_from_below_when_a_later_start_ends_earlier() {
    // Executing since 0 on {1, 10} (1/2 each); behind it a task of 100 ticks, deadline 5.
    // Under `pending`, at tick 0 the tail is 1 + 100 = 101 or, when it starts at 10, past
    // its deadline: dropped, 10; E0 = 55.5. At tick 1 the executing task surely ends at 10,
    // so the tail is 10: the mean fell. r = Z(0) / Z(1) = 2, and the lower bound
    // E0 - (r - 1) (max T0 - E0) = 55.5 - 45.5 = 10 is attained; the upper one is
    // E0 + (r - 1) (E0 - min T0) = 101.
    let e0 = Pmf::new(1, [vec![0.5], vec![0.0; 8], vec![0.5]].concat()).unwrap();
    let long = Pmf::point(100);
    let pet = pet_of(vec![vec![e0.clone(), e0], vec![long.clone(), long]]);
    let tasks = [task(0, 0, 0, 100), task(1, 1, 0, 5)];
    let model = DropModel::Pending;
    let mut m = Machine::new(1, None);
    m.start(0, 0, 10);
    m.push(1);
    m.refresh(0, &tasks, &pet, model);
    assert!((m.cache(&tasks, &pet, model).tail_mean() - 55.5).abs() < 1e-12);
    m.advance(1);
    let st = m
        .stale(&tasks, &pet, model)
        .expect("an earlier cache of the same queue");
    assert!((st.ratio - 2.0).abs() < 1e-9);
    assert!(
        (st.tail_mean_lower() - 10.0).abs() < 1e-6,
        "{}",
        st.tail_mean_lower()
    );
    assert!(
        (st.tail_mean_upper() - 101.0).abs() < 1e-6,
        "{}",
        st.tail_mean_upper()
    );
    let mut fresh = m.clone();
    fresh.refresh(1, &tasks, &pet, model);
    assert!((fresh.cache(&tasks, &pet, model).tail_mean() - 10.0).abs() < 1e-12);
}

#[test]
fn a_chance_kept_from_an_earlier_event_is_scaled_by_the_stale_factor() {
    // The machine of the test above (one machine, `pending`): executing since 0 on {1, 10},
    // behind it a task of 20 ticks with deadline 5, so the tail is 21 or 10 at tick 0 and
    // surely 10 at tick 2 (r = 2). Task X (1 to 16 ticks, uniform; deadline 20, defer
    // threshold 0.3) has chance P(T + E < 20) = 9/32 at tick 0, below each of its bounds
    // (the least is the segment bound, 5/16), so it is computed, and deferred; at tick 2 its
    // chance is 9/16 and PAM maps it. The chance kept from tick 0 bounds the one at tick 2 only times r: without
    // the factor, 9/32 would defer X again.
    let e0 = Pmf::new(1, [vec![0.5], vec![0.0; 8], vec![0.5]].concat()).unwrap();
    let x = Pmf::new(1, vec![1.0 / 16.0; 16]).unwrap();
    let pet = pet_of(vec![vec![e0], vec![Pmf::point(20)], vec![x]]);
    let tasks = [task(0, 0, 0, 100), task(1, 1, 0, 5), task(2, 2, 0, 20)];
    let model = DropModel::Pending;
    let mut m = Machine::new(0, Some(3));
    m.start(0, 0, 10);
    m.push(1);
    let thresholds = [0.0, 0.0, 0.3];
    let batch = [2];
    let mut machines = [m];
    machines[0].refresh(0, &tasks, &pet, model);
    let mut pam = heuristics::TwoPhase::pam(heuristics::Phase1Scope::AllMachines);
    use model::BatchHeuristic;
    let fleet = Fleet::of(&machines);
    let first = pam.map(
        &fleet
            .view(0, &pet, &tasks, &batch, model)
            .with_defer(Some(&thresholds)),
    );
    assert_eq!(first.deferred, vec![2]);
    assert!(first.assign.is_empty());
    machines[0].advance(2);
    let st = machines[0].stale(&tasks, &pet, model).unwrap();
    assert!((st.upper_factor() - 2.0).abs() < 1e-9);
    let fleet = Fleet::of(&machines);
    let second = pam.map(
        &fleet
            .view(2, &pet, &tasks, &batch, model)
            .with_defer(Some(&thresholds)),
    );
    assert_eq!(second.assign, vec![(2, 0)]);
    assert!(second.deferred.is_empty());
}

#[test]
fn max_robust_scales_an_earlier_chance_by_the_stale_factor() {
    // Machine 0 is the machine of the two tests above (`pending`): at tick 2 its earlier
    // tail (tick 0) gives task X (1 to 16 ticks, deadline 20) the chance 9/32, the current
    // one 9/16 (r = 2). Machine 1 executes a 12-tick task since 0 (its PCTs carry over):
    // X's chance there is P(E <= 7) = 7/16. With epsilon 0 MaxRobust picks machine 0; the
    // earlier chance without its factor (9/32 < 7/16) would pass machine 0 over.
    let e0 = Pmf::new(1, [vec![0.5], vec![0.0; 8], vec![0.5]].concat()).unwrap();
    let x = Pmf::new(1, vec![1.0 / 16.0; 16]).unwrap();
    let row = |p: &Pmf| vec![p.clone(), p.clone()];
    let pet = pet_of(vec![
        row(&e0),
        row(&Pmf::point(20)),
        row(&x),
        row(&Pmf::point(12)),
    ]);
    let tasks = [
        task(0, 0, 0, 100),
        task(1, 1, 0, 5),
        task(2, 3, 0, 100),
        task(3, 2, 0, 20),
    ];
    let model = DropModel::Pending;
    let mut m0 = Machine::new(0, None);
    m0.start(0, 0, 10);
    m0.push(1);
    let mut m1 = Machine::new(1, None);
    m1.start(0, 2, 12);
    let mut machines = [m0, m1];
    for m in &mut machines {
        m.refresh(0, &tasks, &pet, model);
        m.advance(2);
    }
    assert!(!machines[0].is_computed() && machines[1].is_computed());
    use model::ImmediateHeuristic;
    let mut mr = heuristics::MaxRobust {
        k: 1.0,
        epsilon: 0.0,
    };
    assert_eq!(
        mr.choose(&Fleet::of(&machines).view(2, &pet, &tasks, &[], model), 3),
        0
    );
}
