//! Cheap combinatorial bounds, for comparison with the LP.

use crate::instance::Instance;

/// The counted tasks that can be on time on at least one machine
/// (`arrival + exec < deadline` there), in index order.
pub fn eligible_tasks(inst: &Instance) -> Vec<usize> {
    inst.counted
        .clone()
        .filter(|&k| (0..inst.n_machines()).any(|j| inst.can_be_on_time(k, j)))
        .collect()
}

/// The trivial bound: the number of counted tasks that can be on time on some machine when
/// they have it to themselves.
pub fn trivial_bound(inst: &Instance) -> usize {
    eligible_tasks(inst).len()
}

/// The capacity bound: every on-time task runs inside `[A, E]`, `A` the earliest arrival and
/// `E` the latest latest-completion of the eligible counted tasks, and uses at least its
/// shortest time over the machines where it can be on time, `q_k = min_j p_kj`. So the
/// on-time set satisfies `sum q_k <= m (E - A)`, and its size is at most the largest `c` such
/// that the `c` smallest `q_k` fit: a greedy count, no LP.
pub fn capacity_bound(inst: &Instance) -> usize {
    let eligible = eligible_tasks(inst);
    let (Some(start), Some(end)) = (
        eligible.iter().map(|&k| inst.arrival[k]).min(),
        eligible.iter().map(|&k| inst.latest_completion(k)).max(),
    ) else {
        return 0;
    };
    let capacity = i128::from(end - start) * inst.n_machines() as i128;
    let mut q: Vec<i64> = eligible
        .iter()
        .filter_map(|&k| {
            (0..inst.n_machines())
                .filter(|&j| inst.can_be_on_time(k, j))
                .map(|j| inst.exec[[k, j]])
                .min()
        })
        .collect();
    q.sort_unstable();
    let mut used: i128 = 0;
    let mut count = 0;
    for t in q {
        used += i128::from(t);
        if used > capacity {
            break;
        }
        count += 1;
    }
    count
}
