//! Generators and the slow reference scheduler shared by the tests.

use bound::{BoundOptions, Instance, Placement, WindowFamily};
use ndarray::Array2;
use pmf::Tick;
use proptest::prelude::*;

/// Slack for comparing LP values (they come from a simplex with 1e-7 feasibility).
pub(crate) const LP_EPS: f64 = 1e-6;

/// Every option set the tests compare, loosest first (each adds constraints to the one
/// before, so each bound is at most the previous one).
pub(crate) fn families() -> Vec<(&'static str, BoundOptions)> {
    let base = BoundOptions::default();
    vec![
        ("none", base.with_windows(WindowFamily::None)),
        ("capacity", base),
        (
            "intervals<=6",
            base.with_windows(WindowFamily::Intervals { max_len: Some(6) }),
        ),
        (
            "intervals<=20",
            base.with_windows(WindowFamily::Intervals { max_len: Some(20) }),
        ),
        ("intervals", BoundOptions::tight()),
        (
            "energetic",
            BoundOptions {
                energetic: true,
                ..BoundOptions::tight()
            },
        ),
    ]
}

/// A tiny random instance: `n` tasks in arrival order, `m` machines, a random counted range.
pub(crate) fn tiny_instance(
    max_tasks: usize,
    max_machines: usize,
) -> impl Strategy<Value = Instance> {
    (1..=max_tasks, 1..=max_machines)
        .prop_flat_map(|(n, m)| {
            (
                proptest::collection::vec((0..25i64, 1..30i64), n),
                proptest::collection::vec(0..14i64, n * m),
                0..=n,
                0..=n,
                Just(m),
            )
        })
        .prop_map(|(times, exec, c0, c1, m)| {
            let n = times.len();
            let mut arrivals: Vec<Tick> = times.iter().map(|t| t.0).collect();
            arrivals.sort_unstable();
            let deadline = arrivals.iter().zip(&times).map(|(a, t)| a + t.1).collect();
            let exec = Array2::from_shape_vec((n, m), exec).expect("n x m values");
            let (lo, hi) = (c0.min(c1), c0.max(c1));
            Instance::new(arrivals, deadline, exec, lo..hi).expect("a valid instance")
        })
}

/// The slow, obviously correct optimum: every assignment of every task (counted or not) to a
/// machine or to none, every order on each machine, each task started as early as its
/// arrival and the previous task allow; the best count of on-time counted tasks.
pub(crate) fn brute_force(inst: &Instance) -> usize {
    let n = inst.n_tasks();
    let m = inst.n_machines();
    let mut assign = vec![usize::MAX; n];
    let mut best = 0;
    fn machine_ok(inst: &Instance, j: usize, tasks: &[usize]) -> bool {
        let mut order = tasks.to_vec();
        permutations_any(&mut order, 0, &mut |o| {
            let mut t = Tick::MIN;
            o.iter().all(|&k| {
                let c = t.max(inst.arrival[k]) + inst.exec[[k, j]];
                t = c;
                c < inst.deadline[k]
            })
        })
    }
    fn permutations_any(v: &mut [usize], i: usize, f: &mut dyn FnMut(&[usize]) -> bool) -> bool {
        if i == v.len() {
            return f(v);
        }
        for s in i..v.len() {
            v.swap(i, s);
            if permutations_any(v, i + 1, f) {
                v.swap(i, s);
                return true;
            }
            v.swap(i, s);
        }
        false
    }
    fn go(inst: &Instance, k: usize, m: usize, assign: &mut [usize], best: &mut usize) {
        if k == assign.len() {
            let all_ok = (0..m).all(|j| {
                let tasks: Vec<usize> = (0..assign.len()).filter(|&t| assign[t] == j).collect();
                machine_ok(inst, j, &tasks)
            });
            if all_ok {
                let c = inst
                    .counted
                    .clone()
                    .filter(|&t| assign[t] != usize::MAX)
                    .count();
                *best = (*best).max(c);
            }
            return;
        }
        for j in (0..m).chain([usize::MAX]) {
            assign[k] = j;
            go(inst, k + 1, m, assign, best);
        }
        assign[k] = usize::MAX;
    }
    go(inst, 0, m, &mut assign, &mut best);
    best
}

/// The tests' own check of a schedule, written apart from the library's: `None` when a task
/// is placed twice or on no machine, starts before its arrival, completes at or after its
/// deadline, or shares a tick of its run with another task's run on its machine (a task of
/// zero length occupies its start tick); else the number of counted tasks placed.
pub(crate) fn feasible_count(inst: &Instance, schedule: &[Placement]) -> Option<usize> {
    let mut placed = vec![false; inst.n_tasks()];
    // Per machine, the ticks in use: [start, end) of each task, a zero-length task at
    // [start, start] as a point that may touch but not cut a run.
    let mut runs: Vec<Vec<(Tick, Tick)>> = vec![Vec::new(); inst.n_machines()];
    for p in schedule {
        if p.task >= inst.n_tasks() || p.machine >= inst.n_machines() || placed[p.task] {
            return None;
        }
        placed[p.task] = true;
        let end = p.start + inst.exec[[p.task, p.machine]];
        if p.start < inst.arrival[p.task] || end >= inst.deadline[p.task] {
            return None;
        }
        runs[p.machine].push((p.start, end));
    }
    for r in &runs {
        for (i, &(s0, e0)) in r.iter().enumerate() {
            for &(s1, e1) in &r[i + 1..] {
                // Runs [s0, e0) and [s1, e1) overlap; a point s inside (s0, e0) cuts it.
                let cut = |s: Tick, a: Tick, e: Tick| a < s && s < e;
                let overlap = s0 < e1 && s1 < e0;
                let point = (s0 == e0 && cut(s0, s1, e1)) || (s1 == e1 && cut(s1, s0, e0));
                let same_start = s0 == s1 && s0 < e0 && s1 < e1;
                if overlap || point || same_start {
                    return None;
                }
            }
        }
    }
    Some(inst.counted.clone().filter(|&k| placed[k]).count())
}
