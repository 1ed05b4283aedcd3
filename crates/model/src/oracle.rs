//! The oracle: everything derived from the machine queues, in the papers' terms. For each
//! machine, the completion-time PMFs (PCTs) of its queued tasks under the scenario's dropping
//! model and their chances (paper eqs. 1-5, thesis 3.1), computed on first use and kept while
//! the queue and the tick are the same; the PCTs of an earlier tick of the same queue, kept
//! as bounds on the current ones ([`Stale`]); the executing task's expected completion and
//! the chain-free bounds on the expected tail. Policies read it through [`crate::View`] and
//! never mutate it; the engine moves it along ([`Oracle::sync`], [`Oracle::appended`]).
//!
//! With a PCT epsilon `eps > 0` ([`Oracle::with_pct_epsilon`], the experiment's
//! `[system] pct_epsilon`; default 0 = exact) every PCT the oracle computes is trimmed by
//! [`Pmf::trim_tv`] right after it is computed, and whoever extends a queue's chain (the
//! virtual queues, the pruner's walk, MOC's culling) trims at [`Oracle::pct_epsilon`] too. The
//! `k`-th PCT of the queue (the executing task counting as one) is then within total
//! variation `k * eps` of the exact one (the `pmf` crate's `pct` docs), and so is every
//! success probability read from it.

use std::cell::{Cell, OnceCell, RefCell};

use pmf::{DropModel, ExecPmf, Pmf, Tick, executing_pct_in, next_pct_in};
use workload::Pet;

mod cache;

// `Cache` and `Stale` leave the crate only with the `internals` feature.
#[cfg_attr(not(feature = "internals"), allow(unreachable_pub))]
pub use cache::{Cache, Slot, Stale};

use crate::machine::{Machine, Running};
use crate::task::{MachineId, TaskId, TaskSpec};

/// The kept `E[C1]` of [`Oracle::chain_mean_bounds`].
#[derive(Debug, Clone, Copy)]
struct FirstMean {
    /// The first pending task it is computed for.
    task: TaskId,
    /// That task's data-ready tick.
    ready: Tick,
    /// The first tick of the executing PCT it is computed on.
    from: Tick,
    /// `E[C1]`.
    e1: f64,
}

/// What the oracle keeps for one machine.
#[derive(Debug, Clone)]
struct Derived {
    /// The [`Machine::version`] the values below describe.
    version: u64,
    /// The tick they are at ([`Oracle::sync`]).
    now: Tick,
    /// The PCTs at `now`, computed on first use ([`Oracle::cache`]).
    current: OnceCell<Cache>,
    /// The last PCTs computed for this same queue at an earlier tick, kept while `current`
    /// is empty: their values bound the current ones ([`Oracle::stale`]).
    last: Option<Cache>,
    /// The executing task's `E[C]` ([`Oracle::executing_mean`]) with the first tick of the
    /// support it was computed on: it holds at every tick before that one (the conditioning
    /// removes nothing), until the queue changes.
    exec_mean: Cell<Option<(Tick, f64)>>,
    /// `E[C1]` of [`Oracle::chain_mean_bounds`] with the first pending task and its
    /// data-ready tick it was computed for, and the first tick of the executing PCT it was
    /// computed on: it holds, like `exec_mean`, at every tick before that one.
    first_mean: Cell<Option<FirstMean>>,
    /// Number of PCT computations (a performance counter).
    recomputations: Cell<u64>,
    /// The version of what the machine's PCTs at `now` are ([`Oracle::content_version`]).
    content: u64,
}

impl Derived {
    fn new() -> Self {
        Derived {
            version: 0,
            now: Tick::MIN,
            current: OnceCell::new(),
            last: None,
            exec_mean: Cell::new(None),
            first_mean: Cell::new(None),
            recomputations: Cell::new(0),
            content: fresh_content(),
        }
    }

    /// The queue changed: nothing kept describes it any more.
    fn reset(&mut self, version: u64, spare: &mut Spare) {
        self.version = version;
        self.content = fresh_content();
        recycle(spare, self.current.take());
        recycle(spare, self.last.take());
        self.exec_mean.set(None);
        self.first_mean.set(None);
    }
}

/// A PCT a policy computed on a machine's own PCTs at the tick for a task it assigned: the
/// engine's append reuses it instead of computing the same convolution again.
#[derive(Debug, Clone)]
struct Handover {
    machine: MachineId,
    task: TaskId,
    pct: Pmf,
}

/// The buffers of PCTs no longer needed, for the next ones the oracle computes
/// ([`pmf::next_pct_in`]): an arena owned by the oracle, at most [`SPARE_BUFFERS`] buffers of
/// at most [`SPARE_MAX_BINS`] bins. Every buffer is cleared before use, so no value depends
/// on which one is taken.
type Spare = Vec<Vec<f64>>;

/// How many spare buffers the oracle keeps.
const SPARE_BUFFERS: usize = 64;

/// The largest buffer the oracle keeps, in bins (512 KiB).
const SPARE_MAX_BINS: usize = 1 << 16;

/// The source of [`Oracle::content_version`]s, shared by every oracle so that two oracles
/// never give one version to different contents.
static NEXT_CONTENT: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);

/// A content version never given before.
fn fresh_content() -> u64 {
    NEXT_CONTENT.fetch_add(1, std::sync::atomic::Ordering::Relaxed)
}

/// Gives the buffers of a cache no longer needed to the arena.
fn recycle(spare: &mut Spare, cache: Option<Cache>) {
    let Some(cache) = cache else {
        return;
    };
    for slot in cache.slots {
        give_back(spare, slot.pct);
    }
}

fn give_back(spare: &mut Spare, pct: Pmf) {
    if spare.len() < SPARE_BUFFERS {
        let v = pct.into_masses();
        if v.capacity() <= SPARE_MAX_BINS {
            spare.push(v);
        }
    }
}

/// Everything derived from the machine queues of one simulation (see the module docs).
#[derive(Debug, Clone)]
pub struct Oracle {
    derived: Vec<Derived>,
    /// Every PCT is trimmed within this total-variation distance; 0 = exact.
    pct_epsilon: f64,
    /// The identity of the next [`Cache`] content (unique within this oracle).
    next_id: Cell<u64>,
    /// PCTs handed over by a policy at this tick ([`Oracle::hand_over`]).
    handover: RefCell<Vec<Handover>>,
    /// The buffers of PCTs no longer needed ([`Spare`]).
    spare: RefCell<Spare>,
}

impl Oracle {
    /// An oracle for `machines` machines, computing exact PCTs.
    pub fn new(machines: usize) -> Self {
        Oracle {
            derived: (0..machines).map(|_| Derived::new()).collect(),
            pct_epsilon: 0.0,
            next_id: Cell::new(0),
            handover: RefCell::new(Vec::new()),
            spare: RefCell::new(Vec::new()),
        }
    }

    /// One oracle for several machines from one oracle per machine (machine `i`'s values are
    /// those of the `i`-th oracle's machine 0), e.g. to build a system machine by machine.
    /// Cache ids stay those of their oracles: they name contents within one oracle only.
    pub fn concat(parts: impl IntoIterator<Item = Oracle>) -> Oracle {
        let mut out = Oracle::new(0);
        for (i, mut p) in parts.into_iter().enumerate() {
            if i == 0 {
                out.pct_epsilon = p.pct_epsilon;
            }
            out.next_id.set(out.next_id.get().max(p.next_id.get()));
            out.derived.push(p.derived.swap_remove(0));
        }
        out
    }

    /// The same oracle with its PCTs trimmed at `eps` ([`Pmf::trim_tv`]; 0 = exact, the
    /// default). Approximate: see the module docs for the error bound.
    pub fn with_pct_epsilon(mut self, eps: f64) -> Self {
        self.pct_epsilon = eps;
        let spare = self.spare.get_mut();
        for d in &mut self.derived {
            d.reset(d.version, spare);
        }
        self
    }

    /// The total-variation distance each PCT is trimmed within (0 = exact). Code that extends
    /// a queue's PCT chain trims its PCTs at this value too.
    pub fn pct_epsilon(&self) -> f64 {
        self.pct_epsilon
    }

    /// How many times PCT chains were computed, over all machines (a performance counter).
    pub fn recomputations(&self) -> u64 {
        self.derived.iter().map(|d| d.recomputations.get()).sum()
    }

    fn next_cache_id(&self) -> u64 {
        let id = self.next_id.get();
        self.next_id.set(id + 1);
        id
    }

    /// Moves every machine's derived values to tick `now` and forgets those of changed
    /// queues (the engine calls this before anything reads the oracle at a tick, and again
    /// after it changed queues). Nothing is computed here: the PCTs are computed when first
    /// read (`Oracle::cache`). PCTs whose executing PCT has no mass at or before `now` stay
    /// as they are (conditioning on the task not having ended changes nothing); any other
    /// ones are kept aside, for bounds, until the queue changes (`Oracle::stale`). With a
    /// PCT epsilon, an executing PCT whose trimmed lower tail covered `now` is kept too: it
    /// is still within total variation `eps` of the exact conditioned PCT at `now` (the
    /// conditioning removes only mass that the trimming had moved up), so the `k * eps`
    /// bound still holds.
    pub fn sync(&mut self, machines: &[Machine], now: Tick) {
        let spare = self.spare.get_mut();
        for h in self.handover.get_mut().drain(..) {
            give_back(spare, h.pct);
        }
        for (d, machine) in self.derived.iter_mut().zip(machines) {
            if d.version != machine.version() {
                d.reset(machine.version(), spare);
            }
            Self::advance(d, machine, now, spare);
        }
    }

    fn advance(d: &mut Derived, machine: &Machine, now: Tick, spare: &mut Spare) {
        if now == d.now {
            return;
        }
        d.now = now;
        if machine.running().is_none() {
            // An idle machine's tail is `now` itself.
            recycle(spare, d.current.take());
            recycle(spare, d.last.take());
            d.content = fresh_content();
            return;
        }
        let had_current = match d.current.take() {
            Some(c) => {
                recycle(spare, d.last.replace(c));
                true
            }
            None => false,
        };
        // Kept-aside PCTs whose executing PCT lies wholly after `now` are the exact ones.
        if d.last
            .as_ref()
            .is_some_and(|c| c.slots.first().is_some_and(|s| s.pct.min() > now))
        {
            if let Some(c) = d.last.take() {
                let _ = d.current.set(c);
            }
        }
        // The same content only when the PCTs of the previous tick carry over.
        if !(had_current && d.current.get().is_some()) {
            d.content = fresh_content();
        }
    }

    /// Moves machine `m` to tick `now` and computes its PCTs at once (the eager form of
    /// [`Oracle::sync`] followed by `Oracle::cache`, for one machine).
    pub fn refresh(
        &mut self,
        m: MachineId,
        machine: &Machine,
        now: Tick,
        tasks: &[TaskSpec],
        pet: &Pet,
        model: DropModel,
    ) {
        let d = &mut self.derived[m];
        let spare = self.spare.get_mut();
        if d.version != machine.version() {
            d.reset(machine.version(), spare);
        }
        Self::advance(d, machine, now, spare);
        let _ = self.cache(m, machine, tasks, pet, model);
    }

    /// The PET the oracle computes with changed in one cell: `task_type` on machine `m`
    /// (a belief learned online, a drift of the truth an oracle belief follows). Exactly
    /// what depends on that cell is forgotten: machine `m`'s PCTs, kept means and earlier
    /// PCTs when a task of `task_type` is in its queue (executing or pending); otherwise
    /// they still hold, and only their contents get new ids (`Cache::id`), so that a
    /// chance of a `task_type` task appended to them, kept by id, is not reused; and the
    /// PCTs handed over for `task_type` tasks on `m` at this tick. No other machine reads
    /// the cell.
    pub fn pet_changed(
        &mut self,
        m: MachineId,
        task_type: usize,
        machine: &Machine,
        tasks: &[TaskSpec],
    ) {
        self.handover
            .get_mut()
            .retain(|h| !(h.machine == m && tasks[h.task].task_type == task_type));
        let uses = machine.tasks().any(|t| tasks[t].task_type == task_type);
        let fresh = [self.next_cache_id(), self.next_cache_id()];
        let d = &mut self.derived[m];
        d.content = fresh_content();
        if uses {
            d.reset(d.version, self.spare.get_mut());
            return;
        }
        if let Some(c) = d.current.get_mut() {
            c.id = fresh[0];
        }
        if let Some(c) = d.last.as_mut() {
            c.id = fresh[1];
        }
    }

    /// The tick machine `m`'s derived values are at.
    pub(crate) fn now(&self, m: MachineId) -> Tick {
        self.derived[m].now
    }

    /// The PCTs of every task queued on machine `m` at its tick, computed on first use and
    /// kept until the tick or the queue changes. The values are the same whenever they are
    /// computed: every input is fixed for the tick.
    #[cfg_attr(feature = "internals", visibility::make(pub))]
    pub(crate) fn cache(
        &self,
        m: MachineId,
        machine: &Machine,
        tasks: &[TaskSpec],
        pet: &Pet,
        model: DropModel,
    ) -> &Cache {
        let d = &self.derived[m];
        debug_assert_eq!(
            d.version,
            machine.version(),
            "machine {m} changed since the oracle was synced"
        );
        d.current
            .get_or_init(|| self.compute(d, machine, tasks, pet, model))
    }

    /// Records the PCT `pct` of `task` appended to machine `m`'s queue as a policy computed
    /// it on the machine's own PCTs at this tick ([`crate::VirtualQueues::assign`]): when the
    /// engine appends the task, [`Oracle::appended`] takes it instead of computing the same
    /// convolution. Forgotten at the next [`Oracle::sync`].
    pub(crate) fn hand_over(&self, m: MachineId, task: TaskId, pct: Pmf) {
        self.handover.borrow_mut().push(Handover {
            machine: m,
            task,
            pct,
        });
    }

    /// The oracle's spare buffers ([`Spare`]), for a PCT computed on its PCTs
    /// ([`crate::VirtualQueues::assign`]).
    pub(crate) fn spare(&self) -> std::cell::RefMut<'_, Spare> {
        self.spare.borrow_mut()
    }

    /// Gives the buffer of a PCT no longer needed to the oracle's spare buffers (a no-op while
    /// they are in use).
    pub(crate) fn give_back(&self, pct: Pmf) {
        if let Ok(mut spare) = self.spare.try_borrow_mut() {
            give_back(&mut spare, pct);
        }
    }

    /// True when a PMF of `task` on machine `m` was handed over at this tick and not taken yet.
    #[cfg(any(test, feature = "internals"))]
    #[cfg_attr(feature = "internals", visibility::make(pub))]
    pub(crate) fn handed_over(&self, m: MachineId, task: TaskId) -> bool {
        self.handover
            .borrow()
            .iter()
            .any(|h| h.machine == m && h.task == task)
    }

    /// Machine `m` has just had `task` appended (data ready at `ready`, `Tick::MIN` without
    /// staging): when its PCTs at the tick were computed and nothing else changed the queue
    /// since, they are extended by the new slot instead of being dropped (the same
    /// computation, in the same order, that computing the whole queue would do, so the same
    /// values, for one convolution instead of a chain), with the PCT a policy handed over for
    /// it when there is one (`Oracle::hand_over`; checked in debug builds).
    pub fn appended(
        &mut self,
        m: MachineId,
        machine: &Machine,
        task: TaskId,
        ready: Tick,
        tasks: &[TaskSpec],
        pet: &Pet,
        model: DropModel,
    ) {
        let handed = {
            let list = self.handover.get_mut();
            list.iter()
                .position(|h| h.machine == m && h.task == task)
                .map(|i| list.swap_remove(i).pct)
        };
        let eps = self.pct_epsilon;
        let id = self.next_cache_id();
        let d = &mut self.derived[m];
        d.content = fresh_content();
        if d.version + 1 != machine.version() || machine.running().is_none() {
            // Another change too, or an idle machine (which starts the task at once): the
            // PCTs are computed again when read.
            return;
        }
        // The queue changed: what was kept of the shorter one (its earlier PMFs, the kept
        // means) no longer describes it; only the current PMFs carry over, extended.
        let current = d.current.take();
        d.reset(machine.version(), self.spare.get_mut());
        let Some(mut cache) = current else {
            return;
        };
        let now = d.now;
        let spare = self.spare.get_mut();
        let mut compute = |cache: &Cache| {
            pending_slot(
                cache.slots.last(),
                task,
                ready,
                now,
                machine.id(),
                tasks,
                pet,
                model,
                eps,
                spare,
            )
        };
        let slot = match handed.filter(|_| ready <= now) {
            Some(pct) => {
                debug_assert_eq!(
                    pct,
                    compute(&cache).pct,
                    "a handed-over PCT differs from the one the oracle computes"
                );
                Slot::new(task, pct, tasks[task].deadline)
            }
            None => compute(&cache),
        };
        // The tail moved: its CDF, mean and variance are built again on first use, and it
        // is another content.
        cache.tail.take();
        cache.mean.take();
        cache.variance.take();
        cache.id = id;
        cache.slots.push(slot);
        let _ = d.current.set(cache);
    }

    /// `E[C]` of the executing task at the machine's tick (the mean of slot 0 of
    /// [`Oracle::cache`], the same value), without computing the rest of the queue when the
    /// PCTs are not computed yet: one conditioning of the executing task's PMF instead of a
    /// chain. `None` when the machine is idle.
    #[cfg_attr(feature = "internals", visibility::make(pub))]
    pub(crate) fn executing_mean(
        &self,
        m: MachineId,
        machine: &Machine,
        tasks: &[TaskSpec],
        pet: &Pet,
        model: DropModel,
    ) -> Option<f64> {
        let d = &self.derived[m];
        let r = machine.running()?;
        // Computed at an earlier tick on a support that still lies wholly after this one:
        // the PCT is the same (as in `advance`).
        if let Some((min, mean)) = d.exec_mean.get() {
            if min > d.now {
                return Some(mean);
            }
        }
        let (min, mean) = match d.current.get().and_then(|c| c.slots.first()) {
            Some(s) => (s.pct.min(), s.pct.mean()),
            None => {
                let spec = &tasks[r.task];
                let pet_pmf = pet.exec_pmf(spec.task_type, machine.id());
                let mut spare = self.spare.borrow_mut();
                let mut pct =
                    executing_pct_in(pet_pmf, r.start, d.now, spec.deadline, model, &mut spare);
                pct.trim_tv(self.pct_epsilon);
                let min_mean = (pct.min(), pct.mean());
                give_back(&mut spare, pct);
                min_mean
            }
        };
        d.exec_mean.set(Some((min, mean)));
        Some(mean)
    }

    /// Bounds `(lower, upper)` on the expected tail `E[tail]` of this queue at the machine's
    /// tick as [`Oracle::cache`] computes it, from the executing task's PCT alone: no
    /// convolution. `None` for a queue of fewer than two tasks (the tail is then the
    /// executing PCT itself or the tick), of more than `MEAN_BOUNDS_MAX_PENDING` pending
    /// tasks (1: the bounds are exact but for rounding with one, looser with each one more),
    /// or with a PCT epsilon (trimming moves means by more than rounding).
    ///
    /// With `S = max(C0, ready)` the first pending task's start (`C0` the executing task's
    /// completion) and `E` its execution time, the first pending task ends at `S + E`
    /// (nothing dropped), at `S` when `S` is at or after its deadline `d` and else at
    /// `S + E` (`pending`) or `min(S + E, d)` (`all`). So `E[C1] = E[S] + sum_{s < d}
    /// P(S = s) E[min(E, d - s)]` under `all` ([`pmf::ExecPmf::expected_min`]), `E[S] + P(S < d)
    /// E[E]` under `pending` and `E[S] + E[E]` under `none`: one pass over `C0`. Every
    /// later task ends no earlier than its predecessor and at most `E[E_k]` plus its data's
    /// wait after `now` later, so `E[C1] <= E[tail] <= E[C1] + sum_k (E[E_k] + max(0,
    /// ready_k - now))`. Widened by `1e-11` relative against rounding (the PCTs' own
    /// rounding is far below it).
    #[cfg_attr(feature = "internals", visibility::make(pub))]
    pub(crate) fn chain_mean_bounds(
        &self,
        m: MachineId,
        machine: &Machine,
        tasks: &[TaskSpec],
        pet: &Pet,
        model: DropModel,
    ) -> Option<(f64, f64)> {
        let d = &self.derived[m];
        let r = machine.running()?;
        let (&t1, &r1) = machine
            .pending()
            .front()
            .zip(machine.pending_ready().front())?;
        if self.pct_epsilon > 0.0 || machine.pending().len() > MEAN_BOUNDS_MAX_PENDING {
            return None;
        }
        let now = d.now;
        let e1 = match d.first_mean.get() {
            Some(f) if f.task == t1 && f.ready == r1 && f.from > now => f.e1,
            _ => {
                let mut spare = self.spare.borrow_mut();
                let (from, e1) =
                    first_mean_at_tick(machine.id(), now, tasks, pet, model, r, t1, r1, &mut spare);
                d.first_mean.set(Some(FirstMean {
                    task: t1,
                    ready: r1,
                    from,
                    e1,
                }));
                e1
            }
        };
        let later: f64 = machine
            .pending()
            .iter()
            .zip(machine.pending_ready())
            .skip(1)
            .map(|(&t, &ready)| {
                let wait = if ready > now {
                    (ready - now) as f64
                } else {
                    0.0
                };
                pet.mean(tasks[t].task_type, machine.id()) + wait
            })
            .sum();
        let slack = 1e-11 * e1.abs().max(1.0);
        Some((e1 - slack, e1 + later + slack))
    }

    /// The version of machine `m`'s PCTs at its tick, computed or not: two reads that give
    /// the same version see the same PCTs (the same queue, and the same tick or one the
    /// PCTs carried over to, [`Oracle::sync`]), and the same PET cells
    /// ([`Oracle::pet_changed`]), so every chance and expected completion read from them is
    /// the same. A new version for every change (a queue change, a tick whose conditioning
    /// may move the PCTs, a PET change), unique over every oracle: a value computed on a
    /// version holds while the version is the same.
    pub(crate) fn content_version(&self, m: MachineId) -> u64 {
        self.derived[m].content
    }

    /// [`Cache::id`] of machine `m`'s PCTs at its tick, when they are computed.
    #[cfg_attr(feature = "internals", visibility::make(pub))]
    pub(crate) fn cache_id(&self, m: MachineId) -> Option<u64> {
        self.derived[m].current.get().map(|c| c.id)
    }

    /// True when machine `m`'s PCTs at its tick are computed.
    #[cfg_attr(feature = "internals", visibility::make(pub))]
    pub(crate) fn is_computed(&self, m: MachineId) -> bool {
        self.derived[m].current.get().is_some()
    }

    /// An earlier cache of the same queue, with the factor that turns its values into bounds
    /// on the current ones, when the current PCTs are not computed yet. `None` when they
    /// are, or when no such bound holds (the queue changed, the machine is idle, or, when
    /// executing tasks are dropped, the executing task's deadline has come).
    ///
    /// Why it bounds: every PCT in the queue is a positive linear image of the executing
    /// task's unconditioned completion-time measure restricted to after the tick (each later
    /// task maps a start time to a completion time, dropping included), divided by that
    /// measure's mass `Z(t)`. From tick `t0` to `t1 > t0` the restricted measure only loses
    /// mass, so, with `r = Z(t0) / Z(t1) >= 1`, every CDF value and every success
    /// probability `s` obeys `s1 <= r * s0` and `1 - s1 <= r * (1 - s0)`. When nothing or
    /// everything may be dropped, a later start never gives an earlier completion, so
    /// `s1 <= s0`, `F1 <= F0` and `E1 >= E0` too ([`Stale`]).
    ///
    /// With a PCT epsilon ([`Oracle::pct_epsilon`]) the PCTs are not exactly linear images
    /// any more: these relations hold between the *exact* values, and each trimmed value of
    /// slot `k` is within `k * eps` of its exact one, at both ticks. So a bound read from a
    /// trimmed earlier cache holds for the trimmed current value up to a slack of about
    /// `(1 + r) k eps` (success probabilities and CDF values; `k eps` times the PCTs' width
    /// for expected values): decisions taken on bounds are those of success probabilities
    /// within about `2 k eps` of the exact ones, not necessarily those of computing the
    /// trimmed PCTs.
    #[cfg_attr(feature = "internals", visibility::make(pub))]
    pub(crate) fn stale(
        &self,
        m: MachineId,
        machine: &Machine,
        tasks: &[TaskSpec],
        pet: &Pet,
        model: DropModel,
    ) -> Option<Stale<'_>> {
        let d = &self.derived[m];
        if d.current.get().is_some() {
            return None;
        }
        let (c, r) = (d.last.as_ref()?, machine.running()?);
        let spec = &tasks[r.task];
        if model == DropModel::All && spec.deadline <= d.now {
            return None;
        }
        let z1 = survival(pet.exec_pmf(spec.task_type, machine.id()), r.start, d.now);
        if !(z1 >= MIN_SURVIVAL && c.z.is_finite() && c.z > 0.0) {
            return None;
        }
        // A hair above the ratio, against rounding in the two sums.
        let ratio = (c.z / z1).max(1.0) * (1.0 + 1e-12);
        Some(Stale {
            cache: c,
            ratio,
            monotone: model != DropModel::Pending,
        })
    }

    fn compute(
        &self,
        d: &Derived,
        machine: &Machine,
        tasks: &[TaskSpec],
        pet: &Pet,
        model: DropModel,
    ) -> Cache {
        let (now, m) = (d.now, machine.id());
        d.recomputations.set(d.recomputations.get() + 1);
        let mut slots: Vec<Slot> = Vec::with_capacity(machine.len());
        let mut z = 1.0;
        let mut spare = self.spare.borrow_mut();
        if let Some(r) = machine.running() {
            let spec = &tasks[r.task];
            let pet_pmf = pet.exec_pmf(spec.task_type, m);
            z = survival(pet_pmf, r.start, now);
            let mut pct = executing_pct_in(pet_pmf, r.start, now, spec.deadline, model, &mut spare);
            pct.trim_tv(self.pct_epsilon);
            slots.push(Slot::new(r.task, pct, spec.deadline));
        }
        for (&t, &ready) in machine.pending().iter().zip(machine.pending_ready()) {
            let slot = pending_slot(
                slots.last(),
                t,
                ready,
                now,
                m,
                tasks,
                pet,
                model,
                self.pct_epsilon,
                &mut spare,
            );
            slots.push(slot);
        }
        Cache {
            id: self.next_cache_id(),
            slots,
            tail: OnceCell::new(),
            mean: OnceCell::new(),
            variance: OnceCell::new(),
            at: now,
            z,
        }
    }
}

/// `E[C1]` of [`Oracle::chain_mean_bounds`] at the machine's tick, with the first tick
/// of the executing PCT it is computed on: one pass over that PCT.
#[allow(clippy::too_many_arguments)]
fn first_mean_at_tick(
    m: MachineId,
    now: Tick,
    tasks: &[TaskSpec],
    pet: &Pet,
    model: DropModel,
    r: Running,
    t1: TaskId,
    r1: Tick,
    spare: &mut Spare,
) -> (Tick, f64) {
    let spec = &tasks[r.task];
    let c0 = executing_pct_in(
        pet.exec_pmf(spec.task_type, m),
        r.start,
        now,
        spec.deadline,
        model,
        spare,
    );
    let spec1 = &tasks[t1];
    let (pet1, d1) = (pet.exec_pmf(spec1.task_type, m), spec1.deadline);
    let mu1 = pet.mean(spec1.task_type, m);
    let mut e1 = 0.0;
    for (s, &p) in (c0.min()..).zip(c0.masses()) {
        if p == 0.0 {
            continue;
        }
        let s = s.max(r1);
        let run = match model {
            DropModel::None => mu1,
            _ if s >= d1 => 0.0,
            DropModel::Pending => mu1,
            DropModel::All => pet1.expected_min(d1 - s),
        };
        e1 += p * (s as f64 + run);
    }
    let from = c0.min();
    give_back(spare, c0);
    (from, e1)
}

/// The slot of pending task `t` (data ready at `ready`) queued behind `prev` (`None`: first
/// in an idle machine's queue), at tick `now`, its PCT trimmed at `eps`.
#[allow(clippy::too_many_arguments)]
fn pending_slot(
    prev: Option<&Slot>,
    t: TaskId,
    ready: Tick,
    now: Tick,
    machine: MachineId,
    tasks: &[TaskSpec],
    pet: &Pet,
    model: DropModel,
    eps: f64,
    spare: &mut Spare,
) -> Slot {
    let spec = &tasks[t];
    let pet_pmf = pet.exec_pmf(spec.task_type, machine);
    // --- staging (JPDC-2016): the task starts no earlier than its data-ready tick ---
    // (data ready by `now` change nothing: every PCT here lies after `now`)
    let staged = (ready > now).then(|| match prev {
        Some(prev) => prev.pct.at_least(ready),
        None => Pmf::point(now).at_least(ready),
    });
    // --- end staging ---
    // Each PCT builds on the previous slot's (no copy), or on `now` for an idle head.
    let pct = match (&staged, prev) {
        (Some(free), _) => next_pct_in(free, pet_pmf, spec.deadline, model, spare),
        (None, Some(prev)) => next_pct_in(&prev.pct, pet_pmf, spec.deadline, model, spare),
        (None, None) => next_pct_in(&Pmf::point(now), pet_pmf, spec.deadline, model, spare),
    };
    let mut pct = pct.unwrap_or_else(|e| too_wide(&e));
    pct.trim_tv(eps);
    Slot::new(t, pct, spec.deadline)
}

/// A PCT too wide to hold ([`next_pct`]'s error): a PET whose shortest execution time lies
/// more than `pmf::prec::MAX_SPAN` ticks beyond the spread of the PCT ahead of it, under
/// `DropModel::Pending`.
#[cold]
pub(crate) fn too_wide(e: &pmf::PmfError) -> ! {
    panic!("a completion-time PMF too wide to hold: {e} (PET times beyond 2^26 ticks)")
}

/// [`Oracle::chain_mean_bounds`] answers only for queues with at most this many pending
/// tasks: its bounds are exact but for rounding with one, and looser with each one more, so
/// a longer limit costs more than it saves (docs/performance.md, "Constants chosen by
/// measurement").
const MEAN_BOUNDS_MAX_PENDING: usize = 1;

/// Below this survival probability of the executing task, [`Oracle::stale`] gives no
/// bound (its ratio would amplify rounding).
const MIN_SURVIVAL: f64 = 1e-6;

/// `Z(now) = P(start + E > now)`, the unconditioned mass of the executing task's completion
/// after `now`, from the PET's cached cumulative sums (O(1)).
fn survival(pet: &ExecPmf, start: Tick, now: Tick) -> f64 {
    let total = pet.mass_below_bin(pet.len());
    let k = (now + 1 - start - pet.offset()).max(0);
    let k = usize::try_from(k).unwrap_or(usize::MAX);
    (total - pet.mass_below_bin(k)).max(0.0)
}

#[cfg(test)]
mod tests {
    use super::*;
    use ndarray::Array2;

    /// Two task types on one machine, a deadline-free horizon.
    fn pet(p00: Pmf) -> Pet {
        let pmfs = Array2::from_shape_vec((2, 1), vec![p00, Pmf::new(3, vec![0.5, 0.5]).unwrap()])
            .unwrap();
        Pet::new(pmfs, vec!["a".into(), "b".into()], vec!["m".into()]).unwrap()
    }

    fn tasks(types: &[usize]) -> Vec<TaskSpec> {
        types
            .iter()
            .enumerate()
            .map(|(id, &task_type)| TaskSpec {
                id,
                task_type,
                arrival: 0,
                deadline: 1000,
            })
            .collect()
    }

    /// Machine 0 at tick 1 running task 0 (started at 0), then the given pending tasks.
    fn machine(pending: &[TaskId]) -> Machine {
        let mut m = Machine::new(0, None);
        m.start(0, 0, 4);
        for &t in pending {
            m.push(t);
        }
        m
    }

    #[test]
    fn a_pet_change_forgets_exactly_the_queues_that_read_the_cell() {
        let old = pet(Pmf::new(2, vec![0.25, 0.75]).unwrap());
        let mut new = old.clone();
        new.set_pmf(0, 0, Pmf::new(1, vec![0.5, 0.0, 0.5]).unwrap())
            .unwrap();
        for types in [vec![1, 0], vec![1, 1]] {
            let tasks = tasks(&types);
            let mc = machine(&[1]);
            let mut oracle = Oracle::new(1);
            oracle.sync(std::slice::from_ref(&mc), 1);
            let before = oracle.cache(0, &mc, &tasks, &old, DropModel::All).clone();
            oracle.pet_changed(0, 0, &mc, &tasks);
            let after = oracle.cache(0, &mc, &tasks, &new, DropModel::All).clone();
            let mut fresh = Oracle::new(1);
            fresh.sync(std::slice::from_ref(&mc), 1);
            let want = fresh.cache(0, &mc, &tasks, &new, DropModel::All);
            assert_eq!(after.slots(), want.slots(), "types {types:?}");
            assert_ne!(before.id(), after.id(), "types {types:?}: a new content id");
            // Whether it was computed again: only when a task of type 0 is queued.
            let reads = types.contains(&0);
            assert_eq!(
                oracle.recomputations(),
                1 + u64::from(reads),
                "types {types:?}"
            );
            assert_eq!(before.slots() == after.slots(), !reads);
        }
    }
}
