//! Class searches carried from one mapping event to the next ([`Carry`]): a class's phase-1
//! answer is kept with the event it was found at, and found again at a later event from the
//! machines whose PCTs changed since, by the oracle's versions
//! ([`VirtualQueues::version`]).

use super::*;

/// A class's phase-1 answer at the start of an event ([`Carry`]).
#[derive(Debug, Clone)]
enum Kept1 {
    /// The highest chance `top` is at or above the defer threshold less the slack (or
    /// deferring is off): `items` are the machines whose chance ties with `top`, with their
    /// chances, every other machine's chance is below `top - s`, but for idle copies of a
    /// machine of `items` with a lower index ([`best_of_copies`]).
    Exact {
        top: f64,
        items: Vec<(MachineId, f64, bool)>,
    },
    /// Every machine in scope has a chance below the defer threshold less the slack.
    Below,
    /// No machine in scope.
    NoMachine,
}

/// One kept answer: the event it holds at, the defer threshold it was found with, and
/// what it says.
#[derive(Debug, Clone)]
struct Answer {
    event: u64,
    threshold: f64,
    kept: Kept1,
}

/// Phase-1 class answers ([`Phase1State::classes`]) carried across mapping events.
///
/// A class's answer (task type and deadline) depends on every machine's chance and expected
/// completion for it, and on which machines are in scope: a function of each machine's PCTs
/// and PET column, which the oracle versions ([`model::Oracle::content_version`]), and of its
/// free slots. At the start of each event every machine's version (and whether it has a
/// free slot) is compared with the one of the event before, and the machines that differ are
/// logged with the event. A class searched at the start of an event (before any provisional
/// assignment) keeps its answer; at a later event, at the start too, the answer is found
/// again from the machines logged since (`D`), or the full search runs:
/// * [`Kept1::Exact`]: when no machine of `items` is in `D`, the highest chance over the
///   machines not in `D` is still `top`, and the machines that tie with it are still `items`;
///   each machine of `D` is scored (its bound first: one below `top` less the tie margin can
///   neither beat nor tie with `top`), and the choice is [`max_success_choice`] over `items`
///   and the machines of `D` that tie with the new highest chance (a chance above `top` only
///   narrows the set that ties, [`pmf::prec::chance_ties`]): the rule of evaluating every
///   machine, whose ties ([`crate::plan`], "Ties") it follows with the same functions.
/// * [`Kept1::Below`]: when every machine of `D` in scope is below the threshold less the
///   slack (by its bound, else its chance), so is every machine: the task is deferred
///   ([`Best::BelowDefer`]).
/// * [`Kept1::NoMachine`]: when `D` is empty.
///
/// The threshold must be the one the answer was found with. The log is cleared, and every
/// answer forgotten, when the machine count changes or the log grows long.
#[derive(Debug, Default)]
pub(super) struct Carry {
    /// The current event (counts from 1; answers of event 0 are never read).
    event: u64,
    /// Per machine, its version with its free-slot flag at the start of the last event.
    versions: Vec<u64>,
    /// (event, machine) of each change, in event order.
    log: Vec<(u64, MachineId)>,
    /// Events before it are not in the log: answers from them are stale.
    base: u64,
    answers: FxHashMap<(usize, Tick), Answer>,
    /// The machines of `D` (reused).
    changed: Vec<MachineId>,
}

/// A machine whose tail the heuristic changed (culled) has no version: it counts as changed
/// at every event.
const NO_VERSION: u64 = u64::MAX;

#[cfg(test)]
thread_local! {
    /// Test hook: when set, [`Carry::begin`] logs no change, as if every machine's version
    /// were the one of the event before (a deliberately wrong key, for the test that shows
    /// the multi-event comparison fails with it).
    pub(crate) static WRONG_KEY: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
    /// Test counter: the answers carried ([`Carry::answer`] returning one).
    pub(crate) static CARRIED: std::cell::Cell<usize> = const { std::cell::Cell::new(0) };
}

#[cfg(test)]
fn wrong_key() -> bool {
    WRONG_KEY.with(std::cell::Cell::get)
}

#[cfg(not(test))]
#[inline(always)]
const fn wrong_key() -> bool {
    false
}

impl Carry {
    /// Starts an event: logs the machines whose version or free-slot flag changed.
    pub(super) fn begin(&mut self, vq: &VirtualQueues) {
        let n = vq.machines().len();
        self.event += 1;
        if self.versions.len() != n || self.log.len() > 4 * n.max(16) {
            self.versions.clear();
            self.versions.resize(n, NO_VERSION);
            self.log.clear();
            self.answers.clear();
            self.base = self.event;
        }
        for m in 0..n {
            let v = match vq.version(m) {
                Some(v) => (v << 1) | u64::from(vq.free(m) > 0),
                None => NO_VERSION,
            };
            if (v != self.versions[m] || v == NO_VERSION) && !wrong_key() {
                self.log.push((self.event, m));
            }
            self.versions[m] = v;
        }
        // Classes of tasks long gone.
        if self.answers.len() > 4096 {
            let from = self.event.saturating_sub(8);
            self.answers.retain(|_, a| a.event >= from);
        }
    }

    /// Forgets every answer (the search runs without classes).
    pub(super) fn clear(&mut self) {
        self.answers.clear();
        self.versions.clear();
        self.log.clear();
    }

    /// The answer for candidate `i` (task `t`) carried from an earlier event, when the
    /// machines changed since prove it (see [`Carry`]); `None`: the full search decides.
    pub(super) fn answer(
        &mut self,
        view: &View<'_>,
        scope: Phase1Scope,
        vq: &VirtualQueues,
        succ: &mut SuccessCache,
        (i, t): (usize, TaskId),
    ) -> Option<Best> {
        let spec = view.task(t);
        let q = threshold(view, t);
        let a = self.answers.get_mut(&(spec.task_type, spec.deadline))?;
        if a.event < self.base || a.threshold.to_bits() != q.to_bits() {
            return None;
        }
        let from = self.log.partition_point(|&(e, _)| e <= a.event);
        // With many machines changed (the clock moved), scoring them would cost about what
        // the full search does, which would then often run too.
        if 8 * (self.log.len() - from) > self.versions.len().max(16) {
            return None;
        }
        let changed = &mut self.changed;
        changed.clear();
        changed.extend(self.log[from..].iter().map(|&(_, m)| m));
        changed.sort_unstable();
        changed.dedup();
        let in_scope = |m: MachineId| scope == Phase1Scope::AllMachines || vq.free(m) > 0;
        let best = match &mut a.kept {
            Kept1::NoMachine => changed.is_empty().then_some(Best::NoMachine)?,
            Kept1::Below => {
                if !(scope == Phase1Scope::AllMachines || vq.any_free()) {
                    return None;
                }
                for &m in changed.iter().filter(|&&m| in_scope(m)) {
                    if success_upper_bound(view, vq, t, m) + BOUND_SLACK < q {
                        continue;
                    }
                    if succ.get(view, vq, i, t, m) >= q - BOUND_SLACK {
                        return None;
                    }
                }
                Best::BelowDefer
            }
            Kept1::Exact { top, items } => {
                let mut scored = std::mem::take(&mut succ.scored);
                scored.clear();
                let mut idle_changed = false;
                for &(m, p, idle) in items.iter() {
                    if changed.binary_search(&m).is_err() {
                        scored.push(m, p);
                    } else {
                        idle_changed |= idle;
                    }
                }
                if !idle_changed {
                    for &m in changed.iter().filter(|&&m| in_scope(m)) {
                        if success_upper_bound(view, vq, t, m) + TIE_MARGIN < *top {
                            continue;
                        }
                        let p = succ.get(view, vq, i, t, m);
                        scored.push(m, p);
                    }
                }
                // Every machine not scored is below the kept `top` less the slack: the new
                // highest chance must be at least `top` for none of them to tie with it.
                let choice = (!idle_changed && scored.top >= *top)
                    .then(|| scored.choose(view, vq, t))
                    .flatten();
                if choice.is_some() {
                    *top = scored.top;
                    items.clear();
                    items.extend(
                        scored
                            .items
                            .iter()
                            .map(|&(m, p, _)| (m, p, vq.idle_at(m).is_some())),
                    );
                }
                let new_top = scored.top;
                succ.scored = scored;
                Best::Machine {
                    choice: choice?,
                    top: new_top,
                }
            }
        };
        a.event = self.event;
        #[cfg(test)]
        CARRIED.with(|c| c.set(c.get() + 1));
        Some(best)
    }

    /// Keeps the answer `best` of a full search for candidate `i`'s class, found at the
    /// start of this event; `scored` holds the machines that search scored
    /// ([`SuccessCache::scored`]).
    pub(super) fn keep(
        &mut self,
        view: &View<'_>,
        vq: &VirtualQueues,
        t: TaskId,
        best: Best,
        scored: &Scored,
    ) {
        let spec = view.task(t);
        let q = threshold(view, t);
        let kept = match best {
            Best::Machine { top, .. } if top >= q - BOUND_SLACK => {
                let mut items = match self.answers.remove(&(spec.task_type, spec.deadline)) {
                    Some(Answer {
                        kept: Kept1::Exact { items, .. },
                        ..
                    }) => items,
                    _ => Vec::new(),
                };
                items.clear();
                items.extend(
                    scored
                        .items
                        .iter()
                        .map(|&(m, p, _)| (m, p, vq.idle_at(m).is_some())),
                );
                Kept1::Exact { top, items }
            }
            Best::Machine { .. } | Best::BelowDefer => Kept1::Below,
            Best::NoMachine => Kept1::NoMachine,
        };
        self.answers.insert(
            (spec.task_type, spec.deadline),
            Answer {
                event: self.event,
                threshold: q,
                kept,
            },
        );
    }
}

/// Task `t`'s defer threshold, `-inf` when deferring is off.
fn threshold(view: &View<'_>, t: TaskId) -> f64 {
    view.defer
        .map_or(f64::NEG_INFINITY, |th| th[view.task(t).task_type])
}

#[cfg(test)]
mod tests {
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
                    let view = View {
                        now,
                        pet: &pet,
                        tasks: &tasks,
                        batch: &batch,
                        machines: &ms,
                        oracle: &oracle,
                        model: pmf::DropModel::All,
                        defer: thresholds.as_deref(),
                        staging: None,
                    };
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
            let out: Vec<Result<usize, String>> = (0..4)
                .flat_map(|seed| {
                    [Some(0.9), None].map(|defer| drive(256, seed, &steps, PAM, defer))
                })
                .collect();
            WRONG_KEY.with(|w| w.set(false));
            out
        };
        CARRIED.with(|c| c.set(0));
        let right = run_all(false);
        assert!(right.iter().all(Result::is_ok), "{right:?}");
        let carried = CARRIED.with(std::cell::Cell::get);
        assert!(carried > 100, "{carried} answers carried");
        let wrong = run_all(true);
        assert!(
            wrong.iter().any(Result::is_err),
            "no mismatch with a wrong key: {wrong:?}"
        );
    }
}
