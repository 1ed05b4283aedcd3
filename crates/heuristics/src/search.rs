//! The accelerated two-phase batch loop: what [`crate::reference`] does, decided the same,
//! at a fraction of the cost (thesis 3.3.1, paper V-D and VI-C, JPDC-2016 6.2).
//!
//! Each iteration: phase 1 finds, for every candidate task, its best machine by the
//! heuristic's phase-1 objective; tasks whose chance on that machine is at or below their
//! defer threshold are deferred (when deferring is on); phase 2 picks, among the pairs whose
//! machine has a free slot, the single best pair by the phase-2 criterion; that pair is
//! provisionally assigned to the virtual queues. Only the chosen machine's tail changed, so
//! only its column of cached scores is re-evaluated. The loop ends when no machine has a
//! free slot or no candidate is left.
//!
//! Ties follow [`crate::plan`] ("Ties"): within the decision slack `s`, the best value first,
//! then the set that ties with it. So a machine may be passed over only when a bound proves
//! it outside that set: for a chance, below the best chance found less `2 s` (`s` for the
//! tie, `s` for the rounding of the bound); for an expected completion, above the least found
//! by more than `3 s` relative. A phase-1 choice rests on three machines
//! ([`Choice::rests_on`]: the one chosen, one of the highest chance, one of the least
//! expected completion among those that tie); it is found again when any of them receives a
//! task, since the others only get worse.
//!
//! The loop and MinCompletion's phase 1 are here; the rest by concept: the chances kept
//! within and across events ([`scores`]), MaxSuccess's phase 1 ([`by_success`]) with its
//! machine indexes ([`index`]) and kept searches ([`memo`]), deferral inference ([`defer`]),
//! the loop by class, whose candidates share their verdicts ([`verdicts`]), and MOC's culling
//! ([`cull`]).

use model::{ChanceMemo, Decision, MachineId, TaskId, View, VirtualQueues};
use pmf::Tick;
use pmf::{Pmf, next_pct};
use rustc_hash::FxHashMap;

mod by_success;
mod carry;
mod cull;
mod defer;
mod index;
mod memo;
mod scores;
mod verdicts;

use by_success::*;
use carry::Carry;
pub(crate) use cull::cull_below;
use defer::*;
use index::*;
use memo::*;
use scores::*;
use verdicts::*;

use crate::plan::{
    Choice, Phase1, Phase1Scope, Phase2, Plan, max_success_choice, min_completion_choice,
    phase2_key, phase2_pick, phase2_pick_by, phase2_ties,
};

/// The decision slack, `s`: two chances tie when within it ([`pmf::prec::chance_ties`]). A
/// machine is skipped by its upper bound only when the bound is below the best chance found
/// less `2 s` (`s` for the tie, `s`, far above rounding error, for the bound), so that a
/// skipped machine can never have tied or beaten the best one: the choice is exactly the one
/// of evaluating every machine.
const BOUND_SLACK: f64 = pmf::prec::DECISION_SLACK;

/// The margin below the best chance found under which a bound leaves a machine out: the tie
/// width and the rounding of the bound.
const TIE_MARGIN: f64 = 2.0 * BOUND_SLACK;

/// The machines one phase-1 search scored with their chances: those that may still tie with
/// the highest chance found (`top`); the others are dropped as the top rises. Every machine
/// scored is also listed in `all`, for [`Carry`].
#[derive(Debug)]
struct Scored {
    /// (machine, chance, room for its expected completion).
    items: Vec<(MachineId, f64, f64)>,
    top: f64,
    /// Every machine pushed since the last clear, with its chance.
    all: Vec<(MachineId, f64)>,
    /// The highest upper bound of the machines [`best_of`] stopped before (every machine of
    /// its order it did not score has a bound at most this); `-inf` when it scored them all.
    stop: f64,
}

impl Default for Scored {
    fn default() -> Self {
        Scored {
            items: Vec::new(),
            top: f64::NEG_INFINITY,
            all: Vec::new(),
            stop: f64::NEG_INFINITY,
        }
    }
}

impl Scored {
    fn clear(&mut self) {
        self.items.clear();
        self.top = f64::NEG_INFINITY;
        self.all.clear();
        self.stop = f64::NEG_INFINITY;
    }

    fn push(&mut self, m: MachineId, p: f64) {
        self.all.push((m, p));
        if p > self.top {
            self.top = p;
            let top = p;
            self.items
                .retain(|&(_, q, _)| pmf::prec::chance_ties(q, top));
        }
        if pmf::prec::chance_ties(p, self.top) {
            self.items.push((m, p, f64::NAN));
        }
    }

    /// The choice among the machines scored ([`max_success_choice`]).
    fn choose(&mut self, view: &View<'_>, vq: &VirtualQueues, t: TaskId) -> Option<Choice> {
        max_success_choice(&mut self.items, |m| vq.expected_completion(view, m, t))
    }
}

/// The tail half of [`success_upper_bound`]: `P(T + E < d) <= P(T < d - min E)`. On a machine
/// whose PCTs are not computed yet, an earlier tail of the same queue scaled by its factor
/// ([`VirtualQueues::bound_tail`]) bounds it without computing them.
fn tail_bound(view: &View<'_>, vq: &VirtualQueues, t: TaskId, m: MachineId) -> f64 {
    let spec = view.task(t);
    let pet = view.pet().exec_pmf(spec.task_type, m);
    let (tail, f) = vq.bound_tail(view, m);
    f * tail.at(spec.deadline - 1 - pet.min())
}

/// An O(1) upper bound on the success probability of appending `t` to machine `m`:
/// `P(T + E < d) <= min(P(T < d - min E), P(E < d - min T))`. An earlier tail's support
/// starts no later than the current one's, so its `min T` keeps the second term a bound.
fn success_upper_bound(view: &View<'_>, vq: &VirtualQueues, t: TaskId, m: MachineId) -> f64 {
    let spec = view.task(t);
    let pet = view.pet().exec_pmf(spec.task_type, m);
    let (tail, f) = vq.bound_tail(view, m);
    let a = f * tail.at(spec.deadline - 1 - pet.min());
    a.min(exec_bound(pet, tail, spec.deadline))
}

/// The execution half of [`success_upper_bound`]: `P(E < d - min T)`. An earlier tail's
/// support starts no later than the current one's, so its `min T` keeps it a bound.
fn exec_bound(pet: &pmf::ExecPmf, tail: &pmf::TailCdf, deadline: Tick) -> f64 {
    pet.mass_below_bin((deadline - tail.min() - pet.offset()).max(0) as usize)
}

/// The per-candidate and per-machine arrays of [`run`], kept in [`Kept`] from one mapping
/// event to the next: only their memory is reused (every event resets their contents), so
/// an event allocates nothing for them.
#[derive(Default)]
struct Buffers {
    alive: Vec<bool>,
    best_m: Vec<MachineId>,
    best_p: Vec<f64>,
    /// Per candidate, the machines its phase-1 choice rests on ([`Choice::rests_on`]).
    rests: Vec<[MachineId; 3]>,
    /// Phase 2's keys of one round and the candidates they belong to.
    keyed: Vec<(f64, f64)>,
    keyed_at: Vec<usize>,
    valid: Vec<bool>,
    shortlist_best: Vec<f64>,
    live: Vec<usize>,
    all_machines: Vec<MachineId>,
    succ_values: Vec<(u32, f64)>,
    succ_map: FxHashMap<(u32, u32), (u32, f64)>,
    succ_epoch: Vec<u32>,
    defer: DeferScratch,
    /// [`run_by_type`]'s candidates per type (indices into the candidates) and the position
    /// of each type's first candidate not yet assigned (it marks them in `alive`).
    type_lists: Vec<Vec<usize>>,
    type_cursor: Vec<usize>,
    /// [`min_completion_in`]'s machines scored, for the searches that keep only its choice.
    scored: Vec<(MachineId, f64)>,
    /// [`run_by_type`]'s phase-1 choice per type and its round's best candidate per type.
    type_choice: Vec<Option<Option<Choice>>>,
    type_reps: Vec<((f64, f64), usize, MachineId, usize)>,
}

/// What the search keeps from one mapping event to the next, owned by the heuristic that
/// runs it (never shared between threads): the chances computed at earlier events
/// ([`ChanceMemo`]) and the working arrays of the two-phase loop ([`Buffers`]: only their
/// memory is reused, every event resets their contents). A clone keeps the chances and
/// starts with empty arrays.
#[derive(Default)]
pub(crate) struct Kept {
    memo: ChanceMemo,
    bufs: Buffers,
    /// Phase-1 class answers carried across events ([`Carry`]).
    carry: Carry,
}

impl Clone for Kept {
    fn clone(&self) -> Self {
        Kept {
            memo: self.memo.clone(),
            bufs: Buffers::default(),
            carry: Carry::default(),
        }
    }
}

impl std::fmt::Debug for Kept {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Kept")
            .field("kept_chances", &self.memo.len())
            .finish_non_exhaustive()
    }
}

/// `v` becomes `n` copies of `x`, in its own memory.
fn reset<T: Clone>(v: &mut Vec<T>, n: usize, x: T) {
    v.clear();
    v.resize(n, x);
}

/// Runs the two-phase loop over `vq` (already holding any culling the heuristic did) for the
/// candidate tasks `cands` (batch order), appending to `decision`.
pub(crate) fn run(
    view: &View<'_>,
    plan: Plan,
    vq: &mut VirtualQueues,
    cands: &[TaskId],
    decision: &mut Decision,
    kept: &mut Kept,
) {
    let Kept { memo, bufs, carry } = kept;
    if by_type_applies(view, plan) {
        run_by_type(bufs, view, plan, vq, cands, decision);
    } else {
        memo.prune(cands, view.machines().len());
        run_in(bufs, view, plan, vq, cands, decision, (memo, carry));
    }
}

/// True when a task's whole part in the two-phase loop depends on its type alone, and, for
/// [`Phase2::SoonestDeadline`] and [`Phase2::MaxUrgency`], its deadline: MinCompletion in
/// phase 1 (the machine of minimum expected completion, found per type), no deferring (no
/// chance is read), and a phase-2 key read from the type's machine and the deadline (MM,
/// MSD, MMU and their dropping variants). [`run_by_type`] then replaces [`run_in`].
fn by_type_applies(view: &View<'_>, plan: Plan) -> bool {
    plan.phase1 == Phase1::MinCompletion
        && view.defer().is_none()
        && !matches!(plan.phase2, Phase2::Shortlist { .. })
}

/// [`run_in`] where [`by_type_applies`]: the same assignments in the same order, in about
/// O(types) per assignment instead of O(candidates).
///
/// In [`run_in`], every candidate of type `k` has the same phase-1 machine `m_k` (kept per
/// type until a machine its choice rests on receives a task), so its phase-2 key is read
/// from `m_k`'s expected completion `E` and, for MSD and MMU, its own deadline `d`; phase 2
/// takes the least first key `K*`, of those that tie with it the least second key, of those
/// that tie with that the first candidate in batch order ([`phase2_pick`]). The second key
/// (`E`, or the expected execution time) is one per type. Each type's candidates are sorted
/// once per event, by batch order (MinCompletion's key is the same for all of them) or by
/// (deadline, batch order), and each round compares one candidate per type, the type's best
/// (the least key), to find `K*` and the second key:
/// * MinCompletion, SoonestDeadline: the first candidate not yet assigned, which is also the
///   first in batch order of the type's candidates whose key ties with `K*` (deadlines tie
///   only when equal);
/// * MaxUrgency, key `-1 / (d - E)` (`-inf` at `d = E`): the key grows with `d` on either
///   side of `E` and is negative from `E` on, positive before it; so the type's best is the
///   first candidate not yet assigned with `d >= E`, else the first one. The candidates whose
///   key ties with `K*` are a run from the start of each side (the keys that tie with the
///   least form an interval, [`pmf::prec::times_tie`]), walked for the first in batch
///   order.
///
/// A type whose machine is full waits, as its candidates do in [`run_in`], and one with no
/// machine in scope is out of play.
///
/// One function because, as [`run_in`], its rounds share the candidates, the virtual queues
/// and the working arrays taken from `bufs`.
fn run_by_type(
    bufs: &mut Buffers,
    view: &View<'_>,
    plan: Plan,
    vq: &mut VirtualQueues,
    cands: &[TaskId],
    decision: &mut Decision,
) {
    let types = view.pet().n_types();
    let deadline = |i: usize| view.task(cands[i]).deadline;
    let lists = &mut bufs.type_lists;
    lists.resize_with(types.max(lists.len()), Vec::new);
    for list in lists.iter_mut() {
        list.clear();
    }
    for (i, &t) in cands.iter().enumerate() {
        lists[view.task(t).task_type].push(i);
    }
    if !matches!(plan.phase2, Phase2::MinCompletion { .. }) {
        // Stable: equal deadlines stay in batch order.
        for list in &mut lists[..types] {
            list.sort_by_key(|&i| deadline(i));
        }
    }
    // Per type, the position of its first candidate not yet assigned.
    let first = &mut bufs.type_cursor;
    reset(first, types, 0);
    let assigned = &mut bufs.alive;
    reset(assigned, cands.len(), false);
    // The first candidate of `list` from position `p` on not yet assigned.
    let next = |list: &[usize], assigned: &[bool], mut p: usize| {
        while p < list.len() && assigned[list[p]] {
            p += 1;
        }
        p
    };
    // The phase-1 choice of each type (`Some(None)`: none in scope), until a machine it
    // rests on changes.
    let by_type = &mut bufs.type_choice;
    reset(by_type, types, None);
    // Per type in the round: its best key, the type, its machine, the position of its best.
    let reps = &mut bufs.type_reps;
    let keyed = &mut bufs.keyed;
    let scored = &mut bufs.scored;
    while vq.any_free() {
        reps.clear();
        for k in 0..types {
            let list = &lists[k];
            first[k] = next(list, assigned, first[k]);
            let Some(&i0) = list.get(first[k]) else {
                continue;
            };
            let Some(m) = by_type[k]
                .get_or_insert_with(|| {
                    min_completion_in(view, plan.scope, vq, cands[i0], true, scored).0
                })
                .map(|c| c.m)
            else {
                continue;
            };
            if vq.free(m) == 0 {
                continue;
            }
            let p = match plan.phase2 {
                Phase2::MaxUrgency => {
                    let ect = vq.expected_completion(view, m, cands[i0]);
                    // The first with `d - E >= 0` (the same subtraction as the key's).
                    let from = list.partition_point(|&i| (deadline(i) as f64 - ect) < 0.0);
                    match next(list, assigned, from.max(first[k])) {
                        p if p < list.len() => p,
                        _ => first[k],
                    }
                }
                _ => first[k],
            };
            let key = phase2_key(view, plan.phase2, vq, cands[list[p]], m);
            reps.push((key, k, m, p));
        }
        keyed.clear();
        keyed.extend(reps.iter().map(|r| r.0));
        let Some(at) = phase2_pick(plan.phase2, keyed) else {
            break;
        };
        let (k0, k1) = keyed[at];
        let ties = |key: (f64, f64)| {
            phase2_ties(plan.phase2, 0, key.0, k0) && phase2_ties(plan.phase2, 1, key.1, k1)
        };
        let mut chosen: Option<(usize, MachineId)> = None;
        for &(key, k, m, p) in reps.iter() {
            if !ties(key) {
                continue;
            }
            let list = &lists[k];
            let mut i = list[p];
            if plan.phase2 == Phase2::MaxUrgency {
                // The type's candidates whose key ties with `K*`: a run from its best on, and
                // a run from the first on among those with `d < E` (when its best has
                // `d >= E`); each stops at the first that does not tie.
                let ect = vq.expected_completion(view, m, cands[list[p]]);
                let from = list.partition_point(|&i| (deadline(i) as f64 - ect) < 0.0);
                let mut runs = [(p, list.len()), (first[k], from)];
                if p < from {
                    runs[1] = (0, 0);
                }
                for (start, end) in runs {
                    let mut q = next(list, assigned, start);
                    while q < end {
                        let key = phase2_key(view, plan.phase2, vq, cands[list[q]], m);
                        if !ties(key) {
                            break;
                        }
                        i = i.min(list[q]);
                        q = next(list, assigned, q + 1);
                    }
                }
            }
            if chosen.is_none_or(|(bi, _)| i < bi) {
                chosen = Some((i, m));
            }
        }
        let Some((i, m)) = chosen else { break };
        let t = cands[i];
        vq.assign(view, m, t);
        decision.assign.push((t, m));
        assigned[i] = true;
        for choice in by_type.iter_mut() {
            if choice.is_some_and(|c| c.is_some_and(|c| c.rests_on(m))) {
                *choice = None;
            }
        }
    }
}

/// [`run`] in the memory of `bufs`.
///
/// One function because a round's phase 1 and phase 2 share the candidates, the virtual
/// queues, the kept searches and a dozen working arrays taken from `bufs` and given back at
/// the end; split, each part would take all of them as arguments.
fn run_in(
    bufs: &mut Buffers,
    view: &View<'_>,
    plan: Plan,
    vq: &mut VirtualQueues,
    cands: &[TaskId],
    decision: &mut Decision,
    (memo, carry): (&mut ChanceMemo, &mut Carry),
) {
    let m_count = view.machines().len();
    let n = cands.len();
    if n == 0 || m_count == 0 {
        return;
    }
    let succ = SuccessCache::new_in(n, m_count, bufs, std::mem::take(memo));
    let mut alive = std::mem::take(&mut bufs.alive);
    let mut best_m = std::mem::take(&mut bufs.best_m);
    let mut best_p = std::mem::take(&mut bufs.best_p);
    let mut rests = std::mem::take(&mut bufs.rests);
    let mut keyed = std::mem::take(&mut bufs.keyed);
    let mut keyed_at = std::mem::take(&mut bufs.keyed_at);
    let mut shortlist_best = std::mem::take(&mut bufs.shortlist_best);
    let mut valid = std::mem::take(&mut bufs.valid);
    let mut live = std::mem::take(&mut bufs.live);
    let mut all_machines = std::mem::take(&mut bufs.all_machines);
    let mut defer_scratch = std::mem::take(&mut bufs.defer);
    reset(&mut alive, n, true);
    // Written by a candidate's verdict before any read: only their length is set.
    best_m.resize(n, 0);
    best_p.resize(n, 0.0);
    rests.resize(n, [0; 3]);
    reset(&mut shortlist_best, m_count, f64::NEG_INFINITY);
    // A task's phase-1 choice stays valid until the tail of a machine it rests on changes: an
    // assignment only makes the assigned machine worse, so no other task's choice can change
    // ([`Choice::rests_on`]).
    reset(&mut valid, n, false);
    let needs_p = view.defer().is_some() || matches!(plan.phase2, Phase2::Shortlist { .. });
    // Oversubscribed, most candidates are deferred: room for all at once.
    if view.defer().is_some() {
        decision.deferred.reserve(n);
    }
    all_machines.clear();
    all_machines.extend(0..m_count);
    let mut st = Phase1State {
        succ,
        order: Vec::with_capacity(m_count),
        // MinCompletion's choice depends on the task's type only (expected execution times
        // and the machines' tails), so it is found once per type and kept until its machine
        // changes.
        by_type: match plan.phase1 {
            Phase1::MinCompletion => vec![None; view.pet().n_types()],
            Phase1::MaxSuccess => Vec::new(),
        },
        // With many machines, MaxSuccess scans only those that can finish the task in time.
        indexes: (plan.phase1 == Phase1::MaxSuccess && m_count >= INDEX_MIN_MACHINES)
            .then(|| Indexes::new(m_count >= NARROW_MIN_MACHINES)),
        // Kept searches pay off with many machines; with few, a new search costs about as
        // much.
        memo: match plan.phase1 {
            Phase1::MaxSuccess if m_count >= NARROW_MIN_MACHINES => Memo::new(n),
            Phase1::MaxSuccess | Phase1::MinCompletion => Memo::default(),
        },
        classes: (plan.phase1 == Phase1::MaxSuccess
            && (m_count >= NARROW_MIN_MACHINES
                || (m_count >= INDEX_MIN_MACHINES && n >= CLASS_MIN_CANDIDATES))
            && !plain())
        .then(FxHashMap::default),
        reps: (plan.phase1 == Phase1::MinCompletion && needs_p && n >= CLASS_MIN_CANDIDATES)
            .then(FxHashMap::default),
        carry: None,
        assigned: Vec::new(),
        type_scored: Vec::new(),
    };
    // Phase-1 answers carried across events, per class (MaxSuccess) or per task type
    // (MinCompletion): kept only at the start of the event, before any provisional
    // assignment; read throughout. The machine indexes too, their keys brought up to date.
    if st.classes.is_some() || plan.phase1 == Phase1::MinCompletion {
        carry.begin(view, vq, &mut st.indexes);
        st.carry = Some(carry);
    } else {
        carry.clear();
    }
    let phase1 = |i: usize, vq: &VirtualQueues, st: &mut Phase1State| -> Verdict {
        let Phase1State {
            succ,
            order,
            by_type,
            indexes,
            memo,
            classes,
            reps,
            carry,
            assigned,
            type_scored,
        } = st;
        // The candidate whose search answers for `i`: `i` itself, or the first candidate of
        // its class (see `Phase1State::classes`).
        let (mut i, mut t) = (i, cands[i]);
        let choice = match plan.phase1 {
            Phase1::MinCompletion => {
                let k = view.task(t).task_type;
                *by_type[k].get_or_insert_with(|| {
                    let carried = carry
                        .as_deref_mut()
                        .and_then(|c| c.type_answer(view, plan.scope, vq, t, assigned));
                    if carried.is_some() {
                        return carried;
                    }
                    let (choice, low) =
                        min_completion_in(view, plan.scope, vq, t, !needs_p, type_scored);
                    if let (Some(c), Some(low)) =
                        (carry.as_deref_mut().filter(|_| assigned.is_empty()), low)
                    {
                        c.keep_type(k, type_scored, low);
                    }
                    choice
                })
            }
            Phase1::MaxSuccess => {
                let best = {
                    let class = match classes {
                        Some(c) => {
                            let spec = view.task(t);
                            let e = c
                                .entry((spec.task_type, spec.deadline))
                                .or_insert((i, None));
                            (i, t) = (e.0, cands[e.0]);
                            Some(e)
                        }
                        None => None,
                    };
                    match class.as_ref().and_then(|c| c.1) {
                        Some(best) => best,
                        None => {
                            let carried = carry.as_deref_mut().and_then(|c| {
                                c.answer(view, plan.scope, vq, succ, (i, t), assigned)
                            });
                            let best = carried
                                .or_else(|| memo.reevaluate(view, plan.scope, vq, succ, (i, t)))
                                .unwrap_or_else(|| {
                                    let (mut kept, mut cap) = ((0, f64::NAN), f64::NEG_INFINITY);
                                    let best = max_success_indexed(
                                        view,
                                        plan.scope,
                                        vq,
                                        succ,
                                        order,
                                        (&all_machines, indexes.as_mut()),
                                        (i, t),
                                        (&mut kept, &mut cap),
                                    );
                                    match best {
                                        Best::Machine { .. } => memo.keep(i, order, kept, cap),
                                        _ => memo.forget(i),
                                    }
                                    if let Some(c) =
                                        carry.as_deref_mut().filter(|_| assigned.is_empty())
                                    {
                                        // Every machine the search left out has a bound
                                        // below the larger of its floor and cap less the
                                        // tie margin, or at most where it stopped.
                                        let reach = if kept.1.is_nan() {
                                            f64::INFINITY
                                        } else {
                                            kept.1.max(cap)
                                        };
                                        c.keep(view, vq, t, (best, reach), &succ.scored);
                                    }
                                    best
                                });
                            if let Some(c) = class {
                                c.1 = Some(best);
                            }
                            best
                        }
                    }
                };
                match best {
                    Best::Machine { choice, .. } => Some(choice),
                    Best::NoMachine => None,
                    // Every machine's chance is below the threshold by more than the slack.
                    Best::BelowDefer => {
                        return Verdict::Deferred {
                            p: f64::NEG_INFINITY,
                        };
                    }
                }
            }
        };
        let Some(choice) = choice else {
            return Verdict::NoMachine;
        };
        let m = choice.m;
        let p = if needs_p {
            // MinCompletion's candidates of one class share their chance on the machine.
            let i = match reps {
                Some(r) => {
                    let spec = view.task(t);
                    *r.entry((spec.task_type, spec.deadline)).or_insert(i)
                }
                None => i,
            };
            succ.get(view, vq, i, cands[i], m)
        } else {
            0.0
        };
        if view.defer().is_some() && view.should_defer(t, p) {
            Verdict::Deferred { p }
        } else {
            Verdict::Chosen {
                m,
                p,
                rests_on: choice.rests_on,
            }
        }
    };
    // The candidates of a class share their verdicts: the loop runs by class.
    let by_class = vq.any_free() && (st.classes.is_some() || st.reps.is_some());
    if by_class {
        run_by_class(
            (view, plan, cands),
            vq,
            &mut defer_scratch,
            &mut st,
            phase1,
            decision,
        );
    } else if view.defer().is_some() && vq.any_free() {
        infer_deferrals(view, cands, &mut defer_scratch, |i| {
            let v = phase1(i, vq, &mut st);
            valid[i] = true;
            record(
                v,
                i,
                cands[i],
                &mut alive,
                (&mut best_m, &mut best_p, &mut rests),
                decision,
            );
            v
        })
        .iter()
        .for_each(|&i| {
            valid[i] = true;
            alive[i] = false;
            decision.deferred.push(cands[i]);
        });
    }
    // The loop by candidate: the candidates still in play, in batch order (ties in phase 2
    // go to the first).
    live.clear();
    if !by_class {
        live.extend((0..n).filter(|&i| alive[i]));
    }
    while !by_class && vq.any_free() {
        // Phase 1.
        for &i in &live {
            if !alive[i] || valid[i] {
                continue;
            }
            valid[i] = true;
            record(
                phase1(i, vq, &mut st),
                i,
                cands[i],
                &mut alive,
                (&mut best_m, &mut best_p, &mut rests),
                decision,
            );
        }
        live.retain(|&i| alive[i]);
        if let Phase2::Shortlist { .. } = plan.phase2 {
            shortlist_best.fill(f64::NEG_INFINITY);
            for &i in &live {
                let m = best_m[i];
                shortlist_best[m] = shortlist_best[m].max(best_p[i]);
            }
        }
        // Phase 2: the best pair whose machine has a free slot.
        keyed.clear();
        keyed_at.clear();
        for &i in &live {
            let t = cands[i];
            let m = best_m[i];
            if vq.free(m) == 0 {
                continue;
            }
            if let Phase2::Shortlist { epsilon } = plan.phase2 {
                if best_p[i] < shortlist_best[m] - epsilon {
                    continue;
                }
            }
            keyed.push(phase2_key(view, plan.phase2, vq, t, m));
            keyed_at.push(i);
        }
        let Some(at) = phase2_pick(plan.phase2, &keyed) else {
            break;
        };
        let i = keyed_at[at];
        let (t, m) = (cands[i], best_m[i]);
        vq.assign(view, m, t);
        decision.assign.push((t, m));
        alive[i] = false;
        st.assigned_to(m);
        for &k in &live {
            if rests[k].contains(&m) {
                valid[k] = false;
            }
        }
    }
    if let (Some(c), Some(ix)) = (st.carry, st.indexes) {
        c.keep_indexes(ix, &st.assigned);
    }
    *memo = st.succ.release(bufs);
    *bufs = Buffers {
        alive,
        best_m,
        best_p,
        rests,
        keyed,
        keyed_at,
        valid,
        shortlist_best,
        live,
        all_machines,
        defer: defer_scratch,
        ..std::mem::take(bufs)
    };
}

/// [`Phase1State::classes`]: per (task type, deadline), the first candidate of the class and
/// its phase-1 answer while valid.
type Classes = FxHashMap<(usize, Tick), (usize, Option<Best>)>;

/// What phase 1 keeps through one mapping event.
struct Phase1State<'c> {
    succ: SuccessCache,
    /// Reused by every search.
    order: Vec<(f64, MachineId)>,
    /// MinCompletion's choice per task type.
    by_type: Vec<Option<Option<Choice>>>,
    indexes: Option<Indexes>,
    memo: Memo,
    /// MaxSuccess with many machines: per (task type, deadline), the first candidate of that
    /// class and its phase-1 answer, kept until its machine receives a task. The answer
    /// depends on the type and the deadline only (the chance and the expected completion on
    /// each machine, the defer threshold), so the candidates of one class share one search
    /// (MinCompletion's `by_type` per type). With many idle machines of one PET column, the
    /// candidates of a class all choose its first one, and each assignment there sends them
    /// all back to phase 1: one search each would make a mapping event O(candidates^2 x
    /// machines) (JPDC-2016-like loads of hundreds of arrivals per tick on thousands of
    /// machines).
    classes: Option<Classes>,
    /// MinCompletion with chances read (deferring on, or MOC's shortlist) and many
    /// candidates: per (task type, deadline), the first candidate of that class, whose
    /// chance on a machine every candidate of the class shares (it depends on the type and
    /// the deadline only).
    reps: Option<FxHashMap<(usize, Tick), usize>>,
    /// The phase-1 answers carried across events ([`Carry`]; `None` for MaxSuccess without
    /// classes).
    carry: Option<&'c mut Carry>,
    /// The machines provisionally assigned a task in this event, in order (a machine once
    /// per task).
    assigned: Vec<MachineId>,
    /// MinCompletion's machines evaluated by one search (reused).
    type_scored: Vec<(MachineId, f64)>,
}

impl Phase1State<'_> {
    /// Machine `m` was provisionally assigned a task: the chances on it and the phase-1
    /// answers that rest on it are forgotten.
    fn assigned_to(&mut self, m: MachineId) {
        self.assigned.push(m);
        self.succ.invalidate_machine(m);
        for choice in &mut self.by_type {
            if choice.is_some_and(|c| c.is_some_and(|c| c.rests_on(m))) {
                *choice = None;
            }
        }
        for (_, best) in self.classes.iter_mut().flat_map(|c| c.values_mut()) {
            if let Some(Best::Machine { choice, .. }) = best {
                if choice.rests_on(m) {
                    *best = None;
                }
            }
        }
    }
}

/// Phase 1 by minimum expected completion time: of the machines whose expected completion
/// ties with the least, the lowest index ([`min_completion_choice`]).
///
/// Machines whose tail is known exactly come first, then the other free machines, then the
/// other full ones. A machine whose PCTs are not computed yet is computed only when bounds on
/// its expected completion (from its earlier PCTs, or from its executing task's PCT and first
/// pending task without convolving: [`VirtualQueues::tail_mean_bounds`]) leave the
/// comparison open, with a margin of `3 s max(1, |b|)` around the least found so far, `b`
/// (`s` the decision slack: a value above `b` by more than `2 s max(1, |b|)` does not tie
/// with `b` nor with anything below it, and `s` more for rounding):
/// * a lower bound above `b` by more than the margin: it cannot win or tie;
/// * with `any_full_will_do`, a full machine whose upper bound is below `b` by more than the
///   margin: the least expected completion is a full machine's, and no free machine ties
///   with it (every free one was settled before, at `b` or above), so the winner is a full
///   machine. Which one does not matter when nothing but its being full is read (no chance
///   is needed): the task waits either way, and a full machine is never assigned to in this
///   event (nor does a free one come to tie: it only gets later).
///
/// The outcome is the one of evaluating every machine.
///
/// With the choice: the machines it evaluated, and their expected completions, in `scored`
/// (the caller's memory, reused from call to call), and a lower bound on the expected
/// completion of every machine in scope it did not evaluate (`+inf` when none; `None` when it
/// returned a full machine without evaluating the rest).
fn min_completion_in(
    view: &View<'_>,
    scope: Phase1Scope,
    vq: &VirtualQueues,
    t: TaskId,
    any_full_will_do: bool,
    scored: &mut Vec<(MachineId, f64)>,
) -> (Option<Choice>, Option<f64>) {
    let spec = view.task(t);
    let in_scope = |m: MachineId| scope == Phase1Scope::AllMachines || vq.free(m) > 0;
    // The machines evaluated, with their expected completions, and the least of them.
    scored.clear();
    let mut best = f64::INFINITY;
    let mut low = f64::INFINITY;
    let mut consider = |m: MachineId, best: &mut f64| {
        let ect = vq.expected_completion(view, m, t);
        *best = best.min(ect);
        scored.push((m, ect));
    };
    let n = view.machines().len();
    // Plain loops (iterator adapters here did not inline): the computed machines first,
    // then the others, free before full.
    for m in 0..n {
        if in_scope(m) && vq.is_exact(m) {
            consider(m, &mut best);
        }
    }
    for full in [false, true] {
        for m in 0..n {
            if !in_scope(m) || vq.is_exact(m) || (vq.free(m) == 0) != full {
                continue;
            }
            if let (true, Some((lower, upper))) =
                (best < f64::INFINITY, vq.tail_mean_bounds(view, m))
            {
                let pet_mean = view.pet().mean(spec.task_type, m);
                let margin = 3.0 * MEAN_SLACK * best.abs().max(1.0);
                if lower + pet_mean > best + margin {
                    low = low.min(lower + pet_mean);
                    continue;
                }
                if any_full_will_do && full && upper + pet_mean < best - margin {
                    let choice = Choice {
                        m,
                        p: 0.0,
                        rests_on: [m; 3],
                    };
                    return (Some(choice), None);
                }
            }
            consider(m, &mut best);
        }
    }
    (min_completion_choice(scored), Some(low))
}

/// Relative slack when skipping a machine by a lower bound on its expected completion.
const MEAN_SLACK: f64 = pmf::prec::DECISION_SLACK;

#[cfg(test)]
mod tests;
