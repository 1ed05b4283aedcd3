//! Immediate-mode heuristics (thesis 3.3.2, JPDC-2016 6.1): each arriving task is mapped at
//! once to an unbounded machine queue.

use model::{ImmediateHeuristic, Known, MachineId, TaskId, View};

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
    let m_count = view.machines.len();
    let mut ms: Vec<MachineId> = (0..m_count).collect();
    ms.sort_by(|&a, &b| {
        view.pet
            .mean(ty, a)
            .total_cmp(&view.pet.mean(ty, b))
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
    fn choose(&mut self, view: &View<'_>, _task: TaskId) -> MachineId {
        if let Some(m) = view.machines.iter().position(|m| m.is_empty()) {
            return m;
        }
        let all: Vec<MachineId> = (0..view.machines.len()).collect();
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
    fn choose(&mut self, view: &View<'_>, task: TaskId) -> MachineId {
        let ty = view.task(task).task_type;
        argmin(0..view.machines.len(), |m| view.pet.mean(ty, m))
    }
}

/// Minimum Expected Completion Time, MCT/MECT (thesis 3.3.2.3, JPDC-2016 6.1.1).
#[derive(Debug, Clone, Copy, Default)]
pub struct Mct;

impl ImmediateHeuristic for Mct {
    fn name(&self) -> &str {
        "MCT"
    }
    fn choose(&mut self, view: &View<'_>, task: TaskId) -> MachineId {
        let ty = view.task(task).task_type;
        let all: Vec<MachineId> = (0..view.machines.len()).collect();
        min_expected(view, &all, |m| view.pet.mean(ty, m))
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
    fn choose(&mut self, view: &View<'_>, task: TaskId) -> MachineId {
        let ty = view.task(task).task_type;
        min_expected(view, &k_best(view, task, self.k), |m| view.pet.mean(ty, m))
    }
}

/// The completion-time PMF of `spec` appended to machine `m`'s queue, with dropping taken into
/// account (paper eqs. 2-5 under the view's drop model).
fn appended_pct(view: &View<'_>, m: MachineId, spec: &model::TaskSpec) -> pmf::Pmf {
    let pet = view.pet.exec_pmf(spec.task_type, m);
    match view.tail_pct(m) {
        Some(tail) => pmf::next_pct(tail, pet, spec.deadline, view.model),
        None => pmf::next_pct(&pmf::Pmf::point(view.now), pet, spec.deadline, view.model),
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
    /// The choice of computing every candidate's chance, computing fewer: a candidate whose
    /// PCTs at the tick are not computed but whose earlier ones are kept is first bounded by
    /// them (its chance is at most `r` times the one on the earlier tail,
    /// [`View::append_success_known`]); such candidates are computed by decreasing bound while the bound can
    /// reach the best chance, and afterwards only when the bound can reach `best - epsilon`
    /// (the near-best set, whose variances are read), with a slack far above rounding.
    fn choose(&mut self, view: &View<'_>, task: TaskId) -> MachineId {
        let spec = view.task(task);
        let cands = k_best(view, task, self.k);
        let pet = |m: MachineId| view.pet.exec_pmf(spec.task_type, m);
        let exact = |m: MachineId| view.tail(m).append_success(pet(m), spec.deadline);
        // Per candidate: its chance when read, else an upper bound on it.
        let mut succ: Vec<(f64, bool)> = cands
            .iter()
            .map(|&m| match view.append_success_known(task, m) {
                Known::AtMost(upper) => (upper, false),
                Known::Exact(p) => (p, true),
                _ => (exact(m), true),
            })
            .collect();
        let mut best = succ
            .iter()
            .filter(|s| s.1)
            .map(|s| s.0)
            .fold(f64::NEG_INFINITY, f64::max);
        let mut bounded: Vec<usize> = (0..cands.len()).filter(|&i| !succ[i].1).collect();
        bounded.sort_unstable_by(|&a, &b| succ[b].0.total_cmp(&succ[a].0).then(a.cmp(&b)));
        for &i in &bounded {
            if succ[i].0 + CHANCE_SLACK < best {
                break;
            }
            succ[i] = (exact(cands[i]), true);
            best = best.max(succ[i].0);
        }
        let floor = best - self.epsilon;
        for (s, &m) in succ.iter_mut().zip(&cands) {
            if !s.1 && s.0 + CHANCE_SLACK >= floor {
                *s = (exact(m), true);
            }
        }
        let near = cands
            .iter()
            .zip(&succ)
            .filter(|&(_, &(s, read))| read && s >= floor)
            .map(|(&m, _)| m);
        argmin(near, |m| appended_pct(view, m, spec).variance())
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
        let view = View {
            now: 0,
            pet: &pet,
            tasks: &tasks,
            batch: &[0],
            machines: &machines,
            oracle: &oracle,
            model: DropModel::All,
            defer: None,
            staging: None,
        };
        let mut mr = MaxRobust {
            k: 1.0,
            epsilon: 0.05,
        };
        assert_eq!(mr.choose(&view, 0), 0);
        // Where nothing is dropped the completion times are the plain ones: machine 1.
        let view = View {
            model: DropModel::None,
            ..view
        };
        assert_eq!(mr.choose(&view, 0), 1);
    }
}

/// The plain definitions of the immediate heuristics, reading only exact values: what their
/// [`ImmediateHeuristic::choose`] must return (property tests compare them; the heuristics
/// skip machines by bounds from earlier PMFs, which must never change the choice).
pub mod reference {
    use super::{MaxRobust, appended_pct, argmin, k_best};
    use model::{MachineId, TaskId, View};

    /// FCFS: the first empty machine, else the minimum expected tail (ties: lower index).
    pub fn fcfs(view: &View<'_>) -> MachineId {
        match view.machines.iter().position(model::Machine::is_empty) {
            Some(m) => m,
            None => argmin(0..view.machines.len(), |m| view.tail_mean(m)),
        }
    }

    /// MCT: the minimum expected completion time `E[tail] + E[PET]` (ties: lower index).
    pub fn mct(view: &View<'_>, t: TaskId) -> MachineId {
        let ty = view.task(t).task_type;
        argmin(0..view.machines.len(), |m| {
            view.tail_mean(m) + view.pet.mean(ty, m)
        })
    }

    /// KPB: MCT among the `k` share of machines with the best expected execution time.
    pub fn kpb(view: &View<'_>, t: TaskId, k: f64) -> MachineId {
        let ty = view.task(t).task_type;
        argmin(k_best(view, t, k).into_iter(), |m| {
            view.tail_mean(m) + view.pet.mean(ty, m)
        })
    }

    /// MaxRobust: among the `k` best machines, those within `epsilon` of the highest success
    /// probability; of those, the smallest variance of the completion time with dropping.
    pub fn max_robust(view: &View<'_>, t: TaskId, mr: MaxRobust) -> MachineId {
        let spec = view.task(t);
        let cands = k_best(view, t, mr.k);
        let chance = |m: MachineId| {
            view.tail(m)
                .append_success(view.pet.exec_pmf(spec.task_type, m), spec.deadline)
        };
        let best = cands
            .iter()
            .map(|&m| chance(m))
            .fold(f64::NEG_INFINITY, f64::max);
        let near = cands
            .iter()
            .copied()
            .filter(|&m| chance(m) >= best - mr.epsilon);
        argmin(near, |m| appended_pct(view, m, spec).variance())
    }
}
