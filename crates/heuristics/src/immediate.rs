//! Immediate-mode heuristics (thesis 3.3.2, JPDC-2016 6.1): each arriving task is mapped at
//! once to an unbounded machine queue.

use model::{ImmediateHeuristic, MachineId, TaskId, View};
use pmf::Pmf;

/// Expected completion of appending `t` to machine `m`: `E[tail PCT] + E[PET]` (the tail's
/// CDF is not built).
fn ect(view: &View<'_>, m: MachineId, t: TaskId) -> f64 {
    let ty = view.task(t).task_type;
    view.tail_mean(m) + view.pet.mean(ty, m)
}

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
        argmin(0..view.machines.len(), |m| view.tail_mean(m))
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
        argmin(0..view.machines.len(), |m| ect(view, m, task))
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
        argmin(k_best(view, task, self.k).into_iter(), |m| {
            ect(view, m, task)
        })
    }
}

/// MaxRobust (thesis 3.3.2.5, JPDC-2016 6.1.4): among the `k` best machines, the one that
/// maximises the system's total robustness rho (eqs. 1-2) with the task appended; since
/// appending changes no other task's chance, that is the machine where the task's own
/// success probability is highest. Among machines within `epsilon` of the best, the one whose
/// completion-time PMF has the smallest variance.
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
    fn choose(&mut self, view: &View<'_>, task: TaskId) -> MachineId {
        let spec = view.task(task);
        let cands = k_best(view, task, self.k);
        let succ: Vec<f64> = cands
            .iter()
            .map(|&m| {
                view.tail(m)
                    .append_success(view.pet.pmf(spec.task_type, m), spec.deadline)
            })
            .collect();
        let best = succ.iter().copied().fold(f64::NEG_INFINITY, f64::max);
        let near = cands
            .iter()
            .zip(&succ)
            .filter(|&(_, &s)| s >= best - self.epsilon)
            .map(|(&m, _)| m);
        argmin(near, |m| {
            view.tail_pct(m).map_or(0.0, Pmf::variance) + view.pet.pmf(spec.task_type, m).variance()
        })
    }
}
