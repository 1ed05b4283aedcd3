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
//! and MOC's culling ([`cull`]).

use model::{Decision, MachineId, TaskId, View, VirtualQueues};
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

use by_success::*;
use carry::Carry;
pub(crate) use cull::cull_below;
use defer::*;
use index::*;
use memo::*;
pub use scores::ScoreMemo;
use scores::*;

use crate::plan::{
    Choice, Phase1, Phase1Scope, Phase2, Plan, max_success_choice, min_completion_choice,
    phase2_key, phase2_pick, phase2_ties,
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
/// the highest chance found (`top`); the others are dropped as the top rises.
#[derive(Debug, Default)]
struct Scored {
    /// (machine, chance, room for its expected completion).
    items: Vec<(MachineId, f64, f64)>,
    top: f64,
}

impl Scored {
    fn clear(&mut self) {
        self.items.clear();
        self.top = f64::NEG_INFINITY;
    }

    fn push(&mut self, m: MachineId, p: f64) {
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
    let pet = view.pet.exec_pmf(spec.task_type, m);
    let (tail, f) = vq.bound_tail(view, m);
    f * tail.at(spec.deadline - 1 - pet.min())
}

/// An O(1) upper bound on the success probability of appending `t` to machine `m`:
/// `P(T + E < d) <= min(P(T < d - min E), P(E < d - min T))`. An earlier tail's support
/// starts no later than the current one's, so its `min T` keeps the second term a bound.
fn success_upper_bound(view: &View<'_>, vq: &VirtualQueues, t: TaskId, m: MachineId) -> f64 {
    let spec = view.task(t);
    let pet = view.pet.exec_pmf(spec.task_type, m);
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
}

/// What the search keeps from one mapping event to the next, owned by the heuristic that
/// runs it (never shared between threads): the chances computed at earlier events
/// ([`ScoreMemo`]) and the working arrays of the two-phase loop ([`Buffers`]: only their
/// memory is reused, every event resets their contents). A clone keeps the chances and
/// starts with empty arrays.
#[derive(Default)]
pub struct Kept {
    memo: ScoreMemo,
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
            .field("kept_chances", &self.memo.map.len())
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
        memo.prune(cands, view.machines.len());
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
        && view.defer.is_none()
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
fn run_by_type(
    bufs: &mut Buffers,
    view: &View<'_>,
    plan: Plan,
    vq: &mut VirtualQueues,
    cands: &[TaskId],
    decision: &mut Decision,
) {
    let types = view.pet.n_types();
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
    let mut by_type: Vec<Option<Option<Choice>>> = vec![None; types];
    // Per type in the round: its best key, the type, its machine, the position of its best.
    let mut reps: Vec<((f64, f64), usize, MachineId, usize)> = Vec::with_capacity(types);
    let keyed = &mut bufs.keyed;
    while vq.any_free() {
        reps.clear();
        for k in 0..types {
            let list = &lists[k];
            first[k] = next(list, assigned, first[k]);
            let Some(&i0) = list.get(first[k]) else {
                continue;
            };
            let Some(m) = by_type[k]
                .get_or_insert_with(|| min_completion(view, plan.scope, vq, cands[i0], true))
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
        for &(key, k, m, p) in &reps {
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
        for choice in &mut by_type {
            if choice.is_some_and(|c| c.is_some_and(|c| c.rests_on(m))) {
                *choice = None;
            }
        }
    }
}

/// [`run`] in the memory of `bufs`.
fn run_in(
    bufs: &mut Buffers,
    view: &View<'_>,
    plan: Plan,
    vq: &mut VirtualQueues,
    cands: &[TaskId],
    decision: &mut Decision,
    (memo, carry): (&mut ScoreMemo, &mut Carry),
) {
    let m_count = view.machines.len();
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
    reset(&mut best_m, n, 0);
    reset(&mut best_p, n, 0.0);
    reset(&mut rests, n, [0; 3]);
    reset(&mut shortlist_best, m_count, f64::NEG_INFINITY);
    // A task's phase-1 choice stays valid until the tail of a machine it rests on changes: an
    // assignment only makes the assigned machine worse, so no other task's choice can change
    // ([`Choice::rests_on`]).
    reset(&mut valid, n, false);
    let needs_p = view.defer.is_some() || matches!(plan.phase2, Phase2::Shortlist { .. });
    // Oversubscribed, most candidates are deferred: room for all at once.
    if view.defer.is_some() {
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
            Phase1::MinCompletion => vec![None; view.pet.n_types()],
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
        carry: None,
    };
    // Class answers carried across events: read and kept only at the start of the event,
    // before any provisional assignment.
    if st.classes.is_some() {
        carry.begin(vq);
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
            carry,
        } = st;
        // The candidate whose search answers for `i`: `i` itself, or the first candidate of
        // its class (see `Phase1State::classes`).
        let (mut i, mut t) = (i, cands[i]);
        let choice = match plan.phase1 {
            Phase1::MinCompletion => {
                let k = view.task(t).task_type;
                *by_type[k].get_or_insert_with(|| min_completion(view, plan.scope, vq, t, !needs_p))
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
                            let carried = carry
                                .as_deref_mut()
                                .and_then(|c| c.answer(view, plan.scope, vq, succ, (i, t)));
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
                                    if let Some(c) = carry.as_deref_mut() {
                                        c.keep(view, vq, t, best, &succ.scored);
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
            succ.get(view, vq, i, t, m)
        } else {
            0.0
        };
        if view.defer.is_some() && view.should_defer(t, p) {
            Verdict::Deferred { p }
        } else {
            Verdict::Chosen {
                m,
                p,
                rests_on: choice.rests_on,
            }
        }
    };
    if view.defer.is_some() && vq.any_free() {
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
    // The candidates still in play, in batch order (ties in phase 2 go to the first).
    live.clear();
    live.extend((0..n).filter(|&i| alive[i]));
    loop {
        if !vq.any_free() {
            break;
        }
        // Phase 1.
        for &i in &live {
            if !alive[i] || valid[i] {
                continue;
            }
            valid[i] = true;
            let v = phase1(i, vq, &mut st);
            record(
                v,
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
        st.carry = None;
        st.succ.invalidate_machine(m);
        for choice in &mut st.by_type {
            if choice.is_some_and(|c| c.is_some_and(|c| c.rests_on(m))) {
                *choice = None;
            }
        }
        for (_, best) in st.classes.iter_mut().flat_map(|c| c.values_mut()) {
            if let Some(Best::Machine { choice, .. }) = best {
                if choice.rests_on(m) {
                    *best = None;
                }
            }
        }
        for &k in &live {
            if rests[k].contains(&m) {
                valid[k] = false;
            }
        }
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
    /// The class answers carried across events ([`Carry`]), while no provisional assignment
    /// was made in this event (`None` from the first one on, and without classes).
    carry: Option<&'c mut Carry>,
}

/// The outcome of phase 1 for one task.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Verdict {
    /// No machine in scope.
    NoMachine,
    /// Its chance on its phase-1 machine, `p`, is at or below its defer threshold.
    Deferred { p: f64 },
    /// Its phase-1 machine, its chance there, and the machines the choice rests on.
    Chosen {
        m: MachineId,
        p: f64,
        rests_on: [MachineId; 3],
    },
}

/// Applies candidate `i`'s (task `t`'s) phase-1 verdict: out of play (no machine, or deferred)
/// or its machine and chance recorded.
fn record(
    v: Verdict,
    i: usize,
    t: TaskId,
    alive: &mut [bool],
    (best_m, best_p, rests): (&mut [MachineId], &mut [f64], &mut [[MachineId; 3]]),
    decision: &mut Decision,
) {
    match v {
        Verdict::NoMachine => alive[i] = false,
        Verdict::Deferred { .. } => {
            alive[i] = false;
            decision.deferred.push(t);
        }
        Verdict::Chosen { m, p, rests_on } => {
            best_m[i] = m;
            best_p[i] = p;
            rests[i] = rests_on;
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
fn min_completion(
    view: &View<'_>,
    scope: Phase1Scope,
    vq: &VirtualQueues,
    t: TaskId,
    any_full_will_do: bool,
) -> Option<Choice> {
    let spec = view.task(t);
    let in_scope = |m: MachineId| scope == Phase1Scope::AllMachines || vq.free(m) > 0;
    // The machines evaluated, with their expected completions, and the least of them.
    let mut scored: Vec<(MachineId, f64)> = Vec::new();
    let mut best = f64::INFINITY;
    let mut consider = |m: MachineId, best: &mut f64| {
        let ect = vq.expected_completion(view, m, t);
        *best = best.min(ect);
        scored.push((m, ect));
    };
    let n = view.machines.len();
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
                let pet_mean = view.pet.mean(spec.task_type, m);
                let margin = 3.0 * MEAN_SLACK * best.abs().max(1.0);
                if lower + pet_mean > best + margin {
                    continue;
                }
                if any_full_will_do && full && upper + pet_mean < best - margin {
                    return Some(Choice {
                        m,
                        p: 0.0,
                        rests_on: [m; 3],
                    });
                }
            }
            consider(m, &mut best);
        }
    }
    min_completion_choice(&scored)
}

/// Relative slack when skipping a machine by a lower bound on its expected completion.
const MEAN_SLACK: f64 = pmf::prec::DECISION_SLACK;

#[cfg(test)]
mod tests {
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
        let view = View {
            now: 0,
            pet: &pet,
            tasks: &tasks,
            batch: &batch,
            machines: &[],
            oracle: &model::Oracle::new(0),
            model: pmf::DropModel::All,
            defer: Some(&thresholds),
            staging: None,
        };
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
            let view = View {
                now: 0,
                pet: &pet,
                tasks: &tasks,
                batch: &cands,
                machines: &[],
                oracle: &model::Oracle::new(0),
                model: pmf::DropModel::All,
                defer: None,
                staging: None,
            };
            let mut keyed: Vec<(usize, i64, usize)> = cands
                .iter()
                .enumerate()
                .map(|(i, &t)| (tasks[t].task_type, tasks[t].deadline, i))
                .collect();
            keyed.sort_unstable();
            let expected: Vec<usize> = keyed.into_iter().map(|k| k.2).collect();
            let mut sc = DeferScratch::default();
            by_type_and_deadline(&view, &cands, &mut sc);
            prop_assert_eq!(sc.by_type, expected);
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
            for m in (0..machines.len()).step_by(2) {
                let _ = oracle.cache(m, &machines[m], &tasks, &pet, model);
            }
            oracle.sync(&machines, 20);
            for m in (1..machines.len()).step_by(2) {
                let _ = oracle.cache(m, &machines[m], &tasks, &pet, model);
            }
            let thresholds = defer.map(|q| vec![q; pet.n_types()]);
            let view = View {
                now: 20,
                pet: &pet,
                tasks: &tasks,
                batch: &ids,
                machines: &machines,
                oracle: &oracle,
                model,
                defer: thresholds.as_deref(),
                staging: None,
            };
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
            let view = View {
                now,
                pet: &pet,
                tasks: &tasks,
                batch: &cands,
                machines: &machines,
                oracle: &oracle,
                model,
                defer: None,
                staging: None,
            };
            let view_b = View { oracle: &oracle_b, ..view };
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
                (&mut ScoreMemo::default(), &mut Carry::default()),
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
        let view = View {
            now: 5,
            pet: &pet,
            tasks: &tasks,
            batch: &ids,
            machines: &ms,
            oracle: &oracle,
            model,
            defer: thresholds.as_deref(),
            staging: None,
        };
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
            let fast = many_machines_event(machines, seed, &busy, &cands, plan, defer, model, false);
            let plain = many_machines_event(machines, seed, &busy, &cands, plan, defer, model, true);
            prop_assert_eq!(fast, plain);
        }
    }
}
