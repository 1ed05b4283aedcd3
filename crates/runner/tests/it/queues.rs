//! A machine together with what the oracle derives from its queue: the one-object form in
//! which the tests of the oracle's caching are written. `Machine` here is a
//! [`model::Machine`] (through `Deref`) with an [`Oracle`] of its own; [`Fleet`] joins
//! several into the machines and oracle of a view.

use std::ops::{Deref, DerefMut};

use model::{Cache, Oracle, Stale, TaskSpec};
use pmf::{DropModel, Tick};
use workload::Pet;

/// A machine and its oracle values (index 0 of its own oracle).
#[derive(Debug, Clone)]
pub(crate) struct Machine {
    inner: model::Machine,
    oracle: Oracle,
}

impl Deref for Machine {
    type Target = model::Machine;
    fn deref(&self) -> &model::Machine {
        &self.inner
    }
}

impl DerefMut for Machine {
    fn deref_mut(&mut self) -> &mut model::Machine {
        &mut self.inner
    }
}

impl Machine {
    pub(crate) fn new(id: usize, limit: Option<usize>) -> Self {
        Machine {
            inner: model::Machine::new(id, limit),
            oracle: Oracle::new(1),
        }
    }

    pub(crate) fn with_pct_epsilon(mut self, eps: f64) -> Self {
        self.oracle = self.oracle.with_pct_epsilon(eps);
        self
    }

    /// Its oracle (the machine is its machine 0).
    pub(crate) fn oracle(&self) -> &Oracle {
        &self.oracle
    }

    /// Moves the oracle's values to `now` (and forgets them if the queue changed).
    pub(crate) fn advance(&mut self, now: Tick) {
        self.oracle.sync(std::slice::from_ref(&self.inner), now);
    }

    pub(crate) fn refresh(&mut self, now: Tick, tasks: &[TaskSpec], pet: &Pet, model: DropModel) {
        self.oracle.refresh(0, &self.inner, now, tasks, pet, model);
    }

    pub(crate) fn cache(&self, tasks: &[TaskSpec], pet: &Pet, model: DropModel) -> &Cache {
        self.oracle.cache(0, &self.inner, tasks, pet, model)
    }

    pub(crate) fn stale(
        &self,
        tasks: &[TaskSpec],
        pet: &Pet,
        model: DropModel,
    ) -> Option<Stale<'_>> {
        self.oracle.stale(0, &self.inner, tasks, pet, model)
    }

    pub(crate) fn is_computed(&self) -> bool {
        self.oracle.is_computed(0)
    }

    pub(crate) fn cache_id(&self) -> Option<u64> {
        self.oracle.cache_id(0)
    }

    pub(crate) fn recomputations(&self) -> u64 {
        self.oracle.recomputations()
    }

    pub(crate) fn executing_mean(
        &self,
        tasks: &[TaskSpec],
        pet: &Pet,
        model: DropModel,
    ) -> Option<f64> {
        self.oracle
            .executing_mean(0, &self.inner, tasks, pet, model)
    }

    pub(crate) fn chain_mean_bounds(
        &self,
        tasks: &[TaskSpec],
        pet: &Pet,
        model: DropModel,
    ) -> Option<(f64, f64)> {
        self.oracle
            .chain_mean_bounds(0, &self.inner, tasks, pet, model)
    }

    /// Appends a task as the engine does: the oracle extends computed PMFs.
    pub(crate) fn append(
        &mut self,
        t: usize,
        ready: Tick,
        tasks: &[TaskSpec],
        pet: &Pet,
        model: DropModel,
    ) {
        self.inner.push_staged(t, ready);
        self.oracle
            .appended(0, &self.inner, t, ready, tasks, pet, model);
    }

    /// Forgets every derived value (as a new oracle would know nothing).
    pub(crate) fn invalidate(&mut self) {
        let eps = self.oracle.pct_epsilon();
        self.oracle = Oracle::new(1).with_pct_epsilon(eps);
    }
}

/// The machines of a view and their oracle, joined from [`Machine`]s.
#[derive(Debug, Clone)]
pub(crate) struct Fleet {
    pub machines: Vec<model::Machine>,
    pub oracle: Oracle,
}

impl Fleet {
    pub(crate) fn of(machines: &[Machine]) -> Self {
        Fleet {
            machines: machines.iter().map(|m| m.inner.clone()).collect(),
            oracle: Oracle::concat(machines.iter().map(|m| m.oracle.clone())),
        }
    }

    /// A view of the fleet at `now`, without deferring or staging.
    pub(crate) fn view<'a>(
        &'a self,
        now: Tick,
        pet: &'a Pet,
        tasks: &'a [TaskSpec],
        batch: &'a [usize],
        model: DropModel,
    ) -> model::View<'a> {
        model::View::new(now, pet, tasks, batch, &self.machines, &self.oracle, model)
    }
}
