//! The recommended batch heuristic, `auto`: the paper's pruning on minimum expected
//! completion, committing each machine no deeper than it needs to stay busy, and deferring
//! only while a machine has better use for its time.
//!
//! What it decides, at each mapping event:
//! 1. **Plan to the queue, commit to the depth.** The batch is planned into the machine
//!    queues as deep as the queues go (their limit, `queue_size`), and of each machine's
//!    planned tasks only the first ones are committed: while the machine holds fewer than
//!    `depth` tasks, the executing one included ([`VirtualQueues::plan_ahead`]; default
//!    [`DEFAULT_DEPTH`], at most the queue's limit). A mapping event follows every
//!    completion, so a machine with one task waiting behind the executing one never idles;
//!    a deeper commitment only binds tasks to a machine before it is known when the tasks
//!    ahead of them end, and a committed task cannot move when another machine frees early.
//!    The tasks planned but not committed stay in the batch queue and are planned again at
//!    the next event, with what is known then; the pruner reconsiders them there
//!    (deferring) instead of in a machine queue (dropping). Planning deep is what lets the
//!    plan see the backlog: capped at the depth, a fast machine always looks at most
//!    `depth` tasks away, so the slower machines stay idle while the batch waits for the
//!    fast ones; planned to the queue, a task goes to a slower machine when its expected
//!    completion there beats the fast machine's behind the tasks planned ahead of it
//!    (docs/reproduction.md, "The recommended scheduler").
//! 2. The two phases of MM (thesis 3.3.1.1, paper VI-C1), over the plan: per task the
//!    machine of minimum expected completion time; of those pairs, the minimum expected
//!    completion time. A task whose chance on its machine is at or below its type's defer
//!    threshold is deferred, as every batch heuristic does with the pruner's thresholds.
//! 3. Deferring is work-conserving: the machines that would stay idle after steps 1-2
//!    (nothing executing, queued or assigned) take deferred tasks, one each, chosen by the
//!    same two phases of MM over those machines alone, with [`FILL_FLOOR`] in place of the
//!    defer threshold: per deferred task the idle machine of minimum expected completion
//!    time, and of those pairs the minimum expected completion time first, as long as the
//!    task's chance there is above the floor. Deferring keeps a machine's time for a task
//!    likelier to succeed; an idle machine has no such use for it. This matters where a task
//!    type cannot reach the defer threshold at all, even on an idle machine: execution
//!    times with a slow mode or a heavy tail that a deadline cuts (a bimodal type that takes
//!    5x longer one time in five has a chance of at most 0.8), whose tasks fixed thresholds
//!    defer until they expire however idle the system is. There every task passes through
//!    this step, so it must choose as MM does: under overload, the task that ends soonest
//!    frees its machine soonest for the next.
//!
//! Without a `[pruner]` table it runs with the paper's pruner (drop at 50%, defer at 90%,
//! the EWMA toggle with the Schmitt trigger), as PAM does. Why these choices, and how they
//! compare with PAM and the other heuristics on systems unlike the papers' (copies of
//! machine types, heavy-tailed and bimodal execution times, light to heavy load):
//! docs/reproduction.md, "The recommended scheduler".
//!
//! With input-data staging (JPDC-2016 section 5) a queued task's input is staged while the
//! tasks ahead of it run, which a shallow queue would forgo: there the default depth is the
//! queue's own limit (an explicit `depth` still applies). With `queue_size` no larger than
//! the depth, the plan and the commitment are one.

use model::{BatchHeuristic, Decision, TaskId, View, VirtualQueues};

use crate::plan::{Phase1, Phase1Scope, Phase2, Plan};
use crate::search::{Kept, run};

/// The default depth: the executing task and one waiting behind it.
pub const DEFAULT_DEPTH: usize = 2;

/// A deferred task goes to an idle machine when its chance there is above this: the paper's
/// drop threshold (HCW 2019, VII), so a task the pruner would keep.
pub const FILL_FLOOR: f64 = 0.5;

/// The recommended heuristic (see the module docs).
#[derive(Debug, Clone)]
pub struct Auto {
    plan: Plan,
    /// `None`: [`DEFAULT_DEPTH`], or the queue's limit with staging.
    depth: Option<usize>,
    /// Chances kept across mapping events.
    kept: Kept,
}

impl Auto {
    /// `auto` with phase-1 scope `scope` and the depth given (`None`: the default).
    pub fn new(scope: Phase1Scope, depth: Option<usize>) -> Self {
        Auto {
            plan: Plan {
                phase1: Phase1::MinCompletion,
                phase2: Phase2::MinCompletion {
                    tie_by_execution: false,
                },
                scope,
            },
            depth,
            kept: Kept::default(),
        }
    }

    /// The plan it runs.
    pub fn plan(&self) -> Plan {
        self.plan
    }

    /// The depth in force on `view`: `None` when the queues' own limits apply.
    pub fn depth(&self, view: &View<'_>) -> Option<usize> {
        match self.depth {
            Some(d) => Some(d),
            None if view.staging().is_some() => None,
            None => Some(DEFAULT_DEPTH),
        }
    }

    /// The virtual queues it plans on: the view's, planned to the queues' limits, with at
    /// most the depth in force committed on each machine (step 1 of the module docs).
    fn queues<'a>(&self, view: &View<'a>, lazy: bool) -> VirtualQueues<'a> {
        let mut vq = if lazy {
            VirtualQueues::from_view_lazy(view)
        } else {
            VirtualQueues::from_view(view)
        };
        if let Some(d) = self.depth(view) {
            let commit = view
                .machines()
                .iter()
                .map(|m| d.saturating_sub(m.len()).min(m.free_slots()))
                .collect();
            vq.plan_ahead(commit);
        }
        vq
    }

    /// The decisions by the plain reference loop ([`crate::reference`]): what
    /// [`BatchHeuristic::map`] must return, computed without any acceleration.
    pub fn map_reference(&self, view: &View<'_>) -> Decision {
        let mut decision = Decision::default();
        let mut vq = self.queues(view, false);
        crate::reference::run(view, self.plan, &mut vq, view.batch(), &mut decision);
        commit(&vq, &mut decision);
        fill_idle(view, self.plan, &mut decision, crate::reference::run);
        decision
    }
}

/// Keeps of the plan's assignments those `vq` commits ([`VirtualQueues::plan_ahead`]): on
/// each machine the first ones, in the order assigned. The others are not in the decision:
/// their tasks stay in the batch queue.
fn commit(vq: &VirtualQueues, decision: &mut Decision) {
    let mut room: Vec<usize> = (0..vq.machines().len()).map(|m| vq.commits(m)).collect();
    decision.assign.retain(|&(_, m)| {
        let keep = room[m] > 0;
        room[m] = room[m].saturating_sub(1);
        keep
    });
}

/// Work-conserving deferring (step 3 of the module docs): the machines that would stay idle
/// after the decision (nothing executing, queued or assigned) take deferred tasks, one each,
/// by `plan`'s two phases over those machines alone, with [`FILL_FLOOR`] as every type's
/// defer threshold. `two_phase` is the loop that runs them: [`crate::reference::run`] or
/// the accelerated search, which decide alike. The tasks mapped leave the deferred list;
/// the others stay on it, in batch order.
fn fill_idle(
    view: &View<'_>,
    plan: Plan,
    decision: &mut Decision,
    two_phase: impl FnOnce(&View<'_>, Plan, &mut VirtualQueues, &[TaskId], &mut Decision),
) {
    if decision.deferred.is_empty() {
        return;
    }
    let floor = vec![FILL_FLOOR; view.pet().n_types()];
    let view = view.with_defer(Some(&floor));
    // Depth 1: a machine takes a task only while it holds none.
    let mut vq = VirtualQueues::from_view(&view);
    vq.limit_depth(1);
    for &(t, m) in &decision.assign {
        if vq.free(m) > 0 {
            vq.assign(&view, m, t);
        }
    }
    if !vq.any_free() {
        return;
    }
    let mut deferred = std::mem::take(&mut decision.deferred);
    deferred.sort_unstable();
    let idle_only = Plan {
        scope: Phase1Scope::FreeMachines,
        ..plan
    };
    let mut filled = Decision::default();
    two_phase(&view, idle_only, &mut vq, &deferred, &mut filled);
    deferred.retain(|t| filled.assign.iter().all(|&(x, _)| x != *t));
    decision.assign.extend(filled.assign);
    decision.deferred = deferred;
}

impl BatchHeuristic for Auto {
    fn name(&self) -> &str {
        "auto"
    }

    fn map(&mut self, view: &View<'_>) -> Decision {
        let mut decision = Decision::default();
        // MinCompletion reads only expected tails: no tail CDF is built until one is read.
        let mut vq = self.queues(view, true);
        run(
            view,
            self.plan,
            &mut vq,
            view.batch(),
            &mut decision,
            &mut self.kept,
        );
        commit(&vq, &mut decision);
        fill_idle(view, self.plan, &mut decision, |v, plan, vq, cands, d| {
            run(v, plan, vq, cands, d, &mut Kept::default());
        });
        decision
    }
}
