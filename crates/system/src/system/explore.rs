//! Exploration of cells a learned belief has seen too little (`learn::Options::explore`,
//! the `learn` crate docs, step 5).

use model::{MachineId, TaskId};
use pmf::Tick;

use super::{Env, Hooks, System};

impl System<'_> {
    /// Exploration (`learn::Options::explore`, the `learn` crate docs, step 5): with a
    /// learned belief, each machine the policy left idle (nothing executing, nothing queued,
    /// room in its queue) takes one waiting task of a cell it explores: the task whose cell
    /// there holds the fewest observations, then the latest deadline, then the lowest id.
    /// Machines are served in index order. Work-conserving: only idle machines and only
    /// tasks the policy did not map, so a system whose cells are all observed, or whose
    /// machines are all busy, is untouched.
    pub(super) fn explore_idle(&mut self, now: Tick, env: &Env<'_>, hooks: &mut dyn Hooks) {
        let Some(est) = self.learning.as_ref().map(|l| &*l.estimator) else {
            return;
        };
        if est.options().explore == 0 || self.batch.is_empty() {
            return;
        }
        let mut picks: Vec<(TaskId, MachineId)> = Vec::new();
        for m in 0..self.machines.len() {
            let machine = &self.machines[m];
            if !machine.is_empty() || machine.free_slots() == 0 {
                continue;
            }
            let tasks = &self.tasks;
            let best = self
                .batch
                .iter()
                .filter(|&&t| picks.iter().all(|&(x, _)| x != t))
                .filter(|&&t| est.explores(tasks[t].task_type, m))
                .min_by_key(|&&t| {
                    let spec = &tasks[t];
                    (
                        est.observations(spec.task_type, m),
                        std::cmp::Reverse(spec.deadline),
                        t,
                    )
                });
            if let Some(&t) = best {
                picks.push((t, m));
            }
        }
        if picks.is_empty() {
            return;
        }
        self.batch.retain(|t| picks.iter().all(|&(x, _)| x != *t));
        for (t, m) in picks {
            tracing::trace!(task = t, machine = m, "explored on an idle machine");
            self.push_task(m, t, now, env);
            self.assigned_to[t] = Some(m);
            self.mapped(m, t, now, hooks);
        }
    }
}
