//! Random systems for property tests: a PET, machines with executing and pending tasks whose
//! completion-time PMFs were computed at an earlier tick for some (so that bounds from stale
//! PMFs are exercised) and at the current tick for others, and a batch of unmapped tasks.

use model::{Machine, Oracle, TaskSpec, View};
use ndarray::Array2;
use pmf::{DropModel, Pmf, Tick};
use proptest::prelude::*;
use workload::Pet;

/// A random system, owned; [`System::view`] looks at it.
#[derive(Debug, Clone)]
pub(crate) struct System {
    pub pet: Pet,
    pub tasks: Vec<TaskSpec>,
    pub machines: Vec<Machine>,
    pub oracle: Oracle,
    pub batch: Vec<usize>,
    pub now: Tick,
    pub model: DropModel,
    pub defer: Option<Vec<f64>>,
}

impl System {
    /// The view of the system at its tick.
    pub(crate) fn view(&self) -> View<'_> {
        View::new(
            self.now,
            &self.pet,
            &self.tasks,
            &self.batch,
            &self.machines,
            &self.oracle,
            self.model,
        )
        .with_defer(self.defer.as_deref())
    }
}

fn pmf_strategy() -> impl Strategy<Value = Pmf> {
    (1i64..25, prop::collection::vec(0u8..6, 1..10)).prop_map(|(offset, w)| {
        let mut w: Vec<f64> = w.into_iter().map(f64::from).collect();
        let last = w.len() - 1;
        w[0] += 1.0;
        w[last] += 1.0;
        Pmf::from_weights(offset, w).unwrap()
    })
}

/// What a machine holds before the tick: its limit, whether it executes a task (with how long
/// ago it started, as a share of the task's longest time), its pending tasks, and whether its
/// PMFs were computed at the earlier tick and at the current one.
#[derive(Debug, Clone)]
struct MachinePlan {
    limit: Option<usize>,
    running: Option<f64>,
    pending: usize,
    computed_before: bool,
    computed_now: bool,
}

fn machine_strategy() -> impl Strategy<Value = MachinePlan> {
    (
        prop_oneof![Just(None), (1usize..5).prop_map(Some)],
        prop_oneof![Just(None), (0.0f64..0.9).prop_map(Some)],
        0usize..4,
        any::<bool>(),
        any::<bool>(),
    )
        .prop_map(
            |(limit, running, pending, computed_before, computed_now)| MachinePlan {
                limit,
                running,
                pending,
                computed_before,
                computed_now,
            },
        )
}

/// Random systems of 1-6 machines, 1-3 task types and up to 20 batch tasks.
pub(crate) fn system_strategy() -> impl Strategy<Value = System> {
    systems(1..7, 1, 0..20)
}

/// Random systems of 64-320 machines (copies of 1-4 random PET columns, as `machines = N`
/// builds them), where the searches index and narrow the machines.
pub(crate) fn many_machines_strategy() -> impl Strategy<Value = System> {
    systems(64..321, 4, 0..20)
}

/// Random systems of 64-128 machines with 64-96 batch tasks: a dispatcher's large batch on a
/// mid-sized system, where MaxSuccess shares one search per (task type, deadline) class.
pub(crate) fn large_batch_strategy() -> impl Strategy<Value = System> {
    systems(64..129, 4, 64..97)
}

/// Random systems of 2-8 machines, copies of 2 random PET columns, and up to 20 batch tasks,
/// each twice: as drawn, and with the PET column of some machines perturbed by 1e-12
/// relative ([`perturbed`]), so that the copies tie exactly in the first and within rounding
/// in the second.
pub(crate) fn near_ties_strategy() -> impl Strategy<Value = (System, System)> {
    twins(2..9, 2, 0..20, PERTURBATION)
}

/// [`near_ties_strategy`] with steps of 7e-10 relative (each perturbed column by 1, 2 or 3 of
/// them): chances and expected completions of copies lie about the decision slack apart, so
/// the sets that tie with the best move as machines receive tasks.
pub(crate) fn staggered_ties_strategy() -> impl Strategy<Value = (System, System)> {
    twins(2..9, 2, 0..20, STAGGER)
}

/// [`staggered_ties_strategy`] with 64-320 machines.
pub(crate) fn many_staggered_ties_strategy() -> impl Strategy<Value = (System, System)> {
    twins(64..321, 4, 0..20, STAGGER)
}

/// [`near_ties_strategy`] with 64-320 machines, copies of 1-4 random PET columns, where the
/// searches index and narrow the machines.
pub(crate) fn many_near_ties_strategy() -> impl Strategy<Value = (System, System)> {
    twins(64..321, 4, 0..20, PERTURBATION)
}

/// [`near_ties_strategy`] with 64-128 machines and 64-96 batch tasks, where MaxSuccess
/// shares one search per (task type, deadline) class.
pub(crate) fn large_batch_near_ties_strategy() -> impl Strategy<Value = (System, System)> {
    twins(64..129, 4, 64..97, PERTURBATION)
}

/// The relative perturbation of [`near_ties_strategy`]: the rounding of a learned belief that
/// equals the truth.
pub(crate) const PERTURBATION: f64 = 1e-12;

/// The step of [`staggered_ties_strategy`], about the decision slack.
const STAGGER: f64 = 7e-10;

/// `p` with its masses scaled by `1 + rel` and `1 - rel` in turn (then renormalised): its
/// chances and expected value move by about `rel` relative.
pub(crate) fn perturbed(p: &Pmf, rel: f64) -> Pmf {
    let masses = p
        .masses()
        .iter()
        .enumerate()
        .map(|(k, &w)| w * if k % 2 == 0 { 1.0 + rel } else { 1.0 - rel })
        .collect();
    Pmf::new(p.offset(), masses).unwrap()
}

/// Random systems with `machines` machines whose PET columns are drawn from `columns` random
/// ones (1: every machine its own column).
fn systems(
    machines: std::ops::Range<usize>,
    columns: usize,
    batch: std::ops::Range<usize>,
) -> impl Strategy<Value = System> {
    systems_and_perturbed(machines, columns, batch, 0.0).prop_map(|(system, _)| system)
}

/// [`systems`], each with its twin whose machines have their PET column [`perturbed`] by 0,
/// 1, 2 or 3 times `step` at random (the same queues, tasks and ticks).
fn twins(
    machines: std::ops::Range<usize>,
    columns: usize,
    batch: std::ops::Range<usize>,
    step: f64,
) -> impl Strategy<Value = (System, System)> {
    systems_and_perturbed(machines, columns, batch, step)
        .prop_map(|(system, twin)| (system, twin.expect("a twin")))
}

/// [`systems`], each with its twin when `step` is above 0.
fn systems_and_perturbed(
    machines: std::ops::Range<usize>,
    columns: usize,
    batch: std::ops::Range<usize>,
    step: f64,
) -> impl Strategy<Value = (System, Option<System>)> {
    (1usize..4, machines).prop_flat_map(move |(types, machines)| {
        let distinct = if columns == 1 {
            machines
        } else {
            columns.min(machines)
        };
        (
            prop::collection::vec(pmf_strategy(), types * distinct).prop_map(move |p| {
                (0..types * machines)
                    .map(|i| p[(i / machines) * distinct + (i % machines) % distinct].clone())
                    .collect::<Vec<_>>()
            }),
            prop::collection::vec(machine_strategy(), machines),
            prop::collection::vec((0..types, 5i64..120), batch.clone()),
            prop::collection::vec((0..types, 1i64..150), 1..16),
            prop_oneof![
                Just(DropModel::None),
                Just(DropModel::Pending),
                Just(DropModel::All)
            ],
            prop_oneof![
                Just(None),
                prop::collection::vec(0.0f64..1.0, types).prop_map(Some)
            ],
            1i64..40,
            prop::collection::vec(0u8..4, machines),
        )
            .prop_map(
                move |(pmfs, plans, batch, queued, model, defer, gap, flags)| {
                    let twin = step > 0.0;
                    let moved: Vec<Pmf> = if twin {
                        pmfs.iter()
                            .enumerate()
                            .map(|(i, p)| match flags[i % machines] {
                                0 => p.clone(),
                                k => perturbed(p, step * f64::from(k)),
                            })
                            .collect()
                    } else {
                        Vec::new()
                    };
                    let system = build(
                        types,
                        machines,
                        pmfs,
                        &plans,
                        &batch,
                        &queued,
                        model,
                        defer.clone(),
                        gap,
                    );
                    let twin = twin.then(|| {
                        build(
                            types, machines, moved, &plans, &batch, &queued, model, defer, gap,
                        )
                    });
                    (system, twin)
                },
            )
    })
}

#[allow(clippy::too_many_arguments)]
fn build(
    types: usize,
    machines: usize,
    pmfs: Vec<Pmf>,
    plans: &[MachinePlan],
    batch: &[(usize, i64)],
    queued: &[(usize, i64)],
    model: DropModel,
    defer: Option<Vec<f64>>,
    gap: i64,
) -> System {
    let pet = Pet::new(
        Array2::from_shape_vec((types, machines), pmfs).unwrap(),
        (0..types).map(|t| format!("t{t}")).collect(),
        (0..machines).map(|m| format!("m{m}")).collect(),
    )
    .unwrap();
    let (before, now) = (100, 100 + gap);
    let mut tasks: Vec<TaskSpec> = Vec::new();
    let mut add = |task_type: usize, deadline: Tick| {
        let id = tasks.len();
        tasks.push(TaskSpec {
            id,
            task_type,
            arrival: 0,
            deadline,
        });
        id
    };
    let mut ms: Vec<Machine> = Vec::new();
    let mut queued = queued.iter().cycle();
    for (m, plan) in plans.iter().enumerate() {
        let mut machine = Machine::new(m, plan.limit);
        let capacity = plan.limit.unwrap_or(4);
        let next = *queued.next().unwrap();
        let longest = pet.pmf(next.0, m).max();
        // Only a task that can still be running at the current tick.
        if let Some(share) = plan.running.filter(|_| longest > gap) {
            let (ty, slack) = next;
            let t = add(ty, before + slack);
            // Started so that it can still be running at the current tick.
            let start = before - (share * (longest - gap).max(0) as f64) as i64;
            machine.push(t);
            let _ = machine.pop_pending();
            machine.start(start, t, longest);
        }
        let room = capacity.saturating_sub(machine.len());
        for _ in 0..plan.pending.min(room) {
            let &(ty, slack) = queued.next().unwrap();
            let t = add(ty, before + slack);
            machine.push(t);
        }
        ms.push(machine);
    }
    let batch: Vec<usize> = batch
        .iter()
        .map(|&(ty, slack)| add(ty, now + slack))
        .collect();
    // PMFs computed at the earlier tick are kept aside as bounds when the machines move on.
    let mut oracle = Oracle::new(ms.len());
    oracle.sync(&ms, before);
    let at_before = View::new(before, &pet, &tasks, &[], &ms, &oracle, model);
    for (m, plan) in plans.iter().enumerate() {
        if plan.computed_before {
            let _ = at_before.queue(m);
        }
    }
    oracle.sync(&ms, now);
    let at_now = View::new(now, &pet, &tasks, &[], &ms, &oracle, model);
    for (m, plan) in plans.iter().enumerate() {
        if plan.computed_now {
            let _ = at_now.queue(m);
        }
    }
    System {
        pet,
        tasks,
        machines: ms,
        oracle,
        batch,
        now,
        model,
        defer,
    }
}
