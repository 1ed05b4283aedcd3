//! Drops applied to the machine queues: the pruner's (thesis Algorithm 1) and a heuristic's
//! (MOC's culling), each task settled once with its cause.

use model::{Outcome, Pruner, TaskId};
use pmf::{DropModel, Tick};

use super::{Cause, Hooks, System};

impl System<'_> {
    /// Removes tasks chosen by the pruner (or a heuristic) from the machine queues.
    pub(super) fn apply_drops(
        &mut self,
        drops: &[TaskId],
        now: Tick,
        pruner: &mut dyn Pruner,
        hooks: &mut dyn Hooks,
    ) {
        let mut touched = Vec::new();
        for &t in drops {
            if self.records.get(t).is_none_or(Option::is_some) {
                continue;
            }
            let Some(m) = self.assigned_to[t] else {
                continue;
            };
            if self.machines[m].running().map(|r| r.task) == Some(t) {
                if self.model != DropModel::All {
                    // JPDC-2016 scenario (a): the executing task runs to completion.
                    tracing::warn!(
                        task = t,
                        machine = m,
                        "a drop of an executing task ignored: drop_model is not \"all\""
                    );
                    continue;
                }
                let start = self.stop_running(m, now, true, None).map(|r| {
                    self.wasted[m] += now - r.start;
                    r.start
                });
                self.settle(
                    t,
                    Outcome::PrunedExecuting,
                    Some(m),
                    start,
                    now,
                    Cause::Decision,
                    pruner,
                    hooks,
                );
                touched.push(m);
            } else if self.machines[m].remove_pending(t) {
                self.settle(
                    t,
                    Outcome::PrunedPending,
                    Some(m),
                    None,
                    now,
                    Cause::Decision,
                    pruner,
                    hooks,
                );
                touched.push(m);
            }
        }
        for m in touched {
            self.start_next(m, now, pruner, hooks);
        }
    }
}
