//! The belief, the PET the policies and the oracle read ([`System::pet`]): replaced a cell
//! at a time or whole, and learned online from the executions the system ends
//! ([`System::set_estimator`]).

use std::borrow::Cow;

use learn::Estimator;
#[cfg(doc)]
use model::Oracle;
use model::{MachineId, TaskId};
use pmf::Tick;
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
    /// observes every execution the system ends from now on; `None` stops learning.
    pub fn set_estimator(&mut self, estimator: Option<Box<Estimator>>) {
        self.estimator = estimator;
    }

    /// The online estimator, if the belief is learned.
    pub fn estimator(&self) -> Option<&Estimator> {
        self.estimator.as_deref()
    }

    /// The estimator, if any, observes an execution of `t` on `m` that ran `ran` ticks,
    /// complete or not (`censored`); every PMF it changed (the cell's, or all of the
    /// machine's when its factor moved, `learn::Options::machine_scale`; on every copy of
    /// the machine, `learn::Options::pool_copies`) replaces the belief's.
    pub(super) fn observe(&mut self, t: TaskId, m: MachineId, ran: Tick, censored: bool) {
        let Some(est) = self.estimator.as_mut() else {
            return;
        };
        let ty = self.tasks[t].task_type;
        let types: Vec<usize> = match est.observe(ty, m, ran as f64, censored) {
            Ok(learn::Update::Unchanged) => return,
            Ok(learn::Update::Cell) => vec![ty],
            Ok(learn::Update::Machine) => {
                tracing::debug!(machine = m, scale = est.scale(m), "machine factor moved");
                (0..est.types()).collect()
            }
            Err(e) => {
                tracing::warn!(task_type = ty, machine = m, "observation ignored: {e}");
                return;
            }
        };
        // On every copy of the machine (`learn::Options::pool_copies`), which reads the same.
        let copies = est.copies(m).to_vec();
        let changed: Vec<(usize, pmf::Pmf)> =
            types.iter().map(|&t| (t, est.pmf(t, m).clone())).collect();
        for (t, p) in changed {
            if copies.iter().all(|&c| self.belief.pmf(t, c) == &p) {
                continue;
            }
            if let Err(e) = self.set_pmf_copies(t, &copies, p) {
                tracing::error!(task_type = t, machine = m, "belief not updated: {e}");
            }
        }
    }
}
