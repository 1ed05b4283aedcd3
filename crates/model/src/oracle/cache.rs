//! What the oracle keeps of one machine queue at one tick: each position's PCT and chance
//! ([`Slot`]), the queue's tail ([`Cache`]), and an earlier tick's cache of the same queue as
//! bounds on the current values ([`Stale`]).
#![cfg_attr(not(feature = "internals"), allow(unreachable_pub))]

use std::cell::OnceCell;

use pmf::{Pmf, TailCdf, Tick};

use crate::task::TaskId;

/// One queue position as the mapper sees it.
#[derive(Debug, Clone)]
pub struct Slot {
    /// The task in this position.
    pub task: TaskId,
    /// Its completion-time PMF (the machine's free time after its slot) under the scenario's
    /// dropping model; for the executing task, conditioned on not having ended by `now`.
    pub pct: Pmf,
    /// The task's deadline.
    deadline: Tick,
    /// [`Slot::success`], on first read: only the pruner, MOC's culling and the bounds on a
    /// stale cache read it, and the sum is a chain of dependent additions over the PCT.
    success: OnceCell<f64>,
}

impl Slot {
    pub(super) fn new(task: TaskId, pct: Pmf, deadline: Tick) -> Self {
        Slot {
            task,
            pct,
            deadline,
            success: OnceCell::new(),
        }
    }

    /// P(the task completes before its deadline), paper eq. (1): `P(C < d)` of its PCT,
    /// computed on first read and kept.
    #[inline]
    pub fn success(&self) -> f64 {
        *self
            .success
            .get_or_init(|| self.pct.prob_before(self.deadline))
    }
}

/// Slots are equal when their task, PCT and deadline are: whether the chance has been read
/// yet does not count.
impl PartialEq for Slot {
    fn eq(&self, other: &Self) -> bool {
        self.task == other.task && self.deadline == other.deadline && self.pct == other.pct
    }
}

/// The PCTs of one machine queue at one tick.
#[derive(Debug, Clone)]
pub struct Cache {
    /// Names this content ([`Cache::id`]).
    pub(super) id: u64,
    pub(super) slots: Vec<Slot>,
    /// The tail CDF, built on first use ([`Cache::tail`]): the expectation-based
    /// heuristics read only the tail's mean.
    pub(super) tail: OnceCell<TailCdf>,
    /// `E[tail]`, kept on first use ([`Cache::tail_mean`]).
    pub(super) mean: OnceCell<f64>,
    /// `Var[tail]`, kept on first use ([`Cache::tail_variance`]).
    pub(super) variance: OnceCell<f64>,
    /// The tick they were computed at.
    pub(super) at: Tick,
    /// `Z(at)` of the executing task (see [`super::Oracle::stale`]); 1 when idle.
    pub(super) z: f64,
}

impl Cache {
    /// A token naming this content: two caches with the same id hold the same PCTs, so
    /// anything computed from one holds for the other (a cache carried over to a later tick
    /// by [`super::Oracle::sync`] keeps its id; computing or appending gives a new one). Ids
    /// are unique in the process.
    #[cfg_attr(feature = "internals", visibility::make(pub))]
    pub(crate) fn id(&self) -> u64 {
        self.id
    }

    /// The queue positions, executing first.
    pub fn slots(&self) -> &[Slot] {
        &self.slots
    }

    /// The tail CDF: when the machine is expected to be free for a new task (built on
    /// first use).
    #[inline]
    pub fn tail(&self) -> &TailCdf {
        self.tail.get_or_init(|| match self.slots.last() {
            Some(s) => TailCdf::new(&s.pct),
            None => TailCdf::idle(self.at),
        })
    }

    /// `E[tail]`, without building the CDF: the same value as `tail().mean()` (the same
    /// sum in the same order, [`Pmf::mean`]).
    #[inline]
    pub fn tail_mean(&self) -> f64 {
        *self.mean.get_or_init(|| match self.tail.get() {
            Some(t) => t.mean(),
            None => self.slots.last().map_or(self.at as f64, |s| s.pct.mean()),
        })
    }

    /// `Var[tail]` ([`Pmf::variance`] of the tail PCT; 0 for an empty machine), kept on
    /// first use: MaxRobust reads it for every near-best machine at every arrival.
    #[inline]
    pub fn tail_variance(&self) -> f64 {
        *self.variance.get_or_init(|| {
            self.tail_pct()
                .map_or(0.0, |p| p.variance_about(self.tail_mean()))
        })
    }

    /// The first tick of the tail's support (`tail().min()`, without building the CDF).
    pub fn tail_min(&self) -> Tick {
        self.slots.last().map_or(self.at, |s| s.pct.min())
    }

    /// The last tick of the tail's support (`tail().max()`, without building the CDF).
    pub fn tail_max(&self) -> Tick {
        self.slots.last().map_or(self.at, |s| s.pct.max())
    }

    /// The tail PCT itself (`None` for an empty machine, whose tail is the tick itself).
    pub fn tail_pct(&self) -> Option<&Pmf> {
        self.slots.last().map(|s| &s.pct)
    }

    /// The tick the PCTs were computed at.
    #[cfg(any(test, feature = "internals"))]
    pub fn at(&self) -> Tick {
        self.at
    }
}

/// An earlier cache of a machine's unchanged queue and how its values bound the current
/// ones ([`super::Oracle::stale`]).
#[derive(Debug, Clone, Copy)]
pub struct Stale<'a> {
    /// The earlier cache.
    pub cache: &'a Cache,
    /// `r = Z(t0) / Z(t1) >= 1`.
    pub ratio: f64,
    /// True when a later start never gives an earlier completion (nothing or everything
    /// may be dropped): then the earlier values bound the current ones directly.
    pub monotone: bool,
}

impl Stale<'_> {
    /// The factor `f` with `current <= f * earlier` for success probabilities and CDF values.
    pub fn upper_factor(&self) -> f64 {
        if self.monotone { 1.0 } else { self.ratio }
    }

    /// A lower bound on the current success probability of slot `k`:
    /// `1 - r * (1 - s0)`.
    pub fn success_lower(&self, k: usize) -> f64 {
        1.0 - self.ratio * (1.0 - self.cache.slots[k].success())
    }

    /// An upper bound on the current expected tail, in every dropping model:
    /// `E1 <= E0 + (r - 1) (E0 - min T0)`. The mass lost from `t0` to `t1`, `Z(t0) - Z(t1)`,
    /// lay nowhere before the earlier tail's first tick.
    pub fn tail_mean_upper(&self) -> f64 {
        let e0 = self.cache.tail_mean();
        e0 + (self.ratio - 1.0) * (e0 - self.cache.tail_min() as f64).max(0.0)
    }

    /// A lower bound on the current expected tail, in every dropping model:
    /// `E1 >= E0 - (r - 1) (max T0 - E0)` (the mass lost from `t0` to `t1` lay nowhere after
    /// the earlier tail's last tick), and `E1 >= E0` when a later start never gives an
    /// earlier completion.
    pub fn tail_mean_lower(&self) -> f64 {
        let e0 = self.cache.tail_mean();
        if self.monotone {
            return e0;
        }
        e0 - (self.ratio - 1.0) * (self.cache.tail_max() as f64 - e0).max(0.0)
    }
}
