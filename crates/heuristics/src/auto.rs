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
//! 3. Deferring is work-conserving: a machine that would stay idle after steps 1-2 (nothing
//!    executing, queued or assigned) takes a deferred task whose chance on it is above
//!    [`FILL_FLOOR`] (deferred tasks in batch order, each to the idle machine of its
//!    highest chance). Deferring keeps a machine's time for a task likelier to succeed; an
//!    idle machine has no such use for it. This matters where a task type cannot reach the
//!    defer threshold at all, even on an idle machine: execution times with a slow mode or
//!    a heavy tail that a deadline cuts (a bimodal type that takes 5x longer one time in
//!    five has a chance of at most 0.8), whose tasks fixed thresholds defer until they
//!    expire however idle the system is.
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

use model::{BatchHeuristic, Decision, MachineId, View, VirtualQueues};

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
            None if view.staging.is_some() => None,
            None => Some(DEFAULT_DEPTH),
        }
    }

    /// The virtual queues it maps into: the view's, capped at the depth in force.
    fn queues<'a>(&self, view: &View<'a>, lazy: bool) -> VirtualQueues<'a> {
        let mut vq = if lazy {
            VirtualQueues::from_view_lazy(view)
        } else {
            VirtualQueues::from_view(view)
        };
        if let Some(d) = self.depth(view) {
            vq.limit_depth(d);
        }
        vq
    }

    /// The decisions by the plain reference loop ([`crate::reference`]): what
    /// [`BatchHeuristic::map`] must return, computed without any acceleration.
    pub fn map_reference(&self, view: &View<'_>) -> Decision {
        let mut decision = Decision::default();
        let mut vq = self.queues(view, false);
        crate::reference::run(view, self.plan, &mut vq, view.batch, &mut decision);
        fill_idle(view, &mut decision);
        decision
    }
}

/// Work-conserving deferring: a machine that would stay idle after the decision (nothing
/// executing, queued or assigned) takes a deferred task rather than nothing. The deferred
/// tasks are taken in batch order, each to the idle machine of its highest chance (chances
/// within the decision slack tie, and go to the lower index) when that chance is above
/// [`FILL_FLOOR`]; the task leaves the deferred
/// list.
fn fill_idle(view: &View<'_>, decision: &mut Decision) {
    if decision.deferred.is_empty() {
        return;
    }
    let mut idle: Vec<MachineId> = (0..view.machines.len())
        .filter(|&m| view.machines[m].is_empty() && view.machines[m].free_slots() > 0)
        .filter(|&m| decision.assign.iter().all(|&(_, x)| x != m))
        .collect();
    if idle.is_empty() {
        return;
    }
    let mut deferred = std::mem::take(&mut decision.deferred);
    deferred.sort_unstable();
    for t in deferred {
        // The highest chance, then the first idle machine (lowest index) that ties with it
        // (`plan`'s tie rule).
        let chances: Vec<f64> = idle.iter().map(|&m| view.append_success(t, m)).collect();
        let top = chances.iter().copied().fold(f64::NEG_INFINITY, f64::max);
        let best = chances
            .iter()
            .position(|&p| pmf::prec::chance_ties(p, top))
            .map(|i| (i, chances[i]));
        match best {
            Some((i, p)) if p > FILL_FLOOR => {
                decision.assign.push((t, idle.remove(i)));
            }
            _ => decision.deferred.push(t),
        }
    }
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
            view.batch,
            &mut decision,
            &mut self.kept,
        );
        fill_idle(view, &mut decision);
        decision
    }
}
