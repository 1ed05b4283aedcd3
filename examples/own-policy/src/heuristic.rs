//! A batch heuristic of your own, asking the oracle's questions through `model::View`.

use heuristics::{Entry, Mapper, Mode};
use model::{BatchHeuristic, Decision, MachineId, TaskId, View, VirtualQueues};

/// The heuristic's entry in the registry: the name every tool knows it by, its mode, the
/// `[mapper]` parameters it takes (none), the line `list` prints, and how to build it.
pub(crate) const ENTRY: Entry = Entry {
    name: "MSP-EDF",
    aliases: &[],
    mode: Mode::Batch,
    parameters: &[],
    description: "batch, your own: the machine of highest chance, earliest deadline first",
    build: |_| Mapper::Batch(Box::new(MaxChanceEarliestDeadline)),
};

/// Maximum success probability, then earliest deadline: each round every waiting task's
/// machine is the one where its chance is highest (ties to the lower index); a task whose
/// best chance is at or below its defer threshold waits for the next event; of the tasks
/// whose machine has a free slot, the earliest deadline is assigned.
#[derive(Debug, Default)]
pub(crate) struct MaxChanceEarliestDeadline;

impl BatchHeuristic for MaxChanceEarliestDeadline {
    fn name(&self) -> &str {
        "MSP-EDF"
    }

    fn map(&mut self, view: &View<'_>) -> Decision {
        let mut decision = Decision::default();
        let mut queues = VirtualQueues::from_view(view);
        let mut waiting: Vec<TaskId> = view.batch().to_vec();
        while queues.any_free() {
            let mut pick: Option<(i64, TaskId, MachineId)> = None;
            waiting.retain(|&t| {
                let chance = |m: MachineId| queues.success(view, m, t);
                let Some(m) = (0..view.machines().len())
                    .reduce(|a, b| if chance(b) > chance(a) { b } else { a })
                else {
                    return false;
                };
                if view.should_defer(t, chance(m)) {
                    decision.deferred.push(t);
                    return false;
                }
                let deadline = view.task(t).deadline;
                if queues.free(m) > 0 && pick.is_none_or(|(d, _, _)| deadline < d) {
                    pick = Some((deadline, t, m));
                }
                true
            });
            let Some((_, t, m)) = pick else { break };
            queues.assign(view, m, t);
            decision.assign.push((t, m));
            waiting.retain(|&x| x != t);
        }
        decision
    }
}
