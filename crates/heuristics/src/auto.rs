//! The recommended batch heuristic, `auto`: the paper's pruning on minimum expected
//! completion, committing each machine no deeper than it needs to stay busy, and deferring
//! only while a machine has better use for its time.
//!
//! What it decides, at each mapping event:
//! 1. Every machine accepts tasks only while it holds fewer than `depth` tasks, the
//!    executing one included ([`VirtualQueues::limit_depth`]; default [`DEFAULT_DEPTH`],
//!    at most the queue's limit). A mapping event follows every completion, so a machine
//!    with one task waiting behind the executing one never idles; a deeper queue only
//!    commits tasks to a machine before it is known when the tasks ahead of them end, and a
//!    committed task cannot move when another machine frees early. The tasks left in the
//!    batch queue are placed at a later event, with what is known then, and the pruner
//!    reconsiders them there (deferring) instead of in a machine queue (dropping).
//! 2. The two phases of MM (thesis 3.3.1.1, paper VI-C1): per task the machine of minimum
//!    expected completion time; of those pairs, the minimum expected completion time. A
//!    task whose chance on its machine is at or below its type's defer threshold is
//!    deferred, as every batch heuristic does with the pruner's thresholds.
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
//! queue's own limit (an explicit `depth` still applies).
//!
//! # `lookahead`: PAM's plan over the whole queues, committed to the depth
//! [`Auto::lookahead`] differs from `auto` in two steps, for systems where one machine type
//! is the fastest for every task type and times are narrow (measured inference services):
//! * **Plan to the queue, commit to the depth.** The batch is planned into the machine
//!   queues as deep as they go (their limit, `queue_size`), and of each machine's planned
//!   tasks only the first ones are committed, while the machine holds fewer than `depth`
//!   tasks ([`VirtualQueues::plan_ahead`]). The tasks planned deeper stay in the batch
//!   queue and are planned again at the next event. Capped at the depth, a fast machine
//!   always looks at most `depth` tasks away, so the slower machines stay idle while the
//!   batch waits for the fast ones; planned to the queue, a task goes to a slower machine
//!   when it does better there than behind the tasks planned ahead of it on the fast one.
//! * **PAM's two phases** (paper V-D1) in place of MM's: per task the machine of the highest
//!   chance of meeting its deadline, ties by the minimum expected completion time; of those
//!   pairs, the minimum expected completion time, ties by the shortest expected execution
//!   time. Behind the tasks on a fast machine a task's chance falls with every outlier that
//!   may come before it; on an idle slow machine it is the task's own.
//!
//! Step 3 (idle machines take deferred tasks) runs the same two phases. Its plan costs more
//! than `auto`'s where many machines and a long batch meet: a machine that frees is given a
//! task only once the plan, in its order, reaches one for it (docs/performance.md).

use model::{BatchHeuristic, Decision, TaskId, View, VirtualQueues};

use crate::plan::{Phase1, Phase1Scope, Phase2, Plan};
use crate::search::{Kept, run};

/// The default depth: the executing task and one waiting behind it.
pub const DEFAULT_DEPTH: usize = 2;

/// A deferred task goes to an idle machine when its chance there is above this: the paper's
/// drop threshold (HCW 2019, VII), so a task the pruner would keep.
pub const FILL_FLOOR: f64 = 0.5;

/// The recommended heuristic, and `lookahead` (see the module docs).
#[derive(Debug, Clone)]
pub struct Auto {
    plan: Plan,
    /// `None`: [`DEFAULT_DEPTH`], or the queue's limit with staging.
    depth: Option<usize>,
    /// `lookahead`: planned to the queues' limits, committed to the depth.
    lookahead: bool,
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
            lookahead: false,
            kept: Kept::default(),
        }
    }

    /// `lookahead` (module docs): PAM's two phases, planned to the queues' limits and
    /// committed to the depth given (`None`: the default).
    pub fn lookahead(scope: Phase1Scope, depth: Option<usize>) -> Self {
        Auto {
            plan: Plan {
                phase1: Phase1::MaxSuccess,
                phase2: Phase2::MinCompletion {
                    tie_by_execution: true,
                },
                scope,
            },
            depth,
            lookahead: true,
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

    /// The virtual queues it plans on: the view's, capped at the depth in force (`auto`), or
    /// planned to their limits with at most the depth committed on each machine
    /// (`lookahead`). `lazy` builds no tail CDF until one is read.
    fn queues<'a>(&self, view: &View<'a>, lazy: bool) -> VirtualQueues<'a> {
        let mut vq = if lazy {
            VirtualQueues::from_view_lazy(view)
        } else {
            VirtualQueues::from_view(view)
        };
        match self.depth(view) {
            Some(d) if self.lookahead => {
                let commit = view
                    .machines()
                    .iter()
                    .map(|m| d.saturating_sub(m.len()).min(m.free_slots()))
                    .collect();
                vq.plan_ahead(commit);
            }
            Some(d) => vq.limit_depth(d),
            None => {}
        }
        vq
    }

    /// The decisions by the plain reference loop ([`crate::reference`]): what
    /// [`BatchHeuristic::map`] must return, computed without any acceleration.
    pub fn map_reference(&self, view: &View<'_>) -> Decision {
        let mut decision = Decision::default();
        let mut vq = self.queues(view, false);
        crate::reference::run(view, self.plan, &mut vq, view.batch(), &mut decision);
        if self.lookahead {
            commit(&vq, &mut decision);
        }
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
        if self.lookahead { "lookahead" } else { "auto" }
    }

    fn reference_map(&self, view: &View<'_>) -> Option<Decision> {
        Some(Auto::map_reference(self, view))
    }

    fn map(&mut self, view: &View<'_>) -> Decision {
        let mut decision = Decision::default();
        // MinCompletion reads only expected tails: no tail CDF is built until one is read.
        let lazy = self.plan.phase1 == Phase1::MinCompletion;
        let mut vq = self.queues(view, lazy);
        run(
            view,
            self.plan,
            &mut vq,
            view.batch(),
            &mut decision,
            &mut self.kept,
        );
        if self.lookahead {
            commit(&vq, &mut decision);
        }
        fill_idle(view, self.plan, &mut decision, |v, plan, vq, cands, d| {
            run(v, plan, vq, cands, d, &mut Kept::default());
        });
        decision
    }
}
