//! Drives the live scheduler through many tasks and prints its peak memory: a long-running
//! dispatcher's memory is bounded by the tasks in the system, not by those it has seen
//! (`docs/reliability.md`, "Bounded resources").
//!
//! ```text
//! cargo run --release -p live --example soak -- [TASKS] [CHECKPOINT ...]
//! ```
//! `TASKS` (default 10^7) tasks of the default PET (12 types x 8 machines, one tick a
//! second) arrive at a steady pace twice what the machines can run on average (queues full, drops), each due three of
//! its type's mean times later and executing its type's mean time on its machine; PAM maps
//! them with the paper's pruner. At each `CHECKPOINT` (default 10^6) and at the end it prints
//! the tasks so far, the tasks the scheduler holds, and the process's peak resident memory
//! (`VmHWM` of `/proc/self/status`). It fails when a task is held long after its end.

use std::cmp::Reverse;
use std::collections::BinaryHeap;

use live::{Action, Scheduler, SchedulerConfig};
use workload::Pet;

fn peak_rss_kib() -> u64 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("VmHWM:"))
                .and_then(|l| l.split_whitespace().nth(1)?.parse().ok())
        })
        .unwrap_or(0)
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args = std::env::args()
        .skip(1)
        .map(|a| a.parse::<f64>().map(|x| x as usize));
    let tasks = args.next().transpose()?.unwrap_or(10_000_000);
    let mut checkpoints: Vec<usize> = args.collect::<Result<_, _>>()?;
    if checkpoints.is_empty() {
        checkpoints.push(1_000_000);
    }
    let pet = Pet::default_pet(1);
    let types = pet.n_types();
    let mut s = Scheduler::new(pet.clone(), SchedulerConfig::default())?;
    let mut ends: BinaryHeap<Reverse<(u64, usize)>> = BinaryHeap::new();
    let mut out = Vec::new();
    // The mean time of each type over the machines, and the arrival gap that asks 200% of
    // the machines, in tenths of a second.
    let means: Vec<f64> = (0..types)
        .map(|t| {
            (0..pet.n_machines())
                .map(|m| pet.pmf(t, m).mean())
                .sum::<f64>()
                / pet.n_machines() as f64
        })
        .collect();
    let gap = (means.iter().sum::<f64>() / types as f64 / pet.n_machines() as f64 / 2.0 * 10.0)
        .ceil()
        .max(1.0) as u64;
    let mut most_held = 0;
    let mut most_open = 0;
    let started = std::time::Instant::now();
    for i in 0..tasks {
        // Time in tenths of a second, as an integer so that it never goes backwards.
        let now_tenths = i as u64 * gap;
        let now = now_tenths as f64 / 10.0;
        while let Some(&Reverse((at, t))) = ends.peek() {
            if at > now_tenths {
                break;
            }
            ends.pop();
            // A task the scheduler dropped meanwhile is not reported.
            let _ = s.completed(t, at as f64 / 10.0);
        }
        s.submit(now, i % types, now + 3.0 * means[i % types])?;
        out.clear();
        s.decide_into(now, &mut out)?;
        for a in &out {
            if let Action::Start { task, machine } = *a {
                s.started(task, now)?;
                let ty = task % types;
                let run = (pet.pmf(ty, machine).mean() * 10.0).ceil() as u64;
                ends.push(Reverse((now_tenths + run.max(1), task)));
            }
        }
        let held = s.held();
        most_held = most_held.max(held);
        let open = s.counts().submitted - s.counts().ended();
        most_open = most_open.max(open);
        // Those in the system, and at most as many that ended before the last compaction
        // and during one decision since.
        if held > 3 * most_open.max(64) {
            return Err(format!("{held} tasks held, at most {most_open} in the system").into());
        }
        if checkpoints.contains(&(i + 1)) || i + 1 == tasks {
            let c = s.counts();
            println!(
                "tasks {:>9}  ended {:>9}  on time {:>9}  held now {:>5} (most {:>5}, in the system at most {:>5})  peak RSS {:>7} KiB  {:.0} s",
                i + 1,
                c.ended(),
                c.of(live::Outcome::OnTime),
                held,
                most_held,
                most_open,
                peak_rss_kib(),
                started.elapsed().as_secs_f64()
            );
        }
    }
    Ok(())
}
