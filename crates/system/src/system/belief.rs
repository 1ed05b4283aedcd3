//! The belief, the PET the policies and the oracle read ([`System::pet`]): replaced a cell
//! at a time or whole, and learned online from the executions the system ends
//! ([`System::set_estimator`]).

use std::borrow::Cow;

use learn::Estimator;
#[cfg(doc)]
use model::Oracle;
use model::{MachineId, TaskId};
use pmf::Pmf;
use workload::{Pet, WorkloadError};

use super::System;

impl<'p> System<'p> {
    /// The PET the policies and the oracle read (the belief).
    pub fn pet(&self) -> &Pet {
        &self.belief
    }

    /// Replaces the belief's PMF of `task_type` on machine `m`; the oracle forgets exactly
    /// what read the cell ([`Oracle::pet_changed`]).
    ///
    /// Errors: a cell outside the PET, or a PMF with mass at a negative time
    /// ([`Pet::set_pmf`]); the belief is unchanged.
    pub fn set_pmf(
        &mut self,
        task_type: usize,
        m: MachineId,
        pmf: pmf::Pmf,
    ) -> Result<(), WorkloadError> {
        self.belief.to_mut().set_pmf(task_type, m, pmf)?;
        self.oracle
            .pet_changed(m, task_type, &self.machines[m], &self.tasks);
        Ok(())
    }

    /// Replaces the belief's PMF of `task_type` on each of `machines` (copies learned as
    /// one, `learn::Options::pool_copies`) by the same `pmf`, as [`System::set_pmf`] on
    /// each ([`Pet::set_pmf_copies`]).
    ///
    /// Errors: as [`System::set_pmf`].
    pub fn set_pmf_copies(
        &mut self,
        task_type: usize,
        machines: &[MachineId],
        pmf: pmf::Pmf,
    ) -> Result<(), WorkloadError> {
        self.belief
            .to_mut()
            .set_pmf_copies(task_type, machines, pmf)?;
        for &m in machines {
            self.oracle
                .pet_changed(m, task_type, &self.machines[m], &self.tasks);
        }
        Ok(())
    }

    /// Replaces the whole belief; the oracle forgets what read each cell that changed.
    ///
    /// Errors: a PET of another shape (task types x machines); the belief is unchanged.
    pub fn set_pet(&mut self, pet: Cow<'p, Pet>) -> Result<(), WorkloadError> {
        let shape = (self.belief.n_types(), self.belief.n_machines());
        if (pet.n_types(), pet.n_machines()) != shape {
            return Err(WorkloadError::InvalidPet(format!(
                "the new PET is {} x {}, the belief {} x {} (task types x machines)",
                pet.n_types(),
                pet.n_machines(),
                shape.0,
                shape.1
            )));
        }
        let old = std::mem::replace(&mut self.belief, pet);
        for t in 0..shape.0 {
            for m in 0..shape.1 {
                if old.pmf(t, m) != self.belief.pmf(t, m) {
                    self.oracle
                        .pet_changed(m, t, &self.machines[m], &self.tasks);
                }
            }
        }
        Ok(())
    }

    /// Learns the belief online: `estimator` (holding the belief's PMFs as its priors)
    /// observes every execution the system ends from now on, and the belief takes the cells
    /// whose estimate changed after every `refresh_every` observations (at least 1; 1: at
    /// once, the simulator's cadence); `None` stops learning, the belief staying as it is.
    pub fn set_estimator(&mut self, estimator: Option<Box<Estimator>>, refresh_every: usize) {
        self.learning = estimator.map(|estimator| {
            let cells = estimator.types() * estimator.machines();
            Learning {
                estimator,
                refresh_every: refresh_every.max(1),
                since: 0,
                changed: vec![false; cells],
            }
        });
    }

    /// The online estimator, if the belief is learned.
    pub fn estimator(&self) -> Option<&Estimator> {
        self.learning.as_ref().map(|l| &*l.estimator)
    }

    /// The estimator, if any, observes an execution of `t` on `m` that ran `ran` ticks,
    /// complete or not (`censored`). The PMFs it changed (the cell's, or all of the
    /// machine's when its factor moved, `learn::Options::machine_scale`; on every copy of
    /// the machine, `learn::Options::pool_copies`) replace the belief's at the cadence
    /// ([`System::set_estimator`]).
    pub(super) fn observe(&mut self, t: TaskId, m: MachineId, ran: f64, censored: bool) {
        let Some(l) = self.learning.as_mut() else {
            return;
        };
        let ty = self.tasks[t].task_type;
        let machines = l.estimator.machines();
        let types = match l.estimator.observe(ty, m, ran, censored) {
            Ok(learn::Update::Unchanged) => 0..0,
            Ok(learn::Update::Cell) => ty..ty + 1,
            Ok(learn::Update::Machine) => {
                let scale = l.estimator.scale(m);
                tracing::debug!(machine = m, scale, "machine factor moved");
                0..l.estimator.types()
            }
            Ok(learn::Update::All) => {
                tracing::debug!(machine = m, "copies found from the evidence changed");
                l.changed.fill(true);
                0..0
            }
            Err(e) => {
                tracing::warn!(task_type = ty, machine = m, "observation ignored: {e}");
                return;
            }
        };
        // On every copy of the machine (`learn::Options::pool_copies`), which reads the same.
        for t in types {
            for &c in l.estimator.cell_copies(t, m) {
                l.changed[t * machines + c] = true;
            }
        }
        l.since += 1;
        if l.since >= l.refresh_every {
            l.since = 0;
            self.refresh_belief();
        }
    }

    /// The belief takes every cell whose estimate changed since the last refresh, by task
    /// type and then machine, the copies of a machine together; a cell that already reads
    /// the estimate is left alone (the oracle keeps what read it).
    fn refresh_belief(&mut self) {
        let Some(l) = self.learning.as_mut() else {
            return;
        };
        let machines = l.estimator.machines();
        let mut updates: Vec<(usize, MachineId, Vec<MachineId>, Pmf)> = Vec::new();
        for i in 0..l.changed.len() {
            if !std::mem::take(&mut l.changed[i]) {
                continue;
            }
            let (t, m) = (i / machines, i % machines);
            let copies = l.estimator.cell_copies(t, m).to_vec();
            for &c in &copies {
                l.changed[t * machines + c] = false;
            }
            updates.push((t, m, copies, l.estimator.pmf(t, m).clone()));
        }
        for (t, m, copies, p) in updates {
            if copies.iter().all(|&c| self.belief.pmf(t, c) == &p) {
                continue;
            }
            if let Err(e) = self.set_pmf_copies(t, &copies, p) {
                tracing::error!(task_type = t, machine = m, "belief not updated: {e}");
            }
        }
    }
}

/// The online estimator of a learned belief and what it has not yet handed to the belief.
#[derive(Debug, Clone)]
pub(super) struct Learning {
    pub(super) estimator: Box<Estimator>,
    /// The belief takes the changed cells after every this many observations.
    refresh_every: usize,
    /// Observations since the last refresh.
    since: usize,
    /// Per cell (type-major), true when its estimate changed since the last refresh.
    changed: Vec<bool>,
}
