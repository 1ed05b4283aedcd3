//! The exact clairvoyant optimum of tiny instances, for tests of the bound.

use pmf::Tick;

use crate::cheap::eligible_tasks;
use crate::error::BoundError;
use crate::instance::Instance;

/// The largest number of eligible counted tasks [`exact_small`] enumerates (its time grows
/// as `machines x 3^n`).
pub const MAX_EXACT_TASKS: usize = 12;

/// The most counted tasks any scheduler that knows the realised times can finish on time.
///
/// Exact by dynamic programming over subsets. Tasks outside the counted range are left
/// out: removing tasks from a feasible schedule keeps it feasible, so they can never help a
/// counted task. On one machine, `f(S)`, the earliest completion of a feasible non-preemptive
/// sequence of the set `S` (each task started at the later of its arrival and the previous
/// completion, and completing strictly before its deadline), is
/// `min over k in S with f(S - k) finite and c = max(f(S - k), a_k) + p_k < D_k of c`:
/// the last task of an optimal sequence is some `k`, and an earlier completion of the rest
/// never hurts it. Then the machines share the tasks:
/// `g_j(U) = max over T in U feasible on j of |T| + g_{j-1}(U - T)`.
///
/// Errors: an invalid instance, or more than [`MAX_EXACT_TASKS`] eligible counted tasks.
pub fn exact_small(inst: &Instance) -> Result<usize, BoundError> {
    inst.validate()?;
    let tasks = eligible_tasks(inst);
    let n = tasks.len();
    if n > MAX_EXACT_TASKS {
        return Err(BoundError::TooLarge {
            max: MAX_EXACT_TASKS,
            got: n,
        });
    }
    let full = 1usize << n;
    let mut best: Vec<usize> = vec![0; full];
    let mut f: Vec<Option<Tick>> = vec![None; full];
    for j in 0..inst.n_machines() {
        f.iter_mut().for_each(|v| *v = None);
        f[0] = Some(Tick::MIN);
        for s in 1..full {
            let mut out: Option<Tick> = None;
            for (bit, &k) in tasks.iter().enumerate() {
                if s & (1 << bit) == 0 {
                    continue;
                }
                let Some(prev) = f[s & !(1 << bit)] else {
                    continue;
                };
                let c = prev.max(inst.arrival[k]).saturating_add(inst.exec[[k, j]]);
                if c < inst.deadline[k] {
                    out = Some(out.map_or(c, |o: Tick| o.min(c)));
                }
            }
            f[s] = out;
        }
        // g_j(U) = max over feasible T subset of U of |T| + g_{j-1}(U - T).
        let prev = best.clone();
        for u in 0..full {
            let mut b = prev[u];
            let mut t = u;
            while t > 0 {
                if f[t].is_some() {
                    b = b.max(t.count_ones() as usize + prev[u & !t]);
                }
                t = (t - 1) & u;
            }
            best[u] = b;
        }
    }
    Ok(best[full - 1])
}
