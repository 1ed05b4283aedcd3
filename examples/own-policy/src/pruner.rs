//! A pruner of your own: each queued task's chance comes from the oracle (`View::queue`).

use model::{MachineId, Pruner, TaskId, View};
use pruner::registry::Rule;

/// The rule's entry in the pruner registry: `[pruner] rule = "below-floor"` runs it (no other
/// `[pruner]` key with it), built afresh for every trial.
pub(crate) const RULE: Rule = Rule {
    name: "below-floor",
    description: "your own: drops every pending task whose chance is below 0.2; never defers",
    build: |_task_types| Box::new(BelowFloor(0.2)),
};

/// Drops, at every mapping event, the pending tasks whose chance is below `floor` (no
/// toggle, no deferring): a pruner in one screen.
#[derive(Debug)]
pub(crate) struct BelowFloor(pub f64);

impl Pruner for BelowFloor {
    fn name(&self) -> String {
        format!("below {}", self.0)
    }
    fn observe(&mut self, _misses: usize) -> bool {
        true
    }
    fn select_drops(&mut self, view: &View<'_>) -> Vec<TaskId> {
        let pending = |m: MachineId| {
            view.queue(m)
                .iter()
                .skip(view.machines()[m].running().is_some().into())
        };
        (0..view.machines().len())
            .flat_map(|m| {
                pending(m)
                    .filter(|s| s.success() < self.0)
                    .map(|s| s.task)
                    .collect::<Vec<_>>()
            })
            .collect()
    }
    fn defer_thresholds(&self) -> Option<&[f64]> {
        None
    }
    fn on_task_end(&mut self, _task_type: usize, _success: bool) {}
}
