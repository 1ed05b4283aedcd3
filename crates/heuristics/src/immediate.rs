//! Immediate-mode heuristics (thesis 3.3.2, JPDC-2016 6.1): each arriving task is mapped at
//! once to an unbounded machine queue.

use model::{ImmediateHeuristic, Known, MachineId, TaskId, View};

pub mod reference;

/// Index of the minimum of `f` over `ms` (ties: the first).
fn argmin(ms: impl Iterator<Item = MachineId>, mut f: impl FnMut(MachineId) -> f64) -> MachineId {
    let mut best = (0, f64::INFINITY);
    let mut first = true;
    for m in ms {
        let v = f(m);
        if first || v < best.1 {
            best = (m, v);
            first = false;
        }
    }
    best.0
}

/// The first of `ms` (in their order) with the minimum expected tail plus `offset(m)` (the
/// expected completion `E[tail PCT] + E[PET]` of MCT and KPB, the tail alone for FCFS): what
/// [`argmin`] over `view.tail_mean(m) + offset(m)` returns, computing fewer tails. Machines
/// whose PCTs at the tick are computed, or which have no earlier PCTs, are read exactly;
/// the others, in increasing order of the lower bound on their expected tail
/// ([`View::tail_mean_known`]), until that bound puts one above the best so far by more
/// than a slack far above rounding (then it and the rest can neither win nor tie).
fn min_expected(view: &View<'_>, ms: &[MachineId], offset: impl Fn(MachineId) -> f64) -> MachineId {
    let mut best: Option<(f64, usize)> = None;
    let consider = |i: usize, v: f64, best: &mut Option<(f64, usize)>| {
        if best.is_none_or(|(b, bi)| v < b || (v == b && i < bi)) {
            *best = Some((v, i));
        }
    };
    // Exact first: the machines computed already, then those without earlier PCTs (they
    // must be computed anyway); then the others by increasing lower bound, until one is
    // above the best.
    let mut bounded: Vec<(f64, usize)> = Vec::with_capacity(ms.len());
    for (i, &m) in ms.iter().enumerate() {
        match view.tail_mean_known(m) {
            Known::AtLeast(lower) => bounded.push((lower + offset(m), i)),
            Known::Exact(mean) => consider(i, mean + offset(m), &mut best),
            _ => consider(i, view.tail_mean(m) + offset(m), &mut best),
        }
    }
    bounded.sort_unstable_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)));
    for (lower, i) in bounded {
        if let Some((b, _)) = best {
            if lower > b + MEAN_SLACK * b.abs().max(1.0) {
                break;
            }
        }
        consider(i, view.tail_mean(ms[i]) + offset(ms[i]), &mut best);
    }
    best.map_or(0, |(_, i)| ms[i])
}

/// Relative slack when a machine is passed over by a lower bound on its expected tail.
const MEAN_SLACK: f64 = pmf::prec::DECISION_SLACK;

/// Slack when a machine is passed over by an upper bound on its chance.
const CHANCE_SLACK: f64 = pmf::prec::DECISION_SLACK;

/// The `k`-percent machines with the best expected execution times for `t`: `round(k M)`
/// machines, at least one (JPDC-2016: 50% = 4 of 8, 62% = 5 of 8). Ties by machine index.
fn k_best(view: &View<'_>, t: TaskId, k: f64) -> Vec<MachineId> {
    let ty = view.task(t).task_type;
    let m_count = view.machines().len();
    let mut ms: Vec<MachineId> = (0..m_count).collect();
    ms.sort_by(|&a, &b| {
        view.pet()
            .mean(ty, a)
            .total_cmp(&view.pet().mean(ty, b))
            .then(a.cmp(&b))
    });
    let keep = ((k * m_count as f64).round() as usize).clamp(1, m_count.max(1));
    ms.truncate(keep);
    ms
}

/// First Come First Served (thesis 3.3.2.1): machine 0 is checked, then 1, ...: the first
/// idle machine with an empty queue takes the task; when none is, the machine whose queue
/// is expected to free first (minimum expected tail completion) does.
#[derive(Debug, Clone, Copy, Default)]
pub struct Fcfs;

impl ImmediateHeuristic for Fcfs {
    fn name(&self) -> &str {
        "FCFS"
    }
    fn reference_choose(&self, view: &View<'_>, _task: TaskId) -> Option<MachineId> {
        Some(reference::fcfs(view))
    }
    fn choose(&mut self, view: &View<'_>, _task: TaskId) -> MachineId {
        if let Some(m) = view.machines().iter().position(|m| m.is_empty()) {
            return m;
        }
        let all: Vec<MachineId> = (0..view.machines().len()).collect();
        min_expected(view, &all, |_| 0.0)
    }
}

/// Minimum Expected Execution Time, MET/MEET (thesis 3.3.2.2, JPDC-2016 eq. 6).
#[derive(Debug, Clone, Copy, Default)]
pub struct Met;

impl ImmediateHeuristic for Met {
    fn name(&self) -> &str {
        "MET"
    }
    fn reference_choose(&self, view: &View<'_>, task: TaskId) -> Option<MachineId> {
        Some(reference::met(view, task))
    }
    fn choose(&mut self, view: &View<'_>, task: TaskId) -> MachineId {
        let ty = view.task(task).task_type;
        argmin(0..view.machines().len(), |m| view.pet().mean(ty, m))
    }
}

/// Minimum Expected Completion Time, MCT/MECT (thesis 3.3.2.3, JPDC-2016 6.1.1).
#[derive(Debug, Clone, Copy, Default)]
pub struct Mct;

impl ImmediateHeuristic for Mct {
    fn name(&self) -> &str {
        "MCT"
    }
    fn reference_choose(&self, view: &View<'_>, task: TaskId) -> Option<MachineId> {
        Some(reference::mct(view, task))
    }
    fn choose(&mut self, view: &View<'_>, task: TaskId) -> MachineId {
        let ty = view.task(task).task_type;
        let all: Vec<MachineId> = (0..view.machines().len()).collect();
        min_expected(view, &all, |m| view.pet().mean(ty, m))
    }
}

/// K-Percent Best (thesis 3.3.2.4, JPDC-2016 6.1.3): MCT among the `k` share of machines
/// with the best expected execution time.
#[derive(Debug, Clone, Copy)]
pub struct Kpb {
    /// The share of machines considered, in (0, 1].
    pub k: f64,
}

impl ImmediateHeuristic for Kpb {
    fn name(&self) -> &str {
        "KPB"
    }
    fn reference_choose(&self, view: &View<'_>, task: TaskId) -> Option<MachineId> {
        Some(reference::kpb(view, task, self.k))
    }
    fn choose(&mut self, view: &View<'_>, task: TaskId) -> MachineId {
        let ty = view.task(task).task_type;
        min_expected(view, &k_best(view, task, self.k), |m| {
            view.pet().mean(ty, m)
        })
    }
}

/// The completion-time PMF of `spec` appended to machine `m`'s queue, with dropping taken into
/// account (paper eqs. 2-5 under the view's drop model).
fn appended_pct(view: &View<'_>, m: MachineId, spec: &model::TaskSpec) -> pmf::Pmf {
    let pet = view.pet().exec_pmf(spec.task_type, m);
    match view.tail_pct(m) {
        Some(tail) => pmf::next_pct(tail, pet, spec.deadline, view.model()),
        None => pmf::next_pct(
            &pmf::Pmf::point(view.now()),
            pet,
            spec.deadline,
            view.model(),
        ),
    }
    .unwrap_or_else(|e| panic!("a completion-time PMF too wide to hold: {e}"))
}

/// MaxRobust (thesis 3.3.2.5, JPDC-2016 6.1.4): among the `k` best machines, the one that
/// maximises the system's total robustness rho (eqs. 1-2) with the task appended; since
/// appending changes no other task's chance, that is the machine where the task's own
/// success probability is highest. Among machines within `epsilon` of the best, the one whose
/// completion-time PMF (with dropping, as the success probability reads it) has the smallest
/// variance.
#[derive(Debug, Clone, Copy)]
pub struct MaxRobust {
    /// The share of machines considered.
    pub k: f64,
    /// Width of the near-best set.
    pub epsilon: f64,
}

impl ImmediateHeuristic for MaxRobust {
    fn name(&self) -> &str {
        "MR"
    }
    fn reference_choose(&self, view: &View<'_>, task: TaskId) -> Option<MachineId> {
        Some(reference::max_robust(view, task, *self))
    }
    /// JPDC-2016 6.1.4, step by step:
    /// 1. the candidates: the `k` share of machines with the best expected execution time of
    ///    the task's type (KPB's set);
    /// 2. on each, the task's success probability appended to its queue (eq. 1), whose
    ///    highest value `P*` maximises the system's robustness rho (eq. 2);
    /// 3. the near-best set: the candidates whose chance is at least `P* - epsilon`;
    /// 4. of those, the least variance of the task's completion-time PMF with dropping (eqs.
    ///    2-5), ties to the first candidate in the order of step 1.
    ///
    /// Steps 2 and 3 read fewer chances than they name (a chance is first bounded from earlier
    /// PCTs, [`View::append_success_known`], and read when the bound can matter); the choice is
    /// [`reference::max_robust`]'s, which reads them all.
    fn choose(&mut self, view: &View<'_>, task: TaskId) -> MachineId {
        let cands = k_best(view, task, self.k);
        let mut chances = Chances::new(view, task, &cands);
        let best = chances.highest();
        let near = chances.at_least(best - self.epsilon);
        argmin(near, |m| appended_pct(view, m, view.task(task)).variance())
    }
}

/// The chances of one task appended to each of MaxRobust's candidates, read when they can
/// matter. A candidate whose PCTs at the tick are computed is read at once; one whose PCTs
/// are not computed but whose earlier ones are kept starts as an upper bound on its chance
/// (at most `r` times the one on the earlier tail, [`View::append_success_known`]) and is
/// read only when that bound can reach the value asked about, with a slack far above
/// rounding ([`CHANCE_SLACK`]).
struct Chances<'c, 'v, 'a> {
    view: &'v View<'a>,
    task: TaskId,
    cands: &'c [MachineId],
    /// Per candidate: its chance when read (`true`), else an upper bound on it.
    chance: Vec<(f64, bool)>,
}

impl<'c, 'v, 'a> Chances<'c, 'v, 'a> {
    fn new(view: &'v View<'a>, task: TaskId, cands: &'c [MachineId]) -> Self {
        let chance = cands
            .iter()
            .map(|&m| match view.append_success_known(task, m) {
                Known::AtMost(upper) => (upper, false),
                Known::Exact(p) => (p, true),
                _ => (view.append_success(task, m), true),
            })
            .collect();
        Chances {
            view,
            task,
            cands,
            chance,
        }
    }

    /// Reads candidate `i`'s chance.
    fn read(&mut self, i: usize) -> f64 {
        let p = self.view.append_success(self.task, self.cands[i]);
        self.chance[i] = (p, true);
        p
    }

    /// `P*`, the highest chance of any candidate: the best of those read, then the bounded
    /// ones read by decreasing bound while their bound can reach the best so far.
    fn highest(&mut self) -> f64 {
        let mut best = self
            .chance
            .iter()
            .filter(|c| c.1)
            .map(|c| c.0)
            .fold(f64::NEG_INFINITY, f64::max);
        let mut bounded: Vec<usize> = (0..self.cands.len())
            .filter(|&i| !self.chance[i].1)
            .collect();
        bounded.sort_unstable_by(|&a, &b| {
            self.chance[b]
                .0
                .total_cmp(&self.chance[a].0)
                .then(a.cmp(&b))
        });
        for i in bounded {
            if self.chance[i].0 + CHANCE_SLACK < best {
                break;
            }
            best = best.max(self.read(i));
        }
        best
    }

    /// The candidates whose chance is at least `floor`, in their order: the bounded ones
    /// whose bound can reach it read first.
    fn at_least(&mut self, floor: f64) -> impl Iterator<Item = MachineId> + '_ {
        for i in 0..self.cands.len() {
            let (p, read) = self.chance[i];
            if !read && p + CHANCE_SLACK >= floor {
                self.read(i);
            }
        }
        self.cands
            .iter()
            .zip(&self.chance)
            .filter(move |&(_, &(p, read))| read && p >= floor)
            .map(|(&m, _)| m)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use model::{Machine, TaskSpec};
    use pmf::{DropModel, Pmf};

    /// MaxRobust breaks a near-tie by the variance of the completion-time PMF with dropping
    /// (JPDC-2016 6.1.4), not of the plain sum of the queue and the execution time.
    #[test]
    fn max_robust_breaks_ties_by_the_variance_with_dropping() {
        // One task due at 10 on two idle machines; either way its chance is 1/2.
        // Machine 0: 6 or 100 ticks. With the drop at the deadline it completes at 6 or 10
        // (variance 4); the plain variance is 2209.
        // Machine 1: 4 or 12 ticks: completes at 4 or 10 (variance 9); plain variance 16.
        let m0 = Pmf::new(
            6,
            (0..95)
                .map(|i| if i == 0 || i == 94 { 0.5 } else { 0.0 })
                .collect(),
        )
        .unwrap();
        let m1 = Pmf::new(
            4,
            (0..9)
                .map(|i| if i == 0 || i == 8 { 0.5 } else { 0.0 })
                .collect(),
        )
        .unwrap();
        let pet = workload::Pet::new(
            ndarray::Array2::from_shape_vec((1, 2), vec![m0, m1]).unwrap(),
            vec!["t0".into()],
            vec!["m0".into(), "m1".into()],
        )
        .unwrap();
        let tasks = [TaskSpec {
            id: 0,
            task_type: 0,
            arrival: 0,
            deadline: 10,
        }];
        let machines = [Machine::new(0, None), Machine::new(1, None)];
        let mut oracle = model::Oracle::new(2);
        oracle.sync(&machines, 0);
        let view = View::new(0, &pet, &tasks, &[0], &machines, &oracle, DropModel::All);
        let mut mr = MaxRobust {
            k: 1.0,
            epsilon: 0.05,
        };
        assert_eq!(mr.choose(&view, 0), 0);
        // Where nothing is dropped the completion times are the plain ones: machine 1.
        let view = View::new(0, &pet, &tasks, &[0], &machines, &oracle, DropModel::None);
        assert_eq!(mr.choose(&view, 0), 1);
    }
}
