//! Class searches carried from one mapping event to the next ([`Carry`]): a class's phase-1
//! answer is kept with the event it was found at, and found again later, at a later event or
//! after a provisional assignment, from the machines whose PCTs changed since, by the
//! oracle's versions ([`VirtualQueues::version`]).

use super::*;
use pmf::prec::{DECISION_SLACK, chance_ties, times_tie};

mod types;
use types::TypeAnswer;

/// One machine of a kept search ([`Kept1::Listed`]).
#[derive(Debug, Clone, Copy)]
struct Listed {
    m: MachineId,
    /// The task's chance on it.
    p: f64,
    /// The task's expected completion on it once read (`NaN` before).
    ect: f64,
    /// Idle and empty when listed, since this tick ([`VirtualQueues::idle_at`]).
    idle: Option<Tick>,
}

/// A class's phase-1 answer at the start of an event ([`Carry`]).
#[derive(Debug, Clone)]
enum Kept1 {
    /// The machines a search scored, with their chances (`listed`, by decreasing chance, then
    /// machine), and what bounds every machine in scope not listed, but for idle copies of a
    /// listed idle machine with a lower index ([`best_of_copies`]): its chance is below
    /// `top - s`, and its upper bound is either below `reach` less the tie margin or at most
    /// `stop`.
    Listed {
        listed: Vec<Listed>,
        top: f64,
        stop: f64,
        reach: f64,
        ranking: Ranking,
        /// At least the idle machines listed (a copy listed before it joins `D` counts twice):
        /// the look for a listed idle machine in `D` runs only when it is above 0.
        idle: usize,
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

/// Phase-1 class answers ([`Phase1State::classes`]) carried across mapping events, and
/// through the provisional assignments of one.
///
/// A class's answer (task type and deadline) depends on every machine's chance and expected
/// completion for it, and on which machines are in scope: a function of each machine's PCTs
/// and PET column, which the oracle versions ([`model::Oracle::content_version`]), and of its
/// free slots. At the start of each event every machine's version (and whether it has a
/// free slot) is compared with the one of the event before, and the machines that differ are
/// logged with the event. A class searched at the start of an event (before any provisional
/// assignment) keeps its answer; later, in this event or a later one, the answer is found
/// again from the machines logged since and those provisionally assigned a task in the
/// event (`D`), or the full search runs:
/// * [`Kept1::Listed`]: the machines listed and not in `D` keep their chances; each machine
///   of `D` in scope is scored. With `P` the highest of these chances, every machine not
///   listed is below `P` less the tie margin when `P` is at least the kept `top`, or when
///   `P` is at least `reach` and `stop` is below `P` less the tie margin: the choice is then
///   [`max_success_choice`]'s over the machines that tie with `P` (the rule of evaluating
///   every machine, whose ties, [`crate::plan`], "Ties", it follows: the highest chance, of
///   those that tie the least expected completion, kept per listed machine, then the lowest
///   index), when `P` is at or above the defer threshold less the slack. When `P` is below
///   it and so is every machine not listed (the kept `top` at most the threshold, or `reach`
///   at most the threshold and `stop` below it less the tie margin), the task is deferred
///   ([`Best::BelowDefer`]). A listed idle machine in `D` no longer stands for its idle
///   copies (same PET column, idle since the same tick, a higher index), which were not
///   listed: the lowest of them out of `D` joins `D` (scored, then listed), and stands for
///   the others.
/// * [`Kept1::Below`]: when every machine of `D` in scope is below the threshold less the
///   slack (by its bound, else its chance), so is every machine: the task is deferred
///   ([`Best::BelowDefer`]).
/// * [`Kept1::NoMachine`]: when `D` is empty.
///
/// At the start of an event, an answer found again replaces the kept one (the machines of `D`
/// listed with their new chances); after a provisional assignment nothing is kept, but the
/// expected completions read of machines not in `D` (the same at the start of the event).
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
    /// Per machine, whether it is in `D` (reused; all false between calls).
    mark: Vec<bool>,
    /// The machines of `D` scored (reused).
    fresh: Vec<Listed>,
    /// Per machine, an expected completion of a full search's choice (reused; `NaN` between
    /// calls).
    ects: Vec<f64>,
    /// MinCompletion's answers per task type ([`Carry::type_answer`]).
    types: Vec<Option<TypeAnswer>>,
    /// The machines of `D` in scope with their expected completions (reused).
    fresh_ect: Vec<(f64, MachineId)>,
    /// The machines that may tie with the least expected completion, with it and their
    /// chance ([`found_again`]; reused).
    near: Vec<Near>,
    /// The machine indexes of the last event that read them ([`Carry::indexes`]).
    indexes: Option<KeptIndexes>,
    /// The listed idle machines in `D`, with the tick they are idle since (reused).
    copies: Vec<(MachineId, Tick)>,
}

/// Machine indexes kept at the end of event `event` ([`Carry::keep_indexes`]), with the
/// machines provisionally assigned a task in it (whose keys may have been read after).
#[derive(Default)]
struct KeptIndexes {
    event: u64,
    indexes: Indexes,
    assigned: Vec<MachineId>,
}

impl std::fmt::Debug for KeptIndexes {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("KeptIndexes")
            .field("event", &self.event)
            .field("indexes", &self.indexes.built.len())
            .finish_non_exhaustive()
    }
}

/// A machine with its expected completion and chance ([`found_again`], [`Ranking`]): its
/// expected completion, the machine, its chance.
type Near = (f64, MachineId, f64);

/// The listed machines of least expected completion among those whose chance is at least
/// `from` ([`Kept1::Listed`]), so that the machines that tie with the highest chance choose
/// without a walk of the listing ([`Ranking::choose`]).
#[derive(Debug, Clone)]
struct Ranking {
    /// Listed machines whose chance is at least `from`, by increasing expected completion,
    /// then machine ([`by_ranking`]).
    head: Vec<Near>,
    from: f64,
    /// Every listed machine whose chance is at least `from` and not in `head` comes after it
    /// in that order (`None`: `head` holds them all).
    past: Option<(f64, MachineId)>,
}

/// Machines a [`Ranking`] holds when built.
const RANKED: usize = 16;

impl Ranking {
    /// No machine ranked.
    fn none() -> Self {
        Ranking {
            head: Vec::new(),
            from: f64::INFINITY,
            past: None,
        }
    }

    /// Ranks the machines of `listed` (by decreasing chance) whose chance is at least `from`,
    /// every one with its expected completion read.
    fn rank(&mut self, listed: &[Listed], from: f64) {
        let (head, mut past) = (&mut self.head, None);
        head.clear();
        for e in listed.iter().take_while(|e| e.p >= from) {
            let n = (e.ect, e.m, e.p);
            if head.len() == RANKED && head.last().is_some_and(|l| by_ranking(&n, l).is_gt()) {
                past = head.last().map(|&(e, m, _)| (e, m));
                continue;
            }
            let at = head.partition_point(|x| by_ranking(x, &n).is_lt());
            head.insert(at, n);
            if head.len() > RANKED {
                head.pop();
                past = head.last().map(|&(e, m, _)| (e, m));
            }
        }
        self.from = from;
        self.past = past;
    }

    /// Brings the ranking up to date with its listing's: the machines of `D` (`mark`) out,
    /// those of `fresh` with a chance at least `from` in (their expected completions read by
    /// `ect`), in `head` when they come before `past`.
    fn update(
        &mut self,
        mark: &[bool],
        fresh: &mut [Listed],
        mut ect: impl FnMut(MachineId) -> f64,
    ) {
        self.head.retain(|&(_, m, _)| !mark[m]);
        for f in fresh.iter_mut().filter(|f| f.p >= self.from) {
            if f.ect.is_nan() {
                f.ect = ect(f.m);
            }
            if self
                .past
                .is_none_or(|(pe, pm)| by_ranking(&(f.ect, f.m, f.p), &(pe, pm, 0.0)).is_lt())
            {
                let n = (f.ect, f.m, f.p);
                let at = self.head.partition_point(|x| by_ranking(x, &n).is_lt());
                self.head.insert(at, n);
            }
        }
    }

    /// [`found_again`]'s choice among the machines that tie with `p_top` (every listed one
    /// has a chance at least `from`), when the ranking proves it: the first machine of
    /// `head` out of `D` that ties with `p_top` has the least expected completion listed,
    /// and those that tie with the least (an interval from it up, [`times_tie`]) follow it,
    /// all in `head` when `past` does not tie with the least.
    fn choose(&self, mark: &[bool], fresh: &[Listed], p_top: f64) -> Option<TieChoice> {
        let counted = |&&(_, m, p): &&Near| !mark[m] && chance_ties(p, p_top);
        let (e1, m1, _) = *self.head.iter().find(counted)?;
        let mut least = (e1, m1);
        let tied = || fresh.iter().filter(|f| chance_ties(f.p, p_top));
        for f in tied() {
            if f.ect < least.0 || (f.ect == least.0 && f.m < least.1) {
                least = (f.ect, f.m);
            }
        }
        let (e_least, m_least) = least;
        if self.past.is_some_and(|(pe, _)| times_tie(pe, e_least)) {
            return None;
        }
        let mut pick = (m_least, f64::NAN);
        for &(e, m, p) in self.head.iter().filter(counted) {
            if !times_tie(e, e_least) {
                break;
            }
            if m <= pick.0 {
                pick = (m, p);
            }
        }
        for f in tied().filter(|f| times_tie(f.ect, e_least)) {
            if f.m <= pick.0 {
                pick = (f.m, f.p);
            }
        }
        Some((pick.0, pick.1, m_least))
    }
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
    /// Test hook: when set, [`Carry::answer`] leaves the machines provisionally assigned a
    /// task out of `D` (a wrong key within an event).
    pub(crate) static FORGET_ASSIGNED: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
    /// Test counters: the answers carried ([`Carry::answer`] returning one), and those of
    /// them after a provisional assignment, or with a machine of the kept choice in `D`.
    pub(crate) static CARRIED: std::cell::Cell<usize> = const { std::cell::Cell::new(0) };
    pub(crate) static CARRIED_IN_EVENT: std::cell::Cell<usize> = const { std::cell::Cell::new(0) };
    pub(crate) static CARRIED_PAST_TOP: std::cell::Cell<usize> = const { std::cell::Cell::new(0) };
    /// Test counter: MinCompletion's answers carried ([`Carry::type_answer`] returning one).
    pub(crate) static CARRIED_TYPES: std::cell::Cell<usize> = const { std::cell::Cell::new(0) };
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

#[cfg(test)]
fn forget_assigned() -> bool {
    FORGET_ASSIGNED.with(std::cell::Cell::get)
}

#[cfg(not(test))]
#[inline(always)]
const fn forget_assigned() -> bool {
    false
}

#[cfg(test)]
fn count(c: &'static std::thread::LocalKey<std::cell::Cell<usize>>) {
    c.with(|c| c.set(c.get() + 1));
}

impl Carry {
    /// Starts an event: logs the machines whose version or free-slot flag changed, and
    /// replaces `indexes`, when some, by those for this event ([`Carry::indexes`]).
    pub(super) fn begin(
        &mut self,
        view: &View<'_>,
        vq: &VirtualQueues,
        indexes: &mut Option<Indexes>,
    ) {
        let n = vq.machines().len();
        self.event += 1;
        if self.versions.len() != n || self.log.len() > 4 * n.max(16) {
            self.versions.clear();
            self.versions.resize(n, NO_VERSION);
            self.log.clear();
            self.answers.clear();
            self.types.clear();
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
        if let Some(ix) = indexes.as_mut() {
            *ix = self.indexes(view, vq, ix.narrow);
        }
    }

    /// Forgets every answer (the search runs without classes).
    pub(super) fn clear(&mut self) {
        self.answers.clear();
        self.types.clear();
        self.versions.clear();
        self.log.clear();
        self.indexes = None;
    }

    /// The machine indexes for this event ([`Carry::begin`]): those kept at the last
    /// event with the keys of the machines changed since (logged, or provisionally assigned
    /// a task in it) read anew ([`Indexes::update`]), when few changed; else new ones.
    pub(super) fn indexes(&mut self, view: &View<'_>, vq: &VirtualQueues, narrow: bool) -> Indexes {
        if let Some(mut k) = self.indexes.take() {
            if k.event >= self.base && k.event < self.event && k.indexes.narrow == narrow {
                let changed = &mut self.changed;
                if changed_since(
                    &self.log,
                    self.versions.len(),
                    k.event,
                    &k.assigned,
                    changed,
                ) && k.indexes.update(view, vq, changed)
                {
                    return k.indexes;
                }
            }
            k.indexes.built.clear();
            return Indexes {
                narrow,
                ..k.indexes
            };
        }
        Indexes::new(narrow)
    }

    /// Keeps this event's machine indexes for the next ([`Carry::indexes`]), `assigned` the
    /// machines provisionally assigned a task in it.
    pub(super) fn keep_indexes(&mut self, indexes: Indexes, assigned: &[MachineId]) {
        let mut kept = KeptIndexes {
            event: self.event,
            indexes,
            assigned: Vec::new(),
        };
        kept.assigned.extend_from_slice(assigned);
        self.indexes = Some(kept);
    }

    /// The answer for candidate `i` (task `t`) carried from an earlier event or the start of
    /// this one, `assigned` the machines provisionally assigned a task since, when the
    /// machines changed prove it (see [`Carry`]); `None`: the full search decides.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn answer(
        &mut self,
        view: &View<'_>,
        scope: Phase1Scope,
        vq: &VirtualQueues,
        succ: &mut SuccessCache,
        (i, t): (usize, TaskId),
        assigned: &[MachineId],
    ) -> Option<Best> {
        let spec = view.task(t);
        let q = threshold(view, t);
        let a = self.answers.get_mut(&(spec.task_type, spec.deadline))?;
        if a.event < self.base || a.threshold.to_bits() != q.to_bits() {
            return None;
        }
        if !changed_since(
            &self.log,
            self.versions.len(),
            a.event,
            assigned,
            &mut self.changed,
        ) {
            return None;
        }
        let changed = &mut self.changed;
        let write = assigned.is_empty();
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
            Kept1::Listed {
                listed,
                top,
                stop,
                reach,
                ranking,
                idle,
            } => {
                if !(scope == Phase1Scope::AllMachines || vq.any_free()) {
                    return None;
                }
                let mark = &mut self.mark;
                mark.resize(view.machines().len(), false);
                for &m in changed.iter() {
                    mark[m] = true;
                }
                let lost_idle = if *idle > 0 {
                    stand_in_copies(view, vq, listed, (mark, changed), &mut self.copies)
                } else {
                    0
                };
                let fresh = &mut self.fresh;
                fresh.clear();
                for &m in changed.iter().filter(|&&m| in_scope(m)) {
                    fresh.push(Listed {
                        m,
                        p: succ.get(view, vq, i, t, m),
                        ect: f64::NAN,
                        idle: vq.idle_at(m),
                    });
                }
                let kept = ListedAnswer {
                    listed,
                    top,
                    stop: *stop,
                    reach: *reach,
                    ranking,
                };
                let best = found_again(view, vq, t, q, kept, (mark, fresh, &mut self.near), write);
                // Written, the listing lost its idle machines in `D` and gained the fresh
                // idle ones.
                if write && best.is_some() {
                    let gained = fresh.iter().filter(|f| f.idle.is_some()).count();
                    *idle = idle.saturating_sub(lost_idle) + gained;
                }
                for &m in changed.iter() {
                    mark[m] = false;
                }
                best?
            }
        };
        if write {
            a.event = self.event;
        }
        #[cfg(test)]
        {
            count(&CARRIED);
            if !write {
                count(&CARRIED_IN_EVENT);
            }
        }
        Some(best)
    }

    /// Keeps the answer `best` of a full search for candidate `i`'s class, found at the
    /// start of this event; `scored` holds the machines that search scored
    /// ([`SuccessCache::scored`]), and every machine in scope it did not score has an upper
    /// bound below `reach` less the tie margin or at most `scored.stop`.
    pub(super) fn keep(
        &mut self,
        view: &View<'_>,
        vq: &VirtualQueues,
        t: TaskId,
        (best, reach): (Best, f64),
        scored: &Scored,
    ) {
        let spec = view.task(t);
        let q = threshold(view, t);
        let kept = match best {
            Best::Machine { top, .. } if top >= q - BOUND_SLACK => {
                let (mut listed, mut ranking) =
                    match self.answers.remove(&(spec.task_type, spec.deadline)) {
                        Some(Answer {
                            kept:
                                Kept1::Listed {
                                    listed, ranking, ..
                                },
                            ..
                        }) => (listed, ranking),
                        _ => (Vec::new(), Ranking::none()),
                    };
                ranking.head.clear();
                ranking.from = f64::INFINITY;
                ranking.past = None;
                // The expected completions the search's choice read.
                let ects = &mut self.ects;
                ects.resize(view.machines().len(), f64::NAN);
                for &(m, _, e) in &scored.items {
                    ects[m] = e;
                }
                listed.clear();
                listed.extend(scored.all.iter().map(|&(m, p)| Listed {
                    m,
                    p,
                    ect: ects[m],
                    idle: vq.idle_at(m),
                }));
                for &(m, _, _) in &scored.items {
                    ects[m] = f64::NAN;
                }
                listed.sort_unstable_by(by_chance);
                // Ranked when the choice read every machine that ties with `top`.
                let from = top - DECISION_SLACK;
                let tied = || listed.iter().take_while(|e| e.p >= from);
                if tied().all(|e| !e.ect.is_nan()) {
                    ranking.rank(&listed, from);
                }
                Kept1::Listed {
                    idle: listed.iter().filter(|e| e.idle.is_some()).count(),
                    listed,
                    top,
                    stop: scored.stop,
                    reach: if reach.is_nan() { f64::INFINITY } else { reach },
                    ranking,
                }
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

/// The machines of `D` since `event` into `changed`: those logged after it and those in
/// `assigned`, sorted; false when there are too many (the clock moved: scoring them would
/// cost about what the full search does, which would then often run too).
fn changed_since(
    log: &[(u64, MachineId)],
    machines: usize,
    event: u64,
    assigned: &[MachineId],
    changed: &mut Vec<MachineId>,
) -> bool {
    let from = log.partition_point(|&(e, _)| e <= event);
    if 8 * (log.len() - from + assigned.len()) > machines.max(16) {
        return false;
    }
    changed.clear();
    changed.extend(log[from..].iter().map(|&(_, m)| m));
    if !forget_assigned() {
        changed.extend_from_slice(assigned);
    }
    changed.sort_unstable();
    changed.dedup();
    true
}

/// The order of [`Kept1::Listed`]: decreasing chance, then increasing machine.
fn by_chance(a: &Listed, b: &Listed) -> std::cmp::Ordering {
    b.p.total_cmp(&a.p).then(a.m.cmp(&b.m))
}

/// A listed idle machine in `D` (`mark`, `changed`): the lowest of its idle copies out of
/// `D` stands for them, so it is marked and added to `D` to be scored with it ([`Carry`]).
/// The listed idle machines that were in `D`.
fn stand_in_copies(
    view: &View<'_>,
    vq: &VirtualQueues,
    listed: &[Listed],
    (mark, changed): (&mut [bool], &mut Vec<MachineId>),
    copies: &mut Vec<(MachineId, Tick)>,
) -> usize {
    copies.clear();
    copies.extend(
        listed
            .iter()
            .filter(|e| mark[e.m])
            .filter_map(|e| e.idle.map(|k| (e.m, k))),
    );
    let pet = view.pet();
    for &(e, k) in copies.iter() {
        let column = pet.canonical(e);
        let next = (e + 1..mark.len())
            .find(|&m| !mark[m] && pet.canonical(m) == column && vq.idle_at(m) == Some(k));
        if let Some(m) = next {
            mark[m] = true;
            changed.push(m);
        }
    }
    copies.len()
}

/// A [`Kept1::Listed`] answer's fields, borrowed.
struct ListedAnswer<'k> {
    listed: &'k mut Vec<Listed>,
    top: &'k mut f64,
    stop: f64,
    reach: f64,
    ranking: &'k mut Ranking,
}

/// [`Carry::answer`] for a [`Kept1::Listed`] answer, the copies of its idle machines in `D`
/// joined to `D`: `mark`
/// flags the machines of `D`, `fresh` holds those in scope with their chances, `near` is
/// scratch. With `write`, the listing is brought up to date (the machines of `D` listed with
/// their new chances) and so is its ranking; when the ranking did not prove the choice of a
/// machine, the listing is ranked anew from the highest chance less the slack (every machine
/// that ties with it read).
fn found_again(
    view: &View<'_>,
    vq: &VirtualQueues,
    t: TaskId,
    q: f64,
    kept: ListedAnswer<'_>,
    (mark, fresh, near): (&[bool], &mut [Listed], &mut Vec<Near>),
    write: bool,
) -> Option<Best> {
    let ListedAnswer {
        listed,
        top,
        stop,
        reach,
        ranking,
    } = kept;
    // The highest chance listed out of `D` (listed by decreasing chance), with its machine.
    let mut base: Option<(f64, MachineId)> = None;
    let mut lost_top = false;
    for e in listed.iter() {
        if mark[e.m] {
            lost_top |= chance_ties(e.p, *top);
        } else {
            base = Some((e.p, e.m));
            break;
        }
    }
    // The highest chance, of the lowest machine among equal ones.
    let mut high = base;
    for f in fresh.iter() {
        if high.is_none_or(|(bp, bm)| f.p > bp || (f.p == bp && f.m < bm)) {
            high = Some((f.p, f.m));
        }
    }
    let (p_top, m_top) = high?;
    let machine = p_top >= q - BOUND_SLACK
        && (p_top >= *top || (p_top >= reach && stop + TIE_MARGIN < p_top));
    let below =
        !machine && p_top < q - BOUND_SLACK && (*top <= q || (reach <= q && stop + TIE_MARGIN < q));
    if !(machine || below) {
        return None;
    }
    let mut by_rank = false;
    let best = if machine {
        for f in fresh.iter_mut().filter(|f| chance_ties(f.p, p_top)) {
            f.ect = vq.expected_completion(view, f.m, t);
        }
        // Every listed machine that ties with `p_top` has a chance at least `from`.
        let ranked = (p_top - DECISION_SLACK >= ranking.from)
            .then(|| ranking.choose(mark, fresh, p_top))
            .flatten();
        by_rank = ranked.is_some();
        let (m, p, m_least) = match ranked {
            Some(c) => c,
            None => least_walked(view, vq, t, listed, (mark, fresh, near), p_top)?,
        };
        #[cfg(test)]
        if lost_top {
            count(&CARRIED_PAST_TOP);
        }
        Best::Machine {
            choice: Choice {
                m,
                p,
                rests_on: [m, m_top, m_least],
            },
            top: p_top,
        }
    } else {
        Best::BelowDefer
    };
    let _ = lost_top;
    if write {
        listed.retain(|e| !mark[e.m]);
        for f in fresh.iter() {
            let at = listed.partition_point(|e| by_chance(e, f).is_lt());
            listed.insert(at, *f);
        }
        if machine && !by_rank {
            // Every listed machine that ties with `p_top` has its expected completion read.
            ranking.rank(listed, p_top - DECISION_SLACK);
        } else {
            ranking.update(mark, fresh, |m| vq.expected_completion(view, m, t));
        }
        if machine {
            *top = p_top;
        }
    }
    Some(best)
}

/// The order of [`Ranking::head`]: increasing expected completion, then machine.
fn by_ranking(a: &Near, b: &Near) -> std::cmp::Ordering {
    a.0.total_cmp(&b.0).then(a.1.cmp(&b.1))
}

/// [`found_again`]'s choice among the machines that tie with `p_top` (their expected
/// completions read): the lowest machine among those whose expected completion ties with the
/// least, its chance, and the machine of the least.
type TieChoice = (MachineId, f64, MachineId);

/// [`found_again`]'s choice by a walk of the listing: the least expected completion of the
/// machines that tie with `p_top` (a prefix of the listing, and the fresh ones, their expected
/// completions read), and the lowest machine that ties with it. One walk: a machine that ties
/// with the least ties with the least of the machines visited up to it too (which lies
/// between the two, [`times_tie`]'s interval), so `near` keeps every machine that can tie
/// with the least, fewer as the least comes down.
fn least_walked(
    view: &View<'_>,
    vq: &VirtualQueues,
    t: TaskId,
    listed: &mut [Listed],
    (mark, fresh, near): (&[bool], &[Listed], &mut Vec<Near>),
    p_top: f64,
) -> Option<TieChoice> {
    let mut least: Option<(f64, MachineId)> = None;
    near.clear();
    let mut consider = |e: f64, m: MachineId, p: f64| {
        if least.is_none_or(|(be, bm)| e < be || (e == be && m < bm)) {
            least = Some((e, m));
        }
        if least.is_some_and(|(be, _)| times_tie(e, be)) {
            near.push((e, m, p));
        }
    };
    for e in listed.iter_mut() {
        if !chance_ties(e.p, p_top) {
            break;
        }
        if mark[e.m] {
            continue;
        }
        if e.ect.is_nan() {
            e.ect = vq.expected_completion(view, e.m, t);
        }
        consider(e.ect, e.m, e.p);
    }
    for f in fresh.iter().filter(|f| chance_ties(f.p, p_top)) {
        consider(f.ect, f.m, f.p);
    }
    let (e_least, m_least) = least?;
    let (m, p) = near
        .iter()
        .filter(|&&(e, _, _)| times_tie(e, e_least))
        .min_by_key(|&&(_, m, _)| m)
        .map(|&(_, m, p)| (m, p))?;
    Some((m, p, m_least))
}

/// Task `t`'s defer threshold, `-inf` when deferring is off.
fn threshold(view: &View<'_>, t: TaskId) -> f64 {
    view.defer()
        .map_or(f64::NEG_INFINITY, |th| th[view.task(t).task_type])
}

#[cfg(test)]
mod tests;
