//! The named batch heuristics, each a [`Plan`] for the shared two-phase loop.

use model::{BatchHeuristic, Decision, TaskId, View, VirtualQueues};

use crate::plan::{Phase1, Phase1Scope, Phase2, Plan};
use crate::search::{Kept, run};

/// A batch heuristic defined only by its two phases: MM, MSD, MMU, PAM, EDF, SJF.
#[derive(Debug, Clone)]
pub struct TwoPhase {
    name: &'static str,
    plan: Plan,
    /// Chances kept across mapping events.
    kept: Kept,
}

impl TwoPhase {
    /// MinCompletion-MinCompletion (thesis 3.3.1.1, paper VI-C1).
    pub fn mm(scope: Phase1Scope) -> Self {
        Self::new(
            "MM",
            Phase1::MinCompletion,
            Phase2::MinCompletion {
                tie_by_execution: false,
            },
            scope,
        )
    }
    /// MinCompletion-SoonestDeadline, ties by minimum expected completion (thesis 3.3.1.2).
    pub fn msd(scope: Phase1Scope) -> Self {
        Self::new("MSD", Phase1::MinCompletion, Phase2::SoonestDeadline, scope)
    }
    /// MinCompletion-MaxUrgency, `U = 1 / (delta - E[C])` (thesis 3.3.1.3, eq. 3.6).
    pub fn mmu(scope: Phase1Scope) -> Self {
        Self::new("MMU", Phase1::MinCompletion, Phase2::MaxUrgency, scope)
    }
    /// Pruning-Aware Mapper (thesis Algorithm 2, paper V-D1): phase 1 the machine of highest
    /// success probability (deferring at the pruner's threshold happens there), phase 2 the
    /// minimum expected completion time, ties by the shortest expected execution time.
    pub fn pam(scope: Phase1Scope) -> Self {
        Self::new(
            "PAM",
            Phase1::MaxSuccess,
            Phase2::MinCompletion {
                tie_by_execution: true,
            },
            scope,
        )
    }
    /// Earliest Deadline First for homogeneous systems (thesis 3.3.3.2): as MSD.
    pub fn edf(scope: Phase1Scope) -> Self {
        Self::new("EDF", Phase1::MinCompletion, Phase2::SoonestDeadline, scope)
    }
    /// Shortest Job First for homogeneous systems (thesis 3.3.3.3): the "job" is the
    /// completion time on the queue, so it is MM.
    pub fn sjf(scope: Phase1Scope) -> Self {
        Self::new(
            "SJF",
            Phase1::MinCompletion,
            Phase2::MinCompletion {
                tie_by_execution: false,
            },
            scope,
        )
    }

    /// A heuristic of your own as a plan: any phase-1 objective with any phase-2 criterion
    /// (e.g. maximum success probability, then soonest deadline), run by the same
    /// accelerated search as the named ones and deciding as [`crate::reference::run`].
    pub fn from_plan(name: &'static str, plan: Plan) -> Self {
        Self::new(name, plan.phase1, plan.phase2, plan.scope)
    }

    fn new(name: &'static str, phase1: Phase1, phase2: Phase2, scope: Phase1Scope) -> Self {
        TwoPhase {
            name,
            plan: Plan {
                phase1,
                phase2,
                scope,
            },
            kept: Kept::default(),
        }
    }
}

impl TwoPhase {
    /// The decisions of this heuristic by the plain reference loop ([`crate::reference`]):
    /// what [`BatchHeuristic::map`] must return, computed without any acceleration.
    pub fn map_reference(&self, view: &View<'_>) -> Decision {
        let mut decision = Decision::default();
        let mut vq = VirtualQueues::from_view(view);
        crate::reference::run(view, self.plan, &mut vq, view.batch(), &mut decision);
        decision
    }
}

impl BatchHeuristic for TwoPhase {
    fn name(&self) -> &str {
        self.name
    }

    fn reference_map(&self, view: &View<'_>) -> Option<Decision> {
        Some(TwoPhase::map_reference(self, view))
    }

    fn map(&mut self, view: &View<'_>) -> Decision {
        let mut decision = Decision::default();
        // MinCompletion reads only expected tails: no tail CDF is built until one is read.
        let mut vq = match self.plan.phase1 {
            Phase1::MinCompletion => VirtualQueues::from_view_lazy(view),
            Phase1::MaxSuccess => VirtualQueues::from_view(view),
        };
        run(
            view,
            self.plan,
            &mut vq,
            view.batch(),
            &mut decision,
            &mut self.kept,
        );
        decision
    }
}

/// Max On-time Completions (JPDC-2016 6.2.5, the original; thesis 3.3.1.4 describes it
/// differently and we follow JPDC):
/// 1. pending tasks in the machine queues whose success probability is below `alpha` are
///    dropped (walking each queue from the head, recomputing as tasks are dropped);
/// 2. unmapped tasks that cannot meet their deadline on any machine (even an idle one, after
///    the minimum time to stage their input data when staging is on) are discarded;
/// 3. per task the machine of highest success probability; per machine with a free slot the
///    tasks within `epsilon` of the best success probability on it; of those, the minimum
///    expected completion time is mapped; repeat.
#[derive(Debug, Clone)]
pub struct Moc {
    alpha: f64,
    epsilon: f64,
    scope: Phase1Scope,
    /// Chances kept across mapping events.
    kept: Kept,
}

impl Moc {
    /// MOC with culling threshold `alpha` (JPDC 0.2, thesis 0.3) and shortlist width
    /// `epsilon` (0.05).
    pub fn new(alpha: f64, epsilon: f64, scope: Phase1Scope) -> Self {
        Moc {
            alpha,
            epsilon,
            scope,
            kept: Kept::default(),
        }
    }
}

impl Moc {
    /// The decisions of MOC by the plain reference loop ([`crate::reference`]): what
    /// [`BatchHeuristic::map`] must return, computed without any acceleration.
    pub fn map_reference(&self, view: &View<'_>) -> Decision {
        let mut decision = Decision::default();
        let mut vq = VirtualQueues::from_view(view);
        let cands =
            crate::reference::moc_cull_and_discard(view, self.alpha, &mut vq, &mut decision);
        let plan = Plan {
            phase1: Phase1::MaxSuccess,
            phase2: Phase2::Shortlist {
                epsilon: self.epsilon,
            },
            scope: self.scope,
        };
        crate::reference::run(view, plan, &mut vq, &cands, &mut decision);
        decision
    }
}

impl BatchHeuristic for Moc {
    fn name(&self) -> &str {
        "MOC"
    }

    fn reference_map(&self, view: &View<'_>) -> Option<Decision> {
        Some(Moc::map_reference(self, view))
    }

    fn map(&mut self, view: &View<'_>) -> Decision {
        let mut decision = Decision::default();
        let mut vq = VirtualQueues::from_view(view);
        // Step 1: pending tasks whose chance is below alpha are dropped from the queues.
        crate::search::cull_below(view, self.alpha, &mut vq, &mut decision);
        // Step 2: tasks that cannot make their deadline on any machine leave the batch.
        let cands = discard_impossible(view, &mut decision);
        // Step 3: the best-chance machine per task; per machine the tasks within epsilon of
        // the best chance on it; of those, the minimum expected completion time.
        let plan = Plan {
            phase1: Phase1::MaxSuccess,
            phase2: Phase2::Shortlist {
                epsilon: self.epsilon,
            },
            scope: self.scope,
        };
        run(view, plan, &mut vq, &cands, &mut decision, &mut self.kept);
        decision
    }
}

/// MOC's step 2 (JPDC-2016 6.2.5): the batch tasks that cannot meet their deadline on any
/// machine, even idle and with the minimum time to stage their input data, are discarded;
/// returns the others, in batch order.
pub(crate) fn discard_impossible(view: &View<'_>, decision: &mut Decision) -> Vec<TaskId> {
    let mut cands: Vec<TaskId> = Vec::with_capacity(view.batch().len());
    for &t in view.batch() {
        let spec = view.task(t);
        let fastest = (0..view.machines().len())
            .map(|m| view.pet().pmf(spec.task_type, m).min())
            .min()
            .unwrap_or(0);
        let staging = view.staging().map_or(0, |st| st.min_ticks(t));
        if view.now() + staging + fastest >= spec.deadline {
            decision.discard.push(t);
        } else {
            cands.push(t);
        }
    }
    cands
}
