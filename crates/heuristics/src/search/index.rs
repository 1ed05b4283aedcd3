//! Indexes of the machines that narrow a MaxSuccess search with many machines: machines
//! grouped by PET column and sorted by the first tick their tail reaches a level
//! ([`MachineIndex`], [`max_success_indexed`]), kept across events ([`Indexes::update`]).

use super::*;

/// Machine count from which [`max_success_indexed`] narrows further (several level indexes
/// cut at PET quantiles, a floor from group heads) and searches are kept for re-evaluation
/// ([`Memo`]). Below it they cost more than they save (docs/performance.md, "Constants
/// chosen by measurement").
pub(super) const NARROW_MIN_MACHINES: usize = 256;

/// Candidate count from which MaxSuccess shares one search per class
/// ([`Phase1State::classes`]) from [`INDEX_MIN_MACHINES`] machines on (from
/// [`NARROW_MIN_MACHINES`] it always does): a dispatcher's batch of a thousand waiting tasks
/// on 64 machines falls into a few classes, and one search each instead of one per task cuts
/// its mapping event about tenfold.
pub(super) const CLASS_MIN_CANDIDATES: usize = 64;

/// Machine count from which [`max_success_indexed`] narrows its scan with a
/// [`MachineIndex`] (below it, building the index costs more than the scan it saves).
pub(super) const INDEX_MIN_MACHINES: usize = 64;

/// The machines of one mapping event grouped by identical PET column (`Pet::canonical` of
/// the `workload` crate), each group sorted by a key such that machine `m` passes `level`
/// for a task of type `k` and deadline `d` only if `key_m <= d - 1 - min E_km`:
/// * `level` 0: the key is (a lower bound on) the first tick of the tail, so the machines
///   left out give the task a chance of exactly 0;
/// * `level` `q > 0`: the key is the first tick where the tail's CDF, times its bound factor
///   ([`VirtualQueues::bound_tail`]), reaches `q` less three times [`BOUND_SLACK`], so the
///   machines left out have a tail bound, hence a chance, below `q - 3 BOUND_SLACK`.
///
/// Within a group `min E_km` is one number, so the machines that pass are a prefix. The keys
/// stay valid through the event: a provisional assignment only delays a tail, which raises
/// its key, and a key too low only lets a machine through. They stay valid at a later event
/// for the machines whose PCTs are the same ([`Indexes::update`] reads the others anew).
pub(super) struct MachineIndex {
    pub(super) level: f64,
    /// Events since it was last read ([`Indexes::get`], [`Indexes::update`]).
    idle: u32,
    pub(super) groups: Vec<(MachineId, Vec<(Tick, MachineId)>)>,
    /// Each machine's key, `Tick::MAX` for a machine left out at every deadline.
    pub(super) keys: Vec<Tick>,
    /// The position in `groups` of each PET column's group (`usize::MAX`: none).
    pub(super) slot: Vec<usize>,
}

impl MachineIndex {
    /// Machine `m`'s key at `level`; `None` when it is below the level whatever the deadline.
    fn key(view: &View<'_>, vq: &VirtualQueues, level: f64, m: MachineId) -> Option<Tick> {
        if level <= 0.0 {
            Some(vq.tail_min_lower(m))
        } else {
            let (tail, f) = vq.bound_tail(view, m);
            tail.first_reaching((level - 3.0 * BOUND_SLACK) / f)
        }
    }

    pub(super) fn build(view: &View<'_>, vq: &VirtualQueues, level: f64) -> Self {
        let mut slot: Vec<usize> = vec![usize::MAX; view.machines().len()];
        let mut groups: Vec<(MachineId, Vec<(Tick, MachineId)>)> = Vec::new();
        let mut keys = vec![Tick::MAX; view.machines().len()];
        for m in 0..view.machines().len() {
            let Some(key) = Self::key(view, vq, level, m) else {
                continue;
            };
            keys[m] = key;
            let c = view.pet().canonical(m);
            if slot[c] == usize::MAX {
                slot[c] = groups.len();
                groups.push((c, Vec::new()));
            }
            groups[slot[c]].1.push((key, m));
        }
        for (_, g) in &mut groups {
            g.sort_unstable();
        }
        MachineIndex {
            level,
            idle: 0,
            groups,
            keys,
            slot,
        }
    }

    /// Reads machine `m`'s key anew and moves it in its group; false when its group does
    /// not hold it (its PET column changed: the index must be built anew).
    fn update(&mut self, view: &View<'_>, vq: &VirtualQueues, m: MachineId) -> bool {
        let c = view.pet().canonical(m);
        if self.keys[m] != Tick::MAX {
            let Some((_, g)) = self.groups.get_mut(self.slot[c]) else {
                return false;
            };
            match g.binary_search(&(self.keys[m], m)) {
                Ok(at) => {
                    g.remove(at);
                }
                Err(_) => return false,
            }
        }
        self.keys[m] = Tick::MAX;
        if let Some(key) = Self::key(view, vq, self.level, m) {
            self.keys[m] = key;
            if self.slot[c] == usize::MAX {
                self.slot[c] = self.groups.len();
                self.groups.push((c, Vec::new()));
            }
            let g = &mut self.groups[self.slot[c]].1;
            let at = g.partition_point(|&e| e < (key, m));
            g.insert(at, (key, m));
        }
        true
    }
}

/// The machines of one group that can reach `floor` (through `by_start`, the level-0 index,
/// keyed by a lower bound on the tail's first tick) and every level of `levels` (each an
/// index with its share `s` of the level), for a task of type `k` and deadline `deadline`,
/// appended to `out`.
///
/// A machine whose tail starts at `s` or later gives the task a chance of at most
/// `P(E < deadline - s)`, below `floor - 2 BOUND_SLACK` once `s` is past the group's cut (and
/// 0 past `deadline - 1 - min E`): the machines of the level-0 order past it cannot reach
/// the floor, nor tie with a chance at or above it. A machine past a level index's cut,
/// `deadline - 1 - e` with `P(E < e) <= s`, has a chance below `L + s - 3 BOUND_SLACK`,
/// `L + s` the level it stands for. Of the prefixes, the shortest is walked and
/// filtered by the others' keys, so that the machines left out are not read. With no floor
/// and no levels, `by_start` may be any index whose keys are cut at `deadline - 1 - min E`
/// (the one level-`q` index below [`NARROW_MIN_MACHINES`]).
pub(super) fn narrow_group(
    view: &View<'_>,
    (by_start, levels): (&MachineIndex, &[(&MachineIndex, f64)]),
    group: usize,
    (k, deadline): (usize, Tick),
    floor: f64,
    out: &mut Vec<MachineId>,
) {
    let (c, starts) = &by_start.groups[group];
    let pet = view.pet().exec_pmf(k, *c);
    let y = deadline - 1 - pet.min();
    let x = match first_bin_reaching(pet, floor - TIE_MARGIN) {
        Some(bin) => (deadline - pet.offset() - bin as Tick).min(y),
        None => return,
    };
    // Each order with its cut; the shortest prefix is walked.
    let mut cuts: [(&MachineIndex, Tick, usize); 1 + MAX_LEVELS] =
        [(by_start, x, starts.partition_point(|&(key, _)| key <= x)); 1 + MAX_LEVELS];
    let mut walk = (0, cuts[0].2, &starts[..]);
    for (j, &(ix, shift)) in levels.iter().enumerate() {
        // The level order's cut: `deadline - 1 - e` with `P(E < e) <= shift`, since
        // `P(T + E < d) <= P(E < e) + F_T(d - 1 - e)`.
        let cut = deadline - 1 - pet.offset() - last_bin_below(pet, shift) as Tick;
        let order = match ix.slot[*c] {
            usize::MAX => &[][..],
            at => &ix.groups[at].1[..],
        };
        let n = order.partition_point(|&(key, _)| key <= cut);
        cuts[j + 1] = (ix, cut, n);
        if n < walk.1 {
            walk = (j + 1, n, order);
        }
    }
    let (w, n, order) = walk;
    // The other orders' keys and cuts.
    let mut others: [(&[Tick], Tick); MAX_LEVELS] = [(&[], 0); MAX_LEVELS];
    let mut n_others = 0;
    for (j, &(ix, cut, _)) in cuts[..=levels.len()].iter().enumerate() {
        if j != w {
            others[n_others] = (&ix.keys, cut);
            n_others += 1;
        }
    }
    let others = &others[..n_others];
    for &(_, m) in &order[..n] {
        if others.iter().all(|&(keys, cut)| keys[m] <= cut) {
            out.push(m);
        }
    }
}

/// The largest `k` with `P(E < offset + k) = mass_below_bin(k) <= p` (0 when `p < 0`).
pub(super) fn last_bin_below(pet: &pmf::ExecPmf, p: f64) -> usize {
    let (mut lo, mut hi) = (0, pet.len());
    // Invariant: mass_below_bin(lo) <= p (or lo = 0), mass_below_bin(hi + 1) > p.
    while lo < hi {
        let mid = lo + (hi - lo).div_ceil(2);
        if pet.mass_below_bin(mid) <= p {
            lo = mid;
        } else {
            hi = mid - 1;
        }
    }
    lo
}

/// The smallest `k` with `P(E < offset + k) = mass_below_bin(k) >= p` (0 when `p <= 0`),
/// `None` when no bin reaches it.
pub(super) fn first_bin_reaching(pet: &pmf::ExecPmf, p: f64) -> Option<usize> {
    if p <= 0.0 {
        return Some(0);
    }
    let n = pet.len();
    if pet.mass_below_bin(n) < p {
        return None;
    }
    // `mass_below_bin` is a running sum of non-negative masses: non-decreasing in `k`.
    let (mut lo, mut hi) = (1, n);
    while lo < hi {
        let mid = lo + (hi - lo) / 2;
        if pet.mass_below_bin(mid) >= p {
            hi = mid;
        } else {
            lo = mid + 1;
        }
    }
    Some(lo)
}

/// The indexes of an event, one per level, built on first use; those of the event before,
/// brought up to date ([`Indexes::update`]), when the search carries its answers.
#[derive(Default)]
pub(super) struct Indexes {
    /// Narrow further ([`NARROW_MIN_MACHINES`]): the indexes at `q (1 - s)` cut at the PET's
    /// quantiles and the floor; otherwise one index at `q` cut at `min E`.
    pub(super) narrow: bool,
    pub(super) built: Vec<MachineIndex>,
    pub(super) scratch: Vec<MachineId>,
    pub(super) heads: Vec<(f64, MachineId)>,
}

impl Indexes {
    pub(super) fn new(narrow: bool) -> Self {
        Indexes {
            narrow,
            ..Indexes::default()
        }
    }

    pub(super) fn get(&mut self, view: &View<'_>, vq: &VirtualQueues, level: f64) -> usize {
        match self.built.iter().position(|ix| ix.level == level) {
            Some(k) => {
                self.built[k].idle = 0;
                k
            }
            None => {
                self.built.push(MachineIndex::build(view, vq, level));
                self.built.len() - 1
            }
        }
    }

    /// Brings the indexes of an earlier event up to date: the keys of the machines `changed`
    /// (every machine whose PCTs or PET column may differ from when its key was read) read
    /// anew. An index not read for [`INDEX_IDLE_EVENTS`] events is dropped. False when an
    /// index must be built anew (the machine count or a PET column changed): then every index
    /// is dropped.
    pub(super) fn update(
        &mut self,
        view: &View<'_>,
        vq: &VirtualQueues,
        changed: &[MachineId],
    ) -> bool {
        self.built.retain(|ix| ix.idle < INDEX_IDLE_EVENTS);
        for ix in &mut self.built {
            ix.idle += 1;
            if ix.keys.len() != view.machines().len()
                || !changed.iter().all(|&m| ix.update(view, vq, m))
            {
                self.built.clear();
                return false;
            }
        }
        true
    }

    /// A floor for task `t`: the exact chance of a machine in scope, the best of a few
    /// candidates (the first machines in scope of each group's level-0 order, index `k0`,
    /// tried by decreasing upper bound); `-inf` when none is in scope.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn floor(
        &mut self,
        view: &View<'_>,
        scope: Phase1Scope,
        vq: &VirtualQueues,
        succ: &mut SuccessCache,
        k0: usize,
        i: usize,
        t: TaskId,
    ) -> f64 {
        self.heads.clear();
        for (_, g) in &self.built[k0].groups {
            let head = g
                .iter()
                .take(HEAD_WALK)
                .find(|&&(_, m)| scope == Phase1Scope::AllMachines || vq.free(m) > 0);
            if let Some(&(_, m)) = head {
                self.heads.push((success_upper_bound(view, vq, t, m), m));
            }
        }
        self.heads
            .sort_unstable_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(&b.1)));
        let mut floor = f64::NEG_INFINITY;
        for &(ub, m) in self.heads.iter().take(HEAD_EXACT) {
            if ub <= floor {
                break;
            }
            floor = floor.max(succ.get(view, vq, i, t, m));
        }
        floor
    }
}

/// The shares of the defer threshold `q` moved from the tail to the execution time in the
/// indexes: one index per share `s`, at level `q (1 - s)`, cut at the PET's `q s`-quantile.
pub(super) const LEVEL_SHIFTS: [f64; 3] = [0.25, 0.5, 0.75];
/// Most level indexes per task.
pub(super) const MAX_LEVELS: usize = LEVEL_SHIFTS.len();

/// Events an index is kept unread from one event to the next ([`Indexes::update`]).
pub(super) const INDEX_IDLE_EVENTS: u32 = 8;

/// Machines of a group's level-0 order looked at for a head in scope.
pub(super) const HEAD_WALK: usize = 8;
/// Heads whose exact chance may be computed for the floor.
pub(super) const HEAD_EXACT: usize = 3;

/// [`max_success`] over the machines an index leaves, when there are many machines. With
/// deferring on (threshold `q`, above [`LEVEL_MIN`]), the index at level `q` (from
/// [`NARROW_MIN_MACHINES`], the indexes at `q (1 - s)` cut at the PET's `q s`-quantiles,
/// [`LEVEL_SHIFTS`]): every machine left out has a chance below `q - 3 BOUND_SLACK`, so when
/// the highest chance found, `P`, is at least `q - BOUND_SLACK`, no machine left out beats
/// or ties with it and the choice is the global one; when it is below, every chance is below
/// `q - BOUND_SLACK` (none found, likewise): the task is deferred with the margin whichever
/// machine is chosen ([`Best::BelowDefer`]: the verdict the full scan's choice gets).
/// Without deferring, the index at level 0: the machines left out have a chance of 0, so a
/// `P` of at least `3 BOUND_SLACK` makes the choice the global one. In every other case the
/// full scan decides.
///
/// From [`NARROW_MIN_MACHINES`], the index is narrowed further by a floor, the exact chance
/// of one machine in scope ([`Indexes::floor`]): the machines whose tail starts too late to
/// come within `2 BOUND_SLACK` of it ([`narrow_group`]) can neither beat nor tie with the
/// best, so they are left out too. The outcome is the one of the full scan. `kept_out` and
/// `cap_out` describe the search for [`Memo::keep`]: every machine it left out has a bound
/// below `cap_out - 2 BOUND_SLACK`.
#[allow(clippy::too_many_arguments)]
pub(super) fn max_success_indexed(
    view: &View<'_>,
    scope: Phase1Scope,
    vq: &VirtualQueues,
    succ: &mut SuccessCache,
    order: &mut Vec<(f64, MachineId)>,
    (all, indexes): (&[MachineId], Option<&mut Indexes>),
    (i, t): (usize, TaskId),
    (kept_out, cap_out): (&mut (usize, f64), &mut f64),
) -> Best {
    *cap_out = f64::NEG_INFINITY;
    let Some(ix) = indexes else {
        return max_success(view, scope, vq, succ, order, all, (i, t), kept_out);
    };
    let spec = view.task(t);
    let q = view.defer().map_or(0.0, |th| th[spec.task_type]);
    let level = if q > LEVEL_MIN { q } else { 0.0 };
    // Level q is reached through indexes at `q - s`, each cut at the PET's `s`-quantile
    // ([`narrow_group`]): far fewer machines pass than at `q` cut at `min E`.
    // Without narrowing further, the one index at `q` (cut at `min E`, as the level-0
    // order is with no floor) stands in for the level-0 one.
    let mut levels = [(0, 0.0); MAX_LEVELS];
    let shares: &[f64] = if level > 0.0 && ix.narrow {
        &LEVEL_SHIFTS
    } else {
        &[]
    };
    let n_levels = shares.len();
    for (slot, &share) in levels.iter_mut().zip(shares) {
        let shift = level * share;
        *slot = (ix.get(view, vq, level - shift), shift);
    }
    let k0 = ix.get(view, vq, if ix.narrow { 0.0 } else { level });
    // With deferring on, at most the threshold: the machines it leaves out are then below
    // the threshold too, which lets [`Memo`] settle deferrals.
    let floor = if ix.narrow {
        ix.floor(view, scope, vq, succ, k0, i, t)
            .min(if level > 0.0 { q } else { f64::INFINITY })
    } else {
        f64::NEG_INFINITY
    };
    let mut scratch = std::mem::take(&mut ix.scratch);
    scratch.clear();
    let level_ix: Vec<(&MachineIndex, f64)> = levels[..n_levels]
        .iter()
        .map(|&(k, shift)| (&ix.built[k], shift))
        .collect();
    for g in 0..ix.built[k0].groups.len() {
        narrow_group(
            view,
            (&ix.built[k0], &level_ix),
            g,
            (spec.task_type, spec.deadline),
            floor,
            &mut scratch,
        );
    }
    let narrowed = max_success(view, scope, vq, succ, order, &scratch, (i, t), kept_out);
    ix.scratch = scratch;
    let in_scope = scope == Phase1Scope::AllMachines || vq.any_free();
    match narrowed {
        Best::BelowDefer => return Best::BelowDefer,
        Best::Machine { choice, top } => {
            if level > 0.0 && top >= q - BOUND_SLACK || level == 0.0 && top >= 3.0 * BOUND_SLACK {
                // Every machine the narrowing left out has a bound below one of these less
                // `2 BOUND_SLACK`: the floor of `narrow_group` (when it left any out with a
                // chance above 0), `q - BOUND_SLACK` (level q: below `q - 3 BOUND_SLACK`),
                // `3 BOUND_SLACK` (level 0: a chance of 0).
                let cap = if level > 0.0 {
                    q - BOUND_SLACK
                } else {
                    3.0 * BOUND_SLACK
                };
                let narrowing = if floor - TIE_MARGIN > 0.0 {
                    floor
                } else {
                    f64::NEG_INFINITY
                };
                *cap_out = cap.max(narrowing);
                return Best::Machine { choice, top };
            }
            if level > 0.0 {
                return Best::BelowDefer;
            }
        }
        Best::NoMachine if level > 0.0 && in_scope => return Best::BelowDefer,
        Best::NoMachine => {}
    }
    *cap_out = f64::NEG_INFINITY;
    max_success(view, scope, vq, succ, order, all, (i, t), kept_out)
}
